"""Run the benchmark suite: python benchmarks/run.py [--quick] [--only NAME] [--json PATH].

Every bench_*.py module in this folder contributes cases(quick) -> list[Case]; each case runs
pyth, numpy and PyTorch (when installed) side by side with interleaved rounds and medians.
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import pyth  # noqa: F401  (an installed pyth)
except ImportError:  # working in the tree: use the in-place build
    sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from harness import Case, report, run_case, save, torch  # noqa: E402


# Each bench module also runs on its own (python benchmarks/bench_x.py); these adapters turn
# what its cases() returns into harness Cases for the one-table suite.
def _cases(mod, quick):
    return mod.cases(quick)


def _reductions(mod, quick):
    out = []
    for name, _, p, n, t in mod.cases(1024 if quick else 4096):
        fns = {"pyth": p, "numpy": n, **({"torch": t} if t is not None else {})}
        out.append(Case(name, fns, "reductions"))
    return out


def _random(mod, quick):
    libs = {"pyth": "pyth", "numpy Generator": "numpy", "torch": "torch"}
    n = 1_000_000 if quick else 10_000_000
    return [Case(f"{name} {n} float32", {libs[k]: f for k, f in fns.items() if k in libs},
                 "random") for name, fns in mod.cases(n).items()]


def _matmul(mod, quick):
    import numpy as np
    import pyth
    out = []
    for dt, ashape, bshape in mod.cases(quick):
        rng = np.random.default_rng(0)
        a, b = (rng.standard_normal(s).astype(dt) for s in (ashape, bshape))
        pa, pb = pyth.from_numpy(a), pyth.from_numpy(b)
        fns = {"pyth": lambda pa=pa, pb=pb: pa @ pb, "numpy": lambda a=a, b=b: a @ b}
        if torch is not None:
            ta, tb = torch.from_numpy(a), torch.from_numpy(b)
            fns["torch"] = lambda ta=ta, tb=tb: ta @ tb
        shape = lambda s: "x".join(map(str, s))  # noqa: E731
        out.append(Case(f"matmul {dt} {shape(ashape)} @ {shape(bshape)}", fns, "matmul"))
    return out


ADAPTERS = {"bench_pointwise": _cases, "bench_indexing": _cases,
            "bench_reductions": _reductions, "bench_random": _random, "bench_matmul": _matmul,
            "bench_train": _cases, "bench_layers": _cases, "bench_overhead": _cases,
            "bench_models": _cases, "bench_compile": _cases}


def _machine() -> str:
    cpu = "unknown cpu"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="small sizes, few rounds")
    ap.add_argument("--only", action="append", default=[], help="bench module name (repeatable)")
    ap.add_argument("--json", default="benchmarks/results.json", help="where to write results")
    ap.add_argument("--png", default="benchmarks/results.png", help="bar chart (needs matplotlib)")
    args = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    names = sorted(f[:-3] for f in os.listdir(here) if f[:-3] in ADAPTERS)
    if args.only:
        names = [n for n in names if any(o in n for o in args.only)]
    rounds, target = (3, 0.02) if args.quick else (7, 0.1)
    print(f"machine: {_machine()}\n")
    everything = []
    for name in names:
        mod = importlib.import_module(name)
        cases = [run_case(c, rounds, target) for c in ADAPTERS[name](mod, args.quick)]
        print(report(cases, f"== {name} ==") + "\n", flush=True)
        everything += cases
    save(everything, args.json)
    try:
        from plot import bar_chart
        bar_chart(everything, args.png)
    except ImportError:
        pass


if __name__ == "__main__":
    main()
