"""softmax, log_softmax and nll_loss on the THNN kernels (generic/THNNSoftMax.c) as autograd
Functions: forward and first-order backward are one C call each; under create_graph the
backward is the composed formula beside it, so it can be differentiated again."""

from __future__ import annotations

from typing import Any

from .. import dtypes as _dt
from .._errors import check, not_implemented
from .._ops import new_result
from .._th import ffi, lib
from ..autograd import Function, is_grad_enabled
from ..autograd.graph import _FREED, Saved
from ..autograd.kernel_node import KernelNode, attach, next_edges
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


class SoftmaxFunction(Function):
    """softmax (log=False) or log_softmax (log=True) along dim."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int, log: bool) -> Tensor:
        y = _softmax_raw(x, dim, log)
        ctx.dim, ctx.log = dim, log
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        y, = ctx.saved_tensors
        d = ctx.dim
        if is_grad_enabled():  # create_graph: differentiable formulas
            if ctx.log:
                return g - y.exp() * g.sum(d, keepdim=True), None, None
            return y * (g - (g * y).sum(d, keepdim=True)), None, None
        yc, gc = _float(y, "softmax"), _float(g, "softmax").to(_float(y, "softmax").dtype)
        gi = new_result(yc.dtype)
        name = "LogSoftMax_updateGradInput" if ctx.log else "SoftMax_updateGradInput"
        check(_fn(name, yc.dtype)(gi._h, gc._h, yc._h, d))
        return gi.to(y.dtype), None, None


class SoftmaxBackward0(KernelNode):
    """Gradient of softmax along dim for a float32/float64 input: one C call over the saved
    output (kept by its handle, as every saved output); under create_graph the composed
    formula, differentiable again."""

    __slots__ = ("dim",)
    _kernel = "SoftMax_updateGradInput"

    def apply(self, grads: list) -> list:
        g = grads[0]
        saved = self.saved
        if saved is None:
            raise RuntimeError(_FREED)
        y = saved[0].unpack(self)
        if is_grad_enabled():
            return [self._composed(g, y)]
        if g.dtype is not y.dtype:
            g = g.to(y.dtype)
        gi = new_result(y.dtype)
        check(_fn(self._kernel, y.dtype)(gi._h, g._h, y._h, self.dim))
        return [gi]

    def _composed(self, g: Tensor, y: Tensor) -> Tensor:
        return y * (g - (g * y).sum(self.dim, keepdim=True))


class LogSoftmaxBackward0(SoftmaxBackward0):
    """Gradient of log_softmax along dim (see SoftmaxBackward0)."""

    __slots__ = ()
    _kernel = "LogSoftMax_updateGradInput"

    def _composed(self, g: Tensor, y: Tensor) -> Tensor:
        return g - y.exp() * g.sum(self.dim, keepdim=True)


def softmax(x: Tensor, dim: int, log: bool) -> Tensor:
    """softmax / log_softmax along dim: one THNN call, and one node when x needs a gradient
    (float32/float64 inputs; the others go through SoftmaxFunction's conversions)."""
    if x.requires_grad and is_grad_enabled():
        if x.dtype not in _COMPUTE:
            return SoftmaxFunction.apply(x, dim, log)
        y = _softmax_raw(x, dim, log)
        edges = next_edges(x)
        node = (LogSoftmaxBackward0 if log else SoftmaxBackward0)(edges)
        node.dim = dim
        attach(node, y)
        node.saved = (Saved(y, (node, 0)),)   # after attach: the output, by its handle
        return y
    return _softmax_raw(x, dim, log)


def _nll_raw(x: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
             ignore_index: int) -> tuple:
    xc = _float(x, "nll_loss")
    w = weight.to(xc.dtype) if weight is not None else None
    out, total = new_result(xc.dtype), new_result(xc.dtype)
    check(_fn("ClassNLLCriterion_updateOutput", xc.dtype)(
        out._h, total._h, xc._h, target._h, w._h if w is not None else ffi.NULL, reduction,
        ignore_index))
    return out, total


class NLLFunction(Function):
    """The negative log likelihood of class targets (input: log-probabilities)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                ignore_index: int) -> Tensor:
        out, total = _nll_raw(x, target, weight, reduction, ignore_index)
        ctx.reduction, ctx.ignore_index, ctx.total = reduction, ignore_index, total
        ctx.shape, ctx.dtype = tuple(x.shape), x.dtype
        ctx.save_for_backward(x, target, weight)
        return out if out.dtype is x.dtype else out.to(x.dtype)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        x, target, weight = ctx.saved_tensors
        if is_grad_enabled():  # create_graph: the gradient as a recorded (linear) map of g
            return _nll_grad_composed(g, x, target, weight, ctx), None, None, None, None
        xc = _float(x, "nll_loss")
        w = weight.to(xc.dtype) if weight is not None else None
        gi = new_result(xc.dtype)
        check(_fn("ClassNLLCriterion_updateGradInput", xc.dtype)(
            gi._h, g.to(xc.dtype)._h, xc._h, target._h,
            w._h if w is not None else ffi.NULL, ctx.total._h, ctx.reduction,
            ctx.ignore_index))
        return gi.to(x.dtype), None, None, None, None


def _nll_grad_composed(g: Tensor, x: Tensor, target: Tensor, weight: Tensor | None,
                       ctx: Any) -> Tensor:
    from .._prims.creation import zeros
    keep = target != ctx.ignore_index
    t = target.masked_fill(~keep, 0)
    wt = weight.to(x.dtype)[t] if weight is not None else zeros(t.shape, dtype=x.dtype) + 1
    wt = wt * keep.to(x.dtype)
    if ctx.reduction == 1:
        wt = wt / ctx.total.item()
    per = -wt * (g if ctx.reduction == 0 else g.expand(t.shape))
    zero = zeros(x.shape, dtype=x.dtype)
    if x.dim() == 1:
        return zero.scatter(0, t.reshape(1), per.reshape(1))
    return zero.scatter(1, t.unsqueeze(1), per.unsqueeze(1))


def nll_loss(x: Tensor, target: Tensor, weight: Tensor | None, reduction: str,
             ignore_index: int) -> Tensor:
    if reduction not in _REDUCTION:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if target.dtype is not _dt.int64:
        raise RuntimeError(f"nll_loss(): expected target of dtype int64 (class indices), got "
                           f"{target.dtype.real}")
    r = _REDUCTION[reduction]
    ignore = as_int64(int(ignore_index), "nll_loss", "ignore_index")
    if x.requires_grad and is_grad_enabled():
        return NLLFunction.apply(x, target, weight, r, ignore)
    out, _ = _nll_raw(x, target, weight, r, ignore)
    return out if out.dtype is x.dtype else out.to(x.dtype)


# ---- cross_entropy of class indices: log_softmax and nll_loss fused into one node -------------

class CrossEntropyBackward(KernelNode):
    """Gradient of nll_loss(log_softmax(x, 1), target) for a 2-D float x: the NLL kernel's
    gradient taken back through the log_softmax kernel (two C calls, one node)."""

    __slots__ = ("ignore_index", "logp", "reduction", "total")

    def apply(self, grads: list) -> list:
        g = grads[0]
        target = self.unpack_one(1)
        if is_grad_enabled():   # create_graph: the composed formulas, differentiable again
            logp = softmax(self.unpack_one(0), 1, True)   # needs the input as it was
            gl = _nll_grad_composed(g, logp, target, None, self)
            return [gl - logp.exp() * gl.sum(1, keepdim=True), None]
        logp = self.logp
        dt = logp.dtype
        if g.dtype is not dt:
            g = g.to(dt)
        gl, gi = new_result(dt), new_result(dt)
        check(_fn("ClassNLLCriterion_updateGradInput", dt)(
            gl._h, g._h, logp._h, target._h, ffi.NULL, self.total._h, self.reduction,
            self.ignore_index))
        check(_fn("LogSoftMax_updateGradInput", dt)(gi._h, gl._h, logp._h, 1))
        return [gi, None]

    def release(self) -> None:
        super().release()
        self.logp = self.total = None


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
        node = CrossEntropyBackward(edges + ((None, 0),))
        node.save(x, target)
        node.logp, node.total, node.reduction, node.ignore_index = logp, total, r, ignore_index
        attach(node, out)
    return out
