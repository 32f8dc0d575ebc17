"""Differential fuzzing of the core: views, copies, clones, indexing, the numpy bridge, storages.

Random tensors (every dtype; 0-dim and size-0 dims included) go through random chains of views
(tests/_support.py VIEW_STEPS), then copies, writes and indexing; every step is compared
with numpy (values) and torch when installed (sizes, strides, offsets, write-through). The
example counts come from the hypothesis profile (tests/conftest.py: PYTH_FUZZ=ci|long|san).
"""

from __future__ import annotations

import numpy as np
import pytest
from _support import (
    DTYPE_NAMES,
    FLOATS,
    INTS,
    NP_CARRIER,
    assert_same_geometry,
    assert_same_values,
    broadcastable_to,
    distinct_cells,
    laid_out,
    make,
    needs_torch,
    np_cast,
    of_shape,
    pdt,
    shapes,
    to_numpy_exact,
    torch,
    torch_values,
    values,
    view_chain,
)
from hypothesis import assume, given
from hypothesis import strategies as st

import pyth

# ---- views --------------------------------------------------------------------------------------

@given(case=laid_out(max_steps=5))
def test_view_chain_values_and_geometry(case):
    """Any chain of views shows numpy's values and torch's sizes, strides and offset, and
    shares the base's storage."""
    x, _ = case
    assert_same_values(x.p, x.n, x.name)
    if x.t is not None:
        assert_same_geometry(x.p, x.t)
        assert x.p.is_contiguous() == x.t.is_contiguous()
    assert x.p.numel() == x.n.size and x.p.dim() == x.n.ndim


@given(case=laid_out(max_steps=4))
def test_clone_contiguous_of_any_view(case):
    """clone() and contiguous() of any view: same values, contiguous, fresh storage for clone."""
    x, _ = case
    c = x.p.clone()
    assert c.is_contiguous() and c.storage_offset() == 0
    assert c.storage().data_ptr() != x.p.storage().data_ptr() or c.numel() == 0
    assert_same_values(c, x.n, x.name)
    k = x.p.contiguous()
    assert k.is_contiguous()
    assert (k is x.p) == x.p.is_contiguous()
    assert_same_values(k, x.n, x.name)


@needs_torch
@given(case=laid_out(max_steps=4), data=st.data())
def test_writes_through_views_reach_the_base(case, data):
    """fill_/zero_/copy_/setitem on a view change exactly the base cells torch's do."""
    x, _ = case
    view_p, view_t = x.p, x.t
    whole_p = pyth.Tensor._on_storage(view_p.storage())
    whole_t = torch.empty(0, dtype=view_t.dtype).set_(view_t.untyped_storage())
    how = data.draw(st.sampled_from(["fill", "zero", "copy", "setitem_scalar", "setitem_tensor"]))
    v = data.draw(values(x.name, 1, small=True))[0]
    if not distinct_cells(view_p) and how not in ("fill", "zero"):
        # several elements share a cell: torch refuses stride-0 writes other than fill_/zero_,
        # and writes through overlapping windows (unfold) are order-dependent: not compared
        if any(s == 0 and n > 1 for s, n in zip(view_p.stride(), view_p.shape)):
            src = view_p.clone()
            with pytest.raises(RuntimeError, match="single memory location"):
                view_t.copy_(view_t.clone()) if how == "copy" else view_t.__setitem__(
                    Ellipsis, view_t.clone() if how == "setitem_tensor" else v)
            with pytest.raises(RuntimeError, match="single memory location"):
                view_p.copy_(src) if how == "copy" else view_p.__setitem__(
                    Ellipsis, src if how == "setitem_tensor" else v)
        return
    if how == "fill":
        view_p.fill_(v)
        view_t.fill_(v)
    elif how == "zero":
        view_p.zero_()
        view_t.zero_()
    elif how == "copy":
        src_shape = data.draw(broadcastable_to(tuple(view_p.shape)))
        src = data.draw(of_shape(x.name, src_shape, small=True))
        view_p.copy_(src.p)
        view_t.copy_(src.t)
    elif how == "setitem_scalar":
        view_p[...] = v
        view_t[...] = v
    else:
        src = data.draw(of_shape(x.name, tuple(view_p.shape), small=True))
        view_p[...] = src.p
        view_t[...] = src.t
    assert_same_values(whole_p, torch_values(whole_t))


# ---- copies between dtypes and layouts ---------------------------------------------------------

@st.composite
def copy_cases(draw):
    dst_name, src_name = draw(st.sampled_from(DTYPE_NAMES)), draw(st.sampled_from(DTYPE_NAMES))
    dst = draw(of_shape(dst_name, draw(shapes), writable=True))
    src_shape = draw(broadcastable_to(tuple(dst.n.shape)))
    # float -> integer conversions are defined only in range: keep such values small, >= 0
    if src_name in FLOATS and dst_name in INTS:
        vals = lambda n: st.lists(st.integers(0, 127).map(lambda k: k / 4.0), min_size=n,
                                  max_size=n)
    else:
        vals = None
    src = draw(of_shape(src_name, src_shape, vals=vals))
    return dst, src


@given(case=copy_cases())
def test_copy_between_dtypes_and_layouts(case):
    """dst.copy_(src) converts like numpy/PyTorch casts and broadcasts src to dst's shape."""
    dst, src = case
    dst.p.copy_(src.p)
    expected = np.broadcast_to(np_cast(src.n, src.name, dst.name), dst.n.shape)
    assert_same_values(dst.p, expected, dst.name)
    if dst.t is not None:
        dst.t.copy_(src.t)
        assert_same_values(dst.p, torch_values(dst.t))


@given(case=laid_out(max_steps=3), target=st.sampled_from(DTYPE_NAMES))
def test_to_dtype_of_any_view(case, target):
    """t.to(dtype) of any view equals the numpy cast of its values."""
    x, _ = case
    if x.name in FLOATS and target in INTS:
        assume(np.all(np.isfinite(x.n)) and np.all((x.n >= 0) & (x.n < 128)))
    r = x.p.to(pdt(target))
    assert_same_values(r, np_cast(x.n, x.name, target), target)
    if target == x.name:
        assert r is x.p


@given(case=laid_out(max_steps=3), data=st.data())
def test_overlapping_copy_within_one_storage(case, data):
    """Copying a view onto another view of the same storage acts as if through a temporary."""
    x, _ = case
    base = x.p.contiguous().clone().reshape(-1)
    n = base.numel()
    assume(n >= 2)
    length = data.draw(st.integers(1, n - 1))
    a0, b0 = data.draw(st.integers(0, n - length)), data.draw(st.integers(0, n - length))
    ref = to_numpy_exact(base)
    ref[a0:a0 + length] = ref[b0:b0 + length].copy()
    base.narrow(0, a0, length).copy_(base.narrow(0, b0, length))
    assert_same_values(base, ref)


# ---- indexing on any layout ---------------------------------------------------------------------

@st.composite
def index_for(draw, shape: tuple):
    """A numpy-valid index for shape: ints, slices, None, Ellipsis, int lists, a bool mask."""
    items = []
    d = 0
    nd = len(shape)
    used_ellipsis = False
    adv_len = draw(st.integers(1, 3))
    while d < nd and draw(st.integers(0, 4)) > 0:
        size = shape[d]
        kinds = ["slice", "none", "list"] + (["int"] if size else [])
        if not used_ellipsis:
            kinds.append("ellipsis")
        if size and d == nd - 1:
            kinds.append("mask")
        kind = draw(st.sampled_from(kinds))
        if kind == "int":
            items.append(draw(st.integers(-size, size - 1)))
        elif kind == "slice":
            items.append(slice(draw(st.one_of(st.none(), st.integers(-size - 1, size + 1))),
                               draw(st.one_of(st.none(), st.integers(-size - 1, size + 1))),
                               draw(st.one_of(st.none(), st.integers(1, 3)))))
        elif kind == "none":
            items.append(None)
            continue
        elif kind == "ellipsis":
            items.append(Ellipsis)
            used_ellipsis = True
            break
        elif kind == "list":
            if size == 0:
                items.append([])
            else:
                items.append(draw(st.lists(st.integers(-size, size - 1), min_size=adv_len,
                                           max_size=adv_len)))
        else:
            items.append(np.array(draw(st.lists(st.booleans(), min_size=size, max_size=size))))
        d += 1
    if used_ellipsis:  # a few items after the ellipsis, for the last dims
        for k in range(draw(st.integers(0, nd - d))):
            size = shape[nd - 1 - k]
            items.insert(len(items), slice(None, None, draw(st.integers(1, 2))) if size else
                         slice(None))
    lists = [i for i in items if isinstance(i, list)]
    if lists and len({len(i) for i in lists} | ({0} if any(not i for i in lists) else set())) > 1:
        return None  # index lists that do not broadcast: not this test's subject
    return tuple(items)


def _pyth_index(idx):
    return tuple(pyth.tensor(i) if isinstance(i, np.ndarray) else i for i in idx)


def _torch_index(idx):
    return tuple(torch.from_numpy(i) if isinstance(i, np.ndarray) else i for i in idx)


def _mixes_ints_and_arrays(idx) -> bool:
    """numpy counts an int next to an index array as advanced (moving dims); PyTorch, which pyth
    follows, selects it first. Without torch such indices have no oracle."""
    return any(isinstance(i, int) for i in idx) and \
        any(isinstance(i, (list, np.ndarray)) for i in idx)


def expected_getitem(x, idx):
    """(values, None) for x[idx] by torch (numpy without torch), or (None, exception type)."""
    try:
        if x.t is not None:
            return torch_values(x.t[_torch_index(idx)]), None
        return np.asarray(x.n[idx]), None
    except IndexError as e:
        return None, type(e)


@given(case=laid_out(max_steps=3), data=st.data())
def test_getitem_on_any_layout(case, data):
    """t[idx] on any view equals torch's (numpy's) t[idx] (views for basic, copies for
    advanced)."""
    x, _ = case
    idx = data.draw(index_for(tuple(x.n.shape)))
    assume(idx is not None and (x.t is not None or not _mixes_ints_and_arrays(idx)))
    expected, error = expected_getitem(x, idx)
    if error:
        with pytest.raises(error):
            x.p[_pyth_index(idx)]
        return
    assert_same_values(x.p[_pyth_index(idx)], expected, x.name)


@given(case=laid_out(max_steps=2), data=st.data())
def test_setitem_on_any_layout(case, data):
    """t[idx] = scalar on a writable view changes exactly numpy's cells."""
    x, _ = case
    assume(distinct_cells(x.p))
    idx = data.draw(index_for(tuple(x.n.shape)))
    assume(idx is not None and not _mixes_ints_and_arrays(idx))
    ref = x.n.copy()
    v = data.draw(values(x.name, 1, small=True))[0]
    try:
        ref[idx] = v
    except IndexError:
        return
    x.p[_pyth_index(idx)] = v
    assert_same_values(x.p, ref, x.name)


# ---- the numpy bridge ---------------------------------------------------------------------------

@given(case=laid_out(names=[n for n in DTYPE_NAMES if n != "bfloat16"], max_steps=4))
def test_numpy_view_of_any_layout_shares_memory(case):
    """t.numpy() of any view holds t's values and writes through (when cells are distinct)."""
    x, _ = case
    a = x.p.numpy()
    np.testing.assert_array_equal(a, x.n)
    assert a.shape == x.n.shape
    if x.p.numel() and distinct_cells(x.p):
        a[...] = np.zeros((), a.dtype)
        assert not np.any(x.p.clone().numpy())


@st.composite
def numpy_views(draw):
    """A numpy view with non-negative strides: stepped, transposed, broadcast, offset."""
    name = draw(st.sampled_from([n for n in DTYPE_NAMES if n != "bfloat16"]))
    shape = draw(shapes)
    base = make(name, shape, draw(values(name, int(np.prod(shape, dtype=np.int64))))).n
    for _ in range(draw(st.integers(0, 3))):
        how = draw(st.sampled_from(["T", "step", "offset", "broadcast", "newaxis"]))
        if how == "T":
            base = base.T
        elif how == "step" and base.ndim:
            d = draw(st.integers(0, base.ndim - 1))
            base = base[(slice(None),) * d + (slice(None, None, draw(st.integers(1, 3))),)]
        elif how == "offset" and base.ndim and base.shape[0]:
            base = base[draw(st.integers(0, base.shape[0] - 1)):]
        elif how == "broadcast":
            base = np.broadcast_to(base, (draw(st.integers(0, 3)),) + base.shape)
        elif how == "newaxis":
            base = base[None]
    return name, base


@given(case=numpy_views())
def test_from_numpy_of_any_view(case):
    """from_numpy() of any non-negative-strided view: same values, zero-copy when non-empty."""
    name, a = case
    t = pyth.from_numpy(a)
    assert t.dtype is pdt(name)
    np.testing.assert_array_equal(t.numpy(), a)
    if a.size and a.flags.writeable:  # read-only arrays are copied (see from_numpy)
        assert t.data_ptr() == a.ctypes.data
        assert tuple(s * a.itemsize for s in t.stride()) == a.strides
    np.testing.assert_array_equal(pyth.tensor(a).numpy(), a)  # and the copying constructor


# ---- storages -----------------------------------------------------------------------------------

@given(name=st.sampled_from(DTYPE_NAMES), data=st.data())
def test_storage_resize_copy_fill(name, data):
    """Storage resize_ keeps the prefix; copy_ converts from any type; fill_ fills."""
    n = data.draw(st.integers(0, 40))
    vals = data.draw(values(name, n, small=True))
    s = pdt(name).storage_class(vals) if n else pdt(name).storage_class(0)
    ref = np.array(vals, dtype=np.float64).astype(NP_CARRIER[name]) if n else \
        np.zeros(0, NP_CARRIER[name])
    m = data.draw(st.integers(0, 60))
    s.resize_(m)
    assert len(s) == m
    keep = min(n, m)
    np.testing.assert_array_equal(np.array(s.tolist()[:keep], dtype=ref.dtype), ref[:keep])
    other = data.draw(st.sampled_from(DTYPE_NAMES))
    vals2 = data.draw(values(other, m, small=True))
    if other in FLOATS and name in INTS:
        vals2 = [abs(v) if np.isfinite(v) else 0.0 for v in vals2]
    src = pdt(other).storage_class(vals2) if m else pdt(other).storage_class(0)
    s.copy_(src)
    expected = np_cast(np.array(vals2, dtype=np.float64).astype(NP_CARRIER[other]),
                       other, name) if m else np.zeros(0)
    np.testing.assert_array_equal(np.array(s.tolist(), dtype=np.float64),
                                  np.asarray(expected, dtype=np.float64))
    v = data.draw(values(name, 1, small=True))[0]
    s.fill_(v)
    assert all(e == v or (np.isnan(e) and np.isnan(v)) for e in s.tolist())


@given(name=st.sampled_from(DTYPE_NAMES), data=st.data())
def test_as_strided_and_set_inside_storage(name, data):
    """as_strided()/set_() with any geometry inside the storage read numpy's as_strided cells;
    geometry reaching outside raises instead of reading out of bounds."""
    n = data.draw(st.integers(0, 30))
    base = make(name, (n,), data.draw(values(name, n)))
    nd = data.draw(st.integers(0, 3))
    size = [data.draw(st.integers(0, 4)) for _ in range(nd)]
    stride = [data.draw(st.integers(0, 5)) for _ in range(nd)]
    offset = data.draw(st.integers(0, n + 2))
    numel = int(np.prod(size, dtype=np.int64))
    span = 0 if numel == 0 else offset + 1 + sum((s - 1) * st_ for s, st_ in zip(size, stride))
    if span > n:
        with pytest.raises(RuntimeError, match="storage"):
            base.p.as_strided(size, stride, offset)
        return
    got = base.p.as_strided(size, stride, offset)
    item = base.n.itemsize
    expected = np.lib.stride_tricks.as_strided(base.n[offset:] if numel else base.n, size,
                                               [s * item for s in stride])
    assert_same_values(got, expected, name)
    fresh = pdt(name).tensor_class()
    fresh.set_(base.p.storage(), offset, size, stride)
    assert fresh.is_set_to(got)


# ---- chains: views, then copies, then indexing ---------------------------------------------------

@given(case=laid_out(max_steps=3), data=st.data())
def test_view_copy_view_index_chain(case, data):
    """A view chain, a copy (clone / to / contiguous), a second chain, an index: numpy agrees
    at each stage."""
    x, _ = case
    how = data.draw(st.sampled_from(["clone", "contiguous", "to_same", "numpy_roundtrip"]))
    if how == "clone":
        p = x.p.clone()
    elif how == "contiguous":
        p = x.p.contiguous()
    elif how == "to_same":
        p = x.p.to(x.p.dtype, copy=True)
    else:
        p = pyth.from_numpy(x.p.numpy()) if x.name != "bfloat16" else x.p.clone()
    y = x.__class__(p, x.n, x.t, x.name)
    y, _ = data.draw(view_chain(y, 3))
    assert_same_values(y.p, y.n, y.name)
    idx = data.draw(index_for(tuple(y.n.shape)))
    assume(idx is not None and (y.t is not None or not _mixes_ints_and_arrays(idx)))
    expected, error = expected_getitem(y, idx)
    if error is None:
        assert_same_values(y.p[_pyth_index(idx)], expected, y.name)
