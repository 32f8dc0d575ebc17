"""pyth.xpu: Intel's GPU device, as a CPU-only PyTorch build answers for it: the same answers as
pyth.cuda (none, no-op seeds, zero memory), and AssertionError 'pyth not compiled with XPU
enabled' for what needs the device."""

from __future__ import annotations

from typing import Any

from ._missing import attribute_error
from .cuda import (device_count, empty_cache, is_available, is_bf16_supported, is_initialized,
                   manual_seed, manual_seed_all, max_memory_allocated, max_memory_reserved,
                   memory_allocated, memory_reserved, memory_stats, seed, seed_all)
from .device import not_compiled, refusing

__all__ = ["current_device", "device_count", "empty_cache", "get_device_capability",
           "get_device_name", "get_device_properties", "get_rng_state", "init", "initial_seed",
           "is_available", "is_bf16_supported", "is_initialized", "manual_seed",
           "manual_seed_all", "max_memory_allocated", "max_memory_reserved", "memory_allocated",
           "memory_reserved", "memory_stats", "seed", "seed_all", "set_device", "set_rng_state",
           "synchronize"]


_needs_xpu = refusing(lambda: not_compiled("XPU"))


@_needs_xpu
def init() -> None:
    """Initialise XPU: AssertionError, pyth has no XPU device."""


@_needs_xpu
def current_device() -> None:
    """The index of the selected device: AssertionError, pyth has no XPU device."""


@_needs_xpu
def set_device(device: Any) -> None:
    """Select a device: AssertionError, pyth has no XPU device."""


@_needs_xpu
def get_device_name(device: Any = None) -> None:
    """The name of a device: AssertionError, pyth has no XPU device."""


@_needs_xpu
def get_device_capability(device: Any = None) -> None:
    """A device's capability: AssertionError, pyth has no XPU device."""


@_needs_xpu
def get_device_properties(device: Any = None) -> None:
    """A device's properties: AssertionError, pyth has no XPU device."""


@_needs_xpu
def synchronize(device: Any = None) -> None:
    """Wait for a device's work: AssertionError, pyth has no XPU device."""


@_needs_xpu
def initial_seed() -> None:
    """The current generator's seed: AssertionError, pyth has no XPU device."""


@_needs_xpu
def get_rng_state(device: Any = "xpu") -> None:
    """A generator's state: AssertionError, pyth has no XPU device."""


@_needs_xpu
def set_rng_state(new_state: Any, device: Any = "xpu") -> None:
    """Set a generator's state: AssertionError, pyth has no XPU device."""


__getattr__ = attribute_error(__name__)
