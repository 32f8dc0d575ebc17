"""pyth.distributed, DistributedDataParallel and DistributedSampler.

The collectives and DDP run for real: tests/distributed_job.py under `mpiexec -n 2` (and as a
plain `python` world of one), each rank checking against numpy and against a single process
training on the whole batch; one launch per world size keeps process start-up cheap. These
need the `mpi` extra (mpi4py + mpich) and skip without it. The rest runs in this process:
errors before init_process_group and without mpi4py, the sampler against PyTorch's, and the
post-accumulate-grad hook DDP builds on.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
from distributed_job import CHECKS

import pyth
import pyth.distributed as dist
from pyth import nn
from pyth.nn.parallel import DistributedDataParallel
from pyth.utils.data.distributed import DistributedSampler

HERE = os.path.dirname(os.path.abspath(__file__))
HAVE_MPI = importlib.util.find_spec("mpi4py") is not None and shutil.which("mpiexec")
needs_mpi = pytest.mark.skipif(not HAVE_MPI, reason="the 'mpi' extra (mpi4py and mpich, which "
                               "provides mpiexec) is not installed")


def _env(world: int) -> dict:
    env = dict(os.environ)
    # the pyth this test imports (CI's is installed; a checkout's has its core in place)
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(os.path.dirname(pyth.__file__))] +
                                        [p for p in sys.path if p])
    env.update(PYTH_TEST_WORLD=str(world), OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    return env


def _launch(world: int, outdir: str) -> dict:
    """Run every check of distributed_job.py on `world` ranks: {rank: {check: result}}."""
    job = os.path.join(HERE, "distributed_job.py")
    cmd = [sys.executable, job, outdir]
    if world > 1:
        cmd = ["mpiexec", "-n", str(world)] + cmd
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=180, env=_env(world),
                       cwd=HERE, check=False)
    results = {}
    for rank in range(world):
        path = os.path.join(outdir, f"rank{rank}.json")
        if os.path.exists(path):
            with open(path) as f:
                results[rank] = json.load(f)
    if r.returncode != 0 or len(results) != world:
        pytest.fail(f"{' '.join(cmd)} exited {r.returncode}:\n{r.stdout[-4000:]}\n"
                    f"{r.stderr[-4000:]}")
    return results


@pytest.fixture(scope="module")
def world_of_two(tmp_path_factory) -> dict:
    return _launch(2, str(tmp_path_factory.mktemp("mpi2")))


@pytest.fixture(scope="module")
def world_of_one(tmp_path_factory) -> dict:
    return _launch(1, str(tmp_path_factory.mktemp("mpi1")))


@needs_mpi
@pytest.mark.parametrize("check", list(CHECKS))
def test_two_ranks(world_of_two, check):
    for rank in (0, 1):
        assert world_of_two[rank][check] == "ok", f"rank {rank}:\n{world_of_two[rank][check]}"


@needs_mpi
@pytest.mark.parametrize("check", list(CHECKS))
def test_plain_python_is_a_world_of_one(world_of_one, check):
    assert world_of_one[0][check] == "ok", world_of_one[0][check]


# ---- in this process (no MPI started here) -----------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda: dist.get_rank(), lambda: dist.get_world_size(), lambda: dist.barrier(),
    lambda: dist.all_reduce(pyth.ones(2)), lambda: dist.broadcast(pyth.ones(2), src=0),
    lambda: dist.send(pyth.ones(2), dst=1), lambda: dist.recv(pyth.ones(2)),
    lambda: dist.all_to_all_single(pyth.ones(2), pyth.ones(2)),
    lambda: dist.all_to_all([pyth.ones(2)], [pyth.ones(2)]),
    lambda: dist.new_group([0]), lambda: dist.destroy_process_group(),
    lambda: DistributedDataParallel(nn.Linear(2, 2)),
    lambda: DistributedSampler(range(4)),
])
def test_before_init_process_group(call):
    assert not dist.is_initialized()
    with pytest.raises(RuntimeError, match="Default process group has not been initialized"):
        call()
    with pytest.raises(ValueError):   # what PyTorch raises
        call()


def test_backend_must_be_mpi():
    with pytest.raises(ValueError, match="Invalid backend: 'gloo'.*MPI only"):
        dist.init_process_group("gloo")
    assert not dist.is_initialized()
    assert dist.Backend("MPI") == "mpi"


_NO_MPI4PY = """
import sys
sys.modules["mpi4py"] = None   # as if the extra were not installed
import pyth.distributed as dist
assert not dist.is_available()
try:
    dist.init_process_group("mpi")
except ImportError as e:
    print(e)
"""


def test_without_mpi4py_the_error_names_the_optional_dependency():
    r = subprocess.run([sys.executable, "-c", _NO_MPI4PY], capture_output=True, text=True,
                       timeout=120, env=_env(1), cwd=HERE, check=False)
    assert r.returncode == 0, r.stderr
    assert "install the 'mpi' extra" in r.stdout and "mpi4py" in r.stdout


# ---- DistributedSampler ------------------------------------------------------------------------

@pytest.mark.parametrize("drop_last", [False, True])
def test_sampler_partition_matches_pytorch(drop_last):
    torch = pytest.importorskip("torch")
    from torch.utils.data.distributed import DistributedSampler as TorchSampler
    for n in (0, 1, 2, 5, 10, 11, 17):
        for replicas in (1, 2, 3, 4, 7):
            for rank in range(replicas):
                ours = DistributedSampler(range(n), replicas, rank, shuffle=False,
                                          drop_last=drop_last)
                theirs = TorchSampler(range(n), replicas, rank, shuffle=False,
                                      drop_last=drop_last)
                assert list(ours) == list(theirs), (n, replicas, rank)
                assert len(ours) == len(theirs)
    del torch


@pytest.mark.parametrize("n,replicas,drop_last", [(10, 3, False), (10, 3, True), (2, 5, False),
                                                  (12, 4, False), (7, 1, True)])
def test_sampler_shuffled_shares(n, replicas, drop_last):
    """Shares are disjoint, equally long, cover the data set (padding repeats the first
    indices), agree across ranks for one seed and epoch, and change with the epoch."""
    def shares(epoch: int, seed: int = 0) -> list:
        out = []
        for rank in range(replicas):
            s = DistributedSampler(range(n), replicas, rank, seed=seed, drop_last=drop_last)
            s.set_epoch(epoch)
            out.append(list(s))
        return out
    a = shares(0)
    assert all(len(x) == len(a[0]) for x in a)
    flat = [i for x in a for i in x]
    perm = [a[r % replicas][r // replicas] for r in range(len(flat))]   # interleaved back
    if drop_last:
        assert len(set(flat)) == len(flat) == (n // replicas) * replicas
    else:
        assert set(flat) == set(range(n))
        assert len(set(perm[:n])) == n and perm[n:] == (perm[:n] * replicas)[:len(perm) - n]
    assert shares(0) == a
    assert shares(1) != a or n < 3
    assert shares(0, seed=5) != a or n < 3


def test_sampler_errors():
    with pytest.raises(ValueError, match=r"Invalid rank 3, rank should be in the interval "
                                         r"\[0, 2\]"):
        DistributedSampler(range(4), num_replicas=3, rank=3)
    with pytest.raises(ValueError, match="Invalid rank -1"):
        DistributedSampler(range(4), num_replicas=3, rank=-1)


# ---- the hook DDP reduces from -----------------------------------------------------------------

def test_post_accumulate_grad_hook_matches_pytorch():
    torch = pytest.importorskip("torch")
    seen: dict = {"pyth": [], "torch": []}
    for lib, key in ((pyth, "pyth"), (torch, "torch")):
        w = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        h = w.register_post_accumulate_grad_hook(
            lambda t, key=key: seen[key].append(t.grad.detach().clone().numpy()))
        (w * w).sum().backward()
        (w * 3).sum().backward()
        h.remove()
        (w * 5).sum().backward()
        with pytest.raises(RuntimeError, match="non-leaf"):
            (w * 2).register_post_accumulate_grad_hook(lambda t: None)
    assert len(seen["pyth"]) == len(seen["torch"]) == 2
    for a, b in zip(seen["pyth"], seen["torch"]):
        np.testing.assert_array_equal(a, b)


# ---- the main job, data-parallel ---------------------------------------------------------------

def _train_ready() -> bool:
    from pyth.utils import data
    return (importlib.util.find_spec("pyth.optim") is not None and hasattr(data, "DataLoader")
            and hasattr(pyth, "save") and importlib.util.find_spec("sklearn") is not None)


@needs_mpi
def test_train_distributed_reaches_single_process_accuracy(tmp_path):
    """`mpiexec -n 2 python -m pyth train --distributed` (global batch unchanged) ends within a
    few points of one process's test accuracy; only rank 0 prints and writes."""
    if not _train_ready():
        pytest.skip("train needs pyth.optim, DataLoader, pyth.save and scikit-learn")
    args = ["-m", "pyth", "train", "--model", "mlp", "--epochs", "8", "--optimizer", "sgd"]
    accuracies = {}
    for world in (1, 2):
        out = tmp_path / f"run{world}"
        cmd = [sys.executable, *args, "--out", str(out)]
        if world > 1:
            cmd = ["mpiexec", "-n", "2", *cmd, "--distributed"]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=_env(world),
                           cwd=HERE, check=False)
        assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
        lines = [ln for ln in r.stdout.splitlines() if ln.startswith("test accuracy:")]
        assert len(lines) == 1, r.stdout   # rank 1 stays quiet
        accuracies[world] = float(lines[0].split(":")[1])
        assert (out / "model.pth").exists()
    assert accuracies[1] > 0.85
    assert abs(accuracies[2] - accuracies[1]) < 0.04, accuracies


def test_future_without_a_work():
    from pyth.futures import Future
    f = Future()
    assert not f.done()
    with pytest.raises(RuntimeError, match="not completed"):
        f.value()
    chained = f.then(lambda x: x.value() + 1)
    seen = []
    f.add_done_callback(lambda x: seen.append(x.value()))
    f.set_result(41)
    assert f.done() and f.wait() == 41 and seen == [41]
    assert chained.done() and chained.value() == 42
    with pytest.raises(RuntimeError, match="already has its value"):
        f.set_result(1)
