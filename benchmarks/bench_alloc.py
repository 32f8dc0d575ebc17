"""The two allocators behind default storages, side by side in one process:
python benchmarks/bench_alloc.py [--quick].

Each case runs under set_allocator("default") (64-byte aligned malloc) and
set_allocator("caching") (lib/THCachingAllocator.h) in interleaved rounds; the table gives
medians per call and default/caching (above 1: the cache is faster). PyTorch's CPU time for
the same Python-level case is printed for reference when it is installed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import pyth  # noqa: E402
import pyth.memory as memory  # noqa: E402
from pyth._th import lib  # noqa: E402
from harness import _batch_size  # noqa: E402

try:
    import torch
except ImportError:
    torch = None


def _storage(n: int):
    def run():
        lib.THFloatStorage_free(lib.THFloatStorage_newWithSize(n))
    return run


def cases() -> list[tuple[str, object, object]]:
    """(name, pyth callable, torch callable or None)."""
    rng = np.random.default_rng(0)
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    x10, y10 = pyth.tensor(f32(10)), pyth.tensor(f32(10))
    a, w1, b1 = pyth.tensor(f32(64, 128)), pyth.tensor(f32(128, 128)), pyth.tensor(f32(128))
    w2, b2 = pyth.tensor(f32(128, 128)), pyth.tensor(f32(128))
    m256, m1k = pyth.tensor(f32(256, 256)), pyth.tensor(f32(1024, 1024))
    m2k = pyth.tensor(f32(2048, 2048))
    out = [
        ("storage new+free 10 floats (C API)", _storage(10), None),
        ("storage new+free 64K floats (256 KiB)", _storage(1 << 16), None),
        ("storage new+free 1M floats (4 MiB)", _storage(1 << 20), None),
        ("storage new+free 4M floats (16 MiB)", _storage(1 << 22), None),
        ("pyth.empty(10) (create + free)", lambda: pyth.empty(10),
         (lambda: torch.empty(10)) if torch else None),
        ("x + y, 10 elements", lambda: x10 + y10, None),
        ("64x128 @ 128x128 + b, twice (chain)", lambda: (a @ w1 + b1) @ w2 + b2, None),
        ("256x256 + 256x256 (256 KiB result)", lambda: m256 + m256, None),
        ("1024x1024 + 1024x1024 (4 MiB result)", lambda: m1k + m1k, None),
        ("2048x2048 + 2048x2048 (16 MiB result)", lambda: m2k + m2k, None),
    ]
    if torch is not None:
        tx, ty = torch.from_numpy(x10.numpy().copy()), torch.from_numpy(y10.numpy().copy())
        ta, tw1, tb1, tw2, tb2 = (torch.from_numpy(t.numpy().copy()) for t in (a, w1, b1, w2,
                                                                                 b2))
        tm256, tm1k, tm2k = (torch.from_numpy(t.numpy().copy()) for t in (m256, m1k, m2k))
        torch_fns = [lambda: tx + ty, lambda: (ta @ tw1 + tb1) @ tw2 + tb2,
                     lambda: tm256 + tm256, lambda: tm1k + tm1k, lambda: tm2k + tm2k]
        out[5:] = [(n, p, t) for (n, p, _), t in zip(out[5:], torch_fns)]
    return out


def _time(fn, n: int) -> float:
    for _ in range(max(1, n // 4)):
        fn()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n


def measure(fn, torch_fn, rounds: int, target: float) -> dict[str, float]:
    """Median seconds per call under each allocator (and PyTorch), rounds interleaved."""
    before = memory.get_allocator()
    n = _batch_size(fn, target)
    samples: dict[str, list[float]] = {"default": [], "caching": [], "torch": []}
    try:
        for _ in range(rounds):
            for name in ("default", "caching"):
                memory.set_allocator(name)
                samples[name].append(_time(fn, n))
            if torch_fn is not None:
                samples["torch"].append(_time(torch_fn, n))
    finally:
        memory.set_allocator(before)
    return {k: statistics.median(v) for k, v in samples.items() if v}


def _fmt(s: float) -> str:
    return f"{s * 1e6:9.3f} us"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--threads", type=int, default=0, help="pyth and torch threads (0: default)")
    args = ap.parse_args()
    if args.threads:
        pyth.set_num_threads(args.threads)
        if torch is not None:
            torch.set_num_threads(args.threads)
    # short batches, many rounds: on a shared machine a long batch is preempted part-way
    rounds, target = (11, 0.004) if args.quick else (41, 0.004)
    print(f"{'case':<40}{'default':>13}{'caching':>13}{'torch':>13}{'default/caching':>17}")
    for name, fn, torch_fn in cases():
        r = measure(fn, torch_fn, rounds, target)
        t = _fmt(r["torch"]) if "torch" in r else "-"
        print(f"{name:<40}{_fmt(r['default']):>13}{_fmt(r['caching']):>13}{t:>13}"
              f"{r['default'] / r['caching']:>17.2f}", flush=True)


if __name__ == "__main__":
    main()
