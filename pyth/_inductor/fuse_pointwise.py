"""Pointwise fusion: the one optimisation of pyth.compile's default mode.

The pass finds, in a traced graph, the nodes that are one pointwise op of lib/THMathOps.h's
unary and binary lists (`x + y`, `pyth.exp(x)`, `x.sigmoid()`, `F.relu(x)` as maximum with 0,
...), on nodes and Python numbers. A node used once, by another such node, joins its user's
group; each group of two or more nodes (a tree of ops whose inner values nothing else sees)
becomes one call_function node of a `FusedPointwise`, which runs the group as one program of
the C evaluator (pyth/_prims/program.py): one pass over row blocks instead of one per op.

At run time a fused node checks its inputs: tensors of one shape, contiguous, all float32 or
all float64, and none requiring grad while grad mode is on. Anything else (broadcasting, a
strided view, integers, a Python number where a tensor was traced, autograd) runs the group's
ops one by one, as the unfused graph would: the same calls, the same results and gradients.
"""

from __future__ import annotations

import operator
from typing import Any, Callable

from ..autograd.grad_mode import is_grad_enabled
from ..fx.graph_module import GraphModule
from ..fx.node import Node
from ..overrides import NAMESPACES
from ..tensor import Tensor
from .._prims import program as _program

_OPERATORS: dict[Callable, str] = {
    operator.add: "add", operator.sub: "sub", operator.mul: "mul", operator.truediv: "div",
    operator.pow: "pow", operator.floordiv: "floor_divide", operator.mod: "remainder",
    operator.neg: "neg", operator.abs: "abs"}
# ops left out: polygamma's function takes (n, input), the opcode (input, n)
_LEFT_OUT = frozenset({"polygamma"})
# the ops whose functions and methods take a Python number as an operand in eager pyth
_TAKE_SCALARS = frozenset({"add", "sub", "mul", "div", "pow", "floor_divide", "remainder",
                           "fmod"})


def _functions() -> dict[Callable, str]:
    """The public functions that are one op of the evaluator: pyth.<op> (and relu)."""
    found: dict[Callable, str] = {}
    for prefix in ("pyth", "pyth.nn.functional"):
        ns = NAMESPACES.get(prefix)
        for name in (*_program.OPCODES, "relu"):
            if name in _LEFT_OUT:
                continue
            fn = getattr(ns, name, None) if ns is not None else None
            if callable(fn) and fn not in found:
                found[fn] = name
    return found


def _is_scalar(a: Any) -> bool:
    return type(a) in (int, float)


def _pointwise(node: Node, functions: dict[Callable, str]) -> tuple[str, list] | None:
    """(opcode name, operands) when node is one op the evaluator runs, else None."""
    if node.kwargs:
        return None
    if node.op == "call_function":
        name = _OPERATORS.get(node.target) if callable(node.target) else None
        if name is None:
            name = functions.get(node.target) if callable(node.target) else None
            if name is not None and name not in _TAKE_SCALARS and \
                    not all(isinstance(a, Node) for a in node.args):
                return None
        elif not any(isinstance(a, Node) for a in node.args):
            return None
    elif node.op == "call_method" and isinstance(node.target, str):
        name = node.target if ((node.target in _program.OPCODES and node.target not in _LEFT_OUT)
                               or node.target == "relu") else None
        if name is not None and (not node.args or not isinstance(node.args[0], Node)):
            return None
    else:
        return None
    if name is None:
        return None
    operands = list(node.args)
    if name == "relu":
        name, operands = "maximum", operands + [0.0]
    unary = name in _program.UNARY
    if len(operands) != (1 if unary else 2):
        return None
    if not all(isinstance(a, Node) or _is_scalar(a) for a in operands):
        return None
    if unary and not isinstance(operands[0], Node):
        return None
    if not any(isinstance(a, Node) for a in operands):
        return None
    return name, operands


def _unfused_function(steps: list[tuple[str, Any, tuple]], ninputs: int) -> Callable:
    """The steps as one Python function of the inputs (generated once, as pyth.fx generates a
    graph's forward), so the unfused path costs what the unfused graph did."""
    names: dict[str, Any] = {}
    lines = [f"def unfused({', '.join(f'i{k}' for k in range(ninputs))}):"]

    def arg(a: Any) -> str:
        if type(a) is tuple and len(a) == 2 and a[0] in ("in", "step"):
            return f"{'i' if a[0] == 'in' else 's'}{a[1]}"
        names[f"c{len(names)}"] = a
        return f"c{len(names) - 1}"
    for k, (kind, target, args) in enumerate(steps):
        text = [arg(a) for a in args]
        if kind == "call_method":
            lines.append(f"    s{k} = {text[0]}.{target}({', '.join(text[1:])})")
        else:
            names[f"f{k}"] = target
            lines.append(f"    s{k} = f{k}({', '.join(text)})")
    lines.append(f"    return s{len(steps) - 1}")
    namespace = dict(names)
    exec("\n".join(lines), namespace)
    return namespace["unfused"]


class FusedPointwise:
    """A group of pointwise ops as one program of the C evaluator, with the group's ops
    (`steps`) to run one by one for inputs the evaluator does not take."""

    def __init__(self, program: list[tuple[int, int, int, int]], scalars: list[float],
                 steps: list[tuple[str, Any, tuple]], names: list[str]) -> None:
        self.program = program
        self.scalars = scalars
        self.steps = steps
        self._unfused = _unfused_function(steps, len({a[1] for _, _, args in steps for a in args
                                                      if type(a) is tuple and a[:1] == ("in",)}))
        self.__name__ = "fused_" + "_".join(names)
        self.__qualname__ = self.__name__

    def __repr__(self) -> str:
        return f"<{self.__name__}: {len(self.program)} pointwise ops>"

    def fusable(self, inputs: tuple) -> bool:
        """Whether the evaluator takes these inputs (else the ops run unfused)."""
        grad = is_grad_enabled()
        for t in inputs:   # the cheap refusals first: autograd is the common one
            if not isinstance(t, Tensor) or (grad and t.requires_grad):
                return False
        first = inputs[0]
        dt, shape = first.dtype, first.shape
        if dt not in _program.DTYPES:
            return False
        for t in inputs:
            if t.dtype is not dt or t.shape != shape or not t.is_contiguous():
                return False
        return True

    def unfused(self, inputs: tuple) -> Any:
        """The group's ops one by one, as the graph ran them before fusion."""
        return self._unfused(*inputs)

    def __call__(self, *inputs: Any) -> Any:
        if self.fusable(inputs):
            return _program.eval_program(self.program, inputs, self.scalars)
        return self.unfused(inputs)


def _build(root: Node, info: dict[Node, tuple[str, list]], absorbed: dict[Node, Node]
           ) -> tuple[FusedPointwise, list[Node], list[Node]] | None:
    """The fused op of root's group, its input nodes and the group's nodes (graph order);
    None when the group exceeds the evaluator's limits."""
    inputs: list[Node] = []
    scalars: list[float] = []
    scalar_slots: dict[str, int] = {}
    raw: list[tuple[str, Any, Any, Any]] = []   # (op, dst temp, a ref, b ref)
    steps: list[tuple[str, Any, tuple]] = []
    members: list[Node] = []
    free: list[int] = []
    count = [0]

    def temp() -> int:
        if free:
            return free.pop()
        count[0] += 1
        return count[0] - 1

    def ref(a: Any, step_of: dict) -> tuple[Any, Any]:
        """(program operand, step argument) of one operand."""
        if isinstance(a, Node) and a in step_of:
            return ("tmp", step_of[a][1]), ("step", step_of[a][0])
        if isinstance(a, Node):
            if a not in inputs:
                inputs.append(a)
            return ("in", inputs.index(a)), ("in", inputs.index(a))
        value = float(a)
        if repr(value) not in scalar_slots:   # by repr: -0.0 is not 0.0
            scalar_slots[repr(value)] = len(scalars)
            scalars.append(value)
        return ("sc", scalar_slots[repr(value)]), a

    step_of: dict[Node, tuple[int, int]] = {}

    def emit(node: Node) -> None:
        name, operands = info[node]
        for a in operands:
            if isinstance(a, Node) and absorbed.get(a) is node:
                emit(a)
        refs = [ref(a, step_of) for a in operands]
        for (kind, k), _ in refs:
            if kind == "tmp":
                free.append(k)
        dst = temp()
        a_ref = refs[0][0]
        b_ref = refs[1][0] if len(refs) > 1 else None
        raw.append((name, dst, a_ref, b_ref))
        step_of[node] = (len(steps), dst)
        # the node's own call (relu's appended 0 is the program's, not the call's)
        steps.append((node.op, node.target, tuple(r[1] for r in refs[:len(node.args)])))
        members.append(node)

    emit(root)
    if count[0] > _program.MAX_TEMPS or len(inputs) > _program.MAX_INPUTS or \
            len(scalars) > _program.MAX_SCALARS or len(raw) > _program.MAX_INSTRUCTIONS:
        return None
    base = {"in": 0, "sc": len(inputs), "tmp": _program.first_temp(len(inputs), len(scalars))}

    def slot(r: Any) -> int:
        return -1 if r is None else base[r[0]] + r[1]
    program = [(_program.OPCODES[name], base["tmp"] + dst, slot(a), slot(b))
               for name, dst, a, b in raw]
    fused = FusedPointwise(program, scalars, steps, [r[0] for r in raw])
    return fused, inputs, members


def fuse_pointwise(gm: GraphModule) -> GraphModule:
    """Replace each group of two or more pointwise ops of gm's graph by one fused node (in
    place; gm is recompiled) and return gm."""
    graph = gm.graph
    functions = _functions()
    info = {n: p for n in graph.nodes if (p := _pointwise(n, functions)) is not None}
    absorbed: dict[Node, Node] = {}
    for node in info:
        users = list(node.users)
        if len(users) == 1 and users[0] in info:
            uses = sum(1 for a in info[users[0]][1] if a is node)
            if uses == 1:
                absorbed[node] = users[0]
    changed = False
    for root in [n for n in info if n not in absorbed]:
        if not any(absorbed.get(a) is root for a in info[root][1] if isinstance(a, Node)):
            continue   # a lone op: nothing to fuse
        built = _build(root, info, absorbed)
        if built is None:
            continue
        fused, inputs, members = built
        with graph.inserting_before(root):
            node = graph.call_function(fused, tuple(inputs))
        root.replace_all_uses_with(node)
        for m in reversed(members):
            graph.erase_node(m)
        changed = True
    if changed:
        graph.lint()
        gm.recompile()
    return gm
