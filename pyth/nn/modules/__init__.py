"""The layers of pyth.nn, one family per file (PyTorch's layout)."""

from .activation import (ELU, GELU, Hardtanh, LeakyReLU, ReLU, ReLU6, Sigmoid, SiLU, Softplus,
                         Tanh)
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .linear import Bilinear, Identity, Linear
from .loss import (BCELoss, BCEWithLogitsLoss, HuberLoss, KLDivLoss, L1Loss, MSELoss,
                   SmoothL1Loss)
from .module import Module, RemovableHandle
from .other import Dropout, Flatten, Unflatten

__all__ = ["ELU", "GELU", "Hardtanh", "LeakyReLU", "ReLU", "ReLU6", "SiLU", "Sigmoid",
           "Softplus", "Tanh", "BCELoss", "BCEWithLogitsLoss", "Bilinear", "Dropout", "Flatten", "HuberLoss",
           "Identity", "KLDivLoss", "L1Loss", "Linear", "MSELoss", "Module", "ModuleDict",
           "ModuleList", "ParameterDict", "ParameterList", "RemovableHandle", "Sequential",
           "SmoothL1Loss", "Unflatten"]
