"""pyth.overrides: the `__torch_function__` protocol, by which an object that is not a Tensor
(pyth.fx's Proxy, a user's tensor-like class) takes over a call of a public pyth function.

The protocol is PyTorch's: a class defines the classmethod
`__torch_function__(cls, func, types, args=(), kwargs=None)`; a public function called with an
instance of it returns what that method returns (NotImplemented: try the next such type).

It costs nothing on the ordinary path because a function asks only where it already meets an
argument that is not a Tensor: the recorded kernel-backed functions (pyth/autograd/record.py)
look into the arguments whose type is in `LOOK_INTO` (lists and tuples, for tensors needing
grad, and every registered type); tensor operators and indexing ask when an operand or index
is refused (`operand`, `TensorMethod`); the light functions of pyth.nn.functional ask from the
`except TypeError:` of a refused input (`overridden`), the heavier ones and the composed
shape functions with `type(input) in TYPES` (one set lookup) before their first use of it. A class takes part
once registered: `pyth.overrides.register(cls)` (pyth.fx registers its Proxy).

`NAMESPACES` maps a public module's dotted name to the module (filled by the facade), so that
code below the facade (pyth.fx printing a graph) can name `pyth.relu` as `pyth.relu`.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable, Iterable

# the types that take part (registered), and the argument types a recorded function looks into
TYPES: set[type] = set()
LOOK_INTO: set[type] = {list, tuple}
# "pyth" -> the pyth module, "pyth.nn.functional" -> ..., in the order names are looked up
NAMESPACES: dict[str, ModuleType] = {}


def register(cls: type) -> type:
    """Make cls take part in pyth's dispatch (it must define __torch_function__); returns cls,
    so it can decorate the class."""
    if getattr(cls, "__torch_function__", None) is None:
        raise TypeError(f"{cls.__name__} defines no __torch_function__")
    TYPES.add(cls)
    LOOK_INTO.add(cls)
    return cls


def _overloaded(relevant_args: Iterable[Any]) -> list[type]:
    """The registered types among relevant_args (one level into lists and tuples), subclasses
    before their bases, otherwise in order of appearance (PyTorch's order)."""
    found: list[type] = []
    for a in relevant_args:
        items = a if type(a) in (list, tuple) else (a,)
        for x in items:
            t = type(x)
            if t in TYPES and t not in found:
                at = len(found)
                for i, u in enumerate(found):
                    if issubclass(t, u):
                        at = i
                        break
                found.insert(at, t)
    return found


def has_torch_function(relevant_args: Iterable[Any]) -> bool:
    """Whether any of relevant_args (or an element of a list or tuple among them) is of a type
    that takes part in the protocol."""
    return bool(_overloaded(relevant_args))


def has_torch_function_unary(arg: Any) -> bool:
    """has_torch_function for one argument, without building a tuple."""
    return type(arg) in TYPES


def handle_torch_function(public_api: Callable, relevant_args: Iterable[Any], *args: Any,
                          **kwargs: Any) -> Any:
    """Call __torch_function__ of the overloaded types among relevant_args in turn for
    public_api(*args, **kwargs); the first result other than NotImplemented is the call's."""
    types = _overloaded(relevant_args)
    for t in types:
        r = t.__torch_function__(public_api, tuple(types), args, kwargs)
        if r is not NotImplemented:
            return r
    raise TypeError(f"no implementation found for '{qualified_name(public_api)}' on types that "
                    f"implement __torch_function__: {types}")


def qualified_name(fn: Callable) -> str:
    """The public dotted name of a function (`pyth.relu`, `pyth.nn.functional.relu`), or its
    module and qualified name when no public namespace holds it."""
    name = getattr(fn, "__name__", None)
    if name is not None:
        for prefix, ns in NAMESPACES.items():
            if getattr(ns, name, None) is fn:
                return f"{prefix}.{name}"
    module = getattr(fn, "__module__", None) or "builtins"
    if module == "_operator":
        module = "operator"
    return f"{module}.{getattr(fn, '__qualname__', name)}"


_SIGNATURES: dict[Callable, list] = {}


def dispatch(public_api: Callable, params: dict[str, Any]) -> Any:
    """handle_torch_function for a Python function that found an overriding argument, given
    its parameters by name (`locals()` as its first statement): those without a default are
    passed by position, the others by keyword when not at their default."""
    import inspect
    sig = _SIGNATURES.get(public_api)
    if sig is None:
        sig = _SIGNATURES[public_api] = list(inspect.signature(public_api).parameters.values())
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for p in sig:
        value = params[p.name]
        if p.kind is p.VAR_POSITIONAL:
            args.extend(value)
        elif p.kind is p.VAR_KEYWORD:
            kwargs.update(value)
        elif p.default is p.empty and p.kind is not p.KEYWORD_ONLY:
            args.append(value)
        elif value is not p.default and not (type(value) is type(p.default) and
                                             value == p.default):
            kwargs[p.name] = value
    return handle_torch_function(public_api, (*args, *kwargs.values()), *args, **kwargs)


def overridden(public_api: Callable, params: dict[str, Any]) -> Any:
    """Called from the `except TypeError:` of a public function whose body refused a
    non-tensor (`locals()` its parameters): dispatch when the first parameter's type takes
    part, else re-raise the refusal. A try costs the ordinary path nothing."""
    if type(next(iter(params.values()))) in TYPES:
        return dispatch(public_api, params)
    raise   # the TypeError being handled  # noqa: PLE0704


class TensorMethod:
    """A Tensor method as the protocol's `func` (PyTorch passes `Tensor.mul`): pyth binds
    some functions of its namespace as methods too, the same objects, so a method is named by
    this instead. Calling it calls the method: `TensorMethod("mul")(t, u)` is `t.mul(u)`."""

    __slots__ = ("__name__",)
    _made: dict[str, "TensorMethod"] = {}

    def __new__(cls, name: str) -> "TensorMethod":
        m = cls._made.get(name)
        if m is None:
            m = cls._made[name] = super().__new__(cls)
            m.__name__ = name
        return m

    def __call__(self, tensor: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(tensor, self.__name__)(*args, **kwargs)

    def __repr__(self) -> str:
        return f"Tensor.{self.__name__}"


def operand(method: str, self: Any, other: Any) -> Any:
    """A tensor operator (`t * p`, `t < p`, `t @ p`) whose other operand is no tensor: when
    that operand's type takes part, the call `self.<method>(other)` handed to it (PyTorch
    records `t.mul(p)`); else NotImplemented, so that Python tries the reflected operator."""
    if type(other) in TYPES:
        return handle_torch_function(TensorMethod(method), (self, other), self, other)
    return NotImplemented


from ._missing import attribute_error  # noqa: E402
__getattr__ = attribute_error(__name__)   # a torch.overrides name pyth lacks says so
