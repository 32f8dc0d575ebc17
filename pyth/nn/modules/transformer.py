"""Transformer layers with PyTorch's parameter names (a PyTorch state_dict loads as it is):
TransformerEncoderLayer, TransformerEncoder, TransformerDecoderLayer, TransformerDecoder and
Transformer, each a composition of MultiheadAttention, Linear, Dropout and LayerNorm.

Training and evaluation run the same plain arithmetic: PyTorch's encoder fast path and nested
tensors are not there (enable_nested_tensor is accepted and ignored), which changes speed, not
values.
"""

from __future__ import annotations

import copy
from typing import Any, Callable

from ... import dtypes as _dt
from ..._prims.creation import full
from ...tensor import Tensor
from .. import functional as F
from .. import init
from .._attention import _canonical_mask, _none_or_dtype
from .activation import MultiheadAttention
from .container import ModuleList
from .linear import Linear
from .module import Module
from .normalization import LayerNorm
from .other import Dropout

_ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu}


def _activation_fn(activation: str | Callable) -> Callable:
    """The function an activation names ("relu", "gelu"), or the callable itself."""
    if not isinstance(activation, str):
        return activation
    if activation not in _ACTIVATIONS:
        raise RuntimeError(f"activation should be relu/gelu, not {activation}")
    return _ACTIVATIONS[activation]


def _generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
    """(sz, sz) float mask: 0 on and below the diagonal, -inf above (position i sees j <= i)."""
    dt = _dt.resolve(dtype) if dtype is not None else _dt.float32
    return full((sz, sz), float("-inf"), dtype=dt).triu(1)


def _seq_len(src: Tensor, batch_first: bool) -> int:
    """The sequence length of (L, N, E), (N, L, E) with batch_first, or unbatched (L, E)."""
    if src.dim() == 2:
        return src.size(0)
    return src.size(1 if batch_first else 0)


def _is_causal_mask(mask: Tensor | None, is_causal: bool | None, size: int | None) -> bool:
    """is_causal when given; when None, whether mask is exactly the square subsequent mask."""
    if is_causal is not None:
        return bool(is_causal)
    if mask is None:
        return False
    sz = size if size else mask.size(-2)
    causal = _generate_square_subsequent_mask(sz, dtype=mask.dtype)
    return tuple(mask.shape) == tuple(causal.shape) and bool((mask == causal).all())


def _clones(module: Module, n: int) -> ModuleList:
    """n independent deep copies of module."""
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _self_attention(layer: Module, x: Tensor, attn_mask: Tensor | None,
                    key_padding_mask: Tensor | None, is_causal: bool) -> Tensor:
    """A layer's self-attention block: its self_attn over x, then dropout1."""
    x = layer.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                        need_weights=False, is_causal=is_causal)[0]
    return layer.dropout1(x)


def _feed_forward(layer: Module, x: Tensor, out_dropout: Module) -> Tensor:
    """linear2(dropout(activation(linear1(x)))), then the block's output dropout."""
    return out_dropout(layer.linear2(layer.dropout(layer.activation(layer.linear1(x)))))


def _build_common(layer: Module, d_model: int, dim_feedforward: int, dropout: float,
                  activation: str | Callable, layer_norm_eps: float, norm_first: bool,
                  bias: bool, dtype: Any, norms: int) -> None:
    """The feed-forward block, the norms and their dropouts (names as PyTorch's)."""
    layer.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
    layer.dropout = Dropout(dropout)
    layer.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
    layer.norm_first = norm_first
    for i in range(1, norms + 1):
        setattr(layer, f"norm{i}", LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
    for i in range(1, norms + 1):
        setattr(layer, f"dropout{i}", Dropout(dropout))
    layer.activation = _activation_fn(activation)


class TransformerEncoderLayer(Module):
    """Self-attention then a feed-forward block, each with a residual connection and a
    LayerNorm (after the sum, or before the block with norm_first)."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: str | Callable = F.relu,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, dtype=dtype)
        _build_common(self, d_model, dim_feedforward, dropout, activation, layer_norm_eps,
                      norm_first, bias, dtype, 2)

    def _sa_block(self, x: Tensor, attn_mask: Tensor | None,
                  key_padding_mask: Tensor | None, is_causal: bool) -> Tensor:
        return _self_attention(self, x, attn_mask, key_padding_mask, is_causal)

    def _ff_block(self, x: Tensor) -> Tensor:
        return _feed_forward(self, x, self.dropout2)

    def forward(self, src: Tensor, src_mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None, is_causal: bool = False) -> Tensor:
        """src (L, N, E), (N, L, E) with batch_first, or unbatched (L, E); masks as
        MultiheadAttention's (True or -inf leaves a position out)."""
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                               _none_or_dtype(src_mask), "src_mask", src.dtype)
        src_mask = _canonical_mask(src_mask, "src_mask", None, "", src.dtype, False)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x))


class TransformerDecoderLayer(Module):
    """Self-attention, attention over the encoder's memory, then a feed-forward block; each
    with a residual connection and a LayerNorm (post- or pre-norm as norm_first)."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: str | Callable = F.relu,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                                 batch_first=batch_first, dtype=dtype)
        _build_common(self, d_model, dim_feedforward, dropout, activation, layer_norm_eps,
                      norm_first, bias, dtype, 3)

    def _sa_block(self, x: Tensor, attn_mask: Tensor | None,
                  key_padding_mask: Tensor | None, is_causal: bool) -> Tensor:
        return _self_attention(self, x, attn_mask, key_padding_mask, is_causal)

    def _mha_block(self, x: Tensor, mem: Tensor, attn_mask: Tensor | None,
                   key_padding_mask: Tensor | None, is_causal: bool) -> Tensor:
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, need_weights=False,
                                is_causal=is_causal)[0]
        return self.dropout2(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        return _feed_forward(self, x, self.dropout3)

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None, tgt_is_causal: bool = False,
                memory_is_causal: bool = False) -> Tensor:
        """tgt attends to itself (tgt_mask) and to memory (memory_mask)."""
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask,
                                    memory_key_padding_mask, memory_is_causal)
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask,
                                           memory_is_causal))
        return self.norm3(x + self._ff_block(x))


class TransformerEncoder(Module):
    """num_layers copies of encoder_layer applied in turn, then norm (when given).
    enable_nested_tensor and mask_check are accepted and ignored: there is no fast path."""

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int,
                 norm: Module | None = None, enable_nested_tensor: bool = True,
                 mask_check: bool = True) -> None:
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm
        self.enable_nested_tensor, self.use_nested_tensor = enable_nested_tensor, False
        self.mask_check = mask_check

    def forward(self, src: Tensor, mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None,
                is_causal: bool | None = None) -> Tensor:
        """is_causal=None detects a square subsequent mask."""
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                               _none_or_dtype(mask), "mask", src.dtype)
        mask = _canonical_mask(mask, "mask", None, "", src.dtype, False)
        first = self.layers[0] if len(self.layers) else None
        batch_first = first is not None and first.self_attn.batch_first
        is_causal = _is_causal_mask(mask, is_causal, _seq_len(src, batch_first))
        out = src
        for layer in self.layers:
            out = layer(out, src_mask=mask, is_causal=is_causal,
                        src_key_padding_mask=src_key_padding_mask)
        return self.norm(out) if self.norm is not None else out


class TransformerDecoder(Module):
    """num_layers copies of decoder_layer applied in turn over one memory, then norm."""

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int,
                 norm: Module | None = None) -> None:
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None,
                tgt_is_causal: bool | None = None, memory_is_causal: bool = False) -> Tensor:
        """tgt_is_causal=None detects a square subsequent tgt_mask."""
        first = self.layers[0] if len(self.layers) else None
        batch_first = first is not None and first.self_attn.batch_first
        tgt_is_causal = _is_causal_mask(tgt_mask, tgt_is_causal, _seq_len(tgt, batch_first))
        out = tgt
        for layer in self.layers:
            out = layer(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                        tgt_key_padding_mask=tgt_key_padding_mask,
                        memory_key_padding_mask=memory_key_padding_mask,
                        tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        return self.norm(out) if self.norm is not None else out


class Transformer(Module):
    """An encoder-decoder transformer (Vaswani et al.): encoder over src, decoder over tgt
    attending to the encoded memory; every weight matrix Xavier-uniform initialised."""

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable = F.relu, custom_encoder: Module | None = None,
                 custom_decoder: Module | None = None, layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        layer_args = {"dim_feedforward": dim_feedforward, "dropout": dropout,
                      "activation": activation, "layer_norm_eps": layer_norm_eps,
                      "batch_first": batch_first, "norm_first": norm_first, "bias": bias,
                      "dtype": dtype}
        self.encoder = custom_encoder if custom_encoder is not None else TransformerEncoder(
            TransformerEncoderLayer(d_model, nhead, **layer_args), num_encoder_layers,
            LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
        self.decoder = custom_decoder if custom_decoder is not None else TransformerDecoder(
            TransformerDecoderLayer(d_model, nhead, **layer_args), num_decoder_layers,
            LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: Any = None,
                                        dtype: Any = None) -> Tensor:
        """(sz, sz) float mask: 0 on and below the diagonal, -inf above."""
        return _generate_square_subsequent_mask(sz, device, dtype)

    def _check_inputs(self, src: Tensor, tgt: Tensor) -> None:
        batch = 0 if self.batch_first else 1
        if src.dim() == 3 and src.size(batch) != tgt.size(batch):
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None,
                tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None,
                src_is_causal: bool | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:
        """The decoder's output for tgt given the encoded src."""
        self._check_inputs(src, tgt)
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
