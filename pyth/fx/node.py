"""Node: one operation of a Graph (torch.fx.Node's surface).

A node has an opcode (`op`: placeholder, get_attr, call_function, call_method, call_module,
output), a `target` (the function, method name, module path, attribute path or input name),
`args` and `kwargs` that may hold other nodes, and a unique `name`. The graph keeps its nodes
in a doubly linked list (`prev` / `next`, a sentinel root), so inserting or erasing is O(1),
and every node knows its `users`: setting args or kwargs updates the users of the nodes they
mention.
"""

from __future__ import annotations

import builtins
import operator
from typing import Any, Callable

from ..overrides import qualified_name

OPCODES = ("placeholder", "call_method", "call_module", "call_function", "get_attr", "output",
           "root")
# targets that change state: dead code elimination keeps them
_IMPURE = {operator.setitem, builtins.print}

Argument = Any


def map_aggregate(a: Argument, fn: Callable[[Argument], Argument]) -> Argument:
    """fn applied to every leaf of a nest of tuples, lists, dicts and slices, the containers
    rebuilt (named tuples keep their class)."""
    if isinstance(a, tuple):
        t = tuple(map_aggregate(e, fn) for e in a)
        return t if not hasattr(a, "_fields") else type(a)(*t)
    if isinstance(a, list):
        return [map_aggregate(e, fn) for e in a]
    if isinstance(a, dict):
        return {k: map_aggregate(v, fn) for k, v in a.items()}
    if isinstance(a, slice):
        return slice(map_aggregate(a.start, fn), map_aggregate(a.stop, fn),
                     map_aggregate(a.step, fn))
    return fn(a)


def map_arg(a: Argument, fn: Callable[["Node"], Argument]) -> Argument:
    """fn applied to every Node in a nest of arguments, everything else kept."""
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def _format_target(target: Any) -> str:
    return target if isinstance(target, str) else qualified_name(target)


class Node:
    """One operation of a Graph: op, target, args, kwargs, name, and its users."""

    def __init__(self, graph: Any, name: str, op: str, target: Any, args: tuple,
                 kwargs: dict, return_type: Any = None) -> None:
        if op not in OPCODES:
            raise ValueError(f"Unknown opcode {op!r}")
        if op == "call_function" and not callable(target):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                             f"{type(target)} but a Callable is expected")
        if op in ("call_method", "call_module", "get_attr", "placeholder") and \
                not isinstance(target, str):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                             f"{type(target)} but a str is expected")
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self._input_nodes: dict[Node, None] = {}
        self.users: dict[Node, None] = {}
        self.type = return_type
        self._prev = self
        self._next = self
        self._erased = False
        self.meta: dict[str, Any] = {}
        self._args: tuple = ()
        self._kwargs: dict = {}
        self._update_args_kwargs(args, kwargs)

    # ---- the linked list ----
    @property
    def next(self) -> "Node":
        """The node after this one (the graph's root sentinel after the last)."""
        return self._next

    @property
    def prev(self) -> "Node":
        """The node before this one."""
        return self._prev

    def prepend(self, x: "Node") -> None:
        """Move x (of the same graph) to just before this node."""
        if x is self:
            return
        if x.graph is not self.graph:
            raise AssertionError("Attempting to move a Node into a different Graph")
        x._remove_from_list()
        p = self._prev
        p._next, x._prev = x, p
        x._next, self._prev = self, x

    def append(self, x: "Node") -> None:
        """Move x (of the same graph) to just after this node."""
        self._next.prepend(x)

    def _remove_from_list(self) -> None:
        p, n = self._prev, self._next
        p._next, n._prev = n, p
        self._prev = self._next = self

    # ---- arguments and users ----
    @property
    def args(self) -> tuple:
        """The positional arguments: constants and other nodes."""
        return self._args

    @args.setter
    def args(self, a: tuple) -> None:
        self._update_args_kwargs(tuple(a), self._kwargs)

    @property
    def kwargs(self) -> dict:
        """The keyword arguments: constants and other nodes."""
        return self._kwargs

    @kwargs.setter
    def kwargs(self, k: dict) -> None:
        self._update_args_kwargs(self._args, dict(k))

    @property
    def all_input_nodes(self) -> list["Node"]:
        """The nodes this node's args and kwargs mention, each once, in order."""
        return list(self._input_nodes)

    def _update_args_kwargs(self, args: tuple, kwargs: dict) -> None:
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._args, self._kwargs = args, kwargs
        found: dict[Node, None] = {}

        def note(n: Node) -> Node:
            found.setdefault(n, None)
            return n
        map_arg(args, note)
        map_arg(kwargs, note)
        self._input_nodes = found
        for n in found:
            n.users.setdefault(self, None)

    def update_arg(self, idx: int, arg: Argument) -> None:
        """Set args[idx] to arg."""
        a = list(self._args)
        a[idx] = arg
        self.args = tuple(a)

    def update_kwarg(self, key: str, arg: Argument) -> None:
        """Set kwargs[key] to arg."""
        k = dict(self._kwargs)
        k[key] = arg
        self.kwargs = k

    def replace_input_with(self, old_input: "Node", new_input: "Node") -> None:
        """Every mention of old_input in this node's arguments becomes new_input."""
        def swap(n: Node) -> Node:
            return new_input if n is old_input else n
        self._update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    def replace_all_uses_with(self, replace_with: "Node",
                              delete_user_cb: Callable[["Node"], bool] = lambda user: True, *,
                              propagate_meta: bool = False) -> list["Node"]:
        """Every user of this node uses replace_with instead (those delete_user_cb accepts);
        returns the users changed."""
        if propagate_meta:
            if replace_with.meta:
                raise AssertionError("Called node.replace_all_uses_with(replace_with, "
                                     "propagate_meta=True), but replace_with already has .meta "
                                     "keys")
            replace_with.meta.update(self.meta)
        changed = [u for u in list(self.users) if delete_user_cb(u)]
        for u in changed:
            u.replace_input_with(self, replace_with)
        return changed

    def is_impure(self) -> bool:
        """Whether removing this node could change what the program does (inputs, outputs,
        state-changing calls); dead code elimination keeps such nodes."""
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_function":
            return self.target in _IMPURE
        if self.op == "call_method":
            return self.target.endswith("_") and not self.target.endswith("__")
        if self.op == "call_module":
            mod = self.graph.owning_module
            sub = mod.get_submodule(self.target) if mod is not None else None
            return bool(getattr(sub, "_is_impure", False))
        return False

    # ---- printing ----
    def format_node(self, placeholder_names: list | None = None,
                    maybe_return_typename: list | None = None) -> str | None:
        """The node as one line of str(graph): `%name : [num_users=k] = op[target=...](...)`."""
        if self.op == "placeholder":
            if placeholder_names is not None:
                placeholder_names.append(self.target)
            default = f"(default={self.args[0]})" if self.args else ""
            return f"%{self.name} : [num_users={len(self.users)}] = " \
                   f"placeholder[target={self.target}]{default}"
        if self.op == "get_attr":
            return f"%{self.name} : [num_users={len(self.users)}] = " \
                   f"get_attr[target={self.target}]"
        if self.op == "output":
            return f"return {self.args[0]}"
        return f"%{self.name} : [num_users={len(self.users)}] = " \
               f"{self.op}[target={_format_target(self.target)}](args = " \
               f"{_format_arg(self.args)}, kwargs = {_format_arg(self.kwargs)})"

    def __repr__(self) -> str:
        return self.name


def _format_arg(a: Any) -> str:
    if isinstance(a, Node):
        return f"%{a.name}"
    if isinstance(a, tuple):
        items = ", ".join(_format_arg(x) for x in a)
        return f"({items},)" if len(a) == 1 else f"({items})"
    if isinstance(a, list):
        return "[" + ", ".join(_format_arg(x) for x in a) + "]"
    if isinstance(a, dict):
        return "{" + ", ".join(f"{k}: {_format_arg(v)}" for k, v in a.items()) + "}"
    return str(a)
