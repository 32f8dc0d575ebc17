"""Data sets that ship with an installed package (nothing is downloaded)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._prims.creation import from_numpy
from .dataset import Dataset


def _load_digits() -> tuple[np.ndarray, np.ndarray]:
    try:
        from sklearn.datasets import load_digits
    except ImportError as e:
        raise ImportError("the digits data set comes with scikit-learn: "
                          "pip install 'pyth[demo]' (or scikit-learn)") from e
    bunch = load_digits()
    return bunch.data, bunch.target


class Digits(Dataset):
    """scikit-learn's 1,797 handwritten digits as (1x8x8 float32 image in [0, 1], int64 label).

    A fixed stratified 80/20 split from `split_seed` (the same seed always gives the same
    split); `train` picks its side. `data` (N, 1, 8, 8) and `targets` (N,) hold the whole side,
    for code that batches by indexing instead of through a DataLoader.
    """

    classes = list(range(10))

    def __init__(self, train: bool = True, split_seed: int = 0) -> None:
        from sklearn.model_selection import train_test_split
        x, y = _load_digits()
        idx_train, idx_test = train_test_split(np.arange(len(y)), test_size=0.2,
                                               stratify=y, random_state=split_seed)
        idx = idx_train if train else idx_test
        self.train, self.split_seed = train, split_seed
        images = (x[idx] / 16.0).astype(np.float32).reshape(-1, 1, 8, 8)
        self.data = from_numpy(np.ascontiguousarray(images))
        self.targets = from_numpy(y[idx].astype(np.int64))

    def __len__(self) -> int:
        return self.data.size(0)

    def __getitem__(self, i: int) -> tuple[Any, Any]:
        return self.data[i], self.targets[i]

    def __repr__(self) -> str:
        side = "train" if self.train else "test"
        return f"Digits({side}, {len(self)} images, split_seed={self.split_seed})"
