"""3-D convolutions (generic/THNNConvolution.c's Volumetric* verbs, the 2-D kernel with a depth,
through pyth.nn): forward and every gradient against PyTorch in float64 and float32, odd
geometries, layouts, unbatched and empty batches, gradcheck always, modules' parameters, init,
repr, padding modes and errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _support import P, T, close, copy_params, module_matches_torch, needs_torch, torch

import pyth
from pyth import nn
from pyth.autograd import gradcheck, gradgradcheck
from pyth.nn import functional as F

RNG = np.random.default_rng(11)


def arr(*shape):
    return RNG.standard_normal(shape)


def run_both(pf, tf, arrays, dtype="float64", tol_f=1e-9, tol_g=1e-8):
    """pf / tf on the same operands of dtype (None stays None): output and every gradient."""
    pd, td = getattr(pyth, dtype), getattr(torch, dtype)
    ps = [None if a is None else P(a, True, pd) for a in arrays]
    ts = [None if a is None else T(a, True, td) for a in arrays]
    y, ty = pf(*ps), tf(*ts)
    assert y.dtype is pd and tuple(y.shape) == tuple(ty.shape)
    close(y, ty, tol_f)
    g = arr(*ty.shape)
    y.backward(pyth.tensor(g, dtype=pd))
    ty.backward(torch.tensor(g, dtype=td))
    for p, t in zip(ps, ts):
        if p is not None:
            assert tuple(p.grad.shape) == tuple(t.grad.shape)
            close(p.grad, t.grad, tol_g)


# (N, Cin, D, H, W, Cout, kernel, stride, padding, dilation, groups, bias)
CONV3D = [
    (2, 3, 5, 6, 4, 4, (3, 3, 2), 1, 0, 1, 1, True),
    (2, 2, 7, 6, 5, 3, (2, 2, 2), (3, 2, 1), 1, 1, 1, True),        # stride > kernel
    (1, 2, 4, 5, 5, 3, (3, 3, 3), 1, 2, 1, 1, False),               # padding > kernel / 2
    (2, 4, 4, 5, 4, 6, (2, 3, 2), (1, 2, 1), (1, 0, 1), 1, 2, True),  # groups
    (2, 3, 4, 4, 4, 3, 3, 1, 1, 1, 3, True),                        # depthwise
    (2, 2, 6, 7, 6, 3, (3, 2, 2), (2, 1, 1), (2, 1, 0), (2, 3, 2), 1, True),  # dilation
    (2, 2, 6, 5, 5, 3, 3, (2, 1, 1), 1, 1, 1, True),    # depth stride with whole-row runs
    (2, 2, 4, 5, 6, 4, (3, 3, 3), 1, "same", 1, 1, True),
    (2, 2, 5, 5, 4, 4, (2, 4, 2), 1, "same", (2, 1, 2), 2, True),  # 'same', even: asymmetric
    (2, 2, 4, 5, 4, 3, (2, 3, 2), 1, "valid", 1, 1, False),
    (2, 3, 5, 4, 6, 2, 1, 2, 0, 1, 1, True),                        # 1x1x1 kernel, strided
    (0, 3, 4, 4, 4, 2, 3, 1, 1, 1, 1, True),                        # zero-size batch
    (19, 2, 3, 4, 4, 3, 3, 1, 1, 1, 1, True),           # many samples: chunks of samples
    (2, 2, 4, 12, 13, 3, 3, 1, 1, 1, 1, True),          # large slices: one sample per GEMM
]


@needs_torch
@pytest.mark.parametrize("cfg", CONV3D)
def test_conv3d_matches_torch(cfg):
    n, cin, d, h, w, cout, k, s, p, dil, g, bias = cfg
    k = k if isinstance(k, tuple) else (k, k, k)
    arrays = [arr(n, cin, d, h, w), arr(cout, cin // g, *k), arr(cout) if bias else None]
    run_both(lambda x, wt, b: F.conv3d(x, wt, b, s, p, dil, g),
             lambda x, wt, b: torch.nn.functional.conv3d(x, wt, b, s, p, dil, g), arrays)


@needs_torch
@pytest.mark.parametrize("cfg", [CONV3D[1], CONV3D[3], CONV3D[8]])
def test_conv3d_float32(cfg):
    n, cin, d, h, w, cout, k, s, p, dil, g, bias = cfg
    arrays = [arr(n, cin, d, h, w), arr(cout, cin // g, *k), arr(cout) if bias else None]
    run_both(lambda x, wt, b: F.conv3d(x, wt, b, s, p, dil, g),
             lambda x, wt, b: torch.nn.functional.conv3d(x, wt, b, s, p, dil, g), arrays,
             "float32", 1e-4, 1e-4)


@needs_torch
@pytest.mark.parametrize("threads", [1, 2])
def test_conv3d_threads_agree(threads):
    old = pyth.get_num_threads()
    pyth.set_num_threads(threads)
    try:
        arrays = [arr(32, 4, 6, 6, 6), arr(8, 4, 3, 3, 3), arr(8)]
        run_both(lambda x, wt, b: F.conv3d(x, wt, b, padding=1),
                 lambda x, wt, b: torch.nn.functional.conv3d(x, wt, b, padding=1), arrays)
        arrays = [arr(32, 4, 3, 3, 3), arr(4, 2, 3, 3, 3), arr(2)]
        run_both(lambda x, wt, b: F.conv_transpose3d(x, wt, b, stride=2),
                 lambda x, wt, b: torch.nn.functional.conv_transpose3d(x, wt, b, stride=2),
                 arrays)
    finally:
        pyth.set_num_threads(old)


# (N, Cin, D, H, W, Cout, kernel, stride, padding, output_padding, dilation, groups, bias)
CONVT3D = [
    (2, 3, 3, 4, 3, 2, (3, 3, 2), 1, 0, 0, 1, 1, True),
    (2, 4, 2, 3, 3, 6, (2, 3, 2), (2, 1, 3), (1, 0, 1), (1, 0, 2), 1, 2, True),
    (1, 2, 3, 3, 2, 3, (2, 2, 3), 2, 1, 0, (2, 1, 1), 1, False),
    (2, 2, 2, 3, 3, 2, 2, 1, 0, 1, 2, 1, True),       # output_padding >= stride (< dilation)
    (2, 3, 3, 3, 3, 3, 3, 1, 1, 0, 1, 3, True),       # depthwise
    (0, 2, 2, 3, 3, 2, 2, 2, 0, 1, 1, 1, True),       # zero-size batch
]


@needs_torch
@pytest.mark.parametrize("cfg", CONVT3D)
def test_conv_transpose3d_matches_torch(cfg):
    n, cin, d, h, w, cout, k, s, p, op, dil, g, bias = cfg
    k = k if isinstance(k, tuple) else (k, k, k)
    arrays = [arr(n, cin, d, h, w), arr(cin, cout // g, *k), arr(cout) if bias else None]
    run_both(lambda x, wt, b: F.conv_transpose3d(x, wt, b, s, p, op, g, dil),
             lambda x, wt, b: torch.nn.functional.conv_transpose3d(x, wt, b, s, p, op, g, dil),
             arrays)


@needs_torch
def test_conv_transpose3d_float32():
    arrays = [arr(2, 4, 3, 2, 3), arr(4, 3, 2, 3, 2), arr(6)]
    run_both(lambda x, wt, b: F.conv_transpose3d(x, wt, b, 2, 1, 1, 2, 1),
             lambda x, wt, b: torch.nn.functional.conv_transpose3d(x, wt, b, 2, 1, 1, 2, 1),
             arrays, "float32", 1e-4, 1e-4)


@needs_torch
def test_non_contiguous_and_unbatched():
    base = arr(2, 5, 4, 6, 3)  # (N, W, H, D, C): permuted to (N, C, D, H, W), not contiguous
    wbase = arr(4, 3, 2, 3, 2)
    leaves = [P(base), T(base), P(wbase), T(wbase)]
    xp, xt = leaves[0].permute(0, 4, 3, 2, 1), leaves[1].permute(0, 4, 3, 2, 1)
    wp, wt = leaves[2].transpose(2, 4), leaves[3].transpose(2, 4)
    assert not xp.is_contiguous() and not wp.is_contiguous()
    y = F.conv3d(xp, wp, None, (2, 1, 1), 1)
    ty = torch.nn.functional.conv3d(xt, wt, None, (2, 1, 1), 1)
    close(y, ty, 1e-9)
    g = arr(*ty.shape)
    y.backward(pyth.tensor(g))
    ty.backward(torch.tensor(g))
    close(leaves[0].grad, leaves[1].grad, 1e-8)
    close(leaves[2].grad, leaves[3].grad, 1e-8)
    # a stepped (sliced) input and the transposed convolution of a permuted one
    x2 = arr(2, 3, 8, 5, 9)
    close(F.conv3d(P(x2, False)[:, :, ::2, :, 1::3], P(wbase, False)[:, :, :2], padding=1),
          torch.nn.functional.conv3d(T(x2, False)[:, :, ::2, :, 1::3],
                                     T(wbase, False)[:, :, :2], padding=1), 1e-9)
    close(F.conv_transpose3d(P(base, False).permute(0, 4, 3, 2, 1), P(wbase, False)[:3],
                             stride=2),
          torch.nn.functional.conv_transpose3d(T(base, False).permute(0, 4, 3, 2, 1),
                                               T(wbase, False)[:3], stride=2), 1e-9)
    # unbatched (C, D, H, W): the result has no batch dim either
    x4, w4, b4 = arr(3, 4, 5, 4), arr(2, 3, 3, 2, 3), arr(2)
    y = F.conv3d(P(x4, False), P(w4, False), P(b4, False), padding=(1, 0, 1))
    assert tuple(y.shape) == (2, 4, 4, 4)
    close(y, torch.nn.functional.conv3d(T(x4, False), T(w4, False), T(b4, False),
                                        padding=(1, 0, 1)), 1e-9)
    yt = F.conv_transpose3d(P(x4, False), P(arr(3, 2, 2, 2, 2), False), stride=2)
    assert tuple(yt.shape) == (2, 8, 10, 8)


def test_conv3d_of_depth_one_is_conv2d():
    """No PyTorch needed: a 3-D convolution over a unit depth is the 2-D one."""
    x, w, b = arr(3, 2, 6, 7), arr(4, 2, 3, 2), arr(4)
    want = F.conv2d(P(x, False), P(w, False), P(b, False), (2, 1), (1, 0), (1, 2))
    got = F.conv3d(P(x[:, :, None], False), P(w[:, :, None], False), P(b, False), (3, 2, 1),
                   (0, 1, 0), (5, 1, 2))
    assert tuple(got.shape) == (3, 4, 1, *want.shape[2:])
    np.testing.assert_allclose(got.numpy()[:, :, 0], want.numpy(), rtol=1e-12, atol=1e-12)
    want = F.conv_transpose2d(P(x, False), P(w.transpose(1, 0, 2, 3), False), None, 2, 1, 1)
    got = F.conv_transpose3d(P(x[:, :, None], False),
                             P(w.transpose(1, 0, 2, 3)[:, :, None], False), None, (1, 2, 2),
                             (0, 1, 1), (0, 1, 1))
    np.testing.assert_allclose(got.numpy()[:, :, 0], want.numpy(), rtol=1e-12, atol=1e-12)


def test_conv3d_by_hand():
    """No PyTorch needed: one output voxel summed by hand, with padding, stride, dilation."""
    x, w, b = arr(1, 2, 5, 4, 6), arr(3, 2, 2, 3, 2), arr(3)
    y = F.conv3d(P(x, False), P(w, False), P(b, False), (2, 1, 2), (1, 1, 0), (2, 1, 3))
    assert tuple(y.shape) == (1, 3, 3, 4, 2)
    yn = y.numpy()
    for o, z, yy, xx in [(0, 0, 0, 0), (2, 1, 3, 1), (1, 2, 2, 1), (0, 2, 0, 0)]:
        s = b[o]
        for c in range(2):
            for a in range(2):
                for i in range(3):
                    for j in range(2):
                        iz, iy, ix = z * 2 - 1 + a * 2, yy - 1 + i, xx * 2 + j * 3
                        if 0 <= iz < 5 and 0 <= iy < 4 and 0 <= ix < 6:
                            s += w[o, c, a, i, j] * x[0, c, iz, iy, ix]
        assert abs(yn[0, o, z, yy, xx] - s) < 1e-12


def test_conv3d_without_input_channels_is_its_bias():
    """No input channels: every output voxel is the bias (PyTorch returns an empty tensor
    here instead, so this is checked by hand)."""
    b = P(arr(2))
    y = F.conv3d(P(arr(2, 0, 3, 3, 3)), P(arr(2, 0, 3, 3, 3)), b, padding=1)
    assert tuple(y.shape) == (2, 2, 3, 3, 3)
    np.testing.assert_array_equal(y.detach().numpy(),
                                  np.broadcast_to(b.detach().numpy()[None, :, None, None, None],
                                                  (2, 2, 3, 3, 3)))
    y.sum().backward()
    np.testing.assert_allclose(b.grad.numpy(), [54.0, 54.0])


# gradcheck always (no PyTorch needed): small shapes
@pytest.mark.parametrize("kw", [{}, {"stride": (2, 1, 2), "padding": 1, "dilation": (1, 2, 1),
                                     "groups": 2}, {"padding": "same"}])
def test_conv3d_gradcheck(kw):
    g = kw.get("groups", 1)
    x, w, b = P(arr(2, 2, 4, 3, 4)), P(arr(2, 2 // g, 2, 2, 3)), P(arr(2))
    assert gradcheck(lambda x, w, b: F.conv3d(x, w, b, **kw), (x, w, b))


def test_conv_transpose3d_gradcheck():
    x, w, b = P(arr(1, 2, 2, 3, 2)), P(arr(2, 2, 2, 2, 3)), P(arr(4))
    assert gradcheck(lambda x, w, b: F.conv_transpose3d(x, w, b, stride=(2, 1, 2), padding=1,
                                                        output_padding=(1, 0, 1), groups=2,
                                                        dilation=(1, 2, 1)), (x, w, b))


def test_conv3d_double_backward():
    x, w, b = P(arr(1, 1, 3, 3, 3)), P(arr(2, 1, 2, 2, 2)), P(arr(2))
    assert gradgradcheck(lambda x, w, b: F.conv3d(x, w, b, stride=(1, 2, 1), padding=1),
                         (x, w, b))
    x, w, b = P(arr(1, 2, 2, 2, 2)), P(arr(2, 1, 2, 2, 2)), P(arr(1))
    assert gradgradcheck(lambda x, w, b: F.conv_transpose3d(x, w, b, stride=2), (x, w, b))


# ---- modules --------------------------------------------------------------------------------


MODULES = [
    ("Conv3d", (3, 4, 3), {}),
    ("Conv3d", (4, 6, (3, 2, 2)), {"stride": 2, "padding": (1, 0, 1), "dilation": (2, 1, 1),
                                   "groups": 2, "bias": False}),
    ("Conv3d", (2, 3, (2, 3, 4)), {"padding": "same", "padding_mode": "reflect"}),
    ("Conv3d", (2, 3, 3), {"padding": 2, "padding_mode": "replicate"}),
    ("Conv3d", (2, 3, 3), {"padding": (1, 2, 0), "padding_mode": "circular"}),
    ("Conv3d", (2, 2, 2), {"padding": "valid", "padding_mode": "reflect"}),
    ("ConvTranspose3d", (4, 2, 3), {"stride": 2, "padding": 1, "output_padding": 1,
                                    "groups": 2}),
    ("ConvTranspose3d", (2, 3, (2, 3, 2)), {"stride": (1, 2, 1), "dilation": 2, "bias": False}),
]


@needs_torch
@pytest.mark.parametrize("name,args,kw", MODULES)
def test_modules_match_torch(name, args, kw):
    pm = getattr(nn, name)(*args, **kw).double()
    tm = getattr(torch.nn, name)(*args, **kw).double()
    assert repr(pm) == repr(tm)
    copy_params(pm, tm)
    x = arr(2, args[0], 5, 4, 6)
    module_matches_torch(pm, tm, x, arr(*tm(T(x)).shape))
    close(pm(P(x[0], False)), tm(T(x[0], False)), 1e-9)  # unbatched input


def test_module_parameters_and_init():
    m = nn.Conv3d(6, 8, (3, 5, 2), groups=2)
    assert tuple(m.weight.shape) == (8, 3, 3, 5, 2) and tuple(m.bias.shape) == (8,)
    assert m.weight.dtype is pyth.float32
    bound = 1 / math.sqrt(3 * 3 * 5 * 2)  # kaiming_uniform_(a=sqrt(5)): 1/sqrt(fan_in)
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert np.abs(b).max() <= bound and np.abs(b).max() > 0.5 * bound
    t = nn.ConvTranspose3d(4, 6, 3, groups=2, bias=False)
    assert tuple(t.weight.shape) == (4, 3, 3, 3, 3) and t.bias is None
    tb = 1 / math.sqrt(3 * 27)
    assert tb * 0.9 < np.abs(t.weight.detach().numpy()).max() <= tb
    assert [k for k, _ in nn.Conv3d(2, 3, 2).named_parameters()] == ["weight", "bias"]
    m64 = nn.ConvTranspose3d(2, 3, 2, dtype=pyth.float64)
    assert m64.weight.dtype is pyth.float64 and tuple(m64.weight.shape) == (2, 3, 2, 2, 2)
    assert m.kernel_size == (3, 5, 2) and m.stride == (1, 1, 1) and m.padding == (0, 0, 0)
    assert nn.Conv3d(2, 2, 3, padding="same").padding == "same"
    assert set(m.state_dict()) == {"weight", "bias"}


@needs_torch
def test_module_float32_forward_backward():
    pm, tm = nn.Conv3d(3, 4, 3, stride=(1, 2, 2), padding=1), torch.nn.Conv3d(3, 4, 3,
                                                                               stride=(1, 2, 2),
                                                                               padding=1)
    copy_params(pm, tm)
    x = arr(2, 3, 4, 7, 6)
    px, tx = P(x, True, pyth.float32), T(x, True, torch.float32)
    y, ty = pm(px), tm(tx)
    assert y.dtype is pyth.float32
    close(y, ty, 1e-5)
    y.sum().backward()
    ty.sum().backward()
    close(px.grad, tx.grad, 1e-5)
    close(pm.weight.grad, tm.weight.grad, 1e-4)


@needs_torch
def test_conv_transpose3d_output_size():
    pm = nn.ConvTranspose3d(2, 3, 3, stride=2, padding=1).double()
    tm = torch.nn.ConvTranspose3d(2, 3, 3, stride=2, padding=1).double()
    copy_params(pm, tm)
    x = arr(1, 2, 3, 4, 4)
    close(pm(P(x), output_size=[6, 8, 7]), tm(T(x), output_size=[6, 8, 7]), 1e-9)
    assert tuple(pm(P(x), output_size=(1, 3, 5, 7, 8)).shape) == (1, 3, 5, 7, 8)
    assert tuple(pm(P(x[0]), output_size=(3, 6, 7, 8)).shape) == (3, 6, 7, 8)
    with pytest.raises(ValueError, match=r"requested an output size of \[10, 8, 8\], but valid "
                                         r"sizes range from \[5, 7, 7\] to \[6, 8, 8\]"):
        pm(P(x), output_size=[10, 8, 8])
    with pytest.raises(ValueError, match="ConvTranspose3D: for 5D input, output_size must have "
                                         "3 or 5 elements"):
        pm(P(x), output_size=[8, 8])


# ---- errors ---------------------------------------------------------------------------------

def test_errors():
    x = P(arr(1, 3, 4, 5, 6), False)
    w = P(arr(2, 3, 3, 3, 3), False)
    with pytest.raises(RuntimeError, match=r"expected input\[1, 3, 4, 5, 6\] to have 4 channels, "
                                           r"but got 3 channels instead"):
        F.conv3d(x, P(arr(2, 4, 3, 3, 3), False))
    with pytest.raises(RuntimeError, match=r"Expected 4D \(unbatched\) or 5D \(batched\) input "
                                           r"to conv3d, but got input of size: \[3, 4, 5\]"):
        F.conv3d(P(arr(3, 4, 5), False), w)
    with pytest.raises(RuntimeError, match="conv3d: expected a 5-D weight"):
        F.conv3d(x, P(arr(2, 3, 3, 3), False))
    with pytest.raises(RuntimeError, match=r"Calculated padded input size per channel: "
                                           r"\(4 x 5 x 6\). Kernel size: \(5 x 3 x 3\). Kernel "
                                           r"size can't be greater than actual input size"):
        F.conv3d(x, P(arr(2, 3, 5, 3, 3), False))
    with pytest.raises(RuntimeError, match=r"Kernel size: \(5 x 5 x 3\)"):
        F.conv3d(x, w, dilation=(2, 2, 1))
    with pytest.raises(RuntimeError, match="expected weight to be divisible by 2 at dimension 0"):
        F.conv3d(x, P(arr(3, 1, 3, 3, 3), False), groups=2)
    with pytest.raises(RuntimeError, match="expected bias to be 1-dimensional with 2 elements"):
        F.conv3d(x, w, P(arr(3), False))
    with pytest.raises(RuntimeError, match="expected stride to be a single integer value or a "
                                           "list of 3 values"):
        F.conv3d(x, w, stride=(1, 2))
    with pytest.raises(RuntimeError, match="not supported for strided convolutions"):
        F.conv3d(x, w, padding="same", stride=2)
    with pytest.raises(RuntimeError, match="non-positive stride"):
        F.conv3d(x, w, stride=(1, 0, 1))
    with pytest.raises(RuntimeError, match="negative padding"):
        F.conv3d(x, w, padding=(0, 0, -1))
    with pytest.raises(RuntimeError, match=r"dilation should be greater than zero, but got "
                                           r"\[1, 0, 1\]"):
        F.conv3d(x, w, dilation=(1, 0, 1))
    with pytest.raises(RuntimeError, match="non-positive groups"):
        F.conv3d(x, w, groups=0)
    with pytest.raises(RuntimeError, match=r"expected weight to be at least 1 at dimension 0, "
                                           r"but got weight of size \[0, 3, 3, 3, 3\]"):
        F.conv3d(x, P(arr(0, 3, 3, 3, 3), False))
    with pytest.raises(RuntimeError, match="one dtype"):
        F.conv3d(x, P(arr(2, 3, 3, 3, 3), False, pyth.float32))
    with pytest.raises(RuntimeError, match="floating point"):
        F.conv3d(pyth.zeros(1, 3, 4, 4, 4, dtype=pyth.int64),
                 pyth.zeros(2, 3, 3, 3, 3, dtype=pyth.int64))
    # the transposed convolution
    with pytest.raises(RuntimeError, match=r"Given transposed=1, weight of size "
                                           r"\[4, 2, 3, 3, 3\], expected input\[1, 3, 4, 5, 6\] "
                                           r"to have 4 channels"):
        F.conv_transpose3d(x, P(arr(4, 2, 3, 3, 3), False))
    with pytest.raises(RuntimeError, match="output padding must be smaller than either stride or "
                                           "dilation, but got output_padding_depth: 1 "
                                           "output_padding_height: 1 output_padding_width: 1 "
                                           "stride_depth: 1 stride_height: 1 stride_width: 1 "
                                           "dilation_depth: 1 dilation_height: 1 "
                                           "dilation_width: 1"):
        F.conv_transpose3d(x, P(arr(3, 2, 3, 3, 3), False), output_padding=1)
    with pytest.raises(RuntimeError, match=r"Given input size per channel: \(4 x 5 x 6\). "
                                           r"Calculated output size per channel: \(0 x 1 x 2\). "
                                           r"Output size is too small"):
        F.conv_transpose3d(x, P(arr(3, 2, 3, 3, 3), False), padding=3)
    with pytest.raises(TypeError, match="conv_transpose3d\\(\\): argument 'padding' must be "
                                        "tuple of ints, not str"):
        F.conv_transpose3d(x, P(arr(3, 2, 3, 3, 3), False), padding="same")
    with pytest.raises(RuntimeError, match=r"non-empty 5D weight tensor expected, but got: "
                                           r"\[3, 0, 3, 3, 3\]"):
        F.conv_transpose3d(x, P(arr(3, 0, 3, 3, 3), False))
    with pytest.raises(RuntimeError, match="Expected 4D .* to conv_transpose3d"):
        F.conv_transpose3d(P(arr(3, 4, 5), False), P(arr(3, 2, 3, 3, 3), False))
    # modules
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv3d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="out_channels must be divisible by groups"):
        nn.ConvTranspose3d(4, 3, 3, groups=2)
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        nn.Conv3d(4, 4, 3, padding_mode="foo")
    with pytest.raises(ValueError, match="not supported for strided convolutions"):
        nn.Conv3d(4, 4, 3, padding="same", stride=(1, 2, 1))
    with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for '
                                         'ConvTranspose3d'):
        nn.ConvTranspose3d(4, 4, 3, padding_mode="reflect")
    with pytest.raises(RuntimeError, match="expected input.* to have 4 channels"):
        nn.Conv3d(4, 2, 3)(pyth.zeros(2, 3, 5, 5, 5))
    with pytest.raises(RuntimeError, match="Padding size should be less than the corresponding "
                                           "input dimension"):
        nn.Conv3d(3, 2, 3, padding=3, padding_mode="reflect")(pyth.zeros(1, 3, 3, 5, 5))


def test_c_api_checks_arguments():
    """The Volumetric verbs check their arguments themselves when called directly."""
    from pyth._th import ffi, lib
    x = pyth.zeros(1, 3, 4, 5, 5, dtype=pyth.float64)
    w = pyth.zeros(2, 3, 3, 3, 3, dtype=pyth.float64)
    y = pyth.DoubleTensor()
    geo = (1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1)
    assert lib.THNN_DoubleVolumetricConvolutionMM_updateOutput(
        y._h, x._h, w._h, ffi.NULL, *geo, 1) == 0
    assert tuple(y.shape) == (1, 2, 2, 3, 3)
    assert lib.THNN_DoubleVolumetricConvolutionMM_updateOutput(
        y._h, x._h, w._h, ffi.NULL, *geo, 2) != 0
    assert "to have 6 channels" in ffi.string(lib.THError_message()).decode()
    lib.THError_clear()
    x4 = pyth.zeros(1, 3, 5, 5, dtype=pyth.float64)
    assert lib.THNN_DoubleVolumetricConvolutionMM_updateOutput(
        y._h, x4._h, w._h, ffi.NULL, *geo, 1) != 0
    assert "expected a 5-D input (N, C, D, H, W)" in ffi.string(lib.THError_message()).decode()
    lib.THError_clear()
    gw = pyth.zeros(2, 3, 4, 4, 4, dtype=pyth.float64)
    assert lib.THNN_DoubleVolumetricConvolutionMM_accGradParameters(
        gw._h, ffi.NULL, y._h, x._h, *geo, 1, 1.0) != 0
    lib.THError_clear()
    gi = pyth.DoubleTensor()
    assert lib.THNN_DoubleVolumetricConvolutionMM_updateGradInput(
        gi._h, y._h, w._h, 4, 5, 6, *geo, 1) != 0
    assert "expected gradOutput of size [1, 2, 2, 3, 4]" in \
        ffi.string(lib.THError_message()).decode()
    lib.THError_clear()
    assert lib.THNN_DoubleVolumetricFullDilatedConvolution_updateOutput(
        y._h, y._h, w._h, ffi.NULL, *geo, 0, 1, 0, 1) != 0
    assert "output_padding_height: 1" in ffi.string(lib.THError_message()).decode()
    lib.THError_clear()
