"""Build pyth: the cffi extension pyth._th (see build_ffi.py) plus the Python package."""

from setuptools import setup

setup(
    cffi_modules=["build_ffi.py:ffibuilder"],
)
