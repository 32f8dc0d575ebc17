"""Parameters as one flat vector and back (for second-order methods, line searches, EMA)."""

from __future__ import annotations

from collections.abc import Iterable

from ...autograd.recorded import cat
from ...tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """The parameters flattened and concatenated in order (differentiable, a copy)."""
    return cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Points each parameter's data at its slice of vec (they share vec's memory after)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    for p in parameters:
        n = p.numel()
        p.data = vec[pointer:pointer + n].view_as(p).data
        pointer += n
