"""PyTorch's older top-level LAPACK names, as thin forms of pyth.linalg: cholesky, qr, svd
(V, not Vh), triangular_solve, cholesky_inverse, svd_lowrank / pca_lowrank (randomised range
finder), and the removed Tensor methods (eig, symeig, lstsq, solve) that raise as PyTorch's do."""

from __future__ import annotations

from collections import namedtuple
from typing import Any, Callable

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch
from .. import dtypes as _dt
from .._prims import linalg as _la
from .._ops import as_method, result_of
from .._prims.creation import zeros
from ..autograd.recorded import POINTWISE as P
from ..random import randn
from ..tensor import Tensor
from ..autograd import recorded


_SVD = namedtuple("svd", ["U", "S", "V"])
_QR = namedtuple("qr", ["Q", "R"])
_TRI = namedtuple("triangular_solve", ["solution", "cloned_coefficient"])


def cholesky(input: Tensor, upper: bool = False, *, out: Tensor | None = None) -> Tensor:
    """Cholesky factor (lower, or upper with upper=True) of symmetric positive-definite input."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(cholesky, locals())
    _la._lapack_dtype("cholesky", input, no_kernel="ih")  # no integer kernel, unlike linalg's
    return recorded.cholesky(input, upper=upper, out=out)


def cholesky_inverse(L: Tensor, upper: bool = False, *, out: Tensor | None = None) -> Tensor:
    """The inverse of A from its Cholesky factor L."""
    from .linalg import _eye_like
    _la._lapack_dtype("cholesky_inverse", L, no_kernel="ih")
    return result_of("cholesky_inverse", recorded.cholesky_solve(_eye_like(L), L, upper), out)


def qr(input: Tensor, some: bool = True, *, out: Any = None) -> Any:
    """Q, R with input = Q R (reduced when some=True)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(qr, locals())
    q, r = recorded.qr(input, "reduced" if some else "complete")
    return _QR(q, r)


def svd(input: Tensor, some: bool = True, compute_uv: bool = True, *, out: Any = None) -> Any:
    """U, S, V with input = U diag(S) V^T (V, not Vh; thin when some=True)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(svd, locals())
    if not compute_uv:
        S = recorded.svdvals(input)
        m, n = input.size(-2), input.size(-1)
        shape = list(input.size())[:-2]
        return _SVD(zeros(*shape, m, m if not some else min(m, n), dtype=input.dtype), S,
                    zeros(*shape, n, n if not some else min(m, n), dtype=input.dtype))
    U, S, Vh = recorded.svd(input, full_matrices=not some)
    return _SVD(U, S, Vh.mT)


def triangular_solve(b: Tensor, A: Tensor, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False, *, out: Any = None) -> Any:
    """(X, copy of A) with A X = b (A^T X = b when transpose=True), A triangular."""
    from .linalg import solve_triangular
    _la._lapack_dtype("triangular_solve", A, b, no_kernel="ih")
    M = A.mT if transpose else A
    x = solve_triangular(M, b, upper=upper != transpose, unitriangular=unitriangular)
    return _TRI(x, A.clone())


def svd_lowrank(A: Tensor, q: int | None = 6, niter: int = 2, M: Tensor | None = None) -> Any:
    """Approximate rank-q SVD (U, S, V) by a randomised range finder with niter power steps."""
    if type(A) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(svd_lowrank, locals())
    if not A.dtype.is_floating_point or A.dtype is _dt.bfloat16:
        # PyTorch fails on A's product with its float32 random matrix; float16 reaches qr
        raise RuntimeError(f"svd_lowrank: expected a float16, float32 or float64 tensor, got "
                           f"{A.dtype.real}")
    q = 6 if q is None else q
    X = A if M is None else P["sub"](A, M)
    m, n = X.size(-2), X.size(-1)
    q = min(q, m, n)
    G = randn(*list(X.size())[:-2], n, q, dtype=X.dtype)
    Q = recorded.qr(X.matmul(G)).Q
    for _ in range(niter):
        Q = recorded.qr(X.mT.matmul(Q)).Q
        Q = recorded.qr(X.matmul(Q)).Q
    B = Q.mT.matmul(X)
    U, S, Vh = recorded.svd(B, full_matrices=False)
    return _SVD(Q.matmul(U), S, Vh.mT)


def pca_lowrank(A: Tensor, q: int | None = None, center: bool = True, niter: int = 2) -> Any:
    """Principal components (U, S, V) of A's rows, centred by default, via svd_lowrank."""
    if type(A) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(pca_lowrank, locals())
    q = min(6, A.size(-2), A.size(-1)) if q is None else q
    M = A.mean(-2, keepdim=True).expand(*A.size()) if center else None
    return svd_lowrank(A, q, niter, M)


def _removed(name: str, replacement: str) -> Callable:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"This function was deprecated since version 1.9 and is now removed. "
                           f"Please use the `{replacement}` function instead.")
    method.__name__ = name
    method.__doc__ = f"Removed from PyTorch (raises, as it does there): use {replacement}."
    return method


FUNCTIONS: dict[str, Callable] = {
    "cholesky": cholesky, "cholesky_inverse": cholesky_inverse, "qr": qr, "svd": svd,
    "triangular_solve": triangular_solve, "svd_lowrank": svd_lowrank,
    "pca_lowrank": pca_lowrank,
}

METHODS: dict[str, Any] = {n: as_method(FUNCTIONS[n]) for n in (
    "cholesky", "cholesky_inverse", "qr", "svd", "triangular_solve")}
METHODS.update(eig=_removed("eig", "torch.linalg.eig"),
               symeig=_removed("symeig", "torch.linalg.eigh"),
               lstsq=_removed("lstsq", "torch.linalg.lstsq"),
               solve=_removed("solve", "torch.linalg.solve"))
