"""Adam (and the base of AdamW): moment estimates with bias correction, optional AMSGrad."""

from __future__ import annotations

from typing import Any

from .._prims.creation import zeros_like
from . import _kernels
from ._validate import adam_like, flags
from .optimizer import Optimizer

__all__ = ["Adam"]


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
        adam_like(lr, eps, betas, weight_decay)
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
        steps, avgs, sqs = self._buffers(params, ("step", "exp_avg", "exp_avg_sq"), _fresh)
        maxs = None
        if amsgrad:
            maxs = [self.state[p].get("max_exp_avg_sq") for p in params]
            for i, p in enumerate(params):
                if maxs[i] is None:
                    maxs[i] = self.state[p]["max_exp_avg_sq"] = zeros_like(p)
        beta1, beta2 = group["betas"]
        _kernels.run("Adam_step", (params, grads, avgs, sqs, maxs), [(_kernels.STEPS, steps)],
                     float(group["lr"]), float(beta1), float(beta2), float(group["eps"]),
                     float(group["weight_decay"]), bool(group["decoupled_weight_decay"]),
                     bool(group["maximize"]))


def _fresh(p: Any) -> dict:
    """The state of a parameter at its first step: the step counter and both moments."""
    return {"step": _kernels.new_step(), "exp_avg": zeros_like(p), "exp_avg_sq": zeros_like(p)}
