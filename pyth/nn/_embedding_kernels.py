"""embedding on the THNN kernels (generic/THNNLookupTable.c), recorded as the EMBEDDING and
EMBEDDING_BAG rows: the lookup, the gradient's index accumulation into the weight's rows
(padding_idx rows get none, `first`) and the in-place max_norm renormalisation are one C call
each; the rows' formulas are the same maps as recorded ops, for create_graph."""

from __future__ import annotations

from typing import Any

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch
from .. import dtypes as _dt
from .._errors import check
from .._ops import new_result
from .._th import ffi, lib
from ..autograd import no_grad
from ..autograd.record import Op, next_edges, record_node
from ..tensor import Tensor

_COMPUTE = {_dt.float32: "Float", _dt.float64: "Double"}


def _kernel(name: str, dt: _dt.dtype) -> Any:
    return getattr(lib, f"THNN_{_COMPUTE[dt]}LookupTable_{name}")


def _compute_dtype(w: Tensor) -> _dt.dtype:
    if not w.dtype.is_floating_point:
        raise RuntimeError(f"embedding(): expected a floating point weight, got {w.dtype.real}")
    return w.dtype if w.dtype in _COMPUTE else _dt.float32


def lookup(indices: Tensor, weight: Tensor) -> Tensor:
    """weight's rows named by indices: (*indices.shape, embedding_dim)."""
    dt = _compute_dtype(weight)
    out = new_result(dt)
    check(_kernel("updateOutput", dt)(out._h, indices._h, weight.detach().to(dt)._h))
    return out if dt is weight.dtype else out.to(weight.dtype)


def renorm_(weight: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> Tensor:
    """Scales the rows indices name whose norm exceeds max_norm down to it, in place."""
    dt = _compute_dtype(weight)
    with no_grad():
        w = weight if weight.dtype is dt and weight.is_contiguous() else \
            weight.detach().to(dt).contiguous()
        check(_kernel("renorm", dt)(w._h, indices._h, float(max_norm), float(norm_type)))
        if w is not weight:
            weight.copy_(w)
    return weight


def _frequency_scale(indices: Tensor, rows: int, dt: _dt.dtype) -> Tensor:
    """1 / (how often each index occurs), per position of indices (scale_grad_by_freq)."""
    import numpy as np
    ix = indices.numpy().reshape(-1)
    counts = np.bincount(ix, minlength=rows) if ix.size else np.zeros(rows, dtype=np.int64)
    from .._prims.creation import tensor
    return tensor(1.0 / counts[ix], dtype=dt).reshape(*indices.shape, 1)


def _scaled(g: Tensor, a: dict) -> Tensor:
    """g, each position divided by its index's count when scale_grad_by_freq."""
    if a["by_freq"]:
        return g * _frequency_scale(a["indices"], a["shape"][0], g.dtype)
    return g


def _embedding_backward(g: Tensor, a: dict) -> list:
    """weight's gradient: g's rows added into the rows the indices name (padding_idx's rows
    left out), as recorded ops of g (so it differentiates again)."""
    from .._prims.creation import zeros
    indices, padding_idx, shape = a["indices"], a["padding_idx"], a["shape"]
    g = _scaled(g, a)
    if padding_idx >= 0:
        g = g * (indices != padding_idx).to(g.dtype).unsqueeze(-1)
    gw = zeros(shape, dtype=g.dtype).index_add(0, indices.reshape(-1),
                                               g.reshape(indices.numel(), shape[1]))
    return [gw if gw.dtype is a["dtype"] else gw.to(a["dtype"])]


def _embedding_first(g: Tensor, a: dict) -> list:
    """The same gradient by the kernel's accumulation into a zeroed weight."""
    from .._prims.creation import zeros
    shape, wdt = a["shape"], a["dtype"]
    dt = wdt if wdt in _COMPUTE else _dt.float32
    g = _scaled(g, a)
    gw = zeros(shape, dtype=dt)
    check(_kernel("accGradParameters", dt)(gw._h, a["indices"]._h, g.to(dt)._h,
                                           a["padding_idx"], 1.0))
    return [gw if dt is wdt else gw.to(wdt)]


# y = weight[indices]; its gradient adds the rows of g into the rows of weight, so it saves
# the indices only (as PyTorch: the weight may change in place before the backward)
EMBEDDING = Op("embedding", "weight", _embedding_backward, node="EmbeddingBackward",
               first=_embedding_first)


def embedding(indices: Tensor, weight: Tensor, padding_idx: int, scale_grad_by_freq: bool
              ) -> Tensor:
    """The lookup, recorded for autograd when weight requires grad."""
    edges = next_edges(weight)
    y = lookup(indices, weight)
    if edges is not None:
        record_node(EMBEDDING, edges, y, {"indices": indices},
                    {"padding_idx": padding_idx, "by_freq": scale_grad_by_freq,
                     "shape": tuple(weight.shape), "dtype": weight.dtype})
    return y


# ---- embedding_bag: bags of rows reduced by sum, mean or max (THNN LookupTableBag) -----------

_BAG_MODES = {"sum": 0, "mean": 1, "max": 2}


def _bag_kernel(name: str, dt: _dt.dtype) -> Any:
    return getattr(lib, f"THNN_{_COMPUTE[dt]}LookupTableBag_{name}")


def _bag_forward(weight: Tensor, psw: Tensor | None, indices: Tensor, offsets: Tensor,
                 mode: int, last: bool, pad: int) -> tuple:
    dt = _compute_dtype(weight)
    out, maxi = new_result(dt), new_result(_dt.int64)
    check(_bag_kernel("updateOutput", dt)(
        out._h, maxi._h, indices._h, offsets._h, weight.detach().to(dt)._h,
        psw.detach().to(dt)._h if psw is not None else ffi.NULL, mode, int(last), pad))
    return (out if dt is weight.dtype else out.to(weight.dtype)), maxi


def _bag_positions(indices: Tensor, offsets: Tensor, last: bool) -> Any:
    """Each position's bag (numpy int64): the number of bag starts at or before it, less one."""
    import numpy as np
    off = offsets.numpy()
    starts = off[:-1] if last else off
    return np.searchsorted(starts, np.arange(indices.numel()), side="right") - 1


def _bag_backward(g: Tensor, a: dict) -> list:
    """The weight and per_sample_weights gradients as recorded ops (_bag_grad_composed)."""
    gw, gp = _bag_grad_composed(g, a["weight"], a.get("per_sample_weights"), a["args"])
    need_w, need_p = a["needs"]
    return [gw if need_w else None, gp if need_p else None]


def _bag_first(g: Tensor, a: dict) -> list:
    """The same gradients by the kernel's accumulation (weight) and row dot products
    (per_sample_weights)."""
    weight, psw = a["weight"], a.get("per_sample_weights")
    indices, offsets, maxi, mode, last, pad, by_freq = a["args"]
    need_w, need_p = a["needs"]
    dt = _compute_dtype(weight)
    gc = g.to(dt)
    gw = gp = None
    if need_w:
        from .._prims.creation import zeros
        gw = zeros(tuple(weight.shape), dtype=dt)
        check(_bag_kernel("accGradParameters", dt)(
            gw._h, indices._h, offsets._h, gc._h,
            psw.detach().to(dt)._h if psw is not None else ffi.NULL,
            maxi._h if mode == 2 else ffi.NULL, mode, int(last), pad, int(by_freq), 1.0))
        gw = gw if dt is weight.dtype else gw.to(weight.dtype)
    if psw is not None and need_p:
        gp = new_result(dt)
        check(_bag_kernel("updateGradInput", dt)(gp._h, gc._h, indices._h, offsets._h,
                                                 weight.detach().to(dt)._h, int(last), pad))
        gp = gp if dt is psw.dtype else gp.to(psw.dtype)
    return [gw, gp]


# y[b] = the sum, mean or columnwise max of weight's rows named in bag b (sum: each row times
# its per_sample_weight)
EMBEDDING_BAG = Op("embedding_bag", "weight per_sample_weights", _bag_backward,
                   node="EmbeddingBagBackward", first=_bag_first)


def _bag_grad_composed(g: Tensor, weight: Tensor, psw: Tensor | None, args: tuple) -> tuple:
    """The gradients for weight and per_sample_weights as differentiable ops of g, weight and
    psw (index_add into the rows), for create_graph."""
    import numpy as np

    from .._prims.creation import tensor, zeros
    indices, offsets, maxi, mode, last, pad, by_freq = args
    rows, dim = weight.shape
    if mode == 2:
        m = maxi.numpy().reshape(-1)
        keep = np.nonzero((m >= 0) & (m != pad))[0]
        cells = tensor(m[keep] * dim + keep % dim, dtype=_dt.int64)
        flat = zeros(rows * dim, dtype=g.dtype).index_add(
            0, cells, g.reshape(-1)[tensor(keep, dtype=_dt.int64)])
        return flat.view(rows, dim), None
    ix = indices.numpy()
    bag = _bag_positions(indices, offsets, last)
    live = (ix != pad).astype(np.float64)
    coef = live.copy()
    if mode == 1:
        counts = np.bincount(bag[ix != pad], minlength=max(offsets.numel(), 1))
        coef = coef / np.maximum(counts[bag], 1)
    if by_freq and ix.size:
        coef = coef / np.bincount(ix, minlength=rows)[ix]
    bt, it = tensor(bag, dtype=_dt.int64), tensor(ix, dtype=_dt.int64)
    gb = g[bt]                                        # each position's bag gradient (n, D)
    share = tensor(coef, dtype=g.dtype)
    if psw is not None:
        share = share * psw.to(g.dtype)
    gw = zeros((rows, dim), dtype=g.dtype).index_add(0, it, gb * share.unsqueeze(1))
    gp = None
    if psw is not None:
        gp = (gb * weight[it]).sum(1) * tensor(live, dtype=g.dtype)
    return gw.to(weight.dtype), gp


def _index_dtype(t: Tensor, name: str) -> Tensor:
    if not isinstance(t, Tensor) or t.dtype not in (_dt.int64, _dt.int32):
        got = t.dtype.real if isinstance(t, Tensor) else type(t).__name__
        raise RuntimeError(f"embedding_bag(): expected {name} of dtype int64 or int32, got {got}")
    return t.to(_dt.int64).contiguous()


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None,
                  max_norm: float | None = None, norm_type: float = 2,
                  scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """Sums, averages or takes the columnwise max of bags of weight's rows without building
    the (indices, D) lookup: a 2-D input is N bags of equal length, a 1-D input is cut by
    offsets (bag starts). padding_idx positions count for nothing; empty bags give zeros."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(embedding_bag, locals())
    import warnings

    from .._prims.creation import arange, zeros
    if (isinstance(weight, Tensor) and isinstance(input, Tensor)
            and weight.dtype in (_dt.int64, _dt.int32) and input.dtype.is_floating_point):
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage "
                      "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                      "`embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is "
                         f"not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(f"if input is 2D, then offsets has to be None, as input is treated "
                             f"is a mini-batch of fixed length sequences. However, found "
                             f"offsets of type {type(offsets)}")
        n, length = input.shape
        offsets = arange(0, n * length, length, dtype=_dt.int64) if length else \
            zeros(n, dtype=_dt.int64)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if mode not in _BAG_MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if sparse:
        raise NotImplementedError("embedding_bag(): sparse gradients are not supported by pyth")
    idx = _index_dtype(input, "indices")
    off = _index_dtype(offsets, "offsets")
    _compute_dtype(weight)
    rows = weight.size(0)
    pad = -1
    if padding_idx is not None:
        if not -rows <= padding_idx < rows:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{rows} "
                               f"through {rows - 1}, but got {padding_idx}")
        pad = padding_idx % rows
    if max_norm is not None:
        renorm_(weight, idx, max_norm, norm_type)
    psw = per_sample_weights
    if psw is not None:
        if mode != "sum":
            raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. "
                                      f"per_sample_weights is only supported for mode='sum' "
                                      f"(got mode='{mode}'). Please open a feature request on "
                                      f"GitHub.")
        if psw.dtype is not weight.dtype:
            raise RuntimeError(f"embedding_bag(): expected per_sample_weights of the weight's "
                               f"dtype {weight.dtype.real}, got {psw.dtype.real}")
    args = (idx, off, _BAG_MODES[mode], bool(include_last_offset), pad,
            bool(scale_grad_by_freq))
    edges = next_edges(weight, psw)
    out, maxi = _bag_forward(weight, psw, *args[:5])
    if edges is not None:
        record_node(EMBEDDING_BAG, edges, out, {"weight": weight, "per_sample_weights": psw},
                    {"args": (idx, off, maxi, *args[2:])})
    return out
