"""Reliability of the training stack over long runs and threads.

- Long runs: thousands of steps of the main job's models keep pyth's live bytes exactly flat
  and the process RSS flat within 1 % once warm (a leak of one small tensor per step would
  show in both within a few hundred steps).
- Graphs: backward releases what the nodes saved; reference cycles through hooks are collected.
- Threads: independent models trained in 4 threads at once equal sequential training; grad
  mode is per thread.
"""

from __future__ import annotations

import gc
import os
import threading
import weakref

import numpy as np
import pytest

import pyth
from pyth import nn

LONG = os.environ.get("PYTH_FUZZ", "ci") == "long"
SAN = os.environ.get("PYTH_FUZZ", "ci") == "san"


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _mlp() -> nn.Module:
    return nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))


def _cnn() -> nn.Module:
    from pyth.cli.models import cnn
    return cnn()


def _train(model: nn.Module, steps: int, batch: int, shape: tuple, seed: int = 0,
           optimizer: str = "adam", probe_every: int = 0):
    """Trains on fixed random batches; returns the live-bytes/RSS probes and the last loss."""
    rng = np.random.default_rng(seed)
    xs = [pyth.from_numpy(rng.random((batch, *shape), dtype=np.float32)) for _ in range(4)]
    ys = [pyth.from_numpy(rng.integers(0, 10, batch).astype(np.int64)) for _ in range(4)]
    opt = (pyth.optim.Adam(model.parameters(), lr=1e-3) if optimizer == "adam"
           else pyth.optim.SGD(model.parameters(), lr=0.01, momentum=0.9))
    sched = pyth.optim.lr_scheduler.StepLR(opt, step_size=100, gamma=0.99)
    loss_fn = nn.CrossEntropyLoss()
    probes, loss = [], None
    for step in range(steps):
        loss = loss_fn(model(xs[step % 4]), ys[step % 4])
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if probe_every and (step + 1) % probe_every == 0:
            probes.append((pyth.memory_stats()["live_bytes"], _rss_bytes()))
    return probes, float(loss.item())


@pytest.mark.parametrize("name, make, steps, batch, shape", [
    ("mlp", _mlp, 10_000, 32, (64,)),
    ("cnn", _cnn, 1_000, 16, (1, 8, 8)),
])
def test_long_run_memory_is_flat(name, make, steps, batch, shape):
    if SAN:
        steps //= 20  # the sanitized core is ~10x slower; the flatness check still holds
    pyth.manual_seed(0)
    model = make()
    warm = steps // 5
    probes, loss = _train(model, steps, batch, shape, probe_every=warm)
    live = [p[0] for p in probes]
    rss = [p[1] for p in probes]
    assert np.isfinite(loss)
    # after the warm-up fifth (optimizer state made, caches filled) nothing more is kept
    assert len(set(live[1:])) == 1, f"{name}: live bytes moved: {live}"
    if not SAN:  # ASan's quarantine keeps freed blocks resident (up to 256 MiB) by design
        assert max(rss[1:]) <= rss[1] * 1.01, f"{name}: RSS grew: {rss}"


def test_backward_releases_saved_tensors():
    pyth.manual_seed(0)
    model = _cnn()
    x = pyth.randn(8, 1, 8, 8)
    y = pyth.randint(0, 10, (8,))
    gc.collect()  # what earlier tests left in cycles goes now, not during the measurement
    base = pyth.memory_stats()["live_bytes"]
    out = model(x)
    loss = nn.functional.cross_entropy(out, y)
    during = pyth.memory_stats()["live_bytes"]
    hidden = weakref.ref(out)
    loss.backward()
    del out, loss
    gc.collect()
    assert hidden() is None
    after = pyth.memory_stats()["live_bytes"]
    grads = sum(p.grad.numel() * p.grad.element_size() for p in model.parameters())
    assert during > base + 8 * 32 * 64 * 4  # the graph held activations (at least one map)
    assert after == base + grads, (base, during, after, grads)


def test_retain_graph_keeps_then_frees():
    w = pyth.randn(50, 50, requires_grad=True)
    gc.collect()
    base = pyth.memory_stats()["live_bytes"]
    loss = (w.tanh() * w).sum()
    loss.backward(retain_graph=True)
    loss.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()
    del loss
    gc.collect()
    assert pyth.memory_stats()["live_bytes"] == base + w.numel() * 4  # only w.grad stays


def test_hook_cycles_are_collected():
    x = pyth.randn(1000, requires_grad=True)
    y = x * 2
    y.register_hook(lambda g, y=y: g * 1)   # the hook holds y: y -> node -> hook -> y
    y.retain_grad()
    gone = weakref.ref(y)
    y.sum().backward()
    gc.collect()
    base = pyth.memory_stats()["live_bytes"]
    del y
    gc.collect()
    assert gone() is None
    assert pyth.memory_stats()["live_bytes"] < base


def _train_copy(state: dict, seed: int, out: list, index: int) -> None:
    model = _mlp()
    model.load_state_dict(state)
    _, _ = _train(model, 60, 16, (64,), seed=seed, optimizer="sgd")
    out[index] = {k: v.clone() for k, v in model.state_dict().items()}


def test_four_threads_train_as_sequentially():
    pyth.manual_seed(0)
    state = {k: v.clone() for k, v in _mlp().state_dict().items()}
    sequential = [None] * 4
    for i in range(4):
        _train_copy(state, i, sequential, i)
    threaded = [None] * 4
    threads = [threading.Thread(target=_train_copy, args=(state, i, threaded, i))
               for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(4):
        for k in state:
            assert pyth.equal(sequential[i][k], threaded[i][k]), (i, k)
    assert not pyth.equal(sequential[0]["1.weight"], sequential[1]["1.weight"])


def test_grad_mode_is_per_thread():
    x = pyth.ones(3, requires_grad=True)
    seen = {}
    inside = threading.Event()
    release = threading.Event()

    def no_grad_thread():
        with pyth.no_grad():
            inside.set()
            release.wait(10)
            seen["no_grad"] = (x * 2).requires_grad

    t = threading.Thread(target=no_grad_thread)
    t.start()
    inside.wait(10)
    seen["main"] = (x * 2).requires_grad  # this thread still records
    release.set()
    t.join()
    assert seen == {"no_grad": False, "main": True}
    assert pyth.is_grad_enabled()
