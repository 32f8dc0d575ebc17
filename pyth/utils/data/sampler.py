"""Samplers: the order in which a DataLoader visits a map-style dataset's indices."""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Sequence

from ... import random as _random
from ...tensor import Tensor


def _generator(generator: Any) -> Any:
    """The generator to draw from: the given one, or a fresh one seeded from the global RNG
    (as PyTorch does, so each epoch differs but torch.manual_seed fixes the sequence)."""
    if generator is not None:
        return generator
    seed = int(_random.randint(0, 2 ** 62, (), dtype=None).item())
    return _random.Generator().manual_seed(seed)


class Sampler:
    """Iterates over indices (or lists of indices, for batch samplers)."""

    def __init__(self, data_source: Any = None) -> None:
        pass

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source: Any) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation, or num_samples draws with replacement."""

    def __init__(self, data_source: Any, replacement: bool = False,
                 num_samples: int | None = None, generator: Any = None) -> None:
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got "
                            f"replacement={replacement}")
        self.data_source, self.replacement, self.generator = data_source, replacement, generator
        self._num_samples = num_samples
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n, g = len(self.data_source), _generator(self.generator)
        if self.replacement:
            for start in range(0, self.num_samples, 32):
                k = min(32, self.num_samples - start)
                yield from _random.randint(0, n, (k,), generator=g).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from _random.randperm(n, generator=g).tolist()
        yield from _random.randperm(n, generator=g).tolist()[:self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in random order."""

    def __init__(self, indices: Sequence[int], generator: Any = None) -> None:
        self.indices, self.generator = indices, generator

    def __iter__(self) -> Iterator[int]:
        perm = _random.randperm(len(self.indices), generator=_generator(self.generator))
        for i in perm.tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """num_samples indices drawn with probability proportional to weights."""

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True,
                 generator: Any = None) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        from ..._prims.creation import tensor
        w = weights if isinstance(weights, Tensor) else tensor(list(weights))
        self.weights = w.double()
        if self.weights.dim() != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape "
                             f"{tuple(self.weights.shape)}")
        self.num_samples, self.replacement, self.generator = num_samples, replacement, generator

    def __iter__(self) -> Iterator[int]:
        idx = _random.multinomial(self.weights, self.num_samples, self.replacement,
                                  generator=_generator(self.generator))
        yield from idx.tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Groups another sampler's indices into lists of batch_size (the last may be shorter
    unless drop_last)."""

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got "
                             f"drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self) -> Iterator[list]:
        batch = []
        for i in self.sampler:
            batch.append(i)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
