"""pyth.nn: PyTorch's module system over pyth's tensors and autograd.

So far: Parameter, Buffer, Module and the containers, nn.init, and the layers whose arithmetic
is a short composition of differentiable ops (Linear, Bilinear, Identity, Flatten, Unflatten,
Dropout, the regression and binary losses). The THNN-style C kernels (convolution, pooling,
normalisation, softmax and cross entropy, fused activations), recurrent layers and optim are
the rest of issue 11.
"""

from . import functional, init
from .modules import *  # noqa: F403
from .modules import __all__ as _modules_all
from .parameter import Buffer, Parameter

__all__ = ["Buffer", "Parameter", "functional", "init", *_modules_all]

from . import utils  # noqa: E402,F401  (issue 11: clip_grad, parameters_to_vector)
from . import parallel  # noqa: E402,F401  (DistributedDataParallel)
