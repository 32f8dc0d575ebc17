"""DLPack: zero-copy exchange with numpy and PyTorch, both capsule versions, lifetimes."""

import gc
import weakref

import numpy as np
import pytest
from _support import NUMPY_DTYPES

import pyth
from pyth.utils import dlpack as pdl


def _sample(dt, shape=(3, 4)):
    t = pyth.arange(int(np.prod(shape)), dtype=pyth.float64).reshape(*shape)
    return (t.remainder(2) == 0) if dt is pyth.bool else t.to(dt)


def _ptr(t):
    return t.data_ptr()


@pytest.mark.parametrize("dt", NUMPY_DTYPES, ids=lambda d: d.name)
def test_pyth_to_numpy_zero_copy(dt):
    t = _sample(dt, (4, 6))
    for v in (t, t.t(), t[1:3, ::2], t[2], t.unsqueeze(1).expand(4, 3, 6)):
        a = np.from_dlpack(v)
        np.testing.assert_array_equal(a, v.numpy())
        assert a.ctypes.data == v.data_ptr()
        assert tuple(s // v.element_size() for s in a.strides)[:1] == v.stride()[:1] or v.size(0) == 1


@pytest.mark.parametrize("dt", NUMPY_DTYPES, ids=lambda d: d.name)
def test_numpy_to_pyth_zero_copy(dt):
    a = _sample(dt, (4, 6)).numpy().copy()
    for v in (a, a.T, a[1:3, ::2], a[2], np.broadcast_to(a[:1], (3, 6))):
        t = pyth.from_dlpack(v)
        np.testing.assert_array_equal(t.numpy(), v)
        if v.flags.writeable:
            assert t.data_ptr() == v.ctypes.data


def test_writes_are_shared_both_ways():
    a = np.zeros((2, 3), np.float32)
    t = pyth.from_dlpack(a)
    t[1, 2] = 7
    assert a[1, 2] == 7
    x = pyth.zeros(3, dtype=pyth.int64)
    b = np.from_dlpack(x)
    assert b.flags.writeable is False or True
    x[0] = 5
    assert b[0] == 5


def test_readonly_producer_is_copied():
    a = np.arange(4.0)
    a.flags.writeable = False
    t = pyth.from_dlpack(a)
    t[0] = 99
    assert a[0] == 0 and t[0].item() == 99
    assert t.data_ptr() != a.ctypes.data


def test_negative_strides_copied():
    a = np.arange(10)[::-2]
    t = pyth.from_dlpack(a)
    assert t.tolist() == a.tolist()


def test_zero_size_and_scalar():
    assert pyth.from_dlpack(np.zeros((0, 3), np.float32)).shape == (0, 3)
    assert pyth.from_dlpack(np.array(2.5)).item() == 2.5
    assert np.from_dlpack(pyth.zeros(2, 0)).shape == (2, 0)
    assert np.from_dlpack(pyth.tensor(3)).shape == ()


def test_producer_lifetime_numpy():
    a = np.arange(1000, dtype=np.float64)
    r = weakref.ref(a)
    before = pyth.memory_stats()["allocators"]["borrowed"]["live_bytes"]
    t = pyth.from_dlpack(a)
    assert pyth.memory_stats()["allocators"]["borrowed"]["live_bytes"] == before + 8000
    del a
    gc.collect()
    assert r() is not None and t[999].item() == 999
    view = t[10:20]
    del t
    gc.collect()
    assert r() is not None and view[0].item() == 10
    del view
    gc.collect()
    assert r() is None
    assert pyth.memory_stats()["allocators"]["borrowed"]["live_bytes"] == before


def test_export_pins_storage():
    t = pyth.arange(10, dtype=pyth.float32)
    s = t.storage()
    a = np.from_dlpack(t)
    with pytest.raises(RuntimeError):
        s.resize_(100)  # the consumer holds the data
    del t, s
    gc.collect()
    assert a[9] == 9  # still valid
    n_live = len(pdl._live)
    del a
    gc.collect()
    assert len(pdl._live) == n_live - 1


def test_unused_capsules_release():
    t = pyth.arange(4, dtype=pyth.float32)
    n = len(pdl._live)
    for versioned in (None, (1, 0)):
        cap = t.__dlpack__(max_version=versioned)
        assert len(pdl._live) == n + 1
        del cap
        gc.collect()
        assert len(pdl._live) == n
    t.storage().resize_(8)  # no export left


def test_capsule_versions_and_errors():
    t = pyth.ones(2)
    cap = pdl.to_dlpack(t)
    assert "dltensor" in repr(cap) and "versioned" not in repr(cap)
    u = pdl.from_dlpack(cap)  # legacy API takes a capsule
    assert u.tolist() == [1, 1]
    with pytest.raises(ValueError, match="used_dltensor"):
        pdl.from_dlpack(cap)  # consumed once
    assert "dltensor_versioned" in repr(t.__dlpack__(max_version=(1, 2)))
    assert t.__dlpack_device__() == (1, 0)
    with pytest.raises(BufferError, match="device"):
        t.__dlpack__(dl_device=(2, 0))
    with pytest.raises(RuntimeError, match="require gradient"):
        pyth.ones(2, requires_grad=True).__dlpack__()
    with pytest.raises(TypeError):
        pyth.from_dlpack([1, 2])
    c = t.__dlpack__(copy=True)
    v = pyth.from_dlpack(c)
    v[0] = 5
    assert t[0].item() == 1
    with pytest.raises(BufferError, match="no pyth equivalent"):
        pyth.from_dlpack(np.zeros(2, np.complex64))


def test_bool_bytes_normalised():
    raw = np.array([0, 2, 1, 255], np.uint8)
    b = raw.view(np.bool_)
    t = pyth.from_dlpack(b)
    assert t.tolist() == [False, True, True, True]
    assert raw.tolist() == [0, 2, 1, 255]  # the producer's bytes untouched


# ---- PyTorch ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", list(pyth.ALL_DTYPES), ids=lambda d: d.name)
def test_torch_round_trip(dt):
    torch = pytest.importorskip("torch")
    t = _sample(dt, (3, 5))
    for v in (t, t.t(), t[:, 1:4:2]):
        tt = torch.from_dlpack(v)
        assert tt.dtype == getattr(torch, dt.name)
        assert tt.data_ptr() == v.data_ptr() and tt.stride() == v.stride()
        assert tt.float().tolist() == v.float().tolist()
        back = pyth.from_dlpack(tt)
        assert back.data_ptr() == v.data_ptr() and back.stride() == v.stride()
    src = torch.arange(12).reshape(3, 4).to(getattr(torch, dt.name)).t()
    got = pyth.from_dlpack(src)
    assert got.dtype is dt and got.stride() == src.stride()
    assert got.float().tolist() == src.float().tolist()


def test_torch_lifetime_and_writes():
    torch = pytest.importorskip("torch")
    x = torch.zeros(1000)
    r = weakref.ref(x)
    t = pyth.from_dlpack(x)
    t[3] = 4
    assert x[3].item() == 4
    del x
    gc.collect()
    assert t[3].item() == 4
    del t
    gc.collect()
    assert r() is None
    p = pyth.arange(5, dtype=pyth.float32)
    n = len(pdl._live)
    tt = torch.from_dlpack(p)
    del p
    gc.collect()
    tt[0] = 10
    assert tt.tolist() == [10, 1, 2, 3, 4]
    del tt
    gc.collect()
    assert len(pdl._live) == n


def _misaligned(dtype: np.dtype, n: int) -> np.ndarray:
    """A writeable array whose data sits one byte past an aligned address."""
    buf = np.zeros(n * dtype.itemsize + 1, np.uint8)
    a = buf[1:].view(dtype)
    assert a.ctypes.data % dtype.itemsize and a.flags.writeable
    a[:] = np.arange(n)
    return a


@pytest.mark.parametrize("dt", ["float64", "float32", "int64", "int32", "int16"])
def test_from_dlpack_copies_misaligned_memory_as_from_numpy_does(dt):
    """An ndarray at an odd byte offset was borrowed by from_dlpack, and the kernels then made
    misaligned typed loads and stores (UBSan); it now goes through from_numpy's rule: copied,
    aligned, the same values, and writes stay on the copy (as with from_numpy)."""
    a = _misaligned(np.dtype(dt), 7)
    for make in (pyth.from_dlpack, pyth.from_numpy):
        t = make(a)
        assert t.data_ptr() % t.element_size() == 0
        assert t.data_ptr() != a.ctypes.data and t.tolist() == a.tolist()
        t.add_(1)
        (t * 2).sum()
        np.testing.assert_array_equal(a, np.arange(7))
    aligned = np.arange(7.0)   # aligned and writeable: still borrowed
    t = pyth.from_dlpack(aligned)
    t.add_(1)
    np.testing.assert_array_equal(aligned, np.arange(1.0, 8.0))


def test_from_dlpack_and_from_numpy_share_one_borrowing_rule():
    """Read-only, misaligned and non-0/1 bool memory is refused by one check for both imports."""
    from pyth._numpy import borrow_refusal
    assert borrow_refusal(0x1000, 8, True) is None
    assert borrow_refusal(0x1001, 8, True) == "misaligned"
    assert borrow_refusal(0x1000, 8, False) == "read-only"
    assert borrow_refusal(0x1000, 1, True, np.array([0, 2], np.uint8)) is not None
    dirty = np.array([0, 2, 1], np.uint8).view(np.bool_)
    for make in (pyth.from_dlpack, pyth.from_numpy):
        assert make(dirty).tolist() == [False, True, True]
