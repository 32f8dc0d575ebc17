"""softmax, log_softmax and nll_loss on the THNN kernels (generic/THNNSoftMax.c), each recorded
as one Op row: the forward is one C call, `first` the kernel's first-order gradient (one C call)
and `backward` the composed formula beside it, which differentiates again (create_graph)."""

from __future__ import annotations

from .. import dtypes as _dt
from .._errors import check, not_implemented
from .._ops import new_result
from .._th import ffi, lib
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.graph import Saved
from ..autograd.record import Op, next_edges, record_node
from ..tensor import Tensor, as_int64

_COMPUTE = {_dt.float32: "Float", _dt.float64: "Double"}
_REDUCTION = {"none": 0, "mean": 1, "sum": 2}


def _fn(name: str, dt: _dt.dtype):
    return getattr(lib, f"THNN_{_COMPUTE[dt]}{name}")


def _float(x: Tensor, op: str) -> Tensor:
    if not x.dtype.is_floating_point:
        raise not_implemented(op, x.dtype, "expects floating point tensors")
    return x if x.dtype in _COMPUTE else x.float()


def _softmax_raw(x: Tensor, dim: int, log: bool) -> Tensor:
    xc = _float(x, "log_softmax" if log else "softmax")
    y = new_result(xc.dtype)
    check(_fn("LogSoftMax_updateOutput" if log else "SoftMax_updateOutput", xc.dtype)(
        y._h, xc._h, dim))
    return y if y.dtype is x.dtype else y.to(x.dtype)


# ---- softmax / log_softmax: the gradient from the saved output ----------------------------------

def _softmax_backward(g: Tensor, a: dict) -> list:
    """y (g - sum(g y)) along dim, in recorded ops."""
    y = a["result"]
    return [y * (g - (g * y).sum(a["dim"], keepdim=True))]


def _log_softmax_backward(g: Tensor, a: dict) -> list:
    """g - exp(y) sum(g) along dim, in recorded ops."""
    return [g - a["result"].exp() * g.sum(a["dim"], keepdim=True)]


def _softmax_first(g: Tensor, a: dict) -> list:
    """The same gradient by the kernel's updateGradInput (half and bfloat16 through float32)."""
    y = a["result"]
    dt, out = a["dtype"], y.dtype   # the kernel's: y's own, or float32 for half and bfloat16
    gi = new_result(dt)
    check(a["kernel"](gi._h, (g if g.dtype is dt else g.to(dt))._h,
                      (y if out is dt else y.to(dt))._h, a["dim"]))
    return [gi if out is dt else gi.to(out)]


SOFTMAX = Op("softmax", "input", _softmax_backward, save="result", node="SoftmaxBackward0",
             first=_softmax_first)
LOG_SOFTMAX = Op("log_softmax", "input", _log_softmax_backward, save="result",
                 node="LogSoftmaxBackward0", first=_softmax_first)
# compute dtype -> the updateGradInput kernels of (softmax, log_softmax)
_SOFTMAX_GRAD = {dt: (_fn("SoftMax_updateGradInput", dt), _fn("LogSoftMax_updateGradInput", dt))
                 for dt in _COMPUTE}


def softmax(x: Tensor, dim: int, log: bool) -> Tensor:
    """softmax / log_softmax along dim: one THNN call, and one node when x needs a gradient
    (half and bfloat16 are computed in float32 and rounded back)."""
    y = _softmax_raw(x, dim, log)
    edges = next_edges(x)
    if edges is not None:
        dt = y.dtype if y.dtype in _COMPUTE else _dt.float32
        record_node(LOG_SOFTMAX if log else SOFTMAX, edges, y, {"result": y},
                    {"dim": dim, "kernel": _SOFTMAX_GRAD[dt][log], "dtype": dt})
    return y


# ---- nll_loss ---------------------------------------------------------------------------------------

def _nll_raw(x: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
             ignore_index: int) -> tuple:
    xc = _float(x, "nll_loss")
    w = weight.to(xc.dtype) if weight is not None else None
    out, total = new_result(xc.dtype), new_result(xc.dtype)
    check(_fn("ClassNLLCriterion_updateOutput", xc.dtype)(
        out._h, total._h, xc._h, target._h, w._h if w is not None else ffi.NULL, reduction,
        ignore_index))
    return out, total


def _nll_grad_composed(g: Tensor, x: Tensor, target: Tensor, weight: Tensor | None,
                       a: dict) -> Tensor:
    """The gradient of nll_loss for x as a recorded (linear) map of g: minus the target's
    weight at each target class, divided by the total weight for the mean."""
    from .._prims.creation import zeros
    keep = target != a["ignore_index"]
    t = target.masked_fill(~keep, 0)
    wt = weight.to(x.dtype)[t] if weight is not None else zeros(t.shape, dtype=x.dtype) + 1
    wt = wt * keep.to(x.dtype)
    reduction = a["reduction"]
    if reduction == 1:
        wt = wt / a["total"].item()
    per = -wt * (g if reduction == 0 else g.expand(t.shape))
    zero = zeros(x.shape, dtype=x.dtype)
    if x.dim() == 1:
        return zero.scatter(0, t.reshape(1), per.reshape(1))
    return zero.scatter(1, t.unsqueeze(1), per.unsqueeze(1))


def _nll_backward(g: Tensor, a: dict) -> list:
    return [_nll_grad_composed(g, a["input"], a["target"], a["weight"], a)]


def _nll_first(g: Tensor, a: dict) -> list:
    """The gradient by ClassNLLCriterion_updateGradInput (half and bfloat16 through float32)."""
    x = a["input"]
    xc = _float(x, "nll_loss")
    weight = a["weight"]
    w = weight.to(xc.dtype) if weight is not None else None
    gi = new_result(xc.dtype)
    check(_fn("ClassNLLCriterion_updateGradInput", xc.dtype)(
        gi._h, g.to(xc.dtype)._h, xc._h, a["target"]._h, w._h if w is not None else ffi.NULL,
        a["total"]._h, a["reduction"], a["ignore_index"]))
    return [gi if gi.dtype is x.dtype else gi.to(x.dtype)]


NLL_LOSS = Op("nll_loss", "input", _nll_backward, save="input target weight",
              node="NllLossBackward0", first=_nll_first)


def nll_loss(x: Tensor, target: Tensor, weight: Tensor | None, reduction: str,
             ignore_index: int) -> Tensor:
    if reduction not in _REDUCTION:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if target.dtype is not _dt.int64:
        raise RuntimeError(f"nll_loss(): expected target of dtype int64 (class indices), got "
                           f"{target.dtype.real}")
    r = _REDUCTION[reduction]
    ignore = as_int64(int(ignore_index), "nll_loss", "ignore_index")
    if weight is not None and weight.requires_grad and is_grad_enabled():
        fn = "nll_loss2d_forward" if x.dim() >= 3 else "nll_loss_forward"
        raise RuntimeError(f"The function '{fn}' is not differentiable with respect to argument "
                           "'weight'. This input cannot have requires_grad True.")
    out, total = _nll_raw(x, target, weight, r, ignore)
    if out.dtype is not x.dtype:
        out = out.to(x.dtype)
    edges = next_edges(x)
    if edges is not None:
        record_node(NLL_LOSS, edges, out, {"input": x, "target": target, "weight": weight},
                    {"weight": None, "total": total, "reduction": r, "ignore_index": ignore})
    return out


# ---- cross_entropy of class indices: log_softmax and nll_loss fused into one node -------------

def _cross_entropy_backward(g: Tensor, a: dict) -> list:
    """The composed gradient, from the input as it was (its version checked here alone, as a
    plain backward reads the kept log-probabilities, not the input)."""
    logp = softmax(a["input"].unpack(), 1, True)
    gl = _nll_grad_composed(g, logp, a["target"], None, a)
    return [gl - logp.exp() * gl.sum(1, keepdim=True), None]


def _cross_entropy_first(g: Tensor, a: dict) -> list:
    """The NLL kernel's gradient taken back through the log_softmax kernel: two C calls."""
    logp = a["logp"]
    dt = logp.dtype
    if g.dtype is not dt:
        g = g.to(dt)
    nll_grad, log_softmax_grad = _CROSS_ENTROPY_GRAD[dt]
    gl, gi = new_result(dt), new_result(dt)
    check(nll_grad(gl._h, g._h, logp._h, a["target"]._h, ffi.NULL, a["total"]._h,
                   a["reduction"], a["ignore_index"]))
    check(log_softmax_grad(gi._h, gl._h, logp._h, 1))
    return [gi, None]


# compute dtype -> the updateGradInput kernels of (nll_loss, log_softmax)
_CROSS_ENTROPY_GRAD = {dt: (_fn("ClassNLLCriterion_updateGradInput", dt),
                            _fn("LogSoftMax_updateGradInput", dt)) for dt in _COMPUTE}
CROSS_ENTROPY = Op("cross_entropy", "input target", _cross_entropy_backward, save="target",
                   node="CrossEntropyBackward", first=_cross_entropy_first)


def cross_entropy_indices(x: Tensor, target: Tensor, reduction: str, ignore_index: int) -> Tensor:
    """cross_entropy for a 2-D float32/float64 x, int64 class indices, no class weights and no
    label smoothing: two kernels forward, one node."""
    if reduction not in _REDUCTION:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    dt = x.dtype
    r = _REDUCTION[reduction]
    logp, out, total = new_result(dt), new_result(dt), new_result(dt)
    check(_fn("LogSoftMax_updateOutput", dt)(logp._h, x._h, 1))
    check(_fn("ClassNLLCriterion_updateOutput", dt)(out._h, total._h, logp._h, target._h,
                                                    ffi.NULL, r, ignore_index))
    edges = next_edges(x)
    if edges is not None:
        record_node(CROSS_ENTROPY, edges + ((None, 0),), out, {"target": target},
                    {"input": Saved(x), "logp": logp, "total": total, "reduction": r,
                     "ignore_index": ignore_index})
    return out
