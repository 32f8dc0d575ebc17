"""The losses' deprecated size_average / reduce pair, read as PyTorch reads it
(torch.nn._reduction.legacy_get_string): one place for every functional loss and loss module."""

from __future__ import annotations

import warnings
from typing import Any


def legacy_get_string(size_average: Any, reduce: Any, emit_warning: bool = True) -> str:
    """The reduction the pair selects (None counts as True), with PyTorch's UserWarning."""
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use "
                      f"reduction='{ret}' instead.", UserWarning, stacklevel=4)
    return ret


def legacy_reduction(size_average: Any, reduce: Any, reduction: str) -> str:
    """reduction, or what the legacy pair selects when either is given (as every PyTorch
    loss taking them does: the pair wins over reduction=)."""
    if size_average is None and reduce is None:
        return reduction
    return legacy_get_string(size_average, reduce)
