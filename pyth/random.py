"""Random numbers: Generator objects, seeding and state, sampling factories and the in-place
distribution methods (uniform_, normal_, bernoulli_, ...).

A Generator wraps a C Mersenne Twister (lib/THRandom.h); every sampler is one C kernel per dtype
(generic/THTensorRandom.c), found through the dtype's table (`dt.tensor.uniform` is
`lib.TH<Real>Tensor_uniform`). `_KINDS` says which dtype kinds each kernel is stamped for. Every
sampler takes `generator=`; None means `pyth.default_generator`. Kernels hold the generator's
lock for a whole fill, so threads sharing a generator each get a contiguous run of its stream.
"""

from __future__ import annotations

import operator
from typing import Any, Sequence

from . import dtypes as _dt
from ._errors import check, check_ptr, not_implemented
from ._ops import as_tensor, conflicts, into, is_scalar, scalar_value
from ._promotion import result_type
from ._th import ffi, lib
from .tensor import Tensor, _empty, as_int64, parse_sizes, wrap

_U64 = 2**64
STATE_SIZE: int = lib.TH_GENERATOR_STATE_SIZE


# ---- generators ------------------------------------------------------------------------------

def _seed_value(seed: Any) -> int:
    """A seed as the uint64 the C generator takes: ints in [-2^63, 2^64), negatives wrapping."""
    if isinstance(seed, float):
        seed = int(seed)
    try:
        value = operator.index(seed)
    except TypeError:
        raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}") from None
    if not -(2**63) <= value < _U64:
        raise ValueError(f"manual_seed(): seed {value} is out of range [-2^63, 2^64) "
                         "(Overflow when unpacking long long)")
    return value % _U64


class Generator:
    """A random number stream (32-bit Mersenne Twister), seeded and saved independently.

    Safe to share between threads. `Generator()` starts from the fixed seed 67280421310721, as
    PyTorch's does; `pyth.default_generator` starts from a non-deterministic seed.
    """

    __slots__ = ("_h", "__weakref__")

    def __init__(self, device: Any = "cpu") -> None:
        if str(device) != "cpu":
            raise RuntimeError(f"Generator(): pyth only has cpu generators, got device {device!r}")
        self._h = ffi.gc(check_ptr(lib.THGenerator_new()), lib.THGenerator_free)

    @classmethod
    def _adopt(cls, handle) -> "Generator":
        """A wrapper holding its own reference to an existing C generator."""
        self = object.__new__(cls)
        lib.THGenerator_retain(handle)
        self._h = ffi.gc(handle, lib.THGenerator_free)
        return self

    @property
    def device(self) -> str:
        return "cpu"

    def manual_seed(self, seed: Any) -> "Generator":
        """Restart the stream from seed (an int in [-2^63, 2^64)); returns self."""
        lib.THGenerator_manualSeed(self._h, _seed_value(seed))
        return self

    def seed(self) -> int:
        """Reseed from the operating system's entropy; returns the new seed."""
        return int(lib.THGenerator_seed(self._h))

    def initial_seed(self) -> int:
        """The seed the current stream started from."""
        return int(lib.THGenerator_initialSeed(self._h))

    def get_state(self) -> Tensor:
        """The whole state as a ByteTensor of STATE_SIZE bytes (portable layout: THRandom.h)."""
        state = wrap(_dt.uint8, _dt.uint8.tensor.new())
        check(lib.THGenerator_getState(self._h, state._h))
        return state

    def set_state(self, new_state: Tensor) -> "Generator":
        """Restore a state from get_state(); RuntimeError (and no change) if it is corrupt."""
        if not isinstance(new_state, Tensor) or new_state.dtype is not _dt.uint8:
            got = new_state.type() if isinstance(new_state, Tensor) else type(new_state).__name__
            raise TypeError(f"set_state(): RNG state must be a pyth.ByteTensor, got {got}")
        check(lib.THGenerator_setState(self._h, new_state._h))
        return self

    def __reduce__(self):
        return (_restore_generator, (self.get_state(),))

    def __repr__(self) -> str:
        return f"<pyth.Generator (initial seed {self.initial_seed()})>"


def _restore_generator(state: Tensor) -> Generator:
    return Generator().set_state(state)


default_generator = Generator._adopt(lib.THGenerator_default())


def _handle(generator: Generator | None):
    """The C generator a sampler draws from."""
    if generator is None:
        return default_generator._h
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be a pyth.Generator, not {type(generator).__name__}")
    return generator._h


def manual_seed(seed: Any) -> Generator:
    """Seed the default generator (seed goes through int(), as in PyTorch); returns it."""
    return default_generator.manual_seed(int(seed))


def seed() -> int:
    """Seed the default generator non-deterministically; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The default generator's initial seed."""
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The default generator's state as a ByteTensor."""
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    """Restore the default generator's state."""
    default_generator.set_state(new_state)


# ---- kernels -----------------------------------------------------------------------------------

# C kernel -> the dtype kinds it is stamped for ('b' bool, 'u'/'i' integer, 'f' floating)
_KIND_NAMES = {"b": "bool", "u": "integer", "i": "integer", "f": "floating"}
_KINDS = {
    "uniform": "f", "normal": "f", "normalTensor": "f", "exponential": "f", "cauchy": "f",
    "logNormal": "f", "multinomial": "f", "geometric": "uif", "randperm": "uif",
    "bernoulli": "buif", "bernoulliTensor": "buif", "random": "buif", "clampedRandom": "buif",
    "randomFrom": "buif",
}
# continuous distributions PyTorch refuses outright for other kinds (RuntimeError) rather than
# lacking a kernel for them (NotImplementedError)
_CONTINUOUS = {"exponential": "Exponential", "cauchy": "Cauchy"}


def _kernel(name: str, dt: _dt.dtype, op: str):
    """lib.TH<Real>Tensor_<name>, or NotImplementedError (a RuntimeError) for other kinds."""
    if dt.kind not in _KINDS[name]:
        if name in _CONTINUOUS:
            raise RuntimeError(f"{op}(): the {_CONTINUOUS[name]} distribution is continuous: "
                               f"expected a floating point tensor, got '{dt.real}'")
        kinds = " or ".join(sorted({_KIND_NAMES[k] for k in _KINDS[name]}))
        raise not_implemented(op, dt, f"expects {kinds} tensors")
    return getattr(dt.tensor, name)


def _fill(self: Tensor, name: str, op: str, generator: Generator | None, *params: Any) -> Tensor:
    """Runs sampling kernel `name` over self in place."""
    if not isinstance(self, Tensor):
        raise TypeError(f"{op}(): expected a Tensor, got {type(self).__name__}")
    fn = _kernel(name, self.dtype, op)
    check(fn(self._h, _handle(generator), *params))
    return self


def _float(value: Any, name: str, op: str) -> float:
    if isinstance(value, Tensor) or is_scalar(value):
        return _dt.as_double(scalar_value(value) if not isinstance(value, Tensor) else value)
    raise TypeError(f"{op}(): argument '{name}' must be a number, not {type(value).__name__}")


def _int64(value: Any, name: str, op: str) -> int:
    try:
        return as_int64(value, op, name)
    except TypeError:
        raise TypeError(f"{op}(): argument '{name}' must be an int, not "
                        f"{type(value).__name__}") from None


# ---- in-place distributions (Tensor methods) ---------------------------------------------------

def _from_to(args: tuple, kw: dict, defaults: tuple, op: str) -> tuple:
    """(from, to) from positional args and the keywords 'from' / 'to' ('from' is a Python
    keyword, so it can only come through **kw)."""
    names = ("from", "to")
    values = list(defaults)
    if len(args) > 2:
        raise TypeError(f"{op}() takes at most 2 positional arguments ({len(args)} given)")
    for i, a in enumerate(args):
        values[i] = a
    for k, v in kw.items():
        if k not in names:
            raise TypeError(f"{op}() got an unexpected keyword argument '{k}'")
        values[names.index(k)] = v
    return tuple(values)


def uniform_(self: Tensor, *args: Any, generator: Generator | None = None, **kw: Any) -> Tensor:
    """Fill with Uniform[from, to) (defaults 0, 1); floating dtypes."""
    a, b = _from_to(args, kw, (0.0, 1.0), "uniform_")
    return _fill(self, "uniform", "uniform_", generator, _float(a, "from", "uniform_"),
                 _float(b, "to", "uniform_"))


def normal_(self: Tensor, mean: Any = 0.0, std: Any = 1.0, *,
            generator: Generator | None = None) -> Tensor:
    """Fill with Normal(mean, std^2) (Box-Muller); floating dtypes."""
    return _fill(self, "normal", "normal_", generator, _float(mean, "mean", "normal_"),
                 _float(std, "std", "normal_"))


def exponential_(self: Tensor, lambd: Any = 1.0, *, generator: Generator | None = None) -> Tensor:
    """Fill with Exponential(rate lambd); floating dtypes."""
    return _fill(self, "exponential", "exponential_", generator,
                 _float(lambd, "lambd", "exponential_"))


def cauchy_(self: Tensor, median: Any = 0.0, sigma: Any = 1.0, *,
            generator: Generator | None = None) -> Tensor:
    """Fill with Cauchy(median, sigma); floating dtypes."""
    return _fill(self, "cauchy", "cauchy_", generator, _float(median, "median", "cauchy_"),
                 _float(sigma, "sigma", "cauchy_"))


def log_normal_(self: Tensor, mean: Any = 1.0, std: Any = 2.0, *,
                generator: Generator | None = None) -> Tensor:
    """Fill with exp(Normal(mean, std^2)); floating dtypes."""
    return _fill(self, "logNormal", "log_normal_", generator, _float(mean, "mean", "log_normal_"),
                 _float(std, "std", "log_normal_"))


def geometric_(self: Tensor, p: Any, *, generator: Generator | None = None) -> Tensor:
    """Fill with the number of Bernoulli(p) trials up to the first success (1, 2, ...)."""
    return _fill(self, "geometric", "geometric_", generator, _float(p, "p", "geometric_"))


def bernoulli_(self: Tensor, p: Any = 0.5, *, generator: Generator | None = None) -> Tensor:
    """Fill with 1 (probability p) or 0; p a number or a tensor broadcasting to self."""
    if isinstance(p, Tensor):
        probs = p if p.dtype is _dt.float64 else p.to(_dt.float64)
        return _fill(self, "bernoulliTensor", "bernoulli_", generator, probs._h)
    return _fill(self, "bernoulli", "bernoulli_", generator, _float(p, "p", "bernoulli_"))


_MISSING = object()


def random_(self: Tensor, *args: Any, generator: Generator | None = None, **kw: Any) -> Tensor:
    """Fill with integers: random_() over the dtype's range ([0, 2^mantissa] for floating
    dtypes), random_(to) in [0, to), random_(from, to) in [from, to), to=None up to the max."""
    if len(args) == 1 and not kw:
        args = (0, args[0])               # random_(to)
    frm, to = _from_to(args, kw, (_MISSING, _MISSING), "random_")
    if frm is _MISSING and to is _MISSING:
        return _fill(self, "random", "random_", generator)
    frm = 0 if frm is _MISSING else _int64(frm, "from", "random_")
    if to is None or to is _MISSING:
        return _fill(self, "randomFrom", "random_", generator, frm)
    return _fill(self, "clampedRandom", "random_", generator, frm, _int64(to, "to", "random_"))


# ---- factories ----------------------------------------------------------------------------------

_IGNORED = {"device": ("cpu", None), "requires_grad": (False,), "layout": (None,),
            "pin_memory": (False,)}


def _check_keywords(op: str, kw: dict) -> None:
    """Accepts PyTorch's device / layout / ... keywords with the values pyth supports."""
    for k, v in kw.items():
        if k not in _IGNORED:
            raise TypeError(f"{op}() got an unexpected keyword argument '{k}'")
        if str(v) not in {str(x) for x in _IGNORED[k]}:
            raise RuntimeError(f"{op}(): {k}={v!r} is not supported by pyth")


def _output(op: str, sizes: Sequence[int], dtype: _dt.dtype | None, out: Tensor | None,
            default: _dt.dtype, kernel: str) -> Tensor:
    """The tensor a factory fills: out (resized) or a new one, of a dtype the kernel has."""
    if out is not None:
        if not isinstance(out, Tensor):
            raise TypeError(f"{op}(): out must be a Tensor, not {type(out).__name__}")
        if dtype is not None and dtype is not out.dtype:
            raise RuntimeError(f"{op}(): dtype {dtype!r} does not match out's dtype {out.dtype!r}")
        _kernel(kernel, out.dtype, op)
        return out.resize_(sizes)
    dt = dtype or default
    _kernel(kernel, dt, op)
    return _empty(sizes, dt)


def _sizes(op: str, size: tuple, kw: dict) -> tuple:
    if "size" in kw:
        if size:
            raise TypeError(f"{op}(): size given both positionally and as a keyword")
        size = (kw.pop("size"),)
    return parse_sizes(size, op)


def rand(*size: Any, generator: Generator | None = None, dtype: _dt.dtype | None = None,
         out: Tensor | None = None, **kw: Any) -> Tensor:
    """Uniform[0, 1) samples of the given size (default float dtype)."""
    sizes = _sizes("rand", size, kw)
    _check_keywords("rand", kw)
    r = _output("rand", sizes, dtype, out, _dt.get_default_dtype(), "uniform")
    return _fill(r, "uniform", "rand", generator, 0.0, 1.0)


def randn(*size: Any, generator: Generator | None = None, dtype: _dt.dtype | None = None,
          out: Tensor | None = None, **kw: Any) -> Tensor:
    """Standard normal samples of the given size (default float dtype)."""
    sizes = _sizes("randn", size, kw)
    _check_keywords("randn", kw)
    r = _output("randn", sizes, dtype, out, _dt.get_default_dtype(), "normal")
    return _fill(r, "normal", "randn", generator, 0.0, 1.0)


def randint(*args: Any, generator: Generator | None = None, dtype: _dt.dtype | None = None,
            out: Tensor | None = None, **kw: Any) -> Tensor:
    """Integers uniform in [low, high): randint(high, size) or randint(low, high, size);
    int64 unless dtype says otherwise."""
    low, high, size = kw.pop("low", None), kw.pop("high", None), kw.pop("size", None)
    pos = list(args)
    if size is None:
        if not pos:
            raise TypeError("randint(): missing the required argument 'size'")
        size = pos.pop()
    if len(pos) == 2:
        low, high = pos
    elif len(pos) == 1:
        if high is None:
            high = pos[0]
        else:
            low = pos[0]
    elif pos:
        raise TypeError(f"randint() takes at most 3 positional arguments ({len(args)} given)")
    if high is None:
        raise TypeError("randint(): missing the required argument 'high'")
    _check_keywords("randint", kw)
    low = 0 if low is None else _int64(low, "low", "randint")
    high = _int64(high, "high", "randint")
    r = _output("randint", parse_sizes((size,), "randint"), dtype, out, _dt.int64,
                "clampedRandom")
    return _fill(r, "clampedRandom", "randint", generator, low, high)


def randperm(n: int, *, generator: Generator | None = None, dtype: _dt.dtype | None = None,
             out: Tensor | None = None, **kw: Any) -> Tensor:
    """A random permutation of 0 .. n-1 (int64 unless dtype says otherwise)."""
    _check_keywords("randperm", kw)
    n = _int64(n, "n", "randperm")
    r = _output("randperm", (0,), dtype, out, _dt.int64, "randperm")
    return _fill(r, "randperm", "randperm", generator, n)


def rand_like(input: Tensor, *, dtype: _dt.dtype | None = None,
              generator: Generator | None = None, **kw: Any) -> Tensor:
    """rand() with input's size (and dtype unless given)."""
    return rand(input.size(), generator=generator, dtype=dtype or input.dtype, **kw)


def randn_like(input: Tensor, *, dtype: _dt.dtype | None = None,
               generator: Generator | None = None, **kw: Any) -> Tensor:
    """randn() with input's size (and dtype unless given)."""
    return randn(input.size(), generator=generator, dtype=dtype or input.dtype, **kw)


def randint_like(input: Tensor, *args: Any, dtype: _dt.dtype | None = None,
                 generator: Generator | None = None, **kw: Any) -> Tensor:
    """randint() with input's size and dtype: randint_like(input, high) or (input, low, high)."""
    return randint(*args, size=input.size(), generator=generator, dtype=dtype or input.dtype,
                   **kw)


def normal(mean: Any, std: Any = 1.0, size: Any = None, *, generator: Generator | None = None,
           out: Tensor | None = None, dtype: _dt.dtype | None = None, **kw: Any) -> Tensor:
    """Normal samples: mean and std tensors (broadcast together) or numbers; with two numbers
    a size is required."""
    _check_keywords("normal", kw)
    if not isinstance(mean, Tensor) and not isinstance(std, Tensor):
        if size is None:
            raise TypeError("normal(): with a number for both mean and std, give a size")
        r = _output("normal", parse_sizes((size,), "normal"), dtype, out,
                    _dt.get_default_dtype(), "normal")
        return normal_(r, mean, std, generator=generator)
    if size is not None:
        raise TypeError("normal(): size is only allowed when mean and std are both numbers")
    if not isinstance(std, Tensor) and not _float(std, "std", "normal") >= 0:
        raise RuntimeError(f"normal(): expects std >= 0.0, but found std {std}")
    # a number takes no part in the dtype: an integer mean tensor has no kernel, as in PyTorch
    dt = (result_type(mean, std) if isinstance(mean, Tensor) and isinstance(std, Tensor)
          else (mean if isinstance(mean, Tensor) else std).dtype)
    fn = _kernel("normalTensor", dt, "normal")
    m, s, g = as_tensor(mean, dt), as_tensor(std, dt), _handle(generator)
    return into("normal", dt, out, lambda r: fn(r._h, g, m._h, s._h), inputs=(m, s))


def bernoulli(input: Tensor, p: Any = None, *, generator: Generator | None = None,
              out: Tensor | None = None) -> Tensor:
    """0/1 samples shaped like input: with probabilities input (floating), or p if given."""
    if not isinstance(input, Tensor):
        raise TypeError(f"bernoulli(): argument 'input' must be Tensor, not {type(input).__name__}")
    if p is None:
        _kernel("uniform", input.dtype, "bernoulli")   # probabilities must be floating
        p = input
    r = _output("bernoulli", input.size(), None, out, input.dtype, "bernoulli")
    if isinstance(p, Tensor) and conflicts(r, (p,)):
        p = p.clone()  # the kernel would read probabilities it has already overwritten
    return bernoulli_(r, p, generator=generator)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *,
                generator: Generator | None = None, out: Tensor | None = None) -> Tensor:
    """num_samples category indices per row of input (1-D or 2-D non-negative weights), drawn
    with or without replacement; int64."""
    if not isinstance(input, Tensor) or not input.dtype.is_floating_point:
        got = input.dtype.real if isinstance(input, Tensor) else type(input).__name__
        raise RuntimeError(f"multinomial(): only supports floating-point dtypes for input, "
                           f"got: {got}")
    fn = _kernel("multinomial", input.dtype, "multinomial")
    n, g = _int64(num_samples, "num_samples", "multinomial"), _handle(generator)
    return into("multinomial", _dt.int64, out,
                lambda r: fn(r._h, g, input._h, n, bool(replacement)), inputs=(input,))


# ---- tables (pyth/_bind.py binds them) --------------------------------------------------------------

METHODS: dict[str, Any] = {
    "uniform_": uniform_, "normal_": normal_, "exponential_": exponential_, "cauchy_": cauchy_,
    "log_normal_": log_normal_, "geometric_": geometric_, "bernoulli_": bernoulli_,
    "random_": random_, "bernoulli": bernoulli, "multinomial": multinomial,
}

FUNCTIONS: dict[str, Any] = {
    "Generator": Generator, "default_generator": default_generator, "manual_seed": manual_seed,
    "seed": seed, "initial_seed": initial_seed, "get_rng_state": get_rng_state,
    "set_rng_state": set_rng_state, "rand": rand, "randn": randn, "randint": randint,
    "randperm": randperm, "rand_like": rand_like, "randn_like": randn_like,
    "randint_like": randint_like, "normal": normal, "bernoulli": bernoulli,
    "multinomial": multinomial,
}
