"""pyth.backends: the backend flags programs set (cudnn.benchmark = True, cuda.matmul.allow_tf32,
mkldnn.enabled, ...) and the backends' is_available() answers, as a CPU-only PyTorch build has
them: every flag can be set and read back, with PyTorch's type checks; the accelerator backends
answer that they are absent. The flags' state is kept in pyth/_backend_flags.py."""

from __future__ import annotations

from .._missing import attribute_error
from . import cpu, cuda, cudnn, cusparselt, mha, mkl, mkldnn, mps, nnpack, openmp, opt_einsum

__all__ = ["cpu", "cuda", "cudnn", "cusparselt", "mha", "mkl", "mkldnn", "mps", "nnpack", "openmp",
           "opt_einsum"]

__getattr__ = attribute_error(__name__)
