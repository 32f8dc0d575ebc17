"""Pointwise activations on the THNN kernels (generic/THNNActivation.c), one Op row each.

The forward and the first-order backward (`first`) are one C call each
(THNN_<Real><Name>_updateOutput / _updateGradInput, stamped for float and double; half and
bfloat16 go through float32). The formula (`backward`, run when the backward itself is recorded:
create_graph=True) is the composed derivative beside the kernel's name below, so higher-order
gradients stay exact.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from .. import dtypes as _dt
from .._errors import check, not_implemented
from .._ops import new_result
from .._th import ffi, lib
from ..autograd import is_grad_enabled
from ..autograd.record import Op, next_edges, record_node
from ..tensor import Tensor


def _where(c: Tensor, a: Any, b: Any) -> Tensor:
    from ..autograd.recorded import where
    return where(c, a, b)


def _full_like(x: Tensor, v: float) -> Tensor:
    from .._prims.creation import full_like
    return full_like(x, v)


def _gelu_tanh_grad(x: Tensor) -> Tensor:
    k, c = math.sqrt(2 / math.pi), 0.044715
    t = (k * (x + c * x * x * x)).tanh()
    return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * c * x * x)


SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _mish_grad(x: Tensor) -> Tensor:
    t = x.exp().log1p().tanh()
    return t + x * x.sigmoid() * (1 - t * t)


# kernel name -> derivative as differentiable ops of (x, p0, p1), for create_graph
DERIVATIVES: dict[str, Callable[[Tensor, float, float], Tensor]] = {
    "ReLU": lambda x, p0, p1: 1 - (x <= 0).to(x.dtype),  # a NaN x passes, as the kernel
    "LeakyReLU": lambda x, p0, p1: _where(x > 0, 1.0, _full_like(x, p0)),  # NaN x: p0
    "ELU": lambda x, p0, p1: _where(x > 0, x * 0 + 1, p0 * x.exp()),
    "GELU": lambda x, p0, p1: 0.5 * (1 + (x * math.sqrt(0.5)).erf()) +
    x * (-0.5 * x * x).exp() / math.sqrt(2 * math.pi),
    "GELUTanh": lambda x, p0, p1: _gelu_tanh_grad(x),
    "SiLU": lambda x, p0, p1: x.sigmoid() * (1 + x * (1 - x.sigmoid())),
    "Softplus": lambda x, p0, p1: _where(x * p0 > p1, x * 0 + 1, (x * p0).sigmoid()),
    "Hardtanh": lambda x, p0, p1: ((x > p0) & (x < p1)).to(x.dtype),
    "SELU": lambda x, p0, p1: _where(x > 0, x * 0 + SELU_SCALE, SELU_SCALE * SELU_ALPHA * x.exp()),
    "CELU": lambda x, p0, p1: _where(x > 0, x * 0 + 1, (x / p0).exp()),
    "Mish": lambda x, p0, p1: _mish_grad(x),
    "Hardswish": lambda x, p0, p1: _where(x <= -3, x * 0, _where(x < 3, x / 3 + 0.5, x * 0 + 1)),
    "Hardsigmoid": lambda x, p0, p1: ((x > -3) & (x < 3)).to(x.dtype) / 6,
    "LogSigmoid": lambda x, p0, p1: (-x).sigmoid(),
    "Hardshrink": lambda x, p0, p1: 1 - ((x >= -p0) & (x <= p0)).to(x.dtype),
    "Softshrink": lambda x, p0, p1: 1 - ((x >= -p0) & (x <= p0)).to(x.dtype),
    "Threshold": lambda x, p0, p1: 1 - (x <= p0).to(x.dtype),
}

_COMPUTE = {_dt.float32: "Float", _dt.float64: "Double"}
# activations PyTorch refuses for a bool input outright (RuntimeError; it computes integers)
# rather than lacking a kernel (NotImplementedError)
_REFUSED = {"ReLU", "Hardtanh"}


def _kernel(name: str, verb: str, dt: _dt.dtype):
    return getattr(lib, f"THNN_{_COMPUTE[dt]}{name}_{verb}")


def _compute_dtype(x: Tensor, op: str) -> _dt.dtype:
    if not x.dtype.is_floating_point:
        if op in _REFUSED:
            raise RuntimeError(f"{op}(): expected a floating point input, got {x.dtype.real}")
        raise not_implemented(op, x.dtype, "expects floating point tensors")
    return x.dtype if x.dtype in _COMPUTE else _dt.float32


def _activation_backward(g: Tensor, a: dict) -> list:
    """g times the composed derivative of the kernel a["kind"] at the saved input."""
    return [g * DERIVATIVES[a["kind"]](a["input"], a["p0"], a["p1"])]


def _activation_first(g: Tensor, a: dict) -> list:
    """The same gradient by the kernel's updateGradInput (half and bfloat16 through float32)."""
    x = a["input"]
    dt, out = a["dtype"], x.dtype   # the kernel's: x's own, or float32 for half and bfloat16
    gi = new_result(dt)
    check(a["kernel"](gi._h, (g if g.dtype is dt else g.to(dt))._h,
                      (x if out is dt else x.to(dt))._h, _NULL, a["p0"], a["p1"]))
    return [gi if out is dt else gi.to(out)]


def run_forward(x: Tensor, name: str, p0: float, p1: float, out: Tensor | None = None) -> Tensor:
    """The forward kernel alone (no graph): into out when given (in place when out is x)."""
    dt = _compute_dtype(x, name)
    xc = x.to(dt)
    y = out if out is not None and out.dtype is dt else new_result(dt)
    check(_kernel(name, "updateOutput", dt)(y._h, xc._h, float(p0), float(p1)))
    if out is not None and y is not out:
        out.copy_(y)
        return out
    return y if dt is x.dtype else y.to(x.dtype)


def activation(x: Tensor, name: str, p0: float = 0.0, p1: float = 0.0,
               inplace: bool = False) -> Tensor:
    """f(x) through the kernel, recorded for autograd when x requires grad."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{name.lower()}(): argument 'input' must be Tensor, not "
                        f"{type(x).__name__}")
    if type(p0) is not float or type(p1) is not float:   # Python numbers as PyTorch's Scalars
        p0, p1 = _dt.checked(p0, _dt.float64), _dt.checked(p1, _dt.float64)
    if inplace:
        if x.requires_grad and is_grad_enabled():
            if x.is_leaf:
                raise RuntimeError("a leaf Variable that requires grad is being used in an "
                                   "in-place operation.")
            return x.copy_(activation(x.clone(), name, p0, p1))
        return run_forward(x, name, p0, p1, out=x)
    dt = x.dtype
    kernels = _KERNELS.get((name, dt))
    if kernels is not None:   # float32 / float64: the kernel, and a lean node when recorded
        y = new_result(dt)
        p0, p1 = float(p0), float(p1)
        check(kernels[0](y._h, x._h, p0, p1))
    else:   # half and bfloat16 through float32; the other dtypes are refused
        y = run_forward(x, name, p0, p1)
        p0, p1 = float(p0), float(p1)
        dt = _dt.float32
        kernels = _KERNELS[name, dt]
    edges = next_edges(x)
    if edges is not None:
        record_node(_OPS[name], edges, y, {"input": x},
                    {"kind": name, "p0": p0, "p1": p1, "kernel": kernels[1], "dtype": dt})
    return y


# kernel name -> its row, whose node is the one PyTorch records for the same function
# (F.relu: ReluBackward0 ...)
_OPS = {name: Op(name.lower(), "input", _activation_backward, save="input",
                 node=f"{node}Backward0", first=_activation_first)
        for name, node in (("ReLU", "Relu"), ("LeakyReLU", "LeakyRelu"), ("ELU", "Elu"),
                           ("GELU", "Gelu"), ("GELUTanh", "Gelu"), ("SiLU", "Silu"),
                           ("Softplus", "Softplus"), ("Hardtanh", "Hardtanh"),
                           ("SELU", "Elu"), ("CELU", "Celu"), ("Mish", "Mish"),
                           ("Hardswish", "Hardswish"), ("Hardsigmoid", "Hardsigmoid"),
                           ("LogSigmoid", "LogSigmoid"), ("Hardshrink", "Hardshrink"),
                           ("Softshrink", "Softshrink"), ("Threshold", "Threshold"))}
# (kernel name, dtype) -> (updateOutput, updateGradInput)
_KERNELS = {(name, dt): (_kernel(name, "updateOutput", dt), _kernel(name, "updateGradInput", dt))
            for name in DERIVATIVES for dt in _COMPUTE}
_NULL = ffi.NULL
