"""PyTorch programs run unchanged with pyth as torch (scripts/torch_programs.py): each one runs
under pyth, and its CHECK lines agree with PyTorch's when PyTorch is installed."""

from __future__ import annotations

import importlib.util
import pathlib
import sys

import pytest

SCRIPT = pathlib.Path(__file__).resolve().parent.parent / "scripts" / "torch_programs.py"
spec = importlib.util.spec_from_file_location("torch_programs", SCRIPT)
harness = importlib.util.module_from_spec(spec)
sys.modules["torch_programs"] = harness
spec.loader.exec_module(harness)
HAS_TORCH = importlib.util.find_spec("torch") is not None


@pytest.mark.parametrize("program", harness.programs(), ids=lambda p: p.stem)
def test_program_runs_as_under_pytorch(program: pathlib.Path) -> None:
    if program.stem == "tensorboard_log":
        pytest.importorskip("tensorboard")
    why = harness.check_program(program, 1e-4, pyth_only=not HAS_TORCH)
    assert why is None, why


def test_check_lines_are_compared() -> None:
    same = [["loss", "0.500000", "[1,", "2]"]]
    assert harness.disagreement(same, same, 1e-4) is None
    assert harness.disagreement([["loss", "0.500100"]], [["loss", "0.500000"]], 1e-4)
    assert harness.disagreement([["loss", "0.5"]], [["acc", "0.5"]], 1e-4)
    assert harness.disagreement([], [["x"]], 1e-4)
    assert harness.checks("CHECK a 1\nother\nCHECK b 2") == [["a", "1"], ["b", "2"]]
