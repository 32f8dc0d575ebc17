"""Padding layers over F.pad: ConstantPad, ZeroPad, ReflectionPad, ReplicationPad and
CircularPad in 1, 2 and 3 dims, with PyTorch's arguments and repr."""

from __future__ import annotations

from typing import Any

from ...tensor import Tensor
from .. import functional as F
from .module import Module


class _PadNd(Module):
    """padding: an int for every side or (left, right[, top, bottom[, front, back]])."""

    _nd = 1
    _mode = "constant"

    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = ((padding,) * (2 * self._nd) if isinstance(padding, int)
                        else tuple(padding))

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (self._nd + 1, self._nd + 2):
            raise ValueError(f"expected {self._nd + 1}D or {self._nd + 2}D input "
                             f"(got {input.dim()}D input)")
        return super().forward(input)


class _ReflectionPadNd(_PadNd):
    _mode = "reflect"


class _ReplicationPadNd(_PadNd):
    _mode = "replicate"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dim with a constant value."""

    _nd = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last 2 dims with a constant value."""

    _nd = 2


class ConstantPad3d(_ConstantPadNd):
    """Pads the last 3 dims with a constant value."""

    _nd = 3


class ZeroPad1d(_ZeroPadNd):
    """Pads the last dim with zeros."""

    _nd = 1


class ZeroPad2d(_ZeroPadNd):
    """Pads the last 2 dims with zeros."""

    _nd = 2


class ZeroPad3d(_ZeroPadNd):
    """Pads the last 3 dims with zeros."""

    _nd = 3


class ReflectionPad1d(_ReflectionPadNd):
    """Pads the last dim with the input mirrored at its edges."""

    _nd = 1


class ReflectionPad2d(_ReflectionPadNd):
    """Pads the last 2 dims with the input mirrored at its edges."""

    _nd = 2


class ReflectionPad3d(_ReflectionPadNd):
    """Pads the last 3 dims with the input mirrored at its edges."""

    _nd = 3


class ReplicationPad1d(_ReplicationPadNd):
    """Pads the last dim with copies of the edge values."""

    _nd = 1


class ReplicationPad2d(_ReplicationPadNd):
    """Pads the last 2 dims with copies of the edge values."""

    _nd = 2


class ReplicationPad3d(_ReplicationPadNd):
    """Pads the last 3 dims with copies of the edge values."""

    _nd = 3


class CircularPad1d(_CircularPadNd):
    """Pads the last dim with the input wrapped around."""

    _nd = 1


class CircularPad2d(_CircularPadNd):
    """Pads the last 2 dims with the input wrapped around."""

    _nd = 2


class CircularPad3d(_CircularPadNd):
    """Pads the last 3 dims with the input wrapped around."""

    _nd = 3
