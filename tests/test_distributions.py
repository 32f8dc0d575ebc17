"""pyth.distributions against torch.distributions on the same parameters: densities, moments,
cdf/icdf, entropy, supports, shapes, gradients (against PyTorch's and gradcheck), validation
errors, sample shapes and seeded sample statistics."""

from __future__ import annotations

import math

import numpy as np
import pytest

import pyth
import pyth.distributions as D

torch = pytest.importorskip("torch")
TD = torch.distributions

PD = {"float32": pyth.float32, "float64": pyth.float64}
TDT = {"float32": torch.float32, "float64": torch.float64}
TOL = {"float32": dict(rtol=2e-4, atol=2e-5), "float64": dict(rtol=1e-9, atol=1e-10)}


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def pos(shape, lo=0.5, hi=3.0, seed=0):
    return rng(seed).uniform(lo, hi, size=shape)


def real(shape, seed=1):
    return rng(seed).normal(size=shape)


def simplex(shape, seed=2):
    a = rng(seed).uniform(0.1, 1.0, size=shape)
    return a / a.sum(-1, keepdims=True)


def unit(shape, seed=3):
    return rng(seed).uniform(0.05, 0.95, size=shape)


def spd(shape, n, seed=4):
    a = rng(seed).normal(size=tuple(shape) + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def tril(shape, n, seed=5):
    return np.linalg.cholesky(spd(shape, n, seed))


# name -> (class name, {param: array maker(batch)}, extra python kwargs); a batch shape `b`
CASES = {
    "Normal": ("Normal", lambda b: {"loc": real(b), "scale": pos(b)}),
    "Uniform": ("Uniform", lambda b: {"low": real(b), "high": real(b) + pos(b, 1, 2)}),
    "Exponential": ("Exponential", lambda b: {"rate": pos(b)}),
    "Laplace": ("Laplace", lambda b: {"loc": real(b), "scale": pos(b)}),
    "Gamma": ("Gamma", lambda b: {"concentration": pos(b), "rate": pos(b, seed=7)}),
    "Beta": ("Beta", lambda b: {"concentration1": pos(b), "concentration0": pos(b, seed=8)}),
    "Dirichlet": ("Dirichlet", lambda b: {"concentration": pos(tuple(b) + (4,))}),
    "Poisson": ("Poisson", lambda b: {"rate": pos(b, 0.5, 8.0)}),
    "Bernoulli": ("Bernoulli", lambda b: {"probs": unit(b)}),
    "BernoulliLogits": ("Bernoulli", lambda b: {"logits": real(b)}),
    "Categorical": ("Categorical", lambda b: {"probs": simplex(tuple(b) + (5,))}),
    "CategoricalLogits": ("Categorical", lambda b: {"logits": real(tuple(b) + (5,))}),
    "OneHotCategorical": ("OneHotCategorical", lambda b: {"logits": real(tuple(b) + (4,))}),
    "Binomial": ("Binomial", lambda b: {"total_count": np.full(b, 6.0), "probs": unit(b)}),
    "BinomialLogits": ("Binomial", lambda b: {"total_count": np.full(b, 4.0),
                                              "logits": real(b)}),
    "Multinomial": ("Multinomial", lambda b: {"total_count": 5,
                                              "probs": simplex(tuple(b) + (3,))}),
    "MultivariateNormalCov": ("MultivariateNormal", lambda b: {
        "loc": real(tuple(b) + (3,)), "covariance_matrix": spd(b, 3)}),
    "MultivariateNormalPrec": ("MultivariateNormal", lambda b: {
        "loc": real(tuple(b) + (3,)), "precision_matrix": spd(b, 3)}),
    "MultivariateNormalTril": ("MultivariateNormal", lambda b: {
        "loc": real(tuple(b) + (3,)), "scale_tril": tril(b, 3)}),
    "LowRankMultivariateNormal": ("LowRankMultivariateNormal", lambda b: {
        "loc": real(tuple(b) + (3,)), "cov_factor": real(tuple(b) + (3, 2), seed=9),
        "cov_diag": pos(tuple(b) + (3,))}),
    "RelaxedBernoulli": ("RelaxedBernoulli", lambda b: {"temperature": np.array(0.7),
                                                        "probs": unit(b)}),
    "RelaxedOneHotCategorical": ("RelaxedOneHotCategorical", lambda b: {
        "temperature": np.array(0.7), "logits": real(tuple(b) + (3,))}),
    "LogNormal": ("LogNormal", lambda b: {"loc": real(b), "scale": pos(b)}),
    "Cauchy": ("Cauchy", lambda b: {"loc": real(b), "scale": pos(b)}),
    "StudentT": ("StudentT", lambda b: {"df": pos(b, 0.8, 6.0), "loc": real(b),
                                        "scale": pos(b)}),
    "Geometric": ("Geometric", lambda b: {"probs": unit(b)}),
    "HalfNormal": ("HalfNormal", lambda b: {"scale": pos(b)}),
    "Gumbel": ("Gumbel", lambda b: {"loc": real(b), "scale": pos(b)}),
    "Chi2": ("Chi2", lambda b: {"df": pos(b, 0.5, 6.0)}),
    "HalfCauchy": ("HalfCauchy", lambda b: {"scale": pos(b)}),
    "ContinuousBernoulli": ("ContinuousBernoulli", lambda b: {"probs": unit(b)}),
    "ContinuousBernoulliLogits": ("ContinuousBernoulli", lambda b: {"logits": real(b)}),
    "ContinuousBernoulliHalf": ("ContinuousBernoulli", lambda b: {"probs": np.full(b, 0.4995)}),
    "Kumaraswamy": ("Kumaraswamy", lambda b: {"concentration1": pos(b, 0.5, 4.0),
                                              "concentration0": pos(b, 0.5, 4.0, seed=16)}),
    "NegativeBinomial": ("NegativeBinomial", lambda b: {"total_count": pos(b, 1.0, 6.0),
                                                        "probs": unit(b)}),
    "NegativeBinomialLogits": ("NegativeBinomial", lambda b: {"total_count": np.full(b, 3.0),
                                                              "logits": real(b)}),
    "InverseGamma": ("InverseGamma", lambda b: {"concentration": pos(b, 0.5, 5.0),
                                                "rate": pos(b, seed=14)}),
    "LogisticNormal": ("LogisticNormal", lambda b: {"loc": real(tuple(b) + (3,)),
                                                    "scale": pos(tuple(b) + (3,))}),
    "FisherSnedecor": ("FisherSnedecor", lambda b: {"df1": pos(b, 0.5, 8.0),
                                                    "df2": pos(b, 0.5, 9.0, seed=15)}),
    "Pareto": ("Pareto", lambda b: {"scale": pos(b), "alpha": pos(b, 0.5, 4.0, seed=12)}),
    "Weibull": ("Weibull", lambda b: {"scale": pos(b), "concentration": pos(b, 0.5, 4.0,
                                                                            seed=13)}),
}
BATCHES = [(), (3,), (2, 3)]
INT_PARAMS = {"total_count"}


def make(name, batch, dtype, grad=False):
    """The pyth and torch distributions of one case, with their parameter tensors."""
    cls, params = CASES[name]
    arrays = params(batch)
    pk, tk, pleaves, tleaves = {}, {}, {}, {}
    for k, v in arrays.items():
        if isinstance(v, int):
            pk[k] = tk[k] = v
            continue
        p = pyth.tensor(np.asarray(v), dtype=PD[dtype])
        t = torch.tensor(np.asarray(v), dtype=TDT[dtype])
        if grad and k not in INT_PARAMS and k != "temperature":
            p.requires_grad_()
            t.requires_grad_()
            pleaves[k], tleaves[k] = p, t
        pk[k], tk[k] = p, t
    return getattr(D, cls)(**pk), getattr(TD, cls)(**tk), pleaves, tleaves


def P(t):
    """A torch tensor as a pyth tensor of the same dtype."""
    return pyth.tensor(t.detach().numpy())


def close(p, t, dtype, **kw):
    tol = dict(TOL[dtype])
    tol.update(kw)
    assert tuple(p.shape) == tuple(t.shape)
    np.testing.assert_allclose(np.asarray(p.detach().numpy(), dtype=np.float64),
                               t.detach().numpy().astype(np.float64), equal_nan=True, **tol)


def values_for(td, n=4, seed=0):
    """Values in the support of td (its own samples), shape (n,) + batch + event."""
    torch.manual_seed(seed)
    return td.sample((n,))


def torch_or_none(fn):
    try:
        return fn()
    except NotImplementedError:
        return None


ALL = sorted(CASES)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batch", BATCHES, ids=str)
@pytest.mark.parametrize("name", ALL)
def test_shapes_and_log_prob(name, batch, dtype):
    pd, td, _, _ = make(name, batch, dtype)
    assert tuple(pd.batch_shape) == tuple(td.batch_shape)
    assert tuple(pd.event_shape) == tuple(td.event_shape)
    assert pd.has_rsample == td.has_rsample
    assert pd.has_enumerate_support == td.has_enumerate_support
    v = values_for(td)
    close(pd.log_prob(P(v)), td.log_prob(v), dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batch", [(), (2, 3)], ids=str)
@pytest.mark.parametrize("name", ALL)
def test_moments_and_entropy(name, batch, dtype):
    pd, td, _, _ = make(name, batch, dtype)
    for attr in ("mean", "mode", "variance", "stddev"):
        want = torch_or_none(lambda: getattr(td, attr))
        if want is None:
            with pytest.raises(NotImplementedError):
                getattr(pd, attr)
        else:
            close(getattr(pd, attr), want, dtype)
    want = torch_or_none(td.entropy)
    if want is None:
        with pytest.raises(NotImplementedError):
            pd.entropy()
    else:
        # PyTorch's Multinomial takes lgamma(total_count + 1) of an int64 tensor, in float32
        loose = dict(rtol=1e-7) if name == "Multinomial" and dtype == "float64" else {}
        close(pd.entropy(), want, dtype, **loose)
        close(pd.perplexity(), td.perplexity(), dtype,
              rtol=1e-3 if dtype == "float32" else loose.get("rtol", 1e-9))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ALL)
def test_cdf_icdf(name, dtype):
    pd, td, _, _ = make(name, (3,), dtype)
    v = values_for(td)
    want = torch_or_none(lambda: td.cdf(v))
    if want is None:
        with pytest.raises(NotImplementedError):
            pd.cdf(P(v))
        return
    close(pd.cdf(P(v)), want, dtype)
    q = torch.tensor([[0.1, 0.5, 0.9], [0.25, 0.6, 0.75]], dtype=TDT[dtype])
    want = torch_or_none(lambda: td.icdf(q))
    if want is not None:
        close(pd.icdf(P(q)), want, dtype, rtol=1e-3 if dtype == "float32" else 1e-8)


@pytest.mark.parametrize("name", ALL)
def test_support_checks(name):
    pd, td, _, _ = make(name, (3,), "float64")
    v = values_for(td, 2).double()
    cands = [v, v * -1.0, v + 0.5, v * 0 + float("nan"), v * 2.0]
    support = td.support
    for c in cands:
        want = support.check(c)
        got = pd.support.check(P(c))
        assert got.tolist() == want.tolist(), (name, c)
    assert type(pd.support).__name__ == type(td.support).__name__
    assert pd.support.event_dim == td.support.event_dim
    assert pd.support.is_discrete == td.support.is_discrete


@pytest.mark.parametrize("name", ALL)
def test_enumerate_support(name):
    pd, td, _, _ = make(name, (2, 3), "float64")
    if not td.has_enumerate_support:
        return
    for expand in (True, False):
        got, want = pd.enumerate_support(expand), td.enumerate_support(expand)
        assert got.dtype.name == str(want.dtype).replace("torch.", "")
        np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("name", ALL)
def test_expand(name):
    pd, td, _, _ = make(name, (3,), "float64")
    pe, te = pd.expand((2, 3)), td.expand((2, 3))
    assert tuple(pe.batch_shape) == tuple(te.batch_shape) == (2, 3)
    assert tuple(pe.event_shape) == tuple(te.event_shape)
    v = values_for(te)
    close(pe.log_prob(P(v)), te.log_prob(v), "float64")
    assert pe._validate_args == pd._validate_args


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ALL)
def test_sample_shapes_and_dtypes(name, dtype):
    pd, td, _, _ = make(name, (2, 3), dtype)
    for shape in [(), (4,), (2, 5)]:
        pyth.manual_seed(0)
        s = pd.sample(shape)
        t = td.sample(shape)
        assert tuple(s.shape) == tuple(t.shape)
        assert s.dtype.name == str(t.dtype).replace("torch.", "")
        assert not s.requires_grad
        assert bool(pd.support.check(s).all()), name
        if pd.has_rsample:
            r = pd.rsample(shape)
            assert tuple(r.shape) == tuple(t.shape)


@pytest.mark.parametrize("name", ALL)
def test_log_prob_and_entropy_gradients(name):
    pd, td, pl, tl = make(name, (3,), "float64", grad=True)
    v = values_for(td).detach()
    lp, lt = pd.log_prob(P(v)).sum(), td.log_prob(v).sum()
    et = torch_or_none(td.entropy)
    if et is not None:
        lp = lp + pd.entropy().sum()
        lt = lt + et.sum()
    keys = sorted(pl)
    gp = pyth.autograd.grad(lp, [pl[k] for k in keys], allow_unused=True)
    gt = torch.autograd.grad(lt, [tl[k] for k in keys], allow_unused=True)
    for k, a, b in zip(keys, gp, gt):
        if b is None:
            assert a is None or float(a.abs().sum()) == 0, (name, k)
            continue
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-7, atol=1e-9,
                                   err_msg=f"{name}.{k}")


GRADCHECK = ["Normal", "Gamma", "Beta", "Dirichlet", "Laplace", "Exponential", "StudentT",
             "BernoulliLogits", "CategoricalLogits", "MultivariateNormalTril",
             "LowRankMultivariateNormal", "Poisson", "Gumbel", "Cauchy"]


@pytest.mark.parametrize("name", GRADCHECK)
def test_gradcheck_log_prob(name):
    cls, params = CASES[name]
    arrays = params((2,))
    _, td, _, _ = make(name, (2,), "float64")
    v = P(values_for(td, 2))
    keys = [k for k in arrays if k not in INT_PARAMS]
    leaves = [pyth.tensor(np.asarray(arrays[k]), dtype=pyth.float64, requires_grad=True)
              for k in keys]

    def f(*xs):
        d = getattr(D, cls)(**dict(zip(keys, xs)), validate_args=False)
        out = d.log_prob(v)
        try:
            out = out.sum() + d.entropy().sum()
        except NotImplementedError:
            pass
        return out

    assert pyth.autograd.gradcheck(f, tuple(leaves), eps=1e-6, atol=1e-5)


# ---- validation ----

BAD = [
    ("Normal", dict(loc=[0.0, 1.0], scale=[1.0, -1.0]), "scale"),
    ("Normal", dict(loc=[0.0, float("nan")], scale=[1.0, 1.0]), "loc"),
    ("Exponential", dict(rate=[0.0, 1.0]), "rate"),
    ("Gamma", dict(concentration=[-1.0], rate=[1.0]), "concentration"),
    ("Beta", dict(concentration1=[1.0], concentration0=[0.0]), "concentration"),
    ("Bernoulli", dict(probs=[1.5]), "probs"),
    ("Categorical", dict(probs=[[0.5, -0.1, 0.6]]), "probs"),
    ("Poisson", dict(rate=[-2.0]), "rate"),
    ("Dirichlet", dict(concentration=[[1.0, -1.0]]), "concentration"),
    ("Laplace", dict(loc=[0.0], scale=[0.0]), "scale"),
    ("Binomial", dict(total_count=[2.5], probs=[0.5]), "total_count"),
    ("Uniform", dict(low=[1.0], high=[0.0]), "low"),
    ("MultivariateNormal", dict(loc=[0.0, 0.0], covariance_matrix=[[1.0, 2.0], [2.0, 1.0]]),
     "covariance_matrix"),
    ("MultivariateNormal", dict(loc=[0.0, 0.0], scale_tril=[[1.0, 0.0], [2.0, -1.0]]),
     "scale_tril"),
]


def _message_head(e: BaseException) -> str:
    """The message without the tensors it prints (pyth and PyTorch print tensors differently):
    the part up to the distribution's repr, and the constraint's class."""
    s = str(e).split(" of distribution ")[0]
    constraint = str(e).split("to satisfy the constraint ")[1].split("(")[0]
    return s.replace("torch.", "pyth.") + " ... " + constraint


@pytest.mark.parametrize("cls,kw,param", BAD, ids=[f"{c}-{p}" for c, _, p in BAD])
def test_invalid_parameters(cls, kw, param):
    with pytest.raises(ValueError) as te:
        getattr(TD, cls)(**{k: torch.tensor(v) for k, v in kw.items()})
    if cls == "MultivariateNormal" and param == "covariance_matrix":
        # PyTorch's message names the value; the Cholesky may fail first in either library
        with pytest.raises((ValueError, RuntimeError)):
            getattr(D, cls)(**{k: pyth.tensor(v) for k, v in kw.items()})
        return
    with pytest.raises(ValueError) as pe:
        getattr(D, cls)(**{k: pyth.tensor(v) for k, v in kw.items()})
    assert _message_head(pe.value) == _message_head(te.value)
    assert f"Expected parameter {param}" in str(pe.value)
    if cls != "MultivariateNormal":  # without validation the parameters are taken as given
        getattr(D, cls)(**{k: pyth.tensor(v) for k, v in kw.items()}, validate_args=False)


OUTSIDE = [("Normal", dict(loc=0.0, scale=1.0), float("nan")),
           ("Exponential", dict(rate=1.0), -1.0),
           ("Gamma", dict(concentration=2.0, rate=1.0), -0.5),
           ("Beta", dict(concentration1=2.0, concentration0=1.0), 1.5),
           ("Bernoulli", dict(probs=0.3), 0.5),
           ("Poisson", dict(rate=2.0), 1.5),
           ("Uniform", dict(low=0.0, high=1.0), 2.0),
           ("Geometric", dict(probs=0.3), -1.0),
           ("HalfNormal", dict(scale=1.0), -1.0)]


@pytest.mark.parametrize("cls,kw,value", OUTSIDE, ids=[c for c, _, _ in OUTSIDE])
def test_values_outside_the_support(cls, kw, value):
    pd = getattr(D, cls)(**kw)
    td = getattr(TD, cls)(**kw)
    with pytest.raises(ValueError) as te:
        td.log_prob(torch.tensor([value]))
    with pytest.raises(ValueError) as pe:
        pd.log_prob(pyth.tensor([value]))
    # up to the distribution's repr, which prints its one-element parameters as tensors
    head = [str(e.value).split(" of the distribution ")[0] for e in (pe, te)]
    assert head[0] == head[1]
    assert str(pe.value).split(" of the distribution ")[1].startswith(cls + "(")
    assert str(pe.value).startswith("Expected value argument (Tensor of shape (1,)) to be "
                                    "within the support")


def test_sample_shape_errors_and_messages():
    pd, td = D.Normal(pyth.zeros(3), pyth.ones(3)), TD.Normal(torch.zeros(3), torch.ones(3))
    for bad in (torch.zeros(2), torch.zeros(4, 2)):
        with pytest.raises(ValueError) as te:
            td.log_prob(bad)
        with pytest.raises(ValueError) as pe:
            pd.log_prob(P(bad))
        assert str(pe.value) == str(te.value).replace("torch.", "pyth.")
    with pytest.raises(ValueError, match="The value argument to log_prob must be a Tensor"):
        pd.log_prob(0.5)
    pm = D.MultivariateNormal(pyth.zeros(3), pyth.eye(3))
    tm = TD.MultivariateNormal(torch.zeros(3), torch.eye(3))
    with pytest.raises(ValueError) as te:
        tm.log_prob(torch.zeros(2))
    with pytest.raises(ValueError) as pe:
        pm.log_prob(pyth.zeros(2))
    assert str(pe.value) == str(te.value).replace("torch.", "pyth.")


CTOR_ERRORS = [
    (lambda M, T: M.Bernoulli(), "Either `probs` or `logits` must be specified, but not both."),
    (lambda M, T: M.Categorical(probs=T([0.5, 0.5]), logits=T([0.0, 0.0])),
     "Either `probs` or `logits` must be specified, but not both."),
    (lambda M, T: M.Categorical(probs=T(0.5)), "`probs` parameter must be at least "
                                               "one-dimensional."),
    (lambda M, T: M.Categorical(logits=T(0.5)), "`logits` parameter must be at least "
                                                "one-dimensional."),
    (lambda M, T: M.Dirichlet(T(1.0)), "`concentration` parameter must be at least "
                                       "one-dimensional."),
    (lambda M, T: M.MultivariateNormal(T(1.0), scale_tril=T([[1.0]])),
     "loc must be at least one-dimensional."),
    (lambda M, T: M.MultivariateNormal(T([1.0])),
     "Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified."),
    (lambda M, T: M.MultivariateNormal(T([1.0]), scale_tril=T([1.0])),
     "scale_tril matrix must be at least two-dimensional, with optional leading batch "
     "dimensions"),
    (lambda M, T: M.LowRankMultivariateNormal(T([0.0, 0.0]), T([[1.0], [1.0], [1.0]]),
                                              T([1.0, 1.0])),
     "cov_factor must be a batch of matrices with shape 2 x m"),
    (lambda M, T: M.Independent(M.Normal(T([0.0]), T([1.0])), 2),
     "Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), actual 2 vs 1"),
    (lambda M, T: M.MixtureSameFamily(M.Normal(T([0.0]), T([1.0])), M.Normal(T([0.0]), T([1.0]))),
     " The Mixture distribution needs to be an  instance of torch.distributions.Categorical"),
    (lambda M, T: M.TransformedDistribution(M.Normal(T(0.0), T(1.0)), 3),
     "transforms must be a Transform or list, but was 3"),
]


@pytest.mark.parametrize("k", range(len(CTOR_ERRORS)))
def test_constructor_errors(k):
    build, message = CTOR_ERRORS[k]
    with pytest.raises(ValueError) as te:
        build(TD, torch.tensor)
    assert str(te.value) == message
    with pytest.raises(ValueError) as pe:
        build(D, pyth.tensor)
    assert str(pe.value) == message


def test_default_validate_args_switch():
    try:
        D.Distribution.set_default_validate_args(False)
        D.Normal(pyth.tensor([0.0]), pyth.tensor([-1.0]))  # no check
        assert D.Normal(0.0, 1.0)._validate_args is False
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Normal(pyth.tensor([0.0]), pyth.tensor([-1.0]))
    with pytest.raises(ValueError):
        D.Distribution.set_default_validate_args("yes")
    with pytest.raises(ValueError):
        D.Normal(pyth.tensor([0.0]), pyth.tensor([-1.0]), validate_args=True)
    assert D.Normal(pyth.tensor([0.0]), pyth.tensor([-1.0]), validate_args=False) is not None


def test_sample_n_warns():
    d = D.Normal(pyth.zeros(2), pyth.ones(2))
    with pytest.warns(UserWarning, match=r"sample_n will be deprecated. Use .sample\(\(n,\)\)"):
        s = d.sample_n(3)
    assert tuple(s.shape) == (3, 2)


def test_repr_and_arg_constraints():
    d = D.Normal(pyth.zeros(2), pyth.ones(2))
    assert repr(d) == "Normal(loc: pyth.Size([2]), scale: pyth.Size([2]))"
    for name in ALL:
        cls = CASES[name][0]
        pa, ta = getattr(D, cls).arg_constraints, getattr(TD, cls).arg_constraints
        if isinstance(ta, property) or callable(ta):
            continue
        assert sorted(pa) == sorted(ta), cls
        for k in ta:
            assert type(pa[k]).__name__ == type(ta[k]).__name__, (cls, k)


# ---- reparameterised samples ----

def test_rsample_gradients_of_location_scale_families():
    """rsample is loc + scale * eps: d/dloc = 1, d/dscale = eps, read back from the sample."""
    loc = pyth.tensor([0.5, -1.0], dtype=pyth.float64, requires_grad=True)
    scale = pyth.tensor([2.0, 0.5], dtype=pyth.float64, requires_grad=True)
    for cls in (D.Normal, D.Laplace, D.Cauchy):
        pyth.manual_seed(3)
        s = cls(loc, scale).rsample((50,))
        eps = ((s - loc) / scale).detach()
        gl, gs = pyth.autograd.grad(s.sum(), [loc, scale])
        np.testing.assert_allclose(gl.numpy(), [50.0, 50.0])
        np.testing.assert_allclose(gs.numpy(), eps.sum(0).numpy(), rtol=1e-12)
    low = pyth.tensor([0.0, 1.0], dtype=pyth.float64, requires_grad=True)
    high = pyth.tensor([1.0, 4.0], dtype=pyth.float64, requires_grad=True)
    s = D.Uniform(low, high).rsample((40,))
    u = ((s - low) / (high - low)).detach()
    gl, gh = pyth.autograd.grad(s.sum(), [low, high])
    np.testing.assert_allclose(gh.numpy(), u.sum(0).numpy(), rtol=1e-12)
    np.testing.assert_allclose(gl.numpy(), (1 - u).sum(0).numpy(), rtol=1e-12)
    rate = pyth.tensor([0.5, 3.0], dtype=pyth.float64, requires_grad=True)
    s = D.Exponential(rate).rsample((30,))
    (g,) = pyth.autograd.grad(s.sum(), [rate])
    np.testing.assert_allclose(g.numpy(), (-s / rate).sum(0).detach().numpy(), rtol=1e-12)


def test_rsample_multivariate_normal_matches_torch_given_the_noise():
    loc = np.array([0.5, -1.0, 2.0])
    L = tril((), 3)
    pl = pyth.tensor(loc, requires_grad=True)
    pL = pyth.tensor(L, requires_grad=True)
    pyth.manual_seed(0)
    s = D.MultivariateNormal(pl, scale_tril=pL).rsample((7,))
    eps = np.linalg.solve(L, (s.detach().numpy() - loc).T).T
    tl = torch.tensor(loc, requires_grad=True)
    tL = torch.tensor(L, requires_grad=True)
    ts = tl + (tL @ torch.tensor(eps).unsqueeze(-1)).squeeze(-1)
    np.testing.assert_allclose(s.detach().numpy(), ts.detach().numpy(), rtol=1e-12)
    w = np.arange(21.0).reshape(7, 3)
    gp = pyth.autograd.grad((s * pyth.tensor(w)).sum(), [pl, pL])
    gt = torch.autograd.grad((ts * torch.tensor(w)).sum(), [tl, tL])
    for a, b in zip(gp, gt):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)


def test_standard_gamma_grad_against_torch_and_finite_differences():
    stats = pytest.importorskip("scipy.stats")
    alpha = np.array([0.05, 0.3, 1.0, 2.5, 7.0, 30.0, 400.0])
    for q in (0.01, 0.2, 0.5, 0.8, 0.99):
        x = np.array([stats.gamma.ppf(q, a) for a in alpha])
        got = pyth._standard_gamma_grad(pyth.tensor(alpha), pyth.tensor(x)).numpy()
        want = torch._standard_gamma_grad(torch.tensor(alpha), torch.tensor(x)).numpy()
        h = 1e-6
        fd = np.array([(stats.gamma.ppf(q, a + h) - stats.gamma.ppf(q, a - h)) / (2 * h)
                       for a in alpha])
        np.testing.assert_allclose(got, fd, rtol=1e-5)
        np.testing.assert_allclose(got, want, rtol=1e-3)


def test_gamma_rsample_gradient_is_the_implicit_one():
    conc = pyth.tensor([0.4, 1.0, 3.0, 12.0], dtype=pyth.float64, requires_grad=True)
    rate = pyth.tensor([1.0, 2.0, 0.5, 1.5], dtype=pyth.float64, requires_grad=True)
    pyth.manual_seed(1)
    s = D.Gamma(conc, rate).rsample((64,))
    gc, gr = pyth.autograd.grad(s.sum(), [conc, rate])
    x = (s * rate).detach()  # the standard gamma draws
    want = torch._standard_gamma_grad(torch.tensor(conc.detach().numpy()).expand(64, 4),
                                      torch.tensor(x.numpy())) / torch.tensor(rate.detach().numpy())
    np.testing.assert_allclose(gc.numpy(), want.sum(0).numpy(), rtol=1e-3)
    np.testing.assert_allclose(gr.numpy(), (-s / rate).sum(0).detach().numpy(), rtol=1e-10)



def _error(fn):
    """(type, message) of what fn raises, torch's name read as pyth's."""
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value), str(info.value).replace("torch", "pyth")


def test_standard_gamma_nodes_and_second_derivative_as_torch():
    """_standard_gamma records StandardGammaBackward0; its gradient is recorded under
    create_graph through _standard_gamma_grad, whose own derivative raises PyTorch's error."""
    v = [0.4, 1.0, 3.0, 12.0]
    a = pyth.tensor(v, dtype=pyth.float64, requires_grad=True)
    ta = torch.tensor(v, dtype=torch.float64, requires_grad=True)
    pyth.manual_seed(3)
    x, tx = pyth._standard_gamma(a), torch._standard_gamma(ta)
    assert x.grad_fn.name() == tx.grad_fn.name() == "StandardGammaBackward0"
    with pyth.no_grad():
        assert pyth._standard_gamma(a).grad_fn is None
    (g,) = pyth.autograd.grad((x * x).sum(), [a], create_graph=True)
    (tg,) = torch.autograd.grad((tx * tx).sum(), [ta], create_graph=True)
    assert g.requires_grad and tg.requires_grad
    assert _error(lambda: pyth.autograd.grad(g.sum(), [a])) == \
        _error(lambda: torch.autograd.grad(tg.sum(), [ta]))
    xs = pyth.tensor([0.3, 1.0, 2.0, 9.0], dtype=pyth.float64)
    s, ts = pyth._standard_gamma_grad(a, xs), torch._standard_gamma_grad(ta, torch.tensor(
        xs.numpy()))
    assert s.grad_fn.name() == ts.grad_fn.name() == "StandardGammaGradBackward0"
    assert _error(lambda: s.sum().backward()) == _error(lambda: ts.sum().backward())
    # the saved draw, modified in place, makes backward raise
    x = pyth._standard_gamma(a)
    with pyth.no_grad():
        x.add_(1)
    with pytest.raises(RuntimeError, match="output 0 of StandardGamma, is at version 1"):
        x.sum().backward()


def test_dirichlet_rsample_is_once_differentiable_as_torch():
    """rsample's node is _DirichletBackward; under create_graph a gradient that flows on can
    not be differentiated again (PyTorch's once_differentiable error), one that does not is
    not recorded."""
    v = [[0.5, 1.0, 3.0], [2.0, 2.0, 0.7]]
    c = pyth.tensor(v, dtype=pyth.float64, requires_grad=True)
    tc = torch.tensor(v, dtype=torch.float64, requires_grad=True)
    pyth.manual_seed(2)
    s, ts = D.Dirichlet(c).rsample((2,)), TD.Dirichlet(tc).rsample((2,))
    assert s.grad_fn.name() == ts.grad_fn.name() == "_DirichletBackward"
    w = np.arange(12.0).reshape(2, 2, 3) / 7
    (g,) = pyth.autograd.grad((s * pyth.tensor(w)).sum(), [c], create_graph=True)
    (tg,) = torch.autograd.grad((ts * torch.tensor(w)).sum(), [tc], create_graph=True)
    assert not g.requires_grad and not tg.requires_grad
    (g,) = pyth.autograd.grad((s * s).sum(), [c], create_graph=True)
    (tg,) = torch.autograd.grad((ts * ts).sum(), [tc], create_graph=True)
    assert g.requires_grad and tg.requires_grad
    assert _error(lambda: g.sum().backward()) == _error(lambda: tg.sum().backward())
    pyth.manual_seed(2)
    s = D.Dirichlet(c).rsample()
    with pyth.no_grad():
        s.mul_(2)
    with pytest.raises(RuntimeError, match="output 0 of _Dirichlet, is at version 1"):
        s.sum().backward()

@pytest.mark.parametrize("cls,params,mean", [
    ("Gamma", dict(concentration=[0.5, 2.0, 9.0], rate=[1.0, 0.5, 3.0]),
     lambda c, r: c / r),
    ("Beta", dict(concentration1=[0.7, 2.0, 5.0], concentration0=[1.5, 0.6, 4.0]),
     lambda a, b: a / (a + b)),
])
def test_pathwise_gradient_is_unbiased(cls, params, mean):
    """E[d sample / d theta] = d E[sample] / d theta, over a fixed seeded large sample."""
    leaves = {k: pyth.tensor(v, dtype=pyth.float64, requires_grad=True) for k, v in params.items()}
    pyth.manual_seed(5)
    n = 40000
    s = getattr(D, cls)(**leaves).rsample((n,))
    keys = list(leaves)
    got = pyth.autograd.grad(s.mean(0).sum(), [leaves[k] for k in keys])
    tl = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True) for k, v in params.items()}
    want = torch.autograd.grad(mean(*[tl[k] for k in keys]).sum(), [tl[k] for k in keys])
    # per-sample gradients have spread about their mean; 6% covers > 4 standard errors here
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=0.06, atol=0.01)


def test_dirichlet_grad_against_torch_and_finite_differences():
    stats = pytest.importorskip("scipy.stats")
    x = np.array([0.01, 0.2, 0.5, 0.7, 0.99, 0.3, 0.05, 0.9, 1e-5, 0.999])
    a = np.array([0.3, 1.0, 2.0, 5.0, 3.0, 20.0, 0.5, 50.0, 0.05, 100.0])
    t = np.array([1.0, 3.0, 4.0, 6.0, 3.5, 45.0, 10.0, 55.0, 0.3, 100.5])
    got = pyth._dirichlet_grad(pyth.tensor(x), pyth.tensor(a), pyth.tensor(t)).numpy()
    want = torch._dirichlet_grad(torch.tensor(x), torch.tensor(a), torch.tensor(t)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-3)
    # the definition: d x / d alpha at a fixed CDF with beta = total - alpha held, over 1 - x
    h = 1e-6
    fd = []
    for xi, ai, ti in zip(x[:8], a[:8], t[:8]):
        q = stats.beta.cdf(xi, ai, ti - ai)
        fd.append((stats.beta.ppf(q, ai + h, ti - ai) - stats.beta.ppf(q, ai - h, ti - ai))
                  / (2 * h) / (1 - xi))
    np.testing.assert_allclose(got[:8], fd, rtol=1e-5)


def test_dirichlet_and_beta_rsample_gradients_match_torch_given_the_draw():
    """Dirichlet.rsample's backward is PyTorch's: g_i (grad_i - sum_j x_j grad_j)."""
    from pyth.distributions.dirichlet import _Dirichlet_backward as pyth_backward
    from torch.distributions.dirichlet import _Dirichlet_backward as torch_backward
    c = pyth.tensor([[0.5, 1.0, 3.0], [2.0, 2.0, 0.7]], dtype=pyth.float64, requires_grad=True)
    pyth.manual_seed(2)
    s = D.Dirichlet(c).rsample((5,))
    w = np.arange(30.0).reshape(5, 2, 3) / 7
    (g,) = pyth.autograd.grad((s * pyth.tensor(w)).sum(), [c])
    tc = torch.tensor(c.detach().numpy()).expand(5, 2, 3)
    want = torch_backward(torch.tensor(s.detach().numpy()), tc, torch.tensor(w)).sum(0)
    np.testing.assert_allclose(g.numpy(), want.numpy(), rtol=1e-3)
    direct = pyth_backward(s.detach(), c.detach().expand(5, 2, 3), pyth.tensor(w)).sum(0)
    np.testing.assert_allclose(g.numpy(), direct.numpy(), rtol=1e-12)
    a = pyth.tensor([0.7, 3.0], dtype=pyth.float64, requires_grad=True)
    b = pyth.tensor([1.5, 0.4], dtype=pyth.float64, requires_grad=True)
    pyth.manual_seed(3)
    x = D.Beta(a, b).rsample((6,))
    ga, gb = pyth.autograd.grad(x.sum(), [a, b])
    xx = torch.tensor(np.stack([x.detach().numpy(), 1 - x.detach().numpy()], -1))
    conc = torch.tensor(np.stack([a.detach().numpy(), b.detach().numpy()], -1)).expand(6, 2, 2)
    go = torch.zeros(6, 2, 2, dtype=torch.float64)
    go[..., 0] = 1
    want = torch_backward(xx, conc, go).sum(0)
    np.testing.assert_allclose(ga.numpy(), want[:, 0].numpy(), rtol=1e-3)
    np.testing.assert_allclose(gb.numpy(), want[:, 1].numpy(), rtol=1e-3)


def test_dirichlet_rsample_is_differentiable_and_on_the_simplex():
    c = pyth.tensor([[0.5, 1.0, 3.0]], dtype=pyth.float64, requires_grad=True)
    pyth.manual_seed(2)
    s = D.Dirichlet(c).rsample((20000,))
    np.testing.assert_allclose(s.sum(-1).detach().numpy(), 1.0, rtol=1e-12)
    (g,) = pyth.autograd.grad(s[..., 0].mean(), [c])
    tc = torch.tensor([[0.5, 1.0, 3.0]], dtype=torch.float64, requires_grad=True)
    (want,) = torch.autograd.grad((tc[..., 0] / tc.sum(-1)).sum(), [tc])
    np.testing.assert_allclose(g.numpy(), want.numpy(), rtol=0.06, atol=0.01)


# ---- sample statistics ----

STAT_CASES = ["ContinuousBernoulli", "Weibull", "NegativeBinomial", "Normal", "Uniform",
              "Exponential", "Laplace", "Gamma", "Beta", "Poisson", "Bernoulli", "Categorical",
              "Binomial", "Geometric", "HalfNormal", "Gumbel", "LogNormal", "Dirichlet",
              "Multinomial", "MultivariateNormalCov", "LowRankMultivariateNormal",
              "OneHotCategorical", "Chi2"]


@pytest.mark.parametrize("name", STAT_CASES)
def test_sample_statistics(name):
    """Seeded samples: their mean within 5 standard errors of the distribution's mean."""
    pd, td, _, _ = make(name, (3,), "float64")
    pyth.manual_seed(11)
    n = 20000
    s = pd.sample((n,)).double()
    if name.startswith("Categorical"):
        k = td.probs.shape[-1]
        freq = np.stack([(s.numpy() == j).mean(0) for j in range(k)], -1)
        se = np.sqrt(td.probs.numpy() * (1 - td.probs.numpy()) / n)
        assert np.all(np.abs(freq - td.probs.numpy()) < 5 * se + 1e-12)
        return
    mean, var = td.mean.detach().numpy(), td.variance.detach().numpy()
    got = s.mean(0).numpy()
    se = np.sqrt(var / n)
    assert np.all(np.abs(got - mean) <= 5 * se + 1e-12), (got, mean, se)
    if name not in ("LogNormal",):  # the variance of a lognormal's sample variance is large
        np.testing.assert_allclose(s.var(0).numpy(), var, rtol=0.08)


def test_sampling_is_deterministic_given_the_seed():
    d = D.Gamma(pyth.tensor([0.3, 2.0]), pyth.tensor([1.0, 1.0]))
    pyth.manual_seed(4)
    a = d.sample((100,))
    pyth.manual_seed(4)
    b = d.sample((100,))
    assert a.tolist() == b.tolist()


def test_poisson_and_binomial_samplers():
    pyth.manual_seed(0)
    rates = pyth.tensor([0.0, 0.2, 3.0, 12.0, 150.0], dtype=pyth.float64)
    s = pyth.poisson(rates.expand(20000, 5))
    assert s.dtype == pyth.float64
    assert bool((s[:, 0] == 0).all())
    m, v = s.mean(0).numpy(), s.var(0).numpy()
    se = np.sqrt(rates.numpy() / 20000)
    assert np.all(np.abs(m - rates.numpy()) <= 5 * se + 1e-12)
    np.testing.assert_allclose(v[1:], rates.numpy()[1:], rtol=0.08)
    with pytest.raises(RuntimeError):
        pyth.poisson(pyth.tensor([-1.0]))
    n = pyth.tensor([0.0, 1.0, 10.0, 300.0]).expand(20000, 4)
    p = pyth.tensor([0.3, 0.5, 0.1, 0.7]).expand(20000, 4)
    b = pyth.binomial(n, p)
    assert b.dtype == pyth.float32
    want = np.array([0.0, 0.5, 1.0, 210.0])
    counts, probs = np.array([0, 1, 10, 300]), np.array([0.3, 0.5, 0.1, 0.7])
    sd = np.sqrt(counts * probs * (1 - probs))
    assert np.all(np.abs(b.mean(0).numpy() - want) <= 5 * sd / math.sqrt(20000) + 1e-9)


def test_standard_gamma_function():
    pyth.manual_seed(0)
    x = pyth._standard_gamma(pyth.tensor([1e-3, 0.5, 1.0, 50.0]).expand(20000, 4))
    assert x.dtype == pyth.float32 and bool((x > 0).all())
    a = np.array([1e-3, 0.5, 1.0, 50.0])
    assert np.all(np.abs(x.double().mean(0).numpy() - a) <= 5 * np.sqrt(a / 20000) + 1e-9)
    with pytest.raises(RuntimeError):
        pyth._standard_gamma(pyth.tensor([1, 2]))
    with pytest.raises(TypeError):
        pyth._standard_gamma([1.0])
    d = pyth._sample_dirichlet(pyth.tensor([[1.0, 2.0, 3.0]]))
    assert abs(float(d.sum()) - 1) < 1e-6


# ---- special functions, layouts, sizes ----

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_igamma_against_torch(dtype):
    a = np.array([1e-3, 0.1, 0.5, 1.0, 2.5, 10.0, 80.0, 1500.0])
    for x in [0.0, 1e-4, 0.3, 1.0, 4.0, 12.0, 90.0, 1600.0, np.inf]:
        xs = np.full_like(a, x)
        for pf, tf in ((pyth.igamma, torch.igamma), (pyth.igammac, torch.igammac)):
            got = pf(pyth.tensor(a, dtype=PD[dtype]), pyth.tensor(xs, dtype=PD[dtype]))
            want = tf(torch.tensor(a, dtype=TDT[dtype]), torch.tensor(xs, dtype=TDT[dtype]))
            assert got.dtype == PD[dtype]
            np.testing.assert_allclose(got.numpy(), want.numpy(),
                                       atol=1e-6 if dtype == "float32" else 1e-13)
    x = pyth.tensor([0.3, 2.0, 7.0], dtype=pyth.float64, requires_grad=True)
    av = pyth.tensor([0.7, 2.0, 5.0], dtype=pyth.float64)
    assert pyth.autograd.gradcheck(lambda x: pyth.igamma(av, x), (x,))
    assert pyth.autograd.gradcheck(lambda x: pyth.igammac(av, x), (x,))
    ar = av.clone().requires_grad_()
    with pytest.raises(NotImplementedError, match="the derivative for 'igamma: input' is not "
                                                  "implemented."):
        pyth.igamma(ar, x).sum().backward()
    assert pyth.tensor([1.0]).igamma(pyth.tensor([1.0])).item() == pytest.approx(1 - math.exp(-1))
    t = pyth.tensor([1.0, 2.0])
    assert t.igammac_(pyth.tensor([1.0, 1.0])) is t
    np.testing.assert_allclose(t.numpy(), torch.tensor([1.0, 2.0]).igammac_(
        torch.tensor([1.0, 1.0])).numpy(), rtol=1e-6)


def test_float32_gamma_rsample_gradient():
    conc = pyth.tensor([0.3, 4.0], requires_grad=True)
    pyth.manual_seed(9)
    s = D.Gamma(conc, 1.0).rsample((16,))
    assert s.dtype == pyth.float32
    (g,) = pyth.autograd.grad(s.sum(), [conc])
    want = torch._standard_gamma_grad(torch.tensor([0.3, 4.0]).expand(16, 2),
                                      torch.tensor(s.detach().numpy()))
    np.testing.assert_allclose(g.numpy(), want.sum(0).numpy(), rtol=2e-3)


@pytest.mark.parametrize("name", ["Normal", "Gamma", "Beta", "Categorical", "Dirichlet",
                                  "MultivariateNormalTril", "Bernoulli", "Poisson"])
def test_non_contiguous_parameters(name):
    """Parameters that are transposed or expanded views give the same results."""
    cls, params = CASES[name]
    arrays = params((3, 2))
    pk, tk = {}, {}
    for k, v in arrays.items():
        v = np.asarray(v)
        # a transposed copy read back through .transpose: non-contiguous, same values
        sw = np.ascontiguousarray(np.swapaxes(v, 0, 1))
        pk[k] = pyth.tensor(sw).transpose(0, 1)
        tk[k] = torch.tensor(v)
        assert not pk[k].is_contiguous() or v.shape[0] == 1
    pd, td = getattr(D, cls)(**pk), getattr(TD, cls)(**tk)
    v = values_for(td)
    close(pd.log_prob(P(v)), td.log_prob(v), "float64")
    want = torch_or_none(td.entropy)
    if want is not None:
        close(pd.entropy(), want, "float64")
    pe = getattr(D, cls)(**{k: pyth.tensor(np.asarray(a)[:1]).expand(np.asarray(a).shape)
                            for k, a in arrays.items()})
    te = getattr(TD, cls)(**{k: torch.tensor(np.asarray(a)[:1]).expand(np.asarray(a).shape)
                             for k, a in arrays.items()})
    close(pe.log_prob(P(v)), te.log_prob(v), "float64")


def test_zero_size_batch_of_an_event_constraint_raises_as_in_torch():
    """PyTorch cannot check an independent constraint over a batch of zero (its reshape to
    (0, -1) is ambiguous); pyth raises the same error kind."""
    with pytest.raises(RuntimeError):
        TD.Dirichlet(torch.ones(0, 4))
    with pytest.raises(RuntimeError):
        D.Dirichlet(pyth.ones(0, 4))
    assert tuple(D.Dirichlet(pyth.ones(0, 4), validate_args=False).batch_shape) == (0,)


@pytest.mark.parametrize("name", ["Normal", "Gamma", "Categorical", "Bernoulli", "Poisson",
                                  "Exponential", "Uniform", "Laplace"])
def test_zero_size_batches(name):
    pd, td, _, _ = make(name, (0,), "float64")
    assert tuple(pd.batch_shape) == tuple(td.batch_shape)
    s, t = pd.sample((2,)), td.sample((2,))
    assert tuple(s.shape) == tuple(t.shape)
    assert tuple(pd.log_prob(s).shape) == tuple(td.log_prob(t).shape)
    if pd.has_rsample:
        assert tuple(pd.rsample((3,)).shape) == tuple(td.rsample((3,)).shape)


def test_extreme_parameters():
    tiny = D.Gamma(pyth.tensor([1e-4, 1e4], dtype=pyth.float64), 1.0)
    pyth.manual_seed(0)
    s = tiny.sample((1000,))
    assert bool((s > 0).all()) and bool(s.isfinite().all())
    assert abs(float(s[:, 1].mean()) - 1e4) < 5 * math.sqrt(1e4 / 1000)
    big = D.Bernoulli(logits=pyth.tensor([-100.0, 100.0], dtype=pyth.float64))
    tbig = TD.Bernoulli(logits=torch.tensor([-100.0, 100.0], dtype=torch.float64))
    v = torch.tensor([1.0, 0.0], dtype=torch.float64)
    close(big.log_prob(P(v)), tbig.log_prob(v), "float64")
    close(big.entropy(), tbig.entropy(), "float64")
    c = D.Categorical(logits=pyth.tensor([0.0, float("-inf"), 1.0]))
    tc = TD.Categorical(logits=torch.tensor([0.0, float("-inf"), 1.0]))
    close(c.entropy(), tc.entropy(), "float32")
    assert c.log_prob(pyth.tensor(1)).item() == float("-inf")


def test_samplers_at_the_edges_of_their_domains():
    """As PyTorch: gamma gives the dtype's tiny for alpha <= 0 or NaN and inf for inf; poisson
    refuses a negative or NaN rate; none of them loops forever."""
    alpha = [0.0, -1.0, float("inf"), float("nan"), 1e-30]
    got = pyth._standard_gamma(pyth.tensor(alpha)).tolist()
    want = torch._standard_gamma(torch.tensor(alpha)).tolist()
    assert got == want
    assert pyth.poisson(pyth.tensor([float("inf"), 0.0])).tolist() == [float("inf"), 0.0]
    for bad in (-1.0, float("nan")):
        with pytest.raises(RuntimeError, match="invalid Poisson rate, expected rate to be "
                                               "non-negative"):
            pyth.poisson(pyth.tensor([bad]))
    g = pyth._standard_gamma_grad(pyth.tensor([1.0, 0.0, 2.0]), pyth.tensor([float("inf"), 1.0,
                                                                             1.0]))
    assert math.isnan(g[0].item()) and math.isnan(g[1].item()) and g[2].item() > 0
    assert pyth.binomial(pyth.tensor([5.0, 5.0]), pyth.tensor([0.0, 1.0])).tolist() == [0.0, 5.0]
