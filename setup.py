"""Build pyth: the cffi extension pyth._th (see build_ffi.py) plus the Python package."""

from __future__ import annotations

import os
import platform
import sys
import sysconfig
from concurrent.futures import ThreadPoolExecutor

from setuptools import setup


def _cost(src: str) -> int:
    """A source's expected compile time: its size plus that of the generic file it stamps."""
    generic = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(src))), "generic",
                           os.path.basename(src))
    return os.path.getsize(src) + (os.path.getsize(generic) if os.path.exists(generic) else 0)


def _compile_in_parallel() -> None:
    """Compile one extension's C sources on every core, largest first.

    setuptools compiles the sources of an extension one after another (its -j splits only
    between extensions), and pyth is one extension of about twenty sources, a few of which
    stamp every kernel for ten types: on two cores this halves the build. Set
    PYTH_BUILD_JOBS=1 to compile serially.
    """
    try:
        from setuptools._distutils import ccompiler
    except ImportError:  # a setuptools without its own distutils: keep its serial compile
        return
    jobs = int(os.environ.get("PYTH_BUILD_JOBS", "0") or 0) or os.cpu_count() or 1
    serial = ccompiler.CCompiler.compile
    if jobs < 2 or not hasattr(ccompiler.CCompiler, "_setup_compile"):
        return

    def compile(self, sources, output_dir=None, macros=None, include_dirs=None, debug=0,
                extra_preargs=None, extra_postargs=None, depends=None):
        macros, objects, extra_postargs, pp_opts, build = self._setup_compile(
            output_dir, macros, include_dirs, sources, depends, extra_postargs)
        cc_args = self._get_cc_args(pp_opts, debug, extra_preargs)
        todo = [obj for obj in objects if obj in build]
        todo.sort(key=lambda obj: -_cost(build[obj][0]))

        def one(obj):
            src, ext = build[obj]
            self._compile(obj, src, ext, cc_args, extra_postargs, pp_opts)

        with ThreadPoolExecutor(jobs) as pool:
            list(pool.map(one, todo))  # list(): re-raises a CompileError
        return objects

    compile.__doc__ = serial.__doc__
    ccompiler.CCompiler.compile = compile


def _wheel_options() -> dict:
    """bdist_wheel's options: an abi3 tag (cp311-abi3-... from a 3.11) where the module is abi3.

    cffi compiles pyth._th against CPython's stable ABI (the module is _th.abi3.so), so one
    wheel serves the Python that built it and every later one; the tag names the building
    Python as the oldest. Free-threaded CPython and other interpreters have no stable ABI:
    their wheels keep the interpreter's own tag.
    """
    if platform.python_implementation() != "CPython" or sysconfig.get_config_var(
            "Py_GIL_DISABLED"):
        return {}
    return {"bdist_wheel": {"py_limited_api": f"cp{sys.version_info[0]}{sys.version_info[1]}"}}


_compile_in_parallel()

setup(
    cffi_modules=["build_ffi.py:ffibuilder"],
    options=_wheel_options(),
)
