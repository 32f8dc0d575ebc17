"""pyth.linalg's kernel-backed functions (the namespace is pyth/linalg.py): factorisations,
solvers and norms, as torch.linalg's.

The work happens in C (generic/THTensorLapack.c over OpenBLAS's LAPACK; generic/THTensorNorm.c
for norms), batched over leading dims. Each LAPACK function returns a per-matrix `info`
(as torch.linalg's *_ex functions do); the functions here raise LinAlgError from it with
torch.linalg's messages, naming the failing batch element. Float32 and float64 only (LAPACK's
types); integers and float16 / bfloat16 raise as in PyTorch.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch
from .. import dtypes as _dt
from .._errors import check, not_implemented
from .._ops import as_tensor, new_result, result_of
from .._th import ffi, lib
from ..tensor import Tensor, as_dim
from .pointwise import FUNCTIONS as _pw
from . import recorded


class LinAlgError(RuntimeError):
    """A matrix LAPACK cannot handle: singular, not positive-definite, no convergence."""


# ---- named results ----------------------------------------------------------------------------

class SlogdetResult(NamedTuple):
    sign: Tensor
    logabsdet: Tensor


class QRResult(NamedTuple):
    Q: Tensor
    R: Tensor


class SVDResult(NamedTuple):
    U: Tensor
    S: Tensor
    Vh: Tensor


class EighResult(NamedTuple):
    eigenvalues: Tensor
    eigenvectors: Tensor


class LstsqResult(NamedTuple):
    solution: Tensor
    residuals: Tensor
    rank: Tensor
    singular_values: Tensor


class ResultWithInfo(NamedTuple):
    result: Tensor
    info: Tensor


# ---- checks -----------------------------------------------------------------------------------

def _lapack_dtype(api: str, *tensors: Any, no_kernel: str = "") -> _dt.dtype:
    """The shared float32 / float64 dtype of the inputs, or PyTorch's errors: a RuntimeError
    for a dtype the op refuses, NotImplementedError where PyTorch instead has no kernel for it
    (no_kernel: "i" bool and integer dtypes, "h" float16 and bfloat16)."""
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"{api}: expected a Tensor, got {type(t).__name__}")
    dt = tensors[0].dtype
    kind = "i" if not dt.is_floating_point else "h" if dt.itemsize < 4 else "-"
    if kind in no_kernel:
        raise not_implemented(api, dt, "expected a floating point tensor" if kind == "i" else
                              "Low precision dtypes have no LAPACK kernel")
    if not dt.is_floating_point:
        raise RuntimeError(f"{api}: Expected a floating point or complex tensor as input. "
                           f"Got {dt.real}")
    if dt.itemsize < 4:
        raise RuntimeError(f"{api}: Low precision dtypes not supported. Got {dt.real}")
    for t in tensors[1:]:
        if t.dtype is not dt:
            raise RuntimeError(f"{api}: Expected A and B to have the same dtype, but found A of "
                               f"type {dt.real} and B of type {t.dtype.real} instead")
    return dt


def _floating(api: str, x: Any) -> _dt.dtype:
    if not isinstance(x, Tensor):
        raise TypeError(f"{api}: expected a Tensor, got {type(x).__name__}")
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"{api}: Expected a floating point or complex tensor as input. "
                           f"Got {x.dtype.real}")
    return x.dtype


# What LAPACK's info > 0 means, per routine (torch.linalg's wording).
_FAILURES = {
    "inv": "The diagonal element {info} is zero, the inversion could not be completed because "
           "the input matrix is singular.",
    "solve": "The solver failed because the input matrix is singular.",
    "cholesky": "The factorization could not be completed because the input is not "
                "positive-definite (the leading minor of order {info} is not positive-definite).",
    "svd": "The algorithm failed to converge because the input matrix is ill-conditioned or has "
           "too many repeated singular values (error code: {info}).",
    "eigh": "The algorithm failed to converge because the input matrix is ill-conditioned or has "
            "too many repeated eigenvalues (error code: {info}).",
    "lstsq": "The least squares solution could not be computed because the input matrix does "
             "not have full rank (error code: {info}).",
}


def _check_info(api: str, kind: str, info: Tensor, batched: bool) -> None:
    """Raise LinAlgError for the first matrix whose LAPACK info reports a failure."""
    codes = info.numpy().reshape(-1)
    bad = np.flatnonzero(codes)
    if bad.size == 0:
        return
    i, code = int(bad[0]), int(codes[bad[0]])
    where = f"{api}: (Batch element {i}): " if batched else f"{api}: "
    if code == lib.TH_LINALG_INFO_NONFINITE:
        raise LinAlgError(where + "The algorithm failed to converge because the input matrix "
                          "contained non-finite values.")
    if code < 0:
        raise RuntimeError(where + f"Argument {-code} has illegal value. Most certainly there is "
                           "a bug in the implementation calling the backend library.")
    raise LinAlgError(where + _FAILURES[kind].format(info=code))


def _info() -> Tensor:
    return new_result(_dt.int32)


def _broadcast_shapes(a: Sequence[int], b: Sequence[int], api: str) -> tuple:
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    out = []
    for d, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"{api}: The size of tensor a ({x}) must match the size of tensor "
                               f"b ({y}) at non-singleton dimension {d}")
        out.append(y if x == 1 else x)
    return tuple(out)


def _matrix_t(t: Tensor) -> Tensor:
    return t.transpose(-2, -1)


def _eps(dt: _dt.dtype) -> float:
    return float(np.finfo(dt.to_numpy()).eps)


# ---- solvers and inverses ---------------------------------------------------------------------

def _batched_pair(api: str, A: Tensor, B: Tensor, vector: bool) -> tuple:
    """A (*, n, n) and B (*, n, k) (B a batch of vectors when `vector`) expanded to one batch
    shape, as LAPACK's batched calls need."""
    Bm = B.unsqueeze(-1) if vector else B
    if Bm.dim() < 2 or Bm.shape[-2] != A.shape[-2]:
        shape = "x".join(str(s) for s in Bm.shape[-2:])
        raise RuntimeError(f"{api}: Incompatible shapes of A and B for the equation AX = B "
                           f"({A.shape[-2]}x{A.shape[-1]} and {shape})")
    batch = _broadcast_shapes(A.shape[:-2], Bm.shape[:-2], api)
    return A.expand(batch + tuple(A.shape[-2:])), Bm.expand(batch + tuple(Bm.shape[-2:]))


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True,
             check_errors: bool = False) -> ResultWithInfo:
    """solve() returning (result, info) instead of raising on singular matrices."""
    api = "torch.linalg.solve"
    dt = _lapack_dtype(api, A, B, no_kernel="h")
    if A.dim() < 2:
        raise RuntimeError(f"{api}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{api}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if not left:
        X, info = solve_ex(_matrix_t(A), _matrix_t(B), check_errors=check_errors)
        return ResultWithInfo(_matrix_t(X), info)
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and B.shape == A.shape[:-1])
    Ae, Be = _batched_pair(api, A, B, vector)
    X, info = new_result(dt), _info()
    check(dt.tensor.linalgSolve(X._h, info._h, Ae._h, Be._h))
    if check_errors:
        _check_info(api, "solve", info, Ae.dim() > 2)
    return ResultWithInfo(X.squeeze(-1) if vector else X, info)


def solve(A: Tensor, B: Tensor, *, left: bool = True, out: Tensor | None = None) -> Tensor:
    """X with A X = B (X A = B when left=False) for square A; B may be a (batch of) vector(s)."""
    return result_of("linalg.solve", solve_ex(A, B, left=left, check_errors=True).result, out)


def inv_ex(A: Tensor, *, check_errors: bool = False) -> ResultWithInfo:
    """inv() returning (result, info) instead of raising on singular matrices."""
    dt = _lapack_dtype("linalg.inv", A)
    r, info = new_result(dt), _info()
    check(dt.tensor.linalgInv(r._h, info._h, A._h))
    if check_errors:
        _check_info("linalg.inv", "inv", info, A.dim() > 2)
    return ResultWithInfo(r, info)


def inv(A: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The inverse of a square matrix (or of each in a batch); LinAlgError when singular."""
    return result_of("linalg.inv", inv_ex(A, check_errors=True).result, out)


def det(A: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The determinant of a square matrix (batched), from its LU factorisation."""
    dt = _lapack_dtype("linalg.det", A, no_kernel="h")
    r = new_result(dt)
    check(dt.tensor.linalgDet(r._h, ffi.NULL, ffi.NULL, A._h))
    return result_of("linalg.det", r, out)


def slogdet(A: Tensor) -> SlogdetResult:
    """(sign, log|det|) of a square matrix: the determinant without overflow or underflow."""
    dt = _lapack_dtype("linalg.slogdet", A)
    sign, logabsdet = new_result(dt), new_result(dt)
    check(dt.tensor.linalgDet(ffi.NULL, sign._h, logabsdet._h, A._h))
    return SlogdetResult(sign, logabsdet)


def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False) -> ResultWithInfo:
    """cholesky() returning (L, info) instead of raising on non-positive-definite input."""
    dt = _lapack_dtype("linalg.cholesky", A, no_kernel="h")
    r, info = new_result(dt), _info()
    check(dt.tensor.linalgCholesky(r._h, info._h, A._h, bool(upper)))
    if check_errors:
        _check_info("linalg.cholesky", "cholesky", info, A.dim() > 2)
    return ResultWithInfo(r, info)


def cholesky(A: Tensor, *, upper: bool = False, out: Tensor | None = None) -> Tensor:
    """L with A = L L^T (U with A = U^T U when upper) for symmetric positive-definite A; reads
    only that triangle of A. LinAlgError when A is not positive-definite."""
    return result_of("linalg.cholesky", cholesky_ex(A, upper=upper, check_errors=True).result,
                     out)


def cholesky_solve(B: Tensor, L: Tensor, upper: bool = False, *,
                   out: Tensor | None = None) -> Tensor:
    """X with A X = B, given A's Cholesky factor L (or U when upper), as torch.cholesky_solve."""
    api = "cholesky_solve"
    dt = _lapack_dtype(api, L, B, no_kernel="ih")
    Le, Be = _batched_pair(api, L, B, False)
    X = new_result(dt)
    check(dt.tensor.choleskySolve(X._h, Be._h, Le._h, bool(upper)))
    return result_of(api, X, out)


# ---- factorisations ---------------------------------------------------------------------------

_QR_MODES = {"reduced": lib.TH_QR_REDUCED, "complete": lib.TH_QR_COMPLETE, "r": lib.TH_QR_R}


def qr(A: Tensor, mode: str = "reduced") -> QRResult:
    """A = Q R, Q with orthonormal columns, R upper triangular. mode 'reduced' (Q: m x k,
    R: k x n, k = min(m, n)), 'complete' (Q: m x m, R: m x n) or 'r' (R only; Q empty)."""
    dt = _lapack_dtype("linalg.qr", A, no_kernel="h")
    if mode not in _QR_MODES:
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           f"'reduced' (default), 'r', or 'complete'")
    q, r = new_result(dt), new_result(dt)
    check(dt.tensor.linalgQr(q._h, r._h, A._h, _QR_MODES[mode]))
    return QRResult(q, r)


def _svd(A: Tensor, full_matrices: bool, compute_uv: bool, api: str) -> SVDResult:
    dt = _lapack_dtype(api, A, no_kernel="h")
    u, s, vh, info = new_result(dt), new_result(dt), new_result(dt), _info()
    check(dt.tensor.linalgSvd(u._h, s._h, vh._h, info._h, A._h, bool(full_matrices),
                              bool(compute_uv)))
    _check_info(api, "svd", info, A.dim() > 2)
    return SVDResult(u, s, vh)


def svd(A: Tensor, full_matrices: bool = True, *, driver: str | None = None) -> SVDResult:
    """A = U diag(S) Vh with S descending (LAPACK gesdd). full_matrices=False gives the reduced
    U (m x k) and Vh (k x n), k = min(m, n)."""
    return _svd(A, full_matrices, True, "linalg.svd")


def svdvals(A: Tensor, *, driver: str | None = None, out: Tensor | None = None) -> Tensor:
    """The singular values of A, descending (no singular vectors are computed)."""
    return result_of("linalg.svdvals", _svd(A, False, False, "linalg.svd").S, out)


def _uplo(UPLO: str) -> bool:
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return UPLO == "U"


def _eigh(A: Tensor, UPLO: str, compute_v: bool, api: str) -> EighResult:
    dt = _lapack_dtype(api, A, no_kernel="ih")
    upper = _uplo(UPLO)
    w, v, info = new_result(dt), new_result(dt), _info()
    check(dt.tensor.linalgEigh(w._h, v._h, info._h, A._h, upper, compute_v))
    _check_info(api, "eigh", info, A.dim() > 2)
    return EighResult(w, v)


def eigh(A: Tensor, UPLO: str = "L") -> EighResult:
    """Eigenvalues (ascending) and orthonormal eigenvectors (columns) of a symmetric matrix,
    reading its lower (UPLO='L') or upper triangle."""
    return _eigh(A, UPLO, True, "linalg.eigh")


def eigvalsh(A: Tensor, UPLO: str = "L", *, out: Tensor | None = None) -> Tensor:
    """The eigenvalues of a symmetric matrix, ascending."""
    return result_of("linalg.eigvalsh", _eigh(A, UPLO, False, "linalg.eigh").eigenvalues, out)


_LSTSQ_DRIVERS = {"gels": lib.TH_LSTSQ_GELS, "gelsy": lib.TH_LSTSQ_GELSY,
                  "gelsd": lib.TH_LSTSQ_GELSD, "gelss": lib.TH_LSTSQ_GELSS}


def lstsq(A: Tensor, B: Tensor, rcond: float | None = None, *,
          driver: str | None = None) -> LstsqResult:
    """The least-squares solution of A X = B (minimum norm when underdetermined). driver:
    'gelsy' (default: QR with pivoting, any rank), 'gels' (QR, full rank), 'gelsd' / 'gelss'
    (SVD: also give singular_values). residuals are filled when m > n and A has full rank
    (not with gelsy), rank by every driver but gels; unused fields are empty."""
    api = "torch.linalg.lstsq"
    dt = _lapack_dtype(api, A, B)
    if A.dim() < 2:
        raise RuntimeError(f"{api}: input must have at least 2 dimensions.")
    name = "gelsy" if driver is None else driver
    if name not in _LSTSQ_DRIVERS:
        raise RuntimeError(f"{api}: parameter `driver` should be one of "
                           f"(gels, gelsy, gelsd, gelss)")
    if not 0 <= A.dim() - B.dim() <= 1:
        raise RuntimeError(f"{api}: input.dim() must be greater or equal to other.dim() and "
                           f"(input.dim() - other.dim()) <= 1")
    vector = B.dim() == A.dim() - 1
    Bm = B.unsqueeze(-1) if vector else B
    if Bm.dim() < 2 or Bm.shape[-2] != A.shape[-2]:
        raise RuntimeError(f"{api}: input.size(-2) should match other.size(-2)")
    batch = _broadcast_shapes(A.shape[:-2], Bm.shape[:-2], api)
    Ae, Be = A.expand(batch + tuple(A.shape[-2:])), Bm.expand(batch + tuple(Bm.shape[-2:]))
    m, n = A.shape[-2], A.shape[-1]
    if rcond is None:
        rcond = _eps(dt) * max(m, n)
    x, res, sv, info = new_result(dt), new_result(dt), new_result(dt), _info()
    rank = new_result(_dt.int64)
    check(dt.tensor.linalgLstsq(x._h, res._h, rank._h, sv._h, info._h, Ae._h, Be._h,
                                _LSTSQ_DRIVERS[name], float(rcond)))
    _check_info(api, "lstsq", info, Ae.dim() > 2)
    return LstsqResult(x.squeeze(-1) if vector else x, res, rank, sv)


# ---- norms and rank ---------------------------------------------------------------------------

def _dims(dim: Any, op: str) -> list:
    if dim is None:
        return []
    if isinstance(dim, (int, np.integer)):
        return [as_dim(dim, op)]
    if not isinstance(dim, (tuple, list)):
        raise TypeError(f"{op}(): argument 'dim' must be tuple of ints, not "
                        f"{type(dim).__name__}")
    return [as_dim(d, op) for d in dim]


def vector_norm(x: Tensor, ord: float = 2, dim: Any = None, keepdim: bool = False, *,
                dtype: _dt.dtype | None = None, out: Tensor | None = None) -> Tensor:
    """The vector ord-norm of x over dim (all elements when None): 2, 1, inf (max |x|), -inf,
    0 (count of nonzeros) or any real p, as torch.linalg.vector_norm."""
    api = "linalg.vector_norm"
    if isinstance(ord, str) or not isinstance(ord, (int, float, np.number)):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' must be Number, not "
                        f"{type(ord).__name__}")
    _floating(api, x)
    if dtype is not None:
        x = x.to(dtype)
    dims = _dims(dim, "linalg.vector_norm")
    if dim is not None and not dims and x.dim() > 0:
        dims = list(range(x.dim()))
    r = new_result(x.dtype)
    cdims = ffi.new("int[]", dims) if dims else ffi.NULL
    check(x.dtype.tensor.linalgVectorNorm(r._h, x._h, _dt.float64.to_c(ord), len(dims), cdims,
                                          bool(keepdim)))
    return result_of(api, r, out)


_MATRIX_ORDS = ("fro", "nuc", math.inf, -math.inf, 1, -1, 2, -2)


def matrix_norm(A: Tensor, ord: Any = "fro", dim: Any = (-2, -1), keepdim: bool = False, *,
                dtype: _dt.dtype | None = None, out: Tensor | None = None) -> Tensor:
    """A matrix norm over the two dims: 'fro', 'nuc' (sum of singular values), 2 / -2 (largest
    / smallest singular value), 1 / -1 (max / min column sum of |a|), inf / -inf (row sums)."""
    if type(A) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(matrix_norm, locals())
    api = "linalg.matrix_norm"
    _floating(api, A)
    if dtype is not None:
        A = A.to(dtype)
    if A.dim() < 2:
        raise RuntimeError(f"{api}: The input tensor A must have at least 2 dimensions.")
    dims = _dims(dim, "linalg.matrix_norm")
    if len(dims) != 2:
        raise RuntimeError(f"{api}: dim must be a 2-tuple. Got {' '.join(map(str, dims))}")
    d0, d1 = (d % A.dim() for d in dims)
    if d0 == d1:
        raise RuntimeError(f"{api}: dims must be different. Got ({dims[0]}, {dims[1]})")
    if ord not in _MATRIX_ORDS:
        raise RuntimeError(f"{api}: Order {ord} not supported.")
    if ord == "fro":
        return recorded.vector_norm(A, 2, (d0, d1), keepdim, out=out)
    if ord in ("nuc", 2, -2):
        rest = [d for d in range(A.dim()) if d not in (d0, d1)]
        S = recorded.svdvals(A.permute(*rest, d0, d1))
        r = recorded.vector_norm(S, {"nuc": 1, 2: math.inf, -2: -math.inf}[ord], -1)
        if keepdim:
            for d in sorted((d0, d1)):
                r = r.unsqueeze(d)
    else:
        first, then = (d0, d1) if ord in (1, -1) else (d1, d0)
        r = recorded.vector_norm(A, 1, first, True)
        r = recorded.vector_norm(r, math.inf if ord > 0 else -math.inf, then, True)
        if not keepdim:
            r = r.squeeze(max(d0, d1)).squeeze(min(d0, d1))
    return result_of(api, r, out)


def norm(A: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False, *,
         out: Tensor | None = None, dtype: _dt.dtype | None = None) -> Tensor:
    """A vector or matrix norm, as torch.linalg.norm: a matrix norm over two dims (or a 2-D input
    with ord given), a vector norm otherwise (all elements when neither dim nor ord is given)."""
    if type(A) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(norm, locals())
    api = "linalg.norm"
    dims = _dims(dim, "linalg.norm")
    if dim is not None and len(dims) == 2:
        return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype, out=out)
    if dim is not None:
        return recorded.vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype, out=out)
    if ord is None:
        return recorded.vector_norm(A, 2, None, keepdim, dtype=dtype, out=out)
    if A.dim() not in (1, 2):
        raise RuntimeError(f"{api}: If dim is not specified but ord is, the input must be 1D or "
                           f"2D. Got {A.dim()}D.")
    if A.dim() == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype, out=out)
    return recorded.vector_norm(A, ord, None, keepdim, dtype=dtype, out=out)


def matrix_rank(A: Tensor, *, atol: Any = None, rtol: Any = None, hermitian: bool = False,
                tol: Any = None, out: Tensor | None = None) -> Tensor:
    """The number of singular values (|eigenvalues| when hermitian) above
    max(atol, rtol * largest); rtol defaults to eps * max(m, n) when neither is given."""
    if type(A) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(matrix_rank, locals())
    gt, maximum, mul = _pw["gt"], recorded.maximum, recorded.mul
    api = "linalg.matrix_rank"
    dt = _lapack_dtype(api, A)
    if A.dim() < 2:
        raise RuntimeError(f"{api}: The input tensor A must have at least 2 dimensions.")
    if tol is not None:
        atol, rtol = tol, 0.0
    m, n = A.shape[-2], A.shape[-1]
    if min(m, n) == 0:
        from .creation import zeros
        return result_of(api, zeros(tuple(A.shape[:-2]), dtype=_dt.int64), out)
    S = recorded.eigvalsh(A).abs() if hermitian else recorded.svdvals(A)
    if atol is None and rtol is None:
        rtol = _eps(dt) * max(m, n)
    elif rtol is None:
        rtol = 0.0 if (not isinstance(atol, (int, float)) or atol > 0) else _eps(dt) * max(m, n)
    smax = recorded.vector_norm(S, math.inf, -1, True)
    threshold = mul(smax, rtol)
    if atol is not None:
        threshold = maximum(threshold, atol if isinstance(atol, Tensor) else
                            _full_like(threshold, atol))
    rank = recorded.vector_norm(gt(S, threshold).to(dt), 0, -1).to(_dt.int64)
    return result_of(api, rank, out)


def _full_like(t: Tensor, value: float) -> Tensor:
    from .creation import full_like
    return full_like(t, value)


def pinv(A: Tensor, *, atol: Any = None, rtol: Any = None, hermitian: bool = False,
         out: Tensor | None = None) -> Tensor:
    """Moore-Penrose pseudo-inverse through the SVD, singular values below
    max(atol, rtol * largest) treated as zero (rtol default: eps * max(m, n) when atol is None)."""
    if A.dim() < 2:
        raise RuntimeError("linalg.pinv(A): The input tensor A must have at least 2 dimensions.")
    _lapack_dtype("linalg.pinv", A)  # refuses float16 itself, where svd has no kernel
    U, S, Vh = svd(A, full_matrices=False)
    smax = S.amax(-1, keepdim=True) if S.numel() else S
    eps = _eps(A.dtype)
    if rtol is None:
        rtol = 0.0 if atol is not None and not _is_zero(atol) else eps * max(A.size(-2),
                                                                           A.size(-1))
    limit = _pw["mul"](smax, rtol)
    if atol is not None:
        limit = _pw["maximum"](limit, as_tensor(atol, S.dtype) if not isinstance(atol, Tensor)
                             else atol.to(S.dtype).unsqueeze(-1))
    keep = _pw["gt"](S, limit)
    inv_s = _pw["where"](keep, _pw["reciprocal"](S), as_tensor(0.0, S.dtype))
    r = _pw["mul"](Vh.mT, inv_s.unsqueeze(-2)).matmul(U.mT)
    return result_of("linalg.pinv", r, out)


def _is_zero(x: Any) -> bool:
    return not isinstance(x, Tensor) and x == 0


FUNCTIONS = {
    "solve": solve, "solve_ex": solve_ex, "inv": inv, "inv_ex": inv_ex, "det": det,
    "slogdet": slogdet, "cholesky": cholesky, "cholesky_ex": cholesky_ex, "qr": qr, "svd": svd,
    "svdvals": svdvals, "eigh": eigh, "eigvalsh": eigvalsh, "lstsq": lstsq, "norm": norm,
    "vector_norm": vector_norm, "matrix_norm": matrix_norm, "matrix_rank": matrix_rank,
    "pinv": pinv,
}

# Top-level pyth functions and Tensor methods PyTorch also has outside torch.linalg.
TOPLEVEL = {"det": det, "logdet": None, "slogdet": slogdet, "inverse": inv,
            "cholesky_solve": cholesky_solve}


def logdet(A: Tensor) -> Tensor:
    """log(det(A)): NaN for a negative determinant, -inf for a singular matrix."""
    if type(A) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(logdet, locals())
    _lapack_dtype("logdet", A)  # refuses float16 itself, where det has no kernel for it
    return recorded.log(recorded.det(A))


TOPLEVEL["logdet"] = logdet


METHODS: dict[str, Any] = dict(TOPLEVEL)
