"""A pickle reader that never runs code and never changes an object it did not make.

Python's own Unpickler imports whatever the pickle names and applies BUILD, SETITEM(S), APPEND(S)
and ADDITEMS to whatever object is on its stack. Overriding find_class closes the first door,
not the second: a pickle can push an allowed global (a dtype, a rebuild function) and BUILD it,
setting attributes on an object the whole process shares. So this reader interprets the opcodes
itself, as PyTorch's weights-only loader does, with three rules:

1. A global is whatever the caller's find_class returns for (module, name); it is never imported.
2. REDUCE calls, and NEWOBJ instantiates, only what find_class returned in this load.
3. Every object that an opcode may change is checked to be one this load made, and of a type that
   opcode may change: SETITEM(S) a dict or OrderedDict, APPEND(S) a list, ADDITEMS a set, BUILD
   an OrderedDict (its instance attributes, such as a state dict's `_metadata`, by name).

Anything else is refused with UnpicklingError (pickle.UnpicklingError, as torch.load with
weights_only=True raises, and a RuntimeError, as every other damaged checkpoint in pyth).
"""

from __future__ import annotations

import codecs
import collections
import contextlib
import pickle
import pickletools
import struct
from typing import Any, Callable, Iterable, Iterator

HIGHEST_PROTOCOL = 5


class UnpicklingError(pickle.UnpicklingError, RuntimeError):
    """A pickle refused or found corrupt: catchable as pickle.UnpicklingError and RuntimeError."""


# ---- the weights-only allow-list (torch.serialization's add_safe_globals) ----------------------

_SAFE_GLOBALS: list[Any] = []


def add_safe_globals(safe_globals: list[Any]) -> None:
    """Allow these globals in a weights-only load. A reader rebuilds only the objects it knows
    (numpy arrays and scalars need numpy._core.multiarray._reconstruct or .scalar, numpy.ndarray,
    numpy.dtype and the dtype's class); other entries are kept and listed, and change nothing."""
    if not isinstance(safe_globals, list):
        raise TypeError(f"add_safe_globals(): expected a list, got {type(safe_globals).__name__}")
    for g in safe_globals:
        if not (callable(g) or (isinstance(g, tuple) and len(g) == 2 and callable(g[0]) and
                                isinstance(g[1], str))):
            raise TypeError(f"add_safe_globals(): expected a callable or (callable, str), got "
                            f"{g!r}")
    _SAFE_GLOBALS.extend(safe_globals)


def get_safe_globals() -> list[Any]:
    """The globals add_safe_globals() allowed, in order."""
    return list(_SAFE_GLOBALS)


def clear_safe_globals() -> None:
    """Forget every global add_safe_globals() allowed."""
    _SAFE_GLOBALS.clear()


@contextlib.contextmanager
def safe_globals(safe_globals: list[Any]) -> Iterator[None]:
    """Within the block, these globals are allowed as well (see add_safe_globals)."""
    n = len(_SAFE_GLOBALS)
    add_safe_globals(safe_globals)
    try:
        yield
    finally:
        del _SAFE_GLOBALS[n:]


def require_globals(needed: Iterable[Any], built: bool = False) -> None:
    """In a weights-only load, every global an object needs must be allowed: else
    UnpicklingError naming the first one missing, with PyTorch's wording for a global the
    pickle names (built=False) or a class it builds (built=True: a numpy dtype's class)."""
    allowed = {id(g[0] if isinstance(g, tuple) else g) for g in _SAFE_GLOBALS}
    for g in needed:
        if id(g) in allowed:
            continue
        name = f"{g.__module__}.{g.__qualname__}"
        why = (f"Can only build Tensor, Parameter, OrderedDict or types allowlisted via "
               f"`add_safe_globals`, but got {g!r}" if built else
               f"Unsupported global: GLOBAL {name} was not an allowed global by default. "
               f"Please use `pyth.serialization.add_safe_globals([{name}])` or the "
               f"`pyth.serialization.safe_globals([{name}])` context manager to allowlist "
               f"this global if you trust this class/function.")
        raise UnpicklingError(
            f"Weights only load failed. The checkpoint holds a numpy object, which a "
            f"weights-only load rebuilds only when its globals are allowed: load it with "
            f"weights_only=False if you trust its source, or allow the globals.\n"
            f"\tWeightsUnpickler error: {why}")


class Pending:
    """An object a pickle makes in two steps, REDUCE of an allowed global and then BUILD with
    its state (a numpy array, a numpy dtype): BUILD hands the state to the object's own
    pickle_build, which checks it; nothing else may change it."""

    __slots__ = ()

    def pickle_build(self, state: Any) -> None:
        raise TypeError(f"{type(self).__name__} takes no BUILD state")


# the opcodes that change an object on the stack, and the types each may change
_DICTS = (dict, collections.OrderedDict)
_MUTABLE_BY = {"SETITEM": _DICTS, "SETITEMS": _DICTS, "APPEND": (list,), "APPENDS": (list,),
               "ADDITEMS": (set,), "BUILD": (collections.OrderedDict,)}


class RestrictedUnpickler:
    """Reads one pickle from data: globals through find_class, persistent ids through
    persistent_load; prefix starts every error message ("PyTorch checkpoint")."""

    def __init__(self, data: bytes, find_class: Callable[[str, str], Any],
                 persistent_load: Callable[[Any], Any], prefix: str) -> None:
        self._data = bytes(data)
        self._pos = 0
        self._find_class = find_class
        self._persistent_load = persistent_load
        self._prefix = prefix
        self._stack: list = []
        self._metastack: list = []
        self._memo: dict = {}
        self._globals: dict[int, Any] = {}  # id -> object, what find_class returned
        self._made: dict[int, Any] = {}     # id -> object, kept alive so that ids stay unique

    # ---- errors ----
    def _refused(self, msg: str) -> UnpicklingError:
        return UnpicklingError(f"{self._prefix} refused: {msg}")

    def _corrupt(self, msg: str) -> UnpicklingError:
        return UnpicklingError(f"{self._prefix} is corrupt: the pickle {msg}")

    # ---- reading the opcode stream ----
    def _read(self, n: int) -> bytes:
        start, end = self._pos, self._pos + n
        if n < 0 or end > len(self._data):
            raise self._corrupt(f"is truncated: {n} bytes needed at offset {start}, "
                                f"{len(self._data) - start} left")
        self._pos = end
        return self._data[start:end]

    def _line(self) -> bytes:
        end = self._data.find(b"\n", self._pos)
        if end < 0:
            raise self._corrupt(f"is truncated: a line at offset {self._pos} has no end")
        line, self._pos = self._data[self._pos:end], end + 1
        return line

    def _unpack(self, fmt: str) -> Any:
        s = struct.Struct(fmt)
        return s.unpack(self._read(s.size))[0]

    def _text(self, raw: bytes, encoding: str, what: str) -> str:
        try:
            return raw.decode(encoding, "surrogatepass" if encoding == "utf-8" else "strict")
        except UnicodeDecodeError as e:
            raise self._corrupt(f"holds a {what} that is not {encoding}: {e}") from None

    # ---- the stack ----
    def _pop(self) -> Any:
        if not self._stack:
            raise self._corrupt(f"pops an empty stack at offset {self._pos - 1}")
        return self._stack.pop()

    def _top(self) -> Any:
        if not self._stack:
            raise self._corrupt(f"reads an empty stack at offset {self._pos - 1}")
        return self._stack[-1]

    def _pop_mark(self) -> list:
        if not self._metastack:
            raise self._corrupt(f"has no mark for the opcode at offset {self._pos - 1}")
        items = self._stack
        self._stack = self._metastack.pop()
        return items

    def _made_here(self, obj: Any) -> Any:
        self._made[id(obj)] = obj
        return obj

    def _push_new(self, obj: Any) -> None:
        self._stack.append(self._made_here(obj))

    def _target(self, op: str, obj: Any) -> Any:
        """obj, when op may change it: made in this load, of a type op may change."""
        kinds = _MUTABLE_BY[op]
        if type(obj) in kinds and self._made.get(id(obj)) is obj:
            return obj
        allowed = " or ".join(k.__name__ for k in kinds)
        origin = (f"the allowed global {_short(obj)} (a {_type_name(obj)})"
                  if self._globals.get(id(obj)) is obj else f"a {_type_name(obj)}")
        raise self._refused(f"{op} on {origin}; the pickle may only change "
                            f"{'an' if allowed[0] in 'AEIOU' else 'a'} {allowed} it "
                            f"constructed itself")

    # ---- the main loop ----
    def load(self) -> Any:
        """The object the pickle describes."""
        dispatch = _DISPATCH
        data = self._data
        while True:
            if self._pos >= len(data):
                raise self._corrupt("ends without a STOP opcode")
            code = data[self._pos]
            self._pos += 1
            handler = dispatch.get(code)
            if handler is None:
                if code not in _KNOWN:
                    raise self._corrupt(f"holds the byte {code:#04x} at offset {self._pos - 1}, "
                                        f"which is no opcode")
                raise self._refused(f"the pickle uses opcode {_KNOWN[code]} ({code:#04x}) at "
                                    f"offset {self._pos - 1}, which pyth does not read")
            if handler is _stop:
                return self._pop()
            handler(self)


def _type_name(obj: Any) -> str:
    t = type(obj)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _short(obj: Any) -> str:
    if isinstance(obj, type) or callable(obj) and hasattr(obj, "__qualname__"):
        return f"{obj.__module__}.{obj.__qualname__}"
    r = repr(obj)
    return r if len(r) <= 60 else r[:57] + "..."


# ---- opcode handlers ---------------------------------------------------------------------------

def _stop(u: RestrictedUnpickler) -> None:  # the loop returns before calling it
    raise AssertionError


def _proto(u: RestrictedUnpickler) -> None:
    v = u._read(1)[0]
    if v > HIGHEST_PROTOCOL:
        raise u._corrupt(f"has protocol {v}; the highest known is {HIGHEST_PROTOCOL}")


def _frame(u: RestrictedUnpickler) -> None:
    n = u._unpack("<Q")
    if n > len(u._data) - u._pos:
        raise u._corrupt(f"announces a frame of {n} bytes at offset {u._pos - 9}, "
                         f"{len(u._data) - u._pos} left")


def _push(value: Any) -> Callable[[RestrictedUnpickler], None]:
    def handler(u: RestrictedUnpickler) -> None:
        u._stack.append(value)
    return handler


def _int_line(u: RestrictedUnpickler) -> None:
    line = u._line()
    if line == b"00":
        u._stack.append(False)
    elif line == b"01":
        u._stack.append(True)
    else:
        u._stack.append(_parse_int(u, line))


def _long_line(u: RestrictedUnpickler) -> None:
    line = u._line()
    u._stack.append(_parse_int(u, line[:-1] if line.endswith(b"L") else line))


def _parse_int(u: RestrictedUnpickler, text: bytes) -> int:
    try:
        return int(text, 0)
    except ValueError as e:
        raise u._corrupt(f"holds a bad integer: {str(e)[:80]}") from None


def _fixed_int(fmt: str) -> Callable[[RestrictedUnpickler], None]:
    def handler(u: RestrictedUnpickler) -> None:
        u._stack.append(u._unpack(fmt))
    return handler


def _long_bytes(fmt: str) -> Callable[[RestrictedUnpickler], None]:
    def handler(u: RestrictedUnpickler) -> None:
        n = u._unpack(fmt)
        u._stack.append(int.from_bytes(u._read(n), "little", signed=True))
    return handler


def _float_line(u: RestrictedUnpickler) -> None:
    try:
        u._stack.append(float(u._line()))
    except ValueError as e:
        raise u._corrupt(f"holds a bad float: {str(e)[:80]}") from None


def _binfloat(u: RestrictedUnpickler) -> None:
    u._stack.append(u._unpack(">d"))


def _sized(fmt: str, kind: str) -> Callable[[RestrictedUnpickler], None]:
    """BINUNICODE*, BINBYTES*, BINSTRING*, BYTEARRAY8: a length, then that many bytes."""
    def handler(u: RestrictedUnpickler) -> None:
        raw = u._read(u._unpack(fmt))
        if kind == "str":
            u._stack.append(u._text(raw, "utf-8", "string"))
        elif kind == "ascii":  # Python 2's str: read as Python reads it by default
            u._stack.append(u._text(raw, "ascii", "Python 2 string"))
        elif kind == "bytearray":
            u._push_new(bytearray(raw))
        else:
            u._stack.append(raw)
    return handler


def _string_line(u: RestrictedUnpickler) -> None:
    line = u._line()
    if len(line) < 2 or line[0] != line[-1] or line[0] not in b"'\"":
        raise u._corrupt("holds a STRING that is not quoted")
    try:
        raw = codecs.escape_decode(line[1:-1])[0]
    except ValueError as e:
        raise u._corrupt(f"holds a bad STRING: {e}") from None
    u._stack.append(u._text(raw, "ascii", "Python 2 string"))


def _unicode_line(u: RestrictedUnpickler) -> None:
    u._stack.append(u._text(u._line(), "raw-unicode-escape", "UNICODE string"))


def _mark(u: RestrictedUnpickler) -> None:
    u._metastack.append(u._stack)
    u._stack = []


def _pop_op(u: RestrictedUnpickler) -> None:
    if u._stack:
        u._stack.pop()
    else:
        u._pop_mark()


def _pop_mark_op(u: RestrictedUnpickler) -> None:
    u._pop_mark()


def _dup(u: RestrictedUnpickler) -> None:
    u._stack.append(u._top())


def _tuple_n(n: int) -> Callable[[RestrictedUnpickler], None]:
    def handler(u: RestrictedUnpickler) -> None:
        if len(u._stack) < n:
            raise u._corrupt(f"builds a {n}-tuple from {len(u._stack)} items at offset "
                             f"{u._pos - 1}")
        items = tuple(u._stack[len(u._stack) - n:]) if n else ()
        del u._stack[len(u._stack) - n:]
        u._stack.append(items)
    return handler


def _tuple_mark(u: RestrictedUnpickler) -> None:
    items = tuple(u._pop_mark())  # before reading u._stack: popping the mark replaces it
    u._stack.append(items)


def _list_mark(u: RestrictedUnpickler) -> None:
    u._push_new(u._pop_mark())


def _dict_mark(u: RestrictedUnpickler) -> None:
    items = u._pop_mark()
    if len(items) % 2:
        raise u._corrupt("builds a dict from an odd number of items")
    d = u._made_here({})
    _set_items(u, d, items)
    u._stack.append(d)


def _frozenset_mark(u: RestrictedUnpickler) -> None:
    items = u._pop_mark()
    try:
        u._stack.append(frozenset(items))
    except TypeError as e:
        raise u._corrupt(f"builds a frozenset of unhashable items: {e}") from None


def _set_items(u: RestrictedUnpickler, d: dict, items: list) -> None:
    try:
        for i in range(0, len(items), 2):
            d[items[i]] = items[i + 1]
    except TypeError as e:
        raise u._corrupt(f"sets a dict item with an unhashable key: {e}") from None


def _setitem(u: RestrictedUnpickler) -> None:
    value, key = u._pop(), u._pop()
    _set_items(u, u._target("SETITEM", u._top()), [key, value])


def _setitems(u: RestrictedUnpickler) -> None:
    items = u._pop_mark()
    if len(items) % 2:
        raise u._corrupt("sets dict items from an odd number of items")
    _set_items(u, u._target("SETITEMS", u._top()), items)


def _append(u: RestrictedUnpickler) -> None:
    value = u._pop()
    u._target("APPEND", u._top()).append(value)


def _appends(u: RestrictedUnpickler) -> None:
    items = u._pop_mark()
    u._target("APPENDS", u._top()).extend(items)


def _additems(u: RestrictedUnpickler) -> None:
    items = u._pop_mark()
    target = u._target("ADDITEMS", u._top())
    try:
        target.update(items)
    except TypeError as e:
        raise u._corrupt(f"adds unhashable items to a set: {e}") from None


def _build(u: RestrictedUnpickler) -> None:
    state = u._pop()
    top = u._top()
    if isinstance(top, Pending) and u._made.get(id(top)) is top:
        top.pickle_build(state)
        return
    inst = u._target("BUILD", top)
    if type(state) not in _DICTS:
        raise u._refused(f"BUILD with a state of type {_type_name(state)}; an OrderedDict "
                         f"takes a dict of attributes")
    for name in state:
        if type(name) is not str or not name.isidentifier() or hasattr(type(inst), name):
            raise u._refused(f"BUILD sets the attribute {str(name)[:60]!r} on an "
                             f"{_type_name(inst)}; only new attribute names are allowed")
    inst.__dict__.update(state)


def _memo_put(u: RestrictedUnpickler, key: int) -> None:
    if key < 0:
        raise u._corrupt(f"stores a negative memo key {key}")
    u._memo[key] = u._top()


def _memo_get(u: RestrictedUnpickler, key: int) -> None:
    try:
        u._stack.append(u._memo[key])
    except KeyError:
        raise u._corrupt(f"reads memo key {key}, which was never stored") from None


def _put_line(u: RestrictedUnpickler) -> None:
    _memo_put(u, _parse_int(u, u._line()))


def _get_line(u: RestrictedUnpickler) -> None:
    _memo_get(u, _parse_int(u, u._line()))


def _memo_op(fmt: str, put: bool) -> Callable[[RestrictedUnpickler], None]:
    def handler(u: RestrictedUnpickler) -> None:
        key = u._unpack(fmt)
        if put:
            _memo_put(u, key)
        else:
            _memo_get(u, key)
    return handler


def _memoize(u: RestrictedUnpickler) -> None:
    _memo_put(u, len(u._memo))


def _resolve(u: RestrictedUnpickler, module: Any, name: Any) -> None:
    if type(module) is not str or type(name) is not str:
        raise u._corrupt("names a global by something other than two strings")
    obj = u._find_class(module, name)
    u._globals[id(obj)] = obj
    u._stack.append(obj)


def _global(u: RestrictedUnpickler) -> None:
    module = u._text(u._line(), "utf-8", "module name")
    _resolve(u, module, u._text(u._line(), "utf-8", "global name"))


def _stack_global(u: RestrictedUnpickler) -> None:
    name = u._pop()
    _resolve(u, u._pop(), name)


def _allowed_global(u: RestrictedUnpickler, op: str, obj: Any) -> Any:
    if u._globals.get(id(obj)) is not obj or not callable(obj):
        raise u._refused(f"{op} calls an object of type {_type_name(obj)}; only the allowed "
                         f"rebuild functions and containers may be called")
    return obj


def _call(u: RestrictedUnpickler, op: str, fn: Callable, args: Any, kwargs: Any) -> None:
    if type(args) is not tuple or type(kwargs) is not dict:
        raise u._corrupt(f"gives {op} arguments of types {_type_name(args)} and "
                         f"{_type_name(kwargs)}")
    u._push_new(fn(*args, **kwargs))


def _reduce(u: RestrictedUnpickler) -> None:
    args = u._pop()
    _call(u, "REDUCE", _allowed_global(u, "REDUCE", u._pop()), args, {})


def _newobj(u: RestrictedUnpickler) -> None:
    args = u._pop()
    cls = _allowed_global(u, "NEWOBJ", u._pop())
    if not isinstance(cls, type):
        raise u._refused(f"NEWOBJ of {_short(cls)} (a {_type_name(cls)}), which is not a "
                         f"class")
    _call(u, "NEWOBJ", cls.__new__, (cls,) + args if type(args) is tuple else args, {})


def _newobj_ex(u: RestrictedUnpickler) -> None:
    kwargs, args = u._pop(), u._pop()
    cls = _allowed_global(u, "NEWOBJ_EX", u._pop())
    if not isinstance(cls, type):
        raise u._refused(f"NEWOBJ_EX of {_short(cls)} (a {_type_name(cls)}), which is not a "
                         f"class")
    _call(u, "NEWOBJ_EX", cls.__new__, (cls,) + args if type(args) is tuple else args, kwargs)


def _binpersid(u: RestrictedUnpickler) -> None:
    u._stack.append(u._persistent_load(u._pop()))


def _persid(u: RestrictedUnpickler) -> None:
    u._stack.append(u._persistent_load(u._text(u._line(), "ascii", "persistent id")))


_KNOWN = {op.code.encode("latin1")[0]: op.name for op in pickletools.opcodes}
_P = pickle
_HANDLERS: dict[bytes, Callable[[RestrictedUnpickler], None]] = {
    _P.PROTO: _proto, _P.FRAME: _frame, _P.STOP: _stop,
    _P.NONE: _push(None), _P.NEWTRUE: _push(True), _P.NEWFALSE: _push(False),
    _P.INT: _int_line, _P.LONG: _long_line, _P.BININT: _fixed_int("<i"),
    _P.BININT1: _fixed_int("<B"), _P.BININT2: _fixed_int("<H"),
    _P.LONG1: _long_bytes("<B"), _P.LONG4: _long_bytes("<i"),
    _P.FLOAT: _float_line, _P.BINFLOAT: _binfloat,
    _P.STRING: _string_line, _P.BINSTRING: _sized("<i", "ascii"),
    _P.SHORT_BINSTRING: _sized("<B", "ascii"), _P.UNICODE: _unicode_line,
    _P.BINUNICODE: _sized("<I", "str"), _P.SHORT_BINUNICODE: _sized("<B", "str"),
    _P.BINUNICODE8: _sized("<Q", "str"), _P.BINBYTES: _sized("<I", "bytes"),
    _P.SHORT_BINBYTES: _sized("<B", "bytes"), _P.BINBYTES8: _sized("<Q", "bytes"),
    _P.BYTEARRAY8: _sized("<Q", "bytearray"),
    _P.MARK: _mark, _P.POP: _pop_op, _P.POP_MARK: _pop_mark_op, _P.DUP: _dup,
    _P.EMPTY_TUPLE: _tuple_n(0), _P.TUPLE1: _tuple_n(1), _P.TUPLE2: _tuple_n(2),
    _P.TUPLE3: _tuple_n(3), _P.TUPLE: _tuple_mark,
    _P.EMPTY_LIST: lambda u: u._push_new([]), _P.LIST: _list_mark,
    _P.EMPTY_DICT: lambda u: u._push_new({}), _P.DICT: _dict_mark,
    _P.EMPTY_SET: lambda u: u._push_new(set()), _P.FROZENSET: _frozenset_mark,
    _P.APPEND: _append, _P.APPENDS: _appends, _P.SETITEM: _setitem, _P.SETITEMS: _setitems,
    _P.ADDITEMS: _additems, _P.BUILD: _build,
    _P.PUT: _put_line, _P.BINPUT: _memo_op("<B", True), _P.LONG_BINPUT: _memo_op("<I", True),
    _P.GET: _get_line, _P.BINGET: _memo_op("<B", False), _P.LONG_BINGET: _memo_op("<I", False),
    _P.MEMOIZE: _memoize,
    _P.GLOBAL: _global, _P.STACK_GLOBAL: _stack_global,
    _P.REDUCE: _reduce, _P.NEWOBJ: _newobj, _P.NEWOBJ_EX: _newobj_ex,
    _P.BINPERSID: _binpersid, _P.PERSID: _persid,
}
# INST, OBJ (protocol 0/1 instantiation), EXT1/2/4 (the copyreg extension registry) and the
# out-of-band buffers of protocol 5 are not read: the loop refuses their opcodes by name.
_DISPATCH: dict[int, Callable[[RestrictedUnpickler], None]] = {
    k[0]: v for k, v in _HANDLERS.items()}
del _P
