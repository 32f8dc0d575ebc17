"""pyth.nn: PyTorch's module system over pyth's tensors and autograd.

So far: Parameter, Buffer, Module, the containers and nn.init; the layers, their THNN-style C
kernels, functional and losses come next (issue 11).
"""

from . import init
from .modules import (Module, ModuleDict, ModuleList, ParameterDict, ParameterList,
                      Sequential)
from .parameter import Buffer, Parameter

__all__ = ["Buffer", "Module", "ModuleDict", "ModuleList", "Parameter", "ParameterDict",
           "ParameterList", "Sequential", "init"]
