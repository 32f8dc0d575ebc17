"""PYTH_SHARD=k/n (tests/conftest.py), which CI uses to run the sanitized tests as two processes
at once: the n shards of a selection are disjoint, together they are the whole selection, each
has its share, and a malformed value stops the run instead of running all or nothing."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# Every other case is marked: shards cut before `-m` would put all 7 selected cases in one.
_CASES = """
import pytest

@pytest.mark.parametrize("i", [pytest.param(i, marks=pytest.mark.slow) if i % 2 else i
                               for i in range(14)])
def test_case(i):
    pass
"""


def _collect(tmp: Path, shard: str | None, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("PYTH_SHARD", None)
    if shard is not None:
        env["PYTH_SHARD"] = shard
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "--collect-only", "-o", "markers=slow", *args, str(tmp)],
                          cwd=tmp, env=env, capture_output=True, text=True, timeout=120)


def _ids(out: str) -> list[str]:
    return re.findall(r"::(test_\w+\[\d+\])", out)


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    shutil.copy(Path(__file__).with_name("conftest.py"), tmp_path / "conftest.py")
    (tmp_path / "test_cases.py").write_text(_CASES)
    return tmp_path


@pytest.mark.parametrize("n", [1, 2, 3])
def test_shards_partition_the_selection(suite: Path, n: int) -> None:
    whole = _ids(_collect(suite, None, "-m", "not slow").stdout)
    assert len(whole) == 7
    parts = [_ids(_collect(suite, f"{k}/{n}", "-m", "not slow").stdout) for k in range(1, n + 1)]
    assert sorted(sum(parts, [])) == sorted(whole)          # together: all, each once
    assert all(len(p) in (7 // n, -(-7 // n)) for p in parts)   # split after -m, evenly
    assert [p[0] for p in parts] == whole[:n]                # interleaved


@pytest.mark.parametrize("spec", ["0/2", "3/2", "1/0", "1", "a/b", "1/2/3", "-1/2"])
def test_malformed_shard_is_a_usage_error(suite: Path, spec: str) -> None:
    r = _collect(suite, spec)
    assert r.returncode == 4, r.stdout + r.stderr            # pytest's usage-error exit
    assert f"PYTH_SHARD must be k/n with 1 <= k <= n, got {spec!r}" in r.stdout + r.stderr
