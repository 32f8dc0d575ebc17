"""Instance, RMS and local-response norms, F.unfold/F.fold, max unpooling, LP pooling, the
random layers (rrelu, alpha and 3-D dropout, gumbel_softmax) and F.pdist, with their modules.
Values and float64 gradients against PyTorch; gradcheck and numpy references also without
PyTorch; transposed and zero-size inputs, float32 and float64; running statistics; the random
layers by their statistics and eval-mode determinism; PyTorch's reprs, state_dict keys and
exception classes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _support import (
    P,
    T,
    close,
    expected_error,
    maker,
    needs_torch,
    seeded,
    torch,
    twin_grads,
)

import pyth
from pyth import nn
from pyth.autograd import gradcheck
from pyth.nn import functional as F

TF = torch.nn.functional if torch is not None else None



def transposed(x):
    """The same values through a non-contiguous (transposed twice) view."""
    return x.transpose(-1, -2).contiguous().transpose(-1, -2)


# ==== instance norm ===========================================================================

IN_SHAPES = [(2, 3, 5), (3, 2, 4, 5), (2, 2, 3, 2, 3)]


@needs_torch
@pytest.mark.parametrize("shape", IN_SHAPES)
@pytest.mark.parametrize("affine", [False, True])
def test_instance_norm_matches_torch(shape, affine):
    c = shape[1]
    arrays = [seeded(*shape)] + ([seeded(c, key=1), seeded(c, key=2)] if affine else [])
    twin_grads(lambda x, *wb: F.instance_norm(x, None, None, *wb, eps=1e-3),
             lambda x, *wb: TF.instance_norm(x, None, None, *wb, eps=1e-3), arrays)


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_instance_norm_running_stats(dtype):
    x = seeded(4, 3, 6)
    rm, rv = seeded(3, key=1), np.abs(seeded(3, key=2)) + 0.5
    pr = [pyth.tensor(a, dtype=getattr(pyth, dtype)) for a in (rm, rv)]
    tr = [torch.tensor(a, dtype=getattr(torch, dtype)) for a in (rm, rv)]
    tol = 1e-9 if dtype == "float64" else 1e-5
    for use, momentum in ((True, 0.3), (False, 0.1)):
        y = F.instance_norm(pyth.tensor(x, dtype=getattr(pyth, dtype)), *pr,
                            use_input_stats=use, momentum=momentum)
        ty = TF.instance_norm(torch.tensor(x, dtype=getattr(torch, dtype)), *tr,
                              use_input_stats=use, momentum=momentum)
        close(y, ty, tol)
        for p, t in zip(pr, tr):
            close(p, t, tol)


@needs_torch
def test_instance_norm_layouts_and_empty_batch():
    twin_grads(lambda x: F.instance_norm(x), lambda x: TF.instance_norm(x), [seeded(2, 3, 4, 5)],
             [transposed])
    y = twin_grads(lambda x: F.instance_norm(x), lambda x: TF.instance_norm(x), [seeded(0, 3, 4)])
    assert tuple(y.shape) == (0, 3, 4)


def expanded(x):
    """A stride-0 view: the first sample repeated along dim 0."""
    return x[:1].expand(3, *x.shape[1:])


@needs_torch
@pytest.mark.parametrize("dtype,tol", [("float32", 1e-5), ("float64", 1e-9)])
def test_expanded_inputs_and_dtypes(dtype, tol):
    cases = [(lambda f: lambda x: f.instance_norm(x)),
             (lambda f: lambda x: f.rms_norm(x, (4,))),
             (lambda f: lambda x: f.local_response_norm(x, 2)),
             (lambda f: lambda x: f.unfold(x, 2, padding=1)),
             (lambda f: lambda x: f.lp_pool2d(x.abs() + 0.1, 2, 2)),
             (lambda f: lambda x: f.rrelu(x)),
             (lambda f: lambda x: f.pdist(x.flatten(1)))]
    for make in cases:
        twin_grads(make(F), make(TF), [seeded(3, 2, 3, 4)], [expanded], dtype, tol)


def test_instance_norm_gradcheck_and_numpy():
    x = seeded(2, 3, 4)
    y = F.instance_norm(pyth.tensor(x)).numpy()
    ref = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(y, ref, rtol=1e-10, atol=1e-10)
    w, b = P(seeded(3, key=1)), P(seeded(3, key=2))
    assert gradcheck(lambda t, w, b: F.instance_norm(t, None, None, w, b), (P(x), w, b))
    rm, rv = pyth.zeros(3, dtype=pyth.float64), pyth.ones(3, dtype=pyth.float64)
    assert gradcheck(lambda t: F.instance_norm(t, rm, rv, use_input_stats=False), (P(x),))


@needs_torch
@pytest.mark.parametrize("cls,shape", [("InstanceNorm1d", (4, 3, 5)),
                                       ("InstanceNorm1d", (3, 5)),
                                       ("InstanceNorm2d", (2, 3, 4, 4)),
                                       ("InstanceNorm3d", (3, 2, 3, 3))])
@pytest.mark.parametrize("affine,track,momentum", [(False, False, 0.1), (True, True, 0.1),
                                                   (True, True, None), (False, True, 0.5)])
def test_instance_norm_modules(cls, shape, affine, track, momentum):
    pm = getattr(nn, cls)(3, eps=1e-4, momentum=momentum, affine=affine,
                          track_running_stats=track).double()
    tm = getattr(torch.nn, cls)(3, eps=1e-4, momentum=momentum, affine=affine,
                                track_running_stats=track).double()
    assert repr(pm) == repr(tm)
    assert list(pm.state_dict()) == list(tm.state_dict())
    assert [n for n, _ in pm.named_parameters()] == [n for n, _ in tm.named_parameters()]
    for step in range(2):
        x = seeded(*shape, key=step)
        close(pm(P(x, False)), tm(T(x, False)))
    for k, v in tm.state_dict().items():
        close(pm.state_dict()[k], v)
    pm.eval()
    tm.eval()
    x = seeded(*shape, key=9)
    close(pm(P(x, False)), tm(T(x, False)))


@needs_torch
@pytest.mark.parametrize("cls,shape", [("InstanceNorm1d", (2, 3, 4, 5)),
                                       ("InstanceNorm2d", (3, 4)),
                                       ("InstanceNorm3d", (2, 3, 4))])
def test_instance_norm_module_rank_errors(cls, shape):
    with pytest.raises(ValueError):
        getattr(torch.nn, cls)(3)(T(seeded(*shape), False))
    with pytest.raises(ValueError, match="expected"):
        getattr(nn, cls)(3)(P(seeded(*shape), False))


def test_instance_norm_num_features_mismatch():
    with pytest.raises(ValueError, match="num_features"):
        nn.InstanceNorm1d(4, affine=True)(P(seeded(2, 3, 5), False))
    with pytest.warns(UserWarning, match="num_features"):
        nn.InstanceNorm1d(4)(P(seeded(2, 3, 5), False))


# ==== RMS norm ===============================================================================

@needs_torch
@pytest.mark.parametrize("shape,nshape", [((2, 3, 4), (4,)), ((2, 3, 4), (3, 4)),
                                          ((5,), [5]), ((0, 4), (4,))])
@pytest.mark.parametrize("eps", [None, 1e-3])
@pytest.mark.parametrize("affine", [False, True])
def test_rms_norm_matches_torch(shape, nshape, eps, affine):
    arrays = [seeded(*shape)] + ([seeded(*nshape, key=1)] if affine else [])
    twin_grads(lambda x, *w: F.rms_norm(x, nshape, *w, eps=eps),
             lambda x, *w: TF.rms_norm(x, nshape, *w, eps=eps), arrays)


@needs_torch
def test_rms_norm_float32_eps_and_layout():
    # tiny values: the default eps (float32's) decides the result
    x = seeded(3, 4) * 1e-4
    y = F.rms_norm(pyth.tensor(x, dtype=pyth.float32), (4,))
    close(y, TF.rms_norm(torch.tensor(x, dtype=torch.float32), (4,)), 1e-5)
    twin_grads(lambda x: F.rms_norm(x, (3,)), lambda x: TF.rms_norm(x, (3,)), [seeded(4, 3)],
             [transposed])


def test_rms_norm_gradcheck_and_numpy():
    x, w = seeded(3, 4), seeded(4, key=1)
    ref = x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * w
    np.testing.assert_allclose(F.rms_norm(pyth.tensor(x), [4], pyth.tensor(w), 1e-6).numpy(),
                               ref, rtol=1e-12)
    assert gradcheck(lambda t, w: F.rms_norm(t, (4,), w), (P(x), P(w)))


@needs_torch
def test_rms_norm_module():
    pm, tm = nn.RMSNorm([3, 4], eps=1e-5), torch.nn.RMSNorm([3, 4], eps=1e-5)
    assert repr(pm) == repr(tm) and list(pm.state_dict()) == list(tm.state_dict())
    x = seeded(2, 3, 4)
    close(pm(P(x, False, pyth.float32)), tm(T(x, False, torch.float32)), 1e-5)
    assert repr(nn.RMSNorm(3, elementwise_affine=False)) == \
        repr(torch.nn.RMSNorm(3, elementwise_affine=False))
    assert nn.RMSNorm(3, elementwise_affine=False).weight is None


# ==== local response norm ===================================================================

@needs_torch
@pytest.mark.parametrize("shape", [(2, 5, 4), (2, 6, 3, 3), (1, 4, 2, 3, 2)])
@pytest.mark.parametrize("size", [1, 2, 3, 5])
def test_local_response_norm_matches_torch(shape, size):
    twin_grads(lambda x: F.local_response_norm(x, size, 1e-2, 0.6, 2.0),
             lambda x: TF.local_response_norm(x, size, 1e-2, 0.6, 2.0), [seeded(*shape)])


@needs_torch
def test_local_response_norm_module_layout_empty():
    assert repr(nn.LocalResponseNorm(3, k=2.0)) == repr(torch.nn.LocalResponseNorm(3, k=2.0))
    twin_grads(lambda x: nn.LocalResponseNorm(3)(x), lambda x: torch.nn.LocalResponseNorm(3)(x),
             [seeded(2, 4, 5)], [transposed])
    assert tuple(F.local_response_norm(P(seeded(0, 3, 2)), 2).shape) == (0, 3, 2)


def test_local_response_norm_gradcheck():
    assert gradcheck(lambda t: F.local_response_norm(t, 3, 0.5, 0.75, 1.0), (P(seeded(2, 4, 3)),))


# ==== unfold / fold ==========================================================================

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


# ==== max unpooling and LP pooling =========================================================

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


# ==== rrelu ==================================================================================

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


# ==== alpha dropout and dropout3d ==========================================================

@pytest.mark.parametrize("p", [0.2, 0.5])
def test_alpha_dropout_keeps_moments(p):
    y = F.alpha_dropout(pyth.tensor(seeded(400000)), p, training=True).numpy()
    assert abs(y.mean()) < 0.01 and abs(y.var() - 1) < 0.02
    a = 1.0 / np.sqrt((1.7580993408473766 ** 2 * p + 1) * (1 - p))
    dropped = 1.7580993408473766 * a * (p - 1)      # what every dropped unit becomes
    assert abs(np.mean(np.isclose(y, dropped, rtol=0, atol=1e-12)) - p) < 0.01


def test_feature_alpha_dropout_drops_whole_channels():
    x = pyth.tensor(seeded(500, 40, 6))
    y = F.feature_alpha_dropout(x, 0.3, training=True).numpy()
    const = np.ptp(y, axis=-1) < 1e-12   # a dropped channel's values are one constant
    assert abs(const.mean() - 0.3) < 0.02
    assert abs(y.mean()) < 0.02 and abs(y.var() - 1) < 0.03


@needs_torch
def test_alpha_dropouts_eval_identity_p_limits_and_modules():
    x = P(seeded(4, 3, 2), False)
    for f in (F.alpha_dropout, F.feature_alpha_dropout):
        assert f(x, 0.5) is x                           # training=False by default
        assert f(x, 0.0, True) is x
        np.testing.assert_array_equal(f(x, 1.0, True).numpy(), 0)
    x5 = P(seeded(2, 3, 2, 2, 2), False)
    for name, inp in (("AlphaDropout", x), ("FeatureAlphaDropout", x), ("Dropout3d", x5)):
        pm, tm = getattr(nn, name)(0.3), getattr(torch.nn, name)(0.3)
        assert repr(pm) == repr(tm)
        pm.eval()
        assert pm(inp) is inp


def test_alpha_dropout_gradient_is_the_scale():
    x = P(seeded(1000))
    y = F.alpha_dropout(x, 0.4, training=True)
    y.sum().backward()
    a = 1.0 / np.sqrt((1.7580993408473766 ** 2 * 0.4 + 1) * 0.6)
    g = x.grad.numpy()
    assert set(np.round(np.unique(g), 12)) <= {0.0, round(a, 12)}


def test_dropout3d_channels():
    x = pyth.ones(200, 30, 2, 2, 2, dtype=pyth.float64)
    y = F.dropout3d(x, 0.25).numpy()
    per_channel = y.reshape(200, 30, -1)
    assert (np.ptp(per_channel, axis=-1) == 0).all()
    assert abs((per_channel[..., 0] == 0).mean() - 0.25) < 0.02
    np.testing.assert_allclose(np.unique(y), [0, 1 / 0.75])
    u = F.dropout3d(pyth.ones(40, 2, 2, 2, dtype=pyth.float64), 0.5).numpy()  # unbatched
    assert (np.ptp(u.reshape(40, -1), axis=-1) == 0).all()
    with pytest.warns(UserWarning, match="dropout3d"):
        F.dropout3d(pyth.ones(3, 4), 0.5)


# ==== gumbel_softmax and pdist ============================================================

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


@needs_torch
@pytest.mark.parametrize("shape", [(5, 3), (1, 4), (0, 3), (4, 0)])
@pytest.mark.parametrize("p", [0.5, 1, 2, 3, float("inf")])
def test_pdist_matches_torch(shape, p):
    twin_grads(lambda x: F.pdist(x, p), lambda x: TF.pdist(x, p), [seeded(*shape)])


@needs_torch
def test_pdist_zero_rows_have_zero_gradient():
    a = np.array([[1.0, 2.0], [1.0, 2.0], [0.0, 1.0]])
    twin_grads(lambda x: F.pdist(x), lambda x: TF.pdist(x), [a])


def test_pdist_gradcheck():
    assert gradcheck(lambda t: F.pdist(t, 2), (P(seeded(4, 3)),))
    assert gradcheck(lambda t: F.pdist(t, 1.5), (P(seeded(4, 3)),))


# ==== errors (classes checked against PyTorch) =============================================

def _x(*shape):
    return seeded(*shape)


ERRORS = [
    ("instance-one-spatial", lambda f, mk: f.instance_norm(mk(_x(2, 3, 1))), ValueError),
    ("instance-2d-training", lambda f, mk: f.instance_norm(mk(_x(2, 3))), ValueError),
    ("instance-eval-no-stats", lambda f, mk: f.instance_norm(mk(_x(2, 3, 4)),
                                                              use_input_stats=False),
     RuntimeError),
    ("rms-shape", lambda f, mk: f.rms_norm(mk(_x(2, 3)), (4,)), RuntimeError),
    ("rms-weight-shape", lambda f, mk: f.rms_norm(mk(_x(2, 3)), (3,), mk(_x(4))), RuntimeError),
    ("rms-int-shape", lambda f, mk: f.rms_norm(mk(_x(2, 3)), 3), TypeError),
    ("rms-int", lambda f, mk: f.rms_norm(mk(np.ones((2, 3), np.int64)), (3,)), RuntimeError),
    ("rrelu-int", lambda f, mk: f.rrelu(mk(np.ones(3, np.int64)), training=True), RuntimeError),
    ("unfold-negative-padding", lambda f, mk: f.unfold(mk(_x(2, 3, 4)), 2, padding=-1),
     RuntimeError),
    ("unpool-1d-input", lambda f, mk: f.max_unpool1d(mk(_x(4)), mk(np.zeros(4, np.int64)), 2),
     RuntimeError),
    ("unpool-int32-indices", lambda f, mk: f.max_unpool1d(
        mk(_x(1, 4)), mk(np.zeros((1, 4), np.int32)), 2), RuntimeError),
    ("feature-alpha-1d", lambda f, mk: f.feature_alpha_dropout(mk(_x(3)), 0.5, True),
     RuntimeError),
    ("pdist-int", lambda f, mk: f.pdist(mk(np.ones((3, 2), np.int64))), RuntimeError),
    ("instance-1d", lambda f, mk: f.instance_norm(mk(_x(3))), ValueError),
    ("lrn-2d", lambda f, mk: f.local_response_norm(mk(_x(2, 3)), 2), ValueError),
    ("unfold-5d", lambda f, mk: f.unfold(mk(_x(1, 1, 2, 3, 3)), 2), RuntimeError),
    ("unfold-too-big", lambda f, mk: f.unfold(mk(_x(1, 2, 3, 3)), 4), RuntimeError),
    ("unfold-zero-stride", lambda f, mk: f.unfold(mk(_x(1, 2, 3, 3)), 2, stride=0), RuntimeError),
    ("unfold-zero-channels", lambda f, mk: f.unfold(mk(_x(1, 0, 3, 3)), 2), RuntimeError),
    ("fold-not-divisible", lambda f, mk: f.fold(mk(_x(1, 5, 4)), 3, 2), RuntimeError),
    ("fold-wrong-blocks", lambda f, mk: f.fold(mk(_x(1, 8, 5)), 3, 2), RuntimeError),
    ("fold-4d", lambda f, mk: f.fold(mk(_x(1, 1, 8, 4)), 3, 2), RuntimeError),
    ("unpool-bad-output-size", lambda f, mk: f.max_unpool1d(
        mk(_x(1, 2, 4)), mk(np.zeros((1, 2, 4), np.int64)), 2, output_size=[12]), ValueError),
    ("unpool-output-size-length", lambda f, mk: f.max_unpool2d(
        mk(_x(1, 2, 2, 2)), mk(np.zeros((1, 2, 2, 2), np.int64)), 2, output_size=[4]),
     ValueError),
    ("unpool-index-range", lambda f, mk: f.max_unpool1d(
        mk(_x(1, 2, 4)), mk(np.full((1, 2, 4), 9, np.int64)), 2), RuntimeError),
    ("unpool-index-shape", lambda f, mk: f.max_unpool1d(
        mk(_x(1, 2, 4)), mk(np.zeros((1, 2, 3), np.int64)), 2), RuntimeError),
    ("rrelu-bounds", lambda f, mk: f.rrelu(mk(_x(3)), 0.5, 0.1, True), RuntimeError),
    ("alpha-dropout-p", lambda f, mk: f.alpha_dropout(mk(_x(3)), 1.5, True), ValueError),
    ("feature-alpha-dropout-p", lambda f, mk: f.feature_alpha_dropout(mk(_x(3)), -0.1, True),
     ValueError),
    ("dropout3d-p", lambda f, mk: f.dropout3d(mk(_x(2, 2, 2, 2)), 2.0), ValueError),
    ("pdist-1d", lambda f, mk: f.pdist(mk(_x(4))), RuntimeError),
    ("pdist-negative-p", lambda f, mk: f.pdist(mk(_x(3, 2)), -1.0), RuntimeError),
]


@pytest.mark.parametrize("case", ERRORS, ids=[c[0] for c in ERRORS])
def test_errors(case):
    _, call, exc = case
    if torch is not None:   # the table's class is the one PyTorch raises
        with pytest.raises(Exception) as te, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call(TF, maker("torch"))
        assert expected_error(te.value) is exc, (te.type, te.value)
    with pytest.raises(exc), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call(F, maker("pyth"))


def test_module_parameters_and_dropout_p_check():
    m = nn.InstanceNorm2d(4, affine=True)
    assert [n for n, _ in m.named_parameters()] == ["weight", "bias"]
    np.testing.assert_array_equal(m.weight.detach().numpy(), 1)
    assert nn.InstanceNorm2d(4).running_mean is None
    with pytest.raises(ValueError):
        nn.AlphaDropout(1.5)
