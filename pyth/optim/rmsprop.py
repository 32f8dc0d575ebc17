"""RMSprop: gradients scaled by a running root mean square, optionally centered and with
momentum."""

from __future__ import annotations

from typing import Any

from .._prims.creation import zeros_like
from . import _kernels
from ._validate import at_least_zero, flags
from .optimizer import Optimizer

__all__ = ["RMSprop"]


def _buffer(s: dict, key: str, p: Any) -> Any:
    b = s.get(key)
    if b is None:
        b = s[key] = zeros_like(p)
    return b


class RMSprop(Optimizer):
    """s = alpha s + (1 - alpha) g², r = sqrt(s) + eps (centered: sqrt(s - a²) + eps with
    a = lerp(a, g, 1 - alpha)); p -= lr g / r, or with momentum b = momentum b + g / r and
    p -= lr b. Kernel: THOptim_(RMSprop_step)."""

    def __init__(self, params: Any, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False,
                 capturable: bool = False, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        at_least_zero(lr, "learning rate")
        at_least_zero(eps, "epsilon value")
        at_least_zero(momentum, "momentum value")
        at_least_zero(weight_decay, "weight_decay value")
        at_least_zero(alpha, "alpha value")
        flags(differentiable, None, foreach)
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay,
                    "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    _OPTION_DEFAULTS = (("momentum", 0), ("centered", False), ("foreach", None),
                        ("maximize", False), ("differentiable", False), ("capturable", False))

    def _update(self, group: dict[str, Any], params: list, grads: list) -> None:
        momentum = float(group["momentum"])
        squares, steps = [], []
        avgs = [] if group["centered"] else None
        bufs = [] if momentum > 0 else None
        for p in params:
            s = self.state[p]
            if not s:
                s["step"] = _kernels.new_step()
                s["square_avg"] = zeros_like(p)
            steps.append(s["step"])
            squares.append(s["square_avg"])
            if bufs is not None:
                bufs.append(_buffer(s, "momentum_buffer", p))
            if avgs is not None:
                avgs.append(_buffer(s, "grad_avg", p))
        _kernels.run("RMSprop_step", (params, grads, squares, avgs, bufs),
                     [(_kernels.STEPS, steps)], float(group["lr"]), float(group["alpha"]),
                     float(group["eps"]), float(group["weight_decay"]), momentum,
                     bool(group["maximize"]))
