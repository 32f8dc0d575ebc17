"""embedding on the THNN kernels (generic/THNNLookupTable.c) as an autograd Function: the
lookup, the gradient's index accumulation into the weight's rows (padding_idx rows get none)
and the in-place max_norm renormalisation are one C call each."""

from __future__ import annotations

from typing import Any

from .. import dtypes as _dt
from .._errors import check
from .._ops import new_result
from .._th import lib
from ..autograd import Function, enable_grad, is_grad_enabled, no_grad
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
    from ..factories import tensor
    return tensor(1.0 / counts[ix], dtype=dt).reshape(*indices.shape, 1)


class Embedding(Function):
    """y = weight[indices]; its gradient adds the rows of g into the rows of weight."""

    @staticmethod
    def forward(ctx: Any, weight: Tensor, indices: Tensor, padding_idx: int,
                scale_grad_by_freq: bool) -> Tensor:
        ctx.padding_idx, ctx.by_freq = padding_idx, scale_grad_by_freq
        ctx.save_for_backward(weight, indices)
        return lookup(indices, weight)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        weight, indices = ctx.saved_tensors
        dt = _compute_dtype(weight)
        if ctx.by_freq:
            g = g * _frequency_scale(indices, weight.size(0), g.dtype)
        if is_grad_enabled():  # create_graph: the same map as recorded ops
            return _composed_grad(g, weight, indices, ctx.padding_idx), None, None, None
        from ..factories import zeros
        gw = zeros(tuple(weight.shape), dtype=dt)
        check(_kernel("accGradParameters", dt)(gw._h, indices._h, g.to(dt)._h,
                                               ctx.padding_idx, 1.0))
        return (gw if dt is weight.dtype else gw.to(weight.dtype)), None, None, None


def _composed_grad(g: Tensor, weight: Tensor, indices: Tensor, padding_idx: int) -> Tensor:
    from ..autograd import grad
    if padding_idx >= 0:
        g = g * (indices != padding_idx).to(g.dtype).unsqueeze(-1)
    with enable_grad():
        y = weight[indices]
        return grad(y, [weight], g, create_graph=True)[0]


def embedding(indices: Tensor, weight: Tensor, padding_idx: int, scale_grad_by_freq: bool
              ) -> Tensor:
    """The lookup, recorded for autograd when weight requires grad."""
    if weight.requires_grad and is_grad_enabled():
        return Embedding.apply(weight, indices, padding_idx, scale_grad_by_freq)
    return lookup(indices, weight)
