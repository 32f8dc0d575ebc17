"""default_collate: a list of samples -> one batch (tensors stacked, numbers and arrays turned
into tensors, containers recursed); default_convert: the same conversions without batching."""

from __future__ import annotations

import collections.abc
from typing import Any, Sequence

import numpy as np

from ....tensor import Tensor


def _stack(batch: Sequence[Tensor]) -> Tensor:
    shape = batch[0].shape
    for i, t in enumerate(batch):
        if t.shape != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(shape)} at entry 0 and {list(t.shape)} at entry {i}")
    out = stack([t.detach() if t.requires_grad else t for t in batch], 0)
    if _in_worker():  # the batch will cross to the main process: put it in shared memory now
        out.storage().share_memory_()
    return out


def _in_worker() -> bool:
    return get_worker_info() is not None


def _from_numpy(a: np.ndarray) -> Tensor:
    if a.dtype.kind in "USO":
        raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, "
                        f"dicts or lists; found array of {a.dtype}")
    return tensor(a)


def default_collate(batch: Sequence[Any]) -> Any:
    """Put a list of samples together into a batch."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return _stack(batch)
    if isinstance(elem, np.ndarray):
        return _stack([_from_numpy(a) for a in batch])
    if isinstance(elem, np.generic):
        return _stack([_from_numpy(np.asarray(a)) for a in batch])
    if isinstance(elem, bool):
        return tensor(list(batch), dtype=_dt.bool_)
    if isinstance(elem, float):
        return tensor(list(batch), dtype=_dt.float64)
    if isinstance(elem, int):
        return tensor(list(batch), dtype=_dt.int64)
    if isinstance(elem, (str, bytes)):
        return list(batch)
    if isinstance(elem, collections.abc.Mapping):
        out = {k: default_collate([d[k] for d in batch]) for k in elem}
        try:
            return type(elem)(out)
        except TypeError:
            return out
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return type(elem)(*(default_collate(list(s)) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        n = len(elem)
        if any(len(s) != n for s in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        cols = [default_collate(list(s)) for s in zip(*batch)]
        if isinstance(elem, tuple):
            return cols
        try:
            return type(elem)(cols)
        except TypeError:
            return cols
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, "
                    f"dicts or lists; found {type(elem)}")


def default_convert(data: Any) -> Any:
    """Turn numpy arrays (and containers of them) into tensors, leaving the rest alone."""
    if isinstance(data, np.ndarray) and data.dtype.kind not in "USO":
        return _from_numpy(data)
    if isinstance(data, np.generic) and data.dtype.kind not in "USO":
        return _from_numpy(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        try:
            return type(data)({k: default_convert(v) for k, v in data.items()})
        except TypeError:
            return {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            return type(data)([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


# ---- names the functions above use, imported last so that import cycles resolve ------------
from .... import dtypes as _dt
from ....autograd.recorded import stack
from ...._prims.creation import tensor
from .worker import get_worker_info
