"""Pooling (generic/THNNPooling.c through pyth.nn): max (with indices), average and adaptive
average pooling against PyTorch in float64, under gradcheck always, with PyTorch's output
sizes, repr and errors. Max unpooling and power-average (LP) pooling, composed of differentiable
ops: values and gradients against PyTorch, numpy references, gradcheck, modules and PyTorch's
exception classes."""

from __future__ import annotations

import re

import numpy as np
import pytest
from _support import P, T, close, needs_torch, raises_as_torch, seeded, torch, twin_grads

import pyth
from pyth import nn
from pyth.autograd import gradcheck, gradgradcheck
from pyth.nn import functional as F

TF = torch.nn.functional if torch is not None else None
RNG = np.random.default_rng(11)


def arr(*shape):
    return RNG.standard_normal(shape)


def run_both(pf, tf, x, tol=1e-9):
    px, tx = P(x), T(x)
    y, ty = pf(px), tf(tx)
    if isinstance(ty, tuple):
        np.testing.assert_array_equal(y[1].numpy(), ty[1].numpy())
        y, ty = y[0], ty[0]
    close(y, ty, tol)
    if ty.numel():
        g = arr(*ty.shape)
        y.backward(pyth.tensor(g))
        ty.backward(torch.tensor(g))
        close(px.grad, tx.grad, tol)


# (input shape, kernel, stride, padding, dilation, ceil_mode)
MAX2D = [
    ((2, 3, 7, 6), 2, None, 0, 1, False),
    ((2, 2, 7, 6), 3, 2, 1, 1, True),
    ((1, 2, 9, 8), (3, 2), (2, 1), (1, 1), (2, 1), False),
    ((2, 1, 8, 9), 2, 3, 1, 1, True),          # stride > kernel
    ((2, 1, 7, 7), 3, 2, 1, 2, True),           # dilation + ceil
    ((3, 6, 5), 2, 1, 1, 1, False),             # unbatched
    ((0, 2, 4, 4), 2, 2, 0, 1, False),          # zero-size batch
]


@needs_torch
@pytest.mark.parametrize("cfg", MAX2D)
def test_max_pool2d_matches_torch(cfg):
    shape, k, s, p, d, ceil = cfg
    run_both(lambda x: F.max_pool2d(x, k, s, p, d, ceil, return_indices=True),
             lambda x: torch.nn.functional.max_pool2d(x, k, s, p, d, ceil, return_indices=True),
             arr(*shape))


@needs_torch
@pytest.mark.parametrize("cfg", [((2, 3, 10), 3, 2, 1, 1, False), ((1, 2, 9), 2, None, 1, 2, True),
                                 ((3, 8), 3, 1, 0, 1, False)])
def test_max_pool1d_matches_torch(cfg):
    shape, k, s, p, d, ceil = cfg
    run_both(lambda x: F.max_pool1d(x, k, s, p, d, ceil, return_indices=True),
             lambda x: torch.nn.functional.max_pool1d(x, k, s, p, d, ceil, return_indices=True),
             arr(*shape))


@needs_torch
def test_max_pool_nan_inf_and_ties():
    x = arr(1, 1, 4, 4)
    x[0, 0, 1, 1] = np.nan
    x[0, 0, 2, 2:] = -np.inf
    x[0, 0, 3, 2:] = -np.inf
    x[0, 0, 0, 2:] = 5.0
    x[0, 0, 1, 2:] = 5.0
    y, i = F.max_pool2d(P(x, False), 2, return_indices=True)
    ty, ti = torch.nn.functional.max_pool2d(T(x, False), 2, return_indices=True)
    np.testing.assert_array_equal(y.numpy(), ty.numpy())
    np.testing.assert_array_equal(i.numpy(), ti.numpy())


# (input shape, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)
AVG2D = [
    ((2, 3, 7, 6), 2, None, 0, False, True, None),
    ((2, 2, 7, 6), 3, 2, 1, True, True, None),
    ((2, 2, 7, 6), 3, 2, 1, True, False, None),
    ((1, 2, 9, 8), (3, 2), (2, 3), (1, 1), False, False, None),
    ((2, 1, 6, 7), 3, 2, 1, False, True, 5),
    ((3, 5, 4), 2, 1, 1, True, False, None),    # unbatched
]


@needs_torch
@pytest.mark.parametrize("cfg", AVG2D)
def test_avg_pool2d_matches_torch(cfg):
    shape, k, s, p, ceil, cip, div = cfg
    run_both(lambda x: F.avg_pool2d(x, k, s, p, ceil, cip, div),
             lambda x: torch.nn.functional.avg_pool2d(x, k, s, p, ceil, cip, div), arr(*shape))


@needs_torch
def test_avg_pool1d_matches_torch():
    run_both(lambda x: F.avg_pool1d(x, 3, 2, 1, True, False),
             lambda x: torch.nn.functional.avg_pool1d(x, 3, 2, 1, True, False), arr(2, 3, 10))


@needs_torch
@pytest.mark.parametrize("shape,out", [((2, 3, 7, 6), (3, 4)), ((2, 2, 5, 5), 7),
                                       ((1, 2, 9, 4), (None, 2)), ((3, 6, 5), 1)])
def test_adaptive_avg_pool2d_matches_torch(shape, out):
    run_both(lambda x: F.adaptive_avg_pool2d(x, out),
             lambda x: torch.nn.functional.adaptive_avg_pool2d(x, out), arr(*shape))


@needs_torch
def test_adaptive_avg_pool1d_matches_torch():
    run_both(lambda x: F.adaptive_avg_pool1d(x, 4),
             lambda x: torch.nn.functional.adaptive_avg_pool1d(x, 4), arr(2, 3, 11))


@needs_torch
def test_layouts_and_float32():
    base = arr(2, 7, 6, 3)
    xp, xt = P(base, False).permute(0, 3, 1, 2), T(base, False).permute(0, 3, 1, 2)
    assert not xp.is_contiguous()
    close(F.max_pool2d(xp, 3, 2, 1), torch.nn.functional.max_pool2d(xt, 3, 2, 1))
    close(F.avg_pool2d(xp, 3, 2, 1), torch.nn.functional.avg_pool2d(xt, 3, 2, 1))
    close(F.adaptive_avg_pool2d(xp, 4), torch.nn.functional.adaptive_avg_pool2d(xt, 4))
    x32 = arr(2, 3, 8, 8)
    y = F.avg_pool2d(P(x32, False, pyth.float32), 2)
    assert y.dtype is pyth.float32
    close(y, torch.nn.functional.avg_pool2d(T(x32, False, torch.float32), 2), 1e-6)
    y, i = F.max_pool2d(P(x32, False, pyth.float32), 2, return_indices=True)
    assert y.dtype is pyth.float32 and i.dtype is pyth.int64


def test_gradcheck_and_gradgradcheck():
    x = P(arr(2, 2, 5, 6))
    fns = [lambda t: F.max_pool2d(t, 3, 2, 1, 1, True),
           lambda t: F.max_pool1d(t.reshape(2, 2, 30), 4, 3, 2),
           lambda t: F.avg_pool2d(t, 3, 2, 1, True, False),
           lambda t: F.avg_pool2d(t, 2, divisor_override=3),
           lambda t: F.adaptive_avg_pool2d(t, (3, 4)),
           lambda t: F.adaptive_avg_pool1d(t.reshape(2, 2, 30), 7)]
    for f in fns:
        assert gradcheck(f, (x,))
    for f in fns[::2]:
        assert gradgradcheck(f, (x,))


def _grad_of(lib, f):
    """The gradient of f(x)**2 summed, recorded (create_graph): twin_grads then checks its own
    gradient, the second order, against PyTorch's."""
    return lambda x: lib.autograd.grad(f(lib.nn.functional, x).pow(2).sum(), x,
                                       create_graph=True)[0]


@needs_torch
@pytest.mark.parametrize("f, shape", [
    (lambda F, x: F.max_pool2d(x, 3, 2, 1, 1, True), (2, 2, 5, 6)),
    (lambda F, x: F.avg_pool2d(x, 3, 2, 1, True, False), (2, 2, 5, 6)),
    (lambda F, x: F.adaptive_max_pool2d(x, (2, 3)), (1, 2, 5, 7)),
    (lambda F, x: F.adaptive_avg_pool1d(x, 4), (2, 3, 9)),
    (lambda F, x: F.max_pool3d(x, 2, 1), (1, 2, 3, 4, 3)),
    (lambda F, x: F.adaptive_avg_pool3d(x, (2, 1, 2)), (1, 2, 3, 4, 5)),
], ids=["max2d", "avg2d", "adaptive_max2d", "adaptive_avg1d", "max3d", "adaptive_avg3d"])
def test_second_order_gradients_match_torch(f, shape):
    twin_grads(_grad_of(pyth, f), _grad_of(torch, f), [arr(*shape)])


@needs_torch
def test_saved_input_and_indices_are_version_checked_as_torch():
    """An in-place change of the input, or of max pooling's indices, after the forward is
    refused at backward with PyTorch's message; the float64 gradient of a float32 pooling
    leaves a float32 gradient."""
    msgs = {}
    for lib in (pyth, torch):
        F = lib.nn.functional
        x = lib.tensor(arr(1, 2, 4, 4), requires_grad=True)
        got = []
        for pool in (lambda t: (F.max_pool2d(t, 2, return_indices=True), t),
                     lambda t: ((F.avg_pool2d(t, 2), None), t)):
            for which in (0, 1):
                (y, idx), t = pool(x * 1)
                if which == 0:
                    t.add_(1)
                elif idx is not None:
                    idx.zero_()
                else:
                    continue
                with pytest.raises(RuntimeError) as e:
                    y.sum().backward()
                got.append(re.sub(r", which is output \d+ of \w+|; expected.*", "",
                                  str(e.value)).replace(lib.__name__ + ".", ""))
        x32 = lib.tensor(arr(1, 2, 4, 4), dtype=lib.float32, requires_grad=True)
        y = F.max_pool2d(x32, 2)
        y.backward(lib.ones(tuple(y.shape), dtype=lib.float64))
        got.append((str(x32.grad.dtype).split(".")[1], x32.grad.sum().item()))
        msgs[lib] = got
    assert msgs[pyth] == msgs[torch]


def test_max_pool_gradient_goes_to_argmax():
    x = P(np.arange(16.0).reshape(1, 1, 4, 4))
    F.max_pool2d(x, 2).sum().backward()
    want = np.zeros((4, 4))
    want[1::2, 1::2] = 1
    np.testing.assert_array_equal(x.grad.numpy()[0, 0], want)


# ---- modules --------------------------------------------------------------------------------

MODULES = [
    ("MaxPool2d", (3,), {"stride": 2, "padding": 1, "ceil_mode": True}),
    ("MaxPool2d", ((2, 3),), {"dilation": (2, 1)}),
    ("MaxPool1d", (3,), {"stride": 1, "padding": 1}),
    ("AvgPool2d", (3,), {"stride": 2, "padding": 1, "count_include_pad": False}),
    ("AvgPool2d", (2,), {"divisor_override": 3}),
    ("AvgPool1d", (3,), {"stride": 2, "padding": 1}),
    ("AdaptiveAvgPool2d", ((3, None),), {}),
    ("AdaptiveAvgPool1d", (3,), {}),
]


@needs_torch
@pytest.mark.parametrize("name,args,kw", MODULES)
def test_modules_match_torch(name, args, kw):
    pm, tm = getattr(nn, name)(*args, **kw), getattr(torch.nn, name)(*args, **kw)
    assert repr(pm) == repr(tm)
    shape = (2, 3, 9) if name.endswith("1d") else (2, 3, 8, 7)
    run_both(pm, tm, arr(*shape))
    x0 = arr(*shape)[0]  # unbatched
    close(pm(P(x0, False)), tm(T(x0, False)))


@needs_torch
def test_max_pool_module_return_indices():
    pm, tm = nn.MaxPool2d(2, return_indices=True), torch.nn.MaxPool2d(2, return_indices=True)
    x = arr(1, 2, 4, 6)
    (y, i), (ty, ti) = pm(P(x, False)), tm(T(x, False))
    close(y, ty)
    np.testing.assert_array_equal(i.numpy(), ti.numpy())


# ---- errors ---------------------------------------------------------------------------------

def test_errors():
    x = P(arr(1, 3, 5, 5), False)
    with pytest.raises(RuntimeError, match="pad should be at most half of effective kernel "
                                           "size, but got pad=2, kernel_size=3 and dilation=1"):
        F.max_pool2d(x, 3, padding=2)
    with pytest.raises(RuntimeError, match="pad should be smaller than or equal to half of "
                                           "kernel size"):
        F.avg_pool2d(x, 3, padding=2)
    with pytest.raises(RuntimeError, match=r"Given input size: \(1x2x2\). Calculated output "
                                           r"size: \(1x0x0\). Output size is too small"):
        F.max_pool2d(P(arr(1, 1, 2, 2), False), 3)
    with pytest.raises(RuntimeError, match="Output size is too small"):
        F.avg_pool2d(P(arr(1, 1, 2, 2), False), 3)
    with pytest.raises(RuntimeError, match=r"Expected 3D or 4D \(batch mode\) tensor"):
        F.max_pool2d(P(arr(2, 2), False), 1)
    with pytest.raises(RuntimeError, match=r"Expected 3D or 4D \(batch mode\) tensor"):
        F.max_pool2d(pyth.zeros(1, 0, 4, 4), 2)
    with pytest.raises(RuntimeError, match=r"Expected 2D or 3D"):
        F.max_pool1d(P(arr(2), False), 1)
    with pytest.raises(RuntimeError, match="divisor must be not zero"):
        F.avg_pool2d(x, 2, divisor_override=0)
    with pytest.raises(RuntimeError, match="stride should be greater than zero"):
        F.max_pool2d(x, 2, stride=0)
    with pytest.raises(RuntimeError, match="kernel size should be greater than zero"):
        F.max_pool2d(x, 0)
    with pytest.raises(RuntimeError, match="dimension 2 being empty"):
        F.adaptive_avg_pool2d(pyth.zeros(1, 3, 0, 4), 2)
    with pytest.raises(RuntimeError, match="floating point"):
        F.max_pool2d(pyth.zeros(1, 1, 4, 4, dtype=pyth.int64), 2)


def test_c_api_rejects_bad_indices():
    from pyth._th import ffi, lib
    x = pyth.zeros(1, 1, 4, 4, dtype=pyth.float64)
    g = pyth.zeros(1, 1, 2, 2, dtype=pyth.float64)
    idx = pyth.tensor([[[[0, 1], [99, 2]]]], dtype=pyth.int64)
    gi = pyth.DoubleTensor()
    assert lib.THNN_DoubleSpatialDilatedMaxPooling_updateGradInput(gi._h, g._h, x._h,
                                                                   idx._h) != 0
    assert "outside" in ffi.string(lib.THError_message()).decode()
    lib.THError_clear()


# ==== max unpooling and LP pooling (composed) =====================================================

def expanded(x):
    """A stride-0 view: the first sample repeated along dim 0."""
    return x[:1].expand(3, *x.shape[1:])


@needs_torch
@pytest.mark.parametrize("nd,shape,k,s,p,out", [
    (1, (2, 3, 8), 2, None, 0, None), (1, (3, 9), 3, 2, 1, None), (1, (2, 2, 8), 2, 2, 0, [9]),
    (2, (2, 3, 6, 8), 2, None, 0, None), (2, (3, 7, 6), (3, 2), (2, 1), (1, 0), None),
    (2, (1, 2, 6, 8), 2, 2, 0, (1, 2, 7, 9))])
def test_max_unpool_matches_torch(nd, shape, k, s, p, out):
    pool = {1: TF.max_pool1d, 2: TF.max_pool2d}[nd]
    o, idx = pool(torch.tensor(seeded(*shape)), k, s, p, return_indices=True)
    unpool_p, unpool_t = getattr(F, f"max_unpool{nd}d"), getattr(TF, f"max_unpool{nd}d")
    pidx = pyth.tensor(idx.numpy())
    twin_grads(lambda x: unpool_p(x, pidx, k, s, p, out), lambda x: unpool_t(x, idx, k, s, p, out),
             [o.numpy()])
    pm, tm = getattr(nn, f"MaxUnpool{nd}d")(k, s, p), getattr(torch.nn, f"MaxUnpool{nd}d")(k, s, p)
    assert repr(pm) == repr(tm)
    close(pm(P(o.numpy(), False), pidx, out), tm(o, idx, out))


def test_max_unpool_gradcheck_and_numpy():
    x, idx = F.max_pool2d(P(seeded(1, 2, 4, 4), False), 2, return_indices=True)
    y = F.max_unpool2d(x, idx, 2).numpy()
    src = seeded(1, 2, 4, 4)
    np.testing.assert_array_equal(y, np.where(y != 0, src, 0))
    assert (y != 0).sum() == 8
    assert gradcheck(lambda t: F.max_unpool2d(t, idx, 2), (P(x.numpy()),))
    x1, idx1 = F.max_pool1d(P(seeded(2, 3, 6), False), 3, 3, return_indices=True)
    assert gradcheck(lambda t: F.max_unpool1d(t, idx1, 3, 3, output_size=[7]), (P(x1.numpy()),))


@needs_torch
@pytest.mark.parametrize("nd,shape,norm,k,s,ceil", [
    (1, (2, 3, 8), 2, 3, None, False), (1, (3, 7), 1.5, 2, 1, True), (1, (2, 2, 7), 3, 3, 2, True),
    (2, (2, 3, 6, 7), 2, 2, None, False), (2, (3, 5, 6), 4, (2, 3), (1, 2), True)])
def test_lp_pool_matches_torch(nd, shape, norm, k, s, ceil):
    x = np.abs(seeded(*shape)) + 0.1   # positive: fractional powers stay real
    pf, tf = getattr(F, f"lp_pool{nd}d"), getattr(TF, f"lp_pool{nd}d")
    twin_grads(lambda t: pf(t, norm, k, s, ceil), lambda t: tf(t, norm, k, s, ceil), [x])
    pm = getattr(nn, f"LPPool{nd}d")(norm, k, s, ceil)
    tm = getattr(torch.nn, f"LPPool{nd}d")(norm, k, s, ceil)
    assert repr(pm) == repr(tm)
    close(pm(P(x, False)), tm(T(x, False)))


def test_lp_pool_gradcheck_and_numpy():
    x = np.abs(seeded(2, 6)) + 0.1
    y = F.lp_pool1d(pyth.tensor(x), 2, 3).numpy()
    np.testing.assert_allclose(y, np.sqrt((x ** 2).reshape(2, 2, 3).sum(-1)), rtol=1e-12)
    assert gradcheck(lambda t: F.lp_pool2d(t, 3, 2, 1), (P(np.abs(seeded(1, 2, 3, 4))),))


@needs_torch
@pytest.mark.parametrize("dtype,tol", [("float32", 1e-5), ("float64", 1e-9)])
def test_lp_pool_expanded_input_and_dtypes(dtype, tol):
    cases = [(lambda f: lambda x: f.lp_pool2d(x.abs() + 0.1, 2, 2))]
    for make in cases:
        twin_grads(make(F), make(TF), [seeded(3, 2, 3, 4)], [expanded], dtype, tol)


def _x(*shape):
    return seeded(*shape)


UNPOOL_ERRORS = [
    ("unpool-1d-input", lambda f, mk: f.max_unpool1d(mk(_x(4)), mk(np.zeros(4, np.int64)), 2),
     RuntimeError),
    ("unpool-int32-indices", lambda f, mk: f.max_unpool1d(
        mk(_x(1, 4)), mk(np.zeros((1, 4), np.int32)), 2), RuntimeError),
    ("unpool-bad-output-size", lambda f, mk: f.max_unpool1d(
        mk(_x(1, 2, 4)), mk(np.zeros((1, 2, 4), np.int64)), 2, output_size=[12]), ValueError),
    ("unpool-output-size-length", lambda f, mk: f.max_unpool2d(
        mk(_x(1, 2, 2, 2)), mk(np.zeros((1, 2, 2, 2), np.int64)), 2, output_size=[4]),
     ValueError),
    ("unpool-index-range", lambda f, mk: f.max_unpool1d(
        mk(_x(1, 2, 4)), mk(np.full((1, 2, 4), 9, np.int64)), 2), RuntimeError),
    ("unpool-index-shape", lambda f, mk: f.max_unpool1d(
        mk(_x(1, 2, 4)), mk(np.zeros((1, 2, 3), np.int64)), 2), RuntimeError),
]


@pytest.mark.parametrize("case", UNPOOL_ERRORS, ids=[c[0] for c in UNPOOL_ERRORS])
def test_max_unpool_errors(case):
    _, call, exc = case
    raises_as_torch(call, exc)
