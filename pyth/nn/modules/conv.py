"""Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d: PyTorch's arguments,
parameter shapes, default initialisation and repr over pyth.nn.functional's convolutions."""

from __future__ import annotations

import math
from typing import Any

from ... import dtypes as _dt
from ..._prims.creation import empty
from ...tensor import Tensor
from .. import functional as F
from .. import init
from .._padding import _pad_nonzero
from ..parameter import Parameter
from .module import Module

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _ntuple(v: Any, n: int) -> tuple:
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


class _ConvNd(Module):
    """What the convolutions share: arguments, parameters, init and repr."""

    _nd = 2
    _fn = "conv2d"  # the functional form: pyth.nn.functional's name
    _transposed = False

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", output_padding: Any = 0, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        n = self._nd
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {set(_PADDING_MODES)}, but got "
                             f"padding_mode='{padding_mode}'")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{{'valid', 'same'}}")
            if padding == "same" and any(s != 1 for s in _ntuple(stride, n)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, n)
        self.dilation = _ntuple(dilation, n)
        self.transposed = self._transposed
        self.output_padding = _ntuple(output_padding, n)
        self.groups = groups
        self.padding_mode = padding_mode
        dt = _dt.resolve(dtype) if dtype is not None else _dt.get_default_dtype()
        if self._transposed:
            shape = (in_channels, out_channels // groups, *self.kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *self.kernel_size)
        self.weight = Parameter(empty(*shape, dtype=dt))
        if bias:
            self.bias = Parameter(empty(out_channels, dtype=dt))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """PyTorch's default: kaiming_uniform_(a=sqrt(5)) weight, bias in +-1/sqrt(fan_in)."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        conv = getattr(F, self._fn)
        if self.padding_mode == "zeros":
            return conv(input, weight, bias, self.stride, self.padding, self.dilation,
                        self.groups)
        pads: tuple = ()
        k = self.kernel_size
        for i in range(self._nd):
            if self.padding == "valid":
                before = after = 0
            elif self.padding == "same":
                total = self.dilation[i] * (k[i] - 1)
                before, after = total // 2, total - total // 2
            else:
                before = after = self.padding[i]
            pads += (before, after)
        return conv(_pad_nonzero(input, pads, self.padding_mode), weight, bias, self.stride, 0,
                    self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_ConvNd):
    """1-D convolution over (N, C_in, L) or (C_in, L)."""

    _nd = 1
    _fn = "conv1d"

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, 0, device, dtype)


class Conv2d(_ConvNd):
    """2-D convolution over (N, C_in, H, W) or (C_in, H, W)."""

    _nd = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, 0, device, dtype)


class Conv3d(_ConvNd):
    """3-D convolution over (N, C_in, D, H, W) or (C_in, D, H, W)."""

    _nd = 3
    _fn = "conv3d"

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, 0, device, dtype)


class _ConvTransposeNd(_ConvNd):
    _transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, output_padding: Any = 0, groups: int = 1, bias: bool = True,
                 dilation: Any = 1, padding_mode: str = "zeros", device: Any = None,
                 dtype: Any = None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f'{type(self).__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, output_padding, device, dtype)

    def _output_padding(self, input: Tensor, output_size: Any) -> tuple:
        """output_padding, or the one that makes an output of output_size (PyTorch's rule)."""
        if output_size is None:
            return self.output_padding
        n = self._nd
        nonspatial = 2 if input.dim() == n + 2 else 1
        size = [int(v) for v in output_size]
        if len(size) == nonspatial + n:
            size = size[nonspatial:]
        if len(size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.dim()}D input, output_size must "
                             f"have {n} or {n + nonspatial} elements (got {len(output_size)})")
        lo, hi = [], []
        for d in range(n):
            dim = input.size(d + nonspatial)
            low = ((dim - 1) * self.stride[d] - 2 * self.padding[d] +
                   self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            lo.append(low)
            hi.append(low + self.stride[d] - 1)
        for d in range(n):
            if not lo[d] <= size[d] <= hi[d]:
                raise ValueError(f"requested an output size of {size}, but valid sizes range "
                                 f"from {lo} to {hi} (for an input of "
                                 f"{list(input.shape[nonspatial:])})")
        return tuple(size[d] - lo[d] for d in range(n))

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:
        op = self._output_padding(input, output_size)
        conv = getattr(F, self._fn)
        return conv(input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                    self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """1-D transposed convolution (the gradient of Conv1d in its input), plus bias."""

    _nd = 1
    _fn = "conv_transpose1d"


class ConvTranspose2d(_ConvTransposeNd):
    """2-D transposed convolution (the gradient of Conv2d in its input), plus bias."""

    _nd = 2
    _fn = "conv_transpose2d"


class ConvTranspose3d(_ConvTransposeNd):
    """3-D transposed convolution (the gradient of Conv3d in its input), plus bias."""

    _nd = 3
    _fn = "conv_transpose3d"
