"""Loss functions: the regression and binary losses, kl_div, nll_loss and cross_entropy (over
the THNN softmax kernels, generic/THNNSoftMax.c), and the ranking, embedding, multi-label and
likelihood losses. F.ctc_loss is a THNN kernel, in _ctc_kernels.

Every loss but nll_loss and cross_entropy is a composition of differentiable tensor ops written
with PyTorch's formula, so values and gradients are PyTorch's and no kernel or backward of its
own is needed. The margin losses that PyTorch runs as C kernels (multi_margin,
multilabel_margin) keep a kernel's strict `z > 0` test through `where`, so a hinge exactly at
its kink passes no gradient, as there.

Reductions: PyTorch checks the reduction name in several ways, and each loss here keeps the one
its PyTorch counterpart uses (_reduce, _reduction_of, _named_reduction, the loss's own
message); the legacy size_average / reduce pair maps to a name first (legacy_reduction).
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch
from .. import dtypes as _dt
from .._errors import not_implemented
from .._prims.creation import arange, ones_like, zeros
from ..autograd.recorded import minimum, where
from .._promotion import result_type
from .._refs.shape import broadcast_shapes
from ..autograd import no_grad
from ..tensor import Tensor, as_int64
from ._activations import log_softmax, logsigmoid
from ._distance import pairwise_distance
from ._reduction import legacy_reduction
from ._softmax_kernels import cross_entropy_indices as _ce_indices, nll_loss as _nll


_CE_FUSED = (_dt.float32, _dt.float64)
EPSILON = 1e-12                   # cosine_embedding_loss: added to each squared norm
_KERNEL_DTYPES = (_dt.float32, _dt.float64)   # the dtypes PyTorch's margin kernels take
_PAIR_BLOCK = 1 << 22            # multilabel_margin: elements in one (N, J, C) block of hinges
_REDUCE: dict[str, Callable[[Tensor], Tensor]] = {
    "none": lambda loss: loss,
    "mean": lambda loss: loss.mean(),
    "sum": lambda loss: loss.sum(),
}
_OLD_NAMES = {"elementwise_mean": "mean"}    # PyTorch's former name, still accepted with a warning


# ---- reductions ----------------------------------------------------------------------------------

def _reduce(loss: Tensor, reduction: str) -> Tensor:
    """loss reduced by name: 'mean', 'sum' or 'none' (ValueError for any other)."""
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _reduction_of(size_average: Any, reduce: Any, reduction: str) -> str:
    """The checked reduction of a loss PyTorch runs natively: the legacy pair first, then the
    name ('elementwise_mean' still means 'mean')."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    if reduction in _OLD_NAMES:
        warnings.warn(f"reduction='{reduction}' is deprecated. Please use "
                      f"reduction='{_OLD_NAMES[reduction]}' instead.", stacklevel=3)
        reduction = _OLD_NAMES[reduction]
    return _named_reduction(reduction)


def _named_reduction(reduction: str, message: str = "is not a valid value for reduction") -> str:
    """reduction itself when it is 'none', 'mean' or 'sum', else ValueError('<name> <message>')."""
    if reduction not in _REDUCE:
        raise ValueError(f"{reduction} {message}")
    return reduction


def _check_same_size(name: str, input: Tensor, target: Tensor) -> None:
    """PyTorch's UserWarning when target's shape differs from input's (they broadcast)."""
    if tuple(input.shape) != tuple(target.shape):
        warnings.warn(f"Using a target size ({list(target.shape)}) that is different to the "
                      f"input size ({list(input.shape)}). This will likely lead to incorrect "
                      f"results due to broadcasting. Please ensure they have the same size.",
                      stacklevel=3)


def _need_floating(name: str, *tensors: Tensor) -> None:
    """NotImplementedError, as PyTorch, for a loss whose computing dtype is not floating."""
    dt = result_type(*tensors) if len(tensors) > 1 else tensors[0].dtype
    if not dt.is_floating_point:
        raise not_implemented(name, dt, "expects floating point tensors")


def _weighted(loss: Tensor, weight: Tensor | None, input: Tensor, reduction: str,
              mean_by_weight: bool = True) -> Tensor:
    """loss reduced, or with an elementwise weight (of input's size) as PyTorch's regression
    losses take one: 'mean' divides by the weights' sum (mean_by_weight) or the count."""
    if weight is None:
        return _reduce(loss, reduction)
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.sum() / weight.sum() if mean_by_weight else loss.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                     "'sum'.")


def _scalar_in(value: float, dtype: _dt.dtype) -> float | int:
    """value as a fill of dtype stores it (integer types truncate toward zero), for the losses
    whose PyTorch kernel fills a tensor of the input's dtype with the margin."""
    return value if dtype.is_floating_point else int(value)


def _same_dims(op: str, **tensors: Tensor) -> None:
    """RuntimeError unless the named tensors have one number of dims."""
    if len({t.dim() for t in tensors.values()}) > 1:
        sizes = ", ".join(f"{k} {list(t.shape)}" for k, t in tensors.items())
        raise RuntimeError(f"{op}(): expected {', '.join(tensors)} of one number of dims, got "
                           f"sizes {sizes}")


# ---- regression and binary losses ----------------------------------------------------------------

def mse_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
             reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """(input - target)^2, reduced (optionally weighted elementwise)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(mse_loss, locals())
    _check_same_size("mse_loss", input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    _need_floating("mse_loss", input, target)
    d = input - target
    return _weighted(d * d, weight, input, reduction)


def l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
            reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """|input - target|, reduced (optionally weighted elementwise)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(l1_loss, locals())
    _check_same_size("l1_loss", input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    return _weighted((input - target).abs(), weight, input, reduction)


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (beta = 0: L1)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(smooth_l1_loss, locals())
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _check_same_size("smooth_l1_loss", input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    _need_floating("smooth_l1_loss", input, target)
    d = (input - target).abs()
    if beta == 0:
        return _reduce(d, reduction)
    return _reduce(where(d < beta, d * d * (0.5 / beta), d - 0.5 * beta), reduction)


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean",
               delta: float = 1.0, weight: Tensor | None = None) -> Tensor:
    """0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(huber_loss, locals())
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _check_same_size("huber_loss", input, target)
    _need_floating("huber_loss", input, target)
    d = (input - target).abs()
    return _weighted(where(d < delta, d * d * 0.5, (d - 0.5 * delta) * delta), weight, input,
                     reduction, mean_by_weight=False)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         size_average: Any = None, reduce: Any = None,
                         reduction: str = "mean") -> Tensor:
    """-(t log x + (1 - t) log(1 - x)), logs clamped at -100 as PyTorch does."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(binary_cross_entropy, locals())
    reduction = legacy_reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({list(target.shape)}) that is different to "
                         f"the input size ({list(input.shape)}) is deprecated. Please ensure "
                         f"they have the same size.")
    _need_floating("binary_cross_entropy", input)
    if input.numel() and not bool(((input >= 0) & (input <= 1)).all()):
        raise RuntimeError("binary_cross_entropy(): all elements of input should be between 0 "
                           f"and 1, got values in [{input.min().item()}, {input.max().item()}]")
    loss = -(target * input.log().clamp(min=-100) +
             (1 - target) * (1 - input).log().clamp(min=-100))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,
                                     weight: Tensor | None = None, size_average: Any = None,
                                     reduce: Any = None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    """BCE of sigmoid(input), computed stably: (1 - t) x + l * log(1 + e^-x) with
    l = 1 + (pos_weight - 1) t (the log term as -logsigmoid(x), smooth at x = 0)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(binary_cross_entropy_with_logits, locals())
    reduction = legacy_reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({list(target.shape)}) must be the same as input size "
                         f"({list(input.shape)})")
    _need_floating("binary_cross_entropy_with_logits", input)
    softplus_neg = -logsigmoid(input)   # log(1 + e^-x), stable, with its gradient at 0
    if pos_weight is not None:
        lw = (pos_weight - 1) * target + 1
        loss = (1 - target) * input + lw * softplus_neg
    else:
        loss = (1 - target) * input + softplus_neg
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def kl_div(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
           reduction: str = "mean", log_target: bool = False) -> Tensor:
    """target * (log target - input) pointwise (input holds log-probabilities)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(kl_div, locals())
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the "
                      "support size.'batchmean' divides only by the batch size, and aligns with "
                      "the KL div math definition.'mean' will be changed to behave the same as "
                      "'batchmean' in the next major release.", stacklevel=2)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        safe = where(target > 0, target, target * 0 + 1)
        loss = where(target > 0, target * (safe.log() - input), target * 0)
    if reduction == "batchmean":
        return loss.sum() / input.size(0) if input.dim() else loss.sum()
    return _reduce(loss, reduction)


# ---- classification (THNN kernels: generic/THNNSoftMax.c) ----------------------------------------

def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
             size_average: Any = None, ignore_index: int = -100, reduce: Any = None,
             reduction: str = "mean") -> Tensor:
    """-input[n, target[n]] (times the class weight), reduced; targets == ignore_index count
    nothing."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(nll_loss, locals())
    if input.dim() >= 2 and target.dim() >= 1 and target.size(0) != input.size(0):
        raise ValueError(f"nll_loss(): expected input batch_size ({input.size(0)}) to match "
                         f"target batch_size ({target.size(0)})")
    reduction = legacy_reduction(size_average, reduce, reduction)
    return _nll(input, target, weight, reduction, ignore_index)


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                  size_average: Any = None, ignore_index: int = -100, reduce: Any = None,
                  reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """nll_loss(log_softmax(input, 1), target) for class indices; for class probabilities
    (target of input's shape), -sum(target * log_softmax(input, 1)); label_smoothing mixes in
    the uniform distribution, as PyTorch does."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(cross_entropy, locals())
    reduction = legacy_reduction(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if input.dim() >= 2 and target.dim() >= 1 and not target.dtype.is_floating_point and \
            target.size(0) != input.size(0):
        raise ValueError(f"cross_entropy(): expected input batch_size ({input.size(0)}) to "
                         f"match target batch_size ({target.size(0)})")
    if weight is None and label_smoothing == 0 and input.dim() == 2 and \
            input.dtype in _CE_FUSED and target.dtype is _dt.int64:
        return _ce_indices(input, target, reduction,
                           as_int64(int(ignore_index), "cross_entropy", "ignore_index"))
    cdim = 0 if input.dim() == 1 else 1
    logp = log_softmax(input, cdim)
    c = input.size(cdim)
    wshape = [1] * input.dim()
    wshape[cdim] = c
    if target.dtype.is_floating_point:  # class probabilities
        if tuple(target.shape) != tuple(input.shape):
            raise RuntimeError(f"cross_entropy(): expected target of the input's shape "
                               f"{list(input.shape)} for class probabilities, got "
                               f"{list(target.shape)}")
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / c
        prod = logp * target
        if weight is not None:
            prod = prod * weight.reshape(wshape)
        loss = -prod.sum(cdim)
        if reduction == "mean":
            return loss.sum() / (loss.numel() if input.dim() > 1 else 1)
        return _reduce(loss, reduction)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing == 0:
        return nll
    keep = (target != ignore_index)
    lw = logp * weight.reshape(wshape) if weight is not None else logp
    smooth = -lw.sum(cdim) * keep.to(logp.dtype)
    if reduction == "mean":
        if weight is not None:
            t = target.masked_fill(~keep, 0)
            denom = (weight[t] * keep.to(weight.dtype)).sum()
        else:
            denom = keep.sum()
        smooth = smooth.sum() / denom
    else:
        smooth = _reduce(smooth, reduction)
    return (1 - label_smoothing) * nll + (label_smoothing / c) * smooth


# ---- pairwise and pointwise margins --------------------------------------------------------------

def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                        size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    """max(0, -target * (input1 - input2) + margin): target 1 asks input1 to rank above input2
    by margin, -1 below. The three broadcast together but must have one number of dims."""
    if type(input1) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(margin_ranking_loss, locals())
    reduction = _reduction_of(size_average, reduce, reduction)
    _same_dims("margin_ranking_loss", input1=input1, input2=input2, target=target)
    return _REDUCE[reduction]((-target * (input1 - input2) + float(margin)).clamp_min(0))


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,
                         size_average: Any = None, reduce: Any = None,
                         reduction: str = "mean") -> Tensor:
    """input where target is 1, max(0, margin - input) where target is -1 (input is typically
    a distance; any other target value adds both terms, as PyTorch's). Integer inputs keep
    their dtype, the margin truncated to it."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(hinge_embedding_loss, locals())
    reduction = _reduction_of(size_average, reduce, reduction)
    far = (_scalar_in(margin, input.dtype) - input).clamp_min(0)
    loss = where(target != 1, far, 0) + where(target != -1, input, 0)
    return _REDUCE[reduction](loss)


def soft_margin_loss(input: Tensor, target: Tensor, size_average: Any = None,
                     reduce: Any = None, reduction: str = "mean") -> Tensor:
    """log(1 + exp(-target * input)): a smooth two-class hinge. The loss has input's dtype and
    shape (target must broadcast to it), as PyTorch's computes it in place of a copy of input."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(soft_margin_loss, locals())
    reduction = _reduction_of(size_average, reduce, reduction)
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"soft_margin_loss(): expected a floating point input, got "
                           f"{input.dtype.real} (the loss is computed in the input's dtype)")
    shape = tuple(broadcast_shapes(input.shape, target.shape))
    if shape != tuple(input.shape):
        raise RuntimeError(f"soft_margin_loss(): target of shape {list(target.shape)} does not "
                           f"broadcast to the input's shape {list(input.shape)} (broadcast "
                           f"shape {list(shape)})")
    return _REDUCE[reduction]((-input * target).to(input.dtype).exp().log1p())


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                size_average: Any = None, reduce: Any = None,
                                reduction: str = "mean") -> Tensor:
    """One binary cross-entropy on logits per class (last dim), averaged over the classes:
    -(t log sigmoid(x) + (1 - t) log sigmoid(-x)), times weight, summed over classes / C."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(multilabel_soft_margin_loss, locals())
    reduction = legacy_reduction(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    if input.dim() == 0:
        raise IndexError("multilabel_soft_margin_loss(): the input has no class dim (it is "
                         "0-dim); expected (C) or (N, C)")
    per_sample = loss.sum(input.dim() - 1) / input.size(-1)
    return _REDUCE[_named_reduction(reduction, "is not valid")](per_sample)


# ---- embeddings ----------------------------------------------------------------------------------

def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                          size_average: Any = None, reduce: Any = None,
                          reduction: str = "mean") -> Tensor:
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1, the cosine
    taken along the last dim with EPSILON added to each squared norm. Inputs (N, D) with target
    (N), or unbatched (D) with a 0-dim target."""
    if type(input1) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(cosine_embedding_loss, locals())
    reduction = _reduction_of(size_average, reduce, reduction)
    dim = target.dim()
    if dim > 1:
        raise RuntimeError(f"cosine_embedding_loss(): expected a 0-dim or 1-D target, got "
                           f"{list(target.shape)} (multi-target is not supported)")
    if input1.dim() != dim + 1 or input2.dim() != dim + 1:
        raise RuntimeError(f"cosine_embedding_loss(): a {dim}-D target needs {dim + 1}-D inputs, "
                           f"got inputs of sizes {list(input1.shape)} and {list(input2.shape)}")
    dot = (input1 * input2).sum(dim)
    sq1 = (input1 * input1).sum(dim) + EPSILON
    sq2 = (input2 * input2).sum(dim) + EPSILON
    cos = dot / (sq1 * sq2).sqrt()
    loss = where(target == 1, 1 - cos, 0) + where(target == -1, (cos - margin).clamp_min(0), 0)
    return _REDUCE[reduction](loss)


def _triplet(distance: Callable[[Tensor, Tensor], Tensor], anchor: Tensor, positive: Tensor,
             negative: Tensor, margin: float, swap: bool) -> Tensor:
    """max(0, margin + d(a, p) - d(a, n)) per triplet; swap takes min(d(a, n), d(p, n))."""
    d_neg = distance(anchor, negative)
    if swap:
        d_neg = minimum(d_neg, distance(positive, negative))
    return (margin + distance(anchor, positive) - d_neg).clamp_min(0)


def _check_triplet(op: str, margin: float, anchor: Tensor, positive: Tensor,
                   negative: Tensor) -> None:
    """ValueError for a margin not above 0, RuntimeError for operands of unequal dims."""
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _same_dims(op, anchor=anchor, positive=positive, negative=negative)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0,
                        p: float = 2, eps: float = 1e-6, swap: bool = False,
                        size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    """max(0, margin + |a - p + eps|_p - |a - n + eps|_p) over the last dim (pairwise_distance),
    so the anchor ends nearer the positive than the negative by margin."""
    if type(anchor) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(triplet_margin_loss, locals())
    reduction = _reduction_of(size_average, reduce, reduction)
    _check_triplet("triplet_margin_loss", margin, anchor, positive, negative)
    loss = _triplet(lambda x, y: pairwise_distance(x, y, p, eps), anchor, positive, negative,
                    margin, swap)
    return _REDUCE[reduction](loss)


def triplet_margin_with_distance_loss(
        anchor: Tensor, positive: Tensor, negative: Tensor, *,
        distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
        margin: float = 1.0, swap: bool = False, reduction: str = "mean") -> Tensor:
    """triplet_margin_loss with any distance (default pairwise_distance): max(0, margin +
    d(a, p) - d(a, n))."""
    if type(anchor) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(triplet_margin_with_distance_loss, locals())
    _named_reduction(reduction)
    _check_triplet("triplet_margin_with_distance_loss", margin, anchor, positive, negative)
    loss = _triplet(distance_function or pairwise_distance, anchor, positive, negative, margin,
                    swap)
    return _REDUCE[reduction](loss)


# ---- multi-class and multi-label margins (PyTorch's C kernels, composed) -------------------------

def _frames(op: str, input: Tensor) -> tuple[int, int]:
    """(samples, classes) of a margin kernel's input: (N, C) with C > 0, (C) with C > 0, or a
    0-dim input (one sample of one class)."""
    nd = input.dim()
    if not (nd == 0 or nd in (1, 2) and input.size(-1) != 0):
        raise RuntimeError(f"{op}(): expected a non-empty (C) or (N, C) input (N may be 0), "
                           f"got {list(input.shape)}")
    if nd == 2:
        return input.size(0), input.size(1)
    return 1, input.size(0) if nd == 1 else 1


def _kernel_dtypes(op: str, input: Tensor, target: Tensor) -> None:
    """PyTorch's margin kernels: a float32 / float64 input, an int64 target."""
    if input.dtype not in _KERNEL_DTYPES:
        raise not_implemented(op, input.dtype, "expects float32 or float64 input")
    if target.dtype is not _dt.int64:
        raise RuntimeError(f"{op}(): expected an int64 target (class indices), got "
                           f"{target.dtype.real}")


def _hinge(z: Tensor, keep: Tensor) -> Tensor:
    """z where keep and z > 0, else 0: a kernel's `if (z > 0)` sum term (no gradient at z = 0)."""
    return where(keep & (z > 0), z, 0)


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0,
                      weight: Tensor | None = None, size_average: Any = None,
                      reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Multi-class hinge: sum over classes i != y of max(0, margin - x[y] + x[i])^p (times
    weight[y]) / C, per sample; input (N, C) with target (N), or unbatched (C)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(multi_margin_loss, locals())
    reduction = _reduction_of(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    n, c = _frames("multi_margin_loss", input)
    if target.dim() > 1 or target.numel() != n:
        raise RuntimeError(f"multi_margin_loss(): expected a target of {n} class indices (0-dim "
                           f"or 1-D), got {list(target.shape)} for input {list(input.shape)}")
    if weight is not None and weight.numel() != c:
        raise RuntimeError(f"multi_margin_loss(): expected a weight of {c} elements, got "
                           f"{list(weight.shape)}")
    _kernel_dtypes("multi_margin_loss", input, target)
    if weight is not None and weight.dtype is not input.dtype:
        raise RuntimeError(f"multi_margin_loss(): expected a weight of the input's dtype "
                           f"{input.dtype.real}, got {weight.dtype.real}")
    per_sample = _multi_margin(input.reshape(n, c), target.reshape(n), p, margin, weight)
    if reduction == "none":
        return per_sample if target.dim() > 0 else per_sample.reshape(())
    return _REDUCE[reduction](per_sample)


def _multi_margin(x: Tensor, y: Tensor, p: int, margin: float,
                  weight: Tensor | None) -> Tensor:
    """multi_margin_loss per sample of x (N, C) with class indices y (N)."""
    n, c = x.shape
    if n and not bool(((y >= 0) & (y < c)).all()):
        raise RuntimeError(f"multi_margin_loss(): target out of range: class indices must lie "
                           f"in [0, {c}), got values in [{int(y.min())}, {int(y.max())}]")
    z = margin - x.gather(1, y.unsqueeze(1)) + x
    h = _hinge(z, arange(c).unsqueeze(0) != y.unsqueeze(1))
    if p == 2:
        h = h * h
    if weight is not None:
        h = h * weight.reshape(c)[y].unsqueeze(1)
    return h.sum(1) / c


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average: Any = None,
                           reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Multi-label hinge: sum over the sample's targets j and non-target classes i of
    max(0, 1 - x[j] + x[i]) / C. target (input's shape, int64) lists the target classes first,
    ended by the first -1."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(multilabel_margin_loss, locals())
    reduction = _reduction_of(size_average, reduce, reduction)
    op = "multilabel_margin_loss"
    n, c = _frames(op, input)
    ok = target.dim() <= 1 and target.numel() == c if input.dim() <= 1 else \
        tuple(target.shape) == (n, c)
    if not ok:
        raise RuntimeError(f"{op}(): expected a target of the input's shape, got "
                           f"{list(target.shape)} for input {list(input.shape)}")
    _kernel_dtypes(op, input, target)
    if target.numel() and input.numel() and \
            not bool(((target >= -1) & (target < c)).all()):
        raise RuntimeError(f"{op}(): target is out of range: entries must lie in [-1, {c}), got "
                           f"values in [{int(target.min())}, {int(target.max())}]")
    per_sample = _multilabel_margin(input.reshape(n, c), target.reshape(n, c))
    if reduction == "none":
        return per_sample if target.dim() > 1 else per_sample.reshape(())
    return _REDUCE[reduction](per_sample)


def _multilabel_margin(x: Tensor, y: Tensor) -> Tensor:
    """multilabel_margin_loss per sample of x (N, C), targets y (N, C): the hinges of every
    (listed target j, class i) pair, in (N, J, C) blocks of at most _PAIR_BLOCK elements, J
    running over the longest target list only."""
    n, c = x.shape
    listed = (y < 0).to(_dt.int64).cumsum(1) == 0      # the entries before the first -1
    idx = y.clamp_min(0)
    hits = zeros(n, c, dtype=_dt.int64).scatter_add_(1, idx, listed.to(_dt.int64))
    others = (hits == 0).unsqueeze(1)                  # (N, 1, C): classes that are no target
    x_target = x.gather(1, idx)                        # (N, J): x at each listed target
    longest = int(listed.to(_dt.int64).sum(1).max()) if n else 0
    step = max(1, _PAIR_BLOCK // max(1, n * c))
    total = None
    for j in range(0, max(longest, 1), step):          # one block at least, for the graph
        z = 1 - x_target[:, j:j + step].unsqueeze(2) + x.unsqueeze(1)
        part = _hinge(z, listed[:, j:j + step].unsqueeze(2) & others).sum((1, 2))
        total = part if total is None else total + part
    return total / c


# ---- likelihoods ---------------------------------------------------------------------------------

def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average: Any = None, eps: float = 1e-8, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of target under Poisson(rate): exp(input) - target * input when
    input is the log-rate, else input - target * log(input + eps); full adds Stirling's
    log(target!) ~ t log t - t + log(2 pi t) / 2 where target > 1."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(poisson_nll_loss, locals())
    reduction = _named_reduction(legacy_reduction(size_average, reduce, reduction))
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (target * (2 * math.pi)).log()
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _REDUCE[reduction](loss)


def _gaussian_var(input: Tensor, var: Tensor | float) -> Tensor:
    """var checked (non-negative) and shaped against input: input's shape (one variance per
    element), input's shape less the last dim (one per sample, unsqueezed), or input's dims
    with the mismatched sizes adding up to 1 (a size-1 dim to broadcast); a float fills
    input's shape."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        return var * ones_like(input)
    if not isinstance(var, Tensor):
        raise TypeError(f"gaussian_nll_loss(): var must be a Tensor or a float, got "
                        f"{type(var).__name__}")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    shape, vshape = tuple(input.shape), tuple(var.shape)
    if vshape == shape:
        return var
    if shape[:-1] == vshape:
        return var.unsqueeze(-1)
    if len(vshape) == len(shape) and sum(v for s, v in zip(shape, vshape) if s != v) == 1:
        return var
    raise ValueError("var is of incorrect size")


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Tensor | float, full: bool = False,
                      eps: float = 1e-6, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of target under N(input, var): (log var + (input - target)^2 /
    var) / 2, var held at least eps (the floor takes no part in the gradient, as PyTorch's);
    full adds log(2 pi) / 2."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(gaussian_nll_loss, locals())
    var = _gaussian_var(input, var)
    reduction = _named_reduction(reduction, "is not valid")
    if not var.dtype.is_floating_point:
        raise RuntimeError(f"gaussian_nll_loss(): expected a floating point var, got "
                           f"{var.dtype.real} (it is clamped at eps in place)")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _REDUCE[reduction](loss)
