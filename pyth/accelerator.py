"""pyth.accelerator: PyTorch's device-neutral accelerator questions, as a CPU-only build answers
them: no accelerator (is_available() False, current_accelerator() None, device_count() 0), so
`device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else
"cpu"` picks the CPU; everything that needs the accelerator raises RuntimeError."""

from __future__ import annotations

import warnings
from typing import Any, NoReturn

from ._missing import attribute_error
from .device import NO_ACCELERATOR, refusing

__all__ = ["current_accelerator", "current_device_idx", "current_device_index",
           "current_stream", "device_count", "device_index", "empty_cache",
           "get_device_capability", "get_memory_info", "is_available", "max_memory_allocated",
           "max_memory_reserved", "memory_allocated", "memory_reserved", "memory_stats",
           "reset_accumulated_memory_stats", "reset_peak_memory_stats", "set_device_idx",
           "set_device_index", "set_stream", "synchronize"]


def _none(*args: Any) -> NoReturn:
    raise RuntimeError(NO_ACCELERATOR)


def is_available() -> bool:
    """Whether an accelerator (CUDA, MPS, XPU, ...) can be used: never in pyth."""
    return False


def current_accelerator(check_available: bool = False) -> None:
    """The accelerator's device type (a pyth.device): None, there is none."""
    return None


def device_count() -> int:
    """The number of accelerator devices: 0."""
    return 0


def current_device_index() -> NoReturn:
    """The index of the selected accelerator device: RuntimeError, there is none."""
    _none()


def current_device_idx() -> NoReturn:
    """The former name of current_device_index()."""
    warnings.warn("Use `current_device_index` instead.", FutureWarning, stacklevel=2)
    _none()


def set_device_index(device: Any, /) -> NoReturn:
    """Select an accelerator device: RuntimeError, there is none."""
    _none()


def set_device_idx(device: Any, /) -> NoReturn:
    """The former name of set_device_index()."""
    warnings.warn("Use `set_device_index` instead.", FutureWarning, stacklevel=2)
    _none()


def synchronize(device: Any = None, /) -> NoReturn:
    """Wait for the accelerator's work: RuntimeError, there is none."""
    _none()


def current_stream(device: Any = None, /) -> NoReturn:
    """The accelerator's current stream: RuntimeError, there is none."""
    _none()


def set_stream(stream: Any) -> NoReturn:
    """Make a stream current: there are no accelerator streams to pass."""
    raise TypeError(f"set_stream(): expected a Stream, got {type(stream).__name__}")


# the memory questions, each needing the accelerator
_needs_accelerator = refusing(lambda: RuntimeError(NO_ACCELERATOR))


@_needs_accelerator
def empty_cache() -> None:
    """Release the allocator's unused memory: RuntimeError, there is no accelerator."""


@_needs_accelerator
def memory_allocated(device_index: Any = None, /) -> None:
    """Bytes the tensors hold: RuntimeError, there is no accelerator."""


@_needs_accelerator
def max_memory_allocated(device_index: Any = None, /) -> None:
    """Peak bytes the tensors held: RuntimeError, there is no accelerator."""


@_needs_accelerator
def memory_reserved(device_index: Any = None, /) -> None:
    """Bytes the allocator holds: RuntimeError, there is no accelerator."""


@_needs_accelerator
def max_memory_reserved(device_index: Any = None, /) -> None:
    """Peak bytes the allocator held: RuntimeError, there is no accelerator."""


@_needs_accelerator
def memory_stats(device_index: Any = None, /) -> None:
    """The allocator's statistics: RuntimeError, there is no accelerator."""


@_needs_accelerator
def reset_peak_memory_stats(device_index: Any = None, /) -> None:
    """Reset the allocator's peaks: RuntimeError, there is no accelerator."""


@_needs_accelerator
def reset_accumulated_memory_stats(device_index: Any = None, /) -> None:
    """Reset the allocator's totals: RuntimeError, there is no accelerator."""


@_needs_accelerator
def get_memory_info(device_index: Any = None, /) -> None:
    """Free and total memory: RuntimeError, there is no accelerator."""


@_needs_accelerator
def get_device_capability(device: Any = None, /) -> None:
    """What a device supports: RuntimeError, there is no accelerator."""


class device_index:
    """Context manager selecting an accelerator device by index: None selects nothing (and
    is accepted); an index raises on entry, there is no accelerator."""

    def __init__(self, device: int | None, /) -> None:
        self.idx, self.prev_idx = device, -1

    def __enter__(self) -> None:
        if self.idx is not None:
            _none()

    def __exit__(self, *exc: Any) -> bool:
        return False


__getattr__ = attribute_error(__name__)
