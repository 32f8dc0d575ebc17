"""The layers of pyth.nn, one family per file (PyTorch's layout)."""

from .activation import (
                         ELU,
                         GELU,
                         Hardtanh,
                         LeakyReLU,
                         LogSoftmax,
                         ReLU,
                         ReLU6,
                         Sigmoid,
                         SiLU,
                         Softmax,
                         Softplus,
                         Tanh,
)
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .dropout import Dropout1d, Dropout2d
from .linear import Bilinear, Identity, Linear
from .loss import (
                         BCELoss,
                         BCEWithLogitsLoss,
                         CrossEntropyLoss,
                         HuberLoss,
                         KLDivLoss,
                         L1Loss,
                         MSELoss,
                         NLLLoss,
                         SmoothL1Loss,
)
from .module import Module, RemovableHandle
from .normalization import GroupNorm, LayerNorm
from .other import Dropout, Flatten, Unflatten
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .sparse import Embedding

__all__ = [
                         "ELU",
                         "GELU",
                         "GRU",
                         "LSTM",
                         "RNN",
                         "BCELoss",
                         "BCEWithLogitsLoss",
                         "BatchNorm1d",
                         "BatchNorm2d",
                         "BatchNorm3d",
                         "Bilinear",
                         "CrossEntropyLoss",
                         "Dropout",
                         "Dropout1d",
                         "Dropout2d",
                         "Embedding",
                         "Flatten",
                         "GRUCell",
                         "GroupNorm",
                         "Hardtanh",
                         "HuberLoss",
                         "Identity",
                         "KLDivLoss",
                         "L1Loss",
                         "LSTMCell",
                         "LayerNorm",
                         "LeakyReLU",
                         "Linear",
                         "LogSoftmax",
                         "MSELoss",
                         "Module",
                         "ModuleDict",
                         "ModuleList",
                         "NLLLoss",
                         "ParameterDict",
                         "ParameterList",
                         "RNNBase",
                         "RNNCell",
                         "RNNCellBase",
                         "ReLU",
                         "ReLU6",
                         "RemovableHandle",
                         "Sequential",
                         "SiLU",
                         "Sigmoid",
                         "SmoothL1Loss",
                         "Softmax",
                         "Softplus",
                         "Tanh",
                         "Unflatten",
]
