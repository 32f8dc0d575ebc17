"""pyth.optim.LBFGS against PyTorch's: the iterates, losses and evaluation counts of every
step(closure) on the Rosenbrock function and on a least-squares fit, with and without the
strong-Wolfe line search, short histories, max_iter / max_eval / tolerance stops, float64
(1e-9) and float32; state dicts moved between the two libraries mid-run; the errors."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from _support import needs_torch, torch
from test_optim_interop import to_lib

import pyth
from pyth import optim

LIBS = {"pyth": pyth, "torch": torch}
RNG = np.random.default_rng(5)
X = RNG.standard_normal((20, 4))
W_TRUE = RNG.standard_normal((4, 2))
Y = X @ W_TRUE + 0.1 * RNG.standard_normal((20, 2))
W0 = RNG.standard_normal((4, 2))


def rosenbrock(lib, params):
    (xy,) = params
    return (1 - xy[0]) ** 2 + 100 * (xy[1] - xy[0] ** 2) ** 2


def least_squares(lib, params):
    w, b = params
    r = lib.tensor(X, dtype=w.dtype) @ w + b - lib.tensor(Y, dtype=w.dtype)
    return (r * r).mean()


PROBLEMS = {
    "rosenbrock": (rosenbrock, lambda: [np.array([-1.5, 2.0])]),
    "least_squares": (least_squares, lambda: [W0.copy(), np.array([0.3, -0.2])]),
}


def start(libname, problem, dtype):
    lib = LIBS[libname]
    return [lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True)
            for a in PROBLEMS[problem][1]()]


def closure_for(lib, problem, opt, params, calls):
    fn = PROBLEMS[problem][0]

    def closure():
        calls.append(1)
        opt.zero_grad()
        loss = fn(lib, params)
        loss.backward()
        return loss
    return closure


def trajectory(libname, problem, kw, steps=6, dtype="float64", params=None, opt=None):
    """Per step: the returned loss, the parameters, closure calls, func_evals and n_iter."""
    lib = LIBS[libname]
    params = params if params is not None else start(libname, problem, dtype)
    opt = opt if opt is not None else lib.optim.LBFGS(params, **kw)
    calls: list = []
    closure = closure_for(lib, problem, opt, params, calls)
    out = []
    for _ in range(steps):
        loss = float(opt.step(closure).detach())
        state = opt.state[params[0]]
        flat = np.concatenate([p.detach().numpy().ravel() for p in params])
        out.append(np.concatenate([[loss], flat, [len(calls), state["func_evals"],
                                                  state["n_iter"]]]))
    return np.array(out), opt, params


# PyTorch's p.add_(d, alpha=t) rounds once (a fused multiply-add), pyth's twice; Rosenbrock's
# valley amplifies that last-bit difference step after step, so the cases with a short history
# are compared over their first steps (STEPS), before it can reach 1e-9.
CASES = [
    ("rosenbrock", {"lr": 0.1, "max_iter": 10}),
    ("rosenbrock", {"line_search_fn": "strong_wolfe"}),
    ("rosenbrock", {"line_search_fn": "strong_wolfe", "history_size": 3, "max_iter": 7}),
    ("rosenbrock", {"line_search_fn": "strong_wolfe", "max_eval": 9, "max_iter": 15}),
    ("rosenbrock", {"lr": 0.05, "history_size": 2, "tolerance_change": 1e-4}),
    ("rosenbrock", {"lr": 0.02, "max_iter": 3, "max_eval": 2}),
    ("least_squares", {}),
    ("least_squares", {"lr": 0.5, "history_size": 4, "max_iter": 5}),
    ("least_squares", {"line_search_fn": "strong_wolfe"}),
    ("least_squares", {"line_search_fn": "strong_wolfe", "tolerance_grad": 1e-3,
                       "history_size": 2}),
]


STEPS = {2: 3, 4: 3}


def _id(case):
    problem, kw = case
    return problem + "-" + "-".join(f"{k}={v}" for k, v in kw.items())


@needs_torch
@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_iterates_match_torch_float64(case):
    problem, kw = case
    steps = STEPS.get(CASES.index(case), 6)
    ours, _, _ = trajectory("pyth", problem, kw, steps=steps)
    ref, _, _ = trajectory("torch", problem, kw, steps=steps)
    assert np.abs(ref[-1, 1:-3] - ref[0, 1:-3]).max() > 1e-3 or ref[0, 0] > ref[-1, 0]
    np.testing.assert_array_equal(ours[:, -3:], ref[:, -3:])  # the same evaluations
    np.testing.assert_allclose(ours, ref, rtol=1e-9, atol=1e-9)


@needs_torch
@pytest.mark.parametrize("case", CASES[1::2], ids=[_id(c) for c in CASES[1::2]])
def test_iterates_match_torch_float32(case):
    problem, kw = case
    ours, _, _ = trajectory("pyth", problem, kw, steps=1, dtype="float32")
    ref, _, _ = trajectory("torch", problem, kw, steps=1, dtype="float32")
    np.testing.assert_allclose(ours, ref, rtol=1e-3, atol=1e-4)


@needs_torch
def test_rosenbrock_converges_to_its_minimum():
    ours, _, _ = trajectory("pyth", "rosenbrock", {"line_search_fn": "strong_wolfe"}, steps=10)
    np.testing.assert_allclose(ours[-1, 1:3], [1.0, 1.0], atol=1e-4)
    assert ours[-1, 0] < 1e-9


@needs_torch
def test_least_squares_reaches_the_normal_equations_solution():
    ours, _, (w, b) = trajectory("pyth", "least_squares", {"line_search_fn": "strong_wolfe"},
                                 steps=5)
    a = np.hstack([X, np.ones((20, 1))])
    sol = np.linalg.lstsq(a, Y, rcond=None)[0]
    np.testing.assert_allclose(w.detach().numpy(), sol[:4], atol=1e-4)
    np.testing.assert_allclose(b.detach().numpy(), sol[4], atol=1e-4)


@needs_torch
@pytest.mark.parametrize("case", [CASES[1], CASES[7]], ids=_id)
@pytest.mark.parametrize("direction", ["torch_to_pyth", "pyth_to_torch"])
def test_state_dict_moves_between_libraries(case, direction):
    problem, kw = case
    src, dst = direction.split("_to_")
    full, _, _ = trajectory(dst, problem, kw, steps=5)
    _, opt, params = trajectory(src, problem, kw, steps=2)
    sd = opt.state_dict()
    state = sd["state"][0]
    assert sorted(state) == ["H_diag", "al", "d", "func_evals", "n_iter", "old_dirs",
                             "old_stps", "prev_flat_grad", "prev_loss", "ro", "t"]
    lib = LIBS[dst]
    params2 = [lib.tensor(p.detach().numpy().copy(), requires_grad=True) for p in params]
    opt2 = lib.optim.LBFGS(params2, **kw)
    opt2.load_state_dict(to_lib(copy.deepcopy(sd), lib))
    rest, _, _ = trajectory(dst, problem, kw, steps=3, params=params2, opt=opt2)
    np.testing.assert_allclose(rest[:, :-3], full[2:, :-3], rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(rest[:, -2:], full[2:, -2:])  # func_evals, n_iter go on


@needs_torch
def test_state_dict_layout_matches_torch():
    _, opt, _ = trajectory("pyth", "least_squares", {"history_size": 3}, steps=2)
    _, topt, _ = trajectory("torch", "least_squares", {"history_size": 3}, steps=2)
    sd, tsd = opt.state_dict(), topt.state_dict()
    assert sd["param_groups"] == tsd["param_groups"]
    s, ts = sd["state"][0], tsd["state"][0]
    assert sorted(s) == sorted(ts) and list(sd["state"]) == list(tsd["state"]) == [0]
    assert len(s["old_dirs"]) == len(ts["old_dirs"]) == 3 and len(s["al"]) == 3
    for k in ("d", "prev_flat_grad"):
        assert s[k].dtype is pyth.float64
        np.testing.assert_allclose(s[k].numpy(), ts[k].numpy(), rtol=1e-9, atol=1e-12)
    assert s["func_evals"] == ts["func_evals"] and s["n_iter"] == ts["n_iter"]
    np.testing.assert_allclose(float(s["H_diag"]), float(ts["H_diag"]), rtol=1e-9)


def test_gradient_already_small_returns_at_once():
    p = pyth.tensor([1.0, 1.0], dtype=pyth.float64, requires_grad=True)
    opt = optim.LBFGS([p])
    calls: list = []
    loss = opt.step(closure_for(pyth, "rosenbrock", opt, [p], calls))
    assert float(loss) == 0.0 and len(calls) == 1
    assert p.detach().numpy().tolist() == [1.0, 1.0]
    assert opt.state[p]["func_evals"] == 1 and opt.state[p]["n_iter"] == 0


def test_defaults_and_errors():
    p = pyth.zeros(2, requires_grad=True)
    opt = optim.LBFGS([p], max_iter=8)
    g = opt.param_groups[0]
    assert g["max_eval"] == 10 and g["lr"] == 1 and g["history_size"] == 100
    assert g["tolerance_grad"] == 1e-7 and g["tolerance_change"] == 1e-9
    assert g["line_search_fn"] is None
    with pytest.raises(ValueError, match=r"LBFGS doesn't support per-parameter options "
                                         r"\(parameter groups\)"):
        optim.LBFGS([{"params": [p]}, {"params": [pyth.zeros(1, requires_grad=True)]}])
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        optim.LBFGS([p], lr=-1)
    bad = optim.LBFGS([p], line_search_fn="armijo")

    def closure():
        bad.zero_grad()
        loss = ((p - 1) ** 2).sum()
        loss.backward()
        return loss
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        bad.step(closure)
    with pytest.raises(TypeError):
        opt.step()  # a closure is required
    if torch is not None:
        t = torch.zeros(2, requires_grad=True)
        with pytest.raises(ValueError, match="Invalid learning rate: -1"):
            torch.optim.LBFGS([t], lr=-1)
