"""Adagrad: per-element learning rates from the sum of squared gradients."""

from __future__ import annotations

from typing import Any

from .._prims.creation import full_like
from . import _kernels
from ._validate import at_least_zero, flags
from .optimizer import Optimizer

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """s += g², p -= lr / (1 + (t - 1) lr_decay) * g / (sqrt(s) + eps), s starting at
    initial_accumulator_value (its state exists from construction, as in PyTorch). Kernel:
    THOptim_(Adagrad_step)."""

    def __init__(self, params: Any, lr: float = 1e-2, lr_decay: float = 0,
                 weight_decay: float = 0, initial_accumulator_value: float = 0,
                 eps: float = 1e-10, foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        at_least_zero(lr, "learning rate")
        at_least_zero(lr_decay, "lr_decay value")
        at_least_zero(weight_decay, "weight_decay value")
        at_least_zero(initial_accumulator_value, "initial_accumulator_value value")
        at_least_zero(eps, "epsilon value")
        flags(differentiable, fused, foreach)
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value,
                    "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        for group in self.param_groups:  # as PyTorch: the constructor's value, for every group
            for p in group["params"]:
                self._init_state(p, initial_accumulator_value)

    def _init_state(self, p: Any, initial: float) -> dict:
        s = self.state[p]
        s["step"] = _kernels.new_step()
        s["sum"] = full_like(p, float(initial))
        return s

    _OPTION_DEFAULTS = (("foreach", None), ("maximize", False), ("differentiable", False),
                        ("fused", None))

    def _update(self, group: dict[str, Any], params: list, grads: list) -> None:
        sums, steps = [], []
        for p in params:
            s = self.state[p] or self._init_state(p, group["initial_accumulator_value"])
            steps.append(s["step"])
            sums.append(s["sum"])
        _kernels.run("Adagrad_step", (params, grads, sums), [(_kernels.STEPS, steps)],
                     float(group["lr"]), float(group["lr_decay"]), float(group["weight_decay"]),
                     float(group["eps"]), bool(group["maximize"]))
