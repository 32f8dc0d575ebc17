"""The short paths must give what the general paths give.

Small ops take shortcuts (pyth/_prims/pointwise.py's _DIRECT tables calling the C <op>New entry
points; THTensor_(run)'s one-row path for small contiguous operands in generic/THTensorMath.c),
and the thread decision weighs an op's bytes (THParallel_worth). Each shortcut is checked
against an oracle: numpy for values, the out= form (which never takes the shortcut) for the
exact result, and the same op on one thread for threaded results. Errors raised on the short
path must be the general path's.
"""

from __future__ import annotations

import operator

import numpy as np
import pytest
from _support import DTYPE_NAMES
from pyth._th import lib

import pyth

OPERATORS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
             "truediv": operator.truediv, "floordiv": operator.floordiv,
             "mod": operator.mod, "pow": operator.pow, "and": operator.and_,
             "or": operator.or_, "xor": operator.xor, "eq": operator.eq, "ne": operator.ne,
             "lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge}
FUNCTION = {"add": "add", "sub": "sub", "mul": "mul", "truediv": "div",
            "floordiv": "floor_divide", "mod": "remainder", "pow": "pow", "and": "bitwise_and",
            "or": "bitwise_or", "xor": "bitwise_xor", "eq": "eq", "ne": "ne", "lt": "lt",
            "le": "le", "gt": "gt", "ge": "ge"}


def sample(name: str, shape, seed: int, positive: bool = False) -> pyth.Tensor:
    rng = np.random.default_rng(seed)
    if name == "bool":
        return pyth.from_numpy(rng.random(shape) < 0.5)
    lo = 1 if positive or name == "uint8" else -6
    vals = rng.integers(lo, 7, shape).astype(np.float64)
    if name in ("uint8",):
        vals = np.abs(vals) + 1
    vals[vals == 0] = 1  # no integer division by zero here (tested on its own)
    return pyth.tensor(vals.tolist()).to(getattr(pyth, name))


def general(op: str, a, b) -> pyth.Tensor:
    """The op through out=, which never takes a short path: the exact expected result."""
    fn = getattr(pyth, FUNCTION[op])
    probe = fn(a, b)  # its dtype and shape (whichever path it took)
    out = pyth.empty(probe.shape, dtype=probe.dtype)
    return fn(a, b, out=out)


def same(x: pyth.Tensor, y: pyth.Tensor) -> bool:
    return x.dtype == y.dtype and x.shape == y.shape and np.array_equal(
        x.float().numpy(), y.float().numpy(), equal_nan=True)


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("op", list(OPERATORS))
def test_tensor_tensor_operators_match_general_path_and_numpy(name, op):
    a = sample(name, (10,), 1)
    b = sample(name, (10,), 2, positive=op in ("pow",))
    try:
        expected = general(op, a, b)
    except (RuntimeError, TypeError) as e:
        with pytest.raises(type(e)):
            OPERATORS[op](a, b)
        return
    got = OPERATORS[op](a, b)
    assert same(got, expected)
    if name not in ("bfloat16", "float16", "bool") and op not in ("pow", "floordiv", "mod"):
        npa, npb = a.numpy(), b.numpy()
        want = OPERATORS[op](npa, npb)
        np.testing.assert_allclose(got.numpy().astype(np.float64), want.astype(np.float64),
                                   rtol=1e-6)


@pytest.mark.parametrize("name", ["float32", "float64"])
@pytest.mark.parametrize("scalar", [2.5, -3, 0.0, 7])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "truediv", "eq", "lt", "ge", "pow"])
def test_tensor_scalar_operators_both_sides(name, scalar, op):
    a = sample(name, (3, 4), 3, positive=True)
    fn = OPERATORS[op]
    got, expected = fn(a, scalar), general(op, a, scalar)
    assert same(got, expected)
    np.testing.assert_allclose(got.double().numpy(), fn(a.numpy(), scalar).astype(np.float64),
                               rtol=1e-6)
    if op in ("add", "mul"):  # reflected forms of the commutative ops take the same short path
        assert same(scalar + a if op == "add" else scalar * a, expected)


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced", "expanded",
                                    "zero-size", "0-dim", "one element"])
def test_layouts_through_the_short_paths(layout):
    base = pyth.arange(24, dtype=pyth.float32).reshape(4, 6) + 1
    x = {"contiguous": base, "transposed": base.t(), "sliced": base[:, ::2],
         "expanded": base[:1].expand(4, 6), "zero-size": base[:0], "0-dim": base[1, 2],
         "one element": base[1:2, 2:3]}[layout]
    for fn in (lambda t: t + t, lambda t: t * 2.0, lambda t: -t, lambda t: t < 5.0):
        got = fn(x)
        want = fn(pyth.from_numpy(x.numpy().copy()))
        assert same(got, want)
        assert got.is_contiguous()
    # exp: vector math on unit strides, scalar libm otherwise: equal within an ulp or so
    np.testing.assert_allclose(x.exp().numpy(), np.exp(x.numpy()), rtol=3e-7)


def test_single_values_broadcast_on_the_short_path():
    x = pyth.arange(10, dtype=pyth.float64)
    for v in (pyth.tensor(2.0, dtype=pyth.float64), pyth.tensor([2.0], dtype=pyth.float64)):
        np.testing.assert_array_equal((x * v).numpy(), np.arange(10.0) * 2)
        np.testing.assert_array_equal((v * x).numpy(), np.arange(10.0) * 2)
    # a single value with more dims than the other operand widens the result
    v = pyth.ones(1, 1, dtype=pyth.float64)
    assert (x + v).shape == (1, 10)


def test_errors_on_the_short_path_are_the_general_paths():
    with pytest.raises(RuntimeError, match=r"add\(\).*\[3\].*\[4\]|\[3\].*\[4\].*add"):
        pyth.ones(3) + pyth.ones(4)
    zero = pyth.zeros(5, dtype=pyth.int64)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        pyth.ones(5, dtype=pyth.int64) // zero
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        pyth.ones(5, dtype=pyth.int32) % pyth.zeros(5, dtype=pyth.int32)
    with pytest.raises(RuntimeError, match="(?i)bool"):
        pyth.ones(3, dtype=pyth.bool) - pyth.ones(3, dtype=pyth.bool)


def test_in_place_overlap_is_still_refused():
    x = pyth.arange(10, dtype=pyth.float32)
    with pytest.raises(RuntimeError, match="single memory location"):
        x[1:].add_(x[:-1])
    with pytest.raises(RuntimeError, match="single memory location"):
        x.add_(x[3])
    y = pyth.arange(10, dtype=pyth.float32)
    y.add_(y)  # the very same view is fine
    np.testing.assert_array_equal(y.numpy(), 2 * np.arange(10, dtype=np.float32))


def test_short_path_results_are_owned_and_freed():
    x = pyth.rand(10)
    (x + x) * 2.0 < 1.0  # warm up the tables
    before = (pyth.memory_stats()["live_allocations"], lib.THAlloc_liveCount())
    for _ in range(1000):
        (x + x) * 2.0 < 1.0
        -x.exp()
    assert (pyth.memory_stats()["live_allocations"], lib.THAlloc_liveCount()) == before


# ---- threads and the grain ---------------------------------------------------------------------

def test_thread_api_round_trips_and_checks(restore_threads):
    pyth.set_num_threads(1)
    assert pyth.get_num_threads() == 1
    pyth.set_grain_size(4096)
    assert pyth.get_grain_size() == 4096
    with pytest.raises(RuntimeError, match="set_num_threads"):
        pyth.set_num_threads(0)
    with pytest.raises(TypeError, match="set_num_threads"):
        pyth.set_num_threads(1.5)
    with pytest.raises(RuntimeError, match="set_grain_size"):
        pyth.set_grain_size(-1)
    with pytest.raises(RuntimeError, match="set_grain_size"):
        pyth.set_grain_size(2**64)
    assert pyth.get_grain_size() == 4096


def test_work_is_weighed_in_bytes(restore_threads):
    pyth.set_num_threads(2)
    pyth.set_grain_size(1 << 20)
    assert lib.THParallel_worth(1 << 16, 16)          # 1 MiB of work
    assert not lib.THParallel_worth((1 << 16) - 1, 16)
    assert lib.THParallel_worth(1 << 18, 4)           # a 4-byte reduction of 256K elements
    assert not lib.THParallel_worth(1, 1 << 30)       # a single element never splits
    pyth.set_num_threads(1)
    assert not lib.THParallel_worth(1 << 30, 16)


@pytest.mark.parametrize("fn", [lambda t: t + t.t(), lambda t: t.exp(), lambda t: t.sum(0),
                                lambda t: t * 3.0, lambda t: t.sort(1)[0],
                                lambda t: t.tril(), lambda t: t.index_select(0, pyth.arange(
                                    0, 300, 7))])
def test_threaded_results_equal_one_thread(restore_threads, fn):
    x = pyth.rand(300, 300, generator=pyth.Generator().manual_seed(5))
    pyth.set_num_threads(1)
    one = fn(x)
    pyth.set_num_threads(2)
    pyth.set_grain_size(1)
    many = fn(x)
    assert same(one, many)


# ---- OpenBLAS settings at load -------------------------------------------------------------------

_CHILD = ("import os, pyth; print(pyth._openblas.CORE, "
          "os.environ.get('OPENBLAS_THREAD_TIMEOUT', 'unset'))")


@pytest.mark.parametrize("user_value", [None, "20"])
def test_openblas_thread_timeout_is_set_for_loading_only(user_value):
    import os
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    if user_value is not None:
        env["OPENBLAS_THREAD_TIMEOUT"] = user_value
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(pyth.__file__))
    out = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True,
                         env=env, timeout=120, check=True,
                         cwd=os.path.dirname(os.path.abspath(__file__))).stdout.split()
    core, seen = out[-2], out[-1]
    assert core  # OpenBLAS loaded and named its kernels
    # pyth's own default leaves no trace in the environment; a user's value is kept
    assert seen == (user_value or "unset")
