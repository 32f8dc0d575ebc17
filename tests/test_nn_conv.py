"""Convolutions (generic/THNNConvolution.c through pyth.nn): forward and every gradient against
PyTorch in float64 (1e-9 / 1e-8), under gradcheck always, odd geometries, layouts, dtypes,
modules' parameters, init, repr and errors. F.unfold / F.fold (im2col / col2im, composed of
differentiable ops) and their modules: values and gradients against PyTorch, numpy references,
gradcheck, zero-size inputs and PyTorch's exception classes."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _support import (
    P,
    T,
    close,
    copy_params,
    module_matches_torch,
    needs_torch,
    raises_as_torch,
    seeded,
    torch,
    twin_grads,
)

import pyth
from pyth import nn
from pyth.autograd import gradcheck, gradgradcheck
from pyth.nn import functional as F

TF = torch.nn.functional if torch is not None else None
RNG = np.random.default_rng(7)


def arr(*shape):
    return RNG.standard_normal(shape)


def run_both(pf, tf, arrays, tol_f=1e-9, tol_g=1e-8):
    """pf / tf on the same float64 operands (None stays None): output and every gradient."""
    ps = [None if a is None else P(a) for a in arrays]
    ts = [None if a is None else T(a) for a in arrays]
    y, ty = pf(*ps), tf(*ts)
    close(y, ty, tol_f)
    g = arr(*ty.shape)
    y.backward(pyth.tensor(g, dtype=pyth.float64))
    ty.backward(torch.tensor(g))
    for p, t in zip(ps, ts):
        if p is not None:
            close(p.grad, t.grad, tol_g)


# (N, Cin, H, W, Cout, kernel, stride, padding, dilation, groups, bias)
CONV2D = [
    (2, 3, 7, 6, 4, (3, 3), 1, 0, 1, 1, True),
    (2, 2, 9, 8, 3, (2, 2), 3, 1, 1, 1, True),        # stride > kernel
    (1, 2, 5, 5, 3, (3, 3), 1, 2, 1, 1, False),       # padding > kernel / 2, batch 1
    (2, 4, 6, 6, 6, (3, 2), (1, 2), (1, 0), 1, 2, True),  # groups
    (2, 3, 5, 5, 3, 3, 1, 1, 1, 3, True),             # depthwise
    (2, 2, 8, 7, 3, (3, 2), (2, 1), (2, 1), (2, 3), 1, True),  # dilation
    (3, 2, 6, 6, 4, (3, 3), 1, "same", 1, 1, True),
    (2, 2, 7, 6, 4, (4, 2), 1, "same", (1, 2), 2, True),  # 'same', even kernel: asymmetric
    (2, 2, 6, 5, 3, (2, 3), 1, "valid", 1, 1, False),
    (0, 3, 5, 5, 2, (3, 3), 1, 1, 1, 1, True),        # zero-size batch
    (37, 3, 6, 6, 5, (3, 3), 1, 1, 1, 1, True),       # many samples: chunks, threads
    (3, 2, 24, 23, 3, (3, 3), 1, 1, 1, 1, True),      # wide images: one sample per GEMM
    # a sample's columns above 2^17 elements go in bands of grid rows (K x L: 144 x 1520, two
    # bands of 23 and 17 rows), with stride, 'same' dilated padding, groups, one-row bands, and
    # two samples of bands
    (1, 16, 40, 38, 4, (3, 3), 1, 1, 1, 1, True),
    (1, 8, 81, 40, 3, (5, 5), 2, 2, 1, 1, True),
    (1, 12, 48, 30, 2, (4, 2), 1, "same", (2, 1), 1, False),
    (1, 16, 44, 44, 8, (3, 3), 1, 1, 1, 2, True),
    (1, 64, 4, 240, 3, (3, 3), 1, 1, 1, 1, True),
    (2, 16, 40, 38, 4, (3, 3), 1, (2, 0), 1, 1, True),
]


@needs_torch
@pytest.mark.parametrize("cfg", CONV2D)
def test_conv2d_matches_torch(cfg):
    n, cin, h, w, cout, k, s, p, d, g, bias = cfg
    k = k if isinstance(k, tuple) else (k, k)
    arrays = [arr(n, cin, h, w), arr(cout, cin // g, *k), arr(cout) if bias else None]
    run_both(lambda x, wt, b: F.conv2d(x, wt, b, s, p, d, g),
             lambda x, wt, b: torch.nn.functional.conv2d(x, wt, b, s, p, d, g), arrays)


@needs_torch
@pytest.mark.parametrize("threads", [1, 2])
def test_conv2d_threads_agree(threads):
    old = pyth.get_num_threads()
    pyth.set_num_threads(threads)
    try:
        arrays = [arr(64, 8, 8, 8), arr(16, 8, 3, 3), arr(16)]
        run_both(lambda x, wt, b: F.conv2d(x, wt, b, padding=1),
                 lambda x, wt, b: torch.nn.functional.conv2d(x, wt, b, padding=1), arrays)
    finally:
        pyth.set_num_threads(old)


@needs_torch
def test_conv2d_bands_split_between_threads():
    """One sample in bands of rows: the forward's bands are split between threads and give the
    same bits at 1 and 2 threads; the gradients (sums of a buffer per thread) agree to
    rounding, and with PyTorch."""
    old = pyth.get_num_threads()
    x, w = arr(1, 16, 40, 38), arr(4, 16, 3, 3)
    got = []
    try:
        for threads in (1, 2):
            pyth.set_num_threads(threads)
            px, pw = P(x), P(w)
            y = F.conv2d(px, pw, padding=1)
            y.backward(pyth.ones_like(y))
            got.append((y.detach().numpy(), px.grad.numpy(), pw.grad.numpy()))
    finally:
        pyth.set_num_threads(old)
    (y1, gx1, gw1), (y2, gx2, gw2) = got
    assert np.array_equal(y1, y2)
    np.testing.assert_allclose(gx2, gx1, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gw2, gw1, rtol=1e-12, atol=1e-12)
    tx, tw = T(x), T(w)
    ty = TF.conv2d(tx, tw, padding=1)
    ty.backward(torch.ones_like(ty))
    np.testing.assert_allclose(y1, ty.detach().numpy(), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(gx2, tx.grad.numpy(), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(gw2, tw.grad.numpy(), rtol=1e-9, atol=1e-9)


# (N, Cin, L, Cout, k, stride, padding, dilation, groups)
CONV1D = [
    (2, 3, 10, 4, 3, 1, 0, 1, 1),
    (1, 2, 9, 4, 2, 3, 1, 1, 2),
    (3, 2, 11, 3, 4, 1, "same", 2, 1),
    (2, 2, 8, 2, 3, 2, 2, 2, 1),
]


@needs_torch
@pytest.mark.parametrize("cfg", CONV1D)
def test_conv1d_matches_torch(cfg):
    n, cin, length, cout, k, s, p, d, g = cfg
    arrays = [arr(n, cin, length), arr(cout, cin // g, k), arr(cout)]
    run_both(lambda x, wt, b: F.conv1d(x, wt, b, s, p, d, g),
             lambda x, wt, b: torch.nn.functional.conv1d(x, wt, b, s, p, d, g), arrays)


# (N, Cin, H, W, Cout, kernel, stride, padding, output_padding, dilation, groups, bias)
CONVT2D = [
    (2, 3, 4, 5, 2, (3, 3), 1, 0, 0, 1, 1, True),
    (2, 4, 3, 4, 6, (3, 2), (2, 3), (1, 0), (1, 2), 1, 2, True),
    (1, 2, 4, 4, 3, (2, 3), 2, 1, 0, (2, 1), 1, False),
    (2, 2, 3, 3, 2, (2, 2), 1, 0, 1, 2, 1, True),     # output_padding >= stride (< dilation)
    (0, 2, 3, 3, 2, (2, 2), 2, 0, 1, 1, 1, True),
    (1, 4, 38, 38, 16, (3, 3), 1, 0, 0, 1, 1, True),  # bands (K x L: 144 x 1444)
    (1, 4, 30, 30, 16, (4, 4), 2, 1, 0, 1, 1, False),  # bands, stride 2
]


@needs_torch
@pytest.mark.parametrize("cfg", CONVT2D)
def test_conv_transpose2d_matches_torch(cfg):
    n, cin, h, w, cout, k, s, p, op, d, g, bias = cfg
    arrays = [arr(n, cin, h, w), arr(cin, cout // g, *k), arr(cout) if bias else None]
    run_both(lambda x, wt, b: F.conv_transpose2d(x, wt, b, s, p, op, g, d),
             lambda x, wt, b: torch.nn.functional.conv_transpose2d(x, wt, b, s, p, op, g, d),
             arrays)


@needs_torch
def test_conv_transpose1d_matches_torch():
    arrays = [arr(2, 4, 7), arr(4, 3, 3), arr(6)]
    run_both(lambda x, wt, b: F.conv_transpose1d(x, wt, b, 2, 1, 1, 2, 1),
             lambda x, wt, b: torch.nn.functional.conv_transpose1d(x, wt, b, 2, 1, 1, 2, 1),
             arrays)


@needs_torch
def test_layouts_unbatched_and_float32():
    base = arr(2, 5, 6, 3)  # (N, W, H, C): permuted to (N, C, H, W), not contiguous
    wbase = arr(3, 3, 4, 2)
    xp = P(base).permute(0, 3, 2, 1)
    xt = T(base).permute(0, 3, 2, 1)
    wp, wt = P(wbase).transpose(2, 3), T(wbase).transpose(2, 3)
    assert not xp.is_contiguous() and not wp.is_contiguous()
    y, ty = F.conv2d(xp, wp, None, 2, 1), torch.nn.functional.conv2d(xt, wt, None, 2, 1)
    close(y, ty, 1e-9)
    # unbatched (C, H, W)
    x3 = arr(3, 6, 5)
    close(F.conv2d(P(x3, False), P(wbase, False).transpose(2, 3), padding=1),
          torch.nn.functional.conv2d(T(x3, False), T(wbase, False).transpose(2, 3), padding=1),
          1e-9)
    # float32
    x, wt32, b = arr(2, 3, 7, 7), arr(4, 3, 3, 3), arr(4)
    y = F.conv2d(P(x, False, pyth.float32), P(wt32, False, pyth.float32),
                 P(b, False, pyth.float32), 1, 1)
    assert y.dtype is pyth.float32
    ty = torch.nn.functional.conv2d(T(x, False, torch.float32), T(wt32, False, torch.float32),
                                    T(b, False, torch.float32), 1, 1)
    close(y, ty, 1e-5)
    yt = F.conv_transpose2d(P(x, False, pyth.float32), P(wt32.transpose(1, 0, 2, 3), False,
                                                         pyth.float32), stride=2)
    tt = torch.nn.functional.conv_transpose2d(T(x, False, torch.float32),
                                              T(wt32.transpose(1, 0, 2, 3), False,
                                                torch.float32), stride=2)
    close(yt, tt, 1e-5)


def test_conv1d_unbatched_shape():
    y = F.conv1d(P(arr(3, 8), False), P(arr(2, 3, 3), False), padding="same")
    assert tuple(y.shape) == (2, 8)


# gradcheck always (no PyTorch needed): small shapes
@pytest.mark.parametrize("kw", [{}, {"stride": 2, "padding": 1, "dilation": (1, 2), "groups": 2},
                                {"padding": "same"}])
def test_conv2d_gradcheck(kw):
    x, w, b = P(arr(2, 2, 5, 4)), P(arr(4, 2 // kw.get("groups", 1), 2, 3)), P(arr(4))
    assert gradcheck(lambda x, w, b: F.conv2d(x, w, b, **kw), (x, w, b))


def test_conv1d_and_transpose_gradcheck():
    x, w, b = P(arr(2, 2, 6)), P(arr(3, 2, 2)), P(arr(3))
    assert gradcheck(lambda x, w, b: F.conv1d(x, w, b, stride=2, padding="valid"), (x, w, b))
    x, w, b = P(arr(1, 2, 3, 3)), P(arr(2, 3, 2, 2)), P(arr(3))
    assert gradcheck(lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1,
                                                        output_padding=1), (x, w, b))


def test_conv_double_backward():
    x, w, b = P(arr(1, 2, 4, 4)), P(arr(2, 2, 2, 3)), P(arr(2))
    assert gradgradcheck(lambda x, w, b: F.conv2d(x, w, b, stride=(1, 2), padding=1), (x, w, b))
    x, w = P(arr(1, 2, 3, 3)), P(arr(2, 2, 2, 2))
    assert gradgradcheck(lambda x, w: F.conv_transpose2d(x, w, stride=2), (x, w))
    x, w = P(arr(1, 1, 4, 5)), P(arr(2, 1, 2, 3))
    assert gradgradcheck(lambda x, w: F.conv2d(x, w, padding="same"), (x, w))


def _grads_of(lib, f):
    """The first-order gradients of f(...)**2 summed, recorded (create_graph), as one vector:
    twin_grads then checks their own gradients, the second order, against PyTorch's."""
    return lambda *ts: lib.cat([g.reshape(-1) for g in lib.autograd.grad(
        f(lib.nn.functional, *ts).pow(2).sum(), ts, create_graph=True)])


@needs_torch
@pytest.mark.parametrize("f, shapes", [
    (lambda F, x, w, b: F.conv2d(x, w, b, (2, 1), (1, 2), (1, 2), 2),
     [(2, 4, 6, 7), (4, 2, 3, 2), (4,)]),
    (lambda F, x, w, b: F.conv_transpose2d(x, w, b, 2, 1, 1, 1, 1),
     [(1, 2, 3, 4), (2, 3, 3, 3), (3,)]),
    (lambda F, x, w, b: F.conv3d(x, w, b, 1, 1), [(1, 2, 3, 4, 3), (2, 2, 2, 3, 2), (2,)]),
    (lambda F, x, w, b: F.conv_transpose3d(x, w, b, 2), [(1, 2, 2, 3, 2), (2, 2, 2, 2, 2), (2,)]),
    (lambda F, x, w, b: F.conv1d(x, w, b, 2, "valid"), [(2, 3, 9), (2, 3, 3), (2,)]),
], ids=["conv2d", "conv_transpose2d", "conv3d", "conv_transpose3d", "conv1d"])
def test_second_order_gradients_match_torch(f, shapes):
    twin_grads(_grads_of(pyth, f), _grads_of(torch, f), [arr(*s) for s in shapes], tol=1e-8)


@needs_torch
@pytest.mark.parametrize("transposed", [False, True])
def test_saved_operands_are_version_checked_as_torch(transposed):
    """An in-place change of the input or the weight after the forward is refused at backward,
    with PyTorch's message; without retain_graph a second backward is refused too."""
    msgs = {}
    for lib in (pyth, torch):
        conv = lib.nn.functional.conv_transpose2d if transposed else lib.nn.functional.conv2d
        x = lib.tensor(arr(1, 2, 4, 4), requires_grad=True)
        w = lib.tensor(arr(2, 2, 3, 3), requires_grad=True)
        got = []
        for which in (0, 1):
            ops = [x * 1, w * 1]
            y = conv(*ops)
            ops[which].add_(1)
            with pytest.raises(RuntimeError) as e:
                y.sum().backward()
            got.append(str(e.value).split(", which is")[0].replace(lib.__name__ + ".", ""))
        s = conv(x, w).sum()
        s.backward()
        with pytest.raises(RuntimeError) as e:
            s.backward()
        got.append(str(e.value))
        assert len(s.grad_fn.next_functions[0][0].next_functions) == 3   # input, weight, bias
        msgs[lib] = got
    assert msgs[pyth] == msgs[torch]


@needs_torch
def test_float64_upstream_gradient_of_float32_conv():
    """A float64 gradient for a float32 result: the gradients are float32, as PyTorch's, in a
    plain backward (the kernel's verbs) and under create_graph (the formula)."""
    a, b, g = arr(2, 3, 5, 5), arr(4, 3, 3, 3), arr(2, 4, 3, 3)
    for create_graph in (False, True):
        grads = {}
        for lib in (pyth, torch):
            x = lib.tensor(a, dtype=lib.float32, requires_grad=True)
            w = lib.tensor(b, dtype=lib.float32, requires_grad=True)
            y = lib.nn.functional.conv2d(x, w)
            grads[lib] = lib.autograd.grad(y, (x, w), lib.tensor(g), create_graph=create_graph)
        for p, t in zip(grads[pyth], grads[torch]):
            assert p.dtype is pyth.float32
            close(p, t, 1e-4)


# ---- modules --------------------------------------------------------------------------------


MODULES = [
    ("Conv2d", (3, 4, 3), {}),
    ("Conv2d", (4, 6, (3, 2)), {"stride": 2, "padding": (1, 0), "dilation": (2, 1), "groups": 2,
                                    "bias": False}),
    ("Conv2d", (2, 3, 4), {"padding": "same", "padding_mode": "reflect"}),
    ("Conv2d", (2, 3, 3), {"padding": 2, "padding_mode": "replicate"}),
    ("Conv2d", (2, 3, 3), {"padding": (1, 2), "padding_mode": "circular"}),
    ("Conv1d", (2, 4, 3), {"padding": "same", "dilation": 2}),
    ("Conv1d", (2, 4, 3), {"padding": 1, "padding_mode": "reflect"}),
    ("ConvTranspose2d", (4, 2, 3), {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2}),
    ("ConvTranspose1d", (2, 3, 3), {"stride": 2, "dilation": 2}),
]


@needs_torch
@pytest.mark.parametrize("name,args,kw", MODULES)
def test_modules_match_torch(name, args, kw):
    pm = getattr(nn, name)(*args, **kw).double()
    tm = getattr(torch.nn, name)(*args, **kw).double()
    assert repr(pm) == repr(tm)
    copy_params(pm, tm)
    nd = 1 if name.endswith("1d") else 2
    shape = (2, args[0], 7) if nd == 1 else (2, args[0], 7, 6)
    x = arr(*shape)
    module_matches_torch(pm, tm, x, arr(*tm(T(x)).shape))
    # unbatched input
    close(pm(P(x[0], False)), tm(T(x[0], False)), 1e-9)


def test_module_parameters_and_init():
    m = nn.Conv2d(6, 8, (3, 5), groups=2)
    assert tuple(m.weight.shape) == (8, 3, 3, 5) and tuple(m.bias.shape) == (8,)
    assert m.weight.dtype is pyth.float32
    bound = 1 / math.sqrt(3 * 3 * 5)
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound
    assert np.abs(b).max() <= bound and np.abs(b).max() > 0.5 * bound
    t = nn.ConvTranspose2d(4, 6, 3, groups=2, bias=False)
    assert tuple(t.weight.shape) == (4, 3, 3, 3) and t.bias is None
    assert np.abs(t.weight.detach().numpy()).max() <= 1 / math.sqrt(3 * 9)
    assert [k for k, _ in nn.Conv1d(2, 3, 4).named_parameters()] == ["weight", "bias"]
    assert tuple(nn.Conv1d(2, 3, 4, dtype=pyth.float64).weight.shape) == (3, 2, 4)
    assert nn.Conv1d(2, 3, 4, dtype=pyth.float64).weight.dtype is pyth.float64


@needs_torch
def test_conv_transpose_output_size():
    pm = nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1).double()
    tm = torch.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1).double()
    copy_params(pm, tm)
    x = arr(1, 2, 4, 4)
    close(pm(P(x), output_size=[8, 8]), tm(T(x), output_size=[8, 8]), 1e-9)
    assert tuple(pm(P(x), output_size=(1, 3, 7, 8)).shape) == (1, 3, 7, 8)
    with pytest.raises(ValueError, match="requested an output size of"):
        pm(P(x), output_size=[10, 8])


# ---- errors ---------------------------------------------------------------------------------

def test_errors():
    x = P(arr(1, 3, 5, 5), False)
    with pytest.raises(RuntimeError, match=r"expected input\[1, 3, 5, 5\] to have 4 channels, "
                                           r"but got 3 channels instead"):
        F.conv2d(x, P(arr(2, 4, 3, 3), False))
    with pytest.raises(RuntimeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\) input "
                                           r"to conv2d, but got input of size: \[3, 5\]"):
        F.conv2d(P(arr(3, 5), False), P(arr(2, 3, 3, 3), False))
    with pytest.raises(RuntimeError, match="Expected 2D .* to conv1d"):
        F.conv1d(x, P(arr(2, 3, 3), False))
    with pytest.raises(RuntimeError, match=r"Kernel size: \(7 x 7\). Kernel size can't be "
                                           r"greater than actual input size"):
        F.conv2d(x, P(arr(2, 3, 7, 7), False))
    with pytest.raises(RuntimeError, match="expected weight to be divisible by 2"):
        F.conv2d(x, P(arr(3, 1, 3, 3), False), groups=2)
    with pytest.raises(RuntimeError, match="expected bias to be 1-dimensional with 2 elements"):
        F.conv2d(x, P(arr(2, 3, 3, 3), False), P(arr(5), False))
    with pytest.raises(RuntimeError, match="not supported for strided convolutions"):
        F.conv2d(x, P(arr(2, 3, 3, 3), False), padding="same", stride=2)
    with pytest.raises(RuntimeError, match="Invalid padding string: 'foo'"):
        F.conv2d(x, P(arr(2, 3, 3, 3), False), padding="foo")
    with pytest.raises(RuntimeError, match="non-positive stride"):
        F.conv2d(x, P(arr(2, 3, 3, 3), False), stride=0)
    with pytest.raises(RuntimeError, match="negative padding"):
        F.conv2d(x, P(arr(2, 3, 3, 3), False), padding=-1)
    with pytest.raises(RuntimeError, match="dilation should be greater than zero"):
        F.conv2d(x, P(arr(2, 3, 3, 3), False), dilation=0)
    with pytest.raises(RuntimeError, match="non-positive groups"):
        F.conv2d(x, P(arr(2, 3, 3, 3), False), groups=0)
    with pytest.raises(RuntimeError, match="one dtype"):
        F.conv2d(x, P(arr(2, 3, 3, 3), False, pyth.float32))
    with pytest.raises(RuntimeError, match="floating point"):
        F.conv2d(pyth.zeros(1, 3, 5, 5, dtype=pyth.int64),
                 pyth.zeros(2, 3, 3, 3, dtype=pyth.int64))
    with pytest.raises(RuntimeError, match=r"Given transposed=1, weight of size \[4, 3, 3, 3\], "
                                           r"expected input\[1, 3, 5, 5\] to have 4 channels"):
        F.conv_transpose2d(x, P(arr(4, 3, 3, 3), False))
    with pytest.raises(RuntimeError, match="output padding must be smaller than either stride "
                                           "or dilation"):
        F.conv_transpose2d(x, P(arr(3, 3, 3, 3), False), output_padding=1)
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="out_channels must be divisible by groups"):
        nn.Conv2d(4, 3, 3, groups=2)
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        nn.Conv2d(4, 4, 3, padding_mode="foo")
    with pytest.raises(ValueError, match="not supported for strided convolutions"):
        nn.Conv2d(4, 4, 3, padding="same", stride=2)
    with pytest.raises(ValueError, match='Only "zeros" padding mode'):
        nn.ConvTranspose2d(4, 4, 3, padding_mode="reflect")
    with pytest.raises(RuntimeError, match="expected input.* to have 4 channels"):
        nn.Conv2d(4, 2, 3)(pyth.zeros(2, 3, 5, 5))


def test_c_api_checks_arguments():
    """The kernels check their arguments themselves when called directly."""
    from pyth._th import ffi, lib
    x, w = pyth.zeros(1, 3, 5, 5, dtype=pyth.float64), pyth.zeros(2, 3, 3, 3,
                                                                  dtype=pyth.float64)
    y = pyth.DoubleTensor()
    assert lib.THNN_DoubleSpatialConvolutionMM_updateOutput(
        y._h, x._h, w._h, ffi.NULL, 1, 1, 0, 0, 0, 0, 1, 1, 1) == 0
    assert tuple(y.shape) == (1, 2, 3, 3)
    assert lib.THNN_DoubleSpatialConvolutionMM_updateOutput(
        y._h, x._h, w._h, ffi.NULL, 1, 1, 0, 0, 0, 0, 1, 1, 2) != 0
    assert "to have 6 channels" in ffi.string(lib.THError_message()).decode()
    lib.THError_clear()
    gw = pyth.zeros(2, 3, 4, 4, dtype=pyth.float64)
    assert lib.THNN_DoubleSpatialConvolutionMM_accGradParameters(
        gw._h, ffi.NULL, y._h, x._h, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1.0) != 0
    lib.THError_clear()


def test_python_threads_have_their_own_workspace():
    """Each calling thread's columns live in its own cached buffer: concurrent calls agree."""
    import threading
    x, w = P(arr(8, 3, 9, 9), False), P(arr(4, 3, 3, 3), False)
    want = F.conv2d(x, w, padding=1).numpy().copy()
    got, errors = [], []

    def work():
        try:
            for _ in range(20):
                got.append(np.array_equal(F.conv2d(x, w, padding=1).numpy(), want))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(got) == 80 and all(got)


# ==== unfold / fold (im2col / col2im, composed) ===================================================

def transposed(x):
    """The same values through a non-contiguous (transposed twice) view."""
    return x.transpose(-1, -2).contiguous().transpose(-1, -2)


def expanded(x):
    """A stride-0 view: the first sample repeated along dim 0."""
    return x[:1].expand(3, *x.shape[1:])


FOLD_CASES = [  # (C, H, W), kernel, dilation, padding, stride
    ((2, 5, 6), 2, 1, 0, 1),
    ((3, 5, 6), (2, 3), (2, 1), (1, 2), (2, 3)),
    ((1, 4, 4), 3, 1, 1, 1),
    ((2, 7, 5), (3, 1), (1, 2), 0, (2, 1)),
]


@needs_torch
@pytest.mark.parametrize("chw,k,d,p,s", FOLD_CASES)
@pytest.mark.parametrize("batch", [(2,), ()])
def test_unfold_fold_match_torch(chw, k, d, p, s, batch):
    y = twin_grads(lambda x: F.unfold(x, k, d, p, s), lambda x: TF.unfold(x, k, d, p, s),
                 [seeded(*batch, *chw)])
    twin_grads(lambda c: F.fold(c, chw[1:], k, d, p, s), lambda c: TF.fold(c, chw[1:], k, d, p, s),
             [seeded(*y.shape, key=3)])


@needs_torch
def test_unfold_fold_layouts_float32_empty_modules():
    twin_grads(lambda x: nn.Unfold(2, padding=1)(x), lambda x: torch.nn.Unfold(2, padding=1)(x),
             [seeded(2, 3, 4, 5)], [transposed], "float32", 1e-5)
    twin_grads(lambda c: nn.Fold((4, 5), 2)(c), lambda c: torch.nn.Fold((4, 5), 2)(c),
             [seeded(2, 12, 12)], [transposed], "float32", 1e-5)
    twin_grads(lambda x: F.unfold(x, 2), lambda x: TF.unfold(x, 2), [seeded(0, 3, 4, 5)])
    twin_grads(lambda c: F.fold(c, 3, 2), lambda c: TF.fold(c, 3, 2), [seeded(0, 8, 4)])
    for pm, tm in ((nn.Fold(3, (2, 3), stride=2), torch.nn.Fold(3, (2, 3), stride=2)),
                   (nn.Unfold((2, 2), dilation=2), torch.nn.Unfold((2, 2), dilation=2))):
        assert repr(pm) == repr(tm)


def test_unfold_fold_gradcheck_and_numpy():
    x = seeded(1, 2, 3, 4)
    cols = F.unfold(pyth.tensor(x), (2, 2)).numpy()
    ref = np.stack([x[0, :, i:i + 2, j:j + 2].reshape(-1) for i in range(2) for j in range(3)],
                   axis=1)
    np.testing.assert_array_equal(cols[0], ref)
    ones = F.fold(pyth.ones(1, 4, 6, dtype=pyth.float64), (3, 4), 2).numpy()
    np.testing.assert_array_equal(ones[0, 0], [[1, 2, 2, 1], [2, 4, 4, 2], [1, 2, 2, 1]])
    assert gradcheck(lambda t: F.unfold(t, (2, 3), (1, 2), 1, (2, 1)), (P(seeded(2, 2, 4, 5)),))
    assert gradcheck(lambda t: F.fold(t, (4, 5), 2, 1, 1, 2), (P(seeded(2, 8, 9)),))


@pytest.mark.parametrize("args, message", [
    ({"kernel_size": 0}, "kernel size should be greater than zero"),
    ({"kernel_size": (0, 2)}, "kernel size should be greater than zero"),
    ({"kernel_size": (2, 0)}, "kernel size should be greater than zero"),
    ({"kernel_size": 2, "stride": 0}, "stride should be greater than zero"),
    ({"kernel_size": 2, "dilation": 0}, "dilation should be greater than zero"),
    ({"kernel_size": 2, "padding": -1}, "padding should be non-negative"),
])
def test_fold_bad_geometry_is_a_runtime_error(args, message):
    """A zero kernel (or stride, dilation) is refused before fold divides by the kernel's
    cell count: RuntimeError, as PyTorch, never ZeroDivisionError."""
    for batch in ((1,), ()):
        with pytest.raises(RuntimeError, match=message):
            F.fold(pyth.ones(*batch, 4, 4), (3, 3), **args)
        with pytest.raises(RuntimeError, match=message):
            F.unfold(pyth.ones(*batch, 1, 3, 3), **args)
    if torch is not None:
        with pytest.raises(RuntimeError, match=message.split(" should")[0]):
            TF.fold(torch.ones(1, 4, 4), (3, 3), **args)


@needs_torch
@pytest.mark.parametrize("dtype,tol", [("float32", 1e-5), ("float64", 1e-9)])
def test_unfold_expanded_input_and_dtypes(dtype, tol):
    cases = [(lambda f: lambda x: f.unfold(x, 2, padding=1))]
    for make in cases:
        twin_grads(make(F), make(TF), [seeded(3, 2, 3, 4)], [expanded], dtype, tol)


def _x(*shape):
    return seeded(*shape)


FOLD_ERRORS = [
    ("unfold-negative-padding", lambda f, mk: f.unfold(mk(_x(2, 3, 4)), 2, padding=-1),
     RuntimeError),
    ("unfold-5d", lambda f, mk: f.unfold(mk(_x(1, 1, 2, 3, 3)), 2), RuntimeError),
    ("unfold-too-big", lambda f, mk: f.unfold(mk(_x(1, 2, 3, 3)), 4), RuntimeError),
    ("unfold-zero-stride", lambda f, mk: f.unfold(mk(_x(1, 2, 3, 3)), 2, stride=0), RuntimeError),
    ("unfold-zero-channels", lambda f, mk: f.unfold(mk(_x(1, 0, 3, 3)), 2), RuntimeError),
    ("fold-not-divisible", lambda f, mk: f.fold(mk(_x(1, 5, 4)), 3, 2), RuntimeError),
    ("fold-wrong-blocks", lambda f, mk: f.fold(mk(_x(1, 8, 5)), 3, 2), RuntimeError),
    ("fold-4d", lambda f, mk: f.fold(mk(_x(1, 1, 8, 4)), 3, 2), RuntimeError),
]


@pytest.mark.parametrize("case", FOLD_ERRORS, ids=[c[0] for c in FOLD_ERRORS])
def test_fold_unfold_errors(case):
    _, call, exc = case
    raises_as_torch(call, exc)
