"""cffi builder for pyth._th: derives the declarations from the C headers and compiles the core.

The cdef is not written by hand: the preprocessor expands lib/TH.h (with TH_CDEF defined, which
hides system includes, inline bodies and C11 atomics) into plain declarations for every stamped
type, and those declarations are what cffi binds. The headers are the single source of truth.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from glob import glob

from cffi import FFI

HERE = os.path.dirname(os.path.abspath(__file__))
# setuptools wants source paths relative to setup.py.
SOURCES = sorted(
    os.path.relpath(p, HERE) for p in glob(os.path.join(HERE, "lib", "*.c"))
)
INCLUDE_DIRS = ["lib", "."]
# Headers and generic sources: a change to any of them rebuilds the extension.
DEPENDS = sorted(
    os.path.relpath(p, HERE)
    for pattern in ("lib/*.h", "generic/*")
    for p in glob(os.path.join(HERE, pattern))
)

# Declarations pyth's Python layer adds: callbacks implemented in Python.
PYTHON_CALLBACKS = """
extern "Python" void pyth_release_owner(void *owner);
"""


# The module's own C: the core's header, and the hook that makes every call from Python a call
# section (lib/THGeneral.h, THCall_enter). cffi's wrapper of each function runs
# _cffi_restore_errno() right after releasing the GIL and _cffi_save_errno() right before
# retaking it; both macros are redefined to also enter and leave the section.
CALL_SECTIONS = r"""
#include "TH.h"

static int pyth_gil_take(void) { return (int)PyGILState_Ensure(); }
static void pyth_gil_give(int state) { PyGILState_Release((PyGILState_STATE)state); }
static void pyth_restore_errno(void) { _cffi_restore_errno(); }
static void pyth_save_errno(void) { _cffi_save_errno(); }
#undef _cffi_restore_errno
#undef _cffi_save_errno
#define _cffi_restore_errno() (THCall_enter(pyth_gil_take, pyth_gil_give), pyth_restore_errno())
#define _cffi_save_errno() (pyth_save_errno(), THCall_leave())
"""


def preprocessed_header() -> str:
    """Run the C preprocessor over lib/TH.h in cdef mode and return the declarations."""
    cc = os.environ.get("CC", "gcc").split()
    cmd = cc + ["-E", "-P", "-std=c11", "-DTH_CDEF", "-Ilib", "-I.", "lib/TH.h"]
    out = subprocess.run(cmd, cwd=HERE, check=True, capture_output=True, text=True).stdout
    out = re.sub(r"__attribute__\s*\(\(.*?\)\)", "", out)
    return "\n".join(line for line in out.splitlines() if line.strip()) + "\n"


def compile_args() -> tuple[list[str], list[str]]:
    """Compiler and linker flags: optimised without debug info by default, or sanitized
    (PYTH_SANITIZE) / unoptimised with debug info (PYTH_DEBUG=1) on request."""
    # -fno-math-errno: math functions never set errno, so loops calling them vectorise (libmvec)
    # -fno-semantic-interposition and -Bsymbolic-functions: the core's calls to its own
    # exported functions (THShape_numel, THStorage_new, ...) bind inside the library, direct
    # (and inlinable) instead of through the PLT; nothing is meant to interpose them
    common = ["-std=c11", "-Wall", "-Wextra", "-fopenmp", "-D_GNU_SOURCE", "-fno-math-errno",
              "-fno-semantic-interposition"]
    link = ["-fopenmp", "-lmvec", "-lm", "-Wl,-Bsymbolic-functions"]
    sanitize = os.environ.get("PYTH_SANITIZE", "").strip()
    if sanitize:
        flags = [f"-fsanitize={sanitize}", "-fno-omit-frame-pointer", "-fno-sanitize-recover=all"]
        # Python's own CFLAGS, which setuptools passes first, hold -fwrapv: signed overflow
        # defined as wrapping, which UBSan then never reports. -fno-wrapv (later on the
        # command line, so it wins) makes the sanitized core check every signed add, multiply
        # and negation.
        return common + ["-O1", "-g", "-fno-wrapv"] + flags, link + flags
    if os.environ.get("PYTH_DEBUG", "") not in ("", "0"):
        return common + ["-O0", "-g"], link
    extra = shlex.split(os.environ.get("PYTH_CFLAGS", ""))
    # link-time optimisation: the small functions every op passes through (shape checks, the
    # struct cache, call sections) live in other files than the ops and inline only at link
    lto = ["-O3", "-flto=auto"]
    # -g0: no debug info in a release build (Python's own CFLAGS, which come first, hold -g:
    # that quadruples the module's size); at the link too, where LTO generates the code.
    # PYTH_DEBUG=1 keeps it, and PYTH_CFLAGS (last) can bring -g back
    return common + lto + ["-g0"] + extra, link + lto + ["-g0"]


def openblas() -> dict:
    """Compiler and linker settings for OpenBLAS from the scipy-openblas32 package.

    Only the headers and the link step use the package's paths: at run time pyth loads the
    library from the installed scipy_openblas32 (pyth/_openblas.py), since pip builds in an
    isolated environment that is deleted afterwards and an rpath into it would point nowhere.
    """
    try:
        import scipy_openblas32 as ob
    except ImportError as e:  # pragma: no cover - a build without the build requirement
        raise RuntimeError("building pyth needs the scipy-openblas32 package "
                           "(pip install scipy-openblas32)") from e
    return {
        "include_dirs": [ob.get_include_dir()],
        "library_dirs": [ob.get_lib_dir()],
        "libraries": [ob.get_library()],
        "define_macros": [("BLAS_SYMBOL_PREFIX", "scipy_")],
    }


def make_builder() -> FFI:
    """The FFI object setuptools builds (see setup.py's cffi_modules)."""
    builder = FFI()
    builder.cdef(preprocessed_header() + PYTHON_CALLBACKS)
    cflags, ldflags = compile_args()
    blas = openblas()
    builder.set_source(
        "pyth._th",
        CALL_SECTIONS,
        sources=SOURCES,
        include_dirs=INCLUDE_DIRS + blas["include_dirs"],
        depends=DEPENDS,
        library_dirs=blas["library_dirs"],
        libraries=blas["libraries"],
        define_macros=blas["define_macros"],
        extra_compile_args=cflags + [f"-DTH_BUILD_FLAGS={json.dumps(' '.join(cflags))}"],
        extra_link_args=ldflags,
    )
    return builder


if __name__ == "__main__" and sys.argv[1:] == ["--cdef"]:
    sys.stdout.write(preprocessed_header())
else:
    ffibuilder = make_builder()
    if __name__ == "__main__":
        ffibuilder.compile(verbose=True)
