"""Adafactor (Shazeer & Stern): second moments kept factored, a row and a column average per
matrix, so the optimizer state of an m x n parameter is m + n numbers instead of m n.

Not a kernel: the update is row and column reductions and a small outer product, composed
from tensor ops as PyTorch's single-tensor path is, on PyTorch's numbers."""

from __future__ import annotations

import math
from typing import Any

from .._prims.creation import zeros_like
from ..dtype_info import finfo
from ..autograd import no_grad
from ..tensor import Tensor
from . import _kernels
from ._validate import scalar
from .optimizer import Optimizer

__all__ = ["Adafactor"]


def _check(ok: bool, message: str) -> None:
    """ValueError(message) unless ok."""
    if not ok:
        raise ValueError(message)


class Adafactor(Optimizer):
    """beta2_t = 1 - t^beta2_decay; v (or, for a parameter of 2+ dims, its row and column
    averages R, C) = lerp(v, g², 1 - beta2_t); u = g / sqrt(max(v̂, eps1²)) with
    v̂ = R C / mean(R); p -= max(eps2, rms(p)) min(lr, 1/sqrt(t)) u / max(1, rms(u) / d).

    weight_decay scales p by 1 - lr * weight_decay first; eps1 None is the dtype's epsilon."""

    def __init__(self, params: Any, lr: float = 1e-2, beta2_decay: float = -0.8,
                 eps: tuple = (None, 1e-3), d: float = 1.0, weight_decay: float = 0.0, *,
                 foreach: bool | None = None, maximize: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        _check(0.0 <= lr, f"Learning rate should be >= 0 but is: {lr}")
        _check(0.0 >= beta2_decay, f"beta2_decay should be <= 0 but is: {beta2_decay}")
        _check(eps[0] is None or 0.0 <= eps[0], f"epsilon1 should be >= 0 but is: {eps[0]}")
        _check(0.0 <= eps[1], f"epsilon2 should be >= 0 but is: {eps[1]}")
        _check(1.0 <= d, f"Clipping threshold d should be >= 1 but is: {d}")
        _check(0.0 <= weight_decay, f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize}
        super().__init__(params, defaults)

    _OPTION_DEFAULTS = (("foreach", None),)

    def _state(self, p: Any, g: Any) -> dict:
        """p's state, made at its first step: factored row and column variances for 2+ dims."""
        s = self.state[p]
        if not s:
            s["step"] = _kernels.new_step()
            if g.dim() > 1:
                s["row_var"] = g.new_zeros([*g.shape[:-1], 1])
                s["col_var"] = g.new_zeros([*g.shape[:-2], 1, g.shape[-1]])
            else:
                s["variance"] = zeros_like(g)
        return s

    def _update(self, group: dict[str, Any], params: list, grads: list) -> None:
        for p, g in zip(params, grads):
            if p.dtype.is_complex:
                raise RuntimeError("Adafactor does not support complex parameters")
        lr, wd, d = scalar(group["lr"]), float(group["weight_decay"]), float(group["d"])
        eps1, eps2 = group["eps"]
        with no_grad():
            for p, g in zip(params, grads):
                s = self._state(p, g)
                g = -g if group["maximize"] else g
                if eps1 is None:  # as PyTorch: the first parameter's dtype, for the group
                    eps1 = finfo(p.dtype).eps
                s["step"] += 1
                t = s["step"].item()
                weight = t ** group["beta2_decay"]
                alpha = max(eps2, p.norm(2).item() / math.sqrt(p.numel())) * min(lr, 1 / t ** 0.5)
                if wd != 0:
                    p.mul_(1 - lr * wd)
                if g.dim() > 1:
                    rows, cols = s["row_var"], s["col_var"]
                    rows.lerp_(g.norm(dim=-1, keepdim=True).square_().div_(g.size(-1)), weight)
                    cols.lerp_(g.norm(dim=-2, keepdim=True).square_().div_(g.size(-2)), weight)
                    estimate = rows @ cols
                    estimate.div_(rows.mean(dim=-2, keepdim=True).clamp_(min=eps1))
                else:
                    s["variance"].lerp_(g * g, weight)
                    estimate = s["variance"].clone()
                update = estimate.clamp_(min=eps1 * eps1).rsqrt_().mul_(g)
                clip = max(1.0, update.norm(2).item() / (math.sqrt(update.numel()) * d))
                p.add_(update, alpha=-alpha / clip)
