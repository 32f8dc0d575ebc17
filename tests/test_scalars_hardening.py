"""Python numbers as operands and parameters of tensor ops: the one conversion path
(pyth.dtypes' "Python numbers as C arguments") and what it gives, against PyTorch.

- Integers beyond what a scalar argument can be (outside [-2**63, 2**64)) are refused with
  RuntimeError by every op, never wrapped modulo 2**64 nor rounded to a double. PyTorch refuses
  them too (its argument parser raises OverflowError; pyth raises RuntimeError, as for every
  value a type cannot hold, and never lets OverflowError out).
- Within that range, operands of arithmetic and comparisons wrap as PyTorch's do, and the
  parameters PyTorch checks (clamp bounds, alpha, addcmul's value, an integer exponent) must fit.
- float16 / bfloat16 ops see a Python number as PyTorch's do: mul and div keep it in float
  (`bfloat16(0.75) * 257` is 193), add, sub and comparisons round it to the tensor's type first.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _support import DTYPE_NAMES, pdt, run_child, tdt, torch

import pyth

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is the oracle")

I64_MAX, U64_MAX = 2**63 - 1, 2**64 - 1


# ---- ints beyond any scalar argument -------------------------------------------------------------

def _i64(m, *values: int):
    """An int64 tensor of module m (pyth or torch)."""
    return m.tensor(list(values), dtype=m.int64)


# name -> f(module): the call, written once for pyth and for torch
BEYOND = {
    "eq(2**64 + 5)": lambda m: _i64(m, 5).eq(2**64 + 5),
    "lt(2**64)": lambda m: _i64(m, 5).lt(2**64),
    "gt(-2**63 - 1)": lambda m: _i64(m, 5).gt(-(2**63) - 1),
    "== 2**64": lambda m: _i64(m, 5) == 2**64,
    "< 2**64": lambda m: _i64(m, 5) < 2**64,
    "ne(2**70)": lambda m: _i64(m, 5).ne(2**70),
    "clamp(max=2**64 + 1)": lambda m: _i64(m, 5).clamp(max=2**64 + 1),
    "clamp(min=2**70)": lambda m: m.zeros(2, dtype=m.int64).clamp(min=2**70),
    "clamp_(min=2**70)": lambda m: m.zeros(2, dtype=m.int64).clamp_(min=2**70),
    "add_(2**64)": lambda m: _i64(m, 5).add_(2**64),
    "mul(2**64 + 3)": lambda m: _i64(m, 5).mul(2**64 + 3),
    "sub(-2**64)": lambda m: _i64(m, 5).sub(-(2**64)),
    "+ 2**64": lambda m: _i64(m, 5) + 2**64,
    "2**64 + t": lambda m: 2**64 + _i64(m, 5),
    "* 2**64": lambda m: _i64(m, 5) * 2**64,
    "+= 2**64": lambda m: _i64(m, 5).__iadd__(2**64),
    "int8 add(2**64)": lambda m: m.tensor([5], dtype=m.int8).add(2**64),
    "bool add(2**64)": lambda m: m.tensor([True]).add(2**64),
    "bool & 2**64": lambda m: m.tensor([True]) & 2**64,
    "float32 + 2**64": lambda m: m.tensor([5.0]) + 2**64,
    "float32 eq(2**64)": lambda m: m.tensor([5.0]).eq(2**64),
    "float64 * 2**64": lambda m: m.tensor([5.0], dtype=m.float64) * 2**64,
    "float32 add_(2**64)": lambda m: m.tensor([5.0]).add_(2**64),
    "bfloat16 * 2**64": lambda m: m.tensor([5.0], dtype=m.bfloat16) * 2**64,
    "div(2**64)": lambda m: _i64(m, 5).div(2**64),
    "remainder(2**64)": lambda m: _i64(m, 5).remainder(2**64),
    "fmod(2**64)": lambda m: _i64(m, 5).fmod(2**64),
    "floor_divide(2**64)": lambda m: _i64(m, 5).floor_divide(2**64),
    "pow(2**64)": lambda m: _i64(m, 5).pow(2**64),
    "bitwise_and(2**64)": lambda m: _i64(m, 5).bitwise_and(2**64),
    "bitwise_and(-2**63 - 1)": lambda m: _i64(m, 5).bitwise_and(-(2**63) - 1),
    "add(t, alpha=2**64)": lambda m: _i64(m, 5).add(_i64(m, 1), alpha=2**64),
    "add(1, alpha=2**64)": lambda m: _i64(m, 5).add(1, alpha=2**64),
    "sub(t, alpha=2**64)": lambda m: _i64(m, 5).sub(_i64(m, 1), alpha=2**64),
    "addcmul(value=2**64)": lambda m: _i64(m, 5).addcmul(_i64(m, 1), _i64(m, 1), value=2**64),
    "fill_(2**64)": lambda m: _i64(m, 5).fill_(2**64),
    "float32 fill_(2**64)": lambda m: m.zeros(2).fill_(2**64),
    "bool fill_(2**64)": lambda m: m.zeros(2, dtype=m.bool).fill_(2**64),
    "full((2,), 2**64)": lambda m: m.full((2,), 2**64),
    "masked_fill(2**64)": lambda m: _i64(m, 5).masked_fill(m.tensor([True]), 2**64),
    "where(c, t, 2**64)": lambda m: m.where(m.tensor([True]), _i64(m, 5), 2**64),
    "index_fill(2**64)": lambda m: _i64(m, 5).index_fill(0, _i64(m, 0), 2**64),
    "lerp(weight=2**64)": lambda m: m.tensor([5.0]).lerp(m.tensor([5.0]), 2**64),
}


@pytest.mark.parametrize("name", sorted(BEYOND))
def test_ints_beyond_any_scalar_argument_are_refused(name):
    """The issue's cases and every other op taking a number: RuntimeError naming the value,
    never a result computed from the number wrapped modulo 2**64 (nor OverflowError)."""
    with pytest.raises(RuntimeError, match="cannot be converted to type .* without overflow") \
            as info:
        BEYOND[name](pyth)
    assert not isinstance(info.value, OverflowError)


@needs_torch
@pytest.mark.parametrize("name", sorted(BEYOND))
def test_pytorch_refuses_the_same_ints(name):
    """The oracle: PyTorch refuses each of these calls too (OverflowError from its parser)."""
    with pytest.raises((OverflowError, RuntimeError)):
        BEYOND[name](torch)


# ---- within the range: PyTorch's answers -------------------------------------------------------

EDGE_INTS = [I64_MAX, 2**63, U64_MAX, -(2**63), 1000, -1, 256, -256, 255, 127, -129, 2**40]


def _mod(t):
    """The module (pyth or torch) whose tensor t is."""
    return torch if torch is not None and isinstance(t, torch.Tensor) else pyth


# op name -> f(tensor, number)
OPS = {
    "add": lambda t, v: t + v, "sub": lambda t, v: t - v, "mul": lambda t, v: t * v,
    "radd": lambda t, v: v + t, "eq": lambda t, v: t == v, "lt": lambda t, v: t < v,
    "ge": lambda t, v: t >= v, "bitwise_and": lambda t, v: t & v,
    "remainder": lambda t, v: t % v, "floor_divide": lambda t, v: t // v,
    "pow": lambda t, v: t ** v, "add_": lambda t, v: t.clone().add_(v),
    "clamp_min": lambda t, v: t.clamp(min=v), "clamp_max": lambda t, v: t.clamp(max=v),
    "alpha": lambda t, v: t.add(t, alpha=v), "alpha_number": lambda t, v: t.add(2, alpha=v),
    "addcmul": lambda t, v: t.addcmul(t, t, value=v),
    "masked_fill": lambda t, v: t.masked_fill(t != t, v),
    "where": lambda t, v: _mod(t).where(t == t, t, v),
    "fill_": lambda t, v: t.clone().fill_(v),
}

# Stored values (fill_, masked_fill, where's number) are not what this file is about: pyth
# refuses on purpose what PyTorch wraps there (a stored value must fit its type, so uint8
# fill_(-1) raises, tests/test_misuse.py), and stores a float16/bfloat16 value as it rounds
# (inf when beyond the type), as PyTorch's fill_ does, where its masked_fill refuses.
STORED = {"fill_", "masked_fill", "where"}


def _outcome(fn):
    try:
        r = fn()
    except (RuntimeError, OverflowError) as e:
        return "refused", type(e)
    except (TypeError, ValueError, IndexError) as e:
        return "error", type(e)
    return "ok", r


@needs_torch
@pytest.mark.parametrize("name", [n for n in DTYPE_NAMES if n != "bool"])
@pytest.mark.parametrize("op", sorted(OPS))
def test_edge_ints_match_pytorch(name, op):
    """Every op with ints at and around the edges of int64, uint64 and the dtype: PyTorch's
    result (wrapped as its kernels wrap), or a refusal where PyTorch refuses (its OverflowError
    is pyth's RuntimeError); small tensors [3, 0, 7] of each dtype."""
    f = OPS[op]
    for v in EDGE_INTS + [-(2**63) - 1, 2**64]:
        if op in STORED and (name == "uint8" and v < 0 or name in ("float16", "bfloat16")):
            continue   # (see STORED)
        got = _outcome(lambda: f(pyth.tensor([3, 0, 7], dtype=pdt(name)), v))
        exp = _outcome(lambda: f(torch.tensor([3, 0, 7], dtype=tdt(name)), v))
        ctx = f"{name} {op} {v}"
        if exp[0] == "refused":
            assert got[0] == "refused", f"{ctx}: torch refused ({exp[1].__name__}), pyth {got}"
            assert got[1] is RuntimeError or issubclass(got[1], RuntimeError), ctx
            continue
        if exp[0] == "error":
            assert got[0] in ("error", "refused"), f"{ctx}: torch {exp}, pyth {got}"
            continue
        assert got[0] == "ok", f"{ctx}: torch returned {exp[1]}, pyth {got}"
        e, g = exp[1], got[1]
        assert str(e.dtype).split(".")[-1] == g.dtype.name, ctx
        assert g.tolist() == e.tolist() or (
            e.is_floating_point() and np.allclose(np.array(g.tolist(), dtype=float),
                                                  e.double().numpy(), rtol=1e-6, equal_nan=True)
        ), f"{ctx}: pyth {g.tolist()} torch {e.tolist()}"


def test_edge_ints_without_torch():
    """The same rules, with Python's own integers as the oracle."""
    t = _i64(pyth, 3, 0, 7)
    assert (t + 2**63).tolist() == [3 - 2**63, -(2**63), 7 - 2**63]       # 2**63 wraps
    assert (t < 2**63).tolist() == [False] * 3                           # as PyTorch
    assert (t * U64_MAX).tolist() == [-3, 0, -7]                         # U64_MAX is -1
    assert t.add(2**62, alpha=4).tolist() == [3, 0, 7]                    # the product wraps
    i8 = pyth.tensor([5], dtype=pyth.int8)
    assert (i8 + 1000).tolist() == [5 + 1000 - 1024]
    for call in (lambda: i8.clamp(min=1000), lambda: i8.clamp(max=-129),
                 lambda: i8.add(1, alpha=1000), lambda: i8.addcmul(i8, i8, value=1000),
                 lambda: t.clamp(max=2**63), lambda: t.add(t, alpha=2**63),
                 lambda: pyth.tensor([2]).pow(2**63),
                 lambda: pyth.tensor([5], dtype=pyth.uint8).clamp(max=256)):
        with pytest.raises(RuntimeError, match="without overflow"):
            call()
    assert pyth.tensor([5], dtype=pyth.uint8).clamp(min=-1).tolist() == [255]  # wraps, as PyTorch
    assert t.clamp(max=I64_MAX).tolist() == [3, 0, 7]
    assert (pyth.tensor([5.0]) + U64_MAX).tolist() == [float(U64_MAX)]


def test_float_parameters_must_fit_the_type():
    """clamp bounds and alpha beyond a float type's range raise, as PyTorch's checked
    conversion does; addcmul's value must fit the compute type (float for float16 and
    bfloat16, so 1e6 gives inf there); inf passes."""
    for dt, big in ((pyth.float32, 1e39), (pyth.float16, 1e6), (pyth.bfloat16, 1e39)):
        x = pyth.ones(2, dtype=dt)
        with pytest.raises(RuntimeError, match=f"type {dt.name} without overflow"):
            x.clamp(max=big)
        with pytest.raises(RuntimeError, match=f"type {dt.name} without overflow"):
            x.add(x, alpha=big)
        assert x.clamp(max=math.inf).tolist() == [1.0, 1.0]
    for dt in (pyth.float32, pyth.bfloat16):
        x = pyth.ones(2, dtype=dt)
        with pytest.raises(RuntimeError, match="type float32 without overflow"):
            x.addcmul(x, x, value=1e39)
    h = pyth.ones(2, dtype=pyth.float16)
    assert h.addcmul(h, h, value=1e6).tolist() == [math.inf, math.inf]


# ---- float16 / bfloat16 with a Python number ---------------------------------------------------

def test_bfloat16_times_257_rounds_once():
    """The issue's case: 0.75 * 257 = 192.75, rounded once to bfloat16: 193 (not 0.75 * 256)."""
    x = pyth.tensor(0.75, dtype=pyth.bfloat16)
    for r in (x * 257, 257 * x, x.mul(257), pyth.mul(x, 257), x.clone().mul_(257)):
        assert r.dtype is pyth.bfloat16 and r.item() == 193.0
    y = x.clone()
    y *= 257
    assert y.item() == 193.0
    assert (x + 257).item() == 256.0   # add rounds the number first (to 256), as PyTorch


# numbers no float16 or bfloat16 holds exactly
UNREPRESENTABLE = [257, 257.0, 1.0009765625 + 2**-12, 0.1, 3.3, -2.7, 1 / 3, 100.3, -513.0,
                   2049, 65519.0]

# op -> f(tensor, number): each form of the ops that take a number
REDUCED_OPS = {
    "add": lambda t, v: t + v, "sub": lambda t, v: t - v, "rsub": lambda t, v: v - t,
    "mul": lambda t, v: t * v, "rmul": lambda t, v: v * t, "div": lambda t, v: t / v,
    "mul_": lambda t, v: t.clone().mul_(v), "div_": lambda t, v: t.clone().div_(v),
    "add_": lambda t, v: t.clone().add_(v), "sub_": lambda t, v: t.clone().sub_(v),
    "floor_divide": lambda t, v: t // v,
    "div_trunc": lambda t, v: _mod(t).div(t, v, rounding_mode="trunc"),
    "div_floor": lambda t, v: _mod(t).div(t, v, rounding_mode="floor"),
    "eq": lambda t, v: t == v, "ne": lambda t, v: t != v, "lt": lambda t, v: t < v,
    "le": lambda t, v: t <= v, "gt": lambda t, v: t > v, "ge": lambda t, v: t >= v,
    "clamp_min": lambda t, v: t.clamp(min=v), "clamp_max": lambda t, v: t.clamp(max=v),
    "clamp_": lambda t, v: t.clone().clamp_(-abs(v), abs(v)),
    "maximum": lambda t, v: _mod(t).maximum(t, _mod(t).tensor(v, dtype=t.dtype)),
    "fmod": lambda t, v: _mod(t).fmod(t, v),
    "remainder": lambda t, v: _mod(t).remainder(t, v),
    "addcmul": lambda t, v: _mod(t).addcmul(t, t, t, value=v),
    "addcdiv": lambda t, v: _mod(t).addcdiv(t, t, t, value=v),
    "where": lambda t, v: _mod(t).where(t > 0, t, v),
    "masked_fill": lambda t, v: t.masked_fill(t > 0, v),
    "fill_": lambda t, v: t.clone().fill_(v),
    "lerp": lambda t, v: _mod(t).lerp(t, t * 2, v / 1000),
    "lerp_": lambda t, v: t.clone().lerp_(t * 2, v / 1000),
}


def _reduced_operand(mod, name: str):
    vals = np.concatenate([np.linspace(-600, 600, 97), [0.75, 1, 2, 3.3, -2.7, 256, 258, 257]])
    return mod.tensor(vals.tolist(), dtype=getattr(mod, name))


@needs_torch
@pytest.mark.parametrize("name", ["bfloat16", "float16"])
@pytest.mark.parametrize("op", sorted(REDUCED_OPS))
def test_reduced_ops_with_numbers_match_pytorch_exactly(name, op):
    """Each op with numbers the type cannot hold: PyTorch's values bit for bit (it keeps the
    number in float for mul, div and addcmul/addcdiv, rounds it first for the others)."""
    f = REDUCED_OPS[op]
    for v in UNREPRESENTABLE:
        ctx = f"{name} {op} {v!r}"
        got = _outcome(lambda: f(_reduced_operand(pyth, name), v))
        exp = _outcome(lambda: f(_reduced_operand(torch, name), v))
        if exp[0] != "ok" or op in STORED and v == 65519.0:
            # both refuse a number the type cannot hold (PyTorch's fill_ stores inf for it,
            # its masked_fill and where refuse: pyth stores it as it rounds)
            assert got[0] != "ok" or op in STORED, f"{ctx}: torch {exp}, pyth {got}"
            continue
        assert got[0] == "ok", f"{ctx}: torch returned, pyth {got}"
        g, e = got[1], exp[1]
        assert g.dtype.name == str(e.dtype).split(".")[-1], ctx
        gv = np.array(g.float().tolist() if g.dtype is not pyth.bool else g.tolist())
        ev = e.float().numpy() if e.dtype is not torch.bool else e.numpy()
        np.testing.assert_array_equal(gv, ev, err_msg=ctx)


def test_half_mul_and_div_round_once_numpy():
    """Without torch: float16 x * v and x / v are the float32 result rounded once (numpy)."""
    x = np.linspace(-600, 600, 97).astype(np.float16)
    p = pyth.tensor(x.tolist(), dtype=pyth.float16)
    for v in UNREPRESENTABLE:
        with np.errstate(over="ignore"):   # (65519 * 600 is inf in float16, as it should be)
            want_mul = (x.astype(np.float32) * np.float32(v)).astype(np.float16)
            want_div = (x.astype(np.float32) / np.float32(v)).astype(np.float16)
        np.testing.assert_array_equal(np.array((p * v).tolist(), dtype=np.float16), want_mul)
        np.testing.assert_array_equal(np.array((p / v).tolist(), dtype=np.float16), want_div)
        # add rounds the number to float16 first
        with np.errstate(over="ignore"):
            want_add = (x.astype(np.float32) + np.float32(np.float16(v))).astype(np.float16)
        np.testing.assert_array_equal(np.array((p + v).tolist(), dtype=np.float16), want_add)


@needs_torch
def test_reduced_addcmul_value_and_inplace_forms_match_pytorch():
    """addcmul_/addcdiv_ keep value in float too; the in-place and out= forms agree."""
    for name in ("bfloat16", "float16"):
        a_p, a_t = _reduced_operand(pyth, name), _reduced_operand(torch, name)
        for v in (257, 0.1, 3.3):
            for fn in ("addcmul_", "addcdiv_"):
                g = getattr(a_p.clone(), fn)(a_p, a_p, value=v)
                e = getattr(a_t.clone(), fn)(a_t, a_t, value=v)
                np.testing.assert_array_equal(np.array(g.float().tolist()), e.float().numpy(),
                                              err_msg=f"{name} {fn} {v}")
            out = pyth.empty(0, dtype=pdt(name))
            pyth.mul(a_p, v, out=out)
            np.testing.assert_array_equal(np.array(out.float().tolist()),
                                          torch.mul(a_t, v).float().numpy())


# ---- other numbers: layer parameters, C doubles, polygamma's order -----------------------------

@pytest.mark.parametrize("call", [
    lambda m, v: m.nn.functional.threshold(m.zeros(2), v, 0.0),
    lambda m, v: m.nn.functional.hardtanh(m.zeros(2), -1.0, v),
    lambda m, v: m.nn.functional.leaky_relu(m.zeros(2), v),
    lambda m, v: m.nn.functional.elu(m.zeros(2), alpha=v),
])
@pytest.mark.parametrize("v", [2**64, 2**2000])
def test_activation_parameters_are_scalar_arguments(call, v):
    """Activation parameters are PyTorch Scalars: an int beyond them is a RuntimeError (a
    float() of 2**2000 raised OverflowError before), and PyTorch refuses it too."""
    with pytest.raises(RuntimeError, match="without overflow") as info:
        call(pyth, v)
    assert not isinstance(info.value, OverflowError)
    if torch is not None:
        with pytest.raises((OverflowError, RuntimeError)):
            call(torch, v)


def test_c_double_arguments_take_any_int_a_double_holds():
    """uniform_'s bounds, isclose's tolerances and nan_to_num's values are C doubles in
    PyTorch, not Scalars: 2**64 is 1.8e19 there, as in PyTorch; 2**2000 is a RuntimeError."""
    u = pyth.zeros(1000).uniform_(0, 2**64)
    assert 0 <= u.min().item() and u.max().item() <= 2.0**64
    x = pyth.tensor([math.inf, 1.0, math.nan])
    assert x.nan_to_num(nan=2**64, posinf=2**64).tolist() == [2.0**64, 1.0, 2.0**64]
    assert pyth.isclose(x, x, rtol=2**64).tolist() == [True, True, False]
    if torch is not None:
        t = torch.tensor([math.inf, 1.0, math.nan])
        assert t.nan_to_num(nan=2**64, posinf=2**64).tolist() == [2.0**64, 1.0, 2.0**64]
    for call in (lambda: pyth.zeros(2).uniform_(0, 2**2000),
                 lambda: x.nan_to_num(posinf=2**2000), lambda: pyth.isclose(x, x, atol=2**2000)):
        with pytest.raises(RuntimeError, match="without overflow"):
            call()


def test_polygamma_of_a_huge_order_returns_at_once():
    """polygamma(n, x) summed the Hurwitz zeta series up to x = 20 + n: ~n steps per element,
    forever once x + 1 == x (n = 2**62 hung). The series now stops when what is left is below
    the sum's last bit. n beyond int64 is PyTorch's ValueError. In a child with a time limit."""
    with pytest.raises(ValueError, match="does not fit in int64"):
        pyth.polygamma(2**64, pyth.ones(2))
    code = ("import pyth, math\n"
            "x = pyth.tensor([1.0, 0.5], dtype=pyth.float64)\n"
            "for n in (2**62, 2**40, 10**6):\n"
            "    assert pyth.polygamma(n, x).tolist() == [-math.inf, -math.inf], n\n")
    run_child(code, timeout=120)
    if torch is not None:   # and the orders the series used to reach still agree with PyTorch
        x = np.array([1.0, 0.5, 2.0, 7.0, 0.1])
        for n in (1, 2, 5, 30, 100):
            np.testing.assert_allclose(
                pyth.polygamma(n, pyth.tensor(x)).numpy(),
                torch.polygamma(n, torch.tensor(x)).numpy(), rtol=1e-8, err_msg=f"n={n}")
