"""pyth.mps: Apple's Metal device, as a CPU-only PyTorch build answers for it: none
(is_available() False, device_count() 0, manual_seed a no-op); what needs the device raises
RuntimeError 'Cannot execute ...() without MPS backend.'"""

from __future__ import annotations

from typing import Any, NoReturn

from ._missing import attribute_error

__all__ = ["current_allocated_memory", "device_count", "driver_allocated_memory", "empty_cache",
           "get_rng_state", "is_available", "manual_seed", "recommended_max_memory", "seed",
           "set_rng_state", "synchronize"]


def _without_mps(call: str) -> NoReturn:
    raise RuntimeError(f"Cannot execute {call}() without MPS backend.")


def is_available() -> bool:
    """Whether an MPS device can be used: never in pyth."""
    return False


def device_count() -> int:
    """The number of MPS devices: 0."""
    return 0


def manual_seed(seed: int) -> None:
    """Seed the MPS generator: a no-op (the seed must still be an int)."""
    int(seed)


def seed() -> NoReturn:
    """Seed the MPS generator from a random number: RuntimeError, there is none."""
    _without_mps("getDefaultGenerator")


def get_rng_state(device: Any = "mps") -> NoReturn:
    """The MPS generator's state: RuntimeError, there is none."""
    _without_mps("getDefaultGenerator")


def set_rng_state(new_state: Any, device: Any = "mps") -> NoReturn:
    """Set the MPS generator's state: RuntimeError, there is none."""
    _without_mps("getDefaultGenerator")


def synchronize() -> NoReturn:
    """Wait for the MPS device's work: RuntimeError, there is none."""
    _without_mps("deviceSynchronize")


def empty_cache() -> NoReturn:
    """Release the MPS allocator's unused memory: RuntimeError, there is none."""
    _without_mps("emptyCache")


def current_allocated_memory() -> NoReturn:
    """Bytes MPS tensors hold: RuntimeError, there is none."""
    _without_mps("getCurrentAllocatedMemory")


def driver_allocated_memory() -> NoReturn:
    """Bytes the Metal driver holds: RuntimeError, there is none."""
    _without_mps("getDriverAllocatedMemory")


def recommended_max_memory() -> NoReturn:
    """The Metal working-set size: RuntimeError, there is none."""
    _without_mps("getRecommendedMaxMemory")


__getattr__ = attribute_error(__name__)
