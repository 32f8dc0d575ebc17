"""The AttributeError for a name PyTorch has and pyth does not: a program written for PyTorch
that reaches such a name is told it is not in pyth, where plain Python would say only that
the attribute is missing. It stays an AttributeError, so hasattr() and getattr(m, n, default)
work as before; private and dunder names (which numpy, copy and pickle probe) keep the plain
message."""

from __future__ import annotations

from typing import Any, Callable, NoReturn


def torch_name(module: str) -> str:
    """The PyTorch name of a pyth module: pyth.nn.functional -> torch.nn.functional."""
    return "torch" + module[len("pyth"):]


def attribute_error(module: str) -> Callable[[str], NoReturn]:
    """A module-level __getattr__ for module, raising the AttributeError that names the missing
    PyTorch function."""
    torch = torch_name(module)

    def __getattr__(name: str) -> NoReturn:
        message = f"module '{module}' has no attribute '{name}'"
        if name.startswith("_"):
            raise AttributeError(message)
        raise AttributeError(f"{message}: {torch}.{name} is not in pyth")
    return __getattr__


def tensor_getattr(self: Any, name: str) -> NoReturn:
    """Tensor.__getattr__, called only when an attribute lookup failed: the AttributeError
    naming the Tensor method pyth lacks. Names the class defines (a property that raised) and
    private or dunder names get the plain message."""
    cls = type(self)
    shown = "Tensor" if cls.__module__ in ("pyth", "pyth.tensor") else cls.__name__
    message = f"'{shown}' object has no attribute '{name}'"
    if name.startswith("_") or hasattr(cls, name):
        raise AttributeError(message)
    raise AttributeError(f"{message}: Tensor.{name} is not in pyth")
