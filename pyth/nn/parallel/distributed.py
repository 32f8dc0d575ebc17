"""DistributedDataParallel: one model replica per rank, gradients averaged during backward.

Each rank runs the same module on its own share of the batch. At construction the ranks check
that their models have the same parameters and take rank 0's values; during backward the
Reducer (_reducer.py) averages gradients in buckets as they become ready, so after backward
every rank holds the gradient of the mean loss over the whole batch and the same optimizer
step keeps the replicas identical.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from ...autograd import is_grad_enabled
from ...distributed.collectives import _broadcast
from ...distributed.process_group import resolve
from ..modules.module import Module
from ._reducer import Reducer


class DistributedDataParallel(Module):
    """Wrap `module` for data-parallel training over pyth.distributed (MPI).

    Example (launched with `mpiexec -n 2 python train.py`)::

        dist.init_process_group("mpi")
        model = DistributedDataParallel(Net())
        loss_fn(model(x_shard), y_shard).backward()   # grads now averaged over the ranks
    """

    def __init__(self, module: Module, device_ids: Any = None, output_device: Any = None,
                 dim: int = 0, broadcast_buffers: bool = True, init_sync: bool = True,
                 process_group: Any = None, bucket_cap_mb: float | None = None,
                 find_unused_parameters: bool = False, check_reduction: bool = False,
                 gradient_as_bucket_view: bool = False, static_graph: bool = False) -> None:
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(f"DistributedDataParallel: module must be a pyth.nn.Module, got "
                            f"{type(module).__name__}")
        if device_ids not in (None, [], ["cpu"]) or output_device not in (None, "cpu"):
            raise ValueError("DistributedDataParallel: device_ids and output_device must be "
                             "None for CPU modules")
        group = resolve(process_group)
        named = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
        if not named:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't "
                               "have any parameter that requires a gradient.")
        cap = 25.0 if bucket_cap_mb is None else float(bucket_cap_mb)
        if not cap > 0:
            raise ValueError(f"DistributedDataParallel: bucket_cap_mb must be positive, got "
                             f"{bucket_cap_mb}")
        self.module = module
        self.process_group = group
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        _verify_same_model(group, module)
        if init_sync:
            self._sync(list(module.parameters()) + list(module.buffers()))
        self.reducer = Reducer(named, group, int(cap * 1024 * 1024))

    def _sync(self, tensors: list) -> None:
        """Overwrite tensors with the first rank's values (all broadcasts in flight at once)."""
        src = self.process_group.ranks[0]
        for w in [_broadcast(self.process_group, t, src) for t in tensors]:
            w.wait()

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        sync = is_grad_enabled() and self.require_backward_grad_sync
        if sync:
            self.reducer.prepare()   # raises if the last backward left buckets unfilled
        if self.broadcast_buffers and self.require_forward_param_sync:
            buffers = list(self.module.buffers())
            if buffers:
                self._sync(buffers)
        out = self.module(*inputs, **kwargs)
        if sync and self.find_unused_parameters:
            self.reducer.prepare(out, find_unused=True)
        elif not sync:
            self.reducer.cancel()
        return out

    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Backward inside this block only accumulates local gradients (no communication);
        the first synchronised backward after it averages the accumulated sum."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old


def _verify_same_model(group: Any, module: Module) -> None:
    """RuntimeError on every rank when the ranks' parameters or buffers differ in name, shape
    or dtype (DDP needs the same model everywhere)."""
    mine = [(kind, n, tuple(t.shape), t.dtype.name)
            for kind, items in (("parameter", module.named_parameters()),
                                ("buffer", module.named_buffers()))
            for n, t in items]
    everyone = group.comm.allgather(mine)
    for r, theirs in enumerate(everyone):
        if theirs == mine:
            continue
        for a, b in zip(mine, theirs):
            if a != b:
                raise RuntimeError(f"DistributedDataParallel: the ranks' models differ: rank "
                                   f"{group.rank()} has {a[0]} {a[1]} of shape {a[2]} "
                                   f"({a[3]}), rank {group.ranks[r]} has {b[0]} {b[1]} of "
                                   f"shape {b[2]} ({b[3]})")
        raise RuntimeError(f"DistributedDataParallel: the ranks' models differ: rank "
                           f"{group.rank()} has {len(mine)} parameters and buffers, rank "
                           f"{group.ranks[r]} has {len(theirs)}")
