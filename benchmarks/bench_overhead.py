"""Per-call overhead of everyday small calls: views, factories, joins, indexing, activations,
a small product and reading a value, on tensors of a few elements, where the time is the
library's own work around the C call (argument parsing, wrappers, autograd checks), not
arithmetic. pyth, numpy (where it has the call) and PyTorch side by side.

    python benchmarks/bench_overhead.py          # or benchmarks/run.py --only overhead
"""

from __future__ import annotations

import sys

import numpy as np
from harness import Case, report, run_case, torch

import pyth


def _fns(make) -> dict:
    """{library: callable} from make(lib, a, b, c): a (4, 8), b (10,), c (1, 8) of ones."""
    out = {}
    libs = {"pyth": pyth, "numpy": np, **({"torch": torch} if torch is not None else {})}
    for name, lib in libs.items():
        a, b, c = lib.ones((4, 8)), lib.ones(10), lib.ones((1, 8))
        fn = make(lib, a, b, c)
        if fn is not None:
            out[name] = fn
    return out


def _not_np(fn):
    """make() for calls numpy has no like of (or spells differently)."""
    return lambda lib, a, b, c: None if lib is np else fn(lib, a, b, c)


def _recorded(lib, b, custom: bool):
    """x * 2 on a tensor that requires grad, as the built-in op or as a custom Function of the
    same arithmetic: the cost of recording one node either way."""
    x = b.detach().requires_grad_()

    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2.0

        @staticmethod
        def backward(ctx, g):
            return g * 2.0

    keep = x * 1.0   # x's gradient accumulator stays alive, as in a training step
    if custom:
        return lambda: (keep, Double.apply(x))[1]
    return lambda: (keep, x * 2.0)[1]


CASES = {
    "x.T (4, 8)": lambda lib, a, b, c: lambda: a.T,
    "x.view(32)": _not_np(lambda lib, a, b, c: lambda: a.view(32)),
    "x.reshape(8, 4)": lambda lib, a, b, c: lambda: a.reshape(8, 4),
    "x.permute(1, 0)": _not_np(lambda lib, a, b, c: lambda: a.permute(1, 0)),
    "x.expand(4, 8)": _not_np(lambda lib, a, b, c: lambda: c.expand(4, 8)),
    "x.unsqueeze(0)": _not_np(lambda lib, a, b, c: lambda: b.unsqueeze(0)),
    "x[0]": lambda lib, a, b, c: lambda: a[0],
    "x[:, 1]": lambda lib, a, b, c: lambda: a[:, 1],
    "x[0].item()": lambda lib, a, b, c: lambda: b[0].item(),
    "x.shape": lambda lib, a, b, c: lambda: a.shape,
    "zeros(10)": lambda lib, a, b, c: lambda: lib.zeros(10),
    "empty(10)": lambda lib, a, b, c: lambda: lib.empty(10),
    "tensor([1.0, 2.0])": lambda lib, a, b, c: (
        (lambda: np.array([1.0, 2.0], dtype=np.float32)) if lib is np
        else (lambda: lib.tensor([1.0, 2.0]))),
    "cat([x, x])": lambda lib, a, b, c: (
        (lambda: np.concatenate([b, b])) if lib is np else (lambda: lib.cat([b, b]))),
    "stack([x, x])": lambda lib, a, b, c: lambda: lib.stack([b, b]),
    "x.relu()": _not_np(lambda lib, a, b, c: lambda: b.relu()),
    "relu(x)": _not_np(lambda lib, a, b, c: lambda: lib.relu(b)),
    "x @ x.T (4, 8)": lambda lib, a, b, c: lambda: a @ a.T,
    "x.contiguous()": _not_np(lambda lib, a, b, c: lambda: a.contiguous()),
    "x * 2 recorded": _not_np(lambda lib, a, b, c: _recorded(lib, b, False)),
    "Function.apply (x * 2)": _not_np(lambda lib, a, b, c: _recorded(lib, b, True)),
}


def cases(quick: bool = False) -> list[Case]:
    return [Case(name, _fns(make), "overhead") for name, make in CASES.items()]


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    done = [run_case(c, rounds=3 if quick else 9, target=0.02 if quick else 0.05, settle=0.01)
            for c in cases(quick)]
    print(report(done, "per-call overhead (10-element and (4, 8) tensors)"))
