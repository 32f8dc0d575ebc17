"""NAdam: Adam with Nesterov momentum (Dozat), the momentum warming up by momentum_decay."""

from __future__ import annotations

from typing import Any

from .._prims.creation import tensor, zeros_like
from .. import dtypes as _dt
from . import _kernels
from ._validate import adam_like, at_least_zero, flags
from .optimizer import Optimizer

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """mu_t = beta1 (1 - 0.96^(t momentum_decay) / 2), P = prod mu_t (the state's float32
    mu_product); m, v as Adam's and p -= lr (1 - mu_t) / (1 - P) g / r
    + lr mu_{t+1} / (1 - P mu_{t+1}) m / r, r = sqrt(v / (1 - beta2^t)) + eps.

    weight_decay is added to g, or with decoupled_weight_decay scales p by
    1 - lr * weight_decay first (as AdamW). Kernel: THOptim_(NAdam_step)."""

    def __init__(self, params: Any, lr: float = 2e-3, betas: tuple = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        adam_like(lr, eps, betas, weight_decay)
        at_least_zero(momentum_decay, "momentum_decay value")
        flags(differentiable, None, foreach)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay,
                    "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    _OPTION_DEFAULTS = (("maximize", False), ("foreach", None), ("capturable", False),
                        ("differentiable", False), ("decoupled_weight_decay", False))
    _COUNTERS = ("step", "mu_product")

    def _update(self, group: dict[str, Any], params: list, grads: list) -> None:
        steps, prods, avgs, sqs = self._buffers(
            params, ("step", "mu_product", "exp_avg", "exp_avg_sq"), lambda p: {
                "step": _kernels.new_step(), "mu_product": tensor(1.0, dtype=_dt.float32),
                "exp_avg": zeros_like(p), "exp_avg_sq": zeros_like(p)})
        beta1, beta2 = group["betas"]
        _kernels.run("NAdam_step", (params, grads, avgs, sqs),
                     [(_kernels.STEPS, prods), (_kernels.STEPS, steps)], float(group["lr"]),
                     float(beta1), float(beta2), float(group["eps"]),
                     float(group["weight_decay"]), float(group["momentum_decay"]),
                     bool(group["decoupled_weight_decay"]), bool(group["maximize"]))
