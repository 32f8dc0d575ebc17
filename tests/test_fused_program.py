"""The C evaluator of pointwise programs (generic/THTensorProgram.c, pyth/_prims/program.py):
every opcode of THMathOps.h's unary and binary lists against the op's own kernel (row-row,
row-scalar, scalar-row), chains against eager pyth and PyTorch across block boundaries and
above the thread grain, temporaries reused, and every bad program or operand refused with a
typed error, never a crash."""

from __future__ import annotations

import numpy as np
import pytest

import pyth
from pyth._prims import program as P
from pyth._th import ffi, lib
from pyth.tensor import wrap

torch = pytest.importorskip("torch")

DTYPES = [pyth.float32, pyth.float64]
TOL = {pyth.float32: dict(rtol=1e-6, atol=1e-6), pyth.float64: dict(rtol=1e-12, atol=1e-12)}
T = P.first_temp   # slot of the first temporary


def _data(n: int, dt, lo: float = 0.1, hi: float = 0.9, seed: int = 0) -> pyth.Tensor:
    rng = np.random.default_rng(seed)
    return pyth.tensor(rng.uniform(lo, hi, n), dtype=dt)


def _close(got: pyth.Tensor, want: pyth.Tensor, dt) -> None:
    assert got.dtype is want.dtype and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), equal_nan=True, **TOL[dt])


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", sorted(P.UNARY))
def test_each_unary_opcode_matches_its_kernel(name, dt):
    x = _data(3000, dt)
    got = P.eval_program([(P.OPCODES[name], T(1, 0), 0, -1)], [x])
    want = wrap(dt, getattr(dt.tensor, name + "New")(x._h))
    _close(got, want, dt)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", sorted(set(P.OPCODES) - P.UNARY))
def test_each_binary_opcode_matches_its_kernel(name, dt):
    x, y = _data(2500, dt, 0.5, 3.0, 1), _data(2500, dt, 0.5, 3.0, 2)
    t = T(2, 1)
    got = P.eval_program([(P.OPCODES[name], t, 0, 1)], [x, y])
    _close(got, wrap(dt, getattr(dt.tensor, name + "New")(x._h, y._h)), dt)
    got = P.eval_program([(P.OPCODES[name], t, 0, 2)], [x, y], [1.75])     # row op scalar
    _close(got, wrap(dt, getattr(dt.tensor, name + "ScalarNew")(x._h, 1.75)), dt)
    full = pyth.full_like(x, 1.75)
    got = P.eval_program([(P.OPCODES[name], t, 2, 0)], [x, y], [1.75])     # scalar op row
    _close(got, wrap(dt, getattr(dt.tensor, name + "New")(full._h, x._h)), dt)


def _chain_program(ops):
    """x0 and x1 through 8 ops, the temporaries reused (dst is an operand's slot)."""
    t0, t1 = T(2, 2), T(2, 2) + 1
    s0, s1 = 2, 3
    return [(ops["mul"], t0, 0, 1), (ops["add"], t0, t0, s0), (ops["sin"], t0, t0, -1),
            (ops["mul"], t1, t0, s1), (ops["exp"], t1, t1, -1), (ops["sub"], t0, t1, 1),
            (ops["tanh"], t0, t0, -1), (ops["maximum"], t0, t0, s1)]


def _chain_pyth(x, y):
    t = (x * y + 0.5).sin()
    u = (t * -0.25).exp()
    return pyth.maximum((u - y).tanh(), pyth.full_like(x, -0.25))


def _chain_torch(x, y):
    t = (x * y + 0.5).sin()
    u = (t * -0.25).exp()
    return torch.clamp_min((u - y).tanh(), -0.25)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 1023, 1024, 1025, 5000, (1 << 20) + 37])
def test_chain_matches_eager_and_torch(n, dt):
    x, y = _data(n, dt, -2, 2, 3), _data(n, dt, -2, 2, 4)
    got = P.eval_program(_chain_program(P.OPCODES), [x, y], [0.5, -0.25])
    _close(got, _chain_pyth(x, y), dt)
    want = _chain_torch(torch.from_numpy(x.numpy()), torch.from_numpy(y.numpy()))
    np.testing.assert_allclose(got.numpy(), want.numpy(), **TOL[dt])


@pytest.mark.parametrize("threads", [1, 2])
def test_threads_give_the_same_values(threads):
    old = pyth.get_num_threads()
    x, y = _data(1 << 21, pyth.float32, -2, 2, 5), _data(1 << 21, pyth.float32, -2, 2, 6)
    try:
        pyth.set_num_threads(1)
        one = P.eval_program(_chain_program(P.OPCODES), [x, y], [0.5, -0.25])
        pyth.set_num_threads(threads)
        got = P.eval_program(_chain_program(P.OPCODES), [x, y], [0.5, -0.25])
    finally:
        pyth.set_num_threads(old)
    assert pyth.equal(got, one)


def test_shapes_zero_size_and_one_input_twice():
    x = _data(12, pyth.float64).reshape(3, 4)
    got = P.eval_program([(P.OPCODES["mul"], T(1, 0), 0, 0), (P.OPCODES["neg"], T(1, 0), T(1, 0), -1)],
                         [x])
    assert tuple(got.shape) == (3, 4) and pyth.equal(got, -(x * x))
    empty = pyth.zeros(0, 5)
    got = P.eval_program([(P.OPCODES["exp"], T(1, 0), 0, -1)], [empty])
    assert tuple(got.shape) == (0, 5)


ADD, EXP = P.OPCODES["add"], P.OPCODES["exp"]


@pytest.mark.parametrize("program, scalars, message", [
    ([], [], "1 to 64 instructions, got 0"),
    ([(ADD, 2, 0, 1)] * 65, [], "1 to 64 instructions, got 65"),
    ([(lib.TH_PROGRAM_UNARY_END, 2, 0, -1)], [], "instruction 0 has no opcode"),
    ([(lib.TH_PROGRAM_END, 2, 0, -1)], [], "instruction 0 has no opcode"),
    ([(-1, 2, 0, -1)], [], "has no opcode -1"),
    ([(EXP, 0, 0, -1)], [], "writes slot 0, which is not a temporary"),
    ([(EXP, 2 + 8, 0, -1)], [], "writes slot 10, which is not a temporary"),
    ([(EXP, 2, 3, -1)], [], "reads temporary slot 3 before it is written"),
    ([(ADD, 2, 0, 99)], [], "reads slot 99, outside"),
    ([(ADD, 2, 0, -1)], [], "reads slot -1, outside"),
    ([(EXP, 2, 0, 1)], [], "unary op and takes no second operand"),
    ([(ADD, 3, 2, 2)], [1.0], "computes on scalars only"),
    ([(EXP, 3, 2, -1)], [1.0], "computes on scalars only"),
    ([(ADD, 2, 0, 1)], [1.0] * 17, "0 to 16 scalars, got 17"),
])
def test_bad_programs_raise_value_error(program, scalars, message):
    x = pyth.ones(5)
    with pytest.raises(ValueError, match=message):
        P.eval_program(program, [x, x], scalars)


def test_bad_operands_raise_typed_errors():
    x = pyth.ones(4, 4)
    prog = [(ADD, T(2, 0), 0, 1)]
    with pytest.raises(RuntimeError, match="input 1 is not contiguous"):
        P.eval_program(prog, [x, x.t()])
    with pytest.raises(RuntimeError, match=r"input 1 has size \[4\], but input 0 has size \[4, 4\]"):
        P.eval_program(prog, [x, pyth.ones(4)])
    with pytest.raises(TypeError, match="all float32 or all float64"):
        P.eval_program(prog, [x, x.double()])
    with pytest.raises(TypeError, match="all float32 or all float64"):
        P.eval_program(prog, [x.long(), x.long()])
    with pytest.raises(TypeError, match="tensors"):
        P.eval_program(prog, [x, 2.0])
    with pytest.raises(ValueError, match="1 to 16 inputs, got 17"):
        P.eval_program(prog, [x] * 17)
    with pytest.raises(ValueError, match=r"\(opcode, dst, a, b\)"):
        P.eval_program([(ADD, 2, 0)], [x, x])


def test_c_entry_point_refuses_missing_operands():
    r = pyth.empty(0)
    code = ffi.new("int32_t[]", [EXP, 1, 0, -1])
    with pytest.raises(ValueError, match="input 0 is missing"):
        from pyth._errors import check
        check(lib.THFloatTensor_evalProgram(r._h, code, 1, ffi.new("THFloatTensor *[]", [ffi.NULL]),
                                            1, ffi.NULL, 0))
    with pytest.raises(ValueError, match="the program is missing"):
        check(lib.THFloatTensor_evalProgram(r._h, ffi.NULL, 1, ffi.NULL, 1, ffi.NULL, 0))
    x = pyth.ones(3)
    with pytest.raises(ValueError, match="scalars are missing"):
        check(lib.THFloatTensor_evalProgram(r._h, ffi.new("int32_t[]", [ADD, 2, 0, 1]), 1,
                                            ffi.new("THFloatTensor *[]", [x._h]), 1, ffi.NULL, 1))


def test_result_partly_overlapping_an_input_is_refused():
    from pyth._errors import check
    base = pyth.ones(10)
    x, r = base[:8], base[2:]
    code = ffi.new("int32_t[]", [EXP, 1, 0, -1])
    with pytest.raises(RuntimeError, match="partly overlaps input 0"):
        check(lib.THFloatTensor_evalProgram(r._h, code, 1, ffi.new("THFloatTensor *[]", [x._h]),
                                            1, ffi.NULL, 0))
    same = pyth.full((6,), 2.0)              # the same elements are fine: in place
    check(lib.THFloatTensor_evalProgram(same._h, code, 1,
                                        ffi.new("THFloatTensor *[]", [same._h]), 1, ffi.NULL, 0))
    np.testing.assert_allclose(same.numpy(), np.exp(np.full(6, 2.0, np.float32)), rtol=1e-6)


def test_result_not_contiguous_is_refused():
    from pyth._errors import check
    x = pyth.ones(4, 4)
    r = pyth.zeros(4, 4).t()
    code = ffi.new("int32_t[]", [EXP, 1, 0, -1])
    with pytest.raises(RuntimeError, match="the result is not contiguous"):
        check(lib.THFloatTensor_evalProgram(r._h, code, 1, ffi.new("THFloatTensor *[]", [x._h]),
                                            1, ffi.NULL, 0))
