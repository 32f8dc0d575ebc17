"""Shared test configuration: hypothesis profiles for the fuzz suites, a guard that a
sanitized run (scripts/sanitize.sh) really imports the sanitized core, the fixtures
several suites use (restore_threads, frozen_gc), one every test gets (no queue feeder
thread outlives the test that started it), the `c_core` marker that selects the tests
CI runs a second time against the sanitized core, and PYTH_SHARD=k/n, which keeps every n-th of
the selected tests so that n processes can share one run."""

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


# Test modules whose subject is Python-side logic rather than the C core: autograd graphs and
# hooks, processes and queues, whole training loops and programs, the command line, printing,
# schedulers, keyword handling, device answers and missing names, TensorBoard files, the
# distributions and LBFGS (compositions of the ops), the benchmark workloads, and the checks of
# the code itself (layers, binder, recorded forms, autograd rows and names, docs examples).
# Every other module's tests get the `c_core` marker, so a new test file is sanitized unless it
# is listed here; CI's ASan + UBSan leg runs `-m c_core` (the C calls these
# modules make are the same ones the marked modules drive with far more varied inputs). A test
# in a listed module that must run sanitized all the same (a crash-hunt regression) carries
# `@pytest.mark.c_core` itself.
PYTHON_SIDE = frozenset({
    "test_autograd", "test_autograd_corners", "test_autograd_ops", "test_autograd_special",
    "test_fuzz_grad", "test_gradient_validation",
    "test_cli", "test_dataloader", "test_distributed", "test_fork_after_threads",
    "test_multiprocessing", "test_reliability_processes",
    "test_training_reliability", "test_training_speed", "test_lr_scheduler",
    "test_nn_module", "test_nn_utils", "test_printing", "test_printoptions",
    "test_hardening_py", "test_device_answers", "test_missing_names", "test_tensorboard",
    "test_torch_programs", "test_distributions", "test_distributions_kl",
    "test_distributions_transforms", "test_optim_lbfgs", "test_bench_models",
    "test_autograd_rows", "test_autograd_names", "test_recorded_calls", "test_binder",
    "test_layers", "test_docs", "test_sharding", "test_fx",
})


def pytest_configure(config) -> None:
    config.addinivalue_line(
        "markers", "c_core: drives the C core; CI also runs it under ASan + UBSan")
    expected = os.environ.get("PYTH_EXPECT_CORE")
    if expected:
        import pyth._th
        got = os.path.realpath(pyth._th.__file__)
        if got != os.path.realpath(expected):
            raise RuntimeError(f"PYTH_EXPECT_CORE: tests would import {got}, not {expected}")
    shard = _shard()
    if shard is not None:
        config.pluginmanager.register(_Shard(*shard), "pyth-shard")


def pytest_collection_modifyitems(config, items) -> None:
    for item in items:
        if item.module.__name__.rpartition(".")[2] not in PYTHON_SIDE:
            item.add_marker(pytest.mark.c_core)


def _shard() -> tuple[int, int] | None:
    """PYTH_SHARD=k/n as (k - 1, n), or None when unset; a malformed value is an error, never
    a silently full or empty run."""
    spec = os.environ.get("PYTH_SHARD", "")
    if not spec:
        return None
    k, sep, n = spec.partition("/")
    if not (sep and k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n)):
        raise pytest.UsageError(f"PYTH_SHARD must be k/n with 1 <= k <= n, got {spec!r}")
    return int(k) - 1, int(n)


class _Shard:
    """Keeps the tests whose position among the selected ones is k - 1 modulo n. It runs after
    `-m`/`-k` have deselected theirs (trylast), so the shards split the selected tests evenly,
    alternating within each module, and together run each exactly once."""

    def __init__(self, index: int, count: int) -> None:
        self.index, self.count = index, count

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config, items) -> None:
        keep, drop = [], []
        for i, item in enumerate(items):
            (keep if i % self.count == self.index else drop).append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep


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
