"""Composed and kernel-backed pointwise math against PyTorch: the new pointwise ops (C kernels and compositions) on every
dtype and layout, their edge values, and the 1-D helpers (searchsorted, bucketize, bincount,
diff, kron, cross, cummax/cummin)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import pyth
from _support import (DTYPE_NAMES, assert_same, check_call, layouts, make_pair, sample,
                      torch_or_skip)

# name -> (pyth call, torch call, value range)
UNARY = {
    "erfc": (lambda m, x: m.erfc(x), (-3, 3)),
    "digamma": (lambda m, x: m.digamma(x), (-4.3, 6)),
    "i0": (lambda m, x: m.i0(x), (-8, 8)),
    "sinc": (lambda m, x: m.sinc(x), (-3, 3)),
    "deg2rad": (lambda m, x: m.deg2rad(x), (-5, 5)),
    "rad2deg": (lambda m, x: m.rad2deg(x), (-5, 5)),
    "logit": (lambda m, x: m.logit(x), (0.05, 0.95)),
    "logit_eps": (lambda m, x: m.logit(x, eps=0.2), (0, 1)),
    "square": (lambda m, x: m.square(x), (-5, 5)),
    "relu": (lambda m, x: m.relu(x), (-5, 5)),
    "nan_to_num": (lambda m, x: m.nan_to_num(x), (-5, 5)),
    "signbit": (lambda m, x: m.signbit(x), (-5, 5)),
    "sgn": (lambda m, x: m.sgn(x), (-5, 5)),
    "isposinf": (lambda m, x: m.isposinf(x), (-5, 5)),
    "polygamma1": (lambda m, x: m.polygamma(1, x), (0.3, 6)),
    "polygamma3": (lambda m, x: m.polygamma(3, x), (0.3, 6)),
    "polygamma0": (lambda m, x: m.polygamma(0, x), (0.3, 6)),
    "round2": (lambda m, x: m.round(x, decimals=2), (-5, 5)),
    "round_neg": (lambda m, x: m.round(x * 100, decimals=-1), (-5, 5)),
    "softmax": (lambda m, x: m.softmax(x, 1), (-5, 5)),
    "log_softmax": (lambda m, x: m.log_softmax(x, 0), (-5, 5)),
    "logcumsumexp": (lambda m, x: m.logcumsumexp(x, 1), (-5, 5)),
    "cumsum_ref": (lambda m, x: m.cumsum(x, 0), (-5, 5)),
}


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary_against_torch(op, name):
    torch = torch_or_skip()
    fn, (lo, hi) = UNARY[op]
    vals = sample((4, 6), name, (op,), lo, hi)
    if name not in ("float32", "float64", "float16", "bfloat16"):
        vals = np.clip(vals, lo, hi) if lo >= 0 else vals
    p, t = make_pair(vals, name)
    for label, pv, tv in layouts(p, t):
        check_call(lambda: fn(pyth, pv), lambda: fn(torch, tv))
    check_call(lambda: fn(pyth, p[:0]), lambda: fn(torch, t[:0]))


BINARY = {
    "copysign": lambda m, a, b: m.copysign(a, b),
    "nextafter": lambda m, a, b: m.nextafter(a, b),
    "xlogy": lambda m, a, b: m.xlogy(a, m.abs(b) + 1),
    "logaddexp": lambda m, a, b: m.logaddexp(a, b),
    "logaddexp2": lambda m, a, b: m.logaddexp2(a, b),
    "gcd": lambda m, a, b: m.gcd(a, b),
    "lcm": lambda m, a, b: m.lcm(a, b),
    "heaviside": lambda m, a, b: m.heaviside(a, b),
    "float_power": lambda m, a, b: m.float_power(m.abs(a) + 1, b),
    "fmax": lambda m, a, b: m.fmax(a, b),
    "fmin": lambda m, a, b: m.fmin(a, b),
    "isclose": lambda m, a, b: m.isclose(a, b, rtol=0.1, atol=0.5),
    "hypot": lambda m, a, b: m.hypot(a, b),
}


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_against_torch(op, name):
    torch = torch_or_skip()
    fn = BINARY[op]
    pa, ta = make_pair(sample((4, 6), name, (op, "a")), name)
    pb, tb = make_pair(sample((4, 6), name, (op, "b")), name)
    for (label, pv, tv), (_, pw, tw) in zip(layouts(pa, ta), layouts(pb, tb)):
        check_call(lambda: fn(pyth, pv, pw), lambda: fn(torch, tv, tw))
    # broadcast: a row against the matrix, and zero-size
    check_call(lambda: fn(pyth, pa[1], pb), lambda: fn(torch, ta[1], tb))
    check_call(lambda: fn(pyth, pa[:0], pb[:0]), lambda: fn(torch, ta[:0], tb[:0]))


def test_binary_out_and_method_and_inplace():
    torch = torch_or_skip()
    a = pyth.tensor([[1.5, -2.0], [0.0, 3.0]])
    b = pyth.tensor([[-1.0, 2.0], [-0.0, -3.0]])
    out = pyth.empty(0, dtype=pyth.float64)
    r = pyth.copysign(a, b, out=out)
    assert r is out and out.dtype is pyth.float64
    assert_same(a.copysign(b), torch.copysign(torch.tensor(a.tolist()), torch.tensor(b.tolist())))
    c = a.clone()
    c.logaddexp_(b) if hasattr(c, "logaddexp_") else None
    assert_same(c, torch.logaddexp(torch.tensor(a.tolist()), torch.tensor(b.tolist())))


def test_special_values():
    torch = torch_or_skip()
    v = [0.0, -0.0, -1.0, -1.5, 1e-3, 30.0, math.inf, -math.inf, math.nan]
    p, t = pyth.tensor(v, dtype=pyth.float64), torch.tensor(v, dtype=torch.float64)
    assert_same(pyth.digamma(p), torch.digamma(t))
    assert_same(pyth.erfc(p), torch.erfc(t))
    assert_same(pyth.i0(p), torch.i0(t))
    big = [0.0, 1.0, 20.0, 100.0, 700.0, 800.0]
    assert_same(pyth.i0(pyth.tensor(big, dtype=pyth.float64)),
                torch.i0(torch.tensor(big, dtype=torch.float64)), rtol=1e-12)
    ninf = [-math.inf, math.inf, 1.0, math.nan]
    for f in ("logaddexp", "logaddexp2"):
        a = pyth.tensor([-math.inf, math.inf, 1.0, 2.0])
        b = pyth.tensor(ninf)
        assert_same(getattr(pyth, f)(a, b), getattr(torch, f)(torch.tensor(a.tolist()),
                                                                torch.tensor(ninf)))
    assert_same(pyth.xlogy(pyth.tensor([0.0, 0.0, 1.0]), pyth.tensor([0.0, math.nan, 0.0])),
                torch.xlogy(torch.tensor([0.0, 0.0, 1.0]), torch.tensor([0.0, math.nan, 0.0])))
    x = pyth.tensor([math.nan, math.inf, -math.inf, 1.0], dtype=pyth.float16)
    assert_same(pyth.nan_to_num(x), torch.nan_to_num(torch.tensor(x.tolist(), dtype=torch.half)))
    assert_same(pyth.nan_to_num(x, nan=1, posinf=2, neginf=-3),
                torch.nan_to_num(torch.tensor(x.tolist(), dtype=torch.half), 1, 2, -3))
    assert_same(pyth.polygamma(2, pyth.tensor([-1.5, -0.25], dtype=pyth.float64)),
                torch.polygamma(2, torch.tensor([-1.5, -0.25], dtype=torch.float64)))
    assert_same(pyth.signbit(pyth.tensor([-0.0, 0.0, -1.0])),
                torch.signbit(torch.tensor([-0.0, 0.0, -1.0])))


def test_gcd_lcm_numpy_oracle():
    g = np.random.default_rng(3)
    a, b = g.integers(-1000, 1000, 50), g.integers(-1000, 1000, 50)
    pa, pb = pyth.tensor(a), pyth.tensor(b)
    assert pyth.gcd(pa, pb).tolist() == np.gcd(a, b).tolist()
    assert pyth.lcm(pa, pb).tolist() == np.lcm(a, b).tolist()


def test_format_and_apply_map():
    x = pyth.tensor(0.123456)
    assert f"{x:.3f}" == "0.123"
    assert f"{pyth.tensor(7):>4}" == "   7"
    with pytest.raises(TypeError):
        f"{pyth.tensor([1.0, 2.0]):.2f}"
    t = pyth.arange(6).reshape(2, 3)
    assert t.t().contiguous().apply_(lambda v: v * 10).tolist() == [[0, 30], [10, 40], [20, 50]]
    u = pyth.ones(2, 3)
    u.map_(pyth.tensor([1.0, 2.0, 3.0]), lambda a, b: a + b)
    assert u.tolist() == [[2, 3, 4], [2, 3, 4]]


# ---- 1-D helpers ----

@pytest.mark.parametrize("name", ["int64", "int32", "float32", "float64", "int16", "uint8"])
@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_bucketize(name, right):
    torch = torch_or_skip()
    seq = np.sort(sample((40,), name, ("s",), 0, 9))
    vals = sample((3, 7), name, ("v",), -1, 11)
    ps, ts = make_pair(seq, name)
    pv, tv = make_pair(vals, name)
    check_call(lambda: pyth.searchsorted(ps, pv, right=right),
               lambda: torch.searchsorted(ts, tv, right=right))
    check_call(lambda: pyth.searchsorted(ps, pv.t(), side="right" if right else "left",
                                         out_int32=True),
               lambda: torch.searchsorted(ts, tv.t(), side="right" if right else "left",
                                          out_int32=True))
    check_call(lambda: pyth.bucketize(pv, ps, right=right),
               lambda: torch.bucketize(tv, ts, right=right))
    # batched sorted rows, and an empty sequence
    rows = np.sort(sample((3, 5), name, ("r",), 0, 9), axis=1)
    pr, tr = make_pair(rows, name)
    check_call(lambda: pyth.searchsorted(pr, pv, right=right),
               lambda: torch.searchsorted(tr, tv, right=right))
    check_call(lambda: pyth.searchsorted(ps[:0], pv), lambda: torch.searchsorted(ts[:0], tv))
    check_call(lambda: pyth.searchsorted(ps, 4), lambda: torch.searchsorted(ts, 4))


def test_searchsorted_sorter_and_errors():
    torch = torch_or_skip()
    seq = [3.0, 1.0, 2.0]
    sorter = [1, 2, 0]
    assert_same(pyth.searchsorted(pyth.tensor(seq), pyth.tensor([2.5]),
                                  sorter=pyth.tensor(sorter)),
                torch.searchsorted(torch.tensor(seq), torch.tensor([2.5]),
                                   sorter=torch.tensor(sorter)))
    with pytest.raises(RuntimeError):
        pyth.searchsorted(pyth.ones(2, 3), pyth.ones(3, 3))
    with pytest.raises(RuntimeError):
        pyth.searchsorted(pyth.ones(3), pyth.ones(3), side="middle")


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_bincount(name):
    torch = torch_or_skip()
    v = sample((30,), name, ("bc",), 0, 7)
    p, t = make_pair(v, name)
    check_call(lambda: pyth.bincount(p), lambda: torch.bincount(t))
    check_call(lambda: pyth.bincount(p, minlength=12), lambda: torch.bincount(t, minlength=12))
    for wname in ("float32", "float64", "int32"):
        pw, tw = make_pair(sample((30,), wname, ("w",)), wname)
        check_call(lambda: pyth.bincount(p, pw), lambda: torch.bincount(t, tw))
    check_call(lambda: pyth.bincount(p[:0]), lambda: torch.bincount(t[:0]))
    with pytest.raises(RuntimeError):
        pyth.bincount(pyth.tensor([-1, 2]))


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_diff_kron_cross(name):
    torch = torch_or_skip()
    p, t = make_pair(sample((4, 6), name, ("d",)), name)
    for label, pv, tv in layouts(p, t):
        check_call(lambda: pyth.diff(pv), lambda: torch.diff(tv))
        check_call(lambda: pyth.diff(pv, n=2, dim=0), lambda: torch.diff(tv, n=2, dim=0))
        check_call(lambda: pyth.diff(pv, dim=1, prepend=pv[:, :1], append=pv[:, :2]),
                   lambda: torch.diff(tv, dim=1, prepend=tv[:, :1], append=tv[:, :2]))
        check_call(lambda: pyth.kron(pv, pv[:2, :3]), lambda: torch.kron(tv, tv[:2, :3]))
    q, u = make_pair(sample((3, 4), name, ("c",)), name)
    check_call(lambda: pyth.cross(q, q.flip(0), dim=0), lambda: torch.cross(u, u.flip(0), dim=0))
    check_call(lambda: pyth.linalg.cross(q.t(), q.t().flip(1)),
               lambda: torch.linalg.cross(u.t(), u.t().flip(1)))
    check_call(lambda: pyth.kron(p[0], p[:, 0]), lambda: torch.kron(t[0], t[:, 0]))


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_cummax_cummin(op, name):
    torch = torch_or_skip()
    p, t = make_pair(sample((5, 9), name, (op,), -3, 3), name)
    for label, pv, tv in layouts(p, t):
        for dim in (0, 1, -1):
            check_call(lambda: getattr(pyth, op)(pv, dim), lambda: getattr(torch, op)(tv, dim))
    check_call(lambda: getattr(p[:0], op)(0), lambda: getattr(t[:0], op)(0))
    check_call(lambda: getattr(pyth, op)(p[0, 0], 0), lambda: getattr(torch, op)(t[0, 0], 0))


def test_cummax_nan():
    torch = torch_or_skip()
    v = [1.0, 3, 3, math.nan, 2, math.nan, 5]
    assert_same(pyth.cummax(pyth.tensor(v), 0), torch.cummax(torch.tensor(v), 0))
    assert_same(pyth.cummin(pyth.tensor(v), 0), torch.cummin(torch.tensor(v), 0))


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32", "float64"])
def test_nextafter_exact(name):
    torch = torch_or_skip()
    a = [0.0, 1.0, -1.0, 2.5, -0.0, 1e-3, 3.0, math.nan]
    b = [1.0, 2.0, -2.0, 0.0, -1.0, -1.0, 3.0, 1.0]
    p = pyth.nextafter(pyth.tensor(a).to(getattr(pyth, name)), pyth.tensor(b).to(getattr(pyth, name)))
    t = torch.nextafter(torch.tensor(a).to(getattr(torch, name)),
                        torch.tensor(b).to(getattr(torch, name)))
    assert_same(p, t, rtol=0, atol=0)
