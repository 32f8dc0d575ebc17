"""pyth: a tensor library in the legacy Torch TH tradition.

A C core (lib/, generic/) stamps THStorage and THTensor for ten element types with the
preprocessor; cffi exposes it as pyth._th; this package wraps the handles in PyTorch-style
classes.
"""

import sys as _sys

from . import _openmp
from . import _openblas  # noqa: F401  (loads OpenBLAS before pyth._th, which links to it)
_openmp.loading()
try:
    from . import _th  # noqa: F401  (loads libgomp, which reads GOMP_SPINCOUNT now)
except ImportError as _e:
    # a source tree without a built core (or with one that does not load): say so, and how to
    # fix it, instead of Python's "partially initialized module" (a circular import, it guesses)
    import glob as _glob
    import os as _os
    _here = _os.path.dirname(_os.path.abspath(__file__))
    _cores = _glob.glob(_os.path.join(_here, "_th*.so"))
    _what = (f"{_cores[0]} does not load ({_e})" if _cores else
             f"{_here} has no compiled core (pyth/_th*.so)")
    raise ImportError(f"pyth: {_what}. Importing pyth from a source tree? Run Python with -P "
                      "(python -P ...; before Python 3.11, from another directory) to use the "
                      "installed pyth instead, or build the core here: "
                      "python setup.py build_ext --inplace") from (_e if _cores else None)
finally:
    _openmp.restore()
from . import _numpy  # noqa: F401  (registers the callback that releases borrowed arrays)
from ._size import Size
from .dtypes import (ALL_DTYPES, bfloat16, dtype, float16, float32, float64, get_default_dtype,
                     int8, int16, int32, int64, set_default_dtype, uint8)
from .dtypes import bool_ as bool  # noqa: A001  (pyth.bool, as torch.bool)
from ._prims.creation import (arange, empty, empty_like, eye, from_numpy, full, full_like, linspace,
                              logspace, ones, ones_like, tensor, zeros, zeros_like)
from .memory import memory_stats
from .random import (Generator, bernoulli, default_generator, get_rng_state, initial_seed,  # noqa: F401
                     manual_seed, multinomial, normal, rand, rand_like, randint, randint_like,
                     randn, randn_like, randperm, seed, set_rng_state)
from ._promotion import can_cast, promote_types, result_type
from .storage import Storage
from .threads import get_grain_size, get_num_threads, set_grain_size, set_num_threads
from .tensor import Tensor
from . import _bind
_bind.kernel_methods()

# legacy aliases
byte, char, short, int, long = uint8, int8, int16, int32, int64  # noqa: A001
float, double, half = float32, float64, float16  # noqa: A001

for _d in ALL_DTYPES:
    globals()[_d.tensor_class.__name__] = _d.tensor_class
    globals()[_d.storage_class.__name__] = _d.storage_class
del _d

from . import autograd  # noqa: E402
from .autograd import recorded as _recorded  # noqa: E402
# the kernel-backed functions, each differentiable one in its recorded form
for _table in (_recorded.SORTING, _recorded.POINTWISE, _recorded.INDEXING, _recorded.SHAPE,
               _recorded.MATMUL, _recorded.LINALG_TOPLEVEL, _recorded.REDUCTIONS):
    globals().update(_table)
del _table
_bind.autograd_methods()
_bind.recorded_methods()
_bind.requires_grad_factories(globals())
from .autograd import (enable_grad, inference_mode, is_grad_enabled,  # noqa: E402
                       is_inference_mode_enabled, no_grad, set_grad_enabled)

from . import linalg, nn  # noqa: E402

__version__ = "0.1.0"

# the composed ops (pyth/_refs), gathered by pyth/_bind.py
globals().update(_bind.composed())
from .device import device  # noqa: E402,F401

_bind.requires_grad_factories(globals())  # again: composed() replaced some factories

# checkpoints, DLPack, data loading and multiprocessing
from .serialization import load, save  # noqa: E402
from .utils.dlpack import from_dlpack  # noqa: E402
from . import utils, multiprocessing  # noqa: E402,F401
from . import optim  # noqa: E402,F401  (optimizers and schedulers)
from . import distributions  # noqa: E402,F401  (probability distributions)
from ._dynamo.eval_frame import compile  # noqa: E402,A001  (pyth.compile, docs/compile.md)

# the public namespaces, by which code below the facade names a function (pyth.overrides)
from . import overrides  # noqa: E402
overrides.NAMESPACES.update({"pyth": _sys.modules[__name__], "pyth.nn.functional": nn.functional,
                             "pyth.linalg": linalg})

# pyth.cuda, pyth.backends, ... (the device questions, docs/tensors.md) load on first use; a
# PyTorch name pyth lacks says so
__getattr__ = _bind.facade_getattr(__name__)
