"""ASGD: averaged stochastic gradient descent (Polyak & Juditsky), with a decaying step."""

from __future__ import annotations

from typing import Any

from .. import dtypes as _dt
from .._prims.creation import tensor, zeros_like
from . import _kernels
from ._validate import at_least_zero, flags, scalar
from .optimizer import Optimizer

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """p *= 1 - lambd * eta, p -= eta * g; ax averages p from step t0 on (ax = p before);
    eta = lr / (1 + lambd lr t)^alpha, mu = 1 / max(1, t - t0), both float32 state counters
    as in PyTorch. Kernel: THOptim_(ASGD_step)."""

    def __init__(self, params: Any, lr: float = 1e-2, lambd: float = 1e-4, alpha: float = 0.75,
                 t0: float = 1e6, weight_decay: float = 0, foreach: bool | None = None,
                 maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        at_least_zero(lr, "learning rate")
        at_least_zero(weight_decay, "weight_decay value")
        flags(differentiable, None, foreach)
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    _OPTION_DEFAULTS = (("foreach", None), ("maximize", False), ("differentiable", False),
                        ("capturable", False))
    _COUNTERS = ("step", "eta", "mu")

    def _update(self, group: dict[str, Any], params: list, grads: list) -> None:
        lr = scalar(group["lr"])
        steps, etas, mus, axs = self._buffers(params, ("step", "eta", "mu", "ax"), lambda p: {
            "step": _kernels.new_step(), "eta": tensor(lr, dtype=_dt.float32),
            "mu": tensor(1.0, dtype=_dt.float32), "ax": zeros_like(p)})
        _kernels.run("ASGD_step", (params, grads, axs),
                     [(_kernels.STEPS, etas), (_kernels.STEPS, mus), (_kernels.STEPS, steps)],
                     lr, float(group["lambd"]), float(group["alpha"]),
                     float(group["t0"]), float(group["weight_decay"]), bool(group["maximize"]))
