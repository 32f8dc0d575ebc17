"""One way to declare a backward (docs/autograd.md): every differentiable op of pyth's own is an
`Op` row (a formula, optionally with first-order C calls), recorded as that row's node. Read
from the source (no internal `autograd.Function`, no node classes outside the graph's own
modules) and from the graphs the layers and compositions build (every node an op's row or one
of the graph's structural nodes), with double backward of each through its formula."""

from __future__ import annotations

import ast
import pathlib
from typing import Any, Callable

import pytest

import pyth
from pyth.autograd.function import BackwardCFunction
from pyth.autograd.graph import AccumulateGrad
from pyth.autograd.pointwise_nodes import PointwiseNode
from pyth.autograd.record import FormulaNode, Op
from pyth.autograd.view_nodes import AsStridedBackward0, CopySlices
from pyth.nn import functional as F

ROOT = pathlib.Path(__file__).resolve().parent.parent / "pyth"

# the modules that define the graph's node classes: the row's node, its lean form, the leaf's
# accumulator, the user's Function node and the two nodes of views and in-place writes
NODE_MODULES = {"autograd/record.py", "autograd/pointwise_nodes.py", "autograd/graph.py",
                "autograd/function.py", "autograd/view_nodes.py"}
NODE_BASES = {"Node", "FormulaNode", "PointwiseNode", "KernelNode", "BackwardCFunction"}


def _classes(path: pathlib.Path) -> list[tuple[str, set[str]]]:
    """(class name, the names of its bases) for every class defined anywhere in path."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ClassDef):
            bases = {b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "")
                     for b in node.bases}
            out.append((node.name, bases))
    return out


def _violations(paths: list[pathlib.Path]) -> list[str]:
    bad = []
    for p in paths:
        rel = p.relative_to(ROOT).as_posix()
        for name, bases in _classes(p):
            if "Function" in bases and rel != "autograd/function.py":
                bad.append(f"{rel}: {name} subclasses autograd.Function")
            if bases & NODE_BASES and rel not in NODE_MODULES:
                bad.append(f"{rel}: {name} is a node class of its own")
    return bad


def test_no_internal_function_or_node_class() -> None:
    assert _violations(sorted(ROOT.rglob("*.py"))) == []


def test_the_source_check_can_fail(tmp_path: pathlib.Path) -> None:
    d = tmp_path / "pyth" / "nn"
    d.mkdir(parents=True)
    f = d / "_x.py"
    f.write_text("class A(Function):\n    pass\nclass B(kernel_node.KernelNode):\n    pass\n")
    global ROOT
    old, ROOT = ROOT, tmp_path / "pyth"
    try:
        assert _violations([f]) == ["nn/_x.py: A subclasses autograd.Function",
                                    "nn/_x.py: B is a node class of its own"]
    finally:
        ROOT = old


def test_kernel_node_module_is_gone() -> None:
    assert not (ROOT / "autograd" / "kernel_node.py").exists()


_STRUCTURAL = (AccumulateGrad, CopySlices, AsStridedBackward0)


def _nodes(t: Any) -> list:
    """Every node of t's graph (the library's own edges, not the public revealing view)."""
    seen, todo, out = set(), [t.grad_fn], []
    while todo:
        n = todo.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        out.append(n)
        todo.extend(e[0] for e in n._next)
    return out


def _x(*shape: int, low: float = -1.0, high: float = 1.0) -> pyth.Tensor:
    g = pyth.Generator().manual_seed(sum(shape))
    t = pyth.rand(*shape, generator=g, dtype=pyth.float64) * (high - low) + low
    return t.requires_grad_()


def _ctc() -> pyth.Tensor:
    lp = _x(6, 2, 4).log_softmax(2).detach().requires_grad_()
    return F.ctc_loss(lp, pyth.tensor([[1, 2], [3, 1]]), [6, 5], [2, 2])


def _rnn(kind: str) -> Any:
    pyth.manual_seed(0)
    return getattr(pyth.nn, kind)(4, 3, num_layers=2, bidirectional=True).double()


# the layers' kernels and the compositions that differentiate themselves: name -> a scalar
# function of its float64 inputs
CALLS: dict[str, tuple[Callable, Callable]] = {
    "linear": (lambda: (_x(3, 4), _x(2, 4), _x(2)), F.linear),
    "conv2d": (lambda: (_x(1, 2, 5, 5), _x(3, 2, 3, 3)), F.conv2d),
    "conv_transpose2d": (lambda: (_x(1, 2, 3, 3), _x(2, 3, 2, 2)), F.conv_transpose2d),
    "max_pool2d": (lambda: (_x(1, 2, 4, 4),), lambda x: F.max_pool2d(x, 2)),
    "avg_pool2d": (lambda: (_x(1, 2, 4, 4),), lambda x: F.avg_pool2d(x, 2)),
    "batch_norm": (lambda: (_x(4, 3), _x(3), _x(3)),
                   lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True)),
    "layer_norm": (lambda: (_x(2, 5), _x(5), _x(5)),
                   lambda x, w, b: F.layer_norm(x, (5,), w, b)),
    "embedding": (lambda: (_x(5, 3),), lambda w: F.embedding(pyth.tensor([[0, 2], [4, 2]]), w)),
    "embedding_bag": (lambda: (_x(5, 3),),
                      lambda w: F.embedding_bag(pyth.tensor([0, 2, 4, 2]), w,
                                                pyth.tensor([0, 2]), mode="mean")),
    "scaled_dot_product_attention": (
        lambda: (_x(1, 2, 3, 4), _x(1, 2, 5, 4), _x(1, 2, 5, 3)),
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True)),
    "softmax": (lambda: (_x(3, 4),), lambda x: F.softmax(x, 1)),
    "log_softmax": (lambda: (_x(3, 4),), lambda x: F.log_softmax(x, 1)),
    "nll_loss": (lambda: (_x(3, 4),), lambda x: F.nll_loss(x, pyth.tensor([0, 3, 1]))),
    "cross_entropy": (lambda: (_x(3, 4),),
                      lambda x: F.cross_entropy(x, pyth.tensor([0, 3, 1]))),
    "relu": (lambda: (_x(3, 4),), F.relu),
    "gelu": (lambda: (_x(3, 4),), F.gelu),
    "elu": (lambda: (_x(3, 4),), F.elu),
    "grid_sample": (lambda: (_x(1, 1, 3, 3), _x(1, 2, 2, 2, low=-0.9, high=0.9)),
                    lambda x, grid: F.grid_sample(x, grid, align_corners=False)),
    "ctc_loss": (lambda: (), _ctc),
    "lstm": (lambda: (_x(3, 2, 4),), lambda x: _rnn("LSTM")(x)[0]),
    "gru": (lambda: (_x(3, 2, 4),), lambda x: _rnn("GRU")(x)[0]),
    "rnn_tanh": (lambda: (_x(3, 2, 4),), lambda x: _rnn("RNN")(x)[0]),
    "logcumsumexp": (lambda: (_x(3, 4),), lambda x: x.logcumsumexp(1)),
    "polygamma": (lambda: (_x(3, low=0.5, high=2.0),), lambda x: pyth.polygamma(1, x)),
    "igamma": (lambda: (_x(3, low=0.5, high=2.0),),
               lambda x: pyth.igamma(pyth.tensor([0.5, 1.5, 3.0], dtype=pyth.float64), x)),
    "standard_gamma": (lambda: (_x(3, low=0.5, high=2.0),),
                       lambda c: pyth.distributions.Gamma(c, 1.0).rsample()),
    "dirichlet": (lambda: (_x(3, low=0.5, high=2.0),),
                  lambda c: pyth.distributions.Dirichlet(c).rsample()),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_layers_record_op_rows(name: str) -> None:
    make, fn = CALLS[name]
    y = fn(*make())
    bad = [type(n).__name__ for n in _nodes(y)
           if not (isinstance(n, (FormulaNode, PointwiseNode)) and isinstance(n.op, Op))
           and not isinstance(n, _STRUCTURAL)]
    assert bad == [], f"{name} records {bad}"
    assert not any(isinstance(n, BackwardCFunction) for n in _nodes(y))


def test_the_graph_check_can_fail() -> None:
    class Twice(pyth.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: pyth.Tensor) -> pyth.Tensor:
            return x * 2

        @staticmethod
        def backward(ctx: Any, g: pyth.Tensor) -> pyth.Tensor:
            return g * 2

    y = Twice.apply(_x(3)).exp()
    assert any(isinstance(n, BackwardCFunction) for n in _nodes(y))


# PyTorch has no second derivative of these either (its *_backward ops are not differentiable)
NO_SECOND = {"ctc_loss", "grid_sample", "standard_gamma", "dirichlet"}


@pytest.mark.parametrize("name", sorted(set(CALLS) - NO_SECOND))
def test_second_derivatives_through_the_formulas(name: str) -> None:
    make, fn = CALLS[name]
    inputs = make()
    if not inputs:
        pytest.skip("no float64 input")
    inputs = tuple(t.detach().double().requires_grad_() for t in inputs)
    assert pyth.autograd.gradgradcheck(lambda *a: fn(*a), inputs)
