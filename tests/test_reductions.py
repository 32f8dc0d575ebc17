"""Reductions and scans against numpy and PyTorch: every dtype, layouts (contiguous,
transposed, stepped, expanded, size 0, 0-dim), dims as int / tuple / negative, keepdim, out=,
the threaded paths (forced with a tiny grain size), and the error cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _support import DTYPE_NAMES, FLOATS, INTS, to_numpy_exact, to_torch
from pyth._th import lib

import pyth

TOL = {"float32": (1e-5, 1e-5), "float64": (1e-12, 1e-12), "float16": (2e-3, 1e-3),
       "bfloat16": (1.6e-2, 1e-2)}

rng = np.random.default_rng(1234)


def values(dtype: str, shape: tuple, lo: int = -4, hi: int = 5) -> np.ndarray:
    """Random data for dtype (as float64 for the reduced floats, which numpy may lack)."""
    if dtype == "bool":
        return rng.random(shape) < 0.6
    if dtype in INTS:
        lo = 0 if dtype == "uint8" else lo
        return rng.integers(lo, hi, shape).astype(dtype)
    v = rng.standard_normal(shape) * 3
    if dtype in ("float16", "bfloat16"):
        v = np.round(v * 4) / 4          # exactly representable
    return v.astype("float64" if dtype == "bfloat16" else dtype)


def to_pyth(a: np.ndarray, dtype: str) -> pyth.Tensor:
    return pyth.tensor(a).to(getattr(pyth, dtype))


def layouts(dtype: str, shape: tuple = (5, 6)) -> list:
    """(name, pyth tensor) in several layouts, all with logical shape `shape` (2-D)."""
    a = values(dtype, shape)
    big = values(dtype, (shape[0] * 2, shape[1] * 3))
    row = values(dtype, (1, shape[1]))
    return [
        ("contiguous", to_pyth(a, dtype)),
        ("transposed", to_pyth(np.ascontiguousarray(a.T), dtype).t()),
        ("stepped", to_pyth(big, dtype)[::2, 1::3]),
        ("expanded", to_pyth(row, dtype).expand(shape[0], shape[1])),
        ("3d-permuted", to_pyth(values(dtype, (3, 4, 2)), dtype).permute(2, 0, 1)),
    ]


def assert_matches(got: pyth.Tensor, want, dtype_name: str | None = None) -> None:
    """got equals the torch tensor want: dtype, shape and values (to the dtype's tolerance)."""
    torch = pytest.importorskip("torch")
    assert got.dtype.name == str(want.dtype).replace("torch.", ""), (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape)
    g = to_numpy_exact(got).astype("float64") if got.dtype.is_floating_point else to_numpy_exact(got)
    w = want.to(torch.float64).numpy() if want.is_floating_point() else want.numpy()
    if got.dtype.is_floating_point:
        rtol, atol = TOL[got.dtype.name]
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol * max(1.0, np.nanmax(
            np.abs(w), initial=0.0)), equal_nan=True)
    else:
        np.testing.assert_array_equal(g, w)


DIMS = [None, 0, 1, -1, (0, 1), (-1, 0), ()]


# ---- sum / prod / amax / amin / all / any against torch, every dtype and layout ---------------

@pytest.mark.parametrize("op", ["sum", "prod", "amax", "amin", "all", "any"])
@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_simple_reductions_match_torch(op, dtype):
    torch = pytest.importorskip("torch")
    for name, x in layouts(dtype):
        tx = to_torch(x)
        for dim in DIMS + [2, -3, (0, 2)] if x.dim() == 3 else DIMS:
            for keepdim in (False, True):
                if dim is None:
                    if op in ("amax", "amin"):
                        got, want = getattr(pyth, op)(x), getattr(torch, op)(tx)
                    else:
                        got = getattr(pyth, op)(x)
                        want = getattr(torch, op)(tx)
                        if keepdim:
                            continue
                else:
                    if op == "prod" and not isinstance(dim, int):
                        want = tx
                        for d in sorted({d % x.dim() for d in dim}, reverse=True):
                            want = torch.prod(want, d, keepdim=True)
                        if not keepdim:
                            want = want.reshape([s for i, s in enumerate(tx.shape)
                                                 if i not in {d % x.dim() for d in dim}])
                        if dim == ():
                            want = torch.prod(tx).reshape([1] * x.dim() if keepdim else [])
                    else:
                        want = getattr(torch, op)(tx, dim, keepdim=keepdim)
                    got = getattr(pyth, op)(x, dim, keepdim)
                try:
                    assert_matches(got, want)
                except AssertionError as e:
                    raise AssertionError(f"{op} {dtype} {name} dim={dim} keepdim={keepdim}: {e}")
                # the method form is the same function
                if dim is not None:
                    assert_matches(getattr(x, op)(dim, keepdim), want)


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_sum_against_numpy(dtype):
    for name, x in layouts(dtype):
        a = to_numpy_exact(x)
        for dim in (None, 0, 1, (0, 1), -1):
            got = to_numpy_exact(pyth.sum(x, dim))
            want = a.astype("float64" if x.dtype.is_floating_point else "int64").sum(
                axis=dim if not isinstance(dim, list) else tuple(dim))
            if x.dtype.is_floating_point:
                rtol, atol = TOL[dtype]
                np.testing.assert_allclose(got.astype("float64"), want, rtol=rtol,
                                           atol=atol * 30, err_msg=f"{name} {dim}")
            else:
                np.testing.assert_array_equal(got, want, err_msg=f"{name} {dim}")


def test_integer_sums_accumulate_in_int64():
    x = pyth.full((1000,), 200, dtype=pyth.uint8)
    assert pyth.sum(x).dtype is pyth.int64 and pyth.sum(x).item() == 200000
    b = pyth.ones(7, 3, dtype=pyth.bool)
    assert pyth.sum(b).item() == 21 and pyth.sum(b).dtype is pyth.int64
    assert pyth.prod(pyth.tensor([2] * 40, dtype=pyth.int8)).item() == 2**40
    big = pyth.tensor([2**62, 2**62, 2**62], dtype=pyth.int64)
    assert pyth.sum(big).item() == (3 * 2**62 + 2**63) % 2**64 - 2**63   # wraps like torch


def test_float32_sum_accumulates_in_double():
    x = pyth.ones(2**20 + 1, dtype=pyth.float32)
    x[0] = 2.0**24                      # a float accumulator would stay at 2**24 (ties to even)
    assert pyth.sum(x).item() == 2.0**24 + 2**20
    assert pyth.sum(x[:17]).item() == 2.0**24 + 16
    np.testing.assert_allclose(pyth.mean(pyth.full((10**6,), 0.1)).item(), 0.1, rtol=1e-7)


# ---- mean / var / std / norm / logsumexp: floating types ------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
def test_mean_var_std_match_torch(dtype):
    torch = pytest.importorskip("torch")
    for name, x in layouts(dtype):
        tx = to_torch(x)
        for dim in (None, 0, -1, (0, 1), (1,)):
            for keepdim in (False, True):
                if dim is None and keepdim:
                    continue
                args = () if dim is None else (dim,)
                kw = {} if dim is None else {"keepdim": keepdim}
                assert_matches(pyth.mean(x, *args, **kw), torch.mean(tx, *args, **kw))
                for c in (0, 1, 2, 0.5):
                    assert_matches(pyth.var(x, *args, correction=c, **kw),
                                   torch.var(tx, *args, correction=c, **kw))
                assert_matches(pyth.std(x, *args, **kw), torch.std(tx, *args, **kw))
                assert_matches(x.std(*args, unbiased=False, **kw),
                               torch.std(tx, *args, unbiased=False, **kw))


def test_var_against_numpy_and_legacy_forms():
    a = rng.standard_normal((40, 30)) + 1e6          # a large mean: a one-pass formula fails
    x = pyth.tensor(a)
    np.testing.assert_allclose(pyth.var(x).item(), a.var(ddof=1), rtol=1e-9)
    np.testing.assert_allclose(to_numpy_exact(pyth.var(x, 0, False)), a.var(0), rtol=1e-9)
    np.testing.assert_allclose(to_numpy_exact(pyth.std(x, 1, True, True)), a.std(1, ddof=1,
                               keepdims=True), rtol=1e-9)
    np.testing.assert_allclose(x.var(False).item(), a.var(), rtol=1e-9)     # var(unbiased)
    with pytest.raises(TypeError):
        pyth.var(x, 0, unbiased=True, correction=1)


@pytest.mark.parametrize("dtype", FLOATS)
def test_norm_matches_torch(dtype):
    torch = pytest.importorskip("torch")
    for name, x in layouts(dtype):
        tx = to_torch(x)
        for p in (2, 1, math.inf, -math.inf, 0, 3, 0.5, -1, "fro"):
            for dim in (None, 0, -1, (0, 1)):
                got = pyth.norm(x, p, dim)
                want = torch.norm(tx, p, dim)
                try:
                    assert_matches(got, want)
                except AssertionError as e:
                    raise AssertionError(f"norm {dtype} {name} p={p} dim={dim}: {e}")
    a = rng.standard_normal(50)
    np.testing.assert_allclose(pyth.tensor(a).norm().item(), np.linalg.norm(a), rtol=1e-12)
    np.testing.assert_allclose(pyth.tensor(a).norm(1).item(), np.linalg.norm(a, 1), rtol=1e-12)


def test_norm_dtype_and_dist():
    torch = pytest.importorskip("torch")
    x = pyth.tensor([[3.0, -4.0], [1.0, 2.0]])
    assert pyth.norm(x, dtype=pyth.float64).dtype is pyth.float64
    a, b = rng.standard_normal((4, 3)), rng.standard_normal(3)
    for p in (2, 1, 0, math.inf, 3):
        assert_matches(pyth.dist(pyth.tensor(a), pyth.tensor(b), p),
                       torch.dist(torch.tensor(a), torch.tensor(b), p))
    assert_matches(pyth.tensor(a).dist(pyth.tensor(b)),
                   torch.tensor(a).dist(torch.tensor(b)))
    with pytest.raises(RuntimeError, match="floating"):
        pyth.dist(pyth.tensor([1, 2]), pyth.tensor([3, 4]))


@pytest.mark.parametrize("dtype", FLOATS + ["int32", "bool"])
def test_logsumexp_matches_torch(dtype):
    torch = pytest.importorskip("torch")
    for name, x in layouts(dtype):
        tx = to_torch(x)
        for dim in (0, -1, (0, 1)):
            for keepdim in (False, True):
                assert_matches(pyth.logsumexp(x, dim, keepdim),
                               torch.logsumexp(tx, dim, keepdim=keepdim))
    big = pyth.tensor([1000.0, 1000.0, -math.inf])
    assert pyth.logsumexp(big, 0).item() == pytest.approx(1000 + math.log(2))
    special = pyth.tensor([[math.inf, 1.0], [-math.inf, -math.inf], [math.nan, 1.0]])
    want = torch.logsumexp(torch.tensor([[math.inf, 1.0], [-math.inf, -math.inf],
                                         [math.nan, 1.0]]), 1)
    assert_matches(pyth.logsumexp(special, 1), want)


# ---- max / min / argmax / argmin ------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_max_min_match_torch(dtype):
    torch = pytest.importorskip("torch")
    for name, x in layouts(dtype):
        tx = to_torch(x)
        assert_matches(pyth.max(x), torch.max(tx))
        assert_matches(x.min(), tx.min())
        for dim in range(-x.dim(), x.dim()):
            for keepdim in (False, True):
                for op in ("max", "min"):
                    got = getattr(pyth, op)(x, dim, keepdim)
                    want = getattr(torch, op)(tx, dim, keepdim)
                    assert_matches(got.values, want.values)
                    assert_matches(got.indices, want.indices)
                    v, i = got                          # unpacks like a named tuple
                    assert v is got.values and i is got.indices
                    assert type(got).__name__ == op
                    if dtype != "bool":
                        aop = "arg" + op
                        assert_matches(getattr(pyth, aop)(x, dim, keepdim),
                                       getattr(torch, aop)(tx, dim, keepdim))
        if dtype != "bool":
            assert_matches(pyth.argmax(x), torch.argmax(tx))
            assert_matches(x.argmin(keepdim=True), tx.argmin(keepdim=True))


def test_argmax_first_occurrence_and_nan():
    torch = pytest.importorskip("torch")
    a = np.array([[1, 3, 3, 2], [5, 5, 0, 5], [2, 2, 2, 2]], dtype="float32")
    for x in (pyth.tensor(a), pyth.tensor(np.ascontiguousarray(a.T)).t()):
        assert x.argmax().item() == 4
        assert x.argmin().item() == 6
        assert x.max(1).indices.tolist() == [1, 0, 0]
        assert x.max(0).indices.tolist() == [1, 1, 0, 1]
        assert x.t().argmax().item() == int(np.argmax(a.T))
    n = np.array([[1.0, np.nan, 3.0, np.nan], [np.nan, 5.0, 0.0, 1.0]], dtype="float32")
    for x in (pyth.tensor(n), pyth.tensor(np.ascontiguousarray(n.T)).t()):
        tx = torch.tensor(n)
        assert math.isnan(pyth.max(x).item()) and math.isnan(x.amin().item())
        assert x.argmax().item() == 1 and x.argmin().item() == 1
        assert_matches(x.max(0).indices, tx.max(0).indices)
        assert_matches(x.min(1).indices, tx.min(1).indices)
        assert_matches(x.amax(1), tx.amax(1))


def test_max_with_other_is_maximum():
    x, y = pyth.tensor([1, 5, 3]), pyth.tensor([4, 2, 3])
    assert pyth.max(x, y).tolist() == [4, 5, 3]
    assert x.min(y).tolist() == [1, 2, 3]


def test_argmax_long_rows_first_occurrence():
    """Blocks of the vectorised horizontal path: the winner in a later block, ties across."""
    a = np.zeros(5000, dtype="float32")
    a[[1000, 1700, 4999]] = 7
    x = pyth.tensor(a)
    assert x.argmax().item() == 1000
    a[[10, 4000]] = -2
    assert pyth.tensor(a).argmin().item() == 10
    h = pyth.tensor(a).half()
    assert h.argmax().item() == 1000 and h.max(0).indices.item() == 1000


# ---- cumsum / cumprod -----------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_scans_match_torch(op, dtype):
    torch = pytest.importorskip("torch")
    for name, x in layouts(dtype):
        if op == "cumprod" and dtype in ("float16", "bfloat16"):
            x = x / 4 if dtype != "bool" else x   # keep products representable
        tx = to_torch(x)
        for dim in range(-x.dim(), x.dim()):
            assert_matches(getattr(pyth, op)(x, dim), getattr(torch, op)(tx, dim))
            assert_matches(getattr(x, op)(dim), getattr(tx, op)(dim))
    x = pyth.tensor([[1, 2], [3, 4]], dtype=pyth.int32)
    assert pyth.cumsum(x, 0, dtype=pyth.float64).dtype is pyth.float64
    assert pyth.cumprod(x, 1).tolist() == [[1, 2], [3, 12]]


def test_cumsum_against_numpy_and_inplace():
    a = rng.standard_normal((7, 9))
    x = pyth.tensor(a)
    np.testing.assert_allclose(to_numpy_exact(pyth.cumsum(x, 1)), np.cumsum(a, 1), rtol=1e-12)
    np.testing.assert_allclose(to_numpy_exact(pyth.cumprod(x.t(), 0)), np.cumprod(a.T, 0), rtol=1e-12)
    y = x.clone()
    assert y.cumsum_(0) is y
    np.testing.assert_allclose(to_numpy_exact(y), np.cumsum(a, 0), rtol=1e-12)
    i = pyth.tensor([1, 2, 3], dtype=pyth.int16)
    assert i.cumsum_(0) is i and i.tolist() == [1, 3, 6] and i.dtype is pyth.int16
    c = pyth.tensor(a).t()                              # in place through a transposed view
    c.cumprod_(1)
    np.testing.assert_allclose(to_numpy_exact(c), np.cumprod(a.T, 1), rtol=1e-12)


# ---- empty and 0-dim ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "float16"])
def test_empty_reductions(dtype):
    torch = pytest.importorskip("torch")
    for shape in ((0, 3), (3, 0), (0,)):
        x = pyth.zeros(*shape, dtype=getattr(pyth, dtype))
        tx = to_torch(x)
        for op in ("sum", "prod", "all", "any"):
            assert_matches(getattr(pyth, op)(x), getattr(torch, op)(tx))
            for d in range(len(shape)):
                assert_matches(getattr(pyth, op)(x, d, True), getattr(torch, op)(tx, d, True))
        for d in range(len(shape)):
            assert_matches(pyth.cumsum(x, d), torch.cumsum(tx, d))
            if shape[d] != 0:          # reducing a non-empty dim of an empty tensor works
                assert_matches(pyth.amax(x, d), torch.amax(tx, d))
                assert_matches(pyth.max(x, d).indices, torch.max(tx, d).indices)
        if x.dtype.is_floating_point:
            assert_matches(pyth.mean(x), torch.mean(tx))           # nan
            assert_matches(pyth.mean(x, 0), torch.mean(tx, 0))
            assert_matches(pyth.var(x, 0), torch.var(tx, 0))
            assert_matches(pyth.norm(x), torch.norm(tx))
            assert_matches(pyth.logsumexp(x, 0), torch.logsumexp(tx, 0))


def test_zero_dim_reductions():
    torch = pytest.importorskip("torch")
    for dtype in ("float32", "int32", "bool"):
        x = pyth.tensor(3, dtype=getattr(pyth, dtype))
        tx = torch.tensor(3, dtype=getattr(torch, dtype))
        for dim in (0, -1, None, (0,)):
            args = () if dim is None else (dim,)
            assert_matches(pyth.sum(x, *args), torch.sum(tx, *args))
            assert_matches(pyth.amax(x, *args), torch.amax(tx, *args))
            assert_matches(pyth.all(x, *args), torch.all(tx, *args))
        assert_matches(pyth.max(x, 0).values, torch.max(tx, 0).values)
        assert_matches(pyth.max(x, 0, True).indices, torch.max(tx, 0, True).indices)
        assert_matches(pyth.cumsum(x, 0), torch.cumsum(tx, 0))
    f = pyth.tensor(2.0)
    assert math.isnan(f.var().item()) and f.var(unbiased=False).item() == 0
    assert f.logsumexp(0).item() == 2.0
    with pytest.raises(IndexError, match="out of range"):
        f.sum(1)


def test_empty_max_errors():
    e = pyth.zeros(0, 3)
    with pytest.raises(RuntimeError, match=r"max\(\): Expected reduction dim to be specified"):
        pyth.max(pyth.zeros(0))
    with pytest.raises(IndexError, match=r"max\(\): Expected reduction dim 0 to have non-zero"):
        e.max(0)
    with pytest.raises(IndexError, match=r"amin\(\): Expected reduction dim 0"):
        e.amin((0, 1))
    with pytest.raises(RuntimeError, match=r"amax\(\): Expected reduction dim to be specified"):
        e.amax()
    with pytest.raises(IndexError, match=r"argmax\(\): Expected reduction dim to be specified"):
        e.argmax()
    with pytest.raises(IndexError, match=r"argmin\(\): Expected reduction dim -?\d* ?.*non-zero"):
        e.argmin(0)
    with pytest.raises(RuntimeError, match="inf norm"):
        pyth.zeros(0).norm(math.inf)
    assert e.max(1).values.shape == (0,) and e.argmax(1).shape == (0,)


# ---- dims, keepdim and errors ------------------------------------------------------------------------

def test_dim_errors():
    x = pyth.ones(2, 3)
    for bad in (2, -3, (0, 2), (5,)):
        with pytest.raises(IndexError, match="out of range"):
            x.sum(bad)
    with pytest.raises(IndexError, match="dim 2"):
        x.max(2)
    with pytest.raises(IndexError):
        x.argmax(-3)
    with pytest.raises(IndexError):
        x.cumsum(2)
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times"):
        x.sum((0, -2))
    with pytest.raises(RuntimeError, match="appears multiple times"):
        x.amax((1, 1))
    with pytest.raises(TypeError, match="dim"):
        x.sum(1.0)
    with pytest.raises(TypeError, match="dim"):
        x.max((0, 1))
    with pytest.raises(TypeError):
        pyth.sum([1, 2, 3])


def test_dtype_errors():
    i = pyth.tensor([[1, 2], [3, 4]], dtype=pyth.int32)
    with pytest.raises(RuntimeError, match=r"mean\(\).*floating.*Int"):
        i.mean()
    with pytest.raises(RuntimeError, match="floating"):
        i.var()
    with pytest.raises(RuntimeError, match="floating"):
        i.std(0)
    with pytest.raises(RuntimeError, match="floating"):
        i.norm()
    with pytest.raises(RuntimeError, match="mean"):
        pyth.ones(3).mean(dtype=pyth.int32)
    with pytest.raises(RuntimeError, match="bool"):
        pyth.ones(3, dtype=pyth.bool).argmax()
    with pytest.raises(NotImplementedError, match="Int"):
        i.histc()
    assert i.mean(dtype=pyth.float64).item() == 2.5
    assert i.sum(dtype=pyth.float16).dtype is pyth.float16
    assert pyth.ones(2, 3).sum(dtype=pyth.int32).dtype is pyth.int32
    assert i.prod(dtype=pyth.int8).dtype is pyth.int8
    assert i.logsumexp(0).dtype is pyth.float32


def test_uint8_all_any_return_uint8():
    u = pyth.tensor([[1, 0], [2, 3]], dtype=pyth.uint8)
    assert u.all().dtype is pyth.uint8 and u.all().item() == 0
    assert u.any(0).tolist() == [1, 1] and u.any(0).dtype is pyth.uint8
    assert pyth.tensor([1, 2], dtype=pyth.int8).all().dtype is pyth.bool
    assert pyth.tensor([0.0, math.nan]).any().item() is True


# ---- out= ---------------------------------------------------------------------------------------------

def test_out():
    x = pyth.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    out = pyth.empty(7)
    r = pyth.sum(x, 1, out=out)
    assert r is out and out.tolist() == [6.0, 15.0]
    o64 = pyth.empty(0, dtype=pyth.float64)
    assert pyth.mean(x, 0, out=o64) is o64 and o64.tolist() == [2.5, 3.5, 4.5]
    oi = pyth.empty(0, dtype=pyth.int64)
    assert pyth.sum(pyth.tensor([1, 2, 3]), out=oi).item() == 6
    of = pyth.empty(0, dtype=pyth.float32)
    assert pyth.sum(pyth.tensor([1, 2, 3]), out=of).item() == 6.0   # computed in out's dtype
    values, indices = pyth.empty(0), pyth.empty(0, dtype=pyth.int64)
    res = pyth.max(x, 1, out=(values, indices))
    assert res.values is values and indices.tolist() == [2, 2]
    strided = pyth.zeros(2, 4)[:, ::2]                 # results written through strides
    pyth.amin(x, 1, keepdim=False, out=pyth.zeros(2))
    pyth.std(x.t(), 0, out=strided[:, 0])
    assert strided[:, 0].tolist() == pytest.approx([1.0, 1.0])
    c = pyth.empty(0, dtype=pyth.float64)
    assert pyth.cumsum(pyth.tensor([1, 2]), 0, out=c).tolist() == [1.0, 3.0]
    b = pyth.empty(0, dtype=pyth.bool)
    assert pyth.all(x, 0, out=b) is b
    for op, o in (("argmax", pyth.empty(0, dtype=pyth.int32)), ("amax", pyth.empty(0, dtype=pyth.int64)),
                  ("all", pyth.empty(0)), ("norm", pyth.empty(0, dtype=pyth.float64))):
        with pytest.raises(RuntimeError, match="dtype"):
            getattr(pyth, op)(x, out=o)
    with pytest.raises(RuntimeError, match="dtype"):
        pyth.max(x, 0, out=(pyth.empty(0), pyth.empty(0, dtype=pyth.int32)))
    with pytest.raises(RuntimeError):                  # an expanded out cannot be written
        pyth.sum(x, 0, out=pyth.zeros(1).expand(3))


def test_out_may_be_the_input():
    x = pyth.tensor([[1.0, 2.0], [3.0, 4.0]])
    r = pyth.sum(x, 0, out=x)
    assert r is x and x.tolist() == [4.0, 6.0]


# ---- threads: a tiny grain size sends small tensors through the parallel paths --------------

@pytest.fixture
def tiny_grain():
    old = lib.THGetGrainSize()
    lib.THSetGrainSize(1)
    yield
    lib.THSetGrainSize(old)


@pytest.mark.parametrize("dtype", ["float32", "int16", "float16", "bool"])
def test_threaded_paths_match_serial(tiny_grain, dtype):
    torch = pytest.importorskip("torch")
    shapes = [(7, 300), (300, 7), (3, 5, 64), (2, 1000), (1000, 3), (1, 5000)]
    for shape in shapes:
        a = values(dtype, shape)
        for x in (to_pyth(a, dtype), to_pyth(np.ascontiguousarray(a.T), dtype).t()
                  if len(shape) == 2 else to_pyth(a, dtype).transpose(0, 2).contiguous()
                  .transpose(0, 2)):
            tx = to_torch(x)
            for dim in [None] + list(range(len(shape))) + [(0, len(shape) - 1)]:
                args = () if dim is None else (dim,)
                assert_matches(pyth.sum(x, *args), torch.sum(tx, *args))
                assert_matches(pyth.amax(x, *args), torch.amax(tx, *args))
                assert_matches(pyth.any(x, *args), torch.any(tx, *args))
                if isinstance(dim, int):
                    assert_matches(pyth.max(x, dim).indices, torch.max(tx, dim).indices)
                    assert_matches(pyth.cumsum(x, dim), torch.cumsum(tx, dim))
                if dtype != "bool":
                    assert_matches(pyth.argmin(x, dim if isinstance(dim, int) else None),
                                   torch.argmin(tx, dim if isinstance(dim, int) else None))
                if x.dtype.is_floating_point:
                    assert_matches(pyth.var(x, *args), torch.var(tx, *args))
                    assert_matches(pyth.logsumexp(x, dim if dim is not None else ()),
                                   torch.logsumexp(tx, dim if dim is not None else
                                                   tuple(range(len(shape)))))


def test_transposed_kept_dims_take_the_tiled_walk():
    """Kept dims in the opposite order to the input's memory: the walk tiles them."""
    torch = pytest.importorskip("torch")
    y = values("float32", (3, 80, 70))
    x = to_pyth(y, "float32").permute(0, 2, 1)
    tx = torch.from_numpy(y).permute(0, 2, 1)
    for op in ("sum", "amax", "prod"):
        assert_matches(getattr(pyth, op)(x, 0), getattr(torch, op)(tx, 0))
    assert_matches(pyth.max(x, 0).indices, torch.max(tx, 0).indices)
    assert_matches(pyth.cumsum(x, 0), torch.cumsum(tx, 0))
    assert_matches(pyth.var(x, 0), torch.var(tx, 0))


def test_threaded_ties_keep_first_index(tiny_grain):
    a = np.full((4, 4097), 3, dtype="int32")
    x = pyth.tensor(a)
    assert x.argmax().item() == 0 and x.argmin(1).tolist() == [0] * 4
    assert x.t().argmax().item() == 0 and x.max(0).indices.tolist() == [0] * 4097
    a[2, 4000] = a[3, 5] = 9
    assert pyth.tensor(a).argmax().item() == 2 * 4097 + 4000


def test_large_whole_and_axis_sums():
    """Above the real grain size: private partial sums (whole), kept-dim splits (axes)."""
    a = rng.standard_normal((513, 700)).astype("float32")
    x = pyth.tensor(a)
    want = a.astype("float64")
    np.testing.assert_allclose(pyth.sum(x).item(), want.sum(), rtol=1e-6)
    np.testing.assert_allclose(to_numpy_exact(pyth.sum(x, 0)), want.sum(0), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(to_numpy_exact(pyth.sum(x, 1)), want.sum(1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(to_numpy_exact(x.t().sum(0)), want.sum(1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(x.var().item(), want.var(ddof=1), rtol=1e-6)
    assert x.argmax().item() == int(np.argmax(a)) and x.argmin(0).tolist() == list(a.argmin(0))


# ---- equal / allclose / histc -----------------------------------------------------------------------

def test_equal():
    torch = pytest.importorskip("torch")
    a = pyth.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert pyth.equal(a, a.clone()) and a.equal(a.t().t())
    assert not pyth.equal(a, a.t())
    assert not pyth.equal(a, pyth.ones(4))
    assert pyth.equal(pyth.ones(2), pyth.ones(2, dtype=pyth.int32)) == torch.equal(
        torch.ones(2), torch.ones(2, dtype=torch.int32))
    nan = pyth.tensor([math.nan])
    assert pyth.equal(nan, nan) is torch.equal(torch.tensor([math.nan]), torch.tensor([math.nan]))
    assert np.array_equal(to_numpy_exact(a), to_numpy_exact(a.clone())) == pyth.equal(a, a.clone())


def test_allclose():
    torch = pytest.importorskip("torch")
    cases = [([1.0, 2.0], [1.0, 2.0 + 1e-6]), ([1.0, 2.0], [1.0, 2.1]),
             ([math.inf], [math.inf]), ([math.inf], [1.0]), ([-math.inf], [math.inf]),
             ([math.nan], [math.nan]), ([0.0], [1e-9])]
    for a, b in cases:
        for equal_nan in (False, True):
            got = pyth.allclose(pyth.tensor(a), pyth.tensor(b), equal_nan=equal_nan)
            want = torch.allclose(torch.tensor(a), torch.tensor(b), equal_nan=equal_nan)
            assert got is want, (a, b, equal_nan)
            assert want == np.allclose(a, b, equal_nan=equal_nan)
    assert pyth.allclose(pyth.ones(2, 1), pyth.ones(2))            # broadcasts
    assert pyth.tensor([1, 2]).allclose(pyth.tensor([1, 2]))
    assert not pyth.allclose(pyth.tensor([1.0]), pyth.tensor([1.1]), rtol=0.01)
    assert pyth.allclose(pyth.tensor([1.0]), pyth.tensor([1.1]), atol=0.2)
    with pytest.raises(RuntimeError, match="Float did not match Double"):
        pyth.allclose(pyth.ones(2), pyth.ones(2, dtype=pyth.float64))
    with pytest.raises(RuntimeError):
        pyth.allclose(pyth.ones(2), pyth.ones(3))


@pytest.mark.parametrize("dtype", FLOATS)
def test_histc_matches_torch(dtype):
    torch = pytest.importorskip("torch")
    for name, x in layouts(dtype):
        tx = to_torch(x)
        for bins, lo, hi in ((10, -4, 4), (7, 0, 0), (3, -1.5, 2.5), (1, 0, 0)):
            assert_matches(pyth.histc(x, bins, lo, hi), torch.histc(tx, bins, lo, hi))
    t = pyth.tensor([1.0, 2.0, 1.0])
    assert t.histc(4, 0, 3).tolist() == [0.0, 2.0, 1.0, 0.0]
    assert pyth.tensor([5.0, 5.0]).histc(4).tolist() == [0.0, 0.0, 2.0, 0.0]
    assert pyth.tensor([math.nan, 1.0]).histc(4, 0, 3).tolist() == [0.0, 1.0, 0.0, 0.0]
    a = rng.standard_normal(1000)
    np.testing.assert_array_equal(to_numpy_exact(pyth.tensor(a).histc(20, -2, 2)),
                                  np.histogram(a, 20, (-2, 2))[0])
    with pytest.raises(RuntimeError, match="bins must be > 0"):
        t.histc(0)
    with pytest.raises(RuntimeError, match="max must be larger than min"):
        t.histc(4, 3, 0)
    with pytest.raises(RuntimeError, match="not finite"):
        pyth.tensor([math.inf]).histc()
