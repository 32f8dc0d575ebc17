"""pyth.compile: a callable traced with pyth.fx on first call, its graphs cached by guards.

How a compiled call runs:
1. The call's arguments are bound to the traced function's parameters (`forward`'s, after
   self, for a module). Each tensor argument is guarded by its shape, dtype and requires_grad;
   any other argument by its type and value (it is fixed for the trace, a `concrete_args`
   entry), and an argument that cannot be hashed (a list of tensors, say) is not guarded at
   all: such calls run eagerly. Grad mode, and a module's `training`, are guards too.
2. The guard tuple is the key of the callable's cache. A hit runs the cached graph; a miss
   traces again (`pyth.fx.symbolic_trace`) and hands the GraphModule to the backend, which
   returns what runs for that key ("inductor": the GraphModule after pointwise fusion;
   "eager": the GraphModule as traced; a callable backend: what it returns).
3. A trace that fails (control flow on a traced value, an unsupported call, a forward with
   *args) is a graph break: pyth does not split graphs, so that key runs the whole program
   eagerly, unless `fullgraph=True`, which raises `Unsupported` naming the cause.
4. A cache holds at most `config.recompile_limit` keys (8); a miss beyond that logs
   PyTorch's warning once and runs eagerly (with `fullgraph=True` it raises).
`pyth.compiler.reset()` empties every compiled callable's cache.
"""

from __future__ import annotations

import functools
import inspect
import logging
import weakref
from typing import Any, Callable

from ..autograd.grad_mode import is_grad_enabled
from ..nn.modules.module import Module
from ..tensor import Tensor
from . import config
from .exc import FailOnRecompileLimitHit, InvalidBackend, Unsupported

log = logging.getLogger("pyth._dynamo")

MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")
# options of the "inductor" backend: name -> type
OPTIONS: dict[str, type] = {"pointwise_fusion": bool}

_EAGER = object()   # a cache entry whose key runs the program eagerly (a graph break)
_LIVE: "weakref.WeakSet[CompiledFunction]" = weakref.WeakSet()


def _inductor(options: dict[str, Any]) -> Callable:
    """The default backend: pointwise fusion over the traced graph (unless switched off)."""
    def backend(gm: Module, example_inputs: list) -> Callable:
        if options.get("pointwise_fusion", True):
            from .._inductor.fuse_pointwise import fuse_pointwise
            fuse_pointwise(gm)
        return gm
    return backend


def _eager(gm: Module, example_inputs: list) -> Callable:
    """The "eager" backend: the traced GraphModule as it is."""
    return gm


_DEBUG_BACKENDS = {"eager": _eager, "aot_eager": _eager}


def list_backends(exclude_tags: tuple[str, ...] | None = ("debug", "experimental")
                  ) -> list[str]:
    """The names pyth.compile's `backend` accepts (the debug ones when not excluded)."""
    names = ["inductor"]
    if not exclude_tags or "debug" not in exclude_tags:
        names += list(_DEBUG_BACKENDS)
    return sorted(names)


def _backend(backend: str | Callable | None, mode: str | None,
             options: dict[str, Any] | None) -> Callable:
    """The backend callable for compile's arguments, refusing what PyTorch refuses."""
    if callable(backend):
        return backend
    if backend is None:
        backend = "inductor"
    if not isinstance(backend, str) or backend not in ("inductor", *_DEBUG_BACKENDS):
        raise InvalidBackend(backend)
    if backend != "inductor":
        return _DEBUG_BACKENDS[backend]
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if mode is not None and mode not in MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(MODES)}")
    for key, value in (options or {}).items():
        if key not in OPTIONS:
            raise RuntimeError(f"Unexpected optimization option {key}, known options are "
                               f"{list(OPTIONS)}")
        if not isinstance(value, OPTIONS[key]):
            raise RuntimeError(f"Unexpected type of attr {key}, got {type(value).__name__} "
                               f"should be {OPTIONS[key].__name__}")
    if mode == "reduce-overhead":
        import warnings
        warnings.warn("pyth.compile: mode='reduce-overhead' (capture and replay) is not "
                      "implemented yet; running the default mode", UserWarning, stacklevel=3)
    return _inductor(dict(options or {}))


def _reason(names: list[str], old: tuple, new: tuple) -> str:
    """Why key new missed, against the previous key old (PyTorch's wording)."""
    if old[0] != new[0]:
        return "GLOBAL_STATE changed: grad_mode"
    if old[1] != new[1]:
        return "self.training changed"
    for name, a, b in zip(names, old[2:], new[2:]):
        if a == b:
            continue
        if type(a) is tuple and type(b) is tuple and a[0] == b[0] == "tensor":
            if a[2] != b[2]:
                return f"tensor {name!r} dtype mismatch. expected {a[2]}, actual {b[2]}"
            if a[3] != b[3]:
                return f"tensor {name!r} requires_grad mismatch. expected requires_grad={int(a[3])}"
            if len(a[1]) != len(b[1]):
                return f"tensor {name!r} rank mismatch. expected {len(a[1])}, actual {len(b[1])}"
            for d, (p, q) in enumerate(zip(a[1], b[1])):
                if p != q:
                    return f"tensor {name!r} size mismatch at index {d}. expected {p}, actual {q}"
        return f"{name!r} changed: expected {a[-1]!r}, actual {b[-1]!r}"
    return "unknown"


class CompiledFunction:
    """What pyth.compile makes of a function or module: binds a call's arguments, looks up
    its guards in the cache, traces on a miss, and runs the cached graph or the eager code."""

    def __init__(self, fn: Callable, backend: Callable, fullgraph: bool) -> None:
        self.fn = fn
        self.module = fn if isinstance(fn, Module) else None
        target = type(fn).forward if self.module is not None else fn
        sig = inspect.signature(target)
        params = list(sig.parameters.values())[1 if self.module is not None else 0:]
        self.signature = sig.replace(parameters=params)
        self.names = [p.name for p in params]
        # calls that give every parameter by position skip Signature.bind
        self._plain = all(p.kind is p.POSITIONAL_OR_KEYWORD for p in params)
        self.backend = backend
        self.fullgraph = fullgraph
        self.cache: dict[tuple, Any] = {}
        self._last: tuple | None = None
        self._warned = False
        _LIVE.add(self)

    def reset(self) -> None:
        """Forget every cached graph (the next call traces again)."""
        self.cache.clear()
        self._last = None
        self._warned = False

    # ---- guards ----
    def _bind(self, args: tuple, kwargs: dict) -> tuple | None:
        """The arguments in parameter order (defaults filled in), or None when they do not
        bind (the eager call then raises Python's TypeError)."""
        if not kwargs and self._plain and len(args) == len(self.names):
            return args
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError:
            return None
        bound.apply_defaults()
        return tuple(bound.arguments[n] for n in self.names)

    def _key(self, values: tuple) -> tuple | None:
        """The guards of one call: grad mode, the module's training flag, and per argument
        its tensor metadata or its value; None when an argument cannot be guarded."""
        parts: list[Any] = [is_grad_enabled(),
                            self.module.training if self.module is not None else None]
        for v in values:
            if isinstance(v, Tensor):
                parts.append(("tensor", v.shape, v.dtype, v.requires_grad))
            else:
                try:
                    hash(v)
                except TypeError:
                    return None
                parts.append((type(v), v))
        return tuple(parts)

    # ---- the call ----
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        values = self._bind(args, kwargs)
        key = None if values is None else self._key(values)
        if key is None:
            if values is not None and self.fullgraph:
                kinds = [type(v).__name__ for v in values if not isinstance(v, Tensor)]
                raise Unsupported(f"pyth.compile: an argument of type {', '.join(kinds)} cannot "
                                  "be guarded (it is neither a tensor nor hashable)")
            return self.fn(*args, **kwargs)
        runner = self.cache.get(key)
        if runner is None:
            runner = self._miss(key, values)
        if runner is _EAGER:
            return self.fn(*args, **kwargs)
        return runner(*values)

    def _miss(self, key: tuple, values: tuple) -> Any:
        """A key not in the cache: trace and compile it, or run eagerly past the limit."""
        reason = None if self._last is None else _reason(self.names, self._last, key)
        if len(self.cache) >= config.recompile_limit:
            if self.fullgraph:
                raise FailOnRecompileLimitHit("Hard failure due to fullgraph=True")
            if not self._warned:
                self._warned = True
                code = getattr(self.module.forward if self.module is not None else self.fn,
                               "__code__", None)
                where = (f"'{code.co_name}' ({code.co_filename}:{code.co_firstlineno})"
                         if code is not None else repr(self.fn))
                log.warning("pyth._dynamo hit config.recompile_limit (%s)\n   function: %s\n"
                            "   last reason: %s\nTo diagnose recompilation issues, see "
                            "docs/compile.md", config.recompile_limit, where, reason)
            return _EAGER
        self._last = key
        runner = self._compile(values)
        self.cache[key] = runner
        return runner

    def _compile(self, values: tuple) -> Any:
        """Trace for these arguments and hand the graph to the backend; _EAGER on a graph
        break (or raise Unsupported under fullgraph)."""
        from ..fx import symbolic_trace
        concrete = {n: v for n, v in zip(self.names, values) if not isinstance(v, Tensor)}
        try:
            if self.module is not None and (self.module._forward_pre_hooks or
                                            self.module._forward_hooks):
                raise NotImplementedError("the module has forward hooks")
            gm = symbolic_trace(self.fn, concrete_args=concrete or None)
        except Exception as e:   # anything tracing cannot follow is a graph break
            if self.fullgraph:
                raise Unsupported(f"pyth.compile(fullgraph=True): graph break: "
                                  f"{type(e).__name__}: {e}") from e
            return _EAGER
        example = [v for v in values if isinstance(v, Tensor)]
        return self.backend(gm, example)


class OptimizedModule(Module):
    """A compiled module: calls go through the compiled forward of `_orig_mod`, whose
    parameters, buffers and state are this module's (state_dict keys gain `_orig_mod.`)."""

    def __init__(self, mod: Module, compiled: CompiledFunction) -> None:
        super().__init__()
        self._orig_mod = mod
        self.__dict__["_compiled"] = compiled

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The original module's forward, compiled."""
        return self.__dict__["_compiled"](*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self.__dict__["_modules"]["_orig_mod"], name)


def compile(model: Callable | None = None, *, fullgraph: bool = False,  # noqa: A001
            dynamic: bool | None = None, backend: str | Callable | None = "inductor",
            mode: str | None = None, options: dict[str, Any] | None = None,
            disable: bool = False) -> Any:
    """Compile a module or function: traced with pyth.fx on first call, cached by guards,
    pointwise chains fused (docs/compile.md); without a model, a decorator."""
    if model is None:
        def decorate(m: Callable) -> Any:
            return compile(m, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                           mode=mode, options=options, disable=disable)
        return decorate
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    chosen = _backend(backend, mode, options)
    if disable:
        return model
    compiled = CompiledFunction(model, chosen, fullgraph)
    if isinstance(model, Module):
        return OptimizedModule(model, compiled)

    @functools.wraps(model)
    def compiled_fn(*args: Any, **kwargs: Any) -> Any:
        return compiled(*args, **kwargs)
    compiled_fn._torchdynamo_orig_callable = model   # type: ignore[attr-defined]
    compiled_fn._compiled = compiled                  # type: ignore[attr-defined]
    return compiled_fn


def reset() -> None:
    """Empty the cache of every compiled callable, so each traces again on its next call."""
    for c in list(_LIVE):
        c.reset()
