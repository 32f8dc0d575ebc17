"""Symbolic tracing: run a module's forward (or a function) on Proxies and record a Graph
(torch.fx.Tracer, symbolic_trace, wrap).

While a Tracer traces, pyth.nn's Module sends it every module call and every parameter read
(`set_tracer` of pyth/nn/modules/module.py, which costs an ordinary call nothing: the call
checks one flag it checks anyway). A leaf module (pyth.nn's own layers, by default) becomes one
call_module node; any other module's forward is traced through. Parameters read inside a
traced forward become get_attr nodes, as do tensors of the root found as arguments (its
buffers); other tensors become constants of the GraphModule (`_tensor_constant0`, ...).

Functions named by `wrap()` (at module scope, torch.fx's rule) and the math functions a traced
function's globals refer to (`autowrap_modules=(math,)`) are replaced in those globals for the
duration of the trace, and put back even when tracing fails, as torch.fx does: a call of one
with a proxy argument becomes a call_function node.
"""

from __future__ import annotations

import builtins
import functools
import inspect
import math
from types import ModuleType
from typing import Any, Callable

from ..nn.modules import module as _module
from ..nn.modules.container import Sequential
from ..nn.modules.module import Module
from ..nn.parameter import Parameter
from ..tensor import Tensor
from .graph import Graph
from .graph_module import GraphModule
from .node import Argument
from .proxy import Proxy, TracerBase

# (globals dict, name) of the functions wrap() registered
_WRAPPED: dict[tuple[int, str], dict] = {}


def wrap(fn_or_name: str | Callable) -> str | Callable:
    """Record calls of a function (given or named) in traced code as call_function nodes
    instead of tracing through it; call at module scope of the module that uses it."""
    frame = inspect.currentframe()
    caller = frame.f_back if frame is not None else None
    if caller is None or caller.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    if isinstance(fn_or_name, str):
        name = fn_or_name
    elif callable(fn_or_name) and isinstance(getattr(fn_or_name, "__name__", None), str):
        name = fn_or_name.__name__
    else:
        raise AssertionError("wrap must be called with a function or a function name")
    if name.startswith("<"):
        raise NotImplementedError("wrap must be called on a function with a name, not a lambda")
    _WRAPPED[(id(caller.f_globals), name)] = caller.f_globals
    return fn_or_name


class _Patcher:
    """Names replaced in namespaces for one trace, put back in reverse order at exit."""

    def __init__(self) -> None:
        self._undo: list[tuple[dict, str, Any, bool]] = []

    def patch(self, namespace: dict, name: str, new: Any) -> None:
        had = name in namespace
        self._undo.append((namespace, name, namespace.get(name), had))
        namespace[name] = new

    def restore(self) -> None:
        while self._undo:
            namespace, name, old, had = self._undo.pop()
            if had:
                namespace[name] = old
            else:
                namespace.pop(name, None)


def _has_proxy(args: tuple, kwargs: dict) -> Proxy | None:
    for a in (*args, *kwargs.values()):
        if isinstance(a, Proxy):
            return a
        if isinstance(a, (list, tuple)):
            for b in a:
                if isinstance(b, Proxy):
                    return b
    return None


def _recording(fn: Callable) -> Callable:
    """fn, recorded as a call_function node when an argument is a proxy."""
    @functools.wraps(fn)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        p = _has_proxy(args, kwargs)
        if p is None:
            return fn(*args, **kwargs)
        return p.tracer.create_proxy("call_function", fn, args, kwargs)
    return wrapped


class Tracer(TracerBase):
    """Traces a module or function into a Graph; override is_leaf_module (which modules stay
    one node), create_node, create_arg or the call_module hook to change what is recorded."""

    def __init__(self, autowrap_modules: tuple[ModuleType, ...] = (math,),
                 autowrap_functions: tuple[Callable, ...] = (),
                 param_shapes_constant: bool = False) -> None:
        self._autowrap_modules = tuple(autowrap_modules)
        self._autowrap_ids = {id(v) for m in autowrap_modules for v in vars(m).values()
                              if callable(v)} | {id(f) for f in autowrap_functions}
        self.param_shapes_constant = param_shapes_constant
        self.graph: Graph | None = None
        self.root: Module | None = None
        self.tensor_attrs: dict[int, str] = {}

    # ---- what becomes a node ----
    def is_leaf_module(self, m: Module, module_qualified_name: str) -> bool:
        """Whether a module call is recorded as one call_module node: pyth.nn's layers (not
        Sequential, whose children are traced), as torch.fx does for torch.nn."""
        return type(m).__module__.startswith("pyth.nn") and not isinstance(m, Sequential)

    def path_of_module(self, mod: Module) -> str:
        """The dotted name of mod under the root."""
        for name, m in self.root.named_modules():
            if m is mod:
                return name
        raise NameError("module is not installed as a submodule")

    def call_module(self, m: Module, forward: Callable, args: tuple, kwargs: dict) -> Any:
        """A module call while tracing: a call_module node for a leaf, else its forward
        traced through."""
        name = self.path_of_module(m)
        if not self.is_leaf_module(m, name):
            return forward(*args, **kwargs)
        return self.create_proxy("call_module", name, args, kwargs)

    def getattr(self, attr: str, attr_val: Any, parameter_proxy_cache: dict) -> Any:
        """A parameter read inside a traced forward is a get_attr node (one per parameter)."""
        if not isinstance(attr_val, Parameter):
            return attr_val
        for name, p in self.root.named_parameters():
            if p is attr_val:
                if name not in parameter_proxy_cache:
                    parameter_proxy_cache[name] = self.create_proxy("get_attr", name, (), {})
                return parameter_proxy_cache[name]
        return attr_val

    # the hooks Module calls while this tracer is installed (pyth/nn/modules/module.py)
    def module_call(self, mod: Module, args: tuple, kwargs: dict) -> Any:
        """mod(*args, **kwargs) during the trace: call_module decides (forward with hooks)."""
        return self.call_module(mod, lambda *a, **k: mod._hooked_call(a, k), args, kwargs)

    def module_getattr(self, mod: Module, name: str, value: Any) -> Any:
        """mod.name read during the trace (a parameter, buffer or submodule)."""
        return self.getattr(name, value, self._parameter_proxies)

    def create_arg(self, a: Any) -> Argument:
        """Arguments as the graph holds them: parameters and buffers of the root as get_attr
        nodes, other tensors as constants, modules by their path."""
        if isinstance(a, Tensor):
            for name, p in self.root.named_parameters():
                if p is a:
                    return self.create_node("get_attr", name, (), {})
            for name, b in self.root.named_buffers():
                if b is a:
                    return self.create_node("get_attr", name, (), {})
            name = self.tensor_attrs.get(id(a))
            if name is None:
                k = 0
                while hasattr(self.root, f"_tensor_constant{k}"):
                    k += 1
                name = f"_tensor_constant{k}"
                setattr(self.root, name, a)
                self.tensor_attrs[id(a)] = name
            return self.create_node("get_attr", name, (), {})
        if isinstance(a, Module):
            return self.create_node("get_attr", self.path_of_module(a), (), {})
        return super().create_arg(a)

    # ---- the trace ----
    def trace(self, root: Module | Callable, concrete_args: dict[str, Any] | None = None
              ) -> Graph:
        """Run root's forward (or root itself) on proxies and return the recorded graph."""
        if isinstance(root, Module):
            self.root = root
            fn = type(root).forward
            bound_self: tuple = (root,)
        else:
            self.root = Module()
            fn = root
            bound_self = ()
        self.graph = Graph(tracer_cls=type(self))
        self.tensor_attrs = {}
        self._parameter_proxies: dict[str, Proxy] = {}
        args, keywords = self._placeholders(fn, bound_self, concrete_args or {})
        patcher = _Patcher()
        previous = _module.set_tracer(self)
        try:
            self._patch_wrapped(patcher, getattr(fn, "__globals__", {}))
            result = fn(*bound_self, *args, **keywords)
        finally:
            _module.set_tracer(previous)
            patcher.restore()
        self.create_node("output", "output", (self.create_arg(result),), {})
        return self.graph

    def _placeholders(self, fn: Callable, bound_self: tuple, concrete: dict
                      ) -> tuple[list, dict]:
        """A placeholder per argument of fn (after self), in order; a concrete argument's
        value stands for it in the trace. Returns (positional values, keyword-only values)."""
        sig = inspect.signature(fn)
        params = list(sig.parameters.values())[len(bound_self):]
        for name in concrete:
            if name not in sig.parameters:
                raise RuntimeError(f"concrete_args: {fn.__name__}() has no argument {name!r}")
        args: list = []
        keywords: dict[str, Any] = {}
        for p in params:
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise NotImplementedError(f"symbolic_trace: {fn.__name__}() takes *{p.name} or "
                                          f"**{p.name}; trace a function with named arguments")
            if p.name in concrete:
                value = concrete[p.name]
                self.create_proxy("placeholder", p.name, (value,), {})
            else:
                default = () if p.default is inspect.Parameter.empty else (p.default,)
                value = self.create_proxy("placeholder", p.name, default, {})
            if p.kind is p.KEYWORD_ONLY:
                keywords[p.name] = value
            else:
                args.append(value)
        return args, keywords

    def _patch_wrapped(self, patcher: _Patcher, fn_globals: dict) -> None:
        for (_, name), namespace in _WRAPPED.items():
            fn = namespace.get(name, getattr(builtins, name, None))
            if fn is not None:
                patcher.patch(namespace, name, _recording(fn))
        for name, value in list(fn_globals.items()):
            if not name.startswith("_") and callable(value) and id(value) in self._autowrap_ids:
                patcher.patch(fn_globals, name, _recording(value))


def symbolic_trace(root: Module | Callable, concrete_args: dict[str, Any] | None = None
                   ) -> GraphModule:
    """Trace a module or function into a GraphModule (its graph, code and submodules)."""
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = type(root).__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)
