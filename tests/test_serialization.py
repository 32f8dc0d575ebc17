"""pyth.save / pyth.load: round trips, sharing, mmap, atomicity, damaged and malicious files,
PyTorch zip checkpoints (written by torch when installed), safetensors interop."""

import collections
import io
import json
import os
import pickle
import random
import struct
import zipfile
import zlib

import numpy as np
import pytest
from _support import to_numpy_exact

import pyth
from pyth import serialization as ser

DTYPES = list(pyth.ALL_DTYPES)


def _sample(dt):
    base = pyth.arange(24, dtype=pyth.float64).reshape(2, 3, 4) - 7
    if dt is pyth.bool:
        return base.remainder(3) == 0
    if dt.kind == "u":
        base = base.abs()
    return base.to(dt)


def _same(a, b):
    assert a.dtype is b.dtype and tuple(a.shape) == tuple(b.shape)
    np.testing.assert_array_equal(to_numpy_exact(a.contiguous()), to_numpy_exact(b.contiguous()))


def _roundtrip(obj, tmp_path, **kw):
    p = tmp_path / "ckpt.pth"
    pyth.save(obj, p)
    return pyth.load(p, **kw)


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("use_mmap", [False, True])
def test_every_dtype_roundtrip(dt, use_mmap, tmp_path):
    t = _sample(dt)
    views = {"t": t, "tr": t.transpose(0, 2), "nar": t.narrow(2, 1, 2), "sel": t[1],
             "zero": pyth.empty(0, 3, dtype=dt), "scalar": t[1, 2, 3]}
    out = _roundtrip(views, tmp_path, mmap=use_mmap)
    for k, v in views.items():
        _same(out[k], v)
        assert out[k].stride() == v.stride() and out[k].storage_offset() == v.storage_offset()
    # views saved together share one storage after loading
    assert out["tr"].storage() is out["t"].storage()
    assert out["sel"].storage() is out["t"].storage()
    out["t"][1, 0, 0] = 1
    assert out["sel"][0, 0].item() == out["t"][1, 0, 0].item()


def test_plain_values_and_containers(tmp_path):
    obj = collections.OrderedDict(
        a=[1, -2 ** 70, 2.5, float("inf"), float("-inf"), float("nan"), None, True, False],
        b=(b"\x00\xff", "text \u00e9", ()), c={1: "int key", (1, 2): "tuple key", None: 0},
        d=pyth.Size([2, 0, 3]), e=[pyth.float16, pyth.bool], f={})
    out = _roundtrip(obj, tmp_path)
    assert type(out) is collections.OrderedDict and list(out) == list(obj)
    assert out["a"][:3] == [1, -2 ** 70, 2.5] and out["a"][3:5] == [float("inf"), float("-inf")]
    assert out["a"][5] != out["a"][5] and out["a"][6:] == [None, True, False]
    assert out["b"] == obj["b"] and out["c"] == obj["c"] and out["f"] == {}
    assert type(out["d"]) is pyth.Size and out["d"] == obj["d"]
    assert out["e"][0] is pyth.float16 and out["e"][1] is pyth.bool


def test_storages_and_requires_grad(tmp_path):
    w = pyth.randn(3, 2, dtype=pyth.float64).requires_grad_()
    s = pyth.DoubleStorage([1, 2, 3])
    out = _roundtrip({"w": w, "s": s, "s2": s, "y": (w * 2)}, tmp_path)
    assert out["w"].requires_grad and out["w"].is_leaf
    assert out["y"].requires_grad and out["y"].grad_fn is None
    assert isinstance(out["s"], pyth.DoubleStorage) and out["s"].tolist() == [1, 2, 3]
    assert out["s2"] is out["s"]
    np.testing.assert_array_equal(out["w"].detach().numpy(), w.detach().numpy())


def test_state_dict_roundtrip(tmp_path):
    m = pyth.nn.Linear(4, 3)
    out = _roundtrip(m.state_dict(), tmp_path)
    m2 = pyth.nn.Linear(4, 3)
    m2.load_state_dict(out)
    params = _roundtrip(list(m.parameters()), tmp_path)
    assert all(isinstance(p, pyth.nn.Parameter) and p.requires_grad for p in params)
    frozen = _roundtrip(pyth.nn.Parameter(pyth.ones(2), requires_grad=False), tmp_path)
    assert isinstance(frozen, pyth.nn.Parameter) and not frozen.requires_grad
    for a, b in zip(m.parameters(), m2.parameters()):
        _same(a.detach(), b.detach())


def test_file_objects_and_unsupported(tmp_path):
    buf = io.BytesIO(b"prefix")
    buf.seek(6)
    pyth.save([pyth.ones(3)], buf)
    buf.seek(6)
    assert pyth.load(buf)[0].tolist() == [1, 1, 1]
    with pytest.raises(TypeError, match="cannot save an object of type set"):
        pyth.save({1, 2}, tmp_path / "x")
    with pytest.raises(TypeError, match="object"):
        pyth.save(object(), tmp_path / "x")
    assert not os.path.exists(tmp_path / "x") and os.listdir(tmp_path) == []
    with pytest.raises(ValueError, match="file name"):
        pyth.load(buf, mmap=True)
    with pytest.raises(RuntimeError, match="CPU"):
        pyth.load(tmp_path / "x", map_location="cuda:0")


def test_layout_aligned_and_documented(tmp_path):
    p = tmp_path / "c"
    a = pyth.arange(5, dtype=pyth.int8)
    pyth.save({"a": a, "b": pyth.ones(3, dtype=pyth.float64), "c": pyth.zeros(0)}, p)
    raw = p.read_bytes()
    magic, ver, off, length, crc, count = ser._HEADER.unpack_from(raw)
    assert magic == ser.MAGIC and ver == 1 and count == 3
    doc = json.loads(raw[off:off + length])  # a plain JSON parser reads the structure
    assert zlib.crc32(raw[off:off + length]) == crc
    for name, numel, offset, nbytes, c in doc["storages"]:
        assert offset % 64 == 0
        assert zlib.crc32(raw[offset:offset + nbytes]) == c
    assert raw[64:69] == bytes(range(5))


def test_mmap_maps_instead_of_reading(tmp_path):
    p = tmp_path / "big"
    t = pyth.arange(100000, dtype=pyth.float32)
    pyth.save({"t": t}, p)
    before = pyth.memory_stats()["allocators"]["default"]["live_bytes"]
    out = pyth.load(p, mmap=True)
    assert pyth.memory_stats()["allocators"]["default"]["live_bytes"] - before < 100000
    assert out["t"].storage().allocator_name() == "borrowed"
    _same(out["t"], t)
    out["t"][0] = 42  # copy on write: the file keeps its bytes
    assert pyth.load(p)["t"][0].item() == 0
    del out


def test_atomic_save_keeps_old_file(tmp_path, monkeypatch):
    p = tmp_path / "c"
    pyth.save({"v": 1}, p)
    calls = []

    def failing_fsync(fd):
        calls.append(fd)
        raise OSError("disk on fire")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(OSError, match="disk on fire"):
        pyth.save({"v": 2}, p)
    monkeypatch.undo()
    assert calls and pyth.load(p) == {"v": 1}
    assert os.listdir(tmp_path) == ["c"]  # no temporary file left


# ---- damaged and malicious files --------------------------------------------------------------

def _small_checkpoint():
    buf = io.BytesIO()
    a = pyth.arange(6, dtype=pyth.int32)
    pyth.save({"a": a, "v": a[1:4], "x": [1.5, "s"]}, buf)
    return buf.getvalue()


def _load_bytes(data):
    return pyth.load(io.BytesIO(data))


def test_truncation_at_every_byte():
    data = _small_checkpoint()
    for n in range(len(data)):
        with pytest.raises(RuntimeError, match="checkpoint"):
            _load_bytes(data[:n])


def test_truncated_storage_message(tmp_path):
    data = bytearray(_small_checkpoint())
    magic, ver, off, length, crc, count = ser._HEADER.unpack_from(data)
    doc = json.loads(data[off:off + length])
    doc["storages"][0][1] = 1000  # numel
    doc["storages"][0][3] = 4000  # nbytes
    s = json.dumps(doc).encode()
    fake = bytes(data[:off]) + s
    fake = ser._HEADER.pack(magic, ver, off, len(s), zlib.crc32(s), count) + fake[ser._HEADER.size:]
    with pytest.raises(RuntimeError, match=r"truncated: storage 0 needs 4000 bytes at offset 64"):
        _load_bytes(fake)


def test_random_bit_flips():
    data = _small_checkpoint()
    rng = random.Random(1234)
    for _ in range(300):
        b = bytearray(data)
        i = rng.randrange(len(b))
        b[i] ^= 1 << rng.randrange(8)
        try:
            out = _load_bytes(bytes(b))
        except RuntimeError as e:
            assert "checkpoint" in str(e)
            continue
        # a flip in padding can go unnoticed; then the content must be intact
        assert out["a"].tolist() == list(range(6)) and out["x"] == [1.5, "s"]


def _forge(root, storages=None, payload=b"", version=1, raw_root=None):
    """A checkpoint with a hand-written structure (valid header and checksums)."""
    storages = storages or []
    s = json.dumps({"storages": storages, "root": root}).encode()
    if raw_root is not None:
        s = b'{"storages": [], "root": ' + raw_root + b"}"
    off = 64 + len(payload)
    head = ser._HEADER.pack(ser.MAGIC, version, off, len(s), zlib.crc32(s), len(storages))
    return head + b"\0" * (64 - len(head)) + payload + s


FORGED = [
    (["eval", "__import__('os').system('x')"], "unknown node tag 'eval'"),
    (["tensor", 0, 0, [10 ** 12], [1], False], "storage index"),
    ("not a node", "expected a tagged node"),
    (["int"], "has 0 fields"),
    (["int", "12x"], "bad 'int' node"),
    (["float", "zz"], "bad 'float' node"),
    (["bytes", "!!"], "bad 'bytes' node"),
    (["dtype", "object"], "bad 'dtype' node"),
    (["dict", [[["list", []], ["none"]]]], "unhashable"),
    (["size", [-1]], "a size is -1"),
]


@pytest.mark.parametrize("root,msg", FORGED, ids=[m for _, m in FORGED])
def test_forged_structures(root, msg):
    with pytest.raises(RuntimeError, match=msg):
        _load_bytes(_forge(root))


def test_forged_storages():
    payload = b"\1" * 64
    ok = ["float32", 16, 64, 64, zlib.crc32(payload)]
    tens = ["tensor", 0, 0, [4], [1], False]
    assert _load_bytes(_forge(tens, [ok], payload)).numel() == 4
    cases = [
        (["float32", 2 ** 61, 64, 2 ** 63, 0], "truncated: storage 0"),
        (["float32", 16, 10 ** 9, 64, 0], "truncated: storage 0 needs 64 bytes at offset"),
        (["float32", 16, 65, 64, 0], "not 64-byte aligned"),
        (["float32", 16, 0, 64, 0], "offset is 0"),
        (["float32", 15, 64, 64, 0], "15 float32 elements but 64 bytes"),
        (["object", 16, 64, 64, 0], "unknown dtype"),
        (["float32", 16, 64, 64, 1], "fails its checksum"),
        (["float32", -1, 64, 64, 0], "element count is -1"),
    ]
    for entry, msg in cases:
        with pytest.raises(RuntimeError, match=msg):
            _load_bytes(_forge(tens, [entry], payload))
    both = ["list", [tens, ["tensor", 1, 0, [4], [1], False]]]
    with pytest.raises(RuntimeError, match="storages 0 and 1 overlap"):
        _load_bytes(_forge(both, [ok, ok], payload))
    big_view = ["tensor", 0, 0, [10 ** 6], [10 ** 6], False]
    with pytest.raises(RuntimeError, match="bad 'tensor' node"):
        _load_bytes(_forge(big_view, [ok], payload))
    with pytest.raises(RuntimeError, match="bad 'tensor' node"):
        _load_bytes(_forge(["tensor", 0, -1, [4], [1], False], [ok], payload))
    with pytest.raises(RuntimeError, match="announces 2 storages"):
        s = json.dumps({"storages": [ok], "root": tens}).encode()
        head = ser._HEADER.pack(ser.MAGIC, 1, 128, len(s), zlib.crc32(s), 2)
        _load_bytes(head + b"\0" * (64 - len(head)) + payload + s)


def test_deep_nesting_and_versions():
    for depth in (300, 100000):
        deep = b'["list", [' * depth + b'["none"]' + b"]]" * depth
        with pytest.raises(RuntimeError, match="nested|does not parse"):
            _load_bytes(_forge(None, raw_root=deep))
    with pytest.raises(RuntimeError, match="version 2"):
        _load_bytes(_forge(["none"], version=2))
    with pytest.raises(RuntimeError, match="bad magic"):
        _load_bytes(b"hello world" * 10)
    with pytest.raises(RuntimeError, match="bad magic"):
        _load_bytes(pickle.dumps({"a": 1}))


# ---- PyTorch's zip checkpoints -----------------------------------------------------------------

def test_reads_torch_checkpoints(tmp_path):
    torch = pytest.importorskip("torch")
    p = tmp_path / "t.pt"
    x = torch.arange(12.0).reshape(3, 4)
    lin = torch.nn.Linear(3, 2)
    dts = ["uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
           "float64", "bool"]
    obj = {"sd": lin.state_dict(), "x": x, "xt": x.t(), "narrow": x[1:, 2:],
           "each": {d: torch.arange(5).to(getattr(torch, d)) for d in dts},
           "plain": [1, 2.5, "s", b"bytes", None, True, (1, 2)], "size": x.shape,
           "dtype": torch.bfloat16, "param": torch.nn.Parameter(torch.ones(2)),
           "empty": torch.zeros(0, 3), "scalar": torch.tensor(3.5)}
    torch.save(obj, p)
    out = pyth.load(p)
    assert isinstance(out["sd"], collections.OrderedDict) and list(out["sd"]) == ["weight", "bias"]
    np.testing.assert_array_equal(out["sd"]["weight"].numpy(), lin.weight.detach().numpy())
    assert out["xt"].storage() is out["x"].storage() and out["xt"].stride() == (1, 4)
    np.testing.assert_array_equal(out["narrow"].numpy(), x[1:, 2:].numpy())
    for d in dts:
        got = out["each"][d]
        assert got.dtype is getattr(pyth, d)
        np.testing.assert_array_equal(got.float().numpy(), obj["each"][d].float().numpy())
    assert out["plain"] == [1, 2.5, "s", b"bytes", None, True, (1, 2)]
    assert out["size"] == pyth.Size([3, 4]) and out["dtype"] is pyth.bfloat16
    assert isinstance(out["param"], pyth.nn.Parameter) and out["param"].requires_grad
    assert out["empty"].shape == (0, 3) and out["scalar"].item() == 3.5
    # a file object works too, and a pyth model loads the torch state dict
    with open(p, "rb") as f:
        assert pyth.load(f)["x"].shape == (3, 4)
    m = pyth.nn.Linear(3, 2)
    m.load_state_dict(out["sd"])


class _Gadget:
    def __init__(self, fn, arg):
        self.fn, self.arg = fn, arg

    def __reduce__(self):
        return (self.fn, (self.arg,))


@pytest.mark.parametrize("position", ["top", "dict value", "list item", "tensor arg", "key"])
def test_torch_pickle_gadgets_refused(position, tmp_path):
    torch = pytest.importorskip("torch")
    g = _Gadget(os.system, "echo pwned > " + str(tmp_path / "pwned"))
    obj = {"top": g, "dict value": {"a": g}, "list item": [torch.ones(1), g],
           "tensor arg": [torch.ones(2), _Gadget(eval, "1+1")], "key": {(g,): 1}}[position]
    p = tmp_path / "evil.pt"
    torch.save(obj, p)
    with pytest.raises(RuntimeError, match=r"refused: the pickle names the global (posix\.system|_?_?builtins?_?_?\.eval)"):
        pyth.load(p)
    assert not (tmp_path / "pwned").exists()


class _Marker:
    pass


class _GadgetPickler(pickle.Pickler):
    """Writes a persistent id whose storage type (or location) is a gadget."""

    def __init__(self, f, where):
        super().__init__(f, protocol=2)
        self.where = where

    def persistent_id(self, obj):
        if isinstance(obj, _Marker):
            g = _Gadget(os.system, "echo pwned")
            return ("storage", g, "0", "cpu", 1) if self.where == "type" else \
                ("storage", g, g, "cpu", 1)
        return None


@pytest.mark.parametrize("where", ["type", "key"])
def test_gadget_in_persistent_id_refused(where):
    buf = io.BytesIO()
    _GadgetPickler(buf, where).dump({"x": _Marker()})
    with pytest.raises(RuntimeError, match="refused: the pickle names the global posix.system"):
        _load_bytes(_zip_with(buf.getvalue(), {"0": b"\0" * 4}))


def test_gadget_as_rebuild_argument_refused():
    pkl = (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n(cposix\nsystem\nX\x02\x00\x00\x00id"
           b"\x85RK\x00K\x01\x85K\x01\x85\x89tR.")
    with pytest.raises(RuntimeError, match="posix.system"):
        _load_bytes(_zip_with(pkl))
    # a rebuild function fed a non-storage is a typed error, not a crash
    pkl = (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n(X\x01\x00\x00\x00sK\x00K\x01\x85"
           b"K\x01\x85\x89tR.")
    with pytest.raises(RuntimeError, match="storage is a str"):
        _load_bytes(_zip_with(pkl))


def _zip_with(pkl, members=None):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("archive/data.pkl", pkl)
        z.writestr("archive/byteorder", "little")
        for k, v in (members or {}).items():
            z.writestr(f"archive/data/{k}", v)
    return buf.getvalue()


def test_damaged_torch_zips():
    torch = pytest.importorskip("torch")
    buf = io.BytesIO()
    torch.save({"x": torch.arange(10.0)}, buf)
    good = buf.getvalue()
    for n in list(range(0, len(good), 37)) + [len(good) - 1]:
        with pytest.raises(RuntimeError):
            _load_bytes(good[:n])
    rng = random.Random(5)
    for _ in range(100):
        b = bytearray(good)
        b[rng.randrange(len(b))] ^= 0xFF
        try:
            out = _load_bytes(bytes(b))
        except RuntimeError:
            continue
        assert isinstance(out, dict)
    # a storage member missing, too short, or a persistent id of the wrong shape
    pkl = pickle.dumps(None, protocol=2)
    assert _load_bytes(_zip_with(pkl)) is None
    with pytest.raises(RuntimeError, match="exactly one"):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr("x.txt", "hi")
        _load_bytes(buf.getvalue())
    src = good.replace(b"archive", b"archive")
    z = zipfile.ZipFile(io.BytesIO(src))
    name = [n for n in z.namelist() if n.endswith("data.pkl")][0]
    real_pkl = z.read(name)
    with pytest.raises(RuntimeError, match="missing"):
        _load_bytes(_zip_with(real_pkl))
    with pytest.raises(RuntimeError, match="declares 10 elements"):
        _load_bytes(_zip_with(real_pkl, {"0": b"\0" * 8}))


# ---- safetensors ---------------------------------------------------------------------------

def test_safetensors_roundtrip_and_lazy(tmp_path):
    from pyth.utils import safetensors as st
    p = tmp_path / "m.safetensors"
    ts = {f"t_{dt.name}": _sample(dt).transpose(0, 1) for dt in DTYPES}
    ts["empty"] = pyth.zeros(0, 2)
    st.save_file(ts, p, metadata={"format": "pt"})
    out = st.load_file(p)
    for k, v in ts.items():
        _same(out[k], v)
    with st.safe_open(p, framework="pt") as f:
        assert f.keys() == sorted(ts) and f.metadata() == {"format": "pt"}
        _same(f.get_tensor("t_bfloat16"), ts["t_bfloat16"])
        with pytest.raises(KeyError):
            f.get_tensor("nope")


def test_safetensors_interop_with_package(tmp_path):
    pytest.importorskip("safetensors")
    from safetensors.numpy import load_file as np_load
    from safetensors.numpy import save_file as np_save

    from pyth.utils import safetensors as st
    p = tmp_path / "a.safetensors"
    ts = {f"t_{dt.name}": _sample(dt) for dt in DTYPES if dt is not pyth.bfloat16}
    st.save_file(ts, p, metadata={"k": "v"})
    back = np_load(str(p))
    for k, v in ts.items():
        np.testing.assert_array_equal(back[k], v.numpy())
    np_save({k: np.ascontiguousarray(v.numpy()[::-1]) for k, v in ts.items()}, str(p))
    for k, v in st.load_file(p).items():
        np.testing.assert_array_equal(v.numpy(), ts[k].numpy()[::-1])


def test_safetensors_bfloat16_with_torch(tmp_path):
    torch = pytest.importorskip("torch")
    pytest.importorskip("safetensors")
    from safetensors.torch import load_file, save_file

    from pyth.utils import safetensors as st
    p = tmp_path / "b.safetensors"
    st.save_file({"w": pyth.arange(7).bfloat16(), "b": pyth.tensor([True, False])}, p)
    back = load_file(str(p))
    assert back["w"].dtype == torch.bfloat16 and back["w"].tolist() == list(range(7))
    assert back["b"].tolist() == [True, False]
    save_file({"h": torch.tensor([0.5, -2.0], dtype=torch.float16)}, str(p))
    assert st.load_file(p)["h"].tolist() == [0.5, -2.0]


def test_safetensors_damaged(tmp_path):
    from pyth.utils import safetensors as st
    good = st.save({"a": pyth.arange(4, dtype=pyth.float32), "b": pyth.ones(2, dtype=pyth.int64)})
    for n in range(len(good)):
        with pytest.raises(RuntimeError, match="safetensors"):
            st.load(good[:n])

    def forge(header, data=b""):
        h = json.dumps(header).encode()
        return struct.pack("<Q", len(h)) + h + data

    cases = [
        (struct.pack("<Q", 2 ** 60), "larger than the limit"),
        (forge([1, 2]), "not a JSON object"),
        (forge({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4]}}, b"\0" * 4), "needs 8 bytes"),
        (forge({"a": {"dtype": "C64", "shape": [1], "data_offsets": [0, 8]}}, b"\0" * 8), "not supported"),
        (forge({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}, b"\0" * 8), "expected 0"),
        (forge({"a": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}}, b"\0" * 4), "bad shape"),
        (forge({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}, b"\0" * 8), "after the last"),
        (forge({"a": {"dtype": "F32", "shape": [10 ** 9], "data_offsets": [0, 4 * 10 ** 9]}}), "truncated"),
        (forge({"a": {"dtype": "F32", "shape": [1]}}), "exactly dtype"),
    ]
    for data, msg in cases:
        with pytest.raises(RuntimeError, match=msg):
            st.load(data)
    p = tmp_path / "bad.safetensors"
    p.write_bytes(cases[2][0])
    with pytest.raises(RuntimeError, match="needs 8 bytes"):
        st.safe_open(p)
