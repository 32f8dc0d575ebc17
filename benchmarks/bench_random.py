"""rand / randn throughput: 10M float32 samples, pyth vs numpy vs PyTorch, in one process.

Each case is timed `--repeat` times (after one warm-up call) and the median reported, with the
ratio of pyth's median to each competitor's (below 1: pyth is faster). numpy is measured twice:
its legacy RandomState (the same Mersenne Twister as pyth; float64 only, then cast) and its
default Generator (PCG64, which draws float32 directly). PyTorch runs with one thread, like pyth's
samplers (their draws must not depend on the thread count).

    python benchmarks/bench_random.py [--n 10000000] [--repeat 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from typing import Callable

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the checkout
import pyth  # noqa: E402

try:
    import torch
except ImportError:  # pragma: no cover - optional
    torch = None


def median_ms(fn: Callable[[], object], repeat: int) -> float:
    """Median wall time of fn() in milliseconds, after one warm-up call."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def cases(n: int) -> dict[str, dict[str, Callable[[], object]]]:
    """For rand and randn: the competitors' calls producing n float32 samples."""
    g = pyth.Generator().manual_seed(0)
    rs = np.random.RandomState(0)
    rng = np.random.default_rng(0)
    out: dict[str, dict[str, Callable[[], object]]] = {
        "rand": {
            "pyth": lambda: pyth.rand(n, generator=g),
            "numpy RandomState": lambda: rs.random_sample(n).astype(np.float32),
            "numpy Generator": lambda: rng.random(n, dtype=np.float32),
        },
        "randn": {
            "pyth": lambda: pyth.randn(n, generator=g),
            "numpy RandomState": lambda: rs.standard_normal(n).astype(np.float32),
            "numpy Generator": lambda: rng.standard_normal(n, dtype=np.float32),
        },
    }
    if torch is not None:
        tg = torch.Generator().manual_seed(0)
        out["rand"]["torch"] = lambda: torch.rand(n, generator=tg)
        out["randn"]["torch"] = lambda: torch.randn(n, generator=tg)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    if torch is not None:
        torch.set_num_threads(1)
    print(f"{args.n:,} float32 samples, median of {args.repeat} runs "
          f"(ratio = pyth time / other time)")
    for op, competitors in cases(args.n).items():
        times = {name: median_ms(fn, args.repeat) for name, fn in competitors.items()}
        print(f"\n{op}:")
        for name, ms in times.items():
            ratio = "" if name == "pyth" else f"   ratio {times['pyth'] / ms:5.2f}"
            rate = args.n / ms / 1e3
            print(f"  {name:<18} {ms:9.1f} ms  {rate:8.1f} M/s{ratio}")


if __name__ == "__main__":
    main()
