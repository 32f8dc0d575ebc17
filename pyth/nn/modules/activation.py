"""Activation modules over nn.functional (THNN kernels), with PyTorch's defaults and repr."""

from __future__ import annotations

from typing import Any

from ... import dtypes as _dt
from ..._prims.creation import empty, full
from ...tensor import Tensor
from .. import functional as F
from .. import init
from .._attention import _canonical_mask, _none_or_dtype
from ..parameter import Parameter
from .linear import Linear
from .module import Module


class _InplaceShown(Module):
    """An activation whose only argument is inplace, shown in the repr when set."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class _DimModule(Module):
    """An activation along one dim, its only argument (shown in the repr)."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class ReLU(_InplaceShown):
    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, self.inplace)


class LeakyReLU(Module):
    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace
                                                          else "")


class RReLU(Module):
    """Leaky ReLU whose negative slope is drawn from [lower, upper] per element in training
    and is their mean in evaluation."""

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
                 inplace: bool = False) -> None:
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace
                                                             else "")


class ELU(Module):
    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class SiLU(_InplaceShown):
    def forward(self, input: Tensor) -> Tensor:
        return F.silu(input, self.inplace)


class Softplus(Module):
    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(Module):
    def __init__(self, min_val: float = -1.0, max_val: float = 1.0,
                 inplace: bool = False) -> None:
        super().__init__()
        if min_val > max_val:
            raise ValueError("min_val cannot be greater than max_val")
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + (
            ", inplace=True" if self.inplace else "")


class ReLU6(Hardtanh):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    def forward(self, input: Tensor) -> Tensor:
        return input.sigmoid()


class Tanh(Module):
    def forward(self, input: Tensor) -> Tensor:
        return input.tanh()


class Softmax(_DimModule):
    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim)


class LogSoftmax(_DimModule):
    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim)


class SELU(_InplaceShown):
    def forward(self, input: Tensor) -> Tensor:
        return F.selu(input, self.inplace)


class Mish(_InplaceShown):
    def forward(self, input: Tensor) -> Tensor:
        return F.mish(input, self.inplace)


class CELU(Module):
    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class _InplaceHidden(Module):
    """An activation whose only argument is inplace, not shown in the repr (as PyTorch's)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


class Hardswish(_InplaceHidden):
    def forward(self, input: Tensor) -> Tensor:
        return F.hardswish(input, self.inplace)


class Hardsigmoid(_InplaceHidden):
    def forward(self, input: Tensor) -> Tensor:
        return F.hardsigmoid(input, self.inplace)


class LogSigmoid(Module):
    def forward(self, input: Tensor) -> Tensor:
        return F.logsigmoid(input)


class Softsign(Module):
    def forward(self, input: Tensor) -> Tensor:
        return F.softsign(input)


class Tanhshrink(Module):
    def forward(self, input: Tensor) -> Tensor:
        return F.tanhshrink(input)


class _Shrink(Module):
    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Hardshrink(_Shrink):
    def forward(self, input: Tensor) -> Tensor:
        return F.hardshrink(input, self.lambd)


class Softshrink(_Shrink):
    def forward(self, input: Tensor) -> Tensor:
        return F.softshrink(input, self.lambd)


class Threshold(Module):
    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}" + (
            ", inplace=True" if self.inplace else "")


class PReLU(Module):
    """x above 0, a * x below, with a learnt slope a (one, or one per channel), init 0.25."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        dt = _dt.resolve(dtype) if dtype is not None else _dt.get_default_dtype()
        self.weight = Parameter(full((num_parameters,), float(init), dtype=dt))

    def reset_parameters(self) -> None:
        self.weight.data.fill_(self.init)

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class GLU(_DimModule):
    def __init__(self, dim: int = -1) -> None:
        super().__init__(dim)

    def forward(self, input: Tensor) -> Tensor:
        return F.glu(input, self.dim)


class Softmin(_DimModule):
    def forward(self, input: Tensor) -> Tensor:
        return F.softmin(input, self.dim)


# ==== multi-head attention =======================================================================

class NonDynamicallyQuantizableLinear(Linear):
    """MultiheadAttention's output projection: a plain Linear under PyTorch's class name (pyth
    has no quantization, so the name only keeps module trees alike)."""


class MultiheadAttention(Module):
    """Attention of a query sequence over key/value sequences in num_heads heads of
    embed_dim // num_heads features (F.multi_head_attention_forward), with PyTorch's parameters:
    in_proj_weight (3E, E), or q/k/v_proj_weight when kdim or vdim differ from embed_dim;
    in_proj_bias; out_proj; bias_k and bias_v with add_bias_kv."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.dropout, self.batch_first = dropout, batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        self._make_parameters(bias, add_bias_kv, dtype)
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _make_parameters(self, bias: bool, add_bias_kv: bool, dtype: Any) -> None:
        """Registers the projections in PyTorch's order (so named_parameters pair up)."""
        dt = _dt.resolve(dtype) if dtype is not None else _dt.get_default_dtype()
        e = self.embed_dim
        if self._qkv_same_embed_dim:
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
            self.in_proj_weight = Parameter(empty(3 * e, e, dtype=dt))
        else:
            self.q_proj_weight = Parameter(empty(e, e, dtype=dt))
            self.k_proj_weight = Parameter(empty(e, self.kdim, dtype=dt))
            self.v_proj_weight = Parameter(empty(e, self.vdim, dtype=dt))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * e, dtype=dt))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(e, e, bias=bias, dtype=dt)
        if add_bias_kv:
            self.bias_k = Parameter(empty(1, 1, e, dtype=dt))
            self.bias_v = Parameter(empty(1, 1, e, dtype=dt))
        else:
            self.bias_k = self.bias_v = None

    def _reset_parameters(self) -> None:
        """Xavier-uniform projections, zero biases, Xavier-normal bias_k / bias_v (PyTorch's)."""
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for w in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                init.xavier_uniform_(w)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        for b in (self.bias_k, self.bias_v):
            if b is not None:
                init.xavier_normal_(b)

    def forward(self, query: Tensor, key: Tensor, value: Tensor,
                key_padding_mask: Tensor | None = None, need_weights: bool = True,
                attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple:
        """(output, attention weights or None); batch_first inputs are (N, L, E). Masks mark
        with True (or -inf) the keys to leave out."""
        batched = query.dim() == 3
        key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                           _none_or_dtype(attn_mask), "attn_mask", query.dtype)
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, False)
        if self.batch_first and batched:
            query, key, value = _seq_first(query, key, value)
        separate = not self._qkv_same_embed_dim
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=separate, q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        return (out.transpose(1, 0), weights) if self.batch_first and batched else (out, weights)


def _seq_first(query: Tensor, key: Tensor, value: Tensor) -> tuple:
    """(N, L, E) inputs as (L, N, E), keeping query is key is value (self-attention) true."""
    q = query.transpose(1, 0)
    k = q if key is query else key.transpose(1, 0)
    v = k if value is key else value.transpose(1, 0)
    return q, k, v
