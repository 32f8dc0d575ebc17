"""The multi-rank half of tests/test_distributed.py: run as `PYTHONPATH=. mpiexec -n 2 python
tests/distributed_job.py OUTDIR` (or plain `python` for a world of one). Every check runs on
every rank against numpy oracles; each rank writes {check: "ok" | traceback} to
OUTDIR/rank<r>.json. Values are chosen exactly representable so sums are exact in every dtype.
"""

from __future__ import annotations

import datetime
import faulthandler
import json
import os
import sys
import traceback

import numpy as np

import pyth
import pyth.distributed as dist
from pyth import nn
from pyth.distributed import ReduceOp
from pyth.nn.parallel import DistributedDataParallel as DDP

DTYPES = [pyth.uint8, pyth.int8, pyth.int16, pyth.int32, pyth.int64, pyth.float32,
          pyth.float64, pyth.float16, pyth.bfloat16, pyth.bool]
FLOATS = [pyth.float32, pyth.float64, pyth.float16, pyth.bfloat16]


def values(rank: int, dtype: pyth.dtype, shape: tuple, salt: int = 0) -> np.ndarray:
    """Rank rank's data as float64/bool numpy: small integers (over 4 for floats), exact in
    every dtype, so sums and products across ranks are exact too."""
    rng = np.random.default_rng(1000 * salt + rank)
    if dtype is pyth.bool:
        return rng.random(shape) < 0.5
    lo, hi = (0, 4) if dtype is pyth.uint8 else (-3, 4)
    v = rng.integers(lo, hi, shape).astype(np.float64)
    return v / 4 if dtype.is_floating_point else v


def make(arr: np.ndarray, dtype: pyth.dtype, contiguous: bool = True) -> pyth.Tensor:
    """A pyth tensor of dtype holding arr (a transposed, non-contiguous view if asked)."""
    if not contiguous and arr.ndim == 2:
        return make(arr.T, dtype).t()
    if dtype is pyth.bool:
        return pyth.from_numpy(np.array(arr, dtype=np.bool_, order="C"))
    return pyth.from_numpy(np.array(arr, dtype=np.float64, order="C")).to(dtype)


def as_np(t: pyth.Tensor) -> np.ndarray:
    if t.dtype is pyth.bool:
        return t.numpy().copy()
    return t.double().numpy().copy()


def same(t: pyth.Tensor, expected: np.ndarray, what: str) -> None:
    got = as_np(t)
    expected = as_np(make(expected, t.dtype))   # rounded to t's dtype (an AVG over 3 ranks)
    if got.shape != expected.shape or not np.array_equal(got, expected):
        raise AssertionError(f"{what}: got {got.tolist()}, expected {expected.tolist()}")


def reduce_np(arrays: list, op: ReduceOp, dtype: pyth.dtype, world: int) -> np.ndarray:
    if dtype is pyth.bool:
        red = {ReduceOp.SUM: np.any, ReduceOp.MAX: np.any, ReduceOp.BOR: np.any,
               ReduceOp.PRODUCT: np.all, ReduceOp.MIN: np.all, ReduceOp.BAND: np.all,
               ReduceOp.BXOR: np.logical_xor.reduce}[op]
        return red(np.stack(arrays), axis=0)
    st = np.stack(arrays)
    if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR):
        f = {ReduceOp.BAND: np.bitwise_and, ReduceOp.BOR: np.bitwise_or,
             ReduceOp.BXOR: np.bitwise_xor}[op]
        return f.reduce(st.astype(np.int64), axis=0).astype(np.float64)
    r = {ReduceOp.SUM: np.sum, ReduceOp.AVG: np.sum, ReduceOp.PRODUCT: np.prod,
         ReduceOp.MIN: np.min, ReduceOp.MAX: np.max}[op](st, axis=0)
    if op is ReduceOp.AVG:
        r = r / world if dtype.is_floating_point else np.trunc(r / world)
    if dtype is pyth.uint8:
        r = np.mod(r, 256)
    return r


def ops_for(dtype: pyth.dtype) -> list:
    ops = [ReduceOp.SUM, ReduceOp.PRODUCT, ReduceOp.MIN, ReduceOp.MAX]
    if dtype is not pyth.bool:
        ops.append(ReduceOp.AVG)
    if not dtype.is_floating_point:
        ops += [ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR]
    return ops


def expect(exc: type, text: str, fn, *args, **kwargs) -> None:
    try:
        fn(*args, **kwargs)
    except exc as e:
        if text not in str(e):
            raise AssertionError(f"{exc.__name__} without {text!r}: {e}") from e
        return
    raise AssertionError(f"expected {exc.__name__} ({text!r})")


# ---- checks ------------------------------------------------------------------------------------

def check_world(rank: int, world: int) -> None:
    assert dist.is_initialized() and dist.get_backend() == "mpi"
    assert dist.get_rank() == rank and dist.get_world_size() == world
    assert world == int(os.environ.get("PYTH_TEST_WORLD", "1"))
    dist.barrier()
    w = dist.barrier(async_op=True)
    assert w.wait() is True and w.is_completed()


def check_all_reduce(rank: int, world: int) -> None:
    for dtype in DTYPES:
        for op in ops_for(dtype):
            for contiguous in (True, False):
                arrays = [values(r, dtype, (3, 4), salt=1) for r in range(world)]
                t = make(arrays[rank], dtype, contiguous)
                dist.all_reduce(t, op=op)
                same(t, reduce_np(arrays, op, dtype, world), f"all_reduce {dtype} {op}")
        t = make(values(rank, dtype, (5,)), dtype)
        w = dist.all_reduce(t, async_op=True)
        assert w.wait() and w.is_completed() and w.result()[0] is t
        same(t, reduce_np([values(r, dtype, (5,)) for r in range(world)], ReduceOp.SUM, dtype,
                          world), f"async all_reduce {dtype}")


def check_all_reduce_shapes(rank: int, world: int) -> None:
    for shape in [(), (0,), (2, 0, 3), (7,), (2, 3, 4)]:
        arrays = [values(r, pyth.float32, shape) for r in range(world)]
        t = make(arrays[rank], pyth.float32)
        dist.all_reduce(t)
        same(t, np.sum(np.stack(arrays), axis=0), f"all_reduce shape {shape}")
    # expanded (stride 0) input of a reduce stays unchanged off dst; columns of a matrix
    base = make(values(rank, pyth.float64, (4, 6)), pyth.float64)
    col = base[:, 1::2]
    dist.all_reduce(col)
    exp = np.sum(np.stack([values(r, pyth.float64, (4, 6)) for r in range(world)]), axis=0)
    same(col, exp[:, 1::2], "all_reduce strided columns")
    same(base[:, ::2], values(rank, pyth.float64, (4, 6))[:, ::2], "untouched columns")
    # zero-copy: a contiguous tensor's own memory goes to MPI, a strided one's is staged
    from pyth.distributed._buffers import Buf
    for dtype in DTYPES:
        t = make(values(rank, dtype, (3, 4)), dtype)
        assert Buf(t).array.ctypes.data == t.data_ptr(), f"{dtype} was copied"
        assert Buf(t.t()).array.ctypes.data != t.data_ptr()
        assert Buf(t[1]).array.ctypes.data == t[1].data_ptr()
    # a leaf that requires grad can be reduced in place (no graph recorded)
    p = pyth.ones(3, dtype=pyth.float64, requires_grad=True)
    dist.all_reduce(p)
    assert p.grad_fn is None and p.requires_grad
    same(p.detach(), np.full(3, float(world)), "all_reduce on a leaf")


def check_broadcast(rank: int, world: int) -> None:
    src = world - 1
    for dtype in DTYPES:
        for contiguous in (True, False):
            t = make(values(rank, dtype, (3, 4), salt=2), dtype, contiguous)
            dist.broadcast(t, src=src)
            same(t, values(src, dtype, (3, 4), salt=2), f"broadcast {dtype}")
    t = make(values(rank, pyth.int64, (6,)), pyth.int64)
    dist.broadcast(t, src=0, async_op=True).wait()
    same(t, values(0, pyth.int64, (6,)), "async broadcast")


def check_reduce(rank: int, world: int) -> None:
    dst = world - 1
    for dtype in DTYPES:
        for op in (ReduceOp.SUM, ReduceOp.MAX):
            arrays = [values(r, dtype, (3, 4), salt=3) for r in range(world)]
            t = make(arrays[rank], dtype, contiguous=False)
            w = dist.reduce(t, dst=dst, op=op, async_op=True)
            w.wait()
            exp = reduce_np(arrays, op, dtype, world) if rank == dst else arrays[rank]
            same(t, exp, f"reduce {dtype} {op}")


def check_all_gather(rank: int, world: int) -> None:
    for dtype in DTYPES:
        arrays = [values(r, dtype, (2, 3), salt=4) for r in range(world)]
        t = make(arrays[rank], dtype, contiguous=False)
        out = [make(np.zeros((3, 2), dtype=arrays[0].dtype), dtype).t() for _ in range(world)]
        dist.all_gather(out, t)
        for r in range(world):
            same(out[r], arrays[r], f"all_gather {dtype} [{r}]")
        cat = pyth.zeros(2 * world, 3, dtype=dtype)
        dist.all_gather_into_tensor(cat, t)
        same(cat, np.concatenate(arrays), f"all_gather_into_tensor {dtype}")
        stacked = pyth.zeros(world, 2, 3, dtype=dtype)
        dist.all_gather_into_tensor(stacked, t, async_op=True).wait()
        same(stacked, np.stack(arrays), f"all_gather_into_tensor stacked {dtype}")


def check_gather_scatter(rank: int, world: int) -> None:
    root = world - 1
    for dtype in DTYPES:
        arrays = [values(r, dtype, (4,), salt=5) for r in range(world)]
        t = make(arrays[rank], dtype)
        out = [pyth.zeros(4, dtype=dtype) for _ in range(world)] if rank == root else None
        dist.gather(t, out, dst=root)
        if rank == root:
            for r in range(world):
                same(out[r], arrays[r], f"gather {dtype} [{r}]")
        parts = [make(values(r, dtype, (2, 2), salt=6), dtype, contiguous=False)
                 for r in range(world)] if rank == root else None
        recv = pyth.zeros(2, 2, dtype=dtype).t()
        dist.scatter(recv, parts, src=root, async_op=True).wait()
        same(recv, values(rank, dtype, (2, 2), salt=6), f"scatter {dtype}")


def check_reduce_scatter(rank: int, world: int) -> None:
    for dtype in DTYPES:
        for op in (ReduceOp.SUM, ReduceOp.MIN):
            # rank s contributes inputs[s][j] to rank j
            inputs = [[values(10 * s + j, dtype, (3,), salt=7) for j in range(world)]
                      for s in range(world)]
            out = pyth.zeros(3, dtype=dtype)
            dist.reduce_scatter(out, [make(a, dtype) for a in inputs[rank]], op=op)
            same(out, reduce_np([inputs[s][rank] for s in range(world)], op, dtype, world),
                 f"reduce_scatter {dtype} {op}")
            big = make(np.concatenate(inputs[rank]), dtype)
            out2 = pyth.zeros(3, dtype=dtype)
            dist.reduce_scatter_tensor(out2, big, op=op)
            same(out2, as_np(out), f"reduce_scatter_tensor {dtype} {op}")


def check_all_to_all(rank: int, world: int) -> None:
    for dtype in DTYPES:
        # equal parts: rank s sends rows [2j, 2j+2) of its input to rank j
        inputs = [values(s, dtype, (2 * world, 3), salt=8) for s in range(world)]
        out = pyth.zeros(2 * world, 3, dtype=dtype)
        dist.all_to_all_single(out, make(inputs[rank], dtype))
        exp = np.concatenate([inputs[s][2 * rank:2 * rank + 2] for s in range(world)])
        same(out, exp, f"all_to_all_single {dtype}")
    # uneven parts: rank s sends s + j + 1 rows to rank j
    sizes = [[s + j + 1 for j in range(world)] for s in range(world)]
    inputs = [values(s, pyth.float64, (sum(sizes[s]), 2), salt=9) for s in range(world)]
    recv_sizes = [sizes[s][rank] for s in range(world)]
    out = pyth.zeros(sum(recv_sizes), 2, dtype=pyth.float64)
    w = dist.all_to_all_single(out, make(inputs[rank], pyth.float64, contiguous=False),
                               recv_sizes, sizes[rank], async_op=True)
    w.wait()
    parts = []
    for s in range(world):
        start = sum(sizes[s][:rank])
        parts.append(inputs[s][start:start + sizes[s][rank]])
    same(out, np.concatenate(parts), "all_to_all_single uneven")


def check_all_to_all_lists(rank: int, world: int) -> None:
    # rank s sends rank j a (s + j + 1, 2) tensor; rank j's output from s is flat (same numel)
    for dtype in DTYPES:
        sent = [[values(s, dtype, (s + j + 1, 2), salt=20 + j) for j in range(world)]
                for s in range(world)]
        inputs = [make(a, dtype, contiguous=(j % 2 == 0)) for j, a in enumerate(sent[rank])]
        outputs = [pyth.zeros(2 * (s + rank + 1), dtype=dtype) for s in range(world)]
        w = dist.all_to_all(outputs, inputs, async_op=(dtype is pyth.float64))
        if w is not None:
            w.wait()
        for s in range(world):
            same(outputs[s], sent[s][rank].reshape(-1), f"all_to_all {dtype} from rank {s}")
    # empty parts and a non-contiguous output
    outs = [pyth.zeros(3, 2).t() for _ in range(world)]
    dist.all_to_all(outs, [pyth.full((2, 3), float(rank)) for _ in range(world)])
    for s in range(world):
        same(outs[s], np.full((2, 3), float(s)), "all_to_all into transposed outputs")
    dist.all_to_all([pyth.zeros(0) for _ in range(world)], [pyth.zeros(0) for _ in range(world)])
    expect(ValueError, "output_tensor_list must hold one tensor per rank", dist.all_to_all,
           [pyth.zeros(1)] * (world + 1), [pyth.zeros(1)] * world)
    expect(TypeError, "input_tensor_list[0] has dtype float64", dist.all_to_all,
           [pyth.zeros(1)] * world, [pyth.zeros(1, dtype=pyth.float64)] * world)
    expect(RuntimeError, "the ranks send it", dist.all_to_all,
           [pyth.zeros(2)] * world, [pyth.zeros(1)] * world)


def check_work_timeout_and_future(rank: int, world: int) -> None:
    t = pyth.full((3,), float(rank + 1))
    w = dist.all_reduce(t, async_op=True)
    fut = w.get_future()
    assert fut is w.get_future()
    doubled = fut.then(lambda f: f.value()[0] * 2)
    total = world * (world + 1) / 2
    same(doubled.wait(), np.full(3, 2 * total), "get_future().then")
    assert w.wait(timeout=datetime.timedelta(seconds=30)) and fut.done()
    same(fut.value()[0], np.full(3, total), "get_future().value")
    seen = []
    fut.add_done_callback(lambda f: seen.append(f.value()[0].tolist()))
    assert seen == [[total] * 3]                       # already done: runs at once
    expect(TypeError, "timeout must be", dist.all_reduce(pyth.ones(1), async_op=True).wait,
           "5s")
    if world < 2:
        return
    if rank == 0:
        got = pyth.zeros(2)
        w = dist.irecv(got, src=1, tag=7)
        expect(RuntimeError, "recv: timed out after 0.05 s", w.wait, timeout=0.05)
        dist.barrier()                                 # rank 1 sends only after this
        assert w.wait(timeout=30)
        same(got, np.array([7.0, 8.0]), "irecv after a timed-out wait")
    else:
        dist.barrier()
        if rank == 1:
            dist.send(pyth.tensor([7.0, 8.0]), dst=0, tag=7)


def check_send_recv(rank: int, world: int) -> None:
    if world < 2:
        expect(ValueError, "cannot send to itself", dist.send, pyth.ones(2), dst=0)
        return
    nxt, prv = (rank + 1) % world, (rank - 1) % world
    for dtype in DTYPES:
        t = make(values(rank, dtype, (3, 2), salt=10), dtype)
        got = pyth.zeros(2, 3, dtype=dtype).t()
        w = dist.irecv(got, src=prv, tag=5)
        dist.isend(t, dst=nxt, tag=5).wait()
        w.wait()
        same(got, values(prv, dtype, (3, 2), salt=10), f"isend/irecv {dtype}")
    if rank == 0:
        dist.send(pyth.arange(4, dtype=pyth.int32), dst=1)
    elif rank == 1:
        buf = pyth.zeros(4, dtype=pyth.int32)
        assert dist.recv(buf) == 0
        same(buf, np.arange(4.0), "recv from any source")


def check_objects(rank: int, world: int) -> None:
    objs = [{"rank": rank}, "x"] if rank == 0 else [None, None]
    dist.broadcast_object_list(objs, src=0)
    assert objs == [{"rank": 0}, "x"], objs
    gathered = [None] * world
    dist.all_gather_object(gathered, ("r", rank))
    assert gathered == [("r", r) for r in range(world)], gathered


def check_new_group(rank: int, world: int) -> None:
    last = dist.new_group([world - 1])
    if rank == world - 1:
        assert dist.get_rank(last) == 0 and dist.get_world_size(last) == 1
        t = pyth.ones(2)
        dist.all_reduce(t, group=last)
        same(t, np.ones(2), "all_reduce in a group of one")
        dist.broadcast(t, src=world - 1, group=last)
    else:
        assert last is dist.GroupMember.NON_GROUP_MEMBER
        assert dist.all_reduce(pyth.ones(2), group=last) is None
    whole = dist.new_group()
    t = pyth.full((3,), float(rank))
    dist.all_reduce(t, group=whole)
    same(t, np.full(3, float(sum(range(world)))), "all_reduce in new_group()")
    dist.destroy_process_group(whole)


def check_errors(rank: int, world: int) -> None:
    expect(RuntimeError, "twice", dist.init_process_group, "mpi")
    expect(TypeError, "ReduceOp.BAND needs an integer", dist.all_reduce, pyth.ones(2),
           op=ReduceOp.BAND)
    expect(TypeError, "AVG is not defined for bool", dist.all_reduce,
           pyth.ones(2, dtype=pyth.bool), op=ReduceOp.AVG)
    expect(TypeError, "must be a pyth.Tensor", dist.all_reduce, np.ones(2))
    expect(ValueError, f"src={world} is not a rank", dist.broadcast, pyth.ones(2), src=world)
    expect(ValueError, "one tensor per rank", dist.all_gather, [pyth.ones(2)] * (world + 1),
           pyth.ones(2))
    expect(ValueError, "shape (3,) but tensor has (2,)", dist.all_gather,
           [pyth.ones(3)] * world, pyth.ones(2))
    expect(ValueError, "expected", dist.all_gather_into_tensor, pyth.ones(world + 1),
           pyth.ones(1))
    # a tag MPI cannot carry: ValueError before anything is sent (never cffi's OverflowError)
    for tag in (2**40, -1, 2**64):
        expect(ValueError, "outside the range of MPI message tags", dist.isend, pyth.ones(2),
               dst=(rank + 1) % world, tag=tag)
        expect(ValueError, "outside the range of MPI message tags", dist.irecv, pyth.ones(2),
               tag=tag)
    expect(TypeError, "tag must be an int", dist.send, pyth.ones(2), dst=(rank + 1) % world,
           tag=1.5)
    if world < 2:
        return
    expect(ValueError, "does not split evenly", dist.all_to_all_single, pyth.ones(world + 1),
           pyth.ones(world + 1))
    # mismatches across ranks: every rank raises the same RuntimeError, nobody hangs
    expect(RuntimeError, "shape differs across ranks: rank 0 has (2,), rank 1 has (3,)",
           dist.all_reduce, pyth.ones(2 + rank))
    expect(RuntimeError, "dtype differs across ranks", dist.broadcast,
           pyth.ones(2, dtype=pyth.float32 if rank else pyth.float64), src=0)
    expect(RuntimeError, "rank 0 called all_reduce, rank 1 called broadcast",
           *((dist.all_reduce, pyth.ones(2)) if rank == 0 else (dist.broadcast, pyth.ones(2))),
           **({} if rank == 0 else {"src": 0}))
    expect(RuntimeError, "src differs across ranks", dist.broadcast, pyth.ones(2), src=rank)
    expect(RuntimeError, "op differs across ranks", dist.all_reduce, pyth.ones(2),
           op=ReduceOp.SUM if rank else ReduceOp.MAX)
    # a wrong argument on one rank: ValueError there, RuntimeError naming it elsewhere
    if rank == 0:
        expect(ValueError, "scatter_list must hold one tensor per rank", dist.scatter,
               pyth.ones(2), [pyth.ones(2)], src=0)
    else:
        expect(RuntimeError, "rank 0 rejected its arguments: scatter: scatter_list must hold",
               dist.scatter, pyth.ones(2), None, src=0)
    expect(RuntimeError, "do not match what the ranks send it", dist.all_to_all_single,
           pyth.ones(world + rank), pyth.ones(world), [1 + rank] + [1] * (world - 1))
    # a message longer or shorter than the receiving tensor
    if rank == 0:
        dist.send(pyth.ones(3), dst=1)
        dist.send(pyth.ones(5), dst=1)
    elif rank == 1:
        expect(RuntimeError, "rank 0 sent 3 elements but tensor holds 4", dist.recv,
               pyth.zeros(4), src=0)
        expect(RuntimeError, "recv: MPI error", dist.recv, pyth.zeros(4), src=0)
    dist.barrier()


# ---- DistributedDataParallel -------------------------------------------------------------------

def _model(seed: int) -> nn.Module:
    pyth.manual_seed(seed)
    return nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3)).double()


def _batch(n: int, salt: int) -> tuple:
    rng = np.random.default_rng(salt)
    return (pyth.from_numpy(rng.standard_normal((n, 5))),
            pyth.from_numpy(rng.standard_normal((n, 3))))


def _sgd(params, lr: float = 0.1) -> None:
    with pyth.no_grad():
        for p in params:
            p.sub_(p.grad * lr)
            p.grad = None


def _close(model: nn.Module, ref: nn.Module, what: str) -> None:
    for (n, p), (_, q) in zip(model.named_parameters(), ref.named_parameters()):
        a, b = p.detach().numpy(), q.detach().numpy()
        if not np.allclose(a, b, rtol=1e-12, atol=1e-13):
            raise AssertionError(f"{what}: {n} differs by {np.abs(a - b).max()}")


def check_ddp_matches_single_process(rank: int, world: int) -> None:
    shard = 4
    loss_fn = nn.MSELoss()
    for cap in (None, 1e-5):   # one bucket; one bucket per parameter
        ddp = DDP(_model(seed=rank), bucket_cap_mb=cap)
        ref = _model(seed=0)
        _close(ddp.module, ref, "after construction (rank 0's parameters)")
        for step in range(4):
            x, y = _batch(shard * world, salt=step)
            loss_fn(ddp(x[rank * shard:(rank + 1) * shard]),
                    y[rank * shard:(rank + 1) * shard]).backward()
            loss_fn(ref(x), y).backward()
            for (n, p), (_, q) in zip(ddp.module.named_parameters(), ref.named_parameters()):
                if not np.allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-12, atol=1e-14):
                    raise AssertionError(f"step {step} cap {cap}: grad of {n} differs")
            _sgd(ddp.parameters())
            _sgd(ref.parameters())
        _close(ddp.module, ref, f"after 4 steps (bucket_cap_mb={cap})")
    assert list(ddp.state_dict()) == [f"module.{k}" for k in ref.state_dict()]


def check_ddp_no_sync(rank: int, world: int) -> None:
    shard = 3
    loss_fn = nn.MSELoss()
    ddp, ref = DDP(_model(seed=rank + 7)), _model(seed=7)
    for step in range(3):
        micro = [_batch(shard * world, salt=100 + 2 * step + k) for k in range(2)]
        with ddp.no_sync():
            x, y = micro[0]
            loss_fn(ddp(x[rank * shard:(rank + 1) * shard]),
                    y[rank * shard:(rank + 1) * shard]).backward()
        x, y = micro[1]
        loss_fn(ddp(x[rank * shard:(rank + 1) * shard]),
                y[rank * shard:(rank + 1) * shard]).backward()
        for x, y in micro:
            loss_fn(ref(x), y).backward()
        _sgd(ddp.parameters())
        _sgd(ref.parameters())
    _close(ddp.module, ref, "no_sync accumulation")


class _Mixed(nn.Module):
    """float64 and float32 parameters: DDP keeps one dtype per bucket."""

    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(5, 6).double()
        self.b = nn.Linear(6, 4)
        self.c = nn.Linear(4, 3).double()

    def forward(self, x: pyth.Tensor) -> pyth.Tensor:
        return self.c(self.b(self.a(x).float()).double())


def check_ddp_mixed_dtypes(rank: int, world: int) -> None:
    shard, loss_fn = 3, nn.MSELoss()
    for cap in (None, 1e-4):
        pyth.manual_seed(rank)
        ddp = DDP(_Mixed(), bucket_cap_mb=cap)
        pyth.manual_seed(0)
        ref = _Mixed()
        for step in range(3):
            x, y = _batch(shard * world, salt=200 + step)
            loss_fn(ddp(x[rank * shard:(rank + 1) * shard]),
                    y[rank * shard:(rank + 1) * shard]).backward()
            loss_fn(ref(x), y).backward()
            _sgd(ddp.parameters())
            _sgd(ref.parameters())
        for (n, p), (_, q) in zip(ddp.module.named_parameters(), ref.named_parameters()):
            assert p.dtype is q.dtype
            if not np.allclose(p.detach().double().numpy(), q.detach().double().numpy(),
                               rtol=1e-5, atol=1e-6):
                raise AssertionError(f"mixed dtypes (cap {cap}): {n} differs")


class _TwoHeads(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.used = nn.Linear(3, 2).double()
        self.unused = nn.Linear(3, 2).double()

    def forward(self, x: pyth.Tensor) -> pyth.Tensor:
        return self.used(x)


def check_ddp_unused_parameters(rank: int, world: int) -> None:
    x = pyth.full((2, 3), float(rank + 1), dtype=pyth.float64)
    pyth.manual_seed(rank)
    ddp = DDP(_TwoHeads(), find_unused_parameters=True, bucket_cap_mb=1e-5)
    for _ in range(2):
        ddp(x).sum().backward()
    mean = sum(r + 1 for r in range(world)) / world
    same(ddp.module.used.weight.grad, np.full((2, 3), 2 * 2 * mean), "unused: used grad")
    assert ddp.module.unused.weight.grad is None
    pyth.manual_seed(rank)
    strict = DDP(_TwoHeads())
    strict(x).sum().backward()
    expect(RuntimeError, "unused.weight", strict, x)


def check_ddp_errors(rank: int, world: int) -> None:
    expect(RuntimeError, "doesn't have any parameter", DDP, nn.Tanh())
    expect(TypeError, "must be a pyth.nn.Module", DDP, lambda x: x)
    if world > 1:
        expect(RuntimeError, "the ranks' models differ", DDP, nn.Linear(3, 2 + rank))


def check_sampler(rank: int, world: int) -> None:
    from pyth.utils.data.distributed import DistributedSampler
    data = list(range(11))
    for shuffle in (False, True):
        for drop_last in (False, True):
            s = DistributedSampler(data, shuffle=shuffle, drop_last=drop_last, seed=3)
            assert s.num_replicas == world and s.rank == rank
            s.set_epoch(2)
            mine = list(s)
            assert len(mine) == len(s)
            shares = [None] * world
            dist.all_gather_object(shares, mine)
            flat = sorted(i for sh in shares for i in sh)
            if drop_last:
                assert len(set(flat)) == len(flat) == (11 // world) * world, shares
            else:
                assert set(flat) == set(data) and len(flat) == len(s) * world, shares


CHECKS = {name[len("check_"):]: fn for name, fn in list(globals().items())
          if name.startswith("check_")}


def main() -> None:
    outdir = sys.argv[1]
    faulthandler.dump_traceback_later(float(os.environ.get("PYTH_TEST_HANG_AFTER", "100")),
                                      exit=True)
    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    results = {}
    only = os.environ.get("PYTH_TEST_ONLY")
    for name, fn in CHECKS.items():
        if only and name not in only.split(","):
            continue
        try:
            fn(rank, world)
            results[name] = "ok"
        except Exception:  # noqa: BLE001  (a failed check is a result, the others still run)
            results[name] = traceback.format_exc()
        print(f"rank {rank}: {name}: {'ok' if results[name] == 'ok' else results[name]}",
              flush=True)
    dist.barrier()
    dist.destroy_process_group()
    assert not dist.is_initialized()
    with open(os.path.join(outdir, f"rank{rank}.json"), "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main()
