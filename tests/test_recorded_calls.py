"""Code above autograd calls the differentiable kernel-backed ops in their recorded forms
(pyth.autograd.recorded), never the raw functions of pyth/_prims, whose results would carry no
gradient: nothing rewrites a module's names after it loads, so an import that takes the raw
form keeps it."""

from __future__ import annotations

import ast
import inspect
import sys
import types
from typing import Any, Callable

import numpy as np
import pytest

import pyth
import pyth.nn.functional  # noqa: F401
from pyth.autograd import recorded

RAW = {id(fn): name for name, fn in recorded.RAW.items()}
BELOW = ("pyth._prims", "pyth._ops", "pyth.random", "pyth.autograd", "pyth._th")


def _upper_modules() -> list[types.ModuleType]:
    return [m for name, m in sorted(sys.modules.items())
            if m is not None and (name == "pyth" or name.startswith("pyth.")) and
            not name.startswith(BELOW)]


def _reaches_raw(fn: Any) -> str | None:
    """The raw recorded function fn is or holds in its closure (not through a recorded
    wrapper, which holds its raw form by design), or None."""
    seen: set[int] = set()
    stack = [fn]
    while stack:
        f = stack.pop()
        if id(f) in seen or str(getattr(f, "__module__", "")).startswith("pyth.autograd"):
            continue
        seen.add(id(f))
        if id(f) in RAW:
            return RAW[id(f)]
        for cell in getattr(f, "__closure__", None) or ():
            try:
                v = cell.cell_contents
            except ValueError:
                continue
            if callable(v):
                stack.append(v)
            elif isinstance(v, dict):
                stack.extend(x for x in v.values() if callable(x))
    return None


def raw_holders(namespace: dict[str, Any], where: str) -> list[str]:
    """The names of namespace (and the entries of its dicts) that are or hold a raw recorded
    function."""
    found = []
    for k, v in namespace.items():
        items = v.items() if type(v) is dict else [(None, v)]
        for dk, dv in items:
            if callable(dv) and not isinstance(dv, type):
                raw = _reaches_raw(dv)
                if raw is not None:
                    found.append(f"{where}:{k}{'' if dk is None else f'[{dk}]'} -> raw {raw}")
    return found


def raw_attribute_calls(module: types.ModuleType) -> list[str]:
    """`alias.name` in module's source, alias a kernel-backed module and name one it records."""
    aliases = {k: v for k, v in vars(module).items()
               if isinstance(v, types.ModuleType) and v.__name__.startswith("pyth._prims")}
    if not aliases:
        return []
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError):
        return []
    return [f"{module.__name__}:{n.lineno} {n.value.id}.{n.attr}" for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and
            n.value.id in aliases and id(getattr(aliases[n.value.id], n.attr, None)) in RAW]


def test_modules_above_autograd_hold_recorded_forms() -> None:
    found = []
    for m in _upper_modules():
        found += raw_holders(vars(m), m.__name__)
        found += raw_attribute_calls(m)
    assert found == []


def test_tensor_methods_are_recorded() -> None:
    assert raw_holders(dict(vars(pyth.Tensor)), "Tensor") == []
    for dt in pyth.dtypes.ALL_DTYPES:
        assert raw_holders(dict(vars(dt.tensor_class)), dt.tensor_class.__name__) == []


def test_the_check_can_fail() -> None:
    raw_cat: Callable = recorded.RAW["cat"]
    assert raw_holders({"cat": raw_cat}, "m") == ["m:cat -> raw cat"]
    assert raw_holders({"P": {"mul": recorded.RAW["mul"]}}, "m") == ["m:P[mul] -> raw mul"]
    assert raw_holders({"m": lambda x: raw_cat([x])}, "m") == ["m:m -> raw cat"]
    assert raw_holders({"cat": recorded.cat, "P": recorded.POINTWISE}, "m") == []
    y = pyth.ones(2, requires_grad=True)
    assert recorded.cat([y, y]).grad_fn is not None
    assert raw_cat([y, y]).grad_fn is None


CALLS = {
    "hstack": lambda t, x: t.hstack([x, x]), "vstack": lambda t, x: t.vstack([x, x]),
    "dstack": lambda t, x: t.dstack([x, x]), "fliplr": lambda t, x: t.fliplr(x),
    "flipud": lambda t, x: t.flipud(x), "rot90": lambda t, x: t.rot90(x),
    "msort": lambda t, x: t.msort(x), "dist": lambda t, x: t.dist(x, 2 * x),
    "matrix_norm": lambda t, x: t.linalg.matrix_norm(x),
    "linalg.norm nuc": lambda t, x: t.linalg.norm(x, "nuc"), "logdet": lambda t, x: t.logdet(x),
    "inverse": lambda t, x: x.inverse(), "split": lambda t, x: t.split(x, [1, 2])[1],
    "where method": lambda t, x: x.where(x > 1, 0.5), "relu_": lambda t, x: x.clone().relu_(),
    "relu": lambda t, x: t.relu(x), "pinv": lambda t, x: t.linalg.pinv(x),
    "pinverse": lambda t, x: t.pinverse(x), "matrix_rank": lambda t, x: t.cat(
        [t.linalg.matrix_rank(x).to(x.dtype).reshape(1), x.reshape(-1)]),
}


@pytest.mark.parametrize("name", CALLS)
def test_compositions_record_their_gradients(name: str) -> None:
    torch = pytest.importorskip("torch")
    a = [[2.0, 0.5, 0.1], [0.3, 3.0, 0.2], [0.1, 0.4, 1.5]]
    x = pyth.tensor(a, dtype=pyth.float64, requires_grad=True)
    tx = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    r, tr = CALLS[name](pyth, x), CALLS[name](torch, tx)
    r.sum().backward()
    tr.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
