"""The binder: puts the ops' tables on Tensor and in the pyth namespace, in a fixed order.

Two steps, called by pyth/__init__.py: `kernel_methods()` before autograd wraps the kernel-backed
methods (it reads Tensor's indexing and conversion methods), `composed()` after (pyth/_refs'
tables: FUNCTIONS for the namespace, METHODS for Tensor; a later table wins a name)."""

from __future__ import annotations

from typing import Any, Callable

from . import _printoptions, dtype_info
from . import device as _device
from . import linalg as _linalg
from . import random as _random
from ._prims import creation as _creation
from ._prims import indexing as _indexing
from ._prims import matmul as _matmul
from ._prims import pointwise as _pointwise
from ._prims import reductions as _reductions
from ._prims import shape as _shape
from ._prims import sorting as _sorting
from ._prims import subscript as _subscript
from .storage import Storage
from .tensor import Tensor


def _bind_methods(table: dict[str, Any]) -> None:
    for name, fn in table.items():
        setattr(Tensor, name, fn)


def kernel_methods() -> None:
    """The kernel-backed ops' methods and operators (pyth/_prims, pyth.linalg, pyth.random), and
    the two conversions Storage borrows from the layers above it."""
    Storage._from_data = _creation.METHODS["_from_data"]
    Storage._as_tensor = Tensor._on_storage   # a plain function here: s._as_tensor() views s
    _bind_methods(_random.METHODS)
    for name, fn in _pointwise.DEFAULT_METHODS.items():   # Tensor's own methods come first
        if not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
    for m in (_pointwise, _shape, _matmul, _linalg, _reductions, _sorting, _indexing, _creation,
              _subscript):
        _bind_methods(m.METHODS)


def autograd_methods() -> None:
    """Tensor's autograd state, hooks and backward(), before autograd records the ops."""
    from .autograd import gradients, variable
    _bind_methods(variable.METHODS)
    _bind_methods(gradients.METHODS)


def composed_with_formulas() -> tuple[dict[str, Callable], dict[str, Any]]:
    """The composed ops autograd records with a formula of their own (raw forms), and the
    methods table where their Tensor methods sit."""
    from ._refs import linalg, pointwise
    return {"pinv": linalg.LINALG["pinv"], "relu": pointwise.FUNCTIONS["relu"]}, pointwise.METHODS


_FACTORIES = ("empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like",
              "full_like", "arange", "linspace", "logspace", "eye", "rand", "randn", "rand_like",
              "randn_like", "normal", "tensor")


def _requires_grad(raw: Callable) -> Callable:
    def factory(*args: Any, requires_grad: bool = False, **kwargs: Any) -> Any:
        t = raw(*args, **kwargs)
        if requires_grad:
            t.requires_grad_(True)
        return t
    factory.__name__ = raw.__name__
    factory.__doc__ = raw.__doc__
    factory.__wrapped__ = raw
    factory._takes_requires_grad = True
    return factory


def requires_grad_factories(namespace: dict[str, Any]) -> None:
    """The factories in namespace take requires_grad= (those that do not already)."""
    for name in _FACTORIES:
        raw = namespace.get(name)
        if raw is not None and not getattr(raw, "_takes_requires_grad", False):
            namespace[name] = _requires_grad(raw)


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
    for name, fn in linalg.LINALG.items():   # pyth.linalg: the kernel-backed module's namespace
        setattr(_linalg, name, fn)
    _device.install(Tensor)
    return names
