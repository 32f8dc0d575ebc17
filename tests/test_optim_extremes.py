"""The optimizer kernels at the edges, against PyTorch: gradients holding NaN, ±inf, zeros
and huge values (the same NaN positions and values after the steps), zero-size parameters,
half-precision parameters (updated through float32, so within float16's rounding of
PyTorch's), and large parameters split between threads (bit-equal to the serial run)."""

from __future__ import annotations

import numpy as np
import pytest
from _support import needs_torch, torch
from test_optim import stepped_with_threads

import pyth

LIBS = {"pyth": pyth, "torch": torch}
CASES = [
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("Adam", {"lr": 0.1, "amsgrad": True}),
    ("RMSprop", {"lr": 0.01, "centered": True}),
    ("Adagrad", {"lr": 0.1}),
    ("Adadelta", {"weight_decay": 0.1}),
    ("Adamax", {"lr": 0.1}),
    ("NAdam", {"lr": 0.1}),
    ("RAdam", {"lr": 0.1, "betas": (0.9, 0.9)}),
    ("Rprop", {"lr": 0.1}),
    ("ASGD", {"lr": 0.1, "t0": 1}),
]
IDS = [c[0] for c in CASES]
P0 = np.array([0.5, -1.0, 2.0, 0.0, 3.0, -0.25, 1.0, 1e3])
GRADS = [
    np.array([np.nan, 1.0, -1.0, 0.0, 1e30, -1e-30, 2.0, 0.5]),
    np.array([1.0, np.inf, -1.0, 0.0, -1e30, 1e-30, -np.inf, 0.5]),
    np.array([1.0, -1.0, 0.5, 0.0, 1.0, 2.0, 1.0, -0.5]),
]


def stepped(lib, name, kw, dtype, grads):
    p = lib.tensor(P0, dtype=getattr(lib, dtype), requires_grad=True)
    opt = getattr(lib.optim, name)([p], **kw)
    for g in grads:
        p.grad = lib.tensor(g, dtype=getattr(lib, dtype))
        opt.step()
    return p.detach().float().numpy().astype(np.float64)


@needs_torch
@pytest.mark.parametrize("name,kw", CASES, ids=IDS)
def test_non_finite_gradients_match_torch(name, kw):
    with np.errstate(all="ignore"):
        ours = stepped(pyth, name, kw, "float64", GRADS)
        ref = stepped(torch, name, kw, "float64", GRADS)
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(ref))
    np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=0, equal_nan=True)


@needs_torch
@pytest.mark.parametrize("name,kw", CASES, ids=IDS)
def test_half_parameters_match_torch(name, kw):
    # no zero gradient: PyTorch computes in float16, where Adam's eps 1e-8 underflows and a
    # zero gradient makes 0 / 0; pyth computes half through float32 (API.md), so it does not
    grads = [GRADS[2] + (GRADS[2] == 0), GRADS[2] * 0.5 + 0.25, -GRADS[2] - 0.5]
    ours = stepped(pyth, name, kw, "float16", grads)
    ref = stepped(torch, name, kw, "float16", grads)
    np.testing.assert_allclose(ours, ref, rtol=5e-3, atol=5e-3)


@pytest.mark.parametrize("name,kw", CASES + [("Adafactor", {}), ("LBFGS", {})],
                         ids=IDS + ["Adafactor", "LBFGS"])
def test_zero_size_parameters(name, kw):
    p = pyth.zeros(0, 3, dtype=pyth.float64, requires_grad=True)
    q = pyth.ones(2, dtype=pyth.float64, requires_grad=True)
    opt = getattr(pyth.optim, name)([p, q], **kw)

    def closure():
        opt.zero_grad()
        loss = (q * q).sum() + p.sum()
        loss.backward()
        return loss

    if name == "Adafactor":  # rms(p) of an empty p divides by zero, as in PyTorch
        closure()
        with pytest.raises(ZeroDivisionError):
            opt.step()
        return
    opt.step(closure)
    assert tuple(p.shape) == (0, 3) and float(q.abs().max()) < 1.0
    if name == "LBFGS":  # its state is of the flat vector, kept under the first parameter
        assert tuple(opt.state[p]["d"].shape) == (2,)
        return
    for v in opt.state.get(p, {}).values():
        if isinstance(v, pyth.Tensor) and v.dim() > 0:
            assert tuple(v.shape) == (0, 3)


@pytest.mark.parametrize("name,kw", CASES[4:], ids=IDS[4:])
def test_threaded_update_equals_serial(name, kw):
    n = 1 << 19
    rng = np.random.default_rng(2)
    base, grads = rng.standard_normal(n), [rng.standard_normal(n) for _ in range(3)]

    one, two = (stepped_with_threads(t, name, kw, base, grads) for t in (1, 2))
    np.testing.assert_array_equal(one, two)
    assert np.abs(one - base).max() > 1e-3


@pytest.mark.parametrize("name,key", [("NAdam", "mu_product"), ("ASGD", "eta"), ("ASGD", "mu"),
                                      ("Rprop", "step")])
def test_bad_counter_is_an_error_and_changes_nothing(name, key):
    a = pyth.tensor(P0, dtype=pyth.float64, requires_grad=True)
    b = pyth.tensor(P0[:3], dtype=pyth.float64, requires_grad=True)
    opt = getattr(pyth.optim, name)([a, b], lr=0.1)
    for _ in range(2):
        a.grad, b.grad = pyth.ones(8, dtype=pyth.float64), pyth.ones(3, dtype=pyth.float64)
        opt.step()
    opt.state[b][key] = pyth.zeros(2, dtype=pyth.float32)
    before = a.detach().clone().numpy(), float(opt.state[a]["step"])
    with pytest.raises(RuntimeError, match=rf"{name}.step\(\): the {key} of parameter 1 must "
                                           r"be a one-element float32 tensor"):
        opt.step()
    np.testing.assert_array_equal(a.detach().numpy(), before[0])
    assert float(opt.state[a]["step"]) == before[1]
