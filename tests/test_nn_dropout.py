"""Dropout through pyth.nn: the channel dropouts (F.dropout1d, F.dropout2d, F.dropout3d) and the
alpha dropouts of SELU networks (F.alpha_dropout, F.feature_alpha_dropout), with their modules:
whole channels dropped and the rest scaled, the moments alpha dropout keeps, gradients, eval-mode
identity, the limits of p, PyTorch's reprs and exception classes."""

from __future__ import annotations

import numpy as np
import pytest
from _support import P, needs_torch, raises_as_torch, seeded, torch

import pyth
from pyth import nn
from pyth.nn import functional as F


# ==== channel dropout =============================================================================

@needs_torch
def test_dropout2d_zeroes_whole_channels_and_scales():
    pyth.manual_seed(0)
    x = pyth.ones(8, 16, 3, 3, dtype=pyth.float64).requires_grad_()
    m = nn.Dropout2d(0.25)
    y = m(x)
    a = y.detach().numpy()
    per = a.reshape(8, 16, -1)
    assert np.all((per == 0).all(-1) | (per == 1 / 0.75).all(-1))   # whole channels
    dropped = (per == 0).all(-1).mean()
    assert 0.1 < dropped < 0.4
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), a)               # gradient: the mask
    m.eval()
    assert m(x) is x
    assert repr(m) == repr(torch.nn.Dropout2d(0.25))


def test_dropout1d_and_unbatched():
    pyth.manual_seed(1)
    y = F.dropout1d(pyth.ones(10, 7), 0.5).numpy()                 # unbatched (C, L)
    assert np.all((y == 0).all(-1) | (y == 2).all(-1))
    y = nn.Dropout1d(0.5)(pyth.ones(3, 10, 7)).numpy()
    assert np.all((y == 0).all(-1) | (y == 2).all(-1))
    with pytest.raises(RuntimeError, match="Expected 2D or 3D input"):
        F.dropout1d(pyth.ones(2, 3, 4, 5))
    with pytest.warns(UserWarning, match="3D input to dropout2d"):
        F.dropout2d(pyth.ones(2, 3, 4))
    with pytest.raises(ValueError, match="between 0 and 1"):
        F.dropout2d(pyth.ones(2, 3, 4, 4), 1.5)
    np.testing.assert_array_equal(F.dropout2d(pyth.ones(2, 3, 2, 2), 1.0).numpy(), 0)


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


# ==== alpha dropout ===============================================================================

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


def test_alpha_dropout_p_check():
    with pytest.raises(ValueError):
        nn.AlphaDropout(1.5)


# ==== errors (classes checked against PyTorch) ====================================================

def _x(*shape):
    return seeded(*shape)


ERRORS = [
    ("feature-alpha-1d", lambda f, mk: f.feature_alpha_dropout(mk(_x(3)), 0.5, True),
     RuntimeError),
    ("alpha-dropout-p", lambda f, mk: f.alpha_dropout(mk(_x(3)), 1.5, True), ValueError),
    ("feature-alpha-dropout-p", lambda f, mk: f.feature_alpha_dropout(mk(_x(3)), -0.1, True),
     ValueError),
    ("dropout3d-p", lambda f, mk: f.dropout3d(mk(_x(2, 2, 2, 2)), 2.0), ValueError),
]


@pytest.mark.parametrize("case", ERRORS, ids=[c[0] for c in ERRORS])
def test_errors(case):
    _, call, exc = case
    raises_as_torch(call, exc)
