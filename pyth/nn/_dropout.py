"""Dropout functions: F.dropout, the channel dropouts (F.dropout1d, F.dropout2d, F.dropout3d)
and the alpha dropouts of SELU networks, composed of differentiable tensor ops. Random draws
happen under no_grad into a multiplier (and, for alpha dropout, an offset); the gradient is
then that of a product."""

from __future__ import annotations

import math
import warnings

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch, overridden as _overridden
from .._prims.creation import empty
from ..autograd import no_grad
from ..tensor import Tensor

# SELU's alpha * scale: the value a dropped unit takes under alpha dropout (before the affine
# correction that keeps mean 0 and variance 1)
_ALPHA_PRIME = 1.7580993408473766


def _check_p(p: float) -> None:
    """ValueError unless the drop probability p lies in [0, 1]."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _apply(input: Tensor, scale: Tensor, shift: Tensor | None, inplace: bool) -> Tensor:
    """input * scale (+ shift), in place when asked."""
    if inplace:
        input.mul_(scale)
        return input.add_(shift) if shift is not None else input
    out = input * scale
    return out + shift if shift is not None else out


def dropout(input: Tensor, p: float = 0.5, training: bool = True,
            inplace: bool = False) -> Tensor:
    """Zeroes each element with probability p and scales the rest by 1 / (1 - p)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(dropout, locals())
    _check_p(p)
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input.mul_(0) if inplace else input * 0
    with no_grad():
        keep = input.new_empty(input.shape) if hasattr(input, "new_empty") else \
            input.detach().clone()
        keep.bernoulli_(1.0 - p).div_(1.0 - p)
    return input.mul_(keep) if inplace else input * keep


def _channel_dropout(op: str, input: Tensor, p: float, training: bool, inplace: bool,
                     batched: bool) -> Tensor:
    """Zeroes whole channels (all of a (sample, channel)'s elements together) with
    probability p and scales the rest by 1 / (1 - p)."""
    _check_p(p)
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
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(dropout1d, locals())
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
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(dropout2d, locals())
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


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Channel dropout for (N, C, D, H, W) or unbatched (C, D, H, W) input."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(dropout3d, locals())
    if input.dim() not in (4, 5):
        warnings.warn(f"dropout3d: Received a {input.dim()}-D input to dropout3d, which is "
                      f"deprecated and will result in an error in a future release. To retain "
                      f"the behavior and silence this warning, please use dropout instead. Note "
                      f"that dropout3d exists to provide channel-wise dropout on inputs with 3 "
                      f"spatial dimensions, a channel dimension, and an optional batch "
                      f"dimension (i.e. 4D or 5D inputs).", stacklevel=2)
    return _channel_dropout("dropout3d", input, p, training, inplace, input.dim() == 5)


def _alpha_dropout(input: Tensor, p: float, training: bool, inplace: bool,
                   feature: bool) -> Tensor:
    """Replaces dropped units (elements, or whole channels when feature) with SELU's negative
    saturation, then a * x + b restores the input's mean and variance."""
    _check_p(p)
    if p == 0.0 or not training or input.numel() == 0:
        return input
    if feature and input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if p == 1.0:
        return _apply(input, input.new_zeros(()), None, inplace)
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2) if feature \
        else tuple(input.shape)
    a = 1.0 / math.sqrt((_ALPHA_PRIME ** 2 * p + 1) * (1 - p))
    with no_grad():
        keep = empty(*shape, dtype=input.dtype).bernoulli_(1.0 - p)
        shift = (keep - 1) * (_ALPHA_PRIME * a) + _ALPHA_PRIME * a * p
        keep.mul_(a)
    return _apply(input, keep, shift, inplace)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                  inplace: bool = False) -> Tensor:
    """Dropout for SELU networks: keeps zero mean and unit variance of its input."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(alpha_dropout, locals())
    return _alpha_dropout(input, p, training, inplace, False)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                          inplace: bool = False) -> Tensor:
    """Alpha dropout of whole channels (dim 1) rather than elements."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(feature_alpha_dropout, locals())
    return _alpha_dropout(input, p, training, inplace, True)
