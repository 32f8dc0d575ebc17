"""pyth.optim against PyTorch: 20-step trajectories of every optimizer and option in float64
(1e-9) and float32, several parameter groups, non-contiguous and mixed-dtype parameters,
state dicts (layout, round trips, continuing after a reload), zero_grad, closures and the
argument errors with PyTorch's messages."""

from __future__ import annotations

import copy
import re

import numpy as np
import pytest
from _support import needs_torch, torch

import pyth
from pyth import optim

RNG = np.random.default_rng(11)
W0 = RNG.standard_normal((3, 4))
B0 = RNG.standard_normal(3)
X = RNG.standard_normal((5, 4))
Y = RNG.standard_normal((5, 3))
LIBS = {"pyth": pyth, "torch": torch}
DT = {("pyth", "float64"): pyth.float64, ("pyth", "float32"): pyth.float32}
if torch is not None:
    DT.update({("torch", "float64"): torch.float64, ("torch", "float32"): torch.float32})


def loss_of(lib, w, b, x, y):
    """A small regression loss with a quartic term: not quadratic, so steps differ."""
    r = x @ w.t() + b - y
    return (r * r).mean() + 0.05 * (w * w * w * w).sum()


def make(libname, dtype="float64", noncontig=False):
    lib, dt = LIBS[libname], DT[(libname, dtype)]
    if noncontig:  # a transposed leaf: the kernels work through a contiguous copy
        w = lib.tensor(np.ascontiguousarray(W0.T), dtype=dt).t().requires_grad_()
    else:
        w = lib.tensor(W0, dtype=dt, requires_grad=True)
    b = lib.tensor(B0, dtype=dt, requires_grad=True)
    x, y = lib.tensor(X, dtype=dt), lib.tensor(Y, dtype=dt)
    return w, b, x, y


def run(libname, name, kwargs, dtype="float64", steps=20, groups=None, noncontig=False,
        unused=False):
    lib = LIBS[libname]
    w, b, x, y = make(libname, dtype, noncontig)
    extra = lib.zeros(2, dtype=w.dtype, requires_grad=True)
    params = [w, b] + ([extra] if unused else [])
    if groups is not None:
        params = [{"params": [w], **groups[0]}, {"params": [b], **groups[1]}]
    opt = getattr(lib.optim, name)(params, **kwargs)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        loss_of(lib, w, b, x, y).backward()
        opt.step()
        out.append(np.concatenate([w.detach().numpy().ravel(), b.detach().numpy().ravel()]))
    if unused:
        assert extra.detach().numpy().tolist() == [0.0, 0.0]
    return np.array(out), opt


CASES = [
    ("SGD", {"lr": 0.05}),
    ("SGD", {"lr": 0.05, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.3}),
    ("SGD", {"lr": 0.05, "momentum": 0.8, "nesterov": True}),
    ("SGD", {"lr": 0.05, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.02, "momentum": 0.9, "nesterov": True, "weight_decay": 0.05}),
    ("SGD", {"lr": 0.01, "momentum": 0.5, "weight_decay": 0.1, "maximize": True}),
    ("Adam", {"lr": 0.05}),
    ("Adam", {"lr": 0.05, "amsgrad": True}),
    ("Adam", {"lr": 0.05, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.01, "maximize": True}),
    ("Adam", {"lr": 0.05, "betas": (0.8, 0.9), "eps": 1e-3, "amsgrad": True,
              "weight_decay": 0.05}),
    ("AdamW", {"lr": 0.05}),
    ("AdamW", {"lr": 0.05, "amsgrad": True, "weight_decay": 0.3}),
    ("AdamW", {"lr": 0.05, "betas": (0.5, 0.6), "maximize": True}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "centered": True}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9}),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.9, "eps": 1e-4, "maximize": True}),
    ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.1}),
    ("Adagrad", {"lr": 0.1, "weight_decay": 0.1}),
    ("Adagrad", {"lr": 0.1, "initial_accumulator_value": 0.5, "eps": 1e-3}),
    ("Adagrad", {"lr": 0.05, "maximize": True, "lr_decay": 0.01}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.5}),
    ("Adadelta", {"lr": 2.0, "eps": 1e-3, "weight_decay": 0.1}),
    ("Adadelta", {"lr": 1.0, "rho": 0.95, "maximize": True}),
    ("Adamax", {}),
    ("Adamax", {"lr": 0.05, "betas": (0.5, 0.9)}),
    ("Adamax", {"lr": 0.05, "eps": 1e-2, "weight_decay": 0.2}),
    ("Adamax", {"lr": 0.01, "maximize": True}),
    ("NAdam", {}),
    ("NAdam", {"lr": 0.05, "momentum_decay": 0.02}),
    ("NAdam", {"lr": 0.05, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.05, "weight_decay": 0.3, "decoupled_weight_decay": True}),
    ("NAdam", {"lr": 0.02, "betas": (0.8, 0.95), "eps": 1e-4, "maximize": True}),
    ("RAdam", {"lr": 0.05}),
    ("RAdam", {"lr": 0.05, "betas": (0.9, 0.9)}),  # rho_t passes 5 at step 6
    ("RAdam", {"lr": 0.05, "betas": (0.5, 0.8), "weight_decay": 0.1}),
    ("RAdam", {"lr": 0.05, "betas": (0.9, 0.8), "weight_decay": 0.2,
               "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.02, "betas": (0.9, 0.7), "maximize": True}),
    ("Rprop", {}),
    ("Rprop", {"lr": 0.05, "etas": (0.3, 1.5)}),
    ("Rprop", {"lr": 0.05, "step_sizes": (1e-3, 0.08)}),
    ("Rprop", {"lr": 0.01, "maximize": True}),
    ("ASGD", {"lr": 0.05}),
    ("ASGD", {"lr": 0.05, "t0": 5}),  # averaging starts inside the run
    ("ASGD", {"lr": 0.1, "lambd": 0.1, "alpha": 0.5, "t0": 3, "weight_decay": 0.1}),
    ("ASGD", {"lr": 0.02, "t0": 0, "maximize": True}),
    ("Adafactor", {}),
    ("Adafactor", {"lr": 0.05, "beta2_decay": -0.5, "d": 2.0}),
    ("Adafactor", {"lr": 0.05, "eps": (1e-5, 1e-2), "weight_decay": 0.1}),
    ("Adafactor", {"lr": 0.02, "maximize": True}),
]


def _id(case):
    name, kw = case
    return name + "-" + "-".join(f"{k}={v}" for k, v in kw.items())


@needs_torch
@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_trajectory_float64(case):
    name, kw = case
    ours, _ = run("pyth", name, kw, unused=True)
    ref, _ = run("torch", name, kw)
    assert np.abs(ref[-1] - ref[0]).max() > 1e-3  # the case moves the parameters
    np.testing.assert_allclose(ours, ref, rtol=1e-9, atol=1e-9)


@needs_torch
@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_trajectory_float32(case):
    name, kw = case
    ours, _ = run("pyth", name, kw, dtype="float32")
    ref, _ = run("torch", name, kw, dtype="float32")
    np.testing.assert_allclose(ours, ref, rtol=2e-4, atol=2e-5)


@needs_torch
@pytest.mark.parametrize("case", [("SGD", {"lr": 0.05, "momentum": 0.9}), ("Adam", {"lr": 0.05}),
                                  ("RMSprop", {"lr": 0.01, "centered": True}),
                                  ("Adagrad", {"lr": 0.1}), ("Adadelta", {}),
                                  ("Adamax", {}), ("NAdam", {"lr": 0.05}),
                                  ("RAdam", {"betas": (0.9, 0.9)}), ("Rprop", {}),
                                  ("ASGD", {"t0": 5}), ("Adafactor", {})], ids=_id)
def test_noncontiguous_parameter(case):
    name, kw = case
    ours, _ = run("pyth", name, kw, noncontig=True)
    ref, _ = run("torch", name, kw, noncontig=True)
    np.testing.assert_allclose(ours, ref, rtol=1e-9, atol=1e-9)


GROUPS = [
    ("SGD", {"lr": 0.01}, ({"lr": 0.05, "momentum": 0.9, "nesterov": True}, {"weight_decay": 0.2})),
    ("Adam", {"lr": 0.01}, ({"amsgrad": True, "betas": (0.7, 0.8)}, {"lr": 0.1, "weight_decay": 0.1})),
    ("AdamW", {"lr": 0.02}, ({"weight_decay": 0.5}, {"maximize": True})),
    ("RMSprop", {"lr": 0.01}, ({"centered": True, "momentum": 0.3}, {"alpha": 0.5})),
    ("Adagrad", {"lr": 0.1}, ({"lr_decay": 0.2}, {"initial_accumulator_value": 1.0})),
    ("Adadelta", {"lr": 0.5}, ({"rho": 0.5}, {"weight_decay": 0.1, "lr": 1.0})),
    ("Adamax", {"lr": 0.05}, ({"betas": (0.5, 0.6)}, {"maximize": True})),
    ("NAdam", {"lr": 0.05}, ({"momentum_decay": 0.1}, {"weight_decay": 0.1,
                                                        "decoupled_weight_decay": True})),
    ("RAdam", {"lr": 0.05}, ({"betas": (0.9, 0.9)}, {"weight_decay": 0.1})),
    ("Rprop", {"lr": 0.05}, ({"etas": (0.4, 1.1)}, {"step_sizes": (1e-4, 0.1)})),
    ("ASGD", {"lr": 0.05}, ({"t0": 3}, {"lambd": 0.01, "lr": 0.1})),
    ("Adafactor", {"lr": 0.05}, ({"beta2_decay": -0.6}, {"weight_decay": 0.1})),
]


@needs_torch
@pytest.mark.parametrize("name,kw,groups", GROUPS, ids=[g[0] for g in GROUPS])
def test_param_groups_with_own_options(name, kw, groups):
    ours, opt = run("pyth", name, kw, groups=groups)
    ref, topt = run("torch", name, kw, groups=groups)
    np.testing.assert_allclose(ours, ref, rtol=1e-9, atol=1e-9)
    assert [sorted(g) for g in opt.param_groups] == [sorted(g) for g in topt.param_groups]
    for g, tg in zip(opt.param_groups, topt.param_groups):
        assert {k: v for k, v in g.items() if k != "params"} == \
               {k: v for k, v in tg.items() if k != "params"}


@needs_torch
def test_mixed_dtypes_in_one_group():
    def go(lib, dts):
        a = lib.tensor(W0, dtype=dts[0], requires_grad=True)
        b = lib.tensor(B0, dtype=dts[1], requires_grad=True)
        opt = lib.optim.Adam([a, b], lr=0.05)
        for _ in range(5):
            opt.zero_grad()
            ((a * a * a).sum() + (b * b).sum()).backward()
            opt.step()
        return a.detach().numpy(), b.detach().numpy()

    pa, pb = go(pyth, (pyth.float64, pyth.float32))
    ta, tb = go(torch, (torch.float64, torch.float32))
    np.testing.assert_allclose(pa, ta, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(pb, tb, rtol=1e-5, atol=1e-6)


@needs_torch
def test_half_parameters_step_through_float():
    def go(lib):
        p = lib.tensor(B0, dtype=lib.float16, requires_grad=True)
        p.grad = lib.tensor(B0 * 0.5, dtype=lib.float16)
        opt = lib.optim.SGD([p], lr=0.1, momentum=0.9)
        opt.step()
        opt.step()
        return p.detach().float().numpy(), opt.state[p]["momentum_buffer"].dtype

    (ours, odt), (ref, _) = go(pyth), go(torch)
    assert odt is pyth.float16
    np.testing.assert_allclose(ours, ref, rtol=2e-3, atol=2e-3)


# ---- state dicts ----

@needs_torch
@pytest.mark.parametrize("case", [c for c in CASES if "maximize" not in c[1]][::2], ids=_id)
def test_state_dict_layout_matches_torch(case):
    name, kw = case
    _, opt = run("pyth", name, kw, steps=3, unused=True)
    _, topt = run("torch", name, kw, steps=3)
    sd, tsd = opt.state_dict(), topt.state_dict()
    assert [g["params"] for g in sd["param_groups"]] == [[0, 1, 2]]
    assert sorted(sd["param_groups"][0]) == sorted(tsd["param_groups"][0])
    if name == "Adagrad":  # state from construction, for every parameter
        assert sorted(sd["state"]) == [0, 1, 2]
    else:
        assert sorted(sd["state"]) == sorted(tsd["state"]) == [0, 1][:len(tsd["state"])]
    for i, ts in tsd["state"].items():
        s = sd["state"][i]
        assert sorted(s) == sorted(ts)
        for k, v in ts.items():
            if k == "step":
                assert s[k].dtype is pyth.float32 and s[k].dim() == 0
                assert float(s[k]) == float(v)
            else:
                np.testing.assert_allclose(s[k].numpy(), v.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("case", CASES[1::2], ids=[_id(c) for c in CASES[1::2]])
def test_state_dict_round_trip_continues_identically(case):
    name, kw = case
    full, _ = run("pyth", name, kw, steps=12)
    w, b, x, y = make("pyth")
    opt = getattr(optim, name)([w, b], **kw)
    for _ in range(7):
        opt.zero_grad()
        loss_of(pyth, w, b, x, y).backward()
        opt.step()
    saved = copy.deepcopy(opt.state_dict())
    w2 = w.detach().clone().requires_grad_()
    b2 = b.detach().clone().requires_grad_()
    opt2 = getattr(optim, name)([w2, b2], lr=123.0)  # options come from the state dict
    opt2.load_state_dict(saved)
    assert opt2.param_groups[0]["lr"] == opt.param_groups[0]["lr"] != 123.0
    assert opt2.param_groups[0]["params"][0] is w2
    for _ in range(5):
        opt2.zero_grad()
        loss_of(pyth, w2, b2, x, y).backward()
        opt2.step()
    got = np.concatenate([w2.detach().numpy().ravel(), b2.detach().numpy().ravel()])
    np.testing.assert_array_equal(got, full[-1])
    # load_state_dict accepts its own output again, and a plain-number step
    sd = opt2.state_dict()
    opt2.load_state_dict(sd)
    if "step" in sd["state"][0]:
        sd = copy.deepcopy(sd)
        sd["state"][0]["step"] = 12
        opt2.load_state_dict(sd)
        assert opt2.state[w2]["step"].dtype is pyth.float32
        assert float(opt2.state[w2]["step"]) == 12.0


def test_load_state_dict_errors():
    w, b, _, _ = make("pyth")
    opt = optim.SGD([w, b], lr=0.1)
    two = optim.SGD([{"params": [w]}, {"params": [b]}], lr=0.1)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict(two.state_dict())
    one = optim.SGD([w], lr=0.1)
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        one.load_state_dict(opt.state_dict())


def test_state_dict_maps_shared_parameters_once():
    w, b, _, _ = make("pyth")
    opt = optim.SGD([{"params": [w], "lr": 0.1}, {"params": [b], "lr": 0.2}], momentum=0.9)
    sd = opt.state_dict()
    assert [g["params"] for g in sd["param_groups"]] == [[0], [1]]
    assert [g["lr"] for g in sd["param_groups"]] == [0.1, 0.2]


# ---- the optimizer protocol ----

def test_zero_grad():
    w, b, x, y = make("pyth")
    opt = optim.SGD([w, b], lr=0.1)
    loss_of(pyth, w, b, x, y).backward()
    opt.zero_grad(set_to_none=False)
    assert w.grad is not None and float(w.grad.abs().sum()) == 0.0
    assert not w.grad.requires_grad
    loss_of(pyth, w, b, x, y).backward()
    assert float(w.grad.abs().sum()) > 0
    opt.zero_grad()
    assert w.grad is None and b.grad is None


def test_parameters_without_grad_are_skipped():
    w, b, _, _ = make("pyth")
    opt = optim.Adam([w, b], lr=0.1)
    (w * w).sum().backward()
    before = b.detach().clone()
    opt.step()
    assert b not in opt.state and w in opt.state
    assert b.detach().numpy().tolist() == before.numpy().tolist()
    sgd = optim.SGD([w, b], lr=0.1)  # momentum 0: no state at all, as in PyTorch
    sgd.step()
    assert len(sgd.state) == 0


@needs_torch
def test_closure_is_evaluated_with_grad_and_returned():
    def go(lib):
        w, b, x, y = make("pyth" if lib is pyth else "torch")
        opt = lib.optim.SGD([w, b], lr=0.05, momentum=0.9)

        def closure():
            opt.zero_grad()
            loss = loss_of(lib, w, b, x, y)
            loss.backward()
            return loss

        losses = []
        with lib.no_grad():
            for _ in range(5):
                losses.append(float(opt.step(closure)))
        return losses, w.detach().numpy()

    (pl, pw), (tl, tw) = go(pyth), go(torch)
    np.testing.assert_allclose(pl, tl, rtol=1e-9)
    np.testing.assert_allclose(pw, tw, rtol=1e-9, atol=1e-9)


def test_add_param_group_and_checks():
    w, b, _, _ = make("pyth")
    opt = optim.SGD([w], lr=0.1, momentum=0.5)
    opt.add_param_group({"params": b, "lr": 0.3})
    assert opt.param_groups[1]["params"] == [b] and opt.param_groups[1]["momentum"] == 0.5
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": [w]})
    with pytest.raises(TypeError, match="param_group must be a dict"):
        opt.add_param_group([w])
    with pytest.raises(TypeError, match="ordered collections"):
        optim.SGD([{"params": {w}}], lr=0.1)
    with pytest.raises(TypeError, match="optimizer can only optimize Tensors"):
        optim.SGD([w, 3.0], lr=0.1)
    with pytest.raises(TypeError, match="should be an iterable of Tensors or dicts"):
        optim.SGD(w, lr=0.1)
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        optim.Adam([])
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        optim.SGD([w * 2], lr=0.1)
    with pytest.warns(UserWarning, match="duplicate parameters"):
        optim.SGD([w, w], lr=0.1)
    named = optim.Adam([("w", w), ("b", b)])
    assert named.param_groups[0]["param_names"] == ["w", "b"]
    assert "Parameter Group 0" in repr(named) and "    lr: 0.001" in repr(named)


ERRORS = [
    (optim.SGD, {"lr": -0.1}, "Invalid learning rate: -0.1"),
    (optim.SGD, {"lr": 0.1, "momentum": -0.5}, "Invalid momentum value: -0.5"),
    (optim.SGD, {"lr": 0.1, "weight_decay": -1}, "Invalid weight_decay value: -1"),
    (optim.SGD, {"lr": 0.1, "nesterov": True}, "Nesterov momentum requires a momentum and zero dampening"),
    (optim.SGD, {"lr": 0.1, "nesterov": True, "momentum": 0.9, "dampening": 0.1},
     "Nesterov momentum requires a momentum and zero dampening"),
    (optim.Adam, {"lr": -1e-3}, "Invalid learning rate: -0.001"),
    (optim.Adam, {"eps": -1.0}, "Invalid epsilon value: -1.0"),
    (optim.Adam, {"betas": (1.0, 0.999)}, "Invalid beta parameter at index 0: 1.0"),
    (optim.Adam, {"betas": (0.9, -0.1)}, "Invalid beta parameter at index 1: -0.1"),
    (optim.AdamW, {"weight_decay": -0.1}, "Invalid weight_decay value: -0.1"),
    (optim.RMSprop, {"alpha": -0.1}, "Invalid alpha value: -0.1"),
    (optim.RMSprop, {"momentum": -0.1}, "Invalid momentum value: -0.1"),
    (optim.Adagrad, {"lr_decay": -0.1}, "Invalid lr_decay value: -0.1"),
    (optim.Adagrad, {"initial_accumulator_value": -1.0},
     "Invalid initial_accumulator_value value: -1.0"),
    (optim.Adadelta, {"lr": -1.0}, "Invalid learning rate: -1.0"),
    (optim.Adadelta, {"rho": 1.5}, "Invalid rho value: 1.5"),
    (optim.Adadelta, {"rho": -0.1}, "Invalid rho value: -0.1"),
    (optim.Adadelta, {"eps": -1e-6}, "Invalid epsilon value: -1e-06"),
    (optim.Adadelta, {"weight_decay": -0.5}, "Invalid weight_decay value: -0.5"),
    (optim.Adamax, {"lr": -0.1}, "Invalid learning rate: -0.1"),
    (optim.Adamax, {"eps": -0.1}, "Invalid epsilon value: -0.1"),
    (optim.Adamax, {"betas": (1.0, 0.9)}, "Invalid beta parameter at index 0: 1.0"),
    (optim.Adamax, {"betas": (0.9, 1.5)}, "Invalid beta parameter at index 1: 1.5"),
    (optim.Adamax, {"weight_decay": -1.0}, "Invalid weight_decay value: -1.0"),
    (optim.NAdam, {"lr": -0.1}, "Invalid learning rate: -0.1"),
    (optim.NAdam, {"betas": (-0.1, 0.9)}, "Invalid beta parameter at index 0: -0.1"),
    (optim.NAdam, {"betas": (0.9, 1.0)}, "Invalid beta parameter at index 1: 1.0"),
    (optim.NAdam, {"eps": -1.0}, "Invalid epsilon value: -1.0"),
    (optim.NAdam, {"weight_decay": -0.1}, "Invalid weight_decay value: -0.1"),
    (optim.NAdam, {"momentum_decay": -0.004}, "Invalid momentum_decay value: -0.004"),
    (optim.RAdam, {"lr": -0.1}, "Invalid learning rate: -0.1"),
    (optim.RAdam, {"betas": (0.9, -1.0)}, "Invalid beta parameter at index 1: -1.0"),
    (optim.RAdam, {"eps": -1.0}, "Invalid epsilon value: -1.0"),
    (optim.RAdam, {"weight_decay": -0.1}, "Invalid weight_decay value: -0.1"),
    (optim.Rprop, {"lr": -0.1}, "Invalid learning rate: -0.1"),
    (optim.Rprop, {"etas": (1.0, 1.2)}, "Invalid eta values: 1.0, 1.2"),
    (optim.Rprop, {"etas": (0.5, 1.0)}, "Invalid eta values: 0.5, 1.0"),
    (optim.Rprop, {"etas": (0.0, 2.0)}, "Invalid eta values: 0.0, 2.0"),
    (optim.ASGD, {"lr": -0.1}, "Invalid learning rate: -0.1"),
    (optim.ASGD, {"weight_decay": -0.1}, "Invalid weight_decay value: -0.1"),
    (optim.LBFGS, {"lr": -1.0}, "Invalid learning rate: -1.0"),
    (optim.Adafactor, {"lr": -0.1}, "Learning rate should be >= 0 but is: -0.1"),
    (optim.Adafactor, {"beta2_decay": 0.5}, "beta2_decay should be <= 0 but is: 0.5"),
    (optim.Adafactor, {"eps": (-1.0, 1e-3)}, "epsilon1 should be >= 0 but is: -1.0"),
    (optim.Adafactor, {"eps": (None, -1e-3)}, "epsilon2 should be >= 0 but is: -0.001"),
    (optim.Adafactor, {"d": 0.5}, "Clipping threshold d should be >= 1 but is: 0.5"),
    (optim.Adafactor, {"weight_decay": -0.1}, "weight_decay should be >= 0 but is: -0.1"),
]


@pytest.mark.parametrize("cls,kw,msg", ERRORS)
def test_invalid_arguments(cls, kw, msg):
    w, _, _, _ = make("pyth")
    with pytest.raises(ValueError, match=re.escape(msg)):
        cls([w], **kw)
    if torch is not None:
        t = torch.zeros(2, requires_grad=True)
        with pytest.raises(ValueError, match=re.escape(msg)):
            getattr(torch.optim, cls.__name__)([t], **kw)


def test_mismatched_state_buffer_is_an_error_and_changes_nothing():
    w, b, x, y = make("pyth")
    opt = optim.Adam([w, b], lr=0.1)
    loss_of(pyth, w, b, x, y).backward()
    opt.step()
    opt.state[b]["exp_avg"] = pyth.zeros(5, dtype=pyth.float64)
    before = [w.detach().clone(), float(opt.state[w]["step"])]
    with pytest.raises(RuntimeError, match=r"exp_avg of parameter 1 has size \[5\], but the "
                                           r"parameter has size \[3\]"):
        opt.step()
    assert np.array_equal(w.detach().numpy(), before[0].numpy())
    assert float(opt.state[w]["step"]) == before[1]


def test_step_invalidates_saved_parameters():
    w, b, x, y = make("pyth")
    opt = optim.SGD([w, b], lr=0.1)
    loss = loss_of(pyth, w, b, x, y)
    loss.backward(retain_graph=True)
    opt.step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def stepped_with_threads(threads, name, kw, base, grads):
    """A float64 parameter base after one step of optim.<name>(**kw) per gradient in grads,
    the kernels running on `threads` threads."""
    old = pyth.get_num_threads()
    pyth.set_num_threads(threads)
    try:
        p = pyth.tensor(base, dtype=pyth.float64, requires_grad=True)
        opt = getattr(optim, name)([p], **kw)
        for g in grads:
            p.grad = pyth.tensor(g, dtype=pyth.float64)
            opt.step()
        return p.detach().numpy()
    finally:
        pyth.set_num_threads(old)


def test_large_parameters_threaded_match_serial():
    """A parameter large enough to split between threads gives the serial result."""
    n = 1 << 19
    base = RNG.standard_normal(n)
    grad = RNG.standard_normal(n)
    kw = {"lr": 0.01, "amsgrad": True, "weight_decay": 0.1}
    one, two = (stepped_with_threads(t, "Adam", kw, base, [grad] * 3) for t in (1, 2))
    np.testing.assert_array_equal(one, two)
    # the Adam formula, in numpy, for the same three steps
    p, m, v, vm = base.copy(), np.zeros(n), np.zeros(n), np.zeros(n)
    for t in range(1, 4):
        d = grad + 0.1 * p
        m = m + 0.1 * (d - m)
        v = 0.999 * v + 0.001 * d * d
        vm = np.maximum(vm, v)
        p = p - 0.01 / (1 - 0.9 ** t) * m / (np.sqrt(vm) / np.sqrt(1 - 0.999 ** t) + 1e-8)
    np.testing.assert_allclose(one, p, rtol=1e-12, atol=1e-12)
