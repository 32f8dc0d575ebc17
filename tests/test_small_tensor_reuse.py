"""Small results, cheaply: the struct cache and the contiguous fast path.

- The struct cache (lib/THGeneral.h, THStructCache_*): tensor headers (with their size/stride
  arrays inline up to 4 dims) and storage structs go back to bounded per-thread lists when freed
  and are reused by the next constructor. Checked here in C-level detail through cffi: fresh
  geometry and refcounts on reuse, no aliasing between live tensors, exports, memory_stats and
  THAlloc_liveCount meaning what they meant, threads (including a tensor made on one thread and
  freed on another, and a thread's lists released when it exits), and error paths.
- The fast path of the pointwise <name>New forms (generic/THTensorMath.c, flatOperands): every
  New form of every dtype against its into-form (same row function: identical bits), and the
  results against numpy for contiguous, non-contiguous, transposed, expanded, 0-dim, zero-size
  and large (threaded) inputs; integer division by zero still raises.
"""

from __future__ import annotations

import gc
import queue
import time

import numpy as np
import pytest
from _support import NUMPY_DTYPES, c_strides, run_in_threads
from pyth._th import ffi, lib

import pyth
from pyth import dtypes as _dt
from pyth.tensor import wrap

F = "THFloatTensor_"
FS = "THFloatStorage_"


def c(name: str):
    return getattr(lib, name)


@pytest.fixture
def cache_on():
    """The struct cache at its default bound, whatever the build's default (0 under ASan, where
    this turns it on so reuse is exercised with its blocks poisoned while cached)."""
    old = lib.THStructCache_setLimit(lib.TH_STRUCT_CACHE_LIMIT)
    yield
    lib.THStructCache_setLimit(old)


def sizes(*s: int):
    return ffi.new("int64_t[]", list(s) or [0])


def new_float(*shape: int):
    h = lib.THFloatTensor_newWithSize(len(shape), sizes(*shape))
    assert h != ffi.NULL, ffi.string(lib.THError_message())
    return h


def geometry(h) -> tuple:
    n = h.nDimension
    return (tuple(h.size[d] for d in range(n)), tuple(h.stride[d] for d in range(n)),
            h.storageOffset)


def meters() -> tuple:
    gc.collect()
    st = pyth.memory_stats()
    return lib.THAlloc_liveCount(), st["live_allocations"], st["live_bytes"]


# ---- the struct cache ----------------------------------------------------------------------------

SHAPES = [(), (10,), (0,), (3, 4), (2, 0, 5), (2, 3, 4, 5), (2, 1, 3, 1, 2), (1,) * 9]


def test_reuse_gives_fresh_geometry_and_refcounts(cache_on):
    for _ in range(50):
        for shape in SHAPES:
            h = new_float(*shape)
            numel = int(np.prod(shape))
            assert geometry(h) == (shape, c_strides(shape), 0)
            assert h.refcount == 1 and lib.THFloatTensor_nElement(h) == numel
            st = h.storage
            assert st.refcount == 1 and st.exports == 0 and st.size == numel
            assert (st.data != ffi.NULL) == (numel > 0)
            v = lib.THFloatTensor_newWithTensor(h)
            assert geometry(v) == geometry(h) and v.refcount == 1 and st.refcount == 2
            if len(shape) >= 2:
                t = lib.THFloatTensor_newTranspose(h, 0, len(shape) - 1)
                s = list(shape)
                s[0], s[-1] = s[-1], s[0]
                assert geometry(t)[0] == tuple(s) and st.refcount == 3
                lib.THFloatTensor_free(t)
            lib.THFloatTensor_free(v)
            assert st.refcount == 1
            lib.THFloatTensor_free(h)


def test_freed_headers_are_reused(cache_on):
    h = new_float(10)
    header, storage = int(ffi.cast("uintptr_t", h)), int(ffi.cast("uintptr_t", h.storage))
    lib.THFloatTensor_free(h)
    assert lib.THStructCache_cached() >= 2
    h = new_float(3, 4)  # another shape: the same blocks serve it
    assert int(ffi.cast("uintptr_t", h)) == header
    assert int(ffi.cast("uintptr_t", h.storage)) == storage
    assert geometry(h) == ((3, 4), (4, 1), 0) and h.refcount == 1 and h.storage.refcount == 1
    lib.THFloatTensor_free(h)


def test_no_aliasing_between_live_tensors(cache_on):
    live = {}
    for i in range(64):
        h = new_float(*((i % 5) + 1,) * ((i % 3) + 1))
        lib.THFloatTensor_fill(h, float(i))
        live[i] = h
    for i in range(0, 64, 2):
        lib.THFloatTensor_free(live.pop(i))
    for i in range(100, 132):
        h = new_float(7)
        lib.THFloatTensor_fill(h, float(i))
        live[i] = h
    headers = {int(ffi.cast("uintptr_t", h)) for h in live.values()}
    storages = {int(ffi.cast("uintptr_t", h.storage)) for h in live.values()}
    assert len(headers) == len(storages) == len(live)
    ranges = sorted((int(ffi.cast("uintptr_t", h.storage.data)), h.storage.size * 4)
                    for h in live.values())
    for (a, n), (b, _) in zip(ranges, ranges[1:]):
        assert a + n <= b
    for i, h in live.items():
        n = lib.THFloatTensor_nElement(h)
        data = np.frombuffer(ffi.buffer(h.storage.data, n * 4), np.float32)
        assert (data == i).all()
        lib.THFloatTensor_free(h)


def test_dims_move_between_inline_and_own_block(cache_on):
    """Up to 4 dims live in the header's block, more in a block of their own: a header changed
    in place across that line keeps the right geometry (and frees what it no longer uses)."""
    before = lib.THAlloc_liveCount()
    h = new_float(0)
    for shape in [(5,), (2, 3, 4, 5, 6), (7, 2), (1, 2, 3, 4, 5, 6, 7), (), (3, 3, 3, 3), (6,),
                  (2,) * 12, (4, 5)]:
        assert lib.THFloatTensor_resize(h, len(shape), sizes(*shape)) == 0
        assert geometry(h) == (shape, c_strides(shape), 0)
        blocks = 2 + (len(shape) > 4)  # header, storage, and own dims beyond 4
        assert lib.THAlloc_liveCount() - before == blocks
    lib.THFloatTensor_free(h)
    assert lib.THAlloc_liveCount() == before
    x = np.arange(720, dtype=np.float32).reshape(2, 3, 4, 5, 6)
    t = pyth.from_numpy(x.copy())
    np.testing.assert_array_equal(t.permute(4, 2, 0, 3, 1).numpy(), x.transpose(4, 2, 0, 3, 1))
    np.testing.assert_array_equal(t.view(6, 120).t().numpy(), x.reshape(6, 120).T)
    np.testing.assert_array_equal(t.unsqueeze(2).squeeze().numpy(), x)


def test_exports_survive_reuse(cache_on):
    t = pyth.arange(10, dtype=pyth.float32)
    st = t._h.storage
    a = t.numpy()
    assert st.exports == 1
    del t
    gc.collect()
    assert st.exports == 1 and st.refcount == 1  # the array holds the storage alone
    for _ in range(200):
        h = new_float(10)
        assert h.storage != st and h.storage.exports == 0 and h.storage.refcount == 1
        lib.THFloatTensor_fill(h, -1.0)
        lib.THFloatTensor_free(h)
    np.testing.assert_array_equal(a, np.arange(10, dtype=np.float32))
    base = meters()
    b = pyth.ones(4).numpy()
    del b
    assert meters() == base


def test_memory_stats_and_live_blocks_mean_what_they_meant(cache_on):
    for _ in range(2):  # a cold cache, then a warm one: the same deltas
        live0, allocs0, bytes0 = meters()
        hs = [new_float(10) for _ in range(100)]
        live1, allocs1, bytes1 = meters()
        assert (allocs1 - allocs0, bytes1 - bytes0) == (100, 4000)
        assert live1 - live0 == 200  # a header (dims inline) and a storage each
        for h in hs:
            lib.THFloatTensor_free(h)
        assert meters() == (live0, allocs0, bytes0)


@pytest.mark.parametrize("shape,exc,match", [
    ((-1,), ValueError, "negative size -1 in dim 0"),
    ((3, -2), ValueError, "negative size -2 in dim 1"),
    ((1 << 40, 1 << 40), MemoryError, "overflows int64"),
    ((1 << 61,), MemoryError, "overflow"),
    ((1,) * 65, RuntimeError, "65 dims requested"),
])
def test_bad_sizes_raise_typed_errors_and_keep_the_cache_sane(cache_on, shape, exc, match):
    lib.THFloatTensor_free(new_float(4))  # a warm cache
    live = lib.THAlloc_liveCount()
    for _ in range(3):
        h = lib.THFloatTensor_newWithSize(len(shape), sizes(*shape))
        assert h == ffi.NULL
        kind = {ValueError: lib.TH_ERR_VALUE, MemoryError: lib.TH_ERR_MEMORY,
                RuntimeError: lib.TH_ERR_RUNTIME}[exc]
        assert lib.THError_kind() == kind
        assert match in ffi.string(lib.THError_message()).decode()
        lib.THError_clear()
        assert lib.THAlloc_liveCount() == live
        classes = lib.TH_STRUCT_CACHE_MAX_BYTES // 16
        assert lib.THStructCache_cached() <= classes * lib.THStructCache_limit()
    with pytest.raises(exc, match=match.split()[0]):
        pyth.empty(*shape)
    h = new_float(2, 3)  # the next constructor gets sound blocks
    assert geometry(h) == ((2, 3), (3, 1), 0) and h.refcount == 1 and h.storage.refcount == 1
    lib.THFloatTensor_free(h)
    assert lib.THAlloc_liveCount() == live


def test_failed_storage_allocation_returns_the_header(cache_on):
    """A size the allocator refuses: the header taken before it goes back, nothing leaks."""
    live, (_, allocs, nbytes) = lib.THAlloc_liveCount(), meters()
    h = lib.THFloatTensor_newWithSize(1, sizes(1 << 60))  # 4 EiB: no allocator has that
    assert h == ffi.NULL and lib.THError_kind() == lib.TH_ERR_MEMORY
    lib.THError_clear()
    assert meters() == (live, allocs, nbytes)
    st = lib.THFloatStorage_newWithSize(4)
    bad = lib.THFloatTensor_newWithStorage(st, 2, 1, sizes(3), ffi.NULL)  # past the end
    assert bad == ffi.NULL and lib.THError_kind() == lib.TH_ERR_RUNTIME
    lib.THError_clear()
    lib.THFloatStorage_free(st)
    assert lib.THAlloc_liveCount() == live


def test_limit_bounds_the_lists():
    old = lib.THStructCache_setLimit(8)
    try:
        lib.THStructCache_flush()
        hs = [new_float(3) for _ in range(100)]
        for h in hs:
            lib.THFloatTensor_free(h)
        assert lib.THStructCache_cached() == 16  # 8 headers and 8 storages
        assert lib.THStructCache_setLimit(2) == 8
        assert lib.THStructCache_cached() == 4  # trimmed at once on this thread
        lib.THStructCache_flush()
        assert lib.THStructCache_cached() == 0
        lib.THStructCache_setLimit(0)
        lib.THFloatTensor_free(new_float(3))
        assert lib.THStructCache_cached() == 0  # off: blocks go back to malloc
        assert lib.THStructCache_setLimit(-1) == -1
        assert lib.THError_kind() == lib.TH_ERR_VALUE
        assert b"non-negative" in ffi.string(lib.THError_message())
        lib.THError_clear()
        assert lib.THStructCache_limit() == 0
    finally:
        lib.THStructCache_setLimit(old)


def test_threads_make_and_free_concurrently_and_across_threads(cache_on):
    """Four threads churn through tensors on their own while producers hand tensors (tagged
    with a value) to consumers on other threads, which check and free them."""
    base = meters()
    handoff: queue.Queue = queue.Queue(maxsize=64)
    n_items = 2000

    def churn(k):
        def body():
            for i in range(3000):
                h = new_float(k + 1, 3)
                lib.THFloatTensor_fill(h, float(i))
                v = lib.THFloatTensor_newTranspose(h, 0, 1)
                assert geometry(v) == ((3, k + 1), (1, 3), 0) and h.storage.refcount == 2
                lib.THFloatTensor_free(h)
                assert lib.THFloatTensor_nElement(v) == 3 * (k + 1)
                lib.THFloatTensor_free(v)
        return body

    def produce():
        for i in range(n_items):
            h = new_float(5)
            lib.THFloatTensor_fill(h, float(i))
            handoff.put((i, h))
        handoff.put(None)

    def consume():
        while (item := handoff.get()) is not None:
            i, h = item
            assert h.refcount == 1 and h.storage.refcount == 1
            data = np.frombuffer(ffi.buffer(h.storage.data, 20), np.float32)
            assert (data == i).all()
            lib.THFloatTensor_free(h)  # made on the producer's thread

    run_in_threads([churn(k) for k in range(4)] + [produce, consume])
    assert meters() == base


def test_exited_threads_release_their_lists(cache_on):
    def work():
        hs = [new_float(4) for _ in range(50)]
        for h in hs:
            lib.THFloatTensor_free(h)
        assert lib.THStructCache_cached() >= 2 * 50 or lib.THStructCache_limit() < 50

    lib.THFloatTensor_free(new_float(1))  # this thread holds a record already
    threads = lib.THStructCache_threads()
    base = meters()
    run_in_threads([work] * 4)
    deadline = time.monotonic() + 10
    while lib.THStructCache_threads() > threads and time.monotonic() < deadline:
        time.sleep(0.01)  # the key destructors run as the threads finish exiting
    assert lib.THStructCache_threads() == threads
    assert meters() == base


# ---- the fast path of the <name>New forms ------------------------------------------------------

# (dtype, C prefix) for every dtype
DTYPES = [(dt, f"TH{dt.tensor._prefix[2:-len('Tensor_')]}Tensor_") for dt in _dt.ALL_DTYPES]


def new_forms(prefix: str) -> list:
    """Every pointwise <name>New / <name>ScalarNew of one dtype: (name, arity, scalar form)."""
    out = []
    for name in dir(lib):
        if name.startswith(prefix) and name.endswith("New"):
            args = ffi.typeof(getattr(lib, name)).args
            scalar = name.endswith("ScalarNew")
            out.append((name[len(prefix):-3], len(args), scalar))
    return sorted(out)


def sample(dt, shape, rng, nonzero=False):
    """A pyth tensor of dt with values that suit every op (small, and nonzero on request)."""
    if dt.kind == "b":
        x = np.asarray(rng.random(shape) < 0.5)
        if nonzero:
            x[...] = True
    elif dt.kind in "ui":
        lo = 0 if dt.kind == "u" else -9
        x = rng.integers(1 if nonzero else lo, 10, shape)
        if dt.kind == "i" and nonzero:
            x *= rng.choice([-1, 1], shape)
    else:
        x = rng.uniform(0.1, 0.9, shape) * rng.choice([-1, 1], shape)
    return pyth.tensor(x.tolist() if shape else x.item(), dtype=dt)


def scalar_arg(dt, fn, value):
    t = ffi.typeof(fn).args[1]
    if t.cname == "struct THHalf":
        return lib.TH_float2half(value)
    if t.cname == "struct THBFloat16":
        return lib.TH_float2bfloat16(value)
    return bool(value) if dt.kind == "b" else (int(value) if dt.kind in "ui" else value)


def raw_bytes(h) -> bytes:
    n = h.nDimension
    numel = int(np.prod([h.size[d] for d in range(n)])) if n else 1
    elsize = ffi.sizeof(ffi.typeof(h.storage.data).item)
    return bytes(ffi.buffer(h.storage.data + h.storageOffset, numel * elsize)) if numel else b""


@pytest.mark.parametrize("dt,prefix", DTYPES, ids=[d.name for d, _ in DTYPES])
def test_every_new_form_matches_its_into_form(dt, prefix):
    """The fast path runs the op's own row function once over the whole buffer, as the
    into-form does for a contiguous output: the bits must be identical, for every op."""
    rng = np.random.default_rng(0)
    forms = new_forms(prefix)
    assert forms
    for shape in [(10,), (3, 4), ()]:
        a = sample(dt, shape, rng)
        b = sample(dt, shape, rng, nonzero=True)
        one = sample(dt, (1,), rng, nonzero=True)
        for name, arity, scalar in forms:
            fn = getattr(lib, prefix + name + "New")
            into = getattr(lib, prefix + name)  # <name>(r, a[, b]) or <name>Scalar(r, a, s)
            rtype = ffi.typeof(fn).result
            calls = []
            if arity == 1:
                calls.append(((a._h,), (a._h,)))
            elif scalar:
                s = scalar_arg(dt, fn, 3.0)
                calls.append(((a._h, s), (a._h, s)))
            else:
                calls += [((a._h, b._h), (a._h, b._h)), ((a._h, one._h), (a._h, one._h))]
                if shape:
                    calls.append(((one._h, b._h), (one._h, b._h)))
            for args, into_args in calls:
                h = fn(*args)
                assert h != ffi.NULL, (name, ffi.string(lib.THError_message()))
                r = (lib.THBoolTensor_new if "Bool" in rtype.cname else
                     getattr(lib, prefix + "new"))()
                assert into(r, *into_args) == 0
                assert geometry(h)[0] == geometry(r)[0], name
                assert raw_bytes(h) == raw_bytes(r), (dt.name, name, shape)
                free = lib.THBoolTensor_free if "Bool" in rtype.cname else \
                    getattr(lib, prefix + "free")
                free(h)
                free(r)


def layouts(dt, rng):
    """(name, a, b) pairs of one dtype in the layouts the New forms see."""
    x = sample(dt, (6, 8), rng)
    y = sample(dt, (6, 8), rng, nonzero=True)
    col = sample(dt, (6, 1), rng, nonzero=True)
    return [
        ("contiguous", x, y),
        ("non-contiguous", x[:, ::2], y[:, 1::2]),
        ("transposed", x.t(), y.t()),
        ("mixed", x, y.t().contiguous().t()),
        ("expanded", x, col.expand(6, 8)),
        ("broadcast", x, col),
        ("one value", x, sample(dt, (1,), rng, nonzero=True)),
        ("one value first", sample(dt, (), rng), y),
        ("one value, more dims", sample(dt, (1, 1, 1), rng), sample(dt, (8,), rng, True)),
        ("0-dim", sample(dt, (), rng), sample(dt, (), rng, nonzero=True)),
        ("zero-size", sample(dt, (0, 8), rng), sample(dt, (0, 8), rng, nonzero=True)),
        ("zero-size broadcast", sample(dt, (0,), rng), sample(dt, (1,), rng, nonzero=True)),
    ]


def binary_oracles(dt):
    ops = {"add": np.add, "mul": np.multiply, "maximum": np.maximum, "minimum": np.minimum,
           "eq": np.equal, "lt": np.less, "ge": np.greater_equal,
           "logical_and": np.logical_and}
    if dt.kind != "b":
        ops["sub"] = np.subtract
    if dt.kind == "f":
        ops.update(div=np.divide, atan2=np.arctan2)
    if dt.kind in "ui":
        ops.update(floor_divide=np.floor_divide, remainder=np.remainder)
    if dt.kind in "uib":
        ops.update(bitwise_xor=np.bitwise_xor)
    return ops


def unary_oracles(dt):
    ops = {"logical_not": np.logical_not}
    if dt.kind != "b":
        ops.update(neg=np.negative, abs=np.abs, sign=np.sign)
    if dt.kind == "f":
        ops.update(exp=np.exp, tanh=np.tanh, sqrt=lambda v: np.sqrt(np.abs(v)) * 0 + np.sqrt(v),
                   floor=np.floor, isnan=np.isnan)
    return ops


def check_close(dt, got, want, what):
    if dt.kind == "f" and got.dtype != np.bool_:
        tol = 2e-3 if dt is _dt.float16 else 1e-6
        np.testing.assert_allclose(got, want.astype(got.dtype), rtol=tol, atol=tol,
                                   equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want.astype(got.dtype), err_msg=what)


def result_dt(fn, dt):
    return _dt.bool_ if "Bool" in ffi.typeof(fn).result.cname else dt


@pytest.mark.parametrize("dt", NUMPY_DTYPES, ids=[d.name for d in NUMPY_DTYPES])
def test_new_forms_against_numpy_in_every_layout(dt):
    rng = np.random.default_rng(1)
    with np.errstate(all="ignore"):
        for layout, a, b in layouts(dt, rng):
            an, bn = a.numpy(), b.numpy()
            for name, op in binary_oracles(dt).items():
                fn = getattr(dt.tensor, name + "New")
                got = wrap(result_dt(fn, dt), fn(a._h, b._h))
                want = op(an, bn)
                assert tuple(got.shape) == want.shape, (layout, name)
                check_close(dt, got.numpy(), want, f"{dt.name} {name} {layout}")
                if dt in (_dt.float32, _dt.float64):  # the ScalarNew forms
                    sfn = getattr(dt.tensor, name + "ScalarNew")
                    got = wrap(result_dt(sfn, dt), sfn(a._h, 0.5))
                    check_close(dt, got.numpy(), op(an, an.dtype.type(0.5)),
                                f"{dt.name} {name}Scalar {layout}")
            for name, op in unary_oracles(dt).items():
                fn = getattr(dt.tensor, name + "New")
                got = wrap(result_dt(fn, dt), fn(b._h))
                check_close(dt, got.numpy(), op(bn), f"{dt.name} {name} {layout}")


@pytest.mark.parametrize("dt", [_dt.float32, _dt.int64, _dt.uint8],
                         ids=["float32", "int64", "uint8"])
def test_large_inputs_take_the_threaded_path(dt, restore_threads):
    """Above the grain the fast path steps aside for the general, threaded one: results equal
    numpy both for a size above the default grain and for a tiny grain (every op threaded)."""
    pyth.set_num_threads(2)
    rng = np.random.default_rng(2)
    for n, grain in [(300_000, pyth.get_grain_size()), (1000, 64)]:
        pyth.set_grain_size(grain)
        a, b = sample(dt, (n,), rng), sample(dt, (n,), rng, nonzero=True)
        an, bn = a.numpy(), b.numpy()
        with np.errstate(all="ignore"):
            for name, op in [("add", np.add), ("mul", np.multiply), ("lt", np.less),
                             ("maximum", np.maximum)]:
                fn = getattr(dt.tensor, name + "New")
                check_close(dt, wrap(result_dt(fn, dt), fn(a._h, b._h)).numpy(), op(an, bn),
                            f"{name} n={n}")
            fn = dt.tensor.negNew
            check_close(dt, wrap(dt, fn(a._h)).numpy(), np.negative(an), f"neg n={n}")


INT_DTYPES = [dt for dt in _dt.ALL_DTYPES if dt.kind in "ui"]


@pytest.mark.parametrize("dt", INT_DTYPES, ids=[d.name for d in INT_DTYPES])
def test_integer_division_by_zero_still_raises(dt, restore_threads):
    def divide_by_zero(n):
        a = pyth.ones(n, dtype=dt)
        zero = pyth.zeros(n, dtype=dt)
        for name in ["floor_divide", "remainder", "fmod", "trunc_divide"]:
            fn = getattr(dt.tensor, name + "New")
            for x, y in [(a, zero), (a[::2], zero[1::2]), (a, pyth.zeros(1, dtype=dt)),
                         (a[:0], zero[:0])]:
                h = fn(x._h, y._h)
                if x.numel() == 0:  # nothing divided: an empty result
                    assert h != ffi.NULL and lib.THLongTensor_nElement(ffi.cast(
                        "THLongTensor *", h)) == 0
                    getattr(dt.tensor, "free")(h)
                    continue
                assert h == ffi.NULL, name
                assert lib.THError_kind() == lib.TH_ERR_RUNTIME
                msg = ffi.string(lib.THError_message()).decode()
                assert msg == f"{name}(): ZeroDivisionError: integer division by zero"
                lib.THError_clear()
            sfn = getattr(dt.tensor, name + "ScalarNew")
            assert sfn(a._h, 0) == ffi.NULL and lib.THError_kind() == lib.TH_ERR_RUNTIME
            lib.THError_clear()
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            a // zero
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            a % zero

    base = meters()
    for n in [10, 300_000]:
        divide_by_zero(n)
    assert meters() == base  # every refused result was freed


def test_an_input_past_its_storage_is_still_reported():
    """A contiguous view whose storage shrank under it: the fast path's bounds check sends it
    to the general path, which reports it as before."""
    t = pyth.zeros(10)
    v = t[4:]
    assert lib.THFloatStorage_resize(t._h.storage, 6) == 0
    for call in [lambda: lib.THFloatTensor_addNew(v._h, v._h),
                 lambda: lib.THFloatTensor_addScalarNew(v._h, 1.0),
                 lambda: lib.THFloatTensor_expNew(v._h),
                 lambda: lib.THFloatTensor_ltNew(t[:6]._h, v._h)]:
        assert call() == ffi.NULL
        assert lib.THError_kind() == lib.TH_ERR_RUNTIME
        assert b"its storage has only 6 elements" in ffi.string(lib.THError_message())
        lib.THError_clear()
    ok = lib.THFloatTensor_addNew(t[:6]._h, t[:6]._h)
    assert ok != ffi.NULL
    lib.THFloatTensor_free(ok)


def test_python_operators_on_small_tensors_match_numpy():
    """The path the 10-element add of the benchmark takes, end to end."""
    x = np.linspace(-1, 1, 10, dtype=np.float32)
    y = np.linspace(2, 3, 10, dtype=np.float32)
    a, b = pyth.from_numpy(x.copy()), pyth.from_numpy(y.copy())
    for _ in range(3):
        np.testing.assert_array_equal((a + b).numpy(), x + y)
        np.testing.assert_array_equal((a * 2.0).numpy(), x * np.float32(2.0))
        np.testing.assert_array_equal((a < b).numpy(), x < y)
        np.testing.assert_allclose(a.tanh().numpy(), np.tanh(x), rtol=1e-6)
