"""The rest of PyTorch's tensor surface (issue 17), gathered from small modules, one idea
each: devices, creation helpers, shape ops, indexing ops, pointwise math, reductions, einsum,
linalg additions, dtype info and print options. pyth/__init__.py exports FUNCTIONS; the
methods are installed on Tensor here."""

from __future__ import annotations

from typing import Any, Callable

from . import creation, shape_extra
from . import device as _device
from .tensor import Tensor

_MODULES = [creation, shape_extra]


def _optional(name: str) -> Any:
    import importlib
    return importlib.import_module(f"pyth.{name}")


for _name in ("indexing_extra", "math_extra", "reductions_extra", "einsum", "linalg_extra",
              "dtype_info", "_printoptions", "aliases", "stats", "lapack_compat", "creation_more"):
    _MODULES.append(_optional(_name))

FUNCTIONS: dict[str, Callable] = {"device": _device.device}
for _m in _MODULES:
    FUNCTIONS.update(getattr(_m, "FUNCTIONS", {}))
    for _n, _f in getattr(_m, "METHODS", {}).items():
        setattr(Tensor, _n, _f)

_device.install(Tensor)
