"""kl_divergence and register_kl against torch.distributions: every registered pair's value and
gradients, the dispatch (most specific match, ambiguity warning, missing pairs)."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import pyth
import pyth.distributions as D

torch = pytest.importorskip("torch")
TD = torch.distributions

R = np.random.default_rng(0)


def _pos(n=3, lo=0.5, hi=3.0):
    return R.uniform(lo, hi, n)


def _real(n=3):
    return R.normal(size=n)


def _unit(n=3):
    return R.uniform(0.1, 0.9, n)


def _simplex(shape=(3, 4)):
    a = R.uniform(0.1, 1.0, shape)
    return a / a.sum(-1, keepdims=True)


def _spd(n=3, batch=(2,)):
    a = R.normal(size=batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


# each family: class name and a parameter maker; two draws give p and q
FAMILY = {
    "Normal": lambda: {"loc": _real(), "scale": _pos()},
    "Bernoulli": lambda: {"probs": _unit()},
    "Beta": lambda: {"concentration1": _pos(), "concentration0": _pos()},
    "Binomial": lambda: {"total_count": np.full(3, 5.0), "probs": _unit()},
    "Categorical": lambda: {"probs": _simplex()},
    "OneHotCategorical": lambda: {"probs": _simplex()},
    "Dirichlet": lambda: {"concentration": R.uniform(0.5, 3.0, (3, 4))},
    "Exponential": lambda: {"rate": _pos()},
    "Gamma": lambda: {"concentration": _pos(), "rate": _pos()},
    "Gumbel": lambda: {"loc": _real(), "scale": _pos()},
    "Geometric": lambda: {"probs": _unit()},
    "HalfNormal": lambda: {"scale": _pos()},
    "Laplace": lambda: {"loc": _real(), "scale": _pos()},
    "Poisson": lambda: {"rate": _pos()},
    "Uniform": lambda: {"low": R.uniform(0.05, 0.3, 3), "high": R.uniform(0.6, 0.95, 3)},
    "Cauchy": lambda: {"loc": _real(), "scale": _pos()},
    "MultivariateNormal": lambda: {"loc": R.normal(size=(2, 3)), "covariance_matrix": _spd()},
    "LowRankMultivariateNormal": lambda: {"loc": R.normal(size=(2, 3)),
                                          "cov_factor": R.normal(size=(2, 3, 2)),
                                          "cov_diag": R.uniform(0.5, 2.0, (2, 3))},
    "LogNormal": lambda: {"loc": _real(), "scale": _pos()},
    "Pareto": lambda: {"scale": _pos(), "alpha": _pos(3, 0.5, 4.0)},
    "ContinuousBernoulli": lambda: {"probs": _unit()},
}

PAIRS = [(f, f) for f in FAMILY] + [
    ("Bernoulli", "Poisson"), ("Beta", "Exponential"), ("Beta", "Gamma"), ("Beta", "Normal"),
    ("Beta", "Uniform"), ("Exponential", "Beta"), ("Exponential", "Uniform"),
    ("Exponential", "Gamma"), ("Exponential", "Gumbel"), ("Exponential", "Normal"),
    ("Gamma", "Beta"), ("Gamma", "Uniform"), ("Gamma", "Exponential"), ("Gamma", "Gumbel"),
    ("Gamma", "Normal"), ("Gumbel", "Beta"), ("Gumbel", "Exponential"), ("Gumbel", "Gamma"),
    ("Gumbel", "Uniform"), ("Gumbel", "Normal"), ("Laplace", "Beta"),
    ("Laplace", "Exponential"), ("Laplace", "Gamma"), ("Laplace", "Uniform"),
    ("Laplace", "Normal"), ("Normal", "Beta"), ("Normal", "Exponential"), ("Normal", "Gamma"),
    ("Normal", "Uniform"), ("Normal", "Gumbel"), ("Normal", "Laplace"),
    ("Poisson", "Bernoulli"), ("Poisson", "Binomial"), ("Uniform", "Beta"),
    ("Uniform", "Exponential"), ("Uniform", "Gamma"), ("Uniform", "Gumbel"),
    ("Uniform", "Normal"), ("MultivariateNormal", "LowRankMultivariateNormal"),
    ("LowRankMultivariateNormal", "MultivariateNormal"),
    ("Beta", "Pareto"), ("Exponential", "Pareto"), ("Gamma", "Pareto"), ("Gumbel", "Pareto"),
    ("Laplace", "Pareto"), ("Normal", "Pareto"), ("Pareto", "Beta"), ("Pareto", "Uniform"),
    ("Pareto", "Exponential"), ("Pareto", "Gamma"), ("Pareto", "Normal"),
    ("Uniform", "Pareto"),
    ("Beta", "ContinuousBernoulli"), ("ContinuousBernoulli", "Exponential"),
    ("ContinuousBernoulli", "Normal"), ("ContinuousBernoulli", "Pareto"),
    ("ContinuousBernoulli", "Uniform"), ("Exponential", "ContinuousBernoulli"),
    ("Gamma", "ContinuousBernoulli"), ("Gumbel", "ContinuousBernoulli"),
    ("Laplace", "ContinuousBernoulli"), ("Normal", "ContinuousBernoulli"),
    ("Pareto", "ContinuousBernoulli"), ("Uniform", "ContinuousBernoulli"),
]


def _build(name, arrays, grad):
    pk, tk, pl, tl = {}, {}, [], []
    for k, v in arrays.items():
        p = pyth.tensor(v, dtype=pyth.float64)
        t = torch.tensor(v, dtype=torch.float64)
        if grad and k != "total_count":
            p.requires_grad_()
            t.requires_grad_()
            pl.append(p)
            tl.append(t)
        pk[k], tk[k] = p, t
    return getattr(D, name)(**pk), getattr(TD, name)(**tk), pl, tl


@pytest.mark.parametrize("pn,qn", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_kl_values_and_gradients(pn, qn):
    global R
    R = np.random.default_rng(zlib.crc32(f"{pn}-{qn}".encode()))
    pa, qa = FAMILY[pn](), FAMILY[qn]()
    if pn == "Binomial" and qn == "Binomial":
        qa["total_count"] = pa["total_count"]
    pp, tp, ppl, tpl = _build(pn, pa, True)
    pq, tq, pql, tql = _build(qn, qa, True)
    want = TD.kl_divergence(tp, tq)
    got = D.kl_divergence(pp, pq)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-9,
                               atol=1e-12)
    finite = torch.isfinite(want).all()
    if not finite or not want.requires_grad:
        return
    gp = pyth.autograd.grad(got.sum(), ppl + pql, allow_unused=True)
    gt = torch.autograd.grad(want.sum(), tpl + tql, allow_unused=True)
    for a, b in zip(gp, gt):
        if b is None:
            assert a is None or float(a.abs().sum()) == 0
        else:
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-7, atol=1e-10)


def test_kl_gradcheck_normal_and_mvn():
    loc = pyth.tensor([0.3, -0.2], dtype=pyth.float64, requires_grad=True)
    scale = pyth.tensor([1.3, 0.7], dtype=pyth.float64, requires_grad=True)
    q = D.Normal(pyth.tensor([0.0, 1.0], dtype=pyth.float64),
                 pyth.tensor([1.0, 2.0], dtype=pyth.float64))
    assert pyth.autograd.gradcheck(lambda m, s: D.kl_divergence(D.Normal(m, s), q),
                                   (loc, scale))
    L = pyth.tensor([[1.2, 0.0], [0.4, 0.8]], dtype=pyth.float64, requires_grad=True)
    q2 = D.MultivariateNormal(pyth.zeros(2, dtype=pyth.float64),
                              pyth.tensor([[2.0, 0.3], [0.3, 1.0]], dtype=pyth.float64))
    assert pyth.autograd.gradcheck(
        lambda m, l: D.kl_divergence(D.MultivariateNormal(m, scale_tril=l.tril()), q2),
        (loc, L))


def test_kl_infinite_and_edge_values():
    p = D.Uniform(pyth.tensor([0.0, 0.2]), pyth.tensor([1.0, 0.8]))
    q = D.Uniform(pyth.tensor([0.1, 0.0]), pyth.tensor([1.0, 1.0]))
    tp = TD.Uniform(torch.tensor([0.0, 0.2]), torch.tensor([1.0, 0.8]))
    tq = TD.Uniform(torch.tensor([0.1, 0.0]), torch.tensor([1.0, 1.0]))
    np.testing.assert_allclose(D.kl_divergence(p, q).numpy(), TD.kl_divergence(tp, tq).numpy(),
                               rtol=1e-6)
    pc = D.Categorical(probs=pyth.tensor([0.5, 0.5, 0.0]))
    qc = D.Categorical(probs=pyth.tensor([0.5, 0.0, 0.5]))
    tpc = TD.Categorical(probs=torch.tensor([0.5, 0.5, 0.0]))
    tqc = TD.Categorical(probs=torch.tensor([0.5, 0.0, 0.5]))
    assert D.kl_divergence(pc, qc).item() == TD.kl_divergence(tpc, tqc).item() == float("inf")
    assert D.kl_divergence(qc, qc).item() == 0.0
    pb = D.Bernoulli(probs=pyth.tensor([0.0, 1.0, 0.3]))
    qb = D.Bernoulli(probs=pyth.tensor([0.5, 0.5, 0.0]))
    tpb = TD.Bernoulli(probs=torch.tensor([0.0, 1.0, 0.3]))
    tqb = TD.Bernoulli(probs=torch.tensor([0.5, 0.5, 0.0]))
    np.testing.assert_allclose(D.kl_divergence(pb, qb).numpy(),
                               TD.kl_divergence(tpb, tqb).numpy(), rtol=1e-6)


def test_kl_independent_and_transformed():
    a = D.Independent(D.Normal(pyth.zeros(2, 3), pyth.ones(2, 3)), 1)
    b = D.Independent(D.Normal(pyth.ones(2, 3), pyth.full((2, 3), 2.0)), 1)
    ta = TD.Independent(TD.Normal(torch.zeros(2, 3), torch.ones(2, 3)), 1)
    tb = TD.Independent(TD.Normal(torch.ones(2, 3), torch.full((2, 3), 2.0)), 1)
    np.testing.assert_allclose(D.kl_divergence(a, b).numpy(), TD.kl_divergence(ta, tb).numpy(),
                               rtol=1e-6)
    with pytest.raises(NotImplementedError):
        D.kl_divergence(a, D.Independent(D.Normal(pyth.zeros(2, 3), pyth.ones(2, 3)), 2))
    ln1, ln2 = D.LogNormal(0.0, 1.0), D.LogNormal(1.0, 2.0)
    tl1, tl2 = TD.LogNormal(0.0, 1.0), TD.LogNormal(1.0, 2.0)
    assert abs(D.kl_divergence(ln1, ln2).item() - TD.kl_divergence(tl1, tl2).item()) < 1e-6


def test_kl_missing_pair_and_binomial_counts():
    with pytest.raises(NotImplementedError,
                       match=r"No KL\(p \|\| q\) is implemented for p type Cauchy and q type "
                             r"Normal"):
        D.kl_divergence(D.Cauchy(0.0, 1.0), D.Normal(0.0, 1.0))
    with pytest.raises(NotImplementedError,
                       match="KL between Binomials where q.total_count > p.total_count"):
        D.kl_divergence(D.Binomial(2, pyth.tensor(0.3)), D.Binomial(5, pyth.tensor(0.3)))
    with pytest.raises(NotImplementedError, match="exponential families"):
        D.kl_divergence(D.Beta(pyth.tensor(1.0), pyth.tensor(1.0)),
                        D.Dirichlet(pyth.tensor([1.0, 1.0])))


def test_register_kl_dispatch():
    class MyNormal(D.Normal):
        pass

    class MyOther(D.Normal):
        pass

    p, q = MyNormal(0.0, 1.0), MyNormal(1.0, 1.0)
    # inherited: the Normal-Normal formula
    assert abs(D.kl_divergence(p, q).item() - 0.5) < 1e-6

    @D.register_kl(MyNormal, MyNormal)
    def _kl_mine(p, q):
        return pyth.tensor(42.0)

    assert D.kl_divergence(p, q).item() == 42.0

    @D.register_kl(MyOther, D.Normal)
    def _kl_other_normal(p, q):
        return pyth.tensor(1.0)

    @D.register_kl(D.Normal, MyOther)
    def _kl_normal_other(p, q):
        return pyth.tensor(2.0)

    with pytest.warns(RuntimeWarning, match=r"Ambiguous kl_divergence\(MyOther, MyOther\). "
                                            r"Please register_kl\(MyOther, MyOther\)"):
        D.kl_divergence(MyOther(0.0, 1.0), MyOther(0.0, 1.0))
    assert D.kl_divergence(MyOther(0.0, 1.0), D.Normal(0.0, 1.0)).item() == 1.0
    from pyth.distributions import kl
    for key in [(MyNormal, MyNormal), (MyOther, D.Normal), (D.Normal, MyOther)]:
        kl._KL_REGISTRY.pop(key)
    kl._KL_MEMOIZE.clear()


def test_registered_pairs_match_pytorch():
    """Every pair PyTorch registers between families pyth has is registered here too."""
    from pyth.distributions import kl
    names = {c.__name__ for pair in kl._KL_REGISTRY for c in pair}
    torch_pairs = {(a.__name__, b.__name__) for a, b in TD.kl._KL_REGISTRY}
    ours = {(a.__name__, b.__name__) for a, b in kl._KL_REGISTRY}
    want = {pq for pq in torch_pairs if pq[0] in names and pq[1] in names}
    assert want - ours == set()
    assert ours - torch_pairs == set()


def test_expfamily_bregman_entropy_and_kl():
    """The ExponentialFamily fallbacks (Bregman divergence of the log-normaliser)."""
    from pyth.distributions import kl
    f64 = pyth.float64
    p = D.Gamma(pyth.tensor([2.0, 3.0], dtype=f64), pyth.tensor([1.0, 0.5], dtype=f64))
    q = D.Gamma(pyth.tensor([1.0, 4.0], dtype=f64), pyth.tensor([2.0, 1.0], dtype=f64))
    np.testing.assert_allclose(kl._kl_expfamily_expfamily(p, q).detach().numpy(),
                               D.kl_divergence(p, q).numpy(), rtol=1e-10)
    np.testing.assert_allclose(D.ExponentialFamily.entropy(p).detach().numpy(),
                               p.entropy().numpy(), rtol=1e-10)
    n = D.Normal(pyth.tensor([0.5], dtype=pyth.float64), pyth.tensor([2.0], dtype=pyth.float64))
    np.testing.assert_allclose(D.ExponentialFamily.entropy(n).detach().numpy(),
                               n.entropy().numpy(), rtol=1e-10)
