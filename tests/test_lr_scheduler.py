"""pyth.optim.lr_scheduler against PyTorch: learning-rate (and momentum) sequences over 30+
steps for every scheduler and its options, two param groups, state dicts (keys as PyTorch's,
round trips that continue identically), step(epoch) closed forms, and argument errors."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from _support import needs_torch, torch

import pyth
from pyth.optim import lr_scheduler as S

LIBS = {"pyth": pyth, "torch": torch}


def optimizer(lib, kind="SGD"):
    a = lib.zeros(3, requires_grad=True)
    b = lib.zeros(2, requires_grad=True)
    groups = [{"params": [a], "lr": 0.1}, {"params": [b], "lr": 0.05}]
    if kind == "Adam":
        return lib.optim.Adam(groups, betas=(0.9, 0.99))
    return lib.optim.SGD(groups, momentum=0.9)


class Scale:
    """A callable object: its attributes travel through LambdaLR's state dict."""

    def __init__(self, f):
        self.f = f

    def __call__(self, epoch):
        return self.f ** epoch


CASES = {
    "step": lambda lib, o: lib.optim.lr_scheduler.StepLR(o, step_size=4, gamma=0.5),
    "multistep": lambda lib, o: lib.optim.lr_scheduler.MultiStepLR(o, [3, 7, 7, 20], gamma=0.3),
    "exponential": lambda lib, o: lib.optim.lr_scheduler.ExponentialLR(o, gamma=0.9),
    "cosine": lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingLR(o, T_max=8),
    "cosine_eta_min": lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingLR(o, 10, 0.01),
    "lambda": lambda lib, o: lib.optim.lr_scheduler.LambdaLR(o, lambda e: 1.0 / (e + 1)),
    "lambda_list": lambda lib, o: lib.optim.lr_scheduler.LambdaLR(
        o, [lambda e: 0.95 ** e, lambda e: 1 + e % 3]),
    "linear": lambda lib, o: lib.optim.lr_scheduler.LinearLR(o),
    "linear_down": lambda lib, o: lib.optim.lr_scheduler.LinearLR(o, 1.0, 0.1, total_iters=12),
    "onecycle": lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, max_lr=1.0, total_steps=40),
    "onecycle_linear3": lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(
        o, max_lr=[1.0, 0.5], epochs=4, steps_per_epoch=10, anneal_strategy="linear",
        three_phase=True, pct_start=0.25, div_factor=10.0),
    "onecycle_nomomentum": lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(
        o, max_lr=0.3, total_steps=35, cycle_momentum=False, final_div_factor=100.0),
}


def momentum_of(group):
    return group["betas"][0] if "betas" in group else group["momentum"]


def sequence(libname, case, kind="SGD", steps=32):
    lib = LIBS[libname]
    opt = optimizer(lib, kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sched = CASES[case](lib, opt)
    out = [list(sched.get_last_lr()) + [momentum_of(g) for g in opt.param_groups]]
    for _ in range(steps):
        opt.step()
        sched.step()
        out.append(list(sched.get_last_lr()) + [momentum_of(g) for g in opt.param_groups])
        assert sched.get_last_lr() == [g["lr"] for g in opt.param_groups]
    return np.array(out), sched


@needs_torch
@pytest.mark.parametrize("case", sorted(CASES))
def test_sequence_matches_torch(case):
    steps = {"onecycle": 39, "onecycle_linear3": 39, "onecycle_nomomentum": 34}.get(case, 32)
    ours, _ = sequence("pyth", case, steps=steps)
    ref, _ = sequence("torch", case, steps=steps)
    np.testing.assert_allclose(ours, ref, rtol=1e-13, atol=0)
    assert np.ptp(ref[:, 0]) > 0


@needs_torch
def test_onecycle_cycles_adam_beta1():
    ours, s = sequence("pyth", "onecycle", kind="Adam", steps=39)
    ref, _ = sequence("torch", "onecycle", kind="Adam", steps=39)
    np.testing.assert_allclose(ours, ref, rtol=1e-13, atol=0)
    assert s.optimizer.param_groups[0]["betas"][1] == 0.99
    s.step()  # step 40 of 40
    with pytest.raises(ValueError, match="Tried to step 41 times. The specified number of total "
                                         "steps is 40"):
        s.step()


@needs_torch
@pytest.mark.parametrize("case", sorted(CASES))
def test_state_dict_keys_match_torch(case):
    _, ours = sequence("pyth", case, steps=3)
    _, ref = sequence("torch", case, steps=3)
    assert sorted(ours.state_dict()) == sorted(ref.state_dict())


@pytest.mark.parametrize("case", sorted(CASES))
def test_state_dict_round_trip(case):
    full, _ = sequence("pyth", case, steps=30)  # within every schedule's total_steps
    opt = optimizer(pyth)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sched = CASES[case](pyth, opt)
        for _ in range(12):
            opt.step()
            sched.step()
        osd, ssd = opt.state_dict(), sched.state_dict()
        opt2 = optimizer(pyth)
        sched2 = CASES[case](pyth, opt2)
        opt2.load_state_dict(osd)
        sched2.load_state_dict(ssd)
        got = []
        for _ in range(18):
            opt2.step()
            sched2.step()
            got.append(sched2.get_last_lr() + [momentum_of(g) for g in opt2.param_groups])
    np.testing.assert_array_equal(np.array(got), full[13:])


def test_lambda_state_dict_carries_callable_objects():
    opt = optimizer(pyth)
    sched = S.LambdaLR(opt, [Scale(0.5), lambda e: 1.0])
    sd = sched.state_dict()
    assert sd["lr_lambdas"] == [{"f": 0.5}, None]
    sd["lr_lambdas"][0]["f"] = 0.25
    other = S.LambdaLR(optimizer(pyth), [Scale(0.9), lambda e: 1.0])
    other.load_state_dict(sd)
    assert other.lr_lambdas[0].f == 0.25


@needs_torch
@pytest.mark.parametrize("case", ["step", "multistep", "exponential", "cosine", "linear_down"])
def test_step_with_epoch_uses_closed_form(case):
    def go(lib):
        opt = optimizer(lib)
        sched = CASES[case](lib, opt)
        out = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for e in (5, 2, 9, 14):
                opt.step()
                sched.step(e)
                out.append(sched.get_last_lr())
        return np.array(out)

    np.testing.assert_allclose(go(pyth), go(torch), rtol=1e-13)
    opt = optimizer(pyth)
    sched = CASES[case](pyth, opt)
    opt.step()
    with pytest.warns(UserWarning, match="epoch parameter in `scheduler.step\\(\\)`"):
        sched.step(3)


PLATEAU = [
    {},
    {"patience": 2, "factor": 0.5},
    {"mode": "max", "patience": 1, "threshold": 0.05},
    {"threshold_mode": "abs", "threshold": 0.1, "patience": 0, "cooldown": 2},
    {"mode": "max", "threshold_mode": "abs", "patience": 1, "min_lr": [0.02, 0.001]},
    {"patience": 0, "factor": 0.5, "min_lr": 0.049, "eps": 1e-3},
]
METRICS = [1.0, 0.9, 0.95, 0.91, 0.92, 0.93, 0.85, 0.86, 0.86, 0.87, 0.5, 0.6, 0.7, 0.8, 0.9,
           1.0, 1.1, 0.2, 0.2, 0.2, 0.3, 0.19, 0.21, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55]


@needs_torch
@pytest.mark.parametrize("kw", PLATEAU, ids=[str(k) for k in PLATEAU])
def test_reduce_on_plateau_matches_torch(kw):
    def go(lib):
        opt = optimizer(lib)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kw)
        out = []
        for m in METRICS:
            opt.step()
            sched.step(m)
            out.append(sched.get_last_lr() + [sched.num_bad_epochs, sched.cooldown_counter])
        return np.array(out), sched

    (ours, s), (ref, t) = go(pyth), go(torch)
    np.testing.assert_allclose(ours, ref, rtol=1e-13)
    assert sorted(s.state_dict()) == sorted(t.state_dict())


def test_reduce_on_plateau_state_dict_and_errors():
    opt = optimizer(pyth)
    s = S.ReduceLROnPlateau(opt, patience=1)
    for m in (1.0, 1.0, 1.0, 1.0):
        s.step(m)
    sd = s.state_dict()
    s2 = S.ReduceLROnPlateau(optimizer(pyth), mode="max")
    s2.load_state_dict(sd)
    assert s2.mode == "min" and s2.best == 1.0 and s2.mode_worse == math.inf
    with pytest.raises(ValueError, match="Factor should be < 1.0."):
        S.ReduceLROnPlateau(opt, factor=1.0)
    with pytest.raises(ValueError, match="mode avg is unknown!"):
        S.ReduceLROnPlateau(opt, mode="avg")
    with pytest.raises(ValueError, match="threshold mode pct is unknown!"):
        S.ReduceLROnPlateau(opt, threshold_mode="pct")
    with pytest.raises(ValueError, match="expected 2 min_lrs, got 1"):
        S.ReduceLROnPlateau(opt, min_lr=[0.1])
    with pytest.raises(TypeError, match="list is not an Optimizer"):
        S.ReduceLROnPlateau([], factor=0.5)


def test_scheduler_errors_and_warnings():
    opt = optimizer(pyth)
    with pytest.raises(TypeError, match="str is not an Optimizer"):
        S.StepLR("sgd", 3)
    with pytest.raises(KeyError, match="initial_lr"):
        S.StepLR(opt, 3, last_epoch=4)
    with pytest.raises(ValueError, match="Starting multiplicative factor"):
        S.LinearLR(opt, start_factor=0)
    with pytest.raises(ValueError, match="Ending multiplicative factor"):
        S.LinearLR(opt, end_factor=1.5)
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
        S.LambdaLR(opt, [lambda e: 1.0])
    with pytest.raises(ValueError, match="You must define either total_steps OR"):
        S.OneCycleLR(opt, max_lr=0.1)
    with pytest.raises(ValueError, match="Expected positive integer total_steps, but got 0"):
        S.OneCycleLR(opt, max_lr=0.1, total_steps=0)
    with pytest.raises(ValueError, match="Expected float between 0 and 1 pct_start"):
        S.OneCycleLR(opt, max_lr=0.1, total_steps=10, pct_start=1.5)
    with pytest.raises(ValueError, match="anneal_strategy must be one of"):
        S.OneCycleLR(opt, max_lr=0.1, total_steps=10, anneal_strategy="exp")
    with pytest.raises(ValueError, match="max_lr must have the same length"):
        S.OneCycleLR(opt, max_lr=[0.1], total_steps=10)
    adagrad = pyth.optim.Adagrad([pyth.zeros(2, requires_grad=True)])
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        S.OneCycleLR(adagrad, max_lr=0.1, total_steps=10)
    sched = S.ExponentialLR(optimizer(pyth), 0.5)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()
    with pytest.warns(UserWarning, match="get_last_lr"):
        sched.get_lr()
    o = optimizer(pyth)
    sched = S.StepLR(o, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        o.step()
        sched.step()  # in the right order: no warning
