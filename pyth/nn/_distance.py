"""Distance functions: F.pairwise_distance, F.cosine_similarity and F.pdist, composed of
differentiable tensor ops (PyTorch's formulas, so the same values and gradients)."""

from __future__ import annotations

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch
from ..autograd.recorded import vector_norm, where
from .._promotion import result_type
from .._refs.creation import triu_indices
from .._refs.shape import broadcast_tensors
from ..autograd import no_grad
from ..tensor import Tensor


def _floating_pair(op: str, x1: Tensor, x2: Tensor) -> tuple:
    """x1 and x2 in their common dtype, RuntimeError unless it is floating."""
    dtype = result_type(x1, x2)
    if not dtype.is_floating_point:
        raise RuntimeError(f"{op}: expected common dtype to be floating point, yet common dtype "
                           f"is {dtype}")
    return x1.to(dtype), x2.to(dtype)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """The cosine of the angle between x1 and x2 (broadcast together) along dim: each divided by
    its 2-norm (held at least eps) first, then their product summed. As PyTorch, the floor on
    the norms takes no part in the gradient."""
    if type(x1) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(cosine_similarity, locals())
    x1, x2 = _floating_pair("cosine_similarity", x1, x2)
    x1, x2 = broadcast_tensors(x1, x2)
    n1 = vector_norm(x1, 2, dim=dim, keepdim=True).clone()
    n2 = vector_norm(x2, 2, dim=dim, keepdim=True).clone()
    with no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """The p-norm of x1 - x2 + eps over the last dim (x1 and x2 broadcast together)."""
    if type(x1) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(pairwise_distance, locals())
    inner = max(x1.dim(), x2.dim()) - 1
    return (x1 - x2 + eps).norm(p, inner, keepdim=keepdim)


def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """The p-norm distance between every pair of rows i < j of an (N, M) input, in row-major
    order of the pairs: N * (N - 1) / 2 values."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(pdist, locals())
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"pdist only supports floating-point dtypes, got "
                           f"{input.dtype.real}")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.size(0)
    pairs = triu_indices(n, n, 1)
    diff = input.index_select(0, pairs[0]) - input.index_select(0, pairs[1])
    return _safe_norm(diff, float(p))


def _safe_norm(diff: Tensor, p: float) -> Tensor:
    """The p-norm of each row, whose gradient at a zero row is zero (as PyTorch's pdist)."""
    if p == 0:
        return (diff != 0).to(diff.dtype).sum(1)
    if diff.size(1) == 0:             # empty rows are 0 apart, whatever the norm
        return diff.sum(1)
    nonzero = (diff != 0).any(1, keepdim=True)
    safe = where(nonzero, diff, diff * 0 + 1)
    norms = safe.norm(p, 1)
    return where(nonzero.squeeze(1), norms, norms * 0)
