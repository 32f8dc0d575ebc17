"""detect_anomaly: remember where each node was made, and name the op whose backward made NaN."""

from __future__ import annotations

import traceback
import warnings
from typing import Any

# whether anomaly mode is on (read by record.py and the engine on each call)
_anomaly = [False]


def enabled() -> bool:
    return _anomaly[0]


def is_anomaly_enabled() -> bool:
    return _anomaly[0]


def remember(node: Any) -> None:
    """The forward call's stack, kept on the node (anomaly mode only)."""
    node._trace = "".join(traceback.format_stack()[:-3])


def run_checked(node: Any, grads: list) -> list:
    try:
        outs = node.apply(grads)
    except Exception:
        _report(node)
        raise
    for i, g in enumerate(outs):
        if g is not None and bool(g.isnan().any()):
            _report(node)
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th "
                               f"output.")
    return outs


def _report(node: Any) -> None:
    if node._trace:
        warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused "
                      f"the error:\n{node._trace}", RuntimeWarning, stacklevel=3)


class detect_anomaly:
    """Context manager (and decorator): forward records stacks, backward checks for NaN."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan

    def __enter__(self) -> None:
        self.prev = _anomaly[0]
        _anomaly[0] = True
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)

    def __exit__(self, *exc: object) -> None:
        _anomaly[0] = self.prev

    def __call__(self, fn: Any) -> Any:
        import functools

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with detect_anomaly(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """set_detect_anomaly(True) turns it on now, or inside a with block."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = _anomaly[0]
        _anomaly[0] = bool(mode)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        _anomaly[0] = self.prev
