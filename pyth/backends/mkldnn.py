"""pyth.backends.mkldnn: oneDNN's flags (enabled, deterministic), settable and readable as
PyTorch's. pyth does not use oneDNN (its kernels are its own, over OpenBLAS), so
is_available() is False where PyTorch's CPU build says True."""

from __future__ import annotations

import sys
from typing import Iterator

from .._missing import attribute_error
from ._flags import flag_module, set_flags_within

__all__ = ["flags", "is_available"]


def is_available() -> bool:
    """Whether oneDNN is in this build: no."""
    return False


def flags(enabled: bool = False, deterministic: bool = False) -> Iterator[None]:
    """Set oneDNN's flags for a with block, restoring them after it."""
    return set_flags_within(sys.modules[__name__], enabled=enabled, deterministic=deterministic)


__getattr__ = attribute_error(__name__)
flag_module(__name__, {"enabled": (True, "set_enabled_mkldnn"),
                       "deterministic": (False, "set_deterministic_mkldnn")})
