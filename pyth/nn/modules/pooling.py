"""MaxPool1d/2d/3d, AvgPool1d/2d/3d, AdaptiveAvgPool1d/2d/3d, AdaptiveMaxPool1d/2d/3d,
MaxUnpool1d/2d/3d, LPPool1d/2d/3d: PyTorch's arguments and repr over pyth.nn.functional's
pooling."""

from __future__ import annotations

from typing import Any

from ...tensor import Tensor
from .. import functional as F
from .module import Module


class _MaxPoolNd(Module):
    _nd = 2

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 dilation: Any = 1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}, dilation={self.dilation}, ceil_mode={self.ceil_mode}")

    def forward(self, input: Tensor) -> Any:
        pool = getattr(F, f"max_pool{self._nd}d")
        return pool(input, self.kernel_size, self.stride, self.padding, self.dilation,
                    ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool1d(_MaxPoolNd):
    """The maximum of each window along the last dim of (N, C, L) or (C, L)."""

    _nd = 1


class MaxPool2d(_MaxPoolNd):
    """The maximum of each window over (H, W) of (N, C, H, W) or (C, H, W)."""

    _nd = 2


class MaxPool3d(_MaxPoolNd):
    """The maximum of each window over (T, H, W) of (N, C, T, H, W) or (C, T, H, W)."""

    _nd = 3


class AvgPool1d(Module):
    """The mean of each window along the last dim of (N, C, L) or (C, L)."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True) -> None:
        super().__init__()
        one = (lambda v: tuple(v) if isinstance(v, (tuple, list)) else (v,))
        self.kernel_size = one(kernel_size)
        self.stride = one(stride if stride is not None else kernel_size)
        self.padding = one(padding)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class _AvgPoolNd(Module):
    _nd = 2

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad
        self.divisor_override = divisor_override

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input: Tensor) -> Tensor:
        pool = getattr(F, f"avg_pool{self._nd}d")
        return pool(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                    self.count_include_pad, self.divisor_override)


class AvgPool2d(_AvgPoolNd):
    """The mean of each window over (H, W); divisor_override replaces the window's size."""

    _nd = 2


class AvgPool3d(_AvgPoolNd):
    """The mean of each window over (T, H, W); divisor_override replaces the window's size."""

    _nd = 3


class _AdaptiveAvgPoolNd(Module):
    _nd = 2

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"

    def forward(self, input: Tensor) -> Tensor:
        return getattr(F, f"adaptive_avg_pool{self._nd}d")(input, self.output_size)


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Average pooling of the last dim to output_size cells."""

    _nd = 1


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Average pooling of (H, W) to an output_size grid (None keeps that size)."""

    _nd = 2


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Average pooling of (T, H, W) to an output_size grid (None keeps that size)."""

    _nd = 3


class _AdaptiveMaxPoolNd(Module):
    _nd = 2

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"

    def forward(self, input: Tensor) -> Any:
        pool = getattr(F, f"adaptive_max_pool{self._nd}d")
        return pool(input, self.output_size, self.return_indices)


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max pooling of the last dim to output_size cells (with return_indices, the argmax)."""

    _nd = 1


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max pooling of (H, W) to an output_size grid (None keeps that size)."""

    _nd = 2


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Max pooling of (T, H, W) to an output_size grid (None keeps that size)."""

    _nd = 3


def _as_tuple(value: Any, n: int) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


class _MaxUnpoolNd(Module):
    _nd = 2

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__()
        self.kernel_size = _as_tuple(kernel_size, self._nd)
        self.stride = _as_tuple(stride if stride is not None else kernel_size, self._nd)
        self.padding = _as_tuple(padding, self._nd)

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        unpool = getattr(F, f"max_unpool{self._nd}d")
        return unpool(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """Puts MaxPool1d's maxima back at their indices, zeros elsewhere."""

    _nd = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """Puts MaxPool2d's maxima back at their indices, zeros elsewhere."""

    _nd = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """Puts MaxPool3d's maxima back at their indices, zeros elsewhere."""

    _nd = 3


class _LPPoolNd(Module):
    _nd = 2

    def __init__(self, norm_type: float, kernel_size: Any, stride: Any = None,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        pool = getattr(F, f"lp_pool{self._nd}d")
        return pool(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    """The p-norm of each window along the last dim."""

    _nd = 1


class LPPool2d(_LPPoolNd):
    """The p-norm of each window over the last two dims."""

    _nd = 2


class LPPool3d(_LPPoolNd):
    """The p-norm of each window over the last three dims."""

    _nd = 3
