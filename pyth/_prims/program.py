"""Pointwise programs: the C evaluator `TH<Real>Tensor_evalProgram` (generic/THTensorProgram.c),
which runs a chain of THMathOps.h's pointwise ops over contiguous float32 / float64 inputs of
one shape in one pass over row blocks (pyth.compile's pointwise fusion builds the programs).

A program is a list of instructions `(opcode, dst, a, b)`; operands are slots: the inputs
first, then the scalars, then the temporaries (`first_temp(ninputs, nscalars)` onwards). A
unary op's `b` is -1. The last instruction's value is the result.
"""

from __future__ import annotations

from typing import Sequence

from .. import dtypes as _dt
from .._errors import check
from .._th import ffi, lib
from ..tensor import Tensor, wrap

_LIMITS = ("UNARY_END", "END", "MAX_INSTRUCTIONS", "MAX_INPUTS", "MAX_SCALARS", "MAX_TEMPS",
           "BLOCK")
# opcode name (THMathOps.h's) -> number, and the unary ones
OPCODES: dict[str, int] = {name[len("TH_PROGRAM_"):]: getattr(lib, name) for name in dir(lib)
                           if name.startswith("TH_PROGRAM_")
                           and name[len("TH_PROGRAM_"):] not in _LIMITS}
UNARY: frozenset[str] = frozenset(n for n, c in OPCODES.items() if c < lib.TH_PROGRAM_UNARY_END)
MAX_TEMPS: int = lib.TH_PROGRAM_MAX_TEMPS
MAX_INPUTS: int = lib.TH_PROGRAM_MAX_INPUTS
MAX_SCALARS: int = lib.TH_PROGRAM_MAX_SCALARS
MAX_INSTRUCTIONS: int = lib.TH_PROGRAM_MAX_INSTRUCTIONS
# the dtypes it is stamped for, and the C type of an array of their handles
_HANDLES = {_dt.float32: "THFloatTensor *[]", _dt.float64: "THDoubleTensor *[]"}
DTYPES: frozenset = frozenset(_HANDLES)


def first_temp(ninputs: int, nscalars: int) -> int:
    """The slot of the first temporary of a program with these inputs and scalars."""
    return ninputs + nscalars


def eval_program(program: Sequence[tuple[int, int, int, int]], inputs: Sequence[Tensor],
                 scalars: Sequence[float] = ()) -> Tensor:
    """Run a pointwise program over inputs (contiguous, one shape, one float dtype) and
    return its value; the C core checks the program and raises ValueError on a bad one."""
    if not inputs or not all(isinstance(t, Tensor) for t in inputs):
        raise TypeError("eval_program(): inputs must be a non-empty sequence of tensors")
    dt = inputs[0].dtype
    if dt not in DTYPES or any(t.dtype is not dt for t in inputs):
        raise TypeError(f"eval_program(): inputs must be all float32 or all float64, got "
                        f"{[str(t.dtype) for t in inputs]}")
    flat = [int(v) for ins in program for v in ins]
    if any(len(ins) != 4 for ins in program):
        raise ValueError("eval_program(): an instruction is (opcode, dst, a, b)")
    code = ffi.new("int32_t[]", flat or [0])
    handles = ffi.new(_HANDLES[dt], [t._h for t in inputs])
    values = ffi.new("double[]", [float(s) for s in scalars] or [0.0])
    r = wrap(dt, dt.tensor.new())
    check(dt.tensor.evalProgram(r._h, code, len(program), handles, len(inputs), values,
                                len(scalars)))
    return r
