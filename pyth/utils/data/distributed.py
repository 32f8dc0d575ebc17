"""DistributedSampler: each rank reads its own, equally long share of a data set.

The indices (shuffled by a generator seeded with seed + epoch, the same on every rank) are
padded by repeating the first ones until they divide evenly over the ranks (or trimmed with
drop_last), then rank r takes every num_replicas-th index starting at r: the shares are
disjoint and together cover the data set, as PyTorch's sampler partitions it.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sized
from typing import Any

try:  # the Sampler base class, where pyth.utils.data has one
    from .sampler import Sampler
except ImportError:  # pragma: no cover
    Sampler = object


class DistributedSampler(Sampler):
    """Indices of this rank's share of `dataset`; call set_epoch(e) before each epoch so the
    shuffle changes between epochs (identically on all ranks)."""

    def __init__(self, dataset: Sized, num_replicas: int | None = None, rank: int | None = None,
                 shuffle: bool = True, seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None or rank is None:   # from the default process group
            from ... import distributed as dist
            if num_replicas is None:
                num_replicas = dist.get_world_size()
            if rank is None:
                rank = dist.get_rank()
        if num_replicas < 1:
            raise ValueError(f"num_replicas must be at least 1, got {num_replicas}")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[int]:
        n = len(self.dataset)
        if self.shuffle:
            from ... import randperm
            from ...random import Generator
            g = Generator()
            g.manual_seed(self.seed + self.epoch)
            indices: list[Any] = randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            pad = self.total_size - len(indices)
            if pad <= len(indices):
                indices += indices[:pad]
            else:
                indices += (indices * math.ceil(pad / len(indices)))[:pad]
        else:
            indices = indices[:self.total_size]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Make the next iteration shuffle with seed + epoch."""
        self.epoch = epoch
