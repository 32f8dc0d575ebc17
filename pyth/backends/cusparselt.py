"""pyth.backends.cusparselt: NVIDIA's sparse matrix library: not in the build."""

from __future__ import annotations

from .._missing import attribute_error

__all__ = ["is_available", "version"]


def is_available() -> bool:
    """Whether cuSPARSELt is in this build: no."""
    return False


def version() -> None:
    """cuSPARSELt's version: None, there is none."""
    return None


__getattr__ = attribute_error(__name__)
