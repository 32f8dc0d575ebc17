"""Loads OpenBLAS from the installed scipy-openblas32 package before pyth._th needs it.

pyth._th links against libscipy_openblas.so without an rpath: the package it was built
against lived in pip's temporary build environment. Loading the library here, by path and with
RTLD_GLOBAL, makes the dynamic linker find it (by its soname) when pyth._th is loaded next.
"""

from __future__ import annotations

import ctypes
import os

try:
    import scipy_openblas32 as _package
except ImportError as e:  # pragma: no cover - the package is a declared dependency
    raise ImportError("pyth needs the scipy-openblas32 package for BLAS and LAPACK: "
                      "pip install scipy-openblas32") from e

PATH = os.path.join(_package.get_lib_dir(), _package.get_library(fullname=True))

# OpenBLAS's runtime detection knows AVX-512 only on Intel models: on AVX-512 AMD parts (Zen 4,
# shown by virtual machines as plain "AMD EPYC") it picks its Haswell (AVX2) kernels, about 1.5x
# slower for GEMM. The SkylakeX kernels need AVX-512 F/CD/BW/DQ/VL; when the CPU has them and the
# user has not chosen a core (OPENBLAS_CORETYPE), ask for those kernels for this library only.
_SKYLAKEX_FLAGS = {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"}


def _cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def _load() -> ctypes.CDLL:
    chosen = "OPENBLAS_CORETYPE" in os.environ or not _SKYLAKEX_FLAGS <= _cpu_flags()
    if not chosen:
        os.environ["OPENBLAS_CORETYPE"] = "SkylakeX"  # read once, when the library loads
    try:
        return ctypes.CDLL(PATH, mode=ctypes.RTLD_GLOBAL)
    finally:
        if not chosen:
            del os.environ["OPENBLAS_CORETYPE"]  # child processes keep their own detection


LIBRARY = _load()
LIBRARY.scipy_openblas_get_corename.restype = ctypes.c_char_p
CORE = LIBRARY.scipy_openblas_get_corename().decode()

# OpenBLAS calls run on their caller's thread (batches are split between pyth's OpenMP threads),
# except a single large product, for which lib/THBlas.c raises OpenBLAS to pyth's thread count.
LIBRARY.scipy_openblas_set_num_threads(1)
