"""Shared pieces of the formulas: the table (TABLE, defop) and the helpers that bring a
gradient back to an input's shape (unreduce, sum_to ...)."""


from __future__ import annotations

from typing import Any, Callable

from .. import grad_mode
from ... import dtypes as _dt
from ..._size import Size
from ..._th import ffi
from ...tensor import Tensor, c_sizes, wrap
from ..record import Op, mark_view
from ..variable import requires_grad_of


class _Ops:
    """pyth's ops as the formulas call them: looked up when called, in the kernel-backed
    modules' tables, where install() has put their recorded forms (so that a backward run
    with create_graph=True is itself recorded)."""

    _places: tuple = ()

    def __getattr__(self, name: str) -> Any:
        if not self._places:
            # imported here: pyth.autograd is imported while the kernel-backed modules load
            from ... import dtypes, linalg
            from ..._prims import creation, matmul, pointwise, reductions, shape
            from ..._size import Size
            tables = (pointwise.FUNCTIONS, shape.FUNCTIONS, matmul.FUNCTIONS,
                      reductions.FUNCTIONS, linalg.TOPLEVEL)
            type(self)._places = (tables, {"linalg": linalg, "Size": Size}, (dtypes, creation))
        tables, named, modules = self._places
        for table in tables:
            if name in table:
                return table[name]
        if name in named:
            return named[name]
        for m in modules:
            if hasattr(m, name):
                return getattr(m, name)
        raise AttributeError(f"pyth has no op {name!r}")


P = _Ops()


TABLE: dict[str, Op] = {}


def defop(name: str, diff: str = "input", save: str = "", **kw: Any) -> Callable:
    def deco(fn: Callable) -> Callable:
        TABLE[name] = Op(name, diff, fn, save, **kw)
        return fn
    return deco


def _zero(g: Tensor) -> Tensor:
    return P.zeros_like(g)


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
    return P.arange(n, dtype=_dt.int64).view(tuple(shape))


def selection_backward(g: Tensor, shape: tuple, select: Callable) -> Tensor:
    """The adjoint of a selection (select(t) picks elements of t, possibly repeatedly):
    g's elements added back where they came from. Differentiable again (an index_add)."""
    pos = select(_positions(shape)).reshape(-1)
    n = 1
    for s in shape:
        n *= s
    out = P.zeros(n, dtype=g.dtype)
    return out.index_add(0, pos, g.reshape(-1)).view(tuple(shape))


def embed(g: Tensor, shape: tuple, view: Callable) -> Tensor:
    """The adjoint of a non-overlapping view: zeros with g written through the view."""
    if requires_grad_of(g):
        return selection_backward(g, shape, view)
    out = P.zeros(tuple(shape), dtype=g.dtype)
    view(out).copy_(g)
    return out


