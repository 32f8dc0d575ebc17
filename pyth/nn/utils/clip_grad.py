"""Gradient clipping: by the total norm of all gradients, or element-wise by value."""

from __future__ import annotations

import math
import types
import warnings
from collections.abc import Iterable

from ...autograd import no_grad
from ..._prims.creation import tensor
from ...autograd.recorded import stack, vector_norm
from ...tensor import Tensor

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "get_total_norm",
]

_Tensors = Tensor | Iterable[Tensor]


def _no_foreach(foreach: bool | None) -> None:
    if foreach:
        raise RuntimeError("foreach=True was passed, but can't use the foreach API on cpu "
                           "tensors")


def _grads(parameters: _Tensors) -> list:
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def get_total_norm(tensors: _Tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """The norm of the norms of tensors: the norm of all their elements as one vector."""
    _no_foreach(foreach)
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return tensor(0.0)
    with no_grad():
        first = tensors[0].dtype
        norms = [vector_norm(t, norm_type) for t in tensors]
        norms = [n if n.dtype is first else n.to(first) for n in norms]
        total = vector_norm(stack(norms), norm_type)
    if error_if_nonfinite and not math.isfinite(float(total)):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from "
                           "`parameters` is non-finite, so it cannot be clipped. To disable "
                           "this error and scale the gradients by the non-finite norm anyway, "
                           "set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters: _Tensors, max_norm: float, total_norm: Tensor,
                          foreach: bool | None = None) -> None:
    """Scales the gradients by min(1, max_norm / (total_norm + 1e-6)), in place."""
    _no_foreach(foreach)
    grads = _grads(parameters)
    if not grads:
        return
    with no_grad():
        coef = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef)


def clip_grad_norm_(parameters: _Tensors, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Rescales the gradients so their total norm is at most max_norm; returns the total norm
    (before clipping) as a tensor."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=3)
    total = get_total_norm(_grads(parameters), norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters: _Tensors, max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Deprecated alias of clip_grad_norm_."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters: _Tensors, clip_value: float,
                     foreach: bool | None = None) -> None:
    """Clamps every gradient element into [-clip_value, clip_value], in place."""
    _no_foreach(foreach)
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(min=-clip_value, max=clip_value)
