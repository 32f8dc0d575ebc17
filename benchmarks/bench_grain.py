"""Where a second thread starts to pay: each op timed on 1 thread and on 2, over sizes.

pyth runs an op on a thread team only above a grain size (elements, weighted by the op's cost:
lib/THTensorApply.c). This sweep measures, for cheap (add), moderate (A + A.T, sum) and costly
(exp, tanh) ops, the per-call time with the grain forced to 1 (always 2 threads) and to
infinity (always 1 thread), and with the grain in force ("chosen"): the smallest size where 2
threads win by 10 % shows where the grain should sit, and chosen / best shows what the current
grain costs at each size (1.00: it picked the faster side).

    python benchmarks/bench_grain.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import pyth
except ImportError:  # working in the tree: use the in-place build
    sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import pyth

from pyth._th import lib  # noqa: E402

OPS = {
    "add f32": lambda x: x + x,
    "add f64": lambda x: x + x,
    "exp f32": lambda x: x.exp(),
    "tanh f32": lambda x: x.tanh(),
    "sum f32": lambda x: x.sum(),
    "A + A.T f32": lambda x: x + x.t(),
}
DTYPES = {"f32": pyth.float32, "f64": pyth.float64}


def per_call(fn, x, target: float = 0.02, rounds: int = 5) -> float:
    fn(x)
    n, dt = 1, 0.0
    while dt < target / 4:
        t0 = time.perf_counter()
        for _ in range(n):
            fn(x)
        dt = time.perf_counter() - t0
        n *= 2
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            fn(x)
        samples.append((time.perf_counter() - t0) / n)
    return statistics.median(samples)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    sizes = [1 << k for k in range(10, 21 if args.quick else 23)]
    old = lib.THGetGrainSize()
    print(f"threads available: {lib.THGetNumThreads()}, current grain: {old}")
    print(f"{'op':<14}{'elements':>10}{'1 thread':>12}{'2 threads':>12}{'speedup':>9}"
          f"{'chosen':>12}{'chosen/best':>13}")
    worst = 1.0
    try:
        for name, fn in OPS.items():
            dt = DTYPES[name.split()[-1]]
            first = None
            for n in sizes:
                side = int(n ** 0.5)
                shape = (side, side) if "A.T" in name else (n,)
                x = pyth.rand(*shape, dtype=dt) + 0.5
                lib.THSetGrainSize(1 << 62)
                t1 = per_call(fn, x)
                lib.THSetGrainSize(1)
                t2 = per_call(fn, x)
                lib.THSetGrainSize(old)
                tc = per_call(fn, x)
                worst = max(worst, tc / min(t1, t2))
                print(f"{name:<14}{x.numel():>10}{t1 * 1e6:>10.1f}us{t2 * 1e6:>10.1f}us"
                      f"{t1 / t2:>9.2f}{tc * 1e6:>10.1f}us{tc / min(t1, t2):>13.2f}", flush=True)
                if first is None and t1 / t2 >= 1.1:
                    first = x.numel()
            print(f"-> {name}: 2 threads win from {first} elements\n")
        print(f"worst chosen/best over all sizes: {worst:.2f}")
    finally:
        lib.THSetGrainSize(old)


if __name__ == "__main__":
    main()
