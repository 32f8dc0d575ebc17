"""Oracle tests for Tensor.copy_ (API.md "Tensor": copy_(src), any type, broadcasting src).

numpy is the oracle: the expected result is np.broadcast_to(src, dst.shape).astype(dst dtype)
(float->int truncates, anything->bool is nonzero, bool->number is 0/1, int->int wraps).
numpy has no bfloat16: bfloat16 data is compared as float32 values that bfloat16 holds exactly.
Values are chosen per (src, dst) pair so that every conversion is well defined and, into
floating types, exact. When PyTorch is installed, separate tests compare with it as well,
including inexact conversions (rounding into half / bfloat16, large integers into floats).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from _support import (
    DTYPE_NAMES,
    NP_CARRIER,
    bf16_round,
    convertible_values,
    pdt,
    torch_convertible,
)

import pyth


def data(src, dst, shape, shift=0):
    """An array of type NP_CARRIER[src] and the given shape, cycling through the pair's values."""
    vals = convertible_values(src, dst)
    vals = vals[shift % len(vals):] + vals[:shift % len(vals)]
    return np.resize(np.array(vals, dtype=NP_CARRIER[src]), shape)


def mk(arr, name):
    """A pyth tensor of dtype `name` holding arr's values (exact)."""
    arr = np.asarray(arr).astype(NP_CARRIER[name])
    t = pyth.tensor(arr, dtype=pdt(name))
    assert tuple(t.shape) == arr.shape
    return t


def cast(arr, dst):
    return np.asarray(arr).astype(NP_CARRIER[dst])


def sentinel(dst, shape):
    return np.full(shape, 3).astype(NP_CARRIER[dst])


def check(t, want, dst):
    """t (a pyth tensor) equals numpy array want cast to dst, shape and values."""
    want = cast(want, dst)
    assert tuple(t.shape) == want.shape
    assert t.dtype is pdt(dst)
    assert t.tolist() == want.tolist()


# ---- all 100 pairs, across layouts ---------------------------------------------------------
# each case returns (dst tensor, src tensor, expected dst values, [(base tensor, base expected)])


def case_same_shape(src, dst):
    s = data(src, dst, (2, 3))
    return pyth.empty(2, 3, dtype=pdt(dst)), mk(s, src), s, []


def case_broadcast_row(src, dst):
    s = data(src, dst, (3,))
    return pyth.empty(2, 3, dtype=pdt(dst)), mk(s, src), np.broadcast_to(s, (2, 3)), []


def case_broadcast_1x3(src, dst):
    s = data(src, dst, (1, 3))
    return pyth.empty(4, 3, dtype=pdt(dst)), mk(s, src), np.broadcast_to(s, (4, 3)), []


def case_broadcast_column_3d(src, dst):
    s = data(src, dst, (4, 1))
    return pyth.empty(2, 4, 3, dtype=pdt(dst)), mk(s, src), np.broadcast_to(s, (2, 4, 3)), []


def case_broadcast_middle(src, dst):
    s = data(src, dst, (2, 1, 3))
    return pyth.empty(2, 5, 3, dtype=pdt(dst)), mk(s, src), np.broadcast_to(s, (2, 5, 3)), []


def case_dst_transposed(src, dst):
    s = data(src, dst, (2, 3))
    base_np = sentinel(dst, (3, 2))
    base = mk(base_np, dst)
    want_base = base_np.copy()
    want_base.T[...] = cast(s, dst)
    return base.t(), mk(s, src), s, [(base, want_base)]


def case_dst_stepped(src, dst):
    s = data(src, dst, (2, 3))
    base_np = sentinel(dst, (4, 6))
    base = mk(base_np, dst)
    want_base = base_np.copy()
    want_base[::2, 1::2] = cast(s, dst)
    return base[::2, 1::2], mk(s, src), s, [(base, want_base)]


def case_dst_narrow_broadcast(src, dst):
    s = data(src, dst, (3,))
    base_np = sentinel(dst, (5, 3))
    base = mk(base_np, dst)
    want_base = base_np.copy()
    want_base[1:4] = cast(s, dst)
    return base.narrow(0, 1, 3), mk(s, src), np.broadcast_to(s, (3, 3)), [(base, want_base)]


def case_src_transposed(src, dst):
    s = data(src, dst, (3, 2))
    return pyth.empty(2, 3, dtype=pdt(dst)), mk(s, src).t(), s.T, []


def case_src_stepped(src, dst):
    s = data(src, dst, (5, 7), shift=1)
    return pyth.empty(2, 3, dtype=pdt(dst)), mk(s, src)[1::2, ::3], s[1::2, ::3], []


def case_src_expanded(src, dst):
    s = data(src, dst, (3,), shift=2)
    return (pyth.empty(4, 3, dtype=pdt(dst)), mk(s, src).expand(4, 3),
            np.broadcast_to(s, (4, 3)), [])


def case_src_expanded_column(src, dst):
    s = data(src, dst, (4, 1), shift=3)
    return (pyth.empty(4, 3, dtype=pdt(dst)), mk(s, src).expand(4, 3),
            np.broadcast_to(s, (4, 3)), [])


def case_both_permuted_3d(src, dst):
    s = data(src, dst, (4, 2, 3))
    base_np = sentinel(dst, (3, 4, 2))
    base = mk(base_np, dst)
    d = base.permute(2, 0, 1)  # (2, 3, 4)
    sv = s.transpose(1, 2, 0)  # (2, 3, 4)
    want_base = base_np.copy()
    want_base.transpose(2, 0, 1)[...] = cast(sv, dst)
    return d, mk(s, src).permute(1, 2, 0), sv, [(base, want_base)]


def case_zero_size(src, dst):
    s = data(src, dst, (0, 3))
    return pyth.empty(0, 3, dtype=pdt(dst)), mk(s, src), s, []


def case_zero_size_broadcast(src, dst):
    s = data(src, dst, (3,))
    return pyth.empty(0, 3, dtype=pdt(dst)), mk(s, src), np.broadcast_to(s, (0, 3)), []


def case_zero_size_dim1(src, dst):
    s = data(src, dst, (0,))
    return pyth.empty(2, 0, dtype=pdt(dst)), mk(s, src), np.broadcast_to(s, (2, 0)), []


def case_zero_dim(src, dst):
    s = data(src, dst, (), shift=1)
    d = mk(sentinel(dst, ()), dst)
    assert d.dim() == 0
    return d, mk(s, src), s, []


def case_zero_dim_src_broadcast(src, dst):
    s = data(src, dst, (), shift=2)
    return pyth.empty(2, 3, dtype=pdt(dst)), mk(s, src), np.broadcast_to(s, (2, 3)), []


def case_one_element_into_zero_dim_view(src, dst):
    s = data(src, dst, (), shift=3)
    base_np = sentinel(dst, (2, 2))
    base = mk(base_np, dst)
    want_base = base_np.copy()
    want_base[1, 0] = cast(s, dst)
    return base[1, 0], mk(s, src), s, [(base, want_base)]


CASES = {f.__name__[5:]: f for f in [
    case_same_shape, case_broadcast_row, case_broadcast_1x3, case_broadcast_column_3d,
    case_broadcast_middle, case_dst_transposed, case_dst_stepped, case_dst_narrow_broadcast,
    case_src_transposed, case_src_stepped, case_src_expanded, case_src_expanded_column,
    case_both_permuted_3d, case_zero_size, case_zero_size_broadcast, case_zero_size_dim1,
    case_zero_dim, case_zero_dim_src_broadcast, case_one_element_into_zero_dim_view]}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("src", DTYPE_NAMES)
@pytest.mark.parametrize("dst", DTYPE_NAMES)
def test_copy_pairs_and_layouts(dst, src, case):
    d, s, want, bases = CASES[case](src, dst)
    src_before = s.tolist()
    r = d.copy_(s)
    assert r is d
    check(d, want, dst)
    for base, want_base in bases:
        check(base, want_base, dst)
    assert s.tolist() == src_before  # the source is untouched
    assert s.dtype is pdt(src)


@pytest.mark.parametrize("src", DTYPE_NAMES)
@pytest.mark.parametrize("dst", DTYPE_NAMES)
def test_copy_large_transposed(dst, src):
    # big enough for any tiling / threading path of the copy kernel
    s = data(src, dst, (300, 257), shift=5)
    st = mk(s, src).t()  # (257, 300), non-contiguous
    d = pyth.empty(257, 300, dtype=pdt(dst))
    d.copy_(st)
    check(d, s.T, dst)
    # and into a transposed destination from a contiguous source
    base = pyth.empty(300, 257, dtype=pdt(dst))
    base.t().copy_(mk(np.ascontiguousarray(s.T), src))
    check(base, s, dst)


@pytest.mark.parametrize("name", ["float32", "float64", "int64", "float16", "uint8"])
def test_copy_random_floats_same_and_cross_type(name):
    rng = np.random.default_rng(7)
    a = rng.integers(0, 200, size=(37, 53)).astype(np.float32) / 4  # exact in every float type
    s = mk(a, "float32")
    d = pyth.zeros(53, 37, dtype=pdt(name))
    d.copy_(s.t())
    check(d, a.T, name)
    back = pyth.empty(37, 53, dtype=pyth.float64)
    back.copy_(d.t())
    check(back, a.T.T.astype(NP_CARRIER[name]), "float64")


def test_copy_into_from_numpy_view_reaches_the_array():
    a = np.zeros((4, 5), dtype=np.float64)
    t = pyth.from_numpy(a)
    t[1:3, ::2].copy_(pyth.tensor([1, 2, 3], dtype=pyth.int32))
    want = np.zeros((4, 5))
    want[1:3, ::2] = [1, 2, 3]
    assert np.array_equal(a, want)


def test_copy_half_rounding_matches_numpy():
    rng = np.random.default_rng(3)
    a = (rng.standard_normal((20, 30)) * 10.0 ** rng.integers(-6, 5, (20, 30))).astype(np.float32)
    d = pyth.empty(30, 20, dtype=pyth.float16)
    d.copy_(mk(a, "float32").t())
    with np.errstate(over="ignore"):
        want = a.T.astype(np.float16)
    assert d.float().tolist() == want.astype(np.float32).tolist()


def test_copy_bfloat16_rounding_matches_reference():
    rng = np.random.default_rng(4)
    a = (rng.standard_normal((20, 30)) * 1000).astype(np.float32)
    d = pyth.empty(20, 30, dtype=pyth.bfloat16)
    d.copy_(mk(a, "float32"))
    assert d.tolist() == bf16_round(a).tolist()


# ---- overlapping self-copies: as through a temporary ---------------------------------------


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_overlapping_shift_right(name):
    a = data(name, name, (9,))
    t = mk(a, name)
    t[1:].copy_(t[:-1])
    a[1:] = a[:-1].copy()
    check(t, a, name)


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_overlapping_shift_left(name):
    a = data(name, name, (9,))
    t = mk(a, name)
    t[:-1].copy_(t[1:])
    a[:-1] = a[1:].copy()
    check(t, a, name)


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_overlapping_rows_2d(name):
    a = data(name, name, (5, 4), shift=1)
    t = mk(a, name)
    t[1:, 1:].copy_(t[:-1, :-1])
    a[1:, 1:] = a[:-1, :-1].copy()
    check(t, a, name)


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_overlapping_transpose_in_place(name):
    a = data(name, name, (4, 4), shift=2)
    t = mk(a, name)
    t.copy_(t.t())
    check(t, a.T.copy(), name)


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_overlapping_broadcast_from_own_column(name):
    a = data(name, name, (4, 4), shift=3)
    t = mk(a, name)
    t.copy_(t[:, 0])  # row i becomes column 0, read before any write
    check(t, np.broadcast_to(a[:, 0], (4, 4)).copy(), name)


@pytest.mark.parametrize("name", ["float32", "int64", "bfloat16"])
def test_overlapping_large_shift(name):
    a = data(name, name, (4000,), shift=1)
    t = mk(a, name)
    t[3:].copy_(t[:-3])
    a[3:] = a[:-3].copy()
    check(t, a, name)
    t = mk(a, name)
    t.view(40, 100)[:, 1:].copy_(t.view(40, 100)[:, :-1])
    a.reshape(40, 100)[:, 1:] = a.reshape(40, 100)[:, :-1].copy()
    check(t, a, name)


@pytest.mark.parametrize("name", ["float64", "int8", "bool"])
def test_self_copy_and_disjoint_same_storage(name):
    a = data(name, name, (10,))
    t = mk(a, name)
    t.copy_(t)
    check(t, a, name)
    t[::2].copy_(t[1::2])
    a[::2] = a[1::2].copy()
    check(t, a, name)


# ---- errors ---------------------------------------------------------------------------------


def shape_in(shape, msg):
    """Whether msg names the shape, as [2, 3], (2, 3), 2x3 or torch.Size([2, 3])."""
    if len(shape) == 0:
        return re.search(r"\[\]|\(\)", msg) is not None
    pat = r"\D{1,3}".join(str(n) for n in shape)
    return re.search(rf"(?<!\d){pat}(?!\d)", msg) is not None


BAD = [((2, 3), (4,)), ((2, 3), (2, 2)), ((3,), (2, 3)), ((3,), (1, 3)), ((), (1,)),
       ((2, 3), (2, 1, 3)), ((4, 3), (3, 4)), ((0, 3), (2, 3)), ((2, 3), (0,))]


@pytest.mark.parametrize("dst_shape,src_shape", BAD)
@pytest.mark.parametrize("src", ["float32", "int64"])
def test_copy_shape_mismatch_raises(dst_shape, src_shape, src):
    d = pyth.zeros(*dst_shape) if dst_shape else pyth.tensor(0.0)
    before = d.tolist()
    s = pyth.ones(*src_shape, dtype=pdt(src))
    with pytest.raises(RuntimeError, match=r"(?i)copy") as info:
        d.copy_(s)
    msg = str(info.value)
    assert shape_in(dst_shape, msg), msg
    assert shape_in(src_shape, msg), msg
    assert d.tolist() == before


def test_copy_non_tensor_raises_type_error():
    d = pyth.zeros(3)
    with pytest.raises(TypeError):
        d.copy_(object())
    with pytest.raises(TypeError):
        d.copy_("abc")


def test_copy_into_expanded_destination_raises():
    # PyTorch refuses to write through a tensor whose elements alias one another
    d = pyth.zeros(3).expand(2, 3)
    with pytest.raises(RuntimeError, match=r"(?i)memory location|overlap|alias|expanded"):
        d.copy_(pyth.ones(2, 3))


# ---- PyTorch as a second oracle -------------------------------------------------------------


def pyth_from_torch(torch, t, name):
    if name == "bfloat16":
        return pyth.tensor(t.float().numpy(), dtype=pyth.bfloat16)
    return pyth.tensor(t.numpy(), dtype=pdt(name))


def as_list(torch, t):
    if t.dtype == torch.bfloat16:
        return t.float().tolist()
    return t.tolist()


def same_lists(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


@pytest.mark.parametrize("src", DTYPE_NAMES)
@pytest.mark.parametrize("dst", DTYPE_NAMES)
def test_copy_matches_torch_all_pairs(dst, src):
    torch = pytest.importorskip("torch")
    ts = torch_convertible(src, dst, 240, seed=DTYPE_NAMES.index(src) * 10 + DTYPE_NAMES.index(dst))
    ts = ts.reshape(12, 20)
    ps = pyth_from_torch(torch, ts, src)
    assert same_lists(ps.tolist(), as_list(torch, ts))
    tdt = getattr(torch, dst)
    # contiguous, transposed source, broadcast row
    td = torch.empty(12, 20, dtype=tdt).copy_(ts)
    pd = pyth.empty(12, 20, dtype=pdt(dst)).copy_(ps)
    assert same_lists(pd.tolist(), as_list(torch, td)), (src, dst)
    td = torch.empty(20, 12, dtype=tdt).copy_(ts.t())
    pd = pyth.empty(20, 12, dtype=pdt(dst)).copy_(ps.t())
    assert same_lists(pd.tolist(), as_list(torch, td))
    td = torch.empty(4, 3, 20, dtype=tdt).copy_(ts[::5])
    pd = pyth.empty(4, 3, 20, dtype=pdt(dst)).copy_(ps[::5])
    assert same_lists(pd.tolist(), as_list(torch, td))


@pytest.mark.parametrize("shapes", [((2, 3), (3,)), ((4, 3), (1, 3)), ((2, 4, 3), (4, 1)),
                                    ((0, 3), (3,)), ((2, 0), (0,)), ((), ()), ((2, 3), ()),
                                    ((5, 1, 4), (1, 4))])
@pytest.mark.parametrize("pair", [("float32", "int64"), ("bfloat16", "float64"),
                                  ("bool", "float16"), ("int8", "int32")])
def test_copy_broadcasting_matches_torch(shapes, pair):
    torch = pytest.importorskip("torch")
    dst_shape, src_shape = shapes
    dst, src = pair
    n = int(np.prod(src_shape))
    ts = torch_convertible(src, dst, max(n, 10), seed=n)[:n].reshape(src_shape)
    ps = pyth_from_torch(torch, ts, src)
    td = torch.zeros(dst_shape, dtype=getattr(torch, dst)).copy_(ts)
    pd = pyth.zeros(*dst_shape, dtype=pdt(dst)) if dst_shape else mk(np.zeros(()), dst)
    pd.copy_(ps)
    assert tuple(pd.shape) == tuple(td.shape)
    assert same_lists(pd.tolist(), as_list(torch, td))


@pytest.mark.parametrize("dst_shape,src_shape", BAD)
def test_copy_shape_errors_agree_with_torch(dst_shape, src_shape):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        torch.zeros(dst_shape).copy_(torch.ones(src_shape))
    d = pyth.zeros(*dst_shape) if dst_shape else pyth.tensor(0.0)
    with pytest.raises(RuntimeError):
        d.copy_(pyth.ones(*src_shape))
