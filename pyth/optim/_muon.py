"""Muon (Jordan et al.): momentum SGD for matrices whose update is orthogonalised by a few
Newton-Schulz iterations, run in bfloat16 as PyTorch's are.

Not a kernel: the iterations are matrix products, composed from tensor ops."""

from __future__ import annotations

import math
from typing import Any

from .._prims.creation import zeros_like
from ..autograd import no_grad
from ..tensor import Tensor
from ._validate import scalar
from .optimizer import Optimizer

__all__ = ["Muon"]

EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.7750
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5


def _orthogonalize(g: Tensor, coefficients: tuple, steps: int, eps: float) -> Tensor:
    """The Newton-Schulz quintic X <- a X + (b A + c A²) X, A = X Xᵀ, from X = g / |g| in
    bfloat16 (wide matrices as they are, tall ones transposed): g's nearest semi-orthogonal
    matrix, roughly."""
    if steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(g.shape) != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = coefficients
    tall = g.size(0) > g.size(1)
    x = g.bfloat16()
    x = x.T if tall else x
    x.div_(x.norm().clamp(min=eps))
    for _ in range(steps):
        # each product as PyTorch's bfloat16 matmul: float32 sums, one rounding at the end
        # (and beta, alpha not rounded to bfloat16 first)
        xf = x.float()
        gram = (xf @ xf.T).bfloat16().float()
        poly = gram.addmm(gram, gram, beta=b, alpha=c).bfloat16().float()
        x = xf.addmm(poly, xf, beta=a).bfloat16()
    return x.T if tall else x


def _adjusted_lr(lr: float, adjust_lr_fn: str | None, shape: Any) -> float:
    """lr scaled for an A x B matrix: sqrt(max(1, A / B)) (original) or 0.2 sqrt(max(A, B))
    (match_rms_adamw, the RMS of an AdamW step)."""
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        return lr * math.sqrt(max(1, rows / cols))
    if adjust_lr_fn == "match_rms_adamw":
        return lr * 0.2 * math.sqrt(max(rows, cols))
    return lr


class Muon(Optimizer):
    """b = lerp(b, g, 1 - momentum); u = orthogonalize(nesterov ? lerp(g, b, momentum) : b);
    p *= 1 - lr * weight_decay; p -= adjusted lr * u. Only 2-d parameters."""

    def __init__(self, params: Any, lr: float = 1e-3, weight_decay: float = 0.1,
                 momentum: float = 0.95, nesterov: bool = True,
                 ns_coefficients: tuple = (DEFAULT_A, DEFAULT_B, DEFAULT_C), eps: float = EPS,
                 ns_steps: int = DEFAULT_NS_STEPS, adjust_lr_fn: str | None = None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ("original", "match_rms_adamw"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {"lr": lr, "weight_decay": weight_decay, "momentum": momentum,
                    "nesterov": nesterov, "ns_coefficients": ns_coefficients, "eps": eps,
                    "ns_steps": ns_steps, "adjust_lr_fn": adjust_lr_fn}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.dim() != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {p.size()}")

    def _update(self, group: dict[str, Any], params: list, grads: list) -> None:
        lr, momentum = scalar(group["lr"]), float(group["momentum"])
        for p in params:
            if p.dtype.is_complex:
                raise RuntimeError("Muon does not support complex parameters")
        with no_grad():
            for p, g in zip(params, grads):
                self._step_one(group, p, g, lr, momentum)

    def _step_one(self, group: dict[str, Any], p: Tensor, g: Tensor, lr: float,
                  momentum: float) -> None:
        """Parameter p's update (under no_grad)."""
        s = self.state[p]
        if "momentum_buffer" not in s:
            s["momentum_buffer"] = zeros_like(g)
        buf = s["momentum_buffer"]
        buf.lerp_(g, 1 - momentum)
        update = g.lerp(buf, momentum) if group["nesterov"] else buf
        update = _orthogonalize(update, group["ns_coefficients"], group["ns_steps"],
                                group["eps"])
        p.mul_(1 - lr * float(group["weight_decay"]))
        p.add_(update, alpha=-_adjusted_lr(lr, group["adjust_lr_fn"], p.shape))
