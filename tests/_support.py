"""Helpers the test suite shares, in one place. Sections:

- dtype tables: the dtype names (all, float, integer), integer ranges, their numpy carriers and
  pyth/torch dtypes, torch as an optional oracle (None when not installed), `needs_torch`, and
  `kw` (a message regex for pytest.raises).
- data and layouts: `Triple` (one logical tensor in pyth, numpy and torch) for the fuzz suites;
  seeded sample values, (pyth, torch) pairs and their layouts (contiguous, transposed, stepped,
  expanded) for the composed-op tests; for the op suites, distinct exact values
  (`distinct_values`), an operand in a layout (`LAYOUTS`, `laid_out_as`), a view over a fresh
  root (`ROOTED_LAYOUTS`, `rooted_view`) and storage geometry helpers.
- comparisons: values, dtype and geometry against numpy/torch; `check_call` (same result or same
  exception class as torch); the numpy reference for dtype conversions and the values whose
  conversions are defined (`convertible_values`, `torch_convertible`).
- memory counters and runners: `memory_now` (memory_stats after a collection), `run_all` (every
  variant, one failure listing all), `run_child` (code in a child process with a time limit and
  a capped address space, for cases that could crash, hang or exhaust memory),
  `run_in_threads`.
- hypothesis strategies and view steps: values, shapes and tensors in random layouts;
  `VIEW_STEPS`, a table of view ops applied alike to all three of a Triple.
- layer-test operands: float64 pyth/torch operands from one array (P, T, grad_pair), a closeness
  check, and parameter copies between a pyth and a torch module.

Users: most suites; the differential fuzz suites (test_fuzz_*.py, test_hardening_py.py), the
composed-op tests (test_*_composed.py), the op suites (test_views.py, test_indexing*.py,
test_copy.py, test_storage.py, ...) and the layer tests (test_nn_*.py). conftest.py's directory
is on sys.path, so tests import it as `_support`; fixtures live in conftest.py.
"""

from __future__ import annotations

import gc
import math
import threading
import warnings
import zlib
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import strategies as st  # pyproject's test extra declares hypothesis

import pyth

try:
    import torch
except ImportError:  # tests that need torch skip; the rest run with numpy as the only oracle
    torch = None


# ==== dtype tables ===============================================================================

DTYPE_NAMES = ["uint8", "int8", "int16", "int32", "int64", "float32", "float64", "float16",
               "bfloat16", "bool"]
FLOATS = ["float32", "float64", "float16", "bfloat16"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]
# each integer dtype's (min, max)
INT_RANGE = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-(2**15), 2**15 - 1),
             "int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}

# numpy carrier of each dtype's values (bfloat16 values are exact in float32)
NP_CARRIER = {n: np.dtype(n if n not in ("bfloat16", "bool") else
                          {"bfloat16": "float32", "bool": "bool"}[n]) for n in DTYPE_NAMES}

# API.md's type table: each dtype's TH type name (ByteTensor, ByteStorage, THByteTensor_...)
TH_NAME = {"uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
           "float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
           "bool": "Bool"}
# bytes per element
ITEMSIZE = {"uint8": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8, "float32": 4,
            "float64": 8, "float16": 2, "bfloat16": 2, "bool": 1}
# the pyth dtypes numpy has (all but bfloat16), as dtype objects
NUMPY_DTYPES = [d for d in pyth.ALL_DTYPES if d is not pyth.bfloat16]


def pdt(name: str):
    """The pyth dtype of a name."""
    return getattr(pyth, name)


def tdt(name: str):
    """The torch dtype of a name."""
    return getattr(torch, name)


def dtype_name(x) -> str:
    """The dtype name of a pyth or torch tensor ('float32', ...)."""
    return str(x.dtype).rsplit(".", 1)[-1]


def torch_or_skip():
    """The torch module, or a skip of the calling test when it is not installed."""
    return pytest.importorskip("torch")


needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def kw(*words: str) -> str:
    """A regex (for pytest.raises(match=)) matching when every keyword occurs, any order/case."""
    return "(?is)" + "".join(f"(?=.*(?:{w}))" for w in words)


# ==== data and layouts ===========================================================================

@dataclass
class Triple:
    """One logical tensor in pyth, numpy and torch (or None)."""

    p: Any
    n: np.ndarray
    t: Any
    name: str

    def map(self, fp: Callable, fn: Callable, ft: Callable) -> Triple:
        return Triple(fp(self.p), np.asarray(fn(self.n)), ft(self.t) if self.t is not None else None,
                      self.name)


def make(name: str, shape: tuple, vals: list) -> Triple:
    """A contiguous tensor of shape holding vals (one per element, in C order)."""
    src = np.float64 if name in FLOATS else NP_CARRIER[name]
    arr = np.array(vals, dtype=src).astype(NP_CARRIER[name]).reshape(shape)
    p = pyth.tensor(arr, dtype=pdt(name))
    t = torch.tensor(arr).to(tdt(name)) if torch is not None else None
    return Triple(p, arr, t, name)


def rng(*key):
    """A numpy generator seeded by key (the same data on every run)."""
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def sample(shape, name, key=(), lo=-5, hi=5):
    """float64 numpy values suited to dtype name (small integers for int types, 0/1 for bool)."""
    g = rng(shape, name, *key)
    if name == "bool":
        return g.integers(0, 2, size=shape).astype(np.float64)
    if name in INTS:
        lo_ = 0 if name == "uint8" else lo
        return g.integers(lo_, hi + 1, size=shape).astype(np.float64)
    return np.round(g.uniform(lo, hi, size=shape), 2)


def make_pair(vals: np.ndarray, name: str):
    """(pyth tensor, torch tensor) holding the same values vals in dtype name."""
    torch_or_skip()
    if name == "bfloat16":
        p = pyth.tensor(vals.astype(np.float32)).to(pyth.bfloat16)
        t = torch.tensor(vals.astype(np.float32)).to(torch.bfloat16)
    else:
        p = pyth.tensor(vals.astype(name if name != "bool" else bool))
        t = torch.tensor(vals.astype(name if name != "bool" else bool))
    return p, t


def layouts(p, t):
    """(label, pyth view, torch view): the same view of each (p, t must be at least 2-D)."""
    yield "contiguous", p, t
    if p.dim() >= 2:
        yield "transposed", p.transpose(0, 1), t.transpose(0, 1)
        yield "stepped", p[:, ::2], t[:, ::2]
    yield "expanded", p[:1].expand(*p.shape), t[:1].expand(*t.shape)


# ---- fixed samples and storage geometry (the op suites: test_views, test_indexing, ...) ---------

def distinct_values(shape, name: str, seed: int = 0, small: bool = False) -> np.ndarray:
    """Distinct values (up to 251 elements) exact in dtype name, in its numpy carrier, in a
    seeded order; small: 0..3 instead (bool: every third True), so that sums stay exact."""
    shape = tuple(shape)
    n = int(np.prod(shape, dtype=np.int64))
    k = np.random.default_rng(seed).permutation(n) if n else np.zeros(0, np.int64)
    if small:
        v = k % 4 if name != "bool" else k % 3 == 0
    elif name == "bool":
        v = k % 3 == 0
    elif name == "uint8":
        v = k % 251
    elif name == "int8":
        v = k % 251 - 125
    elif name in FLOATS:
        v = (k % 251 - 125) * 0.5
    else:
        v = k - n // 2
    return np.asarray(v).astype(NP_CARRIER[name]).reshape(shape)


def tensor_of(a, name: str):
    """A pyth tensor of dtype name holding array a's values."""
    return pyth.tensor(np.asarray(a), dtype=pdt(name))


# layouts of an operand for the op suites (laid_out_as); every one holds the same logical values
LAYOUTS = ["contig", "transposed", "stepped", "expanded"]


def laid_out_as(a: np.ndarray, name: str, layout: str):
    """A pyth tensor of dtype name holding a's values in a memory layout (one of LAYOUTS):
    contig; transposed (a contiguous tensor with the dims reversed, permuted back); stepped
    (every other element of a last dim interleaved with zeros); expanded (a[:1] expanded: a's
    rows along dim 0 must be equal, see rows_repeated). 0-dim: contig."""
    if layout == "contig" or a.ndim == 0:
        return tensor_of(a, name)
    if layout == "transposed":
        rev = tuple(range(a.ndim))[::-1]
        t = tensor_of(np.ascontiguousarray(a.transpose(rev)), name).permute(*rev)
        assert a.ndim < 2 or not t.is_contiguous() or 0 in a.shape or 1 in a.shape
        return t
    if layout == "stepped":
        wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), a.dtype)
        wide[..., ::2] = a
        return tensor_of(wide, name)[..., ::2]
    if layout == "expanded":
        np.testing.assert_array_equal(a, rows_repeated(a), "expanded needs equal rows")
        return tensor_of(a[:1], name).expand(*a.shape)
    raise ValueError(layout)


def rows_repeated(a: np.ndarray) -> np.ndarray:
    """a's first row along dim 0 repeated over dim 0: the values an expanded tensor holds."""
    return np.broadcast_to(a[:1], a.shape).copy()


# views over a fresh contiguous root, for the suites that check offsets into it (rooted_view)
ROOTED_LAYOUTS = ["contig", "transposed", "stepped", "offset"]


def rooted_view(shape, name: str, layout: str) -> tuple:
    """(root, view, root ndarray, view ndarray): a view of shape, in a layout of
    ROOTED_LAYOUTS, over a fresh contiguous root of distinct values: contig (the root itself),
    transposed (the dims reversed), stepped (every other element of the last dim, made with
    narrow/unfold/select so that indexing plays no part), offset (the root less its first and
    last rows). 0-dim: the root."""
    shape = tuple(shape)
    nd = len(shape)
    if nd == 0 or layout == "contig":
        rn = distinct_values(shape, name)
        rp = tensor_of(rn, name)
        return rp, rp, rn, rn
    if layout == "transposed":
        rn = distinct_values(shape[::-1], name)
        rp = tensor_of(rn, name)
        perm = tuple(range(nd))[::-1]
        return rp, rp.permute(*perm), rn, rn.transpose(perm)
    if layout == "stepped":
        rn = distinct_values(shape[:-1] + (2 * shape[-1] + 1,), name)
        rp = tensor_of(rn, name)
        vp = rp.narrow(-1, 1, 2 * shape[-1]).unfold(-1, 1, 2).select(-1, 0)
        return rp, vp, rn, rn[..., 1::2]
    if layout == "offset":
        rn = distinct_values((shape[0] + 2,) + shape[1:], name)
        rp = tensor_of(rn, name)
        return rp, rp.narrow(0, 1, shape[0]), rn, rn[1:1 + shape[0]]
    raise ValueError(layout)


def np_via_tolist(t) -> np.ndarray:
    """A pyth tensor's values in its numpy carrier, read through tolist() (not the numpy
    bridge, so that the bridge is not part of the oracle)."""
    return np.array(t.tolist(), dtype=NP_CARRIER[dtype_name(t)]).reshape(tuple(t.shape))


def same_storage(a, b) -> bool:
    """Whether two tensors view the same storage."""
    return a.storage().data_ptr() == b.storage().data_ptr()


def np_offset(view, root) -> int:
    """Element offset of view's first element within root (pyth tensors or ndarrays)."""
    def addr(x):
        return x.data_ptr() if hasattr(x, "data_ptr") else x.__array_interface__["data"][0]
    return (addr(view) - addr(root)) // view.itemsize


def c_strides(shape) -> tuple:
    """The strides (in elements) of a contiguous tensor of shape (size-0 dims count as 1)."""
    st_, acc = [], 1
    for s in reversed(shape):
        st_.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(st_))


# ==== comparisons ================================================================================

def to_numpy_exact(p) -> np.ndarray:
    """A pyth tensor's values as an ndarray of its own dtype (bfloat16 through float32)."""
    if p.dtype is pyth.bfloat16:
        return p.float().numpy().copy()
    return p.numpy().copy()


def torch_values(t) -> np.ndarray:
    """A torch tensor's values as an ndarray (bfloat16 through float32)."""
    if t.dtype == torch.bfloat16:
        t = t.float()
    return t.detach().contiguous().numpy()


def values_of(x) -> np.ndarray:
    """A pyth or torch tensor's values as a fresh ndarray of its own dtype (bfloat16 through
    float32)."""
    return to_numpy_exact(x) if isinstance(x, pyth.Tensor) else np.array(torch_values(x))


def to_torch(p):
    """A torch tensor with pyth tensor p's dtype and values (exact) and standard contiguous
    strides (even when empty); skips the calling test when torch is not installed."""
    torch_or_skip()
    t = torch.from_numpy(to_numpy_exact(p)).to(tdt(dtype_name(p)))
    return t.clone(memory_format=torch.contiguous_format)


def to_numpy_float64(x) -> np.ndarray:
    """A pyth or torch tensor's values as an ndarray, floats widened to float64 (bool and
    integers keep their dtype): what `assert_same` compares."""
    a = to_numpy_exact(x) if isinstance(x, pyth.Tensor) else torch_values(x)
    return a.astype(np.float64) if a.dtype.kind == "f" else a


def assert_same_values(p, expected: np.ndarray, name: str | None = None, rtol: float = 0.0,
                       atol: float = 0.0) -> None:
    got = to_numpy_exact(p)
    assert tuple(p.shape) == tuple(expected.shape), (tuple(p.shape), expected.shape)
    if name is not None:
        assert p.dtype is pdt(name), (p.dtype, name)
    if rtol or atol:
        np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64),
                                   rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected.astype(got.dtype, copy=False))


def assert_same_geometry(p, t) -> None:
    """Sizes equal; strides of dims that matter (size > 1) and the offset of non-empty tensors
    equal torch's. (Strides of size-1 dims and offsets of empty views are not observable.)"""
    assert tuple(p.shape) == tuple(t.shape), (tuple(p.shape), tuple(t.shape))
    if p.numel() == 0:
        return
    ps, ts = p.stride(), t.stride()
    for d, s in enumerate(p.shape):
        if s > 1:
            assert ps[d] == ts[d], f"stride of dim {d}: pyth {ps} torch {ts} (shape {tuple(p.shape)})"
    assert p.storage_offset() == t.storage_offset(), (p.storage_offset(), t.storage_offset())


def distinct_cells(p) -> bool:
    """Whether every element of p is a different storage cell (writes are then well defined)."""
    if p.numel() == 0:
        return True
    offs = np.zeros((1,) * p.dim(), dtype=np.int64) + p.storage_offset()
    for d, (s, st_) in enumerate(zip(p.shape, p.stride())):
        shape = [1] * p.dim()
        shape[d] = s
        offs = offs + (np.arange(s, dtype=np.int64) * st_).reshape(shape)
    return np.unique(offs).size == p.numel()


# assert_same's default (rtol, atol) by dtype; exact for bool and integers
TOL = {"float64": (1e-9, 1e-10), "float32": (1e-4, 1e-5), "float16": (1e-2, 1e-2),
       "bfloat16": (2e-2, 2e-2)}


def assert_same(p, t, rtol=None, atol=None):
    """p (pyth) equals t (torch): dtype, shape, values; tuples/lists element by element."""
    if isinstance(t, (tuple, list)):
        assert isinstance(p, (tuple, list)) and len(p) == len(t), (p, t)
        for a, b in zip(p, t):
            assert_same(a, b, rtol, atol)
        return
    if not hasattr(t, "dtype"):
        assert p == t, (p, t)
        return
    assert dtype_name(p) == dtype_name(t), (p.dtype, t.dtype)
    assert tuple(p.shape) == tuple(t.shape), (p.shape, t.shape)
    a, b = to_numpy_float64(p), to_numpy_float64(t)
    r, at = TOL.get(dtype_name(t), (0, 0))
    np.testing.assert_allclose(a, b, rtol=rtol if rtol is not None else r,
                               atol=atol if atol is not None else at, equal_nan=True)


def expected_error(exc: BaseException) -> type:
    """The exception class pyth must raise where torch raised exc (NotImplementedError counts
    as its base RuntimeError)."""
    return RuntimeError if isinstance(exc, NotImplementedError) else type(exc)


def check_call(fp, ft, rtol=None, atol=None):
    """Calls ft(); when it raises, fp() must raise the matching class; else results agree."""
    try:
        want = ft()
    except Exception as e:  # noqa: BLE001
        with pytest.raises(expected_error(e)):
            fp()
        return None
    got = fp()
    assert_same(got, want, rtol, atol)
    return got


# ---- numpy reference for conversions ------------------------------------------------------------

def bf16_round(x: np.ndarray) -> np.ndarray:
    """float32 values rounded to bfloat16 (nearest, ties to even), kept as float32."""
    x = np.asarray(x, dtype=np.float32)
    u = x.view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000).astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), x, r).astype(np.float32)


def exact_in(v, name: str) -> bool:
    """Whether Python number v is exactly representable in dtype name."""
    if name == "bool":
        return v in (0, 1)
    if name in INTS:
        lo, hi = INT_RANGE[name]
        return float(v).is_integer() and lo <= v <= hi
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "float64":
            return float(v) == v
        f32 = np.float32(v)
        # compare as Python numbers: exact for ints of any size
        if not np.isfinite(f32) or float(f32) != v:
            return False
        if name == "float32":
            return True
        if name == "float16":
            h = np.float16(f32)
            return bool(np.isfinite(h)) and float(h) == v
        return float(bf16_round([f32])[0]) == v


# candidates; each (src, dst) pair keeps those whose conversion is exact or well defined
CAST_POOL = [0, 1, -1, 2.5, -2.75, 0.5, -0.5, 100, -100, 127, -128, 200, 255, 300, -300, 7.25,
             1024, -0.0, 40000, -32768, 65536, 2**31 - 1, -(2**31), 2**40, 2**40 + 3, 0.75]


def convertible_values(src: str, dst: str) -> list:
    """Python values of dtype src (from CAST_POOL) whose conversion to dst is well defined
    (and exact into floats)."""
    if src == "bool":
        return [False, True, True, False, True]
    out = []
    for v in CAST_POOL:
        if not exact_in(v, src):
            continue
        if dst in FLOATS and not exact_in(v, dst):
            continue
        if dst in INTS and src in FLOATS and not (INT_RANGE[dst][0] <= math.trunc(v)
                                                  <= INT_RANGE[dst][1]):
            continue
        out.append(int(v) if src in INTS else float(v))
    assert len(out) >= 3, (src, dst, out)
    return out


def torch_convertible(src: str, dst: str, n: int, seed: int):
    """A 1-D torch tensor of dtype src: n seeded values (its extremes, signed zeros, halves,
    inf and nan where dst is a float) whose conversion to dst is defined in C."""
    rng_ = np.random.default_rng(seed)
    tdt_ = tdt(src)
    if src == "bool":
        return torch.tensor(rng_.integers(0, 2, n).astype(bool))
    if src in INTS:
        lo, hi = INT_RANGE[src]
        v = rng_.integers(lo, hi, n, dtype=np.int64, endpoint=True)
        v[:4] = [lo, hi, 0, -1 if lo < 0 else 1]
        return torch.tensor(v, dtype=tdt_)
    v = rng_.standard_normal(n) * 10.0 ** rng_.integers(-3, 6, n)
    v[:6] = [0.0, -0.0, 0.5, -0.5, 1.5, 2.5]
    if dst in INTS:
        lo, hi = INT_RANGE[dst]
        v = np.clip(v, max(lo, -(2.0**62)), min(hi, 2.0**62))
    else:
        v[6:10] = [np.inf, -np.inf, np.nan, 65520.0]
    t = torch.tensor(v, dtype=torch.float64).to(tdt_)
    if dst in INTS:  # rounding into src may have left dst's range: replace those by 0
        t = torch.where((t.double() < lo) | (t.double() >= hi + 1), torch.zeros((), dtype=tdt_), t)
    return t


def np_cast(arr: np.ndarray, src: str, dst: str) -> np.ndarray:
    """What converting values of dtype src (carried by arr) to dst gives, as PyTorch does it.
    Callers keep float -> integer conversions in range (C leaves the rest undefined)."""
    with np.errstate(all="ignore"):
        return _np_cast(arr, src, dst)


def _np_cast(arr: np.ndarray, src: str, dst: str) -> np.ndarray:
    if dst == "bool":
        return np.asarray(arr != 0)
    if dst in INTS:
        if src in FLOATS:
            return np.trunc(arr.astype(np.float64)).astype(np.int64).astype(dst)
        return arr.astype(np.int64).astype(dst) if src != "uint8" else arr.astype(dst)
    if dst == "bfloat16":
        return bf16_round(arr.astype(np.float32))
    if dst == "float16":
        return arr.astype(np.float32).astype(np.float16) if src != "float64" else \
            arr.astype(np.float16)
    return arr.astype(dst)


# ==== memory counters and runners ===============================================================

def settle() -> None:
    """Collects garbage, so that the memory counters count only live objects."""
    gc.collect()


def memory_now() -> dict:
    """pyth.memory_stats() after a collection."""
    settle()
    return pyth.memory_stats()


def memory_counter(stats: dict, allocator: str | None = None, key: str = "live_bytes") -> int:
    """One counter of a memory_stats() dict: the total, or that of one allocator."""
    return stats[key] if allocator is None else stats["allocators"][allocator][key]


def run_all(items, f) -> None:
    """Runs f(*item) for every item; fails once, listing every item that failed."""
    errors = []
    for it in items:
        try:
            f(*it)
        except (Exception, pytest.fail.Exception) as e:  # noqa: BLE001
            msg = str(e).strip().splitlines()
            errors.append(f"{it}: {type(e).__name__}: {' | '.join(msg[:6])[:600]}")
    if errors:
        pytest.fail(f"{len(errors)} of {len(items)} variants failed:\n" + "\n".join(errors),
                    pytrace=False)


def run_child(code: str, timeout: float = 120, address_space: int | None = 8 << 30) -> None:
    """Runs code (dedented) in a child Python on this pyth (the sanitized one under
    scripts/sanitize.sh), its address space capped outside ASan (a runaway allocation then
    fails instead of exhausting the machine); asserts that it finished in time with status 0,
    so a crash, a sanitizer report, an OOM kill or a hang fails only the test."""
    import os
    import subprocess
    import sys
    import textwrap
    root = os.path.dirname(os.path.dirname(os.path.abspath(pyth.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (root, os.environ.get("PYTHONPATH")) if p))
    prelude = "" if address_space is None or "ASAN_OPTIONS" in os.environ else (
        "import resource\n"
        f"resource.setrlimit(resource.RLIMIT_AS, ({address_space}, {address_space}))\n")
    r = subprocess.run([sys.executable, "-P", "-c", prelude + textwrap.dedent(code)], env=env,
                       capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"status {r.returncode}:\n{r.stderr[-3000:]}"


def run_in_threads(bodies) -> None:
    """Runs each zero-argument callable in a thread of its own, joins them all, and fails with
    whatever they raised."""
    errors = []

    def guard(fn):
        try:
            fn()
        except BaseException as e:  # noqa: BLE001  (reported below)
            errors.append(e)
    threads = [threading.Thread(target=guard, args=(fn,)) for fn in bodies]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


# ==== hypothesis strategies and view steps =======================================================

# float values exact in every float type (bfloat16 has 8 significant bits)
_FLOAT_SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -0.25, 2.0**10, -(2.0**-6), math.inf, -math.inf,
                  math.nan, 3.0, 96.0, -112.0]


def values(name: str, n: int, small: bool = False) -> st.SearchStrategy:
    """n values of dtype `name` as a list (floats: exact in that type)."""
    if name == "bool":
        elem = st.booleans()
    elif name in INTS:
        lo, hi = INT_RANGE[name]
        if small:
            lo, hi = max(lo, -20), min(hi, 20)
        elem = st.one_of(st.integers(max(lo, -20), min(hi, 20)), st.sampled_from([lo, hi, 0]))
        if not small:
            elem = st.one_of(elem, st.integers(lo, hi))
    else:
        frac = st.integers(-64, 64).map(lambda k: k / 4.0)
        elem = frac if small else st.one_of(frac, frac, st.sampled_from(_FLOAT_SPECIAL))
    return st.lists(elem, min_size=n, max_size=n)


shapes = st.lists(st.sampled_from([0, 1, 1, 2, 3, 3, 4, 5]), min_size=0, max_size=4).map(tuple)


@st.composite
def tensors(draw, names=DTYPE_NAMES, shape=None, small=False) -> Triple:
    name = draw(st.sampled_from(names))
    shape = draw(shapes) if shape is None else shape
    n = int(np.prod(shape, dtype=np.int64))
    return make(name, shape, draw(values(name, n, small)))


# ---- view steps: (name, applicability, draw-and-apply) ------------------------------------------

def _index_on(t, d: int, item) -> Any:
    return t[(slice(None),) * d + (item,)]


def _dim(draw, nd: int, extra: int = 0) -> int:
    n = max(nd + extra, 1)
    return draw(st.integers(-n, n - 1))


def _wrap(d: int, nd: int) -> int:
    return d % max(nd, 1)


def _transpose(draw, x: Triple) -> Triple:
    nd = x.n.ndim
    d0, d1 = _dim(draw, nd), _dim(draw, nd)
    if nd == 0:
        return x.map(lambda p: p.transpose(d0, d1), lambda n: n, lambda t: t.transpose(d0, d1))
    return x.map(lambda p: p.transpose(d0, d1), lambda n: np.swapaxes(n, d0, d1),
                 lambda t: t.transpose(d0, d1))


def _permute(draw, x: Triple) -> Triple:
    perm = draw(st.permutations(range(x.n.ndim)))
    perm = [d - x.n.ndim if draw(st.booleans()) else d for d in perm]
    return x.map(lambda p: p.permute(*perm), lambda n: np.transpose(n, [p % n.ndim for p in perm])
                 if n.ndim else n, lambda t: t.permute(tuple(perm)))


def _narrow(draw, x: Triple) -> Triple:
    nd = x.n.ndim
    d = _dim(draw, nd)
    size = x.n.shape[_wrap(d, nd)]
    start = draw(st.integers(-size, size))
    s = start + size if start < 0 else start
    length = draw(st.integers(0, size - s))
    return x.map(lambda p: p.narrow(d, start, length),
                 lambda n: _index_on(n, _wrap(d, nd), slice(s, s + length)),
                 lambda t: t.narrow(d, start, length))


def _select(draw, x: Triple) -> Triple:
    nd = x.n.ndim
    d = _dim(draw, nd)
    size = x.n.shape[_wrap(d, nd)]
    i = draw(st.integers(-size, size - 1))
    return x.map(lambda p: p.select(d, i), lambda n: _index_on(n, _wrap(d, nd), i),
                 lambda t: t.select(d, i))


def _step_slice(draw, x: Triple) -> Triple:
    nd = x.n.ndim
    d = draw(st.integers(0, nd - 1))
    size = x.n.shape[d]
    sl = slice(draw(st.one_of(st.none(), st.integers(-size - 1, size + 1))),
               draw(st.one_of(st.none(), st.integers(-size - 1, size + 1))),
               draw(st.integers(1, 3)))
    return x.map(lambda p: _index_on(p, d, sl), lambda n: _index_on(n, d, sl),
                 lambda t: _index_on(t, d, sl))


def _unsqueeze(draw, x: Triple) -> Triple:
    nd = x.n.ndim
    d = draw(st.integers(-nd - 1, nd))
    return x.map(lambda p: p.unsqueeze(d), lambda n: np.expand_dims(n, d % (nd + 1)),
                 lambda t: t.unsqueeze(d))


def _squeeze(draw, x: Triple) -> Triple:
    nd = x.n.ndim
    if draw(st.booleans()):
        return x.map(lambda p: p.squeeze(), lambda n: np.squeeze(n), lambda t: t.squeeze())
    d = _dim(draw, nd)
    w = _wrap(d, nd)
    return x.map(lambda p: p.squeeze(d),
                 lambda n: np.squeeze(n, w) if nd and n.shape[w] == 1 else n,
                 lambda t: t.squeeze(d))


def _expand(draw, x: Triple) -> Triple:
    lead = draw(st.integers(0, 2))
    target = [draw(st.integers(0, 3)) for _ in range(lead)]
    for s in x.n.shape:
        target.append(draw(st.sampled_from([-1, s, 0, 2, 3])) if s == 1 else
                      draw(st.sampled_from([-1, s])))
    real = [s if s != -1 else x.n.shape[i - lead] for i, s in enumerate(target)]
    return x.map(lambda p: p.expand(*target), lambda n: np.broadcast_to(n, real),
                 lambda t: t.expand(tuple(target)))


def _diagonal(draw, x: Triple) -> Triple:
    nd = x.n.ndim
    d1, d2 = draw(st.permutations(range(nd)).map(lambda p: p[:2]))
    d1, d2 = (d1 - nd if draw(st.booleans()) else d1), (d2 - nd if draw(st.booleans()) else d2)
    off = draw(st.integers(-4, 4))
    return x.map(lambda p: p.diagonal(off, d1, d2),
                 lambda n: np.diagonal(n, off, d1 % nd, d2 % nd),
                 lambda t: t.diagonal(off, d1, d2))


def _unfold(draw, x: Triple) -> Triple:
    nd = x.n.ndim
    d = draw(st.integers(-nd, nd - 1))
    n_d = x.n.shape[d % nd]
    size = draw(st.integers(0, n_d))
    step = draw(st.integers(1, 3))

    def np_unfold(n):
        w = np.lib.stride_tricks.sliding_window_view(n, size, axis=d % nd)
        return _index_on(w, d % nd, slice(None, None, step))
    return x.map(lambda p: p.unfold(d, size, step), np_unfold, lambda t: t.unfold(d, size, step))


def _reshape(draw, x: Triple) -> Triple:
    numel = x.n.size
    dims = []
    rest = numel
    for _ in range(draw(st.integers(0, 3))):
        divisors = [k for k in range(1, 6) if rest % k == 0] if rest else [0, 1, 2]
        k = draw(st.sampled_from(divisors))
        dims.append(k)
        rest = rest // k if k else rest
    if numel == 0 and 0 not in dims:
        dims.append(0)
    else:
        dims.append(rest if numel else 3)
    if numel and draw(st.booleans()):
        dims[draw(st.integers(0, len(dims) - 1))] = -1
    real = [d if d != -1 else 0 for d in dims]
    if -1 in dims:
        known = int(np.prod([d for d in dims if d != -1]))
        real[dims.index(-1)] = numel // known
    return x.map(lambda p: p.reshape(*dims), lambda n: n.reshape(real),
                 lambda t: t.reshape(tuple(dims)))


def _flatten(draw, x: Triple) -> Triple:
    nd = x.n.ndim
    if nd == 0:
        return x.map(lambda p: p.flatten(), lambda n: n.reshape(1), lambda t: t.flatten())
    s = draw(st.integers(0, nd - 1))
    e = draw(st.integers(s, nd - 1))
    shape = x.n.shape[:s] + (int(np.prod(x.n.shape[s:e + 1])),) + x.n.shape[e + 1:]
    return x.map(lambda p: p.flatten(s, e), lambda n: n.reshape(shape), lambda t: t.flatten(s, e))


def _T(draw, x: Triple) -> Triple:
    if x.n.ndim == 2:
        return x.map(lambda p: p.t(), lambda n: n.T, lambda t: t.t())
    return x.map(lambda p: p.permute(*range(p.dim() - 1, -1, -1)), lambda n: n.T,
                 lambda t: t.permute(tuple(range(t.dim() - 1, -1, -1))))


def _has_dims(k: int) -> Callable[[np.ndarray], bool]:
    return lambda n: n.ndim >= k


def _nonempty_dims(n: np.ndarray) -> bool:
    return n.ndim >= 1 and all(s > 0 for s in n.shape)


VIEW_STEPS: dict[str, tuple] = {
    "transpose": (lambda n: True, _transpose),
    "permute": (lambda n: True, _permute),
    "narrow": (_has_dims(1), _narrow),
    "select": (_nonempty_dims, _select),
    "step_slice": (_has_dims(1), _step_slice),
    "unsqueeze": (lambda n: n.ndim < 6, _unsqueeze),
    "squeeze": (lambda n: True, _squeeze),
    "expand": (lambda n: n.ndim < 5, _expand),
    "diagonal": (_has_dims(2), _diagonal),
    "unfold": (_has_dims(1), _unfold),
    "reshape": (lambda n: n.ndim <= 4, _reshape),
    "flatten": (lambda n: True, _flatten),
    "T": (lambda n: True, _T),
}


@st.composite
def view_chain(draw, x: Triple, max_steps: int = 4) -> tuple[Triple, list]:
    """x after 0..max_steps random views (and the names of the steps taken)."""
    taken = []
    for _ in range(draw(st.integers(0, max_steps))):
        options = [k for k, (ok, _) in VIEW_STEPS.items() if ok(x.n)]
        step = draw(st.sampled_from(options))
        x = VIEW_STEPS[step][1](draw, x)
        taken.append(step)
        if x.n.size > 4096:  # keep tensors small: expand/unfold can multiply sizes
            break
    return x, taken


@st.composite
def laid_out(draw, names=DTYPE_NAMES, small=False, max_steps=4) -> tuple[Triple, list]:
    """A tensor in a random layout: a random base pushed through a random view chain."""
    return draw(view_chain(draw(tensors(names, small=small)), max_steps))


# ---- an operand of a given shape in a random layout ---------------------------------------------

OF_SHAPE_LAYOUTS = ["contiguous", "transposed", "stepped", "offset", "expanded"]


@st.composite
def of_shape(draw, name: str, shape: tuple, small: bool = False, writable: bool = False,
             vals: st.SearchStrategy | None = None) -> Triple:
    """A tensor of exactly `shape` whose memory layout is random: contiguous, a permutation of a
    differently shaped base, every other element of a larger base, an offset window, or (not
    when writable) an expansion of size-1 dims."""
    choices = OF_SHAPE_LAYOUTS[:4] + ([] if writable else ["expanded"])
    layout = draw(st.sampled_from(choices))
    nd = len(shape)
    vals = vals or (lambda n: values(name, n, small))
    if layout == "transposed" and nd >= 2:
        perm = draw(st.permutations(range(nd)))
        inv = list(np.argsort(perm))
        base_shape = tuple(shape[p] for p in perm)
        base = make(name, base_shape, draw(vals(int(np.prod(base_shape, dtype=np.int64)))))
        return base.map(lambda p: p.permute(*inv), lambda n: np.transpose(n, inv),
                        lambda t: t.permute(tuple(inv)))
    if layout == "stepped" and nd >= 1:
        d = draw(st.integers(0, nd - 1))
        step = draw(st.integers(2, 3))
        base_shape = shape[:d] + (shape[d] * step,) + shape[d + 1:]
        base = make(name, base_shape, draw(vals(int(np.prod(base_shape, dtype=np.int64)))))
        sl = (slice(None),) * d + (slice(None, None, step),)
        return base.map(lambda p: p[sl], lambda n: n[sl], lambda t: t[sl])
    if layout == "offset" and nd >= 1:
        d = draw(st.integers(0, nd - 1))
        extra = draw(st.integers(1, 3))
        start = draw(st.integers(0, extra))
        base_shape = shape[:d] + (shape[d] + extra,) + shape[d + 1:]
        base = make(name, base_shape, draw(vals(int(np.prod(base_shape, dtype=np.int64)))))
        return base.map(lambda p: p.narrow(d, start, shape[d]),
                        lambda n: n[(slice(None),) * d + (slice(start, start + shape[d]),)],
                        lambda t: t.narrow(d, start, shape[d]))
    if layout == "expanded" and any(s != 1 for s in shape):
        ones = tuple(1 if draw(st.booleans()) else s for s in shape)
        base = make(name, ones, draw(vals(int(np.prod(ones, dtype=np.int64)))))
        return base.map(lambda p: p.expand(*shape), lambda n: np.broadcast_to(n, shape),
                        lambda t: t.expand(tuple(shape)))
    return make(name, shape, draw(vals(int(np.prod(shape, dtype=np.int64)))))


@st.composite
def broadcastable_to(draw, shape: tuple) -> tuple:
    """A shape that broadcasts to `shape`: some leading dims dropped, some dims set to 1."""
    drop = draw(st.integers(0, len(shape)))
    return tuple(1 if draw(st.integers(0, 3)) == 0 else s for s in shape[drop:])


@st.composite
def broadcast_pair(draw) -> tuple[tuple, tuple]:
    """Two shapes that broadcast together (either may be 0-dim, have size-0 dims, ...)."""
    full = draw(shapes)
    a, b = draw(broadcastable_to(full)), draw(broadcastable_to(full))
    return (a, b) if draw(st.booleans()) else (b, a)


# ==== layer-test operands ========================================================================

def P(a, grad=True, dtype=None):
    """A pyth tensor (float64 unless dtype) of a, requiring grad unless grad=False."""
    return pyth.tensor(a, dtype=dtype or pyth.float64).requires_grad_(grad)


def T(a, grad=True, dtype=None):
    """The PyTorch tensor P(a) mirrors."""
    return torch.tensor(a, dtype=dtype or torch.float64, requires_grad=grad)


def twin_call(pf, tf, arrays, views=None, dtype: str = "float64") -> tuple:
    """pf and tf called on leaves of dtype holding `arrays` (each passed through its view, if
    any), all requiring grad; the results must have one dtype. Returns (pyth leaves, PyTorch
    leaves, pyth result, PyTorch result)."""
    views = views or [lambda x: x] * len(arrays)
    pl = [P(a, True, getattr(pyth, dtype)) for a in arrays]
    tl = [T(a, True, getattr(torch, dtype)) for a in arrays]
    y = pf(*[v(x) for v, x in zip(views, pl)])
    ty = tf(*[v(x) for v, x in zip(views, tl)])
    assert dtype_name(y) == dtype_name(ty), (y.dtype, ty.dtype)
    return pl, tl, y, ty


def seeded(*shape, key=0):
    """Seeded standard-normal values of shape (the same on every run and in any test order)."""
    return rng(shape, key).standard_normal(shape)


def twin_grads(pf, tf, arrays, views=None, dtype: str = "float64", tol: float = 1e-9):
    """twin_call, then: same shape and values; for a non-empty result, backward with one
    seeded upstream gradient and the same gradient at every leaf. Returns the pyth result."""
    pl, tl, y, ty = twin_call(pf, tf, arrays, views, dtype)
    assert tuple(y.shape) == tuple(ty.shape), (tuple(y.shape), tuple(ty.shape))
    close(y, ty, tol)
    if ty.numel():
        g = seeded(*ty.shape, key="upstream")
        y.backward(pyth.tensor(g, dtype=y.dtype))
        ty.backward(torch.tensor(g, dtype=ty.dtype))
        for i, (p, t) in enumerate(zip(pl, tl)):
            assert p.grad is not None, f"no gradient reached input {i}"
            assert tuple(p.grad.shape) == tuple(t.grad.shape)
            close(p.grad, t.grad, tol)
    return y


def maker(lib: str):
    """A function making a tensor of library lib ("pyth" or "torch") from a numpy array."""
    if lib == "pyth":
        return lambda a: pyth.tensor(a, dtype=getattr(pyth, a.dtype.name))
    return lambda a: torch.from_numpy(np.ascontiguousarray(a))


def raises_as_torch(call: Callable, exc: type) -> None:
    """call(F, maker) raises exc for pyth's nn.functional and, where PyTorch is installed, the
    same class for torch's (by expected_error): an error table's row checked against both."""
    if torch is not None:
        with pytest.raises(Exception) as te, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call(torch.nn.functional, maker("torch"))
        assert expected_error(te.value) is exc, (te.type, te.value)
    with pytest.raises(exc), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call(pyth.nn.functional, maker("pyth"))


def close(p, t, tol=1e-9):
    """p (pyth) equals t (PyTorch tensor or array) within tol, relative and absolute."""
    t = t.detach().numpy() if hasattr(t, "detach") else t
    np.testing.assert_allclose(p.detach().numpy(), t, rtol=tol, atol=tol)


def grad_pair(a, requires_grad: bool = True, dtype: str = "float64"):
    """(pyth tensor, torch tensor) of dtype holding a's values, both requiring grad unless
    requires_grad=False."""
    a = np.asarray(a, dtype=dtype)
    return (pyth.tensor(a, dtype=pdt(dtype)).requires_grad_(requires_grad),
            torch.tensor(a, dtype=tdt(dtype), requires_grad=requires_grad))


def module_matches_torch(pm, tm, x, g) -> None:
    """pyth module pm and torch module tm (same parameters) agree on input x (an array): the
    output, and after backward of upstream gradient g (an array of the output's shape) the
    input's and every parameter's gradient."""
    px, tx = P(x), T(x)
    y, ty = pm(px), tm(tx)
    close(y, ty, 1e-9)
    y.backward(pyth.tensor(g))
    ty.backward(torch.tensor(g))
    close(px.grad, tx.grad, 1e-8)
    for (_, p), (_, t) in zip(pm.named_parameters(), tm.named_parameters()):
        close(p.grad, t.grad, 1e-8)


def copy_params(pm, tm) -> None:
    """Copies the parameters of pyth module pm into torch module tm (same names and shapes)."""
    assert [k for k, _ in pm.named_parameters()] == [k for k, _ in tm.named_parameters()]
    with torch.no_grad():
        for (_, p), (_, t) in zip(pm.named_parameters(), tm.named_parameters()):
            assert tuple(p.shape) == tuple(t.shape)
            t.copy_(torch.from_numpy(p.detach().numpy()))


def load_from_torch(pm, tm) -> None:
    """Copies torch module tm's state into pyth module pm (keys and shapes must agree, strict)."""
    pm.load_state_dict({k: pyth.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    assert list(pm.state_dict()) == list(tm.state_dict())
