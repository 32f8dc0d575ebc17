"""pyth.backends.mps: whether Apple's Metal backend is built and available: neither."""

from __future__ import annotations

from typing import NoReturn

from .._missing import attribute_error

__all__ = ["is_available", "is_built", "is_macos13_or_newer", "is_macos_or_newer"]


def is_available() -> bool:
    """Whether an MPS device can be used: never in pyth."""
    return False


def is_built() -> bool:
    """Whether this build has the MPS backend: no."""
    return False


def is_macos_or_newer(major: int, minor: int) -> NoReturn:
    """The macOS version check of the MPS backend: RuntimeError, there is none."""
    raise RuntimeError("Cannot execute isOnMacOSorNewer() without MPS backend.")


def is_macos13_or_newer(minor: int = 0) -> NoReturn:
    """The macOS 13 check of the MPS backend: RuntimeError, there is none."""
    is_macos_or_newer(13, minor)


__getattr__ = attribute_error(__name__)
