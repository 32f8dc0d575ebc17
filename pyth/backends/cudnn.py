"""pyth.backends.cudnn: cuDNN's flags (enabled, benchmark, deterministic, allow_tf32,
benchmark_limit), settable and readable as PyTorch's; cuDNN itself is absent
(is_available() False, version() None)."""

from __future__ import annotations

import sys
from typing import Any, Iterator

from .._missing import attribute_error
from ._flags import flag_module, set_flags_within

__all__ = ["flags", "is_acceptable", "is_available", "version"]

benchmark_limit = None   # a plain attribute in a CPU-only build, as in PyTorch's


def is_available() -> bool:
    """Whether cuDNN can be used: never in pyth."""
    return False


def version() -> None:
    """cuDNN's version: None, there is none."""
    return None


def is_acceptable(tensor: Any) -> bool:
    """Whether cuDNN would take this tensor: never, pyth's are CPU tensors."""
    return False


def flags(enabled: bool = False, benchmark: bool = False, benchmark_limit: int = 10,
          deterministic: bool = False, allow_tf32: bool = True) -> Iterator[None]:
    """Set cuDNN's flags for a with block, restoring them after it."""
    return set_flags_within(sys.modules[__name__], enabled=enabled, benchmark=benchmark,
                            benchmark_limit=benchmark_limit, deterministic=deterministic,
                            allow_tf32=allow_tf32)


__getattr__ = attribute_error(__name__)
flag_module(__name__, {"enabled": (True, "set_enabled_cudnn"),
                       "benchmark": (False, "set_benchmark_cudnn"),
                       "deterministic": (False, "set_deterministic_cudnn"),
                       "allow_tf32": (True, "set_allow_tf32_cublas")})
