"""Aliases and legacy names against PyTorch: aliases and in-place forms, inverse
hyperbolic functions, exp2/ldexp/frexp/mvlgamma, statistics helpers, the older LAPACK names,
the extra creation functions and the legacy Tensor methods."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pytest

import pyth
from _support import (DTYPE_NAMES, assert_same, check_call, layouts, make_pair, sample,
                      torch_or_skip)

UNARY = {
    "asinh": (lambda m, x: m.asinh(x), (-50, 50)),
    "arcsinh": (lambda m, x: m.arcsinh(x), (-2, 2)),
    "acosh": (lambda m, x: m.acosh(x), (1, 60)),
    "atanh": (lambda m, x: m.atanh(x), (-0.99, 0.99)),
    "arccos": (lambda m, x: m.arccos(x), (-1, 1)),
    "exp2": (lambda m, x: m.exp2(x), (-5, 5)),
    "mvlgamma": (lambda m, x: m.mvlgamma(x, 3), (1.5, 6)),
    "ldexp": (lambda m, x: m.ldexp(x, m.ones_like(x, dtype=m.int64) * 3), (-5, 5)),
    "frexp": (lambda m, x: m.frexp(x), (-50, 50)),
    "hardshrink": (lambda m, x: x.hardshrink(1.0), (-3, 3)),
    "renorm": (lambda m, x: m.renorm(x, 2, 0, 3.0), (-3, 3)),
    "diag_embed": (lambda m, x: m.diag_embed(x, 1), (-3, 3)),
    "diagflat": (lambda m, x: m.diagflat(x[0], -1), (-3, 3)),
    "narrow_copy": (lambda m, x: m.narrow_copy(x, 1, 1, 2), (-3, 3)),
    "clone": (lambda m, x: m.clone(x), (-3, 3)),
    "cov": (lambda m, x: m.cov(x), (-3, 3)),
    "corrcoef": (lambda m, x: m.corrcoef(x), (-3, 3)),
    "trapezoid": (lambda m, x: m.trapezoid(x), (-3, 3)),
    "trapz_dx": (lambda m, x: m.trapz(x, dx=0.5, dim=0), (-3, 3)),
    "cumulative_trapezoid": (lambda m, x: m.cumulative_trapezoid(x, dim=0), (-3, 3)),
    "gradient": (lambda m, x: m.gradient(x), (-3, 3)),
    "gradient2": (lambda m, x: m.gradient(x, spacing=2.0, dim=1, edge_order=2), (-3, 3)),
    "sum_to_size": (lambda m, x: x.sum_to_size(1, x.shape[1]), (-3, 3)),
    "H": (lambda m, x: x.H, (-3, 3)),
    "cholesky_inverse": (lambda m, x: m.cholesky_inverse(m.tril(x) + m.eye(x.shape[0], x.shape[1], dtype=x.dtype) * 5), (-1, 1)),
    "vander": (lambda m, x: m.vander(x[0], 3), (-3, 3)),
    "vander_inc": (lambda m, x: m.vander(x[0], increasing=True), (-3, 3)),
}


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("op", sorted(UNARY))
def test_alias_against_torch(op, name):
    torch = torch_or_skip()
    fn, (lo, hi) = UNARY[op]
    p, t = make_pair(sample((4, 6), name, (op,), lo, hi), name)
    for label, pv, tv in layouts(p, t):
        if op in ("cov", "corrcoef") and label == "expanded":
            continue  # constant rows: both divide 0 by 0, NaN placement is not the point
        check_call(lambda: fn(pyth, pv), lambda: fn(torch, tv), rtol=2e-2 if name in
                   ("float16", "bfloat16") else None)


def test_inplace_aliases_and_views():
    torch = torch_or_skip()
    for name in ("arccos_", "arcsin_", "absolute_", "negative_", "fix_", "asinh_", "exp2_"):
        p, t = pyth.tensor([0.25, -0.5]), torch.tensor([0.25, -0.5])
        r = getattr(p, name)()
        assert r is p
        assert_same(p, getattr(t, name)())
    for name in ("greater_", "less_equal_", "multiply_", "subtract_", "divide_", "true_divide_"):
        p, t = pyth.tensor([0.25, -0.5]), torch.tensor([0.25, -0.5])
        assert_same(getattr(p, name)(0.25), getattr(t, name)(0.25))
    p, t = pyth.arange(6.0).reshape(2, 3), torch.arange(6.0).reshape(2, 3)
    assert_same(p.t_(), t.t_())
    assert_same(p.unsqueeze_(0), t.unsqueeze_(0))
    assert_same(p.squeeze_(), t.squeeze_())
    assert_same(p.transpose_(0, 1), t.transpose_(0, 1))
    assert_same(p.clamp_min_(2.0), t.clamp_min_(2.0))
    assert_same(p.clamp_max_(4.0), t.clamp_max_(4.0))
    assert_same(p.as_strided_((2,), (1,), 1), t.as_strided_((2,), (1,), 1))


def test_legacy_methods():
    torch = torch_or_skip()
    p, t = pyth.arange(6).reshape(2, 3), torch.arange(6).reshape(2, 3)
    assert p.new(2, 3).shape == (2, 3) and p.new([1, 2]).dtype is pyth.int64
    assert p.is_signed() and not p.byte().is_signed()
    assert p.is_same_size(pyth.zeros(2, 3)) and not p.is_same_size(pyth.zeros(3, 2))
    assert p.nbytes == t.nbytes and p.itemsize == t.itemsize
    assert p.t().dim_order() == t.t().dim_order()
    assert p.get_device() == t.get_device() == -1 and p.is_meta is False
    assert_same(p.nonzero_static(size=7), t.nonzero_static(size=7))
    assert_same(p.nonzero_static(size=2, fill_value=9), t.nonzero_static(size=2, fill_value=9))
    assert_same(p.split_with_sizes([1, 2], 1), t.split_with_sizes([1, 2], 1))
    q = pyth.zeros(2, 2)
    q.map2_(pyth.ones(2, 2), pyth.full((2,), 3.0), lambda a, b, c: a + b * c)
    assert q.tolist() == [[3.0, 3.0], [3.0, 3.0]]
    for name in ("eig", "symeig"):
        with pytest.raises(RuntimeError, match="deprecated"):
            getattr(p.float(), name)()


@pytest.mark.parametrize("name", ["float32", "float64"])
def test_histogram(name):
    torch = torch_or_skip()
    p, t = make_pair(sample((50,), name, ("h",)), name)
    for kw in ({}, {"range": (-2.0, 2.0)}, {"density": True}):
        check_call(lambda: pyth.histogram(p, 7, **kw), lambda: torch.histogram(t, 7, **kw))
    e, f = make_pair(np.array([-4.0, -1.0, 0.0, 3.0, 5.0]), name)
    w, u = make_pair(sample((50,), name, ("w",), 0, 2), name)
    check_call(lambda: pyth.histogram(p, e, weight=w), lambda: torch.histogram(t, f, weight=u))
    check_call(lambda: pyth.histogram(p.long(), 3), lambda: torch.histogram(t.long(), 3))


def test_index_reduce_and_unravel():
    torch = torch_or_skip()
    p, t = make_pair(sample((5, 3), "float32", ("ir",)), "float32")
    s, u = make_pair(sample((4, 3), "float32", ("irs",)), "float32")
    idx = [0, 4, 0, 2]
    for reduce in ("prod", "mean", "amax", "amin"):
        for inc in (True, False):
            check_call(lambda: p.index_reduce(0, pyth.tensor(idx), s, reduce, include_self=inc),
                       lambda: t.index_reduce(0, torch.tensor(idx), u, reduce, include_self=inc))
    check_call(lambda: pyth.unravel_index(pyth.tensor([0, 5, 23, -1]), (2, 3, 4)),
               lambda: torch.unravel_index(torch.tensor([0, 5, 23, -1]), (2, 3, 4)))
    check_call(lambda: pyth.unravel_index(pyth.tensor([24]), (2, 3, 4)),
               lambda: torch.unravel_index(torch.tensor([24]), (2, 3, 4)))


def test_combinations_cov_weights():
    torch = torch_or_skip()
    p, t = make_pair(np.arange(5.0), "float64")
    for r in (0, 1, 2, 3, 6):
        for rep in (False, True):
            check_call(lambda: pyth.combinations(p, r, rep), lambda: torch.combinations(t, r, rep))
    x, y = make_pair(sample((3, 8), "float64", ("cov",)), "float64")
    fw, gw = make_pair(sample((8,), "int64", ("fw",), 0, 3), "int64")
    aw, bw = make_pair(sample((8,), "float64", ("aw",), 0.1, 2), "float64")
    check_call(lambda: pyth.cov(x, correction=0, fweights=fw, aweights=aw),
               lambda: torch.cov(y, correction=0, fweights=gw, aweights=bw))
    check_call(lambda: pyth.cov(x, fweights=fw), lambda: torch.cov(y, fweights=gw))
    check_call(lambda: pyth.cov(x, aweights=aw), lambda: torch.cov(y, aweights=bw))


@pytest.mark.parametrize("name", ["float32", "float64"])
def test_older_lapack_names(name):
    torch = torch_or_skip()
    a, b = make_pair(sample((4, 3), name, ("svd",)), name)
    U, S, V = pyth.svd(a)
    recon = U.matmul(pyth.diag(S)).matmul(V.t())
    np.testing.assert_allclose(recon.numpy(), a.numpy(), rtol=1e-4, atol=1e-4)
    assert_same(S, torch.svd(b).S, rtol=1e-4, atol=1e-5)
    assert pyth.svd(a, some=False).U.shape == torch.svd(b, some=False).U.shape
    Q, R = pyth.qr(a)
    np.testing.assert_allclose(Q.matmul(R).numpy(), a.numpy(), rtol=1e-4, atol=1e-4)
    spd_np = sample((3, 3), name, ("spd",))
    spd_np = spd_np @ spd_np.T + 3 * np.eye(3)
    s, u = make_pair(spd_np, name)
    assert_same(pyth.cholesky(s), torch.linalg.cholesky(u), rtol=1e-4, atol=1e-5)
    assert_same(pyth.cholesky(s, upper=True), torch.linalg.cholesky(u, upper=True), rtol=1e-4,
                atol=1e-5)
    tri, utri = make_pair(np.triu(spd_np), name)
    rhs, urhs = make_pair(sample((3, 2), name, ("rhs",)), name)
    for upper in (True, False):
        for trans in (True, False):
            A, At = (tri, utri) if upper else (tri.t().contiguous(), utri.t().contiguous())
            check_call(lambda: pyth.triangular_solve(rhs, A, upper, trans),
                       lambda: torch.triangular_solve(urhs, At, upper, trans), rtol=1e-4,
                       atol=1e-5)
    low = pyth.svd_lowrank(a, q=3)
    rec = low.U.matmul(pyth.diag(low.S)).matmul(low.V.t())
    np.testing.assert_allclose(rec.numpy(), a.numpy(), rtol=1e-3, atol=1e-3)
    pc = pyth.pca_lowrank(a, q=2)
    assert pc.U.shape == (4, 2) and pc.V.shape == (3, 2)


def test_creation_from_memory(tmp_path):
    torch = torch_or_skip()
    for args in ((1, 4), (0, 1, 0.25), (3, 0, -1)):
        assert_same(pyth.range(*args), torch.range(*args))
    assert_same(pyth.range(0, 3, dtype=pyth.int64), torch.range(0, 3, dtype=torch.int64))
    e = pyth.empty_strided((2, 3), (1, 2))
    assert e.stride() == torch.empty_strided((2, 3), (1, 2)).stride()
    assert pyth.as_strided(pyth.arange(6), (2, 2), (1, 2), 1).tolist() == \
        torch.as_strided(torch.arange(6), (2, 2), (1, 2), 1).tolist()
    buf = bytearray(np.arange(4, dtype=np.int32).tobytes())
    f = pyth.frombuffer(buf, dtype=pyth.int32)
    assert f.tolist() == [0, 1, 2, 3]
    f[0] = 7
    assert np.frombuffer(buf, dtype=np.int32)[0] == 7  # shares the buffer
    assert pyth.frombuffer(bytes(buf), dtype=pyth.int16, count=2, offset=4).tolist() == \
        torch.frombuffer(bytearray(bytes(buf)), dtype=torch.int16, count=2, offset=4).tolist()
    path = str(tmp_path / "data.bin")
    np.arange(5, dtype=np.float32).tofile(path)
    assert pyth.from_file(path, size=5, dtype=pyth.float32).tolist() == [0, 1, 2, 3, 4]
    a = np.arange(3.0)
    d = pyth.from_dlpack(a)
    a[0] = 9
    assert d[0].item() == 9
    assert_same(pyth.from_dlpack(torch.arange(3)), torch.arange(3))
    assert pyth.ones(2).layout is pyth.strided and pyth.is_storage(pyth.ones(2).storage())


def test_coverage_script(tmp_path):
    out = tmp_path / "coverage.md"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    r = subprocess.run([sys.executable, os.path.join(root, "scripts", "api_coverage.py"),
                        "--output", str(out), "--check", "95"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    text = out.read_text()
    assert "| Pointwise |" in text and "Out of scope" in text
    pct = float(text.split("names in scope (")[1].split(" %")[0])
    assert pct >= 95
