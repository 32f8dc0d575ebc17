"""The process-wide backend flags PyTorch keeps at its top level (float32 matmul precision,
deterministic algorithms), which pyth/_bind.py puts in pyth; pyth.backends.cuda shows the
precision as matmul.allow_tf32. pyth computes full float32, deterministically, either way."""

from __future__ import annotations

import warnings

_PRECISIONS = ("highest", "high", "medium")
_DEBUG_MODES = ("default", "warn", "error")


class State:
    """The process-wide flags (pyth computes in float32 either way, deterministically)."""
    matmul_precision = "highest"
    deterministic = False
    warn_only = False


def set_float32_matmul_precision(precision: str) -> None:
    """Set the internal precision of float32 matrix products ('highest', 'high', 'medium'):
    recorded (and read back by cuda.matmul.allow_tf32); pyth's CPU products are full float32."""
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got "
                           f"{type(precision).__name__}")
    if precision not in _PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                      f"setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    State.matmul_precision = precision


def get_float32_matmul_precision() -> str:
    """The float32 matrix product precision last set: 'highest' by default."""
    return State.matmul_precision


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Ask for deterministic algorithms (pyth's are); recorded for the questions below."""
    for name, value in (("mode", mode), ("warn_only", warn_only)):
        if not isinstance(value, bool):
            where = " (position 1)" if name == "mode" else ""
            raise TypeError(f"_set_deterministic_algorithms(): argument '{name}'{where} must be "
                            f"bool, not {type(value).__name__}")
    State.deterministic, State.warn_only = mode, warn_only


def are_deterministic_algorithms_enabled() -> bool:
    """Whether use_deterministic_algorithms(True) is in force."""
    return State.deterministic


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether deterministic algorithms were asked for with warn_only=True."""
    return State.warn_only


def set_deterministic_debug_mode(debug_mode: str | int) -> None:
    """use_deterministic_algorithms by level: 0 / 'default' off, 1 / 'warn' warn only,
    2 / 'error' on."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = _DEBUG_MODES.index(debug_mode)
    elif not isinstance(debug_mode, int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got "
                           f"{debug_mode}")
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    """The level set_deterministic_debug_mode() names: 0, 1 or 2."""
    if not State.deterministic:
        return 0
    return 1 if State.warn_only else 2


FUNCTIONS = {f.__name__: f for f in (
    set_float32_matmul_precision, get_float32_matmul_precision, use_deterministic_algorithms,
    are_deterministic_algorithms_enabled, is_deterministic_algorithms_warn_only_enabled,
    set_deterministic_debug_mode, get_deterministic_debug_mode)}
