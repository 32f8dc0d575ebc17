"""Gradient fuzzing: hypothesis draws random programs (pointwise ops, broadcasting, views,
in-place ops on non-leaves, indexing, reductions, matmul, layers) over random shapes and float64
values; the program runs on pyth and on PyTorch (when installed) and the gradients of every
leaf must agree, and pyth's must pass gradcheck (finite differences) always.

A program is a list of steps; each step is an entry of STEPS: a name, whether it applies to the
current tensor's shape, and a function (lib, c, draw) -> new c that uses only calls pyth and
PyTorch spell alike. Binary steps draw a new leaf whose shape broadcasts against c, so leaves
with size-1 dims check that gradients are reduced back to each input's shape.

Profiles (tests/conftest.py): ci runs 5 families x 5 x 100 = 2,500 programs; long 10x; san a
quarter.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pyth
from pyth.autograd import gradcheck

try:
    import torch
except ImportError:  # gradcheck alone is then the oracle
    torch = None

MAX_ELEMENTS = 24  # keeps gradcheck's 2 forwards per input element cheap


class Program:
    """What a drawn program needs: a source of draws and the leaves' values, recorded so the
    same program replays on pyth and on PyTorch."""

    def __init__(self, data: Any) -> None:
        self.data = data
        self.leaves: list[np.ndarray] = []
        self.steps: list[tuple[str, dict]] = []

    def int(self, lo: int, hi: int) -> int:
        return self.data.draw(st.integers(lo, hi))

    def leaf(self, shape: tuple) -> int:
        n = int(np.prod(shape, dtype=np.int64))
        vals = self.data.draw(st.lists(st.floats(-2, 2, allow_nan=False, width=64),
                                       min_size=n, max_size=n))
        # nudge away from 0 and from each other: kinks (abs, max) and ties are not smooth
        arr = np.asarray(vals, dtype=np.float64).reshape(shape)
        arr = (arr + np.sign(arr + 1e-3) * 0.05 + np.arange(n).reshape(shape) * 1e-3
               + len(self.leaves) * 0.0137)
        # then each value's rank in 1e-4 steps: no two values closer than that, whatever was
        # drawn (0.001 drawn beside 0 once made a tie of the two steps above)
        ranks = np.empty(n)
        ranks[np.argsort(arr, axis=None, kind="stable")] = np.arange(n)
        arr = arr + ranks.reshape(shape) * 1e-4
        self.leaves.append(arr)
        return len(self.leaves) - 1


def _broadcast_shape(p: Program, shape: tuple) -> tuple:
    """A shape that broadcasts to `shape`: some dims 1, maybe fewer leading dims."""
    drop = p.int(0, len(shape))
    out = [1 if p.int(0, 2) == 0 else s for s in shape[drop:]]
    return tuple(out)


# ---- the steps --------------------------------------------------------------------------------
# plan(p, shape) -> params (or None when the step does not fit); apply(lib, c, params, leaves)

def _unary(fn: Callable) -> tuple:
    return (lambda p, shape: {}), (lambda lib, c, prm, L: fn(c))


POINTWISE = {
    "tanh": _unary(lambda c: c.tanh()),
    "sigmoid": _unary(lambda c: c.sigmoid()),
    "sin": _unary(lambda c: c.sin()),
    # ops that grow their input see it squashed by tanh first: finite differences lose their
    # accuracy on values in the millions, and PyTorch is compared on every program anyway
    "exp": _unary(lambda c: c.tanh().exp()),
    "square": _unary(lambda c: (c.tanh() * 2) * (c.tanh() * 2)),
    "abs": _unary(lambda c: c.abs()),
    "log1p_sq": _unary(lambda c: (c * c).log1p()),
    "sqrt": _unary(lambda c: (c * c + 0.5).sqrt()),
    "pow": _unary(lambda c: (c.tanh() * c.tanh() + 1).pow(1.5)),
    "rdiv": _unary(lambda c: c / (c * c + 1)),
    "atan": _unary(lambda c: c.atan()),
    "erf": _unary(lambda c: c.erf()),
    "clamp": _unary(lambda c: c.clamp(-1.5, 1.5)),
}


def _binary_plan(p: Program, shape: tuple) -> dict:
    return {"leaf": p.leaf(_broadcast_shape(p, shape))}


BINARY = {
    "add": (_binary_plan, lambda lib, c, prm, L: c + L[prm["leaf"]]),
    "mul": (_binary_plan, lambda lib, c, prm, L: c * L[prm["leaf"]]),
    "sub": (_binary_plan, lambda lib, c, prm, L: L[prm["leaf"]] - c),
    "div": (_binary_plan, lambda lib, c, prm, L: c / (L[prm["leaf"]] * L[prm["leaf"]] + 1)),
    "maximum": (_binary_plan, lambda lib, c, prm, L: lib.maximum(c, L[prm["leaf"]])),
    "atan2": (_binary_plan, lambda lib, c, prm, L: lib.atan2(c, L[prm["leaf"]] * 0 + 1.5)),
    "where": (_binary_plan, lambda lib, c, prm, L: lib.where(c > 0, c, L[prm["leaf"]])),
    "lerp": (_binary_plan, lambda lib, c, prm, L: lib.lerp(c, L[prm["leaf"]], 0.3)),
}


def _dim(p: Program, shape: tuple) -> int:
    return p.int(0, len(shape) - 1)


def _plan_transpose(p, shape):
    return {"a": _dim(p, shape), "b": _dim(p, shape)} if len(shape) >= 2 else None


def _plan_narrow(p, shape):
    d = _dim(p, shape)
    if shape[d] < 2:
        return None
    start = p.int(0, shape[d] - 1)
    return {"d": d, "start": start, "len": p.int(1, shape[d] - start)}


def _plan_expand(p, shape):
    if len(shape) >= 4:
        return None
    d, k = p.int(0, len(shape)), p.int(1, 3)
    if int(np.prod(shape)) * k > MAX_ELEMENTS * 2:
        return None
    return {"d": d, "k": k}


def _apply_expand(lib, c, prm, L):
    u = c.unsqueeze(prm["d"])
    size = list(u.shape)
    size[prm["d"]] = prm["k"]
    return u.expand(*size)


def _plan_permute(p, shape):
    perm = p.data.draw(st.permutations(range(len(shape))))
    return {"perm": list(perm)}


def _plan_select(p, shape):
    if len(shape) < 2:
        return None
    d = _dim(p, shape)
    return {"d": d, "i": p.int(0, shape[d] - 1)}


def _plan_step_slice(p, shape):
    d = _dim(p, shape)
    return {"d": d, "step": p.int(1, 3)}


def _apply_step_slice(lib, c, prm, L):
    idx = [slice(None)] * c.dim()
    idx[prm["d"]] = slice(None, None, prm["step"])
    return c[tuple(idx)]


def _plan_reshape(p, shape):
    n = int(np.prod(shape))
    divisors = [k for k in range(1, n + 1) if n % k == 0]
    k = p.data.draw(st.sampled_from(divisors)) if divisors else 1
    return {"shape": (k, n // k) if n else (0,)}


VIEWS = {
    "transpose": (_plan_transpose, lambda lib, c, prm, L: c.transpose(prm["a"], prm["b"])),
    "narrow": (_plan_narrow, lambda lib, c, prm, L: c.narrow(prm["d"], prm["start"],
                                                             prm["len"])),
    "expand": (_plan_expand, _apply_expand),
    "permute": (_plan_permute, lambda lib, c, prm, L: c.permute(*prm["perm"])),
    "select": (_plan_select, lambda lib, c, prm, L: c.select(prm["d"], prm["i"])),
    "step_slice": (_plan_step_slice, _apply_step_slice),
    "reshape": (_plan_reshape, lambda lib, c, prm, L: c.reshape(*prm["shape"])),
    "flip": (lambda p, shape: {"d": _dim(p, shape)},
             lambda lib, c, prm, L: c.flip(prm["d"])),
    "unsqueeze_squeeze": (lambda p, shape: {"d": _dim(p, shape)},
                          lambda lib, c, prm, L: c.unsqueeze(prm["d"]).squeeze(prm["d"])),
}


def _plan_inplace(p, shape):
    return {"kind": p.int(0, 4), "leaf": p.leaf(_broadcast_shape(p, shape))}


def _apply_inplace(lib, c, prm, L):
    y = c * 1.0  # a non-leaf that owns its storage: in-place ops on it are recorded
    k = prm["kind"]
    if k == 0:
        y.mul_(L[prm["leaf"]])
    elif k == 1:
        y.add_(L[prm["leaf"]], alpha=2.0)
    elif k == 2:  # through a view of y
        y.select(0, 0).mul_(3.0)
    elif k == 3:  # masked assignment
        y[y > 0.5] = 0.25
    else:  # an in-place op whose output the next op saves
        y.tanh_()
    return y


def _plan_inplace_saved(p, shape):
    return {}


def _apply_inplace_saved(lib, c, prm, L):
    """Modifies a tensor that a node saved: both libraries must refuse in backward."""
    y = c * 1.0
    z = y.exp()          # exp saves its result z
    z.add_(1.0)          # ... which this bumps: backward must raise
    return z


INPLACE = {"inplace": (_plan_inplace, _apply_inplace)}


def _plan_gather(p, shape):
    d = _dim(p, shape)
    if shape[d] == 0:
        return None
    n = p.int(1, 4)
    return {"d": d, "idx": [p.int(0, shape[d] - 1) for _ in range(n)]}


def _apply_index_select(lib, c, prm, L):
    return c.index_select(prm["d"], lib.tensor(prm["idx"], dtype=lib.int64))


def _apply_advanced(lib, c, prm, L):
    idx = [slice(None)] * c.dim()
    idx[prm["d"]] = lib.tensor(prm["idx"], dtype=lib.int64)
    return c[tuple(idx)]


def _apply_gather(lib, c, prm, L):
    d, n = prm["d"], len(prm["idx"])
    view = [n if i == d else 1 for i in range(c.dim())]
    size = [n if i == d else s for i, s in enumerate(c.shape)]
    return c.gather(d, lib.tensor(prm["idx"], dtype=lib.int64).reshape(*view).expand(*size))


INDEXING = {
    "index_select": (_plan_gather, _apply_index_select),
    "advanced": (_plan_gather, _apply_advanced),
    # the threshold sits above rounding noise: var of equal values is 0 in PyTorch (Welford)
    # and may be ~1e-34 in pyth (two passes in double), which `> 0` would tell apart
    "mask": ((lambda p, shape: {}), lambda lib, c, prm, L: c[c > 1e-9] * 2),
    "gather": (_plan_gather, _apply_gather),
}


def _plan_reduce(p, shape):
    return {"d": _dim(p, shape), "keep": bool(p.int(0, 1))}


def _plan_reduce_multi(p, shape):
    if len(shape) < 2:
        return None
    return {"d": _dim(p, shape), "keep": bool(p.int(0, 1))}


REDUCTIONS = {
    "sum": (_plan_reduce, lambda lib, c, prm, L: c.sum(prm["d"], keepdim=prm["keep"])),
    "mean": (_plan_reduce, lambda lib, c, prm, L: c.mean(prm["d"], keepdim=prm["keep"])),
    "prod": (_plan_reduce, lambda lib, c, prm, L: c.prod(prm["d"], keepdim=prm["keep"])),
    "amax": (_plan_reduce, lambda lib, c, prm, L: c.amax(prm["d"], keepdim=prm["keep"])),
    "logsumexp": (_plan_reduce, lambda lib, c, prm, L: c.logsumexp(prm["d"],
                                                                   keepdim=prm["keep"])),
    "norm": (_plan_reduce, lambda lib, c, prm, L: (c * c + 0.1).norm(dim=prm["d"],
                                                                     keepdim=prm["keep"])),
    "var": (_plan_reduce, lambda lib, c, prm, L: c.var(prm["d"], keepdim=prm["keep"])
            if c.shape[prm["d"]] > 1 else c * 1.0),
    "cumsum": (_plan_reduce, lambda lib, c, prm, L: c.cumsum(prm["d"])),
    "softmax": (_plan_reduce, lambda lib, c, prm, L: c.softmax(prm["d"])),
}


def _plan_matmul(p, shape):
    if not shape or int(np.prod(shape)) == 0:
        return None
    k = shape[-1]
    return {"leaf": p.leaf((k, p.int(1, 3)))}


def _apply_matmul(lib, c, prm, L):
    return c.matmul(L[prm["leaf"]])


def _plan_bmm(p, shape):
    if len(shape) != 3:
        return None
    return {"leaf": p.leaf((shape[0], shape[2], p.int(1, 3)))}


MATMUL = {
    "matmul": (_plan_matmul, _apply_matmul),
    "bmm": (_plan_bmm, lambda lib, c, prm, L: lib.bmm(c, L[prm["leaf"]])),
    "mv": (lambda p, shape: {"leaf": p.leaf((shape[-1],))} if len(shape) == 2 else None,
           lambda lib, c, prm, L: lib.mv(c, L[prm["leaf"]])),
    "outer": (lambda p, shape: {"leaf": p.leaf((p.int(1, 3),))} if len(shape) == 1 else None,
              lambda lib, c, prm, L: lib.outer(c, L[prm["leaf"]])),
}

def _plan_linear(p, shape):
    return {"w": p.leaf((p.int(1, 3), shape[-1])), "b": p.leaf((1,)) if p.int(0, 1) else None}


def _apply_linear(lib, c, prm, L):
    w = L[prm["w"]]
    b = L[prm["b"]].expand(w.shape[0]) if prm["b"] is not None else None
    return lib.nn.functional.linear(c, w, b)


def _plan_layer_norm(p, shape):
    if shape[-1] < 2:
        return None
    return {"w": p.leaf((shape[-1],)), "b": p.leaf((shape[-1],))}


def _plan_conv1d(p, shape):
    if len(shape) != 3 or shape[2] < 2:
        return None
    k = p.int(1, min(3, shape[2]))
    return {"w": p.leaf((p.int(1, 2), shape[1], k)), "pad": p.int(0, k // 2),
            "stride": p.int(1, 2)}


def _apply_conv1d(lib, c, prm, L):
    return lib.nn.functional.conv1d(c, L[prm["w"]], padding=prm["pad"], stride=prm["stride"])


def _activation(name: str, **kw):
    return ((lambda p, shape: {}),
            lambda lib, c, prm, L: getattr(lib.nn.functional, name)(c, **kw))


LAYERS = {
    "linear": (_plan_linear, _apply_linear),
    "layer_norm": (_plan_layer_norm, lambda lib, c, prm, L: lib.nn.functional.layer_norm(
        c, (c.shape[-1],), L[prm["w"]], L[prm["b"]])),
    "conv1d": (_plan_conv1d, _apply_conv1d),
    "log_softmax": (lambda p, shape: {"d": _dim(p, shape)},
                    lambda lib, c, prm, L: lib.nn.functional.log_softmax(c, prm["d"])),
    "gelu": _activation("gelu"),
    "gelu_tanh": _activation("gelu", approximate="tanh"),
    "silu": _activation("silu"),
    "elu": _activation("elu", alpha=0.7),
    "softplus": _activation("softplus", beta=2.0),
    "leaky_relu": _activation("leaky_relu", negative_slope=0.1),
    "relu": _activation("relu"),
}

FAMILIES = {
    "pointwise_broadcast": {**POINTWISE, **BINARY},
    "views_inplace": {**VIEWS, **INPLACE, **POINTWISE},
    "indexing_reductions": {**INDEXING, **REDUCTIONS, **VIEWS},
    "matmul_mixed": {**MATMUL, **BINARY, **REDUCTIONS, **VIEWS},
    "layers": {**LAYERS, **VIEWS, **BINARY},
}
ALL_STEPS = {k: v for fam in FAMILIES.values() for k, v in fam.items()}
ALL_STEPS["inplace_saved"] = (_plan_inplace_saved, _apply_inplace_saved)


# ---- running a program ------------------------------------------------------------------------

def _replay(lib, prog: Program, weights: np.ndarray | None = None):
    """Leaves (requiring grad) and the program's output on `lib`."""
    leaves = [lib.tensor(a.tolist(), dtype=lib.float64).requires_grad_() for a in prog.leaves]
    c = leaves[0]
    for name, prm in prog.steps:
        c = ALL_STEPS[name][1](lib, c, prm, leaves)
    return leaves, c


def _loss(lib, c, weights: np.ndarray):
    return (c * lib.tensor(weights.tolist(), dtype=lib.float64)).sum()


def _draw_program(data: Any, family: str) -> tuple[Program, tuple]:
    prog = Program(data)
    ndim = prog.int(1, 3)
    shape = tuple(prog.int(1, 3) for _ in range(ndim))
    prog.leaf(shape)
    steps = FAMILIES[family]
    names = sorted(steps)
    for _ in range(prog.int(1, 5)):
        name = data.draw(st.sampled_from(names))
        prm = steps[name][0](prog, shape)
        if prm is None:
            continue
        try:
            _, c = _replay(pyth, _Shadow(prog, name, prm))
        except (RuntimeError, IndexError):  # e.g. amax over a dim a mask emptied
            continue
        # empty results end the interesting part (reductions over them are -inf or refused)
        if c.numel() > MAX_ELEMENTS * 2 or c.dim() == 0 or c.numel() == 0:
            continue
        prog.steps.append((name, prm))
        shape = tuple(c.shape)
    return prog, shape


class _Shadow:
    """The program with one more step, for finding the shape it makes."""

    def __init__(self, prog: Program, name: str, prm: dict) -> None:
        self.leaves, self.steps = prog.leaves, prog.steps + [(name, prm)]


def _check(prog: Program, shape: tuple) -> None:
    weights = np.linspace(-1.0, 1.3, int(np.prod(shape))).reshape(shape)
    leaves, c = _replay(pyth, prog)
    p_err = t_err = None
    try:
        _loss(pyth, c, weights).backward()
    except RuntimeError as e:
        p_err = e
    if torch is not None:
        tleaves, tc = _replay(torch, prog)
        np.testing.assert_allclose(c.detach().numpy(), tc.detach().numpy(), rtol=1e-10,
                                   atol=1e-12, err_msg=f"forward of {prog.steps}")
        try:
            _loss(torch, tc, weights).backward()
        except RuntimeError as e:
            t_err = e
        assert (p_err is None) == (t_err is None), \
            f"{prog.steps}: pyth raised {p_err!r}, torch raised {t_err!r}"
        if p_err is None:
            for i, (pl, tl) in enumerate(zip(leaves, tleaves)):
                pg = pl.grad.numpy() if pl.grad is not None else np.zeros(pl.shape)
                tg = tl.grad.numpy() if tl.grad is not None else np.zeros(tuple(tl.shape))
                np.testing.assert_allclose(pg, tg, rtol=1e-8, atol=1e-10,
                                           err_msg=f"leaf {i} of {prog.steps}")
    if p_err is not None:
        return

    def fn(*xs):
        c = xs[0]
        for name, prm in prog.steps:
            c = ALL_STEPS[name][1](pyth, c, prm, list(xs))
        return _loss(pyth, c, weights)

    inputs = [pyth.tensor(a.tolist(), dtype=pyth.float64).requires_grad_() for a in prog.leaves]
    if gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=False):
        return
    # a mismatch counts where the function is smooth; two values that an earlier step brought
    # within eps of each other (a max over a var, ...) put a kink inside the finite difference
    if _kink_within(fn, prog.leaves, 1e-6):
        return
    assert gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3), prog.steps


def _grads(fn: Any, arrays: list) -> list:
    xs = [pyth.tensor(a.tolist(), dtype=pyth.float64).requires_grad_() for a in arrays]
    fn(*xs).backward()
    return [x.grad.numpy() if x.grad is not None else np.zeros(a.shape)
            for x, a in zip(xs, arrays)]


def _kink_within(fn: Any, arrays: list, eps: float) -> bool:
    """Whether the analytic gradient jumps when one input moves by +-eps: a kink (a max's
    argument switching, abs at 0) lies inside gradcheck's finite differences. A smooth
    function's gradient moves by about +-eps * its second derivative, so the two moves cancel
    to eps^2 in g(+eps) + g(-eps) - 2 g; across a kink one side jumps and the sum keeps the
    jump, however small the gradients are."""
    base = _grads(fn, arrays)
    for k, a in enumerate(arrays):
        for i in range(a.size):
            sides = []
            for step in (eps, -eps):
                moved = [b.copy() for b in arrays]
                moved[k].flat[i] += step
                sides.append(_grads(fn, moved))
            if any(not np.allclose(p + m, 2 * g, rtol=1e-6, atol=1e-8)
                   for g, p, m in zip(base, *sides)):
                return True
    return False


def test_kink_detector_tells_a_near_tie_from_a_wrong_formula():
    """The gradient fuzz's excuse for a gradcheck mismatch holds for a kink alone."""
    near_tie = [np.array([1.0, 1.0 + 1e-7, 0.5])]
    assert not gradcheck(lambda x: x.amax(), [pyth.tensor(near_tie[0].tolist(),
                                                          dtype=pyth.float64,
                                                          requires_grad=True)],
                         eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=False)
    assert _kink_within(lambda x: x.amax(), near_tie, 1e-6)
    # a near tie whose gradients are small (a max of variances of close values), as the fuzz
    # found: the jump is 3e-4, above gradcheck's tolerance
    assert _kink_within(lambda x: 3e-4 * x.amax(), near_tie, 1e-6)
    apart = [np.array([1.0, 1.5, 0.5])]
    assert not _kink_within(lambda x: x.amax(), apart, 1e-6)
    assert not _kink_within(lambda x: (x * x).exp().sum(), apart, 1e-6)   # smooth, curved


_EXAMPLES = max(1, settings.default.max_examples * 5)


@pytest.mark.parametrize("family", sorted(FAMILIES))
@settings(max_examples=_EXAMPLES)
@given(data=st.data())
def test_random_graph_gradients(family, data):
    prog, shape = _draw_program(data, family)
    _check(prog, shape)


@pytest.mark.skipif(torch is None, reason="compares the refusal with PyTorch's")
@settings(max_examples=max(1, settings.default.max_examples // 4))
@given(data=st.data())
def test_modified_saved_tensor_is_refused_like_pytorch(data):
    prog, _ = _draw_program(data, "pointwise_broadcast")
    prog.steps.append(("inplace_saved", {}))
    _, c = _replay(pyth, prog)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        c.sum().backward()
    _, tc = _replay(torch, prog)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        tc.sum().backward()
