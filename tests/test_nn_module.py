"""pyth.nn's module system against PyTorch's: registration, traversal order, state_dict,
hooks, modes, conversion, containers, and nn.init's formulas."""

from __future__ import annotations

import copy
import math
import pickle

import numpy as np
import pytest

import pyth
from pyth import nn
from pyth.nn import init

torch = pytest.importorskip("torch")


def build(lib, nnmod):
    """The same architecture in pyth or torch: nested modules, parameters, buffers, a shared
    submodule and a None parameter."""

    class Leaf(nnmod.Module):
        def __init__(self, n):
            super().__init__()
            self.weight = nnmod.Parameter(lib.ones(n, 2))
            self.bias = nnmod.Parameter(lib.zeros(n))
            self.register_buffer("running", lib.zeros(n))
            self.register_buffer("scratch", lib.zeros(1), persistent=False)
            self.register_parameter("absent", None)

        def forward(self, x):
            return x @ self.weight.t() + self.bias

    class Net(nnmod.Module):
        def __init__(self):
            super().__init__()
            self.a = Leaf(3)
            self.blocks = nnmod.ModuleList([Leaf(2), Leaf(4)])
            self.heads = nnmod.ModuleDict({"x": Leaf(1)})
            self.shared = self.a
            self.seq = nnmod.Sequential(Leaf(5), Leaf(6))
            self.scale = nnmod.Parameter(lib.ones(1))
            self.plist = nnmod.ParameterList([nnmod.Parameter(lib.ones(2)), lib.zeros(3)])

        def forward(self, x):
            return self.a(x)

    return Net()


def test_traversal_matches_torch():
    p, t = build(pyth, nn), build(torch, torch.nn)
    assert [k for k, _ in p.named_parameters()] == [k for k, _ in t.named_parameters()]
    assert [k for k, _ in p.named_buffers()] == [k for k, _ in t.named_buffers()]
    assert [k for k, _ in p.named_modules()] == [k for k, _ in t.named_modules()]
    assert [k for k, _ in p.named_children()] == [k for k, _ in t.named_children()]
    assert list(p.state_dict()) == list(t.state_dict())
    assert [tuple(v.shape) for v in p.state_dict().values()] == \
        [tuple(v.shape) for v in t.state_dict().values()]
    assert len(list(p.parameters())) == len(list(t.parameters()))
    assert [k for k, _ in p.named_parameters(remove_duplicate=False)] == \
        [k for k, _ in t.named_parameters(remove_duplicate=False)]
    assert [k for k, _ in p.named_parameters(recurse=False)] == \
        [k for k, _ in t.named_parameters(recurse=False)]


def test_repr_matches_torch():
    class Leaf(nn.Module):
        def extra_repr(self):
            return "in=2, out=3"

    class TLeaf(torch.nn.Module):
        def extra_repr(self):
            return "in=2, out=3"
    TLeaf.__name__ = "Leaf"
    p = nn.Sequential(Leaf(), nn.ModuleList([Leaf(), nn.Sequential()]), nn.ModuleDict({"k": Leaf()}))
    t = torch.nn.Sequential(TLeaf(), torch.nn.ModuleList([TLeaf(), torch.nn.Sequential()]),
                            torch.nn.ModuleDict({"k": TLeaf()}))
    assert repr(p) == repr(t)


def test_state_dict_round_trip_and_errors():
    p = build(pyth, nn)
    sd = {k: v.clone().fill_(0.5) for k, v in p.state_dict().items()}
    assert repr(p.load_state_dict(sd)) == "<All keys matched successfully>"
    assert all((v == 0.5).all().item() for v in p.state_dict().values())
    assert p.a.weight is p.shared.weight
    bad = dict(sd)
    del bad["a.bias"]
    bad["nope"] = pyth.ones(1)
    bad["a.weight"] = pyth.ones(7, 2)
    with pytest.raises(RuntimeError) as e:
        p.load_state_dict(bad)
    msg = str(e.value)
    assert "Error(s) in loading state_dict for Net" in msg
    assert 'Missing key(s) in state_dict: "a.bias"' in msg
    assert 'Unexpected key(s) in state_dict: "nope"' in msg
    assert "size mismatch for a.weight: copying a param with shape pyth.Size([7, 2])" in msg
    del bad["a.weight"]
    r = p.load_state_dict(bad, strict=False)
    assert r.missing_keys == ["a.weight", "a.bias"] and r.unexpected_keys == ["nope"]
    t = build(torch, torch.nn)
    rt = t.load_state_dict({k: torch.from_numpy(v.numpy()) for k, v in bad.items()}, strict=False)
    assert rt.missing_keys == r.missing_keys and rt.unexpected_keys == r.unexpected_keys


def test_state_dict_is_detached_unless_keep_vars():
    p = build(pyth, nn)
    sd = p.state_dict()
    assert not sd["a.weight"].requires_grad
    assert sd["a.weight"].data_ptr() == p.a.weight.data_ptr()
    assert p.state_dict(keep_vars=True)["a.weight"] is p.a.weight


def test_registration_errors_match_torch():
    for lib, nnmod in ((pyth, nn), (torch, torch.nn)):
        m = nnmod.Module()
        with pytest.raises(TypeError):
            m.register_parameter("w", lib.ones(2))
        with pytest.raises(KeyError):
            m.register_buffer("a.b", lib.ones(2))
        with pytest.raises(KeyError):
            m.register_parameter("", None)
        m.w = nnmod.Parameter(lib.ones(2))
        with pytest.raises(TypeError):
            m.w = lib.ones(2)
        m.w = None
        assert m.w is None and "w" in m._parameters
        with pytest.raises(AttributeError):
            m.missing
        x = nnmod.Parameter(lib.ones(2))
        with pytest.raises(TypeError):
            m.register_parameter("y", (x * 2))


def test_attribute_moves_between_kinds():
    m = nn.Module()
    m.x = nn.Parameter(pyth.ones(1))
    with pytest.raises(TypeError):  # as torch: a parameter's name takes Parameters or None
        m.x = nn.Module()
    m.y = nn.Module()
    m.y = nn.Parameter(pyth.ones(1))  # a Parameter may replace a submodule
    assert "y" in m._parameters and "y" not in m._modules
    del m.x
    m.x = nn.Module()
    assert "x" not in m._parameters and "x" in m._modules
    del m.x
    assert not hasattr(m, "x")
    m.register_buffer("b", pyth.ones(1))
    m.b = pyth.zeros(2)
    assert m._buffers["b"].shape == (2,)
    m.c = nn.Buffer(pyth.ones(3), persistent=False)
    assert "c" in m._buffers and "c" not in m.state_dict()


def test_hooks_order_and_replacement():
    calls = []
    m = nn.Sequential(nn.Module())

    class Double(nn.Module):
        def forward(self, x):
            calls.append("forward")
            return x * 2
    d = Double()
    h1 = d.register_forward_pre_hook(lambda mod, args: (calls.append("pre"), (args[0] + 1,))[1])
    h2 = d.register_forward_hook(lambda mod, args, out: (calls.append("post"), out + 100)[1])
    d.register_forward_hook(lambda mod, args, out: calls.append("first"), prepend=True)
    assert d(pyth.tensor(1.0)).item() == 104.0
    assert calls == ["pre", "forward", "first", "post"]
    h1.remove()
    h2.remove()
    calls.clear()
    assert d(pyth.tensor(1.0)).item() == 2.0
    assert calls == ["forward", "first"]
    kw = d.register_forward_pre_hook(lambda mod, args, kwargs: ((args[0] * 0,), kwargs),
                                     with_kwargs=True)
    assert d(pyth.tensor(3.0)).item() == 0.0
    kw.remove()
    assert len(m) == 1


def test_train_eval_requires_grad_zero_grad():
    p = build(pyth, nn)
    assert p.training and p.a.training
    p.eval()
    assert not any(m.training for m in p.modules())
    p.train()
    assert all(m.training for m in p.modules())
    p.requires_grad_(False)
    assert not any(q.requires_grad for q in p.parameters())
    p.requires_grad_()
    out = p(pyth.ones(4, 2)).sum()
    out.backward()
    assert p.a.weight.grad is not None
    p.zero_grad(set_to_none=False)
    assert (p.a.weight.grad == 0).all().item()
    p.zero_grad()
    assert p.a.weight.grad is None


def test_to_keeps_parameter_identity_and_converts_grads():
    p = build(pyth, nn)
    w = p.a.weight
    p(pyth.ones(1, 2)).sum().backward()
    assert p.double() is p
    assert p.a.weight is w and w.dtype is pyth.float64 and isinstance(w, nn.Parameter)
    assert isinstance(w, pyth.DoubleTensor) and w.requires_grad and w.is_leaf
    assert w.grad.dtype is pyth.float64
    assert p.a.running.dtype is pyth.float64
    p.to(pyth.float32)
    assert w.dtype is pyth.float32
    p.half()
    assert w.dtype is pyth.float16
    with pytest.raises(TypeError):
        p.to(pyth.int64)
    with pytest.raises(AssertionError, match="not compiled with CUDA enabled"):
        p.to("cuda")
    assert p.to("cpu") is p


def test_apply_and_submodule_lookup():
    p = build(pyth, nn)
    seen = []
    p.apply(lambda m: seen.append(type(m).__name__))
    assert seen[-1] == "Net" and seen.count("Leaf") == 6
    assert p.get_submodule("blocks.1") is p.blocks[1]
    assert p.get_parameter("seq.0.bias") is p.seq[0].bias
    with pytest.raises(AttributeError):
        p.get_submodule("blocks.nope")


def test_containers_match_torch_semantics():
    for nnmod in (nn, torch.nn):
        mods = [nnmod.Identity() if hasattr(nnmod, "Identity") else nnmod.Module()
                for _ in range(4)]
        s = nnmod.Sequential(*mods)
        assert len(s) == 4 and s[-1] is mods[3] and list(s[1:3]) == mods[1:3]
        assert type(s[1:3]) is nnmod.Sequential
        del s[1]
        assert list(s._modules) == ["0", "1", "2"] and list(s) == [mods[0], mods[2], mods[3]]
        s.append(mods[1])
        s.insert(0, mods[1])
        assert [list(s).index(m) for m in mods] == [1, 0, 2, 3]
        with pytest.raises(IndexError):
            s[10]
        ml = nnmod.ModuleList(mods)
        ml += [mods[0]]
        assert len(ml) == 5 and ml[-1] is mods[0] and len(ml[::2]) == 3
        md = nnmod.ModuleDict({"a": mods[0]})
        md["b"] = mods[1]
        assert list(md.keys()) == ["a", "b"] and "b" in md and md.pop("a") is mods[0]


def test_sequential_forward_and_parameter_containers():
    class AddOne(nn.Module):
        def forward(self, x):
            return x + 1
    s = nn.Sequential(AddOne(), AddOne(), AddOne())
    assert s(pyth.tensor(0.0)).item() == 3.0
    pl = nn.ParameterList([pyth.ones(2), nn.Parameter(pyth.zeros(3))])
    assert all(isinstance(q, nn.Parameter) for q in pl) and len(pl) == 2
    assert [k for k, _ in pl.named_parameters()] == ["0", "1"]
    pd = nn.ParameterDict({"w": pyth.ones(2)})
    assert isinstance(pd["w"], nn.Parameter) and list(pd) == ["w"]
    t = torch.nn.ParameterList([torch.ones(2), torch.nn.Parameter(torch.zeros(3))])
    assert [k for k, _ in t.named_parameters()] == ["0", "1"]


def test_parameter_is_a_leaf_sharing_memory():
    data = pyth.arange(6.).view(2, 3)
    p = nn.Parameter(data)
    assert isinstance(p, nn.Parameter) and isinstance(p, pyth.FloatTensor)
    assert p.is_leaf and p.requires_grad and p.data_ptr() == data.data_ptr()
    assert p.type() == "pyth.FloatTensor"
    assert repr(p).startswith("Parameter containing:")
    assert not nn.Parameter(data, requires_grad=False).requires_grad
    q = (p * 2)
    assert type(q) is pyth.FloatTensor
    c = copy.deepcopy(p)
    assert isinstance(c, nn.Parameter) and c.data_ptr() != p.data_ptr()
    r = pickle.loads(pickle.dumps(p))
    assert isinstance(r, nn.Parameter) and r.tolist() == p.tolist()
    with pytest.raises(RuntimeError):
        nn.Parameter(pyth.ones(2, dtype=pyth.int64))


def test_deepcopy_and_pickle_of_a_module():
    p = build(pyth, nn)
    c = copy.deepcopy(p)
    assert c.a is c.shared and c.a.weight is not p.a.weight
    assert list(c.state_dict()) == list(p.state_dict())
    s = nn.Sequential(nn.Sequential(), nn.ModuleList())
    s.w = nn.Parameter(pyth.ones(2))
    r = pickle.loads(pickle.dumps(s))
    assert [k for k, _ in r.named_modules()] == [k for k, _ in s.named_modules()]
    assert r.w.tolist() == [1.0, 1.0] and isinstance(r.w, nn.Parameter)


# ---- nn.init ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name,param", [("linear", None), ("conv2d", None), ("sigmoid", None),
                                        ("tanh", None), ("relu", None), ("leaky_relu", None),
                                        ("leaky_relu", 0.2), ("selu", None)])
def test_calculate_gain(name, param):
    assert init.calculate_gain(name, param) == pytest.approx(
        torch.nn.init.calculate_gain(name, param))
    with pytest.raises(ValueError):
        init.calculate_gain("nope")


@pytest.mark.parametrize("shape", [(3, 4), (8, 3, 5, 5), (2, 6, 7)])
def test_fans_match_torch(shape):
    assert init._calculate_fan_in_and_fan_out(pyth.empty(*shape)) == \
        torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))


def _std_bound(fn_name, shape, **kw):
    t = getattr(init, fn_name)(pyth.empty(*shape, dtype=pyth.float64), **kw)
    return t.numpy()


@pytest.mark.parametrize("mode", ["fan_in", "fan_out"])
def test_kaiming_and_xavier_distributions(mode):
    shape = (256, 128, 3, 3)
    fan = 128 * 9 if mode == "fan_in" else 256 * 9
    a = _std_bound("kaiming_uniform_", shape, a=math.sqrt(5), mode=mode)
    bound = math.sqrt(3) * math.sqrt(2 / (1 + 5)) / math.sqrt(fan)
    assert a.max() <= bound and a.min() >= -bound and a.max() > 0.99 * bound
    n = _std_bound("kaiming_normal_", shape, mode=mode, nonlinearity="relu")
    assert n.std() == pytest.approx(math.sqrt(2 / fan), rel=0.02)
    x = _std_bound("xavier_uniform_", (300, 200), gain=2.0)
    xb = 2.0 * math.sqrt(6 / 500)
    assert x.max() <= xb and x.min() >= -xb and x.max() > 0.99 * xb
    xn = _std_bound("xavier_normal_", (300, 200))
    assert xn.std() == pytest.approx(math.sqrt(2 / 500), rel=0.03)
    with pytest.raises(ValueError):
        init.kaiming_uniform_(pyth.empty(3, 3), mode="fan_x")
    with pytest.raises(ValueError):
        init.xavier_uniform_(pyth.empty(3))


def test_simple_initialisers():
    assert init.constant_(pyth.empty(2, 2), 3.0).tolist() == [[3.0, 3.0], [3.0, 3.0]]
    assert init.zeros_(pyth.ones(2)).tolist() == [0.0, 0.0]
    assert init.ones_(pyth.zeros(2)).tolist() == [1.0, 1.0]
    assert init.eye_(pyth.empty(2, 3)).tolist() == torch.nn.init.eye_(torch.empty(2, 3)).tolist()
    assert init.dirac_(pyth.empty(4, 2, 3, 3), groups=2).tolist() == \
        torch.nn.init.dirac_(torch.empty(4, 2, 3, 3), groups=2).tolist()
    u = init.uniform_(pyth.empty(1000), -2, 3).numpy()
    assert u.min() >= -2 and u.max() <= 3
    t = init.trunc_normal_(pyth.empty(10000, dtype=pyth.float64), mean=1.0, std=2.0, a=-1.0,
                           b=2.0).numpy()
    assert t.min() >= -1.0 and t.max() <= 2.0 and 0.3 < t.mean() < 0.7


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 2, 3)])
def test_orthogonal(shape):
    w = init.orthogonal_(pyth.empty(*shape, dtype=pyth.float64), gain=2.0).numpy()
    flat = w.reshape(shape[0], -1)
    g = flat @ flat.T if shape[0] <= flat.shape[1] else flat.T @ flat
    np.testing.assert_allclose(g, 4.0 * np.eye(g.shape[0]), atol=1e-10)


def test_initialisers_record_no_history():
    p = nn.Parameter(pyth.empty(3, 4))
    init.kaiming_uniform_(p)
    init.normal_(p)
    assert p.is_leaf and p.grad_fn is None
