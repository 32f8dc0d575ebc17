"""Datasets: map-style (index -> sample) and iterable ones, and ways to combine and split them."""

from __future__ import annotations

import bisect
import math
from typing import Any, Iterable, Iterator, Sequence

from ...tensor import Tensor


class Dataset:
    """A map-style dataset: __getitem__(index) returns one sample (and usually __len__)."""

    def __getitem__(self, index: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__")

    def __add__(self, other: "Dataset") -> "ConcatDataset":
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A dataset read as a stream (__iter__); each worker iterates its own copy, so split the
    work in __iter__ with get_worker_info()."""

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")

    def __add__(self, other: "Dataset") -> "ChainDataset":
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Sample i is the tuple of every tensor's row i; the tensors share their first size."""

    def __init__(self, *tensors: Tensor) -> None:
        if not tensors:
            raise ValueError("TensorDataset(): needs at least one tensor")
        for i, t in enumerate(tensors):
            if not isinstance(t, Tensor) or t.dim() == 0:
                raise ValueError(f"TensorDataset(): argument {i} is not a tensor with a first "
                                 f"dimension")
        n = tensors[0].size(0)
        if any(t.size(0) != n for t in tensors):
            raise ValueError(f"Size mismatch between tensors: first sizes "
                             f"{[t.size(0) for t in tensors]}")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class ConcatDataset(Dataset):
    """The datasets one after another."""

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise TypeError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes, total = [], 0
        for d in self.datasets:
            total += len(d)
            self.cumulative_sizes.append(total)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> Any:
        n = len(self)
        if idx < 0:
            if -idx > n:
                raise ValueError("absolute value of index should not exceed dataset length")
            idx += n
        if idx >= n:
            raise IndexError(f"index {idx} is out of range for a dataset of length {n}")
        d = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[d - 1] if d else 0
        return self.datasets[d][idx - start]


class ChainDataset(IterableDataset):
    """Iterable datasets one after another."""

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = list(datasets)

    def __iter__(self) -> Iterator[Any]:
        for d in self.datasets:
            yield from d

    def __len__(self) -> int:
        return sum(len(d) for d in self.datasets)


class Subset(Dataset):
    """The samples of dataset at the given indices."""

    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, list):
            return [self.dataset[self.indices[i]] for i in idx]
        return self.dataset[self.indices[idx]]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset: Dataset, lengths: Sequence[float], generator: Any = None) -> list:
    """Split into non-overlapping random Subsets of the given lengths (or fractions summing to
    1, rounded down with the remainder dealt round-robin, as PyTorch does)."""
    from ...random import randperm
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            counts.append(int(math.floor(n * frac)))
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
    if any(int(v) != v or v < 0 for v in lengths):
        raise ValueError(f"random_split(): lengths must be non-negative integers or fractions "
                         f"summing to 1, got {list(lengths)}")
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    perm = randperm(n, generator=generator).tolist()
    out, start = [], 0
    for k in lengths:
        out.append(Subset(dataset, perm[start:start + int(k)]))
        start += int(k)
    return out
