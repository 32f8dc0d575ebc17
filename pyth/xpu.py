"""pyth.xpu: Intel's GPU device, as a CPU-only PyTorch build answers for it: the same answers as
pyth.cuda (none, no-op seeds, zero memory), and AssertionError 'pyth not compiled with XPU
enabled' for what needs the device."""

from __future__ import annotations

from typing import Callable, NoReturn

from ._missing import attribute_error
from .cuda import (device_count, empty_cache, is_available, is_bf16_supported, is_initialized,
                   manual_seed, manual_seed_all, max_memory_allocated, max_memory_reserved,
                   memory_allocated, memory_reserved, memory_stats, seed, seed_all)
from .device import not_compiled, refusal

__all__ = ["current_device", "device_count", "empty_cache", "get_device_capability",
           "get_device_name", "get_device_properties", "get_rng_state", "init", "initial_seed",
           "is_available", "is_bf16_supported", "is_initialized", "manual_seed",
           "manual_seed_all", "max_memory_allocated", "max_memory_reserved", "memory_allocated",
           "memory_reserved", "memory_stats", "seed", "seed_all", "set_device", "set_rng_state",
           "synchronize"]


def _needs_xpu(name: str) -> Callable[..., NoReturn]:
    return refusal(name, "Needs an XPU device: AssertionError, pyth has none.",
                   lambda: not_compiled("XPU"))


# what needs a device, each the same refusal
init = _needs_xpu("init")
current_device = _needs_xpu("current_device")
set_device = _needs_xpu("set_device")
get_device_name = _needs_xpu("get_device_name")
get_device_capability = _needs_xpu("get_device_capability")
get_device_properties = _needs_xpu("get_device_properties")
synchronize = _needs_xpu("synchronize")
initial_seed = _needs_xpu("initial_seed")
get_rng_state = _needs_xpu("get_rng_state")
set_rng_state = _needs_xpu("set_rng_state")

__getattr__ = attribute_error(__name__)
