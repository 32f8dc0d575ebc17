"""Scaled dot-product attention on the THNN kernel (generic/THNNAttention.c): query (B, H, L, E),
key and value (B, Hk, S, .) with Hk dividing H (grouped-query attention), an optional float
bias (B, H, L, S) of any strides and the causal flag. The forward is one blocked C call that
keeps a tile of the scores at a time; the node's plain backward is the C adjoint (scores
recomputed from the saved logsumexp), its formula the composed attention recomputed and
differentiated, so second derivatives exist."""

from __future__ import annotations

from typing import Callable

from .. import dtypes as _dt
from .._errors import check
from .._ops import new_result
from .._th import ffi, lib
from ..autograd import enable_grad, grad
from ..autograd.record import Op, next_edges, record_node
from ..tensor import Tensor

# dtype -> (updateOutput, updateGradInput)
KERNELS: dict[_dt.dtype, tuple] = {
    dt: (getattr(lib, f"THNN_{name}Attention_updateOutput"),
         getattr(lib, f"THNN_{name}Attention_updateGradInput"))
    for dt, name in ((_dt.float32, "Float"), (_dt.float64, "Double"))}


def _attention_backward(g: Tensor, a: dict) -> list:
    """The gradients by differentiating the recomputed composed attention with create_graph
    (recorded, so they differentiate again)."""
    ins = [a["query"], a["key"], a["value"], a.get("attn_mask")]
    needs = a["needs"]
    with enable_grad():
        ins = [x.view_as(x) if need else x for x, need in zip(ins, needs)]
        wanted = [x for x, need in zip(ins, needs) if need]
        got = iter(grad([a["compose"](*ins)], wanted, [g], create_graph=True,
                        allow_unused=True, materialize_grads=True))
    return [next(got) if need else None for need in needs]


def _attention_first(g: Tensor, a: dict) -> list:
    """The same gradients by the C adjoint: q, k, v (and the bias) in one blocked pass."""
    dt = a["dtype"]
    g = g if g.dtype is dt else g.to(dt)
    needs = a["needs"]
    gq, gk, gv = new_result(dt), new_result(dt), new_result(dt)
    gm = new_result(dt) if needs[3] else None
    mask = a.get("attn_mask")
    check(KERNELS[dt][1](gq._h, gk._h, gv._h, gm._h if gm is not None else ffi.NULL, g._h,
                         a["query"]._h, a["key"]._h, a["value"]._h,
                         mask._h if mask is not None else ffi.NULL, a["result"]._h,
                         a["lse"]._h, a["causal"], a["scale"]))
    return [x if need else None for x, need in zip((gq, gk, gv, gm), needs)]


ATTENTION = Op("scaled_dot_product_attention", "query key value attn_mask",
               _attention_backward, node="ScaledDotProductAttentionBackward0",
               first=_attention_first)


def attention(query: Tensor, key: Tensor, value: Tensor, mask: Tensor | None, causal: bool,
              scale: float, compose: Callable) -> Tensor:
    """softmax(query key^T scale + mask) value by the kernel, (B, H, L, Ev), recorded as one
    node when an input requires grad; compose(query, key, value, mask) is the same attention
    in recorded ops, for the formula."""
    dt = query.dtype
    out, lse = new_result(dt), new_result(dt)
    flag = 1 if causal else 0
    check(KERNELS[dt][0](out._h, lse._h, query._h, key._h, value._h,
                         mask._h if mask is not None else ffi.NULL, flag, float(scale)))
    edges = next_edges(query, key, value, mask)
    if edges is not None:
        record_node(ATTENTION, edges, out,
                    {"query": query, "key": key, "value": value, "attn_mask": mask,
                     "result": out},
                    {"dtype": dt, "lse": lse, "causal": flag, "scale": float(scale),
                     "compose": compose})
    return out
