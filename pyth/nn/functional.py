"""pyth.nn.functional: the layers as functions.

Compositions of differentiable tensor ops (linear, bilinear, dropout, the regression and binary
losses) live here; the functions over THNN kernels (softmax and NLL, activations, convolution,
pooling, normalisation, embedding; grid sampling in _grid_sample) are autograd Functions or kernel
nodes in the _*_kernels modules, imported at the end.
"""

from __future__ import annotations

from typing import Any

from .. import dtypes as _dt
from .._errors import not_implemented
from .._promotion import result_type
from ..tensor import Tensor, as_dim, as_int64
from . import _linear_kernels
from ._reduction import legacy_reduction

_REDUCTIONS = ("none", "mean", "sum")
_CE_FUSED = (_dt.float32, _dt.float64)


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """input @ weight.T + bias, over any leading dims of input."""
    kernels = _linear_kernels.KERNELS.get(input.dtype)
    if kernels is not None and weight.dtype is input.dtype and \
            (bias is None or bias.dtype is input.dtype):
        xh, wh = input._h, weight._h   # the kernel's case, checked cheaply (step-time path)
        if xh.nDimension == 2 and wh.nDimension == 2 and xh.size[1] == wh.size[1] and \
                (bias is None or bias._h.nDimension == 1 and bias._h.size[0] == wh.size[0]):
            return _linear_kernels.linear2d(input, weight, bias, kernels)
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
    if weight.dim() != 3 or input1.size(-1) != weight.size(1) or \
            input2.size(-1) != weight.size(2):
        raise RuntimeError(f"bilinear(): shapes {list(input1.shape)}, {list(input2.shape)} do "
                           f"not fit a weight of shape {list(weight.shape)}")
    lead = input1.shape[:-1]
    a = input1.reshape(-1, 1, 1, input1.size(-1))         # (n, 1, 1, i)
    b = input2.reshape(-1, 1, input2.size(-1), 1)         # (n, 1, j, 1)
    out = (a.matmul(weight.unsqueeze(0)).matmul(b)).reshape(*lead, weight.size(0))
    return out + bias if bias is not None else out


def dropout(input: Tensor, p: float = 0.5, training: bool = True,
            inplace: bool = False) -> Tensor:
    """Zeroes each element with probability p and scales the rest by 1 / (1 - p)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input.mul_(0) if inplace else input * 0
    with _no_grad():
        keep = input.new_empty(input.shape) if hasattr(input, "new_empty") else \
            input.detach().clone()
        keep.bernoulli_(1.0 - p).div_(1.0 - p)
    return input.mul_(keep) if inplace else input * keep


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    return input.flatten(start_dim, end_dim)


def _check_same_size(name: str, input: Tensor, target: Tensor) -> None:
    if tuple(input.shape) != tuple(target.shape):
        import warnings
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


def mse_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
             reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    _check_same_size("mse_loss", input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    _need_floating("mse_loss", input, target)
    d = input - target
    return _weighted(d * d, weight, input, reduction)


def l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
            reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    _check_same_size("l1_loss", input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    return _weighted((input - target).abs(), weight, input, reduction)


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (beta = 0: L1)."""
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _check_same_size("smooth_l1_loss", input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    _need_floating("smooth_l1_loss", input, target)
    d = (input - target).abs()
    if beta == 0:
        return _reduce(d, reduction)
    return _reduce(_where(d < beta, d * d * (0.5 / beta), d - 0.5 * beta), reduction)


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean",
               delta: float = 1.0, weight: Tensor | None = None) -> Tensor:
    """0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta)."""
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _check_same_size("huber_loss", input, target)
    _need_floating("huber_loss", input, target)
    d = (input - target).abs()
    return _weighted(_where(d < delta, d * d * 0.5, (d - 0.5 * delta) * delta), weight, input,
                     reduction, mean_by_weight=False)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         size_average: Any = None, reduce: Any = None,
                         reduction: str = "mean") -> Tensor:
    """-(t log x + (1 - t) log(1 - x)), logs clamped at -100 as PyTorch does."""
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
    """BCE of sigmoid(input), computed stably: (1 - t) x + l * (log(1 + e^-|x|) + max(-x, 0))
    with l = 1 + (pos_weight - 1) t."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({list(target.shape)}) must be the same as input size "
                         f"({list(input.shape)})")
    _need_floating("binary_cross_entropy_with_logits", input)
    softplus_neg = (-input.abs()).exp().log1p() + (-input).clamp(min=0)  # log(1 + e^-x)
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
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce, reduction)
    elif reduction == "mean":
        import warnings
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the "
                      "support size.'batchmean' divides only by the batch size, and aligns with "
                      "the KL div math definition.'mean' will be changed to behave the same as "
                      "'batchmean' in the next major release.", stacklevel=2)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        safe = _where(target > 0, target, target * 0 + 1)
        loss = _where(target > 0, target * (safe.log() - input), target * 0)
    if reduction == "batchmean":
        return loss.sum() / input.size(0) if input.dim() else loss.sum()
    return _reduce(loss, reduction)


# ---- activations (THNN kernels: generic/THNNActivation.c) -----------------------------------

def relu(input: Tensor, inplace: bool = False) -> Tensor:
    if isinstance(input, Tensor) and not input.dtype.is_floating_point \
            and input.dtype.kind != "b":  # integers: PyTorch's relu is a clamp there
        return input.clamp_(min=0) if inplace else input.clamp(min=0)
    return _activation(input, "ReLU", inplace=inplace)


def relu_(input: Tensor) -> Tensor:
    return relu(input, inplace=True)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    return _activation(input, "LeakyReLU", negative_slope, inplace=inplace)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return _activation(input, "ELU", alpha, inplace=inplace)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"approximate argument must be either none or tanh, got "
                           f"{approximate!r}")
    return _activation(input, "GELU" if approximate == "none" else "GELUTanh")


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return _activation(input, "SiLU", inplace=inplace)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    return _activation(input, "Softplus", beta, threshold)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,
             inplace: bool = False) -> Tensor:
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _activation(input, "Hardtanh", min_val, max_val, inplace=inplace)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    return hardtanh(input, 0.0, 6.0, inplace)


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """scale * elu(x, alpha) with the self-normalising constants of Klambauer et al."""
    return _activation(input, "SELU", inplace=inplace)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x above 0, alpha * (exp(x / alpha) - 1) below: an ELU continuously differentiable."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _activation(input, "CELU", alpha, inplace=inplace)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * tanh(softplus(x))."""
    return _activation(input, "Mish", inplace=inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * relu6(x + 3) / 6: a piecewise-quadratic SiLU."""
    return _activation(input, "Hardswish", inplace=inplace)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """relu6(x + 3) / 6: a piecewise-linear sigmoid."""
    return _activation(input, "Hardsigmoid", inplace=inplace)


def logsigmoid(input: Tensor) -> Tensor:
    """log(sigmoid(x)), without overflow for large |x|."""
    return _activation(input, "LogSigmoid")


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """0 on [-lambd, lambd], else x."""
    return _activation(input, "Hardshrink", lambd)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """0 on [-lambd, lambd], else x shrunk towards 0 by lambd."""
    if lambd < 0:
        raise RuntimeError(f"softshrink: lambda must be at least 0, but found {lambd}")
    return _activation(input, "Softshrink", lambd)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """value where x <= threshold, else x (integers too, as PyTorch's)."""
    if isinstance(input, Tensor) and not input.dtype.is_floating_point:
        _no_bool("threshold", input.dtype)   # both taken as the input's type, as PyTorch's
        th, v = (_checked(a, input.dtype, "threshold") for a in (threshold, value))
        out = _where(input <= th, v, input).to(input.dtype)
        return input.copy_(out) if inplace else out
    return _activation(input, "Threshold", threshold, value, inplace=inplace)


def softsign(input: Tensor) -> Tensor:
    """x / (1 + |x|) (composed, as PyTorch's)."""
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    """x - tanh(x) (composed, as PyTorch's)."""
    return input - input.tanh()


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """x above 0, weight * x below, one learnt slope per channel (dim 1) or one for all."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"prelu(): \"prelu_cpu\" not implemented for "
                                  f"'{input.dtype.real}'")
    if weight.dtype is not input.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {input.dtype.real} and "
                           f"{weight.dtype.real}")
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.dim()}")
    channels = input.size(1) if input.dim() >= 2 else 1
    if weight.numel() != 1 and weight.numel() != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                           f"parameter numbers = {weight.numel()} and channel size = "
                           f"{channels}.")
    if weight.numel() != 1 and input.dim() >= 2:
        weight = weight.reshape([1, channels] + [1] * (input.dim() - 2))
    elif weight.dim() == 1:
        weight = weight.reshape([])
    return _where(input > 0, input, weight * input)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """a * sigmoid(b), a and b the two halves of input along dim."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"glu(): \"glu_cpu\" not implemented for "
                                  f"'{input.dtype.real}'")
    d = dim % input.dim() if -input.dim() <= dim < input.dim() else dim
    size = input.size(d)
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {size}")
    a, b = input.chunk(2, d)
    return a * b.sigmoid()


# ---- softmax and classification losses (THNN kernels: generic/THNNSoftMax.c) -----------------

def _softmax_dim(ndim: int, name: str = "softmax") -> int:
    import warnings
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  f"to include dim=X as an argument.", stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
            dtype: Any = None) -> Tensor:
    """exp(x) / sum(exp(x)) along dim, computed around the slice's maximum."""
    if dim is None:
        dim = _softmax_dim(input.dim())
    if dtype is not None:
        input = input.to(dtype)
    return _sm(input, as_dim(dim, "softmax"), False)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
                dtype: Any = None) -> Tensor:
    """x - log(sum(exp(x))) along dim, computed around the slice's maximum."""
    if dim is None:
        dim = _softmax_dim(input.dim())
    if dtype is not None:
        input = input.to(dtype)
    return _sm(input, as_dim(dim, "log_softmax"), True)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
            dtype: Any = None) -> Tensor:
    """softmax(-x) along dim."""
    if dim is None:
        dim = _softmax_dim(input.dim(), "softmin")
    if dtype is not None:
        input = input.to(dtype)
    return _sm(-input, as_dim(dim, "softmin"), False)


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
             size_average: Any = None, ignore_index: int = -100, reduce: Any = None,
             reduction: str = "mean") -> Tensor:
    """-input[n, target[n]] (times the class weight), reduced; targets == ignore_index count
    nothing."""
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


from ._functional_norm import (batch_norm, dropout1d, dropout2d, embedding,  # noqa: E402
                               group_norm, layer_norm)
# ---- CTC loss, embedding bags (THNN kernels: generic/THNNCTC.c, THNNLookupTable.c) ----------
from ._ctc_kernels import ctc_loss  # noqa: E402, F401
from ._embedding_kernels import embedding_bag  # noqa: E402, F401
# ---- convolution and pooling (THNN kernels: generic/THNNConvolution.c, THNNPooling.c) --------
from ._conv_kernels import conv1d, conv2d, conv3d  # noqa: F401
from ._conv_kernels import conv_transpose1d, conv_transpose2d, conv_transpose3d  # noqa: F401
from ._pool_kernels import (adaptive_avg_pool1d, adaptive_avg_pool2d,  # noqa: F401
                            adaptive_avg_pool3d, adaptive_max_pool1d,
                            adaptive_max_pool1d_with_indices, adaptive_max_pool2d,
                            adaptive_max_pool2d_with_indices, adaptive_max_pool3d,
                            adaptive_max_pool3d_with_indices, avg_pool1d, avg_pool2d, avg_pool3d,
                            max_pool1d, max_pool1d_with_indices, max_pool2d,
                            max_pool2d_with_indices, max_pool3d, max_pool3d_with_indices)
# ---- padding, one-hot, distances (compositions of differentiable ops) ------------------------
from ._distance import (cosine_similarity, normalize, one_hot,  # noqa: E402, F401
                        pairwise_distance)
# ---- ranking, embedding, multi-label and likelihood losses (compositions) --------------------
from ._losses_more import (cosine_embedding_loss, gaussian_nll_loss,  # noqa: E402, F401
                           hinge_embedding_loss, margin_ranking_loss, multi_margin_loss,
                           multilabel_margin_loss, multilabel_soft_margin_loss,
                           poisson_nll_loss, soft_margin_loss, triplet_margin_loss,
                           triplet_margin_with_distance_loss)
# ---- interpolation, pixel and channel shuffles (compositions of differentiable ops) ----------
from ._interpolate import (channel_shuffle, interpolate,  # noqa: E402, F401
                           native_channel_shuffle, pixel_shuffle, pixel_unshuffle, upsample,
                           upsample_bilinear, upsample_nearest)
from ._padding import pad  # noqa: E402, F401
# ---- spatial transformers (THNN kernels: generic/THNNGridSampler.c; affine_grid composed) ----
from ._grid_sample import affine_grid, grid_sample  # noqa: E402, F401
# ---- attention (compositions of differentiable ops) ------------------------------------------
from ._attention import (multi_head_attention_forward,  # noqa: E402, F401
                         scaled_dot_product_attention)
# ---- instance/RMS/LRN norms, fold/unfold, unpooling, LP pooling, random layers (compositions) -
from ._layers_more import (fold, instance_norm, local_response_norm,  # noqa: E402, F401
                           lp_pool1d, lp_pool2d, lp_pool3d, max_unpool1d, max_unpool2d,
                           max_unpool3d, rms_norm, unfold)
from ._layers_random import (alpha_dropout, dropout3d,  # noqa: E402, F401
                             feature_alpha_dropout, gumbel_softmax, pdist, rrelu, rrelu_)


# ---- names the functions above use, imported last so that import cycles resolve -------------
from ..autograd import no_grad as _no_grad  # noqa: E402
from .._prims.creation import _checked, _no_bool  # noqa: E402
from .._prims.pointwise import where as _where  # noqa: E402
from ._activation_kernels import activation as _activation  # noqa: E402
from ._softmax_kernels import (cross_entropy_indices as _ce_indices,  # noqa: E402
                               nll_loss as _nll, softmax as _sm)
