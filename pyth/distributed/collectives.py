"""torch.distributed's collectives and point-to-point calls over MPI's non-blocking operations.

Every call follows the same steps: check the arguments on this rank, agree with the other
ranks (_agree.py), hand the tensors' memory to a non-blocking MPI call (_buffers.py), and
return a Work whose wait() finishes the job (copies staged outputs back, divides an AVG).
Without async_op the call waits before returning. src and dst are global ranks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..autograd import no_grad
from ..dtypes import short
from .._prims.creation import empty
from ..autograd.recorded import cat
from ..tensor import Tensor
from ._agree import agree, local_error
from ._buffers import Buf, ListBuf, mpi_type
from ._mpi import mpi
from .process_group import GroupMember, ProcessGroup, _world_rank, resolve
from .reduce_op import ReduceOp, check_op, mpi_op
from .work import Work, run

# ---- argument checks (local; their errors travel through agree) --------------------------------

def _group(group: Any) -> ProcessGroup | None:
    """The group to run on, or None when this rank is not in it (the call is then a no-op)."""
    if group is GroupMember.NON_GROUP_MEMBER:
        resolve(None)
        return None
    g = resolve(group)
    return g if g.group_rank(_world_rank()) is not None else None


def _tensor_error(name: str, t: Any, what: str = "tensor") -> tuple | None:
    if not isinstance(t, Tensor):
        return local_error(TypeError, f"{name}: {what} must be a pyth.Tensor, got "
                                      f"{type(t).__name__}")
    return None


def _rank_error(name: str, g: ProcessGroup, rank: Any, what: str) -> tuple | None:
    if rank is None or isinstance(rank, bool) or not isinstance(rank, int):
        return local_error(ValueError, f"{name}: {what} must be a rank (an int), got {rank!r}")
    if g.group_rank(rank) is None:
        ranks = g.ranks if len(g.ranks) <= 8 else f"{g.ranks[0]}, ..., {g.ranks[-1]}"
        return local_error(ValueError, f"{name}: {what}={rank} is not a rank of the group "
                                       f"(its ranks: {ranks})")
    return None


def _parts_error(name: str, what: str, tensors: Any, n: int) -> tuple | None:
    """tensors must be a list of n pyth tensors (one per rank)."""
    if not isinstance(tensors, (list, tuple)):
        return local_error(TypeError, f"{name}: {what} must be a list of tensors, got "
                                      f"{type(tensors).__name__}")
    if len(tensors) != n:
        return local_error(ValueError, f"{name}: {what} must hold one tensor per rank "
                                       f"({n}), got {len(tensors)}")
    return _first(*(_tensor_error(name, t, f"{what}[{i}]") for i, t in enumerate(tensors)))


def _list_error(name: str, what: str, tensors: Any, ref: Tensor, n: int) -> tuple | None:
    """_parts_error, and every tensor of ref's dtype and shape."""
    err = _parts_error(name, what, tensors, n)
    if err:
        return err
    for i, t in enumerate(tensors):
        if t.dtype is not ref.dtype:
            return local_error(TypeError, f"{name}: {what}[{i}] has dtype {t.dtype.name} but "
                                          f"tensor has {ref.dtype.name}")
        if tuple(t.shape) != tuple(ref.shape):
            return local_error(ValueError, f"{name}: {what}[{i}] has shape {tuple(t.shape)} "
                                           f"but tensor has {tuple(ref.shape)}")
    return None


def _op_error(name: str, t: Any, op: Any) -> tuple | None:
    msg = check_op(op, t.dtype, name) if isinstance(t, Tensor) else None
    return local_error(TypeError, msg) if msg else None


def _first(*errors: Any) -> tuple | None:
    return next((e for e in errors if e is not None), None)


def _facts(t: Any, **more: Any) -> dict:
    base = {"dtype": t.dtype.name, "shape": list(t.shape)} if isinstance(t, Tensor) else {}
    base.update(more)
    return base


def _average(stage: Tensor, n: int) -> None:
    with no_grad():
        if stage.dtype.is_floating_point:
            stage.div_(n)
        else:
            stage.div_(n, rounding_mode="trunc")


# ---- collectives -------------------------------------------------------------------------------

def all_reduce(tensor: Tensor, op: ReduceOp = ReduceOp.SUM, group: Any = None,
               async_op: bool = False) -> Work | None:
    """Reduce tensor across the ranks with op, in place on every rank."""
    g = _group(group)
    if g is None:
        return None
    name = "all_reduce"
    err = _first(_tensor_error(name, tensor), _op_error(name, tensor, op))
    agree(g, name, _facts(tensor, op=getattr(op, "name", None)), err)
    return run(_all_reduce(g, tensor, op), async_op)


def _all_reduce(g: ProcessGroup, tensor: Tensor, op: ReduceOp) -> Work:
    """all_reduce without the agreement step (DistributedDataParallel's checked buckets)."""
    buf = Buf(tensor, write=True)
    req = g.comm.Iallreduce(mpi().IN_PLACE, buf.spec, mpi_op(op, tensor.dtype))

    def finish() -> None:
        if op is ReduceOp.AVG:
            _average(buf.stage, g.size())
        buf.finish()
    return Work("all_reduce", [req], finish, [tensor], keep=[buf])


def broadcast(tensor: Tensor, src: int | None = None, group: Any = None,
              async_op: bool = False, group_src: int | None = None) -> Work | None:
    """Copy src's tensor into tensor on every rank."""
    g = _group(group)
    if g is None:
        return None
    name = "broadcast"
    src = _global(g, src, group_src)
    agree(g, name, _facts(tensor, src=src),
          _first(_tensor_error(name, tensor), _rank_error(name, g, src, "src")))
    return run(_broadcast(g, tensor, src), async_op)


def _broadcast(g: ProcessGroup, tensor: Tensor, src: int) -> Work:
    buf = Buf(tensor, write=True)
    req = g.comm.Ibcast(buf.spec, root=g.group_rank(src))
    return Work("broadcast", [req], buf.finish, [tensor], keep=[buf])


def _global(g: ProcessGroup, rank: int | None, group_rank: int | None) -> Any:
    """A global rank from either the global or the in-group form of the argument."""
    if group_rank is not None:
        if rank is not None:
            raise ValueError("pass either the global rank or the group rank, not both")
        if not isinstance(group_rank, int) or not 0 <= group_rank < g.size():
            return group_rank if not isinstance(group_rank, int) else -1
        return g.ranks[group_rank]
    return rank


def reduce(tensor: Tensor, dst: int | None = None, op: ReduceOp = ReduceOp.SUM,
           group: Any = None, async_op: bool = False,
           group_dst: int | None = None) -> Work | None:
    """Reduce tensor across the ranks into dst's tensor (other ranks' tensors are unchanged)."""
    g = _group(group)
    if g is None:
        return None
    name = "reduce"
    dst = _global(g, dst, group_dst)
    err = _first(_tensor_error(name, tensor), _rank_error(name, g, dst, "dst"),
                 _op_error(name, tensor, op))
    agree(g, name, _facts(tensor, dst=dst, op=getattr(op, "name", None)), err)
    root = g.group_rank(dst)
    MPI = mpi()
    if g.rank() == root:
        buf = Buf(tensor, write=True)
        req = g.comm.Ireduce(MPI.IN_PLACE, buf.spec, mpi_op(op, tensor.dtype), root=root)

        def finish() -> None:
            if op is ReduceOp.AVG:
                _average(buf.stage, g.size())
            buf.finish()
        return run(Work(name, [req], finish, [tensor], keep=[buf]), async_op)
    buf = Buf(tensor)
    req = g.comm.Ireduce(buf.spec, None, mpi_op(op, tensor.dtype), root=root)
    return run(Work(name, [req], None, [tensor], keep=[buf]), async_op)


def all_gather(tensor_list: list, tensor: Tensor, group: Any = None,
               async_op: bool = False) -> Work | None:
    """tensor_list[r] = rank r's tensor, on every rank."""
    g = _group(group)
    if g is None:
        return None
    name = "all_gather"
    err = _first(_tensor_error(name, tensor))
    if err is None:
        err = _list_error(name, "tensor_list", tensor_list, tensor, g.size())
    agree(g, name, _facts(tensor), err)
    src, out = Buf(tensor), ListBuf(tensor_list, write=True)
    req = g.comm.Iallgather(src.spec, out.spec)
    return run(Work(name, [req], out.finish, tensor_list, keep=[src, out]), async_op)


def all_gather_into_tensor(output_tensor: Tensor, input_tensor: Tensor, group: Any = None,
                           async_op: bool = False) -> Work | None:
    """output_tensor = the ranks' input tensors concatenated (or stacked) along dim 0."""
    g = _group(group)
    if g is None:
        return None
    name = "all_gather_into_tensor"
    err = _first(_tensor_error(name, output_tensor, "output_tensor"),
                 _tensor_error(name, input_tensor, "input_tensor"))
    if err is None:
        err = _cat_error(name, output_tensor, input_tensor, g.size(), "output_tensor")
    agree(g, name, _facts(input_tensor), err)
    src, out = Buf(input_tensor), Buf(output_tensor, write=True)
    req = g.comm.Iallgather(src.spec, out.spec)
    return run(Work(name, [req], out.finish, [output_tensor], keep=[src, out]), async_op)


def _cat_error(name: str, big: Tensor, part: Tensor, n: int, what: str) -> tuple | None:
    """big must be n parts concatenated along dim 0, or stacked along a new dim 0."""
    if big.dtype is not part.dtype:
        return local_error(TypeError, f"{name}: {what} has dtype {big.dtype.name}, the other "
                                      f"tensor {part.dtype.name}")
    p = tuple(part.shape)
    cat = (p[0] * n,) + p[1:] if p else None
    if tuple(big.shape) not in ((n,) + p, cat):
        want = f"({n},) + {p}" + (f" or {cat}" if cat else "")
        return local_error(ValueError, f"{name}: {what} has shape {tuple(big.shape)}, "
                                       f"expected {want} for {n} ranks")
    return None


def gather(tensor: Tensor, gather_list: list | None = None, dst: int | None = None,
           group: Any = None, async_op: bool = False,
           group_dst: int | None = None) -> Work | None:
    """gather_list[r] = rank r's tensor, on dst only (gather_list is None elsewhere)."""
    g = _group(group)
    if g is None:
        return None
    name = "gather"
    dst = _global(g, dst, group_dst)
    err = _first(_tensor_error(name, tensor), _rank_error(name, g, dst, "dst"))
    me_root = err is None and _world_rank() == dst
    if err is None and me_root:
        err = _list_error(name, "gather_list", gather_list, tensor, g.size())
    elif err is None and gather_list:
        err = local_error(ValueError, f"{name}: gather_list must NOT be specified on "
                                      "non-destination ranks")
    agree(g, name, _facts(tensor, dst=dst), err)
    src = Buf(tensor)
    out = ListBuf(gather_list, write=True) if me_root else None
    req = g.comm.Igather(src.spec, out.spec if out else None, root=g.group_rank(dst))
    return run(Work(name, [req], out.finish if out else None, gather_list or [],
                    keep=[src, out]), async_op)


def scatter(tensor: Tensor, scatter_list: list | None = None, src: int | None = None,
            group: Any = None, async_op: bool = False,
            group_src: int | None = None) -> Work | None:
    """tensor = scatter_list[r] of src, on each rank r (scatter_list is None off src)."""
    g = _group(group)
    if g is None:
        return None
    name = "scatter"
    src = _global(g, src, group_src)
    err = _first(_tensor_error(name, tensor), _rank_error(name, g, src, "src"))
    me_root = err is None and _world_rank() == src
    if err is None and me_root:
        err = _list_error(name, "scatter_list", scatter_list, tensor, g.size())
    elif err is None and scatter_list:
        err = local_error(ValueError, f"{name}: scatter_list must NOT be specified on "
                                      "non-source ranks")
    agree(g, name, _facts(tensor, src=src), err)
    inp = ListBuf(scatter_list, write=False) if me_root else None
    out = Buf(tensor, write=True)
    req = g.comm.Iscatter(inp.spec if inp else None, out.spec, root=g.group_rank(src))
    return run(Work(name, [req], out.finish, [tensor], keep=[inp, out]), async_op)


def reduce_scatter(output: Tensor, input_list: list, op: ReduceOp = ReduceOp.SUM,
                   group: Any = None, async_op: bool = False) -> Work | None:
    """output on rank r = input_list[r] reduced across the ranks."""
    g = _group(group)
    if g is None:
        return None
    name = "reduce_scatter"
    err = _tensor_error(name, output, "output")
    if err is None:
        err = _list_error(name, "input_list", input_list, output, g.size())
    err = err or _op_error(name, output, op)
    agree(g, name, _facts(output, op=getattr(op, "name", None)), err)
    return run(_reduce_scatter(g, name, output, ListBuf(input_list, write=False), op), async_op)


def reduce_scatter_tensor(output: Tensor, input: Tensor, op: ReduceOp = ReduceOp.SUM,
                          group: Any = None, async_op: bool = False) -> Work | None:
    """output on rank r = part r of input (split along dim 0) reduced across the ranks."""
    g = _group(group)
    if g is None:
        return None
    name = "reduce_scatter_tensor"
    err = _first(_tensor_error(name, output, "output"), _tensor_error(name, input, "input"))
    if err is None:
        err = _cat_error(name, input, output, g.size(), "input")
    err = err or _op_error(name, output, op)
    agree(g, name, _facts(output, op=getattr(op, "name", None)), err)
    return run(_reduce_scatter(g, name, output, Buf(input), op), async_op)


def _reduce_scatter(g: ProcessGroup, name: str, output: Tensor, inp: Any, op: ReduceOp) -> Work:
    out = Buf(output, write=True)
    req = g.comm.Ireduce_scatter_block(inp.spec, out.spec, mpi_op(op, output.dtype))

    def finish() -> None:
        if op is ReduceOp.AVG:
            _average(out.stage, g.size())
        out.finish()
    return Work(name, [req], finish, [output], keep=[inp, out])


def all_to_all_single(output: Tensor, input: Tensor,
                      output_split_sizes: Sequence[int] | None = None,
                      input_split_sizes: Sequence[int] | None = None, group: Any = None,
                      async_op: bool = False) -> Work | None:
    """Split input along dim 0, send part j to rank j, and concatenate what arrives (part from
    rank i at position i) into output; equal parts unless split sizes are given."""
    g = _group(group)
    if g is None:
        return None
    name = "all_to_all_single"
    n = g.size()
    err = _first(_tensor_error(name, output, "output"), _tensor_error(name, input, "input"))
    ins = outs = None
    if err is None:
        ins, err = _splits(name, "input", input, input_split_sizes, n)
    if err is None:
        outs, err = _splits(name, "output", output, output_split_sizes, n)
    if err is None and output.dtype is not input.dtype:
        err = local_error(TypeError, f"{name}: output has dtype {output.dtype.name}, input "
                                     f"{input.dtype.name}")
    if err is None and tuple(output.shape[1:]) != tuple(input.shape[1:]):
        err = local_error(ValueError, f"{name}: output's rows {tuple(output.shape[1:])} differ "
                                      f"from input's {tuple(input.shape[1:])}")
    facts = {"dtype": input.dtype.name, "row shape": list(input.shape[1:])} \
        if err is None else {}
    splits = agree(g, name, facts, err, extra=(ins, outs))
    for r in range(n):
        expected = [splits[s][0][r] for s in range(n)]
        if splits[r][1] != expected:
            raise RuntimeError(f"{name}: output_split_sizes {splits[r][1]} on rank "
                               f"{g.ranks[r]} do not match what the ranks send it: {expected}")
    row = 1
    for s in input.shape[1:]:
        row *= s
    src, dst = Buf(input), Buf(output, write=True)
    t = mpi_type(input.dtype)
    req = g.comm.Ialltoallv([src.array, _counts(ins, row), t], [dst.array, _counts(outs, row), t])
    return run(Work(name, [req], dst.finish, [output], keep=[src, dst]), async_op)


def all_to_all(output_tensor_list: list, input_tensor_list: list, group: Any = None,
               async_op: bool = False) -> Work | None:
    """Send input_tensor_list[j] to rank j; output_tensor_list[i] receives what rank i sent.
    The tensors may differ in shape (each output must hold as many elements as its sender's
    input); all share one dtype. One MPI all-to-all over the lists packed end to end."""
    g = _group(group)
    if g is None:
        return None
    name = "all_to_all"
    n = g.size()
    err = _parts_error(name, "output_tensor_list", output_tensor_list, n)
    err = err or _parts_error(name, "input_tensor_list", input_tensor_list, n)
    dtype = output_tensor_list[0].dtype if err is None else None
    if err is None:
        for what, ts in (("output_tensor_list", output_tensor_list),
                         ("input_tensor_list", input_tensor_list)):
            for i, t in enumerate(ts):
                if t.dtype is not dtype:
                    err = err or local_error(TypeError, f"{name}: {what}[{i}] has dtype "
                                                        f"{t.dtype.name}, output_tensor_list[0] "
                                                        f"{dtype.name}")
    sizes = ([t.numel() for t in input_tensor_list], [t.numel() for t in output_tensor_list]) \
        if err is None else None
    everyone = agree(g, name, {"dtype": dtype.name} if err is None else {}, err, extra=sizes)
    ins, outs = sizes
    for r in range(n):
        expected = [everyone[s][0][r] for s in range(n)]
        if everyone[r][1] != expected:
            raise RuntimeError(f"{name}: the outputs on rank {g.ranks[r]} hold "
                               f"{everyone[r][1]} elements, the ranks send it {expected}")
    with no_grad():
        packed = cat([t.detach().reshape(-1) for t in input_tensor_list]) if sum(ins) else \
            empty(0, dtype=dtype)
    src, dst = Buf(packed), Buf(empty(sum(outs), dtype=dtype), write=True)
    t = mpi_type(dtype)
    req = g.comm.Ialltoallv([src.array, _counts(ins, 1), t], [dst.array, _counts(outs, 1), t])

    def finish() -> None:
        with no_grad():
            at = 0
            for out, k in zip(output_tensor_list, outs):
                out.detach().copy_(dst.stage[at:at + k].view(tuple(out.shape)))
                at += k
    return run(Work(name, [req], finish, list(output_tensor_list), keep=[src, dst]), async_op)


def _splits(name: str, what: str, t: Tensor, sizes: Any, n: int) -> tuple:
    rows = t.shape[0] if t.dim() else 1
    if t.dim() == 0:
        return None, local_error(ValueError, f"{name}: {what} must have at least one dim")
    if sizes is None or len(sizes) == 0:
        if rows % n:
            return None, local_error(ValueError, f"{name}: {what}.size(0)={rows} does not "
                                                 f"split evenly over {n} ranks")
        return [rows // n] * n, None
    sizes = [int(s) for s in sizes]
    if len(sizes) != n or any(s < 0 for s in sizes) or sum(sizes) != rows:
        return None, local_error(ValueError, f"{name}: {what}_split_sizes {sizes} must be {n} "
                                             f"non-negative sizes adding up to {what}.size(0)"
                                             f"={rows}")
    return sizes, None


def _counts(splits: list, row: int) -> tuple:
    counts = [s * row for s in splits]
    displs = [sum(counts[:i]) for i in range(len(counts))]
    return (counts, displs)


def barrier(group: Any = None, async_op: bool = False, device_ids: Any = None) -> Work | None:
    """Wait until every rank of the group reached the barrier."""
    g = _group(group)
    if g is None:
        return None
    return run(Work("barrier", [g.comm.Ibarrier()]), async_op)


# ---- point to point ----------------------------------------------------------------------------

def _tag_error(name: str, g: ProcessGroup, tag: Any) -> tuple | None:
    """A message tag must be an int MPI carries: 0 <= tag <= MPI_TAG_UB (at least 32767)."""
    if isinstance(tag, bool) or not isinstance(tag, int):
        return local_error(TypeError, f"{name}: tag must be an int, got {type(tag).__name__}")
    upper = g.comm.Get_attr(mpi().TAG_UB)
    if not 0 <= tag <= upper:
        return local_error(ValueError, f"{name}: tag={short(tag)} is outside the range "
                                       f"of MPI message tags [0, {upper}]")
    return None


def _p2p_peer(name: str, g: ProcessGroup, peer: Any, what: str, tensor: Any,
              tag: Any) -> None:
    err = _first(_tensor_error(name, tensor), _rank_error(name, g, peer, what),
                 _tag_error(name, g, tag))
    if err is not None:
        raise {"TypeError": TypeError}.get(err[0], ValueError)(err[1])
    if peer == _world_rank():
        raise ValueError(f"{name}: {what}={peer} is this rank: a rank cannot {name} to itself")


def isend(tensor: Tensor, dst: int | None = None, group: Any = None, tag: int = 0,
          group_dst: int | None = None) -> Work | None:
    """Start sending tensor to rank dst; the Work's wait() returns once it may be reused."""
    g = _group(group)
    if g is None:
        return None
    dst = _global(g, dst, group_dst)
    _p2p_peer("send", g, dst, "dst", tensor, tag)
    buf = Buf(tensor)
    req = g.comm.Isend(buf.spec, dest=g.group_rank(dst), tag=tag)
    return Work("send", [req], None, [tensor], keep=[buf])


def irecv(tensor: Tensor, src: int | None = None, group: Any = None, tag: int = 0,
          group_src: int | None = None) -> Work | None:
    """Start receiving into tensor from rank src (any rank when None); wait() checks that the
    message filled tensor exactly."""
    g = _group(group)
    if g is None:
        return None
    MPI = mpi()
    src = _global(g, src, group_src)
    if src is not None:
        _p2p_peer("recv", g, src, "src", tensor, tag)
    elif not isinstance(tensor, Tensor):
        raise TypeError(f"recv: tensor must be a pyth.Tensor, got {type(tensor).__name__}")
    else:
        err = _tag_error("recv", g, tag)
        if err is not None:
            raise {"TypeError": TypeError}.get(err[0], ValueError)(err[1])
    buf = Buf(tensor, write=True)
    status = MPI.Status()
    source = MPI.ANY_SOURCE if src is None else g.group_rank(src)
    req = g.comm.Irecv(buf.spec, source=source, tag=tag)

    def finish() -> int:
        got = status.Get_count(buf.spec[1])
        sender = g.ranks[status.Get_source()]
        if got != buf.array.size:
            raise RuntimeError(f"recv: rank {sender} sent {got} elements but tensor holds "
                               f"{buf.array.size} (shape {tuple(tensor.shape)})")
        buf.finish()
        return sender
    return Work("recv", [req], finish, [tensor], statuses=[status], keep=[buf])


def send(tensor: Tensor, dst: int | None = None, group: Any = None, tag: int = 0,
         group_dst: int | None = None) -> None:
    """Send tensor to rank dst (blocks until the buffer may be reused)."""
    w = isend(tensor, dst, group, tag, group_dst)
    if w is not None:
        w.wait()


def recv(tensor: Tensor, src: int | None = None, group: Any = None, tag: int = 0,
         group_src: int | None = None) -> int:
    """Receive into tensor from rank src (any rank when None); returns the sender's rank."""
    w = irecv(tensor, src, group, tag, group_src)
    if w is None:
        return -1
    w.wait()
    return w._value


# ---- Python objects (pickled by mpi4py) --------------------------------------------------------

def broadcast_object_list(object_list: list, src: int | None = None, group: Any = None,
                          device: Any = None, group_src: int | None = None) -> None:
    """object_list[:] = src's object_list (picklable objects), on every rank."""
    g = _group(group)
    if g is None:
        return
    src = _global(g, src, group_src)
    agree(g, "broadcast_object_list", {"src": src, "length": len(object_list)},
          _rank_error("broadcast_object_list", g, src, "src"))
    object_list[:] = g.comm.bcast(list(object_list), root=g.group_rank(src))


def all_gather_object(object_list: list, obj: Any, group: Any = None) -> None:
    """object_list[r] = rank r's obj, on every rank."""
    g = _group(group)
    if g is None:
        return
    if len(object_list) != g.size():
        raise ValueError(f"all_gather_object: object_list must have {g.size()} entries, got "
                         f"{len(object_list)}")
    object_list[:] = g.comm.allgather(obj)

