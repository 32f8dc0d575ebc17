"""Interpreter and Transformer: run a GraphModule's graph node by node (torch.fx's).

`Interpreter.run(*args)` walks the nodes in order, `run_node` dispatching on the opcode to the
method of that name (`placeholder`, `get_attr`, `call_function`, `call_method`, `call_module`,
`output`), each overridable; values live in `env` and are dropped after their last use.
`Transformer` is the same walk over proxies: its methods return what should stand in the new
graph, and `transform()` returns the GraphModule of that new graph.
"""

from __future__ import annotations

import inspect
from typing import Any, Iterator

from ..nn.modules.module import Module
from .graph import Graph
from .graph_module import GraphModule
from .node import Argument, Node, map_aggregate, map_arg
from .proxy import GraphAppendingTracer, Proxy


class Interpreter:
    """Runs a module's graph one node at a time; subclass and override the opcode methods to
    run it differently (profile, check, substitute ops)."""

    def __init__(self, module: Module, garbage_collect_values: bool = True,
                 graph: Graph | None = None) -> None:
        self.module = module
        self.submodules = dict(module.named_modules())
        if graph is not None:
            self.graph = graph
        elif isinstance(module, GraphModule):
            self.graph = module.graph
        else:
            raise TypeError(f"Interpreter: {type(module).__name__} has no graph; pass graph=")
        self.env: dict[Node, Any] = {}
        self.name = "Interpreter"
        self.garbage_collect_values = garbage_collect_values
        self.extra_traceback = True
        # each node -> the values whose last use it is
        self.user_to_last_uses: dict[Node, list[Node]] = {}
        seen: set[Node] = set()
        for node in reversed(self.graph.nodes):
            for n in node.all_input_nodes:
                if n not in seen:
                    seen.add(n)
                    self.user_to_last_uses.setdefault(node, []).append(n)

    def run(self, *args: Any, initial_env: dict[Node, Any] | None = None,
            enable_io_processing: bool = True) -> Any:
        """Run the graph on args (the placeholders in order) and return the output's value."""
        self.env = dict(initial_env) if initial_env is not None else {}
        self.args_iter: Iterator[Any] = iter(args)
        for node in self.graph.nodes:
            if node in self.env:
                continue
            try:
                self.env[node] = self.run_node(node)
            except Exception as e:
                if self.extra_traceback:
                    msg = f"While executing {node.format_node()}"
                    e.args = (f"{e.args[0]}\n\n{msg}" if e.args and isinstance(e.args[0], str)
                              else msg,) + tuple(e.args[1:])
                raise
            if self.garbage_collect_values:
                for to_delete in self.user_to_last_uses.get(node, []):
                    self.env.pop(to_delete, None)
            if node.op == "output":
                return self.env[node]
        return None

    def boxed_run(self, args_list: list) -> Any:
        """run() taking its arguments as a list it empties (so they can be freed early)."""
        args = list(args_list)
        args_list.clear()
        return self.run(*args)

    def run_node(self, n: Node) -> Any:
        """One node: its arguments fetched from env, then the method named by its opcode."""
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        return getattr(self, n.op)(n.target, args, kwargs)

    # ---- the opcodes ----
    def placeholder(self, target: str, args: tuple, kwargs: dict) -> Any:
        """The next input (or the placeholder's default when the inputs have run out)."""
        if target.startswith("*"):
            return list(self.args_iter)
        try:
            return next(self.args_iter)
        except StopIteration as si:
            if args:
                return args[0]
            raise RuntimeError(f"Expected positional argument for parameter {target}, but one "
                               f"was not passed in!") from si

    def get_attr(self, target: str, args: tuple, kwargs: dict) -> Any:
        """The module's attribute at the dotted path target."""
        return self.fetch_attr(target)

    def call_function(self, target: Any, args: tuple, kwargs: dict) -> Any:
        """target(*args, **kwargs)."""
        return target(*args, **kwargs)

    def call_method(self, target: str, args: tuple, kwargs: dict) -> Any:
        """args[0].target(*args[1:], **kwargs)."""
        self_obj, *rest = args
        return getattr(self_obj, target)(*rest, **kwargs)

    def call_module(self, target: str, args: tuple, kwargs: dict) -> Any:
        """The submodule at target called on args."""
        return self.fetch_attr(target)(*args, **kwargs)

    def output(self, target: str, args: tuple, kwargs: dict) -> Any:
        """The program's result."""
        return args[0]

    # ---- helpers ----
    def fetch_attr(self, target: str) -> Any:
        """The attribute of self.module at a dotted path."""
        attr_itr: Any = self.module
        atoms = target.split(".")
        for i, atom in enumerate(atoms):
            if not hasattr(attr_itr, atom):
                raise RuntimeError(f"Node referenced nonexistent target "
                                   f"{'.'.join(atoms[:i + 1])}")
            attr_itr = getattr(attr_itr, atom)
        return attr_itr

    def fetch_args_kwargs_from_env(self, n: Node) -> tuple[tuple, dict]:
        """n's args and kwargs with each node replaced by its value."""
        return self.map_nodes_to_values(n.args, n), self.map_nodes_to_values(n.kwargs, n)

    def map_nodes_to_values(self, args: Argument, n: Node) -> Argument:
        """args with each node replaced by its value in env."""
        def load(node: Node) -> Any:
            if node not in self.env:
                raise RuntimeError(f"Node {n} referenced nonexistent value {node}! Run "
                                   f"Graph.lint() to diagnose such issues")
            return self.env[node]
        return map_arg(args, load)


class Transformer(Interpreter):
    """An Interpreter over proxies: each opcode method returns what stands for its node in a
    new graph (by default, a copy); transform() returns the new GraphModule."""

    def __init__(self, module: GraphModule) -> None:
        super().__init__(module)
        self.new_graph = Graph()
        self.tracer = GraphAppendingTracer(self.new_graph)
        self.tracer.root = module

    def placeholder(self, target: str, args: tuple, kwargs: dict) -> Proxy:
        """A placeholder of the new graph, with the old one's default."""
        default = args[0] if args else inspect.Signature.empty
        return Proxy(self.new_graph.placeholder(target, default_value=default), self.tracer)

    def get_attr(self, target: str, args: tuple, kwargs: dict) -> Proxy:
        """A get_attr node of the new graph."""
        return self.tracer.create_proxy("get_attr", target, args, kwargs)

    def call_function(self, target: Any, args: tuple, kwargs: dict) -> Proxy:
        """A call_function node of the new graph."""
        return self.tracer.create_proxy("call_function", target, args, kwargs)

    def call_method(self, target: str, args: tuple, kwargs: dict) -> Proxy:
        """A call_method node of the new graph."""
        return self.tracer.create_proxy("call_method", target, args, kwargs)

    def call_module(self, target: str, args: tuple, kwargs: dict) -> Proxy:
        """A call_module node of the new graph."""
        return self.tracer.create_proxy("call_module", target, args, kwargs)

    def transform(self) -> GraphModule:
        """Run over proxies and return the GraphModule of the new graph."""
        result = super().run(enable_io_processing=False)
        if result is not None:
            def strip(a: Any) -> Any:
                return a.node if isinstance(a, Proxy) else a
            self.new_graph.output(map_aggregate(result, strip))
        return GraphModule(self.module, self.new_graph, type(self.module).__name__)
