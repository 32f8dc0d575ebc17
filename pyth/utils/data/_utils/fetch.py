"""Fetchers: turn a task (a batch of indices, or a count for iterable datasets) into a batch."""

from __future__ import annotations

from typing import Any, Callable


class MapFetcher:
    """Reads dataset[i] for each index of a task and collates them."""

    def __init__(self, dataset: Any, auto_collation: bool, collate_fn: Callable,
                 drop_last: bool) -> None:
        self.dataset, self.auto_collation, self.collate_fn = dataset, auto_collation, collate_fn

    def fetch(self, index: Any) -> Any:
        if self.auto_collation:
            return self.collate_fn([self.dataset[i] for i in index])
        return self.collate_fn(self.dataset[index])


class IterableFetcher:
    """Takes the next samples from the dataset's iterator (StopIteration when exhausted)."""

    def __init__(self, dataset: Any, auto_collation: bool, collate_fn: Callable,
                 drop_last: bool) -> None:
        self.it = iter(dataset)
        self.auto_collation, self.collate_fn, self.drop_last = auto_collation, collate_fn, drop_last
        self.ended = False

    def fetch(self, index: Any) -> Any:
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.it))
        batch = []
        for _ in index:
            try:
                batch.append(next(self.it))
            except StopIteration:
                self.ended = True
                break
        if not batch or (self.drop_last and len(batch) < len(index)):
            raise StopIteration
        return self.collate_fn(batch)


def make_fetcher(kind: str, dataset: Any, auto_collation: bool, collate_fn: Callable,
                 drop_last: bool) -> Any:
    return (MapFetcher if kind == "map" else IterableFetcher)(dataset, auto_collation,
                                                              collate_fn, drop_last)
