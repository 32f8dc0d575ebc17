"""Pooling functions composed of differentiable ops: max unpooling (F.max_unpool1d/2d/3d) and
power-average pooling (F.lp_pool1d/2d/3d, over the THNN average pooling). The max, average and
adaptive poolings are THNN kernels, in _pool_kernels."""

from __future__ import annotations

from typing import Any

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch, overridden as _overridden
from .. import dtypes as _dt
from .._prims.creation import zeros
from ..tensor import Tensor
from ._activations import relu
from ._fold import _ntuple
from ._pool_kernels import avg_pool


# ---- max unpooling -------------------------------------------------------------------------------

def _unpool_size(input: Tensor, kernel: tuple, stride: tuple, padding: tuple,
                 output_size: Any) -> tuple:
    """The spatial output size: the default inverse of pooling, or output_size (its last
    len(kernel) entries) when within a stride of it."""
    nd = len(kernel)
    default = tuple((input.size(input.dim() - nd + d) - 1) * stride[d] + kernel[d] -
                    2 * padding[d] for d in range(nd))
    if output_size is None:
        return default
    size = tuple(int(s) for s in output_size)
    if len(size) == nd + 2:
        size = size[2:]
    if len(size) != nd:
        raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} "
                         f"elements, but it has a length of '{len(size)}'")
    for d in range(nd):
        low, high = default[d] - stride[d], default[d] + stride[d]
        if not low < size[d] < high:
            raise ValueError(f'invalid output_size "{list(size)}" (dim {d} must be between '
                             f'{low} and {high})')
    return size


def _max_unpool(input: Tensor, indices: Tensor, nd: int, kernel_size: Any, stride: Any,
                padding: Any, output_size: Any) -> Tensor:
    """Scatters each value to its index in the flattened spatial output (zeros elsewhere)."""
    name = f"max_unpool{nd}d"
    kernel = _ntuple(kernel_size, nd, "kernel_size")
    stride = _ntuple(stride if stride is not None else kernel_size, nd, "stride")
    padding = _ntuple(padding, nd, "padding")
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}(): expected a {nd + 1}D or {nd + 2}D input, got "
                           f"{input.dim()}D input of size {list(input.shape)}")
    if indices.dtype is not _dt.int64:
        raise RuntimeError(f"{name}(): expected indices of dtype int64, got "
                           f"{indices.dtype.real}")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"{name}(): expected indices of the input's shape "
                           f"{list(input.shape)}, got {list(indices.shape)}")
    size = _unpool_size(input, kernel, stride, padding, output_size)
    lead = tuple(input.shape[:input.dim() - nd])
    cells = 1
    for s in size:
        cells *= s
    flat_idx = indices.reshape(*lead, -1)
    if indices.numel() and (int(indices.min()) < 0 or int(indices.max()) >= cells):
        raise RuntimeError(f"{name}(): found an invalid max index (indices must lie in "
                           f"[0, {cells}) for an output of size {list(size)})")
    out = zeros(*lead, cells, dtype=input.dtype)
    return out.scatter(-1, flat_idx, input.reshape(*lead, -1)).reshape(*lead, *size)


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, output_size: Any = None) -> Tensor:
    """The partial inverse of max_pool1d: each value put back at its index, zeros elsewhere."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(max_unpool1d, locals())
    return _max_unpool(input, indices, 1, kernel_size, stride, padding, output_size)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, output_size: Any = None) -> Tensor:
    """The partial inverse of max_pool2d: each value put back at its index, zeros elsewhere."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(max_unpool2d, locals())
    return _max_unpool(input, indices, 2, kernel_size, stride, padding, output_size)


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, output_size: Any = None) -> Tensor:
    """The partial inverse of max_pool3d: each value put back at its index, zeros elsewhere."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(max_unpool3d, locals())
    return _max_unpool(input, indices, 3, kernel_size, stride, padding, output_size)


# ---- power-average pooling -----------------------------------------------------------------------

def _lp_pool(input: Tensor, norm_type: float, kernel_size: Any, stride: Any,
             ceil_mode: bool, nd: int) -> Tensor:
    """(sum of x^p over each window)^(1/p), the sum as window size times the average."""
    kernel = _ntuple(kernel_size, nd, "kernel_size")
    cells = 1
    for k in kernel:
        cells *= k
    out = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode, True, None, nd)
    return (out.sign() * relu(out.abs())).mul(cells).pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int, stride: Any = None,
              ceil_mode: bool = False) -> Tensor:
    """The p-norm of each window along the last dim (p = norm_type)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(lp_pool1d, locals())
    return _lp_pool(input, float(norm_type), kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,
              ceil_mode: bool = False) -> Tensor:
    """The p-norm of each window over the last two dims (p = norm_type)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(lp_pool2d, locals())
    return _lp_pool(input, float(norm_type), kernel_size, stride, ceil_mode, 2)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,
              ceil_mode: bool = False) -> Tensor:
    """The p-norm of each window over the last three dims (p = norm_type)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(lp_pool3d, locals())
    return _lp_pool(input, float(norm_type), kernel_size, stride, ceil_mode, 3)
