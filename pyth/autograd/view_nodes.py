"""Graph nodes that are not formulas: the backward of a view whose base was modified in place
(AsStridedBackward0) and of an in-place write through a view (CopySlices)."""


from __future__ import annotations

from typing import Any

from .._prims.creation import arange, zeros
from ..dtypes import int64
from ..tensor import Tensor
from .graph import _FREED, Node


# ---- views: their geometry, their base, the ops whose outputs may not be rewritten ------

def geometry(t: Tensor) -> tuple:
    return (tuple(t.shape), tuple(t.stride()), t.storage_offset())


class NoGradView:
    """A view's base, for a view made with grad mode off: PyTorch refuses to record an
    in-place op on such a view."""

    __slots__ = ("t",)

    def __init__(self, t: Tensor) -> None:
        self.t = t


def view_base(t: Any) -> Any:
    """The tensor t is a view of (the root of a chain of views), or None."""
    vb = getattr(t, "_vb", None)
    return vb.t if type(vb) is NoGradView else vb


_MULTI_VIEW = ("chunk", "split", "split_with_sizes", "unbind")   # ops returning several views (even one)


def is_multi_view(node: Any) -> bool:
    """Whether node is that of unbind / chunk / split, whose outputs are views PyTorch refuses
    to rewrite history for."""
    return getattr(getattr(node, "op", None), "name", None) in _MULTI_VIEW


def multi_view_message(nr: int, node: Any, base: bool = False) -> str:
    """PyTorch's refusal of an in-place op on an output of unbind / chunk / split (base: of
    using such an output after its base, or another view of it, was modified in place)."""
    name = node.name().removesuffix("Backward0")
    what = ("its base or another view of its base has been modified inplace" if base else
            "is being modified inplace")
    return (f"Output {nr} of {name} is a view and {what}. This view is the "
            "output of a function that returns multiple views. Such functions do not allow "
            "the output views to be modified inplace. You should replace the inplace operation "
            "by an out-of-place one.")


# ---- nodes that are not formulas: views of modified bases ------------------------------------

def _storage_len(t: Any) -> int:
    return len(t.storage())


def strided_backward(g: Tensor, in_geom: tuple, out_geom: tuple, length: int) -> Tensor:
    """Gradient through out = as_strided(in's storage, out_geom): out's gradient is added into
    the storage cells it reads, and in's gradient read from the cells in views."""
    cells = arange(length, dtype=int64)
    out_cells = cells.as_strided(*out_geom).reshape(-1)
    buf = zeros(length, dtype=g.dtype).index_add(0, out_cells, g.reshape(-1))
    in_cells = cells.as_strided(*in_geom)
    return buf.take(in_cells)


class AsStridedBackward0(Node):
    """A view's gradient added into the cells of its base (after the base changed in place)."""

    __slots__ = ("base_geom", "dtype", "length", "view_geom")
    n_outputs = 1

    def apply(self, grads: list) -> list:
        return [strided_backward(grads[0], self.base_geom, self.view_geom, self.length)]


def view_of_base_node(base: Tensor, view: Tensor, base_edge: tuple) -> Node:
    node = AsStridedBackward0((base_edge,))
    node.base_geom, node.view_geom = geometry(base), geometry(view)
    node.length = _storage_len(base)
    node.dtype = base.dtype
    return node


class CopySlices(Node):
    """The base of a view that an in-place op modified: the op's gradient applies to the
    view's cells of the base's gradient, the other cells pass through unchanged."""

    __slots__ = ("base_geom", "fn", "length", "released", "view_geom")
    n_outputs = 1

    def __init__(self, base: Tensor, view_geom: tuple, fn: Node, base_edge: Any) -> None:
        super().__init__(((base_edge if base_edge is not None else (None, 0)),) +
                         tuple(fn._next[1:]))
        self.base_geom, self.view_geom = geometry(base), view_geom
        self.length = _storage_len(base)
        self.fn = fn
        self.released = False

    def apply(self, grads: list) -> list:
        if self.released:
            raise RuntimeError(_FREED)
        g = grads[0]
        cells = arange(self.length, dtype=int64)
        base_cells = cells.as_strided(*self.base_geom)
        view_cells = cells.as_strided(*self.view_geom).reshape(-1)
        # the base's gradient spread over the storage cells (out-of-place, recorded ops only,
        # so that under create_graph this backward is differentiable in turn)
        spread = zeros(self.length, dtype=g.dtype).index_add(0, base_cells.reshape(-1),
                                                               g.reshape(-1))
        region = spread.take(view_cells).view(self.view_geom[0])
        res = self.fn.apply([region])
        spread = spread.index_fill(0, view_cells, 0)
        if res[0] is not None:
            spread = spread.index_add(0, view_cells, res[0].reshape(-1))
        return [spread.take(base_cells)] + list(res[1:])

    def release(self) -> None:
        self.fn.release()
        if self.fn.op.saves_tensors:
            self.released = True
