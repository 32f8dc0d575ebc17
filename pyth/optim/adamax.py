"""Adamax: Adam with the infinity norm of past gradients in place of their RMS."""

from __future__ import annotations

from typing import Any

from .._prims.creation import zeros_like
from . import _kernels
from ._validate import adam_like, flags
from .optimizer import Optimizer

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """m = lerp(m, g, 1 - beta1), u = max(beta2 u, |g| + eps),
    p -= lr / (1 - beta1^t) * m / u. Kernel: THOptim_(Adamax_step)."""

    def __init__(self, params: Any, lr: float = 2e-3, betas: tuple = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        adam_like(lr, eps, betas, weight_decay)
        flags(differentiable, None, foreach)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    _OPTION_DEFAULTS = (("foreach", None), ("maximize", False), ("differentiable", False),
                        ("capturable", False))

    def _update(self, group: dict[str, Any], params: list, grads: list) -> None:
        steps, avgs, infs = self._buffers(params, ("step", "exp_avg", "exp_inf"), lambda p: {
            "step": _kernels.new_step(), "exp_avg": zeros_like(p), "exp_inf": zeros_like(p)})
        beta1, beta2 = group["betas"]
        _kernels.run("Adamax_step", (params, grads, avgs, infs), [(_kernels.STEPS, steps)],
                     float(group["lr"]), float(beta1), float(beta2), float(group["eps"]),
                     float(group["weight_decay"]), bool(group["maximize"]))
