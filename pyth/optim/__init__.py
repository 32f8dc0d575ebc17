"""pyth.optim: PyTorch's optimizers over group kernels in C (generic/THOptim.c), LBFGS,
Adafactor and Muon composed from tensor ops, the learning-rate schedulers
(pyth.optim.lr_scheduler) and weight averaging (pyth.optim.swa_utils)."""

from . import lr_scheduler, swa_utils
from ._adafactor import Adafactor
from ._muon import Muon
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = ["ASGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "LBFGS",
           "Muon", "NAdam", "Optimizer", "RAdam", "RMSprop", "Rprop", "SGD", "lr_scheduler",
           "swa_utils"]

from .._missing import attribute_error  # noqa: E402
__getattr__ = attribute_error(__name__)   # a PyTorch name pyth lacks says so
