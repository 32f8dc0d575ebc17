"""LayerNorm, GroupNorm, RMSNorm and LocalResponseNorm (PyTorch's parameters, defaults and
repr)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import dtypes as _dt
from ..._prims.creation import empty
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module


def _dtype(dtype: Any) -> _dt.dtype:
    return _dt.resolve(dtype) if dtype is not None else _dt.get_default_dtype()


def affine_parameters(m: Module, shape: tuple, affine: bool, bias: bool, dtype: Any) -> None:
    """Registers weight and bias (shape; bias None when not bias, both None when not affine)."""
    dt = _dtype(dtype)
    m.register_parameter("weight", Parameter(empty(*shape, dtype=dt)) if affine else None)
    m.register_parameter("bias", Parameter(empty(*shape, dtype=dt)) if affine and bias
                         else None)


def reset_affine(m: Module) -> None:
    """weight to ones, bias to zeros (those that exist)."""
    if m.weight is not None:
        init.ones_(m.weight)
    if m.bias is not None:
        init.zeros_(m.bias)


class LayerNorm(Module):
    """Normalises over the last dims (normalized_shape); weight ones and bias zeros of that
    shape when elementwise_affine (bias=False: no bias)."""

    def __init__(self, normalized_shape: int | Sequence[int], eps: float = 1e-5,
                 elementwise_affine: bool = True, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(int(s) for s in normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        affine_parameters(self, self.normalized_shape, elementwise_affine, bias, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(Module):
    """Normalises each sample's channels in num_groups groups; weight ones and bias zeros
    (unless bias=False) per channel when affine."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        super().__init__()
        if num_groups <= 0 or num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups, self.num_channels, self.eps, self.affine = \
            num_groups, num_channels, eps, affine
        affine_parameters(self, (num_channels,), affine, bias, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class RMSNorm(Module):
    """Divides by the root mean square over the last dims (normalized_shape); weight ones of
    that shape when elementwise_affine; eps None is the input type's machine epsilon."""

    def __init__(self, normalized_shape: int | Sequence[int], eps: float | None = None,
                 elementwise_affine: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(int(s) for s in normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        affine_parameters(self, self.normalized_shape, elementwise_affine, False, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class LocalResponseNorm(Module):
    """Divides each value by (k + alpha * mean of squares over size neighbouring channels)^beta."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75,
                 k: float = 1.0) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
