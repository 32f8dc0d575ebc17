"""Regression tests for the core's hardening: each defect class an outside crash
hunt found, as its minimal example. They run in the sanitized suite too (scripts/sanitize.sh),
where a read or write out of bounds fails the run even if the answer happens to look right."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from pyth._th import lib

import pyth

BIG = 2**63 - 1


# ---- 1. geometry arithmetic near the int64 limits ---------------------------------------------

@pytest.mark.parametrize("make", [
    lambda: pyth.zeros(4).as_strided((), (), BIG),
    lambda: pyth.zeros(4).as_strided((2,), (1,), BIG - 1),
    lambda: pyth.zeros(4).as_strided((2, 2), (BIG, 1), 0),
    lambda: pyth.zeros(4).as_strided((3,), (2**62,), 2**62),
], ids=["0dim-max-offset", "offset-wraps", "stride-max", "offset-plus-reach"])
def test_as_strided_geometry_past_int64_is_refused(make):
    with pytest.raises(RuntimeError, match="as_strided|overflow|out of range"):
        make().fill_(1)


def test_set_with_offset_near_int64_max_is_refused():
    t = pyth.zeros(4)
    with pytest.raises(RuntimeError, match="set_"):
        t.set_(t.storage(), BIG - 1, (2,), (1,))
    assert t.tolist() == [0.0] * 4


def test_narrow_start_plus_length_does_not_wrap():
    t = pyth.zeros(4)
    with pytest.raises((IndexError, RuntimeError), match="narrow"):
        t.narrow(0, 2, BIG)
    with pytest.raises(RuntimeError, match="narrow"):
        t.narrow(0, 1, BIG - 0)


def test_new_with_storage_in_c_checks_the_extent():
    s = lib.THFloatStorage_newWithSize(4)
    try:
        from pyth._th import ffi
        t = lib.THFloatTensor_newWithStorage(s, BIG, 0, ffi.new("int64_t[1]"), ffi.NULL)
        assert t == ffi.NULL
        assert lib.THError_kind() == lib.TH_ERR_RUNTIME
    finally:
        lib.THFloatStorage_free(s)


def test_views_of_empty_tensors_with_huge_strides_do_not_overflow():
    e = pyth.zeros(4).as_strided((0, 2), (BIG, BIG))
    assert e.unsqueeze(1).shape == (0, 1, 2)
    assert e.unfold(1, 1, 2**62).shape == (0, 1, 1)
    with pytest.raises(RuntimeError, match="overflow"):
        pyth.empty(0, 2**62, 2**62)


# ---- 2. allocation sizes ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [pyth.float32, pyth.float64, pyth.float16, pyth.bfloat16])
def test_histc_with_huge_bins_is_a_memory_error(dtype):
    with pytest.raises(MemoryError):
        pyth.zeros(4, dtype=dtype).histc(bins=2**62)


@pytest.mark.parametrize("op", ["prod", "std", "logsumexp", "sum", "mean", "var", "amax"])
def test_reducing_an_empty_dim_into_a_huge_result_is_a_memory_error(op):
    with pytest.raises((MemoryError, IndexError, RuntimeError)):
        getattr(pyth.empty(0, 2**62), op)(0)
    with pytest.raises(RuntimeError, match="stride calculation overflowed"):
        pyth.empty(0, BIG, 5)  # as PyTorch: its contiguous strides do not fit int64
    with pytest.raises(MemoryError):
        pyth.zeros(1).as_strided((0, BIG, 5), (0, 0, 0)).sum(0)


# ---- 3, 9, 10. foreign numpy memory ------------------------------------------------------------

def test_read_only_bytes_are_never_written():
    b = bytes(range(8))
    t = pyth.from_numpy(np.frombuffer(b, np.uint8))
    t.add_(1)
    assert b == bytes(range(8))
    assert t.tolist() == list(range(1, 9))


def test_read_only_array_is_copied():
    a = np.zeros(3)
    a.flags.writeable = False
    t = pyth.from_numpy(a)
    t.fill_(1)
    assert a.tolist() == [0.0] * 3 and t.tolist() == [1.0] * 3


def test_read_only_memmap(tmp_path):
    f = tmp_path / "x.bin"
    np.arange(10.0).tofile(f)
    m = np.memmap(f, mode="r", dtype=np.float64)
    t = pyth.from_numpy(m)
    t.fill_(1)
    assert np.fromfile(f).tolist() == list(np.arange(10.0))


def test_writeable_arrays_still_share():
    a = np.zeros(3)
    pyth.from_numpy(a).fill_(2)
    assert a.tolist() == [2.0] * 3


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32, np.int16])
def test_misaligned_arrays_are_copied_aligned(dtype):
    item = np.dtype(dtype).itemsize
    raw = np.zeros(8 * item + 1, np.uint8)
    a = raw[1:].view(dtype)
    a[:] = np.arange(8)
    t = pyth.from_numpy(a)
    assert t.data_ptr() % item == 0
    assert t.sum().item() == 28


def test_bool_bytes_other_than_0_1_read_as_true():
    a = np.array([0, 1, 2, 255, 7], np.uint8).view(bool)
    t = pyth.from_numpy(a)
    assert t.sum().item() == 4
    assert pyth.logical_not(t).tolist() == [True, False, False, False, False]
    assert t.tolist() == [False, True, True, True, True]
    assert (t & pyth.ones(5, dtype=pyth.bool)).tolist() == [False, True, True, True, True]


def test_bool_mapped_file_reads_non_zero_as_true(tmp_path):
    f = tmp_path / "b.bin"
    f.write_bytes(bytes([0, 1, 2, 255]))
    s = pyth.BoolStorage.from_file(str(f), shared=False, size=4)
    assert s.tolist() == [False, True, True, True]


# ---- 4, 5. exported memory -----------------------------------------------------------------

def test_numpy_export_pins_the_memory_against_resize():
    t = pyth.zeros(1000)
    a = t.numpy()
    with pytest.raises(RuntimeError, match="exported"):
        t.resize_(10**6)
    with pytest.raises(RuntimeError, match="exported"):
        t.storage().resize_(10)
    with pytest.raises(RuntimeError, match="exported"):
        pyth.add(pyth.ones(10**6), 1, out=t)
    a[:] = 5
    assert t.sum().item() == 5000
    del a
    t.resize_(10**6)  # free to move once the array is gone
    assert t.numel() == 10**6


def test_asarray_export_pins_the_memory_too():
    t = pyth.zeros(1000)
    a = np.asarray(t)
    with pytest.raises(RuntimeError, match="exported"):
        t.storage().resize_(10)
    a[:] = 5
    assert t.sum().item() == 5000


def test_set_leaves_the_array_on_the_old_memory():
    t = pyth.zeros(1000)
    a = t.numpy()
    t.set_()
    a[:] = 5
    assert a.sum() == 5000
    assert t.numel() == 0


def test_share_memory_of_an_exported_storage_raises():
    t = pyth.zeros(1000)
    a = t.numpy()
    with pytest.raises(RuntimeError, match="exported"):
        t.storage().share_memory_()
    a[:] = 1
    assert t.sum().item() == 1000
    del a
    t.storage().share_memory_()
    assert t.storage().is_shared()


def test_export_of_a_view_past_its_shrunk_storage_is_refused():
    t = pyth.zeros(1000)
    v = t[500:]
    t.storage().resize_(10)
    with pytest.raises(RuntimeError, match="storage"):
        np.asarray(v)
    with pytest.raises(RuntimeError, match="storage"):
        v.numpy()


def test_export_count_returns_to_zero():
    t = pyth.zeros(10)
    s = t.storage()
    arrays = [t.numpy(), np.asarray(t), t[2:].numpy()]
    assert lib.THFloatStorage_exports(s._h) == 3
    del arrays
    assert lib.THFloatStorage_exports(s._h) == 0


# ---- 7. structural mutation racing with ops ----------------------------------------------------

def test_every_call_from_python_is_a_call_section():
    assert lib.THCall_active() == 1  # this very call
    assert not lib.THCall_isExclusive()


def _race(mutate, read, seconds_of_work=300):
    stop = threading.Event()
    errors = []

    def reader():
        while not stop.is_set():
            try:
                read()
            except (RuntimeError, IndexError, ValueError) as e:  # old/new geometry: fine
                errors.append(e)

    threads = [threading.Thread(target=reader) for _ in range(2)]
    for th in threads:
        th.start()
    try:
        for i in range(seconds_of_work):
            mutate(i)
    finally:
        stop.set()
        for th in threads:
            th.join()
    assert lib.THCall_active() == 1


def test_resize_races_with_sum():
    t = pyth.ones(1000)
    _race(lambda i: t.resize_(10 if i % 2 else 100000), lambda: t.sum())


def test_set_races_with_reads_of_the_storage():
    t = pyth.ones(1000)
    other = [pyth.ones(n) for n in (10, 5000)]
    _race(lambda i: t.set_(other[i % 2].clone()), lambda: (t.storage(), t.sum(), t.tolist()))


def test_share_memory_races_with_sum():
    ts = [pyth.ones(2000) for _ in range(50)]
    box = {"t": ts[0]}

    def mutate(i):
        box["t"] = ts[i % 50]
        ts[i % 50].storage().share_memory_()
    _race(mutate, lambda: box["t"].sum(), seconds_of_work=50)


def test_views_race_with_set():
    t = pyth.arange(1000.)
    _race(lambda i: t.set_(pyth.arange(float(10 + i % 7 * 100))),
          lambda: (t[1:].sum(), t.view(-1)[:5].tolist(), t.numpy().sum()))


# ---- 8. thread count -------------------------------------------------------------------------

def test_thread_count_limit():
    with pytest.raises(ValueError, match="at most 256"):
        pyth.set_num_threads(100000)
    with pytest.raises(ValueError, match="at most"):
        pyth.set_num_threads(2**40)
    assert lib.THSetNumThreads(50000) == -1 and lib.THError_kind() == lib.TH_ERR_VALUE
    n = pyth.get_num_threads()
    pyth.set_num_threads(n)
    assert pyth.get_num_threads() == n


# ---- 11. copy_ between two types over the same bytes --------------------------------------------

def test_copy_between_dtype_views_of_one_buffer_converts():
    a = np.arange(4, dtype=np.float32)
    f = pyth.from_numpy(a)
    i = pyth.from_numpy(a.view(np.int32))
    i.copy_(f)
    assert a.view(np.int32).tolist() == [0, 1, 2, 3]
    f2 = pyth.from_numpy(a)
    f2.copy_(i)
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0]


# ---- 13. sorting along an empty dim -------------------------------------------------------------

def test_sort_along_an_empty_dim_returns_at_once():
    v, i = pyth.empty(0, 2**62).sort(0)
    assert v.shape == (0, 2**62) and i.shape == (0, 2**62)
    assert pyth.empty(0, 2**62).argsort(0).shape == (0, 2**62)
    assert pyth.empty(0, 2**62).topk(0, 0)[0].shape == (0, 2**62)


# ---- 15. huge strides on size-1 dims ------------------------------------------------------------

def test_repr_and_tolist_of_a_huge_stride_on_a_size_one_dim():
    v = pyth.arange(4.).as_strided((1, 2), (2**62, 1))
    assert v.tolist() == [[0.0, 1.0]]
    assert "FloatTensor of size 1x2" in repr(v)
    assert v.numpy().tolist() == [[0.0, 1.0]]
