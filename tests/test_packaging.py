"""What makes pyth installable, citable and scriptable: the license and the project's metadata,
the one version, the py.typed marker, the release build's flags (no debug info; PYTH_DEBUG and
the sanitized build keep it), the abi3 wheel, and the message of a source tree without a core."""

from __future__ import annotations

import ast
import importlib.metadata
import os
import re
import shutil
import struct
import subprocess
import sys

import pytest

import pyth
from pyth._th import ffi, lib

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.dirname(os.path.abspath(pyth.__file__))


def _pyproject() -> dict:
    if tomllib is None:
        pytest.skip("reading pyproject.toml needs tomllib (Python >= 3.11)")
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)


def _installed() -> importlib.metadata.Distribution:
    """The distribution the imported pyth was installed from (skips in a source tree)."""
    try:
        dist = importlib.metadata.distribution("pyth")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("pyth is imported from a source tree, not installed")
    init = dist.locate_file("pyth/__init__.py")
    if not os.path.exists(init) or not os.path.samefile(init, pyth.__file__):
        pytest.skip("the imported pyth is not the installed one")
    if dist.read_text("WHEEL") is None:  # the egg-info a build leaves in a source tree
        pytest.skip("pyth is imported from a source tree, not installed from a wheel")
    return dist


# -- license and metadata --------------------------------------------------------------------

def test_license_is_bsd_3_clause_of_the_pyth_developers():
    with open(os.path.join(ROOT, "LICENSE")) as f:
        text = f.read()
    assert text.startswith("BSD 3-Clause License\n")
    assert re.search(r"^Copyright \(c\) \d{4}, the pyth developers$", text, re.M)
    # the three clauses, and the disclaimer
    for words in ("Redistributions of source code must retain", "Redistributions in binary form "
                  "must reproduce", "Neither the name of the copyright holder",
                  'PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"'):
        assert words in text.replace("\n", " ").replace("   ", " "), words


def test_project_metadata():
    project = _pyproject()["project"]
    assert project["license"] == "BSD-3-Clause" and project["license-files"] == ["LICENSE"]
    assert project["authors"] == [{"name": "the pyth developers"}]
    assert len(project["keywords"]) >= 5
    classifiers = project["classifiers"]
    assert "Typing :: Typed" in classifiers
    # a license classifier beside an SPDX license expression is refused by setuptools
    assert not [c for c in classifiers if c.startswith("License ::")]
    minimum = re.fullmatch(r">=3\.(\d+)", project["requires-python"]).group(1)
    assert f"Programming Language :: Python :: 3.{minimum}" in classifiers
    assert project["dynamic"] == ["version"] and "version" not in project


def test_one_version():
    """pyth.__version__ is the only place the version is written: the metadata reads it."""
    assert _pyproject()["tool"]["setuptools"]["dynamic"]["version"] == \
        {"attr": "pyth.__version__"}
    # setuptools reads it without importing pyth: a plain assignment of a string literal
    with open(os.path.join(PACKAGE, "__init__.py")) as f:
        tree = ast.parse(f.read())
    values = [node.value.value for node in tree.body if isinstance(node, ast.Assign)
              and [getattr(t, "id", None) for t in node.targets] == ["__version__"]]
    assert values == [pyth.__version__] and re.fullmatch(r"\d+\.\d+\.\d+", pyth.__version__)
    with open(os.path.join(ROOT, "CHANGELOG.md")) as f:
        first = re.search(r"^## \[?(\d+\.\d+\.\d+)", f.read(), re.M).group(1)
    assert first == pyth.__version__, "the change log's newest entry is this version"


def test_py_typed_is_package_data():
    # (the source's: a copy of the package, as the sanitized run imports, has only .py files)
    assert os.path.isfile(os.path.join(ROOT, "pyth", "py.typed"))
    assert "py.typed" in _pyproject()["tool"]["setuptools"]["package-data"]["pyth"]


def test_installed_metadata():
    dist = _installed()
    meta = dist.metadata
    assert dist.version == pyth.__version__
    assert meta["License-Expression"] == "BSD-3-Clause"
    assert "Typing :: Typed" in meta.get_all("Classifier")
    files = {str(p) for p in dist.files}
    assert "pyth/py.typed" in files
    assert any(p.endswith("licenses/LICENSE") for p in files), files


def test_installed_wheel_is_abi3():
    """The module is built against the stable ABI, and the wheel's tag says so: cp3X-abi3 for
    the Python that built it (pip install . builds a wheel first)."""
    assert os.path.basename(ffi_module_path()).endswith(".abi3.so")
    dist = _installed()
    tags = [line.split(": ", 1)[1] for line in dist.read_text("WHEEL").splitlines()
            if line.startswith("Tag: ")]
    python = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    assert tags and all(re.fullmatch(rf"{python}-abi3-(linux|manylinux)\w+", t)
                        for t in tags), tags


# -- the release build has no debug info -------------------------------------------------------

def _compile_args(env: dict[str, str]) -> tuple[list[str], list[str]]:
    """build_ffi.compile_args() under env, run from its source (importing build_ffi would run
    the preprocessor and need the build's dependencies)."""
    with open(os.path.join(ROOT, "build_ffi.py")) as f:
        tree = ast.parse(f.read())
    func = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and
                n.name == "compile_args")
    namespace: dict = {}
    exec(compile(ast.Module(body=[func], type_ignores=[]), "build_ffi.py", "exec"),
         {"os": _Environ(env), "shlex": __import__("shlex")}, namespace)
    return namespace["compile_args"]()


class _Environ:
    """os with the given environment, for _compile_args."""

    def __init__(self, env: dict[str, str]) -> None:
        self.environ = env


def _debug_level(flags: list[str]) -> str:
    """The -g option gcc ends up with ('' when none): the last one wins."""
    levels = [f for f in flags if re.fullmatch(r"-g\d?|-ggdb\d?", f)]
    return levels[-1] if levels else ""


def test_release_build_flags_drop_debug_info():
    cflags, ldflags = _compile_args({})
    # Python's CFLAGS (which setuptools puts first) hold -g: the release flags must undo it
    assert _debug_level(["-g"] + cflags) == "-g0" and _debug_level(["-g"] + ldflags) == "-g0"
    assert "-O3" in cflags and "-flto=auto" in ldflags
    # PYTH_CFLAGS comes last: it can bring debug info back
    assert _debug_level(["-g"] + _compile_args({"PYTH_CFLAGS": "-g"})[0]) == "-g"


@pytest.mark.parametrize("env, optimisation", [
    ({"PYTH_DEBUG": "1"}, "-O0"),
    ({"PYTH_SANITIZE": "address,undefined"}, "-O1"),
])
def test_debug_and_sanitized_builds_keep_debug_info(env, optimisation):
    cflags, _ = _compile_args(env)
    assert _debug_level(["-g"] + cflags) == "-g" and optimisation in cflags
    if "PYTH_SANITIZE" in env:
        assert "-fsanitize=address,undefined" in cflags


def test_release_flags_when_the_variables_are_off():
    assert _compile_args({"PYTH_DEBUG": "0", "PYTH_SANITIZE": ""}) == _compile_args({})


def ffi_module_path() -> str:
    return next(os.path.join(PACKAGE, n) for n in os.listdir(PACKAGE)
                if n.startswith("_th") and n.endswith(".so"))


def _sections(path: str) -> list[str]:
    """The section names of an ELF64 little-endian shared object."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:6] == b"\x7fELF\x02\x01", "not a 64-bit little-endian ELF file"
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = headers[shstrndx]
    names = data[strtab[4]:strtab[4] + strtab[5]]
    return [names[h[0]:names.index(b"\0", h[0])].decode() for h in headers]


def test_the_loaded_core_matches_its_build_flags():
    """A core built with the release flags (they end in -g0) carries no debug info; one built
    with -g (PYTH_DEBUG, sanitized) does."""
    info = ffi.string(lib.THGeneral_buildInfo()).decode()
    flags = info.split("flags: ", 1)[1].split()
    level = _debug_level(["-g"] + flags)   # Python's CFLAGS come first
    if "-g0" not in flags and not lib.THGeneral_isSanitized() and "-O0" not in flags:
        pytest.skip(f"a core built before the release flags dropped debug info ({info})")
    sections = _sections(ffi_module_path())
    assert ".text" in sections
    assert (".debug_info" in sections) == (level != "-g0"), (level, sections)


# -- importing pyth from a source tree without its core ----------------------------------------

def _copy_without_core(dest) -> str:
    """A copy of the package's Python files under dest, as a source tree without a build."""
    shutil.copytree(PACKAGE, os.path.join(dest, "pyth"),
                    ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    return os.path.join(dest, "pyth")


def _import_in(cwd) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-c", "import pyth"], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


FIXES = ("Run Python with -P (python -P ...; before Python 3.11, from another directory) to use "
         "the installed pyth instead, or build the core here: python setup.py build_ext --inplace")


def test_import_without_a_core_says_so_and_how_to_fix_it(tmp_path):
    package = _copy_without_core(tmp_path)
    r = _import_in(tmp_path)
    assert r.returncode == 1
    last = r.stderr.strip().splitlines()[-1]
    assert last == (f"ImportError: pyth: {package} has no compiled core (pyth/_th*.so). "
                    f"Importing pyth from a source tree? {FIXES}")
    assert "circular import" not in r.stderr  # the misleading guess is not shown


@pytest.mark.parametrize("content", [b"", b"not a shared object\n", b"\x7fELF\x02\x01\x01"])
def test_import_with_a_core_that_does_not_load(tmp_path, content):
    package = _copy_without_core(tmp_path)
    core = os.path.join(package, "_th.abi3.so")
    with open(core, "wb") as f:
        f.write(content)
    r = _import_in(tmp_path)
    assert r.returncode == 1
    last = r.stderr.strip().splitlines()[-1]
    assert re.fullmatch(rf"ImportError: pyth: {re.escape(core)} does not load \(.+\)\. "
                        rf"Importing pyth from a source tree\? {re.escape(FIXES)}", last), last
    # the loader's own reason stays in the chain
    assert "The above exception was the direct cause" in r.stderr
