"""Shared pieces of the formulas: the table (TABLE, defop), the recorded ops they call, and the
helpers that bring a gradient back to an input's shape (unreduce, embed ...)."""

from __future__ import annotations

from typing import Any, Callable

from .. import grad_mode
from ... import dtypes as _dt
from ..._prims.creation import arange, zeros, zeros_like
from ..._size import Size
from ..._prims import recorded  # noqa: F401  (the formulas import it from here)
from ..._th import ffi
from ...tensor import Tensor, c_sizes, wrap
from ..record import Op, mark_view
from ..variable import requires_grad_of


# The formulas call the recorded ops (matmul, where, cat, svd ...) through pyth._prims.recorded,
# so that a backward pass run with create_graph=True is itself recorded and can be
# differentiated again; ops whose recorded form is not needed there (zeros, eye, arange ...)
# come straight from pyth/_prims/creation.py.


# One entry per differentiable op, as PyTorch's derivatives.yaml: the op's name, its
# differentiable arguments, what it saves, and the formula, a function (grad, args) -> the
# gradient of each differentiable argument (None where there is none). `args` holds the op's
# arguments by name (`self` is called `input`), saved tensors as tensors and the others as
# `Info` (shape, dtype), and `result` when saved. The node, not the formula, brings each
# gradient back to its input's shape (summing broadcast dims) and dtype; reductions' backward
# hands back expanded views, not copies.
TABLE: dict[str, Op] = {}


def defop(name: str, diff: str = "input", save: str = "", **kw: Any) -> Callable:
    """Decorator: the formula it wraps becomes TABLE's entry for op `name`."""
    def deco(fn: Callable) -> Callable:
        TABLE[name] = Op(name, diff, fn, save, **kw)
        return fn
    return deco


def _zero(g: Tensor) -> Tensor:
    """The gradient of an argument the output does not depend on."""
    return zeros_like(g)


# ---- helpers -------------------------------------------------------------------------------------

def _dims(dim: Any, n: int) -> list:
    """dim (None, (), an int or a sequence) as sorted non-negative dims of an n-dim tensor."""
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return list(range(n))
    if isinstance(dim, (tuple, list, Size)):
        return sorted(int(d) % max(n, 1) for d in dim)
    return [int(dim) % max(n, 1)] if n else []


# shape -> its int64_t[] (read-only: newExpand copies it): a training step's sums expand to the
# same few shapes every step, and a new array costs a third of the view's C call
_SIZES: dict[tuple, Any] = {}


def unreduce(g: Tensor, shape: tuple, dim: Any, keepdim: bool) -> Tensor:
    """A reduction's gradient as an expanded view of input's shape (no copy)."""
    if dim is None and g.dim() == 0:   # over all elements: the 0-dim g expands as it is
        if not grad_mode.state.enabled:     # a plain backward: the C view, nothing recorded
            dt = g.dtype
            sizes = _SIZES.get(shape) if type(shape) is tuple else c_sizes(shape)
            if sizes is None:
                if len(_SIZES) >= 256:
                    _SIZES.clear()
                sizes = _SIZES[shape] = ffi.new("int64_t[]", c_sizes(shape))
            r = wrap(dt, dt.tensor.newExpand(g._h, len(shape), sizes))
            mark_view(r, g)
            return r
        return g.expand(tuple(shape))
    if not keepdim:
        for d in _dims(dim, len(shape)):
            g = g.unsqueeze(d)
    return g.expand(tuple(shape))


def _count(shape: tuple, dim: Any) -> int:
    n = 1
    for d in _dims(dim, len(shape)):
        n *= shape[d]
    return n


def _positions(shape: tuple) -> Tensor:
    n = 1
    for s in shape:
        n *= s
    return arange(n, dtype=_dt.int64).view(tuple(shape))


def selection_backward(g: Tensor, shape: tuple, select: Callable) -> Tensor:
    """The adjoint of a selection (select(t) picks elements of t, possibly repeatedly):
    g's elements added back where they came from. Differentiable again (an index_add)."""
    pos = select(_positions(shape)).reshape(-1)
    n = 1
    for s in shape:
        n *= s
    out = zeros(n, dtype=g.dtype)
    return out.index_add(0, pos, g.reshape(-1)).view(tuple(shape))


def embed(g: Tensor, shape: tuple, view: Callable) -> Tensor:
    """The adjoint of a non-overlapping view: zeros with g written through the view."""
    if requires_grad_of(g):
        return selection_backward(g, shape, view)
    out = zeros(tuple(shape), dtype=g.dtype)
    view(out).copy_(g)
    return out


