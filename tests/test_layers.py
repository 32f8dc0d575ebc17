"""The layer rule of docs/architecture.md, read from the source: every import of a pyth module by
another (module-level or inside a function) goes to the same layer or one below, and pyth's
modules import one another without a circle."""

from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent / "pyth"

# Bottom to top. A module belongs to the layer of its longest matching prefix; a package's
# __init__ belongs to the layer of the package.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("core", ("pyth._th", "pyth._openmp", "pyth._openblas", "pyth._errors", "pyth.dtypes",
              "pyth._arguments",
              "pyth._size", "pyth._numpy", "pyth.threads", "pyth.memory", "pyth.device",
              "pyth.storage", "pyth._printoptions", "pyth._printing", "pyth._explain",
              "pyth._restricted_pickle", "pyth.dtype_info", "pyth._missing", "pyth._backend_flags",
              "pyth.overrides",
              "pyth.cuda", "pyth.accelerator", "pyth.backends", "pyth.mps", "pyth.xpu")),
    ("tensor", ("pyth.tensor", "pyth._promotion")),
    ("autograd state", ("pyth.autograd.grad_mode", "pyth.autograd.graph")),
    ("kernel-backed ops", ("pyth._ops", "pyth._prims", "pyth.random")),
    ("autograd", ("pyth.autograd",)),
    ("layer kernels", tuple(f"pyth.nn._{k}_kernels" for k in (
        "activation", "attention", "conv", "ctc", "embedding", "linear", "norm", "pool", "rnn",
        "softmax"))),
    ("composed ops", ("pyth._refs",)),
    ("libraries", ("pyth.nn", "pyth.optim", "pyth.utils", "pyth.multiprocessing",
                   "pyth.distributed", "pyth.serialization", "pyth._torch_format",
                   "pyth.futures", "pyth.linalg", "pyth.distributions", "pyth.fx",
                   "pyth._dynamo", "pyth.compiler", "pyth._inductor")),
    ("binder", ("pyth._bind",)),
    ("facade", ("pyth", "pyth.version")),
    ("programs", ("pyth.cli", "pyth.__main__")),
]

def _modules() -> dict[str, pathlib.Path | None]:
    mods: dict[str, pathlib.Path | None] = {"pyth._th": None}
    for p in ROOT.rglob("*.py"):
        parts = list(p.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        mods[".".join(parts)] = p
    return mods


MODULES = _modules()


def _owner(name: str) -> str:
    """The pyth module an imported dotted name lives in (pyth.a.b.c -> pyth.a.b if that is one)."""
    while name not in MODULES and "." in name:
        name = name.rsplit(".", 1)[0]
    return name


def imports_of(module: str) -> set[str]:
    """The pyth modules that module imports anywhere in its source."""
    path = MODULES[module]
    if path is None:
        return set()
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(_owner(a.name) for a in node.names if a.name.split(".")[0] == "pyth")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                base_name = ".".join(base + ([node.module] if node.module else []))
            else:
                base_name = node.module or ""
            if base_name.split(".")[0] != "pyth":
                continue
            for a in node.names:
                sub = f"{base_name}.{a.name}"
                found.add(sub if sub in MODULES else _owner(base_name))
    found.discard(module)
    return found


def layer_of(module: str) -> int:
    best, level = -1, None
    for k, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > best:
                best, level = len(p), k
    assert level is not None, f"{module} is in no layer: add it to LAYERS"
    return level


GRAPH = {m: imports_of(m) for m in MODULES}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def upward_imports() -> set[tuple[str, str]]:
    return {(m, t) for m, ts in GRAPH.items() for t in ts if layer_of(t) > layer_of(m)}


def test_every_module_has_a_layer() -> None:
    for m in MODULES:
        layer_of(m)


def test_imports_go_down() -> None:
    up = sorted(f"{m} imports {t} ({LAYERS[layer_of(m)][0]} -> {LAYERS[layer_of(t)][0]})"
                for m, t in upward_imports())
    assert up == []


def test_no_import_circle() -> None:
    assert _cycles(GRAPH) == []


def test_the_checks_can_fail() -> None:
    """The reader and the checks see an upward import and a circle when there is one."""
    assert "pyth.tensor" in GRAPH["pyth._ops"]
    assert layer_of("pyth._bind") > layer_of("pyth._refs.pointwise") > layer_of("pyth.tensor")
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []
