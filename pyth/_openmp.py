"""Sets how long idle OpenMP threads spin before they sleep, before pyth._th loads libgomp.

libgomp's default lets a worker spin for about 300,000 iterations after each parallel region.
On a 2-core machine that spinning worker holds the core OpenBLAS's own thread needs for the
next large product: a 784-512-10 MLP step at batch 128 took twice as long (3.4 ms instead of
1.7 ms) until the workers were told to sleep sooner. libgomp reads GOMP_SPINCOUNT once, when it
loads; a value the user set (or OMP_WAIT_POLICY) is kept, and child processes get their own
defaults back.
"""

from __future__ import annotations

import os

SPINCOUNT = "10000"

_OURS = {} if ("GOMP_SPINCOUNT" in os.environ or "OMP_WAIT_POLICY" in os.environ) else \
    {"GOMP_SPINCOUNT": SPINCOUNT}


def loading() -> None:
    """Called around the import of pyth._th: sets the variable, then restore() removes it."""
    os.environ.update(_OURS)


def restore() -> None:
    for k in _OURS:
        os.environ.pop(k, None)
