"""Linear algebra additions, composed from pyth.linalg's LAPACK-backed functions and the BLAS
products: pinv, matrix_power, multi_dot (cheapest bracketing), matmul, cross, vecdot,
diagonal, vander, cond, matrix_exp, tensorinv / tensorsolve, solve_triangular, and, at the top
level, matrix_power, chain_matmul, tensordot, inner, cdist, block_diag, pinverse. linalg.eig /
eigvals need complex results, which pyth lacks: they raise a clear error."""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch
from .. import dtypes as _dt
from .._prims import linalg as _la
from .._errors import not_implemented
from .._ops import as_method, as_tensor, result_of
from .._prims.creation import eye, zeros
from ..autograd.recorded import POINTWISE as P, cat, cumprod, matmul as mm, tril, triu, vector_norm
from .._promotion import result_type
from ..tensor import Tensor
from ..autograd import recorded


def _square(api: str, A: Tensor) -> None:
    if A.dim() < 2:
        raise RuntimeError(f"{api}: The input tensor A must have at least 2 dimensions.")
    if A.size(-1) != A.size(-2):
        raise RuntimeError(f"{api}: A must be batches of square matrices, but they are "
                           f"{A.size(-2)} by {A.size(-1)} matrices")


def _eye_like(A: Tensor) -> Tensor:
    n = A.size(-1)
    return eye(n, dtype=A.dtype).expand(*A.size()).contiguous()


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """Pseudo-inverse, singular values below rcond * largest treated as zero."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(pinverse, locals())
    return recorded.pinv(input, rtol=rcond)


def matrix_power(A: Tensor, n: int, *, out: Tensor | None = None) -> Tensor:
    """A multiplied by itself n times (n < 0: the inverse's power; n = 0: identity)."""
    if type(A) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(matrix_power, locals())
    _square("linalg.matrix_power", A)
    n = int(n)
    if n == 0:
        return result_of("matrix_power", _eye_like(A), out)
    if n < 0:
        A, n = recorded.inv(A), -n
    result, base = None, A
    while n:
        if n & 1:
            result = base if result is None else result.matmul(base)
        n >>= 1
        if n:
            base = base.matmul(base)
    return result_of("matrix_power", result.clone() if result is A else result, out)


def multi_dot(tensors: Sequence[Tensor], *, out: Tensor | None = None) -> Tensor:
    """The product of a chain of matrices (first/last may be vectors), bracketed so the number
    of multiplications is least (the classic dynamic programme)."""
    ts = list(tensors)
    if len(ts) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(ts)}")
    first_vec, last_vec = ts[0].dim() == 1, ts[-1].dim() == 1
    if first_vec:
        ts[0] = ts[0].unsqueeze(0)
    if last_vec:
        ts[-1] = ts[-1].unsqueeze(1)
    for i, t in enumerate(ts):
        if t.dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.dim()}D")
    dt = ts[0].dtype
    for i, t in enumerate(ts):
        if t.dtype is not dt:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor "
                               f"0 is {dt.name} and tensor {i} {t.dtype.name}")
    for i in range(len(ts) - 1):
        if ts[i].size(1) != ts[i + 1].size(0):
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes "
                               f"{list(ts[i].size())} and {list(ts[i + 1].size())} cannot be "
                               f"multiplied")
    dims = [ts[0].size(0)] + [t.size(1) for t in ts]
    n = len(ts)
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k

    def product(i: int, j: int) -> Tensor:
        if i == j:
            return ts[i]
        k = split[i][j]
        return product(i, k).mm(product(k + 1, j))
    r = product(0, n - 1)
    if first_vec:
        r = r.squeeze(0)
    if last_vec:
        r = r.squeeze(-1)
    return result_of("multi_dot", r, out)


def chain_matmul(*matrices: Tensor, out: Tensor | None = None) -> Tensor:
    """The product of 2-D matrices (as multi_dot)."""
    if len(matrices) == 1:
        return result_of("chain_matmul", matrices[0].clone(), out)
    return multi_dot(matrices, out=out)


def matmul(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Matrix product with broadcasting (pyth.matmul)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(matmul, locals())
    return mm(input, other, out=out)


def cross(input: Tensor, other: Tensor, *, dim: int = -1, out: Tensor | None = None) -> Tensor:
    """Cross product of 3-vectors along dim (broadcast)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(cross, locals())
    from .pointwise import cross as c
    return c(input, other, dim, out=out)


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1, out: Tensor | None = None) -> Tensor:
    """Dot product of vectors along dim (broadcast); floating types only, as PyTorch."""
    if type(x) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(vecdot, locals())
    for t in (x, y):
        if not t.dtype.is_floating_point:
            raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as "
                               f"input. Got {t.dtype.real}")
    return result_of("linalg.vecdot", P["mul"](x, y).sum(dim), out)


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The diagonal of the matrices in the last two dims (a view)."""
    if type(A) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(diagonal, locals())
    return A.diagonal(offset, dim1, dim2)


def vander(x: Tensor, *, N: int | None = None) -> Tensor:
    """Vandermonde matrix: columns x**0, x**1, ..., x**(N-1) (increasing powers)."""
    if type(x) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(vander, locals())
    if x.dim() < 1:
        raise RuntimeError("linalg.vander: x must have at least one dimension")
    if x.dtype.kind == "b":
        raise RuntimeError("linalg.vander supports floating point, complex, and integer "
                           "tensors, but got Bool")
    n = x.size(-1) if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dt = _dt.int64 if x.dtype.kind in "ui" else x.dtype
    xs = x.to(dt).unsqueeze(-1)
    ones = as_tensor(1, dt).expand(*xs.size())
    if n <= 1:
        return ones.contiguous()[..., :n]
    powers = cumprod(xs.expand(*list(xs.size())[:-1], n - 1), -1)
    return cat([ones, powers.to(dt)], -1)


def cond(A: Tensor, p: Any = None, *, out: Tensor | None = None) -> Tensor:
    """Condition number: ratio of extreme singular values (p None/2/-2), else
    norm(A, p) * norm(inv(A), p)."""
    if type(A) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(cond, locals())
    if p in (None, 2, -2):
        S = recorded.svdvals(A)
        hi, lo = S.amax(-1), S.amin(-1)
        r = P["div"](hi, lo) if p in (None, 2) else P["div"](lo, hi)
    else:
        _square("linalg.cond", A)
        r = P["mul"](_la.matrix_norm(A, p), _la.matrix_norm(recorded.inv(A), p))
    return result_of("linalg.cond", r, out)


def matrix_exp(A: Tensor) -> Tensor:
    """exp(A) by scaling and squaring: A / 2^s has norm <= 1/2, an order-18 Taylor sum, then s
    squarings."""
    if type(A) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(matrix_exp, locals())
    _square("linalg.matrix_exp", A)
    if not A.dtype.is_floating_point:
        raise RuntimeError(f"linalg.matrix_exp: expected a floating point tensor, got "
                           f"{A.dtype.name}")
    if A.numel() == 0:
        return A.clone()
    norm = float(A.abs().sum(-2).amax()) if A.numel() else 0.0
    s = max(0, int(math.ceil(math.log2(norm))) + 1) if norm > 0.5 else 0
    X = P["div"](A, 2.0 ** s)
    term = _eye_like(A)
    result = term.clone()
    for k in range(1, 19):
        term = P["div"](term.matmul(X), float(k))
        result = P["add"](result, term)
    for _ in range(s):
        result = result.matmul(result)
    return result


def tensorinv(A: Tensor, ind: int = 2, *, out: Tensor | None = None) -> Tensor:
    """The tensor whose tensordot with A over ind dims is the identity."""
    if type(A) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(tensorinv, locals())
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    outer, inner = list(A.size())[:ind], list(A.size())[ind:]
    m = math.prod(outer)
    if m != math.prod(inner):
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) "
                           f"== prod(self.shape[:ind]), but got {math.prod(inner)} != {m}")
    r = recorded.inv(A.reshape(m, m)).reshape(inner + outer)
    return result_of("linalg.tensorinv", r, out)


def tensorsolve(A: Tensor, B: Tensor, dims: Any = None, *, out: Tensor | None = None) -> Tensor:
    """X such that tensordot(A, X, X.ndim) == B."""
    if type(A) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(tensorsolve, locals())
    if dims is not None:
        dims = [d % A.dim() for d in dims]
        rest = [d for d in range(A.dim()) if d not in dims]
        A = A.permute(rest + dims)
    xshape = list(A.size())[B.dim():]
    n = math.prod(xshape)
    r = recorded.solve(A.reshape(-1, n), B.reshape(-1)).reshape(xshape)
    return result_of("linalg.tensorsolve", r, out)


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True,
                     unitriangular: bool = False, out: Tensor | None = None) -> Tensor:
    """X with A X = B (or X A = B when left=False), reading only A's upper or lower triangle."""
    if type(A) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(solve_triangular, locals())
    _la._lapack_dtype("linalg.solve_triangular", A, B, no_kernel="ih")
    T = triu(A) if upper else tril(A)
    if unitriangular:
        eye = _eye_like(T)
        T = P["add"](P["mul"](T, P["logical_not"](eye.bool()).to(T.dtype)), eye)
    return result_of("linalg.solve_triangular", recorded.solve(T, B, left=left), out)


def _no_complex(api: str) -> Callable:
    def fn(A: Tensor, *args: Any, **kwargs: Any) -> Any:
        _la._lapack_dtype(api, A, no_kernel="h")  # PyTorch has no float16 kernel either
        raise RuntimeError(f"{api}: the eigenvalues of a general real matrix are complex, and "
                           f"pyth has no complex dtypes; use linalg.eigh / eigvalsh for "
                           f"symmetric matrices")
    fn.__name__ = api.rsplit(".", 1)[-1]
    fn.__doc__ = f"{api}: unavailable (its results are complex; pyth has no complex dtypes)."
    return fn


eig = _no_complex("linalg.eig")
eigvals = _no_complex("linalg.eigvals")


# ---- top-level ----

def tensordot(a: Tensor, b: Tensor, dims: Any = 2, out: Tensor | None = None) -> Tensor:
    """Sum of products over a's last `dims` dims and b's first (or over the listed dims)."""
    if type(a) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(tensordot, locals())
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > max(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got "
                               f"dims={_dt.short(dims)}")
        da, db = list(range(a.dim() - dims, a.dim())), list(range(dims))
    else:
        da, db = dims
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
    da = [d % a.dim() for d in da]
    db = [d % b.dim() for d in db]
    for x, y in zip(da, db):
        if a.size(x) != b.size(y):
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{a.size(x)} in dim {x} and second has size {b.size(y)} in dim "
                               f"{y}")
    fa = [d for d in range(a.dim()) if d not in da]
    fb = [d for d in range(b.dim()) if d not in db]
    k = math.prod(a.size(d) for d in da)
    ma = a.permute(fa + da).reshape(-1, k) if a.dim() else a.reshape(1, 1)
    mb = b.permute(db + fb).reshape(k, -1) if b.dim() else b.reshape(1, 1)
    r = ma.mm(mb).reshape([a.size(d) for d in fa] + [b.size(d) for d in fb])
    return result_of("tensordot", r, out)


def inner(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Sum of products over the last dims (scalar times tensor when either is 0-dim)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(inner, locals())
    if input.dim() == 0 or other.dim() == 0:
        return result_of("inner", P["mul"](input, other), out)
    if input.size(-1) != other.size(-1):
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(input.size())} and {list(other.size())}")
    return tensordot(input, other, ([-1], [-1]), out=out)


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0,
          compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """p-norm distances between each row of x1 and each row of x2 (batched); p = 2 uses the
    matrix-product form |a|^2 + |b|^2 - 2ab when rows are many (as PyTorch)."""
    if type(x1) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(cdist, locals())
    if x1.dim() < 2 or x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x1.size(-1) != x2.size(-1):
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.size(-1)} X2: {x2.size(-1)}")
    if x1.dtype.is_floating_point and x1.dtype.itemsize < 4:
        raise not_implemented("cdist", x1.dtype, "expects float32 or float64 tensors")
    if not x1.dtype.is_floating_point or x1.dtype is not x2.dtype:
        raise RuntimeError("cdist only supports floating-point dtypes, X1 got: "
                           f"{x1.dtype.name}" if not x1.dtype.is_floating_point else
                           f"cdist: X1 and X2 must have the same dtype, got {x1.dtype.name} and "
                           f"{x2.dtype.name}")
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values, got {p}")
    use_mm = p == 2 and (compute_mode == "use_mm_for_euclid_dist" or (
        compute_mode == "use_mm_for_euclid_dist_if_necessary" and
        (x1.size(-2) > 25 or x2.size(-2) > 25)))
    if use_mm:
        a2 = P["mul"](x1, x1).sum(-1, keepdim=True)
        b2 = P["mul"](x2, x2).sum(-1, keepdim=True)
        ab = x1.matmul(x2.mT)
        d2 = P["sub"](P["add"](a2, b2.mT), P["mul"](ab, 2.0))
        return P["sqrt"](P["clamp"](d2, min=0))
    diff = P["sub"](x1.unsqueeze(-2), x2.unsqueeze(-3))
    return recorded.vector_norm(diff, p, -1)


def block_diag(*tensors: Tensor) -> Tensor:
    """The tensors (0-, 1- or 2-D) placed along the diagonal of one matrix."""
    mats = []
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {i} has {t.dim()} dimensions")
        mats.append(t.reshape(1, -1) if t.dim() < 2 else t)
    dt = result_type(*tensors) if tensors else _dt.get_default_dtype()
    rows = sum(m.size(0) for m in mats)
    cols = sum(m.size(1) for m in mats)
    r = zeros(rows, cols, dtype=dt)
    i = j = 0
    for m in mats:
        r[i:i + m.size(0), j:j + m.size(1)] = m.to(dt)
        i, j = i + m.size(0), j + m.size(1)
    return r


LINALG: dict[str, Callable] = {
    "matrix_power": matrix_power, "multi_dot": multi_dot, "matmul": matmul,
    "cross": cross, "vecdot": vecdot, "diagonal": diagonal, "vander": vander, "cond": cond,
    "matrix_exp": matrix_exp, "tensorinv": tensorinv, "tensorsolve": tensorsolve,
    "solve_triangular": solve_triangular, "eig": eig, "eigvals": eigvals,
}   # pyth.linalg's composed functions (pyth/_bind.py adds them to that namespace)

FUNCTIONS: dict[str, Callable] = {
    "matrix_power": matrix_power, "chain_matmul": chain_matmul, "tensordot": tensordot,
    "inner": inner, "cdist": cdist, "block_diag": block_diag, "pinverse": pinverse,
    "matrix_exp": matrix_exp,
}

METHODS: dict[str, Any] = {
    "matrix_power": as_method(matrix_power), "inner": as_method(inner),
    "pinverse": as_method(pinverse), "matrix_exp": as_method(matrix_exp),
}


def renorm(input: Tensor, p: float, dim: int, maxnorm: float, *,
           out: Tensor | None = None) -> Tensor:
    """Each slice along dim rescaled so its p-norm is at most maxnorm."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(renorm, locals())
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"renorm: expected a floating point tensor, got {input.dtype.name}")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    others = [k for k in range(input.dim()) if k != dim % max(input.dim(), 1)]
    norms = vector_norm(input, p, others, keepdim=True) if others else P["abs"](input)
    factor = P["where"](P["gt"](norms, maxnorm), P["div"](maxnorm, P["add"](norms, 1e-7)),
                        as_tensor(1.0, input.dtype))
    return result_of("renorm", P["mul"](input, factor), out)


FUNCTIONS.update({"renorm": renorm})
METHODS.update({"renorm": as_method(renorm),
                "renorm_": lambda self, p, dim, maxnorm: self.copy_(renorm(self, p, dim, maxnorm))})
