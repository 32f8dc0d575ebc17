"""set_printoptions / printoptions, finfo / iinfo, __format__."""

from __future__ import annotations

import math

import pytest

import pyth
from _support import torch_or_skip


@pytest.fixture(autouse=True)
def _restore_printoptions():
    old = pyth.get_printoptions()
    yield
    pyth.set_printoptions(**old)


def test_precision_and_sci_mode():
    x = pyth.tensor([[1.23456, 2.5], [3.0, 4.0]])
    pyth.set_printoptions(precision=2)
    assert repr(x).splitlines()[0] == " 1.23  2.50"
    pyth.set_printoptions(precision=2, sci_mode=True)
    assert repr(x).splitlines()[0] == " 1.23e+00  2.50e+00"
    pyth.set_printoptions(sci_mode=False)
    assert "e" not in repr(pyth.tensor([1e-8, 1.0])).splitlines()[0]
    pyth.set_printoptions(profile="default")
    assert repr(x).splitlines()[0] == " 1.2346  2.5000"


def test_threshold_edgeitems_profiles():
    t = pyth.arange(10)
    pyth.set_printoptions(threshold=5, edgeitems=1)
    assert repr(t).splitlines()[:3] == [" 0", " ...", " 9"]
    pyth.set_printoptions(profile="full")
    big = pyth.arange(2000)
    assert "..." not in repr(big) and len(repr(big).splitlines()) == 2001
    pyth.set_printoptions(profile="short")
    assert pyth.get_printoptions()["precision"] == 2 and pyth.get_printoptions()["edgeitems"] == 2
    with pytest.raises(ValueError):
        pyth.set_printoptions(profile="tiny")


def test_linewidth_splits_columns():
    m = pyth.arange(30.0).reshape(2, 15) / 7
    lines = repr(m).splitlines()
    assert lines[0] == "Columns 1 to 10" and "Columns 11 to 15" in lines
    assert all(len(line) <= 80 for line in lines)
    pyth.set_printoptions(linewidth=200)
    assert not repr(m).startswith("Columns")


def test_printoptions_context_restores():
    before = pyth.get_printoptions()
    with pyth.printoptions(precision=1, sci_mode=True):
        assert pyth.get_printoptions()["precision"] == 1
        assert "e+00" in repr(pyth.tensor([1.5]))
    assert pyth.get_printoptions() == before


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32", "float64"])
def test_finfo_matches_torch(name):
    torch = torch_or_skip()
    p, t = pyth.finfo(getattr(pyth, name)), torch.finfo(getattr(torch, name))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        assert getattr(p, attr) == pytest.approx(getattr(t, attr), rel=1e-6), attr
    assert p.dtype == t.dtype


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_matches_torch(name):
    torch = torch_or_skip()
    p, t = pyth.iinfo(getattr(pyth, name)), torch.iinfo(getattr(torch, name))
    assert (p.bits, p.min, p.max, p.dtype) == (t.bits, t.min, t.max, t.dtype)


def test_info_errors_and_default():
    with pytest.raises(TypeError):
        pyth.finfo(pyth.int32)
    with pytest.raises(TypeError):
        pyth.iinfo(pyth.float32)
    with pytest.raises(TypeError):
        pyth.iinfo(pyth.bool)
    assert pyth.finfo().eps == pyth.finfo(pyth.float32).eps
    assert math.isclose(pyth.finfo(pyth.float64).eps, 2.0 ** -52)


def test_format():
    loss = pyth.tensor(0.123456)
    assert f"{loss:.4f}" == "0.1235" and f"{pyth.tensor(3):03d}" == "003"
    assert f"{pyth.tensor(True)}" == "True"
    assert format(pyth.ones(2), "") == str(pyth.ones(2))
    with pytest.raises(TypeError):
        format(pyth.ones(2), ".2f")
