"""More activations through pyth.nn: selu, celu, mish, hardswish, hardsigmoid, logsigmoid,
softsign, hardshrink, softshrink, tanhshrink and threshold (pointwise THNN kernels), prelu, glu
and softmin, and their modules; the random rrelu (by its statistics, and as leaky_relu in eval
mode) and gumbel_softmax.

Values and first-order gradients against PyTorch on inputs that hit every branch (the kinks
themselves and either side of them, overflow-sized |x|, NaN and +-inf, where PyTorch's result is
defined), in float64, float32, float16 and bfloat16, contiguous, transposed, stepped, expanded,
0-dim and zero-size; double backward (create_graph=True) against PyTorch away from the kinks;
values against numpy references and gradients under gradcheck / gradgradcheck also without
PyTorch; the in-place variants; integer inputs, argument errors, signatures, module attributes
and reprs as PyTorch has them.

Two PyTorch float64 artefacts shape the data: celu's gradient carries alpha rounded to float32
(so the alphas here are exact in float32), and hardsigmoid's gradient is float32's 1/6 (so its
gradients compare at 1e-7)."""

from __future__ import annotations

import inspect
import math
import warnings

import numpy as np
import pytest
from _support import (
    P,
    T,
    close,
    dtype_name,
    needs_torch,
    raises_as_torch,
    rng,
    seeded,
    torch,
    twin_call,
    twin_grads,
)

import pyth
from pyth import nn
from pyth.autograd import gradcheck, gradgradcheck
from pyth.nn import functional as F

TF = torch.nn.functional if torch is not None else None
NAN, INF = math.nan, math.inf
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946

# (id, functional name, keyword arguments, kinks: the points where a branch changes)
ACTS = [
    ("selu", "selu", {}, [0.0]),
    ("celu", "celu", {}, [0.0]),
    ("celu-a0.5", "celu", {"alpha": 0.5}, [0.0]),
    ("celu-a1.5", "celu", {"alpha": 1.5}, [0.0]),
    ("mish", "mish", {}, []),
    ("hardswish", "hardswish", {}, [-3.0, 3.0]),
    ("hardsigmoid", "hardsigmoid", {}, [-3.0, 3.0]),
    ("logsigmoid", "logsigmoid", {}, []),
    ("softsign", "softsign", {}, [0.0]),
    ("hardshrink", "hardshrink", {}, [-0.5, 0.5]),
    ("hardshrink-l1.25", "hardshrink", {"lambd": 1.25}, [-1.25, 1.25]),
    ("hardshrink-l0", "hardshrink", {"lambd": 0.0}, [0.0]),
    ("softshrink", "softshrink", {}, [-0.5, 0.5]),
    ("softshrink-l1.25", "softshrink", {"lambd": 1.25}, [-1.25, 1.25]),
    ("tanhshrink", "tanhshrink", {}, []),
    ("threshold", "threshold", {"threshold": 0.5, "value": -2.0}, [0.5]),
    ("threshold-neg", "threshold", {"threshold": -1.0, "value": 3.0}, [-1.0]),
]
ACT_IDS = [a[0] for a in ACTS]
ACT_ARGS = [a[1:] for a in ACTS]
NAMES = list(dict.fromkeys(a[1] for a in ACTS))
KW_OF = {a[1]: a[2] for a in reversed(ACTS)}            # each name's first row's arguments
KINKS_OF = {a[1]: a[3] for a in reversed(ACTS)}
INPLACE = ["selu", "celu", "mish", "hardswish", "hardsigmoid", "threshold"]

# PyTorch's gradient at a NaN input differs between its vectorised loop and its scalar tail for
# these (NaN or the pass-through slope): no gradient is compared there
NAN_GRAD_VARIES = {"selu", "celu", "hardswish", "hardshrink", "softshrink"}
# float64 gradient tolerance: PyTorch's hardsigmoid slope is float32's 1/6
GRAD_TOL = {"hardsigmoid": 1e-7}


def _softplus(x):
    return np.logaddexp(0.0, x)


# numpy references in float64 (NaN and +-inf land where PyTorch puts them)
NP_REF = {
    "selu": lambda x: np.where(x > 0, SELU_SCALE * x, SELU_SCALE * SELU_ALPHA * np.expm1(x)),
    "celu": lambda x, alpha=1.0: np.where(x > 0, x, alpha * np.expm1(x / alpha)),
    "mish": lambda x: x * np.tanh(_softplus(x)),
    "hardswish": lambda x: x * np.clip(x + 3, 0, 6) / 6,
    "hardsigmoid": lambda x: np.clip(x + 3, 0, 6) / 6,
    "logsigmoid": lambda x: -_softplus(-x),
    "softsign": lambda x: x / (1 + np.abs(x)),
    "hardshrink": lambda x, lambd=0.5: np.where((x >= -lambd) & (x <= lambd), 0.0, x),
    "softshrink": lambda x, lambd=0.5: np.where(x > lambd, x - lambd,
                                                np.where(x < -lambd, x + lambd, x * 0)),
    "tanhshrink": lambda x: x - np.tanh(x),
    "threshold": lambda x, threshold, value: np.where(x <= threshold, value, x),
}

# large |x| (exp overflow in float32 at 89, in float64 at 710; mish's and softplus' 20), signed
# zeros, NaN and +-inf
SPECIAL = [0.0, -0.0, 1.0, -1.0, 20.0, -20.0, 21.0, -21.0, 50.0, -50.0, 89.0, -89.0, 710.0,
           -710.0, 1000.0, -1000.0, NAN, INF, -INF]


def call(lib, name, kw):
    """x -> name(x, **kw) in pyth (lib F) or PyTorch (lib TF)."""
    f = getattr(lib, name)
    return lambda x: f(x, **kw)


def near_kinks(kinks):
    """Each kink, 0, and each kink +- 1e-3 (no repeats)."""
    return list(dict.fromkeys([*kinks, 0.0, *[k + d for k in kinks for d in (-1e-3, 1e-3)]]))


def kink_input(kinks, shape=(4, 6), key=0):
    """Seeded values in (-5, 5) that start with near_kinks(kinks)."""
    a = rng(shape, "kinks", key).uniform(-5, 5, size=shape)
    special = near_kinks(kinks)[:a.size]
    a.flat[:len(special)] = special
    return a


def smooth_input(kinks, shape=(3, 4), key=0):
    """Seeded values in (-4, 4) at least 0.05 away from every kink (for finite differences)."""
    a = rng(shape, "smooth", key).uniform(-4, 4, size=shape)
    for k in kinks:
        a[np.abs(a - k) < 0.1] += 0.25
    for k in kinks:
        assert np.abs(a - k).min() >= 0.05
    return a


def upstream(shape, key="upstream"):
    return rng(tuple(shape), key).standard_normal(tuple(shape))


def as_np(x) -> np.ndarray:
    """A pyth or torch tensor's values as a float64 ndarray of its shape (any dtype)."""
    return np.array(x.detach().tolist(), dtype=np.float64).reshape(tuple(x.shape))


def near(p, t, tol, mask=None, x=None):
    """pyth p and torch t (or an ndarray) agree in shape and, within tol (relative and
    absolute), in value; NaN where the other has NaN; only where mask is True, if given. A
    failure lists the first mismatches (and the inputs x there, if given)."""
    want = as_np(t) if not isinstance(t, np.ndarray) else t
    got = as_np(p)
    assert got.shape == want.shape, (got.shape, want.shape)
    if mask is not None:
        got, want = got[mask], want[mask]
        x = None if x is None else np.asarray(x)[mask]
    bad = ~np.isclose(got, want, rtol=tol, atol=tol, equal_nan=True)
    msg = ""
    if bad.any():
        at = np.flatnonzero(bad)[:8]
        msg = (f"first mismatches (flat index, got, want{', x' if x is not None else ''}): "
               + "; ".join(f"({i}, {float(got.flat[i])!r}, {float(want.flat[i])!r}"
                           + (f", {float(np.asarray(x).flat[i])!r})" if x is not None else ")")
                           for i in at))
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True, err_msg=msg)


def same_outcome(fp, ft, tol=1e-6):
    """ft() (PyTorch) is the oracle: where it raises, fp() raises exactly the same class; where
    it returns, fp() returns the same dtype, shape and values."""
    try:
        want = ft()
    except Exception as e:  # noqa: BLE001
        with pytest.raises(Exception) as info:  # the class is compared below
            fp()
        assert type(info.value) is type(e), (f"pyth raised {type(info.value).__name__}: "
                                             f"{info.value}; torch {type(e).__name__}: {e}")
        return None
    got = fp()
    assert dtype_name(got) == dtype_name(want), (got.dtype, want.dtype)
    near(got, want, tol)
    return got


# one logical float64 operand in a layout: (leaf array, view applied to the leaf)
LAYOUTS = ["contig", "transposed", "stepped", "expanded", "scalar", "empty"]


def laid_out(a, layout):
    """(leaf array, view): the view of a leaf holding the array shows `a` (expanded: a's first
    row repeated; scalar: a's first value; empty: a (0, 3) tensor)."""
    if layout == "contig":
        return a, lambda x: x
    if layout == "transposed":
        return np.ascontiguousarray(a.T), lambda x: x.t()
    if layout == "stepped":
        wide = rng(a.shape, "wide").uniform(-5, 5, size=(a.shape[0], 2 * a.shape[1]))
        wide[:, ::2] = a
        return wide, lambda x: x[:, ::2]
    if layout == "expanded":
        return a[:1].copy(), lambda x: x.expand(*a.shape)
    if layout == "scalar":
        return np.array(a.flat[0]), lambda x: x
    if layout == "empty":
        return np.zeros((0, 3)), lambda x: x
    raise ValueError(layout)


def run_both(pf, tf, arrays, views=None, dtype="float64", tol=1e-12, gtol=None):
    """pf and tf on leaves holding `arrays` (each through its view, if any): same dtype, shape
    and values, the inputs left as they were; then backward with one seeded upstream gradient
    and the same gradient at every leaf. Returns the pyth result."""
    pl, tl, y, ty = twin_call(pf, tf, arrays, views, dtype)
    near(y, ty, tol)
    for p, t in zip(pl, tl):  # an out-of-place call leaves its operands alone
        near(p, t, 0.0)
    g = upstream(ty.shape)
    y.backward(pyth.tensor(g, dtype=y.dtype))
    ty.backward(torch.tensor(g, dtype=ty.dtype))
    for i, (p, t) in enumerate(zip(pl, tl)):
        assert p.grad is not None, f"no gradient reached input {i}"
        assert p.grad.dtype is p.dtype
        near(p.grad, t.grad, gtol or tol)
    return y


# ==== the pointwise activations ==================================================================

@needs_torch
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name,kw,kinks", ACT_ARGS, ids=ACT_IDS)
def test_pointwise_matches_torch(name, kw, kinks, layout):
    """float64 values and gradients at and around every kink, in every layout."""
    leaf, view = laid_out(kink_input(kinks), layout)
    y = run_both(call(F, name, kw), call(TF, name, kw), [leaf], [view],
                 gtol=GRAD_TOL.get(name, 1e-12))
    assert tuple(y.shape) == {"scalar": (), "empty": (0, 3)}.get(layout, (4, 6))


@needs_torch
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name,kw,kinks", ACT_ARGS, ids=ACT_IDS)
def test_pointwise_special_values_match_torch(name, kw, kinks, dtype):
    """Overflow-sized |x|, signed zeros, NaN and +-inf, and the kinks: values (NaN positions
    too) and gradients for a unit upstream gradient."""
    a = np.array(SPECIAL + near_kinks(kinks))
    x, tx = P(a, True, getattr(pyth, dtype)), T(a, True, getattr(torch, dtype))
    y, ty = call(F, name, kw)(x), call(TF, name, kw)(tx)
    assert dtype_name(y) == dtype
    tol = 1e-12 if dtype == "float64" else 2e-6
    near(y, ty, tol, x=a)
    y.backward(pyth.ones_like(y))
    ty.backward(torch.ones_like(ty))
    mask = ~np.isnan(a) if name in NAN_GRAD_VARIES else None
    near(x.grad, tx.grad, max(tol, GRAD_TOL.get(name, 0.0)), mask, x=a)
    # relative accuracy where PyTorch's result is a normal number, however small (a tail that
    # underflows to 0 or loses its digits to cancellation fails here; float32 allows for
    # PyTorch's own composed formulas)
    rtol = 1e-6 if dtype == "float64" else 1e-3
    for got, want in ((y, ty), (x.grad, tx.grad)):
        g, w = as_np(got), as_np(want)
        ok = np.isfinite(w) & (np.abs(w) >= np.finfo(dtype).tiny)
        if mask is not None:
            ok &= mask
        np.testing.assert_allclose(g[ok], w[ok], rtol=rtol, atol=0,
                                   err_msg=f"at x = {a[ok].tolist()}")


@pytest.mark.parametrize("name,kw,kinks", ACT_ARGS, ids=ACT_IDS)
def test_pointwise_matches_numpy(name, kw, kinks):
    """float64 values against numpy references (no PyTorch needed), special values included."""
    a = np.concatenate([kink_input(kinks).ravel(), SPECIAL, near_kinks(kinks)])
    y = call(F, name, kw)(P(a, False))
    assert y.dtype is pyth.float64 and tuple(y.shape) == a.shape
    with np.errstate(all="ignore"):
        want = NP_REF[name](a, **kw)
    near(y, want, 1e-12, x=a)


@pytest.mark.parametrize("name,kw,kinks", ACT_ARGS, ids=ACT_IDS)
def test_pointwise_gradcheck_and_gradgradcheck(name, kw, kinks):
    x = P(smooth_input(kinks))
    assert gradcheck(call(F, name, kw), (x,))
    assert gradgradcheck(call(F, name, kw), (x,))
    # permuted strides
    assert gradcheck(lambda t: call(F, name, kw)(t.t().contiguous().t()), (x,))


@needs_torch
@pytest.mark.parametrize("name,kw,kinks", [a for a in ACT_ARGS if a[0] != "hardsigmoid"],
                         ids=[i for i in ACT_IDS if i != "hardsigmoid"])
def test_pointwise_double_backward_matches_torch(name, kw, kinks):
    """create_graph=True, then the gradient of a weighted sum of the first gradient, with
    respect to the input and to the upstream gradient (away from the kinks, where the second
    derivative's convention is PyTorch's own)."""
    a = smooth_input(kinks, (4, 5), key=1)
    go, w = upstream(a.shape, "go"), upstream(a.shape, "w")
    x, tx = P(a), T(a)
    g0, tg0 = P(go), T(go)
    (gx,) = pyth.autograd.grad(call(F, name, kw)(x), x, g0, create_graph=True)
    (tgx,) = torch.autograd.grad(call(TF, name, kw)(tx), tx, tg0, create_graph=True)
    close(gx, tgx, 1e-12)
    (gx * pyth.tensor(w)).sum().backward()
    (tgx * torch.tensor(w)).sum().backward()
    if x.grad is None:  # pyth's convention (relu's too): a first gradient free of x leaves none
        assert not tx.grad.any(), tx.grad
    else:
        close(x.grad, tx.grad, 1e-10)
    close(g0.grad, tg0.grad, 1e-12)


def test_hardsigmoid_double_backward():
    """PyTorch has no double backward for hardsigmoid; the exact one: the first gradient is
    g / 6 inside (-3, 3) and 0 outside, so its gradient is 0 in x and that mask / 6 in g."""
    a = smooth_input([-3.0, 3.0], (4, 5), key=1)
    w = upstream(a.shape, "w")
    x, g0 = P(a), P(upstream(a.shape, "go"))
    (gx,) = pyth.autograd.grad(F.hardsigmoid(x), x, g0, create_graph=True)
    inside = (a > -3) & (a < 3)
    near(gx, np.where(inside, g0.detach().numpy() / 6, 0.0), 1e-15)
    (gx * pyth.tensor(w)).sum().backward()
    assert x.grad is None or not np.any(x.grad.numpy())
    near(g0.grad, np.where(inside, w / 6, 0.0), 1e-15)


FLOAT_TOL = {"float32": 1e-5, "float16": 1e-2, "bfloat16": 2e-2}


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("name,kw,kinks", ACT_ARGS, ids=ACT_IDS)
def test_pointwise_other_float_types(name, kw, kinks, dtype):
    """The result keeps the input's dtype; values and gradients as PyTorch's (the same rounded
    operands), transposed input."""
    leaf, view = laid_out(kink_input(kinks), "transposed")
    run_both(call(F, name, kw), call(TF, name, kw), [leaf], [view], dtype=dtype,
             tol=FLOAT_TOL[dtype])


INT_DTYPES = ["int64", "int32", "uint8", "bool"]


@needs_torch
@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("name", NAMES)
def test_pointwise_integer_and_bool_input(name, dtype):
    """PyTorch is the oracle: the same exception class where it has no kernel (softsign and
    tanhshrink compute in float32, threshold keeps the integer dtype)."""
    vals = [0, 1, 2, 5, 3, 7] if dtype in ("uint8", "bool") else [-3, -1, 0, 1, 2, 5]
    a = np.array(vals).astype(dtype)
    kw = KW_OF[name]
    same_outcome(lambda: call(F, name, kw)(pyth.tensor(a, dtype=getattr(pyth, dtype))),
                 lambda: call(TF, name, kw)(torch.tensor(a, dtype=getattr(torch, dtype))))
    if name in INPLACE:
        x, tx = pyth.tensor(a, dtype=getattr(pyth, dtype)), torch.tensor(a)
        got = same_outcome(lambda: call(F, name, {**kw, "inplace": True})(x),
                           lambda: call(TF, name, {**kw, "inplace": True})(tx))
        if got is not None:
            assert got is x


@needs_torch
@pytest.mark.parametrize("args", [(7, 20), (1.5, 20), (1, 2.5), (-1, 9), (-1.5, 9)])
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_threshold_integer_arguments(dtype, args):
    """threshold on integer tensors with integer and fractional threshold / value."""
    a = np.array([0, 1, 2, 3, 7, 9]).astype(dtype)
    same_outcome(lambda: F.threshold(pyth.tensor(a, dtype=getattr(pyth, dtype)), *args),
                 lambda: TF.threshold(torch.tensor(a), *args), tol=0.0)


# ---- in place ----------------------------------------------------------------------------------

@needs_torch
@pytest.mark.parametrize("name", INPLACE)
def test_inplace_matches_torch(name):
    """inplace=True on a non-leaf: the same tensor comes back holding the out-of-place values,
    and the gradient reaches the leaf behind it as in PyTorch."""
    kw, a = KW_OF[name], kink_input(KINKS_OF[name])
    x, tx = P(a), T(a)
    y, ty = x * 1.0, tx * 1.0
    ref = call(F, name, kw)(P(a, False))
    r = call(F, name, {**kw, "inplace": True})(y)
    tr = call(TF, name, {**kw, "inplace": True})(ty)
    assert r is y and tr is ty
    np.testing.assert_array_equal(as_np(r), as_np(ref))
    near(r, tr, 1e-12)
    g = upstream(a.shape)
    r.backward(pyth.tensor(g))
    tr.backward(torch.tensor(g))
    near(x.grad, tx.grad, GRAD_TOL.get(name, 1e-12))


@pytest.mark.parametrize("name", INPLACE)
def test_inplace_on_leaf_and_without_grad(name):
    kw, a = KW_OF[name], kink_input(KINKS_OF[name])
    ip = {**kw, "inplace": True}
    if torch is not None:  # the oracle for the class
        with pytest.raises(RuntimeError, match="leaf"):
            call(TF, name, ip)(T(a))
    leaf = P(a)
    with pytest.raises(RuntimeError, match="(?i)leaf"):
        call(F, name, ip)(leaf)
    np.testing.assert_array_equal(leaf.detach().numpy(), a)  # refused before writing
    want = as_np(call(F, name, kw)(P(a, False)))
    plain = P(a, False)
    assert call(F, name, ip)(plain) is plain
    np.testing.assert_array_equal(as_np(plain), want)
    with pyth.no_grad():  # no graph to protect: allowed on a leaf
        assert call(F, name, ip)(leaf) is leaf
    np.testing.assert_array_equal(as_np(leaf), want)
    # the module form
    m = getattr(nn, {"selu": "SELU", "celu": "CELU", "mish": "Mish", "hardswish": "Hardswish",
                     "hardsigmoid": "Hardsigmoid", "threshold": "Threshold"}[name])
    margs = (kw["threshold"], kw["value"]) if name == "threshold" else ()
    plain = P(a, False)
    assert m(*margs, inplace=True)(plain) is plain
    np.testing.assert_array_equal(as_np(plain), want)


# ---- argument checks ---------------------------------------------------------------------------

@pytest.mark.parametrize("form", ["functional", "inplace", "module"])
def test_celu_alpha_zero(form):
    a = np.array([-1.0, 0.0, 2.0])

    def run(lib_f, lib_nn, mk):
        if form == "functional":
            return lib_f.celu(mk(a), 0.0)
        if form == "inplace":
            return lib_f.celu(mk(a), alpha=0.0, inplace=True)
        return lib_nn.CELU(alpha=0.0)(mk(a))
    if torch is not None:
        with pytest.raises(RuntimeError) as te:
            run(TF, torch.nn, lambda v: T(v, False))
        assert type(te.value) is RuntimeError
    with pytest.raises(RuntimeError, match="(?i)alpha") as pe:
        run(F, nn, lambda v: P(v, False))
    assert type(pe.value) is RuntimeError


@needs_torch
@pytest.mark.parametrize("name", ["hardshrink", "softshrink"])
@pytest.mark.parametrize("lambd", [-1.0, -0.0, 0.0, 2.0])
def test_shrink_lambd_as_torch(name, lambd):
    """softshrink refuses a negative lambd; hardshrink takes it (everything passes)."""
    a = kink_input([-2.0, 2.0])
    same_outcome(lambda: getattr(F, name)(P(a, False), lambd),
                 lambda: getattr(TF, name)(T(a, False), lambd), tol=1e-12)


# ==== prelu ======================================================================================

# (input shape, weight shape, view of the input leaf)
PRELU_CASES = [
    ((2, 3, 4, 5), (1,), None),
    ((2, 3, 4, 5), (3,), None),
    ((4, 3), (1,), None),
    ((4, 3), (3,), None),
    ((6,), (1,), None),
    ((4, 3), (), None),                                       # 0-dim weight
    ((2, 3, 4), (3,), None),
    ((2, 4, 3), (3,), "transposed"),                          # (2, 3, 4), channels strided
    ((1, 3, 5), (3,), "expanded"),                            # (4, 3, 5)
    ((4, 6), (3,), "stepped"),                                # (4, 3)
    ((0, 3), (3,), None),
    ((2, 3, 0), (3,), None),
]
PRELU_VIEWS = {None: lambda x: x, "transposed": lambda x: x.transpose(1, 2),
               "expanded": lambda x: x.expand(4, 3, 5), "stepped": lambda x: x[:, ::2]}


def prelu_operands(shape, wshape, key=0):
    a = rng(shape, "prelu", key).uniform(-3, 3, size=shape)
    k = min(3, a.size)
    a.flat[:k] = [0.0, -0.0, 1e-3][:k]                        # the kink: weight * x at 0
    w = rng(wshape, "prelu-w", key).uniform(-1, 1, size=wshape)
    return a, w


@needs_torch
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape,wshape,view", PRELU_CASES,
                         ids=[f"{'x'.join(map(str, s))}-w{'x'.join(map(str, w)) or '0d'}-{v}"
                              for s, w, v in PRELU_CASES])
def test_prelu_matches_torch(shape, wshape, view, dtype):
    """Values and the gradients of input AND weight."""
    a, w = prelu_operands(shape, wshape)
    run_both(F.prelu, TF.prelu, [a, w], [PRELU_VIEWS[view], lambda t: t], dtype=dtype,
             tol=1e-12 if dtype == "float64" else 1e-5)


@needs_torch
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_prelu_half_types(dtype):
    a, w = prelu_operands((4, 3, 2), (3,))
    run_both(F.prelu, TF.prelu, [a, w], dtype=dtype, tol=FLOAT_TOL[dtype])


def test_prelu_matches_numpy():
    a, w = prelu_operands((2, 3, 4), (3,))
    y = F.prelu(P(a, False), P(w, False))
    near(y, np.where(a > 0, a, w[None, :, None] * a), 1e-15)
    y = F.prelu(P(a, False), P(w[:1], False))
    near(y, np.where(a > 0, a, w[0] * a), 1e-15)


@pytest.mark.parametrize("shape,wshape", [((2, 3, 2), (3,)), ((2, 3, 2), (1,)), ((5,), (1,)),
                                          ((4, 2), (2,))])
def test_prelu_gradcheck_and_gradgradcheck(shape, wshape):
    a, w = prelu_operands(shape, wshape, key=1)
    a[np.abs(a) < 0.1] = 0.4                                  # away from the kink
    x, wt = P(a), P(w)
    assert gradcheck(F.prelu, (x, wt))
    assert gradgradcheck(F.prelu, (x, wt))


PRELU_ERRORS = [
    ("count-mismatch", lambda f, mk: f.prelu(mk(np.ones((2, 3, 4))), mk(np.ones(4)))),
    ("1d-input-C-weight", lambda f, mk: f.prelu(mk(np.ones(3)), mk(np.ones(3)))),
    ("2d-weight", lambda f, mk: f.prelu(mk(np.ones((2, 3, 4))), mk(np.ones((3, 1))))),
    ("int", lambda f, mk: f.prelu(mk(np.ones((2, 3), np.int64)), mk(np.ones(3, np.int64)))),
    ("dtype-mismatch", lambda f, mk: f.prelu(mk(np.ones((2, 3))), mk(np.ones(3, np.float32)))),
]


@needs_torch
@pytest.mark.parametrize("case", PRELU_ERRORS, ids=[c[0] for c in PRELU_ERRORS])
def test_prelu_errors_as_torch(case):
    _, run = case
    same_outcome(lambda: run(F, lambda v: pyth.tensor(v, dtype=getattr(pyth, v.dtype.name))),
                 lambda: run(TF, torch.from_numpy))


@pytest.mark.parametrize("args,kwargs,n,init", [((), {}, 1, 0.25), ((3,), {}, 3, 0.25),
                                                  ((4, -0.5), {}, 4, -0.5),
                                                  ((), {"num_parameters": 2, "init": 0.1}, 2, 0.1)])
def test_prelu_module_parameter(args, kwargs, n, init):
    m = nn.PReLU(*args, **kwargs)
    assert isinstance(m.weight, nn.Parameter) and m.weight.requires_grad
    assert m.weight.dtype is pyth.float32 and tuple(m.weight.shape) == (n,)
    np.testing.assert_array_equal(m.weight.detach().numpy(), np.full(n, init, np.float32))
    assert [k for k, _ in m.named_parameters()] == ["weight"]
    assert list(m.state_dict()) == ["weight"]
    assert m.num_parameters == n and m.init == init
    if torch is not None:
        tm = torch.nn.PReLU(*args, **kwargs)
        assert repr(m) == repr(tm)
        np.testing.assert_array_equal(m.weight.detach().numpy(), tm.weight.detach().numpy())


@needs_torch
@pytest.mark.parametrize("n", [1, 3])
def test_prelu_module_matches_torch(n):
    m, tm = nn.PReLU(n).double(), torch.nn.PReLU(n).double()
    with pyth.no_grad():
        m.weight.copy_(pyth.tensor(np.linspace(-0.7, 0.9, n)))
    with torch.no_grad():
        tm.weight.copy_(torch.tensor(np.linspace(-0.7, 0.9, n)))
    a, _ = prelu_operands((2, 3, 4), (3,))
    x, tx = P(a), T(a)
    y, ty = m(x), tm(tx)
    close(y, ty, 1e-12)
    np.testing.assert_array_equal(as_np(y), as_np(F.prelu(x, m.weight)))
    g = upstream(a.shape)
    y.backward(pyth.tensor(g))
    ty.backward(torch.tensor(g))
    close(x.grad, tx.grad, 1e-12)
    close(m.weight.grad, tm.weight.grad, 1e-12)


# ==== glu ========================================================================================

GLU_CASES = [((4, 6), -1, None), ((4, 6), 0, None), ((2, 4, 3), 1, None), ((6,), 0, None),
             ((2, 3, 4), -1, None), ((6, 4), -1, "transposed"), ((4, 12), 1, "stepped"),
             ((1, 6), 0, "expanded"), ((0, 4), -1, None), ((3, 0), 1, None)]
GLU_VIEWS = {None: lambda x: x, "transposed": lambda x: x.t(), "stepped": lambda x: x[:, ::2],
             "expanded": lambda x: x.expand(4, 6)}


@needs_torch
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape,dim,view", GLU_CASES,
                         ids=[f"{'x'.join(map(str, s))}-{d}-{v}" for s, d, v in GLU_CASES])
def test_glu_matches_torch(shape, dim, view, dtype):
    a = rng(shape, "glu").standard_normal(shape) * 3
    y = run_both(lambda x: F.glu(x, dim), lambda x: TF.glu(x, dim), [a], [GLU_VIEWS[view]],
                 dtype=dtype, tol=1e-12 if dtype == "float64" else 1e-5)
    assert y.dtype is getattr(pyth, dtype)


def test_glu_matches_numpy_and_default_dim():
    a = rng("glu-np").standard_normal((3, 4, 6)) * 3
    lo, hi = a[..., :3], a[..., 3:]
    want = lo / (1 + np.exp(-hi))
    near(F.glu(P(a, False)), want, 1e-14)
    near(F.glu(P(a, False), -1), want, 1e-14)
    near(F.glu(P(a, False), dim=1), a[:, :2] / (1 + np.exp(-a[:, 2:])), 1e-14)


@pytest.mark.parametrize("shape,dim", [((3, 4), -1), ((4, 3), 0), ((2, 2, 4), 1)])
def test_glu_gradcheck_and_gradgradcheck(shape, dim):
    x = P(rng(shape, "glu-gc").standard_normal(shape))
    assert gradcheck(lambda t: F.glu(t, dim), (x,))
    assert gradgradcheck(lambda t: F.glu(t, dim), (x,))


GLU_ERRORS = [
    ("odd-last", lambda f, mk: f.glu(mk(np.ones((3, 5))))),
    ("odd-dim0", lambda f, mk: f.glu(mk(np.ones((3, 4))), 0)),
    ("0-dim", lambda f, mk: f.glu(mk(np.array(1.0)))),
    ("dim-out-of-range", lambda f, mk: f.glu(mk(np.ones((4, 4))), 2)),
    ("int", lambda f, mk: f.glu(mk(np.ones((2, 4), np.int64)))),
    ("bool", lambda f, mk: f.glu(mk(np.ones((2, 4), bool)))),
]


@needs_torch
@pytest.mark.parametrize("case", GLU_ERRORS, ids=[c[0] for c in GLU_ERRORS])
def test_glu_errors_as_torch(case):
    _, run = case
    same_outcome(lambda: run(F, lambda v: pyth.tensor(v)), lambda: run(TF, torch.from_numpy))


def test_glu_odd_size_raises():
    """Without PyTorch too: an odd halving dimension is refused, naming the dimension."""
    with pytest.raises(RuntimeError, match="(?i)even|halv"):
        F.glu(P(np.ones((3, 5)), False))


# ==== softmin ====================================================================================

SOFTMIN_CASES = [((4, 5), 1), ((4, 5), 0), ((2, 3, 4), -1), ((2, 3, 4), 1), ((6,), 0),
                 ((0, 3), 1), ((), 0)]


@needs_torch
@pytest.mark.parametrize("shape,dim", SOFTMIN_CASES)
def test_softmin_matches_torch(shape, dim):
    a = rng(shape, "softmin").standard_normal(shape) * 10
    run_both(lambda x: F.softmin(x, dim), lambda x: TF.softmin(x, dim), [a])


@needs_torch
def test_softmin_layouts_extremes_and_float32():
    b = rng("softmin-t").standard_normal((5, 3))
    run_both(lambda x: F.softmin(x.t(), 0), lambda x: TF.softmin(x.t(), 0), [b])
    run_both(lambda x: F.softmin(x[:, ::2], 1), lambda x: TF.softmin(x[:, ::2], 1), [b])
    run_both(lambda x: F.softmin(x.expand(4, 3), 0), lambda x: TF.softmin(x.expand(4, 3), 0),
             [b[:1]])
    run_both(lambda x: F.softmin(x, 1), lambda x: TF.softmin(x, 1), [b], dtype="float32",
             tol=1e-6)
    e = np.array([[INF, 0.0, 1.0], [INF, INF, INF], [-INF, 1.0, 0.0], [1000.0, -1000.0, 0.0],
                  [NAN, 0.0, 1.0]])
    near(F.softmin(P(e, False), 1), TF.softmin(T(e, False), 1), 1e-12)


def test_softmin_matches_numpy():
    a = rng("softmin-np").standard_normal((3, 4)) * 10
    e = np.exp(-(a - a.min(axis=1, keepdims=True)))
    near(F.softmin(P(a, False), 1), e / e.sum(axis=1, keepdims=True), 1e-14)


@needs_torch
@pytest.mark.parametrize("src,dst", [("float32", "float64"), ("float64", "float32"),
                                     ("int64", "float64"), ("int32", "float32")])
def test_softmin_dtype_argument(src, dst):
    """dtype= converts the input first: the result has it; the gradient keeps the input's."""
    a = np.array([[1, 2, -3], [0, 4, 1]]).astype(src)
    got = same_outcome(
        lambda: F.softmin(pyth.tensor(a, dtype=getattr(pyth, src)), 1, dtype=getattr(pyth, dst)),
        lambda: TF.softmin(torch.from_numpy(a), 1, dtype=getattr(torch, dst)))
    assert got.dtype is getattr(pyth, dst)
    # positionally, _stacklevel before dtype
    assert F.softmin(pyth.tensor(a, dtype=getattr(pyth, src)), 1, 3,
                     getattr(pyth, dst)).dtype is getattr(pyth, dst)
    if src.startswith("float"):
        x, tx = P(a, True, getattr(pyth, src)), T(a, True, getattr(torch, src))
        y, ty = F.softmin(x, 1, dtype=getattr(pyth, dst)), TF.softmin(tx, 1,
                                                                     dtype=getattr(torch, dst))
        g = upstream(a.shape)
        y.backward(pyth.tensor(g, dtype=y.dtype))
        ty.backward(torch.tensor(g, dtype=ty.dtype))
        assert dtype_name(x.grad) == dtype_name(tx.grad) == src
        near(x.grad, tx.grad, 1e-6)


@pytest.mark.parametrize("shape,implicit", [((5,), 0), ((3, 4), 1), ((2, 3, 4), 0),
                                            ((2, 2, 3, 4), 1)])
def test_softmin_implicit_dim_warns(shape, implicit):
    """dim=None picks PyTorch's legacy dim (0 for 0/1/3-D, else 1) with a UserWarning that
    points at the caller."""
    a = rng(shape, "softmin-implicit").standard_normal(shape)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        y = F.softmin(P(a, False))
    hits = [w for w in rec if issubclass(w.category, UserWarning)
            and "implicit dimension choice for softmin" in str(w.message).lower()]
    assert len(hits) == 1, [str(w.message) for w in rec]
    assert hits[0].filename == __file__
    np.testing.assert_array_equal(as_np(y), as_np(F.softmin(P(a, False), implicit)))
    with pytest.warns(UserWarning, match="(?i)implicit dimension"):
        ym = nn.Softmin()(P(a, False))
    np.testing.assert_array_equal(as_np(ym), as_np(y))
    if torch is not None:
        with pytest.warns(UserWarning, match="Implicit dimension choice for softmin"):
            ty = TF.softmin(T(a, False))
        near(y, ty, 1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                        # an explicit dim: no warning
        F.softmin(P(a, False), implicit)
        nn.Softmin(implicit)(P(a, False))


@pytest.mark.parametrize("shape,dim", [((3, 4), 1), ((3, 4), 0), ((2, 3, 2), -1)])
def test_softmin_gradcheck_and_gradgradcheck(shape, dim):
    x = P(rng(shape, "softmin-gc").standard_normal(shape))
    assert gradcheck(lambda t: F.softmin(t, dim), (x,))
    assert gradgradcheck(lambda t: F.softmin(t, dim), (x,))


@needs_torch
@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_softmin_integer_input(dtype):
    a = np.array([[1, 0, 1], [0, 1, 1]]).astype(dtype)
    same_outcome(lambda: F.softmin(pyth.tensor(a), 1),
                 lambda: TF.softmin(torch.from_numpy(a), 1))


# ==== prelu, glu and softmin: double backward and half types ====================================

def _away_from_zero(shape, key):
    a = rng(shape, "db", key).uniform(-3, 3, size=shape)
    a[np.abs(a) < 0.1] = 0.4
    return a


# (id, the function of a functional module, leaf arrays)
SECOND_ORDER = [
    ("prelu-C", lambda f: f.prelu, [_away_from_zero((2, 3, 4), 0), np.array([0.3, -0.2, 1.5])]),
    ("prelu-1", lambda f: f.prelu, [_away_from_zero((4, 3), 1), np.array([-0.4])]),
    ("glu", lambda f: (lambda x: f.glu(x, 1)), [_away_from_zero((3, 4), 2)]),
    ("glu-dim0", lambda f: (lambda x: f.glu(x, 0)), [_away_from_zero((4, 3), 3)]),
    ("softmin", lambda f: (lambda x: f.softmin(x, 1)), [_away_from_zero((3, 4), 4)]),
]


@needs_torch
@pytest.mark.parametrize("case", SECOND_ORDER, ids=[c[0] for c in SECOND_ORDER])
def test_other_double_backward_matches_torch(case):
    """create_graph=True through prelu (input and weight), glu and softmin, then the gradient of
    a weighted sum of the first gradients, as in PyTorch."""
    _, fn, arrays = case
    pl, tl = [P(a) for a in arrays], [T(a) for a in arrays]
    y, ty = fn(F)(*pl), fn(TF)(*tl)
    go = upstream(ty.shape, "go")
    g0, tg0 = P(go), T(go)
    gs = pyth.autograd.grad(y, pl, g0, create_graph=True)
    tgs = torch.autograd.grad(ty, tl, tg0, create_graph=True)
    total, ttotal = None, None
    for i, (g, tg) in enumerate(zip(gs, tgs)):
        close(g, tg, 1e-12)
        w = upstream(tg.shape, f"w{i}")
        part, tpart = (g * pyth.tensor(w)).sum(), (tg * torch.tensor(w)).sum()
        total = part if total is None else total + part
        ttotal = tpart if ttotal is None else ttotal + tpart
    total.backward()
    ttotal.backward()
    for p, t in zip(pl + [g0], tl + [tg0]):
        if p.grad is None:
            assert t.grad is None or not t.grad.any(), t.grad
        else:
            close(p.grad, t.grad, 1e-10)


@needs_torch
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("which", ["glu", "softmin"])
def test_glu_softmin_half_types(which, dtype):
    a = rng("half", which).standard_normal((4, 6)) * 2
    run_both(lambda x: getattr(F, which)(x, 1), lambda x: getattr(TF, which)(x, 1), [a],
             dtype=dtype, tol=FLOAT_TOL[dtype])


# ==== modules ====================================================================================

# (class name, positional args, keyword args, in place, the functional form in pyth)
MODULES = [
    ("SELU", (), {}, False, lambda x: F.selu(x)),
    ("SELU", (), {"inplace": True}, True, lambda x: F.selu(x)),
    ("CELU", (), {}, False, lambda x: F.celu(x)),
    ("CELU", (0.5,), {}, False, lambda x: F.celu(x, 0.5)),
    ("CELU", (1.5, True), {}, True, lambda x: F.celu(x, alpha=1.5)),
    ("Mish", (), {}, False, lambda x: F.mish(x)),
    ("Mish", (True,), {}, True, lambda x: F.mish(x)),
    ("Hardswish", (), {}, False, lambda x: F.hardswish(x)),
    ("Hardswish", (), {"inplace": True}, True, lambda x: F.hardswish(x)),
    ("Hardsigmoid", (), {}, False, lambda x: F.hardsigmoid(x)),
    ("Hardsigmoid", (True,), {}, True, lambda x: F.hardsigmoid(x)),
    ("LogSigmoid", (), {}, False, lambda x: F.logsigmoid(x)),
    ("Softsign", (), {}, False, lambda x: F.softsign(x)),
    ("Hardshrink", (), {}, False, lambda x: F.hardshrink(x)),
    ("Hardshrink", (0.25,), {}, False, lambda x: F.hardshrink(x, 0.25)),
    ("Softshrink", (), {}, False, lambda x: F.softshrink(x)),
    ("Softshrink", (), {"lambd": 1.5}, False, lambda x: F.softshrink(x, lambd=1.5)),
    ("Tanhshrink", (), {}, False, lambda x: F.tanhshrink(x)),
    ("Threshold", (0.1, 20), {}, False, lambda x: F.threshold(x, 0.1, 20)),
    ("Threshold", (0.5, -2.0, True), {}, True, lambda x: F.threshold(x, 0.5, -2.0)),
    ("Threshold", (), {"threshold": -1, "value": 0.5}, False, lambda x: F.threshold(x, -1, 0.5)),
    ("PReLU", (), {}, False, lambda x: F.prelu(x, pyth.tensor([0.25], dtype=pyth.float64))),
    ("PReLU", (3, 0.1), {}, False,                             # 0.1 as float32, then .double()
     lambda x: F.prelu(x, pyth.full((3,), 0.1, dtype=pyth.float32).double())),
    ("PReLU", (), {"num_parameters": 3}, False,
     lambda x: F.prelu(x, pyth.full((3,), 0.25, dtype=pyth.float64))),
    ("GLU", (), {}, False, lambda x: F.glu(x)),
    ("GLU", (0,), {}, False, lambda x: F.glu(x, 0)),
    ("Softmin", (), {"dim": 1}, False, lambda x: F.softmin(x, 1)),
    ("Softmin", (-1,), {}, False, lambda x: F.softmin(x, -1)),
    ("Softmin", (), {}, False, lambda x: F.softmin(x, 0)),     # 3-D input: implicit dim 0
]
MODULE_IDS = [f"{c}-{i}" for i, (c, *_) in enumerate(MODULES)]
ATTRS = ["inplace", "alpha", "lambd", "threshold", "value", "dim", "num_parameters", "init"]


@pytest.mark.filterwarnings("ignore:Implicit dimension choice")
@pytest.mark.parametrize("cls,args,kwargs,inplace,func", MODULES, ids=MODULE_IDS)
def test_module_matches_functional_and_torch(cls, args, kwargs, inplace, func):
    """Same values as the functional form (and as PyTorch's module); the in-place ones return
    their input; the same repr and attributes as PyTorch's."""
    a = kink_input([-3.0, -0.5, 0.0, 0.5, 3.0], (4, 3, 2))
    m = getattr(nn, cls)(*args, **kwargs)
    if cls == "PReLU":
        m = m.double()
    x = P(a, False)
    y = m(x)
    assert (y is x) == inplace
    np.testing.assert_array_equal(as_np(y), as_np(func(P(a, False))))
    if torch is not None:
        tm = getattr(torch.nn, cls)(*args, **kwargs)
        assert repr(m) == repr(tm)
        for attr in ATTRS:
            if hasattr(tm, attr):
                assert getattr(m, attr) == getattr(tm, attr), attr
        if cls == "PReLU":
            tm = tm.double()
        near(y, tm(T(a, False)), 1e-12)


@needs_torch
@pytest.mark.filterwarnings("ignore:Implicit dimension choice")
@pytest.mark.parametrize("cls,args,kwargs,inplace,func", MODULES, ids=MODULE_IDS)
def test_module_gradient_matches_torch(cls, args, kwargs, inplace, func):
    """Through the module on a non-leaf (so that the in-place ones may write)."""
    a = kink_input([-3.0, -0.5, 0.0, 0.5, 3.0], (4, 3, 2), key=2)
    m, tm = getattr(nn, cls)(*args, **kwargs), getattr(torch.nn, cls)(*args, **kwargs)
    if cls == "PReLU":
        m, tm = m.double(), tm.double()
    x, tx = P(a), T(a)
    y, ty = m(x * 1.0), tm(tx * 1.0)
    g = upstream(ty.shape)
    y.backward(pyth.tensor(g))
    ty.backward(torch.tensor(g))
    near(x.grad, tx.grad, GRAD_TOL.get(cls.lower(), 1e-12))
    if cls == "PReLU":
        near(m.weight.grad, tm.weight.grad, 1e-12)


def test_module_defaults():
    assert nn.CELU().alpha == 1.0 and nn.CELU().inplace is False
    assert nn.SELU().inplace is False and nn.Mish().inplace is False
    assert nn.Hardswish().inplace is False and nn.Hardsigmoid().inplace is False
    assert nn.Hardshrink().lambd == 0.5 and nn.Softshrink().lambd == 0.5
    assert nn.GLU().dim == -1 and nn.Softmin().dim is None
    t = nn.Threshold(0.1, 20)
    assert (t.threshold, t.value, t.inplace) == (0.1, 20, False)
    with pytest.raises(TypeError):
        nn.Threshold(0.1)                                      # value has no default
    p = nn.PReLU()
    assert p.num_parameters == 1 and p.init == 0.25


# ==== signatures =================================================================================

REQ = inspect.Parameter.empty                                  # no default

# name -> [(parameter, default)]; PyTorch's Python-level functions are checked against it too
SIGNATURES = {
    "selu": [("input", REQ), ("inplace", False)],
    "celu": [("input", REQ), ("alpha", 1.0), ("inplace", False)],
    "mish": [("input", REQ), ("inplace", False)],
    "hardswish": [("input", REQ), ("inplace", False)],
    "hardsigmoid": [("input", REQ), ("inplace", False)],
    "logsigmoid": [("input", REQ)],
    "softsign": [("input", REQ)],
    "hardshrink": [("input", REQ), ("lambd", 0.5)],
    "softshrink": [("input", REQ), ("lambd", 0.5)],
    "tanhshrink": [("input", REQ)],
    "threshold": [("input", REQ), ("threshold", REQ), ("value", REQ), ("inplace", False)],
    "prelu": [("input", REQ), ("weight", REQ)],
    "glu": [("input", REQ), ("dim", -1)],
    "softmin": [("input", REQ), ("dim", None), ("_stacklevel", 3), ("dtype", None)],
}


def _params(f):
    return [(p.name, p.default) for p in inspect.signature(f).parameters.values()]


@pytest.mark.parametrize("name", list(SIGNATURES))
def test_functional_signature(name):
    want = SIGNATURES[name]
    assert _params(getattr(F, name)) == want
    if torch is not None:
        try:
            tparams = _params(getattr(TF, name))
        except ValueError:                                     # a builtin: no signature
            return
        assert tparams == want


MODULE_SIGNATURES = {
    "SELU": [("inplace", False)], "CELU": [("alpha", 1.0), ("inplace", False)],
    "Mish": [("inplace", False)], "Hardswish": [("inplace", False)],
    "Hardsigmoid": [("inplace", False)], "Hardshrink": [("lambd", 0.5)],
    "Softshrink": [("lambd", 0.5)],
    "Threshold": [("threshold", REQ), ("value", REQ), ("inplace", False)],
    "PReLU": [("num_parameters", 1), ("init", 0.25)], "GLU": [("dim", -1)],
    "Softmin": [("dim", None)],
}


@pytest.mark.parametrize("cls", list(MODULE_SIGNATURES))
def test_module_signature(cls):
    want = MODULE_SIGNATURES[cls]
    got = _params(getattr(nn, cls).__init__)[1:]
    assert got[:len(want)] == want
    if torch is not None:
        assert _params(getattr(torch.nn, cls).__init__)[1:len(want) + 1] == want


@needs_torch
def test_module_class_relations_as_torch():
    """No activation module is a subclass of another unless PyTorch's is (code that asks
    isinstance(m, nn.Softmax) must not catch a Softmin)."""
    names = ["SELU", "CELU", "Mish", "Hardswish", "Hardsigmoid", "LogSigmoid", "Softsign",
             "Hardshrink", "Softshrink", "Tanhshrink", "Threshold", "PReLU", "GLU", "Softmin",
             "Softmax", "LogSoftmax", "ELU", "ReLU", "ReLU6", "Hardtanh", "Sigmoid", "Tanh"]
    for a in names:
        for b in names:
            assert issubclass(getattr(nn, a), getattr(nn, b)) == \
                issubclass(getattr(torch.nn, a), getattr(torch.nn, b)), (a, b)


INPLACE_ACTIVATIONS = [("relu", {}), ("leaky_relu", {}), ("elu", {}), ("hardtanh", {}),
                       ("relu6", {}), ("silu", {}), ("selu", {}), ("celu", {}), ("mish", {}),
                       ("hardswish", {}), ("hardsigmoid", {}),
                       ("threshold", {"threshold": 0.1, "value": 2.0})]


@pytest.mark.parametrize("name,kw", INPLACE_ACTIVATIONS, ids=[n for n, _ in INPLACE_ACTIVATIONS])
def test_inplace_on_expanded_input_raises(name, kw):
    """An in-place activation on a tensor whose elements share memory (expanded) raises
    RuntimeError and leaves it alone, as PyTorch's in-place ops do (PyTorch's threshold_ alone
    does not check, and writes the shared elements more than once)."""
    base = pyth.tensor([[-1.0, 0.5, 2.0]])
    x = base.expand(2, 3)
    with pytest.raises(RuntimeError, match="single memory location"):
        getattr(F, name)(x, inplace=True, **kw)
    np.testing.assert_array_equal(base.numpy(), [[-1.0, 0.5, 2.0]])
    if torch is not None and name != "threshold":
        with pytest.raises(RuntimeError):
            getattr(TF, name)(torch.tensor([[-1.0, 0.5, 2.0]]).expand(2, 3), inplace=True, **kw)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("form", ["pyth.relu", "Tensor.relu", "F.relu", "nn.ReLU"])
def test_relu_keeps_the_sign_of_zero_and_nan(dt, form):
    """relu is x where x >= 0 or NaN, else 0: -0 stays -0 (PyTorch's bits), in every form."""
    vals = [-0.0, 0.0, -1.0, 2.0, NAN, -INF, INF]
    f = {"pyth.relu": pyth.relu, "Tensor.relu": lambda x: x.relu(), "F.relu": F.relu,
         "nn.ReLU": nn.ReLU()}[form]
    x = pyth.tensor(vals, dtype=getattr(pyth, dt))
    got = np.array(f(x[::1]).tolist())
    want = np.array([-0.0, 0.0, 0.0, 2.0, NAN, 0.0, INF])
    assert np.array_equal(np.signbit(got), np.signbit(want))
    np.testing.assert_array_equal(got, want)
    xt = pyth.tensor([[-0.0, -3.0], [4.0, 0.0]], dtype=getattr(pyth, dt)).t()   # transposed
    assert np.signbit(np.array(f(xt).tolist())).tolist() == [[True, False], [False, False]]


# ==== rrelu and gumbel_softmax (composed, random) =================================================

def expanded(x):
    """A stride-0 view: the first sample repeated along dim 0."""
    return x[:1].expand(3, *x.shape[1:])


def test_rrelu_training_statistics_and_gradient():
    x = P(seeded(200000), True)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    xs, ys = x.detach().numpy(), y.detach().numpy()
    np.testing.assert_array_equal(ys[xs > 0], xs[xs > 0])
    slopes = ys[xs < 0] / xs[xs < 0]
    assert 0.1 <= slopes.min() and slopes.max() <= 0.3
    assert abs(slopes.mean() - 0.2) < 2e-3 and abs(slopes.var() - 0.04 / 12) < 2e-4
    assert len(np.unique(slopes)) > len(slopes) // 2          # one slope per element
    y.sum().backward()
    g = x.grad.numpy()
    np.testing.assert_array_equal(g[xs > 0], 1)
    np.testing.assert_allclose(g[xs < 0], slopes, rtol=1e-12)  # the slope drawn is the grad


@needs_torch
def test_rrelu_eval_is_deterministic_leaky_relu():
    twin_grads(lambda x: F.rrelu(x, 0.1, 0.4), lambda x: TF.rrelu(x, 0.1, 0.4), [seeded(3, 4)])
    pm, tm = nn.RReLU(0.1, 0.3), torch.nn.RReLU(0.1, 0.3)
    assert repr(pm) == repr(tm) and repr(nn.RReLU(inplace=True)) == repr(
        torch.nn.RReLU(inplace=True))
    pm.eval()
    tm.eval()
    x = seeded(4, 5)
    a, b = pm(P(x, False)), pm(P(x, False))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    close(a, tm(T(x, False)))


def test_rrelu_inplace_and_gradcheck():
    x = pyth.tensor(seeded(50))
    out = F.rrelu_(x, 0.2, 0.2, training=True)
    assert out is x
    np.testing.assert_allclose(x.numpy(), np.where(seeded(50) > 0, seeded(50), 0.2 * seeded(50)))
    assert gradcheck(lambda t: F.rrelu(t, 0.1, 0.3), (P(seeded(3, 4)),))
    assert gradcheck(lambda t: F.rrelu(t, 0.25, 0.25, training=True), (P(seeded(3, 4)),))


@needs_torch
@pytest.mark.parametrize("dtype,tol", [("float32", 1e-5), ("float64", 1e-9)])
def test_rrelu_expanded_input_and_dtypes(dtype, tol):
    cases = [(lambda f: lambda x: f.rrelu(x))]
    for make in cases:
        twin_grads(make(F), make(TF), [seeded(3, 2, 3, 4)], [expanded], dtype, tol)


def test_gumbel_softmax():
    logits = P(np.log([[0.7, 0.2, 0.1]] * 20000), True)
    soft = F.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(soft.detach().numpy().sum(-1), 1, rtol=1e-12)
    hard = F.gumbel_softmax(logits, hard=True)
    h = hard.detach().numpy()
    assert set(np.unique(h)) == {0.0, 1.0} and (h.sum(-1) == 1).all()
    np.testing.assert_allclose(h.mean(0), [0.7, 0.2, 0.1], atol=0.015)  # Gumbel-max sampling
    (hard * P(seeded(20000, 3), False)).sum().backward()
    assert logits.grad is not None and np.abs(logits.grad.numpy()).sum() > 0


def _x(*shape):
    return seeded(*shape)


RRELU_ERRORS = [
    ("rrelu-int", lambda f, mk: f.rrelu(mk(np.ones(3, np.int64)), training=True), RuntimeError),
    ("rrelu-bounds", lambda f, mk: f.rrelu(mk(_x(3)), 0.5, 0.1, True), RuntimeError),
]


@pytest.mark.parametrize("case", RRELU_ERRORS, ids=[c[0] for c in RRELU_ERRORS])
def test_rrelu_errors(case):
    _, call, exc = case
    raises_as_torch(call, exc)


# ==== the recorded node: its name, a second backward, half types under create_graph ============

NODE_CASES = [("relu", {}), ("leaky_relu", {}), ("elu", {}), ("gelu", {}),
              ("gelu", {"approximate": "tanh"}), ("silu", {}), ("softplus", {}), ("hardtanh", {}),
              ("selu", {}), ("celu", {}), ("mish", {}), ("hardswish", {}), ("hardsigmoid", {}),
              ("logsigmoid", {}), ("hardshrink", {}), ("softshrink", {}),
              ("threshold", {"threshold": 0.5, "value": -1.0}), ("softmax", {"dim": 1}),
              ("log_softmax", {"dim": 0})]
NODE_IDS = [name + "".join(f"-{v}" for v in kw.values()) for name, kw in NODE_CASES]


@needs_torch
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("name,kw", NODE_CASES, ids=NODE_IDS)
def test_recorded_node_is_torchs(name, kw, dtype):
    """Every float dtype records the node PyTorch records (half and bfloat16 too, which compute
    in float32), and the node names itself and prints as any node."""
    y = getattr(F, name)(P(seeded(3, 4), dtype=getattr(pyth, dtype)), **kw)
    ty = getattr(TF, name)(T(seeded(3, 4), dtype=getattr(torch, dtype)), **kw)
    assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__
    assert y.grad_fn.name() == ty.grad_fn.name()
    assert repr(y.grad_fn).startswith(f"<{ty.grad_fn.name()} object at ")
    assert [type(f).__name__ for f, _ in y.grad_fn.next_functions] == ["AccumulateGrad"]


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("name,kw", [("relu", {}), ("gelu", {}), ("softmax", {"dim": 1}),
                                     ("log_softmax", {"dim": 1})])
def test_second_backward_without_retain_graph_raises_as_torch(name, kw, dtype):
    """The node frees what it saved after one backward: a second raises PyTorch's error, and
    with retain_graph=True the second gives the same gradient again."""
    msgs = []
    for lib, fn in ((pyth, F), (torch, TF)):
        x = lib.tensor(seeded(3, 4), dtype=getattr(lib, dtype), requires_grad=True)
        y = getattr(fn, name)(x * 1, **kw)
        g = lib.tensor(seeded(3, 4, key=1), dtype=x.dtype)
        y.backward(g, retain_graph=True)
        first = x.grad.clone()
        y.backward(g)
        close(x.grad.float(), (2 * first).float(), 1e-2)
        with pytest.raises(RuntimeError) as e:
            y.backward(g)
        msgs.append(str(e.value).split(".")[0])
    assert msgs[0] == msgs[1]


@needs_torch
@pytest.mark.parametrize("dtype,tol", [("float16", 2e-2), ("bfloat16", 8e-2)])
@pytest.mark.parametrize("name,kw", [("gelu", {}), ("silu", {}), ("elu", {}), ("mish", {}),
                                     ("softplus", {}), ("softmax", {"dim": 1}),
                                     ("log_softmax", {"dim": 1})])
def test_half_types_double_backward_match_torch(name, kw, dtype, tol):
    """create_graph=True on a half or bfloat16 input: the formula's gradient keeps the input's
    dtype and differentiates again, as PyTorch's (which rounds the same operands)."""
    a = np.round(seeded(3, 4, key=2) * 2, 1)
    grads = []
    for lib, fn in ((pyth, F), (torch, TF)):
        x = lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True)
        g0 = lib.tensor(np.round(seeded(3, 4, key=3), 1), dtype=x.dtype)
        gx, = lib.autograd.grad(getattr(fn, name)(x, **kw), x, g0, create_graph=True)
        assert gx.dtype == x.dtype and gx.requires_grad
        ggx, = lib.autograd.grad((gx * gx).sum(), x)
        assert ggx.dtype == x.dtype
        grads.append((gx.detach().float().numpy(), ggx.float().numpy()))
    (gx, ggx), (tgx, tggx) = grads
    np.testing.assert_allclose(gx, tgx, rtol=tol, atol=tol)
    np.testing.assert_allclose(ggx, tggx, rtol=tol, atol=tol * max(1.0, np.abs(tggx).max()))
