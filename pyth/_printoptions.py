"""set_printoptions / get_printoptions / printoptions: how tensors print (precision, summary
threshold, edge items, line width, scientific notation), applied by pyth/_printing.py."""

from __future__ import annotations

import contextlib
import math
from typing import Any, Iterator

from . import _printing

_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}


def get_printoptions() -> dict:
    """The current print options as a dict (set_printoptions(**d) restores them)."""
    return {"precision": _printing.PRECISION, "threshold": _printing.SUMMARY_THRESHOLD,
            "edgeitems": _printing.EDGE_ITEMS, "linewidth": _printing.LINEWIDTH,
            "sci_mode": _printing.SCI_MODE}


def set_printoptions(precision: int | None = None, threshold: float | None = None,
                     edgeitems: int | None = None, linewidth: int | None = None,
                     profile: str | None = None, sci_mode: bool | None = None) -> None:
    """Set print options: a profile ('default', 'short', 'full') then any given values;
    sci_mode is always set (None: chosen by magnitude)."""
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"set_printoptions(): unknown profile '{profile}' (expected "
                             f"one of {', '.join(_PROFILES)})")
        opts = _PROFILES[profile]
        _printing.PRECISION, _printing.SUMMARY_THRESHOLD = opts["precision"], opts["threshold"]
        _printing.EDGE_ITEMS, _printing.LINEWIDTH = opts["edgeitems"], opts["linewidth"]
    if precision is not None:
        _printing.PRECISION = int(precision)
    if threshold is not None:
        _printing.SUMMARY_THRESHOLD = threshold
    if edgeitems is not None:
        _printing.EDGE_ITEMS = int(edgeitems)
    if linewidth is not None:
        _printing.LINEWIDTH = int(linewidth)
    _printing.SCI_MODE = sci_mode


@contextlib.contextmanager
def printoptions(**kwargs: Any) -> Iterator[None]:
    """Print options set for the duration of a with-block, then restored."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


FUNCTIONS = {"set_printoptions": set_printoptions, "get_printoptions": get_printoptions,
             "printoptions": printoptions}
