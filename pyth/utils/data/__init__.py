"""pyth.utils.data: datasets, samplers and the DataLoader (PyTorch's names and behaviour)."""

from ._utils.collate import default_collate, default_convert
from ._utils.worker import get_worker_info
from . import distributed  # noqa: F401
from .dataloader import DataLoader
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, Subset,
                      TensorDataset, random_split)
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,
                      SubsetRandomSampler, WeightedRandomSampler)

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset",
           "IterableDataset", "RandomSampler", "Sampler", "SequentialSampler", "Subset",
           "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "default_collate",
           "default_convert", "get_worker_info", "random_split"]

from ..._missing import attribute_error  # noqa: E402
__getattr__ = attribute_error(__name__)   # a PyTorch name pyth lacks says so
