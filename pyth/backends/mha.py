"""pyth.backends.mha: the switch of the multi-head attention fast path, settable and readable
as PyTorch's (pyth's attention is one kernel either way)."""

from __future__ import annotations

from typing import Any

from .._missing import attribute_error

__all__ = ["get_fastpath_enabled", "set_fastpath_enabled"]

_fastpath = [True]


def get_fastpath_enabled() -> bool:
    """Whether nn.MultiheadAttention may take its fast path."""
    return _fastpath[0]


def set_fastpath_enabled(value: Any) -> None:
    """Allow or forbid nn.MultiheadAttention's fast path."""
    _fastpath[0] = bool(value)


__getattr__ = attribute_error(__name__)
