"""GraphModule: a Module whose forward is generated from a Graph (torch.fx.GraphModule).

It holds what the graph's get_attr and call_module nodes name, copied by reference from the
root it was made from (so parameters are shared, and gradients reach them), under the same
dotted paths; its `code` is the Python source `Graph.python_code` writes, and `forward` that
source compiled. After editing `graph`, `recompile()` makes `code` and `forward` new. Each
GraphModule has a class of its own (named after the traced module), because forward is set on
the class, as torch.fx does.
"""

from __future__ import annotations

import itertools
import linecache
from typing import Any

from ..nn.modules.module import Module
from ..nn.parameter import Parameter
from ..tensor import Tensor
from .graph import Graph, PythonCode

_KEYS = itertools.count()


def _copy_attr(src: Module, dst: Module, target: str) -> None:
    """dst gets src's attribute at the dotted path target (a parameter, buffer, submodule or
    plain value), making empty Modules for the missing parts of the path."""
    *prefix, field = target.split(".")
    for item in prefix:
        f = getattr(src, item)
        t = getattr(dst, item, None)
        if f is t:
            return
        if t is None:
            t = Module()
            setattr(dst, item, t)
        src, dst = f, t
    orig = getattr(src, field)
    if isinstance(orig, Tensor) and not isinstance(orig, Parameter):
        dst.register_buffer(field, orig)
    else:
        setattr(dst, field, orig)


def _assign_attr(value: Any, dst: Module, target: str) -> None:
    """dst gets value at the dotted path target (root given as a dict)."""
    *prefix, field = target.split(".")
    for item in prefix:
        t = getattr(dst, item, None)
        if t is None:
            t = Module()
            setattr(dst, item, t)
        dst = t
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        dst.register_buffer(field, value)
    else:
        setattr(dst, field, value)


def _exec_forward(code: PythonCode) -> Any:
    """Compile code's forward, registered with linecache so that tracebacks show its lines."""
    key = f"<eval_with_key>.{next(_KEYS)}"
    linecache.cache[key] = (len(code.src), None, code.src.splitlines(True), key)
    namespace = dict(code.globals)
    exec(compile(code.src, key, "exec"), namespace)
    return namespace["forward"]


class GraphModule(Module):
    """A Module running a Graph: the root's used parameters, buffers and submodules, and a
    forward generated from the graph (see `code`)."""

    def __new__(cls, *args: Any, **kwargs: Any) -> "GraphModule":
        # a class per instance, so that recompile() can set forward on it
        for base in cls.__mro__:
            if base.__dict__.get("_is_per_instance", False):
                break
        else:
            cls = type(cls.__name__, (cls,), {"_is_per_instance": True})
        return super().__new__(cls)

    def __init__(self, root: Module | dict[str, Any], graph: Graph,
                 class_name: str = "GraphModule") -> None:
        super().__init__()
        type(self).__name__ = class_name
        type(self).__qualname__ = class_name
        if isinstance(root, Module):
            if hasattr(root, "training"):
                self.training = root.training
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if node.target not in root:
                        raise RuntimeError(f"Node {node} referenced target {node.target} but "
                                           f"that target was not provided in ``root``!")
                    _assign_attr(root[node.target], self, node.target)
        else:
            raise RuntimeError("Unsupported type " + str(root) + " passed for root!")
        self.graph = graph

    # ---- the graph and its code ----
    @property
    def graph(self) -> Graph:
        """The graph this module runs; assigning one recompiles."""
        return self.__dict__["_graph"]

    @graph.setter
    def graph(self, g: Graph) -> None:
        if not isinstance(g, Graph):
            raise AssertionError(f"Expected a Graph, got {type(g)}")
        self.__dict__["_graph"] = g
        g.owning_module = self
        self.recompile()

    @property
    def code(self) -> str:
        """The Python source of forward, generated from the graph."""
        return self.__dict__["_code"]

    def recompile(self) -> PythonCode:
        """Generate forward's code from the graph again (after editing it) and compile it."""
        code = self.graph.python_code(root_module="self")
        self.__dict__["_code"] = code.src
        type(self).forward = _exec_forward(code)
        return code

    def print_readable(self, print_output: bool = True, include_stride: bool = False,
                       include_device: bool = False, colored: bool = False) -> str:
        """The module as Python source: a class whose forward is the generated code, with
        nested GraphModules as nested classes."""
        text = self._readable(type(self).__name__)
        if print_output:
            print(text)
        return text

    def _readable(self, name: str) -> str:
        lines = [f"class {name}(pyth.nn.Module):"]
        for sub_name, sub in self.named_children():
            if isinstance(sub, GraphModule):
                nested = sub._readable(type(sub).__name__)
                lines += ["    " + line for line in nested.splitlines()]
        body = self.code.strip("\n").splitlines()
        lines += ["    " + line if line.strip() else "" for line in body]
        return "\n".join(lines).rstrip() + "\n"

    def __str__(self) -> str:
        return "\n".join([Module.__repr__(self), self.code, "# To see more debug info, please "
                          "use `graph_module.print_readable()`"])

    def __deepcopy__(self, memo: dict) -> "GraphModule":
        import copy
        fake = Module()
        fake.__dict__ = copy.deepcopy({k: v for k, v in self.__dict__.items()
                                       if k not in ("_graph", "_code")}, memo)
        g = Graph()
        out = g.graph_copy(self.graph, {})
        g.output(out)
        return GraphModule(fake, g, type(self).__name__)

    def __copy__(self) -> "GraphModule":
        return GraphModule(self, self.graph, type(self).__name__)
