"""3-D pooling (generic/THNNPooling.c's Volumetric kernels) and adaptive max pooling through
pyth.nn: max (with indices), average, adaptive average and adaptive max pooling, max unpooling
and power-average pooling against PyTorch in float64 and float32, under gradcheck always, with
PyTorch's output sizes, NaN rule, repr and errors."""

from __future__ import annotations

import numpy as np
import pytest
from _support import P, T, close, needs_torch, torch

import pyth
from pyth import nn
from pyth.autograd import gradcheck, gradgradcheck
from pyth.nn import functional as F

RNG = np.random.default_rng(23)


def arr(*shape):
    return RNG.standard_normal(shape)


def distinct(*shape):
    """Values without ties (a max pooling's argmax is then unique), shuffled."""
    n = int(np.prod(shape))
    return (RNG.permutation(n) / n - 0.5).reshape(shape)


def run_both(pf, tf, x, tol=1e-9, dtype="float64"):
    """pf on pyth and tf on PyTorch of x: values, indices (exactly) and the input gradient."""
    px, tx = P(x, dtype=getattr(pyth, dtype)), T(x, dtype=getattr(torch, dtype))
    y, ty = pf(px), tf(tx)
    if isinstance(ty, tuple):
        assert y[1].dtype is pyth.int64
        np.testing.assert_array_equal(y[1].numpy(), ty[1].numpy())
        y, ty = y[0], ty[0]
    assert tuple(y.shape) == tuple(ty.shape) and str(y.dtype)[5:] == str(ty.dtype)[6:]
    close(y, ty, tol)
    if ty.numel():
        g = arr(*ty.shape)
        y.backward(pyth.tensor(g, dtype=y.dtype))
        ty.backward(torch.tensor(g, dtype=ty.dtype))
        close(px.grad, tx.grad, tol)


# (input shape, kernel, stride, padding, dilation, ceil_mode)
MAX3D = [
    ((2, 3, 5, 6, 7), 2, None, 0, 1, False),
    ((2, 2, 5, 6, 7), 3, 2, 1, 1, True),
    ((1, 2, 6, 7, 8), (2, 3, 2), (1, 2, 2), (1, 1, 0), (2, 1, 1), False),  # dilation
    ((2, 1, 5, 5, 5), 2, 3, 1, 1, True),            # stride > kernel
    ((2, 1, 7, 7, 7), 3, 2, 1, 2, True),            # dilation + ceil
    ((2, 2, 3, 6, 9), (1, 2, 2), None, 0, 1, False),  # 2 x 2 windows in each slice
    ((3, 4, 5, 6), 2, 1, 1, 1, False),              # unbatched
    ((0, 2, 4, 4, 4), 2, 2, 0, 1, False),           # zero-size batch
]


@needs_torch
@pytest.mark.parametrize("cfg", MAX3D)
def test_max_pool3d_matches_torch(cfg):
    shape, k, s, p, d, ceil = cfg
    run_both(lambda x: F.max_pool3d(x, k, s, p, d, ceil, return_indices=True),
             lambda x: torch.nn.functional.max_pool3d(x, k, s, p, d, ceil, return_indices=True),
             distinct(*shape))


@needs_torch
def test_max_pool3d_with_indices_and_plain():
    x = distinct(2, 2, 4, 5, 6)
    y, i = F.max_pool3d_with_indices(P(x, False), 2, 1)
    ty, ti = torch.nn.functional.max_pool3d_with_indices(T(x, False), 2, 1)
    close(y, ty)
    np.testing.assert_array_equal(i.numpy(), ti.numpy())
    y = F.max_pool3d(P(x, False), 2, 1)
    assert isinstance(y, pyth.Tensor)
    close(y, ty)


# (input shape, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)
AVG3D = [
    ((2, 3, 5, 6, 7), 2, None, 0, False, True, None),
    ((2, 2, 5, 6, 7), 3, 2, 1, True, True, None),
    ((2, 2, 5, 6, 7), 3, 2, 1, True, False, None),
    ((1, 2, 6, 7, 8), (2, 3, 2), (2, 1, 3), (1, 1, 0), False, False, None),
    ((2, 1, 6, 7, 5), 3, 2, 1, False, True, 5),
    ((2, 1, 6, 7, 5), (1, 3, 3), (1, 2, 2), (0, 1, 1), True, False, 7),
    ((3, 5, 4, 6), 2, 1, 1, True, False, None),     # unbatched
    ((0, 2, 4, 4, 4), 2, 2, 0, False, True, None),  # zero-size batch
]


@needs_torch
@pytest.mark.parametrize("cfg", AVG3D)
def test_avg_pool3d_matches_torch(cfg):
    shape, k, s, p, ceil, cip, div = cfg
    run_both(lambda x: F.avg_pool3d(x, k, s, p, ceil, cip, div),
             lambda x: torch.nn.functional.avg_pool3d(x, k, s, p, ceil, cip, div), arr(*shape))


@needs_torch
@pytest.mark.parametrize("shape,out", [((2, 3, 5, 7, 6), (3, 4, 4)), ((2, 2, 4, 5, 5), 7),
                                       ((1, 2, 9, 4, 5), (None, 2, None)), ((3, 6, 5, 7), 1),
                                       ((0, 2, 3, 4, 5), 2), ((1, 2, 3, 4, 5), (0, 2, 2))])
def test_adaptive_avg_pool3d_matches_torch(shape, out):
    run_both(lambda x: F.adaptive_avg_pool3d(x, out),
             lambda x: torch.nn.functional.adaptive_avg_pool3d(x, out), arr(*shape))


# (nd, input shape, output size): non-divisible sizes, None, larger than the input, unbatched,
# zero-size batch
ADAPTIVE_MAX = [
    (1, (2, 3, 11), 4), (1, (3, 7), (3,)), (1, (2, 2, 5), 8),
    (2, (2, 3, 7, 9), (4, 5)), (2, (1, 2, 9, 4), (None, 3)), (2, (3, 6, 5), 1),
    (2, (2, 2, 3, 4), 6), (2, (0, 2, 4, 4), 2),
    (3, (2, 3, 5, 7, 6), (3, 4, 4)), (3, (1, 2, 9, 4, 5), (None, 2, None)),
    (3, (3, 4, 5, 6), (2, 3, 4)), (3, (0, 2, 3, 4, 5), 2), (3, (1, 1, 2, 3, 2), 4),
]


@needs_torch
@pytest.mark.parametrize("nd,shape,out", ADAPTIVE_MAX)
def test_adaptive_max_pool_matches_torch(nd, shape, out):
    pf = getattr(F, f"adaptive_max_pool{nd}d")
    tf = getattr(torch.nn.functional, f"adaptive_max_pool{nd}d")
    run_both(lambda x: pf(x, out, return_indices=True),
             lambda x: tf(x, out, return_indices=True), distinct(*shape))
    x = distinct(*shape)
    y = pf(P(x, False), out)
    assert isinstance(y, pyth.Tensor)
    close(y, tf(T(x, False), out))
    y, i = getattr(F, f"adaptive_max_pool{nd}d_with_indices")(P(x, False), out)
    ty, ti = getattr(torch.nn.functional, f"adaptive_max_pool{nd}d_with_indices")(T(x, False),
                                                                                 out)
    close(y, ty)
    np.testing.assert_array_equal(i.numpy(), ti.numpy())


@needs_torch
def test_float32_and_layouts():
    # float32 through every kernel, and inputs that are not contiguous (a permuted view)
    base = distinct(2, 6, 7, 5, 3)
    xp = P(base, False, pyth.float32).permute(0, 4, 1, 2, 3)
    xt = T(base, False, torch.float32).permute(0, 4, 1, 2, 3)
    assert not xp.is_contiguous()
    tf = torch.nn.functional
    for pf, f in [(lambda x: F.max_pool3d(x, 3, 2, 1, return_indices=True),
                   lambda x: tf.max_pool3d(x, 3, 2, 1, return_indices=True)),
                  (lambda x: F.avg_pool3d(x, 3, 2, 1, True, False),
                   lambda x: tf.avg_pool3d(x, 3, 2, 1, True, False)),
                  (lambda x: F.adaptive_avg_pool3d(x, (4, 3, 2)),
                   lambda x: tf.adaptive_avg_pool3d(x, (4, 3, 2))),
                  (lambda x: F.adaptive_max_pool3d(x, (4, 3, 2), True),
                   lambda x: tf.adaptive_max_pool3d(x, (4, 3, 2), True)),
                  (lambda x: F.adaptive_max_pool2d(x[:, :, 1], (4, 3), True),
                   lambda x: tf.adaptive_max_pool2d(x[:, :, 1], (4, 3), True)),
                  (lambda x: F.adaptive_max_pool1d(x[:, :, 1, 2], 4, True),
                   lambda x: tf.adaptive_max_pool1d(x[:, :, 1, 2], 4, True))]:
        y, ty = pf(xp), f(xt)
        if isinstance(ty, tuple):
            np.testing.assert_array_equal(y[1].numpy(), ty[1].numpy())
            y, ty = y[0], ty[0]
        assert y.dtype is pyth.float32
        close(y, ty, 1e-6)
    for nd, shape in [(3, (2, 3, 4, 6, 8)), (2, (2, 3, 6, 8)), (1, (2, 3, 9))]:
        pf, f = getattr(F, f"adaptive_max_pool{nd}d"), getattr(tf, f"adaptive_max_pool{nd}d")
        run_both(lambda x, pf=pf: pf(x, 3, True), lambda x, f=f: f(x, 3, True),
                 distinct(*shape), 1e-6, "float32")
    run_both(lambda x: F.max_pool3d(x, 2, return_indices=True),
             lambda x: tf.max_pool3d(x, 2, return_indices=True), distinct(2, 3, 4, 6, 8), 1e-6,
             "float32")
    run_both(lambda x: F.avg_pool3d(x, 2, 1, 1), lambda x: tf.avg_pool3d(x, 2, 1, 1),
             arr(2, 3, 4, 6, 8), 1e-5, "float32")


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nan_wins_as_in_torch(dtype):
    # PyTorch takes a NaN over any number, and of several NaNs in a window the last; float32
    # MaxPool2d(2) runs the SIMD row, the rest the scalar loop
    x = distinct(1, 2, 4, 4, 8)
    x[0, 0, 0, 0, 1] = x[0, 0, 1, 1, 0] = np.nan           # two NaNs in one 2x2x2 window
    x[0, 1, 2, 1, 3] = np.nan
    x[0, 1, 3, 0, 4:8] = -np.inf
    tf = torch.nn.functional
    x2 = x[0, :, 0].copy()
    x2[0, 1, 2] = np.nan                                   # another in a 2x2 window
    cases = [(lambda v: F.max_pool3d(v, 2, return_indices=True),
              lambda v: tf.max_pool3d(v, 2, return_indices=True), x),
             (lambda v: F.max_pool3d(v, 3, 1, 1, return_indices=True),
              lambda v: tf.max_pool3d(v, 3, 1, 1, return_indices=True), x),
             (lambda v: F.adaptive_max_pool3d(v, (2, 3, 3), True),
              lambda v: tf.adaptive_max_pool3d(v, (2, 3, 3), True), x),
             (lambda v: F.max_pool2d(v, 2, return_indices=True),
              lambda v: tf.max_pool2d(v, 2, return_indices=True), x2),
             (lambda v: F.adaptive_max_pool2d(v, 2, True),
              lambda v: tf.adaptive_max_pool2d(v, 2, True), x2)]
    for pf, f, v in cases:
        px = P(v, True, getattr(pyth, dtype))
        (y, i), (ty, ti) = pf(px), f(T(v, False, getattr(torch, dtype)))
        np.testing.assert_array_equal(y.detach().numpy(), ty.numpy())
        np.testing.assert_array_equal(i.numpy(), ti.numpy())
        y.sum().backward()                                 # the gradient follows the indices
        want = np.zeros(px.shape).reshape(*px.shape[:-3 if v.ndim == 5 else -2], -1)
        flat_i = i.numpy().reshape(*want.shape[:-1], -1)
        for idx in np.ndindex(*flat_i.shape):
            want[idx[:-1] + (flat_i[idx],)] += 1
        np.testing.assert_array_equal(px.grad.numpy().reshape(want.shape), want)


def test_gradcheck_and_gradgradcheck():
    # no PyTorch needed: finite differences in float64 on inputs without ties
    x3 = P(distinct(1, 2, 3, 4, 3))
    fns = [lambda t: F.max_pool3d(t, 2, 1, 1, 1, True),
           lambda t: F.max_pool3d(t, (2, 3, 2), (1, 2, 1), (1, 1, 0), (2, 1, 1)),
           lambda t: F.avg_pool3d(t, 3, 2, 1, True, False),
           lambda t: F.avg_pool3d(t, (2, 3, 2), 1, 1, False, True, 3),
           lambda t: F.adaptive_avg_pool3d(t, (3, 2, 2)),
           lambda t: F.adaptive_max_pool3d(t, (3, 4, 2)),
           lambda t: F.adaptive_max_pool2d(t.reshape(1, 2, 12, 3), (5, 2)),
           lambda t: F.adaptive_max_pool1d(t.reshape(1, 2, 36), 7),
           lambda t: F.lp_pool3d(t.abs() + 0.5, 2.0, 2, 1, True),
           lambda t: F.max_unpool3d(*F.max_pool3d(t, 2, return_indices=True), 2,
                                    output_size=(3, 4, 3))]
    for f in fns:
        assert gradcheck(f, (x3,))
    for f in (fns[0], fns[2], fns[5]):
        assert gradgradcheck(f, (x3,))
    x0 = P(distinct(2, 3, 4, 3))                          # unbatched
    assert gradcheck(lambda t: F.max_pool3d(t, 2, 1), (x0,))
    assert gradcheck(lambda t: F.avg_pool3d(t, 2, 1, 1, count_include_pad=False), (x0,))
    assert gradcheck(lambda t: F.adaptive_max_pool3d(t, 3), (x0,))


def test_max_pool3d_gradient_goes_to_argmax():
    x = P(np.arange(64.0).reshape(1, 1, 4, 4, 4))
    y, i = F.max_pool3d(x, 2, return_indices=True)
    y.sum().backward()
    want = np.zeros((4, 4, 4))
    want[1::2, 1::2, 1::2] = 1
    np.testing.assert_array_equal(x.grad.numpy()[0, 0], want)
    np.testing.assert_array_equal(i.numpy().ravel(), [21, 23, 29, 31, 53, 55, 61, 63])


# ---- max unpooling and power-average pooling -------------------------------------------------

@needs_torch
@pytest.mark.parametrize("shape,k,s,p,out", [((2, 3, 4, 6, 4), 2, None, 0, None),
                                             ((2, 2, 5, 5, 5), 3, 2, 1, None),
                                             ((2, 2, 5, 5, 6), 3, 2, 1, (5, 5, 6)),
                                             ((2, 2, 5, 5, 6), 2, 2, 0, (5, 5, 6)),
                                             ((3, 4, 4, 6), 2, None, 0, (2, 3, 4, 4, 6))])
def test_max_unpool3d_matches_torch(shape, k, s, p, out):
    x = distinct(*shape)
    y, i = F.max_pool3d(P(x, False), k, s, p, return_indices=True)
    _, ti = torch.nn.functional.max_pool3d(T(x, False), k, s, p, return_indices=True)
    run_both(lambda v: F.max_unpool3d(v, i, k, s, p, out),
             lambda v: torch.nn.functional.max_unpool3d(v, ti, k, s, p, out),
             y.numpy())


@needs_torch
@pytest.mark.parametrize("norm,k,s,ceil", [(2.0, 2, None, False), (1.0, (2, 3, 2), 1, False),
                                           (3, 2, (1, 2, 2), True)])
def test_lp_pool3d_matches_torch(norm, k, s, ceil):
    run_both(lambda x: F.lp_pool3d(x, norm, k, s, ceil),
             lambda x: torch.nn.functional.lp_pool3d(x, norm, k, s, ceil),
             np.abs(arr(2, 3, 5, 6, 5)) + 0.1)


# ---- modules --------------------------------------------------------------------------------

MODULES = [
    ("MaxPool3d", (3,), {"stride": 2, "padding": 1, "ceil_mode": True}),
    ("MaxPool3d", ((2, 3, 2),), {"dilation": (2, 1, 1)}),
    ("AvgPool3d", (3,), {"stride": 2, "padding": 1, "count_include_pad": False}),
    ("AvgPool3d", (2,), {"divisor_override": 3}),
    ("AdaptiveAvgPool3d", ((3, None, 2),), {}),
    ("AdaptiveMaxPool3d", ((3, None, 2),), {}),
    ("AdaptiveMaxPool2d", ((None, 3),), {}),
    ("AdaptiveMaxPool1d", (3,), {}),
    ("LPPool3d", (2, 2), {"stride": 1}),
]


@needs_torch
@pytest.mark.parametrize("name,args,kw", MODULES)
def test_modules_match_torch(name, args, kw):
    pm, tm = getattr(nn, name)(*args, **kw), getattr(torch.nn, name)(*args, **kw)
    assert repr(pm) == repr(tm)
    nd = int(name[-2])
    shape = {1: (2, 3, 9), 2: (2, 3, 8, 7), 3: (2, 3, 6, 8, 7)}[nd]
    x = np.abs(distinct(*shape)) + 0.1 if name.startswith("LP") else distinct(*shape)
    run_both(pm, tm, x)
    x0 = x[0]  # unbatched
    close(pm(P(x0, False)), tm(T(x0, False)))


@needs_torch
@pytest.mark.parametrize("name,arg", [("MaxPool3d", 2), ("AdaptiveMaxPool3d", 2),
                                      ("AdaptiveMaxPool2d", (2, 3)), ("AdaptiveMaxPool1d", 3)])
def test_modules_return_indices(name, arg):
    pm = getattr(nn, name)(arg, return_indices=True)
    tm = getattr(torch.nn, name)(arg, return_indices=True)
    nd = int(name[-2])
    x = distinct(*(1, 2, 4, 6, 5)[:nd + 2])
    (y, i), (ty, ti) = pm(P(x, False)), tm(T(x, False))
    close(y, ty)
    np.testing.assert_array_equal(i.numpy(), ti.numpy())


@needs_torch
def test_max_unpool3d_module_inverts_max_pool3d():
    pool, unpool = nn.MaxPool3d(2, return_indices=True), nn.MaxUnpool3d(2)
    assert repr(unpool) == repr(torch.nn.MaxUnpool3d(2))
    x = distinct(1, 2, 4, 4, 6) + 1                       # positive: zeros are unpooled
    y, i = pool(P(x, False))
    back = unpool(y, i).numpy()
    ty, ti = torch.nn.MaxPool3d(2, return_indices=True)(T(x, False))
    np.testing.assert_array_equal(back, torch.nn.MaxUnpool3d(2)(ty, ti).numpy())
    kept = back != 0
    assert kept.sum() == y.numel() and np.array_equal(back[kept], x[kept])
    np.testing.assert_array_equal(np.sort(back[kept]), np.sort(y.numpy().ravel()))


# ---- errors ---------------------------------------------------------------------------------

def test_errors():
    x = P(arr(1, 3, 5, 5, 5), False)
    cases = [
        (lambda: F.max_pool3d(x, 3, padding=2),
         ("pad should be at most half of effective kernel size, but got pad=2, kernel_size=3 and "
          "dilation=1")),
        (lambda: F.max_pool3d(x, (3, 3, 3), padding=(1, 1, 2)), "but got pad=2"),
        (lambda: F.avg_pool3d(x, 3, padding=2),
         "pad should be at most half of effective kernel size"),
        (lambda: F.max_pool3d(x, 2, 1, -1), "pad must be non-negative, but got pad: -1"),
        (lambda: F.max_pool3d(P(arr(1, 1, 4, 2, 2), False), 3),
         (r"Given input size: \(1x4x2x2\). Calculated output size: \(1x1x0x0\). Output size "
          "is too small")),
        (lambda: F.avg_pool3d(P(arr(1, 1, 2, 3, 3), False), 3, 1, 1),
         r"input image \(T: 2 H: 3 W: 3\) smaller than kernel size \(kT: 3 kH: 3 kW: 3\)"),
        (lambda: F.max_pool3d(x, (2, 0, 2), 1),
         "kernel size should be greater than zero, but got kT: 2 kH: 0 kW: 2"),
        (lambda: F.avg_pool3d(x, 2, (1, 0, 1)),
         "stride should be greater than zero, but got dT: 1 dH: 0 dW: 1"),
        (lambda: F.max_pool3d(x, 2, dilation=(1, 1, 0)),
         "dilation should be greater than zero, but got dilationT: 1 dilationH: 1 dilationW: 0"),
        (lambda: F.avg_pool3d(x, 2, divisor_override=0), "divisor must be not zero"),
        (lambda: F.max_pool3d(P(arr(2, 2), False), 1),
         (r"max_pool3d\(\): non-empty 4D or 5D \(batch mode\) tensor expected for input, but "
          r"got \[2, 2\]")),
        (lambda: F.avg_pool3d(pyth.zeros(1, 0, 4, 4, 4), 2),
         "non-batch dimension 1 has length zero"),
        (lambda: F.max_pool3d(x, (2, 2)),
         "max_pool3d: kernel_size must either be a single int, or a tuple of three ints"),
        (lambda: F.max_pool3d(pyth.zeros(1, 1, 4, 4, 4, dtype=pyth.int64), 2),
         "floating point"),
        (lambda: F.adaptive_avg_pool3d(pyth.zeros(1, 3, 0, 4, 4), 2),
         (r"adaptive_avg_pool3d\(\): Expected input to have non-zero size for non-batch "
          r"dimensions, but input has sizes \[1, 3, 0, 4, 4\] with dimension 2 being empty")),
        (lambda: F.adaptive_max_pool3d(P(arr(3, 4, 4), False), 2),
         r"adaptive_max_pool3d\(\): Expected 4D or 5D tensor, but got \[3, 4, 4\]"),
        (lambda: F.adaptive_max_pool2d(pyth.zeros(1, 3, 0, 4), 2), "dimension 2 being empty"),
        (lambda: F.adaptive_max_pool1d(P(arr(4), False), 2), "Expected 2D or 3D tensor"),
        (lambda: F.adaptive_max_pool3d(x, (2, 2)), "adaptive_max_pool3d: output_size must be 3"),
        (lambda: F.adaptive_avg_pool3d(x, (2, -1, 2)),
         (r"elements of output_size must be greater than or equal to 0 but received "
          r"\[2, -1, 2\]")),
        (lambda: F.adaptive_max_pool2d(P(arr(1, 1, 4, 4), False), (2, -1)),
         "greater than or equal to 0"),
        (lambda: F.max_unpool3d(P(arr(1, 1, 2, 2, 2), False),
                                pyth.full((1, 1, 2, 2, 2), 99, dtype=pyth.int64), 2),
         "invalid max index"),
    ]
    for f, msg in cases:
        with pytest.raises(RuntimeError, match=msg):
            f()
    with pytest.raises(RuntimeError, match="overflow int64"):
        F.max_pool3d(x, (2, 2, 2**40), 1, (0, 0, 2**61), (1, 1, 2**24))
    with pytest.raises(RuntimeError, match="overflow int64"):
        F.avg_pool2d(P(arr(1, 1, 4, 4), False), 2**62, 2**62 + 1, 2**61)
    with pytest.raises(ValueError, match="3 or 5 elements"):
        F.max_unpool3d(*F.max_pool3d(x, 2, return_indices=True), 2, output_size=(5, 5))
    with pytest.raises(ValueError, match="must be between"):
        F.max_unpool3d(*F.max_pool3d(x, 2, return_indices=True), 2, output_size=(9, 5, 5))


def test_c_api_rejects_bad_indices_and_gradients():
    from pyth._th import ffi, lib
    x = pyth.zeros(1, 1, 2, 4, 4, dtype=pyth.float64)
    g = pyth.zeros(1, 1, 1, 2, 2, dtype=pyth.float64)
    idx = pyth.tensor([[[[[0, 1], [32, 2]]]]], dtype=pyth.int64)
    gi = pyth.DoubleTensor()
    for fn in (lib.THNN_DoubleVolumetricDilatedMaxPooling_updateGradInput,
               lib.THNN_DoubleVolumetricAdaptiveMaxPooling_updateGradInput):
        assert fn(gi._h, g._h, x._h, idx._h) != 0
        assert "outside the input's plane of 32" in ffi.string(lib.THError_message()).decode()
        lib.THError_clear()
    bad = pyth.zeros(1, 1, 2, 2, dtype=pyth.float64)               # a 4-D gradOutput
    assert lib.THNN_DoubleVolumetricAdaptiveAveragePooling_updateGradInput(gi._h, bad._h,
                                                                           x._h) != 0
    assert "expected a 5-D gradOutput" in ffi.string(lib.THError_message()).decode()
    lib.THError_clear()
    wrong = pyth.zeros(1, 1, 1, 3, 2, dtype=pyth.float64)
    assert lib.THNN_DoubleVolumetricAveragePooling_updateGradInput(
        gi._h, wrong._h, x._h, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 1, 0) != 0
    assert "expected gradOutput of size [1, 1, 1, 2, 2], got [1, 1, 1, 3, 2]" in \
        ffi.string(lib.THError_message()).decode()
    lib.THError_clear()
