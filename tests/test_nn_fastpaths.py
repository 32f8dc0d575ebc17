"""The CNN kernels' fast paths against PyTorch and numpy: MaxPool2d(2)'s vector path
(float32) and its scalar twin (float64), the select-form ReLU / Hardtanh gradients, and the
convolution's run-wise im2col / col2im for stride-1 "same"-width grids, with NaN, infinities,
ties, non-contiguous and edge-sized operands."""

from __future__ import annotations

import numpy as np
import pytest
from _support import P, T, close, needs_torch, torch

import pyth
from pyth.autograd import gradcheck
from pyth.nn import functional as F

RNG = np.random.default_rng(14)
DTYPES = [(pyth.float32, np.float32, 1e-5), (pyth.float64, np.float64, 1e-10)]


def _tdt(dt):
    return torch.float32 if dt is pyth.float32 else torch.float64


# ---- max pooling ----------------------------------------------------------------------------

def _spiky(shape, npdt):
    """Random values with NaN, +-inf, ties and signed zeros planted."""
    x = RNG.standard_normal(shape).round(1).astype(npdt)  # rounding makes ties common
    flat = x.reshape(-1)
    n = flat.size
    for v, frac in ((np.nan, 0.03), (np.inf, 0.02), (-np.inf, 0.05), (-0.0, 0.05), (0.0, 0.05)):
        flat[RNG.choice(n, max(1, int(n * frac)), replace=False)] = v
    return x


def _argmax_reference(x, oh, ow):
    """PyTorch's rule, the kernel's: the last NaN of a window, else its first maximum."""
    n, c = x.shape[:2]
    w = x.shape[3]
    y = np.empty((n, c, oh, ow), x.dtype)
    idx = np.empty((n, c, oh, ow), np.int64)
    for i in range(oh):
        for j in range(ow):
            win = x[:, :, 2 * i:2 * i + 2, 2 * j:2 * j + 2].reshape(n, c, 4)
            isnan = np.isnan(win)
            k = np.where(isnan.any(-1), 3 - isnan[..., ::-1].argmax(-1), win.argmax(-1))
            y[:, :, i, j] = np.take_along_axis(win, k[..., None], -1)[..., 0]
            idx[:, :, i, j] = (2 * i + k // 2) * w + 2 * j + k % 2
    return y, idx


@pytest.mark.parametrize("dt,npdt,tol", DTYPES)
@pytest.mark.parametrize("hw", [(8, 8), (4, 10), (6, 6), (5, 9), (2, 16), (3, 2), (2, 18)])
def test_max_pool2x2_matches_reference(dt, npdt, tol, hw):
    x = _spiky((3, 5, *hw), npdt)
    y, i = F.max_pool2d(pyth.tensor(x, dtype=dt), 2, return_indices=True)
    ry, ri = _argmax_reference(x, hw[0] // 2, hw[1] // 2)
    np.testing.assert_array_equal(i.numpy(), ri)
    np.testing.assert_array_equal(y.numpy(), ry)  # NaN where NaN, bitwise otherwise
    np.testing.assert_array_equal(np.signbit(y.numpy()), np.signbit(ry))


@needs_torch
@pytest.mark.parametrize("dt,npdt,tol", DTYPES)
@pytest.mark.parametrize("layout", ["contiguous", "channels_last", "sliced"])
def test_max_pool2x2_layouts_and_grad_match_torch(dt, npdt, tol, layout):
    base = RNG.standard_normal((4, 6, 8, 12)).round(1).astype(npdt)
    base[0, 0, 0, 0] = np.inf
    base[1, 2, 3, 4] = -np.inf

    def view(t):
        if layout == "channels_last":
            return t.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
        if layout == "sliced":
            return t[:, ::2, :, 1:11]
        return t
    px = view(pyth.tensor(base, dtype=dt)).requires_grad_()
    tx = view(torch.tensor(base, dtype=_tdt(dt))).requires_grad_()
    assert px.is_contiguous() == (layout == "contiguous")
    y, i = F.max_pool2d(px, 2, return_indices=True)
    ty, ti = torch.nn.functional.max_pool2d(tx, 2, return_indices=True)
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    np.testing.assert_array_equal(i.numpy(), ti.numpy())
    g = RNG.standard_normal(ty.shape).astype(npdt)
    y.backward(pyth.tensor(g, dtype=dt))
    ty.backward(torch.tensor(g, dtype=_tdt(dt)))
    np.testing.assert_array_equal(px.grad.numpy(), tx.grad.numpy())


@needs_torch
@pytest.mark.parametrize("ceil", [False, True])
def test_max_pool2x2_odd_sizes_and_ceil_mode(ceil):
    x = RNG.standard_normal((2, 3, 7, 9)).astype(np.float32)
    y, i = F.max_pool2d(pyth.tensor(x), 2, ceil_mode=ceil, return_indices=True)
    ty, ti = torch.nn.functional.max_pool2d(torch.tensor(x), 2, ceil_mode=ceil,
                                            return_indices=True)
    np.testing.assert_array_equal(y.numpy(), ty.numpy())
    np.testing.assert_array_equal(i.numpy(), ti.numpy())


def test_max_pool2x2_gradcheck():
    x = P(RNG.standard_normal((2, 2, 4, 6)))
    assert gradcheck(lambda t: F.max_pool2d(t, 2), (x,))


# ---- activations: the select-form gradients -------------------------------------------------

ACTS = [("relu", {}), ("hardtanh", {}), ("hardtanh", {"min_val": -0.5, "max_val": 2.0}),
        ("leaky_relu", {"negative_slope": 0.1}), ("relu6", {})]


@needs_torch
@pytest.mark.parametrize("dt,npdt,tol", DTYPES)
@pytest.mark.parametrize("name,kw", ACTS)
def test_activation_special_values_match_torch(dt, npdt, tol, name, kw):
    vals = np.array([np.nan, -np.inf, np.inf, -0.0, 0.0, -1.0, -0.5, 1.0, 2.0, 6.0, 7.0, -3.0],
                    npdt)
    x = np.tile(vals, 12)
    g = np.tile(np.array([1.0, np.nan, np.inf, -2.0, 3.0, -np.inf], npdt), 24)
    px, tx = pyth.tensor(x, dtype=dt).requires_grad_(), torch.tensor(x).requires_grad_()
    y = getattr(F, name)(px, **kw)
    ty = getattr(torch.nn.functional, name)(tx, **kw)
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    y.backward(pyth.tensor(g, dtype=dt))
    ty.backward(torch.tensor(g))
    # PyTorch's hardtanh gradient at a NaN x is 0 in its vector loop, g in its scalar tail:
    # the kernel's is 0 everywhere
    nan_x = np.isnan(x) if name in ("hardtanh", "relu6") else np.zeros(x.shape, bool)
    np.testing.assert_array_equal(px.grad.numpy()[~nan_x], tx.grad.numpy()[~nan_x])
    assert (px.grad.numpy()[nan_x] == 0).all()


@needs_torch
@pytest.mark.parametrize("dt,npdt,tol", DTYPES)
@pytest.mark.parametrize("name", ["relu", "hardtanh", "leaky_relu"])
def test_activation_grad_non_contiguous_operands(dt, npdt, tol, name):
    a = RNG.standard_normal((64, 40)).astype(npdt)
    gcol = RNG.standard_normal((64, 1)).astype(npdt)
    px = pyth.tensor(a, dtype=dt).t().requires_grad_()    # transposed input
    tx = torch.tensor(a).t().requires_grad_()
    y, ty = getattr(F, name)(px), getattr(torch.nn.functional, name)(tx)
    y.backward(pyth.tensor(gcol, dtype=dt).t().expand(40, 64))  # expanded gradient
    ty.backward(torch.tensor(gcol).t().expand(40, 64))
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    np.testing.assert_array_equal(px.grad.numpy(), tx.grad.numpy())


@pytest.mark.parametrize("name", ["relu", "hardtanh", "leaky_relu"])
def test_activation_gradcheck_and_empty(name):
    x = RNG.standard_normal((3, 7))
    x[np.abs(x) < 0.05] = 0.3  # keep away from the kinks
    x[np.abs(np.abs(x) - 1) < 0.05] = 0.3
    assert gradcheck(getattr(F, name), (P(x),))
    e = P(np.zeros((0, 4)))
    getattr(F, name)(e).sum().backward()
    assert e.grad.shape == (0, 4)


# ---- convolution: run-wise im2col / col2im --------------------------------------------------

# (input shape, weight shape, stride, padding, dilation, groups): the first ones have grids as
# wide as the image at unit stride (the run path); the last two take the row path
CONV = [
    ((64, 32, 8, 8), (16, 32, 3, 3), 1, 1, 1, 1),     # the digits CNN's geometry, chunked
    ((3, 2, 5, 7), (4, 2, 3, 3), 1, 1, 1, 1),
    ((2, 3, 6, 5), (4, 3, 5, 5), 1, 2, 1, 1),
    ((2, 2, 7, 6), (2, 2, 3, 3), 1, 2, 2, 1),         # dilation 2
    ((2, 4, 4, 9), (6, 2, 3, 1), 1, (1, 0), 1, 2),    # groups, 1-wide kernel
    ((1, 2, 1, 6), (3, 2, 1, 3), 1, (0, 1), 1, 1),    # one row
    ((2, 1, 6, 1), (2, 1, 3, 1), 1, (1, 0), 1, 1),    # one column
    ((2, 2, 3, 3), (2, 2, 3, 3), 1, "same", 2, 1),    # kernel wider than image + padding
    ((2, 2, 7, 6), (3, 2, 3, 3), 2, 1, 1, 1),         # stride 2: the row path
    ((2, 2, 7, 6), (3, 2, 3, 3), 1, 0, 1, 1),         # narrower grid: the row path
]


@needs_torch
@pytest.mark.parametrize("dt,npdt,tol", DTYPES)
@pytest.mark.parametrize("cfg", CONV)
def test_conv2d_runs_match_torch(dt, npdt, tol, cfg):
    xs, ws, s, p, d, grp = cfg
    x = RNG.standard_normal(xs).astype(npdt)
    w = RNG.standard_normal(ws).astype(npdt)
    b = RNG.standard_normal(ws[0]).astype(npdt)
    px, pw, pb = (pyth.tensor(a, dtype=dt).requires_grad_() for a in (x, w, b))
    tx, tw, tb = (torch.tensor(a).requires_grad_() for a in (x, w, b))
    y = F.conv2d(px, pw, pb, s, p, d, grp)
    ty = torch.nn.functional.conv2d(tx, tw, tb, s, p, d, grp)
    scale = np.sqrt(np.prod(ws[1:]))
    close(y / scale, ty / scale, tol)
    g = RNG.standard_normal(ty.shape).astype(npdt)
    y.backward(pyth.tensor(g, dtype=dt))
    ty.backward(torch.tensor(g))
    for a, ta in ((px, tx), (pw, tw), (pb, tb)):
        m = max(1.0, float(ta.grad.abs().max()))
        close(a.grad / m, ta.grad / m, tol * 10)


@needs_torch
def test_conv2d_runs_non_contiguous_and_transposed():
    x = RNG.standard_normal((3, 8, 8, 4))
    w = RNG.standard_normal((5, 4, 3, 3))
    px = P(x).permute(0, 3, 1, 2)          # channels-last storage
    tx = T(x).permute(0, 3, 1, 2)
    pw, tw = P(w), T(w)
    y, ty = F.conv2d(px, pw, padding=1), torch.nn.functional.conv2d(tx, tw, padding=1)
    close(y, ty)
    g = RNG.standard_normal((3, 8, 8, 5))
    y.backward(P(g, False).permute(0, 3, 1, 2))
    ty.backward(T(g, False).permute(0, 3, 1, 2))
    close(pw.grad, tw.grad)
    # the transposed convolution's forward is the col2im map
    z = RNG.standard_normal((2, 5, 6, 7))
    pz, tz = P(z), T(z)
    o = F.conv_transpose2d(pz, pw, padding=1)
    to = torch.nn.functional.conv_transpose2d(tz, tw, padding=1)
    close(o, to)
    go = RNG.standard_normal(to.shape)
    o.backward(P(go, False))
    to.backward(T(go, False))
    close(pz.grad, tz.grad)


def test_conv2d_runs_gradcheck():
    x = P(RNG.standard_normal((2, 2, 4, 5)))
    w = P(RNG.standard_normal((3, 2, 3, 3)))
    b = P(RNG.standard_normal(3))
    assert gradcheck(lambda a, c, e: F.conv2d(a, c, e, padding=1), (x, w, b))
    assert gradcheck(lambda a, c: F.conv2d(a, c, padding=2, dilation=2), (x, w))


@pytest.mark.parametrize("name", ["relu", "hardtanh", "leaky_relu"])
def test_activation_create_graph_gradient_is_the_kernels(name):
    """The recorded (create_graph) gradient agrees with the kernel's, NaN x included."""
    x = np.array([np.nan, -2.0, -0.0, 0.0, 0.5, 3.0])
    g = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    px = P(x)
    (g1,) = pyth.autograd.grad(getattr(F, name)(px), px, P(g, False))
    px = P(x)
    (g2,) = pyth.autograd.grad(getattr(F, name)(px), px, P(g, False), create_graph=True)
    np.testing.assert_array_equal(g1.numpy(), g2.detach().numpy())
