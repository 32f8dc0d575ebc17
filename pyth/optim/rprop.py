"""Rprop: resilient backpropagation, per-element step sizes driven by the gradient's sign."""

from __future__ import annotations

from typing import Any

from .._prims.creation import full_like, zeros_like
from . import _kernels
from ._validate import at_least_zero, flags, scalar
from .optimizer import Optimizer

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Each element's step size s grows by etas[1] while the gradient keeps its sign and
    shrinks by etas[0] when it flips (that step is then skipped), clamped to step_sizes;
    p -= sign(g) * s. s starts at lr. Kernel: THOptim_(Rprop_step)."""

    def __init__(self, params: Any, lr: float = 1e-2, etas: tuple = (0.5, 1.2),
                 step_sizes: tuple = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        at_least_zero(lr, "learning rate")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        flags(differentiable, None, foreach)
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    _OPTION_DEFAULTS = (("foreach", None), ("maximize", False), ("differentiable", False),
                        ("capturable", False))

    def _update(self, group: dict[str, Any], params: list, grads: list) -> None:
        lr = scalar(group["lr"])
        steps, prevs, sizes = self._buffers(params, ("step", "prev", "step_size"), lambda p: {
            "step": _kernels.new_step(), "prev": zeros_like(p), "step_size": full_like(p, lr)})
        etaminus, etaplus = group["etas"]
        lo, hi = group["step_sizes"]
        _kernels.run("Rprop_step", (params, grads, prevs, sizes), [(_kernels.STEPS, steps)],
                     float(etaminus), float(etaplus), float(lo), float(hi),
                     bool(group["maximize"]))
