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

from harness import report, run_case, save  # noqa: E402


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
    names = sorted(f[:-3] for f in os.listdir(here) if f.startswith("bench_") and f.endswith(".py"))
    if args.only:
        names = [n for n in names if any(o in n for o in args.only)]
    rounds, target = (3, 0.02) if args.quick else (7, 0.1)
    print(f"machine: {_machine()}\n")
    everything = []
    for name in names:
        mod = importlib.import_module(name)
        cases = [run_case(c, rounds, target) for c in mod.cases(args.quick)]
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
