"""Variable, the wrapper that held a tensor's autograd state before PyTorch 0.4 merged the two.
As in PyTorch, it survives as a thin constructor: `Variable(t, requires_grad=True)` returns a
new tensor sharing t's data (a detached leaf), and every tensor is an instance of it, so
programs written for the old API run unchanged."""

from __future__ import annotations

import warnings
from typing import Any

from ..tensor import Tensor


class VariableMeta(type):
    """Variable's type: isinstance(t, Variable) holds for every tensor, as in PyTorch."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor)


class Variable(metaclass=VariableMeta):
    """Variable(data=None, requires_grad=False, volatile=False): data as a detached leaf that
    requires grad as asked (volatile is gone: it warns and means nothing)."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Tensor:
        data, requires_grad, volatile = _arguments(args, kwargs)
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with "
                          "pyth.no_grad():` instead.", UserWarning, stacklevel=2)
            if requires_grad:
                raise ValueError("Variable can't be volatile and require_grad at the same time!")
        if data is None:
            from .._prims.creation import empty
            data = empty(0)
        elif not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if requires_grad and not (data.dtype.is_floating_point or data.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        leaf = data.detach()
        if requires_grad:
            leaf.requires_grad_(True)
        return leaf


def _arguments(args: tuple, kwargs: dict) -> tuple:
    """(data, requires_grad, volatile) from Variable's positional and keyword arguments."""
    names = ("data", "requires_grad", "volatile")
    if len(args) > len(names):
        raise TypeError(f"Variable() takes at most {len(names)} arguments ({len(args)} given)")
    values = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names:
            raise TypeError(f"'{k}' is an invalid keyword argument for this function")
        if k in values:
            raise TypeError(f"Variable() got multiple values for argument '{k}'")
        values[k] = v
    return (values.get("data"), bool(values.get("requires_grad", False)),
            bool(values.get("volatile", False)))
