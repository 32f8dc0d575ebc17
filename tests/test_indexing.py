"""Oracle tests for pyth's __getitem__ / __setitem__, against numpy (and PyTorch when present).

Basic indexing (ints, positive-step slices, None, ...) must give views that share storage;
advanced indexing (int64 index tensors, lists, bool masks) copies, with numpy's rules for
where the advanced dims go.  Assignment broadcasts scalars, tensors and lists.
"""
import numpy as np
import pytest
from _support import (
    DTYPE_NAMES,
    FLOATS,
    NP_CARRIER,
    distinct_values,
    kw,
    np_offset,
    np_via_tolist,
    rooted_view,
    run_all,
    same_storage,
    tensor_of,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pyth

# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


class T:
    """Marks an index array that should be passed to pyth as a tensor (not as a list)."""

    def __init__(self, a):
        self.a = np.asarray(a)

    def __repr__(self):
        return f"T({self.a.tolist()!r})"


def idx_np(idx):
    if isinstance(idx, tuple):
        return tuple(idx_np(i) for i in idx)
    if isinstance(idx, T):
        return idx.a
    if isinstance(idx, list):
        return np.asarray(idx)
    return idx


def idx_pyth(idx):
    if isinstance(idx, tuple):
        return tuple(idx_pyth(i) for i in idx)
    if isinstance(idx, T):
        return pyth.tensor(idx.a)
    return idx


def idx_torch(torch, idx):
    if isinstance(idx, tuple):
        return tuple(idx_torch(torch, i) for i in idx)
    if isinstance(idx, T):
        return torch.from_numpy(idx.a.copy())
    return idx


def is_advanced(idx):
    items = idx if isinstance(idx, tuple) else (idx,)
    return any(isinstance(i, (list, T)) for i in items)


def check_get(shape, idx, name, layout):
    rp, bp, rn, bn = rooted_view(shape, name, layout)
    exp = np.asarray(bn[idx_np(idx)])
    got = bp[idx_pyth(idx)]
    assert isinstance(got, type(bp)) or hasattr(got, "storage"), "indexing must give a tensor"
    assert got.dtype == bp.dtype
    assert tuple(got.shape) == exp.shape, f"shape {tuple(got.shape)} != numpy {exp.shape}"
    np.testing.assert_array_equal(np_via_tolist(got), exp)
    if is_advanced(idx):
        # a copy: writing into it leaves the source alone
        if exp.size:
            before = np_via_tolist(rp)
            got.copy_(tensor_of(np.zeros(exp.shape, NP_CARRIER[name]), name))
            np.testing.assert_array_equal(np_via_tolist(rp), before)
    else:
        # a view: same storage, numpy's strides and offset
        assert same_storage(got, rp), "basic indexing must return a view"
        if exp.size:
            tup = idx_np(idx) if isinstance(idx, tuple) else (idx_np(idx),)
            view_np = bn[tup + (Ellipsis,)] if Ellipsis not in tup else bn[tup]
            assert got.storage_offset() == np_offset(view_np, rn)
            for d in range(exp.ndim):
                if exp.shape[d] > 1:
                    assert got.stride(d) == view_np.strides[d] // view_np.itemsize


# --------------------------------------------------------------------------------------------
# getitem against numpy
# --------------------------------------------------------------------------------------------

S = (4, 5, 6)
BASIC = [
    0, 3, -1, -4,
    (1, 2), (1, 2, 3), (-1, -2, -3), (0, -5),
    slice(None), slice(1, 3), slice(None, None, 2), slice(1, None, 3), slice(-3, None),
    slice(-100, 100), slice(3, 1), slice(4, None), slice(None, 0),
    (slice(None), 2), (slice(None), slice(1, 4, 2), slice(None, None, 5)),
    (Ellipsis, 1), (1, Ellipsis), (Ellipsis,), (), (Ellipsis, slice(2, 4)),
    (1, Ellipsis, 2), (None,), (None, 1, None, slice(1, 3)), (Ellipsis, None),
    (slice(None), None, Ellipsis, 0), (None, None), (2, None, slice(None, None, 3), -1),
]
ADVANCED = [
    # (a bare list of lists is left out: numpy 2 and torch read it differently)
    [0, 2, 3], [-1, 0], [3, 3, 0], T([[0, 1], [2, 3]]), [2],
    T([0, 2]), T([[1], [3]]), T(np.array(1)), T([-1, -4, 0]),
    ([0, 1, 2], [1, 2, 3]),                         # two index arrays, paired
    ([[0], [1]], [0, 2, 4]),                        # broadcasting together -> (2, 3)
    (T([0, 3]), T([[1], [4]]), T([5, 0])),          # three, broadcasting -> (2, 2)
    (slice(None), [0, 4]),
    (slice(None), [0, 1], [2, 3]),                  # adjacent: stay in place
    ([0, 1], slice(None), [2, 3]),                  # separated by a slice: go to the front
    ([1, 3], slice(1, 4), [[0], [5]]),              # separated, broadcast -> front (2, 2, 3)
    ([0, 1], None, [1, 2]),                         # separated by None: front
    (None, [0, 1], slice(None), [1, 2]),
    (Ellipsis, [0, 1], None, [1, 2]),
    (Ellipsis, [5, 0]), (1, [0, 3]), ([2, 1], 0), (0, [1, 2], [0, 1]),
    (slice(1, 3), T([4])), (None, T([0, 1])),
    # bool masks
    [True, False, True, True], T([False, True, False, True]), T([False] * 4),
    (slice(None), [True, False, True, False, True]),
    (Ellipsis, T(np.arange(6) % 2 == 0)),
    T(np.arange(20).reshape(4, 5) % 3 == 0),         # mask over the first two dims
    (slice(None), T(np.arange(30).reshape(5, 6) % 4 == 1)),
    (T([True, False, True, False]), slice(1, 3)),
]
FULL_MASK = "full_mask"


@pytest.mark.parametrize("layout", ["contig", "transposed", "stepped"])
@pytest.mark.parametrize("idx", BASIC + ADVANCED, ids=repr)
def test_getitem_matches_numpy(idx, layout):
    run_all([(n,) for n in DTYPE_NAMES], lambda name: check_get(S, idx, name, layout))


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_getitem_full_mask(name):
    a = distinct_values(S, name)
    t = tensor_of(a, name)
    mask = (distinct_values(S, "int64", seed=3) % 3) == 0
    got = t[pyth.tensor(mask)]
    assert tuple(got.shape) == (int(mask.sum()),)
    np.testing.assert_array_equal(np_via_tolist(got), a[mask])
    # a mask produced by pyth itself (comparison) works too when comparisons exist
    if name == "int64" and type(t).__gt__ is not object.__gt__:
        m2 = t > 0
        np.testing.assert_array_equal(np_via_tolist(t[m2]), a[a > 0])


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_int_on_1d_gives_0d_view(name):
    a = distinct_values((7,), name)
    t = tensor_of(a, name)
    for i in (0, 3, 6, -1, -7):
        r = t[i]
        assert r.dim() == 0 and tuple(r.shape) == ()
        assert r.item() == a[i].item()
        assert same_storage(r, t) and r.storage_offset() == i % 7
    # writes through
    r = t[2]
    r.copy_(tensor_of(np.array(a[5]), name))
    assert t.tolist()[2] == a[5].item()


def test_index_0d_with_ellipsis_and_none():
    t = pyth.tensor(3.5)
    assert t[...].dim() == 0 and t[...].item() == 3.5
    assert same_storage(t[...], t)
    assert tuple(t[None].shape) == (1,)
    assert tuple(t[None, None].shape) == (1, 1)
    assert tuple(t[()].shape) == ()
    assert t[()].item() == 3.5


def test_zero_size_indexing():
    a = np.zeros((0, 3), np.float32)
    t = pyth.tensor(a)
    assert tuple(t[:, 1].shape) == (0,)
    assert tuple(t[:, [0, 2]].shape) == (0, 2)
    assert tuple(t[pyth.tensor(np.zeros(0, bool))].shape) == (0, 3)
    assert tuple(t[1:].shape) == (0, 3)
    b = pyth.zeros(3, 4)
    assert tuple(b[[]].shape) == (0, 4)             # numpy and torch: an empty int index
    assert tuple(b[pyth.tensor(np.zeros(0, np.int64))].shape) == (0, 4)
    assert tuple(b[2:2, 1:].shape) == (0, 3)


def test_slice_views_share_storage_and_write_through():
    a = np.arange(60, dtype=np.float64).reshape(6, 10)
    t = pyth.tensor(a)
    v = t[1:5:2, 3::3]
    assert same_storage(v, t)
    assert tuple(v.stride()) == (20, 3) and v.storage_offset() == 13
    v.copy_(pyth.tensor(np.full((2, 3), -1.0)))
    a[1:5:2, 3::3] = -1.0
    np.testing.assert_array_equal(np_via_tolist(t), a)


def test_advanced_index_result_is_a_copy():
    t = pyth.tensor(np.arange(10, dtype=np.int64))
    r = t[[1, 2, 3]]
    r.copy_(pyth.tensor([0, 0, 0]))
    assert t.tolist() == list(range(10))
    m = t[pyth.tensor(np.arange(10) > 5)]
    m.copy_(pyth.tensor([0, 0, 0, 0]))
    assert t.tolist() == list(range(10))


def test_getitem_matches_torch():
    torch = pytest.importorskip("torch")
    a = distinct_values(S, "float32")
    t = pyth.tensor(a)
    tt = torch.from_numpy(a.copy())

    def one(idx):
        exp = tt[idx_torch(torch, idx)]
        got = t[idx_pyth(idx)]
        assert tuple(got.shape) == tuple(exp.shape)
        np.testing.assert_array_equal(np_via_tolist(got), exp.numpy())
        if not is_advanced(idx) and exp.numel():
            assert tuple(got.stride()) == tuple(exp.stride())
            assert got.storage_offset() == exp.storage_offset()
    run_all([(i,) for i in BASIC + ADVANCED], one)


# --------------------------------------------------------------------------------------------
# setitem against numpy
# --------------------------------------------------------------------------------------------

def scalar_for(name):
    return {"bool": True, "uint8": 200, "int8": -7}.get(name, 2.5 if name in FLOATS else -9)


SET_CASES = [
    # (idx, value kind, value shape for tensors/lists)
    (1, "scalar", None), (-1, "scalar", None), ((1, 2), "scalar", None),
    ((1, 2, 3), "scalar", None), (slice(1, 3), "scalar", None),
    ((slice(None), slice(None, None, 2)), "scalar", None),
    ((Ellipsis, 0), "tensor", (5,)), ((slice(None), 1), "tensor", (4, 1)),
    (slice(None, None, 2), "tensor", (6,)), ((None, 1), "scalar", None),
    (Ellipsis, "list", (6,)), ((2, slice(1, 4)), "list", (3, 6)),
    ((0, 0), "tensor", ()), ((0, 0, 0), "tensor", ()), (2, "tensor", (5, 6)),
    # advanced
    ([0, 2], "scalar", None), ([0, 2], "tensor", (5, 6)), ([-1, -4], "tensor", (6,)),
    (([0, 1], [1, 2]), "tensor", (6,)), (T([3, 1]), "scalar", None),
    ((slice(None), [0, 4]), "scalar", None), ((slice(None), [0, 4]), "tensor", (4, 2, 6)),
    (([1, 3], slice(None), [0, 5]), "tensor", (2, 5)),
    (([1, 3], slice(None), [0, 5]), "list", (5,)),
    ((slice(None), [0, 1], [2, 3]), "tensor", (4, 2)),
    (T([True, False, True, False]), "scalar", None),
    (T([True, False, True, False]), "tensor", (6,)),
    ((slice(None), [True, False, True, False, True]), "tensor", (4, 3, 6)),
    ("full_mask", "scalar", None), ("full_mask", "tensor", "count"),
    ((T(np.arange(20).reshape(4, 5) % 3 == 0)), "tensor", (6,)),
]


def set_case(idx, kind, vshape, name, layout):
    rp, bp, rn, bn = rooted_view(S, name, layout)
    expected_root = rn.copy()
    # a mirror of the base on the expected copy
    en = expected_root if layout == "contig" else (
        expected_root.transpose() if layout == "transposed" else expected_root[..., 1::2])
    if isinstance(idx, str):
        mask = (distinct_values(S, "int64", seed=5) % 4) == 0
        idx = T(mask)
        if vshape == "count":
            vshape = (int(mask.sum()),)
    if kind == "scalar":
        vn = scalar_for(name)
        vp = vn
    else:
        vn = distinct_values(vshape, name, seed=7)
        vp = tensor_of(vn, name) if kind == "tensor" else vn.tolist()
    en[idx_np(idx)] = vn
    bp[idx_pyth(idx)] = vp
    np.testing.assert_array_equal(np_via_tolist(rp), expected_root)


@pytest.mark.parametrize("layout", ["contig", "transposed", "stepped"])
@pytest.mark.parametrize("idx,kind,vshape", SET_CASES, ids=[f"{c[0]!r}-{c[1]}" for c in SET_CASES])
def test_setitem_matches_numpy(idx, kind, vshape, layout):
    run_all([(n,) for n in DTYPE_NAMES], lambda name: set_case(idx, kind, vshape, name, layout))


def test_setitem_converts_value_dtype():
    t = pyth.zeros(2, 3, dtype=pyth.int64)
    t[0] = pyth.tensor([1.0, 2.0, 3.0])
    t[1, 1:] = pyth.tensor([True, False])
    assert t.dtype == pyth.int64
    assert t.tolist() == [[1, 2, 3], [0, 1, 0]]
    f = pyth.zeros(3)
    f[[0, 2]] = pyth.tensor([4, 5])
    f[1] = 7
    assert f.tolist() == [4.0, 7.0, 5.0]


def test_setitem_from_overlapping_self_view():
    a = np.arange(10, dtype=np.float32)
    t = pyth.tensor(a)
    t[1:] = t[:-1].clone()
    a[1:] = a[:-1].copy()
    np.testing.assert_array_equal(np_via_tolist(t), a)


def test_setitem_on_expanded_view_base_untouched_elsewhere():
    base = pyth.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    v = base.t()
    v[1] = 100.0
    assert base.tolist() == [[0.0, 100.0, 2.0], [3.0, 100.0, 5.0]]


# --------------------------------------------------------------------------------------------
# errors
# --------------------------------------------------------------------------------------------

INDEX_ERRORS = [
    # id, shape, index, exception, keywords
    ("int_dim0", (4, 5, 6), 4, IndexError, (r"\b4\b", "dim")),
    ("int_dim1", (4, 5, 6), (slice(None), 7), IndexError, (r"\b7\b", r"\b5\b", "dim")),
    ("negative_int", (4, 5, 6), (0, -6), IndexError, (r"-6", r"\b5\b", "dim")),
    ("int_1d", (3,), 10, IndexError, (r"\b10\b", r"\b3\b")),
    ("int_zero_size", (0, 3), 0, IndexError, (r"\b0\b", "dim")),
    ("int_0d", (), 0, IndexError, ("dim|0-d|scalar|too many|indices",)),
    ("tensor_out_of_range", (4, 5, 6), T([0, 4]), IndexError, (r"\b4\b",)),
    ("list_out_of_range", (4, 5, 6), (slice(None), [0, 7]), IndexError, (r"\b7\b",)),
    ("list_negative_out_of_range", (4, 5, 6), [-5], IndexError, (r"-5",)),
    ("mask_wrong_shape", (4, 5, 6), T([True, False]), IndexError, ("mask|shape|bool",)),
    ("mask_wrong_shape_dim1", (4, 5, 6), (slice(None), T([True] * 6)), IndexError,
     ("mask|shape|bool",)),
    ("mask_2d_wrong_shape", (4, 5, 6), T(np.ones((4, 6), bool)), IndexError,
     ("mask|shape|bool",)),
    ("step_zero", (4, 5, 6), slice(None, None, 0), ValueError, ("step",)),
    ("step_negative", (4, 5, 6), slice(None, None, -1), ValueError, ("step",)),
    ("step_negative_dim1", (4, 5, 6), (0, slice(4, 1, -2)), ValueError, ("step",)),
    ("too_many", (4, 5), (0, 0, 0), IndexError, ("too many|indices",)),
    ("too_many_with_slices", (4, 5), (slice(None), slice(None), 0), IndexError,
     ("too many|indices",)),
    ("broadcast_mismatch", (4, 5, 6), ([0, 1], [0, 1, 2]), IndexError,
     ("shape|broadcast|match",)),
    ("float_index", (4, 5), 1.5, (IndexError, TypeError), ("float|integer|index",)),
    ("float_tensor_index", (4, 5), T([0.0, 1.0]), (IndexError, TypeError),
     ("float|long|int|index|dtype",)),
]


@pytest.mark.parametrize("shape,idx,exc,words", [pytest.param(*e[1:], id=e[0])
                                                 for e in INDEX_ERRORS])
def test_getitem_errors(shape, idx, exc, words):
    t = pyth.tensor(distinct_values(shape, "float32"))
    with pytest.raises(exc, match=kw(*words)):
        t[idx_pyth(idx)]


@pytest.mark.parametrize("shape,idx,exc,words", [pytest.param(*e[1:], id=e[0])
                                                 for e in INDEX_ERRORS])
def test_setitem_errors(shape, idx, exc, words):
    t = pyth.tensor(distinct_values(shape, "float32"))
    before = t.tolist()
    with pytest.raises(exc, match=kw(*words)):
        t[idx_pyth(idx)] = 1.0
    assert t.tolist() == before, "a failed assignment must not write anything"


@pytest.mark.parametrize("shape,idx,exc,words", [pytest.param(*e[1:], id=e[0])
                                                 for e in INDEX_ERRORS])
def test_index_error_types_match_numpy(shape, idx, exc, words):
    """Sanity check of the oracle: numpy raises the same kind of error (steps aside)."""
    a = distinct_values(shape, "float32")
    items = idx if isinstance(idx, tuple) else (idx,)
    if any(isinstance(i, slice) and i.step is not None and i.step < 0 for i in items):
        pytest.skip("numpy allows negative steps; pyth (like torch) does not")
    with pytest.raises(exc):
        a[idx_np(idx)]


def test_index_error_message_names_dim_and_size():
    t = pyth.zeros(3, 5)
    with pytest.raises(IndexError, match=kw(r"\b9\b", r"\b5\b", r"dim\w*\s*1|1\b")):
        t[1, 9]


def test_setitem_shape_mismatch():
    t = pyth.zeros(4, 6)
    with pytest.raises(RuntimeError, match=kw("shape|size|broadcast|expand")):
        t[0] = pyth.zeros(5)
    with pytest.raises(RuntimeError, match=kw("shape|size|broadcast|expand")):
        t[[0, 1]] = pyth.zeros(3, 6)
    with pytest.raises(RuntimeError, match=kw("shape|size|broadcast|expand")):
        t[:, 1:3] = [1.0, 2.0, 3.0]
    assert np_via_tolist(t).sum() == 0


# --------------------------------------------------------------------------------------------
# hypothesis: random index expressions against numpy
# --------------------------------------------------------------------------------------------

@st.composite
def index_cases(draw):
    nd = draw(st.sampled_from([0, 1, 2, 2, 3, 3]))
    shape = tuple(draw(st.lists(st.sampled_from([0, 1, 2, 3, 3, 4, 4]), min_size=nd,
                                max_size=nd)))
    mode = draw(st.sampled_from(["basic", "advanced", "mask"]))
    if mode != "basic" and (nd == 0 or 0 in shape):
        mode = "basic"
    adv_len = draw(st.integers(1, 3))
    state = {"mask_used": False}

    def component(size):
        choices = ["slice", "full"]
        if mode == "basic" and size > 0:
            choices.append("int")
        if mode == "advanced":
            choices += ["list", "tensor"]
        if mode == "mask" and not state["mask_used"]:
            choices.append("mask")
        kind = draw(st.sampled_from(choices))
        if kind == "int":
            return draw(st.integers(-size, size - 1))
        if kind == "full":
            return slice(None)
        if kind == "slice":
            start = draw(st.one_of(st.none(), st.integers(-size - 2, size + 2)))
            stop = draw(st.one_of(st.none(), st.integers(-size - 2, size + 2)))
            step = draw(st.one_of(st.none(), st.integers(1, 4)))
            return slice(start, stop, step)
        if kind in ("list", "tensor"):
            vals = draw(st.lists(st.integers(-size, size - 1), min_size=adv_len,
                                 max_size=adv_len))
            return vals if kind == "list" else T(np.array(vals, dtype=np.int64))
        state["mask_used"] = True
        vals = draw(st.lists(st.booleans(), min_size=size, max_size=size))
        return T(np.array(vals, dtype=bool))

    def sprinkle_none(items):
        for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2]))):
            items.insert(draw(st.integers(0, len(items))), None)
        return items

    front = draw(st.integers(min(1, nd), nd))
    if draw(st.booleans()):      # with an Ellipsis: dims [0, front) and the last `back` dims
        back = draw(st.integers(0, nd - front))
        items = (sprinkle_none([component(shape[d]) for d in range(front)]) + [Ellipsis]
                 + sprinkle_none([component(shape[d]) for d in range(nd - back, nd)]))
    else:
        items = sprinkle_none([component(shape[d]) for d in range(front)])
    if len(items) == 1 and draw(st.booleans()):
        return shape, items[0]
    return shape, tuple(items)


@settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=index_cases(), name=st.sampled_from(["float32", "int16", "bool", "bfloat16"]),
       layout=st.sampled_from(["contig", "transposed"]))
def test_hypothesis_getitem(case, name, layout):
    shape, idx = case
    check_get(shape, idx, name, layout)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=index_cases(), name=st.sampled_from(["float64", "uint8", "bool"]),
       layout=st.sampled_from(["contig", "transposed"]))
def test_hypothesis_setitem_scalar(case, name, layout):
    shape, idx = case
    rp, bp, rn, bn = rooted_view(shape, name, layout)
    exp_root = rn.copy()
    en = exp_root if layout == "contig" or len(shape) == 0 else exp_root.transpose()
    v = scalar_for(name)
    en[idx_np(idx)] = v
    bp[idx_pyth(idx)] = v
    np.testing.assert_array_equal(np_via_tolist(rp), exp_root)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=index_cases())
def test_hypothesis_setitem_tensor_basic(case):
    """Assigning a tensor of the selected shape (or one broadcasting to it)."""
    shape, idx = case
    if is_advanced(idx):
        return  # duplicates in index lists make tensor assignment order-dependent
    rp, bp, rn, bn = rooted_view(shape, "int32", "transposed")
    exp_root = rn.copy()
    en = exp_root if len(shape) == 0 else exp_root.transpose()
    target = en[idx_np(idx)]
    tshape = np.shape(target)
    vshape = tshape[1:] if len(tshape) and tshape[0] != 1 else tshape  # broadcast over dim 0
    v = (np.arange(int(np.prod(vshape, dtype=np.int64)), dtype=np.int32) + 1000).reshape(vshape)
    en[idx_np(idx)] = v
    bp[idx_pyth(idx)] = pyth.tensor(v)
    np.testing.assert_array_equal(np_via_tolist(rp), exp_root)


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
def test_int_and_slice_fast_path_equals_general_walk(layout):
    """t[i] and t[a:b] take one C call; t[(i, ...)] takes the general walk of the index: both
    give the same view (sizes, strides, offset, values), and the same error."""
    base = pyth.arange(60.0).reshape(6, 10)
    t = {"contiguous": base, "transposed": base.t(), "stepped": base[::2, 1::3]}[layout]
    n = t.size(0)
    for index in [0, 1, n - 1, -1, -n, slice(None), slice(1, 3), slice(-2, None),
                  slice(None, -1), slice(2, 2), slice(5, 1), slice(-100, 100), slice(n, None),
                  slice(1, None, 1), slice(None, None, 2), slice(1, 4, 3)]:
        for fast_index in (index, (index,), (slice(None), 1), (index, 1), (index, slice(1, 3)),
                           (index, slice(None, None, 2))):
            fast, walk = t[fast_index], t[(*(fast_index if isinstance(fast_index, tuple)
                                              else (fast_index,)), ...)]
            assert (fast.shape, fast.stride(), fast.storage_offset()) == \
                (walk.shape, walk.stride(), walk.storage_offset()), fast_index
            assert fast.tolist() == walk.tolist()
            assert fast.storage().data_ptr() == t.storage().data_ptr()
    for bad in (n, -n - 1):
        with pytest.raises(IndexError, match=f"index {bad} is out of bounds for dimension 0"):
            t[bad]
        bad1 = t.size(1) if bad == n else -t.size(1) - 1
        with pytest.raises(IndexError, match=f"index {bad1} is out of bounds for dimension 1"):
            t[0, bad1]
    with pytest.raises(IndexError):
        pyth.tensor(1.0)[0]
    with pytest.raises(IndexError, match="too many indices"):
        t[0, 0, 0]
    for bad in (slice(None, None, -1), (0, slice(None, None, -1)), (slice(None, None, 0), 0)):
        with pytest.raises(ValueError, match="step must be greater than zero"):
            t[bad]


# ---- slices with bounds and steps beyond int64 ------------------------------------------------

HUGE_SLICES = [slice(-(2**63), 2**63), slice(2**70, None), slice(None, 2**64),
               slice(-(2**70), None), slice(1, 2**63, 2), slice(2**63 - 1, None),
               slice(None, None, 2**62), slice(None, None, 2**63), slice(None, None, 2**70),
               slice(1, None, 2**63 - 1), slice(-(2**63), -(2**63)), slice(2, -(2**70))]


@pytest.mark.parametrize("item", HUGE_SLICES, ids=str)
def test_slices_beyond_int64_clamp_as_python_slices(item):
    """Bounds and steps of any size clamp as Python's slices do (a list is the oracle), in
    getitem, setitem and every dim, and on both the fast and the general path (None forces
    the latter); never OverflowError from a stride beyond int64."""
    base = list(range(5))
    t = pyth.arange(5)
    assert t[item].tolist() == base[item]
    assert t[None, item].tolist() == [base[item]]
    m = pyth.arange(15).reshape(3, 5)
    assert m[:, item].tolist() == [row[item] for row in m.tolist()]
    u = pyth.arange(5)
    u[item] = -1
    expect = list(base)
    expect[item] = [-1] * len(base[item])
    assert u.tolist() == expect


def test_slice_scatter_with_int64_bounds():
    """slice_scatter(end=2**63 - 1), and start/step at the edges of int64, as PyTorch."""
    x = pyth.arange(12.).reshape(3, 4)
    assert pyth.slice_scatter(x, pyth.zeros(3, 4), end=2**63 - 1).tolist() == [[0.0] * 4] * 3
    assert pyth.slice_scatter(x, pyth.zeros(3, 4), start=-(2**63), end=2**63 - 1).tolist() == \
        [[0.0] * 4] * 3
    r = pyth.slice_scatter(x, pyth.zeros(3, 1), dim=1, start=3, end=2**63 - 1)
    assert r.tolist() == [[0.0, 1.0, 2.0, 0.0], [4.0, 5.0, 6.0, 0.0], [8.0, 9.0, 10.0, 0.0]]
    r = pyth.slice_scatter(x, pyth.zeros(1, 4), step=2**63 - 1)
    assert r.tolist() == [[0.0] * 4, [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]
    with pytest.raises(RuntimeError, match="expected src to have a size equal to the slice"):
        pyth.slice_scatter(x, pyth.zeros(3, 4), step=2**63 - 1)


def test_slice_scatter_bounds_beyond_int64_are_value_errors():
    """start, end and step are int64 arguments, as in PyTorch: ValueError beyond (its
    "Overflow when unpacking long long"), never OverflowError."""
    x = pyth.arange(12.).reshape(3, 4)
    for kw in ({"end": 2**63}, {"end": 2**64}, {"start": -(2**63) - 1}, {"step": 2**63}):
        with pytest.raises(ValueError, match="does not fit in int64"):
            pyth.slice_scatter(x, pyth.zeros(3, 4), **kw)
