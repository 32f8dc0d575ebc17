"""A deliberate heap overflow, to show that scripts/sanitize.sh fails on a sanitizer report:

    scripts/sanitize.sh scripts/sanitizer_canary.py      # must print FAILED and exit non-zero

Not part of the test suite (it lives outside tests/): under ASan the write below aborts the
process with a heap-buffer-overflow report; without ASan it is skipped."""

import os

import pytest
from pyth._th import ffi

import pyth


@pytest.mark.skipif("libasan" not in os.environ.get("LD_PRELOAD", ""), reason="needs ASan")
def test_canary_heap_overflow():
    s = pyth.FloatStorage(4)  # 16 bytes
    ffi.memmove(s._h.data, b"\0" * 64, 64)  # 48 bytes past the end: ASan must report it
