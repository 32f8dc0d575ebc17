"""pyth.nn: PyTorch's module system over pyth's tensors and autograd.

Parameter, Buffer, Module and the containers, nn.init, nn.utils and the layers. The layers'
heavy arithmetic (convolution, pooling, normalisation, embedding, softmax and NLL, fused
activations) is THNN-style C stamped for float and double (lib/THNN.h); the rest (linear,
recurrent cells, most losses) are compositions of differentiable tensor ops.
"""

from . import functional, init
from .modules import *  # noqa: F403
from .modules import __all__ as _modules_all
from .parameter import Buffer, Parameter

__all__ = ["Buffer", "Parameter", "functional", "init", *_modules_all]

from . import utils  # noqa: E402,F401  (clip_grad, parameters_to_vector)
from . import parallel  # noqa: E402,F401  (DistributedDataParallel)

from .._missing import attribute_error  # noqa: E402
__getattr__ = attribute_error(__name__)   # a PyTorch name pyth lacks says so
