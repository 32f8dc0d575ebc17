"""Argument checks the optimizers share, with PyTorch's messages."""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor


def at_least_zero(value: Any, what: str) -> None:
    """ValueError(f"Invalid {what}: {value}") unless 0 <= value."""
    if isinstance(value, Tensor) and value.numel() != 1:
        raise ValueError(f"Tensor {what.split()[0]} must be 1-element")
    if not 0.0 <= value:
        raise ValueError(f"Invalid {what}: {value}")


def betas(values: Any) -> None:
    """ValueError unless 0 <= beta < 1 for both of Adam's betas."""
    for index, value in enumerate(values[:2]):
        if not 0.0 <= value < 1.0:
            raise ValueError(f"Invalid beta parameter at index {index}: {value}")


def adam_like(lr: Any, eps: Any, beta_pair: Any, weight_decay: Any) -> None:
    """The checks of Adam and its variants, in PyTorch's order: lr, eps, betas, weight_decay."""
    at_least_zero(lr, "learning rate")
    at_least_zero(eps, "epsilon value")
    betas(beta_pair)
    at_least_zero(weight_decay, "weight_decay value")


def flags(differentiable: bool, fused: bool | None, foreach: bool | None) -> None:
    """The implementation switches: every update is already one fused C call per group."""
    if differentiable:
        raise NotImplementedError("pyth.optim: differentiable=True is not supported (the update "
                                  "runs in one C kernel, outside autograd)")
    if fused and foreach:
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def scalar(value: Any) -> float:
    """A group option that may be a one-element tensor, as a float for the kernel."""
    return float(value)
