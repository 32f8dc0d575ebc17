"""Identity, Linear, Bilinear: PyTorch's shapes, parameter order and default initialisation."""

from __future__ import annotations

import math
from typing import Any

from ... import dtypes as _dt
from ..._prims.creation import empty
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module


class Identity(Module):
    """Returns its input (any arguments to the constructor are ignored)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


def _weight_and_bias(m: Module, shape: tuple, bias: bool, dtype: Any) -> None:
    """Registers weight (shape) and bias (shape[0], or None), then runs reset_parameters()."""
    dt = _dt.resolve(dtype) if dtype is not None else _dt.get_default_dtype()
    m.weight = Parameter(empty(*shape, dtype=dt))
    if bias:
        m.bias = Parameter(empty(shape[0], dtype=dt))
    else:
        m.register_parameter("bias", None)
    m.reset_parameters()


class Linear(Module):
    """y = x W^T + b; W (out_features, in_features) and b uniform in +-1/sqrt(in_features)."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        _weight_and_bias(self, (out_features, in_features), bias, dtype)

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.size(1)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Bilinear(Module):
    """y = x1^T A x2 + b; A (out, in1, in2) and b uniform in +-1/sqrt(in1_features)."""

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        _weight_and_bias(self, (out_features, in1_features, in2_features), bias, dtype)

    def reset_parameters(self) -> None:
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
