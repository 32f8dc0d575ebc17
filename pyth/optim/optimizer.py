"""Optimizer: the base of pyth.optim, PyTorch's parameter groups, state and state dicts.

Parameters are organised in groups (dicts holding "params" and that group's options, the
optimizer's defaults filling what a group does not give); `state` maps each parameter to its
buffers. state_dict() packs both in PyTorch's layout (parameters replaced by their index in
group order), so checkpoints round-trip through load_state_dict.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from copy import deepcopy
from itertools import chain
from typing import Any, Callable

from ..autograd import enable_grad
from ..tensor import Tensor
from . import _kernels

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """Marks a default that every parameter group must give (e.g. an lr without default)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _typename(o: Any) -> str:
    if isinstance(o, Tensor):
        return o.type()
    t = type(o)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def params_with_grad(group: dict) -> tuple[list, list]:
    """The group's parameters that have a gradient, and those gradients."""
    params, grads = [], []
    for p in group["params"]:
        m = p._ag
        if m is not None and m.grad is not None:
            params.append(p)
            grads.append(m.grad)
    return params, grads


class Optimizer:
    """Base class of the optimizers: groups, per-parameter state, state dicts, zero_grad."""

    def __init__(self, params: Any, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + _typename(params))
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        groups = list(params)
        if len(groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    # Options a state dict from an older version may lack, filled in on load (PyTorch's list).
    _OPTION_DEFAULTS: tuple = ()
    # State keys holding the 0-dim float32 counters the kernels advance, kept float32 on load.
    _COUNTERS: tuple = ("step",)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for group in self.param_groups:
            for key, value in self._OPTION_DEFAULTS:
                group.setdefault(key, value)

    def __repr__(self) -> str:
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    # ---- groups ----
    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Adds a group of parameters (with its own options) to optimize from now on."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            params = list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]
        params = [p[1] if isinstance(p, tuple) else p for p in params]
        param_group["params"] = params
        if names:
            if len(names) != len(params):
                raise ValueError("all optimizer params should be with/without names. Some "
                                 "param names are missing")
            param_group["param_names"] = names
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(p))
            if not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        if len(params) != len(set(params)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        seen: set = set()
        for group in self.param_groups:
            seen.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if not seen.isdisjoint(params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # ---- gradients and steps ----
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clears the gradients of every parameter (None, or zeros in place)."""
        for group in self.param_groups:
            for p in group["params"]:
                m = p._ag
                if m is None or m.grad is None:
                    continue
                if set_to_none:
                    m.grad = None
                else:
                    g = m.grad
                    if g.grad_fn is not None:
                        g.detach_()
                    else:
                        g.requires_grad_(False)
                    g.zero_()

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient (closure: re-evaluates the model
        and returns the loss, which step returns)."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            params, grads = params_with_grad(group)
            if params:
                self._update(group, params, grads)
        return loss

    def _update(self, group: dict[str, Any], params: list, grads: list) -> None:
        """Updates one group's parameters that have gradients (one kernel call)."""
        raise NotImplementedError

    def _buffers(self, params: list, keys: tuple, fresh: Callable[[Any], dict]) -> list:
        """For each key, the list of params' state entries (fresh(p) is the state of a
        parameter stepped for the first time, in PyTorch's key order)."""
        columns: list = [[] for _ in keys]
        for p in params:
            s = self.state[p]
            if not s:
                s.update(fresh(p))
            for column, key in zip(columns, keys):
                column.append(s[key])
        return columns

    @staticmethod
    def _evaluate(closure: Callable[[], Any] | None) -> Any:
        if closure is None:
            return None
        with enable_grad():
            return closure()

    # ---- state dicts ----
    def state_dict(self) -> dict[str, Any]:
        """{'state': {index: buffers}, 'param_groups': [options + 'params': indices]}.

        The buffers are the live tensors (as in PyTorch): deep-copy to snapshot them."""
        index: dict[int, int] = {}
        start = 0

        def pack(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                index.setdefault(id(p), i)
            packed["params"] = [index[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        groups = [pack(g) for g in self.param_groups]
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Loads state_dict() output: group options and each parameter's buffers (cast to the
        parameter's dtype; the counters of _COUNTERS as float32)."""
        groups = self.param_groups
        saved = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved),
                          chain.from_iterable(g["params"] for g in groups)))
        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast(param, v, self._COUNTERS)
            else:
                state[k] = v
        for g, s in zip(groups, saved):
            s["params"] = g["params"]
            if "param_names" in g and "param_names" not in s:
                s["param_names"] = g["param_names"]
        self.__setstate__({"state": state, "param_groups": saved})


def _cast(param: Tensor, value: Any, counters: tuple, key: Any = None) -> Any:
    """A loaded state value for param: tensors in param's dtype, counters as float32."""
    if key in counters:
        return _kernels.as_step(value)
    if isinstance(value, Tensor):
        return value.to(param.dtype) if param.dtype.is_floating_point else value
    if isinstance(value, dict):
        return {k: _cast(param, v, counters, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(param, v, counters) for v in value)
    return value
