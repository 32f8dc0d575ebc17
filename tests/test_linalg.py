"""Oracle tests for pyth.linalg (pyth/linalg.py over generic/THTensorLapack.c, THTensorNorm.c).

numpy.linalg is the oracle for values (solutions, determinants, singular values, eigenvalues,
norms, ranks); factorisations whose factors are not unique (signs of singular vectors, Q's
columns) are checked through their defining identities instead: A A^-1 = I, Q R = A with Q^T Q
= I, U diag(S) Vh = A, A V = V diag(w), L L^T = A. PyTorch, when installed, checks the shapes,
layouts, named results and error messages. Inputs come contiguous, transposed, batched and with
broadcast batch dims; float32 and float64 (LAPACK's types), other dtypes raise.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import pyth
from pyth.linalg import LinAlgError

FLOATS = ["float32", "float64"]
TOL = {"float32": {"rtol": 1e-4, "atol": 1e-4}, "float64": {"rtol": 1e-10, "atol": 1e-10}}


def T(a, name="float64", transposed=False):
    """A pyth tensor with a's values; transposed builds it as the transpose of a copy."""
    dt = getattr(pyth, name)
    a = np.asarray(a, dtype=np.float64)
    if transposed and a.ndim >= 2:
        return pyth.tensor(np.swapaxes(a, -1, -2).copy(), dtype=dt).transpose(-1, -2)
    return pyth.tensor(a, dtype=dt)


def N(t):
    return t.numpy().astype(np.float64)


def close(t, expected, name="float64"):
    np.testing.assert_allclose(N(t) if isinstance(t, pyth.Tensor) else t, expected, **TOL[name])


def well_conditioned(rng, shape):
    """Random square matrices with a dominant diagonal (invertible, modest condition)."""
    a = rng.standard_normal(shape)
    return a + 3 * shape[-1] ** 0.5 * np.eye(shape[-1])


def spd(rng, shape):
    a = rng.standard_normal(shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


# ---- solve, inv, det ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("ashape,bshape", [((4, 4), (4, 2)), ((4, 4), (4,)), ((3, 4, 4), (3, 4)),
                                           ((2, 1, 4, 4), (3, 4, 1)), ((4, 4), (5, 4, 3)),
                                           ((0, 3, 3), (0, 3, 2)), ((0, 0), (0, 2))])
def test_solve(name, transposed, ashape, bshape):
    rng = np.random.default_rng(0)
    a, b = well_conditioned(rng, ashape), rng.standard_normal(bshape)
    x = pyth.linalg.solve(T(a, name, transposed), T(b, name))
    vector = len(bshape) == 1 or (len(bshape) == len(ashape) - 1 and bshape == ashape[:-1])
    expected = np.linalg.solve(a, b[..., None])[..., 0] if vector else np.linalg.solve(a, b)
    close(x, expected, name)
    assert x.dtype is getattr(pyth, name)


def test_solve_left_false_and_out():
    rng = np.random.default_rng(1)
    a, b = well_conditioned(rng, (3, 3)), rng.standard_normal((2, 3))
    close(pyth.linalg.solve(T(a), T(b), left=False), b @ np.linalg.inv(a))
    out = pyth.empty(0, dtype=pyth.float64)
    assert pyth.linalg.solve(T(a), T(b.T), out=out) is out
    close(out, np.linalg.solve(a, b.T))


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("shape", [(5, 5), (3, 4, 4), (2, 2, 3, 3), (1, 1), (0, 0)])
@pytest.mark.parametrize("transposed", [False, True])
def test_inv_identity(name, shape, transposed):
    rng = np.random.default_rng(2)
    a = well_conditioned(rng, shape)
    r = pyth.linalg.inv(T(a, name, transposed))
    close(r, np.linalg.inv(a) if a.size else a, name)
    close(T(a, name) @ r, np.broadcast_to(np.eye(shape[-1]), shape), name)
    close(pyth.inverse(T(a, name)), N(r), name)


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5), (1, 1), (0, 0), (2, 0, 0)])
def test_det_slogdet(name, shape):
    rng = np.random.default_rng(3)
    a = rng.standard_normal(shape)
    close(pyth.linalg.det(T(a, name)), np.linalg.det(a) if a.size or not shape[:-2] else
          np.ones(shape[:-2]), name)
    sign, logabs = pyth.linalg.slogdet(T(a, name, transposed=True))
    esign, elog = np.linalg.slogdet(a)
    close(sign, esign, name)
    close(logabs, elog, name)
    assert pyth.det(T(a, name)).shape == a.shape[:-2]


def test_det_of_singular_matrices():
    s = T([[1.0, 2.0], [2.0, 4.0]])
    assert pyth.linalg.det(s).item() == 0
    sign, logabs = pyth.linalg.slogdet(s)
    assert sign.item() == 0 and logabs.item() == -math.inf
    assert pyth.logdet(s).item() == -math.inf
    assert math.isnan(pyth.logdet(T([[0.0, 1.0], [1.0, 0.0]])).item())


# ---- cholesky ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5), (2, 1, 3, 3), (0, 0)])
def test_cholesky(name, shape):
    rng = np.random.default_rng(4)
    a = spd(rng, shape)
    low = pyth.linalg.cholesky(T(a, name))
    close(low, np.linalg.cholesky(a) if a.size else a, name)
    close(low @ low.transpose(-1, -2), a, name)
    up = pyth.linalg.cholesky(T(a, name, transposed=True), upper=True)
    close(up.transpose(-1, -2) @ up, a, name)
    assert (np.triu(N(low), 1) == 0).all() and (np.tril(N(up), -1) == 0).all()


def test_cholesky_reads_one_triangle_and_solves():
    rng = np.random.default_rng(5)
    a = spd(rng, (4, 4))
    junk = a + np.triu(np.full((4, 4), 100.0), 1)     # garbage above the diagonal is ignored
    close(pyth.linalg.cholesky(T(junk)), np.linalg.cholesky(a))
    b = rng.standard_normal((4, 2))
    low = pyth.linalg.cholesky(T(a))
    close(pyth.cholesky_solve(T(b), low), np.linalg.solve(a, b))
    close(T(b).cholesky_solve(low.transpose(-1, -2), upper=True), np.linalg.solve(a, b))


def test_cholesky_ex_reports_info():
    good, bad = np.eye(2), np.array([[1.0, 2.0], [2.0, 1.0]])
    _, info = pyth.linalg.cholesky_ex(T(np.stack([good, bad, good])))
    assert info.tolist() == [0, 2, 0]
    assert info.dtype is pyth.int32


# ---- qr, svd, eigh ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 6, 4), (2, 3, 0), (0, 3)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(name, shape, mode):
    rng = np.random.default_rng(6)
    a = rng.standard_normal(shape)
    q, r = pyth.linalg.qr(T(a, name, transposed=True), mode=mode)
    m, n = shape[-2:]
    k = min(m, n)
    rrows = m if mode == "complete" else k
    assert tuple(r.shape) == shape[:-2] + (rrows, n)
    assert (np.tril(N(r), -1) == 0).all()
    if mode == "r":
        assert tuple(q.shape) == (0,)
        close(np.abs(N(r)), np.abs(np.linalg.qr(a, mode="r")), name)
        return
    qcols = m if mode == "complete" else k
    assert tuple(q.shape) == shape[:-2] + (m, qcols)
    close(q @ r, a, name)
    close(q.transpose(-1, -2) @ q, np.broadcast_to(np.eye(qcols), shape[:-2] + (qcols, qcols)),
          name)


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 6, 4), (1, 1), (0, 3), (3, 0)])
@pytest.mark.parametrize("full", [True, False])
def test_svd(name, shape, full):
    rng = np.random.default_rng(7)
    a = rng.standard_normal(shape)
    u, s, vh = pyth.linalg.svd(T(a, name, transposed=True), full_matrices=full)
    m, n = shape[-2:]
    k = min(m, n)
    assert tuple(u.shape) == shape[:-2] + ((m, m) if full else (m, k))
    assert tuple(vh.shape) == shape[:-2] + ((n, n) if full else (k, n))
    close(s, np.linalg.svd(a, compute_uv=False), name)
    us = N(u)[..., :, :k] * N(s)[..., None, :]
    close(us @ N(vh)[..., :k, :], a, name)
    close(u.transpose(-1, -2) @ u, np.broadcast_to(np.eye(u.shape[-1]), tuple(u.shape[:-2]) +
                                                    (u.shape[-1],) * 2), name)
    close(pyth.linalg.svdvals(T(a, name)), N(s), name)


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5), (1, 1), (0, 0)])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(name, shape, uplo):
    rng = np.random.default_rng(8)
    a = spd(rng, shape) - shape[-1] * np.eye(shape[-1])     # indefinite, symmetric
    tri = np.tril(a) if uplo == "L" else np.triu(a)         # only that triangle is read
    w, v = pyth.linalg.eigh(T(tri, name), UPLO=uplo)
    close(w, np.linalg.eigvalsh(a) if a.size else np.zeros(shape[:-1]), name)
    close(T(a, name) @ v, N(v) * N(w)[..., None, :], name)
    close(pyth.linalg.eigvalsh(T(tri, name), UPLO=uplo), N(w), name)


# ---- lstsq ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
@pytest.mark.parametrize("shape,bshape", [((6, 3), (6, 2)), ((6, 3), (6,)), ((3, 6), (3, 2)),
                                          ((2, 5, 3), (2, 5, 4)), ((2, 5, 3), (2, 5)),
                                          ((2, 5, 3), (1, 5, 4))])
def test_lstsq(driver, shape, bshape):
    rng = np.random.default_rng(9)
    a, b = rng.standard_normal(shape), rng.standard_normal(bshape)
    res = pyth.linalg.lstsq(T(a), T(b), driver=driver)
    assert isinstance(res, pyth.linalg.LstsqResult)
    vector = len(bshape) == len(shape) - 1
    bm = np.broadcast_to(b[..., None] if vector else b, shape[:-1] + ((1,) if vector else
                                                                      bshape[-1:]))
    a3, b3 = a.reshape((-1,) + shape[-2:]), bm.reshape((-1,) + bm.shape[-2:])
    solutions = [np.linalg.lstsq(a3[i], b3[i], rcond=None)[0] for i in range(len(a3))]
    expected = np.stack(solutions).reshape(shape[:-2] + solutions[0].shape)
    close(res.solution, expected[..., 0] if vector else expected)
    m, n = shape[-2:]
    name = driver or "gelsy"
    if m > n and name != "gelsy":
        residual = ((a @ expected - bm) ** 2).sum(-2)
        close(res.residuals, residual.reshape(N(res.residuals).shape))
    else:
        assert res.residuals.numel() == 0
    if name == "gels":
        assert res.rank.numel() == 0
    else:
        assert (res.rank.numpy() == min(m, n)).all() and res.rank.dtype is pyth.int64
    if name in ("gelsd", "gelss"):
        close(res.singular_values, np.linalg.svd(a, compute_uv=False))
    else:
        assert res.singular_values.numel() == 0


def test_lstsq_rank_deficient():
    a = np.array([[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]])
    b = np.array([[1.0], [2.0], [3.0]])
    for driver in ("gelsy", "gelsd"):
        res = pyth.linalg.lstsq(T(a), T(b), driver=driver)
        close(res.solution, np.linalg.lstsq(a, b, rcond=None)[0])
        assert res.rank.item() == 1
    # gels sees rank deficiency only as an exact zero on R's diagonal: a zero column gives
    # one with any OpenBLAS kernel (equal columns may leave rounding noise instead)
    z = np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]])
    with pytest.raises(LinAlgError, match="does not have full rank"):
        pyth.linalg.lstsq(T(z), T(b), driver="gels")


# ---- norms and rank -----------------------------------------------------------------------------

@pytest.mark.parametrize("ord", [2, 1, math.inf, -math.inf, 0, 3, 0.5, -1])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (1, False), ((0, 2), True), (-1, True),
                                         ((2, 0), False)])
def test_vector_norm(ord, dim, keepdim):
    rng = np.random.default_rng(10)
    x = rng.standard_normal((3, 4, 5))
    x[0, 0, 0] = 0
    t = T(x, transposed=True)
    r = pyth.linalg.vector_norm(t, ord, dim, keepdim)
    axes = tuple(range(3)) if dim is None else dim
    ax = (axes,) if isinstance(axes, int) else tuple(axes)
    flat = np.moveaxis(np.abs(x), ax, tuple(range(-len(ax), 0)))
    flat = flat.reshape(flat.shape[:3 - len(ax)] + (-1,))
    if ord == 0:
        expected = (flat != 0).sum(-1).astype(float)
    elif math.isinf(ord):
        expected = flat.max(-1) if ord > 0 else flat.min(-1)
    else:
        with np.errstate(divide="ignore"):
            expected = (flat ** ord).sum(-1) ** (1 / ord)
    if keepdim:
        for d in sorted(a % 3 for a in ax):
            expected = np.expand_dims(expected, d)
    close(r, expected)


@pytest.mark.parametrize("ord", ["fro", "nuc", math.inf, -math.inf, 1, -1, 2, -2])
@pytest.mark.parametrize("name", FLOATS)
def test_matrix_norm(ord, name):
    rng = np.random.default_rng(11)
    a = rng.standard_normal((2, 4, 3))
    expected = np.linalg.norm(a, ord=ord, axis=(-2, -1))
    close(pyth.linalg.matrix_norm(T(a, name), ord), expected, name)
    close(pyth.linalg.norm(T(a, name), ord, dim=(-2, -1)), expected, name)
    close(pyth.linalg.norm(T(a[0], name), ord), np.linalg.norm(a[0], ord), name)
    k = pyth.linalg.matrix_norm(T(a, name), ord, dim=(0, 2), keepdim=True)
    close(k, np.linalg.norm(a, ord=ord, axis=(0, 2), keepdims=True), name)


def test_norm_forms():
    rng = np.random.default_rng(12)
    x = rng.standard_normal((3, 4, 5))
    close(pyth.linalg.norm(T(x)), np.linalg.norm(x.ravel()))
    close(pyth.linalg.norm(T(x), dim=1), np.linalg.norm(x, axis=1))
    close(pyth.linalg.norm(T(x[0, 0]), 3), np.linalg.norm(x[0, 0], 3))
    close(T(x).norm(), np.linalg.norm(x.ravel()))
    close(T(x).norm(1, dim=2), np.abs(x).sum(2))
    close(pyth.norm(T(x[0]), "nuc"), np.linalg.norm(x[0], "nuc"))
    close(pyth.linalg.vector_norm(pyth.tensor(-3.0, dtype=pyth.float64)), 3.0)
    close(pyth.linalg.vector_norm(pyth.zeros(0, dtype=pyth.float64)), 0.0)
    half = pyth.linalg.vector_norm(pyth.tensor([3.0, 4.0], dtype=pyth.float16))
    assert half.dtype is pyth.float16 and half.item() == 5.0
    close(pyth.linalg.vector_norm(pyth.tensor([3, 4], dtype=pyth.float32), dtype=pyth.float64),
          5.0)


@pytest.mark.parametrize("name", FLOATS)
def test_matrix_rank(name):
    rng = np.random.default_rng(13)
    low = rng.standard_normal((3, 6, 2)) @ rng.standard_normal((3, 2, 5))   # rank 2
    assert pyth.linalg.matrix_rank(T(low, name)).tolist() == [2, 2, 2]
    full = rng.standard_normal((4, 4))
    assert pyth.linalg.matrix_rank(T(full, name)).item() == 4
    sym = full + full.T
    assert pyth.linalg.matrix_rank(T(sym, name), hermitian=True).item() == \
        np.linalg.matrix_rank(sym, hermitian=True)
    assert pyth.linalg.matrix_rank(T(np.diag([1.0, 1e-3, 0.0]), name), atol=1e-2).item() == 1
    assert pyth.linalg.matrix_rank(T(np.zeros((0, 3)), name)).item() == 0


# ---- errors -------------------------------------------------------------------------------------

SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])
NOT_PD = np.array([[1.0, 2.0], [2.0, 1.0]])


def test_singular_raises_linalg_error():
    assert issubclass(LinAlgError, RuntimeError)
    with pytest.raises(LinAlgError, match="linalg.solve: The solver failed because the input "
                                          "matrix is singular"):
        pyth.linalg.solve(T(SINGULAR), T(np.ones(2)))
    with pytest.raises(LinAlgError, match=r"\(Batch element 1\): The solver failed"):
        pyth.linalg.solve(T(np.stack([np.eye(2), SINGULAR])), T(np.ones(2)))
    with pytest.raises(LinAlgError, match="linalg.inv: The diagonal element 2 is zero"):
        pyth.linalg.inv(T(SINGULAR))
    with pytest.raises(LinAlgError, match=r"\(Batch element 2\)"):
        pyth.linalg.inv(T(np.stack([np.eye(2), np.eye(2), SINGULAR])))
    _, info = pyth.linalg.inv_ex(T(SINGULAR))
    assert info.item() == 2


def test_not_positive_definite_raises():
    with pytest.raises(LinAlgError, match="not positive-definite \\(the leading minor of order 2"):
        pyth.linalg.cholesky(T(NOT_PD))
    with pytest.raises(LinAlgError, match=r"\(Batch element 1\)"):
        pyth.linalg.cholesky(T(np.stack([np.eye(2), NOT_PD])))


def test_non_finite_svd_raises():
    with pytest.raises(LinAlgError, match="non-finite"):
        pyth.linalg.svd(T(np.full((3, 3), np.nan)))


@pytest.mark.parametrize("fn", ["inv", "det", "slogdet", "cholesky", "qr", "svd", "svdvals",
                                "eigh", "eigvalsh"])
def test_shape_and_dtype_errors(fn):
    f = getattr(pyth.linalg, fn)
    with pytest.raises(RuntimeError, match="floating point"):
        f(pyth.ones(2, 2, dtype=pyth.int64))
    with pytest.raises(RuntimeError, match="Low precision"):
        f(pyth.ones(2, 2, dtype=pyth.float16))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        f(pyth.ones(3))
    if fn not in ("qr", "svd", "svdvals"):
        with pytest.raises(RuntimeError, match="square matrices, but they are 2 by 3"):
            f(pyth.ones(2, 3))


def test_argument_errors():
    with pytest.raises(RuntimeError, match="Incompatible shapes"):
        pyth.linalg.solve(T(np.eye(2)), T(np.ones(3)))
    with pytest.raises(RuntimeError, match="same dtype"):
        pyth.linalg.solve(T(np.eye(2)), T(np.ones(2), "float32"))
    with pytest.raises(RuntimeError, match="unrecognized mode 'x'"):
        pyth.linalg.qr(T(np.eye(2)), mode="x")
    with pytest.raises(RuntimeError, match="UPLO"):
        pyth.linalg.eigh(T(np.eye(2)), UPLO="X")
    with pytest.raises(RuntimeError, match="driver"):
        pyth.linalg.lstsq(T(np.eye(2)), T(np.eye(2)), driver="nope")
    with pytest.raises(RuntimeError, match=r"size\(-2\)"):
        pyth.linalg.lstsq(T(np.ones((5, 2))), T(np.ones((4, 3))))
    with pytest.raises(RuntimeError, match="Order 3 not supported"):
        pyth.linalg.matrix_norm(T(np.eye(2)), 3)
    with pytest.raises(RuntimeError, match="must be 1D or 2D"):
        pyth.linalg.norm(T(np.ones((2, 2, 2))), 2)
    with pytest.raises(RuntimeError, match="dims must be different"):
        pyth.linalg.matrix_norm(T(np.eye(2)), dim=(0, 0))
    with pytest.raises(TypeError, match="ord"):
        pyth.linalg.vector_norm(T(np.eye(2)), "fro")
    with pytest.raises(RuntimeError, match="empty tensor"):
        pyth.linalg.vector_norm(pyth.zeros(0), math.inf)
    with pytest.raises(RuntimeError, match="floating point"):
        pyth.linalg.vector_norm(pyth.ones(2, dtype=pyth.int32))


# ---- PyTorch as a second oracle -----------------------------------------------------------------

def test_shapes_and_results_vs_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(14)
    a = rng.standard_normal((2, 5, 3))
    ta, pa = torch.tensor(a), T(a)
    for mode in ("reduced", "complete", "r"):
        tq, tr = torch.linalg.qr(ta, mode=mode)
        pq, pr = pyth.linalg.qr(pa, mode=mode)
        assert tuple(pq.shape) == tuple(tq.shape) and tuple(pr.shape) == tuple(tr.shape)
        assert pr.stride() == tr.stride()
    for full in (True, False):
        tu, ts, tv = torch.linalg.svd(ta, full_matrices=full)
        pu, ps, pv = pyth.linalg.svd(pa, full_matrices=full)
        assert [tuple(x.shape) for x in (pu, ps, pv)] == [tuple(x.shape) for x in (tu, ts, tv)]
        close(ps, ts.numpy())
    sq = spd(rng, (3, 4, 4))
    tw, tv = torch.linalg.eigh(torch.tensor(sq))
    pw, pv = pyth.linalg.eigh(T(sq))
    close(pw, tw.numpy())
    close(np.abs(N(pv)), np.abs(tv.numpy()))
    close(pyth.linalg.det(T(sq)), torch.linalg.det(torch.tensor(sq)).numpy())
    close(pyth.linalg.inv(T(sq)), torch.linalg.inv(torch.tensor(sq)).numpy())
    b = rng.standard_normal((3, 4))
    close(pyth.linalg.solve(T(sq), T(b)), torch.linalg.solve(torch.tensor(sq),
                                                             torch.tensor(b)).numpy())
    for driver in ("gels", "gelsy", "gelsd", "gelss"):
        b = rng.standard_normal((2, 5, 2))
        tres = torch.linalg.lstsq(ta, torch.tensor(b), driver=driver)
        pres = pyth.linalg.lstsq(pa, T(b), driver=driver)
        close(pres.solution, tres.solution.numpy())
        for field in ("solution", "residuals", "rank", "singular_values"):
            assert tuple(getattr(pres, field).shape) == tuple(getattr(tres, field).shape), field
    for ord in ("fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf):
        close(pyth.linalg.matrix_norm(pa, ord), torch.linalg.matrix_norm(ta, ord).numpy())
    close(pyth.linalg.matrix_rank(pa), torch.linalg.matrix_rank(ta).numpy())


def test_error_messages_vs_torch():
    torch = pytest.importorskip("torch")
    cases = [("inv", SINGULAR), ("cholesky", NOT_PD), ("inv", np.ones((2, 3)))]
    for fn, a in cases:
        with pytest.raises(RuntimeError) as theirs:
            getattr(torch.linalg, fn)(torch.tensor(a))
        with pytest.raises(RuntimeError) as ours:
            getattr(pyth.linalg, fn)(T(a))
        assert str(ours.value) == str(theirs.value)
        assert isinstance(ours.value, LinAlgError) == isinstance(theirs.value,
                                                                 torch.linalg.LinAlgError)


def test_large_batches_run_in_parallel_correctly():
    """A batch big enough to be split between threads (each with its own LAPACK workspace)."""
    rng = np.random.default_rng(15)
    a = well_conditioned(rng, (40, 80, 80))
    s = spd(rng, (40, 80, 80))
    b = rng.standard_normal((40, 80, 3))
    close(pyth.linalg.inv(T(a)), np.linalg.inv(a))
    close(pyth.linalg.solve(T(a), T(b)), np.linalg.solve(a, b))
    close(pyth.linalg.det(T(a)), np.linalg.det(a))
    close(pyth.linalg.cholesky(T(s)), np.linalg.cholesky(s))
    close(pyth.linalg.eigvalsh(T(s)), np.linalg.eigvalsh(s))
    close(pyth.linalg.svdvals(T(a)), np.linalg.svd(a, compute_uv=False))
    q, r = pyth.linalg.qr(T(a))
    close(q @ r, a)
    with pytest.raises(LinAlgError, match=r"\(Batch element 37\)"):
        bad = a.copy()
        bad[37] = 0
        pyth.linalg.inv(T(bad))
