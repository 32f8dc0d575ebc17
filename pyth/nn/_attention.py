"""Attention: F.scaled_dot_product_attention and F.multi_head_attention_forward (PyTorch's math,
argument order and errors, so the same values and gradients). float32 and float64 attention
without dropout runs the blocked kernel of _attention_kernels; the rest is composed of
differentiable tensor ops.

Mask senses differ between the two, as in PyTorch: a bool mask given to scaled_dot_product_attention
marks the keys that take part (True = attend), while the key_padding_mask and attn_mask of
multi-head attention mark the keys to leave out (True = masked). Float masks are added to the
scores in both.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch
from .. import dtypes as _dt
from .._prims.creation import ones, zeros
from .._refs.shape import broadcast_shapes
from ..autograd.recorded import baddbmm, cat
from ..tensor import Tensor
from ._activations import softmax
from ._attention_kernels import KERNELS, attention
from ._dropout import dropout
from ._linear import linear
from ._padding import pad

_NEG_INF = float("-inf")


# ==== scaled dot-product attention ===============================================================

def _check_sdpa(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None,
                dropout_p: float, is_causal: bool) -> None:
    """The argument checks of scaled_dot_product_attention, before any arithmetic."""
    if min(query.dim(), key.dim(), value.dim()) < 2:
        raise RuntimeError(f"scaled_dot_product_attention(): expected query, key and value of at "
                           f"least 2 dims, got {query.dim()}, {key.dim()} and {value.dim()}")
    if not (query.dtype is key.dtype is value.dtype):
        raise RuntimeError(f"scaled_dot_product_attention(): expected query, key and value of one "
                           f"dtype, got {query.dtype}, {key.dtype} and {value.dtype}")
    if not query.dtype.is_floating_point:
        raise RuntimeError(f"scaled_dot_product_attention(): expected floating-point query, key "
                           f"and value, got {query.dtype}")
    if query.size(-1) != key.size(-1):
        raise RuntimeError(f"scaled_dot_product_attention(): query's last dim ({query.size(-1)}) "
                           f"does not match key's ({key.size(-1)})")
    if key.size(-2) != value.size(-2):
        raise RuntimeError(f"scaled_dot_product_attention(): key has {key.size(-2)} positions "
                           f"but value has {value.size(-2)}")
    if attn_mask is not None and attn_mask.dtype is not _dt.bool_ and \
            attn_mask.dtype is not query.dtype:
        raise RuntimeError(f"scaled_dot_product_attention(): expected attn_mask of dtype bool or "
                           f"{query.dtype} (query's), got {attn_mask.dtype}")
    if is_causal and attn_mask is not None:
        raise RuntimeError("scaled_dot_product_attention(): an explicit attn_mask cannot be "
                           "given with is_causal=True")
    if dropout_p > 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")


def _repeat_heads(query: Tensor, key: Tensor, value: Tensor) -> tuple:
    """key and value with each head repeated so their head count (dim -3) is query's (GQA)."""
    if min(query.dim(), key.dim(), value.dim()) < 3:
        raise IndexError(f"scaled_dot_product_attention(): enable_gqa needs a head dim (-3) in "
                         f"query, key and value, got {query.dim()}, {key.dim()} and "
                         f"{value.dim()} dims")
    hq, hk, hv = query.size(-3), key.size(-3), value.size(-3)
    if hk == 0 or hv == 0 or hq % hk or hq % hv:
        raise RuntimeError(f"scaled_dot_product_attention(): the number of heads in key ({hk}) "
                           f"and value ({hv}) must divide the number in query ({hq})")
    if hk != hq:
        key = key.repeat_interleave(hq // hk, -3)
    if hv != hq:
        value = value.repeat_interleave(hq // hv, -3)
    return key, value


def _score_bias(attn_mask: Tensor | None, is_causal: bool, length: int, source: int,
                dtype: Any) -> Tensor | None:
    """The float bias added to the scores: -inf where a bool mask (or the causal triangle) says
    a key takes no part, a float mask as it is; None without a mask."""
    if is_causal:
        attn_mask = ones(length, source, dtype=_dt.bool_).tril()
    if attn_mask is None or attn_mask.dtype is not _dt.bool_:
        return attn_mask
    return zeros(*attn_mask.shape, dtype=dtype).masked_fill(attn_mask.logical_not(), _NEG_INF)


def _safe_softmax(scores: Tensor) -> Tensor:
    """softmax over the last dim, giving 0 (not NaN) on rows where every score is -inf, as
    PyTorch's attention does; those rows are also kept out of the gradient."""
    dead = (scores == _NEG_INF).all(-1, keepdim=True)
    if not bool(dead.any()):
        return softmax(scores, -1)
    return softmax(scores.masked_fill(dead, 0.0), -1).masked_fill(dead, 0.0)


def _composed(query: Tensor, key: Tensor, value: Tensor, bias: Tensor | None, factor: float,
              dropout_p: float = 0.0) -> Tensor:
    """The attention in recorded ops: softmax(query key^T factor + bias), dropped out, times
    value; the path of dropout, half precision and zero sizes, and the kernel's formula."""
    scores = query.matmul(key.transpose(-2, -1)) * factor
    if bias is not None:
        scores = scores + bias
    weights = _safe_softmax(scores)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    return weights.matmul(value)


def _kernel_shapes(query: Tensor, key: Tensor, value: Tensor, gqa: bool) -> tuple | None:
    """(leading dims of the result, B, H, Hk) when the kernel can run these inputs (float32 or
    float64, nothing of size 0, key and value of one head count), else None."""
    if query.dtype not in KERNELS or 0 in (query.size(-2), key.size(-2), query.size(-1),
                                           value.size(-1)):
        return None
    cut = 3 if gqa else 2
    if min(query.dim(), key.dim(), value.dim()) < cut:
        return None
    try:   # shapes that do not broadcast get the composed path's error
        batch = tuple(broadcast_shapes(query.shape[:-cut], key.shape[:-cut], value.shape[:-cut]))
    except RuntimeError:
        return None
    if gqa:
        h, hk = query.size(-3), key.size(-3)
        if hk == 0 or h % hk or value.size(-3) != hk:
            return None
        lead = batch + (h,)
    else:
        lead = batch
        h = hk = lead[-1] if lead else 1
        batch = lead[:-1]
    if 0 in lead:
        return None
    return lead, math.prod(batch), h, hk


def _as_4d(x: Tensor, lead: tuple, shape: tuple) -> Tensor:
    """x broadcast to lead + shape's last two dims and viewed (or copied) as shape."""
    full = (*lead, *shape[-2:])
    if tuple(x.shape) != full:
        x = x.expand(*full)
    return x if full == shape else x.reshape(shape)


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor,
                                 attn_mask: Tensor | None = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """softmax(query @ key^T * scale + mask) @ value over the last two dims, leading dims
    broadcast; scale defaults to 1/sqrt(E). A bool mask marks the keys that take part, a float
    mask is added; is_causal keeps key j for query i when j <= i. float32 and float64 without
    dropout run the blocked kernel (one autograd node); dropout_p > 0 (applied whatever the
    module's mode, as in PyTorch), other dtypes and zero sizes run the composed ops."""
    if type(query) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(scaled_dot_product_attention, locals())
    _check_sdpa(query, key, value, attn_mask, dropout_p, is_causal)
    factor = float(scale) if scale is not None else \
        1.0 / math.sqrt(query.size(-1)) if query.size(-1) else 1.0   # E = 0: all scores 0
    plan = _kernel_shapes(query, key, value, enable_gqa) if dropout_p <= 0.0 else None
    if enable_gqa and plan is None:
        key, value = _repeat_heads(query, key, value)
    if plan is None:
        bias = _score_bias(attn_mask, is_causal, query.size(-2), key.size(-2), query.dtype)
        return _composed(query, key, value, bias, factor, dropout_p)
    lead, b, h, hk = plan
    length, source = query.size(-2), key.size(-2)
    kv_lead = lead[:-1] + (hk,) if enable_gqa else lead
    q = _as_4d(query, lead, (b, h, length, query.size(-1)))
    k = _as_4d(key, kv_lead, (b, hk, source, key.size(-1)))
    v = _as_4d(value, kv_lead, (b, hk, source, value.size(-1)))
    bias = _score_bias(attn_mask, False, length, source, query.dtype)
    if bias is not None:
        bias = _as_4d(bias, lead, (b, h, length, source))
    gqa = hk != h

    def compose(q: Tensor, k: Tensor, v: Tensor, m: Tensor | None) -> Tensor:
        if gqa:
            k, v = k.repeat_interleave(h // hk, -3), v.repeat_interleave(h // hk, -3)
        causal = _score_bias(None, True, length, source, q.dtype) if is_causal else None
        return _composed(q, k, v, causal if m is None else m, factor)

    out = attention(q, k, v, bias, is_causal, factor, compose)
    shape = (*lead, length, value.size(-1))
    return out if tuple(out.shape) == shape else out.reshape(shape)


# ==== multi-head attention =======================================================================

def _canonical_mask(mask: Tensor | None, mask_name: str, other_type: Any, other_name: str,
                    target_type: Any, check_other: bool = True) -> Tensor | None:
    """A bool mask (True = leave out) turned into a float one of target_type (-inf where True);
    a float mask as it is. Warns when the two masks of one call have different dtypes."""
    if mask is None:
        return None
    if mask.dtype is not _dt.bool_ and not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype is not other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use "
                      f"same type for both instead.", stacklevel=3)
    if mask.dtype.is_floating_point:
        return mask
    return zeros(*mask.shape, dtype=target_type).masked_fill(mask, _NEG_INF)


def _none_or_dtype(t: Tensor | None) -> Any:
    return None if t is None else t.dtype


def _mha_shape_check(query: Tensor, key: Tensor, value: Tensor,
                     key_padding_mask: Tensor | None, attn_mask: Tensor | None,
                     num_heads: int) -> bool:
    """True for batched (3-D) inputs, False for unbatched (2-D) ones; AssertionError (PyTorch's
    class) when the inputs and masks disagree on it."""
    if query.dim() not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received "
                             f"{query.dim()}-D query tensor")
    batched = query.dim() == 3
    kind = "batched (3-D)" if batched else "unbatched (2-D)"
    if key.dim() != query.dim() or value.dim() != query.dim():
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be "
                             f"{query.dim()}-D but found {key.dim()}-D and {value.dim()}-D "
                             f"tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != query.dim() - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or "
                             f"{query.dim() - 1}-D but found {key_padding_mask.dim()}-D tensor "
                             f"instead")
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D "
                                 f"or 3-D but found {attn_mask.dim()}-D tensor instead")
        want = (num_heads, query.size(0), key.size(0))
        if not batched and attn_mask.dim() == 3 and tuple(attn_mask.shape) != want:
            raise AssertionError(f"Expected `attn_mask` shape to be {want} but got "
                                 f"{tuple(attn_mask.shape)}")
    return batched


def _split_bias(bias: Tensor | None) -> tuple:
    return (None, None, None) if bias is None else bias.chunk(3)


def _in_projection(query: Tensor, key: Tensor, value: Tensor, weights: tuple,
                   bias: Tensor | None) -> tuple:
    """q, k, v = query W_q^T + b_q, key W_k^T + b_k, value W_v^T + b_v; the biases are the
    thirds of bias. Shapes are checked against the embedding sizes first."""
    e = query.size(-1)
    biases = _split_bias(bias)
    for name, x, w, b in zip(("query", "key", "value"), (query, key, value), weights, biases):
        if tuple(w.shape) != (e, x.size(-1)):
            raise AssertionError(f"expecting {name} weights shape of {(e, x.size(-1))}, but got "
                                 f"{tuple(w.shape)}")
        if b is not None and tuple(b.shape) != (e,):
            raise AssertionError(f"expecting {name} bias shape of {(e,)}, but got "
                                 f"{tuple(b.shape)}")
    return tuple(linear(x, w, b) for x, w, b in zip((query, key, value), weights, biases))


def _packed_projection(query: Tensor, key: Tensor, value: Tensor, weight: Tensor,
                       bias: Tensor | None) -> tuple:
    """The in-projection through one (3E, E) weight; self-attention makes one product."""
    if query is key and key is value:
        return linear(query, weight, bias).chunk(3, -1)
    return _in_projection(query, key, value, weight.chunk(3), bias)


def _check_attn_mask(attn_mask: Tensor, tgt_len: int, src_len: int, bsz: int,
                     num_heads: int) -> Tensor:
    """attn_mask checked against (L, S) or (N * num_heads, L, S), given a leading dim."""
    if attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError(f"The shape of the 2D attn_mask is {tuple(attn_mask.shape)}, but "
                               f"should be {(tgt_len, src_len)}.")
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        want = (bsz * num_heads, tgt_len, src_len)
        if tuple(attn_mask.shape) != want:
            raise RuntimeError(f"The shape of the 3D attn_mask is {tuple(attn_mask.shape)}, but "
                               f"should be {want}.")
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def _pad_key_axis(mask: Tensor | None) -> Tensor | None:
    """mask with one more key position (value 0: it takes part)."""
    return None if mask is None else pad(mask, (0, 1))


def _heads(x: Tensor, length: int, bsz: int, num_heads: int, head_dim: int) -> Tensor:
    """(length, N, E) -> (N * num_heads, length, head_dim): one batch entry per (sample, head)."""
    return x.reshape(length, bsz * num_heads, head_dim).transpose(0, 1)


def _static(name: str, t: Tensor, bsz: int, num_heads: int, head_dim: int) -> Tensor:
    """A precomputed static_k / static_v, checked to be (N * num_heads, S, head_dim)."""
    if t.size(0) != bsz * num_heads:
        raise AssertionError(f"expecting {name}.size(0) of {bsz * num_heads}, but got "
                             f"{t.size(0)}")
    if t.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {t.size(2)}")
    return t


def _check_embedding(query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int,
                     num_heads: int, separate: bool) -> int:
    """head_dim, after checking the embedding size, its split into heads and key vs value."""
    embed_dim = query.size(2)
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads if num_heads > 0 else 0
    if num_heads <= 0 or head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if separate and tuple(key.shape[:2]) != tuple(value.shape[:2]):
        raise AssertionError(f"key's sequence and batch dims {tuple(key.shape[:2])} do not "
                             f"match value's {tuple(value.shape[:2])}")
    if not separate and tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {tuple(key.shape)} does not match value shape "
                             f"{tuple(value.shape)}")
    return head_dim


def _project(query: Tensor, key: Tensor, value: Tensor, separate: bool,
             in_proj_weight: Tensor | None, in_proj_bias: Tensor | None,
             proj_weights: tuple) -> tuple:
    """The in-projection, packed or with separate q/k/v weights."""
    if not separate:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        return _packed_projection(query, key, value, in_proj_weight, in_proj_bias)
    for name, w in zip(("q", "k", "v"), proj_weights):
        if w is None:
            raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is "
                                 f"None")
    return _in_projection(query, key, value, proj_weights, in_proj_bias)


def _append_bias_kv(k: Tensor, v: Tensor, bias_k: Tensor | None, bias_v: Tensor | None,
                    static_k: Tensor | None, static_v: Tensor | None, bsz: int) -> tuple:
    """k and v with bias_k / bias_v appended as one more key position (both or neither)."""
    if bias_k is None and bias_v is None:
        return k, v, False
    if bias_k is None or bias_v is None:
        raise AssertionError(f"bias_{'k' if bias_v is None else 'v'} is set but "
                             f"bias_{'v' if bias_v is None else 'k'} is None")
    if static_k is not None or static_v is not None:
        raise AssertionError(f"bias cannot be added to static "
                             f"{'key' if static_k is not None else 'value'}.")
    return cat([k, bias_k.repeat(1, bsz, 1)]), cat([v, bias_v.repeat(1, bsz, 1)]), True


def _append_zero_attn(k: Tensor, v: Tensor) -> tuple:
    """(N * heads, S, head_dim) k and v with one more key position of zeros."""
    zk = k.new_zeros((k.size(0), 1, k.size(2)))
    zv = v.new_zeros((v.size(0), 1, v.size(2)))
    return cat([k, zk], 1), cat([v, zv], 1)


def _merge_padding(attn_mask: Tensor | None, key_padding_mask: Tensor, bsz: int,
                   num_heads: int, src_len: int) -> Tensor:
    """attn_mask plus the key padding mask, spread over the heads: (N * heads, 1 or L, S)."""
    if tuple(key_padding_mask.shape) != (bsz, src_len):
        raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                             f"{tuple(key_padding_mask.shape)}")
    spread = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(bsz, num_heads, 1, src_len)
    spread = spread.reshape(bsz * num_heads, 1, src_len)
    return spread if attn_mask is None else attn_mask + spread


def _weights_path(q: Tensor, k: Tensor, v: Tensor, attn_mask: Tensor | None,
                  dropout_p: float) -> tuple:
    """Attention with its weights kept: softmax(q k^T / sqrt(d) + mask) (a plain softmax, so a
    row with every key masked is NaN, as in PyTorch), then dropout, then times v."""
    q = q * math.sqrt(1.0 / q.size(-1))
    kt = k.transpose(-2, -1)
    scores = q.bmm(kt) if attn_mask is None else baddbmm(attn_mask, q, kt)
    weights = softmax(scores, -1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p)
    return weights.bmm(v), weights


def multi_head_attention_forward(
        query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
        in_proj_weight: Tensor | None, in_proj_bias: Tensor | None, bias_k: Tensor | None,
        bias_v: Tensor | None, add_zero_attn: bool, dropout_p: float, out_proj_weight: Tensor,
        out_proj_bias: Tensor | None, training: bool = True,
        key_padding_mask: Tensor | None = None, need_weights: bool = True,
        attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False,
        q_proj_weight: Tensor | None = None, k_proj_weight: Tensor | None = None,
        v_proj_weight: Tensor | None = None, static_k: Tensor | None = None,
        static_v: Tensor | None = None, average_attn_weights: bool = True,
        is_causal: bool = False) -> tuple:
    """Multi-head attention over (L, N, E) query and (S, N, E_k / E_v) key and value (or
    unbatched (L, E), (S, E)): project, split into heads, attend, join and project out.
    Returns (output (L, N, E), weights (N, L, S) averaged over heads, (N, heads, L, S) when
    not averaged, or None when need_weights is False). Masks: True (or -inf) leaves a key out."""
    if type(query) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(multi_head_attention_forward, locals())
    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None      # the causal flag alone stands for the mask (same values)
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, False)
        is_causal = is_causal and key_padding_mask is None
    head_dim = _check_embedding(query, key, value, embed_dim_to_check, num_heads,
                                use_separate_proj_weight)
    q, k, v = _project(query, key, value, use_separate_proj_weight, in_proj_weight,
                       in_proj_bias, (q_proj_weight, k_proj_weight, v_proj_weight))
    if attn_mask is not None:
        attn_mask = _check_attn_mask(attn_mask, tgt_len, key.size(0), bsz, num_heads)
    k, v, added = _append_bias_kv(k, v, bias_k, bias_v, static_k, static_v, bsz)
    if added:
        attn_mask, key_padding_mask = _pad_key_axis(attn_mask), _pad_key_axis(key_padding_mask)
    q = _heads(q, tgt_len, bsz, num_heads, head_dim)
    k = _heads(k, k.size(0), bsz, num_heads, head_dim) if static_k is None else \
        _static("static_k", static_k, bsz, num_heads, head_dim)
    v = _heads(v, v.size(0), bsz, num_heads, head_dim) if static_v is None else \
        _static("static_v", static_v, bsz, num_heads, head_dim)
    if add_zero_attn:
        k, v = _append_zero_attn(k, v)
        attn_mask, key_padding_mask = _pad_key_axis(attn_mask), _pad_key_axis(key_padding_mask)
    src_len = k.size(1)
    if key_padding_mask is not None:
        attn_mask = _merge_padding(attn_mask, key_padding_mask, bsz, num_heads, src_len)
    if not training:
        dropout_p = 0.0
    out_dim = out_proj_weight.size(0)
    if need_weights:   # (is_causal without a mask was refused above)
        out, weights = _weights_path(q, k, v, attn_mask, dropout_p)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, out_dim)
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(1)
        return (out, weights) if batched else (out.squeeze(1), weights.squeeze(0))
    if attn_mask is not None:
        attn_mask = attn_mask.unsqueeze(0) if attn_mask.size(0) == 1 else \
            attn_mask.reshape(bsz, num_heads, attn_mask.size(1), src_len)
    q = q.reshape(bsz, num_heads, tgt_len, head_dim)
    k = k.reshape(bsz, num_heads, src_len, head_dim)
    v = v.reshape(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, out_dim)
    return (out, None) if batched else (out.squeeze(1), None)
