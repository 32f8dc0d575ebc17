"""Batch, layer and group norm (THNN kernels) against PyTorch in float64: forward, every
gradient, running statistics over several training steps, eval mode, gradcheck and
gradgradcheck, non-contiguous and float32 inputs, PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest
from _support import P, T, close, load_from_torch

import pyth
from pyth import nn
from pyth.autograd import gradcheck, gradgradcheck
from pyth.nn import functional as F

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(3)


def randomize(tm):
    with torch.no_grad():
        for p in tm.parameters():
            p.copy_(torch.tensor(RNG.standard_normal(tuple(p.shape))))


def step_both(pm, tm, x: np.ndarray, tol=1e-9):
    """One forward and backward of both modules; compares output and every gradient."""
    px, tx = P(x), T(x)
    y, ty = pm(px), tm(tx)
    close(y, ty, tol)
    g = RNG.standard_normal(tuple(ty.shape))
    y.backward(pyth.tensor(g, dtype=y.dtype))
    ty.backward(torch.tensor(g, dtype=ty.dtype))
    close(px.grad, tx.grad, tol * 10)
    for (n, p), (m, t) in zip(pm.named_parameters(), tm.named_parameters()):
        assert n == m
        close(p.grad, t.grad, tol * 10)
        p.grad = None
        t.grad = None
    for (n, b), (m, t) in zip(pm.named_buffers(), tm.named_buffers()):
        assert n == m
        close(b, t, tol)


# ---- batch norm --------------------------------------------------------------------------------

BN_CASES = [
    ("BatchNorm1d", (6, 3), {}),
    ("BatchNorm1d", (4, 3, 5), {}),
    ("BatchNorm1d", (1, 3, 5), {"affine": False}),             # batch 1
    ("BatchNorm2d", (2, 3, 4, 5), {}),
    ("BatchNorm2d", (2, 3, 2, 2), {"momentum": None}),          # cumulative average
    ("BatchNorm2d", (3, 2, 3, 1), {"track_running_stats": False}),
    ("BatchNorm1d", (5, 4), {"momentum": 0.3, "eps": 1e-3, "bias": False}),
]


@pytest.mark.parametrize("name,shape,kw", BN_CASES)
def test_batchnorm_training_steps_and_eval_match_torch(name, shape, kw):
    tm = getattr(torch.nn, name)(shape[1], **kw).double()
    pm = getattr(nn, name)(shape[1], **kw).double()
    randomize(tm)
    load_from_torch(pm, tm)
    assert repr(pm) == repr(tm)
    for _ in range(4):  # running statistics follow torch's step by step
        step_both(pm, tm, RNG.standard_normal(shape) * 2 + 1)
    if pm.track_running_stats:
        assert int(pm.num_batches_tracked) == int(tm.num_batches_tracked) == 4
    pm.eval()
    tm.eval()
    step_both(pm, tm, RNG.standard_normal(shape))


def test_batchnorm_non_contiguous_and_float32():
    tm, pm = torch.nn.BatchNorm2d(3), nn.BatchNorm2d(3)
    randomize(tm)
    load_from_torch(pm, tm)
    x = RNG.standard_normal((4, 5, 3, 2)).astype(np.float32)
    px = pyth.tensor(x).permute(0, 2, 3, 1).requires_grad_()   # (4, 3, 2, 5) non-contiguous
    tx = torch.tensor(x).permute(0, 2, 3, 1).requires_grad_()
    assert not px.is_contiguous()
    y, ty = pm(px), tm(tx)
    assert y.dtype is pyth.float32
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-4, atol=1e-5)
    y.sum().backward()
    ty.sum().backward()
    np.testing.assert_allclose(px.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(pm.running_var.numpy(), tm.running_var.numpy(), rtol=1e-5)


def test_batchnorm_empty_batch_keeps_running_stats():
    tm, pm = torch.nn.BatchNorm1d(3).double(), nn.BatchNorm1d(3).double()
    step_both(pm, tm, np.zeros((0, 3)))
    np.testing.assert_array_equal(pm.running_mean.numpy(), 0)
    np.testing.assert_array_equal(pm.running_var.numpy(), 1)
    assert int(pm.num_batches_tracked) == 1
    assert tuple(F.group_norm(pyth.zeros(0, 4, 2), 2).shape) == (0, 4, 2)


def test_batch_norm_functional_and_gradcheck():
    x = P(RNG.standard_normal((3, 2, 2)))
    w, b = P(RNG.standard_normal(2)), P(RNG.standard_normal(2))
    rm, rv = pyth.zeros(2, dtype=pyth.float64), pyth.ones(2, dtype=pyth.float64) * 2
    assert gradcheck(lambda x, w, b: F.batch_norm(x, None, None, w, b, True), (x, w, b))
    assert gradcheck(lambda x, w, b: F.batch_norm(x, rm, rv, w, b, False), (x, w, b))
    assert gradgradcheck(lambda x, w, b: F.batch_norm(x, None, None, w, b, True), (x, w, b))
    # running stats move only in training, by momentum, with the unbiased variance
    xs = RNG.standard_normal((3, 2, 2))
    rm2, rv2 = pyth.zeros(2, dtype=pyth.float64), pyth.ones(2, dtype=pyth.float64)
    F.batch_norm(P(xs, False), rm2, rv2, training=True, momentum=0.5)
    flat = xs.transpose(1, 0, 2).reshape(2, -1)
    np.testing.assert_allclose(rm2.numpy(), 0.5 * flat.mean(1), rtol=1e-12)
    np.testing.assert_allclose(rv2.numpy(), 0.5 + 0.5 * flat.var(1, ddof=1), rtol=1e-12)


@pytest.mark.parametrize("kind", ["batch_norm", "layer_norm"])
def test_bias_without_weight_gets_its_gradient(kind):
    # an affine bias alone: its gradient (g summed per channel) and the input's, first order
    # by the kernel and under create_graph by the formula
    xs, bs, gs = RNG.standard_normal((3, 4)), RNG.standard_normal(4), RNG.standard_normal((3, 4))
    calls = {"batch_norm": (lambda m, x, b: m.nn.functional.batch_norm(x, None, None, None, b,
                                                                      True)),
             "layer_norm": (lambda m, x, b: m.nn.functional.layer_norm(x, (4,), None, b))}
    f = calls[kind]
    px, pb, tx, tb = P(xs), P(bs), T(xs), T(bs)
    f(pyth, px, pb).backward(P(gs, False))
    f(torch, tx, tb).backward(T(gs, False))
    close(pb.grad, tb.grad)
    close(px.grad, tx.grad)
    pgx, pgb = pyth.autograd.grad(f(pyth, px, pb), (px, pb), P(gs, False), create_graph=True)
    close(pgb, tb.grad)
    close(pgx, tx.grad)
    assert gradgradcheck(lambda x, b: f(pyth, x, b), (P(xs), P(bs)))


def test_batchnorm_errors_and_keys():
    m = nn.BatchNorm2d(3)
    assert list(m.state_dict()) == list(torch.nn.BatchNorm2d(3).state_dict())
    assert m.num_batches_tracked.dtype is pyth.int64
    with pytest.raises(RuntimeError, match="expected input with 3 channels, got 4"):
        m(pyth.zeros(2, 4, 2, 2))
    with pytest.raises(ValueError, match=r"expected 4D input \(got 3D input\)"):
        m(pyth.zeros(2, 3, 2))
    with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 4D input\)"):
        nn.BatchNorm1d(3)(pyth.zeros(2, 3, 2, 2))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        nn.BatchNorm1d(3)(pyth.zeros(1, 3))
    nn.BatchNorm1d(3).eval()(pyth.zeros(1, 3))  # fine in eval
    with pytest.raises(RuntimeError, match="floating point"):
        F.batch_norm(pyth.zeros(2, 3, dtype=pyth.int64), None, None, training=True)


# ---- layer norm --------------------------------------------------------------------------------

LN_CASES = [
    ((2, 3, 4), (4,), {}),
    ((2, 3, 4), (3, 4), {}),
    ((5, 4), (4,), {"elementwise_affine": False}),
    ((2, 3, 4), (4,), {"bias": False}),
    ((1, 6), (6,), {"eps": 1e-2}),
]


@pytest.mark.parametrize("shape,nshape,kw", LN_CASES)
def test_layernorm_matches_torch(shape, nshape, kw):
    tm = torch.nn.LayerNorm(nshape, **kw).double()
    pm = nn.LayerNorm(nshape, **kw).double()
    randomize(tm)
    load_from_torch(pm, tm)
    assert repr(pm) == repr(tm)
    step_both(pm, tm, RNG.standard_normal(shape) * 3 - 1)


def test_layer_norm_gradcheck_non_contiguous_and_zero_size():
    x = P(RNG.standard_normal((4, 3))).t()          # (3, 4) non-contiguous
    w, b = P(RNG.standard_normal(4)), P(RNG.standard_normal(4))
    assert gradcheck(lambda x, w, b: F.layer_norm(x, (4,), w, b), (x, w, b))
    assert gradgradcheck(lambda x, w, b: F.layer_norm(x, (4,), w, b), (x, w, b))
    tx = torch.tensor(x.detach().numpy())
    close(F.layer_norm(x, (4,), w, b), torch.nn.functional.layer_norm(
        tx, (4,), torch.tensor(w.detach().numpy()), torch.tensor(b.detach().numpy())))
    assert tuple(F.layer_norm(pyth.zeros(0, 4), (4,)).shape) == (0, 4)


def test_layer_norm_float32():
    x = RNG.standard_normal((3, 5)).astype(np.float32)
    y = F.layer_norm(pyth.tensor(x), (5,))
    assert y.dtype is pyth.float32
    np.testing.assert_allclose(y.numpy(), torch.nn.functional.layer_norm(
        torch.tensor(x), (5,)).numpy(), rtol=1e-5, atol=1e-5)


def test_layer_norm_errors():
    m = nn.LayerNorm(4)
    with pytest.raises(RuntimeError, match=r"expected input with shape \[\*, 4\], but got "
                                           r"input of size\[2, 3\]"):
        m(pyth.zeros(2, 3))
    with pytest.raises(RuntimeError, match="Expected weight to be of same shape"):
        F.layer_norm(pyth.zeros(2, 4), (4,), pyth.ones(3))


# ---- group norm --------------------------------------------------------------------------------

GN_CASES = [
    (2, 4, (3, 4, 5), {}),
    (1, 3, (2, 3, 2, 2), {}),
    (3, 3, (2, 3), {"affine": False}),
    (2, 6, (1, 6, 3), {"eps": 1e-3}),
    (2, 4, (2, 4, 3), {"bias": False}),
]


@pytest.mark.parametrize("groups,channels,shape,kw", GN_CASES)
def test_groupnorm_matches_torch(groups, channels, shape, kw):
    tm = torch.nn.GroupNorm(groups, channels, **kw).double()
    pm = nn.GroupNorm(groups, channels, **kw).double()
    randomize(tm)
    load_from_torch(pm, tm)
    assert repr(pm) == repr(tm)
    step_both(pm, tm, RNG.standard_normal(shape) * 2 + 0.5)


def test_group_norm_gradcheck_and_float32():
    x = P(RNG.standard_normal((2, 4, 3))).transpose(1, 2).transpose(1, 2)
    w, b = P(RNG.standard_normal(4)), P(RNG.standard_normal(4))
    assert gradcheck(lambda x, w, b: F.group_norm(x, 2, w, b), (x, w, b))
    assert gradgradcheck(lambda x, w, b: F.group_norm(x, 2, w, b), (x, w, b))
    xf = RNG.standard_normal((2, 4, 3)).astype(np.float32)
    np.testing.assert_allclose(F.group_norm(pyth.tensor(xf), 2).numpy(),
                               torch.nn.functional.group_norm(torch.tensor(xf), 2).numpy(),
                               rtol=1e-5, atol=1e-5)


def test_group_norm_errors():
    with pytest.raises(ValueError, match=r"num_channels \(6\) must be divisible by num_groups \(4\)"):
        nn.GroupNorm(4, 6)
    with pytest.raises(RuntimeError, match="divisible by num_groups, but got input of shape "
                                           r"\[2, 6, 4\] and num_groups=4"):
        F.group_norm(pyth.zeros(2, 6, 4), 4)
    with pytest.raises(RuntimeError, match="expected input with 4 channels, got 6"):
        nn.GroupNorm(2, 4)(pyth.zeros(2, 6, 4))
    with pytest.raises(RuntimeError, match="Expected at least 2 dimensions"):
        F.group_norm(pyth.zeros(4), 2)


def test_kernels_bound_and_raise():
    from pyth._th import lib
    assert hasattr(lib, "THNN_DoubleBatchNormalization_updateOutput")
    assert hasattr(lib, "THNN_FloatGroupNormalization_backward")
    # eval without running statistics is refused by the kernel itself
    from pyth._th import ffi

    from pyth._errors import check
    from pyth._ops import new_result
    x = pyth.zeros(2, 3, dtype=pyth.float64)
    y, m, s = (new_result(pyth.float64) for _ in range(3))
    with pytest.raises(RuntimeError, match="evaluation mode"):
        check(lib.THNN_DoubleBatchNormalization_updateOutput(
            y._h, m._h, s._h, x._h, ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL, 0, 0.1, 1e-5))
    with pytest.raises(RuntimeError, match="weight should contain 3 elements not 2"):
        check(lib.THNN_DoubleBatchNormalization_updateOutput(
            y._h, m._h, s._h, x._h, pyth.ones(2, dtype=pyth.float64)._h, ffi.NULL, ffi.NULL,
            ffi.NULL, 1, 0.1, 1e-5))
