"""Every gradient the engine is handed is checked against the tensor it is for.

Hooks (tensor hooks on leaves and non-leaves, node pre- and post-hooks, post-accumulate
hooks), a custom Function's backward and backward(gradient=) / grad(grad_outputs=) each give
the engine gradients it did not compute. Each case runs on pyth and, when installed, on
PyTorch: the outcome (exception type and message with the library's name, or the leaf's
gradient, shape and dtype) must be the same.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np
import pytest

import pyth


def _hooked(lib: Any, hook: Callable, on_leaf: bool = True) -> Any:
    x = lib.ones(3, requires_grad=True)
    y = x * 2
    (x if on_leaf else y).register_hook(hook)
    y.sum().backward()
    return x


def _function(lib: Any, backward: Callable, arg: Any = None) -> Any:
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any, *rest: Any) -> Any:
            return x * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return backward(lib, g)

    x = lib.ones(3, requires_grad=True)
    (F.apply(x) if arg is None else F.apply(x, arg)).sum().backward()
    return x


def _named_hook(lib: Any) -> Any:
    def hook(g: Any) -> Any:
        return lib.ones(5)
    return _hooked(lib, hook)


class _Callable:
    def __init__(self, lib: Any) -> None:
        self.lib = lib

    def __call__(self, g: Any) -> Any:
        return self.lib.ones(5)


def _node_hook(lib: Any, ret: Callable, pre: bool) -> Any:
    x = lib.ones(3, requires_grad=True)
    y = x.exp()
    if pre:
        y.grad_fn.register_prehook(lambda go: ret(lib))
    else:
        y.grad_fn.register_hook(lambda gi, go: ret(lib))
    y.sum().backward()
    return x


def _post_accumulate(lib: Any, ret: Callable) -> Any:
    x = lib.ones(3, requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda t: ret(lib))
    (x * 2).sum().backward()
    return x


def _seeded(lib: Any, dtype: str, leaf: bool = False, shape: tuple = (3,),
            out_dtype: str = "float32") -> Any:
    x = lib.ones(3, requires_grad=True, dtype=getattr(lib, out_dtype))
    y = x if leaf else x * 2
    y.backward(gradient=lib.ones(*shape, dtype=getattr(lib, dtype)))
    return x


def _grad_outputs(lib: Any, go: Any) -> Any:
    x = lib.ones(3, requires_grad=True)
    return lib.autograd.grad(x * 2, x, grad_outputs=go(lib))[0]


CASES: dict[str, Callable[[Any], Any]] = {
    # tensor hooks: the result must keep the gradient's type and size
    "leaf hook wrong size": lambda lib: _named_hook(lib),
    "non-leaf hook wrong size": lambda lib: _hooked(lib, lambda g: lib.ones(5), on_leaf=False),
    "leaf hook int64": lambda lib: _hooked(lib, lambda g: lib.ones(3, dtype=lib.int64)),
    "leaf hook float64": lambda lib: _hooked(lib, lambda g: lib.ones(3, dtype=lib.float64)),
    "non-leaf hook float64": lambda lib: _hooked(lib, lambda g: g.double(), on_leaf=False),
    "leaf hook 2x2 for 4": lambda lib: _hooked(lib, lambda g: lib.ones(2, 2)),
    "leaf hook broadcastable": lambda lib: _hooked(lib, lambda g: lib.ones(2, 3)),
    "leaf hook 0-dim": lambda lib: _hooked(lib, lambda g: lib.tensor(1.0)),
    "leaf hook returns int": lambda lib: _hooked(lib, lambda g: 3),
    "non-leaf hook returns int": lambda lib: _hooked(lib, lambda g: 3, on_leaf=False),
    "leaf hook returns list": lambda lib: _hooked(lib, lambda g: [1.0, 2.0, 3.0]),
    "callable object hook": lambda lib: _hooked(lib, _Callable(lib)),
    "partial hook": lambda lib: _hooked(lib, functools.partial(lambda a, g: lib.ones(5), 1)),
    "hook keeps type and size": lambda lib: _hooked(lib, lambda g: g * 3),
    # custom Function.backward: checked as the engine checks every node's gradients
    "Function wrong size": lambda lib: _function(lib, lambda lib, g: lib.ones(5)),
    "Function 0-dim": lambda lib: _function(lib, lambda lib, g: lib.ones(())),
    "Function size 1": lambda lib: _function(lib, lambda lib, g: lib.ones(1)),
    "Function broadcast summed": lambda lib: _function(lib, lambda lib, g: lib.ones(4, 3)),
    "Function leading 1": lambda lib: _function(lib, lambda lib, g: lib.ones(1, 3)),
    "Function int64 cast": lambda lib: _function(lib, lambda lib, g: lib.ones(3, dtype=lib.int64)),
    "Function float64 cast": lambda lib: _function(lib, lambda lib, g: g.double()),
    "Function bool cast": lambda lib: _function(lib, lambda lib, g: lib.ones(3, dtype=lib.bool)),
    "Function returns int": lambda lib: _function(lib, lambda lib, g: 3),
    "Function returns float": lambda lib: _function(lib, lambda lib, g: 3.0),
    "Function returns list": lambda lib: _function(lib, lambda lib, g: [g]),
    "Function grad for number": lambda lib: _function(lib, lambda lib, g: (g, lib.ones(5)), 2),
    "Function grad for constant": lambda lib: _function(lib, lambda lib, g: (g, lib.ones(5)),
                                                        lib.ones(3)),
    "Function too many": lambda lib: _function(lib, lambda lib, g: (g, g)),
    "Function extra Nones": lambda lib: _function(lib, lambda lib, g: (g, None, None)),
    # node hooks: a tuple of as many gradients, each as a tensor hook's
    "pre-hook wrong size": lambda lib: _node_hook(lib, lambda lib: (lib.ones(5),), True),
    "pre-hook int64": lambda lib: _node_hook(lib, lambda lib: (lib.ones(3, dtype=lib.int64),),
                                             True),
    "pre-hook int": lambda lib: _node_hook(lib, lambda lib: (3,), True),
    "pre-hook count": lambda lib: _node_hook(lib, lambda lib: (lib.ones(3), lib.ones(3)), True),
    "pre-hook list": lambda lib: _node_hook(lib, lambda lib: [lib.ones(3)], True),
    "pre-hook tensor": lambda lib: _node_hook(lib, lambda lib: lib.ones(3), True),
    "pre-hook None": lambda lib: _node_hook(lib, lambda lib: (None,), True),
    "post-hook wrong size": lambda lib: _node_hook(lib, lambda lib: (lib.ones(5),), False),
    "post-hook float64": lambda lib: _node_hook(lib, lambda lib: (lib.ones(3).double(),),
                                                False),
    "post-hook int": lambda lib: _node_hook(lib, lambda lib: (3,), False),
    "post-hook count": lambda lib: _node_hook(lib, lambda lib: (lib.ones(3), lib.ones(3)),
                                              False),
    "post-hook tensor": lambda lib: _node_hook(lib, lambda lib: lib.ones(3), False),
    "post-hook replaces": lambda lib: _node_hook(lib, lambda lib: (lib.ones(3) * 7,), False),
    "post-accumulate returns tensor": lambda lib: _post_accumulate(lib, lambda lib: lib.ones(3)),
    "post-accumulate returns int": lambda lib: _post_accumulate(lib, lambda lib: 3),
    "post-accumulate wrong size": lambda lib: _post_accumulate(lib, lambda lib: lib.ones(5)),
    # roots: the shape must match; another real dtype is cast to the root's
    "backward(gradient=int64)": lambda lib: _seeded(lib, "int64"),
    "backward(gradient=float64)": lambda lib: _seeded(lib, "float64"),
    "backward(gradient=bool)": lambda lib: _seeded(lib, "bool"),
    "backward(gradient=float16)": lambda lib: _seeded(lib, "float16"),
    "leaf backward(gradient=int64)": lambda lib: _seeded(lib, "int64", leaf=True),
    "double root, float32 gradient": lambda lib: _seeded(lib, "float32", out_dtype="float64"),
    "backward(gradient=wrong shape)": lambda lib: _seeded(lib, "float32", shape=(5,)),
    "backward(gradient=leading 1)": lambda lib: _seeded(lib, "float32", shape=(1, 3)),
    "grad(grad_outputs=int64)": lambda lib: _grad_outputs(lib, lambda lib: lib.ones(3, dtype=lib.int64)),
    "grad(grad_outputs=int)": lambda lib: _grad_outputs(lib, lambda lib: 1),
    "grad(grad_outputs=[floats])": lambda lib: _grad_outputs(lib, lambda lib: [1.0, 1.0, 1.0]),
}


def _outcome(lib: Any, case: Callable[[Any], Any]) -> Any:
    """What the case gives: ("raise", type name, message) or ("ok", shape, dtype name,
    values) of the gradient it returns (a leaf's .grad or grad()'s result)."""
    try:
        r = case(lib)
    except Exception as e:   # noqa: BLE001 - the exception is the outcome compared
        return ("raise", type(e).__name__, str(e))
    g = r.grad if r.is_leaf and r.requires_grad else r
    if g is None:
        return ("ok", None)
    return ("ok", tuple(g.shape), str(g.dtype).split(".")[-1], np.asarray(g.tolist()).tolist())


# pyth's expected outcomes where they are not PyTorch's verbatim (the library's name aside)
EXPECTED_ERRORS = {
    "leaf hook wrong size": ("RuntimeError", "hook 'hook' has changed the size of value"),
    "non-leaf hook wrong size": ("RuntimeError", "hook '<lambda>' has changed the size of value"),
    "leaf hook int64": ("RuntimeError", "hook '<lambda>' has changed the type of value (was "
                        "pyth.FloatTensor got pyth.LongTensor)"),
    "leaf hook 2x2 for 4": ("RuntimeError", "hook '<lambda>' has changed the size of value"),
    "leaf hook returns int": ("TypeError", "expected Variable, but hook returned 'int'"),
    "callable object hook": ("RuntimeError", "hook '<unknown>' has changed the size of value"),
    "Function wrong size": ("RuntimeError", "Function FBackward returned an invalid gradient at "
                            "index 0 - got [5] but expected shape compatible with [3]"),
    "Function returns int": ("RuntimeError", "expected Variable or None (got int)"),
    "pre-hook count": ("RuntimeError", "hook '<lambda>' has returned an incorrect number of "
                       "values (got 2, but expected 1)"),
    "post-hook tensor": ("TypeError", "expected tuple, but hook returned 'Tensor'"),
    "post-accumulate returns tensor": ("RuntimeError",
                                       "Tensor post accumulate grad hooks should return None."),
}


@pytest.mark.parametrize("name", sorted(EXPECTED_ERRORS))
def test_gradient_errors(name: str) -> None:
    assert _outcome(pyth, CASES[name])[:3] == ("raise",) + EXPECTED_ERRORS[name]


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_checks_match_pytorch(name: str) -> None:
    torch = pytest.importorskip("torch")
    want = _outcome(torch, CASES[name])
    if want[0] == "raise":
        want = (want[0], want[1], want[2].replace("torch", "pyth"))
    assert _outcome(pyth, CASES[name]) == want


def test_gradient_casts_and_sums_without_torch() -> None:
    """The leaf gradients stay the leaf's shape and dtype (numbers from PyTorch's results)."""
    assert _outcome(pyth, CASES["backward(gradient=int64)"]) == \
        ("ok", (3,), "float32", [2.0, 2.0, 2.0])
    assert _outcome(pyth, CASES["Function broadcast summed"]) == \
        ("ok", (3,), "float32", [4.0, 4.0, 4.0])
    assert _outcome(pyth, CASES["Function int64 cast"]) == ("ok", (3,), "float32", [1.0] * 3)
    assert _outcome(pyth, CASES["double root, float32 gradient"]) == \
        ("ok", (3,), "float64", [2.0] * 3)


def test_backward_counts_gradients() -> None:
    x = pyth.ones(3, requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match=r"^got 2 tensors and 1 gradients$"):
        pyth.autograd.backward([y, y * 1], [pyth.ones(3)])
    with pytest.raises(TypeError, match=r"^'float' object is not iterable$"):
        pyth.autograd.backward([y], 2.0)
