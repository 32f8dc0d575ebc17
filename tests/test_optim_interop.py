"""Optimizer state dicts moved between pyth and PyTorch: a run started in one library
continues in the other (the state loaded with load_state_dict) along the trajectory of an
uninterrupted run, for every optimizer, in float64 and float32; the loaded state keeps
PyTorch's keys, counters stay 0-dim float32 tensors."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from _support import needs_torch, torch
from test_optim import loss_of, make

import pyth

LIBS = {"pyth": pyth, "torch": torch}
CASES = [
    ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True}),
    ("Adam", {"lr": 0.05, "amsgrad": True}),
    ("AdamW", {"lr": 0.05}),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01}),
    ("Adadelta", {"weight_decay": 0.1}),
    ("Adamax", {"lr": 0.05}),
    ("NAdam", {"lr": 0.05}),
    ("NAdam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.05, "betas": (0.9, 0.9)}),
    ("Rprop", {"lr": 0.05}),
    ("ASGD", {"lr": 0.05, "t0": 4}),
    ("Adafactor", {"lr": 0.05}),
]


def _id(case):
    name, kw = case
    return name + "-" + "-".join(f"{k}={v}" for k, v in kw.items())


def to_lib(obj, lib):
    """A state dict's tensors (of either library) as lib's tensors of the same dtype."""
    if isinstance(obj, (pyth.Tensor, torch.Tensor)):
        dt = str(obj.dtype).split(".")[-1]
        return lib.tensor(obj.detach().numpy().copy(), dtype=getattr(lib, dt))
    if isinstance(obj, dict):
        return {k: to_lib(v, lib) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_lib(v, lib) for v in obj)
    return obj


def steps(lib, opt, w, b, x, y, n):
    out = []
    for _ in range(n):
        opt.zero_grad()
        loss_of(lib, w, b, x, y).backward()
        opt.step()
        out.append(np.concatenate([w.detach().numpy().ravel(), b.detach().numpy().ravel()]))
    return np.array(out)


@needs_torch
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("direction", ["torch_to_pyth", "pyth_to_torch"])
@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_state_dict_continues_in_the_other_library(case, direction, dtype):
    name, kw = case
    src, dst = (LIBS[n] for n in direction.split("_to_"))
    w, b, x, y = make("torch" if dst is torch else "pyth", dtype)
    full = steps(dst, getattr(dst.optim, name)([w, b], **kw), w, b, x, y, 14)

    w, b, x, y = make("torch" if src is torch else "pyth", dtype)
    opt = getattr(src.optim, name)([w, b], **kw)
    steps(src, opt, w, b, x, y, 6)
    sd = to_lib(copy.deepcopy(opt.state_dict()), dst)
    w2, b2, x2, y2 = make("torch" if dst is torch else "pyth", dtype)
    with dst.no_grad():
        w2.copy_(dst.tensor(w.detach().numpy()))
        b2.copy_(dst.tensor(b.detach().numpy()))
    opt2 = getattr(dst.optim, name)([w2, b2], **kw)
    opt2.load_state_dict(sd)
    for p_src, p_dst in zip([w, b], [w2, b2]):
        s = opt2.state[p_dst]
        assert sorted(s) == sorted(opt.state[p_src])
        for key in ("step", "mu_product", "eta", "mu"):
            if key in s and dst is pyth:
                assert s[key].dtype is pyth.float32 and s[key].dim() == 0
    rest = steps(dst, opt2, w2, b2, x2, y2, 8)
    tol = {"float64": 1e-9, "float32": 2e-5}[dtype]
    np.testing.assert_allclose(rest, full[6:], rtol=tol, atol=tol)
