"""Non-linear activations: the pointwise THNN kernels (generic/THNNActivation.c), softmax,
log_softmax and softmin (generic/THNNSoftMax.c), and the compositions of differentiable ops
(softsign, tanhshrink, prelu, glu, rrelu, gumbel_softmax)."""

from __future__ import annotations

import warnings
from typing import Any

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch, overridden as _overridden
from .._errors import not_implemented
from .._prims.creation import _checked, _no_bool
from ..autograd.recorded import where as _where
from ..autograd import no_grad
from ..tensor import Tensor, as_dim
from ._activation_kernels import activation as _activation
from ._softmax_kernels import softmax as _sm


# ---- pointwise activations (THNN kernels: generic/THNNActivation.c) ------------------------------

def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(x, 0); integer inputs are clamped, floating ones go through the kernel."""
    if isinstance(input, Tensor):
        if not input.dtype.is_floating_point and input.dtype.kind != "b":
            # integers: PyTorch's relu is a clamp there
            return input.clamp_(min=0) if inplace else input.clamp(min=0)
    elif type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(relu, locals())
    return _activation(input, "ReLU", inplace=inplace)


def relu_(input: Tensor) -> Tensor:
    """relu in place."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(relu_, locals())
    return relu(input, inplace=True)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x above 0, negative_slope * x below."""
    try:
        return _activation(input, "LeakyReLU", negative_slope, inplace=inplace)
    except TypeError:   # input is no Tensor: a Proxy (pyth.fx) may take the call
        return _overridden(leaky_relu, locals())


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x above 0, alpha * (exp(x) - 1) below."""
    try:
        return _activation(input, "ELU", alpha, inplace=inplace)
    except TypeError:   # input is no Tensor: a Proxy (pyth.fx) may take the call
        return _overridden(elu, locals())


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x * Phi(x), Phi the standard normal CDF (approximate='tanh': its tanh form)."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"approximate argument must be either none or tanh, got "
                           f"{approximate!r}")
    try:
        return _activation(input, "GELU" if approximate == "none" else "GELUTanh")
    except TypeError:   # input is no Tensor: a Proxy (pyth.fx) may take the call
        return _overridden(gelu, locals())


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x * sigmoid(x)."""
    try:
        return _activation(input, "SiLU", inplace=inplace)
    except TypeError:   # input is no Tensor: a Proxy (pyth.fx) may take the call
        return _overridden(silu, locals())


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + exp(beta * x)) / beta, linear where beta * x exceeds threshold."""
    try:
        return _activation(input, "Softplus", beta, threshold)
    except TypeError:   # input is no Tensor: a Proxy (pyth.fx) may take the call
        return _overridden(softplus, locals())


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,
             inplace: bool = False) -> Tensor:
    """x clamped to [min_val, max_val]."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    try:
        return _activation(input, "Hardtanh", min_val, max_val, inplace=inplace)
    except TypeError:   # input is no Tensor: a Proxy (pyth.fx) may take the call
        return _overridden(hardtanh, locals())


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """x clamped to [0, 6]."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(relu6, locals())
    return hardtanh(input, 0.0, 6.0, inplace)


def sigmoid(input: Tensor) -> Tensor:
    """1 / (1 + exp(-x)) (Tensor.sigmoid)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(sigmoid, locals())
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    """tanh(x) (Tensor.tanh)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(tanh, locals())
    return input.tanh()


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """scale * elu(x, alpha) with the self-normalising constants of Klambauer et al."""
    try:
        return _activation(input, "SELU", inplace=inplace)
    except TypeError:   # input is no Tensor: a Proxy (pyth.fx) may take the call
        return _overridden(selu, locals())


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x above 0, alpha * (exp(x / alpha) - 1) below: an ELU continuously differentiable."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    try:
        return _activation(input, "CELU", alpha, inplace=inplace)
    except TypeError:   # input is no Tensor: a Proxy (pyth.fx) may take the call
        return _overridden(celu, locals())


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * tanh(softplus(x))."""
    try:
        return _activation(input, "Mish", inplace=inplace)
    except TypeError:   # input is no Tensor: a Proxy (pyth.fx) may take the call
        return _overridden(mish, locals())


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * relu6(x + 3) / 6: a piecewise-quadratic SiLU."""
    try:
        return _activation(input, "Hardswish", inplace=inplace)
    except TypeError:   # input is no Tensor: a Proxy (pyth.fx) may take the call
        return _overridden(hardswish, locals())


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """relu6(x + 3) / 6: a piecewise-linear sigmoid."""
    try:
        return _activation(input, "Hardsigmoid", inplace=inplace)
    except TypeError:   # input is no Tensor: a Proxy (pyth.fx) may take the call
        return _overridden(hardsigmoid, locals())


def logsigmoid(input: Tensor) -> Tensor:
    """log(sigmoid(x)), without overflow for large |x|."""
    try:
        return _activation(input, "LogSigmoid")
    except TypeError:   # input is no Tensor: a Proxy (pyth.fx) may take the call
        return _overridden(logsigmoid, locals())


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """0 on [-lambd, lambd], else x."""
    try:
        return _activation(input, "Hardshrink", lambd)
    except TypeError:   # input is no Tensor: a Proxy (pyth.fx) may take the call
        return _overridden(hardshrink, locals())


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """0 on [-lambd, lambd], else x shrunk towards 0 by lambd."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(softshrink, locals())
    if lambd < 0:
        raise RuntimeError(f"softshrink: lambda must be at least 0, but found {lambd}")
    return _activation(input, "Softshrink", lambd)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """value where x <= threshold, else x (integers too, as PyTorch's)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(threshold, locals())
    if isinstance(input, Tensor) and not input.dtype.is_floating_point:
        _no_bool("threshold", input.dtype)   # both taken as the input's type, as PyTorch's
        th, v = (_checked(a, input.dtype, "threshold") for a in (threshold, value))
        out = _where(input <= th, v, input).to(input.dtype)
        return input.copy_(out) if inplace else out
    return _activation(input, "Threshold", threshold, value, inplace=inplace)


# ---- compositions of differentiable ops ----------------------------------------------------------

def softsign(input: Tensor) -> Tensor:
    """x / (1 + |x|) (composed, as PyTorch's)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(softsign, locals())
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    """x - tanh(x) (composed, as PyTorch's)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(tanhshrink, locals())
    return input - input.tanh()


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """x above 0, weight * x below, one learnt slope per channel (dim 1) or one for all."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(prelu, locals())
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
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(glu, locals())
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


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """x above 0, a * x at or below it: a drawn uniformly from [lower, upper] per element while
    training, (lower + upper) / 2 otherwise."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(rrelu, locals())
    if lower > upper:
        raise RuntimeError(f"rrelu(): lower bound ({lower}) should be less than or equal to the "
                           f"upper bound ({upper})")
    if not input.dtype.is_floating_point:
        raise not_implemented("rrelu", input.dtype, "expects a floating point input")
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)
    with no_grad():
        slopes = input.new_empty(tuple(input.shape)).uniform_(lower, upper)
        noise = _where(input <= 0, slopes, slopes * 0 + 1)
    return input.mul_(noise) if inplace else input * noise


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
           training: bool = False) -> Tensor:
    """rrelu in place."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(rrelu_, locals())
    return rrelu(input, lower, upper, training, True)


# ---- softmax and its relatives (THNN kernels: generic/THNNSoftMax.c) -----------------------------

def _softmax_dim(ndim: int, name: str = "softmax") -> int:
    """The dim PyTorch picks when softmax is called without one, with its deprecation
    warning."""
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  f"to include dim=X as an argument.", stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
            dtype: Any = None) -> Tensor:
    """exp(x) / sum(exp(x)) along dim, computed around the slice's maximum."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(softmax, locals())
    if dim is None:
        dim = _softmax_dim(input.dim())
    if dtype is not None:
        input = input.to(dtype)
    return _sm(input, as_dim(dim, "softmax"), False)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
                dtype: Any = None) -> Tensor:
    """x - log(sum(exp(x))) along dim, computed around the slice's maximum."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(log_softmax, locals())
    if dim is None:
        dim = _softmax_dim(input.dim())
    if dtype is not None:
        input = input.to(dtype)
    return _sm(input, as_dim(dim, "log_softmax"), True)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
            dtype: Any = None) -> Tensor:
    """softmax(-x) along dim."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(softmin, locals())
    if dim is None:
        dim = _softmax_dim(input.dim(), "softmin")
    if dtype is not None:
        input = input.to(dtype)
    return _sm(-input, as_dim(dim, "softmin"), False)


def gumbel_softmax(logits: Tensor, tau: float = 1.0, hard: bool = False, eps: float = 1e-10,
                   dim: int = -1) -> Tensor:
    """softmax((logits + Gumbel noise) / tau) along dim: a differentiable sample from the
    categorical distribution; hard=True returns its one-hot argmax with the soft gradient."""
    if type(logits) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(gumbel_softmax, locals())
    with no_grad():
        gumbels = -logits.new_empty(tuple(logits.shape)).exponential_().log()
    soft = _sm((logits + gumbels) / tau, dim, False)
    if not hard:
        return soft
    with no_grad():
        index = soft.argmax(dim, keepdim=True)
        one_hot = soft.new_zeros(tuple(soft.shape)).scatter_(dim, index, 1.0)
    return one_hot - soft.detach() + soft
