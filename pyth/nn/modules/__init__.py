"""The layers of pyth.nn, one family per file (PyTorch's layout)."""

from .activation import (ELU, GELU, Hardtanh, LeakyReLU, LogSoftmax, ReLU, ReLU6, Sigmoid, SiLU,
                         Softmax, Softplus, Tanh)
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .linear import Bilinear, Identity, Linear
from .loss import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, KLDivLoss, L1Loss,
                   MSELoss, NLLLoss, SmoothL1Loss)
from .module import Module, RemovableHandle
from .other import Dropout, Flatten, Unflatten
from .conv import Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d
from .pooling import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AvgPool1d, AvgPool2d, MaxPool1d,
                      MaxPool2d)

__all__ = ["CrossEntropyLoss", "LogSoftmax", "NLLLoss", "Softmax", "ELU", "GELU", "Hardtanh", "LeakyReLU", "ReLU", "ReLU6", "SiLU", "Sigmoid",
           "Softplus", "Tanh", "BCELoss", "BCEWithLogitsLoss", "Bilinear", "Dropout", "Flatten", "HuberLoss",
           "Identity", "KLDivLoss", "L1Loss", "Linear", "MSELoss", "Module", "ModuleDict",
           "ModuleList", "ParameterDict", "ParameterList", "RemovableHandle", "Sequential",
           "SmoothL1Loss", "Unflatten",
           "Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "AvgPool1d", "AvgPool2d", "MaxPool1d", "MaxPool2d"]
