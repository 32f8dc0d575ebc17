"""Oracle tests for pyth's random numbers: the Mersenne Twister engine, seeding and state, every
distribution, the factories, thread safety, layouts and the error paths.

Oracles: numpy's MT19937 (the same engine: raw words, state words and genrand_res53 doubles must
match it bit for bit), reference implementations of the draws written here from the published
algorithms (Lemire's bounded integers), analytic moments and CDFs (seeded samples of n = 100k,
one-sample Kolmogorov-Smirnov), and samples from numpy and PyTorch (two-sample KS), PyTorch also
for result dtypes/shapes and exception types.
"""
import functools
import json
import math
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest
from _support import DTYPE_NAMES, FLOATS, INTS, kw, pdt, run_in_threads
from pyth._th import lib

import pyth

N = 100_000
STATE_SIZE = 2536
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def npy(t):
    """float64 numpy copy of any tensor (bfloat16 and bool included)."""
    if t.dtype in (pyth.bfloat16, pyth.float16):
        t = t.to(pyth.float32)
    return np.array(t.numpy(), dtype=np.float64)


def gen(seed=0):
    return pyth.Generator().manual_seed(seed)


def mt_words(seed, n):
    """numpy's MT19937 with the reference seeding (init_genrand for 32-bit seeds)."""
    bg = np.random.MT19937()
    bg._legacy_seeding(seed)
    return bg.random_raw(n).astype(np.uint64)


def ks_1samp(x, cdf):
    x = np.sort(np.asarray(x, dtype=np.float64))
    n = len(x)
    f = cdf(x)
    return max((np.arange(1, n + 1) / n - f).max(), (f - np.arange(n) / n).max())


def ks_2samp(x, y):
    x, y = np.sort(np.asarray(x, np.float64)), np.sort(np.asarray(y, np.float64))
    allv = np.concatenate([x, y])
    fx = np.searchsorted(x, allv, "right") / len(x)
    fy = np.searchsorted(y, allv, "right") / len(y)
    d = np.abs(fx - fy)
    return d.max()


KS1 = 1.95 / math.sqrt(N)                 # alpha = 0.001
KS2 = 1.95 * math.sqrt(2 / N)
_erf = np.frompyfunc(math.erf, 1, 1)


def normal_cdf(x, mu=0.0, sigma=1.0):
    return 0.5 * (1 + _erf((x - mu) / (sigma * math.sqrt(2))).astype(np.float64))


def assert_moments(x, mean, var, sigmas=5.0):
    """Sample mean within `sigmas` standard errors; variance within a 3% (+ error) band."""
    x = np.asarray(x, np.float64)
    assert abs(x.mean() - mean) < sigmas * math.sqrt(var / len(x)) + 1e-12, (x.mean(), mean)
    assert abs(x.var() - var) < 0.03 * var + 1e-12, (x.var(), var)


# --------------------------------------------------------------------------------------------
# the engine, bit for bit
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 5489, 123456789, 2**32 - 1])
def test_raw_words_match_numpy_mt19937(seed):
    g = gen(seed)
    ours = [lib.THRandom_random(g._h) for _ in range(1500)]   # crosses two twists
    assert ours == mt_words(seed, 1500).tolist()


def test_64_bit_seed_uses_init_by_array_and_every_bit():
    lo, hi = 5, 7
    g = gen(hi << 32 | lo)
    ours = [lib.THRandom_random(g._h) for _ in range(700)]
    ref = np.random.RandomState([lo, hi])._bit_generator.random_raw(700).tolist()
    assert ours == ref
    a = pyth.rand(5, generator=gen(1)).tolist()
    assert a != pyth.rand(5, generator=gen(2**32 + 1)).tolist()


def test_uniform_double_is_genrand_res53_like_numpy():
    for seed in (0, 42):
        ours = pyth.rand(2000, dtype=pyth.float64, generator=gen(seed)).numpy()
        ref = np.random.RandomState(seed).random_sample(2000)
        assert np.array_equal(ours, ref)
        assert lib.THRandom_uniform(gen(seed)._h) == ref[0]


def test_float_uniforms_from_one_word_each():
    w = mt_words(3, 1000)
    for name, bits in (("float32", 24), ("float16", 11), ("bfloat16", 8)):
        x = npy(pyth.rand(1000, dtype=pdt(name), generator=gen(3)))
        assert np.array_equal(x, (w >> np.uint64(32 - bits)).astype(np.float64) / 2.0**bits), name
        assert x.max() < 1.0   # on the 2^-bits grid: never rounds up to 1


def test_random64_and_full_int64_range():
    w = mt_words(9, 200)
    raw = (w[0::2] << np.uint64(32)) | w[1::2]
    assert lib.THRandom_random64(gen(9)._h) == int(raw[0])
    x = pyth.zeros(100, dtype=pyth.int64).random_(-2**63, None, generator=gen(9))
    expect = [int(r) - 2**63 for r in raw]   # from + r
    assert x.tolist() == expect


def lemire32(words, rng):
    """Reference bounded draw (Lemire 2019) over a list of words."""
    out, it = [], iter(words)
    threshold = (2**32 - rng) % rng
    while True:
        try:
            m = next(it) * rng
        except StopIteration:
            return out
        while (m & 0xFFFFFFFF) < threshold:
            m = next(it) * rng
        out.append(m >> 32)


@pytest.mark.parametrize("rng", [10, 3, 2**31 + 1, 1000003])
def test_bounded_integers_are_lemire_unbiased(rng):
    w = [int(v) for v in mt_words(11, 6000)]
    ref = lemire32(w, rng)[:2000]
    x = pyth.randint(5, 5 + rng, (2000,), generator=gen(11))
    assert x.tolist() == [5 + v for v in ref]


def test_state_words_match_numpy_after_draws():
    g = gen(77)
    pyth.rand(1000, generator=g)           # 1000 float32 draws = 1000 words
    bg = np.random.MT19937()
    bg._legacy_seeding(77)
    bg.random_raw(1000)
    st = bg.state["state"]
    raw = bytes(g.get_state().numpy())
    words = np.frombuffer(raw[16:16 + 4 * 624], dtype="<u4")
    assert np.array_equal(words, st["key"])
    assert int.from_bytes(raw[2512:2516], "little") == st["pos"]


# --------------------------------------------------------------------------------------------
# seeding and reproducibility
# --------------------------------------------------------------------------------------------

def draw_all(g):
    """One of everything, as plain lists (JSON-able), from generator g."""
    out = {
        "rand": pyth.rand(7, generator=g).tolist(),
        "randn": pyth.randn(5, generator=g).tolist(),
        "randn64": pyth.randn(3, dtype=pyth.float64, generator=g).tolist(),
        "randint": pyth.randint(-4, 90, (6,), generator=g).tolist(),
        "randperm": pyth.randperm(9, generator=g).tolist(),
        "normal": pyth.normal(pyth.zeros(3), 2.0, generator=g).tolist(),
        "bern": pyth.zeros(8).bernoulli_(0.3, generator=g).tolist(),
        "multi": pyth.multinomial(pyth.tensor([1.0, 2, 3, 4]), 3, generator=g).tolist(),
        "multi_r": pyth.multinomial(pyth.tensor([1.0, 2, 3]), 5, True, generator=g).tolist(),
        "exp": pyth.empty(3, dtype=pyth.float64).exponential_(2.0, generator=g).tolist(),
        "cauchy": pyth.empty(3, dtype=pyth.float64).cauchy_(generator=g).tolist(),
        "lognormal": pyth.empty(3, dtype=pyth.float64).log_normal_(generator=g).tolist(),
        "geom": pyth.zeros(4, dtype=pyth.int32).geometric_(0.2, generator=g).tolist(),
        "random": pyth.zeros(4, dtype=pyth.int16).random_(generator=g).tolist(),
    }
    return out


def test_same_seed_same_numbers_in_process():
    a = draw_all(gen(1234))
    b = draw_all(gen(1234))
    assert a == b
    pyth.manual_seed(1234)
    assert draw_all(None) == a
    c = draw_all(gen(1235))
    assert all(a[k] != c[k] for k in ("rand", "randn", "randn64", "randperm"))


CHILD = """
import json, sys
import pyth
from test_random import draw_all
g = pyth.Generator().manual_seed(1234)
first = draw_all(g)
state = pyth.tensor(json.loads(sys.stdin.read()), dtype=pyth.uint8)
g.set_state(state)
print(json.dumps([first, draw_all(g)]))
"""


def test_same_seed_and_state_across_a_subprocess():
    g = gen(99)
    pyth.randn(3, generator=g)                       # odd: both caches matter
    pyth.randn(1, dtype=pyth.float64, generator=g)
    state = g.get_state()
    # the child imports the same pyth as this process (installed or in-tree) and this test
    # module from the tests folder
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(pyth.__file__)))
    proc = subprocess.run([sys.executable, "-c", CHILD], cwd=os.path.dirname(__file__),
                          env=env, capture_output=True, text=True,
                          input=json.dumps(state.tolist()), timeout=60)
    assert proc.returncode == 0, proc.stderr
    first, restored = json.loads(proc.stdout)
    assert first == draw_all(gen(1234))
    assert restored == draw_all(g)


def test_seed_values_and_initial_seed():
    torch = pytest.importorskip("torch")
    for s in (0, 1, 2**63, 2**64 - 1, -1, -(2**63)):
        assert pyth.Generator().manual_seed(s).initial_seed() == \
            torch.Generator().manual_seed(s).initial_seed()
    assert pyth.manual_seed(7.0).initial_seed() == torch.manual_seed(7.0).initial_seed() == 7
    assert pyth.Generator().initial_seed() == torch.Generator().initial_seed() == 67280421310721
    for bad, exc in ((2**64, ValueError), (-(2**63) - 1, ValueError), ("a", ValueError)):
        with pytest.raises(exc):
            pyth.manual_seed(bad)
        with pytest.raises(exc):
            torch.manual_seed(bad)
    with pytest.raises(RuntimeError, match=kw("long", "str")):
        pyth.Generator().manual_seed("a")
    with pytest.raises(RuntimeError):
        torch.Generator().manual_seed("a")


def test_seed_is_nondeterministic_and_returned():
    g = pyth.Generator()
    s1, s2 = g.seed(), g.seed()
    assert s1 != s2 and g.initial_seed() == s2 and 0 <= s2 < 2**64
    assert pyth.rand(4, generator=g).tolist() == pyth.rand(4, generator=gen(s2)).tolist()
    assert pyth.manual_seed(5) is pyth.default_generator
    assert pyth.initial_seed() == 5
    s = pyth.seed()
    assert pyth.initial_seed() == s


# --------------------------------------------------------------------------------------------
# state
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "bfloat16"])
def test_state_round_trip_after_odd_normal_draws(dt):
    g = gen(5)
    pyth.randn(3, dtype=pdt(dt), generator=g)        # leaves a cached second value
    s = g.get_state()
    a = pyth.randn(6, dtype=pdt(dt), generator=g)
    g.set_state(s)
    b = pyth.randn(6, dtype=pdt(dt), generator=g)
    assert npy(a).tolist() == npy(b).tolist()
    # the cached value is part of the state: dropping it changes the first number
    flag = 2516 if dt == "float64" else 2528
    s2 = s.clone()
    s2[flag] = 0
    g.set_state(s2)
    c = pyth.randn(6, dtype=pdt(dt), generator=g)
    assert npy(c)[0] != npy(a)[0]


def test_normal_stream_is_continuous_across_calls():
    for dt in (pyth.float32, pyth.float64):
        g = gen(8)
        one = [pyth.randn(k, dtype=dt, generator=g).tolist() for k in (1, 3, 1, 600, 5)]
        flat = sum(one, [])
        assert flat == pyth.randn(len(flat), dtype=dt, generator=gen(8)).tolist()
        # element-at-a-time kernels draw the same stream
        m = pyth.normal(pyth.zeros(len(flat), dtype=dt), pyth.ones((), dtype=dt), generator=gen(8))
        assert m.tolist() == flat


def test_state_layout_is_documented_little_endian():
    g = gen(2**40 + 3)
    raw = bytes(g.get_state().numpy())
    assert len(raw) == STATE_SIZE == g.get_state().numel()
    assert raw[:4] == b"THMT"
    assert int.from_bytes(raw[4:8], "little") == 1
    assert int.from_bytes(raw[8:16], "little") == 2**40 + 3
    assert int.from_bytes(raw[2512:2516], "little") == 624
    pyth.randn(1, dtype=pyth.float64, generator=g)
    raw = bytes(g.get_state().numpy())
    assert int.from_bytes(raw[2516:2520], "little") == 1
    cached = np.frombuffer(raw[2520:2528], "<f8")[0]
    assert cached == pyth.randn(1, dtype=pyth.float64, generator=g).item()
    pyth.randn(1, generator=g)
    raw = bytes(g.get_state().numpy())
    assert int.from_bytes(raw[2528:2532], "little") == 1
    assert np.frombuffer(raw[2532:2536], "<f4")[0] == pyth.randn(1, generator=g).item()


def test_state_is_a_bytetensor_like_torch():
    torch = pytest.importorskip("torch")
    s = pyth.get_rng_state()
    assert s.dtype is pyth.uint8 and s.dim() == 1
    assert torch.get_rng_state().dtype == torch.uint8 and torch.get_rng_state().dim() == 1
    a = pyth.rand(3).tolist()
    pyth.set_rng_state(s)
    assert pyth.rand(3).tolist() == a


def test_set_state_from_a_strided_view():
    g = gen(4)
    s = g.get_state()
    big = pyth.zeros(2 * STATE_SIZE, dtype=pyth.uint8)
    big[::2] = s
    a = pyth.rand(5, generator=g).tolist()
    g.set_state(big[::2])
    assert pyth.rand(5, generator=g).tolist() == a
    g.set_state(s.view(8, STATE_SIZE // 8))       # any shape with the right number of bytes
    assert pyth.rand(5, generator=g).tolist() == a


def corrupt(s, offset, data):
    s = s.clone()
    for i, b in enumerate(data):
        s[offset + i] = b
    return s


@pytest.mark.parametrize("how,words", [
    ("short", ["2536", "size"]),
    ("long", ["2536", "size"]),
    ("magic", ["magic"]),
    ("version", ["version"]),
    ("pos", ["position", "625"]),
    ("flag", ["flag"]),
    ("float_flag", ["flag"]),
    ("nan", ["finite"]),
    ("fnan", ["finite"]),
    ("zeros", ["mt19937"]),
])
def test_corrupt_states_raise_and_leave_the_generator_alone(how, words):
    g = gen(6)
    s = g.get_state()
    bad = {
        "short": lambda: s[:100].clone(),
        "long": lambda: pyth.zeros(STATE_SIZE + 1, dtype=pyth.uint8),
        "magic": lambda: corrupt(s, 0, b"XXXX"),
        "version": lambda: corrupt(s, 4, (2).to_bytes(4, "little")),
        "pos": lambda: corrupt(s, 2512, (625).to_bytes(4, "little")),
        "flag": lambda: corrupt(s, 2516, (2).to_bytes(4, "little")),
        "float_flag": lambda: corrupt(s, 2528, (7).to_bytes(4, "little")),
        "nan": lambda: corrupt(corrupt(s, 2516, b"\1\0\0\0"), 2520, np.float64(np.nan).tobytes()),
        "fnan": lambda: corrupt(corrupt(s, 2528, b"\1\0\0\0"), 2532, np.float32(np.inf).tobytes()),
        "zeros": lambda: corrupt(s, 16, bytes(4 * 624)),
    }[how]()
    before = g.get_state().tolist()
    with pytest.raises(RuntimeError, match=kw(*words)):
        g.set_state(bad)
    assert g.get_state().tolist() == before


def test_set_state_type_errors_like_torch():
    torch = pytest.importorskip("torch")
    g = gen(1)
    with pytest.raises(TypeError, match=kw("ByteTensor")):
        g.set_state(g.get_state().to(pyth.float32))
    with pytest.raises(TypeError):
        torch.set_rng_state(torch.get_rng_state().float())
    with pytest.raises(TypeError):
        g.set_state(bytes(STATE_SIZE))
    with pytest.raises(RuntimeError):
        torch.set_rng_state(torch.zeros(10, dtype=torch.uint8))


def test_generator_pickles():
    g = gen(31)
    pyth.randn(1, generator=g)
    h = pickle.loads(pickle.dumps(g))
    assert pyth.randn(4, generator=h).tolist() == pyth.randn(4, generator=g).tolist()
    assert h.initial_seed() == 31 and h.device == "cpu"


def test_generators_are_independent():
    g1, g2 = gen(3), gen(3)
    default_before = pyth.get_rng_state().tolist()
    a = pyth.rand(10, generator=g1).tolist()
    pyth.rand(1000, generator=g1)
    assert pyth.rand(10, generator=g2).tolist() == a          # g2 did not move with g1
    assert pyth.get_rng_state().tolist() == default_before    # nor did the default
    del g1
    assert pyth.rand(1, generator=g2).numel() == 1


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_forked_child_continues_a_copy_of_the_default_stream():
    pyth.manual_seed(17)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.write(w, json.dumps(pyth.rand(4).tolist()).encode())
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        child = json.loads(f.read())
    os.waitpid(pid, 0)
    assert child == pyth.rand(4).tolist()


# --------------------------------------------------------------------------------------------
# threads
# --------------------------------------------------------------------------------------------


def test_threads_sharing_a_generator_take_whole_runs():
    g, size, calls = gen(21), 1000, 40
    chunks = []

    def work(k):
        for _ in range(calls):
            chunks.append(tuple(pyth.rand(size, generator=g).tolist()))   # list.append is atomic
    run_in_threads([functools.partial(work, k) for k in range(4)])
    total = 4 * calls * size
    seq = pyth.rand(total, generator=gen(21)).tolist()
    blocks = {tuple(seq[i:i + size]) for i in range(0, total, size)}
    assert len(chunks) == 4 * calls and set(chunks) == blocks          # each call: one whole run
    ref = gen(21)
    pyth.rand(total, generator=ref)
    assert lib.THRandom_random(g._h) == lib.THRandom_random(ref._h)      # count of draws right


def test_threads_normals_with_odd_sizes():
    g = gen(22)
    got = []
    sizes = [1, 3, 7, 2, 5, 513]

    def work(k):
        for n in sizes:
            got.extend(pyth.randn(n, generator=g).tolist())
    run_in_threads([functools.partial(work, k) for k in range(4)])
    seq = pyth.randn(4 * sum(sizes), generator=gen(22)).tolist()
    assert sorted(got) == sorted(seq)


def test_draws_do_not_depend_on_thread_count():
    n = 300_000
    old_grain, old_threads = lib.THGetGrainSize(), lib.THGetNumThreads()
    try:
        lib.THSetGrainSize(1000)
        res = []
        for threads in (1, 2):
            lib.THSetNumThreads(threads)
            x = pyth.zeros(600, 500).t()
            res.append((pyth.randn(n, generator=gen(1)).numpy().copy(),
                        npy(x.uniform_(generator=gen(2)))))
        assert np.array_equal(res[0][0], res[1][0]) and np.array_equal(res[0][1], res[1][1])
    finally:
        lib.THSetGrainSize(old_grain)
        lib.THSetNumThreads(old_threads)


# --------------------------------------------------------------------------------------------
# distributions: moments and KS against analytic CDFs, numpy and torch
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", FLOATS)
def test_uniform(dt):
    x = npy(pyth.empty(N, dtype=pdt(dt)).uniform_(-2, 3, generator=gen(1)))
    assert x.min() >= -2 and x.max() <= 3
    assert_moments(x, 0.5, 25 / 12)
    if dt in ("float32", "float64"):
        assert x.max() < 3
        assert ks_1samp(x, lambda v: (v + 2) / 5) < KS1
    x = npy(pyth.rand(N, dtype=pdt(dt), generator=gen(2)))
    assert 0 <= x.min() and x.max() < 1
    assert_moments(x, 0.5, 1 / 12)


@pytest.mark.parametrize("dt", FLOATS)
def test_normal(dt):
    x = npy(pyth.empty(N, dtype=pdt(dt)).normal_(1.5, 2.0, generator=gen(3)))
    assert_moments(x, 1.5, 4.0)
    if dt in ("float32", "float64"):
        assert ks_1samp(x, lambda v: normal_cdf(v, 1.5, 2.0)) < KS1
        z = npy(pyth.randn(N, dtype=pdt(dt), generator=gen(4)))
        assert ks_1samp(z, normal_cdf) < KS1
        assert abs(((z - z.mean()) ** 3).mean()) < 0.05           # skewness
        assert abs(((z - z.mean()) ** 4).mean() - 3) < 0.1        # kurtosis
    assert np.all(np.isfinite(x))


def test_normal_matches_numpy_and_torch_samples():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    x = pyth.randn(N, generator=gen(5)).numpy()
    assert ks_2samp(x, np.random.default_rng(0).standard_normal(N)) < KS2
    assert ks_2samp(x, torch.randn(N).numpy()) < KS2
    y = pyth.normal(2.0, 3.0, (N,), dtype=pyth.float64, generator=gen(6)).numpy()
    assert ks_2samp(y, torch.normal(2.0, 3.0, (N,), dtype=torch.float64).numpy()) < KS2


def test_normal_tensor_forms():
    mean = pyth.tensor([[0.0], [10.0]])
    std = pyth.tensor([1.0, 2.0, 3.0] * 1000)
    r = pyth.normal(mean, std, generator=gen(7))
    assert r.shape == (2, 3000)
    v = r.numpy().reshape(2, 1000, 3)
    for i, m in enumerate((0.0, 10.0)):
        for j, s in enumerate((1.0, 2.0, 3.0)):
            col = v[i, :, j]
            assert abs(col.mean() - m) < 5 * s / math.sqrt(1000)
            assert abs(col.std() - s) < 0.15 * s
    assert pyth.normal(pyth.zeros(3), 0.0).tolist() == [0.0] * 3
    assert pyth.normal(5.0, pyth.zeros(2, 2)).tolist() == [[5.0, 5.0], [5.0, 5.0]]
    torch = pytest.importorskip("torch")
    for m, s in ((pyth.zeros(3, dtype=pyth.float64), pyth.ones(3)),
                 (pyth.zeros(2, 1), pyth.ones(3)),
                 (pyth.zeros(3), 1.0), (0.0, pyth.ones(2, dtype=pyth.float16))):
        tm = torch.tensor(m.tolist(), dtype=getattr(torch, str(m.dtype).split(".")[1])) \
            if isinstance(m, pyth.Tensor) else m
        ts = torch.tensor(s.tolist(), dtype=getattr(torch, str(s.dtype).split(".")[1])) \
            if isinstance(s, pyth.Tensor) else s
        r, t = pyth.normal(m, s), torch.normal(tm, ts)
        assert tuple(r.shape) == tuple(t.shape)
        assert str(r.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    out = pyth.empty(0, dtype=pyth.float64)
    assert pyth.normal(pyth.zeros(4), pyth.ones(4), out=out) is out and out.shape == (4,)


@pytest.mark.parametrize("dt", ["float32", "float64", "float16"])
def test_exponential(dt):
    x = npy(pyth.empty(N, dtype=pdt(dt)).exponential_(2.5, generator=gen(8)))
    assert x.min() >= 0
    assert_moments(x, 0.4, 0.16)
    if dt != "float16":
        assert ks_1samp(x, lambda v: 1 - np.exp(-2.5 * v)) < KS1


def test_exponential_cauchy_lognormal_match_torch():
    torch = pytest.importorskip("torch")
    torch.manual_seed(1)
    g = gen(9)
    pairs = [
        (pyth.empty(N).exponential_(1.5, generator=g), torch.empty(N).exponential_(1.5)),
        (pyth.empty(N).cauchy_(1.0, 2.0, generator=g), torch.empty(N).cauchy_(1.0, 2.0)),
        (pyth.empty(N).log_normal_(0.5, 0.75, generator=g), torch.empty(N).log_normal_(0.5, 0.75)),
        (pyth.empty(N).geometric_(0.3, generator=g), torch.empty(N).geometric_(0.3)),
    ]
    for ours, theirs in pairs:
        assert ks_2samp(ours.numpy(), theirs.numpy()) < KS2


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_cauchy(dt):
    x = npy(pyth.empty(N, dtype=pdt(dt)).cauchy_(-1.0, 0.5, generator=gen(10)))
    assert abs(np.median(x) + 1.0) < 0.02
    assert ks_1samp(x, lambda v: 0.5 + np.arctan((v + 1.0) / 0.5) / np.pi) < KS1


@pytest.mark.parametrize("dt", ["float32", "float64", "bfloat16"])
def test_log_normal(dt):
    x = npy(pyth.empty(N, dtype=pdt(dt)).log_normal_(0.3, 0.6, generator=gen(11)))
    assert x.min() > 0
    lx = np.log(x)
    tol = 0.01 if dt == "bfloat16" else 0.0
    assert abs(lx.mean() - 0.3) < 5 * 0.6 / math.sqrt(N) + tol
    assert abs(lx.std() - 0.6) < 0.01 + tol
    if dt != "bfloat16":
        assert ks_1samp(lx, lambda v: normal_cdf(v, 0.3, 0.6)) < KS1


@pytest.mark.parametrize("dt", ["int64", "int32", "uint8", "float32", "float64", "float16"])
def test_geometric(dt):
    p = 0.25
    x = npy(pyth.zeros(N, dtype=pdt(dt)).geometric_(p, generator=gen(12)))
    assert x.min() >= 1 and np.all(x == np.round(x))
    assert_moments(x, 1 / p, (1 - p) / p**2)
    for k in range(1, 6):
        assert abs((x == k).mean() - (1 - p) ** (k - 1) * p) < 0.006


def test_geometric_saturates_small_integer_types():
    for dt, hi in (("int8", 127), ("uint8", 255), ("int16", 32767)):
        x = pyth.zeros(2000, dtype=pdt(dt)).geometric_(1e-6, generator=gen(13)).tolist()
        assert max(x) == hi and min(x) >= 1


@pytest.mark.parametrize("dt", DTYPE_NAMES)
def test_bernoulli_scalar(dt):
    x = npy(pyth.zeros(N, dtype=pdt(dt)).bernoulli_(0.3, generator=gen(14)))
    assert set(np.unique(x)) <= {0.0, 1.0}
    assert abs(x.mean() - 0.3) < 5 * math.sqrt(0.21 / N)
    assert npy(pyth.ones(50, dtype=pdt(dt)).bernoulli_(0.0)).sum() == 0
    assert npy(pyth.zeros(50, dtype=pdt(dt)).bernoulli_(1.0)).sum() == 50


def test_bernoulli_tensor_p():
    p = pyth.tensor([0.0, 0.1, 0.5, 0.9, 1.0])
    x = pyth.zeros(20000, 5).bernoulli_(p, generator=gen(15)).numpy()
    freq = x.mean(axis=0)
    assert freq[0] == 0 and freq[4] == 1
    for f, q in zip(freq[1:4], (0.1, 0.5, 0.9)):
        assert abs(f - q) < 5 * math.sqrt(q * (1 - q) / 20000)
    probs = pyth.rand(1000, 50, dtype=pyth.float64, generator=gen(16))
    y = pyth.bernoulli(probs, generator=gen(17))
    assert y.dtype is pyth.float64 and y.shape == (1000, 50)
    assert abs(y.numpy().mean() - probs.numpy().mean()) < 0.01
    for dt in ("float16", "bfloat16", "float32"):
        t = pyth.bernoulli(pyth.full((100,), 0.5, dtype=pdt(dt)))
        assert t.dtype is pdt(dt)
    assert pyth.bernoulli(pyth.zeros(3), 1.0).tolist() == [1.0, 1.0, 1.0]
    assert pyth.zeros(4).bernoulli(1.0).tolist() == [1.0] * 4
    assert pyth.ones(4).bernoulli().tolist() == [1.0] * 4
    b = pyth.zeros(10, dtype=pyth.bool).bernoulli_(pyth.ones(10, dtype=pyth.float16))
    assert b.tolist() == [True] * 10


@pytest.mark.parametrize("dt", DTYPE_NAMES)
def test_random_default_ranges(dt):
    x = npy(pyth.zeros(20000, dtype=pdt(dt)).random_(generator=gen(18)))
    hi = {"uint8": 255, "int8": 127, "int16": 32767, "int32": 2**31 - 1, "int64": 2**63 - 1,
          "bool": 1, "float32": 2**24, "float64": 2**53, "float16": 2**11, "bfloat16": 2**8}[dt]
    assert x.min() >= 0 and x.max() <= hi and np.all(x == np.round(x))
    assert abs(x.mean() / hi - 0.5) < 0.02
    if hi <= 2**11:
        assert len(np.unique(x)) > 0.9 * min(hi + 1, 2000)


@pytest.mark.parametrize("dt", DTYPE_NAMES)
def test_random_from_to(dt):
    lo, hi = (0, 2) if dt == "bool" else (-3 if dt not in ("uint8",) else 3, 9)
    x = npy(pyth.zeros(30000, dtype=pdt(dt)).random_(lo, hi, generator=gen(19)))
    vals, counts = np.unique(x, return_counts=True)
    assert vals.tolist() == list(range(lo, hi))
    expected = 30000 / (hi - lo)
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 40          # df <= 11: p < 1e-4 beyond this
    y = npy(pyth.zeros(1000, dtype=pdt(dt)).random_(hi - lo, generator=gen(20)))
    assert y.min() >= 0 and y.max() < hi - lo
    if dt != "bool":
        z = npy(pyth.zeros(1000, dtype=pdt(dt)).random_(lo, None, generator=gen(20)))
        assert z.min() >= lo


def test_randint_and_large_ranges():
    x = pyth.randint(-(2**62), 2**62, (N,), generator=gen(21)).numpy()
    assert x.min() >= -(2**62) and x.max() < 2**62
    assert abs(x.astype(np.float64).mean() / 2**62) < 0.02
    y = pyth.randint(2**40, (N,), generator=gen(22)).numpy()
    assert abs(y.astype(np.float64).mean() / 2**39 - 1) < 0.02
    assert pyth.randint(3, 10, size=(2,)).shape == (2,)
    assert max(pyth.randint(high=4, size=(20,)).tolist()) < 4
    assert pyth.randint(low=2, high=3, size=(5,)).tolist() == [2] * 5


def test_randperm():
    for n in (0, 1, 2, 10, 1000):
        p = pyth.randperm(n, generator=gen(n))
        assert p.dtype is pyth.int64 and sorted(p.tolist()) == list(range(n))
    g = gen(23)
    firsts = np.array([pyth.randperm(4, generator=g).tolist() for _ in range(8000)])
    for pos in range(4):
        counts = np.bincount(firsts[:, pos], minlength=4)
        assert np.all(np.abs(counts - 2000) < 5 * math.sqrt(8000 * 0.25 * 0.75))
    for dt in ("float16", "float32", "int16", "uint8"):
        p = pyth.randperm(256, dtype=pdt(dt), generator=gen(1))
        assert p.dtype is pdt(dt) and sorted(npy(p).tolist()) == list(range(256))
    assert sorted(pyth.randperm(2049, dtype=pyth.float16).float().tolist()) == list(range(2049))


def test_multinomial_with_replacement():
    w = pyth.tensor([1.0, 0.0, 3.0, 6.0])
    x = pyth.multinomial(w, N, replacement=True, generator=gen(24)).numpy()
    freq = np.bincount(x, minlength=4) / N
    assert freq[1] == 0
    for f, q in zip(freq, (0.1, 0.0, 0.3, 0.6)):
        assert abs(f - q) < 5 * math.sqrt(q * (1 - q) / N) + 1e-12
    rows = pyth.tensor([[1.0, 1.0, 0.0], [0.0, 0.0, 5.0]], dtype=pyth.float64)
    y = pyth.multinomial(rows, 1000, True, generator=gen(25))
    assert y.shape == (2, 1000) and set(y[1].tolist()) == {2} and set(y[0].tolist()) == {0, 1}


def test_multinomial_without_replacement():
    w = [1.0, 2.0, 3.0, 4.0]
    probs = pyth.tensor([w] * 20000)
    x = pyth.multinomial(probs, 2, generator=gen(26)).numpy()
    assert np.all(x[:, 0] != x[:, 1])
    total = sum(w)
    for i in range(4):
        p_first = w[i] / total
        p_second = sum(w[j] / total * w[i] / (total - w[j]) for j in range(4) if j != i)
        assert abs((x[:, 0] == i).mean() - p_first) < 5 * math.sqrt(p_first / 20000)
        assert abs((x[:, 1] == i).mean() - p_second) < 5 * math.sqrt(p_second / 20000)
    full = pyth.multinomial(pyth.tensor([0.5, 0.0, 2.0, 1.0]), 3, generator=gen(27)).tolist()
    assert sorted(full) == [0, 2, 3]
    one = pyth.multinomial(pyth.tensor([w] * 20000), 1, generator=gen(28)).numpy()[:, 0]
    assert abs((one == 3).mean() - 0.4) < 0.02
    assert pyth.multinomial(pyth.ones(0, 3), 1).shape == (0, 1)
    assert pyth.ones(5, dtype=pyth.float16).multinomial(5).shape == (5,)


def test_multinomial_shapes_and_dtypes_like_torch():
    torch = pytest.importorskip("torch")
    for shape, n, repl in (((5,), 3, False), ((4, 6), 2, False), ((3,), 7, True),
                           ((2, 2), 5, True)):
        r = pyth.multinomial(pyth.ones(*shape), n, repl)
        t = torch.multinomial(torch.ones(*shape), n, repl)
        assert tuple(r.shape) == tuple(t.shape) and r.dtype is pyth.int64 and t.dtype == torch.int64
    out = pyth.empty(0, dtype=pyth.int64)
    assert pyth.multinomial(pyth.ones(3), 2, out=out) is out and out.shape == (2,)


# --------------------------------------------------------------------------------------------
# factories: dtypes, shapes, forms
# --------------------------------------------------------------------------------------------

def test_factory_defaults_like_torch():
    torch = pytest.importorskip("torch")
    cases = [
        (lambda m: m.rand(2, 3), "float32"),
        (lambda m: m.rand((2, 3)), "float32"),
        (lambda m: m.rand(size=(4,)), "float32"),
        (lambda m: m.randn([2, 1, 2]), "float32"),
        (lambda m: m.rand(()), "float32"),
        (lambda m: m.randint(5, (3, 2)), "int64"),
        (lambda m: m.randint(2, 5, (3,)), "int64"),
        (lambda m: m.randint(0, 2, (3,), dtype=m.bool), "bool"),
        (lambda m: m.randint(0, 9, (3,), dtype=m.float16), "float16"),
        (lambda m: m.randperm(5), "int64"),
        (lambda m: m.randperm(5, dtype=m.float32), "float32"),
        (lambda m: m.normal(0.0, 1.0, (2, 2)), "float32"),
        (lambda m: m.normal(0.0, 1.0, size=(2,), dtype=m.float64), "float64"),
        (lambda m: m.rand_like(m.zeros(2, 2, dtype=m.float64)), "float64"),
        (lambda m: m.randn_like(m.zeros(3, dtype=m.bfloat16)), "bfloat16"),
        (lambda m: m.randint_like(m.zeros(3), 5), "float32"),
        (lambda m: m.randint_like(m.zeros(3, dtype=m.int16), 2, 5), "int16"),
        (lambda m: m.bernoulli(m.zeros(2, 3)), "float32"),
    ]
    for make, dt in cases:
        r, t = make(pyth), make(torch)
        assert tuple(r.shape) == tuple(t.shape)
        assert r.dtype is pdt(dt) and t.dtype == getattr(torch, dt)
    pyth.set_default_dtype(pyth.float64)
    try:
        assert pyth.rand(2).dtype is pyth.float64 and pyth.randn(2).dtype is pyth.float64
    finally:
        pyth.set_default_dtype(pyth.float32)


def test_rand_out_and_like():
    out = pyth.empty(0, dtype=pyth.float64)
    assert pyth.rand(3, 2, out=out, generator=gen(1)) is out and out.shape == (3, 2)
    assert out.tolist() == pyth.rand(3, 2, dtype=pyth.float64, generator=gen(1)).tolist()
    assert pyth.randn(4, out=pyth.empty(1)).shape == (4,)
    x = pyth.randint_like(pyth.zeros(1000, dtype=pyth.uint8), 250, 256)
    assert x.dtype is pyth.uint8 and 250 <= min(x.tolist()) and max(x.tolist()) <= 255


# --------------------------------------------------------------------------------------------
# layouts: non-contiguous outputs, 0-dim, size 0
# --------------------------------------------------------------------------------------------

SAMPLERS = {
    "uniform_": (FLOATS, lambda t, g: t.uniform_(2, 3, generator=g), lambda x: (x >= 2) & (x <= 3)),
    "normal_": (FLOATS, lambda t, g: t.normal_(generator=g), np.isfinite),
    "exponential_": (FLOATS, lambda t, g: t.exponential_(generator=g), lambda x: x >= 0),
    "cauchy_": (FLOATS, lambda t, g: t.cauchy_(generator=g), lambda x: ~np.isnan(x)),
    "log_normal_": (FLOATS, lambda t, g: t.log_normal_(0, 0.5, generator=g), lambda x: x >= 0),
    "geometric_": (FLOATS + INTS, lambda t, g: t.geometric_(0.5, generator=g), lambda x: x >= 1),
    "bernoulli_": (DTYPE_NAMES, lambda t, g: t.bernoulli_(0.5, generator=g), lambda x: (x == 0) | (x == 1)),
    "bernoulli_t": (DTYPE_NAMES, lambda t, g: t.bernoulli_(pyth.full((), 0.5), generator=g),
                    lambda x: (x == 0) | (x == 1)),
    "random_": (DTYPE_NAMES, lambda t, g: t.random_(0, 2, generator=g), lambda x: (x == 0) | (x == 1)),
}


def sentinel(dt):
    return 0 if dt == "bool" else 99


@pytest.mark.parametrize("name", list(SAMPLERS))
def test_layouts_fill_only_the_view_and_in_memory_order(name):
    dts, fill, ok = SAMPLERS[name]
    for dt in dts:
        # transposed: memory order, so the base holds what a contiguous fill would
        base = pyth.full((6, 40), sentinel(dt), dtype=pdt(dt))
        fill(base.t(), gen(1))
        ref = pyth.full((6, 40), sentinel(dt), dtype=pdt(dt))
        fill(ref, gen(1))
        assert npy(base).tolist() == npy(ref).tolist(), (name, dt)
        assert ok(npy(base)).all(), (name, dt)
        # sliced with a step in both dims: only the view changes, filled in memory order
        base = pyth.full((8, 30), sentinel(dt), dtype=pdt(dt))
        view = base[1::2, ::3]
        fill(view, gen(2))
        b = npy(base)
        mask = np.zeros((8, 30), bool)
        mask[1::2, ::3] = True
        assert np.all(b[~mask] == sentinel(dt)), (name, dt)
        assert ok(b[mask]).all(), (name, dt)
        ref = pyth.full((4, 10), sentinel(dt), dtype=pdt(dt))
        fill(ref, gen(2))
        assert b[mask].reshape(4, 10).tolist() == npy(ref).tolist(), (name, dt)
        # 0-dim and size 0
        z = pyth.full((), sentinel(dt), dtype=pdt(dt))
        fill(z, gen(3))
        assert z.dim() == 0 and ok(npy(z)).all()
        e = pyth.empty(0, 4, dtype=pdt(dt))
        assert fill(e, gen(3)) is e and e.shape == (0, 4)
        # expanded: elements share memory, refused
        with pytest.raises(RuntimeError, match=kw("memory|expand|location|writ")):
            fill(pyth.zeros(1, 5, dtype=pdt(dt)).expand(3, 5), gen(4))


def test_unsupported_dtypes_raise_like_torch():
    torch = pytest.importorskip("torch")
    cases = [
        (lambda m: m.rand(3, dtype=m.int64)),
        (lambda m: m.randn(3, dtype=m.bool)),
        (lambda m: m.zeros(3, dtype=m.int32).normal_()),
        (lambda m: m.zeros(3, dtype=m.bool).geometric_(0.5)),
        (lambda m: m.randperm(2, dtype=m.bool)),
        (lambda m: m.rand_like(m.zeros(3, dtype=m.int64))),
        (lambda m: m.bernoulli(m.tensor([1, 0]))),
    ]
    for make in cases:
        with pytest.raises(RuntimeError) as ours:
            make(pyth)
        with pytest.raises(RuntimeError) as theirs:
            make(torch)
        assert type(ours.value) is type(theirs.value) is NotImplementedError
    with pytest.raises(RuntimeError, match=kw("floating")):
        pyth.zeros(3, dtype=pyth.int64).exponential_()
    with pytest.raises(RuntimeError, match=kw("floating", "Long")):
        pyth.multinomial(pyth.ones(3, dtype=pyth.int64), 1)


# --------------------------------------------------------------------------------------------
# errors
# --------------------------------------------------------------------------------------------

ERRORS = [
    # (call on module m = pyth or torch, exception, keywords of pyth's message)
    (lambda m: m.zeros(3).bernoulli_(1.5), RuntimeError, ["1.5", r"\[0, 1\]"]),
    (lambda m: m.zeros(3).bernoulli_(-0.1), RuntimeError, ["-0.1"]),
    (lambda m: m.zeros(3).bernoulli_(float("nan")), RuntimeError, ["nan"]),
    (lambda m: m.zeros(3).bernoulli_(m.tensor([0.5, 1.5, 0.2])), RuntimeError, None),
    (lambda m: m.bernoulli(m.tensor([0.5, float("nan")])), RuntimeError, None),
    (lambda m: m.multinomial(m.ones(3), 4), RuntimeError, ["n_sample", "replacement"]),
    # PyTorch 2.13's CPU kernel draws zero-weight categories here; pyth refuses (its brief)
    (lambda m: m.multinomial(m.tensor([1.0, 0, 0]), 2) if m is pyth else _raise(RuntimeError()),
     RuntimeError, ["replacement", "non-zero"]),
    (lambda m: m.multinomial(m.tensor([1.0, -1, 1]), 1), RuntimeError, ["< 0|negative"]),
    (lambda m: m.multinomial(m.tensor([1.0, float("inf")]), 1), RuntimeError, ["inf"]),
    (lambda m: m.multinomial(m.tensor([1.0, float("nan")]), 1, True), RuntimeError, ["nan"]),
    (lambda m: m.multinomial(m.tensor([0.0, 0.0]), 1, True), RuntimeError, ["sum"]),
    (lambda m: m.multinomial(m.ones(2, 2, 2), 1), RuntimeError, ["dim"]),
    (lambda m: m.multinomial(m.ones(()), 1), RuntimeError, ["dim"]),
    (lambda m: m.multinomial(m.ones(3), 0), RuntimeError, ["n_sample"]),
    (lambda m: m.randint(5, 5, (3,)), RuntimeError, ["from", "to"]),
    (lambda m: m.randint(5, 3, (3,)), RuntimeError, ["from", "to"]),
    (lambda m: m.zeros(3).random_(0), RuntimeError, ["from", "to"]),
    (lambda m: m.zeros(3, dtype=m.uint8).random_(0, 300), RuntimeError, ["out of bounds", "uint8"]),
    (lambda m: m.zeros(3, dtype=m.int8).random_(-129, 3), RuntimeError, ["out of bounds"]),
    (lambda m: m.zeros(3, dtype=m.bool).random_(0, 3), RuntimeError, ["out of bounds"]),
    (lambda m: m.zeros(3, dtype=m.float16).random_(0, 70000), RuntimeError, ["out of bounds"]),
    (lambda m: m.zeros(3, dtype=m.int64).random_(0, 2**63), ValueError, None),
    (lambda m: m.randint(0, 300, (3,), dtype=m.uint8), RuntimeError, ["out of bounds"]),
    (lambda m: m.zeros(3).normal_(0, -1), RuntimeError, ["std", "-1"]),
    (lambda m: m.normal(m.zeros(3), -1.0), RuntimeError, ["std", "-1"]),
    (lambda m: m.normal(0.0, -1.0, (3,)), RuntimeError, ["std"]),
    (lambda m: m.normal(m.zeros(3), -m.ones(3)), RuntimeError, ["std"]),
    (lambda m: m.normal(m.zeros(2), m.ones(3)), RuntimeError, ["shape|size|broadcast"]),
    (lambda m: m.zeros(3).uniform_(2, 1), RuntimeError, ["from", "to"]),
    (lambda m: m.zeros(3).uniform_(0, float("inf")), RuntimeError, ["bounds|finite"]),
    (lambda m: m.zeros(3).exponential_(0), RuntimeError, ["lambda"]),
    (lambda m: m.zeros(3).exponential_(-1), RuntimeError, ["lambda"]),
    (lambda m: m.zeros(3).cauchy_(0, 0), RuntimeError, ["sigma"]),
    (lambda m: m.zeros(3).log_normal_(0, 0), RuntimeError, ["std"]),
    (lambda m: m.zeros(3).geometric_(0), RuntimeError, [r"\(0, 1\)"]),
    (lambda m: m.zeros(3).geometric_(1), RuntimeError, [r"\(0, 1\)"]),
    (lambda m: m.zeros(3).geometric_(1.5), RuntimeError, ["1.5"]),
    (lambda m: m.randperm(3000, dtype=m.float16), RuntimeError, ["2049"]),
    (lambda m: m.rand(3, generator=5), TypeError, None),
]


def _raise(e):
    raise e


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors(case):
    make, exc, words = ERRORS[case]
    before = pyth.get_rng_state().tolist()
    with pytest.raises(exc, match=kw(*words) if words else None):
        make(pyth)
    assert pyth.get_rng_state().tolist() == before      # checked before anything was drawn
    torch = pytest.importorskip("torch")
    with pytest.raises(exc):
        make(torch)


def test_negative_randperm_is_a_value_error():
    with pytest.raises(ValueError, match=kw("n", "-1")):
        pyth.randperm(-1)


def test_generator_type_checks():
    with pytest.raises(TypeError, match=kw("Generator")):
        pyth.zeros(3).normal_(generator="x")
    with pytest.raises(RuntimeError, match=kw("cpu")):
        pyth.Generator("cuda")
    with pytest.raises(TypeError):
        pyth.zeros(3).uniform_(0, 1, 2)
    with pytest.raises(TypeError, match=kw("unexpected")):
        pyth.rand(3, bogus=1)
    assert pyth.zeros(3).uniform_(**{"from": 5, "to": 6}).numpy().min() >= 5
    assert pyth.zeros(3).random_(**{"from": 2, "to": 4}).numpy().min() >= 2
