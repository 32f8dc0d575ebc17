"""pyth.nn.parallel: data parallelism across processes (DistributedDataParallel over MPI)."""

from .distributed import DistributedDataParallel

__all__ = ["DistributedDataParallel"]
