"""The gradient reducer behind DistributedDataParallel: buckets of gradients averaged across
ranks while backward runs.

1. Parameters are packed into buckets of about bucket_cap_mb, in reverse order of registration
   (backward produces the last layers' gradients first) and one dtype per bucket; each bucket
   owns one flat tensor, so one MPI allreduce carries it.
2. A hook runs after backward accumulated each parameter's .grad: it copies the gradient into
   its bucket's slot, and when a bucket's last slot is filled the bucket's non-blocking
   allreduce starts, while backward goes on to earlier layers.
3. Buckets start in index order on every rank (a bucket that fills early waits for the ones
   before it), so all ranks issue the same collectives in the same order.
4. When the last bucket has started, the reducer waits for all of them, divides by the world
   size and writes the averages back into each .grad: backward returns with averaged gradients.
"""

from __future__ import annotations

import weakref
from typing import Any

from ...autograd import no_grad
from ...autograd.graph import AccumulateGrad
from ...distributed.collectives import _all_reduce
from ...distributed.process_group import ProcessGroup
from ...distributed.reduce_op import ReduceOp
from ..._prims.creation import empty
from ...tensor import Tensor

_UNFINISHED = ("Expected to have finished reduction in the prior iteration before starting a "
               "new one. This error indicates that your module has parameters that were not "
               "used in producing loss. You can enable unused parameter detection by passing "
               "the keyword argument `find_unused_parameters=True` to "
               "`pyth.nn.parallel.DistributedDataParallel`, and by making sure all `forward` "
               "function outputs participate in calculating loss. Parameters that received no "
               "gradient on rank {rank}: {names}")


class _Bucket:
    """Parameters whose gradients travel together in one flat tensor."""

    __slots__ = ("flat", "offsets", "params", "pending", "work")

    def __init__(self, params: list) -> None:
        self.params = params
        self.offsets = []
        n = 0
        for p in params:
            self.offsets.append(n)
            n += p.numel()
        self.flat = empty(n, dtype=params[0].dtype)
        self.pending = 0
        self.work = None

    def slot(self, i: int) -> Any:
        p = self.params[i]
        return self.flat.narrow(0, self.offsets[i], p.numel()).view(p.shape)


def _buckets(params: list, cap_bytes: int) -> list:
    """Reverse-order, single-dtype buckets of about cap_bytes (at least one parameter each)."""
    open_by_dtype: dict = {}
    done = []
    for p in reversed(params):
        cur = open_by_dtype.setdefault(p.dtype, [[], 0])
        size = p.numel() * p.element_size()
        if cur[0] and cur[1] + size > cap_bytes:
            done.append(cur[0])
            cur = open_by_dtype[p.dtype] = [[], 0]
        cur[0].append(p)
        cur[1] += size
    done.extend(c[0] for c in open_by_dtype.values() if c[0])
    return [_Bucket(b) for b in done]


class Reducer:
    """Averages the gradients of `params` (name -> parameter) across `group` during backward."""

    def __init__(self, named_params: list, group: ProcessGroup, cap_bytes: int) -> None:
        self.group = group
        self.names = {id(p): n for n, p in named_params}
        self.buckets = _buckets([p for _, p in named_params], cap_bytes)
        self.where = {}
        for bi, b in enumerate(self.buckets):
            for i, p in enumerate(b.params):
                self.where[id(p)] = (bi, i)
        self.active = False
        self.started = False
        self.next = 0
        self.marked: set = set()
        me = weakref.ref(self)
        self.handles = [p.register_post_accumulate_grad_hook(_hook(me))
                        for _, p in named_params]

    def __del__(self) -> None:
        for h in getattr(self, "handles", ()):
            h.remove()

    def prepare(self, outputs: Any = None, find_unused: bool = False) -> None:
        """Expect one backward: every bucket fills once. With find_unused, the parameters that
        `outputs` do not depend on count as ready now (their gradient is zero this step)."""
        if self.active and self.started:
            missing = [self.names[id(p)] for b in self.buckets for p in b.params
                       if id(p) not in self.marked]
            raise RuntimeError(_UNFINISHED.format(rank=self.group.rank(), names=missing))
        self.active, self.started, self.next = True, False, 0
        self.marked = set()
        for b in self.buckets:
            b.pending, b.work = len(b.params), None
        if find_unused:
            used = _reachable_leaves(outputs)
            for b in self.buckets:
                for p in b.params:
                    if id(p) not in used:
                        self.ready(p, unused=True)

    def cancel(self) -> None:
        """No reduction this step (no_sync, or no grad)."""
        self.active = False

    def ready(self, p: Any, unused: bool = False) -> None:
        """p's gradient for this step is final: put it in its bucket."""
        if not self.active:
            return
        if id(p) in self.marked:
            raise RuntimeError(f"Expected to mark a variable ready only once: parameter "
                               f"{self.names[id(p)]} received a second gradient in the same "
                               "iteration (a second backward before the next forward?)")
        self.marked.add(id(p))
        self.started = True
        bi, i = self.where[id(p)]
        b = self.buckets[bi]
        with no_grad():
            if p.grad is None:
                b.slot(i).zero_()
            else:
                b.slot(i).copy_(p.grad)
        b.pending -= 1
        if b.pending == 0:
            self._launch()
        elif self.next:   # MPI progresses a started allreduce only inside MPI calls: poke it
            self.buckets[self.next - 1].work.is_completed()

    def _launch(self) -> None:
        while self.next < len(self.buckets) and self.buckets[self.next].pending == 0:
            b = self.buckets[self.next]
            b.work = _all_reduce(self.group, b.flat, ReduceOp.SUM)
            self.next += 1
        if self.next == len(self.buckets):
            self._finish()

    def _finish(self) -> None:
        n = self.group.size()
        with no_grad():
            for b in self.buckets:
                b.work.wait()
                b.flat.div_(n)
                for i, p in enumerate(b.params):
                    if p.grad is not None:
                        p.grad.copy_(b.slot(i))
        self.active = False


def _hook(reducer_ref: Any) -> Any:
    def hook(p: Any) -> None:
        r = reducer_ref()
        if r is not None:
            r.ready(p)
    return hook


def _reachable_leaves(outputs: Any) -> set:
    """ids of the leaf tensors whose gradients backward from outputs would accumulate."""
    stack = [t.grad_fn for t in _tensors(outputs) if t.grad_fn is not None]
    seen, leaves = set(), set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if type(node) is AccumulateGrad:
            leaves.add(id(node.variable))
        stack.extend(nf for nf, _ in node._next)
    return leaves


def _tensors(obj: Any) -> list:
    if isinstance(obj, Tensor):
        return [obj]
    if isinstance(obj, dict):
        obj = list(obj.values())
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in _tensors(o)]
    return []
