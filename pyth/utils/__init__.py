"""pyth.utils: data loading, safetensors files, DLPack."""

from . import data, dlpack, safetensors  # noqa: F401
