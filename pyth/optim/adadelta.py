"""Adadelta: steps scaled by the ratio of running RMS of past updates to that of gradients."""

from __future__ import annotations

from typing import Any

from .._prims.creation import zeros_like
from . import _kernels
from ._validate import at_least_zero, flags
from .optimizer import Optimizer

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """s = rho s + (1 - rho) g², u = sqrt(a + eps) / sqrt(s + eps) * g,
    a = rho a + (1 - rho) u², p -= lr u (Zeiler). Kernel: THOptim_(Adadelta_step)."""

    def __init__(self, params: Any, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach: bool | None = None, *,
                 capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        at_least_zero(lr, "learning rate")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        at_least_zero(eps, "epsilon value")
        at_least_zero(weight_decay, "weight_decay value")
        flags(differentiable, None, foreach)
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "capturable": capturable, "foreach": foreach,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    _OPTION_DEFAULTS = (("foreach", None), ("maximize", False), ("differentiable", False),
                        ("capturable", False))

    def _update(self, group: dict[str, Any], params: list, grads: list) -> None:
        steps, squares, deltas = self._buffers(
            params, ("step", "square_avg", "acc_delta"), lambda p: {
                "step": _kernels.new_step(), "square_avg": zeros_like(p),
                "acc_delta": zeros_like(p)})
        _kernels.run("Adadelta_step", (params, grads, squares, deltas),
                     [(_kernels.STEPS, steps)], float(group["lr"]), float(group["rho"]),
                     float(group["eps"]), float(group["weight_decay"]), bool(group["maximize"]))
