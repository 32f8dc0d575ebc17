"""Reductions side by side: pyth vs numpy vs PyTorch, in one process.

Each case runs its contenders in interleaved rounds (pyth, numpy, torch, pyth, ...) so that a
busy machine slows them alike; the table shows medians and the ratios pyth/numpy and
pyth/torch (below 1: pyth is faster). Big cases reduce a contiguous 4096x4096 float32 matrix
(whole, dim 0, dim 1); small ones a 10-element tensor, where the per-call overhead is what
counts.

    python benchmarks/bench_reductions.py [--rounds N] [--quick]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from typing import Callable

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import pyth  # the checkout's pyth, not an installed one

try:
    import torch
except ImportError:  # the table then has no torch column
    torch = None


def timeit(fn: Callable[[], object], number: int) -> float:
    """Seconds per call over `number` calls."""
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number


def cases(n: int) -> list:
    """(name, calls per round, pyth fn, numpy fn, torch fn or None)."""
    a = np.random.default_rng(0).standard_normal((n, n)).astype(np.float32)
    p = pyth.from_numpy(a)
    t = torch.from_numpy(a) if torch else None
    s = np.random.default_rng(1).standard_normal(10).astype(np.float32)
    ps = pyth.tensor(s)
    ts = torch.from_numpy(s) if torch else None
    big, small = 3, 2000
    out = [
        ("sum whole", big, lambda: p.sum(), lambda: a.sum(), lambda: t.sum()),
        ("sum dim 0", big, lambda: p.sum(0), lambda: a.sum(0), lambda: t.sum(0)),
        ("sum dim 1", big, lambda: p.sum(1), lambda: a.sum(1), lambda: t.sum(1)),
        ("mean whole", big, lambda: p.mean(), lambda: a.mean(), lambda: t.mean()),
        ("max whole", big, lambda: p.max(), lambda: a.max(), lambda: t.max()),
        ("max dim 1", big, lambda: p.max(1), lambda: (a.max(1), a.argmax(1)), lambda: t.max(1)),
        ("argmax whole", big, lambda: p.argmax(), lambda: a.argmax(), lambda: t.argmax()),
        ("var whole", big, lambda: p.var(), lambda: a.var(ddof=1), lambda: t.var()),
        ("var dim 0", big, lambda: p.var(0), lambda: a.var(0, ddof=1), lambda: t.var(0)),
        ("norm whole", big, lambda: p.norm(), lambda: np.linalg.norm(a), lambda: t.norm()),
        ("cumsum dim 1", big, lambda: p.cumsum(1), lambda: a.cumsum(1), lambda: t.cumsum(1)),
        ("sum small", small, lambda: ps.sum(), lambda: s.sum(), lambda: ts.sum()),
        ("sum small dim", small, lambda: ps.sum(0), lambda: s.sum(0), lambda: ts.sum(0)),
        ("max small", small, lambda: ps.max(), lambda: s.max(), lambda: ts.max()),
        ("argmax small", small, lambda: ps.argmax(), lambda: s.argmax(), lambda: ts.argmax()),
        ("mean small", small, lambda: ps.mean(), lambda: s.mean(), lambda: ts.mean()),
    ]
    if torch is None:
        out = [(name, k, f, g, None) for name, k, f, g, _ in out]
    return out


def fmt(seconds: float) -> str:
    return f"{seconds * 1e3:9.3f} ms" if seconds >= 1e-4 else f"{seconds * 1e6:9.2f} us"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--quick", action="store_true", help="5 rounds of a 1024^2 matrix")
    args = ap.parse_args()
    rounds, n = (5, 1024) if args.quick else (args.rounds, args.size)
    print(f"pyth {pyth.__version__}, numpy {np.__version__}, "
          f"torch {torch.__version__ if torch else 'absent'}; "
          f"threads: pyth {pyth._th.lib.THGetNumThreads()}"
          f"{', torch ' + str(torch.get_num_threads()) if torch else ''}; {n}x{n} float32, "
          f"{rounds} interleaved rounds, medians")
    print(f"{'case':15s} {'pyth':>12s} {'numpy':>12s} {'torch':>12s} "
          f"{'pyth/numpy':>11s} {'pyth/torch':>11s}")
    for name, number, fp, fn, ft in cases(n):
        contenders = [f for f in (fp, fn, ft) if f is not None]
        for f in contenders:
            f()  # warm up
        times: list[list[float]] = [[] for _ in contenders]
        for _ in range(rounds):
            for k, f in enumerate(contenders):
                times[k].append(timeit(f, number))
        med = [statistics.median(ts) for ts in times]
        tp, tn = med[0], med[1]
        tt = med[2] if ft is not None else float("nan")
        print(f"{name:15s} {fmt(tp):>12s} {fmt(tn):>12s} "
              f"{fmt(tt) if ft is not None else '-':>12s} {tp / tn:11.2f} {tp / tt:11.2f}")


if __name__ == "__main__":
    main()
