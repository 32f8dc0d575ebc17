"""The functional forms of normalisation, embedding and channel dropout (re-exported by
pyth.nn.functional): argument checks with PyTorch's messages, then the THNN kernels
(_norm_kernels, _embedding_kernels)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

from .. import dtypes as _dt
from ..tensor import Tensor


def _features(op: str, x: Tensor, n: int, **tensors: Tensor | None) -> None:
    for name, t in tensors.items():
        if t is not None and t.numel() != n:
            raise RuntimeError(f"{op}(): expected input with {t.numel()} channels, got {n} "
                               f"({name} should contain {n} elements not {t.numel()})")


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalises each channel (dim 1) by the batch's statistics (training, which also moves
    running_mean/var by momentum, the variance unbiased) or by running_mean/var."""
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


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,
              max_norm: float | None = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """weight's rows named by input (int64 or int32 indices of any shape): (*input.shape,
    embedding_dim). padding_idx's row gets no gradient; max_norm renormalises the looked-up
    rows of weight in place first."""
    if sparse:
        raise NotImplementedError("embedding(): sparse gradients are not supported by pyth")
    if not isinstance(input, Tensor) or input.dtype not in (_dt.int64, _dt.int32):
        got = input.dtype.real if isinstance(input, Tensor) else type(input).__name__
        raise RuntimeError(f"embedding(): expected indices of dtype int64 or int32, got {got}")
    if weight.dim() != 2:
        raise RuntimeError(f"embedding(): weight must be 2-D (num_embeddings, embedding_dim), "
                           f"got {list(weight.shape)}")
    idx = input if input.dtype is _dt.int64 else input.long()
    rows = weight.size(0)
    if padding_idx is None:
        padding_idx = -1
    elif padding_idx >= 0:
        if padding_idx >= rows:
            raise AssertionError("Padding_idx must be within num_embeddings")
    else:
        if padding_idx < -rows:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx += rows
    if max_norm is not None:
        renorm_(weight, idx, max_norm, norm_type)
    return _emb(idx, weight, int(padding_idx), bool(scale_grad_by_freq))


def _channel_dropout(op: str, input: Tensor, p: float, training: bool, inplace: bool,
                     batched: bool) -> Tensor:
    """Zeroes whole channels (all of a (sample, channel)'s elements together) with
    probability p and scales the rest by 1 / (1 - p)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    lead = 2 if batched else 1
    shape = list(input.shape[:lead]) + [1] * (input.dim() - lead)
    with no_grad():
        keep = empty(*shape, dtype=input.dtype)
        if p == 1.0:
            keep.zero_()
        else:
            keep.bernoulli_(1.0 - p).div_(1.0 - p)
    return input.mul_(keep) if inplace else input * keep


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Channel dropout for (N, C, L) or unbatched (C, L) input."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a "
                           f"{input.dim()}D input. Note that dropout1d exists to provide "
                           f"channel-wise dropout on inputs with 1 spatial dimension, a channel "
                           f"dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _channel_dropout("dropout1d", input, p, training, inplace, input.dim() == 3)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Channel dropout for (N, C, H, W) or unbatched (C, H, W) input (a 3-D input is taken as
    (N, C, L), with PyTorch's warning)."""
    if input.dim() not in (3, 4):
        warnings.warn(f"dropout2d: Received a {input.dim()}-D input to dropout2d, which is "
                      f"deprecated and will result in an error in a future release. To retain "
                      f"the behavior and silence this warning, please use dropout instead. Note "
                      f"that dropout2d exists to provide channel-wise dropout on inputs with 2 "
                      f"spatial dimensions, a channel dimension, and an optional batch dimension "
                      f"(i.e. 3D or 4D inputs).", stacklevel=2)
    if input.dim() == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
                      "1D dropout behavior is desired - input is interpreted as shape (N, C, L), "
                      "where C is the channel dim. This behavior will change in a future release "
                      "to interpret the input as one without a batch dimension, i.e. shape "
                      "(C, H, W). To maintain the 1D channel-wise dropout behavior, please "
                      "switch to using dropout1d instead.", stacklevel=2)
    return _channel_dropout("dropout2d", input, p, training, inplace, input.dim() >= 2)


# ---- names the functions above use, imported last so that import cycles resolve -------------
from ..autograd import no_grad  # noqa: E402
from .._prims.creation import empty  # noqa: E402
from ._embedding_kernels import embedding as _emb, renorm_  # noqa: E402
from ._norm_kernels import normalization  # noqa: E402
