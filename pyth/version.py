"""pyth.version: the build's versions, as torch.version gives them (what environment reports
print): pyth's own, and None for the accelerator toolkits a CPU-only build lacks."""

from __future__ import annotations

__version__ = "0.1.0"
cuda = None       # no CUDA toolkit
hip = None        # no ROCm/HIP
rocm = None
xpu = None        # no SYCL/XPU
debug = False     # built with optimisation (the C core's -O2)
git_version = "unknown"   # pyth's builds do not stamp a commit
