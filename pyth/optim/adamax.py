"""Adamax: Adam with the infinity norm of past gradients in place of their RMS."""

from __future__ import annotations

from typing import Any

from .._prims.creation import zeros_like
from . import _kernels
from ._validate import at_least_zero, flags
from .adam import _beta
from .optimizer import Optimizer

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """m = lerp(m, g, 1 - beta1), u = max(beta2 u, |g| + eps),
    p -= lr / (1 - beta1^t) * m / u. Kernel: THOptim_(Adamax_step)."""

    def __init__(self, params: Any, lr: float = 2e-3, betas: tuple = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        at_least_zero(lr, "learning rate")
        at_least_zero(eps, "epsilon value")
        _beta(betas[0], 0)
        _beta(betas[1], 1)
        at_least_zero(weight_decay, "weight_decay value")
        flags(differentiable, None, foreach)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    _OPTION_DEFAULTS = (("foreach", None), ("maximize", False), ("differentiable", False),
                        ("capturable", False))

    def _update(self, group: dict[str, Any], params: list, grads: list) -> None:
        avgs, infs, steps = [], [], []
        for p in params:
            s = self.state[p]
            if not s:
                s["step"] = _kernels.new_step()
                s["exp_avg"] = zeros_like(p)
                s["exp_inf"] = zeros_like(p)
            steps.append(s["step"])
            avgs.append(s["exp_avg"])
            infs.append(s["exp_inf"])
        beta1, beta2 = group["betas"]
        _kernels.run("Adamax_step", (params, grads, avgs, infs), [(_kernels.STEPS, steps)],
                     float(group["lr"]), float(beta1), float(beta2), float(group["eps"]),
                     float(group["weight_decay"]), bool(group["maximize"]))
