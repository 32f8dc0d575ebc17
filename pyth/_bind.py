"""The binder: puts the ops' tables on Tensor and in the pyth namespace, in a fixed order.

Two steps, called by pyth/__init__.py: `kernel_methods()` before autograd wraps the kernel-backed
methods (it reads Tensor's indexing and conversion methods), `composed()` after (pyth/_refs'
tables: FUNCTIONS for the namespace, METHODS for Tensor; a later table wins a name)."""

from __future__ import annotations

from typing import Any, Callable

from . import _printoptions, dtype_info
from . import device as _device
from ._prims import creation as _creation
from ._prims import subscript as _subscript
from .tensor import Tensor


def _bind_methods(table: dict[str, Any]) -> None:
    for name, fn in table.items():
        setattr(Tensor, name, fn)


def kernel_methods() -> None:
    """Tensor's methods that live in the kernel-backed layer: data -> tensor, t[...]."""
    _bind_methods(_creation.METHODS)
    _bind_methods(_subscript.METHODS)


def composed() -> dict[str, Callable]:
    """Bind the composed ops' methods and the device surface; return their namespace names."""
    from ._refs import (aliases, creation, creation_memory, einsum, indexing, lapack, linalg,
                        pointwise, reductions, shape, statistics)
    modules = [creation, shape, indexing, pointwise, reductions, einsum, linalg, dtype_info,
               _printoptions, aliases, statistics, lapack, creation_memory]
    names: dict[str, Callable] = {"device": _device.device}
    for m in modules:
        names.update(getattr(m, "FUNCTIONS", {}))
        _bind_methods(getattr(m, "METHODS", {}))
    _device.install(Tensor)
    return names
