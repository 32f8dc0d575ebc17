"""Tensor: a strided view on a Storage (TH's THTensor), one class per element type.

A Tensor wraps one C reference (`_h`, a cffi `TH<Real>Tensor *` released through ffi.gc). Its
dtype comes from its class (FloatTensor.dtype is pyth.float32); the classes share this one
implementation. Every operation reaches its C function through the dtype's table:
`self.dtype.tensor.newNarrow` is `lib.TH<Real>Tensor_newNarrow`.
"""

from __future__ import annotations

import operator
from typing import Any, Sequence

import numpy as np

from . import _numpy
from . import dtypes as _dt
from ._arguments import (_INT64_MAX, _INT64_MIN, _INT_MAX, as_count, as_dim,  # noqa: F401
                         as_index, as_int64, bool_arg_error)
from ._errors import check, raise_error
from ._size import Size
from ._th import ffi, lib
from .storage import Storage, wrap_storage


def wrap(dt: _dt.dtype, ptr) -> "Tensor":
    """A Python Tensor owning the (new) C reference ptr."""
    if not ptr:  # a C constructor's NULL: its error is recorded
        raise_error()
    t = object.__new__(dt.tensor_class)
    t._h = ffi.gc(ptr, dt.tensor.free)
    t._ag = None
    t._vb = None
    return t


def parse_sizes(args: Sequence[Any], op: str = "size") -> tuple:
    """Sizes given as varargs ints or as one sequence: (2, 3) and ((2, 3),) alike."""
    if len(args) == 1 and isinstance(args[0], (tuple, list, Size)):
        args = args[0]
    try:
        r = tuple(map(operator.index, args))
    except TypeError:
        names = ", ".join(type(s).__name__ for s in args)
        raise TypeError(f"{op}(): sizes must be integers, got ({names})") from None
    if r and args[0].__class__ is bool:   # PyTorch's parser checks the first element's type
        raise TypeError(f"{op}(): argument 'size' must be tuple of ints, but found element of "
                        f"type bool at pos 0")
    return r


def c_sizes(sizes: Sequence[int]):
    """sizes for an int64_t * argument: a list or tuple, which cffi passes as a temporary
    array (cheaper than a new cdata array per call); MemoryError for values outside int64,
    like the C checks (a non-integer raises TypeError at the call)."""
    s = sizes if type(sizes) in (tuple, list) else list(sizes)
    for v in s:
        if not _INT64_MIN <= v <= _INT64_MAX:
            raise MemoryError(f"sizes {list(s)} do not fit in int64")
    return s


class Tensor:
    """A strided view on a Storage: sizes, strides, offset (int64), any number of dims."""

    __slots__ = ("_h", "_ag", "_vb", "__weakref__")  # _ag: autograd state (None: not in a graph)
    # _vb: for a view, the tensor it views (autograd's `_base`; None, or unset, otherwise)
    dtype: _dt.dtype = None  # set on each per-type class
    # Bound by pyth/_bind.py from the layers above, which this module does not import: data
    # (lists, numbers, arrays) -> a new tensor of a dtype (pyth/_prims/creation.py), and t[...],
    # t[...] = v (pyth/_prims/subscript.py).
    _from_data: Any
    __getitem__: Any
    __setitem__: Any

    # ---- construction (legacy forms) ----
    def __new__(cls, *args: Any) -> "Tensor":
        dt = cls.dtype or _dt.get_default_dtype()
        if not args:
            return wrap(dt, dt.tensor.new())
        first = args[0]
        if len(args) == 1 and isinstance(first, Storage):
            if first.dtype is not dt:
                raise TypeError(f"{cls.__name__}(): expected a {dt.real}Storage, "
                                f"got {type(first).__name__}")
            return cls._on_storage(first)
        if len(args) == 1 and isinstance(first, Tensor):
            if first.dtype is not dt:
                raise TypeError(f"{cls.__name__}(): expected a {cls.__name__}, got {first.type()}")
            return wrap(dt, dt.tensor.newWithTensor(first._h))
        if isinstance(first, (int, np.integer, Size)) and not isinstance(first, bool):
            return _empty(parse_sizes(args, cls.__name__), dt)
        if len(args) == 1:
            return cls._from_data(first, dt)
        raise TypeError(f"{cls.__name__}(): expected sizes, a sequence, a Storage or a Tensor")

    @staticmethod
    def _on_storage(storage: Storage) -> "Tensor":
        """A 1-D tensor viewing all of storage."""
        dt = storage.dtype
        return wrap(dt, dt.tensor.newWithStorage(storage._h, 0, 1, c_sizes([len(storage)]),
                                                 ffi.NULL))

    # ---- geometry ----
    def dim(self) -> int:
        return self._h.nDimension

    ndimension = dim

    @property
    def ndim(self) -> int:
        return self._h.nDimension

    def size(self, dim: int | None = None) -> Size | int:
        """The shape as a pyth.Size, or the size of one dim."""
        h = self._h
        if dim is None:
            return Size(ffi.unpack(h.size, h.nDimension))
        n = h.nDimension
        if dim.__class__ is int and -n <= dim < n:   # the common case, read straight from C
            return h.size[dim % n]
        return self._geometry_at(h.size, as_dim(dim, "size"), "size")

    @property
    def shape(self) -> Size:
        h = self._h
        return Size(ffi.unpack(h.size, h.nDimension))

    def stride(self, dim: int | None = None) -> tuple | int:
        """The strides (in elements), or the stride of one dim."""
        h = self._h
        if dim is None:
            return tuple(ffi.unpack(h.stride, h.nDimension))
        return self._geometry_at(h.stride, as_dim(dim, "stride"), "stride")

    def _geometry_at(self, arr, d: int, op: str) -> int:
        n = self._h.nDimension
        if n == 0:   # as PyTorch: a 0-dim tensor has no dim to name, not even 0 or -1
            raise IndexError(f"{op}(): dimension specified as {d} but tensor has no dimensions")
        if not -n <= d < n:
            raise IndexError(f"{op}(): dim {d} is out of range for a tensor of {n} dims "
                             f"(expected in [{-n}, {n - 1}])")
        return arr[d % n]

    def storage_offset(self) -> int:
        return self._h.storageOffset

    def storage(self) -> Storage:
        """The Storage this tensor views (shared, not a copy)."""
        # read and retained in one call: a set_() in another thread cannot free it in between
        return wrap_storage(self.dtype, self.dtype.tensor.retainedStorage(self._h), owned=True)

    untyped_storage = storage

    def numel(self) -> int:
        return self.dtype.tensor.nElement(self._h)

    nelement = numel

    def element_size(self) -> int:
        return self.dtype.itemsize

    def __len__(self) -> int:
        if self._h.nDimension == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._h.size[0]

    def is_contiguous(self) -> bool:
        return bool(self.dtype.tensor.isContiguous(self._h))

    def is_set_to(self, other: "Tensor") -> bool:
        """Same storage, offset, sizes and strides."""
        return self.dtype is other.dtype and bool(self.dtype.tensor.isSetTo(self._h, other._h))

    def data_ptr(self) -> int:
        h = self._h
        base = int(ffi.cast("uintptr_t", h.storage.data))
        return base + h.storageOffset * self.dtype.itemsize if base else 0

    @property
    def is_floating_point_type(self) -> bool:
        return self.dtype.is_floating_point

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    @property
    def device(self) -> str:
        return "cpu"

    # ---- views (share storage) ----
    def narrow(self, dim: int, start: int, length: int) -> "Tensor":
        return wrap(self.dtype, self.dtype.tensor.newNarrow(self._h, as_dim(dim, "narrow"),
                                                            as_index(start, "narrow", "start"),
                                                            as_count(length, "narrow", "length")))

    def select(self, dim: int, index: int) -> "Tensor":
        return wrap(self.dtype, self.dtype.tensor.newSelect(self._h, as_dim(dim, "select"),
                                                            as_index(index, "select")))

    def transpose(self, dim0: int, dim1: int) -> "Tensor":
        d0, d1 = as_dim(dim0, "transpose", "dim0"), as_dim(dim1, "transpose", "dim1")
        return wrap(self.dtype, self.dtype.tensor.newTranspose(self._h, d0, d1))

    swapaxes = transpose

    def t(self) -> "Tensor":
        """Transpose of a tensor of at most 2 dims (the C view directly: the recorded t()
        around this function already marks the result a view)."""
        h = self._h
        nd = h.nDimension
        if nd > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                               f"{nd}D")
        return wrap(self.dtype, self.dtype.tensor.newTranspose(h, 0, 1)) if nd == 2 else self

    @property
    def T(self) -> "Tensor":
        """All dims reversed (outside autograd a matrix takes t()'s shorter path to the same
        view; in the graph the node is PermuteBackward0, as PyTorch's)."""
        if self._ag is None and self._h.nDimension == 2:
            return self.t()
        return self.permute(*range(self.dim() - 1, -1, -1))

    def permute(self, *dims: Any) -> "Tensor":
        dims = parse_sizes(dims, "permute")
        cdims = [as_dim(d, "permute", "dims") for d in dims]
        return wrap(self.dtype, self.dtype.tensor.newPermute(self._h, len(dims), cdims))

    def unfold(self, dimension: int, size: int, step: int) -> "Tensor":
        """Windows of `size` elements every `step` along dimension, as a new last dim."""
        d = as_dim(dimension, "unfold", "dimension")
        return wrap(self.dtype, self.dtype.tensor.newUnfold(self._h, d, as_count(size, "unfold"),
                                                            as_count(step, "unfold", "step")))

    def squeeze(self, dim: int | None = None) -> "Tensor":
        if dim is None:
            return wrap(self.dtype, self.dtype.tensor.newSqueeze(self._h))
        return wrap(self.dtype, self.dtype.tensor.newSqueeze1d(self._h, as_dim(dim, "squeeze")))

    def unsqueeze(self, dim: int) -> "Tensor":
        return wrap(self.dtype, self.dtype.tensor.newUnsqueeze1d(self._h, as_dim(dim, "unsqueeze")))

    def view(self, *shape: Any) -> "Tensor":
        """Same data, new shape; RuntimeError where the strides forbid it (see reshape)."""
        sizes = parse_sizes(shape, "view")
        dt = self.dtype
        return wrap(dt, dt.tensor.newView(self._h, len(sizes), c_sizes(sizes)))

    def view_as(self, other: "Tensor") -> "Tensor":
        return self.view(other.size())

    def reshape(self, *shape: Any) -> "Tensor":
        """A view when the strides allow one, otherwise a contiguous copy."""
        sizes = parse_sizes(shape, "reshape")
        c = c_sizes(sizes)
        ptr = self.dtype.tensor.newView(self._h, len(sizes), c)
        if ptr != ffi.NULL:   # the common case: one C call
            return wrap(self.dtype, ptr)
        lib.THError_clear()   # a shape that fits no count raises reshape's own message, ...
        out = ffi.new("int64_t[]", max(len(sizes), 1))
        check(lib.THShape_inferSize(out, b"reshape()", self.numel(), len(sizes), c))
        return self.contiguous().view(sizes)   # ... one that the strides forbid is copied

    def reshape_as(self, other: "Tensor") -> "Tensor":
        return self.reshape(other.size())

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> "Tensor":
        """Merge dims start_dim..end_dim into one (a view when possible)."""
        if start_dim == 0 and end_dim == -1 and self._h.nDimension:   # all of them
            return self.reshape(-1)
        shape = list(self.size())
        if not shape:
            return self.reshape(1)
        n = len(shape)
        s = as_dim(start_dim, "flatten", "start_dim")
        e = as_dim(end_dim, "flatten", "end_dim")
        for d in (s, e):
            if not -n <= d < n:
                raise IndexError(f"flatten(): dim {d} is out of range for a tensor of {n} dims "
                                 f"(expected in [{-n}, {n - 1}])")
        s, e = s % n, e % n
        if s > e:
            raise RuntimeError("flatten(): start_dim cannot come after end_dim")
        merged = 1
        for k in shape[s:e + 1]:
            merged *= k
        return self.reshape(shape[:s] + [merged] + shape[e + 1:])

    def expand(self, *sizes: Any) -> "Tensor":
        """A view with size-1 dims repeated (stride 0); -1 keeps a size."""
        sizes = parse_sizes(sizes, "expand")
        return wrap(self.dtype, self.dtype.tensor.newExpand(self._h, len(sizes), c_sizes(sizes)))

    def expand_as(self, other: "Tensor") -> "Tensor":
        return self.expand(other.size())

    def diagonal(self, offset: int = 0, dim1: int = 0, dim2: int = 1) -> "Tensor":
        return wrap(self.dtype, self.dtype.tensor.newDiagonal(self._h,
                                                              as_index(offset, "diagonal", "offset"),
                                                              as_dim(dim1, "diagonal", "dim1"),
                                                              as_dim(dim2, "diagonal", "dim2")))

    def as_strided(self, size: Sequence[int], stride: Sequence[int],
                   storage_offset: int | None = None) -> "Tensor":
        """A view with explicit geometry; it must stay inside the storage."""
        size, stride = parse_sizes(size, "as_strided"), parse_sizes(stride, "as_strided")
        if len(size) != len(stride):
            raise RuntimeError(f"as_strided(): mismatch in length of strides and shape "
                               f"({len(stride)} and {len(size)})")
        offset = self.storage_offset() if storage_offset is None else as_index(
            storage_offset, "as_strided", "storage_offset")
        return wrap(self.dtype, self.dtype.tensor.newAsStrided(
            self._h, offset, len(size), c_sizes(size), c_sizes(stride)))

    # ---- in-place geometry ----
    def set_(self, source: Any = None, storage_offset: int = 0, size: Any = None,
             stride: Any = None) -> "Tensor":
        """View source (a Storage or Tensor), or nothing; grows a resizable storage as TH did."""
        T = self.dtype.tensor
        if source is None:
            empty = wrap(self.dtype, T.new())
            check(T.set(self._h, empty._h))
        elif isinstance(source, Tensor):
            self._check_same_type(source, "set_")
            check(T.set(self._h, source._h))
        elif isinstance(source, Storage):
            if source.dtype is not self.dtype:
                raise TypeError(f"set_(): expected a {self.dtype.real}Storage, "
                                f"got {type(source).__name__}")
            sizes = (len(source),) if size is None else parse_sizes(size, "set_")
            strides = ffi.NULL if stride is None else c_sizes(parse_sizes(stride, "set_"))
            if stride is not None and len(parse_sizes(stride)) != len(sizes):
                raise RuntimeError("set_(): size and stride must have the same length")
            check(T.setStorage(self._h, source._h, as_index(storage_offset, "set_",
                                                            "storage_offset"), len(sizes),
                               c_sizes(sizes), strides))
        else:
            raise TypeError(f"set_(): expected a Storage or a Tensor, got {type(source).__name__}")
        return self

    def resize_(self, *sizes: Any) -> "Tensor":
        """Contiguous with the given sizes, keeping the storage (grown if needed)."""
        sizes = parse_sizes(sizes, "resize_")
        check(self.dtype.tensor.resize(self._h, len(sizes), c_sizes(sizes)))
        return self

    def resize_as_(self, other: "Tensor") -> "Tensor":
        return self.resize_(other.size())

    # ---- data ----
    def _check_same_type(self, other: Any, op: str) -> None:
        if not isinstance(other, Tensor) or other.dtype is not self.dtype:
            raise TypeError(f"{op}(): expected a {self.type()}, got "
                            f"{other.type() if isinstance(other, Tensor) else type(other).__name__}")

    def copy_(self, src: Any) -> "Tensor":
        """Copy src's values (any type, broadcast to self's shape) into self."""
        if not isinstance(src, Tensor):
            src = self._from_data(src, self.dtype)
        check(getattr(self.dtype.tensor, "copy" + src.dtype.real)(self._h, src._h))
        return self

    def fill_(self, value: Any) -> "Tensor":
        if isinstance(value, Tensor):
            if value.dim() != 0:
                raise RuntimeError(f"fill_() only supports 0-dimension value tensor but got "
                                   f"tensor with {value.dim()} dimensions")
            value = value.item()
        check(self.dtype.tensor.fill(self._h, self.dtype.to_c(value)))
        return self

    def zero_(self) -> "Tensor":
        check(self.dtype.tensor.zero(self._h))
        return self

    def clone(self) -> "Tensor":
        return wrap(self.dtype, self.dtype.tensor.newClone(self._h))

    def contiguous(self) -> "Tensor":
        """self when already contiguous, else a contiguous copy."""
        if self.dtype.tensor.isContiguous(self._h):
            return self
        return self.clone()

    def detach(self) -> "Tensor":
        return wrap(self.dtype, self.dtype.tensor.newWithTensor(self._h))

    # ---- types ----
    def type(self, t: Any = None) -> Any:
        """'pyth.FloatTensor', or a copy converted to t (a class, name or dtype)."""
        if t is None:
            return f"pyth.{type(self).__name__}"
        if isinstance(t, str):
            name = t.rsplit(".", 1)[-1]
            target = next((d for d in _dt.ALL_DTYPES if d.tensor_class.__name__ == name), None)
            if target is None:
                raise ValueError(f"type(): invalid type '{t}'")
        elif isinstance(t, type) and issubclass(t, Tensor) and t.dtype is not None:
            target = t.dtype
        elif isinstance(t, _dt.dtype):
            target = t
        else:
            raise TypeError(f"type(): expected a tensor type, got {t!r}")
        return self.to(target)

    def to(self, *args: Any, dtype: _dt.dtype | None = None, copy: bool = False) -> "Tensor":
        """Convert to a dtype (self when already that type, unless copy=True; device.methods
        adds the device keywords)."""
        for a in args:
            if isinstance(a, _dt.dtype):
                dtype = a
            elif isinstance(a, Tensor):
                dtype = a.dtype
            elif a not in ("cpu", None):
                raise TypeError(f"to(): unsupported argument {a!r}")
        target = dtype or self.dtype
        if target is self.dtype and not copy:
            return self
        out = _empty(self.size(), target)
        return out.copy_(self)

    # ---- Python scalars and lists ----
    def item(self) -> Any:
        """The value of a one-element tensor as a Python scalar."""
        dt, h = self.dtype, self._h
        c = dt.tensor
        n = c.nElement(h)
        if n != 1:
            raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
        check(c.checkBounds(h, b"item()"))
        return dt.from_c(c.data(h)[0])

    def tolist(self) -> Any:
        """Nested Python lists (a scalar for 0-dim)."""
        if self.dtype is _dt.bfloat16:
            return self.float().tolist()
        return _numpy.export(self).tolist()

    def __iter__(self):
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self.select(0, i) for i in range(self._h.size[0]))

    def _scalar(self) -> Any:
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __bool__(self) -> bool:
        n = self.numel()
        if n != 1:
            what = "no values" if n == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {what} is ambiguous")
        return bool(self.item())

    def __float__(self) -> float:
        return float(self._scalar())

    def __int__(self) -> int:
        return int(self._scalar())

    def __index__(self) -> int:
        if self.dtype.is_floating_point or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    # ---- numpy ----
    def numpy(self) -> np.ndarray:
        """A zero-copy ndarray view holding an export of this tensor's storage.

        The export pins the storage's memory: while the array lives, resize_() or
        share_memory_() of that storage raise instead of freeing what the array reads, and
        set_() on the tensor leaves the array on the old storage. A tensor that requires grad
        refuses, as in PyTorch (numpy would not record what is done to the array).
        """
        if self._ag is not None and self.requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        return _numpy.export(self)

    # No __array_interface__: numpy would keep the tensor object (not its memory) alive, and a
    # later set_() or resize_() would leave the array on freed memory. np.asarray(t) goes
    # through __array__ and numpy(), zero-copy.

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        """NumPy 2 protocol: a view when possible; copy=False refuses to copy."""
        if self.dtype is _dt.bfloat16:
            if copy is False:
                raise ValueError("bfloat16 has no numpy equivalent: a copy to float32 is needed")
            if dtype is None:
                raise TypeError("Got unsupported ScalarType BFloat16: numpy has no bfloat16; "
                                "convert first, e.g. t.float()")
            arr = self.float().numpy()
        else:
            arr = self.numpy()
        if dtype is not None and np.dtype(dtype) != arr.dtype:
            if copy is False:
                raise ValueError(f"converting {self.type()} to {np.dtype(dtype)} needs a copy")
            return arr.astype(dtype)
        return arr.copy() if copy else arr

    # ---- pickle / copy ----
    def __reduce_ex__(self, protocol: int):
        return (_rebuild_tensor, (self.storage(), self.storage_offset(), tuple(self.size()),
                                  self.stride()))

    # ---- printing and introspection ----
    def __repr__(self) -> str:
        from ._printing import format_tensor
        return format_tensor(self)

    __str__ = __repr__

    def explain(self) -> str:
        """A plain-text picture of how this view reaches its storage's cells."""
        from ._explain import explain
        return explain(self)


def _rebuild_tensor(storage: Storage, offset: int, size: tuple, stride: tuple) -> Tensor:
    """A view of storage (the pickle path): every argument checked before C sees it (which then
    checks the view against the storage's bounds)."""
    op = "_rebuild_tensor"
    if not isinstance(storage, Storage) or storage.dtype is None:
        raise TypeError(f"{op}(): storage must be a pyth Storage, not {type(storage).__name__}")
    offset = _rebuild_int(op, "storage offset", offset)
    if not isinstance(size, (tuple, list)) or not isinstance(stride, (tuple, list)):
        raise TypeError(f"{op}(): size and stride must be tuples, not {type(size).__name__} "
                        f"and {type(stride).__name__}")
    if len(size) != len(stride):
        raise ValueError(f"{op}(): {len(size)} sizes but {len(stride)} strides")
    size = [_rebuild_int(op, f"size {i}", v) for i, v in enumerate(size)]
    stride = [_rebuild_int(op, f"stride {i}", v) for i, v in enumerate(stride)]
    dt = storage.dtype
    return wrap(dt, dt.tensor.newWithStorage(storage._h, offset, len(size), c_sizes(size),
                                             c_sizes(stride)))


def _rebuild_int(op: str, name: str, v: Any) -> int:
    """A non-negative int64 geometry value from a pickle: TypeError / ValueError / MemoryError."""
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{op}(): {name} must be an int, not {type(v).__name__}")
    v = int(v)
    if v < 0:
        raise ValueError(f"{op}(): {name} must be non-negative, got {v}")
    if v > _INT64_MAX:
        raise MemoryError(f"{op}(): {name} {v} does not fit in int64")
    return v


def _empty(sizes: Sequence[int], dt: _dt.dtype) -> Tensor:
    return wrap(dt, dt.tensor.newWithSize(len(sizes), c_sizes(sizes)))


globals().update(_dt.stamp_classes(Tensor, "Tensor", Tensor.to,
                                   "This tensor as pyth.{name} (self when it already is)."))
