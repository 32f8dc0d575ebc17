"""pyth.backends.cuda: CUDA's flags (matmul.allow_tf32 and the reduced-precision reductions,
the scaled-dot-product attention kernels' switches), settable and readable as PyTorch's;
is_built() is False. matmul.allow_tf32 is the float32 matmul precision seen as a bool, as in
PyTorch: True means 'high', False 'highest'."""

from __future__ import annotations

from typing import Any

from .._missing import attribute_error
from .._backend_flags import State
from ._flags import expect_bool

__all__ = ["cudnn_sdp_enabled", "enable_cudnn_sdp", "enable_flash_sdp", "enable_math_sdp",
           "enable_mem_efficient_sdp", "flash_sdp_enabled", "is_built", "math_sdp_enabled",
           "matmul", "mem_efficient_sdp_enabled"]


def is_built() -> bool:
    """Whether this build has CUDA: no."""
    return False


class cuBLASModule:
    """torch.backends.cuda.matmul: cuBLAS's flags; any other name is refused."""

    _REDUCTIONS = ("allow_fp16_reduced_precision_reduction",
                   "allow_bf16_reduced_precision_reduction")

    def __init__(self) -> None:
        object.__setattr__(self, "_reductions", dict.fromkeys(self._REDUCTIONS, True))

    def __getattr__(self, name: str) -> Any:
        if name == "allow_tf32":
            return State.matmul_precision != "highest"
        if name in self._REDUCTIONS:
            return self._reductions[name]
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "allow_tf32":
            expect_bool("set_allow_tf32_cublas", value)
            State.matmul_precision = "high" if value else "highest"
        elif name in self._REDUCTIONS:
            if not (isinstance(value, bool) or isinstance(value, (tuple, list)) and
                    all(isinstance(v, bool) for v in value)):
                raise TypeError(f"{name} expects a bool or a tuple/list of bools, but got "
                                f"{type(value)}")
            self._reductions[name] = value
        else:
            raise AttributeError(f"Unknown attribute {name}")


matmul = cuBLASModule()

# the scaled-dot-product attention kernels' switches (pyth's attention is its own kernel)
_SDP = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def _sdp_switch(kind: str) -> tuple:
    def enabled() -> bool:
        return _SDP[kind]

    def enable(enabled: bool) -> None:
        expect_bool(f"set_sdp_use_{kind}", enabled)
        _SDP[kind] = enabled
    enabled.__name__, enable.__name__ = f"{kind}_sdp_enabled", f"enable_{kind}_sdp"
    enabled.__doc__ = f"Whether the {kind} attention kernel may be picked (a flag only here)."
    enable.__doc__ = f"Allow or forbid the {kind} attention kernel (a flag only here)."
    return enabled, enable


flash_sdp_enabled, enable_flash_sdp = _sdp_switch("flash")
mem_efficient_sdp_enabled, enable_mem_efficient_sdp = _sdp_switch("mem_efficient")
math_sdp_enabled, enable_math_sdp = _sdp_switch("math")
cudnn_sdp_enabled, enable_cudnn_sdp = _sdp_switch("cudnn")

__getattr__ = attribute_error(__name__)
