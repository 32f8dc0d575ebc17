"""The random layers and two distances: F.rrelu, the alpha and 3-D dropouts, F.gumbel_softmax
and F.pdist, composed of differentiable tensor ops. Random draws happen under no_grad into a
multiplier (and, for alpha dropout, an offset); the gradient is then that of a product."""

from __future__ import annotations

import math
import warnings

from .._errors import not_implemented
from ..tensor import Tensor

# SELU's alpha * scale: the value a dropped unit takes under alpha dropout (before the affine
# correction that keeps mean 0 and variance 1)
_ALPHA_PRIME = 1.7580993408473766


def _check_p(p: float) -> None:
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _apply(input: Tensor, scale: Tensor, shift: Tensor | None, inplace: bool) -> Tensor:
    """input * scale (+ shift), in place when asked."""
    if inplace:
        input.mul_(scale)
        return input.add_(shift) if shift is not None else input
    out = input * scale
    return out + shift if shift is not None else out


# ---- randomized leaky ReLU --------------------------------------------------------------------

def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """x above 0, a * x at or below it: a drawn uniformly from [lower, upper] per element while
    training, (lower + upper) / 2 otherwise."""
    from ..autograd import no_grad
    from .._prims.pointwise import where
    from .functional import leaky_relu
    if lower > upper:
        raise RuntimeError(f"rrelu(): lower bound ({lower}) should be less than or equal to the "
                           f"upper bound ({upper})")
    if not input.dtype.is_floating_point:
        raise not_implemented("rrelu", input.dtype, "expects a floating point input")
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)
    with no_grad():
        slopes = input.new_empty(tuple(input.shape)).uniform_(lower, upper)
        noise = where(input <= 0, slopes, slopes * 0 + 1)
    return _apply(input, noise, None, inplace)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
           training: bool = False) -> Tensor:
    """rrelu in place."""
    return rrelu(input, lower, upper, training, True)


# ---- alpha and 3-D dropout ------------------------------------------------------------------

def _alpha_dropout(input: Tensor, p: float, training: bool, inplace: bool,
                   feature: bool) -> Tensor:
    """Replaces dropped units (elements, or whole channels when feature) with SELU's negative
    saturation, then a * x + b restores the input's mean and variance."""
    from ..autograd import no_grad
    from .._prims.creation import empty
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
    return _alpha_dropout(input, p, training, inplace, False)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                          inplace: bool = False) -> Tensor:
    """Alpha dropout of whole channels (dim 1) rather than elements."""
    return _alpha_dropout(input, p, training, inplace, True)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Channel dropout for (N, C, D, H, W) or unbatched (C, D, H, W) input."""
    from ._functional_norm import _channel_dropout
    if input.dim() not in (4, 5):
        warnings.warn(f"dropout3d: Received a {input.dim()}-D input to dropout3d, which is "
                      f"deprecated and will result in an error in a future release. To retain "
                      f"the behavior and silence this warning, please use dropout instead. Note "
                      f"that dropout3d exists to provide channel-wise dropout on inputs with 3 "
                      f"spatial dimensions, a channel dimension, and an optional batch "
                      f"dimension (i.e. 4D or 5D inputs).", stacklevel=2)
    return _channel_dropout("dropout3d", input, p, training, inplace, input.dim() == 5)


# ---- Gumbel-softmax and pairwise distances within a set -----------------------------------

def gumbel_softmax(logits: Tensor, tau: float = 1.0, hard: bool = False, eps: float = 1e-10,
                   dim: int = -1) -> Tensor:
    """softmax((logits + Gumbel noise) / tau) along dim: a differentiable sample from the
    categorical distribution; hard=True returns its one-hot argmax with the soft gradient."""
    from ..autograd import no_grad
    from ._softmax_kernels import softmax
    with no_grad():
        gumbels = -logits.new_empty(tuple(logits.shape)).exponential_().log()
    soft = softmax((logits + gumbels) / tau, dim, False)
    if not hard:
        return soft
    with no_grad():
        index = soft.argmax(dim, keepdim=True)
        one_hot = soft.new_zeros(tuple(soft.shape)).scatter_(dim, index, 1.0)
    return one_hot - soft.detach() + soft


def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """The p-norm distance between every pair of rows i < j of an (N, M) input, in row-major
    order of the pairs: N * (N - 1) / 2 values."""
    from .._refs.creation import triu_indices
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"pdist only supports floating-point dtypes, got "
                           f"{input.dtype.real}")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.size(0)
    pairs = triu_indices(n, n, 1)
    diff = input.index_select(0, pairs[0]) - input.index_select(0, pairs[1])
    return _safe_norm(diff, float(p))


def _safe_norm(diff: Tensor, p: float) -> Tensor:
    """The p-norm of each row, whose gradient at a zero row is zero (as PyTorch's pdist)."""
    from .._prims.pointwise import where
    if p == 0:
        return (diff != 0).to(diff.dtype).sum(1)
    if diff.size(1) == 0:             # empty rows are 0 apart, whatever the norm
        return diff.sum(1)
    nonzero = (diff != 0).any(1, keepdim=True)
    safe = where(nonzero, diff, diff * 0 + 1)
    norms = safe.norm(p, 1)
    return where(nonzero.squeeze(1), norms, norms * 0)


__all__ = ["alpha_dropout", "dropout3d", "feature_alpha_dropout", "gumbel_softmax", "pdist",
           "rrelu", "rrelu_"]
