"""The device questions against a CPU-only PyTorch build: pyth.cuda, pyth.accelerator, pyth.mps,
pyth.xpu, pyth.backends and the tensor and module conversions answer as it does (values,
exception types and messages, with pyth's name where PyTorch's names itself), and every
backend flag can be set and read back with PyTorch's checks."""

from __future__ import annotations

import collections
import importlib
import os
import subprocess
import sys
import warnings

import pytest

import pyth

torch = pytest.importorskip("torch")


def outcome(lib, expr: str):
    """('value', v) or ('raises', type name, message with PyTorch's name made pyth's)."""
    env = {"lib": lib, "t": lib.ones(2), "m": lib.nn.Linear(2, 2)}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = eval(expr, env)
    except BaseException as e:  # noqa: BLE001  (the oracle compares every kind)
        message = str(e).replace("PyTorch", "pyth").replace("Torch", "pyth").replace(
            "torch.", "pyth.")
        return ("raises", type(e).__name__, message)
    if isinstance(value, (lib.device,)):
        value = repr(value)
    return ("value", value)


SAME = [
    # pyth.cuda
    "lib.cuda.is_available()", "lib.cuda.device_count()", "lib.cuda.is_initialized()",
    "lib.cuda.manual_seed(1)", "lib.cuda.manual_seed_all(7)", "lib.cuda.manual_seed('x')",
    "lib.cuda.seed()", "lib.cuda.seed_all()", "lib.cuda.initial_seed()",
    "lib.cuda.current_device()", "lib.cuda.get_device_name()", "lib.cuda.get_device_name(0)",
    "lib.cuda.get_device_capability()", "lib.cuda.get_device_properties(0)",
    "lib.cuda.synchronize()", "lib.cuda.empty_cache()", "lib.cuda.memory_allocated()",
    "lib.cuda.max_memory_allocated()", "lib.cuda.memory_reserved()",
    "lib.cuda.max_memory_reserved()", "lib.cuda.memory_stats()", "lib.cuda.is_bf16_supported()",
    "lib.cuda.is_tf32_supported()", "lib.cuda.init()", "lib.cuda.get_rng_state()",
    "lib.cuda.get_rng_state_all()", "lib.cuda.set_rng_state_all([])", "lib.cuda.get_arch_list()",
    "lib.cuda.get_gencode_flags()", "lib.cuda.current_stream()", "lib.cuda.default_stream()",
    "lib.cuda.mem_get_info()", "lib.cuda.ipc_collect()", "lib.cuda.Stream()",
    "lib.cuda.Event()", "lib.cuda.FloatTensor(2)", "lib.cuda.LongTensor([1])",
    "isinstance(t, lib.cuda.FloatTensor)", "lib.cuda.device(0).idx",
    "lib.cuda.device('cuda:1').idx", "lib.cuda.device(None).idx", "lib.cuda.device('cpu')",
    "lib.cuda.device(0).__enter__()", "lib.cuda.device_of(t).__enter__()",
    "issubclass(lib.cuda.OutOfMemoryError, RuntimeError)",
    "lib.cuda.set_per_process_memory_fraction(0.5)", "lib.cuda.synchronize(foo=1)",
    "lib.cuda.current_device(0)", "lib.cuda.get_device_name(0, 1)",
    # pyth.cuda.amp (disabled without CUDA)
    "lib.cuda.amp.GradScaler().is_enabled()", "lib.cuda.amp.GradScaler().get_scale()",
    "lib.cuda.amp.GradScaler().state_dict()", "lib.cuda.amp.GradScaler().scale(3.0)",
    "lib.cuda.amp.GradScaler().update()", "lib.cuda.amp.autocast()._enabled",
    "lib.cuda.amp.autocast().device", "lib.cuda.amp.autocast().__enter__() is not None",
    # pyth.accelerator
    "lib.accelerator.is_available()", "lib.accelerator.current_accelerator()",
    "lib.accelerator.current_accelerator(True)", "lib.accelerator.device_count()",
    "lib.accelerator.current_device_index()", "lib.accelerator.set_device_index(0)",
    "lib.accelerator.synchronize()", "lib.accelerator.current_stream()",
    "lib.accelerator.empty_cache()", "lib.accelerator.memory_allocated()",
    "lib.accelerator.max_memory_allocated()", "lib.accelerator.memory_reserved()",
    "lib.accelerator.max_memory_reserved()", "lib.accelerator.memory_stats()",
    "lib.accelerator.reset_peak_memory_stats()", "lib.accelerator.get_memory_info()",
    "lib.accelerator.reset_accumulated_memory_stats()",
    "lib.accelerator.get_device_capability()", "lib.accelerator.current_device_idx()",
    "lib.accelerator.set_device_idx(0)", "lib.accelerator.device_index(None).__enter__()",
    "lib.accelerator.device_index(0).__enter__()", "lib.accelerator.memory_allocated(0, 1)",
    # pyth.mps, pyth.xpu
    "lib.mps.is_available()", "lib.mps.device_count()", "lib.mps.manual_seed(3)",
    "lib.mps.seed()", "lib.mps.synchronize()", "lib.mps.empty_cache()",
    "lib.mps.get_rng_state()", "lib.mps.current_allocated_memory()",
    "lib.mps.driver_allocated_memory()", "lib.mps.recommended_max_memory()",
    "lib.xpu.is_available()", "lib.xpu.device_count()", "lib.xpu.manual_seed(1)",
    "lib.xpu.manual_seed_all(1)", "lib.xpu.seed()", "lib.xpu.synchronize()",
    "lib.xpu.current_device()", "lib.xpu.get_device_name()", "lib.xpu.empty_cache()",
    "lib.xpu.memory_allocated()", "lib.xpu.is_bf16_supported()", "lib.xpu.get_rng_state()",
    "lib.xpu.is_initialized()", "lib.xpu.synchronize(foo=1)",
    # pyth.backends: the answers and the defaults
    "lib.backends.cudnn.is_available()", "lib.backends.cudnn.version()",
    "lib.backends.cudnn.is_acceptable(t)", "lib.backends.cudnn.enabled",
    "lib.backends.cudnn.benchmark", "lib.backends.cudnn.deterministic",
    "lib.backends.cudnn.allow_tf32", "lib.backends.cudnn.benchmark_limit",
    "lib.backends.mps.is_available()", "lib.backends.mps.is_built()",
    "lib.backends.mps.is_macos13_or_newer()", "lib.backends.openmp.is_available()",
    "lib.backends.mkldnn.enabled", "lib.backends.mkldnn.deterministic",
    "lib.backends.cuda.is_built()", "lib.backends.cuda.matmul.allow_tf32",
    "lib.backends.cuda.matmul.allow_fp16_reduced_precision_reduction",
    "lib.backends.cuda.matmul.allow_bf16_reduced_precision_reduction",
    "lib.backends.cuda.matmul.foo", "lib.backends.cuda.flash_sdp_enabled()",
    "lib.backends.cuda.mem_efficient_sdp_enabled()", "lib.backends.cuda.math_sdp_enabled()",
    "lib.backends.cuda.cudnn_sdp_enabled()",
    "lib.backends.mha.get_fastpath_enabled()", "lib.backends.opt_einsum.is_available()",
    "lib.backends.opt_einsum.get_opt_einsum()", "lib.backends.opt_einsum.enabled",
    "lib.backends.opt_einsum.strategy", "lib.backends.cusparselt.is_available()",
    "lib.backends.cusparselt.version()",
    "lib.get_float32_matmul_precision()", "lib.are_deterministic_algorithms_enabled()",
    "lib.is_deterministic_algorithms_warn_only_enabled()",
    "lib.get_deterministic_debug_mode()",
    # flags refuse what PyTorch's refuse
    "setattr(lib.backends.cudnn, 'benchmark', 'x')", "setattr(lib.backends.cudnn, 'enabled', 1)",
    "setattr(lib.backends.cudnn, 'deterministic', 1)",
    "setattr(lib.backends.cudnn, 'allow_tf32', None)",
    "setattr(lib.backends.mkldnn, 'enabled', 'x')",
    "setattr(lib.backends.mkldnn, 'deterministic', 1)",
    "setattr(lib.backends.cuda.matmul, 'allow_tf32', 1)",
    "setattr(lib.backends.cuda.matmul, 'allow_fp16_reduced_precision_reduction', 1)",
    "setattr(lib.backends.cuda.matmul, 'foo', True)",
    "lib.set_float32_matmul_precision(1)", "lib.use_deterministic_algorithms(1)",
    "lib.use_deterministic_algorithms(True, warn_only=1)",
    "lib.set_deterministic_debug_mode('x')", "lib.set_deterministic_debug_mode(5)",
    "lib.set_deterministic_debug_mode(1.0)",
    # the build's versions
    "lib.version.cuda", "lib.version.hip", "lib.version.rocm", "lib.version.xpu",
    "lib.version.debug", "lib.version.__version__ == lib.__version__",
    # tensors and modules on a device
    "t.cuda()", "t.cuda(0)", "t.cuda('cpu')", "t.cuda(lib.device('cuda'))",
    "t.cuda(device='cuda:0')", "t.cuda(non_blocking=True)", "t.cuda(foo=1)",
    "t.xpu(foo=1)", "t.to('cuda')", "t.to('cuda:1')",
    "t.to(device='cuda')", "t.to(lib.device('cuda', 0))", "t.to('cuda', lib.float64)",
    "t.to(0)", "t.to('mps')", "t.to('xpu')", "t.to('hip')", "t.to('vulkan')", "t.xpu()",
    "t.xpu(0)", "t.xpu('cpu')", "t.pin_memory()", "t.is_pinned()", "t.is_cuda",
    "t.get_device()", "t.is_mps", "t.is_xpu", "t.is_meta", "t.to('cpu:1').tolist()",
    "lib.zeros(2, device='cuda')", "lib.zeros(2, device='cuda:0')",
    "lib.zeros(2, device=lib.device('cuda', 0))", "lib.ones(2, device='xpu')",
    "lib.tensor([1.], device='cuda')", "lib.tensor([1.], device='mps')",
    "lib.randn(3, device='cuda')", "lib.zeros(2, device=0)",
    "m.cuda()", "m.cuda('cpu')", "m.cuda(0)", "m.xpu()", "m.to('cuda')", "m.to('mps')",
    "m.to(device='cuda:0')", "m.to('cuda:0', lib.float64)", "m.to(0)",
    # device objects: naming one is fine
    "lib.device('cuda')", "lib.device('cuda:0')", "lib.device('cuda', 1)", "lib.device('mps')",
    "lib.device('cuda').type", "lib.device('cuda').index", "lib.device(0)", "lib.device(-1)",
    "lib.device('cuda', -1)", "lib.device('cuda:-1')", "lib.device('cuda:x')",
    "lib.device('cuda:0', 1)", "lib.device('foo').type",
]


@pytest.mark.parametrize("expr", SAME)
def test_answers_as_a_cpu_build(expr):
    assert outcome(pyth, expr) == outcome(torch, expr)


# Where pyth's answer is its own, on purpose
OWN = {
    # pyth has no oneDNN and no MKL (PyTorch's CPU build has both): the truth
    "lib.backends.mkldnn.is_available()": ("value", False),
    "lib.backends.mkl.is_available()": ("value", False),
    "lib.backends.nnpack.is_available()": ("value", False),
    # a factory finds no kernel for the backend; pyth says it runs on the CPU only
    "lib.zeros(2, device='mps')": ("raises", "NotImplementedError",
                                    "Could not run 'zeros' with arguments from the 'MPS' "
                                    "backend: pyth runs on the CPU only"),
    # PyTorch's CPU build reaches a missing C function here (an AttributeError of torch._C)
    "lib.cuda.reset_peak_memory_stats()": ("raises", "AssertionError",
                                           "pyth not compiled with CUDA enabled"),
    "lib.cuda.set_device(0)": ("raises", "AssertionError", "pyth not compiled with CUDA enabled"),
    # pyth tells its meta-less build apart (PyTorch makes a meta tensor)
    "t.to('meta')": ("raises", "RuntimeError", "pyth is not linked with support for meta devices"),
}


@pytest.mark.parametrize("expr", sorted(OWN))
def test_pyth_answers_its_own(expr):
    assert outcome(pyth, expr) == OWN[expr]


def test_the_oracle_can_fail():
    assert outcome(pyth, "lib.cuda.current_device()") != outcome(pyth, "lib.cuda.device_count()")
    assert outcome(torch, "lib.cuda.current_device()")[:2] == ("raises", "AssertionError")


def test_the_device_selection_of_the_examples():
    """The official examples' device pick gives the CPU, and the program runs there."""
    for lib in (torch, pyth):
        device = (lib.accelerator.current_accelerator().type if lib.accelerator.is_available()
                  else "cpu")
        assert device == "cpu"
        dev = lib.device("cuda" if lib.cuda.is_available() else "cpu")
        x = lib.ones(2, 3, device=dev).to(dev)
        assert x.device == lib.device("cpu") and x.device.type == "cpu"


@pytest.mark.parametrize("module, flags", [
    ("backends.cudnn", ("enabled", "benchmark", "deterministic", "allow_tf32")),
    ("backends.mkldnn", ("enabled", "deterministic")),
    ("backends.cuda.matmul", ("allow_tf32", "allow_fp16_reduced_precision_reduction",
                              "allow_bf16_reduced_precision_reduction")),
])
def test_flags_set_and_read_back(module, flags):
    for lib in (torch, pyth):
        m = lib
        for part in module.split("."):
            m = getattr(m, part)
        for flag in flags:
            old = getattr(m, flag)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    for value in (not old, old):
                        setattr(m, flag, value)
                        assert getattr(m, flag) is value, (lib.__name__, flag)
                finally:
                    setattr(m, flag, old)


def test_cudnn_flags_context_restores():
    for lib in (torch, pyth):
        cudnn = importlib.import_module(f"{lib.__name__}.backends.cudnn")
        with cudnn.flags(enabled=False, benchmark=True, deterministic=True):
            assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic) == (False, True, True)
        assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic) == (True, False, False)
        cudnn.benchmark_limit = 5
        assert cudnn.benchmark_limit == 5
        cudnn.benchmark_limit = None
        mkldnn = lib.backends.mkldnn
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with mkldnn.flags(enabled=False):
                assert mkldnn.enabled is False
        assert mkldnn.enabled is True


def test_small_backend_switches():
    for lib in (torch, pyth):
        b = lib.backends
        b.mha.set_fastpath_enabled(False)
        assert b.mha.get_fastpath_enabled() is False
        b.mha.set_fastpath_enabled(True)
        assert b.nnpack.set_flags(False) == (True,)
        with b.nnpack.flags(enabled=True):
            assert b.nnpack.set_flags(True) == (True,)
        assert b.nnpack.set_flags(True) == (False,)
        b.opt_einsum.strategy = "greedy"
        assert b.opt_einsum.strategy == "greedy"
        b.opt_einsum.strategy = None


def test_cudnn_module_takes_any_new_attribute():
    for lib in (torch, pyth):
        lib.backends.cudnn.some_setting = 3
        assert lib.backends.cudnn.some_setting == 3
        del lib.backends.cudnn.some_setting


def _precision_states(lib):
    seen = []
    for p in ("high", "medium", "highest"):
        lib.set_float32_matmul_precision(p)
        seen.append((lib.get_float32_matmul_precision(), lib.backends.cuda.matmul.allow_tf32))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        lib.set_float32_matmul_precision("foo")
    seen.append((lib.get_float32_matmul_precision(), [x.category for x in w]))
    return seen


def test_matmul_precision_and_allow_tf32():
    assert _precision_states(pyth) == _precision_states(torch)
    pyth.backends.cuda.matmul.allow_tf32 = True
    assert pyth.get_float32_matmul_precision() == "high"
    pyth.backends.cuda.matmul.allow_tf32 = False
    assert pyth.get_float32_matmul_precision() == "highest"


def _determinism_states(lib):
    seen = []
    for call in ((True,), (True, True), (False,)):
        lib.use_deterministic_algorithms(call[0], warn_only=call[1] if len(call) > 1 else False)
        seen.append((lib.are_deterministic_algorithms_enabled(),
                     lib.is_deterministic_algorithms_warn_only_enabled(),
                     lib.get_deterministic_debug_mode(), lib.backends.cudnn.deterministic))
    for mode in (0, 1, 2, "default", "warn", "error", True, 0):
        lib.set_deterministic_debug_mode(mode)
        seen.append((lib.are_deterministic_algorithms_enabled(),
                     lib.is_deterministic_algorithms_warn_only_enabled(),
                     lib.get_deterministic_debug_mode()))
    return seen


def test_deterministic_algorithms():
    assert _determinism_states(pyth) == _determinism_states(torch)


def test_sdp_switches():
    for lib in (torch, pyth):
        b = lib.backends.cuda
        for kind in ("flash", "mem_efficient", "math", "cudnn"):
            getattr(b, f"enable_{kind}_sdp")(False)
            assert getattr(b, f"{kind}_sdp_enabled")() is False
            getattr(b, f"enable_{kind}_sdp")(True)
            assert getattr(b, f"{kind}_sdp_enabled")() is True
        with pytest.raises(RuntimeError, match="expects a bool, but got int"):
            b.enable_flash_sdp(1)


def _warned(make):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        made = make()
    return made, [(x.category, str(x.message).split()[0]) for x in w]


def test_amp_disables_itself_with_pytorchs_warnings():
    for lib in (torch, pyth):
        scaler, w = _warned(lambda: lib.cuda.amp.GradScaler())
        assert [c for c, _ in w] == [FutureWarning, UserWarning]
        _, w = _warned(lambda: lib.cuda.amp.GradScaler(enabled=False))
        assert [c for c, _ in w] == [FutureWarning]
        ac, w = _warned(lambda: lib.cuda.amp.autocast(dtype=lib.bfloat16))
        assert [c for c, _ in w] == [FutureWarning, UserWarning] and ac.fast_dtype is lib.bfloat16


def test_amp_training_step_runs_in_full_precision():
    """A mixed-precision loop written for CUDA: the scaler is a pass-through, autocast changes
    no dtype, the step is the optimizer's."""
    results = []
    for lib in (torch, pyth):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scaler = lib.cuda.amp.GradScaler()
            with lib.cuda.amp.autocast():
                loss = (w * w).sum()
            assert loss.dtype is lib.float32
            scaled = scaler.scale(loss)
            assert scaled is loss and scaler.scale([loss, loss]) == [loss, loss]
            scaled.backward()
            scaler.unscale_(opt)
            assert scaler.step(opt) is None
            scaler.update()

            @lib.cuda.amp.autocast()
            def double(x):
                return x * 2
        results.append((w.tolist(), double(w).tolist(), scaler.get_scale(), scaler.state_dict()))
    assert results[0] == results[1]


def test_cuda_memory_stats_is_an_empty_ordered_dict():
    assert pyth.cuda.memory_stats() == collections.OrderedDict() == torch.cuda.memory_stats()
    assert type(pyth.cuda.memory_stats()) is collections.OrderedDict


def _run(code: str) -> str:
    """What code prints in a child Python on this pyth (-P: from the checkout's root the
    source tree's pyth, which has no core, would come first)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(pyth.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (root, os.environ.get("PYTHONPATH")) if p))
    out = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                         timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_import_forms():
    """The import lines of PyTorch programs, in a fresh interpreter (the device modules load
    on first use)."""
    code = ("import pyth.backends.cudnn as cudnn\n"
            "from pyth.cuda.amp import GradScaler, autocast\n"
            "from pyth.backends import mps, openmp\n"
            "import pyth.accelerator\n"
            "from pyth import cuda\n"
            "cudnn.benchmark = True\n"
            "import pyth\n"
            "assert pyth.backends.cudnn.benchmark is True and not cuda.is_available()\n"
            "assert pyth.cuda.amp.GradScaler is GradScaler and not mps.is_available()\n"
            "print(openmp.is_available(), pyth.accelerator.device_count())\n")
    assert _run(code) == "True 0\n"


def test_import_pyth_loads_no_device_module():
    """The device modules (and autograd.functional) load on first use."""
    code = ("import sys, pyth\n"
            "print(sorted(m for m in sys.modules if m.split('.')[:2] in (['pyth', 'cuda'], "
            "['pyth', 'backends'], ['pyth', 'accelerator'], ['pyth', 'mps'], ['pyth', 'xpu']) "
            "or m == 'pyth.autograd.functional'))")
    assert _run(code) == "[]\n"
