"""pyth.device: where a tensor lives. pyth has one device, the CPU; naming any other raises
RuntimeError instead of silently giving a CPU tensor."""

from __future__ import annotations

import builtins
from typing import Any

# device types PyTorch knows; pyth accepts only 'cpu' and names the rest in the error
_KNOWN = ("cpu", "cuda", "mps", "xpu", "xla", "meta", "hip", "ipu", "mtia", "hpu", "vulkan",
          "maia", "mkldnn", "opengl", "opencl", "ideep", "fpga", "ve", "lazy", "privateuseone")


class device:
    """A device: pyth.device('cpu'), pyth.device('cpu', 0); compares equal to its string."""

    __slots__ = ("type", "index")

    def __init__(self, type: Any, index: int | None = None) -> None:  # noqa: A002
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int) and not isinstance(type, bool):
            raise RuntimeError(f"device(): pyth has no accelerator device {type} (only 'cpu')")
        if not isinstance(type, str):
            raise TypeError(f"device(): expected a string or device, got {builtins.type(type).__name__}")
        name, _, idx = type.partition(":")
        if name not in _KNOWN:
            raise RuntimeError(f"Expected one of {', '.join(_KNOWN)} device type at start of "
                               f"device string: {type}")
        if idx:
            if index is not None:
                raise RuntimeError(f"device(): type (string) must not include an index because "
                                   f"index was passed explicitly: {type}")
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}'")
            index = int(idx)
        if index is not None and index < 0:
            raise RuntimeError(f"Device index must not be negative, got {index}")
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


def check_device(d: Any, op: str = "device") -> device:
    """The CPU device for None, 'cpu', 'cpu:0' or device('cpu'); RuntimeError naming any
    other device (pyth computes on the CPU only)."""
    if d is None:
        return CPU
    dev = device(d)
    if dev.type != "cpu":
        raise RuntimeError(f"{op}(): device '{dev}' is not available: pyth runs on the CPU only "
                           f"(device type '{dev.type}' is not supported)")
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
        if isinstance(a, (str, device)):
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
            "is_cpu": property(lambda self: True), "cpu": _cpu, "cuda": _cuda}


def _cuda(self: Any, device: Any = None, non_blocking: bool = False,
          memory_format: Any = None) -> Any:
    """Always a RuntimeError: pyth has no CUDA device."""
    check_device("cuda" if device is None else device if not isinstance(device, int)
                 else f"cuda:{device}", "cuda")
    return self
