"""The sanitized leg's selection (conftest.PYTHON_SIDE) names only test modules that exist,
so a renamed file cannot silently drop out of, or stay excluded from, the ASan + UBSan run."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import PYTHON_SIDE

HERE = Path(__file__).parent


def test_every_python_side_name_is_a_test_module():
    missing = sorted(name for name in PYTHON_SIDE if not (HERE / f"{name}.py").is_file())
    assert not missing, f"conftest.PYTHON_SIDE names no such test module: {missing}"


def test_this_module_is_marked_for_the_sanitized_leg(request: pytest.FixtureRequest):
    assert request.node.get_closest_marker("c_core") is not None
