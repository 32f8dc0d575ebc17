"""pyth.fx against torch.fx: the same model written for each traces to the same graph (node
count, opcodes, targets by name), the GraphModule computes what the eager model computes (values
and gradients), graphs edit and recompile, Interpreter / Transformer / ShapeProp agree with
torch's, tracing refuses control flow on traced values with torch.fx's errors, and the
`__torch_function__` protocol (pyth.overrides) lets a tensor-like class take over a call."""

from __future__ import annotations

import io
import operator
import re

import numpy as np
import pytest

import pyth
import pyth.fx
import pyth.nn.functional as F
from pyth import nn
from pyth.fx.passes.shape_prop import ShapeProp

torch = pytest.importorskip("torch")
import torch.fx  # noqa: E402
import torch.fx.passes.shape_prop  # noqa: E402


# ---- the same models in pyth and torch ---------------------------------------------------------

def models(lib, libnn, libF):
    """name -> (model class, example input shape), each written once for either library."""

    class MLP(libnn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = libnn.Linear(6, 8)
            self.act = libnn.ReLU()
            self.fc2 = libnn.Linear(8, 3)

        def forward(self, x):
            return self.fc2(self.act(self.fc1(x))).softmax(dim=-1)

    class CNN(libnn.Module):
        def __init__(self):
            super().__init__()
            self.features = libnn.Sequential(
                libnn.Conv2d(2, 4, 3, padding=1), libnn.BatchNorm2d(4), libnn.ReLU(),
                libnn.MaxPool2d(2))
            self.head = libnn.Linear(4 * 3 * 3, 5)

        def forward(self, x):
            y = self.features(x)
            y = libF.avg_pool2d(y, 1)
            return self.head(lib.flatten(y, 1))

    class Block(libnn.Module):
        """A pre-norm attention block: layer norm, qkv projection, causal attention, MLP."""

        def __init__(self, dim=8, heads=2):
            super().__init__()
            self.heads = heads
            self.ln1 = libnn.LayerNorm(dim)
            self.qkv = libnn.Linear(dim, 3 * dim)
            self.proj = libnn.Linear(dim, dim)
            self.ln2 = libnn.LayerNorm(dim)
            self.mlp = libnn.Sequential(libnn.Linear(dim, 2 * dim), libnn.GELU(),
                                        libnn.Linear(2 * dim, dim))

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
            q = q.view(B, T, self.heads, C // self.heads).transpose(1, 2)
            k = k.view(B, T, self.heads, C // self.heads).transpose(1, 2)
            v = v.view(B, T, self.heads, C // self.heads).transpose(1, 2)
            y = libF.scaled_dot_product_attention(q, k, v, is_causal=True)
            y = y.transpose(1, 2).contiguous().view(B, T, C)
            x = x + self.proj(y)
            return x + self.mlp(self.ln2(x))

    class Functional(libnn.Module):
        """Methods, operators, getitem, keyword arguments, a parameter used in expressions."""

        def __init__(self):
            super().__init__()
            self.scale = libnn.Parameter(lib.ones(4) * 0.5)
            self.register_buffer("shift", lib.arange(4.0))

        def forward(self, x, y):
            a = lib.relu(x) * self.scale + self.shift
            b = (a - y).exp().sum(dim=1, keepdim=True)
            c = libF.relu(x.t()).t()[:, 1:3]
            return (a @ self.scale.t()) / 2 + b.squeeze(1), -c * 3, a[0, :2].pow(2)

    return {"MLP": (MLP, [(5, 6)]), "CNN": (CNN, [(2, 2, 6, 6)]), "Block": (Block, [(2, 5, 8)]),
            "Functional": (Functional, [(3, 4), (3, 4)])}


P = models(pyth, nn, F)
T = models(torch, torch.nn, torch.nn.functional)


def pair(name):
    """The pyth and torch models of one kind with the same weights, and example inputs."""
    torch.manual_seed(0)
    tm = T[name][0]()
    pm = P[name][0]()
    pm.load_state_dict({k: pyth.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    rng = np.random.default_rng(1)
    inputs = [rng.standard_normal(s).astype(np.float32) for s in P[name][1]]
    return pm, tm, [pyth.tensor(a) for a in inputs], [torch.tensor(a) for a in inputs]


def target_name(target) -> str:
    if isinstance(target, str):
        return target
    return pyth.overrides.qualified_name(target).replace("pyth.", "torch.")


def structure(gm):
    return [(n.op, target_name(n.target)) for n in gm.graph.nodes]


def torch_name(fn) -> str:
    """A torch function by its public name (torch.X, torch.nn.functional.X, operator.X)."""
    name = getattr(fn, "__name__", "")
    for ns, prefix in ((torch.nn.functional, "torch.nn.functional"), (torch, "torch")):
        if getattr(ns, name, None) is fn:
            return f"{prefix}.{name}"
    name = torch.fx.node._get_qualified_name(fn)
    return {"getattr": "builtins.getattr"}.get(name, name.replace("_operator.", "operator."))


def torch_structure(gm):
    return [(n.op, torch_name(n.target) if n.op == "call_function" else n.target)
            for n in gm.graph.nodes]


def values(x) -> np.ndarray:
    return np.array(x.tolist()) if hasattr(x, "tolist") else np.array(x)


# ---- tracing real models ------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(P))
def test_graph_matches_torch_fx(name):
    pm, tm, _, _ = pair(name)
    pg, tg = pyth.fx.symbolic_trace(pm), torch.fx.symbolic_trace(tm)
    assert structure(pg) == torch_structure(tg)
    assert [n.name for n in pg.graph.nodes] == [n.name for n in tg.graph.nodes]
    assert type(pg).__name__ == type(tg).__name__ == name


@pytest.mark.parametrize("name", sorted(P))
def test_graph_module_computes_the_eager_model(name):
    pm, tm, px, tx = pair(name)
    pm.eval(), tm.eval()
    gm = pyth.fx.symbolic_trace(pm)
    got, eager, want = gm(*px), pm(*px), tm(*tx)
    got, eager, want = [r if isinstance(r, tuple) else (r,) for r in (got, eager, want)]
    for g, e, w in zip(got, eager, want):
        np.testing.assert_array_equal(values(g), values(e))
        np.testing.assert_allclose(values(g), w.detach().numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(P))
def test_gradients_through_the_graph_module_are_the_eager_models(name):
    pm, _, px, _ = pair(name)
    gm = pyth.fx.symbolic_trace(pm)
    assert {k for k, _ in gm.named_parameters()} <= {k for k, _ in pm.named_parameters()}

    def loss(m):
        out = m(*px)
        out = out if isinstance(out, tuple) else (out,)
        return sum((o * o).sum() for o in out)
    loss(pm).backward()
    eager = {k: values(p.grad) for k, p in pm.named_parameters()}
    pm.zero_grad()
    loss(gm).backward()
    for k, p in gm.named_parameters():   # the same Parameter objects: trainable as the model
        assert p is pm.get_parameter(k)
        np.testing.assert_allclose(values(p.grad), eager[k], rtol=1e-5, atol=1e-6)


def test_code_str_and_print_readable_read_as_torch_fx():
    pm, tm, _, _ = pair("MLP")
    pg, tg = pyth.fx.symbolic_trace(pm), torch.fx.symbolic_trace(tm)
    assert pg.code == tg.code
    assert str(pg.graph) == str(tg.graph)
    buf = io.StringIO()
    import contextlib
    with contextlib.redirect_stdout(buf):
        text = pg.print_readable()
    assert buf.getvalue() == text + "\n"
    want = tg.print_readable(print_output=False)
    want = "\n".join(line for line in want.splitlines() if not line.strip().startswith("#"))
    assert text.replace("pyth.nn.Module", "torch.nn.Module").strip() == want.strip()
    assert str(pg).startswith(repr(pm).replace("MLP", "MLP", 1)) and pg.code in str(pg)


def test_sequential_code_reads_as_torch_fx():
    pg = pyth.fx.symbolic_trace(nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Flatten()))
    tg = torch.fx.symbolic_trace(torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(),
                                                     torch.nn.Flatten()))
    assert pg.code == tg.code and str(pg.graph) == str(tg.graph)
    assert pg(pyth.ones(1, 2)).shape == (1, 3)


def test_a_function_with_methods_operators_getitem_and_kwargs():
    def f(lib):
        def fn(x, y, k=2):
            a = lib.relu(x + y) * k
            b = a.sum(dim=0, keepdim=True).transpose(0, 1)
            c = lib.cat([a, x], dim=1)[1:, ::2]
            s = x.size(0), x.dim(), x.shape[1]
            return b.mean(), c, s, lib.tanh(-a).clamp(min=-0.5, max=0.5)
        return fn
    pg, tg = pyth.fx.symbolic_trace(f(pyth)), torch.fx.symbolic_trace(f(torch))
    assert structure(pg) == torch_structure(tg)
    assert [(n.args.__len__(), sorted(n.kwargs)) for n in pg.graph.nodes] == \
        [(n.args.__len__(), sorted(n.kwargs)) for n in tg.graph.nodes]
    x, y = np.arange(12.0).reshape(3, 4) - 5, np.ones((3, 4))
    got = pg(pyth.tensor(x), pyth.tensor(y))
    want = tg(torch.tensor(x), torch.tensor(y))
    for g, w in zip(got[:2] + got[3:], want[:2] + want[3:]):
        np.testing.assert_allclose(values(g), w.numpy())
    assert got[2] == tuple(want[2])


def test_functions_of_every_kind_record_one_node():
    """Recorded kernel-backed functions, raw kernels, compositions, factories of a like, the
    nn.functional layers: each call is one call_function node with the public function."""
    def f(lib, libF):
        def fn(x, y):
            return (lib.isnan(x), lib.asinh(x), lib.logical_and(x, y), lib.fmax(x, y),
                    lib.nan_to_num(x), lib.zeros_like(x), lib.ravel(x), lib.flatten(x),
                    lib.softmax(x, 0), lib.cat([x, y]), lib.where(x > 0, x, y),
                    libF.layer_norm(x, (2,)), libF.gelu(x), libF.dropout(x, 0.5, False),
                    libF.conv1d(x.view(1, 1, 2), y.view(1, 1, 2)), libF.linear(x, y.view(1, 2)))
        return fn
    pg = pyth.fx.symbolic_trace(f(pyth, F))
    tg = torch.fx.symbolic_trace(f(torch, torch.nn.functional))
    assert structure(pg) == torch_structure(tg)
    x, y = np.array([0.5, -1.0], dtype=np.float32), np.array([2.0, 1.0], dtype=np.float32)
    for got, want in zip(pg(pyth.tensor(x), pyth.tensor(y)), tg(torch.tensor(x), torch.tensor(y))):
        np.testing.assert_allclose(values(got), want.numpy(), rtol=1e-5, atol=1e-6)


def test_nested_modules_are_inlined_and_leaves_are_calls():
    class Inner(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)
            self.w = nn.Parameter(pyth.ones(3))

        def forward(self, x):
            return self.lin(x) * self.w

    class Outer(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = Inner()
            self.seq = nn.Sequential(nn.Tanh(), Inner())

        def forward(self, x):
            return self.seq(self.inner(x))

    gm = pyth.fx.symbolic_trace(Outer())
    assert [(n.op, n.target) for n in gm.graph.nodes if n.op != "call_function"] == [
        ("placeholder", "x"), ("call_module", "inner.lin"), ("get_attr", "inner.w"),
        ("call_module", "seq.0"), ("call_module", "seq.1.lin"), ("get_attr", "seq.1.w"),
        ("output", "output")]
    assert 'getattr(self.seq, "0")' in gm.code
    assert [n.name for n in gm.graph.nodes][1] == "inner_lin"


def test_tensors_of_the_module_meet_proxies():
    """A buffer on the left of an operator, indexed by traced sizes, a parameter's method: as
    torch.fx records them (the buffer a get_attr node, a slice bound a proxy)."""
    def model(lib, libnn):
        class Masked(libnn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("mask", lib.ones(4, 4).tril())
                self.lin = libnn.Linear(4, 4)

            def forward(self, x):
                T = x.size(1)
                y = self.mask * x
                return (self.mask[0] - y) @ self.lin.weight[:T, :T].t(), 2 ** y, 1 - x
        return Masked()
    pm, tm = model(pyth, nn), model(torch, torch.nn)
    pm.load_state_dict({k: pyth.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    pg, tg = pyth.fx.symbolic_trace(pm), torch.fx.symbolic_trace(tm)
    assert [op for op, _ in structure(pg)] == [op for op, _ in torch_structure(tg)]
    assert [n.target for n in pg.graph.nodes if n.op == "get_attr"] == \
        [n.target for n in tg.graph.nodes if n.op == "get_attr"]
    x = np.arange(16.0, dtype=np.float32).reshape(4, 4)
    for got, want in zip(pg(pyth.tensor(x)), tg(torch.tensor(x))):
        np.testing.assert_allclose(values(got), want.detach().numpy(), rtol=1e-6)

    class Causal(nn.Module):   # (torch.fx cannot trace a tensor sliced by a proxy; pyth.fx can)
        def __init__(self):
            super().__init__()
            self.register_buffer("mask", pyth.ones(4, 4).tril())

        def forward(self, x):
            T = x.size(1)
            return self.mask[:T, :T] * x
    gm = pyth.fx.symbolic_trace(Causal())
    assert ("call_method", "__getitem__") in structure(gm)
    x = pyth.arange(9.0).reshape(3, 3)
    assert gm(x).tolist() == Causal()(x).tolist() == (pyth.ones(3, 3).tril() * x).tolist()
    with pytest.raises(TypeError):   # a refused operand is still refused outside tracing
        pyth.ones(2) + object()
    with pytest.raises(IndexError):   # as torch's
        pyth.ones(2)[object()]
    with pytest.raises(IndexError):
        torch.ones(2)[object()]
    gm = pyth.fx.symbolic_trace(lambda t, i: (pyth.arange(3.0) < t, pyth.arange(3.0)[i],
                                              pyth.ones(3) @ t))
    assert [(n.op, n.target) for n in gm.graph.nodes if n.op == "call_method"] == [
        ("call_method", "lt"), ("call_method", "__getitem__"), ("call_method", "matmul")]
    t, i = pyth.tensor([0.5, 1.5, 2.5]), pyth.tensor([2, 0])
    got = gm(t, i)
    assert got[0].tolist() == [True, True, True] and got[1].tolist() == [2.0, 0.0]
    assert got[2].item() == 4.5


def test_deepcopy_of_a_graph_module():
    import copy
    pm, _, px, _ = pair("MLP")
    gm = pyth.fx.symbolic_trace(pm)
    dup = copy.deepcopy(gm)
    assert type(dup).__name__ == "MLP" and dup.code == gm.code
    assert dup.fc1.weight is not gm.fc1.weight
    np.testing.assert_array_equal(values(dup(*px)), values(gm(*px)))


# ---- Graph and Node ------------------------------------------------------------------------------

def simple(lib):
    def fn(x):
        return lib.relu(x).neg() + 1
    return fn


def test_node_surface():
    gm = pyth.fx.symbolic_trace(simple(pyth))
    x, relu, neg, add, out = gm.graph.nodes
    assert (x.op, relu.op, neg.op, add.op, out.op) == (
        "placeholder", "call_function", "call_method", "call_function", "output")
    assert relu.target is pyth.relu and neg.target == "neg" and add.target is operator.add
    assert list(x.users) == [relu] and relu.all_input_nodes == [x]
    assert add.args == (neg, 1) and add.kwargs == {} and out.args == (add,)
    assert relu.next is neg and neg.prev is relu and len(gm.graph.nodes) == 5
    assert [n.name for n in reversed(gm.graph.nodes)] == ["output", "add", "neg", "relu", "x"]
    neg.append(relu)   # move relu after neg, then back before it
    assert [n.name for n in gm.graph.nodes] == ["x", "neg", "relu", "add", "output"]
    neg.prepend(relu)
    assert [n.name for n in gm.graph.nodes] == ["x", "relu", "neg", "add", "output"]
    relu.meta["note"] = 1
    assert relu.meta == {"note": 1}
    assert gm.graph.find_nodes(op="call_method", target="neg") == [neg]


def test_replace_relu_with_gelu_and_recompile():
    gm = pyth.fx.symbolic_trace(simple(pyth))
    tg = torch.fx.symbolic_trace(simple(torch))
    for g, lib in ((gm, F), (tg, torch.nn.functional)):
        for n in g.graph.nodes:
            if n.op == "call_function" and n.target in (pyth.relu, torch.relu):
                with g.graph.inserting_after(n):
                    new = g.graph.call_function(lib.gelu, (n.args[0],))
                n.replace_all_uses_with(new)
                g.graph.erase_node(n)
        g.graph.lint()
        g.recompile()
    assert "pyth.nn.functional.gelu(x)" in gm.code and "relu" not in gm.code
    assert gm.code == tg.code.replace("torch._C._nn.", "pyth.nn.functional.")
    x = np.linspace(-3, 3, 7)
    np.testing.assert_allclose(values(gm(pyth.tensor(x))), tg(torch.tensor(x)).numpy())


def test_insert_erase_and_dead_code_elimination():
    gm = pyth.fx.symbolic_trace(simple(pyth))
    g = gm.graph
    x, relu, neg, add, out = g.nodes
    with g.inserting_before(add):
        doubled = g.call_method("mul", (neg, 2.0))
        unused = g.call_function(pyth.exp, (x,))
    add.update_arg(0, doubled)
    assert list(neg.users) == [doubled] and unused.users == {}
    with pytest.raises(RuntimeError, match=r"Tried to erase Node neg but it still had 1 users"):
        g.erase_node(neg)
    assert g.eliminate_dead_code() is True and unused not in list(g.nodes)
    assert g.eliminate_dead_code() is False
    gm.recompile()
    v = np.array([-1.0, 2.0])
    np.testing.assert_allclose(values(gm(pyth.tensor(v))), -2 * np.maximum(v, 0) + 1)
    # move a node before its input: lint names the problem as torch.fx does
    relu.prepend(doubled)
    with pytest.raises(RuntimeError, match="Argument 'neg' of Node 'mul' was used before it has "
                                           "been defined!"):
        g.lint()


def test_a_graph_built_by_hand():
    g = pyth.fx.Graph()
    a = g.placeholder("a")
    b = g.placeholder("b", default_value=3)
    s = g.call_function(pyth.add, (a, b))
    m = g.call_method("sum", (s,))
    g.output(m)
    gm = pyth.fx.GraphModule(nn.Module(), g)
    assert gm.code.strip().splitlines()[0] == "def forward(self, a, b = 3):"
    assert gm(pyth.ones(2)).item() == 8.0 and gm(pyth.ones(2), 1).item() == 4.0
    with pytest.raises(TypeError):
        gm()
    with pytest.raises(TypeError):
        gm(pyth.ones(1), 1, 2)


def test_print_tabular_without_tabulate(monkeypatch, capsys):
    import sys
    monkeypatch.setitem(sys.modules, "tabulate", None)
    pyth.fx.symbolic_trace(simple(pyth)).graph.print_tabular()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["opcode", "name", "target", "args", "kwargs"]
    assert set(lines[1]) <= {"-", " "} and len(lines) == 7
    assert lines[3].split()[:3] == ["call_function", "relu", "pyth.relu"]


# ---- errors --------------------------------------------------------------------------------------

def torch_error(fn):
    with pytest.raises(Exception) as e:
        torch.fx.symbolic_trace(fn)
    return e.value


def test_control_flow_on_a_traced_value_raises_trace_error():
    def branch(lib):
        def fn(x):
            if x.sum() > 0:
                return x
            return -x
        return fn
    want = torch_error(branch(torch))
    with pytest.raises(pyth.fx.proxy.TraceError) as e:
        pyth.fx.symbolic_trace(branch(pyth))
    assert str(e.value) == str(want) and isinstance(e.value, ValueError)
    assert type(want).__mro__[1] is ValueError


def test_iteration_and_len_raise_as_torch_fx():
    def loop(x):
        return [y for y in x]

    def length(x):
        return len(x)
    want = torch_error(loop)
    with pytest.raises(pyth.fx.proxy.TraceError) as e:
        pyth.fx.symbolic_trace(loop)
    assert str(e.value) == str(want)
    want = torch_error(length)
    with pytest.raises(RuntimeError) as e:
        pyth.fx.symbolic_trace(length)
    assert str(e.value) == str(want).replace("torch.fx", "pyth.fx")


def test_a_failed_trace_leaves_module_calls_lean():
    from pyth.nn.modules import module as m

    class Bad(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)

        def forward(self, x):
            return self.lin(x) if x.sum() > 0 else x
    with pytest.raises(pyth.fx.proxy.TraceError):
        pyth.fx.symbolic_trace(Bad())
    assert m._tracer[0] is None and m._global_hooks_used[0] is False
    Bad().lin(pyth.ones(2))   # eager again


def test_concrete_args_specialise_the_trace():
    def both(lib):
        def fn(x, flag):
            if flag:
                return x + 1
            return x - 1
        return fn
    pg = pyth.fx.symbolic_trace(both(pyth), concrete_args={"flag": True})
    tg = torch.fx.symbolic_trace(both(torch), concrete_args={"flag": True})
    assert ("call_function", "operator.add") in structure(pg)
    assert ("call_function", "operator.add") in torch_structure(tg)
    assert pg(pyth.zeros(2), True).tolist() == tg(torch.zeros(2), True).tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="has no argument 'flg'"):
        pyth.fx.symbolic_trace(both(pyth), concrete_args={"flg": True})


def test_a_leaf_module_override():
    class Flat(pyth.fx.Tracer):
        def is_leaf_module(self, m, qualname):
            return not isinstance(m, nn.Linear) and super().is_leaf_module(m, qualname)

    class TFlat(torch.fx.Tracer):
        def is_leaf_module(self, m, qualname):
            return not isinstance(m, torch.nn.Linear) and super().is_leaf_module(m, qualname)
    pm, tm, px, _ = pair("MLP")
    pgraph, tgraph = Flat().trace(pm), TFlat().trace(tm)
    pg = pyth.fx.GraphModule(pm, pgraph)
    tg = torch.fx.GraphModule(tm, tgraph)
    assert structure(pg) == torch_structure(tg)
    assert ("call_function", "torch.nn.functional.linear") in structure(pg)
    np.testing.assert_allclose(values(pg(*px)), values(pm(*px)), rtol=1e-6)


# ---- state, Interpreter, Transformer, ShapeProp -----------------------------------------------

def test_state_dict_round_trip(tmp_path):
    pm, _, px, _ = pair("CNN")
    pm.eval()
    gm = pyth.fx.symbolic_trace(pm)
    assert list(gm.state_dict()) == list(pm.state_dict())
    path = tmp_path / "gm.pth"
    pyth.save(gm.state_dict(), path)
    fresh = pyth.fx.symbolic_trace(P["CNN"][0]()).eval()
    assert not np.array_equal(values(fresh(*px)), values(gm(*px)))
    fresh.load_state_dict(pyth.load(path))
    np.testing.assert_array_equal(values(fresh(*px)), values(gm(*px)))


def test_interpreter_runs_and_overrides_like_torchs():
    pm, tm, px, tx = pair("Functional")
    pg, tg = pyth.fx.symbolic_trace(pm), torch.fx.symbolic_trace(tm)
    for got, want in zip(pyth.fx.Interpreter(pg).run(*px), torch.fx.Interpreter(tg).run(*tx)):
        np.testing.assert_allclose(values(got), want.detach().numpy(), rtol=1e-5)

    def swapping(base, relu, sigmoid):
        class Swap(base):
            def call_function(self, target, args, kwargs):
                if target is relu:
                    target = sigmoid
                return super().call_function(target, args, kwargs)

            def call_method(self, target, args, kwargs):
                self.methods.append(target)
                return super().call_method(target, args, kwargs)
        return Swap
    ps = swapping(pyth.fx.Interpreter, pyth.relu, pyth.sigmoid)(pg)
    ts = swapping(torch.fx.Interpreter, torch.relu, torch.sigmoid)(tg)
    ps.methods, ts.methods = [], []
    for got, want in zip(ps.run(*px), ts.run(*tx)):
        np.testing.assert_allclose(values(got), want.detach().numpy(), rtol=1e-5)
    assert ps.methods == ts.methods and ps.methods


def test_transformer_returns_a_rewritten_graph_module():
    def rewriting(base, relu, gelu):
        class ReluToGelu(base):
            def call_function(self, target, args, kwargs):
                if target is relu:
                    return gelu(*args, **kwargs)   # through the protocol: a gelu node
                return super().call_function(target, args, kwargs)
        return ReluToGelu
    pm, tm, px, tx = pair("Functional")
    pg, tg = pyth.fx.symbolic_trace(pm), torch.fx.symbolic_trace(tm)
    pn = rewriting(pyth.fx.Transformer, pyth.relu, F.gelu)(pg).transform()
    tn = rewriting(torch.fx.Transformer, torch.relu, torch.nn.functional.gelu)(tg).transform()
    assert isinstance(pn, pyth.fx.GraphModule) and pn is not pg
    assert structure(pn) == torch_structure(tn)
    assert ("call_function", "torch.nn.functional.gelu") in structure(pn)
    for got, want in zip(pn(*px), tn(*tx)):
        np.testing.assert_allclose(values(got), want.detach().numpy(), rtol=1e-5, atol=1e-6)


class Recording(pyth.fx.Interpreter):
    """Keeps every node's value."""

    def run_node(self, n):
        self.seen[n] = r = super().run_node(n)
        return r


@pytest.mark.parametrize("name", ["CNN", "Functional", "Block"])
def test_shape_prop_fills_tensor_meta_as_torchs(name):
    """Shapes, dtypes, requires_grad, the fields and which nodes have metadata as torch's
    ShapeProp; strides as the values pyth computes have them (some pyth kernels return
    another layout than torch's: attention, pointwise ops of transposed inputs)."""
    pm, tm, px, tx = pair(name)
    pm.eval(), tm.eval()
    pg, tg = pyth.fx.symbolic_trace(pm), torch.fx.symbolic_trace(tm)
    ShapeProp(pg).propagate(*px)
    torch.fx.passes.shape_prop.ShapeProp(tg).propagate(*tx)
    rec = Recording(pg, garbage_collect_values=False)
    rec.seen = {}
    rec.run(*px)
    assert pyth.fx.passes.shape_prop.TensorMetadata._fields == \
        torch.fx.passes.shape_prop.TensorMetadata._fields
    checked = 0
    for p, t in zip(pg.graph.nodes, tg.graph.nodes):
        assert ("tensor_meta" in p.meta) == ("tensor_meta" in t.meta), p.name
        if "tensor_meta" not in t.meta or not hasattr(t.meta["tensor_meta"], "shape"):
            continue
        pmeta, tmeta = p.meta["tensor_meta"], t.meta["tensor_meta"]
        assert tuple(pmeta.shape) == tuple(tmeta.shape), p.name
        assert str(pmeta.dtype).split(".")[-1] == str(tmeta.dtype).split(".")[-1]
        assert pmeta.requires_grad == tmeta.requires_grad, p.name
        value = rec.seen[p]
        assert pmeta.stride == value.stride(), p.name
        assert (pmeta.memory_format is not None) == value.is_contiguous()
        assert pmeta.is_quantized is False and pmeta.qparams == {}
        # (a view of a pyth Parameter stays a Parameter, torch's becomes a Tensor)
        pname, tname = p.meta["type"].__name__, t.meta["type"].__name__
        assert pname == tname or tname == "Tensor" and pname in ("FloatTensor", "Parameter")
        checked += 1
    assert checked >= 5


# ---- wrap, and the protocol -------------------------------------------------------------------

def helper_with_len(x):
    return x * len(x)


pyth.fx.wrap("helper_with_len")


def test_wrap_records_a_call_and_restores_the_name():
    def fn(x):
        return helper_with_len(x) + 1
    gm = pyth.fx.symbolic_trace(fn)
    calls = [n for n in gm.graph.nodes if n.op == "call_function"]
    assert calls[0].target is helper_with_len and calls[0].name == "helper_with_len"
    assert globals()["helper_with_len"] is calls[0].target
    assert gm(pyth.ones(3)).tolist() == [4.0, 4.0, 4.0]
    with pytest.raises(NotImplementedError, match="top level of a module"):
        pyth.fx.wrap("helper_with_len")


def test_wrap_is_undone_when_tracing_fails():
    original = globals()["helper_with_len"]

    def fn(x):
        y = helper_with_len(x)
        if y.sum() > 0:
            return y
        return -y
    with pytest.raises(pyth.fx.proxy.TraceError):
        pyth.fx.symbolic_trace(fn)
    assert globals()["helper_with_len"] is original
    assert helper_with_len(pyth.ones(2)).tolist() == [2.0, 2.0]


def test_keyword_only_arguments_and_defaults():
    def both(lib):
        def fn(x, y=1.0, *, scale=2.0):
            return (x + y) * scale
        return fn
    pg, tg = pyth.fx.symbolic_trace(both(pyth)), torch.fx.symbolic_trace(both(torch))
    assert pg.code == tg.code
    assert pg(pyth.ones(2), 0.0, 3.0).tolist() == tg(torch.ones(2), 0.0, 3.0).tolist()
    assert pg(pyth.ones(2)).tolist() == [4.0, 4.0]

    def star(*xs):
        return xs[0]
    with pytest.raises(NotImplementedError, match=r"takes \*xs"):
        pyth.fx.symbolic_trace(star)


def test_the_protocol_for_a_tensor_like_class():
    @pyth.overrides.register
    class Logged:
        calls = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.calls.append((func, types, len(args), sorted(kwargs or {})))
            return "handled"
    try:
        assert pyth.add(Logged(), 1) == "handled"
        assert pyth.cat([pyth.ones(1), Logged()]) == "handled"
        assert F.softmax(Logged(), dim=0) == "handled"
        assert Logged.calls == [(pyth.add, (Logged,), 2, []), (pyth.cat, (Logged,), 1, []),
                                (F.softmax, (Logged,), 1, ["dim"])]
        assert pyth.overrides.has_torch_function([1, Logged()]) is True
        assert pyth.overrides.has_torch_function([1, pyth.ones(1)]) is False
    finally:
        pyth.overrides.TYPES.discard(Logged)
        pyth.overrides.LOOK_INTO.discard(Logged)

    class Unregistered:
        pass
    with pytest.raises(TypeError):
        pyth.add(Unregistered(), 1)
    # the functions that ask only after refusing a non-tensor still refuse it as before
    with pytest.raises(TypeError, match=r"gelu\(\): argument 'input' must be Tensor, not str"):
        F.gelu("a")
    with pytest.raises(TypeError, match="must be Tensor, not Unregistered"):
        pyth.all(Unregistered())
    with pytest.raises(TypeError):
        pyth.isnan(Unregistered())
    with pytest.raises(TypeError, match="defines no __torch_function__"):
        pyth.overrides.register(Unregistered)


def test_public_names():
    for name in pyth.fx.__all__:
        assert hasattr(torch.fx, name), name
    assert pyth.fx.proxy.TraceError.__name__ == torch.fx.proxy.TraceError.__name__
    assert re.fullmatch(r"pyth\.nn\.functional\.relu", pyth.overrides.qualified_name(F.relu))
