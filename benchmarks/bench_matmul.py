"""Matrix product speed: pyth against numpy and PyTorch, in one process.

For each case (dtype, shapes) the three libraries multiply the same operands. Rounds are
interleaved (each round times every library once, in a rotating order, so drifts in machine
load hit all of them alike); a round runs enough calls to last about 20 ms. The table shows
the median time per call, GFLOP/s, and pyth's time relative to torch's and numpy's (a ratio
below 1 means pyth is faster).

    python benchmarks/bench_matmul.py                # the full set
    python benchmarks/bench_matmul.py --quick        # fewer rounds, sizes up to 1024
    python benchmarks/bench_matmul.py --json out.json
    python benchmarks/bench_matmul.py --threads 1    # kernels alone, no threading

The machine's OpenBLAS environment (OPENBLAS_CORETYPE, OPENBLAS_L2_SIZE) affects pyth and numpy,
which both use OpenBLAS, but not torch (MKL); the header prints what each library runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from pyth._th import ffi, lib

import pyth

try:
    import torch
except ImportError:  # pragma: no cover - torch is optional
    torch = None


def cases(quick: bool) -> list:
    sizes = [256, 512, 1024] if quick else [256, 512, 1024, 2048]
    out = []
    for dt in ("float32", "float64"):
        for n in sizes:
            out.append((dt, (n, n), (n, n)))
        out.append((dt, (64, 128, 128), (64, 128, 128)))     # bmm-sized batch
        out.append((dt, (512, 32, 32), (512, 32, 32)))       # many small matrices
        out.append((dt, (8, 256, 512), (512, 256)))          # batch folded into one gemm
    out.append(("float32", (1024, 1024), (1024,)))          # matrix-vector
    return out


def flops(ashape, bshape) -> float:
    """2 * rows * k * cols: every row of every left matrix against every column on the right."""
    rows = int(np.prod(ashape[:-1]))
    cols = bshape[-1] if len(bshape) > 1 else 1
    return 2.0 * rows * ashape[-1] * cols


def timer(fn, target: float = 0.02) -> float:
    """Seconds per call of fn, running enough calls to last about target seconds."""
    fn()
    start = time.perf_counter()
    fn()
    one = time.perf_counter() - start
    reps = max(1, int(target / max(one, 1e-7)))
    start = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - start) / reps


def run_case(dt: str, ashape, bshape, rounds: int) -> dict:
    rng = np.random.default_rng(0)
    a = rng.standard_normal(ashape).astype(dt)
    b = rng.standard_normal(bshape).astype(dt)
    pa, pb = pyth.from_numpy(a), pyth.from_numpy(b)
    fns = {"pyth": (lambda: pa @ pb), "numpy": (lambda: a @ b)}
    if torch is not None:
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        fns["torch"] = lambda: ta @ tb
    # all three agree before anything is timed
    ref = a.astype(np.float64) @ b.astype(np.float64)
    got = fns["pyth"]().numpy()
    assert np.allclose(got, ref, rtol=1e-3, atol=1e-2 * np.sqrt(ashape[-1])), "pyth is wrong"
    times = {name: [] for name in fns}
    names = list(fns)
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            times[name].append(timer(fns[name]))
    med = {name: statistics.median(ts) for name, ts in times.items()}
    return {"dtype": dt, "a": list(ashape), "b": list(bshape), "median_s": med,
            "gflops": {name: flops(ashape, bshape) / t / 1e9 for name, t in med.items()}}


def describe() -> str:
    cfg = ffi.string(lib.THBlas_config()).decode()
    lines = [f"pyth OpenBLAS: {cfg} (OpenMP threads {lib.THGetNumThreads()})",
             f"numpy {np.__version__}"]
    try:
        from threadpoolctl import threadpool_info
        for info in threadpool_info():
            lines.append(f"  pool: {info.get('internal_api')} {info.get('version')} "
                         f"{info.get('architecture', '')} threads={info.get('num_threads')} "
                         f"({os.path.basename(info.get('filepath', ''))})")
    except ImportError:
        pass
    if torch is not None:
        lines.append(f"torch {torch.__version__} (threads {torch.get_num_threads()})")
    env = {k: v for k, v in os.environ.items() if k.startswith("OPENBLAS")}
    lines.append(f"environment: {env or 'no OPENBLAS_* variables'}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--json", default=None, help="write the results to this file")
    parser.add_argument("--threads", type=int, default=None,
                        help="threads for pyth (OpenMP) and torch; numpy keeps its own")
    args = parser.parse_args()
    if args.threads:
        lib.THSetNumThreads(args.threads)
        if torch is not None:
            torch.set_num_threads(args.threads)
    rounds = args.rounds or (5 if args.quick else 9)
    print(describe())
    head = f"{'case':<34}{'pyth ms':>10}{'numpy ms':>10}{'torch ms':>10}{'GF/s':>8}" \
           f"{'/torch':>8}{'/numpy':>8}"
    print(head)
    print("-" * len(head))
    results = []
    for dt, ashape, bshape in cases(args.quick):
        res = run_case(dt, ashape, bshape, rounds)
        results.append(res)
        med = res["median_s"]
        label = f"{dt} {'x'.join(map(str, ashape))} @ {'x'.join(map(str, bshape))}"
        tt = med.get("torch", float("nan"))
        print(f"{label:<34}{med['pyth'] * 1e3:>10.3f}{med['numpy'] * 1e3:>10.3f}{tt * 1e3:>10.3f}"
              f"{res['gflops']['pyth']:>8.1f}{med['pyth'] / tt:>8.2f}"
              f"{med['pyth'] / med['numpy']:>8.2f}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"setup": describe(), "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
