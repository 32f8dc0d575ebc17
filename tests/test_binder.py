"""pyth/_bind.py is the one place that binds methods on Tensor: each step binds a name once,
autograd's step only wraps what exists, the composed ops add (one declared replacement), and no
other module assigns to Tensor or setattr()s on it."""

from __future__ import annotations

import ast
import collections
import pathlib
import sys

import pyth
from pyth import _bind

ROOT = pathlib.Path(pyth.__file__).resolve().parent
TENSOR = sys.modules["pyth.tensor"].Tensor


def _names(step: str) -> list[str]:
    return [n for n, _ in _bind.BOUND[step]]


def _class_body() -> set[str]:
    """The names tensor.py's class body defines."""
    tree = ast.parse((ROOT / "tensor.py").read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tensor")
    out = set()
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Assign):
            out |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
    return out


def test_the_steps_ran_in_order() -> None:
    assert list(_bind.BOUND) == ["kernel", "autograd", "recorded", "composed", "device",
                                 "protocols"]


def test_no_step_binds_a_name_twice() -> None:
    for step in _bind.BOUND:
        twice = [n for n, k in collections.Counter(_names(step)).items() if k > 1]
        assert twice == [], step


def test_autograd_wraps_only_what_exists() -> None:
    stamped = set(pyth.dtypes.CONVERSIONS)   # t.float() ...: tensor.py stamps them with its classes
    before = _class_body() | stamped | set(_names("kernel")) | set(_names("autograd"))
    assert sorted(set(_names("recorded")) - before) == []


def test_composed_ops_add_names() -> None:
    earlier = (_class_body() | set(_names("kernel")) | set(_names("autograd")) |
               set(_names("recorded")))
    assert set(_names("composed")) & earlier == _bind.REPLACES


def test_the_device_surface_wraps_to() -> None:
    assert set(_names("device")) & set(_names("recorded")) == {"to"}
    assert TENSOR.to.__wrapped__ is _bind._recorded_methods.METHODS["to"]


def test_the_protocols_add_names() -> None:
    everything = {n for step in _bind.BOUND if step != "protocols" for n in _names(step)}
    assert set(_names("protocols")) & (everything | _class_body()) == set()


def _assigns_to_tensor(path: pathlib.Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id == "setattr" and node.args and \
                isinstance(node.args[0], ast.Name) and node.args[0].id == "Tensor":
            out.append(f"{path.name}:{node.lineno} setattr(Tensor, ...)")
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and \
                        t.value.id == "Tensor":
                    out.append(f"{path.name}:{node.lineno} Tensor.{t.attr} = ...")
    return out


def test_only_the_binder_assigns_to_tensor() -> None:
    found = [a for p in sorted(ROOT.rglob("*.py")) if p.name != "_bind.py"
             for a in _assigns_to_tensor(p)]
    assert found == []


def test_the_scan_sees_an_assignment(tmp_path: pathlib.Path) -> None:
    f = tmp_path / "m.py"
    f.write_text("setattr(Tensor, 'x', 1)\nTensor.y = 2\n")
    assert len(_assigns_to_tensor(f)) == 2
