"""Oracle tests for type promotion (pyth/_promotion.py): promote_types, can_cast, result_type.

torch.promote_types / torch.can_cast / torch.result_type are the oracle for every pair of the
ten dtypes and every kind of operand: tensors with dims (including size-0 and 1-element ones),
0-dim tensors, Python bool / int / float scalars, numpy scalars, with the default float dtype
float32 and float64. A first block checks the documented PyTorch rules and algebraic
properties without torch.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from _support import DTYPE_NAMES, pdt

import pyth


def TDT(torch, name):
    return getattr(torch, name)


# ---- without torch: documented rules and properties ----------------------------------------------

DOCUMENTED = [  # (a, b, promote_types(a, b)) from the PyTorch type-promotion documentation
    ("uint8", "int8", "int16"), ("uint8", "int16", "int16"), ("uint8", "int64", "int64"),
    ("int8", "int32", "int32"), ("int32", "float16", "float16"), ("int64", "float32", "float32"),
    ("float16", "bfloat16", "float32"), ("float16", "float32", "float32"),
    ("bfloat16", "float64", "float64"), ("bool", "uint8", "uint8"), ("bool", "float16", "float16"),
    ("bool", "bool", "bool"), ("int16", "bfloat16", "bfloat16"),
]


@pytest.mark.parametrize("a,b,expected", DOCUMENTED)
def test_documented_promote_types(a, b, expected):
    assert pyth.promote_types(pdt(a), pdt(b)) is pdt(expected)
    assert pyth.promote_types(pdt(b), pdt(a)) is pdt(expected)


@pytest.mark.parametrize("a", DTYPE_NAMES)
def test_promote_types_properties(a):
    """Idempotent, commutative, associative; bool is the identity."""
    assert pyth.promote_types(pdt(a), pdt(a)) is pdt(a)
    assert pyth.promote_types(pdt(a), pyth.bool) is pdt(a)
    for b, c in itertools.product(DTYPE_NAMES, DTYPE_NAMES):
        ab = pyth.promote_types(pdt(a), pdt(b))
        assert ab is pyth.promote_types(pdt(b), pdt(a))
        assert pyth.promote_types(ab, pdt(c)) is pyth.promote_types(
            pdt(a), pyth.promote_types(pdt(b), pdt(c)))
        assert pyth.can_cast(pdt(a), ab) and pyth.can_cast(pdt(b), ab)


def test_documented_result_type_examples():
    """The examples of the PyTorch type-promotion docs."""
    f32, f64 = pyth.ones(2), pyth.ones(2, dtype=pyth.float64)
    i32, i64 = pyth.ones(2, dtype=pyth.int32), pyth.ones(2, dtype=pyth.int64)
    u8, b = pyth.ones(2, dtype=pyth.uint8), pyth.ones(2, dtype=pyth.bool)
    assert pyth.result_type(i32, 5) is pyth.int32
    assert pyth.result_type(i32, 5.5) is pyth.float32
    assert pyth.result_type(i32, pyth.tensor(5)) is pyth.int32        # 0-dim int64
    assert pyth.result_type(i32, pyth.tensor(5.5)) is pyth.float32    # 0-dim float32
    assert pyth.result_type(f32, pyth.tensor(1.0, dtype=pyth.float64)) is pyth.float32
    assert pyth.result_type(f32, f64) is pyth.float64
    assert pyth.result_type(u8, 1000) is pyth.uint8
    assert pyth.result_type(b, 1) is pyth.int64
    assert pyth.result_type(b, 1.0) is pyth.float32
    assert pyth.result_type(b, True) is pyth.bool
    assert pyth.result_type(i64, pyth.tensor(2.0, dtype=pyth.float16)) is pyth.float16
    assert pyth.result_type(pyth.tensor(1, dtype=pyth.uint8), pyth.tensor(1, dtype=pyth.int8)) \
        is pyth.int16
    assert pyth.result_type(pyth.tensor(1, dtype=pyth.int8), 2.5) is pyth.float32


@pytest.mark.parametrize("a", DTYPE_NAMES)
def test_can_cast_categories(a):
    """can_cast allows same or higher category (bool < integer < floating), any size."""
    cat = {"bool": 0, "uint8": 1, "int8": 1, "int16": 1, "int32": 1, "int64": 1}
    for b in DTYPE_NAMES:
        assert pyth.can_cast(pdt(a), pdt(b)) == (cat.get(a, 2) <= cat.get(b, 2)), (a, b)


def test_default_dtype_float64_without_torch():
    old = pyth.get_default_dtype()
    try:
        pyth.set_default_dtype(pyth.float64)
        assert pyth.result_type(pyth.ones(2, dtype=pyth.int16), 1.5) is pyth.float64
        assert pyth.result_type(pyth.ones(2, dtype=pyth.float16), 1.5) is pyth.float16
        assert pyth.result_type(pyth.ones(2, dtype=pyth.bool), 1.5) is pyth.float64
    finally:
        pyth.set_default_dtype(old)


def test_result_type_needs_an_operand():
    with pytest.raises(TypeError):
        pyth.result_type()
    with pytest.raises(TypeError):
        pyth.result_type(pyth.ones(2), "x")


# ---- torch oracle --------------------------------------------------------------------------------

def tensor_pair(torch, name, kind):
    """A pyth tensor and a torch tensor of dtype `name`: kind 'dims' (2 elements), 'one'
    (shape (1,)), 'empty' (shape (0,)), 'zerodim'."""
    shape = {"dims": (2,), "one": (1,), "empty": (0,), "zerodim": ()}[kind]
    return pyth.zeros(shape, dtype=pdt(name)), torch.zeros(shape, dtype=TDT(torch, name))


@pytest.mark.parametrize("b", DTYPE_NAMES)
@pytest.mark.parametrize("a", DTYPE_NAMES)
def test_promote_types_vs_torch(a, b):
    torch = pytest.importorskip("torch")
    expected = str(torch.promote_types(TDT(torch, a), TDT(torch, b))).replace("torch.", "")
    assert pyth.promote_types(pdt(a), pdt(b)).name == expected


@pytest.mark.parametrize("b", DTYPE_NAMES)
@pytest.mark.parametrize("a", DTYPE_NAMES)
def test_can_cast_vs_torch(a, b):
    torch = pytest.importorskip("torch")
    assert pyth.can_cast(pdt(a), pdt(b)) == torch.can_cast(TDT(torch, a), TDT(torch, b))


@pytest.mark.parametrize("kinds", [("dims", "dims"), ("dims", "zerodim"), ("zerodim", "dims"),
                                   ("zerodim", "zerodim"), ("one", "zerodim"),
                                   ("empty", "zerodim"), ("empty", "dims")])
@pytest.mark.parametrize("b", DTYPE_NAMES)
@pytest.mark.parametrize("a", DTYPE_NAMES)
def test_result_type_tensor_tensor_vs_torch(a, b, kinds):
    torch = pytest.importorskip("torch")
    pa, ta = tensor_pair(torch, a, kinds[0])
    pb, tb = tensor_pair(torch, b, kinds[1])
    expected = str(torch.result_type(ta, tb)).replace("torch.", "")
    assert pyth.result_type(pa, pb).name == expected


SCALARS = [True, False, 0, 7, -3, 1000, 2.5, -0.0, float("inf"), np.int64(3), np.int8(3),
           np.float64(2.5), np.float32(2.5), np.float16(1.5)]


@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize("kind", ["dims", "zerodim"])
@pytest.mark.parametrize("a", DTYPE_NAMES)
def test_result_type_tensor_scalar_vs_torch(a, kind, default):
    torch = pytest.importorskip("torch")
    pa, ta = tensor_pair(torch, a, kind)
    old_p, old_t = pyth.get_default_dtype(), torch.get_default_dtype()
    try:
        pyth.set_default_dtype(pdt(default))
        torch.set_default_dtype(TDT(torch, default))
        for s in SCALARS:
            expected = str(torch.result_type(ta, s)).replace("torch.", "")
            assert pyth.result_type(pa, s).name == expected, (a, kind, s)
            expected = str(torch.result_type(s, ta)).replace("torch.", "")
            assert pyth.result_type(s, pa).name == expected, (s, a, kind)
    finally:
        pyth.set_default_dtype(old_p)
        torch.set_default_dtype(old_t)


def _torch_dtype_of(fn):
    try:
        return str(fn().dtype).replace("torch.", "")
    except RuntimeError:          # the op is not defined for the common dtype (e.g. bool)
        return None


@pytest.mark.parametrize("c", DTYPE_NAMES)
@pytest.mark.parametrize("b", DTYPE_NAMES)
def test_result_type_three_operands_vs_torch_ops(b, c):
    """Three operands: torch.addcmul(a, b, c) and torch.clamp(a, b, c) compute in the result
    type of all three (a dims tensor and two 0-dim tensors)."""
    torch = pytest.importorskip("torch")
    checked = 0
    for a in ("int8", "uint8", "float16", "bool"):
        pa, ta = tensor_pair(torch, a, "dims")
        pb, tb = tensor_pair(torch, b, "zerodim")
        pc, tc = tensor_pair(torch, c, "zerodim")
        for expected, args in ((_torch_dtype_of(lambda: torch.addcmul(ta, tb, tc)),
                                (pa, pb, pc)),
                               (_torch_dtype_of(lambda: torch.clamp(ta, tb, tc)), (pa, pb, pc))):
            if expected is not None:
                checked += 1
                assert pyth.result_type(*args).name == expected, (a, b, c, args)
    assert checked
