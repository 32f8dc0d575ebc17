"""Loads OpenBLAS from the installed scipy-openblas32 package before pyth._th needs it.

pyth._th links against libscipy_openblas.so without an rpath: the package it was built
against lived in pip's temporary build environment. Loading the library here, by path and with
RTLD_GLOBAL, makes the dynamic linker find it (by its soname) when pyth._th is loaded next.
"""

from __future__ import annotations

import ctypes
import os

# After a threaded call OpenBLAS's workers spin for 2^28 cycles (~0.1 s) before they sleep; on
# a 2-core machine that spinning worker takes the core pyth's next OpenMP op needs (a 512^2
# product followed by a 2048^2 add: 8 ms instead of 3). 2^16 cycles (~30 us) keeps a burst of
# products warm without holding the core afterwards. OpenBLAS reads the variable once, when it
# loads, which importing scipy_openblas32 does; a value the user set is kept.
_OURS = {} if "OPENBLAS_THREAD_TIMEOUT" in os.environ else {"OPENBLAS_THREAD_TIMEOUT": "16"}
os.environ.update(_OURS)
try:
    import scipy_openblas32 as _package
except ImportError as e:  # pragma: no cover - the package is a declared dependency
    raise ImportError("pyth needs the scipy-openblas32 package for BLAS and LAPACK: "
                      "pip install scipy-openblas32") from e
finally:
    for _k in _OURS:  # for this library only: child processes keep their own defaults
        del os.environ[_k]

PATH = os.path.join(_package.get_lib_dir(), _package.get_library(fullname=True))
LIBRARY = ctypes.CDLL(PATH, mode=ctypes.RTLD_GLOBAL)
LIBRARY.scipy_openblas_get_corename.restype = ctypes.c_char_p
CORE = LIBRARY.scipy_openblas_get_corename().decode()

# OpenBLAS calls run on their caller's thread (batches are split between pyth's OpenMP threads),
# except a single large product, for which lib/THBlas.c raises OpenBLAS to pyth's thread count.
LIBRARY.scipy_openblas_set_num_threads(1)
