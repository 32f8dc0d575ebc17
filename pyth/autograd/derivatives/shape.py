"""Formulas of the views and shape ops."""


from __future__ import annotations

from typing import Any, Callable

from ..._prims.creation import zeros
from ..._size import Size
from ...tensor import Tensor
from ..record import geometry
from ..view_nodes import _storage_len, strided_backward
from ._common import TABLE, defop, embed, recorded, selection_backward


# ---- views and shapes --------------------------------------------------------------------------

def _shape_of(a: dict) -> tuple:
    return tuple(a["input"].shape)


defop("view", view=True)(lambda g, a: g.reshape(_shape_of(a)))
defop("reshape", view=True, node="ViewBackward0")(lambda g, a: g.reshape(_shape_of(a)))
defop("view_as", view=True, node="ViewBackward0")(lambda g, a: g.reshape(_shape_of(a)))
defop("reshape_as", view=True, node="ViewBackward0")(lambda g, a: g.reshape(_shape_of(a)))
defop("squeeze", view=True)(lambda g, a: g.reshape(_shape_of(a)))
defop("unsqueeze", view=True)(lambda g, a: g.reshape(_shape_of(a)))
defop("flatten", view=True, node="ViewBackward0")(lambda g, a: g.reshape(_shape_of(a)))
defop("expand", view=True)(lambda g, a: g)           # the node sums back to input's shape
defop("expand_as", view=True, node="ExpandBackward0")(lambda g, a: g)
defop("transpose", view=True)(lambda g, a: g.transpose(a["dim0"], a["dim1"]))
defop("t", view=True)(lambda g, a: g.t())


@defop("permute", view=True)
def _permute(g: Tensor, a: dict) -> Tensor:
    dims = a["dims"]
    if len(dims) == 1 and isinstance(dims[0], (tuple, list, Size)):
        dims = dims[0]
    n = len(dims)
    inv = [0] * n
    for i, d in enumerate(dims):
        inv[int(d) % n] = i
    return g.permute(*inv)


defop("narrow", view=True)(lambda g, a: embed(g, _shape_of(a), lambda t: t.narrow(
    a["dim"], a["start"], a["length"])))
defop("select", view=True)(lambda g, a: embed(g, _shape_of(a), lambda t: t.select(
    a["dim"], a["index"])))
defop("diagonal", view=True)(lambda g, a: embed(g, _shape_of(a), lambda t: t.diagonal(
    a["offset"], a["dim1"], a["dim2"])))
defop("unfold", view=True)(lambda g, a: selection_backward(g, _shape_of(a), lambda t: t.unfold(
    a["dimension"], a["size"], a["step"])))


@defop("as_strided", view=True)
def _as_strided(g: Tensor, a: dict) -> Tensor:
    off = a["storage_offset"]
    return strided_backward(g, a["_geom"], (tuple(a["size"]), tuple(a["stride"]),
                                           a["_geom"][2] if off is None else off), a["_len"])


defop("clone")(lambda g, a: g)
defop("contiguous", node="CloneBackward0")(lambda g, a: g)
defop("to", node="ToCopyBackward0")(lambda g, a: g)       # the node converts back to the input's dtype
defop("flip")(lambda g, a: g.flip(a["dims"]))


@defop("roll")
def _roll(g: Tensor, a: dict) -> Tensor:
    shifts, dims = a["shifts"], a["dims"]
    neg = [-s for s in shifts] if isinstance(shifts, (tuple, list)) else -shifts
    return g.roll(neg, dims)


defop("repeat")(lambda g, a: selection_backward(g, _shape_of(a), lambda t: t.repeat(
    *a["sizes"])))
defop("tile")(lambda g, a: selection_backward(g, _shape_of(a),
                                              lambda t: recorded.tile(t, a["dims"])))
defop("tril")(lambda g, a: g.tril(a["diagonal"]))
defop("triu")(lambda g, a: g.triu(a["diagonal"]))


@defop("diag")
def _diag(g: Tensor, a: dict) -> Tensor:
    if a["input"].dim() == 1:
        return g.diagonal(a["diagonal"])
    return selection_backward(g, _shape_of(a), lambda t: recorded.diag(t, a["diagonal"]))


@defop("cat", "tensors")
def _cat(g: Tensor, a: dict) -> list:
    infos = a["tensors"]
    nd = max(len(i.shape) for i in infos)
    d = int(a["dim"]) % max(nd, 1)
    out, start = [], 0
    for i in infos:
        if len(i.shape) == 1 and i.shape[0] == 0 and nd > 1:   # legacy empty tensors: skipped
            out.append(zeros(0, dtype=g.dtype))
            continue
        n = i.shape[d]
        out.append(g.narrow(d, start, n))
        start += n
    return out


@defop("stack", "tensors")
def _stack(g: Tensor, a: dict) -> list:
    d = int(a["dim"]) % (g.dim())
    return list(g.unbind(d))


def _joined(join: str, name: str = "input") -> Callable:
    """The backward of an op returning pieces of its input along dim: the pieces' gradients
    joined back by the recorded <join> (looked up per call, as install() fills `recorded`); a
    node of one output is handed its one gradient, not a list."""
    def backward(gs: Any, a: dict) -> Tensor:
        return getattr(recorded, join)(gs if isinstance(gs, (list, tuple)) else [gs],
                                       int(a["dim"]) % a[name].dim())
    return backward


_PIECES = tuple(range(1 << 16))
# split() is a dispatcher over PyTorch's two ops (shape_ops): one size, or a list of sizes
defop("split", "tensor", outputs=_PIECES)(_joined("cat", "tensor"))
defop("split_with_sizes", outputs=_PIECES)(_joined("cat"))
defop("chunk", outputs=_PIECES, node="SplitBackward0")(_joined("cat"))   # PyTorch's name
defop("unbind", outputs=_PIECES)(_joined("stack"))


# as_strided's node keeps the input's geometry and its storage's length (view_nodes.py)
TABLE["as_strided"].prepare = lambda a: {"_geom": geometry(a["input"]),
                                          "_len": _storage_len(a["input"])}
