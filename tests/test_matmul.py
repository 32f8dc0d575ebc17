"""Oracle tests for the matrix products (pyth/_prims/matmul.py over generic/THTensorBlas.c).

numpy is the oracle for values: float results are compared with numpy's float64 product of
the same inputs; integer results with numpy's int64 product cast back to the dtype, which
wraps modulo 2^bits exactly as PyTorch's integer matmul does. float16 / bfloat16 (computed
through float32 sgemm) are compared with a tolerance of a few units in the last place.
PyTorch, when installed, is a second oracle for the same calls (shapes, dtypes, messages).
Operands come in every layout the driver distinguishes: contiguous, transposed, stepped,
expanded (stride 0), size-0 dims, batches that broadcast.
"""

from __future__ import annotations

import contextlib
import math
import time

import numpy as np
import pytest
from _support import INTS, pdt, to_numpy_float64
from pyth._th import ffi, lib

import pyth
from pyth._errors import check

FLOATS = ["float32", "float64"]
REDUCED = ["float16", "bfloat16"]
NUMERIC = INTS + FLOATS + REDUCED
LAYOUTS = ["contiguous", "transposed", "stepped", "expanded"]


def values(rng, shape, name):
    """Small integers for every dtype (exact in bfloat16 too), random normals for floats."""
    if name in FLOATS:
        return rng.standard_normal(shape)
    lo = 0 if name == "uint8" else -4
    return rng.integers(lo, 5, shape).astype(np.float64)


def make(a, name, layout="contiguous"):
    """A pyth tensor holding the values of ndarray a in the given layout."""
    dt = pdt(name)
    if layout == "contiguous" or a.ndim == 0:
        return pyth.tensor(a.tolist(), dtype=dt) if a.size else pyth.zeros(a.shape, dtype=dt)
    if layout == "transposed" and a.ndim >= 2:
        base = make(np.ascontiguousarray(np.swapaxes(a, -1, -2)), name)
        t = base.transpose(-1, -2)
        assert not t.is_contiguous() or min(a.shape[-2:]) <= 1
        return t
    if layout == "stepped":
        wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],))
        wide[..., ::2] = a
        return make(wide, name)[..., ::2]
    if layout == "expanded" and a.shape[0] > 1 and (a == a[:1]).all():
        return make(a[:1], name).expand(*a.shape)
    return make(a, name)


def expanded_values(rng, shape, name):
    """Values equal along dim 0, so an expanded layout can hold them."""
    v = values(rng, (1,) + tuple(shape[1:]), name)
    return np.broadcast_to(v, shape).copy()


def np_dtype(name):
    return {"bfloat16": np.float32}.get(name, getattr(np, name))


def oracle_matmul(x, y, name):
    if name in INTS:
        r = np.matmul(x.astype(np.int64), y.astype(np.int64))
        return r.astype(np_dtype(name))
    return np.matmul(x, y)


def assert_close(t, expected, name):
    got = to_numpy_float64(t)
    expected = np.asarray(expected)
    assert got.shape == expected.shape
    if name in INTS:
        np.testing.assert_array_equal(got, expected.astype(got.dtype))
    else:
        rtol = {"float32": 1e-5, "float64": 1e-12, "float16": 4e-3, "bfloat16": 2e-2}[name]
        atol = {"float32": 1e-4, "float64": 1e-10, "float16": 2e-2, "bfloat16": 1e-1}[name]
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)


# ---- matmul shapes (numpy rules) ---------------------------------------------------------------

SHAPES = [
    ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)),
    ((5, 2, 3), (3,)), ((3,), (5, 3, 4)), ((2, 1, 4, 3), (5, 3, 2)), ((1, 4, 3), (6, 3, 2)),
    ((2, 3, 4, 5), (2, 3, 5, 6)), ((0, 3), (3, 4)), ((2, 0), (0, 3)), ((3, 0), (0,)),
    ((0, 2, 3), (3, 4)), ((4, 3), (3, 0)), ((7, 1, 3), (3, 1)),
]


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("name", FLOATS + ["int32", "float16"])
def test_matmul_shapes_vs_numpy(shapes, name):
    rng = np.random.default_rng(0)
    x, y = values(rng, shapes[0], name), values(rng, shapes[1], name)
    r = pyth.matmul(make(x, name), make(y, name))
    assert r.dtype is pdt(name)
    assert_close(r, oracle_matmul(x, y, name), name)
    assert r.is_contiguous()


@pytest.mark.parametrize("la", LAYOUTS)
@pytest.mark.parametrize("lb", LAYOUTS)
@pytest.mark.parametrize("name", FLOATS + ["int64", "int8", "float16"])
def test_mm_layouts(la, lb, name):
    rng = np.random.default_rng(1)
    x = expanded_values(rng, (6, 5), name) if la == "expanded" else values(rng, (6, 5), name)
    y = expanded_values(rng, (5, 7), name) if lb == "expanded" else values(rng, (5, 7), name)
    a, b = make(x, name, la), make(y, name, lb)
    assert_close(pyth.mm(a, b), oracle_matmul(x, y, name), name)
    assert_close(a @ b, oracle_matmul(x, y, name), name)


@pytest.mark.parametrize("la", LAYOUTS)
@pytest.mark.parametrize("lb", LAYOUTS)
def test_batched_layouts(la, lb):
    rng = np.random.default_rng(2)
    name = "float64"
    x = expanded_values(rng, (3, 4, 5), name) if la == "expanded" else values(rng, (3, 4, 5), name)
    y = expanded_values(rng, (3, 5, 2), name) if lb == "expanded" else values(rng, (3, 5, 2), name)
    a, b = make(x, name, la), make(y, name, lb)
    assert_close(pyth.bmm(a, b), x @ y, name)
    assert_close(pyth.matmul(a, b[0]), x @ y[0], name)


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
def test_output_layouts(layout):
    """out= in a transposed or stepped layout is written through its strides."""
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((4, 6)), rng.standard_normal((6, 5))
    out = make(np.zeros((4, 5)), "float64", layout)
    r = pyth.mm(make(x, "float64"), make(y, "float64"), out=out)
    assert r is out
    assert_close(out, x @ y, "float64")


def test_large_products_all_transposes():
    """Sizes past the blocking of both BLAS and the C kernel, every transpose combination."""
    rng = np.random.default_rng(4)
    x, y = rng.standard_normal((130, 257)), rng.standard_normal((257, 67))
    for la in ("contiguous", "transposed"):
        for lb in ("contiguous", "transposed"):
            for name in FLOATS:
                assert_close(make(x, name, la) @ make(y, name, lb), x @ y, name)


def _fast(a, name, layout="contiguous"):
    """make() for big arrays: through from_numpy instead of nested lists."""
    if layout == "transposed":
        return _fast(np.ascontiguousarray(a.T), name).t()
    return pyth.from_numpy(np.ascontiguousarray(a, dtype=name))


@contextlib.contextmanager
def gemm_plan(plan: int):
    """Every product big enough for threads takes one way (lib.TH_GEMM_*) inside the block."""
    prev = ffi.new("int *")
    check(lib.THBlas_forcePlan(plan, prev))
    try:
        yield
    finally:
        check(lib.THBlas_forcePlan(prev[0], ffi.NULL))


@pytest.mark.parametrize("shape", [(67, 257, 130), (130, 257, 67), (40, 300, 33), (33, 300, 40),
                                   (1, 1100, 500), (500, 1100, 1)])
@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("plan", ["SLABS", "POOL"])
def test_threaded_products(shape, name, threads, plan):
    """Products big enough for threads, cut into one slab of rows or of columns per thread or
    run on OpenBLAS's pool: both directions, every transpose, slabs of unequal length, a side
    too short to cut, more threads than cores, and addmm's beta and alpha (each slab scales its
    own part)."""
    n, k, m = shape
    rng = np.random.default_rng(41)
    x, y, c = (rng.standard_normal(s) for s in ((n, k), (k, m), (n, m)))
    old = pyth.get_num_threads()
    pyth.set_num_threads(threads)
    try:
        with gemm_plan(getattr(lib, f"TH_GEMM_{plan}")):
            for la in ("contiguous", "transposed"):
                for lb in ("contiguous", "transposed"):
                    assert_close(_fast(x, name, la) @ _fast(y, name, lb), x @ y, name)
            r = pyth.addmm(_fast(c, name), _fast(x, name), _fast(y, name, "transposed"),
                           beta=0.5, alpha=2)
            assert_close(r, 0.5 * c + 2 * (x @ y), name)
            assert lib.THBlas_getNumThreads() == 1   # the pool is raised for a product alone
    finally:
        pyth.set_num_threads(old)


def test_how_a_product_runs():
    """Below 2^19 multiply-adds on the calling thread; above, in slabs while a thread team ran
    within the last millisecond (a training step's kernels); else, from 2^22, on OpenBLAS's
    pool, and below that on the calling thread."""
    if pyth.get_num_threads() < 2:
        pytest.skip("one thread: every product runs on it")
    assert lib.THBlas_gemmPlan(64, 64, 64) == lib.TH_GEMM_ONE
    assert lib.THBlas_gemmPlan(40, 40, 1000) == lib.TH_GEMM_ONE   # too short to cut
    x = pyth.ones(1 << 22)
    for _ in range(50):   # (a loaded machine may pause this thread for over a millisecond)
        x.sin_()                              # big enough for a team
        plans = lib.THBlas_gemmPlan(256, 256, 256), lib.THBlas_gemmPlan(128, 128, 128)
        if plans == (lib.TH_GEMM_SLABS, lib.TH_GEMM_SLABS):
            break
    assert plans == (lib.TH_GEMM_SLABS, lib.TH_GEMM_SLABS)
    time.sleep(0.005)
    assert lib.THBlas_gemmPlan(256, 256, 256) == lib.TH_GEMM_POOL
    assert lib.THBlas_gemmPlan(128, 128, 128) == lib.TH_GEMM_ONE
    with gemm_plan(lib.TH_GEMM_SLABS):
        assert lib.THBlas_gemmPlan(256, 256, 256) == lib.TH_GEMM_SLABS
        assert lib.THBlas_gemmPlan(64, 64, 64) == lib.TH_GEMM_ONE
    for bad in (-2, 3):
        with pytest.raises(ValueError, match=f"{bad} is not a plan"):
            check(lib.THBlas_forcePlan(bad, ffi.NULL))


def test_folded_and_parallel_batches():
    rng = np.random.default_rng(5)
    x, y = rng.standard_normal((6, 40, 30)), rng.standard_normal((30, 20))
    assert_close(make(x, "float64") @ make(y, "float64"), x @ y, "float64")   # one tall gemm
    x, y = rng.standard_normal((40, 70, 90)), rng.standard_normal((40, 90, 80))
    assert_close(make(x, "float32") @ make(y, "float32"), x @ y, "float32")   # parallel batch
    x, y = rng.standard_normal((300, 300)), rng.standard_normal((300, 400))
    assert_close(make(x, "float64") @ make(y, "float64"), x @ y, "float64")   # split product
    xi, yi = values(rng, (400, 6, 5), "int32"), values(rng, (400, 5, 7), "int32")
    assert_close(make(xi, "int32") @ make(yi, "int32"), oracle_matmul(xi, yi, "int32"), "int32")


# ---- integer wrap-around and reduced precision ------------------------------------------------

@pytest.mark.parametrize("name", INTS)
def test_integer_products_wrap_like_numpy(name):
    info = np.iinfo(np_dtype(name))
    rng = np.random.default_rng(6)
    x = rng.integers(info.min, info.max, (70, 150), endpoint=True).astype(np_dtype(name))
    y = rng.integers(info.min, info.max, (150, 66), endpoint=True).astype(np_dtype(name))
    r = pyth.from_numpy(x) @ pyth.from_numpy(y)
    np.testing.assert_array_equal(r.numpy(), oracle_matmul(x, y, name))
    v = pyth.from_numpy(x[0].copy())
    np.testing.assert_array_equal(pyth.dot(v, v).numpy(),
                                  np.dot(x[0].astype(np.int64), x[0].astype(np.int64))
                                  .astype(np_dtype(name)))


@pytest.mark.parametrize("name", REDUCED)
def test_reduced_precision_rounds_once(name):
    """float16 / bfloat16 compute in float32 and round the result once."""
    rng = np.random.default_rng(7)
    x, y = values(rng, (9, 33), name), values(rng, (33, 5), name)
    r = make(x, name) @ make(y, name)
    expected = make(x @ y, name)       # the exact float products rounded once
    np.testing.assert_array_equal(to_numpy_float64(r), to_numpy_float64(expected))


# ---- the add* family ----------------------------------------------------------------------------

ADD_CASES = {
    # op: (input shape, operand shapes, oracle)
    "addmm": ((3,), ((4, 5), (5, 3)), lambda x, y: x @ y),
    "addmv": ((4,), ((4, 5), (5,)), lambda x, y: x @ y),
    "addr": ((4, 1), ((4,), (3,)), lambda x, y: np.outer(x, y)),
    "baddbmm": ((2, 4, 3), ((2, 4, 5), (2, 5, 3)), lambda x, y: x @ y),
    "addbmm": ((4, 3), ((2, 4, 5), (2, 5, 3)), lambda x, y: (x @ y).sum(0)),
}


@pytest.mark.parametrize("op", list(ADD_CASES))
@pytest.mark.parametrize("name", FLOATS + ["int64", "int16"])
@pytest.mark.parametrize("beta,alpha", [(1, 1), (2, 3), (0, 1), (1, 0)])
def test_add_family(op, name, beta, alpha):
    tshape, (sa, sb), prod = ADD_CASES[op]
    rng = np.random.default_rng(8)
    t, x, y = (values(rng, s, name) for s in (tshape, sa, sb))
    fn = getattr(pyth, op)
    expected = beta * t + alpha * prod(x, y)
    if name in INTS:
        expected = expected.astype(np.int64)
    r = fn(make(t, name), make(x, name), make(y, name), beta=beta, alpha=alpha)
    assert_close(r, np.broadcast_to(expected, r.shape), name)
    m = getattr(make(t, name), op)(make(x, name), make(y, name), beta=beta, alpha=alpha)
    assert_close(m, np.broadcast_to(expected, r.shape), name)
    out = pyth.empty(0, dtype=pdt(name))
    assert fn(make(t, name), make(x, name), make(y, name), beta=beta, alpha=alpha, out=out) is out
    assert_close(out, np.broadcast_to(expected, r.shape), name)


@pytest.mark.parametrize("op", list(ADD_CASES))
def test_add_family_in_place(op):
    tshape, (sa, sb), prod = ADD_CASES[op]
    rng = np.random.default_rng(9)
    x, y = values(rng, sa, "float64"), values(rng, sb, "float64")
    full = np.broadcast_shapes(tshape, prod(x, y).shape)
    t = values(rng, full, "float64")
    self = make(t, "float64")
    r = getattr(self, op + "_")(make(x, "float64"), make(y, "float64"), beta=0.5, alpha=2)
    assert r is self
    assert_close(self, 0.5 * t + 2 * prod(x, y), "float64")


def test_beta_zero_ignores_nan():
    inp = pyth.full((2, 2), math.nan, dtype=pyth.float64)
    a = pyth.ones(2, 3, dtype=pyth.float64)
    r = pyth.addmm(inp, a, a.t(), beta=0)
    assert_close(r, np.full((2, 2), 3.0), "float64")
    r = pyth.addmm(inp, pyth.ones(2, 0, dtype=pyth.float64), pyth.ones(0, 2, dtype=pyth.float64),
                   beta=0)
    assert_close(r, np.zeros((2, 2)), "float64")


def test_empty_inner_dim_scales_input():
    t = pyth.full((2, 3), 2.0)
    r = pyth.addmm(t, pyth.ones(2, 0), pyth.ones(0, 3), beta=3)
    assert_close(r, np.full((2, 3), 6.0), "float32")
    r = pyth.addbmm(t, pyth.ones(0, 2, 4), pyth.ones(0, 4, 3), beta=3)  # an empty batch
    assert_close(r, np.full((2, 3), 6.0), "float32")


def test_out_aliasing_an_operand():
    rng = np.random.default_rng(10)
    x = rng.standard_normal((4, 4))
    a = make(x, "float64")
    pyth.mm(a, a, out=a)
    assert_close(a, x @ x, "float64")
    a = make(x, "float64")
    a.addmm_(a, a)
    assert_close(a, x + x @ x, "float64")


def test_dot_outer_vdot():
    rng = np.random.default_rng(11)
    x, y = rng.standard_normal(7), rng.standard_normal(7)
    a, b = make(x, "float64"), make(y, "float64")
    assert_close(pyth.dot(a, b), np.dot(x, y), "float64")
    assert_close(a.dot(b), np.dot(x, y), "float64")
    assert_close(pyth.vdot(a, b), np.dot(x, y), "float64")
    assert_close(pyth.outer(a, b[:3]), np.outer(x, y[:3]), "float64")
    assert_close(a.ger(b[:3]), np.outer(x, y[:3]), "float64")
    stepped = make(np.repeat(x, 2), "float64")[::2]
    assert_close(pyth.dot(stepped, b), np.dot(x, y), "float64")
    assert_close(pyth.dot(pyth.ones(1, dtype=pyth.float64).expand(7), b), y.sum(), "float64")


def test_operators():
    rng = np.random.default_rng(12)
    x, y = rng.standard_normal((3, 3)), rng.standard_normal((3, 3))
    a, b = make(x, "float64"), make(y, "float64")
    assert_close(a @ b, x @ y, "float64")
    assert_close(b.__rmatmul__(a), x @ y, "float64")
    keep = a
    a @= b
    assert a is keep
    assert_close(a, x @ y, "float64")
    assert a.__matmul__(3) is NotImplemented
    with pytest.raises(TypeError):
        a @ 3
    with pytest.raises(RuntimeError, match="shape"):
        c = make(x[:, :2], "float64")
        c @= make(y[:2], "float64").t()


# ---- errors ---------------------------------------------------------------------------------------

def test_mismatched_inner_dims_names_both_shapes():
    a, b = pyth.ones(2, 3), pyth.ones(4, 5)
    for call in (lambda: a @ b, lambda: pyth.mm(a, b), lambda: pyth.matmul(a, b),
                 lambda: pyth.addmm(pyth.ones(2, 5), a, b)):
        with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied "
                                               r"\(2x3 and 4x5\)"):
            call()
    with pytest.raises(RuntimeError, match=r"cannot be multiplied \(2x2x3 and 4x5\)"):
        pyth.ones(2, 2, 3) @ b
    with pytest.raises(RuntimeError, match="inconsistent tensor size"):
        pyth.ones(3) @ pyth.ones(4)
    with pytest.raises(RuntimeError, match="size mismatch"):
        pyth.mv(a, pyth.ones(4))
    with pytest.raises(RuntimeError, match=r"batch2 tensor to be: \[2, 3\] but got: \[2, 4\]"):
        pyth.bmm(pyth.ones(2, 2, 3), pyth.ones(2, 4, 5))
    with pytest.raises(RuntimeError, match="must match the size"):
        pyth.ones(2, 2, 3) @ pyth.ones(3, 3, 5)


def test_dimension_errors():
    with pytest.raises(RuntimeError, match="at least 1D"):
        pyth.matmul(pyth.tensor(1.0), pyth.ones(3))
    with pytest.raises(RuntimeError, match="must be a matrix"):
        pyth.mm(pyth.ones(3), pyth.ones(3, 3))
    with pytest.raises(RuntimeError, match="3D tensor"):
        pyth.bmm(pyth.ones(3, 3), pyth.ones(3, 3))
    with pytest.raises(RuntimeError, match="1D tensors expected"):
        pyth.dot(pyth.ones(3, 3), pyth.ones(3))
    with pytest.raises(RuntimeError, match="Expected 1-D"):
        pyth.outer(pyth.ones(3, 3), pyth.ones(3))
    with pytest.raises(RuntimeError, match="cannot be broadcast"):
        pyth.addmm(pyth.ones(4), pyth.ones(2, 3), pyth.ones(3, 3))
    with pytest.raises(RuntimeError, match="doesn't match"):
        pyth.ones(3).addmm_(pyth.ones(2, 3), pyth.ones(3, 3))


def test_dtype_errors():
    with pytest.raises(RuntimeError, match="same dtype.*float != double"):
        pyth.ones(2, 2) @ pyth.ones(2, 2, dtype=pyth.float64)
    with pytest.raises(RuntimeError, match="same dtype"):
        pyth.addmm(pyth.ones(2, dtype=pyth.int64), pyth.ones(2, 2), pyth.ones(2, 2))
    with pytest.raises(RuntimeError, match="Bool"):
        pyth.ones(2, 2, dtype=pyth.bool) @ pyth.ones(2, 2, dtype=pyth.bool)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float, but got "
                                           "double"):
        pyth.mm(pyth.ones(2, 2), pyth.ones(2, 2), out=pyth.empty(2, 2, dtype=pyth.float64))
    with pytest.raises(TypeError):
        pyth.mm(pyth.ones(2, 2), [[1.0, 0.0], [0.0, 1.0]])
    with pytest.raises(RuntimeError, match="more than one element"):
        pyth.mm(pyth.ones(2, 2), pyth.ones(2, 2), out=pyth.zeros(1, 2).expand(2, 2))


# ---- PyTorch as a second oracle ---------------------------------------------------------------

@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("name", ["float32", "int16", "bfloat16"])
def test_matmul_vs_torch(shapes, name):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(13)
    x, y = values(rng, shapes[0], name), values(rng, shapes[1], name)
    tdt = getattr(torch, name)
    expected = torch.matmul(torch.tensor(x).to(tdt), torch.tensor(y).to(tdt))
    r = pyth.matmul(make(x, name), make(y, name))
    assert tuple(r.shape) == tuple(expected.shape)
    assert r.dtype.name == str(expected.dtype).replace("torch.", "")
    assert_close(r, expected.double().numpy() if name not in INTS else expected.numpy(), name)


@pytest.mark.parametrize("name", INTS)
def test_integer_wrap_vs_torch(name):
    torch = pytest.importorskip("torch")
    info = np.iinfo(np_dtype(name))
    rng = np.random.default_rng(14)
    x = rng.integers(info.min, info.max, (5, 3, 40), endpoint=True).astype(np_dtype(name))
    y = rng.integers(info.min, info.max, (40, 6), endpoint=True).astype(np_dtype(name))
    expected = torch.from_numpy(x) @ torch.from_numpy(y)
    np.testing.assert_array_equal((pyth.from_numpy(x) @ pyth.from_numpy(y)).numpy(),
                                  expected.numpy())


@pytest.mark.parametrize("op", list(ADD_CASES))
def test_add_family_vs_torch(op):
    torch = pytest.importorskip("torch")
    tshape, (sa, sb), _ = ADD_CASES[op]
    rng = np.random.default_rng(15)
    t, x, y = (values(rng, s, "float32") for s in (tshape, sa, sb))
    expected = getattr(torch, op)(*(torch.tensor(v, dtype=torch.float32) for v in (t, x, y)),
                                  beta=0.5, alpha=-2)
    r = getattr(pyth, op)(*(make(v, "float32") for v in (t, x, y)), beta=0.5, alpha=-2)
    assert tuple(r.shape) == tuple(expected.shape)
    assert_close(r, expected.double().numpy(), "float32")


def test_half_vs_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(16)
    x, y = rng.standard_normal((2, 17, 64)), rng.standard_normal((2, 64, 9))
    for name in REDUCED:
        tdt = getattr(torch, name)
        expected = torch.tensor(x).to(tdt) @ torch.tensor(y).to(tdt)
        got = make(x, name) @ make(y, name)
        assert_close(got, expected.double().numpy(), name)


# ---- addr on bool, and float scalars with integral tensors (as PyTorch) -------------------------

BOOL_ADDR_CASES = {"plain": {}, "beta 0": {"beta": 0}, "alpha 0": {"alpha": 0},
                   "beta 2": {"beta": 2}, "bools": {"beta": True, "alpha": False},
                   "beta 0.5": {"beta": 0.5}, "alpha 1.5": {"alpha": 1.5}}


def _bool_addr(lib, kw, input_shape=(3, 2), layout=None):
    rng = np.random.default_rng(len(kw) + len(input_shape))
    m = lib.tensor(rng.integers(0, 2, input_shape).astype(bool).tolist(), dtype=lib.bool)
    a = lib.tensor([True, False, True], dtype=lib.bool)
    b = lib.tensor([False, True], dtype=lib.bool)
    if layout == "transposed":
        m = m.t().contiguous().t()
    try:
        return lib.addr(m, a, b, **kw).tolist()
    except RuntimeError as e:
        return str(e)


@pytest.mark.parametrize("case", sorted(BOOL_ADDR_CASES))
def test_addr_on_bool_is_logic_as_torch(case):
    torch = pytest.importorskip("torch")
    kw = BOOL_ADDR_CASES[case]
    for shape, layout in (((3, 2), None), ((3, 2), "transposed"), ((2,), None), ((), None),
                          ((1, 2), None)):
        assert _bool_addr(pyth, kw, shape, layout) == _bool_addr(torch, kw, shape, layout)


def test_addr_on_bool_out_and_in_place():
    torch = pytest.importorskip("torch")
    got = []
    for mod in (pyth, torch):
        a, b = mod.tensor([True, False]), mod.tensor([False, True])
        out = mod.ones(2, 2, dtype=mod.bool)
        mod.addr(mod.zeros(2, 2, dtype=mod.bool), a, b, out=out)
        m = mod.tensor([[False, False], [True, False]])
        m.addr_(a, b)
        got.append((out.tolist(), m.tolist()))
    assert got[0] == got[1]
    with pytest.raises(RuntimeError):
        pyth.ones(1, 2, dtype=pyth.bool).addr_(pyth.tensor([True, False]),
                                                pyth.tensor([False, True]))


@pytest.mark.parametrize("op", ["addmm", "addmv", "addr", "baddbmm", "addbmm"])
@pytest.mark.parametrize("arg", ["beta", "alpha"])
def test_float_scalar_with_integral_tensors_as_torch(op, arg):
    """addr refuses a float beta / alpha for integral tensors; the other add* ops compute
    (PyTorch 2.13 on CPU does both)."""
    torch = pytest.importorskip("torch")
    shapes = {"addmm": [(2, 2), (2, 3), (3, 2)], "addmv": [(2,), (2, 3), (3,)],
              "addr": [(2, 3), (2,), (3,)], "baddbmm": [(2, 2, 2), (2, 2, 3), (2, 3, 2)],
              "addbmm": [(2, 2), (2, 2, 3), (2, 3, 2)]}[op]

    def run(lib, value):
        args = [lib.full(s, 3, dtype=lib.int64) for s in shapes]
        try:
            return getattr(lib, op)(*args, **{arg: value}).tolist()
        except RuntimeError as e:
            return str(e)
    for value in (0.5, 1.7, 2):
        ours = run(pyth, value)
        assert ours == run(torch, value)
        assert isinstance(ours, str) == (op == "addr" and value != 2)


ADDR_MIXED = [("float32", "float64", "float32"), ("int64", "float32", "float32"),
              ("bool", "float32", "int64"), ("int32", "int64", "int32"), ("bool", "bool", "int64"),
              ("float64", "float32", "float32"), ("float32", "int64", "bool")]


@pytest.mark.parametrize("dts", ADDR_MIXED, ids="-".join)
def test_addr_promotes_mixed_operands_as_torch(dts):
    """addr (unlike addmm / addmv / ...) promotes mixed dtypes; addr_ keeps self's dtype and
    refuses a result that cannot be cast to it (float into an int self, ...)."""
    torch = pytest.importorskip("torch")

    def run(lib):
        m = lib.full((2, 3), 3, dtype=getattr(lib, dts[0]))
        a = lib.tensor([1, 2], dtype=getattr(lib, dts[1]))
        b = lib.tensor([3, 1, 2], dtype=getattr(lib, dts[2]))
        r = lib.addr(m, a, b, beta=1, alpha=2)
        got = [str(r.dtype).split(".")[-1], r.tolist()]
        try:
            m.addr_(a, b)
            got += [str(m.dtype).split(".")[-1], m.tolist()]
        except RuntimeError:
            got.append("refused")
        return got
    assert run(pyth) == run(torch)


def test_addr_mixed_dtypes_gradients():
    """Gradients of a mixed addr come back in each input's dtype, equal to the all-float64
    ones (PyTorch 2.13 itself fails in this backward: its addmv refuses the mixed vectors)."""
    def grads(dts):
        m = pyth.ones(2, 2, dtype=dts[0], requires_grad=True)
        a = pyth.tensor([1.0, 2.0], dtype=dts[1], requires_grad=True)
        b = pyth.tensor([3.0, 1.0], dtype=dts[2], requires_grad=True)
        r = pyth.addr(m, a, b, beta=0.5, alpha=2)
        (r * r).sum().backward()
        return [t.grad for t in (m, a, b)]
    mixed = grads((pyth.float32, pyth.float64, pyth.float32))
    ref = grads((pyth.float64,) * 3)
    assert [g.dtype for g in mixed] == [pyth.float32, pyth.float64, pyth.float32]
    for g, r in zip(mixed, ref):
        np.testing.assert_allclose(g.numpy(), r.numpy(), rtol=1e-6)
