"""Shared test configuration: hypothesis profiles for the fuzz suites, a guard that a
sanitized run (scripts/sanitize.sh) really imports the sanitized core, the fixtures
several suites use (restore_threads, frozen_gc), and one every test gets (no queue feeder
thread outlives the test that started it)."""

from __future__ import annotations

import gc
import os
import threading

import pytest
from hypothesis import HealthCheck, settings

# Profiles (PYTH_FUZZ=<name>) set the example count of every test that does not fix its own:
#   ci    default (100 per test): the fuzz suites together run 2,200 examples in ~1.5 minutes
#   long  10x that (22,000 examples, ~15 minutes), for local bug hunting
#   san   a quarter of ci, for runs under ASan/UBSan (scripts/sanitize.sh), ~3x slower
_COMMON = {"deadline": None, "print_blob": True,
           "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.filter_too_much]}
settings.register_profile("ci", max_examples=100, **_COMMON)
settings.register_profile("long", max_examples=1000, **_COMMON)
settings.register_profile("san", max_examples=25, **_COMMON)
settings.load_profile(os.environ.get("PYTH_FUZZ", "ci"))


def pytest_configure(config) -> None:
    expected = os.environ.get("PYTH_EXPECT_CORE")
    if expected:
        import pyth._th
        got = os.path.realpath(pyth._th.__file__)
        if got != os.path.realpath(expected):
            raise RuntimeError(f"PYTH_EXPECT_CORE: tests would import {got}, not {expected}")


@pytest.fixture
def restore_threads():
    """The test may change the thread count and the grain size: both are put back after it."""
    import pyth
    threads, grain = pyth.get_num_threads(), pyth.get_grain_size()
    yield
    pyth.set_num_threads(threads)
    pyth.set_grain_size(grain)


@pytest.fixture(scope="module")
def frozen_gc():
    """The objects pytest already holds are frozen for the module, so that its many
    gc.collect() calls stay cheap."""
    gc.collect()
    gc.freeze()
    yield
    gc.unfreeze()


@pytest.fixture(autouse=True)
def _queue_feeders_joined():
    """The feeder threads of the multiprocessing queues a test made have exited when it ends:
    one still winding down while a later test forks could hold a lock (ASan's allocator guards
    no fork) that the child then waits on forever. A test's queues are gone when it returns,
    so their feeders have their sentinels already."""
    from pyth.utils.data.dataloader import _join_thread
    before = set(threading.enumerate())
    yield
    for t in set(threading.enumerate()) - before:
        if t.name == "QueueFeederThread":
            _join_thread(t, 5.0)   # and until the OS thread is gone, not only Python's part
