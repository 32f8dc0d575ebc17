"""Failures of whole processes: a checkpoint writer killed mid-save or
stopped by a full disk keeps the previous file; a main process interrupted mid-epoch leaves no
worker behind; a thousand tensors through a queue leave no shared memory and no descriptor.

Each scenario runs in a child Python process (the thing that dies), driven from here.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import pyth

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(pyth.__file__)))


def _child(code: str, *args: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.Popen([sys.executable, "-P", "-c", textwrap.dedent(code), *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _shm() -> set:
    return set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is not alive: it only waits for its parent to read its status
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


_SAVE_LARGE = """
import sys, pyth
big = {f"w{i}": pyth.full((4 << 20,), float(i)) for i in range(12)}   # 12 x 16 MiB
print("ready", flush=True)
pyth.save(big, sys.argv[1])
print("saved", flush=True)
"""


@pytest.mark.parametrize("delay", [0.0, 0.05, 0.15, 0.4])
def test_writer_killed_mid_save_keeps_the_previous_file(tmp_path, delay):
    path = tmp_path / "model.pth"
    pyth.save({"step": 1, "w": pyth.arange(10.0)}, str(path))
    p = _child(_SAVE_LARGE, str(path))
    assert p.stdout.readline().strip() == "ready"
    time.sleep(delay)
    p.send_signal(signal.SIGKILL)
    p.wait(30)
    ck = pyth.load(str(path))
    if ck.get("step") == 1:  # killed before the rename: the old file, whole
        assert ck["w"].tolist() == [float(i) for i in range(10)]
    else:  # the save finished before the kill landed: the new file, whole
        assert set(ck) == {f"w{i}" for i in range(12)}
        assert ck["w11"][-1].item() == 11.0


_SAVE_FULL_DISK = """
import resource, signal, sys, pyth
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)        # a write past the limit fails (EFBIG)
resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))
try:
    pyth.save({"w": pyth.ones(1 << 20)}, sys.argv[1])  # 4 MiB > the 1 MiB limit
except (OSError, RuntimeError) as e:
    print("refused", type(e).__name__, e, flush=True)
else:
    print("saved", flush=True)
"""


def test_full_disk_raises_and_keeps_the_previous_file(tmp_path):
    path = tmp_path / "model.pth"
    pyth.save({"step": 1}, str(path))
    p = _child(_SAVE_FULL_DISK, str(path))
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    assert out.startswith(("refused OSError", "refused RuntimeError")), out
    assert pyth.load(str(path)) == {"step": 1}
    assert os.listdir(tmp_path) == ["model.pth"]  # the temporary file was removed


_INTERRUPTED_EPOCH = """
import os, sys, time, pyth
from pyth.utils.data import DataLoader, Dataset

class Slow(Dataset):
    def __len__(self):
        return 10_000
    def __getitem__(self, i):
        with open(os.path.join(sys.argv[1], str(os.getpid())), "w"):
            pass
        time.sleep(0.01)
        return pyth.full((4,), float(i))

try:
    for i, batch in enumerate(DataLoader(Slow(), batch_size=4, num_workers=2)):
        if i == 2:
            print("mid-epoch", flush=True)
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""


def test_interrupted_main_process_leaves_no_worker(tmp_path):
    shm = _shm()
    p = _child(_INTERRUPTED_EPOCH, str(tmp_path))
    assert p.stdout.readline().strip() == "mid-epoch"
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert "interrupted" in out, err
    workers = [int(name) for name in os.listdir(tmp_path)]
    assert len(workers) == 2 and p.pid not in workers
    deadline = time.time() + 10
    while any(_alive(w) for w in workers) and time.time() < deadline:
        time.sleep(0.05)
    assert not any(_alive(w) for w in workers)
    assert _shm() <= shm


_QUEUE_THOUSAND = """
import os, pyth
import pyth.multiprocessing as mp

def produce(q, done):
    for i in range(1000):
        q.put(pyth.full((16,), float(i)))
    q.put(None)
    done.wait(60)  # as with PyTorch: the sender lives until its descriptors were taken

if __name__ == "__main__":
    ctx = mp.get_context("fork")
    live = pyth.memory_stats()["live_bytes"]
    q, done = ctx.Queue(), ctx.Event()
    child = ctx.Process(target=produce, args=(q, done))
    child.start()
    total, n = 0.0, 0
    while (t := q.get(timeout=60)) is not None:
        total += t[0].item()
        del t
        n += 1
        if n == 10:  # the queue's pipes and the child's sentinel exist by now
            fds = len(os.listdir("/proc/self/fd"))
    growth = len(os.listdir("/proc/self/fd")) - fds  # over the other 990 tensors
    done.set()
    child.join(30)
    print(total, child.exitcode, growth, pyth.memory_stats()["live_bytes"] - live, flush=True)
"""


def test_a_thousand_tensors_through_a_queue_leave_nothing():
    shm = _shm()
    p = _child(_QUEUE_THOUSAND)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    total, exitcode, fd_growth, live_growth = out.split()
    assert float(total) == sum(range(1000)) and exitcode == "0"
    assert int(fd_growth) == 0, out
    assert int(live_growth) == 0, out
    assert _shm() <= shm
