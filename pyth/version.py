"""pyth.version: the build's versions, as torch.version gives them (what environment reports
print): pyth's own, and None for the accelerator toolkits a CPU-only build lacks. Loaded on
first use, after the facade (whose __version__ it repeats)."""

from __future__ import annotations

from . import __version__  # noqa: F401

cuda = None       # no CUDA toolkit
hip = None        # no ROCm/HIP
rocm = None
xpu = None        # no SYCL/XPU
debug = False     # built with optimisation (the C core's -O2)
git_version = "unknown"   # pyth's builds do not stamp a commit
