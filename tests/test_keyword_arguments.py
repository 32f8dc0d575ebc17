"""No public function swallows keywords: a **kwargs parameter must be read (forwarded to a
call that checks it, or checked itself), so that a misspelt or unsupported keyword raises
TypeError as in PyTorch instead of being ignored."""

from __future__ import annotations

import dis
import importlib
import inspect
import pkgutil
from typing import Any, Iterator

import pytest

import pyth

# Where PyTorch itself ignores keywords, with the reason; keep this list tiny.
ALLOWED = {
    "pyth.nn.modules.linear.Identity.__init__",   # PyTorch's Identity ignores every argument
}


def _modules() -> Iterator[Any]:
    yield pyth
    for info in pkgutil.walk_packages(pyth.__path__, "pyth."):
        if any(part.startswith("_") for part in info.name.split(".")[1:]) or \
                info.name.startswith(("pyth.__main__", "pyth.cli")):
            continue
        try:
            yield importlib.import_module(info.name)
        except ImportError:   # an optional dependency (mpi4py ...) is missing
            continue


def _callables() -> Iterator[tuple[str, Any]]:
    """(qualified name, function) for every public function, method and constructor of
    pyth's public modules, and each function it wraps (__wrapped__)."""
    seen: set[int] = set()
    for mod in _modules():
        for name in dir(mod):
            if name.startswith("_"):
                continue
            obj = getattr(mod, name)
            owner = getattr(obj, "__module__", None) or ""
            if not owner.startswith("pyth"):
                continue
            members = [(name, obj)]
            if inspect.isclass(obj):
                members = [(f"{name}.{k}", v) for k, v in vars(obj).items()
                           if not k.startswith("_") or k == "__init__"]
            for qual, f in members:
                f = getattr(f, "__func__", f)
                while callable(f) and id(f) not in seen:
                    seen.add(id(f))
                    if inspect.isfunction(f):
                        yield f"{f.__module__}.{f.__qualname__}".replace(".<locals>", ""), f
                    f = getattr(f, "__wrapped__", None)


def _swallowed(f: Any) -> str | None:
    """The name of f's **kwargs parameter when f's code never reads it yet can return (a
    function that always raises, as a removed one does, swallows nothing), else None."""
    kw = next((p.name for p in inspect.signature(f, follow_wrapped=False).parameters.values()
               if p.kind is p.VAR_KEYWORD), None)
    if kw is None:
        return None
    code = list(dis.get_instructions(f.__code__))
    read = {i.argval for i in code if i.opname.startswith("LOAD")}
    returns = any(i.opname.startswith("RETURN") for i in code)
    return kw if returns and kw not in read else None


def test_scan_reaches_the_api() -> None:
    names = {q for q, _ in _callables()}
    assert len(names) > 500
    assert "pyth.nn._losses.mse_loss" in names and "pyth._prims.creation.zeros" in names


def test_no_public_function_swallows_keywords() -> None:
    bad = sorted(f"{q}(**{kw})" for q, f in _callables()
                 if (kw := _swallowed(f)) is not None and q not in ALLOWED)
    assert bad == []


@pytest.mark.parametrize("call", [
    lambda: pyth.nn.functional.mse_loss(pyth.ones(2), pyth.ones(2), bogus=3),
    lambda: pyth.nn.functional.binary_cross_entropy(pyth.ones(2) / 2, pyth.ones(2), bogus=3),
    lambda: pyth.zeros(2, bogus=3),
    lambda: pyth._prims.creation.zeros(2, bogus=3),
    lambda: pyth.autograd.gradcheck(lambda x: x, (pyth.ones(1, dtype=pyth.float64),), bogus=1),
    lambda: pyth.empty_strided((2,), (1,), bogus=1),
    lambda: pyth.range(0, 3, bogus=1),
    lambda: pyth.ones(2).to(pyth.float64, bogus=1),
])
def test_unknown_keyword_is_a_type_error(call: Any) -> None:
    with pytest.raises(TypeError, match=r"got an unexpected keyword argument 'bogus'"):
        call()
