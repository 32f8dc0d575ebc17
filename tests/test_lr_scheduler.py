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
    "multiplicative": lambda lib, o: lib.optim.lr_scheduler.MultiplicativeLR(o, lambda e: 0.95),
    "multiplicative_list": lambda lib, o: lib.optim.lr_scheduler.MultiplicativeLR(
        o, [lambda e: 0.9, lambda e: 1.0 + 0.01 * (e % 4)]),
    "constant": lambda lib, o: lib.optim.lr_scheduler.ConstantLR(o),
    "constant_half": lambda lib, o: lib.optim.lr_scheduler.ConstantLR(o, factor=0.5,
                                                                       total_iters=7),
    "polynomial": lambda lib, o: lib.optim.lr_scheduler.PolynomialLR(o),
    "polynomial_square": lambda lib, o: lib.optim.lr_scheduler.PolynomialLR(
        o, total_iters=20, power=2.0),
    "warm_restarts": lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, 5),
    "warm_restarts_mult": lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        o, T_0=3, T_mult=2, eta_min=0.01),
    "cyclic": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=4),
    "cyclic_triangular2": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
        o, [0.01, 0.005], [0.1, 0.2], step_size_up=3, step_size_down=5, mode="triangular2",
        base_momentum=[0.7, 0.8], max_momentum=0.95),
    "cyclic_exp_range": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
        o, 0.01, 0.1, step_size_up=5, mode="exp_range", gamma=0.95, cycle_momentum=False),
    "cyclic_scale_fn": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
        o, 0.01, 0.1, 4, scale_fn=lambda x: 0.9 ** x, scale_mode="iterations"),
    "sequential": lambda lib, o: lib.optim.lr_scheduler.SequentialLR(
        o, [lib.optim.lr_scheduler.LinearLR(o, 0.1, total_iters=5),
            lib.optim.lr_scheduler.ExponentialLR(o, 0.9)], milestones=[5]),
    "sequential3": lambda lib, o: lib.optim.lr_scheduler.SequentialLR(
        o, [lib.optim.lr_scheduler.ConstantLR(o, 0.5, 3),
            lib.optim.lr_scheduler.CosineAnnealingLR(o, 10),
            lib.optim.lr_scheduler.StepLR(o, 3, gamma=0.7)], [4, 12]),
    "chained": lambda lib, o: lib.optim.lr_scheduler.ChainedScheduler(
        [lib.optim.lr_scheduler.ConstantLR(o, 0.3, 4),
         lib.optim.lr_scheduler.ExponentialLR(o, 0.9)]),
    "chained_with_optimizer": lambda lib, o: lib.optim.lr_scheduler.ChainedScheduler(
        [lib.optim.lr_scheduler.LinearLR(o, 0.5, 1.0, 6),
         lib.optim.lr_scheduler.MultiStepLR(o, [4, 9], 0.5)], optimizer=o),
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
@pytest.mark.parametrize("case", ["step", "multistep", "exponential", "cosine", "linear_down",
                                  "constant_half", "polynomial_square"])
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


# ---- the schedulers of a second batch: restarts by epoch, members, errors, warnings ----

@needs_torch
@pytest.mark.parametrize("kw", [{"T_0": 4}, {"T_0": 3, "T_mult": 2, "eta_min": 0.001}])
def test_warm_restarts_fractional_epochs(kw):
    def go(lib):
        opt = optimizer(lib)
        sched = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, **kw)
        out = []
        for epoch in range(12):
            for batch in range(4):
                opt.step()
                sched.step(epoch + batch / 4)
                out.append(sched.get_last_lr() + [sched.T_cur, sched.T_i, sched.last_epoch])
        return np.array(out)

    np.testing.assert_allclose(go(pyth), go(torch), rtol=1e-13)
    sched = S.CosineAnnealingWarmRestarts(optimizer(pyth), 3)
    with pytest.raises(ValueError, match="Expected non-negative epoch, but got -1"):
        sched.step(-1)


@needs_torch
def test_members_state_dicts_nest_as_torch():
    _, ours = sequence("pyth", "sequential3", steps=6)
    _, ref = sequence("torch", "sequential3", steps=6)
    sd, tsd = ours.state_dict(), ref.state_dict()
    assert sorted(sd) == sorted(tsd) and sd["_milestones"] == tsd["_milestones"] == [4, 12]
    assert [sorted(m) for m in sd["_schedulers"]] == [sorted(m) for m in tsd["_schedulers"]]
    assert [m["last_epoch"] for m in sd["_schedulers"]] == \
           [m["last_epoch"] for m in tsd["_schedulers"]]


@needs_torch
def test_cyclic_state_dict_carries_a_callable_scale_object():
    def go(lib, scale):
        opt = optimizer(lib)
        return lib.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, 3, scale_fn=scale)

    sched = go(pyth, Scale(0.8))
    sd = sched.state_dict()
    assert "_scale_fn_ref" not in sd and sd["_scale_fn_custom"] == {"f": 0.8}
    assert sorted(sd) == sorted(go(torch, Scale(0.8)).state_dict())
    other = go(pyth, Scale(0.3))
    other.load_state_dict(sd)
    assert other._scale_fn_custom.f == 0.8 and other.scale_fn(2) == pytest.approx(0.64)
    builtin = S.CyclicLR(optimizer(pyth), 0.01, 0.1, mode="triangular2")
    saved = builtin.state_dict()
    assert saved["_scale_fn_custom"] is None and "_scale_fn_ref" not in saved
    again = S.CyclicLR(optimizer(pyth), 0.01, 0.1, mode="triangular2")
    again.load_state_dict(saved)
    assert again.scale_fn(3) == 0.25


def _error_of(lib, build):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            build(lib, optimizer(lib))
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e).__name__, str(e)
    return None


BAD = {
    "constant_factor": lambda lib, o: lib.optim.lr_scheduler.ConstantLR(o, factor=1.5),
    "multiplicative_not_callable": lambda lib, o: lib.optim.lr_scheduler.MultiplicativeLR(
        o, [lambda e: 1.0, 0.5]),
    "multiplicative_count": lambda lib, o: lib.optim.lr_scheduler.MultiplicativeLR(
        o, [lambda e: 1.0]),
    "restarts_T_0": lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, 0),
    "restarts_T_0_float": lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        o, 2.0),
    "restarts_T_mult": lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        o, 2, T_mult=0),
    "restarts_eta_min": lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        o, 2, eta_min="0"),
    "cyclic_mode": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(o, 0.1, 1.0, mode="sine"),
    "cyclic_lengths": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(o, [0.1], 1.0),
    "cyclic_optimizer": lambda lib, o: lib.optim.lr_scheduler.CyclicLR("sgd", 0.1, 1.0),
    "cyclic_no_momentum": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
        lib.optim.Adagrad([lib.zeros(2, requires_grad=True)]), 0.1, 1.0),
    "sequential_empty": lambda lib, o: lib.optim.lr_scheduler.SequentialLR(o, [], []),
    "sequential_milestones": lambda lib, o: lib.optim.lr_scheduler.SequentialLR(
        o, [lib.optim.lr_scheduler.StepLR(o, 2)], [3]),
    "sequential_plateau": lambda lib, o: lib.optim.lr_scheduler.SequentialLR(
        o, [lib.optim.lr_scheduler.StepLR(o, 2),
            lib.optim.lr_scheduler.ReduceLROnPlateau(o)], [3]),
    "sequential_not_scheduler": lambda lib, o: lib.optim.lr_scheduler.SequentialLR(
        o, [lib.optim.lr_scheduler.StepLR(o, 2), 3], [3]),
    "chained_empty": lambda lib, o: lib.optim.lr_scheduler.ChainedScheduler([]),
    "chained_plateau": lambda lib, o: lib.optim.lr_scheduler.ChainedScheduler(
        [lib.optim.lr_scheduler.ReduceLROnPlateau(o)]),
}


@needs_torch
@pytest.mark.parametrize("case", sorted(BAD))
def test_errors_match_torch(case):
    ours, ref = _error_of(pyth, BAD[case]), _error_of(torch, BAD[case])
    assert ref is not None and ours == ref


@needs_torch
def test_other_optimizer_is_refused_as_torch():
    def go(lib, cls):
        o, other = optimizer(lib), optimizer(lib)
        try:
            cls_ = getattr(lib.optim.lr_scheduler, cls)
            members = [lib.optim.lr_scheduler.StepLR(o, 2), lib.optim.lr_scheduler.StepLR(other, 2)]
            cls_(o, members, [3]) if cls == "SequentialLR" else cls_(members)
        except ValueError as e:
            return str(e).split(" has ")[0], str(e).split("which is ")[1]
    for cls in ("SequentialLR", "ChainedScheduler"):
        assert go(pyth, cls) == go(torch, cls)


@needs_torch
def test_order_warnings_match_torch():
    def messages(lib, call_step_first):
        opt = optimizer(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, 2)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            if call_step_first:
                opt.step = lambda closure=None: None  # replaced after the scheduler wrapped it
                opt.step()
            sched.step()
            sched.get_lr()
        return [str(w.message) for w in seen]

    for first in (False, True):
        ours, ref = messages(pyth, first), messages(torch, first)
        assert ours == ref and len(ref) == 2


@needs_torch
def test_tensor_lr_is_written_in_place():
    def go(lib):
        p = lib.zeros(2, requires_grad=True)
        lr = lib.tensor(0.1)
        opt = lib.optim.SGD([p], lr=lr)
        sched = lib.optim.lr_scheduler.ExponentialLR(opt, 0.5)
        opt.step()
        sched.step()
        last = sched.get_last_lr()[0]
        return opt.param_groups[0]["lr"] is lr, float(lr), isinstance(last, lib.Tensor), last is lr

    ours, ref = go(pyth), go(torch)
    assert ours[0] and ours[2] and not ours[3]
    lr = pyth.tensor(0.1)
    opt = pyth.optim.SGD([pyth.zeros(2, requires_grad=True)], lr=lr)
    plateau = S.ReduceLROnPlateau(opt, patience=0)
    for metric in (1.0, 2.0):
        plateau.step(metric)
    assert opt.param_groups[0]["lr"] is lr and float(lr) == pytest.approx(0.01)
    assert ours[1] == pytest.approx(ref[1], rel=1e-7) and ours[::2] == ref[::2]


@needs_torch
@pytest.mark.parametrize("case", sorted(CASES))
def test_torch_state_dict_continues_in_pyth(case):
    """A schedule run 12 steps in PyTorch, its optimizer's and scheduler's state dicts loaded
    into pyth's, goes on as PyTorch's does."""
    full, _ = sequence("torch", case, steps=30)
    topt = optimizer(torch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tsched = CASES[case](torch, topt)
        for _ in range(12):
            topt.step()
            tsched.step()
        opt = optimizer(pyth)
        sched = CASES[case](pyth, opt)
        osd = topt.state_dict()
        osd["state"] = {k: {n: pyth.tensor(v.numpy()) for n, v in s.items()}
                        for k, s in osd["state"].items()}
        opt.load_state_dict(osd)
        sched.load_state_dict(tsched.state_dict())
        got = []
        for _ in range(18):
            opt.step()
            sched.step()
            got.append(sched.get_last_lr() + [momentum_of(g) for g in opt.param_groups])
    np.testing.assert_allclose(np.array(got), full[13:], rtol=1e-13, atol=0)
