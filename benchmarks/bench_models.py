"""The models people train, side by side: pyth and PyTorch run the same model, weights (PyTorch's,
copied), data and optimizer in one process, at one thread and at the default thread count;
medians over interleaved rounds (harness.py). `--memory` adds the peak memory of each training
workload, each library alone in a fresh process.

python benchmarks/bench_models.py [--quick] [--case TEXT] [--threads 1|default|both] [--memory]
(also part of benchmarks/run.py, at the thread count in force)
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import pyth
except ImportError:  # working in the tree: use the in-place build
    sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import pyth

from harness import Case, run_case, torch  # noqa: E402


@dataclass
class Workload:
    """One row of the table: build(lib) -> (the modules whose weights are shared, make_step),
    where make_step() -> the zero-argument callable timed (it makes the optimizer, so that the
    weights copied into pyth's modules before it are the ones trained)."""
    name: str
    build: Callable[[Any], tuple[list, Callable[[], Callable]]]
    training: bool = True


def _data(seed: int, shape: tuple, high: int | None = None) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if high is not None:
        return rng.integers(0, high, shape).astype(np.int64)
    return rng.standard_normal(shape).astype(np.float32)


def _t(lib: Any, a: np.ndarray) -> Any:
    return lib.from_numpy(a.copy())


# ---- recurrent models ---------------------------------------------------------------------------

def _rnn_lm(cell: str, vocab: int = 10000, size: int = 256, layers: int = 2, seq: int = 35,
            batch: int = 20) -> Callable:
    """A word-level language model as PyTorch's example writes it: embedding, a 2-layer RNN of
    `cell`, a decoder; truncated backpropagation (the hidden state detached each step),
    clip_grad_norm_ and SGD."""
    x, y = _data(1, (seq, batch), vocab), _data(2, (seq, batch), vocab)

    def build(lib: Any) -> tuple:
        nn = lib.nn
        emb, rnn, dec = nn.Embedding(vocab, size), getattr(nn, cell)(size, size, layers), \
            nn.Linear(size, vocab)

        def make() -> Callable:
            params = [*emb.parameters(), *rnn.parameters(), *dec.parameters()]
            opt = lib.optim.SGD(params, lr=0.5)
            xs, ys = _t(lib, x), _t(lib, y)
            zero = lib.zeros(layers, batch, size)
            state = [(zero, zero) if cell == "LSTM" else zero]

            def step() -> None:
                h = state[0]
                h = tuple(t.detach() for t in h) if cell == "LSTM" else h.detach()
                out, h = rnn(emb(xs), h)
                loss = lib.nn.functional.cross_entropy(dec(out).view(-1, vocab), ys.view(-1))
                opt.zero_grad()
                loss.backward()
                lib.nn.utils.clip_grad_norm_(params, 0.25)
                opt.step()
                state[0] = h
            return step
        return [emb, rnn, dec], make
    return build


def _sequence_classifier(lib: Any) -> tuple:
    """nn.LSTM over the 28 rows of a 28x28 image, batch 64, the last output classified; Adam."""
    nn = lib.nn
    rnn, head = nn.LSTM(28, 128, batch_first=True), nn.Linear(128, 10)
    x, y = _data(3, (64, 28, 28)), _data(4, (64,), 10)

    def make() -> Callable:
        opt = lib.optim.Adam([*rnn.parameters(), *head.parameters()], lr=1e-3)
        xs, ys = _t(lib, x), _t(lib, y)

        def step() -> None:
            out, _ = rnn(xs)
            loss = lib.nn.functional.cross_entropy(head(out[:, -1]), ys)
            opt.zero_grad()
            loss.backward()
            opt.step()
        return step
    return [rnn, head], make


# ---- attention models ---------------------------------------------------------------------------

def _transformer_lm(lib: Any) -> tuple:
    """nn.TransformerEncoder language model as PyTorch's example: d_model 200, 2 heads, 2
    layers, feed-forward 200, a causal mask, sequence 35, batch 20, vocabulary 10000; SGD."""
    nn = lib.nn
    vocab, d, seq, batch = 10000, 200, 35, 20
    emb = nn.Embedding(vocab, d)
    layer = nn.TransformerEncoderLayer(d, 2, 200, dropout=0.0)
    enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    dec = nn.Linear(d, vocab)
    x, y = _data(5, (seq, batch), vocab), _data(6, (seq, batch), vocab)

    def make() -> Callable:
        params = [*emb.parameters(), *enc.parameters(), *dec.parameters()]
        opt = lib.optim.SGD(params, lr=0.1)
        xs, ys = _t(lib, x), _t(lib, y)
        mask = lib.triu(lib.full((seq, seq), float("-inf")), 1)

        def step() -> None:
            out = enc(emb(xs) * math.sqrt(d), mask)
            loss = lib.nn.functional.cross_entropy(dec(out).view(-1, vocab), ys.view(-1))
            opt.zero_grad()
            loss.backward()
            lib.nn.utils.clip_grad_norm_(params, 0.5)
            opt.step()
        return step
    return [emb, enc, dec], make


def _gpt(lib: Any, n_layer: int = 4, d: int = 128, heads: int = 4, block: int = 64,
         vocab: int = 65, llama: bool = False) -> Any:
    """A GPT as nanoGPT writes it (pre-norm blocks, causal scaled_dot_product_attention, GELU
    MLP, tied embedding), or with llama=True a Llama-style model: RMSNorm, rotary position
    embeddings, grouped-query attention (2 key/value heads), a SwiGLU MLP."""
    nn, F = lib.nn, lib.nn.functional
    kv = heads // 2 if llama else heads
    hd = d // heads

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.n1 = nn.RMSNorm(d) if llama else nn.LayerNorm(d)
            self.n2 = nn.RMSNorm(d) if llama else nn.LayerNorm(d)
            self.qkv = nn.Linear(d, d + 2 * kv * hd, bias=not llama)
            self.proj = nn.Linear(d, d, bias=not llama)
            if llama:
                self.gate = nn.Linear(d, 4 * d, bias=False)
                self.up = nn.Linear(d, 4 * d, bias=False)
                self.down = nn.Linear(4 * d, d, bias=False)
            else:
                self.fc = nn.Linear(d, 4 * d)
                self.out = nn.Linear(4 * d, d)

        def forward(self, x: Any, rope: Any) -> Any:
            B, T, _ = x.shape
            q, k, v = self.qkv(self.n1(x)).split([d, kv * hd, kv * hd], dim=2)
            q = q.view(B, T, heads, hd).transpose(1, 2)
            k = k.view(B, T, kv, hd).transpose(1, 2)
            v = v.view(B, T, kv, hd).transpose(1, 2)
            if llama:
                cos, sin = rope
                q, k = _rotate(lib, q, cos[:T], sin[:T]), _rotate(lib, k, cos[:T], sin[:T])
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=llama)
            x = x + self.proj(y.transpose(1, 2).reshape(B, T, d))
            h = self.n2(x)
            if llama:
                return x + self.down(F.silu(self.gate(h)) * self.up(h))
            return x + self.out(F.gelu(self.fc(h)))

    class GPT(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.tok = nn.Embedding(vocab, d)
            if not llama:
                self.pos = nn.Embedding(block, d)
            self.blocks = nn.ModuleList([Block() for _ in range(n_layer)])
            self.norm = nn.RMSNorm(d) if llama else nn.LayerNorm(d)
            self.head = nn.Linear(d, vocab, bias=False)
            inv = 1.0 / (10000 ** (lib.arange(0, hd, 2, dtype=lib.float32) / hd))
            ang = lib.outer(lib.arange(block, dtype=lib.float32), inv)
            self.rope = (lib.cat([ang, ang], -1).cos(), lib.cat([ang, ang], -1).sin())

        def forward(self, idx: Any) -> Any:
            T = idx.shape[1]
            x = self.tok(idx)
            if not llama:
                x = x + self.pos(lib.arange(T))
            for b in self.blocks:
                x = b(x, self.rope)
            return self.head(self.norm(x))
    return GPT()


def _rotate(lib: Any, x: Any, cos: Any, sin: Any) -> Any:
    half = x.shape[-1] // 2
    rotated = lib.cat([-x[..., half:], x[..., :half]], -1)
    return x * cos + rotated * sin


def _gpt_training(llama: bool) -> Callable:
    """A training step of batch 16 over blocks of 64 tokens; AdamW."""
    x, y = _data(7, (16, 64), 65), _data(8, (16, 64), 65)

    def build(lib: Any) -> tuple:
        model = _gpt(lib, llama=llama)

        def make() -> Callable:
            opt = lib.optim.AdamW(model.parameters(), lr=1e-3)
            xs, ys = _t(lib, x), _t(lib, y)

            def step() -> None:
                loss = lib.nn.functional.cross_entropy(model(xs).view(-1, 65), ys.view(-1))
                opt.zero_grad()
                loss.backward()
                opt.step()
            return step
        return [model], make
    return build


def _gpt_generation(lib: Any) -> tuple:
    """Greedy generation at batch 1, one token per call: the GPT's forward over a 32-token
    context under no_grad, the last position's argmax appended and the oldest token dropped."""
    model = _gpt(lib)
    ctx = _data(9, (1, 32), 65)

    def make() -> Callable:
        model.eval()
        state = [_t(lib, ctx)]

        def step() -> None:
            with lib.no_grad():
                idx = state[0]
                nxt = model(idx)[:, -1, :].argmax(-1, keepdim=True)
                state[0] = lib.cat([idx[:, 1:], nxt], 1)
        return step
    return [model], make


# ---- convolutional models -----------------------------------------------------------------------

def _cnn_inference(lib: Any) -> tuple:
    """A CIFAR-sized CNN (3x32x32 in, 64 and 128 channels) in eval mode at batch 1."""
    nn = lib.nn
    net = nn.Sequential(nn.Conv2d(3, 64, 3, padding=1), nn.ReLU(),
                        nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(64, 128, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Flatten(), nn.Linear(128 * 8 * 8, 10))
    x = _data(10, (1, 3, 32, 32))

    def make() -> Callable:
        net.eval()
        xs = _t(lib, x)

        def step() -> None:
            with lib.no_grad():
                net(xs)
        return step
    return [net], make


def _transformer_net(lib: Any) -> tuple:
    """fast-neural-style's image transformer net (reflection padding, instance norm, 5 residual
    blocks, nearest upsampling) on a 1x3x64x64 image, an MSE step with Adam."""
    nn = lib.nn

    def conv(a: int, b: int, k: int, s: int, up: int | None = None) -> list:
        layers = [nn.Upsample(scale_factor=up, mode="nearest")] if up else []
        return layers + [nn.ReflectionPad2d(k // 2), nn.Conv2d(a, b, k, s)]

    def norm(c: int) -> Any:
        return nn.InstanceNorm2d(c, affine=True)

    class Residual(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Sequential(*conv(128, 128, 3, 1), norm(128), nn.ReLU(),
                                      *conv(128, 128, 3, 1), norm(128))

        def forward(self, x: Any) -> Any:
            return x + self.body(x)

    net = nn.Sequential(*conv(3, 32, 9, 1), norm(32), nn.ReLU(),
                        *conv(32, 64, 3, 2), norm(64), nn.ReLU(),
                        *conv(64, 128, 3, 2), norm(128), nn.ReLU(),
                        *[Residual() for _ in range(5)],
                        *conv(128, 64, 3, 1, up=2), norm(64), nn.ReLU(),
                        *conv(64, 32, 3, 1, up=2), norm(32), nn.ReLU(),
                        *conv(32, 3, 9, 1))
    x, target = _data(11, (1, 3, 64, 64)), _data(12, (1, 3, 64, 64))

    def make() -> Callable:
        opt = lib.optim.Adam(net.parameters(), lr=1e-3)
        xs, ts = _t(lib, x), _t(lib, target)

        def step() -> None:
            loss = lib.nn.functional.mse_loss(net(xs), ts)
            opt.zero_grad()
            loss.backward()
            opt.step()
        return step
    return [net], make


def _dcgan(lib: Any) -> tuple:
    """A DCGAN step as PyTorch's example (64x64 images, nz 100, 32 feature maps, batch 16):
    the discriminator on real and generated images, then the generator; BCELoss, Adam."""
    nn = lib.nn
    nz, f = 100, 32
    G = nn.Sequential(nn.ConvTranspose2d(nz, f * 8, 4, 1, 0, bias=False), nn.BatchNorm2d(f * 8),
                      nn.ReLU(True),
                      nn.ConvTranspose2d(f * 8, f * 4, 4, 2, 1, bias=False),
                      nn.BatchNorm2d(f * 4), nn.ReLU(True),
                      nn.ConvTranspose2d(f * 4, f * 2, 4, 2, 1, bias=False),
                      nn.BatchNorm2d(f * 2), nn.ReLU(True),
                      nn.ConvTranspose2d(f * 2, f, 4, 2, 1, bias=False), nn.BatchNorm2d(f),
                      nn.ReLU(True), nn.ConvTranspose2d(f, 3, 4, 2, 1, bias=False), nn.Tanh())
    D = nn.Sequential(nn.Conv2d(3, f, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, True),
                      nn.Conv2d(f, f * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(f * 2),
                      nn.LeakyReLU(0.2, True), nn.Conv2d(f * 2, f * 4, 4, 2, 1, bias=False),
                      nn.BatchNorm2d(f * 4), nn.LeakyReLU(0.2, True),
                      nn.Conv2d(f * 4, f * 8, 4, 2, 1, bias=False), nn.BatchNorm2d(f * 8),
                      nn.LeakyReLU(0.2, True), nn.Conv2d(f * 8, 1, 4, 1, 0, bias=False),
                      nn.Sigmoid())
    real, noise = _data(13, (16, 3, 64, 64)), _data(14, (16, nz, 1, 1))

    def make() -> Callable:
        og = lib.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
        od = lib.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
        bce = nn.BCELoss()
        xs, zs = _t(lib, real), _t(lib, noise)
        ones, zeros = lib.ones(16), lib.zeros(16)

        def step() -> None:
            D.zero_grad()
            fake = G(zs)
            loss_d = bce(D(xs).view(-1), ones) + bce(D(fake.detach()).view(-1), zeros)
            loss_d.backward()
            od.step()
            G.zero_grad()
            bce(D(fake).view(-1), ones).backward()
            og.step()
        return step
    return [G, D], make


def _custom_function(lib: Any) -> tuple:
    """PyTorch's tutorial fit of sin(x) by a + b P3(c + d x), P3 a custom autograd.Function
    (the Legendre polynomial 0.5 (5x^3 - 3x)), on 2,000 points; one step per call."""
    class P3(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return 0.5 * (5 * x ** 3 - 3 * x)

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            x, = ctx.saved_tensors
            return g * 1.5 * (5 * x ** 2 - 1)

    x = lib.linspace(-math.pi, math.pi, 2000)
    y = x.sin()
    w = [lib.full((), v, requires_grad=True) for v in (0.0, -1.0, 0.0, 0.3)]

    def make() -> Callable:
        def step() -> None:
            a, b, c, d = w
            loss = (a + b * P3.apply(c + d * x) - y).pow(2).sum()
            loss.backward()
            with lib.no_grad():
                for p in w:
                    p -= 5e-6 * p.grad
                    p.grad = None
        return step
    return [], make


# ---- single layers and ops ----------------------------------------------------------------------

def _conv_layer(lib: Any) -> tuple:
    """A 3x3 convolution 64 -> 64 on 8x64x56x56 (a ResNet stage), forward and backward."""
    conv = lib.nn.Conv2d(64, 64, 3, padding=1)
    x, g = _data(15, (8, 64, 56, 56)), _data(16, (8, 64, 56, 56))

    def make() -> Callable:
        xs, gs = _t(lib, x).requires_grad_(), _t(lib, g)

        def step() -> None:
            conv(xs).backward(gs)
            xs.grad = None
            conv.zero_grad()
        return step
    return [conv], make


def _softmax(lib: Any) -> tuple:
    x = _t(lib, _data(17, (1024, 1024)))
    return [], lambda: (lambda: lib.nn.functional.softmax(x, -1))


def _sum(lib: Any) -> tuple:
    x = _t(lib, _data(18, (1 << 20,)))
    return [], lambda: (lambda: x.sum())


# the word-level models have PTB's 10,000 words, whose decoder and loss take half their time; the
# character-level one (tiny Shakespeare's 65) is mostly the recurrence
WORKLOADS = [
    Workload("LSTM language model (2x256, seq 35, batch 20)", _rnn_lm("LSTM")),
    Workload("char LSTM language model (vocabulary 65)", _rnn_lm("LSTM", vocab=65)),
    Workload("sequence classifier, nn.LSTM over 28 steps", _sequence_classifier),
    Workload("GRU language model (2x256, seq 35, batch 20)", _rnn_lm("GRU")),
    Workload("nn.Transformer language model", _transformer_lm),
    Workload("GPT 4x128, block 64, batch 16, AdamW", _gpt_training(False)),
    Workload("Llama-style 4x128 (RMSNorm, rotary, GQA)", _gpt_training(True)),
    Workload("GPT generation, batch 1, per token", _gpt_generation, training=False),
    Workload("CNN 3x32x32 inference, batch 1", _cnn_inference, training=False),
    Workload("custom autograd.Function fit, one step", _custom_function),
    Workload("image transformer net (instance norm, upsampling)", _transformer_net),
    Workload("DCGAN step (64x64, batch 16)", _dcgan),
    Workload("conv 3x3 64->64 on 8x64x56x56, fwd + bwd", _conv_layer),
    Workload("softmax over 1024x1024", _softmax, training=False),
    Workload("sum of 1M float32", _sum, training=False),
]


def _copy(src: list, dst: list) -> None:
    """PyTorch's initial weights (and buffers) into pyth's modules."""
    for s, d in zip(src, dst):
        d.load_state_dict({k: pyth.from_numpy(v.detach().numpy().copy())
                           for k, v in s.state_dict().items()})


def case(w: Workload) -> Case:
    """The workload as a harness Case: both libraries built, PyTorch's weights copied."""
    torch_seed = 0
    pyth.manual_seed(torch_seed)
    pm, pmake = w.build(pyth)
    fns: dict[str, Callable] = {}
    if torch is not None:
        torch.manual_seed(torch_seed)
        tm, tmake = w.build(torch)
        _copy(tm, pm)
        fns["torch"] = tmake()
    return Case(w.name, {"pyth": pmake(), **fns}, "models")


def cases(quick: bool = False) -> list[Case]:
    return [case(w) for w in WORKLOADS]


def _set_threads(n: int | None) -> str:
    if n is None:
        n = os.cpu_count() or 1
    pyth.set_num_threads(n)
    if torch is not None:
        torch.set_num_threads(n)
    return f"{n} thread{'s' if n != 1 else ''}"


def _status_bytes(field: str) -> int:
    """A memory field of /proc/self/status (VmRSS, VmHWM) in bytes."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def peak(name: str, lib_name: str, steps: int = 3) -> int:
    """The peak resident memory (bytes) that `steps` calls of the workload add to a process
    that has imported the library and built the model and data (this process): the kernel's
    high-water mark is reset (clear_refs 5) once the model is built, so the imports and the
    building do not count."""
    lib = pyth if lib_name == "pyth" else torch
    w = next(w for w in WORKLOADS if w.name == name)
    _, make = w.build(lib)
    step = make()
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    before = _status_bytes("VmRSS")
    for _ in range(steps):
        step()
    return _status_bytes("VmHWM") - before


def memory_table() -> str:
    libs = ["pyth"] + (["torch"] if torch is not None else [])
    lines = ["peak memory of the training workloads, each library alone in a process (MiB)",
             f"{'workload':<52}" + "".join(f"{lib:>10}" for lib in libs) + f"{'pyth/torch':>12}"]
    for w in WORKLOADS:
        if not w.training:
            continue
        got = {}
        for lib in libs:
            out = subprocess.run([sys.executable, os.path.abspath(__file__), "--peak", w.name,
                                  lib], check=True, capture_output=True, text=True).stdout
            got[lib] = int(out.strip().splitlines()[-1])
        row = f"{w.name:<52}" + "".join(f"{got[lib] / 2**20:10.1f}" for lib in libs)
        if "torch" in got:
            row += f"{got['pyth'] / max(got['torch'], 1):12.2f}"
        lines.append(row)
    return "\n".join(lines)


def table(done: list[Case], title: str) -> str:
    lines = [title, f"{'workload':<52}{'pyth':>12}{'torch':>12}{'pyth/torch':>12}"]
    for c in done:
        r = c.results
        p, t = r["pyth"], r.get("torch")
        cell = (lambda s: f"{s * 1e3:9.2f} ms")
        lines.append(f"{c.name:<52}{cell(p):>12}" +
                     (f"{cell(t):>12}{p / t:12.2f}" if t is not None else ""))
    return "\n".join(lines)


if __name__ == "__main__":
    if "--peak" in sys.argv:
        i = sys.argv.index("--peak")
        print(peak(sys.argv[i + 1], sys.argv[i + 2]))
        sys.exit(0)
    quick = "--quick" in sys.argv
    only = sys.argv[sys.argv.index("--case") + 1] if "--case" in sys.argv else ""
    which = sys.argv[sys.argv.index("--threads") + 1] if "--threads" in sys.argv else "both"
    settings = {"1": [1], "default": [None], "both": [1, None]}[which]
    for n in settings:
        label = _set_threads(n)
        done = [run_case(case(w), rounds=3 if quick else 7, target=0.05 if quick else 0.3)
                for w in WORKLOADS if only in w.name]
        print(table(done, f"models (pyth vs PyTorch), {label}"), flush=True)
    if "--memory" in sys.argv:
        print(memory_table())
