"""The layers of pyth.nn, one family per file (PyTorch's layout)."""

from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .module import Module, RemovableHandle

__all__ = ["Module", "ModuleDict", "ModuleList", "ParameterDict", "ParameterList",
           "RemovableHandle", "Sequential"]
