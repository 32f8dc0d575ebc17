"""A process forked after pyth ran OpenMP threads keeps working (lib/THGeneral.h, THThreads_max).

libgomp keeps its thread pool across fork() although the threads are gone: a child's first
parallel region waited for them forever (a DataLoader worker forked after a large op hung). Such
a child now runs every kernel on its one thread. Each case runs in a fresh interpreter (a hang
must not take the test process with it) under a timeout; the child's results are compared with
the parent's, computed by the threaded kernels.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

import pyth

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")

# the children import the pyth this test imported (installed, or built in the tree)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(pyth.__file__)))

# Each: an expression over x (4M floats), m (a 512x512 matrix) and b (a batch of images),
# large enough for every kernel family to split its work between threads in the parent.
OPS = {
    "pointwise": "(x * 2 + 1).exp().sum().item()",
    "reduction": "x.reshape(2000, 2000).sum(1).sum().item()",
    "cumsum": "x.cumsum(0)[-1].item()",
    "sort": "x.sort()[0][::400000].tolist()",
    "topk": "x.reshape(2000, 2000).topk(3, dim=1)[0].sum().item()",
    "matmul": "(m @ m).sum().item()",
    "conv2d": "pyth.nn.functional.conv2d(b, w).sum().item()",
    "softmax": "x.reshape(2000, 2000).softmax(1).sum().item()",
    "transposed copy": "x.reshape(2000, 2000).t().contiguous()[7].sum().item()",
    "batched solve": "pyth.linalg.solve(s, s.sum(-1, keepdim=True)).sum().item()",
}

SCRIPT = """
import os, sys
import pyth
pyth.manual_seed(0)
x = pyth.rand(4_000_000)
m = pyth.rand(512, 512)
b = pyth.rand(64, 8, 32, 32)
w = pyth.rand(16, 8, 3, 3)
s = pyth.rand(1024, 32, 32)
s.diagonal(dim1=-2, dim2=-1).add_(32)   # well conditioned; a small op: no threads yet
threaded = {threaded}
expr = {expr!r}
SMALL = {small!r}
# the parent's threads run before the fork, or only small ops that ask for none
parent = eval(expr) if threaded else eval(SMALL)
r, wfd = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(r)
    out = [pyth.get_num_threads(), eval(expr)]
    try:
        pyth.set_num_threads(2)
        out.append("set ok")
    except RuntimeError as e:
        out.append(str(e))
    pyth.set_num_threads(1)            # always allowed
    os.write(wfd, repr(out).encode())
    os._exit(0)
os.close(wfd)
got = b""
while True:
    chunk = os.read(r, 65536)
    if not chunk:
        break
    got += chunk
os.waitpid(pid, 0)
print(repr([pyth.get_num_threads(), parent, eval(got.decode())]))
"""


# ops below the grain of every kernel family that asks for threads only above it
SMALL_OPS = ("[x[:1000].sum().item(), x[:1000].reshape(10, 100).sort(1)[0][0, 0].item(), "
             "x[:1000].reshape(10, 100).var(1).sum().item(), (x[:1000] * 2).exp().sum().item(), "
             "x[:1000].reshape(10, 100).topk(2, dim=1)[0].sum().item()]")


def _run(expr: str, threaded: bool = True) -> list:
    env = dict(os.environ, PYTHONPATH=ROOT, OMP_NUM_THREADS="2")
    code = textwrap.dedent(SCRIPT).format(expr=expr, threaded=threaded, small=SMALL_OPS)
    try:
        p = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                           timeout=120, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"a child forked after threaded work hung on {expr}")
    assert p.returncode == 0, p.stderr
    return eval(p.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", sorted(OPS))
def test_child_forked_after_threads_runs_each_kernel_family(name):
    parent_threads, parent, (child_threads, child, set_two) = _run(OPS[name])
    assert parent_threads == 2            # the parent keeps its threads
    assert child_threads == 1
    # one thread sums in another order than two: equal up to rounding, lists exactly
    assert child == pytest.approx(parent, rel=1e-5)
    assert "forked after its parent ran OpenMP threads" in set_two and "spawn" in set_two


def test_child_of_a_parent_without_threads_keeps_them():
    """Small reductions, sorts and pointwise ops in the parent start no team: the child keeps
    its threads (and computes what the parent did)."""
    parent_threads, parent, (child_threads, child, set_two) = _run(SMALL_OPS, threaded=False)
    assert parent_threads == child_threads == 2 and set_two == "set ok"
    assert child == pytest.approx(parent)


def test_dataloader_fork_workers_after_threaded_work():
    code = textwrap.dedent("""
        import pyth
        from pyth.utils.data import DataLoader, TensorDataset
        x = pyth.rand(4_000_000)
        (x * 2).exp().sum()                    # threads in the parent
        data = TensorDataset(pyth.rand(8, 400_000), pyth.arange(8))
        loader = DataLoader(data, batch_size=4, num_workers=2,
                            multiprocessing_context="fork",
                            collate_fn=lambda items: pyth.stack([a * 2 for a, _ in items]).exp())
        print(sum(float(batch.sum()) > 0 for batch in loader))
    """)
    env = dict(os.environ, PYTHONPATH=ROOT, OMP_NUM_THREADS="2")
    try:
        p = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                           timeout=120, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail("DataLoader fork workers hung after threaded work in the parent")
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().splitlines()[-1] == "2"
