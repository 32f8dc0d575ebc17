"""pyth.cuda: what a CPU-only PyTorch build's torch.cuda answers, so a program's device selection
runs unchanged. pyth has no CUDA device: the questions answer no (is_available() False,
device_count() 0, the memory counters 0), the seeds are no-ops, and what needs a device
(current_device(), synchronize(), get_device_name(), ...) raises AssertionError 'pyth not
compiled with CUDA enabled', as that build does."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, NoReturn

from .._missing import attribute_error
from ..device import not_compiled, refusing
from . import amp

__all__ = ["OutOfMemoryError", "amp", "current_device", "device", "device_count", "device_of",
           "empty_cache", "get_arch_list", "get_device_capability", "get_device_name",
           "get_device_properties", "get_rng_state", "get_rng_state_all", "init", "initial_seed",
           "is_available", "is_bf16_supported", "is_initialized", "is_tf32_supported",
           "manual_seed", "manual_seed_all", "max_memory_allocated", "max_memory_reserved",
           "memory_allocated", "memory_reserved", "memory_stats", "seed", "seed_all",
           "set_device", "set_rng_state", "set_rng_state_all", "synchronize"]


class OutOfMemoryError(RuntimeError):
    """Raised when an accelerator runs out of memory (never, here: there is none)."""


# ---- the questions: no device ----

def is_available() -> bool:
    """Whether a CUDA device can be used: never in pyth."""
    return False


def device_count() -> int:
    """The number of CUDA devices: 0."""
    return 0


def is_initialized() -> bool:
    """Whether CUDA state has been initialised: never."""
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """Whether the current CUDA device supports bfloat16: there is none."""
    return False


def is_tf32_supported() -> bool:
    """Whether the current CUDA device supports TensorFloat-32: there is none."""
    return False


def get_arch_list() -> list[str]:
    """The CUDA architectures this build was compiled for: none."""
    return []


def get_gencode_flags() -> str:
    """The NVCC gencode flags this build was compiled with: none."""
    return ""


# ---- seeds and random states: no-ops, as a CPU-only build's ----

def manual_seed(seed: int) -> None:
    """Seed the current CUDA device's generator: a no-op (the seed must still be an int)."""
    int(seed)


def manual_seed_all(seed: int) -> None:
    """Seed every CUDA device's generator: a no-op (the seed must still be an int)."""
    int(seed)


def seed() -> None:
    """Seed the current CUDA generator from a random number: a no-op."""


def seed_all() -> None:
    """Seed every CUDA generator from a random number: a no-op."""


def get_rng_state_all() -> list:
    """Every CUDA device's generator state: an empty list, there are none."""
    return []


def set_rng_state_all(new_states: Any) -> None:
    """Set every CUDA device's generator state: a no-op, there are none."""


# ---- memory: nothing allocated ----

def empty_cache() -> None:
    """Release the caching allocator's unused CUDA memory: there is none."""


def memory_allocated(device: Any = None) -> int:
    """Bytes of CUDA memory tensors hold: 0."""
    return 0


def max_memory_allocated(device: Any = None) -> int:
    """Peak bytes of CUDA memory tensors held: 0."""
    return 0


def memory_reserved(device: Any = None) -> int:
    """Bytes of CUDA memory the caching allocator holds: 0."""
    return 0


def max_memory_reserved(device: Any = None) -> int:
    """Peak bytes of CUDA memory the caching allocator held: 0."""
    return 0


def memory_stats(device: Any = None) -> OrderedDict:
    """The CUDA allocator's statistics: none (pyth.memory_stats() has the CPU's)."""
    return OrderedDict()


# ---- what needs a device: AssertionError ----
_needs_cuda = refusing(lambda: not_compiled("CUDA"))


@_needs_cuda
def init() -> None:
    """Initialise CUDA: AssertionError, pyth has no CUDA device."""


@_needs_cuda
def current_device() -> None:
    """The index of the selected device: AssertionError, pyth has no CUDA device."""


@_needs_cuda
def set_device(device: Any) -> None:
    """Select a device: AssertionError, pyth has no CUDA device."""


@_needs_cuda
def get_device_name(device: Any = None) -> None:
    """The name of a device: AssertionError, pyth has no CUDA device."""


@_needs_cuda
def get_device_capability(device: Any = None) -> None:
    """A device's compute capability: AssertionError, pyth has no CUDA device."""


@_needs_cuda
def get_device_properties(device: Any = None) -> None:
    """A device's properties: AssertionError, pyth has no CUDA device."""


@_needs_cuda
def synchronize(device: Any = None) -> None:
    """Wait for a device's work: AssertionError, pyth has no CUDA device."""


@_needs_cuda
def initial_seed() -> None:
    """The current generator's seed: AssertionError, pyth has no CUDA device."""


@_needs_cuda
def get_rng_state(device: Any = "cuda") -> None:
    """A generator's state: AssertionError, pyth has no CUDA device."""


@_needs_cuda
def set_rng_state(new_state: Any, device: Any = "cuda") -> None:
    """Set a generator's state: AssertionError, pyth has no CUDA device."""


@_needs_cuda
def current_stream(device: Any = None) -> None:
    """The current stream: AssertionError, pyth has no CUDA device."""


@_needs_cuda
def default_stream(device: Any = None) -> None:
    """The default stream: AssertionError, pyth has no CUDA device."""


@_needs_cuda
def mem_get_info(device: Any = None) -> None:
    """Free and total device memory: AssertionError, pyth has no CUDA device."""


@_needs_cuda
def ipc_collect() -> None:
    """Release memory shared between processes: AssertionError, pyth has no CUDA device."""


@_needs_cuda
def reset_peak_memory_stats(device: Any = None) -> None:
    """Reset the allocator's peaks: AssertionError, pyth has no CUDA device."""


@_needs_cuda
def set_per_process_memory_fraction(fraction: float, device: Any = None) -> None:
    """Cap this process's device memory: AssertionError, pyth has no CUDA device."""


class device:
    """Context manager selecting a CUDA device: made as PyTorch's, entering it raises."""

    def __init__(self, device: Any) -> None:
        self.idx = _index(device)
        self.prev_idx = -1

    def __enter__(self) -> NoReturn:
        raise RuntimeError("pyth was compiled without CUDA support")

    def __exit__(self, *exc: Any) -> bool:
        return False


class device_of(device):
    """Context manager selecting the device of a tensor: the CPU, so it changes nothing."""

    def __init__(self, obj: Any) -> None:
        self.idx, self.prev_idx = -1, -1

    def __enter__(self) -> None:
        return None


def _index(d: Any) -> int | None:
    """A CUDA device's index as torch.cuda's helpers read it (None stays None)."""
    from ..device import device as _device_type
    if d is None:
        return None
    if isinstance(d, int) and not isinstance(d, bool):
        return d
    dev = _device_type(d)
    if dev.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {dev}")
    return -1 if dev.index is None else dev.index


class Stream:
    """A CUDA stream: refused, as PyTorch's without CUDA."""

    def __new__(cls, *args: Any, **kwargs: Any) -> NoReturn:
        raise RuntimeError("pyth.cuda.Stream requires CUDA support")


class Event:
    """A CUDA event: refused, as PyTorch's without CUDA."""

    def __new__(cls, *args: Any, **kwargs: Any) -> NoReturn:
        raise RuntimeError("Tried to instantiate dummy base class Event")


def _legacy_type(name: str) -> type:
    def __new__(cls: type, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError(f"type pyth.cuda.{name} not available. pyth not compiled with CUDA "
                        f"enabled.")
    return type(name, (), {"__new__": __new__, "__module__": __name__,
                           "__doc__": f"The legacy CUDA {name}: no such tensors in pyth."})


for _name in ("FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor",
              "CharTensor", "ShortTensor", "IntTensor", "LongTensor", "BoolTensor"):
    globals()[_name] = _legacy_type(_name)
del _name

__getattr__ = attribute_error(__name__)
