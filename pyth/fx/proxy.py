"""Proxy: the value a traced program computes with instead of a tensor (torch.fx.Proxy).

Every operation on a proxy becomes a node of the tracer's graph and gives a new proxy:
operators (`x + y` is call_function operator.add), attribute access (`x.shape` is a getattr
node; `x.relu()` a call_method), indexing (operator.getitem), and the public pyth functions,
which hand a proxy argument to `Proxy.__torch_function__` (pyth.overrides). What a proxy
cannot answer is the value itself: `bool()` (an `if` on a traced value), `len()` and
iteration raise, with torch.fx's messages.
"""

from __future__ import annotations

import dis
import inspect
import operator
from typing import Any, Callable, Iterator

from .. import overrides
from .graph import Graph
from .node import Argument, Node, map_aggregate


class TraceError(ValueError):
    """Raised when a traced program needs a value tracing cannot know (control flow on a
    proxy, iterating one)."""


class TracerBase:
    """What Proxy needs of a tracer: a graph to record into and the conversion of arguments."""

    graph: Graph

    def create_node(self, kind: str, target: Any, args: tuple, kwargs: dict,
                    name: str | None = None, type_expr: Any = None) -> Node:
        """A node in the graph (the hook a tracer may override to annotate nodes)."""
        return self.graph.create_node(kind, target, args, kwargs, name, type_expr)

    def proxy(self, node: Node) -> "Proxy":
        """The proxy standing for node's value."""
        return Proxy(node, self)

    def create_proxy(self, kind: str, target: Any, args: tuple, kwargs: dict,
                     name: str | None = None, type_expr: Any = None,
                     proxy_factory_fn: Callable[[Node], "Proxy"] | None = None) -> "Proxy":
        """Record an operation on arguments that may hold proxies; returns its proxy."""
        args_ = self.create_arg(args)
        kwargs_ = self.create_arg(kwargs)
        node = self.create_node(kind, target, args_, kwargs_, name, type_expr)
        return self.proxy(node) if proxy_factory_fn is None else proxy_factory_fn(node)

    def create_arg(self, a: Any) -> Argument:
        """An argument as the graph holds it: proxies as their nodes, containers rebuilt."""
        if isinstance(a, Proxy):
            return a.node
        if isinstance(a, (tuple, list, dict, slice)):
            return map_aggregate(a, self.create_arg) if not isinstance(a, slice) else \
                slice(self.create_arg(a.start), self.create_arg(a.stop),
                      self.create_arg(a.step))
        return a

    def to_bool(self, obj: "Proxy") -> bool:
        """A proxy used as a condition: tracing cannot know its value."""
        raise TraceError("symbolically traced variables cannot be used as inputs to control "
                         "flow")

    def iter(self, obj: "Proxy") -> Iterator:
        """A proxy iterated: tracing cannot know how many elements it has."""
        raise TraceError("Proxy object cannot be iterated. This can be attempted when the Proxy "
                         "is used in a loop or as a *args or **kwargs function argument. See the "
                         "torch.fx docs on pytorch.org for a more detailed explanation of what "
                         "types of control flow can be traced, and check out the Proxy docstring "
                         "for help troubleshooting Proxy iteration errors")

    def keys(self, obj: "Proxy") -> Any:
        """A proxy used as **kwargs: its keys() is recorded as a method call."""
        return Attribute(obj, "keys")()


class GraphAppendingTracer(TracerBase):
    """A tracer that only appends to an existing graph (Transformer's, and proxies made by
    hand over a graph's nodes)."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.root = None


def _tracer_of(objs: Any) -> TracerBase | None:
    found: list[TracerBase] = []

    def look(x: Any) -> Any:
        if isinstance(x, Proxy):
            found.append(x.tracer)
        return x
    map_aggregate(objs, look)
    return found[0] if found else None


class Proxy:
    """A value of a traced program: each operation on it records a node."""

    def __init__(self, node: Node, tracer: TracerBase | None = None) -> None:
        if tracer is None:
            tracer = GraphAppendingTracer(node.graph)
        self.tracer = tracer
        self.node = node

    def __repr__(self) -> str:
        return f"Proxy({self.node.name})"

    def __hash__(self) -> int:
        return id(self)

    def __getattr__(self, k: str) -> "Attribute":
        if k.startswith("__") and k.endswith("__"):   # protocols (copy, pickle, numpy) stay out
            raise AttributeError(k)
        return Attribute(self, k)

    def __call__(self, *args: Any, **kwargs: Any) -> "Proxy":
        return self.tracer.create_proxy("call_method", "__call__", (self,) + args, kwargs)

    def __getitem__(self, key: Any) -> "Proxy":
        return self.tracer.create_proxy("call_function", operator.getitem, (self, key), {})

    def __setitem__(self, key: Any, value: Any) -> None:
        self.tracer.create_proxy("call_function", operator.setitem, (self, key, value), {})

    def __bool__(self) -> bool:
        return self.tracer.to_bool(self)

    def __len__(self) -> int:
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you want "
                           "this call to be recorded, please call pyth.fx.wrap('len') at module "
                           "scope")

    def __iter__(self) -> Iterator["Proxy"]:
        # `a, b = proxy` unpacks a known number of values: the caller's instruction says
        frame = inspect.currentframe()
        caller = frame.f_back if frame is not None else None
        if caller is not None:
            for inst in dis.get_instructions(caller.f_code):
                if inst.offset == caller.f_lasti and inst.opname == "UNPACK_SEQUENCE":
                    return (self[i] for i in range(inst.argval))
        return self.tracer.iter(self)

    def keys(self) -> Any:
        """`**proxy`: the keys as a recorded method call."""
        return self.tracer.keys(self)

    @classmethod
    def __torch_function__(cls, func: Callable, types: tuple, args: tuple = (),
                           kwargs: dict | None = None) -> "Proxy":
        """A public pyth function called with proxies: one call_function node."""
        kwargs = kwargs or {}
        tracer = _tracer_of((args, kwargs))
        if isinstance(func, overrides.TensorMethod):   # t * proxy, t[proxy], ...
            return tracer.create_proxy("call_method", func.__name__, args, kwargs)
        return tracer.create_proxy("call_function", func, args, kwargs)


class Attribute(Proxy):
    """`proxy.name`: a getattr node, made only when the value is used; calling it records the
    method call instead (`x.relu()` is one call_method node)."""

    def __init__(self, root: Proxy, attr: str) -> None:
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node: Node | None = None

    @property
    def node(self) -> Node:  # type: ignore[override]
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", getattr,
                                                  (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args: Any, **kwargs: Any) -> Proxy:
        return self.tracer.create_proxy("call_method", self.attr, (self.root,) + args, kwargs)


def _magic(op: Callable, reflected: bool = False) -> Callable:
    def method(self: Proxy, *rest: Any) -> Proxy:
        args = (rest[0], self) if reflected else (self,) + rest
        return self.tracer.create_proxy("call_function", op, args, {})
    return method


for _name, _op in (("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
                   ("truediv", operator.truediv), ("floordiv", operator.floordiv),
                   ("mod", operator.mod), ("pow", operator.pow), ("matmul", operator.matmul),
                   ("lshift", operator.lshift), ("rshift", operator.rshift),
                   ("and", operator.and_), ("or", operator.or_), ("xor", operator.xor)):
    setattr(Proxy, f"__{_name}__", _magic(_op))
    setattr(Proxy, f"__r{_name}__", _magic(_op, reflected=True))
for _name, _op in (("eq", operator.eq), ("ne", operator.ne), ("lt", operator.lt),
                   ("le", operator.le), ("gt", operator.gt), ("ge", operator.ge),
                   ("neg", operator.neg), ("pos", operator.pos), ("invert", operator.invert),
                   ("abs", operator.abs)):
    setattr(Proxy, f"__{_name}__", _magic(_op))
del _name, _op

overrides.register(Proxy)
overrides.register(Attribute)
