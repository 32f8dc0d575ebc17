"""pyth.optim.swa_utils against PyTorch's: SWALR's lr sequences (cos, linear, no annealing,
per-group swa_lr) and state dicts, AveragedModel's averages (running mean, EMA through
avg_fn and multi_avg_fn, use_buffers) over a short training run, update_bn's BatchNorm
statistics, and the errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _support import load_from_torch, needs_torch, torch

import pyth
from pyth.optim import swa_utils as U

LIBS = {"pyth": pyth, "torch": torch}
RNG = np.random.default_rng(4)
X = RNG.standard_normal((16, 3))
Y = RNG.standard_normal((16, 2))


def optimizer(lib):
    a = lib.zeros(3, requires_grad=True)
    b = lib.zeros(2, requires_grad=True)
    return lib.optim.SGD([{"params": [a], "lr": 0.1}, {"params": [b], "lr": 0.05}],
                         momentum=0.9)


SWALRS = [
    {"swa_lr": 0.01},
    {"swa_lr": [0.02, 0.2], "anneal_epochs": 4, "anneal_strategy": "linear"},
    {"swa_lr": 0.03, "anneal_epochs": 0},
    {"swa_lr": 0.5, "anneal_epochs": 1, "anneal_strategy": "cos"},
]


def lr_sequence(lib, kw, steps=16):
    opt = optimizer(lib)
    sched = lib.optim.swa_utils.SWALR(opt, **kw)
    out = [sched.get_last_lr()]
    for _ in range(steps):
        opt.step()
        sched.step()
        out.append(sched.get_last_lr())
    return np.array(out), sched


@needs_torch
@pytest.mark.parametrize("kw", SWALRS, ids=[str(k) for k in SWALRS])
def test_swalr_matches_torch(kw):
    ours, s = lr_sequence(pyth, kw)
    ref, t = lr_sequence(torch, kw)
    np.testing.assert_allclose(ours, ref, rtol=1e-13, atol=0)
    assert sorted(s.state_dict()) == sorted(t.state_dict())
    assert "anneal_func" not in s.state_dict()


def test_swalr_state_dict_round_trip_and_errors():
    full, _ = lr_sequence(pyth, SWALRS[1], steps=10)
    opt = optimizer(pyth)
    sched = U.SWALR(opt, **SWALRS[1])
    for _ in range(4):
        opt.step()
        sched.step()
    osd, ssd = opt.state_dict(), sched.state_dict()
    opt2 = optimizer(pyth)
    sched2 = U.SWALR(opt2, swa_lr=0.9, anneal_strategy="cos")
    opt2.load_state_dict(osd)
    sched2.load_state_dict(ssd)
    assert sched2.anneal_func is U.SWALR._linear_anneal
    got = []
    for _ in range(6):
        opt2.step()
        sched2.step()
        got.append(sched2.get_last_lr())
    np.testing.assert_array_equal(np.array(got), full[5:])
    with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear', "
                                         "instead got exp"):
        U.SWALR(optimizer(pyth), 0.1, anneal_strategy="exp")
    with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0, got -1"):
        U.SWALR(optimizer(pyth), 0.1, anneal_epochs=-1)
    with pytest.raises(ValueError, match="swa_lr must have the same length"):
        U.SWALR(optimizer(pyth), [0.1])
    with pytest.warns(UserWarning, match="get_last_lr"):
        sched2.get_lr()


def model_pair():
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.Tanh(),
                             torch.nn.Linear(4, 2)).double()
    pm = pyth.nn.Sequential(pyth.nn.Linear(3, 4), pyth.nn.BatchNorm1d(4), pyth.nn.Tanh(),
                            pyth.nn.Linear(4, 2)).double()
    load_from_torch(pm, tm)
    return pm, tm


AVERAGES = {
    "swa": lambda lib: {},
    "ema_avg_fn": lambda lib: {"avg_fn": lib.optim.swa_utils.get_ema_avg_fn(0.9)},
    "ema_multi": lambda lib: {"multi_avg_fn": lib.optim.swa_utils.get_ema_multi_avg_fn(0.8)},
    "swa_multi": lambda lib: {"multi_avg_fn": lib.optim.swa_utils.get_swa_multi_avg_fn()},
    "swa_buffers": lambda lib: {"use_buffers": True},
    "ema_multi_buffers": lambda lib: {
        "multi_avg_fn": lib.optim.swa_utils.get_ema_multi_avg_fn(0.7), "use_buffers": True},
}


def averaged_run(lib, model, kind, steps=8):
    if kind == "swa_multi_buffers_int":
        kw = {"multi_avg_fn": lib.optim.swa_utils.get_swa_multi_avg_fn(), "use_buffers": True}
    else:
        kw = AVERAGES[kind](lib)
    avg = lib.optim.swa_utils.AveragedModel(model, **kw)
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    x, y = lib.tensor(X), lib.tensor(Y)
    for _ in range(steps):
        opt.zero_grad()
        ((model(x) - y) ** 2).mean().backward()
        opt.step()
        avg.update_parameters(model)
    return avg


@needs_torch
@pytest.mark.parametrize("kind", sorted(AVERAGES))
def test_averaged_model_matches_torch(kind):
    pm, tm = model_pair()
    pa, ta = averaged_run(pyth, pm, kind), averaged_run(torch, tm, kind)
    assert int(pa.n_averaged) == int(ta.n_averaged) == 8
    psd, tsd = pa.state_dict(), ta.state_dict()
    assert list(psd) == list(tsd)
    for k, v in tsd.items():
        np.testing.assert_allclose(psd[k].numpy(), v.numpy(), rtol=1e-10, atol=1e-12, err_msg=k)
    # the average differs from the model it follows, and runs as the model does
    assert not np.allclose(psd["module.0.weight"].numpy(), pm.state_dict()["0.weight"].numpy())
    pa.eval()
    ta.eval()
    np.testing.assert_allclose(pa(pyth.tensor(X)).detach().numpy(),
                               ta(torch.tensor(X)).detach().numpy(), rtol=1e-10, atol=1e-12)


@needs_torch
def test_update_bn_matches_torch():
    pm, tm = model_pair()
    loader_p = [(pyth.tensor(X[i:i + 4]), 0) for i in range(0, 16, 4)]
    loader_t = [(torch.tensor(X[i:i + 4]), 0) for i in range(0, 16, 4)]
    pm.eval()
    tm.eval()
    U.update_bn(loader_p, pm)
    torch.optim.swa_utils.update_bn(loader_t, tm)
    assert not pm.training and pm[1].momentum == tm[1].momentum == 0.1
    for k in ("1.running_mean", "1.running_var", "1.num_batches_tracked"):
        np.testing.assert_allclose(pm.state_dict()[k].numpy(), tm.state_dict()[k].numpy(),
                                   rtol=1e-12, err_msg=k)
    plain = pyth.nn.Linear(2, 2)
    U.update_bn(loader_p, plain)  # no BatchNorm: nothing to do


def test_average_function_errors():
    for make in (U.get_ema_avg_fn, U.get_ema_multi_avg_fn):
        with pytest.raises(ValueError, match=r"Invalid decay value 1.5 provided. Please provide "
                                             r"a value in \[0,1\] range."):
            make(1.5)
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
        U.AveragedModel(pyth.nn.Linear(2, 2), avg_fn=U.get_swa_avg_fn(),
                        multi_avg_fn=U.get_swa_multi_avg_fn())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        avg = U.AveragedModel(pyth.nn.Linear(2, 2))
    assert avg.n_averaged.dtype is pyth.int64
    assert list(avg.state_dict()) == ["n_averaged", "module.weight", "module.bias"]


@needs_torch
def test_swa_multi_over_integer_buffers_refuses_as_torch():
    """The running mean of an integer buffer (num_batches_tracked) through addcdiv: an
    integer division both libraries refuse."""
    for lib, model in zip((pyth, torch), model_pair()):
        with pytest.raises(RuntimeError, match="[Ii]nteger division with addcdiv"):
            averaged_run(lib, model, "swa_multi_buffers_int", steps=2)
