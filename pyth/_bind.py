"""The binder: the one place that puts methods on Tensor and names in the pyth namespace, read
from the tables each topic module ends with (METHODS, FUNCTIONS), in a fixed order.

pyth/__init__.py runs the steps in this order:
1. `kernel_methods()`: the kernel-backed ops (pyth/_prims, pyth.linalg, pyth.random);
2. `autograd_methods()`: Tensor's autograd state, hooks and backward();
3. autograd records the ops (it reads what 1 and 2 bound and makes wrappers), then
   `recorded_methods()` binds those wrappers in place of what they wrap;
4. `composed()`: the composed ops (pyth/_refs), the device surface and Tensor's answer for
   a method pyth lacks; returns their names.
`BOUND` keeps, per step, which table bound each name (tests/test_binder.py reads it)."""

from __future__ import annotations

from typing import Any, Callable

from . import _backend_flags, _missing, _printoptions, dtype_info
from . import overrides as _overrides
from . import device as _device
from ._prims import linalg as _linalg
from . import random as _random
from ._prims import creation as _creation
from ._prims import indexing as _indexing
from ._prims import matmul as _matmul
from ._prims import pointwise as _pointwise
from ._prims import reductions as _reductions
from ._prims import shape as _shape
from ._prims import sorting as _sorting
from ._prims import subscript as _subscript
from .autograd.derivatives import install as _recorded_methods
from .autograd import gradients as _gradients
from .autograd import variable as _variable
from .storage import Storage
from .tensor import Tensor

BOUND: dict[str, list[tuple[str, str]]] = {}   # step -> [(name, table)]
# The one composed method that takes the place of a kernel-backed one: squeeze over several
# dims (pyth/_refs/shape.py), over the recorded C view for none or one
REPLACES = frozenset({"squeeze"})


def _bind_methods(table: dict[str, Any], step: str, source: str) -> None:
    bound = BOUND.setdefault(step, [])
    for name, fn in table.items():
        setattr(Tensor, name, fn)
        bound.append((name, source))


def kernel_methods() -> None:
    """The kernel-backed ops' methods and operators, and the two conversions Storage borrows
    from the layers above it."""
    Storage._from_data = _creation.METHODS["_from_data"]
    Storage._as_tensor = Tensor._on_storage   # a plain function here: s._as_tensor() views s
    _bind_methods(_random.METHODS, "kernel", "random")
    # the functions as methods, where tensor.py defines no method of that name
    _bind_methods({n: f for n, f in _pointwise.DEFAULT_METHODS.items() if not hasattr(Tensor, n)},
                  "kernel", "pointwise defaults")
    for m in (_pointwise, _shape, _matmul, _linalg, _reductions, _sorting, _indexing, _creation,
              _subscript):
        _bind_methods(m.METHODS, "kernel", m.__name__)


def autograd_methods() -> None:
    """Tensor's autograd state, hooks and backward(), before autograd records the ops."""
    _bind_methods(_variable.METHODS, "autograd", "autograd.variable")
    _bind_methods(_gradients.METHODS, "autograd", "autograd.gradients")


def recorded_methods() -> None:
    """The recorded forms of the kernel-backed methods and operators autograd made."""
    _recorded_methods.install()
    _bind_methods(_recorded_methods.METHODS, "recorded", "autograd.derivatives")
    for cls, table in _recorded_methods.CLASS_METHODS.items():   # the per-dtype classes' operators
        for name, fn in table.items():
            setattr(cls, name, fn)


_FACTORIES = ("empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like",
              "full_like", "arange", "linspace", "logspace", "eye", "rand", "randn", "rand_like",
              "randn_like", "normal", "tensor")


def _requires_grad(raw: Callable) -> Callable:
    def factory(*args: Any, requires_grad: bool = False, **kwargs: Any) -> Any:
        t = raw(*args, **kwargs)
        if requires_grad:
            t.requires_grad_(True)
        return t

    def like_factory(*args: Any, requires_grad: bool = False, **kwargs: Any) -> Any:
        if args and type(args[0]) in _overrides.TYPES:   # zeros_like(proxy): pyth.fx records
            if requires_grad:
                kwargs["requires_grad"] = requires_grad
            return _overrides.handle_torch_function(like_factory, args[:1], *args, **kwargs)
        t = raw(*args, **kwargs)
        if requires_grad:
            t.requires_grad_(True)
        return t
    if raw.__name__.endswith("_like"):
        factory = like_factory
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
                        pointwise, reductions, sampling, shape, special, statistics)
    modules = [creation, shape, indexing, pointwise, reductions, einsum, linalg, dtype_info,
               _printoptions, aliases, statistics, lapack, creation_memory, sampling, special]
    names: dict[str, Callable] = {"device": _device.device, **_backend_flags.FUNCTIONS}
    for m in modules:
        names.update(getattr(m, "FUNCTIONS", {}))
        _bind_methods(getattr(m, "METHODS", {}), "composed", m.__name__)
    _bind_methods(_device.methods(Tensor.to), "device", "device")
    from .utils import dlpack
    _bind_methods(dlpack.METHODS, "protocols", "utils.dlpack")
    _bind_methods({"__getattr__": _missing.tensor_getattr}, "protocols", "_missing")
    return names


# pyth's modules for the device questions, pyth.fx and pyth.compiler, loaded when a program first uses one
LAZY_MODULES = ("accelerator", "backends", "compiler", "cuda", "fx", "mps", "version", "xpu")


def facade_getattr(facade: str) -> Callable[[str], Any]:
    """The facade's module-level __getattr__: a device module is imported on first use (so
    `import pyth` does not pay for them), any other missing name says it is not in pyth."""
    import importlib
    missing = _missing.attribute_error(facade)

    def __getattr__(name: str) -> Any:
        if name in LAZY_MODULES:
            return importlib.import_module(f"{facade}.{name}")
        missing(name)
    return __getattr__
