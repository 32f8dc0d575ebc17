"""Formulas of the reductions: sums, means, norms, extrema, scans; gradients as expanded views."""


from __future__ import annotations

import math
from typing import Any, Callable

from ..._prims.creation import ones_like, zeros
from ...tensor import Tensor
from ._common import _count, _dims, _zero, defop, recorded, unreduce
from .pointwise import _max_min


# ---- reductions -----------------------------------------------------------------------------

def _dim_of(a: dict) -> Any:
    d = a.get("dim")
    return None if isinstance(d, bool) else d


# (the input's Info: its _shape, a tuple, costs no Size)
defop("sum", "input")(lambda g, a: unreduce(g, a["input"]._shape, a["dim"], a["keepdim"]))
# divided after expanding, as PyTorch: the gradient is a new tensor (a hook may write into it)
defop("mean", "input")(lambda g, a: unreduce(g, a["input"]._shape, a["dim"], a["keepdim"]) /
                       _count(a["input"]._shape, a["dim"]))


def _exclusive_prod(x: Tensor, d: int) -> Tensor:
    """prod of x along d with each element left out (exact with zeros): left * right scans."""
    n = x.shape[d]
    if n == 0:
        return x
    ones = ones_like(x.narrow(d, 0, 1))
    left = recorded.cat([ones, x.narrow(d, 0, n - 1).cumprod(d)], d) if n > 1 else ones
    rx = x.flip(d)
    right = recorded.cat([ones, rx.narrow(d, 0, n - 1).cumprod(d)], d).flip(d) if n > 1 else ones
    return left * right


@defop("prod", "input", "input")
def _prod(g: Tensor, a: dict) -> Tensor:
    x, dim, keep = a["input"], a["dim"], a["keepdim"]
    shape = tuple(x.shape)
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) != 1):
        if x.dim() == 0:
            return g
        flat = x.reshape(-1)
        return unreduce(g, shape, None, keep) * _exclusive_prod(flat, 0).view(shape)
    d = _dims(dim, len(shape))[0] if shape else 0
    if not shape:
        return g
    return unreduce(g, shape, dim, keep) * _exclusive_prod(x, d)


def _evenly(g: Tensor, x: Tensor, r: Tensor, dim: Any, keep: bool) -> Tensor:
    """max/min/amax/amin over dims: the gradient shared evenly among the tied elements."""
    shape = tuple(x.shape)
    ru = unreduce(r, shape, dim, keep)
    mask = (x == ru)
    count = mask.sum(dim if dim is not None else None, keepdim=True) if shape else None
    gu = unreduce(g, shape, dim, keep)
    if count is None:
        return gu
    return recorded.where(mask, gu / count.to(g.dtype), 0.0)


defop("amax", "input", "input result")(
    lambda g, a: _evenly(g, a["input"], a["result"], a["dim"], a["keepdim"]))
defop("amin", "input", "input result")(
    lambda g, a: _evenly(g, a["input"], a["result"], a["dim"], a["keepdim"]))


def _indexed(g: Tensor, shape: tuple, dim: int, indices: Tensor, keep: bool) -> Tensor:
    """values[i] = input[indices[i]] along dim: the gradient scattered back to indices."""
    if not shape:
        return g
    if not keep:
        g, indices = g.unsqueeze(dim), indices.unsqueeze(dim)
    return zeros(tuple(shape), dtype=g.dtype).scatter(dim, indices, g)


def _extreme(g: Any, a: dict) -> Any:
    dim = a["dim"]
    if dim is None:
        return _evenly(g, a["input"], a["result"], None, False)
    _values, _indices = a["result"]
    g0 = g[0] if isinstance(g, list) else g
    return _indexed(g0, tuple(a["input"].shape), int(dim) % max(a["input"].dim(), 1),
                    _saved_indices(a), a["keepdim"])


def _saved_indices(a: dict) -> Tensor:
    return a["result"][1]


def _extreme_or_pairwise(sign: int) -> Callable:
    pair = _max_min(sign)

    def f(g: Any, a: dict) -> tuple:
        if isinstance(a["dim"], Tensor):
            return pair(g, {"input": a["input"], "other": a["dim"]})
        return _extreme(g, a), None
    return f


defop("max", "input dim", "input dim result")(_extreme_or_pairwise(1))
defop("min", "input dim", "input dim result")(_extreme_or_pairwise(-1))


def _correction(a: dict) -> float:
    c, unbiased = a.get("correction"), a.get("unbiased")
    if isinstance(a.get("dim"), bool):
        unbiased = a["dim"]
    if c is None:
        return 1.0 if unbiased is None or unbiased else 0.0
    return float(c)


@defop("var", "input", "input")
def _var(g: Tensor, a: dict) -> Tensor:
    x, dim, keep = a["input"], _dim_of(a), a["keepdim"]
    n = _count(tuple(x.shape), dim)
    centered = x - x.mean(dim, keepdim=True) if x.dim() else x - x
    return unreduce(g, tuple(x.shape), dim, keep) * centered * (2.0 / max(n - _correction(a), 0))


@defop("std", "input", "input result")
def _std(g: Tensor, a: dict) -> Tensor:
    x, dim, keep = a["input"], _dim_of(a), a["keepdim"]
    n = _count(tuple(x.shape), dim)
    centered = x - x.mean(dim, keepdim=True) if x.dim() else x - x
    r = unreduce(a["result"], tuple(x.shape), dim, keep)
    gu = unreduce(g, tuple(x.shape), dim, keep)
    return gu * centered / (r * max(n - _correction(a), 0))


@defop("norm", "input", "input result")
def _norm(g: Tensor, a: dict) -> Tensor:
    return norm_backward(g, a["input"], a["p"], a["dim"], a["keepdim"], a["result"])


@defop("vector_norm", "x", "x result")
def _vector_norm(g: Tensor, a: dict) -> Tensor:
    x, dim = a["x"], a["dim"]
    if dim is not None and not isinstance(dim, int) and len(dim) == 0:
        dim = None
    return norm_backward(g, x, a["ord"], dim, a["keepdim"], a["result"])


def norm_backward(g: Tensor, x: Tensor, p: Any, dim: Any, keep: bool, r: Tensor) -> Tensor:
    """d ||x||_p: x |x|^(p-2) / ||x||^(p-1) (0 where the norm is 0), sign(x) for p = 1, the
    gradient shared among the largest |x| for p = inf."""
    p = 2.0 if p is None or p == "fro" else float(p)
    shape = tuple(x.shape)
    gu, ru = unreduce(g, shape, dim, keep), unreduce(r, shape, dim, keep)
    if p == 0:
        return _zero(x)
    if p == 1:
        return gu * x.sign()
    if p == 2:
        return gu * x / ru.masked_fill(ru == 0, math.inf)
    if math.isinf(p):
        mask = (x.abs() == ru)
        count = mask.sum(dim, keepdim=True) if shape else 1
        return recorded.where(mask, gu * x.sign() / count, 0.0)
    ax = x.abs()
    return gu * x.sign() * ax.pow(p - 1) / ru.pow(p - 1).masked_fill(ru == 0, math.inf)


defop("logsumexp", "input", "input result")(
    lambda g, a: unreduce(g, tuple(a["input"].shape), a["dim"], a["keepdim"]) *
    (a["input"] - unreduce(a["result"], tuple(a["input"].shape), a["dim"], a["keepdim"])).exp())


def _rev_cumsum(g: Tensor, d: int) -> Tensor:
    return g.flip(d).cumsum(d).flip(d)


@defop("cumsum", "input")
def _cumsum(g: Tensor, a: dict) -> Tensor:
    if a["input"].dim() == 0:
        return g
    return _rev_cumsum(g, int(a["dim"]))


@defop("cumprod", "input", "input result")
def _cumprod(g: Tensor, a: dict) -> Tensor:
    x, r = a["input"], a["result"]
    if x.dim() == 0:
        return g
    d = int(a["dim"]) % x.dim()
    if not bool((x == 0).any()):
        return _rev_cumsum(g * r, d) / x
    # with zeros: grad_i = sum_{k >= i} g_k * prod_{j <= k, j != i} x_j, column by column
    n = x.shape[d]
    cols = []
    for i in range(n):
        xi = x.narrow(d, i, n - i)
        rest = recorded.cat([ones_like(x.narrow(d, 0, 1)), xi.narrow(d, 1, n - i - 1)], d)
        prefix = r.narrow(d, i - 1, 1) if i > 0 else ones_like(x.narrow(d, 0, 1))
        prods = prefix * rest.cumprod(d)
        cols.append((g.narrow(d, i, n - i) * prods).sum(d, keepdim=True))
    return recorded.cat(cols, d)


