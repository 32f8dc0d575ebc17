"""Linear functions: F.linear (the THNN Linear kernels for 2-D float operands, a matmul
otherwise), F.bilinear composed of matmuls, and F.flatten."""

from __future__ import annotations

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch
from .._th import ffi
from ..tensor import Tensor
from . import _linear_kernels


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """input @ weight.T + bias, over any leading dims of input."""
    kernels = _linear_kernels.KERNELS.get(input.dtype)
    if kernels is not None and weight.dtype is input.dtype and \
            (bias is None or bias.dtype is input.dtype):
        xh, wh = input._h, weight._h   # the kernel's case, checked cheaply (step-time path)
        n = xh.nDimension
        if n >= 2 and wh.nDimension == 2 and xh.size[n - 1] == wh.size[1] and \
                (bias is None or bias._h.nDimension == 1 and bias._h.size[0] == wh.size[0]):
            # 2-D, or N-D outside autograd: one kernel call over the rows
            if n == 2 or _linear_kernels.next_edges(input, weight, bias) is None:
                return _linear_kernels.linear2d(input, weight, bias, kernels)
            lead = ffi.unpack(xh.size, n - 1)   # (..., in) as (rows, in) and back
            rows = 1
            for k in lead:
                rows *= k
            y = _linear_kernels.linear2d(input.reshape(rows, wh.size[1]), weight, bias, kernels)
            return y.view(*lead, wh.size[0])
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides: off the kernel's path
        return _dispatch(linear, {"input": input, "weight": weight, "bias": bias})
    if input.dim() == 0 or weight.dim() not in (1, 2):
        raise RuntimeError(f"linear(): expected input with at least 1 dim and a 1-D or 2-D "
                           f"weight, got input {list(input.shape)} and weight "
                           f"{list(weight.shape)}")
    if input.size(-1) != weight.size(-1):
        raise RuntimeError(f"linear(): input's last dim ({input.size(-1)}) does not match "
                           f"in_features of the weight ({weight.size(-1)}); shapes "
                           f"{list(input.shape)} and {list(weight.shape)}")
    if weight.dtype is not input.dtype or bias is not None and bias.dtype is not input.dtype:
        names = f"input {input.dtype.real}, weight {weight.dtype.real}" + (
            f", bias {bias.dtype.real}" if bias is not None else "")
        raise RuntimeError(f"linear(): expected input, weight and bias of one dtype, got {names}")
    if bias is not None and weight.dim() == 2 and bias.dim() == 1 and \
            bias.size(0) not in (1, weight.size(0)):
        raise RuntimeError(f"linear(): expected a bias of size ({weight.size(0)}), got "
                           f"{list(bias.shape)}")
    if kernels is not None and weight.dim() == 2 and \
            (bias is None or (bias.dim() == 1 and bias.size(0) == weight.size(0))):
        if input.dim() == 2:
            return _linear_kernels.linear2d(input, weight, bias, kernels)
        lead = tuple(input.shape[:-1])
        rows = 1
        for n in lead:
            rows *= n
        y = _linear_kernels.linear2d(input.reshape(rows, input.size(-1)), weight, bias, kernels)
        return y.reshape(*lead, weight.size(0))
    out = input.matmul(weight.t() if weight.dim() == 2 else weight)
    return out + bias if bias is not None else out


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor,
             bias: Tensor | None = None) -> Tensor:
    """y[..., k] = input1 @ weight[k] @ input2 + bias[k]."""
    if type(input1) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(bilinear, locals())
    if weight.dim() != 3 or input1.size(-1) != weight.size(1) or \
            input2.size(-1) != weight.size(2):
        raise RuntimeError(f"bilinear(): shapes {list(input1.shape)}, {list(input2.shape)} do "
                           f"not fit a weight of shape {list(weight.shape)}")
    lead = input1.shape[:-1]
    a = input1.reshape(-1, 1, 1, input1.size(-1))         # (n, 1, 1, i)
    b = input2.reshape(-1, 1, input2.size(-1), 1)         # (n, 1, j, 1)
    out = (a.matmul(weight.unsqueeze(0)).matmul(b)).reshape(*lead, weight.size(0))
    return out + bias if bias is not None else out


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """input with dims start_dim..end_dim merged into one (Tensor.flatten)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(flatten, locals())
    return input.flatten(start_dim, end_dim)
