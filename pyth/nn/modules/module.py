"""Module: the base of every layer, as PyTorch's module system has it.

Parameters, buffers and submodules are found by attribute assignment (`self.weight =
Parameter(...)`, `self.fc = Linear(...)`), kept in three ordered dicts, and never listed twice:
everything else (named_parameters, state_dict, to(), train(), repr) walks those dicts.
"""

from __future__ import annotations

import itertools
import warnings
from collections import OrderedDict
from typing import Any, Callable, Iterator, NamedTuple

from ... import device as _device
from ... import dtypes as _dt
from ...autograd import no_grad
from ...tensor import Tensor
from ..parameter import Buffer, Parameter, _class_for


# Hooks every module runs (register_module_forward_pre_hook, register_module_forward_hook);
# _global_hooks_used[0] says whether any is registered, the one check a call without hooks makes
_global_forward_pre_hooks: OrderedDict = OrderedDict()
_global_forward_hooks: OrderedDict = OrderedDict()
_global_hooks_with_kwargs: set = set()
_global_hooks_always_called: set = set()
_global_hooks_used = [False]
# pyth.fx's tracer while it traces (set_tracer): it sees every module call and every read of a
# parameter. It turns _global_hooks_used on, so an ordinary call checks nothing more
_tracer: list = [None]


def set_tracer(tracer: Any) -> Any:
    """Route module calls (`tracer.module_call(module, args, kwargs)`) and parameter reads
    (`tracer.module_getattr(module, name, value)`) to tracer, or stop with None; returns the
    tracer it replaces, so that nested traces restore it."""
    previous = _tracer[0]
    _tracer[0] = tracer
    _global_hooks_used[0] = bool(_global_forward_pre_hooks or _global_forward_hooks or
                                 tracer is not None)
    return previous


class RemovableHandle:
    """Removes a hook from the dict it was registered in."""

    _ids = itertools.count()

    def __init__(self, *hooks_dicts: dict) -> None:
        self.hooks_dicts = hooks_dicts
        self.id = next(RemovableHandle._ids)

    def remove(self) -> None:
        for d in self.hooks_dicts:
            d.pop(self.id, None)

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()


class _IncompatibleKeys(NamedTuple):
    missing_keys: list
    unexpected_keys: list

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (f"_IncompatibleKeys(missing_keys={self.missing_keys}, "
                f"unexpected_keys={self.unexpected_keys})")


def _addindent(s: str, spaces: int) -> str:
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


def _check_name(kind: str, name: Any, module: "Module") -> None:
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain ".", got: {name}')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')


class Module:
    """Base class of every layer: holds parameters, buffers and submodules by name."""

    training: bool
    _version = 1

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments")
        set_ = object.__setattr__
        set_(self, "training", True)
        set_(self, "_parameters", OrderedDict())
        set_(self, "_buffers", OrderedDict())
        set_(self, "_non_persistent_buffers_set", set())
        set_(self, "_modules", OrderedDict())
        set_(self, "_forward_hooks", OrderedDict())
        set_(self, "_forward_hooks_with_kwargs", set())
        set_(self, "_forward_hooks_always_called", set())
        set_(self, "_forward_pre_hooks", OrderedDict())
        set_(self, "_forward_pre_hooks_with_kwargs", set())

    def forward(self, *input: Any) -> Any:
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  f'"forward" function')

    # ---- registration ----
    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Adds param (or None, a declared but absent parameter) under name."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name("parameter", name, self)
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{type(param).__name__}' object to parameter "
                            f"'{name}' (torch.nn.Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                             f"parameters must be created explicitly.")
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Adds a tensor that is state but not a parameter (running means, ...); persistent
        buffers go into state_dict."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name("buffer", name, self)
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer "
                            f"'{name}' (torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: "Module | None") -> None:
        """Adds a child module under name."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        _check_name("module", name, self)
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__
        params, buffers, modules = (d.get("_parameters"), d.get("_buffers"), d.get("_modules"))

        def forget(*dicts: Any) -> None:
            for x in dicts:
                if x is not None and name in x:
                    del x[name]
            if buffers is not None:
                self._non_persistent_buffers_set.discard(name)
            d.pop(name, None)

        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            forget(buffers, modules)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as parameter "
                                f"'{name}' (torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            forget(params, buffers)
            modules[name] = value
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as child module "
                                f"'{name}' (torch.nn.Module or None expected)")
            modules[name] = value
        elif isinstance(value, Buffer):
            forget(params, modules)
            self.register_buffer(name, value.data, value.persistent)
        elif buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' "
                                f"(torch.Tensor or None expected)")
            buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            table = d.get(key)
            if table is not None and name in table:
                if _tracer[0] is None:
                    return table[name]
                return _tracer[0].module_getattr(self, name, table[name])
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for key in ("_parameters", "_buffers", "_modules"):
            table = self.__dict__.get(key)
            if table is not None and name in table:
                del table[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self) -> list:
        keys = list(object.__dir__(self)) + list(self._parameters) + list(self._buffers) + \
            list(self._modules)
        return sorted(k for k in set(keys) if not k[:1].isdigit())

    def get_submodule(self, target: str) -> "Module":
        """The submodule at a dotted path ('' is self)."""
        mod = self
        for item in target.split(".") if target else []:
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at a dotted path."""
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if name not in mod._parameters:
            raise AttributeError(f"{mod._get_name()} has no parameter `{name}`")
        return mod._parameters[name]

    # ---- walking ----
    def _named_members(self, get: Callable, prefix: str = "", recurse: bool = True,
                       remove_duplicate: bool = True) -> Iterator:
        memo: set = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
            if recurse else [(prefix, self)]
        for mod_prefix, mod in modules:
            for k, v in get(mod):
                if v is None or (remove_duplicate and id(v) in memo):
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield (mod_prefix + ("." if mod_prefix else "") + k, v)

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator:
        """(dotted name, parameter) pairs, in registration order, each parameter once."""
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse,
                                   remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator:
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse,
                                   remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_children(self) -> Iterator:
        memo: set = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in memo:
                memo.add(id(m))
                yield name, m

    def children(self) -> Iterator["Module"]:
        for _, m in self.named_children():
            yield m

    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator:
        """(dotted name, module) for self and every descendant, depth first."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, m in self._modules.items():
            if m is None:
                continue
            yield from m.named_modules(memo, prefix + ("." if prefix else "") + name,
                                       remove_duplicate)

    def modules(self) -> Iterator["Module"]:
        for _, m in self.named_modules():
            yield m

    # ---- modes and gradients ----
    def train(self, mode: bool = True) -> "Module":
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for m in self.children():
            m.train(mode)
        return self

    def eval(self) -> "Module":
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Drops (or zeroes) every parameter's .grad."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                g = p.grad
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    # ---- conversion ----
    def apply(self, fn: Callable[["Module"], Any]) -> "Module":
        """fn(m) for every submodule, children first, then self (as for initialisation)."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def _apply(self, fn: Callable[[Tensor], Tensor]) -> "Module":
        """fn over every parameter and buffer, in place: a parameter keeps its identity (an
        optimizer built before keeps working), taking fn's result as its data."""
        for m in self.children():
            m._apply(fn)
        with no_grad():
            for p in self._parameters.values():
                if p is None:
                    continue
                _replace_data(p, fn(p.detach()))
                if p.grad is not None:
                    g = fn(p.grad.detach())
                    p.grad = None
                    p.grad = g
            for k, b in self._buffers.items():
                if b is not None:
                    self._buffers[k] = fn(b)
        return self

    def to(self, *args: Any, **kwargs: Any) -> "Module":
        """to(dtype) converts floating point parameters and buffers; 'cpu' is accepted."""
        dtype = kwargs.pop("dtype", None)
        device = kwargs.pop("device", None)
        kwargs.pop("non_blocking", None)
        if kwargs:
            raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
        for a in args:
            if isinstance(a, _dt.dtype):
                dtype = a
            elif isinstance(a, Tensor):
                dtype = a.dtype
            else:
                device = a
        _device.check_device(device, "to")
        if dtype is None:
            return self
        if not dtype.is_floating_point:
            raise TypeError(f"nn.Module.to only accepts floating point dtypes, but got desired "
                            f"dtype={dtype}")
        return self._apply(lambda t: t.to(dtype) if t.dtype.is_floating_point else t)

    def float(self) -> "Module":
        return self.to(_dt.float32)

    def double(self) -> "Module":
        return self.to(_dt.float64)

    def half(self) -> "Module":
        return self.to(_dt.float16)

    def bfloat16(self) -> "Module":
        return self.to(_dt.bfloat16)

    def cpu(self) -> "Module":
        return self

    def cuda(self, device: Any = None) -> "Module":
        """Parameters to the CUDA device: a CPU-only build has none, so this raises as its."""
        raise _device.unavailable(_device.accelerator_device("cuda", device), "cuda")

    def xpu(self, device: Any = None) -> "Module":
        """Parameters to the XPU device: a CPU-only build has none, so this raises as its."""
        raise _device.unavailable(_device.accelerator_device("xpu", device), "xpu")

    def type(self, dst_type: Any) -> "Module":
        return self._apply(lambda t: t.type(dst_type))

    def share_memory(self) -> "Module":
        return self._apply(lambda t: t.share_memory_() if hasattr(t, "share_memory_") else t)

    # ---- state ----
    def state_dict(self, *args: Any, destination: Any = None, prefix: str = "",
                   keep_vars: bool = False) -> "OrderedDict[str, Tensor]":
        """Parameters and persistent buffers by dotted name (detached unless keep_vars)."""
        if args:  # the legacy positional form (destination, prefix, keep_vars)
            destination, prefix, keep_vars = (list(args) + [destination, prefix, keep_vars][
                len(args):])[:3]
        if destination is None:
            destination = OrderedDict()
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".",
                             keep_vars=keep_vars)
        return destination

    def load_state_dict(self, state_dict: Any, strict: bool = True,
                        assign: bool = False) -> _IncompatibleKeys:
        """Copies matching entries into the parameters and persistent buffers. strict: every
        key must match both ways; shape mismatches are errors either way."""
        if not hasattr(state_dict, "keys"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        own = self.state_dict(keep_vars=True)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        with no_grad():
            for k, target in own.items():
                if k not in state_dict:
                    continue
                src = state_dict[k]
                if not isinstance(src, Tensor):
                    errors.append(f'While copying the parameter named "{k}", expected '
                                  f'torch.Tensor or Tensor-like object from checkpoint but '
                                  f'received {type(src)}')
                    continue
                if tuple(src.shape) != tuple(target.shape):
                    errors.append(f"size mismatch for {k}: copying a param with shape "
                                  f"{_size_str(src)} from checkpoint, the shape in current "
                                  f"model is {_size_str(target)}.")
                    continue
                if assign:
                    _assign(self, k, src)
                else:
                    target.copy_(src)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: " +
                              ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: " +
                              ", ".join(f'"{k}"' for k in missing) + ". ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {self._get_name()}:\n\t" +
                               "\n\t".join(errors))
        return _IncompatibleKeys(missing, unexpected)

    # ---- hooks and calling ----
    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """hook(module, args) before forward; a non-None result replaces args."""
        handle = RemovableHandle(self._forward_pre_hooks)
        _insert(self._forward_pre_hooks, handle.id, hook, prepend)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs.add(handle.id)
        return handle

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False,
                              with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """hook(module, args, output) after forward; a non-None result replaces output."""
        handle = RemovableHandle(self._forward_hooks)
        _insert(self._forward_hooks, handle.id, hook, prepend)
        if with_kwargs:
            self._forward_hooks_with_kwargs.add(handle.id)
        if always_call:
            self._forward_hooks_always_called.add(handle.id)
        return handle

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._forward_pre_hooks or self._forward_hooks or _global_hooks_used[0]:
            return self._call_with_hooks(args, kwargs)
        return self.forward(*args, **kwargs)

    def _call_with_hooks(self, args: tuple, kwargs: dict) -> Any:
        """The call when hooks are registered or pyth.fx traces (which decides whether the
        module runs, with its hooks, or becomes one node of the graph)."""
        if _tracer[0] is not None:
            return _tracer[0].module_call(self, args, kwargs)
        return self._hooked_call(args, kwargs)

    def _hooked_call(self, args: tuple, kwargs: dict) -> Any:
        """forward between its hooks: the global pre-hooks, the module's, forward, then the
        global forward hooks and the module's; always_call hooks run even when that raises."""
        pre = [(h, False) for h in list(_global_forward_pre_hooks.values())]
        pre += [(h, hid in self._forward_pre_hooks_with_kwargs) for hid, h in
                list(self._forward_pre_hooks.items())]
        post = [(h, hid in _global_hooks_with_kwargs, hid in _global_hooks_always_called)
                for hid, h in list(_global_forward_hooks.items())]
        post += [(h, hid in self._forward_hooks_with_kwargs,
                  hid in self._forward_hooks_always_called)
                 for hid, h in list(self._forward_hooks.items())]
        out = None
        called = set()
        try:
            for hook, with_kwargs in pre:
                if with_kwargs:
                    r = hook(self, args, kwargs)
                    if r is not None:
                        if not (isinstance(r, tuple) and len(r) == 2):
                            raise RuntimeError("forward pre-hook must return None or a tuple of "
                                               f"(new_args, new_kwargs), but got {r}.")
                        args, kwargs = r
                else:
                    r = hook(self, args)
                    if r is not None:
                        args = r if isinstance(r, tuple) else (r,)
            out = self.forward(*args, **kwargs)
            for i, (hook, with_kwargs, _) in enumerate(post):
                called.add(i)
                r = hook(self, args, kwargs, out) if with_kwargs else hook(self, args, out)
                if r is not None:
                    out = r
        except Exception:
            for i, (hook, with_kwargs, always) in enumerate(post):
                if always and i not in called:
                    try:
                        if with_kwargs:
                            hook(self, args, kwargs, out)
                        else:
                            hook(self, args, out)
                    except Exception as e:
                        warnings.warn("global module forward hook with ``always_call=True`` "
                                      f"raised an exception that was silenced as another error "
                                      f"was raised in forward: {str(e)}")
            raise
        return out

    # ---- printing ----
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The layer's own settings, shown inside its parentheses."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        for name, m in self._modules.items():
            lines.append(f"({name}): " + _addindent(repr(m), 2))
        main = self._get_name() + "("
        if lines:
            if len(lines) == 1 and not self._modules:
                main += lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    def __getstate__(self) -> dict:
        return self.__dict__.copy()

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)


def _insert(d: "OrderedDict", key: int, value: Any, prepend: bool) -> None:
    d[key] = value
    if prepend:
        d.move_to_end(key, last=False)


def _size_str(t: Tensor) -> str:
    return "pyth.Size(" + str(list(t.shape)) + ")"


def _replace_data(p: Parameter, new: Tensor) -> None:
    """p takes new's data (any dtype) while staying the same Python object."""
    if new.dtype is not p.dtype:
        p.__class__ = _class_for(new.dtype.tensor_class)
    p._h = new.detach()._h


def _assign(module: Module, key: str, src: Tensor) -> None:
    path, _, name = key.rpartition(".")
    mod = module.get_submodule(path)
    if name in mod._parameters:
        old = mod._parameters[name]
        mod._parameters[name] = Parameter(src, old.requires_grad)
    else:
        mod._buffers[name] = src


class _GlobalHandle(RemovableHandle):
    """A global hook's handle: removing the last one turns the check of Module.__call__ off."""

    def remove(self) -> None:
        super().remove()
        for ids in (_global_hooks_with_kwargs, _global_hooks_always_called):
            ids.discard(self.id)
        _global_hooks_used[0] = bool(_global_forward_pre_hooks or _global_forward_hooks or
                                     _tracer[0] is not None)


def register_module_forward_pre_hook(hook: Callable) -> RemovableHandle:
    """hook(module, args) before every module's forward (and before its own pre-hooks)."""
    handle = _GlobalHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    _global_hooks_used[0] = True
    return handle


def register_module_forward_hook(hook: Callable, *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    """hook(module, args, output) after every module's forward (and before its own hooks);
    with_kwargs: hook(module, args, kwargs, output); always_call: also when forward raises."""
    handle = _GlobalHandle(_global_forward_hooks)
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_hooks_with_kwargs.add(handle.id)
    if always_call:
        _global_hooks_always_called.add(handle.id)
    _global_hooks_used[0] = True
    return handle
