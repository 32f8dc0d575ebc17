"""The composed ops (pyth/_refs), gathered: pyth/__init__.py exports FUNCTIONS; each module's
METHODS are installed on Tensor here (later modules win a name)."""

from __future__ import annotations

from typing import Callable

from . import _printoptions, dtype_info
from . import device as _device
from ._refs import (aliases, creation, creation_memory, einsum, indexing, lapack, linalg,
                    pointwise, reductions, shape, statistics)
from .tensor import Tensor

_MODULES = [creation, shape, indexing, pointwise, reductions, einsum, linalg, dtype_info,
            _printoptions, aliases, statistics, lapack, creation_memory]

FUNCTIONS: dict[str, Callable] = {"device": _device.device}
for _m in _MODULES:
    FUNCTIONS.update(getattr(_m, "FUNCTIONS", {}))
    for _n, _f in getattr(_m, "METHODS", {}).items():
        setattr(Tensor, _n, _f)

_device.install(Tensor)
