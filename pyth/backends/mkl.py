"""pyth.backends.mkl: whether Intel MKL is in the build: no, pyth's BLAS and LAPACK are
OpenBLAS's (PyTorch's CPU build answers True here)."""

from __future__ import annotations

from .._missing import attribute_error

__all__ = ["is_available"]


def is_available() -> bool:
    """Whether MKL is in this build: no."""
    return False


__getattr__ = attribute_error(__name__)
