"""Transforms, biject_to / transform_to, TransformedDistribution, Independent and
MixtureSameFamily against torch.distributions, and a REINFORCE policy-gradient loop whose
gradients match PyTorch's given the same sampled actions."""

from __future__ import annotations

import numpy as np
import pytest

import pyth
import pyth.distributions as D
from pyth.distributions import constraints as C
from pyth.distributions import transforms as T

torch = pytest.importorskip("torch")
TD = torch.distributions
TT = torch.distributions.transforms
TC = torch.distributions.constraints


def P(t):
    return pyth.tensor(t.detach().numpy())


def close(p, t, rtol=1e-10, atol=1e-12):
    assert tuple(p.shape) == tuple(t.shape)
    np.testing.assert_allclose(p.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)


R = np.random.default_rng(0)
X = R.normal(size=(4, 3))
POSX = R.uniform(0.3, 2.0, (4, 3))

TRANSFORMS = [
    ("ExpTransform", (), (), X),
    ("SigmoidTransform", (), (), X),
    ("TanhTransform", (), (), X * 0.5),
    ("SoftplusTransform", (), (), X),
    ("AffineTransform", (0.5, 2.0), (0.5, 2.0), X),
    ("AffineTransform", (0.5, -3.0), (0.5, -3.0), X),
    ("PowerTransform", (pyth.tensor(2.5, dtype=pyth.float64),),
     (torch.tensor(2.5, dtype=torch.float64),), POSX),
    ("StickBreakingTransform", (), (), X),
    ("SoftmaxTransform", (), (), X),
    ("AbsTransform", (), (), X),
    ("LowerCholeskyTransform", (), (), R.normal(size=(2, 3, 3))),
]


@pytest.mark.parametrize("k", range(len(TRANSFORMS)),
                         ids=[f"{t[0]}{i}" for i, t in enumerate(TRANSFORMS)])
def test_transform_against_torch(k):
    name, pargs, targs, x = TRANSFORMS[k]
    pt, tt = getattr(T, name)(*pargs), getattr(TT, name)(*targs)
    px, tx = pyth.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    py, ty = pt(px), tt(tx)
    close(py, ty)
    assert pt.bijective == tt.bijective
    assert type(pt.domain).__name__ == type(tt.domain).__name__
    assert type(pt.codomain).__name__ == type(tt.codomain).__name__
    assert pt.domain.event_dim == tt.domain.event_dim
    assert pt.codomain.event_dim == tt.codomain.event_dim
    assert tuple(pt.forward_shape(tuple(x.shape))) == tuple(tt.forward_shape(torch.Size(x.shape)))
    close(pt.inv(P(ty)), tt.inv(ty.detach()), rtol=1e-8, atol=1e-10)
    assert pt.inv.inv is pt
    try:
        tj = tt.log_abs_det_jacobian(tx, ty)
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            pt.log_abs_det_jacobian(px, py)
        return
    pj = pt.log_abs_det_jacobian(px, py)
    close(pj, tj, rtol=1e-9)
    close(pt.inv.log_abs_det_jacobian(py, px), -tj, rtol=1e-9)
    gp = pyth.autograd.grad(py.sum() + pj.sum(), [px])[0]
    gt = torch.autograd.grad(ty.sum() + tj.sum(), [tx])[0]
    close(gp, gt, rtol=1e-8, atol=1e-10)
    try:
        tsign = tt.sign
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            pt.sign
        return
    psign = pt.sign
    assert psign == tsign if isinstance(tsign, int) else bool((psign == P(tsign)).all())


def test_compose_independent_reshape_and_cache():
    c = T.ComposeTransform([T.AffineTransform(1.0, 2.0), T.ExpTransform()])
    tc = TT.ComposeTransform([TT.AffineTransform(1.0, 2.0), TT.ExpTransform()])
    x = R.normal(size=(3,))
    close(c(pyth.tensor(x)), tc(torch.tensor(x)))
    close(c.log_abs_det_jacobian(pyth.tensor(x), c(pyth.tensor(x))),
          tc.log_abs_det_jacobian(torch.tensor(x), tc(torch.tensor(x))))
    assert c.inv.inv is c and c.sign == 1 and c.bijective
    assert c == T.ComposeTransform([T.AffineTransform(1.0, 2.0), T.ExpTransform()])
    assert T.identity_transform(pyth.tensor(x)).tolist() == pyth.tensor(x).tolist()
    it = T.IndependentTransform(T.ExpTransform(), 1)
    ti = TT.IndependentTransform(TT.ExpTransform(), 1)
    xx = R.normal(size=(2, 3))
    close(it.log_abs_det_jacobian(pyth.tensor(xx), it(pyth.tensor(xx))),
          ti.log_abs_det_jacobian(torch.tensor(xx), ti(torch.tensor(xx))))
    assert it.domain.event_dim == 1
    rt = T.ReshapeTransform((2, 3), (6,))
    assert tuple(rt(pyth.tensor(xx)).shape) == (6,)
    assert tuple(rt.forward_shape((5, 2, 3))) == (5, 6)
    with pytest.raises(ValueError, match="in_shape, out_shape have different numbers of elements"):
        T.ReshapeTransform((2, 3), (5,))
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        T.ExpTransform(cache_size=2)
    cached = T.ExpTransform(cache_size=1)
    xt = pyth.tensor(x)
    y = cached(xt)
    assert cached(xt) is y and cached.inv(y) is xt
    assert T.ExpTransform().with_cache(1)._cache_size == 1
    ct = T.CatTransform([T.ExpTransform(), T.AffineTransform(0.0, 3.0)], dim=0, lengths=[1, 2])
    tct = TT.CatTransform([TT.ExpTransform(), TT.AffineTransform(0.0, 3.0)], dim=0, lengths=[1, 2])
    close(ct(pyth.tensor(x)), tct(torch.tensor(x)))
    close(ct.log_abs_det_jacobian(pyth.tensor(x), ct(pyth.tensor(x))),
          tct.log_abs_det_jacobian(torch.tensor(x), tct(torch.tensor(x))))
    st = T.StackTransform([T.ExpTransform(), T.AffineTransform(0.0, 3.0)], dim=1)
    tst = TT.StackTransform([TT.ExpTransform(), TT.AffineTransform(0.0, 3.0)], dim=1)
    x2 = R.normal(size=(3, 2))
    close(st(pyth.tensor(x2)), tst(torch.tensor(x2)))


CONSTRAINTS = [
    ("real", ()), ("positive", ()), ("nonnegative", ()), ("unit_interval", ()),
    ("simplex", ()), ("real_vector", ()), ("greater_than", (1.5,)), ("less_than", (-0.5,)),
    ("interval", (-1.0, 3.0)), ("half_open_interval", (0.0, 2.0)),
    ("greater_than_eq", (0.5,)),
]


@pytest.mark.parametrize("name,args", CONSTRAINTS, ids=[c[0] for c in CONSTRAINTS])
def test_biject_to_and_transform_to(name, args):
    pc = getattr(C, name)(*args) if args else getattr(C, name)
    tc = getattr(TC, name)(*args) if args else getattr(TC, name)
    x = R.normal(size=(3, 4))
    for preg, treg in ((D.biject_to, TD.biject_to), (D.transform_to, TD.transform_to)):
        pt, tt = preg(pc), treg(tc)
        py, ty = pt(pyth.tensor(x)), tt(torch.tensor(x))
        close(py, ty, rtol=1e-9)
        assert bool(pc.check(py).all())
        try:
            tj = tt.log_abs_det_jacobian(torch.tensor(x), ty)
        except NotImplementedError:  # SoftmaxTransform: not bijective, no Jacobian
            with pytest.raises(NotImplementedError):
                pt.log_abs_det_jacobian(pyth.tensor(x), py)
            continue
        close(pt.log_abs_det_jacobian(pyth.tensor(x), py), tj, rtol=1e-9)


def test_transform_to_matrix_constraints_and_registry_errors():
    x = R.normal(size=(2, 3, 3))
    y = D.transform_to(C.lower_cholesky)(pyth.tensor(x))
    assert bool(C.lower_cholesky.check(y).all())
    z = D.transform_to(C.positive_definite)(pyth.tensor(x))
    assert bool(C.positive_definite.check(z).all())
    close(z, TD.transform_to(TC.positive_definite)(torch.tensor(x)), rtol=1e-9)
    with pytest.raises(NotImplementedError, match="Cannot transform _Boolean constraints"):
        D.biject_to(C.boolean)
    with pytest.raises(TypeError, match="Expected constraint to be either a Constraint"):
        D.biject_to.register(3, lambda c: None)


CHECKS = [("boolean", (), [0.0, 1.0, 0.5]), ("integer_interval", (0, 3), [0.0, 3.0, 4.0, 1.5]),
          ("nonnegative_integer", (), [0.0, 2.0, -1.0, 0.5]),
          ("positive_integer", (), [1.0, 0.0, 3.0]),
          ("one_hot", (), [[0.0, 1.0], [1.0, 1.0], [0.5, 0.5]]),
          ("lower_cholesky", (), [[[1.0, 0.0], [2.0, 3.0]], [[1.0, 1.0], [0.0, 1.0]],
                                  [[-1.0, 0.0], [0.0, 1.0]]]),
          ("lower_triangular", (), [[[1.0, 0.0], [2.0, -3.0]], [[1.0, 1.0], [0.0, 1.0]]]),
          ("positive_definite", (), [[[2.0, 0.5], [0.5, 1.0]], [[1.0, 2.0], [2.0, 1.0]]]),
          ("positive_semidefinite", (), [[[1.0, 1.0], [1.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]]),
          ("symmetric", (), [[[1.0, 2.0], [2.0, 1.0]], [[1.0, 2.0], [3.0, 1.0]]]),
          ("square", (), [[[1.0, 2.0], [2.0, 1.0]]]),
          ("simplex", (), [[0.3, 0.7], [0.5, 0.6], [-0.1, 1.1]]),
          ("multinomial", (3,), [[1.0, 2.0], [3.0, 1.0]]),
          ("corr_cholesky", (), [[[1.0, 0.0], [0.6, 0.8]], [[1.0, 0.0], [0.5, 0.5]]])]


@pytest.mark.parametrize("name,args,values", CHECKS, ids=[c[0] for c in CHECKS])
def test_constraint_checks(name, args, values):
    pc = getattr(C, name)(*args) if args else getattr(C, name)
    tc = getattr(TC, name)(*args) if args else getattr(TC, name)
    v = np.array(values)
    assert pc.check(pyth.tensor(v)).tolist() == tc.check(torch.tensor(v)).tolist()
    assert pc.event_dim == tc.event_dim and pc.is_discrete == tc.is_discrete
    assert repr(pc) == repr(tc)


def test_dependent_and_independent_constraints():
    assert C.is_dependent(C.dependent) and not C.is_dependent(C.real)
    with pytest.raises(ValueError, match="Cannot determine validity of dependent constraint"):
        C.dependent.check(pyth.zeros(1))
    assert C.is_dependent(D.Uniform.support)
    assert C.is_dependent(D.Categorical.support)
    ic = C.independent(C.positive, 2)
    v = pyth.tensor([[[1.0, 2.0], [3.0, -1.0]], [[1.0, 2.0], [3.0, 4.0]]])
    assert ic.check(v).tolist() == [False, True]
    assert repr(ic) == repr(TC.independent(TC.positive, 2))
    with pytest.raises(ValueError, match=r"Expected value.dim\(\) >= 2 but got 1"):
        ic.check(pyth.ones(3))


# ---- composite distributions ----

def test_independent():
    loc, scale = R.normal(size=(2, 3)), R.uniform(0.5, 2, (2, 3))
    pd = D.Independent(D.Normal(pyth.tensor(loc), pyth.tensor(scale)), 1)
    td = TD.Independent(TD.Normal(torch.tensor(loc), torch.tensor(scale)), 1)
    assert tuple(pd.batch_shape) == (2,) and tuple(pd.event_shape) == (3,)
    v = td.sample((4,))
    close(pd.log_prob(P(v)), td.log_prob(v))
    close(pd.entropy(), td.entropy())
    close(pd.mean, td.mean)
    close(pd.variance, td.variance)
    assert pd.has_rsample and not pd.has_enumerate_support
    assert repr(pd).startswith("Independent(Normal(loc: pyth.Size([2, 3])")
    e = pd.expand((5, 2))
    assert tuple(e.batch_shape) == (5, 2)
    assert type(pd.support).__name__ == type(td.support).__name__ == "_IndependentConstraint"


def test_mixture_same_family():
    logits = R.normal(size=(2, 4))
    loc, scale = R.normal(size=(2, 4)), R.uniform(0.5, 2, (2, 4))
    pm = D.MixtureSameFamily(D.Categorical(logits=pyth.tensor(logits)),
                             D.Normal(pyth.tensor(loc), pyth.tensor(scale)))
    tm = TD.MixtureSameFamily(TD.Categorical(logits=torch.tensor(logits)),
                              TD.Normal(torch.tensor(loc), torch.tensor(scale)))
    assert tuple(pm.batch_shape) == (2,) and tuple(pm.event_shape) == ()
    v = torch.tensor(R.normal(size=(5, 2)))
    close(pm.log_prob(P(v)), tm.log_prob(v))
    close(pm.cdf(P(v)), tm.cdf(v))
    close(pm.mean, tm.mean)
    close(pm.variance, tm.variance)
    pyth.manual_seed(0)
    s = pm.sample((3000,))
    assert tuple(s.shape) == (3000, 2)
    se = np.sqrt(tm.variance.numpy() / 3000)
    assert np.all(np.abs(s.mean(0).numpy() - tm.mean.numpy()) < 5 * se)
    # a multivariate component: events of 3
    cl = R.normal(size=(4, 3))
    pmv = D.MixtureSameFamily(D.Categorical(logits=pyth.tensor(logits[0])),
                              D.Independent(D.Normal(pyth.tensor(cl), pyth.ones(4, 3,
                                                     dtype=pyth.float64)), 1))
    tmv = TD.MixtureSameFamily(TD.Categorical(logits=torch.tensor(logits[0])),
                               TD.Independent(TD.Normal(torch.tensor(cl), torch.ones(4, 3,
                                                        dtype=torch.float64)), 1))
    v3 = torch.tensor(R.normal(size=(6, 3)))
    close(pmv.log_prob(P(v3)), tmv.log_prob(v3))
    close(pmv.mean, tmv.mean)
    assert tuple(pmv.sample((2,)).shape) == (2, 3)
    lg = pyth.tensor(logits, requires_grad=True)
    tl = torch.tensor(logits, requires_grad=True)
    gp = pyth.autograd.grad(D.MixtureSameFamily(D.Categorical(logits=lg), D.Normal(
        pyth.tensor(loc), pyth.tensor(scale))).log_prob(P(v)).sum(), [lg])[0]
    gt = torch.autograd.grad(TD.MixtureSameFamily(TD.Categorical(logits=tl), TD.Normal(
        torch.tensor(loc), torch.tensor(scale))).log_prob(v).sum(), [tl])[0]
    close(gp, gt, rtol=1e-9)
    for bad, msg in [((D.Categorical(logits=pyth.zeros(3)), D.Normal(pyth.zeros(4),
                                                                     pyth.ones(4))),
                      "`mixture_distribution component` (3) does not equal "
                      "`component_distribution.batch_shape[-1]` (4)")]:
        with pytest.raises(ValueError) as e:
            D.MixtureSameFamily(*bad)
        assert str(e.value) == msg


def test_transformed_distribution():
    loc, scale = R.normal(size=3), R.uniform(0.5, 2, 3)
    pt = [T.AffineTransform(1.0, 2.0), T.ExpTransform()]
    tt = [TT.AffineTransform(1.0, 2.0), TT.ExpTransform()]
    pd = D.TransformedDistribution(D.Normal(pyth.tensor(loc), pyth.tensor(scale)), pt)
    td = TD.TransformedDistribution(TD.Normal(torch.tensor(loc), torch.tensor(scale)), tt)
    v = td.sample((4,))
    close(pd.log_prob(P(v)), td.log_prob(v))
    close(pd.cdf(P(v)), td.cdf(v))
    q = torch.tensor([0.1, 0.5, 0.9], dtype=torch.float64)
    close(pd.icdf(P(q)), td.icdf(q), rtol=1e-8)
    assert pd.has_rsample
    neg = D.TransformedDistribution(D.Normal(pyth.tensor(loc), pyth.tensor(scale)),
                                    [T.AffineTransform(0.0, -1.0)])
    tneg = TD.TransformedDistribution(TD.Normal(torch.tensor(loc), torch.tensor(scale)),
                                      [TT.AffineTransform(0.0, -1.0)])
    close(neg.cdf(P(v)), tneg.cdf(v))
    sb = D.TransformedDistribution(D.Normal(pyth.zeros(3, dtype=pyth.float64),
                                            pyth.ones(3, dtype=pyth.float64)),
                                   T.StickBreakingTransform())
    tsb = TD.TransformedDistribution(TD.Normal(torch.zeros(3, dtype=torch.float64),
                                               torch.ones(3, dtype=torch.float64)),
                                     TT.StickBreakingTransform())
    assert tuple(sb.event_shape) == tuple(tsb.event_shape) == (4,)
    w = tsb.sample((2,))
    close(sb.log_prob(P(w)), tsb.log_prob(w), rtol=1e-8)
    with pytest.raises(ValueError, match="transforms must be a Transform or a list of Transforms"):
        D.TransformedDistribution(D.Normal(0.0, 1.0), [3])


def test_custom_subclass_must_define_expand():
    class Shifted(D.Normal):
        def __init__(self, loc):
            super().__init__(loc, 1.0)

    with pytest.raises(NotImplementedError, match="Subclass Shifted of Normal that defines a "
                                                  "custom __init__ method must also define a "
                                                  "custom .expand\\(\\) method."):
        Shifted(pyth.zeros(2)).expand((3, 2))


# ---- REINFORCE ----

def test_reinforce_policy_gradient_matches_torch():
    """A policy net, Categorical(logits=net(state)), loss = -(log_prob * return).sum(): the
    same actions give the same gradients and, after SGD steps, the same weights as PyTorch."""
    rs = np.random.default_rng(7)
    pnet = pyth.nn.Sequential(pyth.nn.Linear(4, 16), pyth.nn.Tanh(), pyth.nn.Linear(16, 3))
    tnet = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.Tanh(), torch.nn.Linear(16, 3))
    with torch.no_grad():
        for pp, tp in zip(pnet.parameters(), tnet.parameters()):
            tp.copy_(torch.tensor(pp.detach().numpy()))
    popt = pyth.optim.SGD(pnet.parameters(), lr=0.1)
    topt = torch.optim.SGD(tnet.parameters(), lr=0.1)
    pyth.manual_seed(0)
    for step in range(4):
        states = rs.normal(size=(32, 4)).astype(np.float32)
        pdist = D.Categorical(logits=pnet(pyth.tensor(states)))
        actions = pdist.sample()
        returns = rs.normal(size=32).astype(np.float32) + actions.numpy().astype(np.float32)
        ploss = -(pdist.log_prob(actions) * pyth.tensor(returns)).mean() - \
            0.01 * pdist.entropy().mean()
        tdist = TD.Categorical(logits=tnet(torch.tensor(states)))
        tloss = -(tdist.log_prob(torch.tensor(actions.numpy())) * torch.tensor(returns)).mean() \
            - 0.01 * tdist.entropy().mean()
        np.testing.assert_allclose(ploss.item(), tloss.item(), rtol=1e-5)
        popt.zero_grad()
        topt.zero_grad()
        ploss.backward()
        tloss.backward()
        for pp, tp in zip(pnet.parameters(), tnet.parameters()):
            np.testing.assert_allclose(pp.grad.numpy(), tp.grad.numpy(), rtol=1e-4, atol=1e-6)
        popt.step()
        topt.step()
    for pp, tp in zip(pnet.parameters(), tnet.parameters()):
        np.testing.assert_allclose(pp.detach().numpy(), tp.detach().numpy(), rtol=1e-4,
                                   atol=1e-6)


def test_one_hot_straight_through_gradient_matches_torch():
    """rsample is a one-hot draw whose gradient is that of probs (the draw itself has none)."""
    logits = np.random.default_rng(3).normal(size=(2, 4))
    w = np.arange(8.0).reshape(2, 4)
    pl = pyth.tensor(logits, requires_grad=True)
    tl = torch.tensor(logits, requires_grad=True)
    pd = D.OneHotCategoricalStraightThrough(logits=pl)
    td = TD.OneHotCategoricalStraightThrough(logits=tl)
    assert pd.has_rsample and td.has_rsample
    s = pd.rsample()
    assert sorted(s.detach().sum(-1).tolist()) == [1.0, 1.0]
    (gp,) = pyth.autograd.grad((s * pyth.tensor(w)).sum(), [pl])
    (gt,) = torch.autograd.grad((td.rsample() * torch.tensor(w)).sum(), [tl])
    close(gp, gt, rtol=1e-9)
