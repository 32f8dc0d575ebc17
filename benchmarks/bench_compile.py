"""pyth.compile side by side: eager pyth, compiled pyth, PyTorch eager and torch.compile (when it
runs here) in one process, on a chain of 8 pointwise ops over 1M float32 (what fusion is for),
the digits MLP training step (64-128-10, batch 32, SGD) and a tiny graph of 10 elements
forward + backward (what the compiled call's guards and dispatch cost).

python benchmarks/bench_compile.py [--quick] [--json] [--threads N]
(also part of benchmarks/run.py, where the pyth column is compiled pyth)
--quick: small rounds, and no torch.compile (its first call takes tens of seconds here);
--threads N: both libraries on N threads (on a shared 2-core machine one thread is the
steadier measure).
"""

from __future__ import annotations

import os
import sys

import numpy as np

# torch.compile compiles in a pool of worker processes that stay alive (and take a core of
# this 2-core machine now and then) unless told to compile on the calling thread
os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import pyth
except ImportError:  # working in the tree: use the in-place build
    sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import pyth

from bench_train import _mlp, _step_fn  # noqa: E402
from harness import Case, _fmt_time, run_case, torch  # noqa: E402

LIBS = ("pyth eager", "pyth", "torch", "torch.compile")


def chain8(lib, x, y):
    """8 pointwise ops: mul, add, sin, mul, exp, sub, tanh, mul."""
    return ((((x * y + 0.5).sin() * -0.25).exp() - y).tanh() * 2)


def _torch_compile(fn):
    """torch.compile(fn), or None when it does not run here (no compiler, ...)."""
    if torch is None:
        return None
    try:
        compiled = torch.compile(fn)
        return compiled
    except Exception:   # noqa: BLE001  (any failure means: leave its column empty)
        return None


def _works(fn) -> bool:
    try:
        fn()
        return True
    except Exception:   # noqa: BLE001
        return False


def _with_compiled(fns: dict, name: str, make) -> dict:
    """fns plus the torch.compile column when make() gives a callable that runs."""
    fn = make()
    if fn is not None and _works(fn):
        fns[name] = fn
    return fns


def _pointwise_case(compile_torch: bool) -> Case:
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(1 << 20).astype(np.float32) for _ in range(2))
    px, py = pyth.from_numpy(a), pyth.from_numpy(b)
    compiled = pyth.compile(lambda x, y: chain8(pyth, x, y))
    fns = {"pyth eager": lambda: chain8(pyth, px, py), "pyth": lambda: compiled(px, py)}
    if torch is not None:
        tx, ty = torch.from_numpy(a), torch.from_numpy(b)
        fns["torch"] = lambda: chain8(torch, tx, ty)
        if compile_torch:
            tc = _torch_compile(lambda x, y: chain8(torch, x, y))
            _with_compiled(fns, "torch.compile", lambda: tc and (lambda: tc(tx, ty)))
    return Case("8 pointwise ops, 1M float32", fns, "compile")


def _step(lib, model, x, y):
    """bench_train's SGD step (momentum 0.9) of model on (x, y)."""
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return _step_fn(lib, model, opt, x, y)


def _digits(lib):
    return _mlp(lib, [64, 128, 10])


def _mlp_case(compile_torch: bool) -> Case:
    rng = np.random.default_rng(0)
    x = rng.random((32, 64), dtype=np.float32)
    y = rng.integers(0, 10, 32).astype(np.int64)
    px, py = pyth.from_numpy(x), pyth.from_numpy(y)
    pyth.manual_seed(0)
    fns = {"pyth eager": _step(pyth, _digits(pyth), px, py),
           "pyth": _step(pyth, pyth.compile(_digits(pyth)), px, py)}
    if torch is not None:
        tx, ty = torch.from_numpy(x), torch.from_numpy(y)
        torch.manual_seed(0)
        fns["torch"] = _step(torch, _digits(torch), tx, ty)
        if compile_torch:
            _with_compiled(fns, "torch.compile",
                           lambda: _step(torch, torch.compile(_digits(torch)), tx, ty))
    return Case("digits MLP 64-128-10, batch 32, SGD step", fns, "compile")


def _tiny(lib, loss):
    x = lib.linspace(-1, 1, 10, dtype=lib.float32).requires_grad_()
    w = lib.full((10,), 0.5, dtype=lib.float32).requires_grad_()

    def step():
        loss(x, w).backward()
    return step


def _tiny_loss(x, w):
    return ((x * w).tanh() + x.exp() * 0.1).sum()


def _tiny_case(compile_torch: bool) -> Case:
    fns = {"pyth eager": _tiny(pyth, _tiny_loss), "pyth": _tiny(pyth, pyth.compile(_tiny_loss))}
    if torch is not None:
        fns["torch"] = _tiny(torch, _tiny_loss)
        if compile_torch:
            _with_compiled(fns, "torch.compile",
                           lambda: _tiny(torch, torch.compile(_tiny_loss)))
    return Case("tiny graph (10 elements) forward + backward", fns, "compile")


def cases(quick: bool = False) -> list[Case]:
    """The three cases; torch.compile's column only in a full run."""
    compile_torch = not quick
    return [_tiny_case(compile_torch), _mlp_case(compile_torch), _pointwise_case(compile_torch)]


def table(done: list[Case]) -> str:
    """Times of the four columns and each column's time over compiled pyth's."""
    head = f"{'case':<44}" + "".join(f"{lib:>15}" for lib in LIBS)
    lines = ["pyth.compile (ratios: time / compiled pyth's)", head]
    for c in done:
        r = c.results
        lines.append(f"{c.name:<44}" + "".join(
            f"{_fmt_time(r[lib]) if lib in r else '-':>15}" for lib in LIBS))
        lines.append(f"{'':<44}" + "".join(
            f"{r[lib] / r['pyth']:>15.2f}" if lib in r else f"{'-':>15}" for lib in LIBS))
    return "\n".join(lines)


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    if "--threads" in sys.argv:
        threads = int(sys.argv[sys.argv.index("--threads") + 1])
        pyth.set_num_threads(threads)
        if torch is not None:
            torch.set_num_threads(threads)
    done = [run_case(c, rounds=3 if quick else 11, target=0.02 if quick else 0.2)
            for c in cases(quick)]
    if "--json" in sys.argv:
        import json
        print(json.dumps({c.name: c.results for c in done}))
    else:
        print(table(done))
