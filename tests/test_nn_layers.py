"""The first pyth.nn layers and losses against PyTorch in float64 (forward and every
gradient), under gradcheck, with PyTorch's parameter order, defaults and errors."""

from __future__ import annotations

import numpy as np
import pytest
from _support import close, copy_params, grad_pair

import pyth
from pyth import nn
from pyth.autograd import gradcheck
from pyth.nn import functional as F

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(0)


@pytest.mark.parametrize("shape", [(5, 4), (2, 3, 4), (4,), (0, 4)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_matches_torch(shape, bias):
    pm = nn.Linear(4, 3, bias=bias).double()
    tm = torch.nn.Linear(4, 3, bias=bias).double()
    copy_params(pm, tm)
    x, tx = grad_pair(RNG.standard_normal(shape))
    y, ty = pm(x), tm(tx)
    close(y, ty, tol=1e-10)
    g = RNG.standard_normal(tuple(ty.shape))
    y.backward(pyth.tensor(g, dtype=pyth.float64))
    ty.backward(torch.tensor(g))
    close(x.grad, tx.grad, tol=1e-10)
    for (_, p), (_, t) in zip(pm.named_parameters(), tm.named_parameters()):
        close(p.grad, t.grad, tol=1e-10)


def test_linear_transposed_input_and_gradcheck():
    w, _ = grad_pair(RNG.standard_normal((3, 4)))
    b, _ = grad_pair(RNG.standard_normal(3))
    x, _ = grad_pair(RNG.standard_normal((4, 5)))
    assert gradcheck(lambda x, w, b: F.linear(x.t(), w, b), (x, w, b))


def test_linear_default_init_and_errors():
    m = nn.Linear(100, 50)
    bound = 1 / 10
    w = m.weight.detach().numpy()
    assert abs(w).max() <= bound and abs(w).max() > 0.95 * bound
    assert abs(m.bias.detach().numpy()).max() <= bound
    assert [k for k, _ in m.named_parameters()] == ["weight", "bias"]
    assert repr(m) == repr(torch.nn.Linear(100, 50))
    with pytest.raises(RuntimeError, match="in_features"):
        m(pyth.ones(2, 99))
    assert nn.Linear(3, 2, dtype=pyth.float64).weight.dtype is pyth.float64


def test_bilinear_matches_torch():
    pm = nn.Bilinear(3, 4, 2).double()
    tm = torch.nn.Bilinear(3, 4, 2).double()
    copy_params(pm, tm)
    a, ta = grad_pair(RNG.standard_normal((5, 3)))
    b, tb = grad_pair(RNG.standard_normal((5, 4)))
    y, ty = pm(a, b), tm(ta, tb)
    close(y, ty, tol=1e-10)
    y.sum().backward()
    ty.sum().backward()
    close(a.grad, ta.grad, tol=1e-10)
    close(b.grad, tb.grad, tol=1e-10)
    close(pm.weight.grad, tm.weight.grad, tol=1e-10)
    assert repr(pm) == repr(tm)


def test_shape_layers_and_dropout():
    x = pyth.arange(24.).view(2, 3, 4)
    assert nn.Flatten()(x).shape == (2, 12)
    assert nn.Unflatten(1, (3, 1))(nn.Flatten()(x).view(2, 3, 4)).shape == (2, 3, 1, 4)
    assert nn.Identity(5, k=1)(x) is x
    d = nn.Dropout(0.5)
    y = d(pyth.ones(10000, dtype=pyth.float64))
    vals = set(np.unique(y.numpy()).tolist())
    assert vals <= {0.0, 2.0} and 0.45 < (y.numpy() == 0).mean() < 0.55
    d.eval()
    z = pyth.ones(10)
    assert d(z) is z
    with pytest.raises(ValueError):
        nn.Dropout(1.5)
    xr, _ = grad_pair(RNG.standard_normal(100))
    out = F.dropout(xr, 0.3)
    out.sum().backward()
    np.testing.assert_allclose(xr.grad.numpy(), (out.detach().numpy() != 0) / 0.7)


LOSSES = [
    ("mse_loss", {}), ("l1_loss", {}), ("smooth_l1_loss", {"beta": 0.5}),
    ("smooth_l1_loss", {"beta": 0.0}), ("huber_loss", {"delta": 0.7}),
]


@pytest.mark.parametrize("name,kw", LOSSES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_regression_losses_match_torch(name, kw, reduction):
    x, tx = grad_pair(RNG.standard_normal((4, 5)))
    y, ty = grad_pair(RNG.standard_normal((4, 5)) * 0.5, requires_grad=False)
    out = getattr(F, name)(x, y, reduction=reduction, **kw)
    tout = getattr(torch.nn.functional, name)(tx, ty, reduction=reduction, **kw)
    close(out, tout, tol=1e-10)
    out.sum().backward()
    tout.sum().backward()
    close(x.grad, tx.grad, tol=1e-10)
    assert gradcheck(lambda a: getattr(F, name)(a, y, reduction=reduction, **kw),
                     (x.detach().requires_grad_(),))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_binary_losses_match_torch(reduction):
    p = RNG.uniform(0.05, 0.95, (3, 4))
    tgt = RNG.integers(0, 2, (3, 4)).astype(float)
    w = RNG.uniform(0.5, 2, (4,))
    x, tx = grad_pair(p)
    t_, tt = grad_pair(tgt, False)
    wp, tw = grad_pair(w, False)
    close(F.binary_cross_entropy(x, t_, wp, reduction=reduction),
          torch.nn.functional.binary_cross_entropy(tx, tt, tw, reduction=reduction), tol=1e-10)
    logits = RNG.standard_normal((3, 4)) * 30  # far into both tails
    lx, tlx = grad_pair(logits)
    pw = RNG.uniform(0.5, 3, (4,))
    pp, tp = grad_pair(pw, False)
    out = F.binary_cross_entropy_with_logits(lx, t_, wp, reduction=reduction, pos_weight=pp)
    tout = torch.nn.functional.binary_cross_entropy_with_logits(
        tlx, tt, tw, reduction=reduction, pos_weight=tp)
    close(out, tout, tol=1e-10)
    out.sum().backward()
    tout.sum().backward()
    close(lx.grad, tlx.grad, tol=1e-10)
    m, tm = nn.BCEWithLogitsLoss(pos_weight=pp), torch.nn.BCEWithLogitsLoss(pos_weight=tp)
    close(m(lx, t_), tm(tlx, tt), tol=1e-10)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none", "batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div_matches_torch(reduction, log_target):
    inp = np.log(RNG.dirichlet(np.ones(5), 3))
    tgt = RNG.dirichlet(np.ones(5), 3)
    tgt[0, 0] = 0.0
    if log_target:
        tgt = np.log(tgt + 1e-3)
    x, tx = grad_pair(inp)
    y, ty = grad_pair(tgt, False)
    out = F.kl_div(x, y, reduction=reduction, log_target=log_target)
    tout = torch.nn.functional.kl_div(tx, ty, reduction=reduction, log_target=log_target)
    close(out, tout, tol=1e-10)
    out.sum().backward()
    tout.sum().backward()
    close(x.grad, tx.grad, tol=1e-10)


def test_loss_modules_and_legacy_reduction_arguments():
    x, tx = grad_pair(RNG.standard_normal(6))
    y, ty = grad_pair(RNG.standard_normal(6), False)
    for P, T in ((nn.MSELoss, torch.nn.MSELoss), (nn.L1Loss, torch.nn.L1Loss),
                 (nn.SmoothL1Loss, torch.nn.SmoothL1Loss), (nn.HuberLoss, torch.nn.HuberLoss)):
        close(P()(x, y), T()(tx, ty), tol=1e-10)
        close(P(reduction="sum")(x, y), T(reduction="sum")(tx, ty), tol=1e-10)
    assert nn.MSELoss(size_average=False).reduction == "sum"
    assert nn.MSELoss(reduce=False).reduction == "none"
    with pytest.raises(ValueError):
        F.mse_loss(x, y, reduction="avg")


def test_a_small_model_trains_like_torch():
    """Two Linear layers and sigmoid, MSE, plain gradient steps: the same numbers as PyTorch."""
    pm = nn.Sequential(nn.Linear(3, 8), nn.Linear(8, 1)).double()
    tm = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Linear(8, 1)).double()
    copy_params(pm, tm)
    xs, txs = grad_pair(RNG.standard_normal((16, 3)), False)
    ys, tys = grad_pair(RNG.standard_normal((16, 1)), False)
    for _ in range(20):
        loss = F.mse_loss(pm[1](pm[0](xs).sigmoid()), ys)
        tloss = torch.nn.functional.mse_loss(tm[1](tm[0](txs).sigmoid()), tys)
        close(loss, tloss, 1e-9)
        pm.zero_grad()
        tm.zero_grad()
        loss.backward()
        tloss.backward()
        with pyth.no_grad():
            for p in pm.parameters():
                p.sub_(p.grad * 0.1)
        with torch.no_grad():
            for t in tm.parameters():
                t.sub_(t.grad * 0.1)
    for (_, p), (_, t) in zip(pm.named_parameters(), tm.named_parameters()):
        close(p, t, 1e-9)


# ---- activations (THNN kernels) -------------------------------------------------------------

ACTS = [("relu", {}), ("leaky_relu", {"negative_slope": 0.2}), ("elu", {"alpha": 1.5}),
        ("gelu", {}), ("gelu", {"approximate": "tanh"}), ("silu", {}),
        ("softplus", {"beta": 2.0, "threshold": 3.0}), ("hardtanh", {"min_val": -0.5,
                                                                      "max_val": 1.2}),
        ("relu6", {}), ("sigmoid", {}), ("tanh", {})]


def _act_input(shape=(4, 5)):
    a = RNG.standard_normal(shape) * 3
    a.flat[:4] = [0.0, -0.5, 1.2, 6.0]  # the kinks themselves
    return a


@pytest.mark.parametrize("name,kw", ACTS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(ACTS)])
@pytest.mark.parametrize("layout", ["contig", "transposed", "empty"])
def test_activations_match_torch(name, kw, layout):
    a = _act_input((0, 3) if layout == "empty" else (4, 5))
    x, tx = grad_pair(a)
    xi, txi = (x.t(), tx.t()) if layout == "transposed" else (x, tx)
    y = getattr(F, name)(xi, **kw)
    ty = getattr(torch.nn.functional, name)(txi, **kw)
    close(y, ty, 1e-12)
    g = RNG.standard_normal(tuple(ty.shape))
    y.backward(pyth.tensor(g, dtype=pyth.float64))
    ty.backward(torch.tensor(g))
    close(x.grad, tx.grad, 1e-12)


@pytest.mark.parametrize("name,kw", ACTS[:8], ids=[f"{n}-{i}" for i, (n, _) in
                                                   enumerate(ACTS[:8])])
def test_activations_gradcheck_and_gradgradcheck(name, kw):
    from pyth.autograd import gradgradcheck
    a = RNG.standard_normal((3, 4))
    a[np.abs(a) < 0.05] = 0.3  # away from the kinks, where finite differences mislead
    x, _ = grad_pair(a)
    assert gradcheck(lambda t: getattr(F, name)(t, **kw), (x,))
    assert gradgradcheck(lambda t: getattr(F, name)(t, **kw), (x,))


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_activations_in_other_float_types(dtype):
    a = _act_input()
    x = pyth.tensor(a, dtype=getattr(pyth, dtype))
    tx = torch.tensor(a, dtype=getattr(torch, dtype))
    for name, kw in ACTS:
        y = getattr(F, name)(x, **kw)
        assert y.dtype is x.dtype
        np.testing.assert_allclose(y.float().numpy(),
                                   getattr(torch.nn.functional, name)(tx, **kw).float().numpy(),
                                   rtol=2e-2, atol=2e-2)


def test_inplace_activations_and_modules():
    x = pyth.tensor(_act_input())
    ref = F.relu(x)
    assert F.relu_(x) is x and x.tolist() == ref.tolist()
    leaf = pyth.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        F.relu(leaf, inplace=True)
    y = leaf * -1
    F.relu(y, inplace=True).sum().backward()
    assert leaf.grad.tolist() == [0.0, 0.0, 0.0]
    for P, T, args in ((nn.ReLU, torch.nn.ReLU, ()), (nn.LeakyReLU, torch.nn.LeakyReLU, (0.1,)),
                       (nn.ELU, torch.nn.ELU, ()), (nn.GELU, torch.nn.GELU, ("tanh",)),
                       (nn.SiLU, torch.nn.SiLU, ()), (nn.Softplus, torch.nn.Softplus, ()),
                       (nn.Hardtanh, torch.nn.Hardtanh, ()), (nn.ReLU6, torch.nn.ReLU6, ()),
                       (nn.Sigmoid, torch.nn.Sigmoid, ()), (nn.Tanh, torch.nn.Tanh, ())):
        assert repr(P(*args)) == repr(T(*args))
        a, ta = grad_pair(_act_input(), False)
        close(P(*args)(a), T(*args)(ta), 1e-12)
    with pytest.raises(RuntimeError, match="floating point"):
        F.leaky_relu(pyth.ones(2, dtype=pyth.int64))
    assert F.relu(pyth.tensor([-2, 3])).tolist() == torch.relu(torch.tensor([-2, 3])).tolist()


# ---- softmax, log_softmax, nll_loss, cross_entropy (THNN kernels) -----------------------------

@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape,dim", [((4, 5), 1), ((4, 5), 0), ((2, 3, 4), 1), ((2, 3, 4), -1),
                                       ((6,), 0), ((0, 3), 1)])
def test_softmax_matches_torch(name, shape, dim):
    a = RNG.standard_normal(shape) * 10
    x, tx = grad_pair(a)
    y, ty = getattr(F, name)(x, dim), getattr(torch.nn.functional, name)(tx, dim)
    close(y, ty, 1e-12)
    g = RNG.standard_normal(shape)
    y.backward(pyth.tensor(g))
    ty.backward(torch.tensor(g))
    close(x.grad, tx.grad, 1e-12)
    if x.numel():
        from pyth.autograd import gradgradcheck
        assert gradcheck(lambda t: getattr(F, name)(t, dim), (x.detach().requires_grad_(),))
        assert gradgradcheck(lambda t: getattr(F, name)(t, dim), (x.detach().requires_grad_(),))


def test_softmax_extremes_and_transposed_input():
    a = np.array([[1000.0, -1000.0, 0.0], [-np.inf, 0.0, 1.0], [-np.inf] * 3])
    x, tx = grad_pair(a, False)
    close(F.softmax(x, 1), torch.softmax(tx, 1), tol=1e-10)
    np.testing.assert_array_equal(np.isnan(F.log_softmax(x, 1).numpy()),
                                  np.isnan(torch.log_softmax(tx, 1).numpy()))
    b = RNG.standard_normal((5, 3))
    y, ty = grad_pair(b)
    close(F.softmax(y.t(), 0), torch.softmax(ty.t(), 0), 1e-12)
    assert F.softmax(pyth.tensor(b, dtype=pyth.float32), 1).dtype is pyth.float32
    assert F.softmax(pyth.tensor(b, dtype=pyth.float16), 1).dtype is pyth.float16
    close(F.log_softmax(pyth.tensor(b, dtype=pyth.float32), 1, dtype=pyth.float64),
          torch.log_softmax(torch.tensor(b, dtype=torch.float32), 1, dtype=torch.float64), 1e-12)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("shape", [(6, 4), (3, 4, 5), (4,)])
def test_nll_and_cross_entropy_match_torch(reduction, weighted, shape):
    c = shape[0] if len(shape) == 1 else shape[1]
    a = RNG.standard_normal(shape)
    tshape = () if len(shape) == 1 else (shape[0],) + shape[2:]
    t = RNG.integers(0, c, tshape)
    if t.ndim:
        t.flat[0] = -100  # ignored
    w = RNG.uniform(0.5, 2.0, c)
    x, tx = grad_pair(a)
    tgt, ttgt = pyth.tensor(t, dtype=pyth.int64), torch.tensor(t, dtype=torch.int64)
    wp, tw = (grad_pair(w, False) if weighted else (None, None))
    for label_smoothing in (0.0, 0.2):
        x.grad = None
        tx.grad = None
        out = F.cross_entropy(x, tgt, wp, reduction=reduction, label_smoothing=label_smoothing)
        tout = torch.nn.functional.cross_entropy(tx, ttgt, tw, reduction=reduction,
                                                 label_smoothing=label_smoothing)
        close(out, tout, 1e-10)
        g = RNG.standard_normal(tuple(tout.shape))
        out.backward(pyth.tensor(g))
        tout.backward(torch.tensor(g))
        close(x.grad, tx.grad, 1e-10)
    lp, tlp = grad_pair(np.log(RNG.dirichlet(np.ones(c), int(np.prod(tshape)) or 1)).reshape(
        (tshape[0], c) + tshape[1:] if tshape else (c,)) if len(shape) != 3 else
        np.moveaxis(np.log(RNG.dirichlet(np.ones(c), shape[0] * shape[2]).reshape(
            shape[0], shape[2], c)), 2, 1))
    close(F.nll_loss(lp, tgt, wp, reduction=reduction),
          torch.nn.functional.nll_loss(tlp, ttgt, tw, reduction=reduction), 1e-10)
    assert gradcheck(lambda z: F.nll_loss(z, tgt, wp, reduction=reduction),
                     (lp.detach().requires_grad_(),))


def test_cross_entropy_probabilities_and_modules():
    a = RNG.standard_normal((5, 4))
    p = RNG.dirichlet(np.ones(4), 5)
    x, tx = grad_pair(a)
    pt, tpt = grad_pair(p, False)
    for ls in (0.0, 0.1):
        out = F.cross_entropy(x, pt, label_smoothing=ls)
        tout = torch.nn.functional.cross_entropy(tx, tpt, label_smoothing=ls)
        close(out, tout, 1e-12)
    m, tm = nn.CrossEntropyLoss(), torch.nn.CrossEntropyLoss()
    t = RNG.integers(0, 4, 5)
    close(m(x, pyth.tensor(t)), tm(tx, torch.tensor(t)), 1e-12)
    close(nn.NLLLoss(reduction="sum")(x, pyth.tensor(t)),
          torch.nn.NLLLoss(reduction="sum")(tx, torch.tensor(t)), 1e-12)
    assert repr(nn.Softmax(dim=1)) == repr(torch.nn.Softmax(dim=1))
    assert repr(nn.LogSoftmax(dim=1)) == repr(torch.nn.LogSoftmax(dim=1))
    with pytest.raises(IndexError, match="out of bounds"):
        F.nll_loss(x, pyth.tensor([0, 1, 2, 3, 9]))
    with pytest.raises(ValueError, match="batch_size"):   # as PyTorch
        F.nll_loss(x, pyth.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="weight"):
        F.nll_loss(x, pyth.tensor(t), weight=pyth.ones(3, dtype=pyth.float64))
