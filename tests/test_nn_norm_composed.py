"""Instance, RMS and local-response normalisation through pyth.nn (compositions of
differentiable ops; batch, layer and group norm, on THNN kernels, are in test_nn_norm.py), with
their modules. Values and float64 gradients against PyTorch; gradcheck and numpy references also
without PyTorch; transposed, expanded and zero-size inputs, float32 and float64; running
statistics; PyTorch's reprs, state_dict keys and exception classes."""

from __future__ import annotations

import numpy as np
import pytest
from _support import P, T, close, needs_torch, raises_as_torch, seeded, torch, twin_grads

import pyth
from pyth import nn
from pyth.autograd import gradcheck
from pyth.nn import functional as F

TF = torch.nn.functional if torch is not None else None


def transposed(x):
    """The same values through a non-contiguous (transposed twice) view."""
    return x.transpose(-1, -2).contiguous().transpose(-1, -2)


def expanded(x):
    """A stride-0 view: the first sample repeated along dim 0."""
    return x[:1].expand(3, *x.shape[1:])


# ==== instance norm ===============================================================================

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


def test_instance_norm_module_parameters():
    m = nn.InstanceNorm2d(4, affine=True)
    assert [n for n, _ in m.named_parameters()] == ["weight", "bias"]
    np.testing.assert_array_equal(m.weight.detach().numpy(), 1)
    assert nn.InstanceNorm2d(4).running_mean is None


# ==== RMS norm ====================================================================================


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


# ==== local response norm =========================================================================


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


# ==== expanded inputs =============================================================================


@needs_torch
@pytest.mark.parametrize("dtype,tol", [("float32", 1e-5), ("float64", 1e-9)])
def test_expanded_inputs_and_dtypes(dtype, tol):
    cases = [(lambda f: lambda x: f.instance_norm(x)),
             (lambda f: lambda x: f.rms_norm(x, (4,))),
             (lambda f: lambda x: f.local_response_norm(x, 2))]
    for make in cases:
        twin_grads(make(F), make(TF), [seeded(3, 2, 3, 4)], [expanded], dtype, tol)


# ==== errors (classes checked against PyTorch) ====================================================


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
    ("instance-1d", lambda f, mk: f.instance_norm(mk(_x(3))), ValueError),
    ("lrn-2d", lambda f, mk: f.local_response_norm(mk(_x(2, 3)), 2), ValueError),
]


@pytest.mark.parametrize("case", ERRORS, ids=[c[0] for c in ERRORS])
def test_errors(case):
    _, call, exc = case
    raises_as_torch(call, exc)
