"""pyth.optim.Adafactor against PyTorch's beyond the common trajectories of test_optim.py:
parameters of three dimensions (factored over the last two), a row vector, a 0-dim scalar,
float32's default eps1, the factored state's shapes, a tensor lr, and the errors."""

from __future__ import annotations

import numpy as np
import pytest
from _support import needs_torch, torch

import pyth
from pyth import optim

LIBS = {"pyth": pyth, "torch": torch}
RNG = np.random.default_rng(8)
SHAPES = [(2, 3, 4), (1, 5), (), (4,)]
INITS = [RNG.standard_normal(s) for s in SHAPES]
TARGETS = [RNG.standard_normal(s) for s in SHAPES]


def run(libname, kw, dtype="float64", steps=20):
    lib = LIBS[libname]
    dt = getattr(lib, dtype)
    params = [lib.tensor(a, dtype=dt, requires_grad=True) for a in INITS]
    targets = [lib.tensor(a, dtype=dt) for a in TARGETS]
    opt = lib.optim.Adafactor(params, **kw)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        loss = sum(((p - t) ** 2 * (p * p + 1)).sum() for p, t in zip(params, targets))
        loss.backward()
        opt.step()
        out.append(np.concatenate([p.detach().numpy().ravel() for p in params]))
    return np.array(out), opt


KWS = [{}, {"lr": 0.1, "beta2_decay": -0.3, "d": 1.5, "weight_decay": 0.05},
       {"lr": 0.05, "eps": (1e-4, 1e-2), "maximize": True}]


@needs_torch
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("kw", KWS, ids=[str(k) for k in KWS])
def test_trajectory_and_state_match_torch(kw, dtype):
    ours, opt = run("pyth", kw, dtype)
    ref, topt = run("torch", kw, dtype)
    assert np.abs(ref[-1] - ref[0]).max() > 1e-2
    tol = 1e-9 if dtype == "float64" else 1e-5
    np.testing.assert_allclose(ours, ref, rtol=tol, atol=tol)
    sd, tsd = opt.state_dict(), topt.state_dict()
    assert sd["param_groups"] == tsd["param_groups"]
    for i, ts in tsd["state"].items():
        s = sd["state"][i]
        assert list(s) == list(ts)
        for k, v in ts.items():
            assert tuple(s[k].shape) == tuple(v.shape)
            np.testing.assert_allclose(s[k].numpy(), v.numpy(), rtol=tol * 10, atol=tol)
    assert tuple(sd["state"][0]["row_var"].shape) == (2, 3, 1)
    assert tuple(sd["state"][0]["col_var"].shape) == (2, 1, 4)
    assert sorted(sd["state"][2]) == ["step", "variance"]


def test_defaults_and_errors():
    p = pyth.zeros(2, 2, requires_grad=True)
    g = optim.Adafactor([p]).param_groups[0]
    assert (g["lr"], g["beta2_decay"], g["eps"], g["d"], g["weight_decay"]) == \
           (1e-2, -0.8, (None, 1e-3), 1.0, 0.0)
    assert g["foreach"] is None and g["maximize"] is False
    with pytest.raises(ValueError, match="Tensor lr must be 1-element"):
        optim.Adafactor([p], lr=pyth.tensor([0.1, 0.2]))
    lr = pyth.tensor(0.05)
    opt = optim.Adafactor([p], lr=lr)
    p.grad = pyth.ones(2, 2)
    opt.step()
    assert float(opt.state[p]["step"]) == 1.0 and float(p.abs().max()) > 0
