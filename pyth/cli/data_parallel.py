"""train --distributed: the same training on every rank mpiexec started, each on its share of
every batch, with gradients averaged by DistributedDataParallel (rank 0 reports and writes).

The global batch stays --batch-size (each rank takes batch_size / world of it), so two ranks
follow the same optimisation path as one process and reach the same accuracy.
"""

from __future__ import annotations

from typing import Any

import pyth

from . import UsageError


class DataParallel:
    """Joins the process group; wraps the model, shards the data, sums the epoch's loss."""

    def __init__(self) -> None:
        import pyth.distributed as dist
        try:
            dist.init_process_group("mpi")
        except ImportError as e:
            raise UsageError(str(e)) from None
        self.dist = dist
        self.rank, self.world = dist.get_rank(), dist.get_world_size()
        self.sampler: Any = None

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    def wrap(self, model: Any) -> Any:
        from pyth.nn.parallel import DistributedDataParallel
        return DistributedDataParallel(model)

    def loader(self, dataset: Any, batch_size: int, workers: int, seed: int) -> Any:
        """This rank's DataLoader: its share of each shuffled epoch, batch_size / world."""
        from pyth.utils.data import DataLoader
        from pyth.utils.data.distributed import DistributedSampler
        if batch_size % self.world:
            raise UsageError(f"--batch-size {batch_size} does not split evenly over "
                             f"{self.world} ranks")
        self.sampler = DistributedSampler(dataset, shuffle=True, seed=seed)
        return DataLoader(dataset, batch_size=batch_size // self.world, sampler=self.sampler,
                          num_workers=workers)

    def start_epoch(self, epoch: int) -> None:
        self.sampler.set_epoch(epoch)

    def totals(self, loss_sum: float, count: int) -> tuple:
        """The epoch's summed loss and sample count over all ranks."""
        t = pyth.tensor([loss_sum, float(count)], dtype=pyth.float64)
        self.dist.all_reduce(t)
        return t[0].item(), int(t[1].item())

    def close(self) -> None:
        self.dist.barrier()
        self.dist.destroy_process_group()
