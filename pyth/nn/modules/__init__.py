"""The layers of pyth.nn, one family per file (PyTorch's layout)."""

from .activation import (ELU, GELU, Hardtanh, LeakyReLU, LogSoftmax, ReLU, ReLU6, Sigmoid, SiLU,
                         Softmax, Softplus, Tanh)
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .linear import Bilinear, Identity, Linear
from .loss import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, KLDivLoss, L1Loss,
                   MSELoss, NLLLoss, SmoothL1Loss)
from .module import Module, RemovableHandle
from .other import Dropout, Flatten, Unflatten
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .dropout import Dropout1d, Dropout2d
from .normalization import GroupNorm, LayerNorm
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .sparse import Embedding

__all__ = ["CrossEntropyLoss", "LogSoftmax", "NLLLoss", "Softmax", "ELU", "GELU", "Hardtanh", "LeakyReLU", "ReLU", "ReLU6", "SiLU", "Sigmoid",
           "Softplus", "Tanh", "BCELoss", "BCEWithLogitsLoss", "Bilinear", "Dropout", "Flatten", "HuberLoss",
           "Identity", "KLDivLoss", "L1Loss", "Linear", "MSELoss", "Module", "ModuleDict",
           "ModuleList", "ParameterDict", "ParameterList", "RemovableHandle", "Sequential",
           "SmoothL1Loss", "Unflatten",
           "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "Dropout1d", "Dropout2d", "Embedding",
           "GroupNorm", "LayerNorm", "GRU", "LSTM", "RNN", "GRUCell", "LSTMCell", "RNNBase",
           "RNNCell", "RNNCellBase"]
