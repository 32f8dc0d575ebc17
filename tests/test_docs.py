"""Every fenced code block of README.md and docs/*.md runs here, and the output the docs show
after a block is the output it prints: the documentation cannot drift from the code.

How a block is handled is decided by its language and by an optional marker, an HTML comment
`<!-- docs-test: KIND -->` on the line just before its fence:

- ```python (no marker): run with fresh globals, in a child `python -P` per page (pyth as the
  suite imports it, a temporary working directory); a ```text block right after it is the exact
  text it must print. A block that draws random numbers or builds layers must seed.
- ```python marked `needs MODULE` (`needs torch`, `needs tensorboard`): the same, skipped
  (visibly) when that optional package is not installed.
- ```python marked `mpi-script`: a script named by its first line (`# NAME.py`); without
  mpi4py it must stop at init_process_group asking for the `mpi` extra, with mpi4py it runs as
  a world of one.
- ```bash marked `ci`: each line is a command .ci/run runs, verbatim.
- ```bash marked `run`: each line runs (`python` is this interpreter) and must succeed.
- ```bash marked `mpi`: `mpiexec ... python SCRIPT` lines; SCRIPT is an `mpi-script` block of
  the docs or `-m pyth COMMAND OPTIONS`, whose options COMMAND's --help must list.
- ```bash marked `options`: `python benchmarks/NAME.py OPTIONS` lines; the script exists and
  takes each option.
- ```text marked `train-output`: what `python -P -m pyth train` prints; checked against a one-
  epoch run of the same command (the first epoch's numbers are the same), whose checkpoint
  `evaluate` must score the same.

Any other block fails its test, so a block added without a rule cannot go unchecked.
"""

from __future__ import annotations

import functools
import glob
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass

import pytest

import pyth

# the checkout the pages belong to (tests/ sits in it), and the folder holding the pyth this
# suite imports (the checkout when working in the tree, site-packages when installed)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTH_HOME = os.path.dirname(os.path.dirname(os.path.abspath(pyth.__file__)))
PAGES = ["README.md"] + sorted(os.path.relpath(p, ROOT)
                               for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
MARKER = re.compile(r"^<!--\s*docs-test:\s*(.+?)\s*-->$")
FENCE = re.compile(r"^```(\S*)\s*$")
DRAWS = re.compile(r"\brand(n|int|perm)?\(|\bnn\.|\bnormal_?\(|multinomial|bernoulli|uniform_")


@dataclass
class Block:
    """One fenced block: where it is, its language and marker, its text, and (for a python or
    bash block) the text block that follows it as its output."""
    page: str
    line: int
    lang: str
    marker: str | None
    text: str
    output: str | None = None

    @property
    def name(self) -> str:
        """The test id: page and line of the opening fence."""
        return f"{self.page}:{self.line}"


def parse(page: str) -> list[Block]:
    """The page's fenced blocks in order, each output block attached to the block before it
    (and left out of the list) when it has no marker of its own."""
    with open(os.path.join(ROOT, page), encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start = i
        j = i + 1
        while j < len(lines) and lines[j] != "```":
            j += 1
        assert j < len(lines), f"{page}:{start + 1}: unclosed code block"
        k = start - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        mark = MARKER.match(lines[k].strip()) if k >= 0 else None
        block = Block(page, start + 1, m.group(1), mark.group(1) if mark else None,
                      "\n".join(lines[start + 1:j]))
        between = lines[blocks[-1].line:start] if blocks else []
        prev = blocks[-1] if blocks else None
        if (block.lang == "text" and block.marker is None and prev is not None
                and prev.lang in ("python", "bash") and prev.output is None
                and not any(MARKER.match(x.strip()) for x in between)):
            prev.output = block.text
        else:
            blocks.append(block)
        i = j + 1
    return blocks


ALL = [b for page in PAGES for b in parse(page)]


def child_env() -> dict:
    """The environment a child needs to import the pyth this suite tests."""
    return dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (PYTH_HOME, os.environ.get("PYTHONPATH")) if p))


# the markers of python blocks that need an optional package, and the module to import
NEEDS = {"needs torch": "torch", "needs tensorboard": "tensorboard"}

RUNNER = textwrap.dedent("""
    import contextlib, io, json, sys, traceback
    blocks = json.load(open(sys.argv[1]))
    results = []
    for b in blocks:
        if b["needs"]:
            try:
                __import__(b["needs"])
            except ImportError:
                results.append({"skipped": b["needs"] + " is not installed"})
                continue
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(b["text"], b["name"], "exec"), {"__name__": "__main__"})
            results.append({"stdout": out.getvalue()})
        except BaseException:
            results.append({"stdout": out.getvalue(), "error": traceback.format_exc()})
    json.dump(results, open(sys.argv[2], "w"))
""")


def runnable(b: Block) -> bool:
    """Whether the block is one of the page's python blocks that run in its child."""
    return b.lang == "python" and (b.marker is None or b.marker in NEEDS)


@functools.lru_cache(maxsize=None)
def page_results(page: str) -> dict:
    """Runs the page's python blocks in order in one child (fresh globals for each) and returns
    what each printed or raised, by block name."""
    blocks = [b for b in ALL if b.page == page and runnable(b)]
    with tempfile.TemporaryDirectory() as d:
        spec, result = os.path.join(d, "blocks.json"), os.path.join(d, "results.json")
        with open(spec, "w") as f:
            json.dump([{"name": b.name, "text": b.text, "needs": NEEDS.get(b.marker)}
                       for b in blocks], f)
        work = os.path.join(d, "work")
        os.mkdir(work)
        r = subprocess.run([sys.executable, "-P", "-c", RUNNER, spec, result], cwd=work,
                           env=child_env(), capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, f"the child running {page} failed:\n{r.stderr[-3000:]}"
        with open(result) as f:
            return dict(zip((b.name for b in blocks), json.load(f)))


def normalized(text: str) -> str:
    """Text with trailing spaces and trailing blank lines dropped."""
    return "\n".join(line.rstrip() for line in text.rstrip("\n").split("\n"))


def run_python(b: Block) -> None:
    """A python block: it runs without an error and prints its output block, if it has one."""
    if DRAWS.search(b.text):
        assert "manual_seed(" in b.text, "a block that draws random numbers must seed"
    res = page_results(b.page)[b.name]
    if "skipped" in res:
        pytest.skip(res["skipped"])
    assert "error" not in res, res["error"]
    if b.output is not None:
        assert normalized(res["stdout"]) == normalized(b.output)


def commands(b: Block) -> list[str]:
    """The block's command lines (comments and blank lines dropped)."""
    return [line.strip() for line in b.text.split("\n")
            if line.strip() and not line.strip().startswith("#")]


def run_ci(b: Block) -> None:
    """A `ci` block: every command is one .ci/run runs, verbatim."""
    with open(os.path.join(ROOT, ".ci", "run")) as f:
        ci = {line.strip() for line in f}
    for cmd in commands(b):
        assert cmd in ci, f"{cmd!r} is not a command of .ci/run"


def run_shell(b: Block) -> None:
    """A `run` block: each command runs in a scratch directory and succeeds."""
    out = []
    with tempfile.TemporaryDirectory() as d:
        for cmd in commands(b):
            argv = shlex.split(cmd)
            assert argv[0] == "python", f"{cmd!r}: only python commands run here"
            r = subprocess.run([sys.executable, *argv[1:]], cwd=d, env=child_env(),
                               capture_output=True, text=True, timeout=120)
            assert r.returncode == 0, f"{cmd!r} failed:\n{r.stderr[-3000:]}"
            out.append(r.stdout)
    if b.output is not None:
        assert normalized("".join(out)) == normalized(b.output)


def cli_help(*command: str) -> str:
    """What `python -m pyth COMMAND --help` prints."""
    r = subprocess.run([sys.executable, "-P", "-m", "pyth", *command, "--help"],
                       env=child_env(), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def scripts() -> dict[str, Block]:
    """The `mpi-script` blocks of the docs, by the file name their first line gives."""
    found = {}
    for b in ALL:
        if b.marker == "mpi-script":
            first = b.text.split("\n", 1)[0]
            assert re.fullmatch(r"# [\w-]+\.py", first), f"{b.name}: first line names the script"
            found[first[2:]] = b
    return found


def run_mpi(b: Block) -> None:
    """An `mpi` block: each line starts a documented script or a pyth command under mpiexec
    with options that command takes."""
    for cmd in commands(b):
        argv = shlex.split(cmd)
        assert argv[0] == "mpiexec" and "python" in argv, cmd
        rest = argv[argv.index("python") + 1:]
        if rest[:2] == ["-m", "pyth"]:
            text = cli_help(rest[2])
            for opt in (a for a in rest[3:] if a.startswith("--")):
                assert opt in text, f"{cmd!r}: pyth {rest[2]} has no {opt}"
        else:
            assert rest[0] in scripts(), f"{cmd!r}: {rest[0]} is no mpi-script block of the docs"


def run_mpi_script(b: Block) -> None:
    """An `mpi-script` block: a world of one when mpi4py is there, else the extra's message."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, b.text.split("\n", 1)[0][2:])
        with open(path, "w") as f:
            f.write(b.text + "\n")
        r = subprocess.run([sys.executable, "-P", path], cwd=d, env=child_env(),
                           capture_output=True, text=True, timeout=300)
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        assert r.returncode != 0 and "install the 'mpi' extra" in r.stderr, r.stderr[-3000:]
        assert "init_process_group" in r.stderr, r.stderr[-3000:]
        return
    assert r.returncode == 0, r.stderr[-3000:]


def run_options(b: Block) -> None:
    """An `options` block: each benchmark script exists and takes every option given."""
    for cmd in commands(b):
        argv = shlex.split(cmd)
        assert argv[0] == "python" and argv[1].startswith("benchmarks/"), cmd
        path = os.path.join(ROOT, argv[1])
        assert os.path.isfile(path), f"{cmd!r}: no {argv[1]}"
        with open(path) as f:
            source = f.read()
        for opt in (a for a in argv[2:] if a.startswith("--")):
            assert f'"{opt}"' in source, f"{cmd!r}: {argv[1]} takes no {opt}"


EPOCH = re.compile(r"^(epoch +1)/\d+( .*  lr [0-9.]+)  [0-9.]+ s$")


def run_train_output(b: Block) -> None:
    """The documented output of `train`: a one-epoch run prints the same first lines, and the
    checkpoint it writes evaluates to the accuracy it printed (the digits come from
    scikit-learn, the `demo` extra)."""
    pytest.importorskip("sklearn")
    doc = b.text.split("\n")
    epochs = int(re.search(r", (\d+) epochs of batch", doc[0]).group(1))
    last_test = re.search(r"test ([0-9.]+)", doc[epochs]).group(1)
    assert doc[-1] == f"test accuracy: {last_test}", "the last epoch's accuracy is the final one"
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run([sys.executable, "-P", "-m", "pyth", "train", "--epochs", "1",
                            "--out", "out"], cwd=d, env=child_env(), capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-3000:]
        got = r.stdout.strip().split("\n")
        assert got[0] == doc[0].replace(f"{epochs} epochs", "1 epoch")
        assert EPOCH.sub(r"\1\2", got[1]) == EPOCH.sub(r"\1\2", doc[1])
        first_test = re.search(r"test ([0-9.]+)", got[1]).group(1)
        assert got[-1] == f"test accuracy: {first_test}"
        e = subprocess.run([sys.executable, "-P", "-m", "pyth", "evaluate", "out/model.pth"],
                           cwd=d, env=child_env(), capture_output=True, text=True, timeout=300)
        assert e.returncode == 0, e.stderr[-3000:]
        assert f"test accuracy: {first_test}" in e.stdout


RULES = {
    ("python", None): run_python,
    ("python", "needs torch"): run_python,
    ("python", "needs tensorboard"): run_python,
    ("python", "mpi-script"): run_mpi_script,
    ("bash", "ci"): run_ci,
    ("bash", "run"): run_shell,
    ("bash", "mpi"): run_mpi,
    ("bash", "options"): run_options,
    ("text", "train-output"): run_train_output,
}


@pytest.mark.parametrize("block", ALL, ids=[b.name for b in ALL])
def test_block(block: Block) -> None:
    """Each block runs by its rule; a block with no rule fails."""
    rule = RULES.get((block.lang, block.marker))
    assert rule is not None, (f"{block.name}: no rule for a ```{block.lang} block marked "
                              f"{block.marker!r} (see tests/test_docs.py)")
    rule(block)


def test_the_pages_have_blocks() -> None:
    """The parser found the pages and their blocks (an empty list would pass vacuously)."""
    assert "README.md" in PAGES and "docs/architecture.md" in PAGES
    assert sum(b.lang == "python" for b in ALL) >= 20


def test_readme_is_short() -> None:
    """The README stays an entry page; the rest goes to docs/."""
    with open(os.path.join(ROOT, "README.md")) as f:
        assert len(f.read().split("\n")) <= 250


PATH = re.compile(r"(?<![\w/.])((?:pyth|lib|generic|tests|scripts|benchmarks|docs|\.ci)/"
                  r"[\w/.*\-]*[\w/*])")
LINK = re.compile(r"\]\(([^)#]+)(?:#[^)]*)?\)")


@functools.lru_cache(maxsize=None)
def sources() -> str:
    """The text of the code that runs (pyth/, benchmarks/, scripts/), where the names of the
    files it writes appear."""
    texts = []
    for d in ("pyth", "benchmarks", "scripts"):
        for path in glob.glob(os.path.join(ROOT, d, "**", "*.py"), recursive=True):
            with open(path, encoding="utf-8") as f:
                texts.append(f.read())
    return "\n".join(texts)


def exists(path: str) -> bool:
    """Whether the tree has the path (a glob when it holds a *), or the code writes it."""
    full = os.path.join(ROOT, path)
    return bool(glob.glob(full)) if "*" in path else (os.path.exists(full) or path in sources())


@pytest.mark.parametrize("page", PAGES)
def test_named_files_exist(page: str) -> None:
    """Every file path and relative link a page names exists in the tree."""
    with open(os.path.join(ROOT, page), encoding="utf-8") as f:
        text = f.read()
    base = os.path.dirname(os.path.join(ROOT, page))
    missing = [p for p in PATH.findall(text) if not exists(p)]
    missing += [p for p in LINK.findall(text)
                if "://" not in p and not os.path.exists(os.path.join(base, p))]
    assert not missing, f"{page} names files that do not exist: {missing}"


# history words, spelled in pieces so that this file does not match them itself
_HISTORY_WORDS = ["issue" + r" [0-9]+", "_" + "extra", "_" + r"more\b", r"\bsessions?\b",
                  r"\b20\d\d-\d\d-\d\d\b"]
HISTORY = re.compile("|".join(_HISTORY_WORDS), re.IGNORECASE)


@pytest.mark.parametrize("page", PAGES)
def test_no_history(page: str) -> None:
    """The pages describe the code as it is: no issue numbers, sessions or dated run logs."""
    with open(os.path.join(ROOT, page), encoding="utf-8") as f:
        found = HISTORY.findall(f.read())
    assert not found, f"{page}: {found}"
