"""Differential fuzzing of pointwise math against PyTorch (numpy when torch is missing).

Every op in the tables below runs on random operands (every dtype, random layouts from
tests/_support.py: transposed, stepped, offset, expanded; 0-dim and size-0 included) in
every form (function, method, out=, in-place, operator), and the outcome must be PyTorch's:
the same exception class, or the same dtype, shape and values (bit-exact for exact ops, within
a few units in the last place of the result type for transcendental ones). Adding an op to
pyth._prims.pointwise means adding one row here. Example counts come from the hypothesis profile
(tests/conftest.py: PYTH_FUZZ=ci|long|san).
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest
from _support import (
    DTYPE_NAMES,
    FLOATS,
    INTS,
    Triple,
    broadcast_pair,
    dtype_name,
    laid_out,
    of_shape,
    pdt,
    tdt,
    torch,
    torch_values,
    view_chain,
)
from hypothesis import assume, given
from hypothesis import strategies as st

import pyth

pytestmark = pytest.mark.skipif(torch is None, reason="PyTorch is the oracle for pointwise math")

# ---- the op tables ----------------------------------------------------------------------------
# name -> tolerance class: "exact" (bit-exact for every dtype) or "approx" (within TOLERANCE of
# the result dtype; libm and torch's vectorised math may differ in the last place)

# (sqrt is correctly rounded in pyth and numpy; torch's integer-input path can be 1 ulp off)
_APPROX_UNARY = ["exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "rsqrt", "sin", "cos",
                 "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "sigmoid", "erf",
                 "erfinv", "lgamma"]
_EXACT_UNARY = ["reciprocal", "floor", "ceil", "round", "trunc", "frac", "abs", "neg", "sign",
                "bitwise_not", "isnan", "isinf", "isfinite", "logical_not"]
UNARY = {**dict.fromkeys(_APPROX_UNARY, "approx"), **dict.fromkeys(_EXACT_UNARY, "exact")}

# (div is approximate: torch's vectorised float division is sometimes one ulp from the correctly
#  rounded quotient pyth and numpy give, e.g. 3 / uint8 255)
_EXACT_BINARY = ["add", "sub", "mul", "fmod", "maximum", "minimum", "bitwise_and",
                 "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "eq",
                 "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"]
_APPROX_BINARY = ["div", "atan2", "hypot", "pow", "remainder", "floor_divide"]
BINARY = {**dict.fromkeys(_EXACT_BINARY, "exact"), **dict.fromkeys(_APPROX_BINARY, "approx")}

# Python operators and the op each one is
OPERATORS = {"__add__": "add", "__sub__": "sub", "__mul__": "mul", "__truediv__": "div",
             "__floordiv__": "floor_divide", "__mod__": "remainder", "__pow__": "pow",
             "__and__": "bitwise_and", "__or__": "bitwise_or", "__xor__": "bitwise_xor",
             "__lshift__": "bitwise_left_shift", "__rshift__": "bitwise_right_shift",
             "__eq__": "eq", "__ne__": "ne", "__lt__": "lt", "__le__": "le", "__gt__": "gt",
             "__ge__": "ge"}

# relative tolerance of approximate results, by result dtype (a few ulps)
TOLERANCE = {"float64": 1e-10, "float32": 2e-5, "float16": 2e-3, "bfloat16": 1.6e-2}
_PYTHON_ERRORS = (IndexError, TypeError, ValueError, MemoryError, RuntimeError)


def error_class(e: BaseException) -> type:
    """The Python exception family an error belongs to (NotImplementedError is a RuntimeError)."""
    return next(c for c in _PYTHON_ERRORS if isinstance(e, c))


def run(fn):
    """('ok', result) or ('error', exception): the outcome of a call."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "ok", fn()
    except _PYTHON_ERRORS as e:
        return "error", e


# Calls PyTorch refuses and pyth accepts on purpose: (pattern in torch's message, why).
PYTH_ACCEPTS = [
    (r"not implemented for 'Bool'", "floor/ceil/round/trunc of a bool tensor is the tensor"),
    (r"not implemented for '(Byte|Char|Short|Int|Long)'", ("integer inputs of float-only ops "
     "(frac, hypot, ...) compute in the default float dtype, as exp() does in both")),
    (r"Found dtype \w+ but expected \w+", ("out= follows pyth's one casting rule for every op "
     "(same or higher category), where some torch kernels insist on the exact dtype")),
    (r"expected dtype .* for `end`", "lerp promotes mixed dtypes"),
    (r"unexpected keyword argument 'out'", "isnan/isinf/isfinite also take out="),
]


def pyth_accepts(e: BaseException) -> bool:
    return any(re.search(pattern, str(e)) for pattern, _ in PYTH_ACCEPTS)


def assert_same_outcome(got, expected, tol: str, context: str = "",
                        computed_in: str | None = None) -> None:
    """pyth's outcome equals torch's: both the same error class, or equal results (within the
    tolerance of the dtype the result was computed in, which an out= may widen)."""
    (gk, g), (ek, e) = got, expected
    if ek == "error":
        if gk == "ok" and pyth_accepts(e):
            return
        assert gk == "error", f"{context}: torch raised {e!r}, pyth returned {g!r}"
        assert error_class(g) is error_class(e), f"{context}: pyth {g!r}, torch {e!r}"
        return
    assert gk == "ok", f"{context}: pyth raised {g!r}, torch returned {e!r}"
    if isinstance(e, torch.Tensor):
        assert isinstance(g, pyth.Tensor), (context, g)
        name = dtype_name(e)
        assert g.dtype.name == name, f"{context}: dtype pyth {g.dtype.name}, torch {name}"
        assert tuple(g.shape) == tuple(e.shape), f"{context}: {tuple(g.shape)} vs {tuple(e.shape)}"
        got_v = g.float().numpy() if g.dtype is pyth.bfloat16 else g.numpy()
        exp_v = torch_values(e)
        if tol == "approx" and name in TOLERANCE:
            rtol = max(TOLERANCE[name], TOLERANCE.get(computed_in, 0.0))
            assert_close(got_v, exp_v, rtol, context)
        else:
            np.testing.assert_array_equal(got_v, exp_v, err_msg=context)


def assert_close(got: np.ndarray, exp: np.ndarray, rtol: float, context: str) -> None:
    g, e = got.astype(np.float64), exp.astype(np.float64)
    same = (g == e) | (np.isnan(g) & np.isnan(e))
    # near zero, relative error is meaningless: compare on the scale of the result type's eps
    close = np.abs(g - e) <= rtol * np.maximum(np.abs(e), 1.0)
    bad = ~(same | close)
    assert not bad.any(), f"{context}: pyth {g[bad][:5]} vs torch {e[bad][:5]}"


# ---- operand strategies -------------------------------------------------------------------------

_INT_LIMITS = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-1000, 1000),
               "int32": (-1000, 1000), "int64": (-1000, 1000), "bool": (0, 1)}


def python_scalars(name: str) -> st.SearchStrategy:
    """Python scalars for a tensor of dtype name: ints in the dtype's range (out-of-range ones
    are tests/test_scalars_hardening.py's), and floats including ones float16/bfloat16 cannot
    hold (257.0, 0.1, 3.3: PyTorch keeps them in float for mul and div, rounds them first for
    the other ops)."""
    lo, hi = _INT_LIMITS.get(name, (-1000, 1000))
    return st.one_of(st.booleans(), st.integers(lo, hi), st.integers(max(lo, -3), min(hi, 3)),
                     st.sampled_from([0.5, -2.25, 0.0, -0.0, 3.0, math.inf, math.nan, 1e3,
                                      257.0, 0.1, -3.3, 1 / 3]))


# In-place methods PyTorch has and pyth does not (yet): reported, not fuzzed.
KNOWN_GAPS = {"logical_not_"}


def both_have(p, t, method: str) -> bool:
    """Whether pyth and torch both have the method (a pyth-only method has no oracle; a
    torch-only one must be a known gap)."""
    if not hasattr(t, method):
        return False
    assert hasattr(p, method) or method in KNOWN_GAPS, f"pyth lacks {method}"
    return hasattr(p, method)


@st.composite
def operand_pairs(draw, names=DTYPE_NAMES, small=False):
    """Two broadcastable tensor operands of random dtypes and layouts."""
    sa, sb = draw(broadcast_pair())
    a = draw(of_shape(draw(st.sampled_from(names)), sa, small=small))
    b = draw(of_shape(draw(st.sampled_from(names)), sb, small=small))
    return a, b


@st.composite
def out_tensor(draw, shape: tuple):
    """An out= tensor: the right shape in a random writable layout, or empty (resized)."""
    name = draw(st.sampled_from(DTYPE_NAMES))
    if draw(st.integers(0, 3)) == 0:
        p = pdt(name).tensor_class()
        return Triple(p, np.zeros(0), torch.empty(0, dtype=tdt(name)), name)
    return draw(of_shape(name, shape, small=True, writable=True))


def _fn(mod, name):
    return getattr(mod, name)


# ---- unary ---------------------------------------------------------------------------------------

@given(op=st.sampled_from(sorted(UNARY)), case=laid_out(max_steps=3),
       form=st.sampled_from(["function", "method", "inplace"]))
def test_unary_ops_match_torch(op, case, form):
    """Every unary op on any dtype and layout: PyTorch's dtype, values or error class."""
    x, _ = case
    tol = UNARY[op]
    if form == "function":
        got, exp = run(lambda: _fn(pyth, op)(x.p)), run(lambda: _fn(torch, op)(x.t))
    elif form == "method":
        got, exp = run(lambda: getattr(x.p, op)()), run(lambda: getattr(x.t, op)())
    else:
        if not both_have(x.p, x.t, op + "_"):
            return
        got = run(lambda: getattr(x.p, op + "_")())
        exp = run(lambda: getattr(x.t, op + "_")())
        if exp[0] == "ok":
            got = (got[0], x.p if got[0] == "ok" else got[1])
            assert got[0] == "error" or got[1] is x.p
    assert_same_outcome(got, exp, tol, f"{op} {form} on {x.name}{tuple(x.n.shape)}")


@given(op=st.sampled_from(sorted(UNARY)), case=laid_out(max_steps=2), data=st.data())
def test_unary_out_matches_torch(op, case, data):
    """op(x, out=o) for outs of any dtype, layout, or empty: PyTorch's casting and resizing."""
    x, _ = case
    o = data.draw(out_tensor(tuple(x.n.shape)))
    got = run(lambda: _fn(pyth, op)(x.p, out=o.p))
    exp = run(lambda: _fn(torch, op)(x.t, out=o.t))
    plain = run(lambda: _fn(torch, op)(x.t))  # the dtype the op computes in, before out=
    computed_in = dtype_name(plain[1]) if plain[0] == "ok" else None
    assert_same_outcome(got, exp, UNARY[op], f"{op} out={o.name} on {x.name}{tuple(x.n.shape)}",
                        computed_in)
    if got[0] == "ok":
        assert got[1] is o.p


# ---- binary --------------------------------------------------------------------------------------

@given(op=st.sampled_from(sorted(BINARY)), pair=operand_pairs(),
       form=st.sampled_from(["function", "method", "inplace"]))
def test_binary_ops_match_torch(op, pair, form):
    """Tensor-tensor ops with broadcasting and promotion across every dtype pair and layout."""
    a, b = pair
    ctx = f"{op} {form} {a.name}{tuple(a.n.shape)} {b.name}{tuple(b.n.shape)}"
    if form == "function":
        got, exp = run(lambda: _fn(pyth, op)(a.p, b.p)), run(lambda: _fn(torch, op)(a.t, b.t))
    elif form == "method":
        got, exp = run(lambda: getattr(a.p, op)(b.p)), run(lambda: getattr(a.t, op)(b.t))
    else:
        if not both_have(a.p, a.t, op + "_"):
            return
        got = run(lambda: getattr(a.p, op + "_")(b.p))
        exp = run(lambda: getattr(a.t, op + "_")(b.t))
    assert_same_outcome(got, exp, BINARY[op], ctx)


@given(op=st.sampled_from(sorted(OPERATORS)), case=laid_out(max_steps=2), data=st.data())
def test_operators_with_python_scalars_match_torch(op, case, data):
    """t OP scalar and scalar OP t (reflected) for every operator, dtype and layout."""
    x, _ = case
    s = data.draw(python_scalars(x.name))
    name = OPERATORS[op]
    reflected = data.draw(st.booleans()) and op not in ("__eq__", "__ne__", "__lt__", "__le__",
                                                        "__gt__", "__ge__")
    if reflected:
        rop = "__r" + op[2:]
        got, exp = run(lambda: getattr(x.p, rop)(s)), run(lambda: getattr(x.t, rop)(s))
    else:
        got, exp = run(lambda: getattr(x.p, op)(s)), run(lambda: getattr(x.t, op)(s))
    if exp[0] == "ok" and exp[1] is NotImplemented:
        return
    # reflected: torch computes 5 / t as t.reciprocal() * 5 (two roundings); pyth divides once
    assert_same_outcome(got, exp, "approx" if reflected else BINARY[name],
                        f"{op}{' reflected' if reflected else ''} {x.name}{tuple(x.n.shape)} {s!r}")


@given(op=st.sampled_from(sorted(BINARY)), pair=operand_pairs(), data=st.data())
def test_binary_out_matches_torch(op, pair, data):
    """op(a, b, out=o) for outs of any dtype and layout (or empty): casting rules and resizing."""
    a, b = pair
    shape = np.broadcast_shapes(a.n.shape, b.n.shape)
    o = data.draw(out_tensor(tuple(shape)))
    got = run(lambda: _fn(pyth, op)(a.p, b.p, out=o.p))
    exp = run(lambda: _fn(torch, op)(a.t, b.t, out=o.t))
    assert_same_outcome(got, exp, BINARY[op],
                        f"{op} out={o.name} {a.name}{tuple(a.n.shape)} {b.name}{tuple(b.n.shape)}")


@given(pair=operand_pairs(names=FLOATS + INTS, small=True),
       mode=st.sampled_from([None, "trunc", "floor"]), alpha=st.sampled_from([1, 2, -1, 0.5]))
def test_div_rounding_modes_and_alpha_match_torch(pair, mode, alpha):
    """div(rounding_mode=...) and add/sub(alpha=...); alpha takes no part in promotion.
    Small values: torch computes a 0-dim integer operand of a float16 op in float32 without
    rounding it to float16 first (INT32_MIN stays finite), pyth converts it to float16 (-inf);
    a known difference at the edge of float16's range, not fuzzed here."""
    a, b = pair
    if alpha == -1 and "uint8" in (a.name, b.name):
        alpha = 2  # -1 is out of uint8's range: PyTorch wraps it, pyth raises (see above)
    assert_same_outcome(run(lambda: pyth.div(a.p, b.p, rounding_mode=mode)),
                        run(lambda: torch.div(a.t, b.t, rounding_mode=mode)), "approx",
                        f"div {mode} {a.name} {b.name}")
    for op in ("add", "sub"):
        assert_same_outcome(run(lambda op=op: _fn(pyth, op)(a.p, b.p, alpha=alpha)),
                            run(lambda op=op: _fn(torch, op)(a.t, b.t, alpha=alpha)), "approx",
                            f"{op} alpha={alpha} {a.name} {b.name}")


# ---- ternary ------------------------------------------------------------------------------------

@st.composite
def triples(draw, names=DTYPE_NAMES):
    full = draw(st.lists(st.sampled_from([0, 1, 2, 3]), max_size=3).map(tuple))
    from _support import broadcastable_to
    shapes_ = [draw(broadcastable_to(full)) for _ in range(3)]
    return [draw(of_shape(draw(st.sampled_from(names)), s)) for s in shapes_]


@given(ops=triples(), op=st.sampled_from(["where", "clamp_t", "clamp_s", "lerp", "addcmul",
                                           "addcdiv"]), data=st.data())
def test_ternary_ops_match_torch(ops, op, data):
    """where, clamp (tensor and scalar bounds), lerp, addcmul, addcdiv."""
    a, b, c = ops
    ctx = f"{op} {a.name}{tuple(a.n.shape)} {b.name}{tuple(b.n.shape)} {c.name}{tuple(c.n.shape)}"
    if op == "where":
        cond_p, cond_t = a.p.bool(), a.t.bool()
        got = run(lambda: pyth.where(cond_p, b.p, c.p))
        exp = run(lambda: torch.where(cond_t, b.t, c.t))
        tol = "exact"
    elif op == "clamp_t":
        got, exp = run(lambda: pyth.clamp(a.p, b.p, c.p)), run(lambda: torch.clamp(a.t, b.t, c.t))
        tol = "exact"
    elif op == "clamp_s":
        lo = data.draw(st.one_of(st.none(), st.integers(-5, 5), st.sampled_from([-1.5, 2.25])))
        hi = data.draw(st.one_of(st.none(), st.integers(-5, 5), st.sampled_from([0.5, 7.75])))
        got, exp = run(lambda: pyth.clamp(a.p, lo, hi)), run(lambda: torch.clamp(a.t, lo, hi))
        if a.name == "uint8":  # -1 is out of uint8's range: PyTorch wraps, pyth raises
            lo, hi = (abs(v) if isinstance(v, int) else v for v in (lo, hi))
        ctx += f" [{lo}, {hi}]"
        tol = "exact"
    elif op == "lerp":
        w = data.draw(st.sampled_from([0.25, 0.75, "tensor"]))
        wp, wt = (c.p, c.t) if w == "tensor" else (w, w)
        got, exp = run(lambda: pyth.lerp(a.p, b.p, wp)), run(lambda: torch.lerp(a.t, b.t, wt))
        if got[0] == "error" and exp[0] != "error" and exp[1].numel() == 0:
            return  # PyTorch skips its dtype check when there is nothing to compute
        tol = "approx"
    else:
        v = data.draw(st.sampled_from([1, 2, -1, 0.5]))
        got = run(lambda: _fn(pyth, op)(a.p, b.p, c.p, value=v))
        exp = run(lambda: _fn(torch, op)(a.t, b.t, c.t, value=v))
        tol = "approx"
        ctx += f" value={v}"
    assert_same_outcome(got, exp, tol, ctx)


# ---- chains: views, then copies, then pointwise, then indexing -----------------------------------

@given(case=laid_out(names=FLOATS + INTS, small=True, max_steps=3), data=st.data())
def test_view_pointwise_index_chain(case, data):
    """A view chain, a pointwise op, more views, an in-place op, an index: torch agrees at the
    end (and at each step, through the final comparison of every intermediate)."""
    x, _ = case
    op1 = data.draw(st.sampled_from(["add", "mul", "maximum", "sub"]))
    y = Triple(_fn(pyth, op1)(x.p, x.p.transpose(0, -1) if x.p.dim() >= 2 and
                              x.p.shape[0] == x.p.shape[-1] else x.p),
               None, _fn(torch, op1)(x.t, x.t.transpose(0, -1) if x.t.dim() >= 2 and
                                     x.t.shape[0] == x.t.shape[-1] else x.t), x.name)
    assert_same_outcome(("ok", y.p), ("ok", y.t), "exact", f"{op1}")
    y = Triple(y.p, torch_values(y.t), y.t, x.name)
    y, _ = data.draw(view_chain(y, 2))
    if y.p.numel() and all(s != 0 for s in y.p.stride()) and distinct_cells_ok(y):
        op2 = data.draw(st.sampled_from(["neg", "abs", "sign"]))
        if y.name != "uint8" or op2 != "neg":
            assert_same_outcome(run(lambda: getattr(y.p, op2 + "_")()),
                                run(lambda: getattr(y.t, op2 + "_")()), "exact", op2)
    z_p, z_t = y.p.clone(), y.t.clone()
    assert_same_outcome(("ok", (z_p * 2 + 1) // 3), ("ok", (z_t * 2 + 1) // 3), "approx",
                        "(z*2+1)//3")
    if z_p.dim() and z_p.shape[0]:
        idx = [0, z_p.shape[0] - 1, 0]
        assert_same_outcome(run(lambda: z_p[idx] - z_p[0]), run(lambda: z_t[idx] - z_t[0]),
                            "exact", "index")


def distinct_cells_ok(y) -> bool:
    from _support import distinct_cells
    return distinct_cells(y.p)


# ---- aliasing: in-place ops whose operand overlaps self ------------------------------------------

@given(case=laid_out(names=["float32", "int32", "float64", "uint8"], max_steps=2),
       op=st.sampled_from(["add", "mul", "sub", "maximum", "where", "copy"]),
       how=st.sampled_from(["self", "flip", "shift", "row"]))
def test_inplace_with_overlapping_operand(case, op, how):
    """a.op_(b) where b's memory overlaps a's: the same view works elementwise; a partial
    overlap (a transpose, a shifted window, a broadcast row) is refused by pointwise ops (as
    torch does, even where torch's own check gives up), and copy_ acts as if through a
    temporary. Never an order-dependent result. Oracle: torch on b.clone()."""
    x, _ = case
    assume(x.p.dim() >= 1 and x.p.numel() > 1)
    from _support import distinct_cells
    assume(distinct_cells(x.p))
    a_p, a_t = x.p, x.t
    n = x.p.shape[0]
    if how == "self":
        b_p, b_t = a_p, a_t
    elif how == "flip":
        assume(x.p.dim() >= 2 and x.p.shape[0] == x.p.shape[-1])
        b_p, b_t = a_p.transpose(0, -1), a_t.transpose(0, -1)
    elif how == "shift":
        assume(n >= 2)
        a_p, a_t = x.p.narrow(0, 0, n - 1), x.t.narrow(0, 0, n - 1)
        b_p, b_t = x.p.narrow(0, 1, n - 1), x.t.narrow(0, 1, n - 1)
    else:
        assume(n >= 2)
        b_p, b_t = x.p[n - 1], x.t[n - 1]
    b_t = b_t.clone()  # the oracle reads a copy
    before = x.p.numpy().copy()
    if op == "copy":
        got, exp = run(lambda: a_p.copy_(b_p)), run(lambda: a_t.copy_(b_t))
    elif op == "where":
        got = run(lambda: pyth.where(a_p > 1, b_p, a_p, out=a_p))
        exp = run(lambda: torch.where(a_t > 1, b_t, a_t, out=a_t))
    elif op == "maximum":
        got = run(lambda: pyth.maximum(a_p, b_p, out=a_p))
        exp = run(lambda: torch.maximum(a_t, b_t, out=a_t))
    else:
        got = run(lambda: getattr(a_p, op + "_")(b_p))
        exp = run(lambda: getattr(a_t, op + "_")(b_t))
    if got[0] == "error" and "single memory location" in str(got[1]):
        assert op != "copy" and how != "self", got[1]
        np.testing.assert_array_equal(x.p.numpy(), before)  # refused before writing anything
        return
    assert_same_outcome(got, exp, "exact", f"{op} {how} {x.name}{tuple(x.n.shape)}")
    assert_same_outcome(("ok", x.p), ("ok", x.t), "exact", "the whole base afterwards")
