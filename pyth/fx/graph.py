"""Graph: the program of a traced function, an ordered list of Nodes (torch.fx.Graph's surface).

Nodes are made through the graph (`create_node` and the op-named helpers), named uniquely
from their targets (`relu`, `relu_1`, `sum_1`: a builtin's name gets a suffix, as torch.fx
does), and inserted at the graph's insert point (the end, or where `inserting_before` /
`inserting_after` put it). `python_code` turns the graph back into the source of a `forward`
that a GraphModule compiles; each value is dropped (`x = None`) after its last use, so a
forward holds no more intermediate tensors than the eager code would.
"""

from __future__ import annotations

import builtins
import inspect
import keyword
import math
import operator
import re
from contextlib import contextmanager
from typing import Any, Callable, Iterator, NamedTuple

from .. import dtypes as _dt
from ..overrides import NAMESPACES, qualified_name
from .node import Argument, Node, map_arg

# operator functions written as Python operators in generated code
_BINARY = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
           operator.floordiv: "//", operator.mod: "%", operator.pow: "**",
           operator.matmul: "@", operator.lshift: "<<", operator.rshift: ">>",
           operator.and_: "&", operator.or_: "|", operator.xor: "^", operator.eq: "==",
           operator.ne: "!=", operator.lt: "<", operator.le: "<=", operator.gt: ">",
           operator.ge: ">="}
_UNARY = {operator.neg: "-", operator.pos: "+", operator.invert: "~"}
_ILLEGAL = frozenset(keyword.kwlist) | frozenset(dir(builtins)) | {"self", "pyth", "operator"}
_SUFFIX = re.compile(r"(.*)_(\d+)$")


class _Namespace:
    """The names used in one graph: a candidate gets the first free `base_k` suffix."""

    def __init__(self) -> None:
        self._used: set[str] = set()
        self._count: dict[str, int] = {}

    def create_name(self, candidate: str) -> str:
        candidate = re.sub(r"[^0-9a-zA-Z_]+", "_", _snake_case(candidate)) or "_"
        if candidate[0].isdigit():
            candidate = f"_{candidate}"
        m = _SUFFIX.match(candidate)
        base, num = (candidate, None) if m is None else (m.group(1), int(m.group(2)))
        if num is None:
            num = self._count.get(base, 0)
        while candidate in self._used or candidate in _ILLEGAL:
            num += 1
            candidate = f"{base}_{num}"
        self._used.add(candidate)
        self._count[base] = num
        return candidate

    def forget(self, name: str) -> None:
        self._used.discard(name)


def _snake_case(s: str) -> str:
    """CamelCase -> camel_case (a module's class name as a node name)."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", s).lower() if not s.islower() else s


class _NodeList:
    """graph.nodes: the nodes in order, a live view (len, iteration, reversed)."""

    def __init__(self, graph: "Graph", reverse: bool = False) -> None:
        self._graph, self._reverse = graph, reverse

    def __len__(self) -> int:
        return self._graph._len

    def __iter__(self) -> Iterator[Node]:
        root = self._graph._root
        n = root._prev if self._reverse else root._next
        while n is not root:
            nxt = n._prev if self._reverse else n._next
            if not n._erased:
                yield n
            n = nxt

    def __reversed__(self) -> "_NodeList":
        return _NodeList(self._graph, not self._reverse)

    def __repr__(self) -> str:
        return repr(list(self))


class PythonCode(NamedTuple):
    """The generated source of forward and the globals it runs with."""

    src: str
    globals: dict[str, Any]


class Graph:
    """An ordered list of Nodes: the program a GraphModule runs."""

    def __init__(self, owning_module: Any = None, tracer_cls: type | None = None,
                 tracer_extras: dict | None = None) -> None:
        self._root = Node(self, "", "root", "", (), {})
        self._len = 0
        self._namespace = _Namespace()
        self._insert: Callable[[Node], None] = self._root.prepend
        self._owners = 0
        self._owning_module = owning_module
        self._tracer_cls = tracer_cls
        self._tracer_extras = tracer_extras

    @property
    def owning_module(self) -> Any:
        """The GraphModule this graph belongs to (None when it has none, or several)."""
        return self._owning_module

    @owning_module.setter
    def owning_module(self, mod: Any) -> None:
        self._owning_module = mod

    @property
    def nodes(self) -> _NodeList:
        """The nodes in program order (a live view)."""
        return _NodeList(self)

    def find_nodes(self, *, op: str, target: Any = None, sort: bool = True) -> list[Node]:
        """The nodes with opcode op (and target, when given), in program order."""
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    # ---- making nodes ----
    def create_node(self, op: str, target: Any, args: tuple | None = None,
                    kwargs: dict | None = None, name: str | None = None,
                    type_expr: Any = None) -> Node:
        """A new node at the insert point, named from name (or its target) uniquely."""
        args = () if args is None else tuple(args)
        kwargs = {} if kwargs is None else dict(kwargs)
        candidate = name if name is not None else self._target_to_str(target)
        n = Node(self, self._namespace.create_name(candidate), op, target, args, kwargs,
                 type_expr)
        self._insert(n)
        self._len += 1
        return n

    @staticmethod
    def _target_to_str(target: Any) -> str:
        if isinstance(target, str):
            return target.replace(".", "_")
        return getattr(target, "__name__", None) or type(target).__name__

    def placeholder(self, name: str, type_expr: Any = None,
                    default_value: Any = inspect.Signature.empty) -> Node:
        """An input of the program (default_value: its default)."""
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args=args, type_expr=type_expr)

    def get_attr(self, qualified_name: str, type_expr: Any = None) -> Node:
        """A parameter, buffer or other attribute of the owning module, by dotted path."""
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name: str, args: tuple | None = None,
                    kwargs: dict | None = None, type_expr: Any = None) -> Node:
        """A call of the submodule at a dotted path."""
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name: str, args: tuple | None = None,
                    kwargs: dict | None = None, type_expr: Any = None) -> Node:
        """A method call on args[0]."""
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function: Callable, args: tuple | None = None,
                      kwargs: dict | None = None, type_expr: Any = None) -> Node:
        """A call of a free function (pyth.relu, operator.add, ...)."""
        return self.create_node("call_function", the_function, args, kwargs,
                                type_expr=type_expr)

    def output(self, result: Argument, type_expr: Any = None) -> Node:
        """The program's result."""
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    def node_copy(self, node: Node, arg_transform: Callable[[Node], Argument] = lambda x: x
                  ) -> Node:
        """A copy of node (from any graph) here, its node arguments mapped by arg_transform."""
        n = self.create_node(node.op, node.target, map_arg(node.args, arg_transform),
                             map_arg(node.kwargs, arg_transform), node.name, node.type)
        n.meta = dict(node.meta)
        return n

    def graph_copy(self, g: "Graph", val_map: dict[Node, Node],
                   return_output_node: bool = False) -> Any:
        """Copy g's nodes here except its output, filling val_map (old node -> new); returns
        the copied output value."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                out = map_arg(node.args[0], lambda n: val_map[n])
                return (out, node) if return_output_node else out
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def inserting_before(self, n: Node | None = None) -> Any:
        """New nodes go just before n (n None: at the start) while the context lasts."""
        return self._inserting(n.prepend if n is not None else self._root.append)

    def inserting_after(self, n: Node | None = None) -> Any:
        """New nodes go just after n (n None: at the end) while the context lasts; each goes
        right after n, so several appear in the reverse order of their making (as torch.fx)."""
        return self._inserting(n.append if n is not None else self._root.prepend)

    @contextmanager
    def _inserting(self, insert: Callable[[Node], None]) -> Iterator[None]:
        previous, self._insert = self._insert, insert
        try:
            yield
        finally:
            self._insert = previous

    # ---- removing nodes ----
    def erase_node(self, to_erase: Node) -> None:
        """Remove a node that nothing uses any more."""
        if to_erase.users:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had "
                               f"{len(to_erase.users)} users in the graph: {to_erase.users}!")
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            return
        to_erase._remove_from_list()
        to_erase._erased = True
        self._len -= 1
        self._namespace.forget(to_erase.name)
        to_erase._update_args_kwargs((), {})

    def eliminate_dead_code(self, is_impure_node: Callable[[Node], bool] | None = None
                            ) -> bool:
        """Erase the nodes whose results nothing uses and that change no state (in reverse
        order, so chains go at once); returns whether anything was erased."""
        impure = is_impure_node or (lambda n: n.is_impure())
        changed = False
        for node in reversed(self.nodes):
            if not node.users and not impure(node):
                self.erase_node(node)
                changed = True
        return changed

    # ---- checking ----
    def lint(self) -> None:
        """Check the graph is well formed: nodes belong to it, arguments are defined before
        use, names are unique, users match arguments, targets exist in the owning module."""
        seen: set[Node] = set()
        names: set[str] = set()
        for node in self.nodes:
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
            for arg in node.all_input_nodes:
                if arg.graph is not self:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' does not belong to "
                                       f"this Graph, but was used as an argument! If you are "
                                       f"copying nodes from another graph, make sure to use "
                                       f"``arg_transform`` on node_copy() to remap values\n"
                                       f"{self}")
                if arg not in seen:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' was used before it "
                                       f"has been defined! Please check that Nodes in the graph "
                                       f"are topologically ordered\n{self}")
                if node not in arg.users:
                    raise RuntimeError(f"Node '{node}' uses '{arg}' but is not among its users")
            if node.name in names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            names.add(node.name)
            seen.add(node)
        mod = self.owning_module
        if mod is None:
            return
        for node in self.nodes:
            if node.op in ("get_attr", "call_module"):
                m_itr = mod
                for i, atom in enumerate(node.target.split(".")):
                    if not hasattr(m_itr, atom):
                        seen_qualname = ".".join(node.target.split(".")[:i])
                        raise RuntimeError(f"Node {node} target {node.target} references "
                                           f"nonexistent attribute {atom} of {seen_qualname}")
                    m_itr = getattr(m_itr, atom)

    # ---- printing ----
    def __str__(self) -> str:
        lines = [n.format_node() for n in self.nodes]
        return "graph():\n" + "\n".join(f"    {line}" for line in lines if line)

    def print_tabular(self) -> None:
        """Print the nodes as a table (opcode, name, target, args, kwargs): through tabulate
        when it is installed, as torch.fx does, else as plain aligned columns."""
        rows = [[n.op, n.name, n.target if isinstance(n.target, str) else
                 qualified_name(n.target), str(n.args), str(n.kwargs)] for n in self.nodes]
        headers = ["opcode", "name", "target", "args", "kwargs"]
        try:
            from tabulate import tabulate
        except ImportError:
            print(plain_table(headers, rows))
        else:
            print(tabulate(rows, headers=headers))

    # ---- generating code ----
    def python_code(self, root_module: str = "self") -> PythonCode:
        """The source of `def forward(self, ...)` running this graph, and its globals."""
        return _CodeGen(self, root_module).run()


def plain_table(headers: list[str], rows: list[list[str]]) -> str:
    """Columns padded to their widest cell, a dashed rule under the headers."""
    widths = [max(len(str(c)) for c in col) for col in zip(headers, *rows)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    out = [fmt.format(*headers).rstrip(), "  ".join("-" * w for w in widths)]
    out += [fmt.format(*map(str, r)).rstrip() for r in rows]
    return "\n".join(out)


def _is_identifier(s: str) -> bool:
    return s.isidentifier() and not keyword.iskeyword(s)


def attribute_path(base: str, target: str) -> str:
    """`self.a.b` for target 'a.b'; an atom that is no identifier ('0' of a Sequential) as
    getattr(base, '0')."""
    for atom in target.split("."):
        base = f"{base}.{atom}" if _is_identifier(atom) else f'getattr({base}, "{atom}")'
    return base


class _CodeGen:
    """One pass over a graph writing forward's lines; globals collects what they name."""

    def __init__(self, graph: Graph, root: str) -> None:
        self.graph, self.root = graph, root
        self.globals: dict[str, Any] = {"pyth": NAMESPACES.get("pyth"), "operator": operator,
                                        "builtins": builtins, "inf": math.inf, "nan": math.nan}
        self._ids: dict[int, str] = {}

    def name_global(self, obj: Any, hint: str) -> str:
        """The global name under which obj is reachable from the code."""
        key = id(obj)
        if key in self._ids:
            return self._ids[key]
        base = re.sub(r"[^0-9a-zA-Z_]", "_", hint) or "_obj"
        name, k = base, 0
        while name in self.globals and self.globals[name] is not obj or \
                keyword.iskeyword(name) or name in ("self",) or \
                any(n.name == name for n in self.graph.nodes):
            k += 1
            name = f"{base}_{k}"
        self.globals[name] = obj
        self._ids[key] = name
        return name

    def function_name(self, fn: Callable) -> str:
        qual = qualified_name(fn)
        head = qual.split(".")[0]
        if head == "pyth" and qual.rsplit(".", 1)[0] in NAMESPACES:
            return qual
        if head == "operator" and getattr(operator, getattr(fn, "__name__", ""), None) is fn:
            return qual
        if getattr(builtins, getattr(fn, "__name__", ""), None) is fn:
            return fn.__name__
        return self.name_global(fn, getattr(fn, "__name__", "_fn"))

    def arg(self, a: Any) -> str:
        if isinstance(a, Node):
            return a.name
        if isinstance(a, tuple):
            items = [self.arg(x) for x in a]
            body = f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
            if hasattr(a, "_fields"):
                return f"{self.name_global(type(a), type(a).__name__)}{body if items else '()'}"
            return body
        if isinstance(a, list):
            return "[" + ", ".join(self.arg(x) for x in a) + "]"
        if isinstance(a, dict):
            return "{" + ", ".join(f"{self.arg(k)}: {self.arg(v)}" for k, v in a.items()) + "}"
        if isinstance(a, slice):
            return f"slice({self.arg(a.start)}, {self.arg(a.stop)}, {self.arg(a.step)})"
        if a is None or a is Ellipsis or type(a) in (bool, int, str, bytes, complex):
            return repr(a) if a is not Ellipsis else "..."
        if type(a) is float:
            return repr(a) if math.isfinite(a) else ("nan" if a != a else
                                                    ("inf" if a > 0 else "-inf"))
        if isinstance(a, _dt.dtype):
            return repr(a)
        if callable(a) and not isinstance(a, type):
            return self.function_name(a)
        return self.name_global(a, getattr(a, "__name__", None) or f"_{type(a).__name__}")

    def call_args(self, args: tuple, kwargs: dict) -> str:
        parts = [self.arg(a) for a in args] + [f"{k} = {self.arg(v)}" for k, v in kwargs.items()]
        return ", ".join(parts)

    def expression(self, n: Node) -> str:
        if n.op == "get_attr":
            return attribute_path(self.root, n.target)
        if n.op == "call_module":
            return f"{attribute_path(self.root, n.target)}({self.call_args(n.args, n.kwargs)})"
        if n.op == "call_method":
            return f"{self.arg(n.args[0])}.{n.target}({self.call_args(n.args[1:], n.kwargs)})"
        fn, args = n.target, n.args
        if not n.kwargs:
            if fn in _BINARY and len(args) == 2:
                return f"{self.arg(args[0])} {_BINARY[fn]} {self.arg(args[1])}"
            if fn in _UNARY and len(args) == 1:
                return f"{_UNARY[fn]}{self.arg(args[0])}"
            if fn is operator.getitem and len(args) == 2:
                return f"{self.arg(args[0])}[{self.arg(args[1])}]"
            if fn is builtins.getattr and len(args) == 2 and isinstance(args[1], str) and \
                    _is_identifier(args[1]):
                return f"{self.arg(args[0])}.{args[1]}"
        return f"{self.function_name(fn)}({self.call_args(args, n.kwargs)})"

    def run(self) -> PythonCode:
        nodes = list(self.graph.nodes)
        last_use: dict[Node, Node] = {}
        for n in nodes:
            for inp in n.all_input_nodes:
                last_use[inp] = n
        freed_at: dict[Node, list[Node]] = {}
        for value, user in last_use.items():
            freed_at.setdefault(user, []).append(value)
        params: list[str] = []
        body: list[str] = []
        for n in nodes:
            if n.op == "placeholder":   # the input's own name; the node's when it must differ
                params.append(n.target if not n.args else f"{n.target} = {self.arg(n.args[0])}")
                if n.name != n.target:
                    body.append(f"{n.name} = {n.target}")
                continue
            if n.op == "output":
                body.append(f"return {self.arg(n.args[0])}")
                continue
            line = f"{n.name} = {self.expression(n)}"
            dead = [v.name for v in freed_at.get(n, [])]
            if not n.users:
                dead.append(n.name)
            if dead:
                line += f";  {' = '.join(dead)} = None"
            body.append(line)
        if not any(n.op == "output" for n in nodes):
            body.append("return None")
        sig = ", ".join([self.root] + params)
        src = f"\n\n\ndef forward({sig}):\n" + "".join(f"    {b}\n" for b in body) + "    "
        return PythonCode(src, self.globals)
