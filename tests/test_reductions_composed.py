"""Composed reductions, sorting additions and einsum against PyTorch (every dtype, transposed /
stepped / expanded / zero-size inputs)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import pyth
from _support import (DTYPE_NAMES, assert_same, check_call, layouts, make_pair,
                      sample, torch_or_skip)

REDUCTIONS = {
    "aminmax": lambda m, x: m.aminmax(x),
    "aminmax_dim": lambda m, x: m.aminmax(x, dim=1, keepdim=True),
    "var_mean": lambda m, x: m.var_mean(x, 1),
    "std_mean": lambda m, x: m.std_mean(x, dim=0, correction=0, keepdim=True),
    "var_mean_all": lambda m, x: m.var_mean(x),
    "nansum": lambda m, x: m.nansum(x),
    "nansum_dim": lambda m, x: m.nansum(x, 1, keepdim=True),
    "nanmean": lambda m, x: m.nanmean(x, 0),
    "nanmean_all": lambda m, x: m.nanmean(x),
    "count_nonzero": lambda m, x: m.count_nonzero(x),
    "count_nonzero_dim": lambda m, x: m.count_nonzero(x, 1),
    "count_nonzero_dims": lambda m, x: m.count_nonzero(x, (0, 1)),
    "logcumsumexp": lambda m, x: m.logcumsumexp(x, 0),
    "trace": lambda m, x: m.trace(x),
    "quantile": lambda m, x: m.quantile(x, 0.3, dim=1),
    "quantile_all": lambda m, x: m.quantile(x, 0.5),
    "nanquantile": lambda m, x: m.nanquantile(x, 0.7, dim=0, keepdim=True),
    "unique_consecutive": lambda m, x: m.unique_consecutive(x, return_inverse=True,
                                                            return_counts=True),
    "unique_consecutive_dim": lambda m, x: m.unique_consecutive(x, return_counts=True, dim=0),
    "msort": lambda m, x: m.msort(x),
    "nanmedian": lambda m, x: m.nanmedian(x),
}


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("op", sorted(REDUCTIONS))
def test_reductions_against_torch(op, name):
    torch = torch_or_skip()
    fn = REDUCTIONS[op]
    lo, hi = (-2, 2) if "unique" in op else (-5, 5)
    p, t = make_pair(sample((4, 6), name, (op,), lo, hi), name)
    for label, pv, tv in layouts(p, t):
        check_call(lambda: fn(pyth, pv), lambda: fn(torch, tv))
    if op != "nanmedian":  # (an existing op; torch's zero-size bool case is its own quirk)
        check_call(lambda: fn(pyth, p[:0]), lambda: fn(torch, t[:0]))


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("name", ["float32", "float64"])
def test_quantile_modes_and_nan(interpolation, name):
    torch = torch_or_skip()
    v = sample((3, 7), name, ("q",))
    v[1, 2] = np.nan
    v[2, :] = np.nan
    p, t = make_pair(v, name)
    q = [0.0, 0.25, 0.5, 0.9, 1.0]
    pq, tq = pyth.tensor(q, dtype=getattr(pyth, name)), torch.tensor(q, dtype=getattr(torch, name))
    for f in ("quantile", "nanquantile"):
        for dim, keep in ((1, False), (0, True), (None, False), (None, True)):
            check_call(lambda: getattr(pyth, f)(p, pq, dim, keep, interpolation=interpolation),
                       lambda: getattr(torch, f)(t, tq, dim, keep, interpolation=interpolation))
            check_call(lambda: getattr(pyth, f)(p.t(), 0.4, dim, keep,
                                                interpolation=interpolation),
                       lambda: getattr(torch, f)(t.t(), 0.4, dim, keep,
                                                 interpolation=interpolation))


def test_quantile_errors():
    torch = torch_or_skip()
    p, t = pyth.ones(3), torch.ones(3)
    for fp, ft in [(lambda: pyth.quantile(p, 1.5), lambda: torch.quantile(t, 1.5)),
                   (lambda: pyth.quantile(p.long(), 0.5), lambda: torch.quantile(t.long(), 0.5)),
                   (lambda: pyth.quantile(p, pyth.ones(1, 1)), lambda: torch.quantile(t, torch.ones(1, 1))),
                   (lambda: pyth.quantile(p, 0.5, interpolation="x"),
                    lambda: torch.quantile(t, 0.5, interpolation="x")),
                   (lambda: pyth.quantile(p[:0], 0.5), lambda: torch.quantile(t[:0], 0.5))]:
        check_call(fp, ft)


def test_logcumsumexp_extremes():
    torch = torch_or_skip()
    v = [-1000.0, 0.0, -math.inf, 5.0, math.inf, 1.0]
    assert_same(pyth.logcumsumexp(pyth.tensor(v, dtype=pyth.float64), 0),
                torch.logcumsumexp(torch.tensor(v, dtype=torch.float64), 0))


# ---- einsum ----

EQUATIONS = [
    ("ij,jk->ik", [(3, 4), (4, 5)]), ("ij,jk", [(3, 4), (4, 5)]), ("ii", [(4, 4)]),
    ("ii->i", [(4, 4)]), ("ij->ji", [(3, 4)]), ("ij->", [(3, 4)]), ("i,i->", [(5,), (5,)]),
    ("i,j->ij", [(3,), (4,)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]), ("b...,b...->b", [(2, 3, 4), (2, 3, 4)]),
    ("ij,ij->ij", [(3, 4), (3, 4)]), ("iij->j", [(3, 3, 4)]), ("ijk,ikl,ilm->ijm",
                                                                [(2, 3, 4), (2, 4, 5), (2, 5, 2)]),
    ("ab,cd->", [(2, 3), (4, 5)]), ("Ab,bC->CA", [(2, 3), (3, 4)]), ("i,i,i->i", [(4,), (4,), (4,)]),
    ("...", [(2, 3)]), ("ij,j->i", [(3, 5), (5,)]), ("ij,kj->ik", [(3, 1), (2, 1)]), ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("ijkl->ljk", [(2, 3, 4, 5)]), ("i...->...", [(3, 2, 2)]),
]


@pytest.mark.parametrize("eq,shapes", EQUATIONS, ids=[e for e, _ in EQUATIONS])
@pytest.mark.parametrize("name", ["float32", "float64", "int64", "int32", "int16", "int8",
                                  "uint8", "float16", "bfloat16", "bool"])
def test_einsum(eq, shapes, name):
    torch = torch_or_skip()
    pairs = [make_pair(sample(s, name, (eq, i)), name) for i, s in enumerate(shapes)]
    ps, ts = [a for a, _ in pairs], [b for _, b in pairs]
    loose = name in ("float16", "bfloat16")
    check_call(lambda: pyth.einsum(eq, *ps), lambda: torch.einsum(eq, *ts),
               rtol=5e-2 if loose else None, atol=5e-2 if loose else None)
    # transposed-then-transposed-back operands (non-contiguous, same values)
    ps2 = [x.t().contiguous().t() if x.dim() == 2 else x for x in ps]
    check_call(lambda: pyth.einsum(eq, ps2), lambda: torch.einsum(eq, ts),
               rtol=5e-2 if loose else None, atol=5e-2 if loose else None)


def test_einsum_sublist_and_errors():
    torch = torch_or_skip()
    a, b = make_pair(sample((3, 4), "float64"), "float64")
    c, d = make_pair(sample((4, 2), "float64"), "float64")
    assert_same(pyth.einsum(a, [0, 1], c, [1, 2], [0, 2]), torch.einsum(b, [0, 1], d, [1, 2], [0, 2]))
    assert_same(pyth.einsum(a, [0, 1], c, [1, 2]), torch.einsum(b, [0, 1], d, [1, 2]))
    assert_same(pyth.einsum(a, [Ellipsis, 1], [1]), torch.einsum(b, [Ellipsis, 1], [1]))
    for eq, ops_p, ops_t in [("ij,jk->ik", (a, a), (b, b)), ("ij->k", (a,), (b,)),
                             ("ij,jk", (a,), (b,)), ("ij->ii", (a,), (b,)), ("i1", (a,), (b,)),
                             ("ijk", (a,), (b,)), ("ii", (a,), (b,))]:
        check_call(lambda: pyth.einsum(eq, *ops_p), lambda: torch.einsum(eq, *ops_t))


def test_einsum_zero_size():
    torch = torch_or_skip()
    a, b = make_pair(np.zeros((3, 0)), "float32")
    c, d = make_pair(np.zeros((0, 4)), "float32")
    assert_same(pyth.einsum("ij,jk->ik", a, c), torch.einsum("ij,jk->ik", b, d))
    assert_same(pyth.einsum("ij,jk->ij", a, c), torch.einsum("ij,jk->ij", b, d))
