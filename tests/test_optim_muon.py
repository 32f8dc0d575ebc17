"""pyth.optim.Muon against PyTorch's: trajectories of a wide and a tall matrix (the
Newton-Schulz iterations run in bfloat16 in both, so they agree to bfloat16's rounding, not
bit for bit), its options, state dicts and errors."""

from __future__ import annotations

import re

import numpy as np
import pytest
from _support import needs_torch, torch

import pyth
from pyth import optim

LIBS = {"pyth": pyth, "torch": torch}
RNG = np.random.default_rng(3)
W1 = RNG.standard_normal((3, 6))  # wide
W2 = RNG.standard_normal((6, 2))  # tall
X = RNG.standard_normal((8, 2))
Y = RNG.standard_normal((8, 3))


def run(libname, kw, steps=20, dtype="float64"):
    lib = LIBS[libname]
    dt = getattr(lib, dtype)
    w1 = lib.tensor(W1, dtype=dt, requires_grad=True)
    w2 = lib.tensor(W2, dtype=dt, requires_grad=True)
    x, y = lib.tensor(X, dtype=dt), lib.tensor(Y, dtype=dt)
    opt = lib.optim.Muon([w1, w2], **kw)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        r = x @ w2.t() @ w1.t() - y
        (r * r).mean().backward()
        opt.step()
        out.append(np.concatenate([w1.detach().numpy().ravel(), w2.detach().numpy().ravel()]))
    return np.array(out), opt


CASES = [
    {},
    {"lr": 0.02},
    {"lr": 0.02, "nesterov": False, "momentum": 0.8},
    {"lr": 0.01, "weight_decay": 0.5, "adjust_lr_fn": "match_rms_adamw"},
    {"lr": 0.02, "ns_steps": 3, "ns_coefficients": (3.0, -3.2, 1.2), "eps": 1e-5},
]


@needs_torch
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("kw", CASES, ids=[str(k) for k in CASES])
def test_trajectory_matches_torch(kw, dtype):
    ours, opt = run("pyth", kw, dtype=dtype)
    ref, topt = run("torch", kw, dtype=dtype)
    lr = kw.get("lr", 1e-3)
    assert np.abs(ref[-1] - ref[0]).max() > 5 * lr  # the case moves the parameters
    np.testing.assert_allclose(ours, ref, rtol=0, atol=0.05 * lr)  # bfloat16 roundings
    sd, tsd = opt.state_dict(), topt.state_dict()
    assert sd["param_groups"] == tsd["param_groups"]
    assert sorted(sd["state"]) == sorted(tsd["state"]) == [0, 1]
    for i in (0, 1):
        assert list(sd["state"][i]) == list(tsd["state"][i]) == ["momentum_buffer"]
        np.testing.assert_allclose(sd["state"][i]["momentum_buffer"].numpy(),
                                   tsd["state"][i]["momentum_buffer"].numpy(), atol=0.05)


@needs_torch
def test_orthogonalized_update_is_nearly_semi_orthogonal():
    from pyth.optim._muon import _orthogonalize
    g = pyth.tensor(W1, dtype=pyth.float64)
    u = _orthogonalize(g, (3.4445, -4.7750, 2.0315), 5, 1e-7).double()
    s = np.linalg.svd(u.numpy(), compute_uv=False)
    assert u.shape == (3, 6) and np.all((s > 0.6) & (s < 1.25))
    t = _orthogonalize(pyth.tensor(W2), (3.4445, -4.7750, 2.0315), 5, 1e-7)
    assert t.shape == (6, 2) and t.dtype is pyth.bfloat16


ERRORS = [
    ({"lr": -0.1}, "Learning rate should be >= 0 but is: -0.1"),
    ({"momentum": -0.5}, "momentum should be >= 0 but is: -0.5"),
    ({"weight_decay": -1.0}, "weight decay should be >= 0 but is: -1.0"),
    ({"adjust_lr_fn": "sqrt"}, "Adjust learning rate function sqrt is not supported"),
]


@pytest.mark.parametrize("kw,msg", ERRORS)
def test_invalid_arguments(kw, msg):
    w = pyth.zeros(2, 3, requires_grad=True)
    with pytest.raises(ValueError, match=re.escape(msg)):
        optim.Muon([w], **kw)
    if torch is not None:
        with pytest.raises(ValueError, match=re.escape(msg)):
            torch.optim.Muon([torch.zeros(2, 3, requires_grad=True)], **kw)


def test_only_matrices():
    with pytest.raises(ValueError, match=re.escape("Muon only supports 2D parameters whereas "
                                                   "we found a parameter with size: ")):
        optim.Muon([pyth.zeros(3, requires_grad=True)])
    w = pyth.zeros(2, 3, requires_grad=True)
    opt = optim.Muon([w], ns_steps=100)
    w.grad = pyth.ones(2, 3)
    with pytest.raises(ValueError, match="Number of steps must be less than 100"):
        opt.step()
