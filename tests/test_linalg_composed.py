"""Composed linear algebra against PyTorch: pinv, matrix_power, multi_dot, matmul,
cross, vecdot, vander, cond, matrix_exp, tensorinv/tensorsolve, solve_triangular, eig (a clear
error), trace, cdist, tensordot, inner, block_diag, chain_matmul."""

from __future__ import annotations

import numpy as np
import pytest

import pyth
from _support import assert_same, check_call, make_pair, sample, torch_or_skip


def _well_conditioned(n, name, key):
    a = sample((n, n), name, key)
    return a + np.eye(n) * 10


@pytest.mark.parametrize("name", ["float32", "float64"])
def test_pinv_and_friends(name):
    torch = torch_or_skip()
    p, t = make_pair(sample((2, 5, 3), name, ("pinv",)), name)
    check_call(lambda: pyth.linalg.pinv(p), lambda: torch.linalg.pinv(t), rtol=1e-3, atol=1e-4)
    check_call(lambda: pyth.linalg.pinv(p.mT), lambda: torch.linalg.pinv(t.mT), rtol=1e-3, atol=1e-4)
    check_call(lambda: pyth.pinverse(p[0]), lambda: torch.pinverse(t[0]), rtol=1e-3, atol=1e-4)
    check_call(lambda: pyth.linalg.pinv(p, atol=1.0), lambda: torch.linalg.pinv(t, atol=1.0),
               rtol=1e-3, atol=1e-4)
    # rank-deficient: the zero singular value is dropped
    r = np.outer(np.arange(1.0, 4.0), np.arange(1.0, 5.0))
    q, u = make_pair(r, name)
    check_call(lambda: pyth.linalg.pinv(q), lambda: torch.linalg.pinv(u), rtol=1e-3, atol=1e-5)
    check_call(lambda: pyth.linalg.pinv(p[0, 0]), lambda: torch.linalg.pinv(t[0, 0]))


@pytest.mark.parametrize("name", ["float32", "float64", "int64", "int32"])
@pytest.mark.parametrize("n", [0, 1, 2, 5, -1, -3])
def test_matrix_power(name, n):
    torch = torch_or_skip()
    p, t = make_pair(_well_conditioned(3, name, ("mp",)) / (10 if "float" in name else 1), name)
    check_call(lambda: pyth.linalg.matrix_power(p, n), lambda: torch.linalg.matrix_power(t, n),
               rtol=1e-4, atol=1e-5)
    check_call(lambda: pyth.matrix_power(p.mT, n), lambda: torch.matrix_power(t.mT, n),
               rtol=1e-4, atol=1e-5)
    check_call(lambda: p.expand(2, 3, 3).matrix_power(n), lambda: t.expand(2, 3, 3).matrix_power(n),
               rtol=1e-4, atol=1e-5)
    check_call(lambda: pyth.linalg.matrix_power(p[:2], n), lambda: torch.linalg.matrix_power(t[:2], n))


@pytest.mark.parametrize("name", ["float32", "float64", "int64"])
def test_multi_dot_chain_tensordot_inner(name):
    torch = torch_or_skip()
    shapes = [(5,), (5, 30), (30, 2), (2, 7), (7,)]
    pairs = [make_pair(sample(s, name, ("md", i)), name) for i, s in enumerate(shapes)]
    ps, ts = [a for a, _ in pairs], [b for _, b in pairs]
    check_call(lambda: pyth.linalg.multi_dot(ps), lambda: torch.linalg.multi_dot(ts), rtol=1e-4)
    check_call(lambda: pyth.linalg.multi_dot(ps[1:4]), lambda: torch.linalg.multi_dot(ts[1:4]),
               rtol=1e-4)
    check_call(lambda: pyth.linalg.multi_dot([ps[1], ps[1]]),
               lambda: torch.linalg.multi_dot([ts[1], ts[1]]))
    check_call(lambda: pyth.chain_matmul(ps[1], ps[2], ps[3]),
               lambda: torch.chain_matmul(ts[1], ts[2], ts[3]), rtol=1e-4)
    a, b = make_pair(sample((3, 4, 5), name, ("td",)), name)
    c, d = make_pair(sample((4, 5, 2), name, ("td2",)), name)
    check_call(lambda: pyth.tensordot(a, c), lambda: torch.tensordot(b, d), rtol=1e-4)
    check_call(lambda: pyth.tensordot(a, c, ([1], [0])), lambda: torch.tensordot(b, d, ([1], [0])),
               rtol=1e-4)
    check_call(lambda: pyth.tensordot(a, c, 0), lambda: torch.tensordot(b, d, 0))
    check_call(lambda: pyth.tensordot(a, c, ([0], [0])), lambda: torch.tensordot(b, d, ([0], [0])))
    check_call(lambda: pyth.inner(a, c.mT), lambda: torch.inner(b, d.mT), rtol=1e-4)
    check_call(lambda: pyth.inner(a, c), lambda: torch.inner(b, d))
    check_call(lambda: pyth.linalg.matmul(a, c[:, :, 0].mT), lambda: torch.linalg.matmul(b, d[:, :, 0].mT),
               rtol=1e-4)


@pytest.mark.parametrize("name", ["float32", "float64", "int64", "int16", "bool"])
def test_cross_vecdot_vander_trace(name):
    torch = torch_or_skip()
    a, b = make_pair(sample((4, 3), name, ("x",)), name)
    c, d = make_pair(sample((1, 3), name, ("y",)), name)
    check_call(lambda: pyth.linalg.cross(a, c), lambda: torch.linalg.cross(b, d))
    check_call(lambda: pyth.linalg.cross(a.t(), c.t(), dim=0), lambda: torch.linalg.cross(b.t(), d.t(), dim=0))
    check_call(lambda: pyth.linalg.vecdot(a, c), lambda: torch.linalg.vecdot(b, d))
    check_call(lambda: pyth.linalg.vander(a[0]), lambda: torch.linalg.vander(b[0]))
    check_call(lambda: pyth.linalg.vander(a[:, 0], N=5), lambda: torch.linalg.vander(b[:, 0], N=5))
    check_call(lambda: pyth.trace(a), lambda: torch.trace(b))
    check_call(lambda: pyth.trace(a.t()), lambda: torch.trace(b.t()))
    check_call(lambda: a.trace(), lambda: b.trace())
    check_call(lambda: pyth.linalg.diagonal(a), lambda: torch.linalg.diagonal(b))


@pytest.mark.parametrize("name", ["float32", "float64"])
def test_cond_matrix_exp_tensor_solvers(name):
    torch = torch_or_skip()
    p, t = make_pair(_well_conditioned(4, name, ("c",)), name)
    for pp in (None, 2, -2, 1, -1, float("inf"), "fro", "nuc"):
        check_call(lambda: pyth.linalg.cond(p, pp), lambda: torch.linalg.cond(t, pp), rtol=1e-3)
    s, u = make_pair(sample((2, 4, 4), name, ("e",)) / 4, name)
    check_call(lambda: pyth.linalg.matrix_exp(s), lambda: torch.linalg.matrix_exp(u), rtol=1e-4,
               atol=1e-5)
    check_call(lambda: pyth.linalg.matrix_exp(s * 20), lambda: torch.linalg.matrix_exp(u * 20),
               rtol=1e-3, atol=1e-3)
    a, b = make_pair(_well_conditioned(6, name, ("ti",)).reshape(6, 2, 3), name)
    check_call(lambda: pyth.linalg.tensorinv(a, 1), lambda: torch.linalg.tensorinv(b, 1), rtol=1e-3,
               atol=1e-5)
    rhs, trhs = make_pair(sample((6,), name, ("rhs",)), name)
    check_call(lambda: pyth.linalg.tensorsolve(a, rhs), lambda: torch.linalg.tensorsolve(b, trhs),
               rtol=1e-3, atol=1e-5)
    B, tB = make_pair(sample((4, 2), name, ("B",)), name)
    for upper in (True, False):
        for unit in (True, False):
            check_call(lambda: pyth.linalg.solve_triangular(p, B, upper=upper, unitriangular=unit),
                       lambda: torch.linalg.solve_triangular(t, tB, upper=upper, unitriangular=unit),
                       rtol=1e-3, atol=1e-5)
    check_call(lambda: pyth.linalg.solve_triangular(p, B.mT, upper=True, left=False),
               lambda: torch.linalg.solve_triangular(t, tB.mT, upper=True, left=False),
               rtol=1e-3, atol=1e-5)


def test_eig_is_a_clear_error():
    with pytest.raises(RuntimeError, match="complex"):
        pyth.linalg.eig(pyth.eye(3))
    with pytest.raises(RuntimeError, match="complex"):
        pyth.linalg.eigvals(pyth.eye(3))


@pytest.mark.parametrize("name", ["float32", "float64"])
@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.5, float("inf")])
@pytest.mark.parametrize("rows", [4, 30])
def test_cdist(name, p, rows):
    torch = torch_or_skip()
    a, b = make_pair(sample((2, rows, 3), name, ("a",)), name)
    c, d = make_pair(sample((2, 5, 3), name, ("b",)), name)
    check_call(lambda: pyth.cdist(a, c, p), lambda: torch.cdist(b, d, p), rtol=1e-3, atol=1e-3)
    check_call(lambda: pyth.cdist(a[0], c[1].mT.contiguous().mT, p),
               lambda: torch.cdist(b[0], d[1].mT.contiguous().mT, p), rtol=1e-3, atol=1e-3)
    check_call(lambda: pyth.cdist(a[:, :0], c[:, :0], p), lambda: torch.cdist(b[:, :0], d[:, :0], p))


def test_cdist_errors_and_block_diag():
    torch = torch_or_skip()
    check_call(lambda: pyth.cdist(pyth.ones(3, 2), pyth.ones(3, 4)),
               lambda: torch.cdist(torch.ones(3, 2), torch.ones(3, 4)))
    check_call(lambda: pyth.cdist(pyth.ones(3), pyth.ones(3)),
               lambda: torch.cdist(torch.ones(3), torch.ones(3)))
    a, b = make_pair(sample((2, 3), "int64", ("bd",)), "int64")
    check_call(lambda: pyth.block_diag(a, pyth.tensor(5.0), a[0], a.t()),
               lambda: torch.block_diag(b, torch.tensor(5.0), b[0], b.t()))


@pytest.mark.parametrize("name", ["float32", "float64"])
def test_vector_and_matrix_norm_every_ord(name):
    torch = torch_or_skip()
    p, t = make_pair(sample((2, 4, 3), name, ("norm",)), name)
    for ord in (2, 1, 0, 3.5, 0.5, -1, -2, float("inf"), float("-inf")):
        check_call(lambda: pyth.linalg.vector_norm(p, ord), lambda: torch.linalg.vector_norm(t, ord),
                   rtol=1e-4)
        check_call(lambda: pyth.linalg.vector_norm(p.mT, ord, dim=(0, 2), keepdim=True),
                   lambda: torch.linalg.vector_norm(t.mT, ord, dim=(0, 2), keepdim=True), rtol=1e-4)
    for ord in ("fro", "nuc", 1, -1, 2, -2, float("inf"), float("-inf")):
        check_call(lambda: pyth.linalg.matrix_norm(p, ord), lambda: torch.linalg.matrix_norm(t, ord),
                   rtol=1e-4)
        check_call(lambda: pyth.linalg.matrix_norm(p.mT, ord, dim=(0, 2)),
                   lambda: torch.linalg.matrix_norm(t.mT, ord, dim=(0, 2)), rtol=1e-4)
    check_call(lambda: pyth.linalg.matrix_norm(p, 3), lambda: torch.linalg.matrix_norm(t, 3))


def test_diff_out():
    torch = torch_or_skip()
    out, tout = pyth.empty(0), torch.empty(0)
    r = pyth.diff(pyth.tensor([1.0, 4.0, 9.0]), out=out)
    assert r is out
    assert_same(out, torch.diff(torch.tensor([1.0, 4.0, 9.0]), out=tout))
