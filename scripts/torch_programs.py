"""Runs PyTorch programs unchanged with pyth standing in for torch, and with PyTorch itself.

Each program in scripts/torch_programs/ imports torch as any PyTorch program does. Under pyth,
`import torch` and `import torch.X.Y` give pyth and pyth.X.Y (a finder on sys.meta_path maps
every torch module name to pyth's). A program prints `CHECK ...` lines: their words must agree
and their numbers match PyTorch's to --rtol; everything else it prints is free. Exit status 1
when a program fails under pyth or disagrees.

    python scripts/torch_programs.py [--only NAME] [--rtol R] [--pyth-only]
"""

from __future__ import annotations

import argparse
import importlib
import importlib.abc
import importlib.util
import os
import pathlib
import re
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent / "torch_programs"
NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


class TorchIsPyth(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """`import torch.a.b` imports pyth.a.b and registers it under both names."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> object:
        if name == "torch" or name.startswith("torch."):
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec: object) -> object:
        return importlib.import_module("pyth" + spec.name[len("torch"):])

    def exec_module(self, module: object) -> None:
        pass


def run_as_pyth(program: str) -> None:
    """Runs program (a path) as __main__ with torch meaning pyth."""
    sys.meta_path.insert(0, TorchIsPyth())
    sys.argv = [program]
    import runpy
    runpy.run_path(program, run_name="__main__")


def _run(program: pathlib.Path, as_pyth: bool) -> subprocess.CompletedProcess:
    code = ("import sys; sys.path.insert(0, %r); import torch_programs as h; h.run_as_pyth(%r)"
            % (str(HERE.parent), str(program))) if as_pyth else None
    cmd = [sys.executable, "-P", "-c", code] if as_pyth else [sys.executable, "-P", str(program)]
    with tempfile.TemporaryDirectory() as d:
        return subprocess.run(cmd, cwd=d, capture_output=True, text=True, timeout=600,
                              env={**os.environ, "PYTHONHASHSEED": "0"})


def checks(stdout: str) -> list[list[str]]:
    return [line.split()[1:] for line in stdout.splitlines() if line.startswith("CHECK")]


def disagreement(ours: list[list[str]], theirs: list[list[str]], rtol: float) -> str | None:
    """Where two programs' CHECK lines differ (words exactly, numbers to rtol), or None."""
    if len(ours) != len(theirs):
        return f"{len(ours)} CHECK lines against PyTorch's {len(theirs)}"
    for a, b in zip(ours, theirs):
        if len(a) != len(b):
            return f"{' '.join(a)!r} against {' '.join(b)!r}"
        for x, y in zip(a, b):
            xs, ys = x.strip("[],()"), y.strip("[],()")
            if NUMBER.match(xs) and NUMBER.match(ys):
                fx, fy = float(xs), float(ys)
                if abs(fx - fy) > rtol * max(abs(fy), 1e-6) + 1e-6:
                    return f"{' '.join(a)!r} against {' '.join(b)!r}"
            elif x != y:
                return f"{' '.join(a)!r} against {' '.join(b)!r}"
    return None


def programs(only: str | None = None) -> list[pathlib.Path]:
    return sorted(p for p in HERE.glob("*.py") if only is None or p.stem == only)


def check_program(program: pathlib.Path, rtol: float, pyth_only: bool) -> str | None:
    """None when program runs under pyth and agrees with PyTorch; else what went wrong."""
    ours = _run(program, True)
    if ours.returncode:
        return f"failed under pyth:\n{ours.stderr[-3000:]}"
    if pyth_only:
        return None
    theirs = _run(program, False)
    if theirs.returncode:
        return f"failed under PyTorch:\n{theirs.stderr[-3000:]}"
    return disagreement(checks(ours.stdout), checks(theirs.stdout), rtol)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", help="one program, by file name without .py")
    parser.add_argument("--rtol", type=float, default=1e-4)
    parser.add_argument("--pyth-only", action="store_true", help="do not run PyTorch")
    args = parser.parse_args()
    bad = 0
    for p in programs(args.only):
        why = check_program(p, args.rtol, args.pyth_only)
        print(f"{p.stem}: {'ok' if why is None else why}")
        bad += why is not None
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
