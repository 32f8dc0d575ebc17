"""Parameter: a leaf tensor that a Module registers as one of its learnable weights.

pyth's tensors have one class per element type (FloatTensor, ...), so a Parameter is an
instance of a small per-type class deriving from both Parameter and that tensor class:
`isinstance(p, nn.Parameter)` and `isinstance(p, pyth.FloatTensor)` both hold, and every tensor
method works unchanged. Results of ops on parameters are plain tensors, as in PyTorch.
"""

from __future__ import annotations

from typing import Any

from .._prims.creation import empty
from ..tensor import Tensor

_classes: dict = {}


def _class_for(tensor_class: type) -> type:
    """The Parameter class of one element type (made once)."""
    cls = _classes.get(tensor_class)
    if cls is None:
        cls = type("Parameter", (Parameter, tensor_class),
                   {"__slots__": (), "__module__": __name__})
        _classes[tensor_class] = cls
    return cls


class Parameter(Tensor):
    """A tensor that is a module parameter: requires grad by default, shares data's memory."""

    __slots__ = ()

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> "Parameter":
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): expected a Tensor, got {type(data).__name__}")
        base = data.detach()  # a new header on the same storage, outside any graph
        p = object.__new__(_class_for(type(base) if not isinstance(base, Parameter)
                                      else base.dtype.tensor_class))
        p._h = base._h
        p._ag = None
        p.requires_grad_(requires_grad)
        return p

    def type(self, t: Any = None) -> Any:
        """'pyth.FloatTensor' (the element type's name), or a converted copy."""
        if t is None:
            return f"pyth.{self.dtype.tensor_class.__name__}"
        return super().type(t)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __reduce_ex__(self, protocol: int) -> Any:
        return (_rebuild_parameter, (self.detach(), self.requires_grad))

    def __deepcopy__(self, memo: dict) -> "Parameter":
        if id(self) in memo:
            return memo[id(self)]
        out = Parameter(self.detach().clone(), self.requires_grad)
        memo[id(self)] = out
        return out


def _rebuild_parameter(data: Tensor, requires_grad: bool) -> Parameter:
    return Parameter(data, requires_grad)


class Buffer:
    """Marks a tensor to be registered as a buffer when assigned to a Module attribute."""

    def __init__(self, data: Tensor, persistent: bool = True) -> None:
        self.data = data
        self.persistent = persistent
