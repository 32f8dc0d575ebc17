"""ctc_loss on the THNN kernels (generic/THNNCTC.c), recorded as the CTC_LOSS row: the forward's
alpha recursion (which keeps the alphas) and the backward's beta recursion are one C call each;
the zero_infinity mask and the reduction over the batch are recorded ops around them."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch
from .. import dtypes as _dt
from .._errors import check, not_implemented
from .._ops import new_result
from .._th import lib
from ..autograd.record import Op, next_edges, record_node
from ..tensor import Tensor

_COMPUTE = {_dt.float32: "Float", _dt.float64: "Double"}
_REDUCTIONS = ("none", "mean", "sum")


def _kernel(name: str, dt: _dt.dtype) -> Any:
    return getattr(lib, f"THNN_{_COMPUTE[dt]}CTCLoss_{name}")


def _lengths(x: Any, name: str) -> Tensor:
    """input_lengths / target_lengths as a 1-D int64 tensor (from an integral tensor of any
    shape, or a tuple or list of ints)."""
    from .._prims.creation import tensor
    if isinstance(x, Tensor):
        if x.dtype.is_floating_point or x.dtype is _dt.bool_:
            raise RuntimeError(f"ctc_loss(): {name} must be integral, got {x.dtype.real}")
        return x.reshape(-1).to(_dt.int64)
    if isinstance(x, (tuple, list)):
        try:
            values = [operator.index(v) for v in x]
        except TypeError:
            raise TypeError(f"ctc_loss(): {name} must be a tuple of ints or a tensor, got "
                            f"{[type(v).__name__ for v in x]}") from None
        return tensor(values, dtype=_dt.int64) if values else \
            tensor([], dtype=_dt.int64)
    raise TypeError(f"ctc_loss(): {name} must be a tuple of ints or a tensor, got "
                    f"{type(x).__name__}")


def _forward(lp: Tensor, targets: Tensor, il: Tensor, tl: Tensor, blank: int) -> tuple:
    nll, alpha = new_result(lp.dtype), new_result(lp.dtype)
    check(_kernel("updateOutput", lp.dtype)(nll._h, alpha._h, lp._h, targets._h, il._h, tl._h,
                                            blank))
    return nll, alpha


def _gradient(g: Tensor, lp: Tensor, targets: Tensor, il: Tensor, tl: Tensor, nll: Tensor,
              alpha: Tensor, blank: int, zero_infinity: bool) -> Tensor:
    gi = new_result(lp.dtype)
    check(_kernel("updateGradInput", lp.dtype)(
        gi._h, g.detach().to(lp.dtype)._h, lp._h, targets._h, il._h, tl._h, nll._h, alpha._h,
        blank, int(zero_infinity)))
    return gi


def _ctc_gradient_backward(g: Any, a: dict) -> list:
    raise RuntimeError("the derivative of ctc_loss()'s backward is not implemented")


# the kernel's gradient recorded under create_graph; not differentiable again (nor is PyTorch's)
CTC_GRADIENT = Op("ctc_gradient", "input grad", _ctc_gradient_backward,
                  node="CTCGradientBackward")


def _kernel_gradient(g: Tensor, a: dict) -> Tensor:
    return _gradient(g, a["input"], a["targets"], a["input_lengths"], a["target_lengths"],
                     a["result"], a["alpha"], a["blank"], a["zero_infinity"])


def _ctc_backward(g: Tensor, a: dict) -> list:
    """log_probs' gradient by the kernel, recorded (under create_graph) as a node whose own
    derivative raises."""
    gi = _kernel_gradient(g, a)
    edges = next_edges(a["input"], g)
    if edges is not None:
        record_node(CTC_GRADIENT, edges, gi)
    return [gi]


def _ctc_first(g: Tensor, a: dict) -> list:
    return [_kernel_gradient(g, a)]


# each sample's negative log likelihood (N,); the gradient is PyTorch's (see
# THNN_(CTCLoss_updateGradInput))
CTC_LOSS = Op("ctc_loss", "input", _ctc_backward, node="CTCLossFunctionBackward",
              first=_ctc_first)


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Tensor | Sequence[int],
             target_lengths: Tensor | Sequence[int], blank: int = 0, reduction: str = "mean",
             zero_infinity: bool = False) -> Tensor:
    """The connectionist temporal classification loss of log_probs (T, N, C) or (T, C) against
    padded (N, S) or concatenated targets. 'mean' divides each loss by its target length
    (at least 1), then averages over the batch; zero_infinity turns impossible alignments'
    inf losses (and their gradients) into 0."""
    if type(log_probs) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(ctc_loss, locals())
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if not isinstance(log_probs, Tensor) or not isinstance(targets, Tensor):
        raise TypeError(f"ctc_loss(): log_probs and targets must be tensors, got "
                        f"{type(log_probs).__name__} and {type(targets).__name__}")
    if log_probs.dtype not in _COMPUTE:
        raise not_implemented("ctc_loss", log_probs.dtype, "expects float32 or float64 "
                              "log_probs")
    if log_probs.dim() not in (2, 3):
        raise RuntimeError(f"ctc_loss(): expected log_probs of 3 dims (T, N, C) or 2 (T, C), "
                           f"got size {list(log_probs.shape)}")
    if targets.dtype.is_complex:
        raise RuntimeError(f"ctc_loss(): expected integer targets, got {targets.dtype.real}")
    il = _lengths(input_lengths, "input_lengths")
    tl = _lengths(target_lengths, "target_lengths")
    batched = log_probs.dim() == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)
    tg = targets.to(_dt.int64)
    blank, zero_infinity = operator.index(blank), bool(zero_infinity)
    edges = next_edges(lp)
    nll, alpha = _forward(lp, tg, il, tl, blank)
    if edges is not None:
        record_node(CTC_LOSS, edges, nll, {"input": lp, "result": nll},
                    {"targets": tg, "input_lengths": il, "target_lengths": tl, "alpha": alpha,
                     "blank": blank, "zero_infinity": zero_infinity})
    if zero_infinity:
        nll = nll.masked_fill(nll == float("inf"), 0)
    if reduction == "mean":
        return (nll / tl.clamp_min(1).to(nll.dtype)).mean()
    if reduction == "sum":
        return nll.sum()
    return nll if batched else nll.squeeze(0)
