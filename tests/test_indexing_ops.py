"""Oracle tests for pyth's indexing ops (pyth/_prims/indexing.py, generic/THTensorIndex.c).

Every op is compared with numpy where numpy has an equivalent (np.take, np.take_along_axis,
np.put, np.add.at / np.multiply.at for duplicate indices, boolean masks, np.argwhere) and with
PyTorch (when installed), for all ten dtypes and for contiguous, transposed, stepped, expanded,
size-0 and 0-dim inputs, in function, method, out= and in-place forms. The error tests check the
exception type, the message's keywords and that a failing call wrote nothing.
"""
import numpy as np
import pytest
from _support import (
    DTYPE_NAMES,
    FLOATS,
    LAYOUTS,
    NP_CARRIER,
    distinct_values,
    kw,
    laid_out_as,
    np_via_tolist,
    rows_repeated,
    tensor_of,
    torch_values,
)
from pyth._th import lib

import pyth

# torch warns that scatter_(reduce=) with a src tensor is deprecated; it is the oracle here
pytestmark = pytest.mark.filterwarnings("ignore:The reduce argument of torch.scatter")

WRITABLE = ["contig", "transposed", "stepped"]


def L(a):
    return pyth.tensor(np.asarray(a, dtype=np.int64))


def build(shape, name, layout, seed=0, small=False):
    """(pyth tensor with the given layout, numpy array with its values)."""
    a = distinct_values(shape, name, seed, small)
    if layout == "expanded" and a.ndim:
        a = rows_repeated(a)
    return laid_out_as(a, name, layout), a


def check(got, exp):
    assert tuple(got.shape) == tuple(np.shape(exp)), f"shape {tuple(got.shape)} != {np.shape(exp)}"
    np.testing.assert_array_equal(np_via_tolist(got), exp)


class grain_one:
    """Within it every kernel is split among OpenMP threads (grain 1), however small."""

    def __enter__(self):
        self.old = lib.THGetGrainSize()
        lib.THSetGrainSize(1)

    def __exit__(self, *exc):
        lib.THSetGrainSize(self.old)


def T(a, name):
    """A torch tensor holding a copy of numpy array a, in dtype name."""
    torch = pytest.importorskip("torch")
    t = torch.from_numpy(np.array(a))
    return t.to(getattr(torch, name))


# --------------------------------------------------------------------------------------------
# index_select
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_index_select_matches_numpy(name, layout):
    t, a = build((4, 5, 6), name, layout)
    for dim, idx in [(0, [3, 0, 0, 2]), (1, [4]), (2, [5, 1, 3, 1, 0]), (-1, [2, 2]),
                     (-3, []), (1, [[1]][0])]:
        exp = np.take(a, np.array(idx, np.int64), axis=dim)
        check(pyth.index_select(t, dim, L(idx)), exp)
        check(t.index_select(dim, L(idx)), exp)
    out = pyth.empty(0, dtype=t.dtype)
    r = pyth.index_select(t, 1, L([0, 4]), out=out)
    assert r is out
    check(out, np.take(a, [0, 4], axis=1))


def test_index_select_shapes_and_int32_index():
    t = pyth.tensor(np.arange(12.0).reshape(3, 4))
    check(t.index_select(1, pyth.tensor([3, 0], dtype=pyth.int32)), [[3, 0], [7, 4], [11, 8]])
    check(t.index_select(1, pyth.tensor(2)), [[2], [6], [10]])      # 0-dim index keeps the dim
    s = pyth.tensor(5.0)
    check(s.index_select(0, L([0])), np.array(5.0))                # 0-dim input stays 0-dim
    check(s.index_select(-1, pyth.tensor(0)), np.array(5.0))
    check(pyth.zeros(0, 3).index_select(1, L([2, 0])), np.zeros((0, 2)))


def test_index_select_matches_torch():
    torch = pytest.importorskip("torch")
    for name in DTYPE_NAMES:
        t, a = build((3, 4, 5), name, "transposed")
        for dim, idx in [(0, [2, 0]), (2, [4, 4, 1]), (-2, [3])]:
            exp = torch.index_select(T(a, name), dim, torch.tensor(idx))
            np.testing.assert_array_equal(np_via_tolist(t.index_select(dim, L(idx))), torch_values(exp))


# --------------------------------------------------------------------------------------------
# gather
# --------------------------------------------------------------------------------------------

def np_gather(a, dim, idx):
    cut = a[tuple(slice(None) if d == dim % a.ndim else slice(0, s)
                  for d, s in enumerate(idx.shape))]
    return np.take_along_axis(cut, idx, axis=dim)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_gather_matches_numpy(name, layout):
    t, a = build((4, 5, 6), name, layout)
    rng = np.random.default_rng(1)
    for dim, ishape in [(0, (7, 5, 6)), (1, (4, 2, 6)), (2, (2, 3, 9)), (-1, (4, 5, 1)),
                        (1, (0, 5, 6))]:
        idx = rng.integers(0, a.shape[dim], ishape)
        exp = np_gather(a, dim, idx)
        check(pyth.gather(t, dim, L(idx)), exp)
        check(t.gather(dim, L(idx)), exp)
        # a transposed index works too
        it = L(idx.transpose(2, 1, 0).copy()).permute(2, 1, 0)
        check(t.gather(dim, it), exp)


def test_gather_0dim_and_torch():
    torch = pytest.importorskip("torch")
    check(pyth.tensor(5.0).gather(0, pyth.tensor(0)), np.array(5.0))
    check(pyth.tensor([1.0, 2, 3]).gather(0, pyth.tensor(1)), np.array(2.0))
    check(pyth.tensor(7.0).gather(0, L([0, 0])), np.array([7.0, 7.0]))
    for name in DTYPE_NAMES:
        t, a = build((3, 4), name, "stepped")
        idx = np.array([[3, 0], [1, 1]])
        exp = torch.gather(T(a, name), 1, torch.from_numpy(idx))
        np.testing.assert_array_equal(np_via_tolist(t.gather(1, L(idx))), torch_values(exp))


# --------------------------------------------------------------------------------------------
# take / put_
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_take_matches_numpy(name, layout):
    t, a = build((3, 4, 5), name, layout)
    for idx in ([0, 59, -1, -60, 17, 17], [[1, 2], [3, -4]], 7, []):
        idx = np.array(idx, np.int64)
        exp = np.take(a, idx)
        check(pyth.take(t, L(idx)), exp)
        check(t.take(L(idx)), exp)
    check(pyth.tensor(5.0).take(L([0, -1])), np.array([5.0, 5.0]))


@pytest.mark.parametrize("layout", WRITABLE)
@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_put_matches_numpy(name, layout):
    t, a = build((3, 4, 5), name, layout)
    idx = np.array([[0, 59], [-1 - 5, 17]], np.int64)           # distinct positions
    src = distinct_values((4,), name, seed=3)
    exp = a.copy()
    np.put(exp, idx, src)
    r = t.put_(L(idx), tensor_of(src, name))
    assert r is t
    check(t, exp)
    # accumulate with duplicates: np.add.at on the flat array
    t, a = build((3, 4, 5), name, layout, small=True)
    idx = np.array([1, 1, 1, 58, -2, 30, 30], np.int64)
    src = distinct_values((7,), name, seed=4, small=True)
    exp = a.copy().reshape(-1)
    np.add.at(exp, idx, src)
    t.put_(L(idx), tensor_of(src, name), accumulate=True)
    check(t, exp.reshape(a.shape))


def test_put_out_of_place_and_torch():
    torch = pytest.importorskip("torch")
    for name in DTYPE_NAMES:
        t, a = build((3, 4), name, "transposed", small=True)
        idx = np.array([[0, 11], [5, 5]])
        src = distinct_values((4,), name, seed=2, small=True)
        exp = T(a, name).put(torch.from_numpy(idx), T(src, name), accumulate=True)
        got = pyth.put(t, L(idx), tensor_of(src, name), accumulate=True)
        np.testing.assert_array_equal(np_via_tolist(got), torch_values(exp))
        check(t, a)                                                # input untouched
        got = t.put(L(idx[:, :1]), tensor_of(src[:2], name))
        exp = torch.put(T(a, name), torch.from_numpy(idx[:, :1]), T(src[:2], name))
        np.testing.assert_array_equal(np_via_tolist(got), torch_values(exp))


# --------------------------------------------------------------------------------------------
# index_copy_, index_add_, index_fill_
# --------------------------------------------------------------------------------------------

def np_slices(a, dim, k):
    return (slice(None),) * (dim % a.ndim) + (k,)


@pytest.mark.parametrize("layout", WRITABLE)
@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_index_copy_matches_numpy(name, layout):
    for dim, idx in [(0, [3, 0]), (1, [4, 1, 2]), (-1, [5, 0, 3, 1]), (2, [])]:
        t, a = build((4, 5, 6), name, layout)
        sshape = list(a.shape)
        sshape[dim] = len(idx)
        src = distinct_values(sshape, name, seed=9)
        exp = a.copy()
        exp[np_slices(a, dim, np.array(idx, np.int64))] = src
        r = t.index_copy_(dim, L(idx), tensor_of(src, name))
        assert r is t
        check(t, exp)
    t, a = build((4, 5, 6), name, layout)
    src = distinct_values((4, 2, 6), name, seed=9)
    got = pyth.index_copy(t, 1, L([4, 0]), tensor_of(src, name))
    exp = a.copy()
    exp[:, [4, 0]] = src
    check(got, exp)
    check(t, a)
    check(t.index_copy(1, L([4, 0]), tensor_of(src, name)), exp)


@pytest.mark.parametrize("layout", WRITABLE)
@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_index_add_accumulates_duplicates(name, layout):
    for dim, idx in [(0, [1, 1, 3, 1]), (1, [0, 4, 0]), (-1, [5, 5, 5, 2, 0]), (2, [])]:
        t, a = build((4, 5, 6), name, layout, small=True)
        sshape = list(a.shape)
        sshape[dim] = len(idx)
        src = distinct_values(sshape, name, seed=5, small=True)
        exp = a.copy()
        np.add.at(exp, np_slices(a, dim, np.array(idx, np.int64)), src)
        t.index_add_(dim, L(idx), tensor_of(src, name))
        check(t, exp)


def test_index_add_alpha_wraps_and_torch():
    torch = pytest.importorskip("torch")
    for name in DTYPE_NAMES:
        t, a = build((3, 4), name, "transposed", small=True)
        src = distinct_values((3, 2), name, seed=6, small=True)
        idx = [3, 3]
        alpha = True if name == "bool" else 2
        exp = torch.index_add(T(a, name), 1, torch.tensor(idx), T(src, name), alpha=alpha)
        np.testing.assert_array_equal(np_via_tolist(pyth.index_add(t, 1, L(idx), tensor_of(src, name), alpha=alpha)),
                                      torch_values(exp))
        src2 = distinct_values((3, 4), name, seed=7, small=True)
        exp = T(a, name).index_add_(0, torch.tensor([2, 0, 2]), T(src2, name))
        got = t.index_add_(0, pyth.tensor([2, 0, 2], dtype=pyth.int32), tensor_of(src2, name))
        np.testing.assert_array_equal(np_via_tolist(got), torch_values(exp))
    # integer arithmetic wraps as numpy's does
    t = pyth.tensor(np.array([250, 10], np.uint8))
    t.index_add_(0, L([0, 0]), pyth.tensor(np.array([3, 4], np.uint8)))
    assert t.tolist() == [1, 10]
    t = pyth.tensor(np.array([0, 0]))
    t.index_add_(0, L([1]), pyth.tensor([3]), alpha=-2)
    assert t.tolist() == [0, -6]


@pytest.mark.parametrize("layout", WRITABLE)
@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_index_fill_matches_numpy(name, layout):
    v = {"bool": True, "uint8": 200, "int8": -7}.get(name, 2.5 if name in FLOATS else -9)
    for dim, idx in [(0, [3, -1]), (1, [-5, 2, 2]), (-1, [5]), (2, [])]:
        t, a = build((4, 5, 6), name, layout)
        exp = a.copy()
        exp[np_slices(a, dim, np.array(idx, np.int64))] = v
        assert t.index_fill_(dim, L(idx), v) is t
        check(t, exp)
    t, a = build((4, 5, 6), name, layout)
    exp = a.copy()
    exp[:, :, 1] = v
    check(pyth.index_fill(t, 2, L([1]), pyth.tensor(v)), exp)   # a 0-dim value tensor
    check(t, a)


def test_index_ops_on_0dim_and_size0():
    s = pyth.tensor(1.0)
    check(s.clone().index_copy_(0, L([0]), pyth.tensor([5.0])), np.array(5.0))
    check(s.clone().index_add_(0, pyth.tensor(0), pyth.tensor(5.0)), np.array(6.0))
    check(s.clone().index_fill_(0, pyth.tensor(0), 5.0), np.array(5.0))
    z = pyth.zeros(0, 3)
    check(z.index_fill_(1, L([2]), 1.0), np.zeros((0, 3)))
    check(z.index_add_(0, L([]), pyth.zeros(0, 3)), np.zeros((0, 3)))


def test_index_ops_match_torch():
    torch = pytest.importorskip("torch")
    for name in DTYPE_NAMES:
        t, a = build((3, 4, 2), name, "stepped")
        src = distinct_values((3, 2, 2), name, seed=4)
        v = True if name == "bool" else 3
        cases = [
            (lambda x: x.index_copy_(1, L([3, 0]), tensor_of(src, name)),
             lambda x: x.index_copy_(1, torch.tensor([3, 0]), T(src, name))),
            (lambda x: x.index_fill_(-2, L([-1, 1]), v),
             lambda x: x.index_fill_(-2, torch.tensor([-1, 1]), v)),
        ]
        for mine, theirs in cases:
            got, exp = mine(t.clone()), theirs(T(a, name))
            np.testing.assert_array_equal(np_via_tolist(got), torch_values(exp))


# --------------------------------------------------------------------------------------------
# scatter_, scatter_add_
# --------------------------------------------------------------------------------------------

def np_scatter(a, dim, idx, src, ufunc=None):
    """numpy oracle: self[idx[p] along dim] (op)= src[p] for every position p of idx."""
    out = a.copy()
    coords = list(np.indices(idx.shape))
    coords[dim % a.ndim] = idx
    cut = src if np.ndim(src) == 0 else src[tuple(slice(0, s) for s in idx.shape)]
    cut = np.broadcast_to(cut, idx.shape)
    if ufunc is None:
        out[tuple(coords)] = cut
    else:
        ufunc.at(out, tuple(coords), cut)
    return out


def distinct_along(shape, dim, size, seed):
    """An index of `shape` whose values are distinct along dim (a plain scatter is then
    well-defined)."""
    rng = np.random.default_rng(seed)
    n = shape[dim]
    perm = np.argsort(rng.random(shape[:dim] + (size,) + shape[dim + 1:]), axis=dim)
    return np.take(perm, np.arange(n), axis=dim)


@pytest.mark.parametrize("layout", WRITABLE)
@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_scatter_matches_numpy(name, layout):
    for dim, ishape in [(0, (3, 5, 6)), (1, (4, 2, 3)), (2, (2, 5, 6)), (-1, (4, 1, 2))]:
        t, a = build((4, 5, 6), name, layout)
        d = dim % 3
        idx = distinct_along(ishape, d, a.shape[d], seed=d)
        src = distinct_values(tuple(s + 1 for s in ishape), name, seed=8)
        exp = np_scatter(a, dim, idx, src)
        assert t.scatter_(dim, L(idx), tensor_of(src, name)) is t
        check(t, exp)
        t, _ = build((4, 5, 6), name, layout)
        v = True if name == "bool" else 7
        check(t.scatter_(dim, L(idx), v), np_scatter(a, dim, idx, np.array(v, NP_CARRIER[name])))
        t, _ = build((4, 5, 6), name, layout)
        check(pyth.scatter(t, dim, L(idx), value=v), np_scatter(a, dim, idx, np.array(v, NP_CARRIER[name])))
        check(t, a)


@pytest.mark.parametrize("layout", WRITABLE)
@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_scatter_add_and_reduce_accumulate_duplicates(name, layout):
    rng = np.random.default_rng(2)
    for dim, ishape in [(0, (9, 5, 6)), (1, (4, 7, 3)), (-1, (2, 5, 8))]:
        d = dim % 3
        idx = rng.integers(0, (4, 5, 6)[d], ishape)
        src = distinct_values(ishape, name, seed=8, small=True)
        t, a = build((4, 5, 6), name, layout, small=True)
        check(t.scatter_add_(dim, L(idx), tensor_of(src, name)), np_scatter(a, dim, idx, src, np.add))
        t, _ = build((4, 5, 6), name, layout, small=True)
        check(pyth.scatter_add(t, dim, L(idx), tensor_of(src, name)), np_scatter(a, dim, idx, src, np.add))
        check(t, a)
        check(t.scatter_(dim, L(idx), tensor_of(src, name), reduce="add"),
              np_scatter(a, dim, idx, src, np.add))
        if name in ("bfloat16", "float16"):
            continue   # products of many small integers leave their exact range
        t, _ = build((4, 5, 6), name, layout, small=True)
        check(t.scatter_(dim, L(idx), tensor_of(src, name), reduce="multiply"),
              np_scatter(a, dim, idx, src, np.multiply))


def test_scatter_matches_torch():
    torch = pytest.importorskip("torch")
    idx = np.array([[3, 3, 0], [1, 1, 1]])
    for name in DTYPE_NAMES:
        t, a = build((3, 4), name, "transposed", small=True)
        src = distinct_values((2, 3), name, seed=3, small=True)
        ti = torch.from_numpy(idx)
        for reduce in ("add", "multiply"):
            exp = T(a, name).scatter_(1, ti, T(src, name), reduce=reduce)
            np.testing.assert_array_equal(np_via_tolist(t.clone().scatter_(1, L(idx), tensor_of(src, name),
                                                               reduce=reduce)), torch_values(exp))
            v = True if name == "bool" else 2
            exp = T(a, name).scatter_(1, ti, v, reduce=reduce)
            np.testing.assert_array_equal(np_via_tolist(t.clone().scatter_(1, L(idx), v, reduce=reduce)),
                                          torch_values(exp))
        exp = torch.scatter_add(T(a, name), 1, ti, T(src, name))
        got = pyth.scatter_add(t, 1, pyth.tensor(idx, dtype=pyth.int32), tensor_of(src, name))
        np.testing.assert_array_equal(np_via_tolist(got), torch_values(exp))


def test_scatter_0dim_and_empty_index():
    check(pyth.tensor(7.0).scatter_(0, pyth.tensor(0), pyth.tensor(3.0)), np.array(3.0))
    t = pyth.arange(6.0).view(2, 3)
    check(t.scatter_(0, pyth.zeros(0, 9, dtype=pyth.int64), pyth.ones(1, 1)),
          np.arange(6.0).reshape(2, 3))


# --------------------------------------------------------------------------------------------
# masks
# --------------------------------------------------------------------------------------------

def mask_of(shape, seed):
    return np.asarray(np.random.default_rng(seed).random(shape) < 0.4)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_masked_select_matches_numpy(name, layout):
    t, a = build((4, 5, 6), name, layout)
    for mshape in [(4, 5, 6), (5, 6), (4, 1, 6), (1,), (), (2, 4, 5, 6)]:
        m = mask_of(mshape, 1)
        ab, mb = np.broadcast_arrays(a, m)
        exp = ab[mb]
        pm = pyth.tensor(m)
        check(pyth.masked_select(t, pm), exp)
        check(t.masked_select(pm), exp)
        # a transposed mask
        if len(mshape) >= 2:
            pmt = pyth.tensor(m.T.copy()).permute(*range(len(mshape) - 1, -1, -1))
            check(t.masked_select(pmt), exp)
    out = pyth.empty(3, dtype=t.dtype)
    assert pyth.masked_select(t, pyth.tensor(a != 0), out=out) is out
    check(out, a[a != 0])


@pytest.mark.parametrize("layout", WRITABLE)
@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_masked_fill_matches_numpy(name, layout):
    v = {"bool": True, "uint8": 200, "int8": -7}.get(name, 2.5 if name in FLOATS else -9)
    for mshape in [(4, 5, 6), (6,), (5, 1), ()]:
        t, a = build((4, 5, 6), name, layout)
        m = mask_of(mshape, 2)
        exp = np.where(m, np.array(v, NP_CARRIER[name]), a)
        assert t.masked_fill_(pyth.tensor(m), v) is t
        check(t, exp)
    # out-of-place: input and mask broadcast together
    t, a = build((5, 6), name, layout)
    m = mask_of((4, 1, 6), 3)
    check(pyth.masked_fill(t, pyth.tensor(m), pyth.tensor(v)), np.where(m, np.array(v, NP_CARRIER[name]), a))
    check(t, a)


@pytest.mark.parametrize("layout", WRITABLE)
@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_masked_scatter_matches_numpy(name, layout):
    t, a = build((4, 5, 6), name, layout)
    m = mask_of((5, 6), 4)
    mb = np.broadcast_to(m, a.shape)
    src = distinct_values((200,), name, seed=5)
    exp = a.copy()
    exp[mb] = src[:mb.sum()]
    # the source may have any shape and layout: its elements are taken in row-major order
    psrc = tensor_of(src.reshape(10, 20).T.copy(), name).t()
    assert t.masked_scatter_(pyth.tensor(m), psrc) is t
    check(t, exp)
    t, a = build((5, 6), name, layout)
    m = mask_of((3, 1, 6), 6)
    ab, mb = np.broadcast_arrays(a, m)
    exp = ab.copy()
    exp[mb] = src[:mb.sum()]
    check(pyth.masked_scatter(t, pyth.tensor(m), tensor_of(src, name)), exp)


def test_masks_match_torch():
    torch = pytest.importorskip("torch")
    for name in DTYPE_NAMES:
        t, a = build((3, 4), name, "transposed")
        m = mask_of((3, 4), 7)
        v = True if name == "bool" else 5
        src = distinct_values((12,), name, seed=2)
        tm = torch.from_numpy(m)
        np.testing.assert_array_equal(np_via_tolist(t.masked_select(pyth.tensor(m))),
                                      torch_values(T(a, name).masked_select(tm)))
        np.testing.assert_array_equal(np_via_tolist(t.masked_fill(pyth.tensor(m), v)),
                                      torch_values(T(a, name).masked_fill(tm, v)))
        np.testing.assert_array_equal(np_via_tolist(t.masked_scatter(pyth.tensor(m), tensor_of(src, name))),
                                      torch_values(T(a, name).masked_scatter(tm, T(src, name))))


def test_masks_on_0dim_and_size0():
    s = pyth.tensor(3.0)
    check(s.masked_select(pyth.tensor(True)), np.array([3.0]))
    check(s.masked_select(pyth.tensor(False)), np.zeros(0))
    check(s.clone().masked_fill_(pyth.tensor(True), 1.0), np.array(1.0))
    check(s.clone().masked_scatter_(pyth.tensor(True), pyth.tensor([9.0, 8.0])), np.array(9.0))
    z = pyth.zeros(0, 3)
    check(z.masked_select(pyth.zeros(0, 3, dtype=pyth.bool)), np.zeros(0))
    check(z.masked_fill_(pyth.ones(3, dtype=pyth.bool), 1.0), np.zeros((0, 3)))


# --------------------------------------------------------------------------------------------
# nonzero / argwhere / where(cond)
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_nonzero_matches_numpy(name, layout):
    t, a = build((4, 5, 6), name, layout)
    exp = np.argwhere(a)
    r = pyth.nonzero(t)
    assert r.dtype is pyth.int64
    check(r, exp)
    check(t.nonzero(), exp)
    check(pyth.argwhere(t), exp)
    tup = pyth.nonzero(t, as_tuple=True)
    assert len(tup) == 3
    for got, e in zip(tup, np.nonzero(a)):
        check(got, e)
    for got, e in zip(pyth.where(t), np.nonzero(a)):
        check(got, e)
    out = pyth.empty(0, dtype=pyth.int64)
    assert pyth.nonzero(t, out=out) is out
    check(out, exp)


def test_nonzero_special_cases():
    torch = pytest.importorskip("torch")
    check(pyth.nonzero(pyth.tensor(3)), np.zeros((1, 0), np.int64))
    check(pyth.nonzero(pyth.tensor(0)), np.zeros((0, 0), np.int64))
    (only,) = pyth.nonzero(pyth.tensor(3), as_tuple=True)
    check(only, np.array([0]))
    check(pyth.nonzero(pyth.zeros(0, 3)), np.zeros((0, 2), np.int64))
    f = np.array([0.0, np.nan, -0.0, 1e-30, -np.inf], np.float32)
    check(pyth.nonzero(pyth.tensor(f)), np.argwhere(f))
    for name in ("float16", "bfloat16"):
        t = pyth.tensor(f, dtype=getattr(pyth, name))
        exp = torch.nonzero(torch.from_numpy(f).to(getattr(torch, name)))
        np.testing.assert_array_equal(np_via_tolist(pyth.nonzero(t)), exp.numpy())


# --------------------------------------------------------------------------------------------
# larger inputs: threaded kernels, duplicate-heavy accumulation
# --------------------------------------------------------------------------------------------

def test_large_accumulation_is_exact():
    rng = np.random.default_rng(0)
    a = np.zeros((50, 40), np.int64)
    idx = rng.integers(0, 50, 3000)
    src = rng.integers(-5, 5, (3000, 40))
    exp = a.copy()
    np.add.at(exp, idx, src)
    t = pyth.tensor(a)
    t.index_add_(0, L(idx), pyth.tensor(src))
    check(t, exp)
    sidx = rng.integers(0, 50, (400, 40))
    ssrc = rng.integers(-5, 5, (400, 40))
    check(pyth.tensor(a).scatter_add_(0, L(sidx), pyth.tensor(ssrc)),
          np_scatter(a, 0, sidx, ssrc, np.add))
    flat = rng.integers(-2000, 2000, 50000)
    vals = rng.integers(-5, 5, 50000)
    exp = a.copy().reshape(-1)
    np.add.at(exp, flat, vals)
    check(pyth.tensor(a).put_(L(flat), pyth.tensor(vals), accumulate=True), exp.reshape(a.shape))
    big = rng.random((300, 200)) < 0.3
    x = rng.random((300, 200))
    check(pyth.tensor(x).masked_select(pyth.tensor(big)), x[big])
    check(pyth.nonzero(pyth.tensor(big)), np.argwhere(big))
    pos = rng.integers(-60000, 60000, (200, 300))
    check(pyth.tensor(x).t().take(L(pos)), np.take(x.T, pos))


@pytest.mark.parametrize("name,layout", [("float32", "transposed"), ("int8", "stepped"),
                                         ("bool", "contig"), ("bfloat16", "transposed")])
def test_threaded_kernels_match_numpy(name, layout):
    """The oracle tests again with every kernel split among threads: lines of index_add_ /
    scatter_add_ never collide, ordered walks stay in order, index checks still catch."""
    with grain_one():
        for test in (test_index_select_matches_numpy, test_gather_matches_numpy,
                     test_take_matches_numpy, test_put_matches_numpy,
                     test_index_copy_matches_numpy, test_index_add_accumulates_duplicates,
                     test_index_fill_matches_numpy, test_scatter_matches_numpy,
                     test_scatter_add_and_reduce_accumulate_duplicates,
                     test_masked_select_matches_numpy, test_masked_fill_matches_numpy,
                     test_masked_scatter_matches_numpy, test_nonzero_matches_numpy):
            test(name, layout)
        test_large_accumulation_is_exact()
        with pytest.raises(RuntimeError, match=kw("scatter_add_", "out of bounds", "size 4")):
            pyth.zeros(4, 5).scatter_add_(0, pyth.tensor(np.arange(20).reshape(4, 5) % 8),
                                          pyth.ones(4, 5))


# --------------------------------------------------------------------------------------------
# t[index] / t[index] = v with one advanced item run on these kernels
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["float32", "int16", "bool", "bfloat16"])
def test_single_advanced_index_routes_to_kernels(name, monkeypatch):
    from pyth._prims import subscript as _indexing

    def general(p):
        raise AssertionError("the general offsets path was used")
    monkeypatch.setattr(_indexing, "_offsets", general)
    t, a = build((4, 5, 6), name, "transposed")
    m3, m2, m1 = mask_of((4, 5, 6), 1), mask_of((5, 6), 2), mask_of((4,), 3)
    gets = [L([3, 0, 3]), (slice(None), L([[1], [-5]])), (None, slice(1, 3), L(2)),
            pyth.tensor(m3), (slice(None), pyth.tensor(m2)), pyth.tensor(m1),
            (pyth.tensor(m1), slice(None, None, 2)), [0, 2]]
    for idx in gets:
        np_idx = tuple(i.numpy() if isinstance(i, pyth.Tensor) else i
                       for i in (idx if isinstance(idx, tuple) else (idx,)))
        check(t[idx], a[np_idx])
    # an int is a basic index (as in torch; numpy would move the [-1, 0] dim to the front)
    check(t[1, ..., L([-1, 0])], a[1][..., [-1, 0]])
    v = distinct_values((4, 2, 6), name, seed=4)
    sets = [(L([3, 0, 3]), {"bool": True}.get(name, 5)),            # duplicates: last wins
            (L([1, 2, 1]), distinct_values((3, 5, 6), name, seed=2)),              # last wins too
            ((slice(None), L([4, 0])), v),
            ((Ellipsis, L([[5], [0]])), distinct_values((4, 5, 2, 1), name, seed=3)),
            (pyth.tensor(m3), {"bool": False}.get(name, 7)),
            (pyth.tensor(m3), distinct_values((int(m3.sum()),), name, seed=5)),
            ((slice(None), pyth.tensor(m2)), distinct_values((int(m2.sum()),), name, seed=6)),
            (pyth.tensor(m1), distinct_values((6,), name, seed=7))]               # broadcast over rows
    exp = a.copy()
    for idx, value in sets:
        items = idx if isinstance(idx, tuple) else (idx,)
        exp[tuple(i.numpy() if isinstance(i, pyth.Tensor) else i for i in items)] = value
        t[idx] = tensor_of(value, name) if isinstance(value, np.ndarray) else value
        check(t, exp)
    with pytest.raises(AssertionError, match="general"):
        t[L([0]), L([1])]                                  # two advanced items: the general path


def test_single_advanced_index_errors_name_the_source_dim():
    t = pyth.zeros(4, 5, 6)
    with pytest.raises(IndexError, match=kw(r"\b9\b", "dimension 2", r"\b6\b")):
        t[0, :, L([1, 9])]
    with pytest.raises(IndexError, match=kw(r"-6", "dimension 1", r"\b5\b")):
        t[:, [-6]] = 1.0
    with pytest.raises(RuntimeError, match=kw("shape", r"\[3\]")):
        t[pyth.ones(4, 5, dtype=pyth.bool)] = pyth.ones(3)
    assert not np_via_tolist(t).any(), "a failed assignment wrote"


# --------------------------------------------------------------------------------------------
# aliasing: outputs and sources sharing memory with what is written
# --------------------------------------------------------------------------------------------

def test_inputs_sharing_memory_with_the_output():
    a = np.arange(12.0).reshape(3, 4)
    t = pyth.tensor(a)
    r = pyth.index_select(t, 0, L([2, 0, 1]), out=t)
    check(r, a[[2, 0, 1]])
    t = pyth.tensor(a)
    t.index_copy_(0, L([1, 2]), t[0:2])                  # source is a view of self
    exp = a.copy()
    exp[[1, 2]] = a[0:2]
    check(t, exp)
    t = pyth.tensor(a)
    t.masked_scatter_(pyth.tensor(a > 4), t.t())          # source overlaps self
    exp = a.copy()
    exp[a > 4] = a.T.reshape(-1)[:(a > 4).sum()]
    check(t, exp)
    i = pyth.tensor([2, 0, 1])
    i.index_add_(0, i, i)                                # index is self
    assert i.tolist() == [2, 1, 3]
    t = pyth.tensor(a)
    check(pyth.gather(t, 1, L([[1], [0], [3]]), out=t), np.take_along_axis(a, np.array([[1], [0], [3]]), 1))
    # non-contiguous inputs that are the output: read from copies with their own strides
    t = pyth.tensor(a)
    check(pyth.index_select(t.t(), 1, L([2, 0]), out=t), a.T[:, [2, 0]])
    t = pyth.tensor(a)
    check(pyth.gather(t.t(), 0, L([[1, 0, 3], [2, 2, 0]]), out=t),
          np.take_along_axis(a.T, np.array([[1, 0, 3], [2, 2, 0]]), 0))
    i = L([[0, 1], [2, 0]]).t()                          # a transposed index, also the output
    check(pyth.gather(L([[5, 6, 7], [8, 9, 10]]), 1, i, out=i), [[5, 7], [9, 8]])
    i = L([2, 0, 1, 9])[::2]
    check(pyth.take(L([5, 6, 7]), i, out=i), [7, 6])
    i = L([[2, 0], [1, 0]]).t()
    check(pyth.index_select(L([5, 6, 7]), 0, i[0], out=i), [7, 6])


# --------------------------------------------------------------------------------------------
# errors: type, keywords, and nothing written
# --------------------------------------------------------------------------------------------

def _x():
    return pyth.tensor(np.arange(12, dtype=np.float32).reshape(3, 4))


ERRORS = [
    # id, call on x, exception, message keywords
    ("index_select_range", lambda x: x.index_select(0, L([0, 3])), IndexError,
     ("index_select", r"\b3\b", "dim", r"\b3\b")),
    ("index_select_negative", lambda x: x.index_select(1, L([-1])), IndexError,
     ("index_select", "-1", r"\b4\b")),
    ("index_select_2d_index", lambda x: x.index_select(1, L([[0]])), IndexError,
     ("index_select", "vector")),
    ("index_select_float_index", lambda x: x.index_select(0, pyth.tensor([0.0])), RuntimeError,
     ("index_select", "int64", "float32")),
    ("index_select_list", lambda x: x.index_select(0, [0]), TypeError, ("index", "Tensor")),
    ("index_select_dim", lambda x: x.index_select(2, L([0])), IndexError, ("dim", r"\b2\b")),
    ("index_copy_range", lambda x: x.index_copy_(0, L([3]), pyth.ones(1, 4)), IndexError,
     ("index_copy_", r"\b3\b", "dim", r"\b0\b")),
    ("index_copy_int32", lambda x: x.index_copy_(0, pyth.tensor([0], dtype=pyth.int32),
                                                 pyth.ones(1, 4)), RuntimeError,
     ("index_copy_", "int64", "int32")),
    ("index_copy_count", lambda x: x.index_copy_(0, L([0, 1]), pyth.ones(3, 4)), IndexError,
     ("index_copy_", "number of indices", r"\b2\b", r"\b3\b")),
    ("index_copy_slice_shape", lambda x: x.index_copy_(0, L([0]), pyth.ones(1, 3)), RuntimeError,
     ("index_copy_", "shape|match|\\[1, 3\\]")),
    ("index_copy_dtype", lambda x: x.index_copy_(0, L([0]), pyth.ones(1, 4, dtype=pyth.float64)),
     RuntimeError, ("index_copy_", "dtype", "float64")),
    ("index_add_range", lambda x: x.index_add_(1, L([0, 4]), pyth.ones(3, 2)), RuntimeError,
     ("index_add_", r"\b4\b", "dim", r"\b1\b")),
    ("index_add_negative", lambda x: x.index_add_(1, L([-1]), pyth.ones(3, 1)), RuntimeError,
     ("index_add_", "-1")),
    ("index_add_shape", lambda x: x.index_add_(0, L([0]), pyth.ones(1, 3)), RuntimeError,
     ("index_add_", "match|shape")),
    ("index_fill_range", lambda x: x.index_fill_(1, L([-5]), 1.0), IndexError,
     ("index_fill_", "-5", r"\b4\b")),
    ("index_fill_index_dtype", lambda x: x.index_fill_(1, pyth.tensor([0], dtype=pyth.int32), 1),
     IndexError, ("index_fill_", "int64")),
    ("index_fill_value_tensor", lambda x: x.index_fill_(1, L([0]), pyth.tensor([1.0])),
     RuntimeError, ("index_fill_", "0-dim")),
    ("gather_range", lambda x: x.gather(1, L([[0, 4]])), RuntimeError,
     ("gather", r"\b4\b", "dim", r"\b1\b")),
    ("gather_ndim", lambda x: x.gather(1, L([0])), RuntimeError, ("gather", "dimensions")),
    ("gather_size", lambda x: x.gather(1, pyth.zeros(4, 1, dtype=pyth.int64)), RuntimeError,
     ("gather", "no larger", "\\[4, 1\\]")),
    ("gather_bool_index", lambda x: x.gather(1, pyth.zeros(3, 1, dtype=pyth.bool)), RuntimeError,
     ("gather", "int64")),
    ("scatter_range", lambda x: x.scatter_(0, L([[3]]), 1.0), RuntimeError,
     ("scatter_", r"\b3\b", "dim", r"\b0\b")),
    ("scatter_negative", lambda x: x.scatter_(0, L([[-1]]), 1.0), RuntimeError,
     ("scatter_", "-1")),
    ("scatter_src_small", lambda x: x.scatter_(1, L([[0, 1]]), pyth.ones(1, 1)), RuntimeError,
     ("scatter_", "src")),
    ("scatter_src_dtype", lambda x: x.scatter_(1, L([[0]]), pyth.ones(1, 1, dtype=pyth.int64)),
     RuntimeError, ("scatter_", "dtype")),
    ("scatter_reduce", lambda x: x.scatter_(1, L([[0]]), 1.0, reduce="max"), RuntimeError,
     ("reduce", "add", "multiply")),
    ("scatter_add_range", lambda x: x.scatter_add_(1, L([[9]]), pyth.ones(1, 1)), RuntimeError,
     ("scatter_add_", r"\b9\b", r"\b4\b")),
    ("scatter_add_value", lambda x: x.scatter_add_(1, L([[0]]), 1.0), TypeError, ("src",)),
    ("take_range", lambda x: x.take(L([12])), IndexError, ("take", r"\b12\b", "range")),
    ("take_negative_range", lambda x: x.take(L([-13])), IndexError, ("take", "-13", r"\b12\b")),
    ("take_int32", lambda x: x.take(pyth.tensor([0], dtype=pyth.int32)), RuntimeError,
     ("take", "int64")),
    ("put_range", lambda x: x.put_(L([0, 12]), pyth.ones(2)), IndexError, ("put_", r"\b12\b")),
    ("put_numel", lambda x: x.put_(L([0, 1, 2]), pyth.ones(2)), IndexError,
     ("put_", "same number", r"\b3\b", r"\b2\b")),
    ("put_dtype", lambda x: x.put_(L([0]), pyth.ones(1, dtype=pyth.float64)), RuntimeError,
     ("put_", "dtype")),
    ("masked_fill_uint8_mask", lambda x: x.masked_fill_(pyth.ones(3, 4, dtype=pyth.uint8), 1.0),
     RuntimeError, ("masked_fill_", "bool")),
    ("masked_fill_shape", lambda x: x.masked_fill_(pyth.ones(3, dtype=pyth.bool), 1.0),
     RuntimeError, ("masked_fill_", "broadcast", "\\[3\\]")),
    ("masked_fill_grows", lambda x: x.masked_fill_(pyth.ones(2, 3, 4, dtype=pyth.bool), 1.0),
     RuntimeError, ("masked_fill_", "broadcast")),
    ("masked_fill_overflow", lambda x: x.byte().masked_fill_(pyth.ones(3, 4, dtype=pyth.bool),
                                                             300), RuntimeError,
     ("300", "uint8|overflow")),
    ("masked_select_shape", lambda x: x.masked_select(pyth.ones(3, dtype=pyth.bool)),
     RuntimeError, ("masked_select", "\\[3\\]")),
    ("masked_select_int_mask", lambda x: x.masked_select(pyth.ones(3, 4, dtype=pyth.int64)),
     RuntimeError, ("masked_select", "bool")),
    ("masked_scatter_short", lambda x: x.masked_scatter_(x > 2, pyth.ones(5)), RuntimeError,
     ("masked_scatter_", r"\b5\b", r"\b9\b")),
    ("masked_scatter_dtype", lambda x: x.masked_scatter_(x > 2, pyth.ones(12, dtype=pyth.int32)),
     RuntimeError, ("masked_scatter_", "dtype")),
    ("write_expanded", lambda x: pyth.zeros(1).expand(3).index_fill_(0, L([0]), 1.0),
     RuntimeError, ("index_fill_", "single memory location|stride 0")),
]


@pytest.mark.parametrize("call,exc,words", [pytest.param(*e[1:], id=e[0]) for e in ERRORS])
def test_errors(call, exc, words):
    x = _x()
    with pytest.raises(exc, match=kw(*words)):
        call(x)
    assert x.tolist() == np.arange(12.0).reshape(3, 4).tolist(), "a failed call wrote"


def test_error_types_match_torch():
    """The oracle check: torch raises the same exception class for each error case."""
    torch = pytest.importorskip("torch")
    tl = lambda v: torch.tensor(v)  # noqa: E731
    cases = {
        "index_select_range": lambda x: x.index_select(0, tl([0, 3])),
        "index_copy_range": lambda x: x.index_copy_(0, tl([3]), torch.ones(1, 4)),
        "index_copy_count": lambda x: x.index_copy_(0, tl([0, 1]), torch.ones(3, 4)),
        "index_add_range": lambda x: x.index_add_(1, tl([0, 4]), torch.ones(3, 2)),
        "index_fill_range": lambda x: x.index_fill_(1, tl([-5]), 1.0),
        "index_fill_index_dtype": lambda x: x.index_fill_(1, tl([0]).int(), 1),
        "gather_range": lambda x: x.gather(1, tl([[0, 4]])),
        "scatter_range": lambda x: x.scatter_(0, tl([[3]]), 1.0),
        "take_range": lambda x: x.take(tl([12])),
        "put_range": lambda x: x.put_(tl([0, 12]), torch.ones(2)),
        "put_numel": lambda x: x.put_(tl([0, 1, 2]), torch.ones(2)),
        "masked_select_shape": lambda x: x.masked_select(torch.ones(3, dtype=torch.bool)),
        "masked_scatter_short": lambda x: x.masked_scatter_(x > 2, torch.ones(5)),
    }
    ours = {e[0]: e[2] for e in ERRORS}
    for name, call in cases.items():
        with pytest.raises(ours[name]):
            call(torch.arange(12.0).view(3, 4))


def test_function_and_method_tables():
    """Every op exists as pyth.<op>, Tensor.<op> and (for in-place ops) Tensor.<op>_."""
    for name in ("index_select", "gather", "masked_select", "take", "nonzero", "argwhere",
                 "index_copy", "index_add", "index_fill", "scatter", "scatter_add",
                 "masked_fill", "masked_scatter", "put"):
        assert callable(getattr(pyth, name)) and callable(getattr(pyth.Tensor, name))
    for name in ("index_copy_", "index_add_", "index_fill_", "scatter_", "scatter_add_",
                 "masked_fill_", "masked_scatter_", "put_"):
        assert callable(getattr(pyth.Tensor, name))
