"""Composed indexing ops against PyTorch: index_put(_), take_along_dim, scatter_reduce,
fill_diagonal_, *_scatter, on every dtype and on non-contiguous inputs."""

from __future__ import annotations

import numpy as np
import pytest

import pyth
from _support import DTYPE_NAMES, assert_same, check_call, make_pair, sample, torch_or_skip


def _idx(torch, values):
    return pyth.tensor(values), torch.tensor(values)


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put(name, accumulate):
    torch = torch_or_skip()
    p, t = make_pair(sample((4, 5), name, ("ip",)), name)
    v, u = make_pair(sample((3,), name, ("v",)), name)
    (pi, ti), (pj, tj) = _idx(torch, [0, 2, 0]), _idx(torch, [1, 4, 1])
    for pv, tv in ((p, t), (p.t().contiguous().t(), t.t().contiguous().t()),
                   (p.t(), t.t())):
        check_call(lambda: pyth.index_put(pv, (pi, pj if pv.size(1) == 5 else pi), v, accumulate),
                   lambda: torch.index_put(tv, (ti, tj if tv.size(1) == 5 else ti), u, accumulate))
    # leading-dim indices with slices behind them, broadcast values, a bool mask
    r, s = make_pair(sample((5,), name, ("r",)), name)
    check_call(lambda: p.clone().index_put_((pi,), r, accumulate=accumulate),
               lambda: t.clone().index_put_((ti,), s, accumulate=accumulate))
    mask_p, mask_t = p.gt(0) if name != "bool" else p, t.gt(0) if name != "bool" else t
    check_call(lambda: p.clone().index_put_((mask_p,), v[0], accumulate=accumulate),
               lambda: t.clone().index_put_((mask_t,), u[0], accumulate=accumulate))
    # in place on a transposed view writes through to the base
    base, tbase = p.clone(), t.clone()
    base.t().index_put_((pj, pi), v, accumulate=accumulate)
    tbase.t().index_put_((tj, ti), u, accumulate=accumulate)
    assert_same(base, tbase)


def test_index_put_errors():
    torch = torch_or_skip()
    p, t = pyth.zeros(2, 3), torch.zeros(2, 3)
    check_call(lambda: p.index_put_((pyth.tensor([5]),), pyth.tensor(1.0), accumulate=True),
               lambda: t.index_put_((torch.tensor([5]),), torch.tensor(1.0), accumulate=True))
    check_call(lambda: p.index_put_((pyth.tensor([0]),), pyth.tensor(1.0, dtype=pyth.float64)),
               lambda: t.index_put_((torch.tensor([0]),), torch.tensor(1.0, dtype=torch.float64)))


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_take_along_dim(name):
    torch = torch_or_skip()
    p, t = make_pair(sample((3, 4), name, ("tad",)), name)
    idx = np.random.default_rng(1).integers(0, 4, size=(3, 2))
    pi, ti = pyth.tensor(idx), torch.tensor(idx)
    check_call(lambda: pyth.take_along_dim(p, pi, 1), lambda: torch.take_along_dim(t, ti, 1))
    check_call(lambda: pyth.take_along_dim(p.t(), pi.t(), 0),
               lambda: torch.take_along_dim(t.t(), ti.t(), 0))
    check_call(lambda: p.take_along_dim(pi[:1], 1), lambda: t.take_along_dim(ti[:1], 1))
    check_call(lambda: pyth.take_along_dim(p, pyth.tensor([11, 0])),
               lambda: torch.take_along_dim(t, torch.tensor([11, 0])))
    check_call(lambda: pyth.take_along_dim(p, pi[:, :0], 1),
               lambda: torch.take_along_dim(t, ti[:, :0], 1))
    check_call(lambda: pyth.take_along_dim(p, pi.int(), 1),
               lambda: torch.take_along_dim(t, ti.int(), 1))


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce(name, reduce, include_self):
    torch = torch_or_skip()
    p, t = make_pair(sample((4, 5), name, ("sr",), -3, 3), name)
    s, u = make_pair(sample((6, 5), name, ("src",), -3, 3), name)
    idx = np.random.default_rng(2).integers(0, 4, size=(6, 5))
    pi, ti = pyth.tensor(idx), torch.tensor(idx)
    check_call(lambda: pyth.scatter_reduce(p, 0, pi, s, reduce, include_self=include_self),
               lambda: torch.scatter_reduce(t, 0, ti, u, reduce, include_self=include_self))
    check_call(lambda: p.t().scatter_reduce(1, pi[:4, :3].t(), s.t(), reduce,
                                            include_self=include_self),
               lambda: t.t().scatter_reduce(1, ti[:4, :3].t(), u.t(), reduce,
                                            include_self=include_self))
    q, w = p.clone(), t.clone()
    check_call(lambda: q.scatter_reduce_(1, pi[:4, :2] % 5, s[:4, :2], reduce,
                                         include_self=include_self),
               lambda: w.scatter_reduce_(1, ti[:4, :2] % 5, u[:4, :2], reduce,
                                         include_self=include_self))


def test_scatter_reduce_errors():
    torch = torch_or_skip()
    p, t = pyth.zeros(3), torch.zeros(3)
    for args in ((0, [5], [1.0], "sum"), (0, [0], [1.0], "max")):
        check_call(lambda: p.scatter_reduce(args[0], pyth.tensor(args[1]), pyth.tensor(args[2]),
                                            args[3]),
                   lambda: t.scatter_reduce(args[0], torch.tensor(args[1]), torch.tensor(args[2]),
                                            args[3]))


@pytest.mark.parametrize("shape,wrap", [((3, 3), False), ((7, 3), True), ((7, 3), False),
                                        ((3, 5), True), ((3, 3, 3), False), ((0, 2), False)])
def test_fill_diagonal(shape, wrap):
    torch = torch_or_skip()
    p, t = pyth.zeros(*shape), torch.zeros(*shape)
    assert_same(p.fill_diagonal_(5, wrap=wrap), t.fill_diagonal_(5, wrap=wrap))
    if len(shape) == 2:
        q, u = pyth.zeros(*shape[::-1]).t(), torch.zeros(*shape[::-1]).t()
        assert_same(q.fill_diagonal_(2, wrap=wrap), u.fill_diagonal_(2, wrap=wrap))
    with pytest.raises(RuntimeError):
        pyth.zeros(2, 3, 4).fill_diagonal_(1)


def test_scatter_family():
    torch = torch_or_skip()
    p, t = pyth.zeros(4, 4), torch.zeros(4, 4)
    assert_same(pyth.slice_scatter(p, pyth.ones(2, 4), 0, 0, 4, 2),
                torch.slice_scatter(t, torch.ones(2, 4), 0, 0, 4, 2))
    assert_same(pyth.select_scatter(p, pyth.ones(4), 1, 2), torch.select_scatter(t, torch.ones(4), 1, 2))
    assert_same(pyth.diagonal_scatter(p, pyth.ones(3), 1), torch.diagonal_scatter(t, torch.ones(3), 1))
    check_call(lambda: pyth.select_scatter(p, pyth.ones(3), 1, 2),
               lambda: torch.select_scatter(t, torch.ones(3), 1, 2))


@pytest.mark.parametrize("reduce", ["amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_nan_and_extremes(reduce, include_self):
    torch = torch_or_skip()
    nan, inf = float("nan"), float("inf")
    base = [1.0, nan, -inf, 0.0]
    src = [nan, 2.0, 5.0, -1.0, inf, -inf]
    idx = [0, 0, 1, 2, 3, 3]
    for name in ("float32", "float64", "float16", "bfloat16"):
        p = pyth.tensor(base).to(getattr(pyth, name))
        t = torch.tensor(base).to(getattr(torch, name))
        assert_same(p.scatter_reduce(0, pyth.tensor(idx), pyth.tensor(src).to(p.dtype), reduce,
                                     include_self=include_self),
                    t.scatter_reduce(0, torch.tensor(idx), torch.tensor(src).to(t.dtype), reduce,
                                     include_self=include_self))
    for name in ("int8", "uint8", "int64", "bool"):
        p, t = make_pair(np.array([3, 0, 1, 2]), name)
        s, u = make_pair(np.array([1, 0, 1, 1, 0, 1]), name)
        assert_same(p.scatter_reduce(0, pyth.tensor(idx), s, reduce, include_self=include_self),
                    t.scatter_reduce(0, torch.tensor(idx), u, reduce, include_self=include_self))
