"""SGD: stochastic gradient descent with momentum, dampening, Nesterov and weight decay."""

from __future__ import annotations

from typing import Any

from .._prims.creation import zeros_like
from . import _kernels
from ._validate import at_least_zero, flags
from .optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """p -= lr * d, d the gradient (+ weight_decay * p) or its momentum buffer
    b = momentum * b + (1 - dampening) * d (Nesterov: d + momentum * b).

    The first step sets b = d, as PyTorch does. Kernel: THOptim_(SGD_step)."""

    def __init__(self, params: Any, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        at_least_zero(lr, "learning rate")
        at_least_zero(momentum, "momentum value")
        at_least_zero(weight_decay, "weight_decay value")
        flags(differentiable, fused, foreach)
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    _OPTION_DEFAULTS = (("nesterov", False), ("maximize", False), ("foreach", None),
                        ("differentiable", False), ("fused", False))

    def _update(self, group: dict[str, Any], params: list, grads: list) -> None:
        momentum = float(group["momentum"])
        bufs = fresh = None
        new = []
        if momentum != 0:
            bufs, fresh = [], []
            for p in params:
                b = self.state[p].get("momentum_buffer")
                fresh.append(b is None)
                if b is None:  # its first step: the kernel sets it to the gradient
                    b = zeros_like(p)
                    new.append((p, b))
                bufs.append(b)
        _kernels.run("SGD_step", (params, grads, bufs), [(_kernels.FLAGS, fresh)],
                     float(group["lr"]), momentum, float(group["dampening"]),
                     float(group["weight_decay"]), bool(group["nesterov"]),
                     bool(group["maximize"]))
        for p, b in new:
            self.state[p]["momentum_buffer"] = b
