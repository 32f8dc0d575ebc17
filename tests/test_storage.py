"""Oracle tests for pyth storages (API.md "Storage") and the stamped C storage API.

numpy is the oracle for values and conversions (astype semantics: float->int truncates toward
zero, anything->bool is "nonzero", bool->number is 0/1, int->int wraps). numpy has no bfloat16:
bfloat16 values are compared as float32 values that bfloat16 represents exactly, and rounding
is checked against a small round-to-nearest-even reference written with numpy bit operations.
"""

from __future__ import annotations

import ctypes
import math
import pathlib
import subprocess
import sys

import numpy as np
import pytest
from _support import (
    CAST_POOL,
    DTYPE_NAMES,
    FLOATS,
    INT_RANGE,
    INTS,
    ITEMSIZE,
    NP_CARRIER,
    TH_NAME,
    bf16_round,
    convertible_values,
    exact_in,
    torch_convertible,
)
from pyth._th import ffi, lib

import pyth

# ---- the ten types ------------------------------------------------------------------------

CTYPE = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int32_t",
         "int64": "int64_t", "float32": "float", "float64": "double", "float16": "THHalf",
         "bfloat16": "THBFloat16", "bool": "bool"}
# conversion methods and the type each produces
METHODS = {"byte": "uint8", "char": "int8", "short": "int16", "int": "int32", "long": "int64",
           "float": "float32", "double": "float64", "half": "float16", "bfloat16": "bfloat16",
           "bool": "bool"}


def storage_cls(name):
    return getattr(pyth, TH_NAME[name] + "Storage")


def pyvalue(v, name):
    """v as the Python scalar a storage of `name` takes and returns."""
    if name == "bool":
        return bool(v)
    if name in INTS:
        return int(v)
    return float(v)


def src_values(name):
    if name == "bool":
        return [False, True, True, False, True]
    return [pyvalue(v, name) for v in CAST_POOL if exact_in(v, name)]


def expected_cast(values, src, dst):
    """numpy's astype applied to the values (bfloat16 through float32; values are exact)."""
    return np.array(values, dtype=NP_CARRIER[src]).astype(NP_CARRIER[dst]).tolist()


def same(a, b):
    """Element-wise equality of two lists that also tells NaN == NaN and keeps -0.0 apart."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if isinstance(x, float) and isinstance(y, float):
            if math.isnan(x) and math.isnan(y):
                continue
            if x != y or math.copysign(1, x) != math.copysign(1, y):
                return False
        elif x != y:
            return False
    return True


# ---- construction, size, element access -------------------------------------------------


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_construct_with_size(name):
    s = storage_cls(name)(5)
    assert isinstance(s, storage_cls(name))
    assert len(s) == 5
    assert s.size() == 5
    assert s.element_size() == ITEMSIZE[name]
    assert len(s.tolist()) == 5


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_construct_empty(name):
    for s in (storage_cls(name)(0), storage_cls(name)([])):
        assert len(s) == 0
        assert s.size() == 0
        assert s.tolist() == []


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_construct_from_list(name):
    vals = src_values(name)
    s = storage_cls(name)(vals)
    assert len(s) == len(vals)
    assert same(s.tolist(), vals)


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_construct_from_list_converts_like_numpy(name):
    # ints into a float storage, 0/1 into bool: stored as numpy's astype would
    vals = [0, 1, 3, 0, 2]
    s = storage_cls(name)(vals)
    assert s.tolist() == np.array(vals).astype(NP_CARRIER[name]).tolist()


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_tolist_python_types(name):
    s = storage_cls(name)([1, 0, 1])
    out = s.tolist()
    want = bool if name == "bool" else (float if name in FLOATS else int)
    assert all(type(x) is want for x in out), out
    assert all(type(s[i]) is want for i in range(3))


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_getitem_positive_and_negative(name):
    vals = src_values(name)
    s = storage_cls(name)(vals)
    n = len(vals)
    for i in range(n):
        assert same([s[i]], [vals[i]])
        assert same([s[i - n]], [vals[i]])


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_setitem_positive_and_negative(name):
    vals = src_values(name)
    n = len(vals)
    s = storage_cls(name)(n)
    s.fill_(0)
    ref = [pyvalue(0, name)] * n
    # write each value at a negative index going backwards, check against a python list
    for k, v in enumerate(vals):
        s[-1 - k] = v
        ref[-1 - k] = v
    assert same(s.tolist(), ref)
    s[0] = vals[1]
    ref[0] = vals[1]
    s[-n] = vals[2]  # -n is index 0 again
    ref[-n] = vals[2]
    assert same(s.tolist(), ref)


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("n", [0, 1, 5])
def test_index_out_of_range(name, n):
    s = storage_cls(name)(n)
    for i in (n, n + 1, -n - 1, -n - 7, 2**40):
        with pytest.raises(IndexError, match=r"(?i)out of range|index"):
            s[i]
        with pytest.raises(IndexError, match=r"(?i)out of range|index"):
            s[i] = 1
    # the failed assignments wrote nothing
    assert len(s) == n


def test_index_error_names_index_and_size():
    s = pyth.FloatStorage(4)
    with pytest.raises(IndexError, match=r"\b9\b.*\b4\b|\b4\b.*\b9\b"):
        s[9]


# ---- fill_ --------------------------------------------------------------------------------


FILL = {"uint8": 200, "int8": -7, "int16": -300, "int32": 70000, "int64": 2**40 + 3,
        "float32": -2.75, "float64": 1e300, "float16": 65504.0, "bfloat16": -3.0e38,
        "bool": True}


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("n", [0, 1, 9])
def test_fill_(name, n):
    s = storage_cls(name)(n)
    r = s.fill_(FILL[name])
    assert r is s
    v = FILL[name]
    if name == "bfloat16":
        v = float(bf16_round([v])[0])
    assert same(s.tolist(), [pyvalue(v, name)] * n)


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32"])
def test_fill_and_set_overflow_raise(name):
    # PyTorch: "value cannot be converted to type uint8_t without overflow"
    s = storage_cls(name)([1, 2])
    big = INT_RANGE[name][1] + 1
    with pytest.raises(RuntimeError, match=r"(?i)overflow|convert"):
        s.fill_(big)
    with pytest.raises(RuntimeError, match=r"(?i)overflow|convert"):
        s[0] = big
    assert s.tolist() == [1, 2]


@pytest.mark.parametrize("name", ["float16", "float32"])
def test_half_and_float_rounding_on_store(name):
    rng = np.random.default_rng(0)
    vals = (rng.standard_normal(64) * 100).astype(np.float32)
    vals = np.concatenate([vals, np.float32([1 + 2**-11, 1 + 3 * 2**-11, 65519, 65520, 1e-8,
                                              np.inf, -np.inf, 2**-24, 2**-25, 3 * 2**-26])])
    s = storage_cls(name)(vals.tolist())
    with np.errstate(over="ignore"):
        want = vals.astype(NP_CARRIER[name]).astype(np.float64).tolist()
    assert same(s.tolist(), want)


def test_bfloat16_rounding_on_store():
    rng = np.random.default_rng(1)
    vals = (rng.standard_normal(64) * 1000).astype(np.float32)
    # ties: 1 + 2**-8 is halfway between 1 and 1 + 2**-7 (even: 1); 1 + 3*2**-8 rounds up
    vals = np.concatenate([vals, np.float32([1 + 2**-8, 1 + 3 * 2**-8, -(1 + 2**-8), 3.0e38])])
    s = pyth.BFloat16Storage(vals.tolist())
    assert same(s.tolist(), bf16_round(vals).astype(np.float64).tolist())


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32", "float64"])
def test_nan_and_inf_survive(name):
    s = storage_cls(name)([float("nan"), float("inf"), float("-inf"), -0.0])
    out = s.tolist()
    assert math.isnan(out[0]) and out[1] == math.inf and out[2] == -math.inf
    assert out[3] == 0 and math.copysign(1, out[3]) == -1


# ---- copy_ between every pair of types ----------------------------------------------------


@pytest.mark.parametrize("src", DTYPE_NAMES)
@pytest.mark.parametrize("dst", DTYPE_NAMES)
def test_copy_all_pairs(dst, src):
    vals = convertible_values(src, dst)
    s = storage_cls(src)(vals)
    d = storage_cls(dst)(len(vals))
    r = d.copy_(s)
    assert r is d
    assert same(d.tolist(), expected_cast(vals, src, dst))
    assert same(s.tolist(), vals)  # the source is untouched
    if len(vals):
        assert d.data_ptr() != s.data_ptr()


@pytest.mark.parametrize("src", ["float32", "int64", "bool", "bfloat16"])
def test_copy_is_independent(src):
    vals = src_values(src)
    s = storage_cls(src)(vals)
    d = pyth.DoubleStorage(len(vals))
    d.copy_(s)
    s.fill_(0)
    assert d.tolist() == expected_cast(vals, src, "float64")


def test_copy_self_is_noop():
    s = pyth.ShortStorage([1, 2, 3])
    s.copy_(s)
    assert s.tolist() == [1, 2, 3]


@pytest.mark.parametrize("src", ["float32", "int8"])
def test_copy_size_mismatch_raises(src):
    d = pyth.FloatStorage([1, 2, 3])
    s = storage_cls(src)([1, 2, 3, 4])
    with pytest.raises(RuntimeError, match=r"(?i)size"):
        d.copy_(s)
    assert d.tolist() == [1.0, 2.0, 3.0]


def test_copy_non_storage_raises_type_error():
    d = pyth.FloatStorage(3)
    with pytest.raises(TypeError):
        d.copy_([1, 2, 3])


# ---- resize_ ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_resize_keeps_prefix(name):
    vals = src_values(name)
    n = len(vals)
    s = storage_cls(name)(vals)
    s.resize_(n + 1000)
    assert len(s) == s.size() == n + 1000
    assert same(s.tolist()[:n], vals)
    s[-1] = vals[1]
    assert same([s[n + 999]], [vals[1]])
    s.resize_(2)
    assert len(s) == 2
    assert same(s.tolist(), vals[:2])
    s.resize_(0)
    assert len(s) == 0 and s.tolist() == []
    s.resize_(3)
    assert len(s) == 3
    s.fill_(vals[1])
    assert same(s.tolist(), [vals[1]] * 3)


def test_resize_negative_raises_value_error():
    s = pyth.FloatStorage([1, 2])
    with pytest.raises(ValueError, match=r"(?i)negative"):
        s.resize_(-1)
    assert s.tolist() == [1.0, 2.0]


def test_resize_overflow_raises_memory_error():
    s = pyth.DoubleStorage([1, 2])
    with pytest.raises(MemoryError):
        s.resize_(2**62)
    assert s.tolist() == [1.0, 2.0]


def test_construct_errors():
    with pytest.raises(ValueError, match=r"(?i)negative"):
        pyth.FloatStorage(-1)
    with pytest.raises(MemoryError):
        pyth.DoubleStorage(2**62)
    with pytest.raises(TypeError):
        pyth.FloatStorage(object())


# ---- data_ptr, element_size ----------------------------------------------------------------

CT = {"uint8": ctypes.c_uint8, "int8": ctypes.c_int8, "int16": ctypes.c_int16,
      "int32": ctypes.c_int32, "int64": ctypes.c_int64, "float32": ctypes.c_float,
      "float64": ctypes.c_double, "float16": ctypes.c_uint16, "bfloat16": ctypes.c_uint16,
      "bool": ctypes.c_bool}


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_data_ptr_addresses_the_elements(name):
    vals = src_values(name)[:4]
    s = storage_cls(name)(vals)
    p = s.data_ptr()
    assert isinstance(p, int) and p != 0
    raw = (CT[name] * len(vals)).from_address(p)
    if name == "float16":
        want = np.array(vals, np.float16).view(np.uint16).tolist()
    elif name == "bfloat16":
        want = (np.array(vals, np.float32).view(np.uint32) >> 16).astype(np.uint16).tolist()
    else:
        want = vals
    assert list(raw) == want
    # a write through the address is seen by s[i]
    raw[0] = raw[1]
    assert same([s[0]], [vals[1]])


def test_data_ptr_distinct_and_aligned():
    a, b = pyth.FloatStorage(100), pyth.FloatStorage(100)
    assert a.data_ptr() != b.data_ptr()
    assert a.data_ptr() % 64 == 0 and b.data_ptr() % 64 == 0  # default allocator: 64-byte aligned
    assert a.data_ptr() % 4 == 0


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_element_size(name):
    s = storage_cls(name)(3)
    assert s.element_size() == ITEMSIZE[name]
    assert getattr(pyth, name).itemsize == ITEMSIZE[name]


# ---- conversions (.float(), .double(), ...) -------------------------------------------------


@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("src", DTYPE_NAMES)
def test_conversion_methods_copy(src, method):
    dst = METHODS[method]
    vals = convertible_values(src, dst)
    s = storage_cls(src)(vals)
    r = getattr(s, method)()
    assert type(r) is storage_cls(dst)
    assert len(r) == len(vals)
    assert same(r.tolist(), expected_cast(vals, src, dst))
    # a copy: writing to it leaves the source alone
    assert r is not s
    assert r.data_ptr() != s.data_ptr()
    r.fill_(0)
    assert same(s.tolist(), vals)


# ---- the C API, called directly ------------------------------------------------------------


def cfn(name, fn):
    return getattr(lib, f"TH{TH_NAME[name]}Storage_{fn}")


def to_c(name, v):
    if name == "float16":
        return lib.TH_float2half(float(v))
    if name == "bfloat16":
        return lib.TH_float2bfloat16(float(v))
    return v


def from_c(name, x):
    if name == "float16":
        return float(lib.TH_half2float(x))
    if name == "bfloat16":
        return float(lib.TH_bfloat162float(x))
    return x


def c_get(name, s, i):
    out = ffi.new(CTYPE[name] + " *")
    assert cfn(name, "get")(out, s, i) == 0
    return from_c(name, out[0])


def take_error():
    kind = lib.THError_kind()
    msg = ffi.string(lib.THError_message()).decode()
    lib.THError_clear()
    return kind, msg


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_c_new_with_size(name):
    s = cfn(name, "newWithSize")(10)
    assert s != ffi.NULL
    try:
        assert cfn(name, "size")(s) == 10 == s.size
        assert cfn(name, "refcount")(s) == 1
        assert cfn(name, "elementSize")() == ITEMSIZE[name] == ffi.sizeof(CTYPE[name])
        assert ffi.string(s.allocator.name) == b"default"
        assert s.flag & lib.TH_STORAGE_REFCOUNTED
        assert s.flag & lib.TH_STORAGE_RESIZABLE
        assert cfn(name, "data")(s) == s.data != ffi.NULL
        vals = src_values(name)[:10]
        cfn(name, "fill")(s, to_c(name, vals[1]))
        assert all(same([c_get(name, s, i)], [vals[1]]) for i in range(10))
        for i, v in enumerate(vals):
            assert cfn(name, "set")(s, i, to_c(name, v)) == 0
        assert same([c_get(name, s, i) for i in range(len(vals))], vals)
        # element i sits at data[i]
        data = ffi.cast(CTYPE[name] + " *", s.data)
        assert same([from_c(name, data[i]) for i in range(len(vals))], vals)
    finally:
        cfn(name, "free")(s)


def test_c_float_storage_example():
    # the example from DESIGN.md
    s = lib.THFloatStorage_newWithSize(10)
    assert s.size == 10
    lib.THFloatStorage_fill(s, 1.5)
    assert lib.THFloatStorage_set(s, 3, -2.0) == 0
    out = ffi.new("float *")
    assert lib.THFloatStorage_get(out, s, 3) == 0 and out[0] == -2.0
    assert lib.THFloatStorage_get(out, s, 9) == 0 and out[0] == 1.5
    lib.THFloatStorage_free(s)


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_c_retain_free_refcount(name):
    s = cfn(name, "newWithSize")(3)
    cfn(name, "retain")(s)
    cfn(name, "retain")(s)
    assert cfn(name, "refcount")(s) == 3 == s.refcount
    cfn(name, "free")(s)
    assert cfn(name, "refcount")(s) == 2
    cfn(name, "free")(s)
    assert cfn(name, "refcount")(s) == 1
    cfn(name, "free")(s)


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_c_errors_are_recorded_not_fatal(name):
    lib.THError_clear()
    s = cfn(name, "newWithSize")(4)
    out = ffi.new(CTYPE[name] + " *")
    assert cfn(name, "get")(out, s, 4) == -1
    kind, msg = take_error()
    assert kind == lib.TH_ERR_INDEX and "out of range" in msg and "4" in msg
    assert cfn(name, "get")(out, s, -1) == -1
    assert take_error()[0] == lib.TH_ERR_INDEX
    assert cfn(name, "set")(s, 100, to_c(name, 1)) == -1
    assert take_error()[0] == lib.TH_ERR_INDEX
    assert cfn(name, "resize")(s, -3) == -1
    assert take_error()[0] == lib.TH_ERR_VALUE
    assert s.size == 4
    cfn(name, "free")(s)
    assert cfn(name, "newWithSize")(-1) == ffi.NULL
    kind, msg = take_error()
    assert kind == lib.TH_ERR_VALUE and "negative" in msg
    assert cfn(name, "newWithSize")(2**62) == ffi.NULL
    assert take_error()[0] == lib.TH_ERR_MEMORY


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_c_resize_keeps_prefix(name):
    vals = src_values(name)[:5]
    s = cfn(name, "newWithSize")(len(vals))
    for i, v in enumerate(vals):
        cfn(name, "set")(s, i, to_c(name, v))
    assert cfn(name, "resize")(s, 1000) == 0
    assert s.size == 1000
    assert same([c_get(name, s, i) for i in range(len(vals))], vals)
    assert cfn(name, "resize")(s, 2) == 0
    assert s.size == 2
    assert same([c_get(name, s, i) for i in range(2)], vals[:2])
    cfn(name, "free")(s)


def test_c_copy_all_pairs():
    for src in DTYPE_NAMES:
        for dst in DTYPE_NAMES:
            vals = convertible_values(src, dst)
            s = cfn(src, "newWithSize")(len(vals))
            d = cfn(dst, "newWithSize")(len(vals))
            for i, v in enumerate(vals):
                cfn(src, "set")(s, i, to_c(src, v))
            assert getattr(lib, f"TH{TH_NAME[dst]}Storage_copy{TH_NAME[src]}")(d, s) == 0
            got = [c_get(dst, d, i) for i in range(len(vals))]
            assert same(got, expected_cast(vals, src, dst)), (src, dst)
            cfn(src, "free")(s)
            cfn(dst, "free")(d)


def test_c_copy_size_mismatch():
    d = lib.THFloatStorage_newWithSize(3)
    s = lib.THLongStorage_newWithSize(4)
    assert lib.THFloatStorage_copyLong(d, s) == -1
    kind, msg = take_error()
    assert kind == lib.TH_ERR_RUNTIME and "3" in msg and "4" in msg
    lib.THFloatStorage_free(d)
    lib.THLongStorage_free(s)


def test_c_half_conversions_match_numpy():
    rng = np.random.default_rng(2)
    vals = np.concatenate([(rng.standard_normal(200) * 10.0 ** rng.integers(-8, 5, 200)),
                           [0.0, -0.0, 65504, 65519, 65520, 1e-7, 2**-24, 2**-25]])
    vals = vals.astype(np.float32)
    got = [float(lib.TH_half2float(lib.TH_float2half(float(v)))) for v in vals]
    with np.errstate(over="ignore"):
        want = vals.astype(np.float16).astype(np.float64).tolist()
    assert same(got, want)
    got = [float(lib.TH_bfloat162float(lib.TH_float2bfloat16(float(v)))) for v in vals]
    assert same(got, bf16_round(vals).astype(np.float64).tolist())


# ---- shrinking a storage under a live view -------------------------------------------------

SHRINK_SCRIPT = r"""
import sys
import pyth
t = pyth.arange(100000, dtype=pyth.float64)
v = t[99990:]
s = t.storage()
try:
    s.resize_(1)
except RuntimeError:
    sys.exit(0)                  # refusing to shrink under a view is fine
for f in (lambda: v.clone(), lambda: t.tolist(), lambda: v.numpy().copy(),
          lambda: pyth.zeros(10, dtype=pyth.float64).copy_(v)):
    try:
        out = f()
    except RuntimeError:
        continue                 # a clean error is fine
    print("read past the end of a shrunk storage:", type(out).__name__)
    sys.exit(3)
"""


def test_shrinking_a_storage_under_a_view_never_reads_freed_memory():
    # API.md "Errors": nothing aborts or crashes; reading memory the storage no longer owns
    # must either be refused by resize_ or raise RuntimeError (PyTorch's tolist() does).
    root = pathlib.Path(pyth.__file__).resolve().parents[1]
    r = subprocess.run([sys.executable, "-c", SHRINK_SCRIPT], capture_output=True, text=True,
                       timeout=60, cwd=str(root))
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr[-2000:])


# ---- PyTorch as a second oracle (inexact conversions too) ----------------------------------


@pytest.mark.parametrize("src", DTYPE_NAMES)
@pytest.mark.parametrize("dst", DTYPE_NAMES)
def test_storage_copy_matches_torch(dst, src):
    torch = pytest.importorskip("torch")
    ts = torch_convertible(src, dst, 200, seed=DTYPE_NAMES.index(src) * 10 + DTYPE_NAMES.index(dst))
    vals = (ts.float() if src == "bfloat16" else ts).tolist()
    s = storage_cls(src)(vals)
    assert same(s.tolist(), vals)
    d = storage_cls(dst)(len(vals))
    d.copy_(s)
    td = ts.to(getattr(torch, dst))
    want = (td.float() if dst == "bfloat16" else td).tolist()
    assert same(d.tolist(), want), (src, dst)
    conv = {v: k for k, v in METHODS.items()}[dst]
    assert same(getattr(s, conv)().tolist(), want)
