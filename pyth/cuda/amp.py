"""pyth.cuda.amp: automatic mixed precision for CUDA, as a CPU-only PyTorch build has it: autocast
and GradScaler are made (with PyTorch's deprecation warning) and disable themselves, since
there is no CUDA device, so a mixed-precision training loop runs in full precision unchanged."""

from __future__ import annotations

import functools
import warnings
from typing import Any, Callable

from .. import dtypes as _dt
from .._missing import attribute_error

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd"]


def _deprecated(name: str, replacement: str) -> None:
    warnings.warn(f"`pyth.cuda.amp.{name}(args...)` is deprecated. Please use "
                  f"`{replacement}` instead.", FutureWarning, stacklevel=3)


class autocast:
    """Context manager and decorator running CUDA ops in lower precision: disabled here (and
    says so when asked for), ops run in their own dtypes."""

    def __init__(self, enabled: bool = True, dtype: Any = _dt.float16,
                 cache_enabled: bool = True) -> None:
        _deprecated("autocast", "torch.amp.autocast('cuda', args...)")
        if enabled:
            warnings.warn("CUDA is not available. Disabling autocast.", UserWarning,
                          stacklevel=2)
        self.device, self.fast_dtype = "cuda", dtype
        self._enabled, self._cache_enabled = False, cache_enabled

    def __enter__(self) -> "autocast":
        return self

    def __exit__(self, *exc: Any) -> bool:
        return False

    def __call__(self, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fn(*args, **kwargs)
        return run


class GradScaler:
    """Loss scaling for float16 training on CUDA: disabled here, so scale() returns its input,
    step() is the optimizer's step and update() does nothing, as PyTorch's without CUDA."""

    def __init__(self, init_scale: float = 65536.0, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True) -> None:
        _deprecated("GradScaler", "torch.amp.GradScaler('cuda', args...)")
        if enabled:
            warnings.warn("pyth.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", UserWarning, stacklevel=2)
        self._enabled = False
        self._init_scale, self._growth_factor = init_scale, growth_factor
        self._backoff_factor, self._growth_interval = backoff_factor, growth_interval

    def is_enabled(self) -> bool:
        """Whether the scaler scales: never, without CUDA."""
        return self._enabled

    def scale(self, outputs: Any) -> Any:
        """The outputs (a tensor or a container of them) times the scale: unchanged."""
        return outputs

    def unscale_(self, optimizer: Any) -> None:
        """Divide the optimizer's gradients by the scale: nothing to undo."""

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """The optimizer's step (there are no inf checks to make)."""
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale: Any = None) -> None:
        """Adjust the scale for the next step: there is none."""

    def get_scale(self) -> float:
        """The current scale: 1.0 while disabled."""
        return 1.0

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def state_dict(self) -> dict:
        """The scaler's state: empty while disabled."""
        return {}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore a state: a disabled scaler keeps none."""


def custom_fwd(fwd: Callable | None = None, *, cast_inputs: Any = None) -> Callable:
    """Decorator for a custom Function's forward under autocast: autocast is off, so fwd as is."""
    _deprecated("custom_fwd", "torch.amp.custom_fwd(args..., device_type='cuda')")
    if fwd is None:
        return lambda f: f
    return fwd


def custom_bwd(bwd: Callable) -> Callable:
    """Decorator for a custom Function's backward under autocast: bwd as is."""
    _deprecated("custom_bwd", "torch.amp.custom_bwd(args..., device_type='cuda')")
    return bwd


__getattr__ = attribute_error(__name__)
