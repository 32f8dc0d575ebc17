"""pyth.device: where a tensor lives. pyth has one device, the CPU. Any device type PyTorch knows
can be named (torch.device('cuda') is an object a CPU-only build makes too), but putting a tensor
on one raises what a CPU-only PyTorch build raises there, with pyth's name: AssertionError
'pyth not compiled with CUDA enabled' for cuda (and xpu, mtia), RuntimeError 'pyth is not linked
with support for mps devices' for the others; a device index alone ('to(0)') asks for an
accelerator, of which there is none."""

from __future__ import annotations

import builtins
import functools
from typing import Any, Callable, NoReturn

# device types PyTorch knows; pyth accepts only 'cpu' and names the rest in the error
_KNOWN = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
          "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")


class device:
    """A device: pyth.device('cpu'), pyth.device('cpu', 0); compares equal to its string."""

    __slots__ = ("type", "index")

    def __init__(self, type: Any, index: int | None = None) -> None:  # noqa: A002
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int) and not isinstance(type, bool):
            if type < 0:
                raise RuntimeError("Device index must not be negative")
            raise RuntimeError(NO_ACCELERATOR)
        if not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got "
                            f"({builtins.type(type).__name__}), but expected one of:\n"
                            f" * (pyth.device device)\n * (str type, int index = -1)")
        name, _, idx = type.partition(":")
        if name not in _KNOWN:
            raise RuntimeError(f"Expected one of {', '.join(_KNOWN)} device type at start of "
                               f"device string: {type}")
        if idx:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because "
                                   f"index was passed explicitly: {type}")
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}'")
            index = int(idx)
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self.type, self.index = name, index

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, str):
            try:
                other = device(other)
            except (RuntimeError, TypeError):
                return False
        if not isinstance(other, device):
            return NotImplemented
        return (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self) -> str:
        idx = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{idx})"

    def __reduce__(self):
        return (device, (self.type, self.index))


CPU = device("cpu")
NO_ACCELERATOR = "Cannot access accelerator device when none is available."
# the device types a CPU-only PyTorch build refuses with an AssertionError, by backend name
_NOT_COMPILED = {"cuda": "CUDA", "xpu": "XPU", "mtia": "MTIA"}
# the backend names of the types whose factories (zeros(device='mps')) find no kernel
_BACKENDS = {"mps": "MPS", "hip": "HIP", "xla": "XLA", "vulkan": "Vulkan", "ipu": "IPU",
             "maia": "MAIA", "ve": "VE", "fpga": "FPGA", "lazy": "Lazy"}
_CONVERSIONS = ("to", "tensor", "as_tensor", "cuda", "xpu")   # the ops that move data


def not_compiled(backend: str) -> AssertionError:
    """The error a CPU-only build gives for a backend it was not compiled with (CUDA, XPU)."""
    return AssertionError(f"pyth not compiled with {backend} enabled")


def unavailable(dev: device, op: str) -> BaseException:
    """The exception a CPU-only PyTorch build raises where op puts data on device dev."""
    if dev.type in _NOT_COMPILED:
        return not_compiled(_NOT_COMPILED[dev.type])
    if dev.type in _BACKENDS and op not in _CONVERSIONS:
        return NotImplementedError(f"Could not run '{op}' with arguments from the "
                                   f"'{_BACKENDS[dev.type]}' backend: pyth runs on the CPU only")
    return RuntimeError(f"pyth is not linked with support for {dev.type} devices")


def refusing(error: Callable[[], BaseException]) -> Callable[[Callable], Callable[..., NoReturn]]:
    """A decorator making a stub (PyTorch's signature and a docstring) a function of a device
    module that needs the device: its arguments are checked as the stub's, so a wrong one is
    a TypeError naming the function, then error() is raised (pyth.cuda.synchronize, ...)."""
    def make(stub: Callable) -> Callable[..., NoReturn]:
        @functools.wraps(stub)
        def refuse(*args: Any, **kwargs: Any) -> NoReturn:
            stub(*args, **kwargs)
            raise error()
        return refuse
    return make


def check_device(d: Any, op: str = "device") -> device:
    """The CPU device for None, 'cpu', 'cpu:0' or device('cpu'); for any other device the error
    a CPU-only PyTorch build raises (pyth computes on the CPU only)."""
    if d is None:
        return CPU
    dev = device(d)
    if dev.type != "cpu":
        raise unavailable(dev, op)
    return dev


# ---- the Tensor side: t.device, t.cpu(), t.is_cuda, t.to(device) ----

def _tensor_device(self: Any) -> device:
    """The device holding this tensor: always the CPU."""
    return CPU


def _cpu(self: Any, memory_format: Any = None) -> Any:
    """This tensor on the CPU: self, since pyth tensors always are."""
    return self


def _split_to_args(args: tuple, kwargs: dict) -> tuple:
    """to()'s arguments without the device ones (validated and dropped) and PyTorch's
    keywords pyth has no use for (non_blocking, memory_format)."""
    kept = []
    for a in args:
        if isinstance(a, (str, device)) or isinstance(a, int) and not isinstance(a, bool):
            check_device(a, "to")
        else:
            kept.append(a)
    if "device" in kwargs:
        check_device(kwargs.pop("device"), "to")
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    return tuple(kept), kwargs


def methods(base_to: Any) -> dict[str, Any]:
    """Tensor's device surface (device, is_cuda, cpu(), to(device)), to() over base_to (the
    dtype conversion); pyth/_bind.py binds it."""

    def to(self: Any, *args: Any, **kwargs: Any) -> Any:
        """Convert to a dtype and/or device ('cpu' only); self when nothing changes."""
        args, kwargs = _split_to_args(args, kwargs)
        if args and args[0] is None:
            args = args[1:]
        return base_to(self, *args, **kwargs)

    to.__wrapped__ = base_to
    return {"to": to, "device": property(_tensor_device), "is_cuda": property(lambda self: False),
            "is_cpu": property(lambda self: True), "cpu": _cpu, "cuda": cuda, "xpu": xpu,
            "pin_memory": _pin_memory}


def accelerator_device(kind: str, d: Any) -> device:
    """The device a module's or tensor's .cuda(d) / .xpu(d) names (None: the current one)."""
    if d is None:
        return device(kind)
    if isinstance(d, int) and not isinstance(d, bool):
        raise RuntimeError(NO_ACCELERATOR)
    dev = device(d)
    if dev.type != kind:
        raise RuntimeError(f"Invalid device, must be {kind} device")
    return dev


def cuda(self: Any, device: Any = None, non_blocking: bool = False,
         memory_format: Any = None) -> Any:
    """A copy on a CUDA device: a CPU-only build has none, so this always raises."""
    raise unavailable(accelerator_device("cuda", device), "cuda")


def xpu(self: Any, device: Any = None, non_blocking: bool = False,
        memory_format: Any = None) -> Any:
    """A copy on an XPU device: a CPU-only build has none, so this always raises."""
    raise unavailable(accelerator_device("xpu", device), "xpu")


def _pin_memory(self: Any, device: Any = None) -> Any:
    """Page-locked memory is an accelerator's: without one, RuntimeError as PyTorch's."""
    raise RuntimeError(NO_ACCELERATOR)
