"""Element types: one dtype object per stamped C type, and the tables that dispatch on them.

Each dtype carries `c`, the namespace of its stamped C functions (`pyth.float32.c.newNarrow` is
`lib.THFloatTensor_newNarrow`), so Python picks a kernel by table lookup, never by if-chains.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Callable

import numpy as np

from ._th import ffi, lib


class _CFunctions:
    """The lib functions of one stamped C type by short name, all set when it is made.

    `_CFunctions("THFloatTensor_").narrow` is `lib.THFloatTensor_narrow`. Plain attributes (no
    `__getattr__`), so the interpreter's attribute cache serves `dt.tensor.narrow`: every op
    reads a few of these, and a class with `__getattr__` makes each read a slow lookup.
    """

    def __init__(self, prefix: str) -> None:
        self._prefix = prefix
        for name in _LIB_NAMES.get(prefix, ()):
            setattr(self, name[len(prefix):], getattr(lib, name))


def _lib_names() -> dict[str, list[str]]:
    """lib's names grouped by their TH<Real>Tensor_ / TH<Real>Storage_ prefix."""
    out: dict[str, list[str]] = {}
    for name in dir(lib):
        head, sep, rest = name.partition("_")
        if sep and rest and head.startswith("TH") and head.endswith(("Tensor", "Storage")):
            out.setdefault(head + "_", []).append(name)
    return out


_LIB_NAMES = _lib_names()


class dtype:
    """An element type: name, size, kind, numpy equivalent, and its C function tables."""

    def __init__(self, name: str, real: str, ctype: str, kind: str, np_dtype: str | None,
                 to_c: Callable[[Any], Any], from_c: Callable[[Any], Any],
                 lo: float | None = None, hi: float | None = None) -> None:
        self.name = name
        self.real = real                      # the C name part: Float, Long, BFloat16, ...
        self.ctype = ctype                    # the C element type
        self.kind = kind                      # 'b' bool, 'u' unsigned, 'i' signed, 'f' float
        self.is_floating_point = kind == "f"
        self.is_signed = kind in "if"
        self.itemsize = ffi.sizeof(ctype)
        self._np = np.dtype(np_dtype) if np_dtype else None
        self.is_reduced = name in ("float16", "bfloat16")   # stored narrower than it computes
        self.min, self.max = lo, hi           # representable range of integer types
        # Python number -> C argument (see "Python numbers as C arguments" below):
        self.to_c = _scalar_converter(to_c, name)     # a C real that must hold the value
        self.wrap_c = self.to_c               # a C real, integers wrapping as C arithmetic does
        self.op_c = self.to_c                 # a C opreal (the kernels' compute type), wrapping
        self.from_c = from_c                  # C real -> Python scalar
        self.tensor = _CFunctions(f"TH{real}Tensor_")
        self.storage = _CFunctions(f"TH{real}Storage_")
        self.tensor_class: type = None        # set by pyth.tensor
        self.storage_class: type = None       # set by pyth.storage

    def __setattr__(self, name: str, value: Any) -> None:
        if "_frozen" in self.__dict__:
            raise _immutable(name, name in self.__dict__)
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        raise _immutable(name, name in self.__dict__)

    def _freeze(self) -> None:
        """Make every attribute read-only (as torch.dtype's are): one dtype object serves the
        whole process, and its itemsize sizes buffers."""
        object.__setattr__(self, "_frozen", True)

    def __repr__(self) -> str:
        return f"pyth.{self.name}"

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))

    def to_numpy(self) -> np.dtype:
        """The numpy dtype with the same layout; TypeError for bfloat16, which numpy lacks."""
        if self._np is None:
            raise TypeError(f"pyth.{self.name} has no numpy equivalent")
        return self._np

    @property
    def is_complex(self) -> bool:
        return False


def _immutable(name: str, exists: bool) -> AttributeError:
    """torch.dtype's error for setting or deleting an attribute."""
    if exists:
        return AttributeError(f"attribute '{name}' of 'pyth.dtype' objects is not writable")
    return AttributeError(f"'pyth.dtype' object has no attribute '{name}'")


# ---- Python numbers as C arguments -----------------------------------------------------------
#
# Every op that takes a Python number hands it to C through one of a dtype's converters, and
# all of them take the same two steps:
# 1. The number as an argument (`scalar_number`): a real number (TypeError otherwise), and an
#    int within [-2**63, 2**64), the range PyTorch's argument parser reads an integer scalar in
#    (int64, and uint64 above it). Beyond it RuntimeError: such an int would otherwise reach C
#    wrapped modulo 2**64 (`eq(2**64 + 5)` true of 5) or rounded to a double.
# 2. The number into the op's type, in one of three ways, as PyTorch converts a Scalar:
#    - to_c, for values that are stored (fill_, full, masked_fill, index_fill, where,
#      storage writes): the type must hold the value;
#    - `checked`, for an op's parameters (clamp bounds, alpha, addcmul's value, an integer
#      exponent): the type must hold the value, except that a negative int whose magnitude an
#      unsigned type holds wraps (uint8 clamp(min=-1) is clamp(min=255)); floats must be finite
#      within the type's range or infinite;
#    - wrap_c / op_c, for operands of arithmetic and comparisons: integers wrap as C arithmetic
#      does (`int8_tensor + 1000` adds -24); op_c gives the kernels' compute type, float for
#      float16/bfloat16, so the number reaches their <op>Scalar kernels unrounded.

SCALAR_INT_MIN, SCALAR_INT_MAX = -(2**63), 2**64 - 1


def scalar_number(v: Any, name: str) -> Any:
    """v checked as a scalar argument for an op of type name: TypeError for a non-number,
    RuntimeError for an int outside [-2**63, 2**64)."""
    if isinstance(v, int):
        if not SCALAR_INT_MIN <= v <= SCALAR_INT_MAX:
            raise RuntimeError(f"{overflow_error(v, name)} (an integer scalar must lie in "
                               f"[-2**63, 2**64))")
        return v
    if not isinstance(v, (numbers.Number, np.generic)) and not (
            hasattr(type(v), "__float__") or hasattr(type(v), "__index__")):
        raise TypeError(f"a {name} value must be a number, not {type(v).__name__}")
    return v


def _scalar_converter(convert: Callable[[Any], Any], name: str) -> Callable[[Any], Any]:
    """convert, applied to a value that passed scalar_number."""
    def to_c(v: Any) -> Any:
        return convert(scalar_number(v, name))
    return to_c


def as_double(v: Any) -> float:
    """A number for an argument PyTorch takes as a C double (uniform_'s bounds, isclose's
    tolerances, nan_to_num's replacements): any real number a double holds, ints beyond
    2**64 included, else RuntimeError (not a scalar argument, so step 1 does not apply)."""
    if not isinstance(v, (numbers.Number, np.generic)) and not hasattr(type(v), "__float__"):
        raise TypeError(f"a float64 value must be a number, not {type(v).__name__}")
    return _float_to_c("float64")(v)


_FLOAT_MAX = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38,
              "float32": 3.4028234663852886e38, "float64": math.inf}


def checked(v: Any, dt: "dtype", op: str = "", overflow: bool = True) -> Any:
    """v as a parameter of dt's op, as PyTorch's Scalar.to<T>() converts it: a Python number
    dt holds (ints wrapped into an unsigned dt from as low as -max), else RuntimeError naming
    op (overflow=False: floating types take it as it rounds, inf included)."""
    prefix = f"{op}(): " if op else ""
    v = scalar_number(v.item() if isinstance(v, np.generic) else v, dt.name)
    if dt is bool_:
        return bool(v)
    if dt.is_floating_point:
        f = _float_to_c(dt.name)(v)
        if overflow and math.isfinite(f) and abs(f) > _FLOAT_MAX[dt.name]:
            raise RuntimeError(f"{prefix}{overflow_error(v, dt.name)}")
        return f
    exact = isinstance(v, (int, np.integer)) or not isinstance(v, float) and \
        hasattr(type(v), "__index__")
    lo = -dt.max if exact and dt.kind == "u" else dt.min
    if not (exact or math.isfinite(v)) or not lo <= v <= dt.max:
        raise RuntimeError(f"{prefix}{overflow_error(v, dt.name)}")
    v = int(v) if exact else math.trunc(v)
    return v % (dt.max + 1) if dt.kind == "u" else v


def resolve(d: Any) -> "dtype | None":
    """d when it is a pyth dtype (or None); TypeError for anything else (a str, a numpy type)."""
    if d is None or isinstance(d, dtype):
        return d
    raise TypeError(f"dtype must be a pyth dtype such as pyth.float32, not {d!r}")


def short(v: Any) -> str:
    """v for a message: huge ints by their size (str() of one refuses beyond 4300 digits)."""
    if isinstance(v, int) and v.bit_length() > 128:
        return f"{'-' if v < 0 else ''}(an integer of {v.bit_length()} bits)"
    return str(v)


def overflow_error(v: Any, name: str) -> RuntimeError:
    """The error for a value v that type name cannot hold (PyTorch's message)."""
    return RuntimeError(f"value {short(v)} cannot be converted to type {name} without overflow")


def _int_to_c(name: str, lo: int, hi: int) -> Callable[[Any], int]:
    def convert(v: Any) -> int:
        if isinstance(v, float):
            if not (math.isfinite(v) and lo - 1 < v < hi + 1) or v < lo:
                raise overflow_error(v, name)
            v = math.trunc(v)
        v = int(v)
        if not lo <= v <= hi:
            raise overflow_error(v, name)
        return v
    return convert


def _float_to_c(name: str, convert: Callable[[Any], Any] = float) -> Callable[[Any], Any]:
    """convert (float() and then the C rounding), RuntimeError where float() overflows."""
    def to_c(v: Any) -> Any:
        try:
            return convert(v)
        except OverflowError:
            raise overflow_error(v, name) from None
    return to_c


def wrap_int(v: int, dt: "dtype") -> int:
    """The int v reduced into integer type dt's range as C's two's-complement arithmetic
    wraps it (any size of v: a product of two scalars may exceed 2**64)."""
    return (v - dt.min) % (dt.max - dt.min + 1) + dt.min


def _int_wrap_c(lo: int, hi: int, strict: Callable[[Any], int]) -> Callable[[Any], int]:
    span = hi - lo + 1

    def convert(v: Any) -> int:
        if isinstance(v, (bool, int)) or hasattr(v, "__index__") and not isinstance(v, float):
            return (int(v) - lo) % span + lo
        return strict(v)
    return convert


def _half_to_c(v: Any):
    return lib.TH_float2half(float(v))


def _bf16_to_c(v: Any):
    return lib.TH_float2bfloat16(float(v))


def _half_from_c(h) -> float:
    return float(lib.TH_half2float(h))


def _bf16_from_c(h) -> float:
    return float(lib.TH_bfloat162float(h))


def _int_type(name: str, real: str, ctype: str, kind: str, bits: int) -> dtype:
    lo, hi = (0, 2**bits - 1) if kind == "u" else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    d = dtype(name, real, ctype, kind, name, _int_to_c(name, lo, hi), int, lo, hi)
    d.wrap_c = d.op_c = _scalar_converter(_int_wrap_c(lo, hi, _int_to_c(name, lo, hi)), name)
    return d


def _reduced_type(name: str, real: str, ctype: str, to_c: Callable[[Any], Any],
                  from_c: Callable[[Any], Any]) -> dtype:
    """float16 / bfloat16: stored as ctype, computed in float, so op_c is a float."""
    d = dtype(name, real, ctype, "f", name if name != "bfloat16" else None,
              _float_to_c(name, to_c), from_c)
    d.op_c = _scalar_converter(_float_to_c(name), name)
    return d


uint8 = _int_type("uint8", "Byte", "uint8_t", "u", 8)
int8 = _int_type("int8", "Char", "int8_t", "i", 8)
int16 = _int_type("int16", "Short", "int16_t", "i", 16)
int32 = _int_type("int32", "Int", "int32_t", "i", 32)
int64 = _int_type("int64", "Long", "int64_t", "i", 64)
float32 = dtype("float32", "Float", "float", "f", "float32", _float_to_c("float32"), float)
float64 = dtype("float64", "Double", "double", "f", "float64", _float_to_c("float64"), float)
float16 = _reduced_type("float16", "Half", "THHalf", _half_to_c, _half_from_c)
bfloat16 = _reduced_type("bfloat16", "BFloat16", "THBFloat16", _bf16_to_c, _bf16_from_c)
bool_ = dtype("bool", "Bool", "bool", "b", "bool", bool, bool)

ALL_DTYPES = (uint8, int8, int16, int32, int64, float32, float64, float16, bfloat16, bool_)

# The legacy conversion methods (t.float(), s.long(), ...) and the dtype each one targets.
CONVERSIONS = {"byte": uint8, "char": int8, "short": int16, "int": int32, "long": int64,
               "float": float32, "double": float64, "half": float16, "bfloat16": bfloat16,
               "bool": bool_}

_BY_NAME = {d.name: d for d in ALL_DTYPES}
_BY_NUMPY = {d._np: d for d in ALL_DTYPES if d._np is not None}


def _dtype_by_name(name: str) -> dtype:
    """The dtype called name (a pickle's reference): TypeError / ValueError for anything else."""
    if not isinstance(name, str):
        raise TypeError(f"dtype name must be a str, not {type(name).__name__}")
    d = _BY_NAME.get(name)
    if d is None:
        raise ValueError(f"unknown dtype name {name[:40]!r}; expected one of "
                         f"{', '.join(_BY_NAME)}")
    return d


def from_numpy_dtype(np_dtype: np.dtype) -> dtype:
    """The pyth dtype for a numpy dtype; TypeError for those pyth does not have."""
    d = _BY_NUMPY.get(np.dtype(np_dtype).newbyteorder("="))
    if d is None:
        supported = ", ".join(str(k) for k in _BY_NUMPY)
        raise TypeError(f"can't convert np.ndarray of type {np.dtype(np_dtype)}; "
                        f"the supported types are: {supported}")
    return d


_default_dtype = float32


def get_default_dtype() -> dtype:
    """The dtype Python floats become (float32 unless changed)."""
    return _default_dtype


def set_default_dtype(d: dtype) -> None:
    """Make d (a floating dtype) the default for Python floats and float factories."""
    global _default_dtype
    if not isinstance(d, dtype) or not d.is_floating_point:
        raise TypeError(f"set_default_dtype(): only floating dtypes are allowed, got {d!r}")
    _default_dtype = d


def stamp_classes(base: type, kind: str, convert: Callable[[Any, "dtype"], Any],
                  doc: str) -> dict:
    """The Python side of stamping: one thin subclass of base per dtype (FloatTensor,
    FloatStorage, ...) sharing base's implementation, plus base's legacy conversion methods
    (t.float(), s.long(), ...) calling convert(self, dtype). Returns {class name: class}."""
    for name, target in CONVERSIONS.items():
        def method(self: Any, _dt: dtype = target) -> Any:
            return convert(self, _dt)
        method.__name__ = name
        method.__doc__ = doc.format(name=target.name)
        setattr(base, name, method)
    classes = {}
    for d in ALL_DTYPES:
        cls = type(f"{d.real}{kind}", (base,), {"__slots__": (), "dtype": d,
                                                  "__doc__": f"{kind} of {d.name} elements."})
        cls.__module__ = "pyth"
        setattr(d, kind.lower() + "_class", cls)
        if d.tensor_class is not None and d.storage_class is not None:
            d._freeze()  # both stampings done: nothing sets a dtype's attributes after this
        classes[cls.__name__] = cls
    return classes
