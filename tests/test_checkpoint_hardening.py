"""Checkpoints from an untrusted source: forged PyTorch pickles, safe_open misuse, truncation.

- forged pickles: BUILD / SETITEM(S) / APPEND(S) / ADDITEMS on the allowed globals (dtypes,
  storage types, rebuild functions, OrderedDict) are refused with pickle.UnpicklingError, as
  torch.load(weights_only=True) refuses them, and leave the process-wide objects unchanged;
  the cases that once overflowed the heap run in a child.
- a fuzzer over the PyTorch-zip unpickler: random opcode streams built from the allowed globals,
  BUILD/SETITEMS states on every allowed global, and byte mutations of real checkpoints (written
  by torch.save when torch is installed, assembled by hand otherwise). Every load either
  succeeds, the same way twice, or raises RuntimeError; an honest checkpoint still loads right
  after each attempt.
- safe_open after close(), and files truncated underneath a mapping (in children).
"""

from __future__ import annotations

import collections
import io
import os
import pickle
import struct
import subprocess
import sys
import textwrap
import zipfile
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import pyth
from _pickle_forge import (G, HONEST, HONEST_VALUES, as_zip, assert_unchanged, build_on,
                           check_honest, enc, load_bytes, reduce_, tensor_op)
from pyth import _torch_format as tf
from pyth.serialization import _raw

try:
    import torch
except ImportError:
    torch = None


def _allowed_names() -> list:
    return sorted(tf._ALLOWED)


def test_honest_by_hand_checkpoint_loads_in_torch_and_pyth():
    check_honest(load_bytes(HONEST))
    if torch is not None:
        out = torch.load(io.BytesIO(HONEST), weights_only=True)
        np.testing.assert_array_equal(out["w"].numpy(), HONEST_VALUES)


_CHILD_PATH = os.pathsep.join([os.path.dirname(os.path.dirname(pyth.__file__))]
                              + [p for p in sys.path if p])


def run_child(code: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """code in a fresh interpreter importing this pyth (the sanitized one under ASan) and this
    file's helpers; a crash (heap overflow, SIGBUS) shows as its return code."""
    env = dict(os.environ, PYTHONPATH=_CHILD_PATH)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args],
                          capture_output=True, text=True, timeout=timeout, env=env,
                          cwd=os.path.dirname(os.path.abspath(__file__)))


_ATTACK_CHILD = """
import io, pickle, sys
import pyth
import _pickle_forge as h
forged = h.as_zip(h.build_on(h.enc(h.G("torch", sys.argv[1])), eval(sys.argv[2])))
try:
    pyth.load(io.BytesIO(forged))
except pickle.UnpicklingError as e:
    assert isinstance(e, RuntimeError), type(e).__mro__
    print("refused:", e)
else:
    raise SystemExit("the forged checkpoint loaded")
h.assert_unchanged()  # the next FloatStorage read, 4,000 bytes, and its values
from pyth.utils import safetensors as st
out = st.load(st.save({"a": pyth.arange(1000, dtype=pyth.float32)}))
assert out["a"].tolist() == list(range(1000))
print("ok")
"""


@pytest.mark.parametrize("name,state,words", [
    ("float32", "{'itemsize': 64}", "BUILD on the allowed global pyth.float32"),
    ("float32", "(None, {'itemsize': 64})", "BUILD on the allowed global pyth.float32"),
    ("FloatStorage", "{'dtype': h.G('torch', 'int32')}", "BUILD on the allowed global torch"),
    ("FloatStorage", "(None, {'dtype': h.G('torch', 'int32')})", "BUILD on the allowed global"),
])
def test_build_on_a_dtype_or_storage_type_is_refused_in_a_child(name, state, words):
    """torch.float32 given {"itemsize": 64} made the next FloatStorage read 64,000 bytes into a
    4,000-byte block; torch.FloatStorage given {"dtype": torch.int32} made every later float32
    checkpoint load as int32. Refused now, nothing shared changes: in a child, since the
    regression is a heap overflow."""
    r = run_child(_ATTACK_CHILD, name, state)
    assert r.returncode == 0, r.stderr[-3000:]
    assert words in r.stdout and "constructed itself" in r.stdout and "ok" in r.stdout, r.stdout


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("name,state", [("float32", {"itemsize": 64}),
                                        ("FloatStorage", {"dtype": G("torch", "int32")})])
def test_torch_refuses_the_same_pickles_with_the_same_type(name, state):
    forged = as_zip(build_on(enc(G("torch", name)), state))
    with pytest.raises(pickle.UnpicklingError):
        torch.load(io.BytesIO(forged), weights_only=True)
    with pytest.raises(pickle.UnpicklingError, match="refused: BUILD on the allowed global"):
        load_bytes(forged)


@pytest.mark.parametrize("op", ["BUILD", "SETITEM", "SETITEMS", "APPEND", "APPENDS", "ADDITEMS"])
@pytest.mark.parametrize("key", _allowed_names(), ids=".".join)
def test_no_opcode_changes_an_allowed_global(key, op):
    forged = as_zip(build_on(enc(G(*key)), {"itemsize": 64, "dtype": G("torch", "int32")}, op))
    with pytest.raises(pickle.UnpicklingError, match=f"refused: {op} on the allowed "
                                                     f"global .* constructed itself"):
        load_bytes(forged)
    assert_unchanged()


@pytest.mark.parametrize("target,op", [
    (pickle.EMPTY_DICT, "BUILD"), (pickle.EMPTY_LIST, "BUILD"), (pickle.EMPTY_LIST, "SETITEM"),
    (pickle.EMPTY_DICT, "APPEND"), (enc(()), "SETITEM"), (enc("s"), "APPEND"),
    (pickle.EMPTY_DICT, "ADDITEMS"), (reduce_(G("torch", "Size"), (2,)), "BUILD"),
    (tensor_op("FloatStorage", "0", 1, (1,), (1,)), "BUILD"),
])
def test_mutating_opcodes_only_take_their_own_container_types(target, op):
    """As torch: BUILD only an OrderedDict (not a dict, a list, a tensor), SETITEM only a dict,
    APPEND only a list, ADDITEMS only a set."""
    with pytest.raises(pickle.UnpicklingError, match=f"refused: {op} on a "):
        load_bytes(as_zip(build_on(target, {"x": 1}, op), {"0": b"\0" * 4}))
    assert_unchanged()


def test_build_on_a_constructed_ordered_dict_sets_new_attributes_only():
    """A state dict's _metadata arrives by BUILD; a name OrderedDict has (keys, __class__)
    would shadow its behaviour and is refused."""
    od = reduce_(G("collections", "OrderedDict"))
    out = load_bytes(as_zip(pickle.PROTO + b"\x02" + od + enc({"_metadata": {"": 1}})
                            + pickle.BUILD + pickle.STOP))
    assert isinstance(out, collections.OrderedDict) and out._metadata == {"": 1}
    for name in ["keys", "__class__", "__dict__", "", 3]:
        pkl = pickle.PROTO + b"\x02" + od + enc({name: 1}) + pickle.BUILD + pickle.STOP
        with pytest.raises(pickle.UnpicklingError, match="only new attribute names"):
            load_bytes(as_zip(pkl))
    with pytest.raises(pickle.UnpicklingError, match="takes a dict of attributes"):
        load_bytes(as_zip(pickle.PROTO + b"\x02" + od + enc((None, {"a": 1})) + pickle.BUILD
                          + pickle.STOP))


@pytest.mark.parametrize("pkl,words", [
    (enc(G("torch", "float32")) + enc(()) + pickle.REDUCE, "REDUCE calls an object of type"),
    (enc(G("torch", "FloatStorage")) + enc(()) + pickle.REDUCE, "REDUCE calls"),
    (pickle.EMPTY_DICT + enc(()) + pickle.REDUCE, "REDUCE calls an object of type dict"),
    (enc(G("torch", "Size")) + enc(()) + pickle.NEWOBJ, "NEWOBJ of pyth._torch_format"),
    (pickle.MARK + enc(G("collections", "OrderedDict")) + pickle.OBJ, "opcode OBJ"),
    (b"i" + b"collections\nOrderedDict\n", "opcode INST"),
    (b"\x82\x01", "opcode EXT1"),
    (pickle.NEXT_BUFFER, "opcode NEXT_BUFFER"),
])
def test_calls_reach_only_allowed_callables(pkl, words):
    with pytest.raises(pickle.UnpicklingError, match=f"refused: .*{words}"):
        load_bytes(as_zip(pickle.PROTO + b"\x04" + pkl + pickle.STOP))
    assert_unchanged()


def test_new_objects_of_allowed_classes_work_through_newobj():
    out = load_bytes(as_zip(pickle.PROTO + b"\x04" + enc(G("collections", "OrderedDict"))
                            + enc(()) + pickle.NEWOBJ + pickle.MARK + enc("a") + enc(1)
                            + pickle.SETITEMS + pickle.STOP))
    assert out == collections.OrderedDict(a=1)


def test_every_protocol_of_plain_data_loads_as_python_reads_it():
    """Text opcodes (protocol 0), binary ones, frames and memoize (4, 5): the same values."""
    value = {"a": [1, -2, 2 ** 70, -(2 ** 65), 1.5, None, True, "é\u1234\n", b"xy", (1, (2,))],
             "empty": ((), [], {}), "shared": [[7]] * 2}
    for proto in range(pickle.HIGHEST_PROTOCOL + 1):
        out = load_bytes(as_zip(pickle.dumps(value, protocol=proto)))
        assert out == value, proto
        assert out["shared"][0] is out["shared"][1]
    extra = {"s": {3, "x"}, "f": frozenset({4}), "ba": bytearray(b"q")}
    assert load_bytes(as_zip(pickle.dumps(extra, protocol=5))) == extra
    with pytest.raises(pickle.UnpicklingError, match="global builtins.set"):  # as before
        load_bytes(as_zip(pickle.dumps({3}, protocol=3)))


def test_dtypes_and_storage_types_are_immutable():
    with pytest.raises(AttributeError, match="attribute 'itemsize' of 'pyth.dtype' objects is "
                                             "not writable"):
        pyth.float32.itemsize = 64
    with pytest.raises(AttributeError, match="'pyth.dtype' object has no attribute 'foo'"):
        pyth.float32.foo = 1
    with pytest.raises(AttributeError, match="not writable"):
        del pyth.int64.name
    st_type = tf._ALLOWED[("torch", "FloatStorage")]
    with pytest.raises(AttributeError, match="not writable"):
        st_type.dtype = pyth.int32
    with pytest.raises(AttributeError):
        st_type.other = 1
    assert_unchanged()
    if torch is not None:  # the same exception type as torch's dtypes
        with pytest.raises(AttributeError, match="not writable"):
            torch.float32.itemsize = 64


_TAMPERED_ITEMSIZE_CHILD = """
import io
import pyth
import _pickle_forge as h
from pyth.utils import safetensors as st
object.__setattr__(pyth.float32, "itemsize", 64)   # what a forged pickle once managed
out = pyth.load(io.BytesIO(h.HONEST))               # buffers are sized by the C type
object.__setattr__(pyth.float32, "itemsize", 4)
h.check_honest(out)
data = st.save({"a": pyth.ones(1000, dtype=pyth.int8)})
object.__setattr__(pyth.int8, "itemsize", 64)
try:
    st.load(data)
except RuntimeError as e:
    print("refused:", e)
else:
    raise SystemExit("loaded with a wrong itemsize")
print("ok")
"""


def test_storage_buffers_are_sized_by_the_c_type_not_a_python_attribute():
    """Defence in depth: even a dtype whose itemsize was forced wrong cannot make a checkpoint
    read past a buffer (the torch reader sizes by the C element type, safetensors checks the
    record's byte count against the buffer)."""
    r = run_child(_TAMPERED_ITEMSIZE_CHILD)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "ok" in r.stdout, r.stdout


def test_a_storage_read_as_two_types_is_refused():
    pkl = (pickle.PROTO + b"\x02" + pickle.MARK + tensor_op("FloatStorage", "0", 2, (2,), (1,))
           + tensor_op("IntStorage", "0", 2, (2,), (1,)) + pickle.TUPLE + pickle.STOP)
    with pytest.raises(RuntimeError, match="read as float32 and as int32"):
        load_bytes(as_zip(pkl, {"0": b"\0" * 8}))


# ==== the fuzzer ================================================================================

_WORDS = ["itemsize", "dtype", "untyped", "name", "storage", "__dict__", "__class__",
          "_metadata", "keys", "__defaults__", "cpu", "0", "1", "real", "ctype", "tensor_class",
          "storage_class", "__setstate__", "__code__", "is_floating_point", "to_c"]
_GLOBALS = [enc(G(*k)) for k in _allowed_names()]
_FRAGMENTS = _GLOBALS + [enc(w) for w in _WORDS] + [
    pickle.NONE, pickle.NEWTRUE, enc(0), enc(1), enc(64), enc(-1), enc(2 ** 63), enc(1.5),
    enc(b"ab"), pickle.EMPTY_DICT, pickle.EMPTY_LIST, pickle.EMPTY_TUPLE, pickle.EMPTY_SET,
    pickle.MARK, pickle.TUPLE, pickle.TUPLE1, pickle.TUPLE2, pickle.TUPLE3, pickle.LIST,
    pickle.DICT, pickle.FROZENSET, pickle.SETITEM, pickle.SETITEMS, pickle.APPEND,
    pickle.APPENDS, pickle.ADDITEMS, pickle.BUILD, pickle.REDUCE, pickle.NEWOBJ,
    pickle.NEWOBJ_EX, pickle.DUP, pickle.POP, pickle.POP_MARK, pickle.BINPERSID,
    pickle.MEMOIZE, pickle.BINPUT + b"\x00", pickle.BINGET + b"\x00", pickle.BINPUT + b"\x01",
    pickle.BINGET + b"\x01", pickle.STACK_GLOBAL, pickle.STOP,
    enc(("storage", G("torch", "FloatStorage"), "0", "cpu", 4)) + pickle.BINPERSID,
    enc(("storage", G("torch", "UntypedStorage"), "0", "cpu", 16)) + pickle.BINPERSID,
    tensor_op("FloatStorage", "0", 4, (2, 2), (2, 1)),
    reduce_(G("collections", "OrderedDict")),
]
_MEMBERS = {"0": np.arange(4, dtype=np.float32).tobytes()}


def canonical(obj: Any, depth: int = 0) -> Any:
    """A comparable picture of a loaded object (tensors by dtype, geometry and storage bytes;
    nothing that could materialise a huge expanded view)."""
    if depth > 50:
        return "..."
    d = depth + 1
    if isinstance(obj, pyth.Tensor):
        return ("tensor", type(obj).__name__, obj.dtype.name, tuple(obj.shape), obj.stride(),
                obj.storage_offset(), bytes(_raw(obj.storage())), obj.requires_grad)
    if isinstance(obj, pyth.storage.Storage):
        return ("storage", obj.dtype.name, bytes(_raw(obj)))
    if isinstance(obj, float):
        return ("float", obj.hex())
    if isinstance(obj, dict):
        return (type(obj).__name__, [(canonical(k, d), canonical(v, d)) for k, v in obj.items()],
                canonical(getattr(obj, "__dict__", None), d))
    if isinstance(obj, (list, tuple, set, frozenset)):
        items = obj if isinstance(obj, (list, tuple)) else sorted(obj, key=repr)
        return (type(obj).__name__, [canonical(v, d) for v in items])
    return (type(obj).__name__, repr(obj))


def outcome(data: bytes) -> Any:
    """("ok", canonical result) or ("error", type); anything but RuntimeError fails."""
    try:
        return ("ok", canonical(load_bytes(data)))
    except RuntimeError as e:  # pickle refusals are RuntimeError too (and UnpicklingError)
        return ("error", type(e))


def consistent(data: bytes) -> None:
    first = outcome(data)
    assert_unchanged()
    assert outcome(data) == first


_PART = st.one_of(st.sampled_from(_FRAGMENTS), st.sampled_from(_FRAGMENTS),
                  st.sampled_from(_FRAGMENTS), st.binary(min_size=1, max_size=3))


@given(st.lists(_PART, max_size=40), st.sampled_from([2, 4, 5]), st.booleans())
def test_fuzz_opcode_streams_over_the_allowed_globals(parts, proto, stop):
    pkl = pickle.PROTO + bytes([proto]) + b"".join(parts) + (pickle.STOP if stop else b"")
    consistent(as_zip(pkl, _MEMBERS))


_STATE_VALUES = (st.integers(-2 ** 64, 2 ** 64) | st.sampled_from(_WORDS) | st.none()
                 | st.sampled_from([G(*k) for k in _allowed_names()]))
_STATES = st.dictionaries(st.sampled_from(_WORDS), _STATE_VALUES, max_size=4)


@given(st.sampled_from(_allowed_names()), _STATES,
       st.sampled_from(["dict", "slots", "both"]),
       st.sampled_from(["BUILD", "SETITEM", "SETITEMS", "APPEND", "APPENDS", "ADDITEMS"]),
       st.booleans())
def test_fuzz_states_applied_to_every_allowed_global(key, state, form, op, memo):
    """BUILD/SETITEM(S)/APPEND(S)/ADDITEMS with a random state on each allowed global, pushed
    directly or through the memo: always refused, nothing shared changes."""
    full = {"dict": state, "slots": (None, state), "both": (state, state)}[form]
    target = enc(G(*key))
    if memo:
        target += pickle.BINPUT + b"\x07" + pickle.POP + pickle.BINGET + b"\x07"
    with pytest.raises(pickle.UnpicklingError, match="refused"):
        load_bytes(as_zip(build_on(target, full, op)))
    assert_unchanged()


def _real_checkpoint() -> bytes:
    """torch.save's bytes for a small model's state and extras, or the hand-built one."""
    if torch is None:
        return HONEST
    lin = torch.nn.Linear(3, 2)
    buf = io.BytesIO()
    torch.save({"sd": lin.state_dict(), "x": torch.arange(6.0).reshape(2, 3).t(),
                "i": torch.arange(4, dtype=torch.int16), "p": torch.nn.Parameter(torch.ones(2)),
                "dt": torch.bfloat16, "size": torch.Size([2, 3]), "b": b"by"}, buf)
    return buf.getvalue()


REAL = _real_checkpoint()
_REAL_ZIP = zipfile.ZipFile(io.BytesIO(REAL))
_PKL_NAME = next(n for n in _REAL_ZIP.namelist() if n.endswith("/data.pkl"))
REAL_PKL = _REAL_ZIP.read(_PKL_NAME)
REAL_MEMBERS = {n: _REAL_ZIP.read(n) for n in _REAL_ZIP.namelist() if n != _PKL_NAME}


def _rezip(pkl: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(_PKL_NAME, pkl)
        for n, v in REAL_MEMBERS.items():
            z.writestr(n, v)
    return buf.getvalue()


_EDITS = st.lists(st.tuples(st.sampled_from(["set", "insert", "delete", "xor"]),
                            st.floats(0, 1, exclude_max=True), st.integers(0, 255)),
                  min_size=1, max_size=6)


def mutate(data: bytes, edits: list) -> bytes:
    b = bytearray(data)
    for kind, where, value in edits:
        i = int(where * len(b)) if b else 0
        if kind == "insert":
            b[i:i] = bytes([value])
        elif b and kind == "delete":
            del b[i]
        elif b and kind == "set":
            b[i] = value
        elif b:
            b[i] ^= value or 0xFF
    return bytes(b)


def test_real_checkpoint_loads_unmutated():
    out = load_bytes(REAL)
    if torch is None:
        check_honest(out)
    else:
        ref = torch.load(io.BytesIO(REAL), weights_only=True)
        np.testing.assert_array_equal(out["x"].numpy(), ref["x"].numpy())
        np.testing.assert_array_equal(out["sd"]["weight"].numpy(), ref["sd"]["weight"].numpy())
        assert out["x"].stride() == ref["x"].stride() and out["dt"] is pyth.bfloat16


@given(_EDITS)
def test_fuzz_byte_mutations_of_a_real_checkpoints_pickle(edits):
    consistent(_rezip(mutate(REAL_PKL, edits)))


@given(_EDITS)
def test_fuzz_byte_mutations_of_a_real_checkpoint_file(edits):
    consistent(mutate(REAL, edits))


# ==== safetensors' safe_open: use after close, truncation underneath ===========================

_SAFE_OPEN_CLOSED_CHILD = """
import sys
import pyth
from pyth.utils import safetensors as st
st.save_file({"a": pyth.arange(1000, dtype=pyth.float32)}, sys.argv[1])
with st.safe_open(sys.argv[1]) as f:
    assert f.get_tensor("a").tolist() == list(range(1000))
f2 = st.safe_open(sys.argv[1])
f2.close()
f2.close()   # closing twice is fine
for obj in (f, f2):
    for call in (lambda: obj.get_tensor("a"), obj.keys, obj.metadata, lambda: list(obj)):
        try:
            call()
        except RuntimeError as e:
            assert "File is closed" in str(e), e
        else:
            raise SystemExit("a closed safe_open answered")
print("ok")
"""


def test_safe_open_after_close_raises_in_a_child(tmp_path):
    """get_tensor after close() returned uninitialised memory; every call raises now, as the
    safetensors package's does ("File is closed")."""
    r = run_child(_SAFE_OPEN_CLOSED_CHILD, str(tmp_path / "a.safetensors"))
    assert r.returncode == 0, r.stderr[-3000:]
    assert "ok" in r.stdout


def test_safe_open_closed_matches_the_safetensors_package(tmp_path):
    safetensors = pytest.importorskip("safetensors")
    from safetensors.numpy import save_file
    p = str(tmp_path / "b.safetensors")
    save_file({"a": np.ones(3, np.float32)}, p)
    with safetensors.safe_open(p, "np") as ref:
        pass
    with pytest.raises(Exception, match="File is closed"):
        ref.get_tensor("a")
    from pyth.utils import safetensors as st
    with st.safe_open(p) as f:
        pass
    with pytest.raises(RuntimeError, match="File is closed"):
        f.get_tensor("a")


_TRUNCATED_SAFE_OPEN_CHILD = """
import os, sys
import pyth
from pyth.utils import safetensors as st
path = sys.argv[1]
st.save_file({"a": pyth.arange(5000, dtype=pyth.float64),
              "b": pyth.arange(5000, dtype=pyth.float64)}, path)
with st.safe_open(path) as f:
    size = os.path.getsize(path)
    os.truncate(path, size - 8 * 5000 + 100)   # "a" still whole, "b" lost from its 13th value
    assert f.get_tensor("a").tolist() == list(range(5000))
    for n in (size - 8 * 5000 + 100, 0):
        os.truncate(path, n)
        try:
            f.get_tensor("b")
        except RuntimeError as e:
            assert "truncated after it was opened" in str(e), e
        else:
            raise SystemExit("read past the end of a truncated file")
print("ok")
"""


def test_safe_open_of_a_file_truncated_underneath_raises_in_a_child(tmp_path):
    """Reading a tensor whose pages a truncation removed from the mapping was SIGBUS."""
    r = run_child(_TRUNCATED_SAFE_OPEN_CHILD, str(tmp_path / "t.safetensors"))
    assert r.returncode == 0, r.stderr[-3000:]
    assert "ok" in r.stdout


_TRUNCATED_MMAP_LOAD_CHILD = """
import os, sys
import pyth
import pyth.serialization as ser
path = sys.argv[1]
pyth.save({"w": pyth.arange(100000, dtype=pyth.float32)}, path)
header = ser._header

def truncating_header(src):
    out = header(src)
    os.truncate(path, 4096)      # the storage's pages leave the mapping mid-load
    return out

ser._header = truncating_header
try:
    pyth.load(path, mmap=True)
except RuntimeError as e:
    assert "truncated while loading" in str(e), e
else:
    raise SystemExit("loaded a truncated mapping")
ser._header = header
# the documented safe way to replace a mapped checkpoint: pyth.save renames a new file over it
pyth.save({"w": pyth.arange(100000, dtype=pyth.float32)}, path)
w = pyth.load(path, mmap=True)["w"]
pyth.save({"w": pyth.zeros(3)}, path)
assert w.storage().allocator_name() == "borrowed", w.storage().allocator_name()   # mapped
assert w.tolist() == list(range(100000))
print("ok")
"""


def test_load_mmap_of_a_file_truncated_while_loading_raises_in_a_child(tmp_path):
    r = run_child(_TRUNCATED_MMAP_LOAD_CHILD, str(tmp_path / "m.pt"))
    assert r.returncode == 0, r.stderr[-3000:]
    assert "ok" in r.stdout
