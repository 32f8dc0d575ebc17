"""pyth.backends.cpu: what the CPU backend was built for."""

from __future__ import annotations

from .._missing import attribute_error

__all__ = ["get_cpu_capability"]


def get_cpu_capability() -> str:
    """The vector instruction set pyth's kernels were compiled for: 'DEFAULT', the baseline
    every x86-64 runs (the hot loops pick their wider forms at run time)."""
    return "DEFAULT"


__getattr__ = attribute_error(__name__)
