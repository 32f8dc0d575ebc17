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
LIBRARY = ctypes.CDLL(PATH, mode=ctypes.RTLD_GLOBAL)

# pyth threads its products with OpenMP (lib/THBlas.c): OpenBLAS's own pthreads would compete
# with that pool for the same cores, so each OpenBLAS call runs on its caller's thread.
LIBRARY.scipy_openblas_set_num_threads(1)
