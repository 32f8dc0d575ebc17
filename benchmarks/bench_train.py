"""Training steps side by side: the same model, data, initial weights and optimizer in pyth and
PyTorch, in six cases from a 10-element add to a CNN step. A step is forward, loss, zero_grad,
backward and optimizer step.

python benchmarks/bench_train.py [--quick] [--case TEXT] [--json] [--isolated N]
(also part of benchmarks/run.py)
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import pyth
except ImportError:  # working in the tree: use the in-place build
    sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import pyth

from harness import Case, report, run_case, torch  # noqa: E402


def _mlp(lib, sizes):
    layers = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(lib.nn.Linear(a, b))
        if i < len(sizes) - 2:
            layers.append(lib.nn.ReLU())
    return lib.nn.Sequential(*layers)


def _cnn(lib):
    nn = lib.nn
    return nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(64 * 4 * 4, 128), nn.ReLU(),
                         nn.Linear(128, 10))


def _copy_weights(src, dst) -> None:
    """PyTorch's initial weights into the pyth model (same parameter names)."""
    dst.load_state_dict({k: pyth.from_numpy(v.detach().numpy().copy())
                         for k, v in src.state_dict().items()})


def _step_fn(lib, model, opt, x, y):
    loss_fn = lib.nn.CrossEntropyLoss()

    def step():
        loss = loss_fn(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return step


def _train_case(name, build, shape, batch, optimizer):
    rng = np.random.default_rng(0)
    x = rng.random((batch, *shape), dtype=np.float32)
    y = rng.integers(0, 10, batch).astype(np.int64)
    fns = {}
    pm = build(pyth)
    if torch is not None:
        torch.manual_seed(0)
        tm = build(torch)
        _copy_weights(tm, pm)
        topt = (torch.optim.SGD(tm.parameters(), lr=0.01, momentum=0.9) if optimizer == "sgd"
                else torch.optim.Adam(tm.parameters(), lr=1e-3))
        fns["torch"] = _step_fn(torch, tm, topt, torch.from_numpy(x), torch.from_numpy(y))
    popt = (pyth.optim.SGD(pm.parameters(), lr=0.01, momentum=0.9) if optimizer == "sgd"
            else pyth.optim.Adam(pm.parameters(), lr=1e-3))
    fns = {"pyth": _step_fn(pyth, pm, popt, pyth.from_numpy(x), pyth.from_numpy(y)), **fns}
    return Case(name, fns, "train")


def _tiny_graph(lib):
    x = lib.linspace(-1, 1, 10, dtype=lib.float32).requires_grad_()
    w = lib.full((10,), 0.5, dtype=lib.float32).requires_grad_()

    def step():
        loss = ((x * w).tanh() + x.exp() * 0.1).sum()
        loss.backward()
    return step


def _add10(lib):
    a, b = lib.ones(10), lib.ones(10)
    return lambda: a + b


def cases(quick: bool = False) -> list[Case]:
    # the per-call cases first: after a threaded case PyTorch's OpenMP workers keep spinning
    # for a while, and on this 2-vCPU machine that halves both libraries' small-op speed
    libs = {"pyth": pyth, **({"torch": torch} if torch is not None else {})}
    out = [Case("10-element add", {k: _add10(m) for k, m in libs.items()}, "train"),
           Case("tiny graph (10 elements) forward + backward",
                {k: _tiny_graph(m) for k, m in libs.items()}, "train")]
    out += [
        _train_case("digits MLP 64-128-10, batch 32, SGD step",
                    lambda lib: _mlp(lib, [64, 128, 10]), (64,), 32, "sgd"),
        _train_case("digits MLP 64-128-10, batch 32, Adam step",
                    lambda lib: _mlp(lib, [64, 128, 10]), (64,), 32, "adam"),
        _train_case("digits CNN (two 3x3 convs), batch 64, SGD step", _cnn, (1, 8, 8), 64,
                    "sgd"),
        _train_case("MLP 784-512-10, batch 128, SGD step",
                    lambda lib: _mlp(lib, [784, 512, 10]), (784,), 128, "sgd"),
    ]
    return out


def isolated(repeats: int, quick: bool) -> str:
    """Each case alone in a fresh process, `repeats` times: the range of pyth/PyTorch over the
    processes. From one process to the next both libraries' step times move (thread placement,
    the VM's neighbours), the CNN's by up to a third; one run's ratio is one draw of that."""
    import json
    import subprocess
    names = [c.name for c in cases(quick)]
    got: dict[str, list] = {n: [] for n in names}
    for _ in range(repeats):
        for n in names:
            cmd = [sys.executable, os.path.abspath(__file__), "--case", n, "--json"]
            out = subprocess.run(cmd + (["--quick"] if quick else []), check=True,
                                 capture_output=True, text=True).stdout
            got[n].append(json.loads(out.strip().splitlines()[-1]))
    lines = [f"each case alone, {repeats} processes (median step per process)",
             f"{'case':<48}{'pyth':>22}{'torch':>22}{'pyth/torch':>14}"]
    for n, runs in got.items():
        p = [r["pyth"] for r in runs]
        t = [r.get("torch") for r in runs]
        cell = (lambda v: f"{min(v) * 1e6:8.1f}-{max(v) * 1e6:<8.1f} us")
        if None in t:
            lines.append(f"{n:<48}{cell(p):>22}")
            continue
        q = [a / b for a, b in zip(p, t)]
        lines.append(f"{n:<48}{cell(p):>22}{cell(t):>22}{min(q):>7.2f}-{max(q):.2f}")
    return "\n".join(lines)


if __name__ == "__main__":
    # --case TEXT: only the cases whose name contains TEXT (a case alone, in a fresh process,
    # is timed in a steady state that the cases before it do not disturb); --json: the
    # results as one JSON line; --isolated N: every case alone in N fresh processes each
    quick = "--quick" in sys.argv
    if "--isolated" in sys.argv:
        print(isolated(int(sys.argv[sys.argv.index("--isolated") + 1]), quick))
        sys.exit(0)
    only = sys.argv[sys.argv.index("--case") + 1] if "--case" in sys.argv else ""
    done = [run_case(c, rounds=5 if quick else 15, target=0.05 if quick else 0.2)
            for c in cases(quick) if only in c.name]
    if "--json" in sys.argv:
        import json
        print(json.dumps({lib: s for c in done for lib, s in c.results.items()}))
    else:
        print(report(done, "training steps (pyth vs PyTorch)"))
