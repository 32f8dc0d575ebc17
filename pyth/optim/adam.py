"""Adam (and the base of AdamW): moment estimates with bias correction, optional AMSGrad."""

from __future__ import annotations

from typing import Any

from .._prims.creation import zeros_like
from . import _kernels
from ._validate import at_least_zero, flags
from .optimizer import Optimizer

__all__ = ["Adam"]


def _beta(value: Any, index: int) -> None:
    if not 0.0 <= value < 1.0:
        raise ValueError(f"Invalid beta parameter at index {index}: {value}")


class Adam(Optimizer):
    """m = lerp(m, g, 1 - beta1), v = beta2 v + (1 - beta2) g², and
    p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps).

    weight_decay adds weight_decay * p to g, or with decoupled_weight_decay (AdamW) scales p
    by 1 - lr * weight_decay first; amsgrad uses the running maximum of v. Kernel:
    THOptim_(Adam_step)."""

    def __init__(self, params: Any, lr: float = 1e-3, betas: tuple = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None,
                 decoupled_weight_decay: bool = False) -> None:
        at_least_zero(lr, "learning rate")
        at_least_zero(eps, "epsilon value")
        _beta(betas[0], 0)
        _beta(betas[1], 1)
        at_least_zero(weight_decay, "weight_decay value")
        flags(differentiable, fused, foreach)
        betas = (float(betas[0]), float(betas[1]))
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                    "capturable": capturable, "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)

    _OPTION_DEFAULTS = (("amsgrad", False), ("maximize", False), ("foreach", None),
                        ("capturable", False), ("differentiable", False),
                        ("decoupled_weight_decay", False), ("fused", None))

    def _update(self, group: dict[str, Any], params: list, grads: list) -> None:
        amsgrad = group["amsgrad"]
        avgs, sqs, maxs, steps = [], [], [] if amsgrad else None, []
        for p in params:
            s = self.state[p]
            if not s:
                s["step"] = _kernels.new_step()
                s["exp_avg"] = zeros_like(p)
                s["exp_avg_sq"] = zeros_like(p)
            steps.append(s["step"])
            avgs.append(s["exp_avg"])
            sqs.append(s["exp_avg_sq"])
            if amsgrad:
                if "max_exp_avg_sq" not in s:
                    s["max_exp_avg_sq"] = zeros_like(p)
                maxs.append(s["max_exp_avg_sq"])
        beta1, beta2 = group["betas"]
        _kernels.run("Adam_step", (params, grads, avgs, sqs, maxs), [(_kernels.STEPS, steps)],
                     float(group["lr"]), float(beta1), float(beta2), float(group["eps"]),
                     float(group["weight_decay"]), bool(group["decoupled_weight_decay"]),
                     bool(group["maximize"]))
