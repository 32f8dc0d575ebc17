"""Normalization functions: batch, layer and group norm over the THNN kernels (_norm_kernels,
generic/THNNNormalization.c) after PyTorch's argument checks; instance, RMS and local-response
norm and F.normalize composed of differentiable ops (PyTorch's formulas, so the same values and
gradients)."""

from __future__ import annotations

from collections.abc import Sequence

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch
from .. import dtypes as _dt
from .._errors import not_implemented
from ..autograd.recorded import div
from ..autograd import no_grad
from ..dtype_info import finfo
from ..tensor import Tensor
from ._norm_kernels import normalization
from ._padding import pad


# ---- over the THNN kernels -----------------------------------------------------------------------

def _features(op: str, x: Tensor, n: int, **tensors: Tensor | None) -> None:
    """RuntimeError when a per-channel tensor (running stats, weight, bias) has other than n
    elements."""
    for name, t in tensors.items():
        if t is not None and t.numel() != n:
            raise RuntimeError(f"{op}(): expected input with {t.numel()} channels, got {n} "
                               f"({name} should contain {n} elements not {t.numel()})")


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalises each channel (dim 1) by the batch's statistics (training, which also moves
    running_mean/var by momentum, the variance unbiased) or by running_mean/var."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(batch_norm, locals())
    if input.dim() < 2:
        raise ValueError(f"batch_norm(): expected 2D or more input (N, C, ...), got "
                         f"{input.dim()}D input")
    _features("batch_norm", input, input.size(1), running_mean=running_mean,
              running_var=running_var, weight=weight, bias=bias)
    if training:
        count = input.numel() // max(input.size(1), 1)
        if count == 1 and input.numel():
            raise ValueError(f"Expected more than 1 value per channel when training, got "
                             f"input size {input.shape}")
    elif running_mean is None or running_var is None:
        raise RuntimeError("batch_norm(): running_mean and running_var must be given in "
                           "evaluation mode (training=False)")
    return normalization("batch_norm", input, weight, bias, running_mean, running_var,
                         bool(training), float(momentum), float(eps))


def layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalises over the last len(normalized_shape) dims of each sample."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(layer_norm, locals())
    nshape = (int(normalized_shape),) if isinstance(normalized_shape, int) else \
        tuple(int(s) for s in normalized_shape)
    k = len(nshape)
    if k == 0 or input.dim() < k or tuple(input.shape[input.dim() - k:]) != nshape:
        raise RuntimeError(f"Given normalized_shape={list(nshape)}, expected input with shape "
                           f"[*, {', '.join(map(str, nshape))}], but got input of size"
                           f"{list(input.shape)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != nshape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {list(t.shape)} and normalized_shape = "
                               f"{list(nshape)}")
    return normalization("layer_norm", input, weight, bias, nshape, float(eps))


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalises each sample's channels in num_groups groups (weight and bias per channel)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(group_norm, locals())
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    c = input.size(1)
    if num_groups <= 0 or c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(input.shape)} and "
                           f"num_groups={num_groups}")
    _features("group_norm", input, c, weight=weight, bias=bias)
    return normalization("group_norm", input, weight, bias, int(num_groups), float(eps))


# ---- instance, RMS and local response normalisation (compositions) -------------------------------

def _verify_spatial_size(input: Tensor) -> None:
    """ValueError when each (sample, channel) has a single spatial element to normalise."""
    cells = 1
    for s in input.shape[2:]:
        cells *= s
    if cells == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"{input.shape}")


def instance_norm(input: Tensor, running_mean: Tensor | None = None,
                  running_var: Tensor | None = None, weight: Tensor | None = None,
                  bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalises each (sample, channel) over its spatial dims: batch norm of the input seen
    as one sample of N*C channels, the running statistics averaged back over the batch."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(instance_norm, locals())
    if input.dim() < 2:
        raise ValueError(f"instance_norm(): expected 2D or more input (N, C, ...), got "
                         f"{input.dim()}D input")
    if use_input_stats:
        _verify_spatial_size(input)
    elif running_mean is None or running_var is None:
        raise RuntimeError("Expected running_mean and running_var to be defined when "
                           "use_input_stats is false")
    n, c = input.size(0), input.size(1)
    tiled = [t.repeat(n) if t is not None else None
             for t in (running_mean, running_var, weight, bias)]
    flat = input.contiguous().reshape(1, n * c, *input.shape[2:])
    out = batch_norm(flat, tiled[0], tiled[1], tiled[2], tiled[3], bool(use_input_stats),
                     momentum, eps)
    with no_grad():
        for stat, tile in zip((running_mean, running_var), tiled[:2]):
            if stat is not None and n:
                stat.copy_(tile.reshape(n, c).mean(0))
    return out.reshape(input.shape)


_OPMATH = {_dt.float16: _dt.float32, _dt.bfloat16: _dt.float32}


def _normalized_shape(shape: Sequence[int]) -> tuple:
    """rms_norm's normalized_shape as a tuple of ints, TypeError for anything else."""
    if not isinstance(shape, Sequence) or not all(isinstance(s, int) for s in shape):
        raise TypeError(f"rms_norm(): argument 'normalized_shape' must be a sequence of ints, "
                        f"not {type(shape).__name__}")
    return tuple(int(s) for s in shape)


def rms_norm(input: Tensor, normalized_shape: Sequence[int],
             weight: Tensor | None = None, eps: float | None = None) -> Tensor:
    """x / sqrt(mean(x^2) + eps) over the last dims (normalized_shape), times weight; eps None
    is the machine epsilon of the computing type (float32 for half types, as PyTorch)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(rms_norm, locals())
    shape = _normalized_shape(normalized_shape)
    k = len(shape)
    if input.dim() < k or tuple(input.shape[input.dim() - k:]) != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size"
                           f"{list(input.shape)}")
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got "
                           f"weight of shape {list(weight.shape)} and normalized_shape = "
                           f"{list(shape)}")
    if not input.dtype.is_floating_point:
        raise not_implemented("rms_norm", input.dtype, "expects a floating point input")
    work = _OPMATH.get(input.dtype, input.dtype)
    x = input.to(work)
    eps = finfo(work).eps if eps is None else eps
    dims = tuple(range(input.dim() - k, input.dim()))
    out = x * ((x * x).mean(dims, keepdim=True) + eps).rsqrt()
    if weight is not None:
        out = out * weight
    return out.to(input.dtype)


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0) -> Tensor:
    """x / (k + alpha * mean of x^2 over the size channels around it)^beta (channels dim 1,
    zero-padded at the ends): AlexNet's lateral inhibition."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(local_response_norm, locals())
    if input.dim() < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.dim()} "
                         f"dimensions)")
    if input.numel() == 0:
        return input
    sq = (input * input).transpose(1, -1)
    window = pad(sq, (size // 2, (size - 1) // 2)).unfold(-1, size, 1).mean(-1)
    return input / (window.transpose(1, -1) * alpha + k).pow(beta)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12,
              out: Tensor | None = None) -> Tensor:
    """input divided by its p-norm over dim, the norm held at least eps (zero rows stay 0)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(normalize, locals())
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denom if out is None else div(input, denom, out=out)
