"""The recorded forms of Tensor's methods and operators (record.py's wrappers around what the
binder bound before), which pyth/_bind.py binds in their place; the recorded functions
themselves are autograd/recorded.py's."""


from __future__ import annotations

from typing import Any, Callable

from .. import grad_mode, pointwise_nodes
from ... import dtypes as _dt
from ..._errors import raise_error
from ..._prims import pointwise, subscript
from ..._prims.creation import full
from ..._th import ffi, lib
from ...dtypes import ALL_DTYPES
from ...overrides import TYPES as _OVERRIDING, TensorMethod, handle_torch_function, operand
from ...tensor import Tensor, wrap
from ..anomaly import _anomaly
from ..record import differentiable, geometry, in_place, mark_view
from ..recorded import MATMUL, METHOD_ONLY, POINTWISE, RAW, RECORDED, REDUCTIONS, SHAPE
from ._common import TABLE
from .indexing import _is_view_index
from .pointwise import C_GRADS


def _method_of(fn: Callable) -> Callable:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        return fn(self, *args, **kwargs)
    method.__name__ = getattr(fn, "__name__", "method")
    method.__doc__ = getattr(fn, "__doc__", None)
    return method


def _tensor_methods(name: str, raw: Callable, w: Callable) -> None:
    """The recorded function w in place of raw among Tensor's methods: under its name and
    aliases, where Tensor's method is raw itself or raw as a method."""
    for attr in (name,) + _ALIASES.get(name, ()):
        v = _T.get(attr)
        if v is raw:
            _set(attr, w)
        elif v is not None and getattr(v, "__qualname__", "").startswith("as_method.") and \
                getattr(v, "__name__", None) == raw.__name__:
            _set(attr, _method_of(w))


_ALIASES = {"abs": ("absolute",), "neg": ("negative",), "trunc": ("fix",), "mul": ("multiply",),
            "sub": ("subtract",), "div": ("divide", "true_divide"), "atan2": ("arctan2",),
            "clamp": ("clip",), "dot": ("vdot",), "outer": ("ger",), "cat": ("concat",),
            "inv": ("inverse",)}

# view methods whose arguments are only ints (or sequences of them): see _view_method
_PLAIN_VIEWS = frozenset(("view", "reshape", "flatten", "expand", "transpose", "t", "permute",
                          "narrow", "select", "unfold", "squeeze", "unsqueeze"))

_INPLACE_SPECIAL = {"copy_": "copy_", "fill_": "fill_", "zero_": "zero_",
                    "index_add_": "index_add", "index_copy_": "index_copy",
                    "index_fill_": "index_fill", "scatter_": "scatter",
                    "scatter_add_": "scatter_add", "masked_fill_": "masked_fill",
                    "masked_scatter_": "masked_scatter", "put_": "put", "tril_": "tril",
                    "triu_": "triu", "clip_": "clamp", "clamp_": "clamp", "lerp_": "lerp",
                    "addcmul_": "addcmul", "addcdiv_": "addcdiv", "cumsum_": "cumsum",
                    "cumprod_": "cumprod"}

_installed = [False]
# Tensor's attributes as install() sees them (the class's, then the recorded forms it makes), and
# the recorded methods and operators it made, which pyth/_bind.py puts on Tensor
_T: dict[str, Any] = {}
METHODS: dict[str, Any] = {}
CLASS_METHODS: dict[type, dict[str, Any]] = {}   # per dtype class: t + u without a lookup


def _set(name: str, value: Any) -> None:
    _T[name] = value
    METHODS[name] = value


def install() -> None:
    """Make the recorded forms of Tensor's methods and operators (METHODS, CLASS_METHODS), from
    what pyth/_bind.py bound before and the recorded functions of autograd/recorded.py."""
    if _installed[0]:
        return
    _installed[0] = True
    _T.update(vars(Tensor))
    T = _T
    # methods with their own signatures (views, conversions)
    raw_methods = {n: T[n] for n in METHOD_ONLY if n in T}
    for n, raw in raw_methods.items():
        w = differentiable(TABLE[n], raw)
        if n in _PLAIN_VIEWS:
            w = _view_method(raw, w, n in ("reshape", "flatten"))
        elif n in ("contiguous", "clone"):
            w = _bare_method(raw, w)
        _set(n, w)
    # the recorded functions as methods
    for name, w in RECORDED.items():
        _tensor_methods(name, RAW[name], w)
    _set("where", _where_method(RECORDED["where"]))
    _set("tile", _varargs_method(SHAPE["tile"]))   # (flip is pyth/_refs/shape.py's)
    # conversions (t.float() ...) go through the recorded to()
    for cname, target in _dt.CONVERSIONS.items():
        _set(cname, (lambda d: lambda self: self.to(d))(target))
    # indexing
    TABLE["getitem"].view = True
    getitem_w = differentiable(TABLE["getitem"], subscript.getitem)
    _set("__getitem__", _getitem_method(getitem_w, subscript._ints_and_slices))
    setitem_raw = T["__setitem__"]
    _set("__setitem__", _setitem_method(in_place(TABLE["setitem"], setitem_raw), subscript))
    # in-place methods
    for attr in list(T):
        if not attr.endswith("_") or attr.startswith("_"):
            continue
        fn = T[attr]
        if attr in ("requires_grad_", "detach_", "share_memory_"):
            continue
        base = attr[:-1]
        opname = _INPLACE_SPECIAL.get(attr, base)
        op = TABLE.get(opname) if opname in TABLE and attr not in ("resize_", "resize_as_",
                                                                    "set_") else None
        if attr == "div_":
            op = TABLE["div"]
        _set(attr, in_place(op, fn))
    for py, name in (("iadd", "add_"), ("isub", "sub_"), ("imul", "mul_"), ("itruediv", "div_"),
                     ("ipow", "pow_"), ("ifloordiv", "floor_divide_"), ("imod", "remainder_")):
        _set(f"__{py}__", _T[name])
    _install_operators()


def _install_operators() -> None:
    T = _T
    F = POINTWISE
    pairs = {"add": "add", "sub": "sub", "mul": "mul", "truediv": "div", "mod": "remainder",
             "pow": "pow"}
    for py, name in pairs.items():
        w = F[name]
        fast, rfast = T[f"__{py}__"], T[f"__r{py}__"]
        op = _binop(fast, w, False)
        _set(f"__{py}__", op)
        _set(f"__r{py}__", _binop(rfast, w, True))
        for cls, entries in _class_entries(getattr(fast, "table", {})).items():
            CLASS_METHODS.setdefault(cls, {})[f"__{py}__"] = _class_binop(cls, entries, op, w)
    for py in ("neg", "abs"):
        raw = T[f"__{py}__"]
        w = F[py]
        _set(f"__{py}__", _unary_operator(raw, w))
    pointwise_nodes.DIRECT_UNARY.update(pointwise._DIRECT_UNARY)
    pointwise_nodes.C_GRADS.update({n: {dt: getattr(dt.tensor, n + "_backwardNew")
                                        for dt in (_dt.float32, _dt.float64)}
                                    for n in C_GRADS if n in pointwise_nodes.UNARY and
                                    hasattr(_dt.float32.tensor, n + "_backwardNew")})
    pointwise_nodes.DIRECT_BINARY.update({n: pointwise._DIRECT[n]
                                          for n in pointwise_nodes.BINARY})
    for name, table in pointwise._DIRECT_UNARY.items():
        if name in T:   # (round is pyth/_refs/pointwise.py's)
            _set(name, _unary_method(table, T[name], F[name]))
    reduced = REDUCTIONS
    for name in pointwise_nodes.REDUCTIONS:   # t.sum(), t.mean(): the C reduction, inlined
        table = {dt.tensor_class: _full_reduction_new(dt, name) for dt in (_dt.float32, _dt.float64)}
        _set(name, _unary_method(table, T[name], reduced[name]))
    mm = MATMUL["matmul"]
    _set("__matmul__", _matmul_operator(mm))
    _set("__rmatmul__", lambda self, other: (mm(other, self) if isinstance(other, Tensor)
                                             else NotImplemented))


def _matmul_operator(mm: Callable) -> Callable:
    """a @ b: two tensors of one class outside autograd take the C product directly (it sizes
    its result and checks the shapes); a failed call, and every other case, go through the
    recorded matmul mm, which raises the precise error."""
    kinds = frozenset(dt for dt in ALL_DTYPES if dt.name != "bool")

    def matmul(self: Tensor, other: Any) -> Any:
        if type(other) is type(self) and self._ag is None and other._ag is None:
            dt = self.dtype
            if dt in kinds:
                r = wrap(dt, dt.tensor.new())
                if dt.tensor.matmul(r._h, self._h, other._h) == 0:
                    return r
                lib.THError_clear()
        return mm(self, other) if isinstance(other, Tensor) else operand("matmul", self, other)
    matmul.__name__ = "__matmul__"
    return matmul


def _setitem_method(recorded_setitem: Callable, indexing: Any) -> Callable:
    """t[index] = value. Recorded with a basic index (ints, slices, None, ...) it is a write
    through the view t[index], as PyTorch's: t's grad_fn becomes CopySlices; other indices
    record IndexPutBackward0."""
    def setitem(self: Tensor, index: Any, value: Any) -> None:
        if grad_mode.state.enabled and (self._ag is not None or isinstance(value, Tensor) and
                                        value._ag is not None) and _is_view_index(index):
            view = self[index]
            if not isinstance(value, Tensor):
                value = full((), value, dtype=self.dtype) if isinstance(
                    value, (bool, int, float)) else indexing._as_values(self, value)
            if geometry(view) == geometry(self):    # t[:] = v, t[...] = v: t.copy_(v)
                view = self
            view.copy_(indexing.without_leading_ones(value))
            return
        recorded_setitem(self, index, value)
    return setitem


def _where_method(w: Callable) -> Callable:
    """t.where(condition, other): where(condition, t, other), through the recorded where w."""
    def where(self: Tensor, condition: Any, other: Any) -> Any:
        return w(condition, self, other)
    return where


def _varargs_method(w: Callable) -> Callable:
    """t.flip(0, 1) as well as t.flip((0, 1)), through the recorded function w."""
    def method(self: Tensor, *args: Any) -> Any:
        return w(self, args[0] if len(args) == 1 else args)
    return method


def _unary_operator(fast: Callable, w: Callable) -> Callable:
    """-t, abs(t): the direct C path, or w when t takes part in autograd."""
    def op(self: Tensor) -> Any:
        return fast(self) if self._ag is None else w(self)
    return op


def _unary_method(table: dict, w: Callable, recorded: Callable) -> Callable:
    """t.exp(), t.sum(): the direct C call inlined for a tensor outside autograd (table: tensor
    class -> C <name>New, or a call of that form, for the classes whose result has their own
    dtype), else the method w (whose recorded function is `recorded`)."""
    new, gc = object.__new__, ffi.gc
    frees = {cls: cls.dtype.tensor.free for cls in table}
    state = grad_mode.state
    lean = getattr(recorded, "lean", None)
    anomaly = _anomaly
    handled = pointwise_nodes.NOT_HANDLED

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        if not args and not kwargs:
            if self._ag is None or not state.enabled:
                cls = type(self)
                fn = table.get(cls)
                if fn is not None:
                    h = fn(self._h)
                    if not h:
                        raise_error()
                    r = new(cls)
                    r._h = gc(h, frees[cls])
                    r._ag = r._vb = None
                    return r
            elif lean is not None and not anomaly[0]:   # the recorded function's first step
                r = lean[0](lean[1], lean[2], (self,))
                if r is not handled:
                    return r
        return w(self, *args, **kwargs)
    method.__name__, method.__doc__ = getattr(w, "__name__", "op"), getattr(w, "__doc__", None)
    return method


def _full_reduction_new(dt: Any, name: str) -> Callable:
    """h -> a new handle holding C <name> of h over all its elements (a float sum or mean keeps
    its dtype), or NULL with the C error recorded: a `<name>New` for _unary_method's table."""
    c = dt.tensor
    fn, new, free, null = getattr(c, name), c.new, c.free, ffi.NULL

    def reduce_new(h: Any) -> Any:
        r = new()
        if r and fn(r, h, 0, null, False):
            free(r)
            return null
        return r
    return reduce_new


def _class_entries(table: dict) -> dict[type, dict]:
    """pointwise's direct table regrouped by the left operand's class: {cls: {other's type:
    entry}} for the pairs with a tensor of cls itself or a Python float on the right."""
    out: dict[type, dict] = {}
    for (a, b), entry in table.items():
        if b is a or b is float:
            out.setdefault(a, {})[b] = entry
    return out


def _view_method(raw: Callable, w: Callable, may_copy: bool) -> Callable:
    """t.view(...), t.permute(...), ...: on a tensor outside autograd, called with positional
    arguments (ints, which no graph can reach), the C view directly and its base remembered,
    which is all the recorded function w would do there; anything else goes through w.
    may_copy: the op copies when the strides allow no view (reshape, flatten), told apart by
    the storage."""
    mark, state = mark_view, grad_mode.state

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        if self._ag is None and not kwargs:
            r = raw(self, *args)
            if r is not self and (not may_copy or r._h.storage == self._h.storage):
                if state.enabled:   # mark_view(r, self), inlined for its common case
                    vb = getattr(self, "_vb", None)
                    r._vb = self if vb is None else vb
                else:
                    mark(r, self)
            return r
        return w(self, *args, **kwargs)
    method.__name__, method.__doc__ = raw.__name__, raw.__doc__
    method.__wrapped__ = raw
    return method


_I64 = 2**63


def _bare_method(raw: Callable, w: Callable) -> Callable:
    """t.contiguous(), t.clone(): called without arguments on a tensor outside autograd, raw
    directly (the recorded function w would only call it)."""
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        if self._ag is None and not args and not kwargs:
            return raw(self)
        return w(self, *args, **kwargs)
    method.__name__, method.__doc__ = raw.__name__, raw.__doc__
    method.__wrapped__ = raw
    return method


def _overriding_in_index(index: Any) -> list:
    """The values of an overriding type (pyth.overrides) in an index: itself, the items of a
    tuple, the bounds of slices."""
    found = []
    for item in index if type(index) is tuple else (index,):
        parts = (item.start, item.stop, item.step) if type(item) is slice else (item,)
        found += [x for x in parts if type(x) in _OVERRIDING]
    return found


def _getitem_method(getitem_w: Callable, basic: Callable) -> Callable:
    """t[index]: ints and slices on a tensor outside autograd are a view made directly (the
    recorded function's work for them is only remembering the view's base); everything else
    goes through the recorded function."""
    tuple_, int_, slice_, mark = tuple, int, slice, mark_view

    def __getitem__(self: Tensor, index: Any) -> Any:
        try:   # (costs nothing until an index is refused)
            if self._ag is None:
                tp = type(index)
                if tp is int_:   # t[i]: the C select (which checks i against the size)
                    h = self._h
                    if h.nDimension and -_I64 <= index < _I64:   # (else: cffi's OverflowError)
                        dt = self.dtype
                        s = dt.tensor.newSelect(h, 0, index)
                        if s:
                            r = wrap(dt, s)
                            mark(r, self)
                            return r
                        lib.THError_clear()   # out of range: the general path's IndexError
                elif tp is slice_ or tp is tuple_:
                    r = basic(self, index if tp is tuple_ else (index,))
                    if r is not None:
                        mark(r, self)
                        return r
            if type(index) in _OVERRIDING:   # t[proxy]: recorded as the method call
                return handle_torch_function(TensorMethod("__getitem__"), (index,), self, index)
            return getitem_w(self, index)
        except TypeError:   # an index holding a Proxy: pyth.overrides takes the call
            found = _overriding_in_index(index)
            if not found:
                raise
            return handle_torch_function(TensorMethod("__getitem__"), found, self, index)
    return __getitem__


def _class_binop(cls: type, entries: dict, op: Callable, w: Callable) -> Callable:
    """t + u for t of one tensor class (FloatTensor, ...): a u of the same class or a Python
    float, neither in autograd, is the table's C call with no lookup at all (the 10-element
    add's cost is mostly Python's); the same pairs in autograd go straight to the recorded
    function w's lean record where it has one; every other case is the general operator op."""
    new, gc = object.__new__, ffi.gc
    fn, rcls, free = entries[cls][:3] if cls in entries else (None, None, None)
    sfn, srcls, sfree = entries[float][:3] if float in entries else (None, None, None)
    lean = getattr(w, "lean", None)
    if lean is not None and (lean[0] is not pointwise_nodes.binary or
                             cls.dtype not in (_dt.float32, _dt.float64)):
        lean = None
    state = grad_mode.state
    anomaly = _anomaly
    same, number = pointwise_nodes.binary_same, pointwise_nodes.binary_number
    handled = pointwise_nodes.NOT_HANDLED

    # self is a cls or a subclass (a Parameter), whose handle is cls's C type: the result is a
    # plain rcls either way, as the general path makes it; `_vb` (a view's base) stays unset
    def method(self: Tensor, other: Any) -> Any:
        if type(other) is cls:
            if fn is not None:
                if self._ag is None and other._ag is None:
                    h = fn(self._h, other._h)
                    if h:
                        r = new(rcls)
                        r._h = gc(h, free)
                        r._ag = None
                        return r
                elif lean is not None and state.enabled and not anomaly[0]:
                    r = same(lean[1], lean[2], self, other)
                    if r is not handled:
                        return r
        elif type(other) is float and sfn is not None:
            if self._ag is None:
                h = sfn(self._h, other)
                if h:
                    r = new(srcls)
                    r._h = gc(h, sfree)
                    r._ag = None
                    return r
            elif lean is not None and state.enabled and not anomaly[0]:
                r = number(lean[1], lean[2], self, other)
                if r is not handled:
                    return r
        return op(self, other)   # and a failed call: the general path raises its error
    method.__name__, method.__doc__ = op.__name__, op.__doc__
    return method


def _refused(e: TypeError, method: str, self: Tensor, other: Any) -> Any:
    """An operator's TypeError for other: when other's type takes part in the
    __torch_function__ protocol (a Proxy), the method call handed to it (overrides.operand),
    else the error. Only a failed call gets here."""
    if type(other) in _OVERRIDING:
        return operand(method, self, other)
    raise e


def _binop(fast: Callable, w: Callable, reflected: bool) -> Callable:
    if reflected:   # (a Proxy on the left records its own operator: nothing to hand over)
        def op(self: Tensor, other: Any) -> Any:
            if self._ag is None and not (isinstance(other, Tensor) and other._ag is not None):
                return fast(self, other)
            return w(other, self)
    elif hasattr(fast, "table"):   # t + u: the direct C call inlined (one frame in all)
        table, slow, run = fast.table, fast.slow, fast.run
        new, gc = object.__new__, ffi.gc

        state = grad_mode.state
        lean = getattr(w, "lean", None)
        anomaly = _anomaly
        handled = pointwise_nodes.NOT_HANDLED
        name = w.__name__

        def op(self: Tensor, other: Any) -> Any:
            # outside autograd, or with grad mode off (as in a backward formula), nothing is
            # recorded: the table's direct C call
            entry = table.get((type(self), type(other)))
            if entry is not None:
                if not entry[3]:
                    if self._ag is None or not state.enabled:
                        return run(entry, self, other)     # a Python number
                elif self._ag is None and other._ag is None or not state.enabled:
                    h = entry[0](self._h, other._h)
                    if not h:
                        raise_error()
                    r = new(entry[1])
                    r._h = gc(h, entry[2])
                    r._ag = r._vb = None
                    return r
            elif self._ag is None and not (isinstance(other, Tensor) and other._ag is not None):
                if type(other) in _OVERRIDING:   # a Proxy: it records self.<op>(other)
                    return operand(name, self, other)
                return slow(self, other)
            if lean is not None and state.enabled and not anomaly[0]:   # w's own first step
                r = lean[0](lean[1], lean[2], (self, other))
                if r is not handled:
                    return r
            return w(self, other)
    else:
        def op(self: Tensor, other: Any) -> Any:
            try:
                if self._ag is None and not (isinstance(other, Tensor) and
                                             other._ag is not None):
                    return fast(self, other)
                return w(self, other)
            except TypeError as e:
                return _refused(e, w.__name__, self, other)
    return op

