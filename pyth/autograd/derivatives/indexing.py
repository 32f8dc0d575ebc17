"""Formulas of the indexing ops, t[...] and t[...] = v, and the in-place-only ops."""


from __future__ import annotations

from typing import Any

from ..._prims.creation import zeros
from ..._prims.index_forms import as_index
from ...tensor import Tensor
from ..record import Info as Info_, Op, sum_to
from ._common import TABLE, _positions, _zero, defop, embed, recorded, selection_backward
from .reductions import _evenly, _indexed
from .shape import _shape_of


# ---- indexing ------------------------------------------------------------------------------------

def _is_view_index(index: Any) -> bool:
    index = as_index(index, warn=False)
    items = index if isinstance(index, tuple) else (index,)
    return all(i is None or i is Ellipsis or isinstance(i, (int, slice)) and
               not isinstance(i, bool) for i in items)


@defop("getitem", node="IndexBackward0")
def _getitem(g: Tensor, a: dict) -> Tensor:
    index = as_index(a["index"], warn=False)
    if _is_view_index(index):
        return embed(g, _shape_of(a), lambda t: t[index])
    return selection_backward(g, _shape_of(a), lambda t: t[index])


def _getitem_into(buf: Tensor, g: Tensor, a: dict) -> bool:
    """For a basic index (a view), the gradient added into buf through the same view: the
    input's gradient grows in place instead of by one zero-filled full-size tensor a slice."""
    index = as_index(a["index"], warn=False)
    if not _is_view_index(index):
        return False
    view = buf[index]
    if view.shape != g.shape:   # (a hook's gradient of another shape: the formula says why)
        return False
    view.add_(g)
    return True


TABLE["getitem"].add_into = _getitem_into


@defop("setitem", "input value", node="IndexPutBackward0")
def setitem_backward(g: Tensor, a: dict) -> tuple:
    shape, index = _shape_of(a), as_index(a["index"], warn=False)
    pos = _positions(shape)[index]
    flat = g.reshape(-1)
    gv = _value_grad(flat.take(pos), a["value"]) if isinstance(a["value"], Info_) else None
    gi = g.clone().reshape(-1).index_fill(0, pos.reshape(-1), 0).view(shape)
    return gi, gv


def _value_grad(g: Tensor, value: Info_) -> Tensor:
    """The gradient of an assigned value from that of the elements it filled: summed over the
    dims it was broadcast along, after the leading size-1 dims setitem dropped from it."""
    shape = tuple(value.shape)
    k = 0
    while k < len(shape) and shape[k] == 1:
        k += 1
    return sum_to(g, shape[k:]).reshape(shape)


defop("index_select", "input")(lambda g, a: zeros(_shape_of(a), dtype=g.dtype).index_add(
    a["dim"], a["index"], g))
defop("gather", "input")(lambda g, a: zeros(_shape_of(a), dtype=g.dtype).scatter_add(
    a["dim"], a["index"], g))
defop("take", "input")(lambda g, a: selection_backward(g, _shape_of(a),
                                                       lambda t: t.take(a["index"])))
defop("masked_select", "input")(lambda g, a: selection_backward(
    g, _shape_of(a), lambda t: t.masked_select(a["mask"])))


@defop("masked_fill", "input value")
def _masked_fill(g: Tensor, a: dict) -> tuple:
    mask = a["mask"]
    gv = recorded.where(mask, g, 0.0).sum() if isinstance(a["value"], Info_) else None
    return g.masked_fill(mask, 0), gv


@defop("index_fill", "input value")
def _index_fill(g: Tensor, a: dict) -> tuple:
    gi = g.index_fill(a["dim"], a["index"], 0)
    gv = (g - gi).sum() if isinstance(a["value"], Info_) else None
    return gi, gv


defop("index_add", "input source")(lambda g, a: (g, g.index_select(a["dim"], a["index"]) *
                                                 a["alpha"]))
defop("index_copy", "input source")(lambda g, a: (g.index_fill(a["dim"], a["index"], 0),
                                                  g.index_select(a["dim"], a["index"])))
defop("scatter_add", "input src")(lambda g, a: (g, g.gather(a["dim"], a["index"])))


@defop("scatter", "input src value")
def _scatter(g: Tensor, a: dict) -> tuple:
    gi = g.scatter(a["dim"], a["index"], 0.0)
    gs = g.gather(a["dim"], a["index"]) if isinstance(a.get("src"), Info_) else None
    return gi, gs, None


@defop("masked_scatter", "input source")
def _masked_scatter(g: Tensor, a: dict) -> tuple:
    mask, src = a["mask"], a["source"]
    picked = g.masked_select(mask)
    n = src.numel()
    gs = recorded.cat([picked, zeros(n - picked.numel(), dtype=g.dtype)]).view(tuple(src.shape))
    return g.masked_fill(mask, 0), gs


@defop("put", "input source")
def _put(g: Tensor, a: dict) -> tuple:
    idx = a["index"]
    gi = g if a["accumulate"] else g.put(idx, zeros(tuple(idx.shape), dtype=g.dtype))
    return gi, g.take(idx)


def _values_backward(g: Any, a: dict) -> Tensor:
    _values, indices = a["result"]
    g0 = g[0] if isinstance(g, list) else g
    x = a["input"]
    d = int(a["dim"]) % max(x.dim(), 1)
    keep = a.get("keepdim", True)
    return _indexed(g0, tuple(x.shape), d, indices, keep)


for _n in ("sort", "topk", "kthvalue", "mode"):
    TABLE[_n] = Op(_n, "input", _values_backward, "result", outputs=(0,))


def _median_backward(g: Any, a: dict) -> Tensor:
    if a["dim"] is None:       # median of all elements: shared among the tied elements
        return _evenly(g, a["input"], a["result"], None, False)
    return _values_backward(g, a)


for _n in ("median", "nanmedian"):
    TABLE[_n] = Op(_n, "input", _median_backward, "input result", outputs=(0,))


# ---- in-place-only ops ---------------------------------------------------------------------

defop("copy_", "input src", node="CopyBackwards")(lambda g, a: (_zero(g), g))
defop("fill_", "input value")(lambda g, a: (_zero(g), g.sum() if isinstance(a["value"], Info_)
                                            else None))
defop("zero_", "input")(lambda g, a: _zero(g))


