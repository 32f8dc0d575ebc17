"""The rest of PyTorch's tensor surface (issue 17), gathered from small modules, one idea
each: devices, creation helpers, shape ops, indexing ops, pointwise math, reductions, einsum,
linalg additions, statistics, aliases, dtype info and print options. pyth/__init__.py exports
FUNCTIONS; each module's METHODS are installed on Tensor here (later modules win a name)."""

from __future__ import annotations

from typing import Callable

from . import (_printoptions, aliases, creation, creation_more, dtype_info, einsum,
               indexing_extra, lapack_compat, linalg_extra, math_extra, reductions_extra,
               shape_extra, stats)
from . import device as _device
from .tensor import Tensor

_MODULES = [creation, shape_extra, indexing_extra, math_extra, reductions_extra, einsum,
            linalg_extra, dtype_info, _printoptions, aliases, stats, lapack_compat,
            creation_more]

FUNCTIONS: dict[str, Callable] = {"device": _device.device}
for _m in _MODULES:
    FUNCTIONS.update(getattr(_m, "FUNCTIONS", {}))
    for _n, _f in getattr(_m, "METHODS", {}).items():
        setattr(Tensor, _n, _f)

_device.install(Tensor)
