"""Oracle tests for pointwise math (pyth/_prims/pointwise.py, lib/THMathOps.h, generic/THTensorMath.c).

PyTorch is the primary oracle (result dtype, shape, values, and whether a call is an error):
every op runs on identical inputs in both libraries, with identical layouts (contiguous,
transposed, sliced with a step, expanded, permuted, size 0, 0-dim), in every form (function,
method, out= of every dtype, in-place). Where torch raises, pyth must raise the same exception
class (a torch NotImplementedError "not implemented for 'Bool'" counts as RuntimeError, its
base class). Float16/bfloat16 results are compared with torch's half/bfloat16 results within
about 1e-2 relative. A first block of tests uses numpy / Python's math as the oracle and runs
without torch.

Inputs are drawn with fixed seeds from per-op domains that avoid the edges of transcendental
functions; NaN / inf / zero-division behaviour has dedicated tests.
"""

from __future__ import annotations

import math
import operator
import warnings
import zlib

import numpy as np
import pytest
from _support import (
    DTYPE_NAMES,
    FLOATS,
    INT_RANGE,
    INTS,
    pdt,
    to_torch,
    torch_or_skip,
    values_of,
)

import pyth

NUMERIC = INTS + FLOATS
BITS = {"uint8": 8, "int8": 8, "int16": 16, "int32": 32, "int64": 64}
# (rtol, atol) per result dtype when comparing with torch
TOL = {"float64": (1e-10, 1e-12), "float32": (2e-5, 1e-6), "float16": (1e-2, 1e-3),
       "bfloat16": (1e-2, 1e-2)}


def rng_for(*key):
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


# ---- data ------------------------------------------------------------------------------------

class D:
    """A sampling domain: floats uniform in f, integers uniform in i (None: the dtype's full
    range), magnitudes with a random sign when nz (so never zero)."""

    def __init__(self, f=(-5, 5), i=(-5, 5), nz=False):
        self.f, self.i, self.nz = f, i, nz


def gen(rng, name, shape, dom):
    """numpy values for dtype `name` drawn from dom."""
    if name == "bool":
        return np.ones(shape, dtype=bool) if dom.nz else rng.random(shape) < 0.5
    if name in FLOATS:
        v = rng.uniform(dom.f[0], dom.f[1], size=shape)
        if dom.nz:
            v = v * rng.choice([-1.0, 1.0], size=shape)
        return v
    lo, hi = INT_RANGE[name]
    if dom.i is not None:
        lo, hi = max(lo, dom.i[0]), min(hi, dom.i[1])
    v = rng.integers(lo, hi, size=shape, endpoint=True, dtype=np.int64)
    if dom.nz and name != "uint8":
        v = v * rng.choice(np.array([-1, 1], dtype=np.int64), size=shape)
    return v


def p_from_np(arr, name):
    return pyth.tensor(np.asarray(arr)).to(pdt(name))


def tname(tdtype):
    return str(tdtype).replace("torch.", "")


def assert_matches(got, exp, tol=None, what=""):
    """got (pyth) has exp's (torch) dtype, shape and values (NaN == NaN, inf signs exact)."""
    assert isinstance(got, pyth.Tensor), f"{what}: got {type(got).__name__}, not a Tensor"
    ename = tname(exp.dtype)
    assert got.dtype.name == ename, f"{what}: dtype {got.dtype.name}, torch gives {ename}"
    assert tuple(got.shape) == tuple(exp.shape), \
        f"{what}: shape {tuple(got.shape)}, torch gives {tuple(exp.shape)}"
    g, e = values_of(got), values_of(exp)
    if ename in FLOATS:
        rtol, atol = tol or TOL[ename]
        with np.errstate(invalid="ignore"):
            np.testing.assert_allclose(g.astype(np.float64), e.astype(np.float64), rtol=rtol,
                                       atol=atol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(g, e, err_msg=what)


def expected_error(e):
    return RuntimeError if isinstance(e, RuntimeError) else type(e)


def not_applicable(e):
    """torch has no such signature or method (a Python scalar where torch wants a Tensor,
    no torch.Tensor.maximum_, no out= for isnan, ...): pyth may offer it as an extension."""
    return isinstance(e, (TypeError, AttributeError))


_STRICT_OUT = ("Found dtype", "Expected out type to be")


def strict_out_refusal(e):
    """torch refuses out= of any dtype but the result's for this op (abs, floor, where, ...),
    although the result would cast; tested separately (test_out_dtype_strict_ops)."""
    return isinstance(e, RuntimeError) and str(e).startswith(_STRICT_OUT)


def run_torch(fn, *targs):
    """fn(torch, *targs), or the exception it raises."""
    torch = torch_or_skip()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(torch, *targs)
        except Exception as e:  # noqa: BLE001
            return e


def _as_torch_scalar_tensor(x):
    torch = torch_or_skip()
    if isinstance(x, (bool, np.bool_)):
        return torch.tensor(bool(x))
    if isinstance(x, (int, np.integer)):
        return torch.tensor(int(x))
    return torch.tensor(float(x))


def run_torch_scalars(fn, *targs):
    """run_torch; where torch refuses a Python scalar for a Tensor parameter (TypeError:
    torch.atan2(t, 2), t.logical_and_(True)) and a tensor with dims is present, the scalar is
    passed as the 0-dim tensor torch.tensor(s), which promotes exactly as the scalar would
    against a tensor with dims."""
    torch = torch_or_skip()
    exp = run_torch(fn, *targs)
    if isinstance(exp, TypeError) and any(isinstance(t, (bool, int, float)) for t in targs) \
            and any(isinstance(t, torch.Tensor) and t.dim() > 0 for t in targs):
        wrapped = [_as_torch_scalar_tensor(t) if isinstance(t, (bool, int, float)) else t
                   for t in targs]
        exp = run_torch(fn, *wrapped)
    return exp


def oracle(fn, pargs, targs, tol=None, what=""):
    """Runs fn(module, *args) in torch and pyth; same error class, or matching result."""
    exp = run_torch_scalars(fn, *targs)
    if isinstance(exp, BaseException):
        if not_applicable(exp):
            return None, exp
        with pytest.raises(expected_error(exp)):
            fn(pyth, *pargs)
        return None, exp
    got = fn(pyth, *pargs)
    assert_matches(got, exp, tol, what)
    return got, exp


def looser_tol(*names):
    tols = [TOL[n] for n in names if n in TOL]
    return (max(t[0] for t in tols), max(t[1] for t in tols)) if tols else None


class Arg:
    """One operand built identically in pyth and torch: base tensors and the view used."""

    def __init__(self, rng, name, base_shape, view, dom, torch=True):
        self.pbase = p_from_np(gen(rng, name, base_shape, dom), name)
        self.p = view(self.pbase)
        if torch:
            self.tbase = to_torch(self.pbase)
            self.t = view(self.tbase)
            assert tuple(self.p.stride()) == tuple(self.t.stride()), "layout mismatch"


def ident(x):
    return x


class Soft:
    """Collects the failures of independent sub-checks so that one test reports all of them
    (one line each) instead of stopping at the first."""

    def __init__(self):
        self.errors = []

    def __call__(self, label, fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (Exception, pytest.fail.Exception) as e:  # noqa: BLE001
            text = " | ".join(line.strip() for line in str(e).strip().splitlines()[:8])
            self.errors.append(f"{label}: {type(e).__name__}: {text[:500]}")
            return None

    def done(self):
        if self.errors:
            pytest.fail(f"{len(self.errors)} failing checks:\n" + "\n".join(self.errors),
                        pytrace=False)


UNARY_LAYOUTS = {
    "contig": ((4, 5), ident),
    "transposed": ((5, 4), lambda x: x.transpose(0, 1)),
    "sliced": ((8, 15), lambda x: x[::2, 1::3]),
    "expanded": ((1, 5), lambda x: x.expand(4, 5)),
    "permuted3d": ((3, 4, 5), lambda x: x.permute(2, 0, 1)),
    "size0": ((0, 5), ident),
    "zerodim": ((), ident),
}

# ---- op tables -------------------------------------------------------------------------------

UNARY = {
    "abs": D((-5, 5), (-100, 100)), "neg": D((-5, 5), (-100, 100)),
    "sign": D((-5, 5), (-3, 3)),
    "exp": D((-3, 3), (-5, 5)), "expm1": D((-3, 3), (-5, 5)),
    "log": D((0.1, 10), (0, 20)), "log1p": D((-0.9, 10), (0, 20)),
    "log2": D((0.1, 10), (0, 20)), "log10": D((0.1, 10), (0, 20)),
    "sqrt": D((0, 10), (0, 20)), "rsqrt": D((0.1, 10), (0, 20)),
    "reciprocal": D((0.1, 10), (-10, 10), nz=True),
    "sin": D((-4, 4), (-10, 10)), "cos": D((-4, 4), (-10, 10)), "tan": D((-1.3, 1.3), (-5, 5)),
    "asin": D((-0.95, 0.95), (-1, 1)), "acos": D((-0.95, 0.95), (-1, 1)),
    "atan": D((-5, 5), (-10, 10)), "sinh": D((-3, 3), (-5, 5)), "cosh": D((-3, 3), (-5, 5)),
    "tanh": D((-5, 5), (-5, 5)), "sigmoid": D((-5, 5), (-5, 5)), "erf": D((-2, 2), (-3, 3)),
    "erfinv": D((-0.95, 0.95), (-1, 1)), "lgamma": D((0.1, 8), (0, 20)),
    "floor": D((-10, 10), (-100, 100)), "ceil": D((-10, 10), (-100, 100)),
    "round": D((-10, 10), (-100, 100)), "trunc": D((-10, 10), (-100, 100)),
    "frac": D((-10, 10), (-100, 100)),
    "bitwise_not": D((-5, 5), None),
    "logical_not": D((-1, 1), (-1, 1)),
    "isnan": D(), "isinf": D(), "isfinite": D(),
}
NO_INPLACE = {"isnan", "isinf", "isfinite"}          # torch has no in-place form

FULL = D((-10, 10), None)
SMALL = D((-10, 10), (-100, 100))
DIVISOR = D((0.5, 5), (1, 10), nz=True)
TIES = D((-2, 2), (-2, 2))

# name -> (domain of a, domain of b, Python scalars used as b)
BINARY = {
    "add": (FULL, FULL, (3, 2.5, True)),
    "sub": (FULL, FULL, (3, 2.5, True)),
    "mul": (FULL, FULL, (3, 2.5, True)),
    "div": (SMALL, DIVISOR, (3, 2.5, True)),
    "floor_divide": (SMALL, DIVISOR, (3, -2.5, True)),
    "remainder": (SMALL, DIVISOR, (3, -2.5, True)),
    "fmod": (SMALL, DIVISOR, (-3, 2.5, True)),
    "pow": (D((0.1, 3), (-4, 4)), D((-2, 2), (0, 5)), (2, 0.5, True)),
    "atan2": (SMALL, SMALL, (3, -2.5, True)),
    "hypot": (SMALL, SMALL, (3, -2.5, True)),
    "maximum": (TIES, TIES, (1, 0.5, True)),
    "minimum": (TIES, TIES, (1, 0.5, True)),
    "bitwise_and": (FULL, FULL, (6, 2.5, True)),
    "bitwise_or": (FULL, FULL, (6, 2.5, True)),
    "bitwise_xor": (FULL, FULL, (6, 2.5, True)),
    "bitwise_left_shift": (FULL, D((0, 0), (0, 7)), (3, 1.0, True)),
    "bitwise_right_shift": (FULL, D((0, 0), (0, 7)), (3, 1.0, True)),
    "eq": (TIES, TIES, (1, 0.5, True)), "ne": (TIES, TIES, (1, 0.5, True)),
    "lt": (TIES, TIES, (1, 0.5, True)), "le": (TIES, TIES, (1, 0.5, True)),
    "gt": (TIES, TIES, (1, 0.5, True)), "ge": (TIES, TIES, (1, 0.5, True)),
    "logical_and": (TIES, TIES, (1, 0.0, True)),
    "logical_or": (TIES, TIES, (0, 0.5, False)),
    "logical_xor": (TIES, TIES, (1, 0.5, True)),
}
BINARY_LAYOUTS = {
    "contig": ((4, 5), ident, (4, 5), ident),
    "transposed": ((5, 4), lambda x: x.transpose(0, 1), (4, 5), ident),
    "sliced": ((8, 15), lambda x: x[::2, 1::3], (4, 10), lambda x: x[:, 1::2]),
    "broadcast": ((4, 1), ident, (5,), ident),
    "broadcast3d": ((3, 1, 5), ident, (4, 1), ident),
    "expanded": ((1, 5), lambda x: x.expand(4, 5), (4, 5), ident),
    "size0": ((0, 5), ident, (1, 5), ident),
    "zerodim_a": ((), ident, (4, 5), ident),
    "zerodim_b": ((4, 5), ident, (), ident),
    "zerodim_both": ((), ident, (), ident),
}


def _ties_floats(name, dom):
    """Comparisons, min/max, logical ops on floats (the TIES domain): draw from a few values
    so that ties and zeros occur."""
    return dom is TIES and name in FLOATS


def make_arg(rng, name, shape, view, dom, torch=True):
    if _ties_floats(name, dom):
        vals = rng.choice(np.array([-1.5, -1.0, 0.0, 0.5, 1.0, 2.0]), size=shape)
        a = Arg.__new__(Arg)
        a.pbase = p_from_np(vals, name)
        a.p = view(a.pbase)
        if torch:
            a.tbase = to_torch(a.pbase)
            a.t = view(a.tbase)
        return a
    return Arg(rng, name, shape, view, dom, torch)


# ============================================================================================
# numpy / math oracle (no torch needed)
# ============================================================================================

NP_UNARY = {
    "exp": np.exp, "expm1": np.expm1, "log": np.log, "log1p": np.log1p, "log2": np.log2,
    "log10": np.log10, "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x),
    "reciprocal": lambda x: 1 / x, "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh,
    "tanh": np.tanh, "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "erf": np.vectorize(math.erf, otypes=[float]),
    "lgamma": np.vectorize(math.lgamma, otypes=[float]),
    "floor": np.floor, "ceil": np.ceil, "round": np.round, "trunc": np.trunc,
    "frac": lambda x: x - np.trunc(x), "abs": np.abs, "neg": np.negative, "sign": np.sign,
}


@pytest.mark.parametrize("layout", ["contig", "transposed", "sliced", "zerodim", "size0"])
@pytest.mark.parametrize("name", ["float64", "float32"])
@pytest.mark.parametrize("op", sorted(NP_UNARY))
def test_numpy_unary_float(op, name, layout):
    rng = rng_for("npu", op, name, layout)
    shape, view = UNARY_LAYOUTS[layout]
    a = Arg(rng, name, shape, view, UNARY[op], torch=False)
    got = getattr(pyth, op)(a.p)
    assert got.dtype is pdt(name) and tuple(got.shape) == tuple(a.p.shape)
    x = values_of(a.p).astype(np.float64)
    exp = NP_UNARY[op](x)
    rtol = 1e-12 if name == "float64" else 2e-6
    np.testing.assert_allclose(values_of(got), exp, rtol=rtol, atol=rtol)


def test_numpy_erfinv_inverts_erf():
    x = np.linspace(-0.99, 0.99, 199)
    got = values_of(pyth.erfinv(pyth.tensor(x)))
    np.testing.assert_allclose(np.vectorize(math.erf)(got), x, rtol=1e-12, atol=1e-13)
    assert values_of(pyth.erfinv(pyth.tensor([0.0])))[0] == 0.0


@pytest.mark.parametrize("name", INTS)
@pytest.mark.parametrize("op", ["floor_divide", "remainder", "fmod", "trunc"])
def test_numpy_integer_division_python_semantics(op, name):
    """// and % round toward -inf (Python); fmod and div(trunc) toward zero (C)."""
    rng = rng_for("npdiv", op, name)
    a = gen(rng, name, (200,), D(i=(-1000, 1000)))
    b = gen(rng, name, (200,), D(i=(1, 37), nz=True))
    pa, pb = p_from_np(a, name), p_from_np(b, name)
    if op == "trunc":
        got = pyth.div(pa, pb, rounding_mode="trunc")
        exp = [int(x / y) if abs(x) < 2**52 else None for x, y in zip(a.tolist(), b.tolist())]
    else:
        got = getattr(pyth, op)(pa, pb)
        py = {"floor_divide": operator.floordiv, "remainder": operator.mod,
              "fmod": lambda x, y: int(math.fmod(x, y))}[op]
        exp = [py(x, y) for x, y in zip(a.tolist(), b.tolist())]
    assert got.dtype is pdt(name)
    assert values_of(got).tolist() == exp


@pytest.mark.parametrize("name", ["float64", "float32"])
def test_numpy_float_floor_divide_and_remainder(name):
    rng = rng_for("npfdiv", name)
    a = rng.uniform(-50, 50, 300)
    b = rng.uniform(0.5, 7, 300) * rng.choice([-1, 1], 300)
    pa, pb = p_from_np(a, name), p_from_np(b, name)
    xa, xb = values_of(pa).astype(np.float64), values_of(pb).astype(np.float64)
    rtol = 1e-12 if name == "float64" else 1e-5
    np.testing.assert_allclose(values_of(pyth.remainder(pa, pb)), np.remainder(xa, xb),
                               rtol=rtol, atol=rtol * 10)
    np.testing.assert_allclose(values_of(pyth.floor_divide(pa, pb)), np.floor_divide(xa, xb))
    np.testing.assert_allclose(values_of(pyth.fmod(pa, pb)), np.fmod(xa, xb), rtol=rtol,
                               atol=rtol * 10)


@pytest.mark.parametrize("name", INTS)
@pytest.mark.parametrize("op", ["add", "sub", "mul"])
def test_numpy_integer_arithmetic_wraps(op, name):
    """Integer overflow wraps modulo 2**bits (numpy's and torch's behaviour), no UB crash."""
    rng = rng_for("npwrap", op, name)
    lo, hi = INT_RANGE[name]
    a = gen(rng, name, (300,), D(i=None))
    b = gen(rng, name, (300,), D(i=None))
    a[:2], b[:2] = [lo, hi], [hi, lo]
    got = values_of(getattr(pyth, op)(p_from_np(a, name), p_from_np(b, name)))
    npdt = np.dtype(name)
    with np.errstate(over="ignore"):
        exp = getattr(np, {"add": "add", "sub": "subtract", "mul": "multiply"}[op])(
            a.astype(npdt), b.astype(npdt))
    np.testing.assert_array_equal(got, exp)


@pytest.mark.parametrize("name", INTS + ["bool"])
@pytest.mark.parametrize("op", ["bitwise_and", "bitwise_or", "bitwise_xor", "eq", "ne", "lt",
                                "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
                                "maximum", "minimum"])
def test_numpy_integer_binary(op, name):
    rng = rng_for("npbin", op, name)
    dom = D(i=None) if op.startswith("bitwise") else D(i=(-3, 3))
    a, b = gen(rng, name, (6, 7), dom), gen(rng, name, (7,), dom)
    npdt = np.dtype(name)
    npop = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
            "gt": np.greater, "ge": np.greater_equal}.get(op, getattr(np, op, None))
    got = getattr(pyth, op)(p_from_np(a, name), p_from_np(b, name))
    exp = npop(a.astype(npdt), b.astype(npdt))
    assert got.dtype.name == exp.dtype.name
    np.testing.assert_array_equal(values_of(got), exp)


@pytest.mark.parametrize("name", INTS)
def test_numpy_shifts_in_range(name):
    rng = rng_for("npshift", name)
    bits = BITS[name]
    a = gen(rng, name, (100,), D(i=None))
    s = rng.integers(0, bits, 100)
    npdt = np.dtype(name)
    pa, ps = p_from_np(a, name), p_from_np(s, name)
    np.testing.assert_array_equal(values_of(pa << ps), np.left_shift(a.astype(npdt), s.astype(npdt)))
    np.testing.assert_array_equal(values_of(pa >> ps),
                                  np.right_shift(a.astype(npdt), s.astype(npdt)))


@pytest.mark.parametrize("name", ["float64", "float32", "float16"])
def test_numpy_float_pow_atan2_hypot(name):
    rng = rng_for("nppow", name)
    a = rng.uniform(0.1, 3, 50)
    b = rng.uniform(-2, 2, 50)
    pa, pb = p_from_np(a, name), p_from_np(b, name)
    xa, xb = values_of(pa).astype(np.float64), values_of(pb).astype(np.float64)
    rtol = {"float64": 1e-12, "float32": 1e-6, "float16": 1e-3}[name]
    for op, f in (("pow", np.power), ("atan2", np.arctan2), ("hypot", np.hypot),
                  ("div", np.divide), ("maximum", np.maximum)):
        got = getattr(pyth, op)(pa, pb)
        assert got.dtype is pdt(name)
        np.testing.assert_allclose(values_of(got), f(xa, xb), rtol=rtol, atol=rtol, err_msg=op)


def test_numpy_maximum_minimum_propagate_nan():
    nan = float("nan")
    a = pyth.tensor([nan, 1.0, nan, 2.0])
    b = pyth.tensor([1.0, nan, nan, 3.0])
    for op in ("maximum", "minimum"):
        got = values_of(getattr(pyth, op)(a, b))
        assert np.isnan(got[:3]).all() and got[3] == (3.0 if op == "maximum" else 2.0)


def test_numpy_integer_division_by_zero_raises():
    for op in ("floor_divide", "remainder", "fmod"):
        with pytest.raises(RuntimeError, match="(?i)zero"):
            getattr(pyth, op)(pyth.tensor([1, 2, 3]), pyth.tensor([1, 0, 1]))


def test_numpy_round_half_to_even_and_predicates():
    x = pyth.tensor([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5])
    assert values_of(pyth.round(x)).tolist() == [0.0, 2.0, 2.0, -0.0, -2.0, -2.0, 4.0]
    y = pyth.tensor([float("nan"), float("inf"), -float("inf"), 0.0, -1.0])
    assert values_of(pyth.isnan(y)).tolist() == [True, False, False, False, False]
    assert values_of(pyth.isinf(y)).tolist() == [False, True, True, False, False]
    assert values_of(pyth.isfinite(y)).tolist() == [False, False, False, True, True]


def test_numpy_where_clamp_lerp_addc():
    c = pyth.tensor([True, False, True])
    a, b = pyth.tensor([1.0, 2.0, 3.0]), pyth.tensor([10.0, 20.0, 30.0])
    assert values_of(pyth.where(c, a, b)).tolist() == [1.0, 20.0, 3.0]
    assert values_of(pyth.clamp(pyth.tensor([-5, 0, 5, 9]), -1, 6)).tolist() == [-1, 0, 5, 6]
    np.testing.assert_allclose(values_of(pyth.lerp(a, b, 0.25)), [3.25, 6.5, 9.75])
    np.testing.assert_allclose(values_of(pyth.addcmul(a, a, b, value=0.5)), [6.0, 22.0, 48.0])
    np.testing.assert_allclose(values_of(pyth.addcdiv(a, a, b, value=2)), [1.2, 2.2, 3.2])


# ============================================================================================
# torch oracle: unary ops
# ============================================================================================

def _unary_fn(op):
    return lambda m, a: getattr(m, op)(a)


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary_function_and_method(op, name):
    """op(x) and x.op() on every layout: dtype, shape and values as torch (or its error);
    the input is left unchanged."""
    torch_or_skip()
    soft = Soft()
    for layout, (shape, view) in UNARY_LAYOUTS.items():
        a = Arg(rng_for("u", op, name, layout), name, shape, view, UNARY[op])
        soft(layout, oracle, _unary_fn(op), [a.p], [a.t], what=f"{op}({name}, {layout})")
        soft(layout + " input unchanged", np.testing.assert_array_equal, values_of(a.pbase),
             values_of(a.tbase))
        if layout in ("transposed", "zerodim"):
            soft("method " + layout, oracle, lambda m, x: getattr(x, op)(), [a.p], [a.t],
                 what=f"{name}.{op}() {layout}")
    soft.done()


def check_out(soft, label, fn, pargs, targs, out_name, noncontig=False, strict=False):
    """fn(m, *args, out) with out of dtype out_name (empty, or a transposed view of the
    result's shape): returns out, holds torch's values, or raises as torch."""
    torch = torch_or_skip()
    if noncontig:
        natural = run_torch(fn, *targs, None)
        if isinstance(natural, BaseException):   # refused whatever the out: checked elsewhere
            return
        shape = tuple(natural.shape)
        pbase = pyth.zeros(shape[::-1], dtype=pdt(out_name))
        tbase = torch.zeros(shape[::-1], dtype=getattr(torch, out_name))
        pout, tout = pbase.permute(*range(len(shape) - 1, -1, -1)), \
            tbase.permute(*range(len(shape) - 1, -1, -1))
    else:
        pout = pyth.empty(0, dtype=pdt(out_name))
        tout = torch.empty(0, dtype=getattr(torch, out_name))
    exp = run_torch(fn, *targs, tout)
    if isinstance(exp, BaseException):
        if not_applicable(exp) or (strict_out_refusal(exp) and not strict):
            return
        soft(label, check_raises, expected_error(exp), fn, pyth, *pargs, pout)
        return
    natural = run_torch(fn, *targs, None)
    tol = looser_tol(out_name, tname(natural.dtype))

    def check():
        got = fn(pyth, *pargs, pout)
        assert got is pout, "out= must return out itself"
        assert_matches(pout, tout, tol=tol, what=label)
        if noncontig:
            assert tuple(pout.stride()) == tuple(tout.stride()), "out was re-laid out"
            assert_matches(pbase, tbase, tol=tol, what=label + " (base)")
    soft(label, check)


def check_raises(etype, fn, *args):
    with pytest.raises(etype):
        fn(*args)


def check_inplace(soft, label, fn, a, pargs, targs):
    """fn(m, a, *args) working in place on a (an Arg): returns a itself, a and its base hold
    torch's values, or both raise."""
    exp = run_torch_scalars(fn, a.t, *targs)
    if isinstance(exp, BaseException):
        if not_applicable(exp):
            return
        soft(label, check_raises, expected_error(exp), fn, pyth, a.p, *pargs)
        return

    def check():
        got = fn(pyth, a.p, *pargs)
        assert got is a.p, "in-place op must return self"
        assert_matches(a.p, a.t, what=label)
        assert_matches(a.pbase, a.tbase, what=label + " (base)")
    soft(label, check)


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary_out(op, name):
    """out= of every dtype: the result dtype, dtypes it casts to, refused dtypes; and out= a
    transposed view of the right shape (written through its strides)."""
    torch_or_skip()
    soft = Soft()
    a = Arg(rng_for("uo", op, name), name, (3, 4), ident, UNARY[op])
    fn = lambda m, x, o: getattr(m, op)(x, out=o)  # noqa: E731
    for out_name in DTYPE_NAMES:
        check_out(soft, f"{op}({name}, out={out_name})", fn, [a.p], [a.t], out_name)
    exp = run_torch(_unary_fn(op), a.t)
    out_name = tname(exp.dtype) if not isinstance(exp, BaseException) else name
    check_out(soft, f"{op}({name}, out=transposed {out_name})", fn, [a.p], [a.t], out_name,
              noncontig=True)
    soft.done()


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("op", sorted(set(UNARY) - NO_INPLACE))
def test_unary_inplace(op, name):
    """x.op_() on every layout: same object back, values as torch, elements outside the view
    untouched; errors (result dtype not storable in x, self-overlap of expand) as torch."""
    torch_or_skip()
    soft = Soft()
    for layout, (shape, view) in UNARY_LAYOUTS.items():
        a = Arg(rng_for("ui", op, name, layout), name, shape, view, UNARY[op])
        check_inplace(soft, f"{name}.{op}_() on {layout}", lambda m, x: getattr(x, op + "_")(),
                      a, [], [])
    soft.done()


STRICT_OUT_OPS = {
    "abs": lambda m, x, o: m.abs(x, out=o), "neg": lambda m, x, o: m.neg(x, out=o),
    "sign": lambda m, x, o: m.sign(x, out=o), "floor": lambda m, x, o: m.floor(x, out=o),
    "ceil": lambda m, x, o: m.ceil(x, out=o), "round": lambda m, x, o: m.round(x, out=o),
    "trunc": lambda m, x, o: m.trunc(x, out=o), "frac": lambda m, x, o: m.frac(x, out=o),
    "bitwise_not": lambda m, x, o: m.bitwise_not(x, out=o),
    "where": lambda m, x, o: m.where(x > 0, x, x, out=o),
    "clamp": lambda m, x, o: m.clamp(x, 0, 1, out=o),
}


@pytest.mark.parametrize("op", list(STRICT_OUT_OPS))
def test_out_dtype_strict_ops(op):
    """For these ops torch refuses out= of any dtype other than the result's, even one the
    result casts to ("Found dtype Double but expected Float")."""
    torch_or_skip()
    soft = Soft()
    for name in ("int8", "int64", "float32", "float16"):
        a = Arg(rng_for("strict", op, name), name, (3, 4), ident, D((-3, 3), (-3, 3)))
        for out_name in ("int64", "float64", "float32"):
            check_out(soft, f"{op}({name}, out={out_name})", STRICT_OUT_OPS[op], [a.p], [a.t],
                      out_name, strict=True)
    soft.done()


# ---- unary special values ----------------------------------------------------------------------

SPECIAL = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5,
           -0.5, 1.5, -2.5, 1e-30, 100.0, -100.0, 1000.0, -1000.0]


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("op", sorted(set(UNARY) - {"bitwise_not"}))
def test_unary_special_values(op, name):
    """NaN, +-inf, +-0, out-of-domain arguments (log(-1), asin(2), erfinv(+-1), lgamma at
    poles, ...) and overflow give what torch gives."""
    torch_or_skip()
    p = p_from_np(np.array(SPECIAL), name)
    oracle(_unary_fn(op), [p], [to_torch(p)], what=f"{op}({name}) special values")


@pytest.mark.parametrize("name", ["float32", "float64"])
def test_signbits_of_zero_results(name):
    torch = torch_or_skip()
    p = p_from_np(np.array([0.0, -0.0, -0.25, 0.25, -1e-30]), name)
    t = to_torch(p)
    for op in ("reciprocal", "rsqrt", "ceil", "trunc", "round", "neg", "floor"):
        got, exp = values_of(getattr(pyth, op)(p)), values_of(getattr(torch, op)(t))
        np.testing.assert_array_equal(np.signbit(got), np.signbit(exp), err_msg=op)


@pytest.mark.parametrize("name", INTS)
def test_abs_neg_of_integer_minimum_wrap(name):
    torch = torch_or_skip()
    lo, hi = INT_RANGE[name]
    p = p_from_np(np.array([lo, lo + 1, -1, 0, 1, hi]), name)
    t = to_torch(p)
    for op in ("abs", "neg", "sign", "bitwise_not"):
        assert_matches(getattr(pyth, op)(p), getattr(torch, op)(t), what=op)


# ============================================================================================
# torch oracle: binary ops
# ============================================================================================

def _binary_args(op, name, layout, key, name_b=None):
    da, db, scalars = BINARY[op]
    rng = rng_for(key, op, name, name_b, layout)
    if layout.startswith("scalar"):
        sa, va = (4, 5), ident
        a = make_arg(rng, name, sa, va, da)
        s = scalars[{"scalar_int": 0, "scalar_float": 1, "scalar_bool": 2}[layout]]
        return a, s, s
    sa, va, sb, vb = BINARY_LAYOUTS[layout]
    a = make_arg(rng, name, sa, va, da)
    b = make_arg(rng, name_b or name, sb, vb, db)
    return a, b.p, b.t


def _binfn(op):
    return lambda m, x, y: getattr(m, op)(x, y)


ALL_BIN_LAYOUTS = list(BINARY_LAYOUTS) + ["scalar_int", "scalar_float", "scalar_bool"]


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_function_and_method(op, name):
    """op(a, b) on every layout pair (strided, broadcast, expanded, size 0, 0-dim, Python
    scalars) and a.op(b): as torch; inputs unchanged."""
    torch_or_skip()
    soft = Soft()
    for layout in ALL_BIN_LAYOUTS:
        a, pb, tb = _binary_args(op, name, layout, "b")
        soft(layout, oracle, _binfn(op), [a.p, pb], [a.t, tb], what=f"{op}({name}, {layout})")
        soft(layout + " input unchanged", np.testing.assert_array_equal, values_of(a.pbase),
             values_of(a.tbase))
        if layout in ("transposed", "broadcast", "zerodim_a", "scalar_int", "scalar_float"):
            soft("method " + layout, oracle, lambda m, x, y: getattr(x, op)(y), [a.p, pb],
                 [a.t, tb], what=f"{name}.{op}() {layout}")
    soft.done()


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_out(op, name):
    torch_or_skip()
    soft = Soft()
    a, pb, tb = _binary_args(op, name, "broadcast", "bo")
    fn = lambda m, x, y, o: getattr(m, op)(x, y, out=o)  # noqa: E731
    for out_name in DTYPE_NAMES:
        check_out(soft, f"{op}({name}, out={out_name})", fn, [a.p, pb], [a.t, tb], out_name)
    exp = run_torch(_binfn(op), a.t, tb)
    out_name = tname(exp.dtype) if not isinstance(exp, BaseException) else name
    check_out(soft, f"{op}({name}, out=transposed {out_name})", fn, [a.p, pb], [a.t, tb],
              out_name, noncontig=True)
    soft.done()


INPLACE_LAYOUTS = ["contig", "transposed", "sliced", "broadcast", "expanded", "size0",
                   "zerodim_a", "zerodim_b", "scalar_int", "scalar_float", "scalar_bool"]


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_inplace(op, name):
    """a.op_(b): same object back; torch's errors when the result dtype can't be stored in a,
    the broadcast shape is larger than a's (broadcast, zerodim_a), or a overlaps itself."""
    torch_or_skip()
    soft = Soft()
    for layout in INPLACE_LAYOUTS:
        a, pb, tb = _binary_args(op, name, layout, "bi")
        check_inplace(soft, f"{name}.{op}_() {layout}", lambda m, x, y: getattr(x, op + "_")(y),
                      a, [pb], [tb])
    soft.done()


PROMO_OPS = ["add", "sub", "mul", "div", "floor_divide", "remainder", "pow", "maximum", "eq",
             "lt", "bitwise_and", "atan2", "logical_xor"]


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("op", PROMO_OPS)
def test_binary_mixed_dtypes(op, name):
    """Tensors of two different dtypes promote as torch.result_type (dims vs dims, dims vs
    0-dim, 0-dim vs dims) and compute on the promoted values."""
    torch_or_skip()
    soft = Soft()
    for name_b in DTYPE_NAMES:
        for layout in ("broadcast", "zerodim_b", "zerodim_a"):
            a, pb, tb = _binary_args(op, name, layout, "mix", name_b)
            soft(f"{name_b} {layout}", oracle, _binfn(op), [a.p, pb], [a.t, tb],
                 what=f"{op}({name}, {name_b}, {layout})")
    soft.done()


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "floor_divide", "remainder",
                                "pow", "maximum", "eq", "lt", "bitwise_or"])
def test_binary_mixed_dtype_inplace_and_out(op, name):
    """In-place with an operand of every other dtype, and out= of float64 / int64 / bool for
    mixed operands: allowed exactly when torch allows it (result castable to self / out)."""
    torch_or_skip()
    soft = Soft()
    for name_b in DTYPE_NAMES:
        a, pb, tb = _binary_args(op, name, "contig", "mixi", name_b)
        check_inplace(soft, f"{name}.{op}_({name_b})", lambda m, x, y: getattr(x, op + "_")(y),
                      a, [pb], [tb])
        a, pb, tb = _binary_args(op, name, "broadcast", "mixo", name_b)
        for out_name in ("float64", "int64", "bool"):
            check_out(soft, f"{op}({name}, {name_b}, out={out_name})",
                      lambda m, x, y, o: getattr(m, op)(x, y, out=o), [a.p, pb], [a.t, tb],
                      out_name)
    soft.done()


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_pow_python_scalar_base(name):
    """pow(scalar, tensor) and scalar ** tensor as torch."""
    torch_or_skip()
    soft = Soft()
    a = Arg(rng_for("rs", name), name, (4, 5), ident, D((0.5, 3), (1, 5)))
    for s in (2, 0.5, True):
        soft(f"pow({s}, t)", oracle, lambda m, x: m.pow(s, x), [a.p], [a.t],
             what=f"pow({s}, {name})")
        soft(f"{s} ** t", oracle, lambda m, x: s ** x, [a.p], [a.t], what=f"{s} ** {name}")
    soft.done()


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("op", ["add", "sub"])
def test_add_sub_alpha(op, name):
    torch_or_skip()
    soft = Soft()
    for alpha in (2, -1, 0.5, True):
        for layout in ("broadcast", "scalar_int"):
            a, pb, tb = _binary_args(op, name, layout, "alpha")
            soft(f"alpha={alpha} {layout}", oracle,
                 lambda m, x, y: getattr(m, op)(x, y, alpha=alpha), [a.p, pb], [a.t, tb],
                 what=f"{op}({name}, {layout}, alpha={alpha})")
            a, pb, tb = _binary_args(op, name, "contig" if layout == "broadcast" else layout,
                                     "alphai")
            check_inplace(soft, f"{op}_({name}, alpha={alpha}) {layout}",
                          lambda m, x, y: getattr(x, op + "_")(y, alpha=alpha), a, [pb], [tb])
    soft.done()


# ---- division and its rounding modes -----------------------------------------------------------

@pytest.mark.parametrize("mode", [None, "trunc", "floor"])
@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_div_rounding_mode(name, mode):
    torch_or_skip()
    soft = Soft()
    for layout in ("contig", "transposed", "broadcast", "zerodim_b", "scalar_int",
                   "scalar_float"):
        a, pb, tb = _binary_args("div", name, layout, "rdiv")
        soft(layout, oracle, lambda m, x, y: m.div(x, y, rounding_mode=mode), [a.p, pb],
             [a.t, tb], what=f"div({name}, {layout}, {mode})")
        soft("method " + layout, oracle, lambda m, x, y: x.div(y, rounding_mode=mode),
             [a.p, pb], [a.t, tb], what=f"{name}.div({layout}, {mode})")
        a, pb, tb = _binary_args("div", name, layout, "rdivi")
        check_inplace(soft, f"{name}.div_({layout}, {mode})",
                      lambda m, x, y: x.div_(y, rounding_mode=mode), a, [pb], [tb])
    a, pb, tb = _binary_args("div", name, "broadcast", "rdivo")
    for out_name in DTYPE_NAMES:
        check_out(soft, f"div({name}, {mode}, out={out_name})",
                  lambda m, x, y, o: m.div(x, y, rounding_mode=mode, out=o), [a.p, pb],
                  [a.t, tb], out_name)
    soft.done()


@pytest.mark.parametrize("name", ["int64", "float32"])
def test_div_bad_rounding_mode(name):
    """torch raises RuntimeError for an unknown rounding_mode (function, method, in-place)."""
    torch_or_skip()
    soft = Soft()
    for form, fn in (("function", lambda m, x: m.div(x, x, rounding_mode="bad")),
                     ("method", lambda m, x: x.div(x, rounding_mode="bad")),
                     ("in-place", lambda m, x: x.div_(x, rounding_mode="bad"))):
        p = pyth.tensor([1, 2]).to(pdt(name))
        exp = run_torch(fn, to_torch(p))
        assert isinstance(exp, RuntimeError)
        soft(form, check_raises, RuntimeError, fn, pyth, p)
    soft.done()


@pytest.mark.parametrize("name", NUMERIC)
def test_floor_semantics_signs(name):
    """Every sign combination of // and % against torch (Python floor semantics)."""
    torch_or_skip()
    soft = Soft()
    avals = [7, -7, 6, -6, 0, 1, -1, 5, -5]
    bvals = [2, -2, 3, -3, 7, 1, -1]
    if name == "uint8":
        avals, bvals = [v for v in avals if v >= 0], [v for v in bvals if v > 0]
    if name in FLOATS:
        avals = avals + [7.5, -7.5, 0.25, -0.25]
        bvals = bvals + [2.5, -2.5, 0.5]
    a = np.repeat(np.array(avals, dtype=np.float64), len(bvals))
    b = np.tile(np.array(bvals, dtype=np.float64), len(avals))
    if name in INTS:
        a, b = a.astype(np.int64), b.astype(np.int64)
    pa, pb = p_from_np(a, name), p_from_np(b, name)
    ta, tb = to_torch(pa), to_torch(pb)
    for label, fn in (("floor_divide", lambda m, x, y: m.floor_divide(x, y)),
                      ("remainder", lambda m, x, y: m.remainder(x, y)),
                      ("fmod", lambda m, x, y: m.fmod(x, y)), ("//", lambda m, x, y: x // y),
                      ("%", lambda m, x, y: x % y),
                      ("div floor", lambda m, x, y: m.div(x, y, rounding_mode="floor")),
                      ("div trunc", lambda m, x, y: m.div(x, y, rounding_mode="trunc"))):
        soft(label, oracle, fn, [pa, pb], [ta, tb], what=f"{label} {name}")
    for s in ((3, 2.5) if name == "uint8" else (3, -3, 2.5, -2.5)):
        soft(f"// {s}", oracle, lambda m, x: x // s, [pa], [ta], what=f"{name} // {s}")
        soft(f"% {s}", oracle, lambda m, x: x % s, [pa], [ta], what=f"{name} % {s}")
    soft.done()


DIV_ZERO_FORMS = {
    "floor_divide": lambda m, x, y: m.floor_divide(x, y),
    "remainder": lambda m, x, y: m.remainder(x, y),
    "fmod": lambda m, x, y: m.fmod(x, y),
    "div_trunc": lambda m, x, y: m.div(x, y, rounding_mode="trunc"),
    "div_floor": lambda m, x, y: m.div(x, y, rounding_mode="floor"),
    "op_floordiv": lambda m, x, y: x // y,
    "op_mod": lambda m, x, y: x % y,
    "scalar_zero": lambda m, x, y: m.floor_divide(x, 0),
    "scalar_zero_fmod": lambda m, x, y: m.fmod(x, 0),
    "inplace": lambda m, x, y: x.remainder_(y),
    "ioperator": lambda m, x, y: operator.ifloordiv(x, y),
    "large": lambda m, x, y: m.remainder(x, y),
}


@pytest.mark.parametrize("name", INTS)
@pytest.mark.parametrize("form", list(DIV_ZERO_FORMS))
def test_integer_division_by_zero_raises(name, form):
    """Integer division by zero raises RuntimeError naming ZeroDivisionError, in every form
    and also on the parallel path (large tensor), instead of crashing."""
    torch_or_skip()
    n = 200_000 if form == "large" else 6
    a = np.arange(1, n + 1) % 50
    b = np.ones(n, dtype=np.int64) * 3
    b[n // 2] = 0
    pa, pb = p_from_np(a, name), p_from_np(b, name)
    exp = run_torch(DIV_ZERO_FORMS[form], to_torch(pa), to_torch(pb))
    assert isinstance(exp, RuntimeError)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        DIV_ZERO_FORMS[form](pyth, pa, pb)


@pytest.mark.parametrize("name", FLOATS)
def test_float_division_by_zero(name):
    torch_or_skip()
    soft = Soft()
    pa = p_from_np(np.array([1.0, -1.0, 0.0, float("nan"), float("inf"), -2.5]), name)
    pz = p_from_np(np.array([0.0, 0.0, 0.0, 0.0, -0.0, -0.0]), name)
    for label, fn in (("/", lambda m, x, y: x / y), ("//", lambda m, x, y: x // y),
                      ("%", lambda m, x, y: x % y), ("fmod", lambda m, x, y: m.fmod(x, y)),
                      ("trunc", lambda m, x, y: m.div(x, y, rounding_mode="trunc")),
                      ("floor", lambda m, x, y: m.div(x, y, rounding_mode="floor")),
                      ("/ 0", lambda m, x, y: x / 0), ("// 0.0", lambda m, x, y: x // 0.0),
                      ("% 0", lambda m, x, y: x % 0)):
        soft(label, oracle, fn, [pa, pz], [to_torch(pa), to_torch(pz)], what=f"{name} {label}")
    soft.done()


# ---- binary special values (NaN, inf) ----------------------------------------------------------

BSPECIAL = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1.0, -1.0, 2.5, -3.0]


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "floor_divide", "remainder", "fmod",
                                "pow", "atan2", "hypot", "maximum", "minimum", "eq", "ne", "lt",
                                "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"])
def test_binary_special_values(op, name):
    """All pairs of NaN, +-inf, +-0 and ordinary values: NaN propagation of maximum/minimum,
    comparisons with NaN false (ne true), pow/atan2/hypot corner cases, as torch."""
    torch_or_skip()
    a = np.repeat(np.array(BSPECIAL), len(BSPECIAL))
    b = np.tile(np.array(BSPECIAL), len(BSPECIAL))
    pa, pb = p_from_np(a, name), p_from_np(b, name)
    oracle(_binfn(op), [pa, pb], [to_torch(pa), to_torch(pb)], what=f"{op}({name}) specials")


@pytest.mark.parametrize("name", FLOATS)
def test_maximum_minimum_nan_zerodim(name):
    torch_or_skip()
    soft = Soft()
    nan = float("nan")
    pa = p_from_np(np.array([nan, 1.0, -1.0]), name)
    pn = p_from_np(np.array(nan), name)
    for op in ("maximum", "minimum"):
        soft(op, oracle, _binfn(op), [pa, pn], [to_torch(pa), to_torch(pn)],
             what=f"{op} 0-dim nan")
        soft(op + " nan first", oracle, _binfn(op), [pn, pa], [to_torch(pn), to_torch(pa)],
             what=f"{op} nan first")
    soft.done()


# ---- shifts --------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", INTS)
@pytest.mark.parametrize("op", ["bitwise_left_shift", "bitwise_right_shift"])
def test_shift_amounts_out_of_range(op, name):
    """Shift by a negative amount, by the width and beyond, as torch."""
    torch_or_skip()
    soft = Soft()
    lo, hi = INT_RANGE[name]
    bits = BITS[name]
    vals = [1, 3, hi, lo, 0] + ([-1, -8] if lo < 0 else [200 % (hi + 1)])
    amounts = [0, 1, bits - 1, bits, bits + 1] + ([-1, -bits, -(bits + 3)] if lo < 0 else [])
    amounts = [s for s in amounts if lo <= s <= hi]
    a = np.repeat(np.array(vals, dtype=np.int64), len(amounts))
    s = np.tile(np.array(amounts, dtype=np.int64), len(vals))
    pa, ps = p_from_np(a, name), p_from_np(s, name)
    soft("tensor amounts", oracle, _binfn(op), [pa, ps], [to_torch(pa), to_torch(ps)],
         what=f"{op}({name})")
    for amount in (bits, bits + 5) + ((-1,) if lo < 0 else ()):
        soft(f"scalar {amount}", oracle, lambda m, x: getattr(m, op)(x, amount), [pa],
             [to_torch(pa)], what=f"{op}({name}, {amount})")
    soft.done()


# ---- pow -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["int8", "int16", "int32", "int64"])
def test_integer_pow_negative_exponent(name):
    """Integer base ** negative integer exponent: torch raises for a Python scalar exponent
    and computes (1, +-1 or 0) for a tensor exponent."""
    torch_or_skip()
    soft = Soft()
    pa = p_from_np(np.array([1, -1, 2, -2, 3, 0, 5]), name)
    pe = p_from_np(np.array([-1, -1, -1, -2, -3, 1, 2]), name)
    soft("pow(t, -2)", oracle, lambda m, x: m.pow(x, -2), [pa], [to_torch(pa)],
         what="scalar exponent")
    soft("t ** -1", oracle, lambda m, x: x ** -1, [pa], [to_torch(pa)], what="** -1")
    soft("tensor exponent", oracle, lambda m, x, y: m.pow(x, y), [pa, pe],
         [to_torch(pa), to_torch(pe)], what="tensor exponent")
    soft.done()


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_pow_scalar_exponents(name):
    torch_or_skip()
    soft = Soft()
    pa = Arg(rng_for("pows", name), name, (3, 4), ident, D((0.1, 3), (0, 4)))
    for e in (0, 1, 2, 3, 0.5, -1.0, 2.0, True, False):
        soft(f"pow(t, {e})", oracle, lambda m, x: m.pow(x, e), [pa.p], [pa.t],
             what=f"pow({name}, {e})")
        soft(f"t ** {e}", oracle, lambda m, x: x ** e, [pa.p], [pa.t], what=f"{name} ** {e}")
    soft.done()


# ============================================================================================
# torch oracle: predicates, where, clamp, lerp, addcmul, addcdiv
# ============================================================================================

@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("op", ["isnan", "isinf", "isfinite", "logical_not"])
def test_predicates_with_specials(op, name):
    torch_or_skip()
    soft = Soft()
    if name in FLOATS:
        p = p_from_np(np.array(SPECIAL), name)
    else:
        p = Arg(rng_for("pred", name), name, (10,), ident, D(i=None), torch=False).p
    t = to_torch(p)
    soft("contig", oracle, _unary_fn(op), [p], [t], what=f"{op}({name})")
    soft("transposed", oracle, _unary_fn(op), [p.reshape(2, -1).t()], [t.reshape(2, -1).t()],
         what=f"{op}({name}) T")
    soft.done()


WHERE_LAYOUTS = {
    "contig": ((4, 5), (4, 5), (4, 5)),
    "broadcast": ((4, 1), (5,), (4, 5)),
    "broadcast_cond": ((5,), (4, 5), (4, 1)),
    "zerodim": ((), (4, 5), ()),
    "size0": ((0, 5), (1, 5), (5,)),
}


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_where_layouts(name):
    torch_or_skip()
    soft = Soft()
    for layout, (sc, sa, sb) in WHERE_LAYOUTS.items():
        rng = rng_for("where", name, layout)
        c = Arg(rng, "bool", sc, ident, D())
        a = Arg(rng, name, sa, ident, D(i=(-50, 50)))
        b = Arg(rng, name, sb, ident, D(i=(-50, 50)))
        soft(layout, oracle, lambda m, cc, x, y: m.where(cc, x, y), [c.p, a.p, b.p],
             [c.t, a.t, b.t], what=f"where({name}, {layout})")
        soft("method " + layout, oracle, lambda m, cc, x, y: x.where(cc, y), [c.p, a.p, b.p],
             [c.t, a.t, b.t], what=f"{name}.where({layout})")
    rng = rng_for("where-strided", name)
    ct = Arg(rng, "bool", (5, 4), lambda x: x.t(), D())
    at = Arg(rng, name, (8, 15), lambda x: x[::2, 1::3], D(i=(-50, 50)))
    bt = Arg(rng, name, (1, 5), lambda x: x.expand(4, 5), D(i=(-50, 50)))
    soft("strided", oracle, lambda m, cc, x, y: m.where(cc, x, y), [ct.p, at.p, bt.p],
         [ct.t, at.t, bt.t], what=f"where({name}, strided)")
    soft.done()


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_where_promotion(name):
    torch_or_skip()
    soft = Soft()
    for name_b in DTYPE_NAMES:
        rng = rng_for("wherep", name, name_b)
        c = Arg(rng, "bool", (3, 4), ident, D())
        a = Arg(rng, name, (3, 4), ident, D(i=(-50, 50)))
        b = Arg(rng, name_b, (4,), ident, D(i=(-50, 50)))
        z = Arg(rng, name_b, (), ident, D(i=(-50, 50)))
        soft(name_b, oracle, lambda m, cc, x, y: m.where(cc, x, y), [c.p, a.p, b.p],
             [c.t, a.t, b.t], what=f"where({name}, {name_b})")
        soft("0-dim " + name_b, oracle, lambda m, cc, x, y: m.where(cc, x, y), [c.p, a.p, z.p],
             [c.t, a.t, z.t], what=f"where({name}, 0-dim {name_b})")
    soft.done()


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_where_scalars_and_out(name):
    torch_or_skip()
    soft = Soft()
    rng = rng_for("wheres", name)
    c = Arg(rng, "bool", (3, 4), ident, D())
    a = Arg(rng, name, (3, 4), ident, D(i=(-50, 50)))
    for s in (0, 2.5, True):
        soft(f"where(c, t, {s})", oracle, lambda m, cc, x: m.where(cc, x, s), [c.p, a.p],
             [c.t, a.t], what=f"where({name}, {s})")
        soft(f"where(c, {s}, t)", oracle, lambda m, cc, x: m.where(cc, s, x), [c.p, a.p],
             [c.t, a.t], what=f"where({s}, {name})")
    for out_name in DTYPE_NAMES:
        check_out(soft, f"where({name}, out={out_name})",
                  lambda m, cc, x, o: m.where(cc, x, x, out=o), [c.p, a.p], [c.t, a.t], out_name)
    soft.done()


def test_where_method_argument_order():
    """x.where(condition, y) is torch.where(condition, x, y): self is the value taken where
    the condition holds, not the condition."""
    torch_or_skip()
    c = pyth.tensor([True, False, True])
    x, y = pyth.tensor([1.0, 2.0, 3.0]), pyth.tensor([10.0, 20.0, 30.0])
    exp = to_torch(x).where(to_torch(c), to_torch(y))
    assert exp.tolist() == [1.0, 20.0, 3.0]
    assert_matches(x.where(c, y), exp, what="x.where(c, y)")


@pytest.mark.parametrize("name", ["uint8", "int64", "float32"])
def test_where_condition_dtype(name):
    """torch accepts a uint8 condition (deprecated) and refuses other dtypes."""
    torch_or_skip()
    a = pyth.tensor([1.0, 2.0, 3.0])
    c = p_from_np(np.array([1, 0, 1]), name)
    oracle(lambda m, cc, x: m.where(cc, x, x * 10), [c, a], [to_torch(c), to_torch(a)],
           what=f"where(cond {name})")


CLAMP_BOUNDS = [(-1, 3), (None, 2), (-2, None), (0.5, 2.5), (2, -1), (True, None),
                (-1.5, 4)]


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_clamp_scalar_bounds(name):
    torch_or_skip()
    soft = Soft()
    for layout in ("contig", "transposed", "sliced", "expanded", "size0", "zerodim"):
        shape, view = UNARY_LAYOUTS[layout]
        a = Arg(rng_for("clamp", name, layout), name, shape, view, D((-5, 5), (-5, 5)))
        for lo, hi in CLAMP_BOUNDS:
            soft(f"clamp({lo}, {hi}) {layout}", oracle, lambda m, x: m.clamp(x, lo, hi), [a.p],
                 [a.t], what=f"clamp({name}, {lo}, {hi})")
        soft(f"method {layout}", oracle, lambda m, x: x.clamp(min=-1, max=2), [a.p], [a.t])
        soft(f"clip {layout}", oracle, lambda m, x: m.clip(x, -1, 2), [a.p], [a.t])
        soft(f"clamp_min {layout}", oracle, lambda m, x: m.clamp_min(x, 1), [a.p], [a.t])
        soft(f"clamp_max {layout}", oracle, lambda m, x: m.clamp_max(x, 1), [a.p], [a.t])
        soft(f"no bounds {layout}", oracle, lambda m, x: m.clamp(x), [a.p], [a.t])
    soft.done()


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_clamp_inplace_and_out(name):
    torch_or_skip()
    soft = Soft()
    for lo, hi in CLAMP_BOUNDS:
        a = Arg(rng_for("clampi", name, lo, hi), name, (5, 4), lambda x: x.t(),
                D((-5, 5), (-5, 5)))
        check_inplace(soft, f"clamp_({name}, {lo}, {hi})", lambda m, x: x.clamp_(lo, hi), a, [],
                      [])
        for out_name in ("float64", "int64", "bool", name):
            check_out(soft, f"clamp({name}, {lo}, {hi}, out={out_name})",
                      lambda m, x, o: m.clamp(x, lo, hi, out=o), [a.p], [a.t], out_name)
    soft.done()


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_clamp_tensor_bounds(name):
    torch_or_skip()
    soft = Soft()
    for name_b in DTYPE_NAMES:
        rng = rng_for("clampt", name, name_b)
        a = Arg(rng, name, (4, 5), ident, D((-5, 5), (-5, 5)))
        lo = Arg(rng, name_b, (5,), ident, D((-3, 0), (-3, 0)))
        hi = Arg(rng, name_b, (4, 1), ident, D((0, 3), (0, 3)))
        soft(f"{name_b} both", oracle, lambda m, x, lo_, hi_: m.clamp(x, lo_, hi_),
             [a.p, lo.p, hi.p], [a.t, lo.t, hi.t], what=f"clamp({name}, {name_b} tensors)")
        soft(f"{name_b} min", oracle, lambda m, x, lo_: m.clamp(x, min=lo_), [a.p, lo.p],
             [a.t, lo.t], what=f"clamp({name}, min={name_b})")
        soft(f"{name_b} max", oracle, lambda m, x, hi_: x.clamp(max=hi_), [a.p, hi.p],
             [a.t, hi.t], what=f"{name}.clamp(max={name_b})")
        check_inplace(soft, f"clamp_({name}, max={name_b})",
                      lambda m, x, hi_: x.clamp_(max=hi_), a, [hi.p], [hi.t])
    soft.done()


@pytest.mark.parametrize("name", ["int8", "uint8", "float16", "float32", "bool"])
def test_clamp_zerodim_tensor_bounds(name):
    """0-dim tensor bounds: input, min and max promote together before clamping (a uint8
    input with an int16 min of -2 and a float max is clamped in float32, the -2 is not first
    wrapped into uint8 254 by a separate maximum()), as torch."""
    torch_or_skip()
    soft = Soft()
    for name_b in ("int16", "float64", "bool"):
        rng = rng_for("clampz", name, name_b)
        a = Arg(rng, name, (4, 5), ident, D((-5, 5), (-5, 5)))
        lo = Arg(rng, name_b, (), ident, D((-3, -1), (-3, -1)))
        for hi_value, hi_name in ((2, "int64"), (2.5, "float32")):
            hi = p_from_np(np.array(hi_value), hi_name)
            soft(f"{name_b} {hi_name}", oracle, lambda m, x, lo_, hi_: m.clamp(x, lo_, hi_),
                 [a.p, lo.p, hi], [a.t, lo.t, to_torch(hi)],
                 what=f"clamp({name}, 0-dim {name_b}, 0-dim {hi_name})")
    soft.done()


@pytest.mark.parametrize("name", FLOATS)
def test_clamp_nan(name):
    """NaN input stays NaN; a NaN bound (scalar or tensor) gives NaN, as torch."""
    torch_or_skip()
    soft = Soft()
    nan = float("nan")
    pa = p_from_np(np.array([nan, -3.0, 0.0, 3.0, float("inf"), -float("inf")]), name)
    ta = to_torch(pa)
    for lo, hi in ((-1, 1), (None, 1), (-1, None), (nan, 1), (-1, nan), (nan, None),
                   (None, nan), (nan, nan), (2, -2)):
        soft(f"clamp({lo}, {hi})", oracle, lambda m, x: m.clamp(x, lo, hi), [pa], [ta],
             what=f"clamp({lo}, {hi})")
    pn = p_from_np(np.array([nan, -1.0, nan, -1.0, nan, 5.0]), name)
    soft("nan min tensor", oracle, lambda m, x, b: m.clamp(x, min=b), [pa, pn],
         [ta, to_torch(pn)], what="nan min")
    soft("nan max tensor", oracle, lambda m, x, b: m.clamp(x, max=b), [pa, pn],
         [ta, to_torch(pn)], what="nan max")
    soft.done()


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_lerp(name):
    torch_or_skip()
    soft = Soft()
    for layout in ("contig", "broadcast", "zerodim_b", "transposed", "size0"):
        rng = rng_for("lerp", name, layout)
        sa, va, sb, vb = BINARY_LAYOUTS[layout]
        a = Arg(rng, name, sa, va, D((-5, 5), (-5, 5)))
        b = Arg(rng, name, sb, vb, D((-5, 5), (-5, 5)))
        w = Arg(rng, name, (5,), ident, D((-1, 2), (0, 1)))
        for wl, wp, wt in (("0.25", 0.25, 0.25), ("0.75", 0.75, 0.75), ("-0.5", -0.5, -0.5),
                           ("1.5", 1.5, 1.5), ("tensor", w.p, w.t)):
            soft(f"{layout} w={wl}", oracle, lambda m, x, y, ww: m.lerp(x, y, ww),
                 [a.p, b.p, wp], [a.t, b.t, wt], what=f"lerp({name}, {layout}, w={wl})")
        soft(f"method {layout}", oracle, lambda m, x, y: x.lerp(y, 0.3), [a.p, b.p], [a.t, b.t])
        check_out(soft, f"lerp({name}) {layout} out", lambda m, x, y, o: m.lerp(x, y, 0.3, out=o),
                  [a.p, b.p], [a.t, b.t], name)
        ai = Arg(rng, name, (4, 5), ident, D((-5, 5), (-5, 5)))
        check_inplace(soft, f"lerp_ {layout}", lambda m, x, y: x.lerp_(y, 0.3), ai, [b.p], [b.t])
    soft.done()


@pytest.mark.parametrize("name", ["float32", "float64"])
def test_lerp_mixed_dtypes(name):
    """torch.lerp requires end (and a tensor weight) of input's dtype."""
    torch_or_skip()
    soft = Soft()
    for name_b in ("float32", "float64", "float16", "int64"):
        a = Arg(rng_for("lerpm", name, name_b), name, (4,), ident, D())
        b = Arg(rng_for("lerpm2", name, name_b), name_b, (4,), ident, D())
        soft(f"end {name_b}", oracle, lambda m, x, y: m.lerp(x, y, 0.5), [a.p, b.p], [a.t, b.t],
             what=f"lerp({name}, end {name_b})")
        soft(f"weight {name_b}", oracle, lambda m, x, y: m.lerp(x, x, y), [a.p, b.p],
             [a.t, b.t], what=f"lerp({name}, weight {name_b})")
    soft.done()


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
def test_addcmul_addcdiv(op, name):
    torch_or_skip()
    soft = Soft()
    for layout in ("contig", "broadcast", "zerodim_a", "transposed", "size0"):
        rng = rng_for(op, name, layout)
        sa, va, sb, vb = BINARY_LAYOUTS[layout]
        a = Arg(rng, name, sa, va, D((-5, 5), (-5, 5)))
        x = Arg(rng, name, sb, vb, D((-5, 5), (-5, 5)))
        y = Arg(rng, name, (5,), ident, D((0.5, 3), (1, 3), nz=True))
        for value in (1, 2, -0.5, True):
            soft(f"{layout} value={value}", oracle,
                 lambda m, p, q, r: getattr(m, op)(p, q, r, value=value), [a.p, x.p, y.p],
                 [a.t, x.t, y.t], what=f"{op}({name}, {layout}, value={value})")
        soft(f"method {layout}", oracle, lambda m, p, q, r: getattr(p, op)(q, r),
             [a.p, x.p, y.p], [a.t, x.t, y.t], what=f"{name}.{op}() {layout}")
        ai = Arg(rng, name, (4, 5), ident, D((-5, 5), (-5, 5)))
        check_inplace(soft, f"{op}_ {layout}",
                      lambda m, p, q, r: getattr(p, op + "_")(q, r, value=2), ai, [x.p, y.p],
                      [x.t, y.t])
        for out_name in ("float64", "int64", name):
            check_out(soft, f"{op}({name}, {layout}, out={out_name})",
                      lambda m, p, q, r, o: getattr(m, op)(p, q, r, out=o), [a.p, x.p, y.p],
                      [a.t, x.t, y.t], out_name)
    soft.done()


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
def test_addc_mixed_dtypes(op, name):
    torch_or_skip()
    soft = Soft()
    for name_b in DTYPE_NAMES:
        rng = rng_for("addcm", op, name, name_b)
        a = Arg(rng, name, (2, 3), ident, D((-5, 5), (-5, 5)))
        x = Arg(rng, name_b, (3,), ident, D((-5, 5), (-5, 5)))
        y = Arg(rng, name_b, (2, 1), ident, D((0.5, 3), (1, 3), nz=True))
        soft(name_b, oracle, lambda m, p, q, r: getattr(m, op)(p, q, r), [a.p, x.p, y.p],
             [a.t, x.t, y.t], what=f"{op}({name}, {name_b}, {name_b})")
    soft.done()


# ============================================================================================
# torch oracle: Python operators
# ============================================================================================

BIN_OPERATORS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "&": operator.and_,
    "|": operator.or_, "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift,
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge,
}
IN_OPERATORS = {
    "+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
    "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow, "&=": operator.iand,
    "|=": operator.ior, "^=": operator.ixor, "<<=": operator.ilshift, ">>=": operator.irshift,
}
OPERAND_DOMAIN = {"/": DIVISOR, "//": DIVISOR, "%": DIVISOR, "**": D((0.5, 2), (0, 3)),
                  "<<": D((0, 0), (0, 6)), ">>": D((0, 0), (0, 6))}
LEFT_DOMAIN = {"**": D((0.5, 2), (-3, 3))}


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("sym", list(BIN_OPERATORS))
def test_operators(sym, name):
    """t op t (broadcast), t op 0-dim, t op scalar, scalar op t (reflected)."""
    torch_or_skip()
    soft = Soft()
    f = BIN_OPERATORS[sym]
    rng = rng_for("op", sym, name)
    dl = LEFT_DOMAIN.get(sym, D((-5, 5), (-20, 20)))
    dr = OPERAND_DOMAIN.get(sym, D((-5, 5), (-20, 20)))
    a = Arg(rng, name, (4, 1), ident, dl)
    b = Arg(rng, name, (5,), ident, dr)
    z = Arg(rng, name, (), ident, dr)
    soft("t op t", oracle, lambda m, x, y: f(x, y), [a.p, b.p], [a.t, b.t],
         what=f"t {sym} t ({name})")
    soft("t op 0-dim", oracle, lambda m, x, y: f(x, y), [a.p, z.p], [a.t, z.t],
         what=f"t {sym} 0-dim ({name})")
    for s in (2, 1.5, True):
        soft(f"t op {s!r}", oracle, lambda m, x: f(x, s), [a.p], [a.t],
             what=f"t {sym} {s!r} ({name})")
        soft(f"{s!r} op t", oracle, lambda m, x: f(s, x), [b.p], [b.t],
             what=f"{s!r} {sym} t ({name})")
    soft.done()


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("sym", list(IN_OPERATORS))
def test_inplace_operators(sym, name):
    """a op= b mutates a (same object, same storage) or raises as torch."""
    torch_or_skip()
    soft = Soft()
    f = IN_OPERATORS[sym]
    plain = sym[:-1]
    for other in ("tensor", "int", "float", "bool", "big"):
        rng = rng_for("iop", sym, name, other)
        a = Arg(rng, name, (5, 4), lambda x: x.t(), LEFT_DOMAIN.get(plain, D((-5, 5), (-20, 20))))
        dom = OPERAND_DOMAIN.get(plain, D((-5, 5), (-20, 20)))
        if other == "tensor":
            b = Arg(rng, name, (5,), ident, dom)
            pb, tb = b.p, b.t
        elif other == "big":   # broadcasting that would grow a: refused
            b = Arg(rng, name, (2, 4, 5), ident, dom)
            pb, tb = b.p, b.t
        else:
            pb = tb = {"int": 2, "float": 1.5, "bool": True}[other]
        ptr = a.p.data_ptr()

        def fn(m, x, y):
            r = f(x, y)
            if m is pyth:
                assert r.data_ptr() == ptr, f"{sym} must work in place"
            return r
        check_inplace(soft, f"{name} {sym} {other}", fn, a, [pb], [tb])
    soft.done()


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_unary_operators(name):
    torch_or_skip()
    soft = Soft()
    a = Arg(rng_for("uop", name), name, (3, 4), ident, D((-5, 5), (-20, 20)))
    for f in (operator.neg, operator.invert, abs, operator.pos):
        soft(f.__name__, oracle, lambda m, x: f(x), [a.p], [a.t], what=f"{f.__name__}({name})")
    soft.done()


def test_comparison_with_non_numbers():
    torch = torch_or_skip()
    p, t = pyth.tensor([1, 2]), torch.tensor([1, 2])
    for other in (None, "a", object()):
        assert (p == other) == (t == other)
        assert (p != other) == (t != other)
    with pytest.raises(TypeError):
        p < None  # noqa: B015
    with pytest.raises(TypeError):
        t < None  # noqa: B015


# ============================================================================================
# promotion with scalars, 0-dim tensors, default dtype, out-of-range scalars
# ============================================================================================

@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("op", ["add", "mul", "sub", "div", "maximum", "eq", "bitwise_xor",
                                "floor_divide", "remainder", "atan2"])
def test_scalar_and_zerodim_promotion(op, name):
    """A dims-tensor wins over a 0-dim tensor and a Python scalar of the same category; a
    higher category (bool < int < float) promotes (int8 + 2.5 -> float32, bool + 3 -> int64,
    float16 + float64 0-dim -> float16)."""
    torch_or_skip()
    soft = Soft()
    a = Arg(rng_for("sp", op, name), name, (3, 4), ident, D((0.5, 5), (1, 5), nz=True))
    for s in (3, 2.5, True, np.float64(1.5), np.int64(2)):
        soft(f"{type(s).__name__} {s}", oracle, _binfn(op), [a.p, s], [a.t, s],
             what=f"{op}({name}, {type(s).__name__} {s})")
    for zname in DTYPE_NAMES:
        z = p_from_np(np.array(2), zname)
        soft(f"0-dim {zname} second", oracle, _binfn(op), [a.p, z], [a.t, to_torch(z)],
             what=f"{op}({name}, 0-dim {zname})")
        soft(f"0-dim {zname} first", oracle, _binfn(op), [z, a.p], [to_torch(z), a.t],
             what=f"{op}(0-dim {zname}, {name})")
    soft.done()


DEFAULT_DTYPE_FNS = (("x / 2", lambda m, x: x / 2), ("x + 0.5", lambda m, x: x + 0.5),
                     ("exp", lambda m, x: m.exp(x)), ("sqrt", lambda m, x: m.sqrt(x)),
                     ("atan2", lambda m, x: m.atan2(x, x)), ("x * 1.5", lambda m, x: x * 1.5),
                     ("div(x, x)", lambda m, x: m.div(x, x)))


@pytest.mark.parametrize("name", INTS + ["bool"])
def test_default_dtype_float64(name):
    """Integer ops that produce floats follow set_default_dtype, also after the same op ran
    under the previous default (nothing may cache the default)."""
    torch = torch_or_skip()
    soft = Soft()
    a = Arg(rng_for("dd", name), name, (3,), ident, D(i=(1, 5)))
    for label, fn in DEFAULT_DTYPE_FNS:       # run once under float32 first
        soft(label + " (float32)", oracle, fn, [a.p], [a.t], what=f"default float32 {name}")
    old_p, old_t = pyth.get_default_dtype(), torch.get_default_dtype()
    try:
        pyth.set_default_dtype(pyth.float64)
        torch.set_default_dtype(torch.float64)
        for label, fn in DEFAULT_DTYPE_FNS:
            soft(label, oracle, fn, [a.p], [a.t], what=f"default float64 {name} {label}")
    finally:
        pyth.set_default_dtype(old_p)
        torch.set_default_dtype(old_t)
    for label, fn in DEFAULT_DTYPE_FNS:       # and back
        soft(label + " (float32 again)", oracle, fn, [a.p], [a.t], what=f"default float32 {name}")
    soft.done()


@pytest.mark.parametrize("name", INTS)
def test_out_of_range_python_scalar(name):
    """A Python int outside the tensor dtype's range: torch wraps it into the dtype."""
    torch_or_skip()
    soft = Soft()
    a = Arg(rng_for("oor", name), name, (4,), ident, D(i=(0, 5)))
    big = {8: 1000, 16: 70000, 32: 2**33, 64: 2**63}[BITS[name]]
    for label, fn in (("x + big", lambda m, x: x + big), ("x - -big", lambda m, x: x - (-big)),
                      ("x * big", lambda m, x: x * big),
                      ("add(x, big)", lambda m, x: m.add(x, big))):
        soft(label, oracle, fn, [a.p], [a.t], what=f"{name} with {big}")
    soft.done()


def test_uint8_with_negative_python_int():
    torch_or_skip()
    soft = Soft()
    a = Arg(rng_for("u8m"), "uint8", (4,), ident, D(i=(0, 5)))
    soft("+ -1", oracle, lambda m, x: x + (-1), [a.p], [a.t], what="uint8 + -1")
    soft("- 300", oracle, lambda m, x: x - 300, [a.p], [a.t], what="uint8 - 300")
    soft.done()


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_half_scalar_computed_in_float(name):
    """Half/bfloat16 op Python float: within 1e-2 of torch (which computes in float32)."""
    torch_or_skip()
    soft = Soft()
    a = Arg(rng_for("hs", name), name, (50,), ident, D((-100, 100)))
    for s in (0.1, 1e-3, 3.3, 1e4):
        for f in (operator.mul, operator.add, operator.truediv):
            soft(f"{f.__name__} {s}", oracle, lambda m, x: f(x, s), [a.p], [a.t],
                 what=f"{name} {f.__name__} {s}")
    soft.done()


# ============================================================================================
# error paths
# ============================================================================================

@pytest.mark.parametrize("op", sorted(BINARY) + ["where", "lerp", "addcmul", "addcdiv",
                                                  "clamp"])
def test_non_broadcastable_shapes(op):
    """RuntimeError naming both sizes for shapes that do not broadcast."""
    a, b = pyth.ones(2, 3), pyth.ones(4, 3)
    calls = {"where": lambda: pyth.where(pyth.ones(2, 3).bool(), a, b),
             "lerp": lambda: pyth.lerp(a, b, 0.5),
             "addcmul": lambda: pyth.addcmul(a, b, a),
             "addcdiv": lambda: pyth.addcdiv(a, b, a),
             "clamp": lambda: pyth.clamp(a, b)}
    if op.startswith("bitwise"):
        a, b = a.long(), b.long()
    call = calls.get(op, lambda: getattr(pyth, op)(a, b))
    with pytest.raises(RuntimeError) as ei:
        call()
    msg = str(ei.value)
    assert "2" in msg and "4" in msg, msg
    assert "size" in msg or "shape" in msg or "broadcast" in msg, msg


def test_non_broadcastable_message_names_shapes():
    with pytest.raises(RuntimeError, match=r"\[2, 3\].*\[4, 3\]|must match"):
        pyth.ones(2, 3) + pyth.ones(4, 3)
    with pytest.raises(RuntimeError):
        pyth.ones(3) * pyth.ones(2, 4)
    with pytest.raises(RuntimeError):
        pyth.ones(0, 3) - pyth.ones(2, 3)


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_out_refused_dtypes_message(name):
    """out= of a lower category: RuntimeError naming both types (torch: "result type Float
    can't be cast to the desired output type Long")."""
    torch = torch_or_skip()
    soft = Soft()
    a = Arg(rng_for("oref", name), name, (3,), ident, D(i=(1, 5)))
    for out_name in DTYPE_NAMES:
        pout = pyth.empty(0, dtype=pdt(out_name))
        tout = torch.empty(0, dtype=getattr(torch, out_name))
        exp = run_torch(lambda m, x, o: m.mul(x, 1.5, out=o), a.t, tout)
        if isinstance(exp, RuntimeError):
            def check():
                with pytest.raises(RuntimeError, match="(?i)can't be cast"):
                    pyth.mul(a.p, 1.5, out=pout)
            soft(out_name, check)
        else:
            soft(out_name, lambda: (pyth.mul(a.p, 1.5, out=pout),
                                    assert_matches(pout, tout, what=f"mul out={out_name}")))
    soft.done()


def test_out_of_wrong_shape_is_resized_and_aliasing_out():
    torch = torch_or_skip()
    pa, ta = pyth.ones(2, 3), torch.ones(2, 3)
    po, to = pyth.zeros(7), torch.zeros(7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.add(ta, 1, out=to)
    pyth.add(pa, 1, out=po)
    assert_matches(po, to, what="resized out")
    # out is an input: the op reads before it writes each element
    pb = pyth.arange(6).float().reshape(2, 3)
    tb = to_torch(pb.contiguous())
    pyth.mul(pb, pyth.tensor([1.0, 2.0, 3.0]), out=pb)
    torch.mul(tb, torch.tensor([1.0, 2.0, 3.0]), out=tb)
    assert_matches(pb, tb, what="out aliasing input")


def test_out_partially_overlapping_input():
    """torch refuses an out= that partially overlaps an input (order-dependent result)."""
    torch_or_skip()
    pbase = pyth.arange(10).float()
    tbase = to_torch(pbase)
    exp = run_torch(lambda m, b: m.add(b[:-1], 1, out=b[1:]), tbase)
    assert isinstance(exp, RuntimeError)
    with pytest.raises(RuntimeError):
        pyth.add(pbase[:-1], 1, out=pbase[1:])


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_inplace_result_not_storable(name):
    """In-place ops whose result dtype is of a higher category than self raise RuntimeError
    (torch: "result type Float can't be cast to the desired output type Long"), leaving self
    unchanged; in-place ops that would need a larger shape raise naming the shapes."""
    torch_or_skip()
    soft = Soft()
    for label, fn in (("add_(1.5)", lambda m, x: x.add_(1.5)), ("div_(2)", lambda m, x: x.div_(2)),
                      ("mul_(0.5)", lambda m, x: x.mul_(0.5)), ("sqrt_", lambda m, x: x.sqrt_()),
                      ("exp_", lambda m, x: x.exp_()), ("atan2_", lambda m, x: x.atan2_(x)),
                      ("add_(float64)", lambda m, x: x.add_(m.ones(3, 4, dtype=m.float64))),
                      ("add_(grow)", lambda m, x: x.add_(m.ones(2, 3, 4, dtype=x.dtype))),
                      ("mul_(3x1)", lambda m, x: x.mul_(m.ones(3, 1, dtype=x.dtype)))):
        a = Arg(rng_for("ins", name, label), name, (3, 4), ident, D(i=(1, 5)))
        before = values_of(a.p)

        def unchanged_after_error(fn=fn, a=a, before=before):
            exp = run_torch(fn, a.t)
            if isinstance(exp, BaseException):
                with pytest.raises(expected_error(exp)):
                    fn(pyth, a.p)
                np.testing.assert_array_equal(values_of(a.p), before, err_msg="self changed")
            else:
                assert fn(pyth, a.p) is a.p
                assert_matches(a.p, a.t, what=label)
        soft(label, unchanged_after_error)
    p = Arg(rng_for("ins-msg", name), name, (3, 4), ident, D(i=(1, 5)), torch=False).p

    def message():
        with pytest.raises(RuntimeError, match=r"(?s)\[3, 4\].*\[2, 3, 4\]"):
            p.add_(pyth.ones(2, 3, 4, dtype=pdt(name)))
    soft("shape message", message)
    soft.done()


@pytest.mark.parametrize("op", sorted(BINARY) + ["neg", "abs", "exp", "sqrt", "floor",
                                                  "bitwise_not"])
def test_inplace_on_expanded_self_refused(op):
    """Writing in place into a tensor whose elements share memory (expand) is refused."""
    torch_or_skip()
    soft = Soft()
    for name in ("float32", "int64", "bool"):
        a = Arg(rng_for("exp-self", op, name), name, (1, 3), lambda x: x.expand(4, 3),
                D((1, 3), (1, 3), nz=True))
        fn = (lambda m, x: getattr(x, op + "_")(x)) if op in BINARY else \
             (lambda m, x: getattr(x, op + "_")())
        check_inplace(soft, f"{op}_ on expanded {name}", fn, a, [], [])
    soft.done()


UNDEFINED = {
    "bitwise_and_float": lambda m: m.bitwise_and(m.ones(2), m.ones(2)),
    "bitwise_not_float": lambda m: m.bitwise_not(m.ones(2)),
    "shift_float": lambda m: m.bitwise_left_shift(m.ones(2), 1),
    "sub_bool": lambda m: m.sub(m.ones(2).bool(), m.ones(2).bool()),
    "neg_bool": lambda m: m.neg(m.ones(2).bool()),
    "neg_operator_bool": lambda m: -m.ones(2).bool(),
    "minus_bool": lambda m: m.ones(2).bool() - m.zeros(2).bool(),
    "abs_bool": lambda m: m.abs(m.ones(2).bool()),
    "pow_bool": lambda m: m.pow(m.ones(2).bool(), m.ones(2).bool()),
    "fmod_bool": lambda m: m.fmod(m.ones(2).bool(), m.ones(2).bool()),
    "remainder_bool": lambda m: m.remainder(m.ones(2).bool(), m.ones(2).bool()),
    "floor_divide_bool": lambda m: m.floor_divide(m.ones(2).bool(), m.ones(2).bool()),
    "frac_int": lambda m: m.frac(m.ones(2).long()),
    "floor_bool": lambda m: m.floor(m.ones(2).bool()),
    "round_bool": lambda m: m.round(m.ones(2).bool()),
    "hypot_int": lambda m: m.hypot(m.ones(2).long(), m.ones(2).long()),
    "lerp_int": lambda m: m.lerp(m.ones(2).long(), m.ones(2).long(), 0.5),
    "addcdiv_int": lambda m: m.addcdiv(m.ones(2).long(), m.ones(2).long(), m.ones(2).long()),
    "addcmul_bool": lambda m: m.addcmul(m.ones(2).bool(), m.ones(2).bool(), m.ones(2).bool()),
    "clamp_bool": lambda m: m.clamp(m.ones(2).bool(), False, True),
    "sign_bool": lambda m: m.sign(m.ones(2).bool()),
    "atan2_bool": lambda m: m.atan2(m.ones(2).bool(), m.ones(2).bool()),
    "reciprocal_bool": lambda m: m.reciprocal(m.ones(2).bool()),
    "xor_float_operator": lambda m: m.ones(2) ^ m.ones(2),
    "invert_float": lambda m: ~m.ones(2),
}


@pytest.mark.parametrize("form", ["sub(t, bool t)", "sub(bool t, t)", "t - True", "True - t",
                                  "t.sub_(True)", "t -= bool t", "sub(bool, bool)"])
def test_sub_with_bool_operand_refused(form):
    """torch refuses subtraction whenever an operand is bool ("Subtraction, the `-` operator,
    with a bool tensor is not supported"), not only when both are."""
    torch_or_skip()
    fns = {"sub(t, bool t)": lambda m, x, b: m.sub(x, b),
           "sub(bool t, t)": lambda m, x, b: m.sub(b, x),
           "t - True": lambda m, x, b: x - True, "True - t": lambda m, x, b: True - x,
           "t.sub_(True)": lambda m, x, b: x.sub_(True),
           "t -= bool t": lambda m, x, b: operator.isub(x, b),
           "sub(bool, bool)": lambda m, x, b: m.sub(b, b)}
    x = pyth.tensor([1, 2, 3])
    b = pyth.tensor([True, False, True])
    exp = run_torch(fns[form], to_torch(x), to_torch(b))
    assert isinstance(exp, RuntimeError)
    with pytest.raises(RuntimeError, match="(?i)bool"):
        fns[form](pyth, x, b)


def test_logical_not_inplace():
    """torch has Tensor.logical_not_ (the result, 0/1, stored in self's dtype)."""
    torch_or_skip()
    for name in ("float32", "int64", "bool"):
        p = p_from_np(np.array([0, 1, 2, 0]), name)
        t = to_torch(p)
        t.logical_not_()
        assert p.logical_not_() is p
        assert_matches(p, t, what=f"{name}.logical_not_()")


@pytest.mark.parametrize("call", list(UNDEFINED))
def test_ops_undefined_for_dtype(call):
    """Ops PyTorch does not define for a dtype raise (RuntimeError) instead of computing."""
    torch_or_skip()
    oracle(lambda m: UNDEFINED[call](m), [], [], what=call)


def test_type_errors_for_non_tensor_arguments():
    torch_or_skip()
    soft = Soft()
    for label, fn in (("exp(2.0)", lambda m: m.exp(2.0)),
                      ("add(t, 'a')", lambda m: m.add(m.ones(2), "a")),
                      ("mul(t, None)", lambda m: m.mul(m.ones(2), None)),
                      ("sin(list)", lambda m: m.sin([1.0, 2.0]))):
        exp = run_torch(fn)
        assert isinstance(exp, TypeError)
        soft(label, check_raises, TypeError, fn, pyth)
    soft.done()


# ============================================================================================
# large tensors: the tiled / parallel iteration path
# ============================================================================================

@pytest.mark.parametrize("name", ["uint8", "int32", "int64", "float32", "float64", "float16",
                                  "bfloat16", "bool"])
def test_large_strided_tensors(name):
    torch_or_skip()
    soft = Soft()
    rng = rng_for("large", name)
    a = Arg(rng, name, (700, 300), lambda x: x.t(), D((-5, 5), (-20, 20)))
    b = Arg(rng, name, (300, 1400), lambda x: x[:, ::2], D((0.5, 5), (1, 20), nz=True))
    for label, fn in (
            ("add/xor", lambda m, x, y: m.add(x, y) if x.dtype != m.bool else m.logical_xor(x, y)),
            ("maximum", lambda m, x, y: m.maximum(x, y)), ("lt", lambda m, x, y: m.lt(x, y)),
            ("where", lambda m, x, y: m.where(m.gt(x, y), x, y)),
            ("div", lambda m, x, y: m.div(x, y)),
            ("abs/not", lambda m, x, y: m.abs(x) if x.dtype != m.bool else m.logical_not(x))):
        soft(label, oracle, fn, [a.p, b.p], [a.t, b.t], what=f"large {name} {label}")
    if name != "bool":
        check_inplace(soft, "large in-place mul_", lambda m, x, y: x.mul_(y), a, [b.p], [b.t])
    soft.done()


def test_lerp_integer_ends_with_a_zero_dim_float_weight_promote_as_torch():
    torch = pytest.importorskip("torch")
    for start in ([0, 1, 5], 3):
        for w in (0.25, 0.75):
            p = pyth.lerp(pyth.tensor(start, dtype=pyth.int32), pyth.tensor(start, dtype=pyth.int32)
                          * 2, pyth.tensor(w))
            t = torch.lerp(torch.tensor(start, dtype=torch.int32),
                           torch.tensor(start, dtype=torch.int32) * 2, torch.tensor(w))
            assert p.dtype is pyth.float32 and tuple(p.shape) == tuple(t.shape)
            np.testing.assert_allclose(p.numpy(), t.numpy())
    with pytest.raises(RuntimeError, match="expected dtype int32 for `weight`"):
        pyth.lerp(pyth.ones(2, dtype=pyth.int32), pyth.ones(2, dtype=pyth.int32), pyth.ones(2))


@pytest.mark.parametrize("name", ["float32", "float64", "int32", "uint8", "float16"])
@pytest.mark.parametrize("bounds", [(-0.5, 0.5), (0, None), (None, 0), (0.5, -0.5)])
def test_clamp_long_rows_vs_numpy(name, bounds):
    """Rows long enough for the vectorised loop and its tail (contiguous and strided), random
    signs (the old branchy loop's worst case) and NaNs among them: numpy's clip, which also
    keeps NaN and lets max win over min."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal(4099) * 3
    if name in ("float32", "float64", "float16"):
        x[::37] = np.nan
    x = x.astype(name)
    lo, hi = bounds
    if name in ("int32", "uint8"):   # integer bounds (a float bound would promote to float)
        lo, hi = (None if v is None else int(abs(v) * 4 if name == "uint8" else v * 4)
                  for v in bounds)
    want = x.copy()
    if lo is not None:
        want = np.where(want < np.array(lo, dtype=name), np.array(lo, dtype=name), want)
    if hi is not None:
        want = np.where(want > np.array(hi, dtype=name), np.array(hi, dtype=name), want)
    t = pyth.from_numpy(x.copy())
    for got, exp in ((t.clamp(lo, hi), want), (t[::3].clamp(lo, hi), want[::3])):
        np.testing.assert_array_equal(got.numpy(), exp)
