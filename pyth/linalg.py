"""pyth.linalg, as torch.linalg: factorisations, solvers and norms (pyth/_prims/linalg.py, over
LAPACK, the differentiable ones in their recorded forms) and the functions composed from them
(pyth/_refs/linalg.py: pinv's relatives, matrix_power, multi_dot, cond, matrix_exp ...)."""

from ._prims.linalg import (EighResult, LinAlgError, LstsqResult, QRResult,  # noqa: F401
                            ResultWithInfo, SlogdetResult, SVDResult)
from ._refs.linalg import LINALG as _COMPOSED
from .autograd.recorded import LINALG as _KERNEL_BACKED

globals().update(_KERNEL_BACKED)
globals().update(_COMPOSED)

from ._missing import attribute_error  # noqa: E402
__getattr__ = attribute_error(__name__)   # a PyTorch name pyth lacks says so
