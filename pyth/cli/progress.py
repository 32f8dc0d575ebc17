"""Progress of a training run: a tqdm bar per epoch on a terminal, one plain line per epoch
otherwise (logs and CI keep readable output)."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import Any


class EpochProgress:
    """Iterates over the batches of one epoch, showing the running loss when on a terminal."""

    def __init__(self, batches: Iterable[Any], total: int, desc: str) -> None:
        self._bar = None
        self._batches = batches
        if sys.stdout.isatty():
            try:
                from tqdm import tqdm
            except ImportError:  # the demo extra is optional: plain lines then
                tqdm = None
            if tqdm is not None:
                self._bar = tqdm(total=total, desc=desc, leave=False, unit="batch",
                                 file=sys.stdout, dynamic_ncols=True)

    def __iter__(self) -> Iterator[Any]:
        for batch in self._batches:
            yield batch
            if self._bar is not None:
                self._bar.update(1)

    def show_loss(self, loss: float) -> None:
        if self._bar is not None:
            self._bar.set_postfix(loss=f"{loss:.4f}", refresh=False)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
