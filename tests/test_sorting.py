"""Oracle tests for pyth's sort/select family: sort, argsort, msort, topk, kthvalue, median,
nanmedian, mode, unique.

Every op is checked against numpy (stable argsort, np.unique) and PyTorch (when installed) over
all ten dtypes, several layouts (contiguous, transposed, stepped, expanded, size 0, 0-dim),
negative dims, both directions, ties, NaNs and signed zeros; then the function / method / out=
forms, the threaded paths, and the error paths (exception type and message keywords).

pyth's sort is always stable, so its indices are compared exactly with a stable oracle (numpy
kind='stable', torch stable=True). For topk, kthvalue and median(dim) PyTorch's index among tied
values is unspecified: the values are compared with torch, the indices with the stable oracle.
"""
import math

import numpy as np
import pytest
from _support import (
    DTYPE_NAMES,
    FLOATS,
    LAYOUTS,
    NP_CARRIER,
    kw,
    laid_out_as,
    pdt,
    tensor_of,
    to_numpy_exact,
)

import pyth

NO_BOOL = [n for n in DTYPE_NAMES if n != "bool"]  # PyTorch refuses bool for the selections


def sample(shape, name, seed=0, nan=True, spread=4):
    """Values with many ties (and NaN, ±inf for floats), exact in every dtype."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape, dtype=np.int64))
    if name == "bool":
        v = rng.integers(0, 2, n).astype(bool)
    elif name == "uint8":
        v = rng.integers(0, 2 * spread, n)
    elif name in FLOATS:
        v = rng.integers(-2 * spread, 2 * spread + 1, n) * 0.5
        if nan and n:
            v[rng.random(n) < 0.15] = np.nan
            v[rng.random(n) < 0.05] = np.inf
            v[rng.random(n) < 0.05] = -np.inf
    else:
        v = rng.integers(-spread, spread + 1, n)
    return np.asarray(v).astype(NP_CARRIER[name]).reshape(shape)


def expanded_source(shape, name, seed=0):
    """An array whose rows along dim 0 repeat (what an expanded tensor holds)."""
    row = sample((1,) + tuple(shape[1:]), name, seed)
    return np.broadcast_to(row, shape).copy()


def stable_argsort(a, axis, descending):
    """numpy's stable argsort; descending keeps ties in index order and puts NaN first."""
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    n = a.shape[axis]
    flipped = np.argsort(np.flip(a, axis), axis=axis, kind="stable")
    return n - 1 - np.flip(flipped, axis)


def assert_same(t, expected, name=None):
    """pyth tensor t equals the numpy array expected: shape, values (NaN equal NaN)."""
    got = to_numpy_exact(t)
    assert got.shape == np.shape(expected)
    np.testing.assert_array_equal(got, np.asarray(expected, dtype=got.dtype))


def data_for(shape, name, how, seed=0):
    arr = expanded_source(shape, name, seed) if how == "expanded" else sample(shape, name, seed)
    return arr, laid_out_as(arr, name, how)


# --------------------------------------------------------------------------------------------
# sort / argsort / msort
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("how", LAYOUTS)
@pytest.mark.parametrize("dim", [-1, 0, 1])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_matches_numpy_stable(name, how, dim, descending):
    arr, t = data_for((5, 7, 6), name, how, seed=dim + 3)
    values, indices = pyth.sort(t, dim=dim, descending=descending)
    idx = stable_argsort(arr, dim, descending)
    assert indices.dtype is pyth.int64 and values.dtype is t.dtype
    assert_same(indices, idx)
    assert_same(values, np.take_along_axis(arr, idx, dim))
    assert_same(pyth.argsort(t, dim, descending), idx)
    assert_same(t.argsort(dim=dim, descending=descending), idx)


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_matches_torch_stable(name, descending):
    torch = pytest.importorskip("torch")
    arr = sample((4, 9, 33), name, seed=11)
    t = tensor_of(arr, name)
    tt = torch.tensor(arr).to(getattr(torch, name))
    for dim in (0, 1, 2, -1, -2):
        r = t.sort(dim, descending, stable=True)
        e = torch.sort(tt, dim=dim, descending=descending, stable=True)
        np.testing.assert_array_equal(to_numpy_exact(r.indices), e.indices.numpy())
        np.testing.assert_array_equal(to_numpy_exact(r.values), e.values.float().numpy()
                                      if name == "bfloat16" else e.values.numpy())


def test_sort_nan_and_signed_zero_order():
    t = pyth.tensor([0.0, float("nan"), -0.0, 1.0, float("nan"), -math.inf, 0.0])
    r = t.sort()
    assert r.indices.tolist() == [5, 0, 2, 6, 3, 1, 4]  # zeros tie: index order kept
    assert math.copysign(1, r.values[2].item()) == -1.0
    r = t.sort(descending=True)
    assert r.indices.tolist() == [1, 4, 3, 0, 2, 6, 5]  # NaN first, ties in index order


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_sort_reduced_floats_compare_as_numbers(name):
    # bit patterns of negative halves sort backwards: keys must be compared as floats
    vals = [-2.0, 0.5, -0.25, 3.0, -1e-3, 1e-3, 60000.0 if name == "float16" else 1e30]
    t = pyth.tensor(vals, dtype=pdt(name))
    got = to_numpy_exact(t.sort().values)
    assert np.all(np.diff(got) > 0)
    assert_same(t.sort().indices, np.argsort(to_numpy_exact(t), kind="stable"))


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_sort_size0_and_0dim(name):
    for shape, dim in (((0,), 0), ((3, 0), 1), ((3, 0), 0), ((0, 4), -1)):
        t = tensor_of(sample(shape, name), name)
        v, i = t.sort(dim)
        assert tuple(v.shape) == shape and tuple(i.shape) == shape
        assert pyth.argsort(t, dim).shape == shape
    s = tensor_of(np.array(sample((1,), name)[0]), name)
    assert s.dim() == 0
    for d in (0, -1):
        v, i = s.sort(d, descending=True)
        assert v.dim() == 0 and i.dim() == 0 and i.item() == 0
        assert_same(v, to_numpy_exact(s))
    assert pyth.msort(s).dim() == 0


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_msort(name):
    arr = sample((6, 5), name, seed=4)
    t = tensor_of(arr, name)
    expect = np.take_along_axis(arr, stable_argsort(arr, 0, False), 0)
    assert_same(pyth.msort(t), expect)
    assert_same(t.msort(), expect)


def test_sort_result_is_named_pair():
    r = pyth.sort(pyth.tensor([3, 1, 2]))
    values, indices = r
    assert type(r).__name__ == "sort" and isinstance(r, tuple)
    assert r.values is values and r[1] is indices
    assert indices.tolist() == [1, 2, 0]
    assert "values=" in repr(r)


def test_sort_does_not_modify_input_and_is_contiguous():
    arr = sample((6, 8), "float32", seed=2)
    t = tensor_of(arr, "float32").t()
    v, i = t.sort(0)
    assert_same(t, arr.T)
    assert v.is_contiguous() and i.is_contiguous()


# --------------------------------------------------------------------------------------------
# the threaded paths: many slices, and one long slice (parallel merge passes)
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["float32", "int64", "float16", "uint8"])
def test_sort_many_slices_threaded(name):
    arr = sample((96, 1200), name, seed=5, spread=200)
    t = tensor_of(arr, name)
    for dim in (1, 0):
        idx = stable_argsort(arr, dim, dim == 0)
        r = t.sort(dim, descending=dim == 0)
        assert_same(r.indices, idx)
        assert_same(r.values, np.take_along_axis(arr, idx, dim))


@pytest.mark.parametrize("name", ["uint8", "int8", "bool"])
def test_one_byte_types_counting_sort(name):
    # one-byte keys are counting-sorted above 256 elements: stable, both directions, extremes
    arr = sample((3, 2000), name, seed=31, spread=60)
    if name != "bool":
        info = np.iinfo(arr.dtype)
        arr[0, :6] = [info.max, info.min, 0, info.max, info.min, 1]
    t = tensor_of(arr, name)
    for descending in (False, True):
        idx = stable_argsort(arr, 1, descending)
        r = t.sort(-1, descending)
        assert_same(r.indices, idx)
        assert_same(r.values, np.take_along_axis(arr, idx, 1))
    vals, idxs = mode_oracle(arr, 1)
    assert_same(t.mode().values, vals)
    assert_same(t.mode().indices, idxs)
    ref = np.unique(arr, return_inverse=True, return_counts=True)
    for got, exp in zip(t.unique(return_inverse=True, return_counts=True), ref):
        assert_same(got, exp.reshape(got.shape))


@pytest.mark.parametrize("descending", [False, True])
def test_sort_one_long_slice_threaded(descending):
    arr = sample((150_001,), "float64", seed=6, spread=1000)
    idx = stable_argsort(arr, 0, descending)
    r = tensor_of(arr, "float64").sort(descending=descending)
    assert_same(r.indices, idx)
    assert_same(r.values, arr[idx])
    u = pyth.unique(tensor_of(arr, "float64"), return_counts=True)
    ref = np.unique(arr, return_counts=True, equal_nan=False)
    assert_same(u[0], ref[0])
    assert_same(u[1], ref[1])


def test_selections_threaded_many_slices():
    torch = pytest.importorskip("torch")
    arr = sample((300, 257), "float32", seed=8, spread=300)
    t, tt = tensor_of(arr, "float32"), torch.tensor(arr)
    np.testing.assert_array_equal(to_numpy_exact(t.kthvalue(100).values), tt.kthvalue(100).values.numpy())
    np.testing.assert_array_equal(to_numpy_exact(t.median(-1).values), tt.median(-1).values.numpy())
    np.testing.assert_array_equal(to_numpy_exact(t.topk(17).values), tt.topk(17).values.numpy())
    # PyTorch's mode sorts with NaN-unaware comparisons, so its NaN slices are not an oracle
    clean = np.nan_to_num(arr, nan=7.5)
    np.testing.assert_array_equal(to_numpy_exact(tensor_of(clean, "float32").mode(-1).values),
                                  torch.tensor(clean).mode(-1).values.numpy())


# --------------------------------------------------------------------------------------------
# topk
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", NO_BOOL)
@pytest.mark.parametrize("how", LAYOUTS)
@pytest.mark.parametrize("largest", [True, False])
def test_topk_matches_stable_oracle(name, how, largest):
    arr, t = data_for((4, 6, 9), name, how, seed=7)
    for dim in (-1, 0, 1):
        n = arr.shape[dim]
        for k in (0, 1, 3, n):
            idx = np.take(stable_argsort(arr, dim, largest), range(k), axis=dim)
            v, i = pyth.topk(t, k, dim=dim, largest=largest)
            assert_same(i, idx)
            assert_same(v, np.take_along_axis(arr, idx, dim))


@pytest.mark.parametrize("name", NO_BOOL)
def test_topk_values_match_torch(name):
    torch = pytest.importorskip("torch")
    arr = sample((5, 40), name, seed=9)
    t, tt = tensor_of(arr, name), torch.tensor(arr).to(getattr(torch, name))
    for k, dim, largest in ((1, -1, True), (7, 1, False), (5, 0, True), (40, -1, False)):
        r = t.topk(k, dim, largest, sorted=True)
        e = tt.topk(k, dim, largest, sorted=True)
        np.testing.assert_array_equal(to_numpy_exact(r.values), e.values.float().numpy())
        # torch's tie order is unspecified; its indices must name the same values
        np.testing.assert_array_equal(np.take_along_axis(arr, to_numpy_exact(r.indices), dim),
                                      np.take_along_axis(arr, e.indices.numpy(), dim))
        assert type(r).__name__ == "topk"


@pytest.mark.parametrize("name", ["float32", "int16", "bfloat16"])
@pytest.mark.parametrize("k", [1, 5, 128, 129, 300, 1000])
def test_topk_heap_and_quickselect_paths(name, k):
    # small k keeps a heap of the best k, larger k quickselects: both must give the stable order
    arr = sample((3, 1000), name, seed=k, spread=20)
    arr[1] = np.sort(arr[1])  # ascending input: every element enters a largest-k heap
    t = tensor_of(arr, name)
    for largest in (True, False):
        idx = stable_argsort(arr, 1, largest)[:, :k]
        v, i = t.topk(k, largest=largest)
        assert_same(i, idx)
        assert_same(v, np.take_along_axis(arr, idx, 1))


def test_topk_sorted_false_and_0dim():
    t = pyth.tensor([1.0, 5.0, 3.0, 5.0])
    v, i = t.topk(3, sorted=False)
    assert sorted(v.tolist()) == [3.0, 5.0, 5.0] and sorted(i.tolist()) == [1, 2, 3]
    s = pyth.tensor(4.0)
    for k in (0, 1):  # PyTorch returns the element for both
        v, i = s.topk(k)
        assert v.dim() == 0 and v.item() == 4.0 and i.item() == 0


# --------------------------------------------------------------------------------------------
# kthvalue, median, nanmedian
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", NO_BOOL)
@pytest.mark.parametrize("how", LAYOUTS)
@pytest.mark.parametrize("keepdim", [False, True])
def test_kthvalue_matches_stable_oracle(name, how, keepdim):
    arr, t = data_for((5, 7, 8), name, how, seed=12)
    for dim in (-1, 0, 1):
        order = stable_argsort(arr, dim, False)
        for k in (1, 3, arr.shape[dim]):
            idx = np.take(order, [k - 1], axis=dim)
            v, i = pyth.kthvalue(t, k, dim, keepdim)
            if not keepdim:
                idx = np.squeeze(idx, dim)
            assert_same(i, idx)
            assert_same(v, np.take_along_axis(arr, idx if keepdim else
                                              np.expand_dims(idx, dim), dim).reshape(idx.shape))


@pytest.mark.parametrize("name", NO_BOOL)
def test_kthvalue_and_median_values_match_torch(name):
    torch = pytest.importorskip("torch")
    arr = sample((6, 11, 10), name, seed=13)
    t, tt = tensor_of(arr, name), torch.tensor(arr).to(getattr(torch, name))
    for dim in (0, -1, 1):
        for keepdim in (False, True):
            for r, e in ((t.kthvalue(4, dim, keepdim), tt.kthvalue(4, dim, keepdim)),
                         (t.median(dim, keepdim), tt.median(dim, keepdim)),
                         (t.nanmedian(dim, keepdim), tt.nanmedian(dim, keepdim))):
                assert tuple(r.values.shape) == tuple(e.values.shape)
                assert tuple(r.indices.shape) == tuple(e.indices.shape)
                np.testing.assert_array_equal(to_numpy_exact(r.values), e.values.float().numpy())
    for f in ("median", "nanmedian"):
        got, exp = getattr(t, f)(), getattr(tt, f)()
        assert got.dim() == 0
        np.testing.assert_array_equal(to_numpy_exact(got), exp.float().numpy())


def lower_median_oracle(a, axis, ignore_nan):
    """(values, indices) of the lower median along axis, from a stable argsort."""
    a = np.moveaxis(a, axis, -1)
    vals = np.empty(a.shape[:-1], a.dtype)
    idxs = np.empty(a.shape[:-1], np.int64)
    for pos in np.ndindex(a.shape[:-1]):
        row = a[pos]
        nans = np.flatnonzero(np.isnan(row)) if row.dtype.kind == "f" else []
        if len(nans) and (not ignore_nan or len(nans) == len(row)):
            j = nans[0]
        else:
            m = len(row) - len(nans)
            j = np.argsort(row, kind="stable")[(m - 1) // 2]
        vals[pos], idxs[pos] = row[j], j
    return vals, idxs


@pytest.mark.parametrize("name", NO_BOOL)
@pytest.mark.parametrize("how", ["contig", "transposed", "stepped"])
def test_median_dim_matches_oracle(name, how):
    arr, t = data_for((4, 6, 7), name, how, seed=14)
    for dim in (-1, 0, 1):
        for op, ignore in (("median", False), ("nanmedian", True)):
            vals, idxs = lower_median_oracle(arr, dim, ignore)
            v, i = getattr(pyth, op)(t, dim)
            assert_same(v, vals)
            assert_same(i, idxs)


@pytest.mark.parametrize("name", NO_BOOL)
def test_median_all_is_lower_median(name):
    for shape in ((7,), (4, 6), (3, 1, 5)):
        arr = sample(shape, name, seed=15, nan=False)
        flat = np.sort(arr.ravel())
        assert_same(pyth.median(tensor_of(arr, name)), flat[(flat.size - 1) // 2])
    if name in FLOATS:
        arr = sample((5, 5), name, seed=16)
        arr[2, 3] = np.nan
        assert math.isnan(pyth.median(tensor_of(arr, name)).item())
        rest = np.sort(arr[~np.isnan(arr)])
        assert_same(pyth.nanmedian(tensor_of(arr, name)), rest[(rest.size - 1) // 2])
        assert math.isnan(pyth.nanmedian(tensor_of(np.full(3, np.nan), name)).item())


def test_median_of_nothing_matches_torch():
    torch = pytest.importorskip("torch")
    for name in NO_BOOL:
        got = pyth.median(pyth.empty(0, dtype=pdt(name)))
        exp = torch.empty(0, dtype=getattr(torch, name)).median()
        assert got.dim() == 0
        np.testing.assert_array_equal(to_numpy_exact(got), exp.float().numpy() if name == "bfloat16"
                                      else exp.numpy())


def test_median_nan_index_is_first_nan():
    nan = float("nan")
    for data, idx in (([3.0, nan, 1.0, nan], 1), ([3.0, 1.0, nan], 2), ([nan, 3.0, 1.0, nan], 0)):
        v, i = pyth.tensor(data).median(0)
        assert math.isnan(v.item()) and i.item() == idx
    v, i = pyth.tensor([nan, 1.0, nan, 3.0, 2.0]).nanmedian(0)
    assert (v.item(), i.item()) == (2.0, 4)
    v, i = pyth.tensor([nan, nan]).nanmedian(0)
    assert math.isnan(v.item()) and i.item() == 0


# --------------------------------------------------------------------------------------------
# mode
# --------------------------------------------------------------------------------------------

def mode_oracle(a, axis):
    """Most frequent value (smallest on a tie; NaNs never equal) and its last index."""
    a = np.moveaxis(a, axis, -1)
    vals = np.empty(a.shape[:-1], a.dtype)
    idxs = np.empty(a.shape[:-1], np.int64)
    for pos in np.ndindex(a.shape[:-1]):
        row = a[pos]
        order = np.argsort(row, kind="stable")
        best, best_last, start = 0, 0, 0
        for j in range(1, len(row) + 1):
            if j < len(row) and row[order[j]] == row[order[j - 1]]:
                continue
            if j - start > best:
                best, best_last = j - start, j - 1
            start = j
        vals[pos], idxs[pos] = row[order[best_last]], order[best_last]
    return vals, idxs


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("how", LAYOUTS)
def test_mode_matches_oracle(name, how):
    arr, t = data_for((4, 5, 9), name, how, seed=17)
    for dim in (-1, 0, 1):
        for keepdim in (False, True):
            vals, idxs = mode_oracle(arr, dim)
            v, i = pyth.mode(t, dim, keepdim)
            if keepdim:
                vals, idxs = np.expand_dims(vals, dim), np.expand_dims(idxs, dim)
            assert_same(v, vals)
            assert_same(i, idxs)


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_mode_matches_torch(name):
    # PyTorch reports the last occurrence for slices of up to 16 elements (beyond that its
    # unstable sort makes the index arbitrary, so only the values are compared); with NaNs its
    # result is not meaningful (NaN-unaware comparisons), so the data has none
    torch = pytest.importorskip("torch")
    for shape, check_index in (((6, 16), True), ((3, 50), False)):
        arr = sample(shape, name, seed=18, nan=False)
        r = tensor_of(arr, name).mode()
        e = torch.tensor(arr).to(getattr(torch, name)).mode()
        np.testing.assert_array_equal(to_numpy_exact(r.values), e.values.float().numpy()
                                      if name == "bfloat16" else e.values.numpy())
        if check_index:
            np.testing.assert_array_equal(to_numpy_exact(r.indices), e.indices.numpy())
    z = pyth.tensor([-0.0, 0.0]).mode()
    assert z.indices.item() == 1 and math.copysign(1, z.values.item()) == 1.0


# --------------------------------------------------------------------------------------------
# unique
# --------------------------------------------------------------------------------------------

def assert_inverse(inverse, expected, arr):
    """inverse equals expected where arr is a number; NaN elements (each its own unique value,
    which the oracles number in an unspecified order) map to distinct NaN entries, in index
    order for pyth (its sort is stable)."""
    got = to_numpy_exact(inverse)
    assert got.shape == arr.shape
    nan = np.isnan(arr) if arr.dtype.kind == "f" else np.zeros(arr.shape, bool)
    np.testing.assert_array_equal(got[~nan], expected[~nan])
    np.testing.assert_array_equal(got[nan], np.sort(expected[nan]))


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("how", LAYOUTS + ["size0", "0dim"])
def test_unique_matches_numpy(name, how):
    if how == "size0":
        arr, t = sample((3, 0), name), tensor_of(sample((3, 0), name), name)
    elif how == "0dim":
        arr = np.array(sample((1,), name)[0])
        t = tensor_of(arr, name)
    else:
        arr, t = data_for((4, 6), name, how, seed=19)
    values, inverse, counts = pyth.unique(t, return_inverse=True, return_counts=True)
    ref, ref_inv, ref_cnt = np.unique(arr, return_inverse=True, return_counts=True,
                                      equal_nan=False)
    assert_same(values, ref)
    assert_inverse(inverse, ref_inv.reshape(arr.shape), arr)
    assert_same(counts, ref_cnt)
    assert_same(t.unique(), ref)
    v, c = t.unique(sorted=True, return_counts=True)
    assert_same(c, ref_cnt)


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_unique_matches_torch(name):
    torch = pytest.importorskip("torch")
    arr = sample((5, 7), name, seed=20)
    tt = torch.tensor(arr).to(getattr(torch, name))
    got = pyth.unique(tensor_of(arr, name), return_inverse=True, return_counts=True)
    exp = torch.unique(tt, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(to_numpy_exact(got[0]), exp[0].float().numpy())
    assert_inverse(got[1], exp[1].numpy(), arr)
    np.testing.assert_array_equal(to_numpy_exact(got[2]), exp[2].numpy())
    s = pyth.tensor([-0.0, 0.0, 0.0]).unique(return_counts=True)
    assert s[1].tolist() == [3] and math.copysign(1, s[0][0].item()) == -1.0


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("dim", [0, 1, -1, 2])
def test_unique_dim_matches_numpy_and_torch(name, dim):
    arr = sample((6, 5, 2), name, seed=21, nan=False, spread=1)
    arr[3] = arr[1]  # duplicate slices along every dim choice
    arr[:, 4] = arr[:, 0]
    arr[..., 1] = arr[..., 0]
    t = tensor_of(arr, name)
    values, inverse, counts = pyth.unique(t, return_inverse=True, return_counts=True, dim=dim)
    ref, ref_inv, ref_cnt = np.unique(arr, return_inverse=True, return_counts=True, axis=dim)
    assert_same(values, ref)
    assert_same(inverse, ref_inv.ravel())
    assert_same(counts, ref_cnt)
    torch = pytest.importorskip("torch")
    exp = torch.unique(torch.tensor(arr).to(getattr(torch, name)), return_inverse=True,
                       return_counts=True, dim=dim)
    for g, e in zip((values, inverse, counts), exp):
        np.testing.assert_array_equal(to_numpy_exact(g), e.float().numpy() if e.dtype == torch.bfloat16
                                      else e.numpy())


def test_unique_dim_edges():
    nan = float("nan")
    v, inv, cnt = pyth.tensor([[nan, 2.0], [nan, 2.0]]).unique(
        dim=0, return_inverse=True, return_counts=True)
    assert tuple(v.shape) == (2, 2) and cnt.tolist() == [1, 1]  # NaN rows differ
    v, inv, cnt = pyth.zeros(0, 3).unique(dim=0, return_inverse=True, return_counts=True)
    assert tuple(v.shape) == (0, 3) and inv.numel() == 0 and cnt.numel() == 0
    v, inv = pyth.zeros(2, 0).unique(dim=1, return_inverse=True)
    assert tuple(v.shape) == (2, 0)
    with pytest.raises(RuntimeError, match=kw("0 sized", "unique")):
        pyth.zeros(2, 0).unique(dim=0)
    with pytest.raises(IndexError, match=kw("unique", "no dimensions")):
        pyth.tensor(3).unique(dim=0)
    with pytest.raises(IndexError, match=kw("unique", "out of range")):
        pyth.zeros(2, 3).unique(dim=2)


# --------------------------------------------------------------------------------------------
# forms: out=, methods, 0-dim for every op
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("op, args", [("sort", (1,)), ("topk", (2, 1)), ("kthvalue", (2, 1)),
                                      ("median", (1,)), ("nanmedian", (1,)), ("mode", (1,))])
def test_out_pairs(op, args):
    arr = sample((3, 5), "float32", seed=22)
    t = tensor_of(arr, "float32")
    expect = getattr(pyth, op)(t, *args)
    v, i = pyth.empty(7), pyth.empty(0, dtype=pyth.int64)
    r = getattr(pyth, op)(t, *args, out=(v, i))
    assert r.values is v and r.indices is i and type(r).__name__ == op
    assert_same(v, to_numpy_exact(expect.values))
    assert_same(i, to_numpy_exact(expect.indices))
    with pytest.raises(RuntimeError, match=kw("dtype", "float64", "float32")):
        getattr(pyth, op)(t, *args, out=(pyth.empty(0, dtype=pyth.float64), i))
    with pytest.raises(RuntimeError, match=kw("dtype", "int64", "int32")):
        getattr(pyth, op)(t, *args, out=(v, pyth.empty(0, dtype=pyth.int32)))
    with pytest.raises(TypeError, match=kw("out", "tuple")):
        getattr(pyth, op)(t, *args, out=v)
    with pytest.raises(RuntimeError, match=kw("expand|memory|overlap|writ")):
        getattr(pyth, op)(t, *args, out=(pyth.zeros(1).expand(*expect.values.shape), i))


def test_out_sort_in_place_on_input():
    arr = sample((4, 6), "int32", seed=23)
    t = tensor_of(arr, "int32")
    i = pyth.empty(0, dtype=pyth.int64)
    t.sort(1, out=(t, i))
    assert_same(t, np.sort(arr, axis=1))
    assert_same(i, np.argsort(arr, axis=1, kind="stable"))


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_every_op_on_0dim(name):
    s = tensor_of(np.array(sample((1,), name, nan=False)[0]), name)
    calls = [("sort", ()), ("mode", ()), ("mode", (0, True))]
    if name != "bool":
        calls += [("topk", (1,)), ("kthvalue", (1,)), ("kthvalue", (1, -1, True)),
                  ("median", (0,)), ("nanmedian", (-1,))]
    for op, args in calls:
        v, i = getattr(s, op)(*args)
        assert v.dim() == 0 and i.dim() == 0 and i.item() == 0
        assert_same(v, to_numpy_exact(s))
    if name != "bool":
        assert_same(s.median(), to_numpy_exact(s))


@pytest.mark.parametrize("op", ["kthvalue", "median", "mode"])
def test_reductions_with_empty_outer_dims(op):
    t = pyth.zeros(0, 3)
    args = (1,) if op == "kthvalue" else ()
    v, i = getattr(t, op)(*args, -1)  # along dim -1 (size 3): no slices at all
    assert tuple(v.shape) == (0,) and tuple(i.shape) == (0,)
    v, i = getattr(pyth.zeros(2, 0), op)(*args, 0)  # dim 0 has size 2
    assert tuple(v.shape) == (0,)


def test_topk_sizes_with_size0():
    v, i = pyth.zeros(0, 3).topk(2)
    assert tuple(v.shape) == (0, 2)
    v, i = pyth.zeros(4, 0).topk(0)
    assert tuple(v.shape) == (4, 0)


def test_methods_are_installed():
    t = pyth.tensor([[2, 1, 2]])
    for name in ("sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode",
                 "unique"):
        assert callable(getattr(t, name)) and callable(getattr(pyth, name))
    assert t.unique(return_inverse=True)[1].tolist() == [[1, 0, 1]]
    assert t.sort(stable=True, dim=1).indices.tolist() == [[1, 0, 2]]


# --------------------------------------------------------------------------------------------
# errors
# --------------------------------------------------------------------------------------------

def test_dim_out_of_range():
    t = pyth.zeros(2, 3)
    for call in (lambda: t.sort(2), lambda: t.argsort(-3), lambda: t.topk(1, 2),
                 lambda: t.kthvalue(1, 5), lambda: t.median(2), lambda: t.nanmedian(-3),
                 lambda: t.mode(-3), lambda: pyth.tensor(1.0).sort(1)):
        with pytest.raises(IndexError, match=kw("out of range", "dim")):
            call()


def test_k_out_of_range():
    t = pyth.zeros(2, 3)
    for k in (4, -1):
        with pytest.raises(RuntimeError, match=kw("topk", "k out of range", f"k = {k}", "3")):
            t.topk(k)
    for k in (0, 4, -1):
        with pytest.raises(RuntimeError, match=kw("kthvalue", "k out of range", f"k = {k}",
                                                  "size 3")):
            t.kthvalue(k)
    with pytest.raises(RuntimeError, match=kw("topk", "k out of range")):
        pyth.tensor(2.0).topk(2)
    with pytest.raises(RuntimeError, match=kw("k out of range")):
        pyth.zeros(0, 3).kthvalue(4)
    with pytest.raises(RuntimeError, match=kw("k out of range")):
        pyth.zeros(2, 0).topk(1)
    with pytest.raises(TypeError, match=kw("topk", "'k'", "int")):
        t.topk(1.0)


@pytest.mark.parametrize("op, args", [("kthvalue", (1,)), ("median", (-1,)), ("mode", ()),
                                      ("nanmedian", (-1,))])
def test_empty_reduction_dim(op, args):
    for t in (pyth.zeros(0), pyth.zeros(2, 0), pyth.zeros(0, 0)):
        with pytest.raises(IndexError, match=kw(op, "non-zero size")):
            getattr(t, op)(*args)


def test_bool_refused_where_torch_refuses():
    b = pyth.tensor([True, False])
    for call in (lambda: b.topk(1), lambda: b.kthvalue(1), lambda: b.median(),
                 lambda: b.median(0), lambda: b.nanmedian()):
        with pytest.raises(RuntimeError, match=kw("not implemented", "Bool")):
            call()
    assert b.sort().indices.tolist() == [1, 0] and b.mode().values.item() is False


def test_bad_arguments():
    with pytest.raises(TypeError, match=kw("sort", "Tensor", "list")):
        pyth.sort([3, 1])
    with pytest.raises(TypeError, match=kw("median", "keepdim")):
        pyth.median(pyth.zeros(3), keepdim=True)


def test_error_paths_do_not_leak():
    before = pyth.memory_stats()
    t = pyth.zeros(5, 6)
    for _ in range(50):
        for call in (lambda: t.topk(9), lambda: t.kthvalue(0), lambda: t.sort(4),
                     lambda: pyth.zeros(2, 0).unique(dim=0), lambda: pyth.zeros(2, 0).mode()):
            with pytest.raises((IndexError, RuntimeError)):
                call()
    del t
    after = pyth.memory_stats()
    assert after == before or _live(after) <= _live(before)


def _live(stats):
    return stats.get("live_bytes", stats.get("current_bytes", 0)) if isinstance(stats, dict) \
        else 0
