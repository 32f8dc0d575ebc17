"""Side-by-side timing: pyth, numpy and PyTorch run the same case in one process.

Each case gives one callable per library. Rounds interleave the libraries (so drift in clock
speed or load hits all of them alike); each round times a batch of calls; the median over rounds
is reported, with ratios against pyth (ratio > 1 means the other library is slower).
"""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import dataclass, field
from typing import Callable

try:
    import torch
except ImportError:  # the suite runs without PyTorch; its column is then empty
    torch = None


@dataclass
class Case:
    name: str
    fns: dict[str, Callable[[], object]]   # library -> zero-argument callable
    group: str = ""
    results: dict[str, float] = field(default_factory=dict)  # library -> median seconds


def _batch_size(fn: Callable[[], object], target: float) -> int:
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt >= target or n >= 1 << 20:
            return max(1, int(n * target / max(dt, 1e-9)))
        n *= 4


# After a batch, each library's worker threads keep spinning for a while before they sleep
# (OpenBLAS's pthreads for about 2^28 cycles, ~0.1 s; OpenMP pools for less): on a 2-core machine
# they would steal a core from the next library's batch. A pause between batches lets them park.
SETTLE = 0.12


def run_case(case: Case, rounds: int, target: float, settle: float = SETTLE) -> Case:
    """Times every library's callable: `rounds` interleaved rounds of ~target seconds each."""
    batches = {lib: _batch_size(fn, target) for lib, fn in case.fns.items()}
    samples: dict[str, list[float]] = {lib: [] for lib in case.fns}
    for _ in range(rounds):
        for lib, fn in case.fns.items():
            n = batches[lib]
            time.sleep(settle)
            for _ in range(max(1, n // 4)):  # untimed: wake this library's threads and the cores
                fn()
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            samples[lib].append((time.perf_counter() - t0) / n)
    case.results = {lib: statistics.median(s) for lib, s in samples.items()}
    return case


def _fmt_time(s: float) -> str:
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6)):
        if s >= scale:
            return f"{s / scale:7.2f} {unit}"
    return f"{s / 1e-9:7.1f} ns"


def report(cases: list[Case], title: str) -> str:
    """A plain-text table: times per library and ratios other/pyth."""
    libs = ["pyth", "numpy", "torch"]
    lines = [title, f"{'case':<38}" + "".join(f"{lib:>12}" for lib in libs)
             + f"{'numpy/pyth':>12}{'torch/pyth':>12}"]
    for c in cases:
        r = c.results
        row = f"{c.name:<38}" + "".join(f"{_fmt_time(r[lib]) if lib in r else '-':>12}"
                                         for lib in libs)
        for other in ("numpy", "torch"):
            row += f"{r[other] / r['pyth']:>12.2f}" if other in r and "pyth" in r else f"{'-':>12}"
        lines.append(row)
    return "\n".join(lines)


def to_json(cases: list[Case]) -> list[dict]:
    return [{"name": c.name, "group": c.group, "seconds": c.results} for c in cases]


def save(cases: list[Case], path: str) -> None:
    with open(path, "w") as f:
        json.dump(to_json(cases), f, indent=1)
