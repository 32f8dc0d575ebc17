"""RAdam: Adam whose adaptive step is rectified (or off) while the variance estimate is
unreliable in the first steps (Liu et al.)."""

from __future__ import annotations

from typing import Any

from . import _kernels
from ._validate import adam_like, flags
from .adam import _fresh
from .optimizer import Optimizer

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """m, v as Adam's; rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t). While rho_t <= 5,
    p -= lr m / (1 - beta1^t) (momentum SGD); after, the Adam step times the rectification
    sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t)).

    weight_decay is added to g, or decoupled (p *= 1 - lr * weight_decay). Kernel:
    THOptim_(RAdam_step)."""

    def __init__(self, params: Any, lr: float = 1e-3, betas: tuple = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        adam_like(lr, eps, betas, weight_decay)
        flags(differentiable, None, foreach)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    _OPTION_DEFAULTS = (("foreach", None), ("maximize", False), ("differentiable", False),
                        ("decoupled_weight_decay", False), ("capturable", False))

    def _update(self, group: dict[str, Any], params: list, grads: list) -> None:
        steps, avgs, sqs = self._buffers(params, ("step", "exp_avg", "exp_avg_sq"), _fresh)
        beta1, beta2 = group["betas"]
        _kernels.run("RAdam_step", (params, grads, avgs, sqs), [(_kernels.STEPS, steps)],
                     float(group["lr"]), float(beta1), float(beta2), float(group["eps"]),
                     float(group["weight_decay"]), bool(group["decoupled_weight_decay"]),
                     bool(group["maximize"]))
