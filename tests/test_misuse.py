"""Misuse: bad calls across the whole API raise the right exception with a helpful message.

Each case is one row of CASES: (id, expression, exception type, regex its message must match,
isolated). Expressions run against the objects SETUP makes. Rows marked isolated are the ones
that could crash the interpreter if a check were missing (memory reached after a storage
shrank, mapped files, borrowed memory, impossible sizes): they run in a subprocess, so a
crash is a test failure naming the case instead of a lost run. Adding a misuse check is one
row here.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

import pyth

SETUP = r'''
import operator, os, tempfile
import numpy as np
import pyth
v5 = pyth.arange(5.)                      # FloatTensor (5,)
m = pyth.arange(6.).view(2, 3)            # FloatTensor (2, 3)
i3 = pyth.tensor([1, 2, 3])               # LongTensor (3,)
b3 = pyth.tensor([True, False, True])     # BoolTensor (3,)
s0 = pyth.tensor(2.5)                     # 0-dim
bf = pyth.ones(2, dtype=pyth.bfloat16)
e33 = pyth.zeros(3).expand(3, 3)          # stride 0
st3 = pyth.FloatStorage([1, 2, 3])
tmpdir = tempfile.mkdtemp()
small = os.path.join(tmpdir, "small.bin")
with open(small, "wb") as f:
    f.write(b"\0" * 8)                    # two floats
'''

ISOLATED = True
CASES = [
    # ---- constructors and factories ----
    ("ctor_negative_size", "pyth.FloatTensor(-1)", ValueError, r"negative size -1"),
    ("ctor_negative_size_2d", "pyth.FloatTensor(2, -3)", ValueError, r"negative size -3 in dim 1"),
    ("ctor_str", "pyth.FloatTensor('abc')", TypeError, r"invalid data type 'str'"),
    ("ctor_numel_overflow", "pyth.FloatTensor(2**62, 2**62)", MemoryError, r"overflows int64"),
    ("ctor_bytes_overflow", "pyth.FloatTensor(2**62)", MemoryError, r"overflow|out of memory"),
    ("ctor_huge_allocation", "pyth.empty(2**42)", MemoryError, r"failed to allocate", ISOLATED),
    ("ctor_wrong_storage_type", "pyth.FloatTensor(pyth.IntStorage(3))", TypeError,
     r"expected a FloatStorage, got IntStorage"),
    ("ctor_wrong_tensor_type", "pyth.FloatTensor(pyth.IntTensor(3))", TypeError,
     r"expected a FloatTensor, got pyth.IntTensor"),
    ("ctor_sizes_and_junk", "pyth.FloatTensor(1, 2, 'x')", TypeError, r"sizes must be integers"),
    ("tensor_ragged", "pyth.tensor([[1, 2], [3]])", ValueError, r"expected sequence of length 2"),
    ("tensor_str_element", "pyth.tensor([1, 'a'])", TypeError, r"invalid data type 'str' at index \[1\]"),
    ("tensor_object", "pyth.tensor(object())", TypeError, r"invalid data type 'object'"),
    ("tensor_int_too_big", "pyth.tensor([2**64])", ValueError, r"Overflow when unpacking long"),
    ("tensor_dtype_str", "pyth.tensor([1.0], dtype='float')", TypeError, r"dtype must be a pyth dtype"),
    ("zeros_dtype_numpy", "pyth.zeros(2, dtype=np.float32)", TypeError, r"dtype must be a pyth dtype"),
    ("zeros_negative", "pyth.zeros(-1)", ValueError, r"negative size -1"),
    ("zeros_str_size", "pyth.zeros(2, '3')", TypeError, r"zeros\(\): sizes must be integers"),
    ("ones_float_size", "pyth.ones(1.5)", TypeError, r"ones\(\): sizes must be integers, got \(float\)"),
    ("zeros_65_dims", "pyth.zeros(*([1] * 65))", RuntimeError, r"65 dims requested, at most 64"),
    ("full_str_value", "pyth.full((2,), 'x')", TypeError, r"must be a number, not str"),
    ("full_int_overflow", "pyth.full((2,), 300, dtype=pyth.uint8)", RuntimeError,
     r"value 300 cannot be converted to type uint8"),
    ("empty_like_bad_dtype", "pyth.empty_like(v5, dtype='int')", TypeError, r"dtype must be"),
    ("arange_zero_step", "pyth.arange(0, 10, 0)", RuntimeError, r"step must be nonzero"),
    ("arange_infinite", "pyth.arange(0, float('inf'))", RuntimeError, r"unsupported range"),
    ("arange_wrong_sign", "pyth.arange(10, 0, 1)", RuntimeError, r"inconsistent with step sign"),
    ("arange_str", "pyth.arange('a')", TypeError, r"must be real numbers"),
    ("linspace_negative_steps", "pyth.linspace(0, 1, -1)", RuntimeError, r"non-negative"),
    ("linspace_str_steps", "pyth.linspace(0, 1, 'a')", TypeError, r"steps' must be int, not str"),
    ("eye_negative", "pyth.eye(-1)", ValueError, r"negative size -1"),
    ("default_dtype_int", "pyth.set_default_dtype(pyth.int32)", TypeError, r"only floating dtypes"),
    # ---- views ----
    ("narrow_past_end", "v5.narrow(0, 4, 2)", RuntimeError, r"narrow\(\): start 4 \+ length 2 exceeds size 5 of dim 0"),
    ("narrow_start_out", "v5.narrow(0, 6, 0)", IndexError, r"start 6 is out of range for dim 0 of size 5"),
    ("narrow_bad_dim", "m.narrow(2, 0, 1)", IndexError, r"narrow\(\): dim 2 is out of range for a tensor of 2 dims"),
    ("narrow_negative_length", "v5.narrow(0, 0, -1)", RuntimeError, r"length -1 must be non-negative"),
    ("narrow_0dim", "s0.narrow(0, 0, 1)", RuntimeError, r"cannot narrow a 0-dim tensor"),
    ("narrow_huge_start", "v5.narrow(0, 2**70, 1)", IndexError, r"start \d+ is out of range"),
    ("select_out", "v5.select(0, 5)", IndexError, r"select\(\): index 5 is out of range for dim 0 of size 5"),
    ("select_0dim", "s0.select(0, 0)", IndexError, r"cannot select from a 0-dim tensor"),
    ("select_int64_min", "v5.select(0, -2**63)", IndexError, r"out of range for dim 0"),
    ("transpose_bad_dim", "m.transpose(0, 3)", IndexError, r"transpose\(\): dim 3 is out of range"),
    ("transpose_huge_dim", "m.transpose(2**31, 0)", IndexError, r"dim 2147483648 is out of range"),
    ("permute_repeated", "m.permute(0, 0)", RuntimeError, r"permute\(\): dim 0 is repeated"),
    ("permute_too_few", "m.permute(0)", RuntimeError, r"does not match the tensor's \(2\)"),
    ("permute_bad_dim", "m.permute(0, 5)", IndexError, r"permute\(\): dim 5 is out of range"),
    ("unfold_too_big", "v5.unfold(0, 6, 1)", RuntimeError, r"unfold\(\): size 6 is out of range for dim 0 of size 5"),
    ("unfold_zero_step", "v5.unfold(0, 2, 0)", RuntimeError, r"step 0 must be positive"),
    ("view_wrong_numel", "m.view(7)", RuntimeError, r"shape '\[7\]' is invalid for input of size 6"),
    ("view_needs_copy", "m.t().view(-1)", RuntimeError, r"not compatible with input size .*use reshape"),
    ("view_two_inferred", "m.view(-1, -1)", RuntimeError, r"only one dimension can be inferred"),
    ("view_negative", "m.view(-2, 3)", RuntimeError, r"invalid shape dimension -2"),
    ("view_int64_overflow", "v5.view(2**63)", MemoryError, r"do not fit in int64"),
    ("view_empty_infer", "pyth.zeros(0).view(-1, 0)", RuntimeError, r"invalid for input of size 0"),
    ("reshape_wrong_numel", "m.reshape(4, 4)", RuntimeError, r"shape '\[4, 4\]' is invalid for input of size 6"),
    ("expand_mismatch", "m.expand(3, 2)", RuntimeError, r"expanded size 2 must match the existing size 3"),
    ("expand_fewer_dims", "m.expand(3)", RuntimeError, r"must be greater or equal to the number of dimensions"),
    ("expand_leading_minus_one", "m.expand(-1, 2, 3)", RuntimeError, r"not allowed in a leading, non-existing dimension"),
    ("diagonal_same_dims", "m.diagonal(0, 0, 0)", RuntimeError, r"dim1 and dim2 cannot be the same"),
    ("diagonal_bad_dim", "m.diagonal(0, 0, 5)", IndexError, r"diagonal\(\): dim 5 is out of range"),
    ("as_strided_outside", "v5.as_strided((10,), (1,))", RuntimeError, r"need a storage of 10 elements, but it has 5"),
    ("as_strided_negative_stride", "v5.as_strided((2,), (-1,))", ValueError, r"negative stride -1"),
    ("as_strided_negative_offset", "v5.as_strided((2,), (1,), -1)", ValueError, r"negative storage offset -1"),
    ("as_strided_length_mismatch", "v5.as_strided((2, 2), (1,))", RuntimeError, r"mismatch in length of strides and shape"),
    ("as_strided_extent_overflow", "v5.as_strided((2**62,), (2**62,))", RuntimeError, r"extent .* overflows int64"),
    ("as_strided_huge_offset", "v5.as_strided((2,), (1,), 2**62)", RuntimeError, r"need a storage of"),
    ("flatten_reversed", "m.flatten(1, 0)", RuntimeError, r"start_dim cannot come after end_dim"),
    ("flatten_bad_dim", "m.flatten(0, 5)", IndexError, r"flatten\(\): dim 5 is out of range"),
    ("squeeze_bad_dim", "m.squeeze(4)", IndexError, r"squeeze\(\): dim 4 is out of range"),
    ("unsqueeze_bad_dim", "m.unsqueeze(5)", IndexError, r"unsqueeze\(\): dim 5 is out of range"),
    ("unsqueeze_past_64", "pyth.zeros(*([1] * 64)).unsqueeze(0)", RuntimeError, r"more than 64 dims"),
    ("size_bad_dim", "m.size(5)", IndexError, r"size\(\): dim 5 is out of range"),
    ("stride_bad_dim", "m.stride(-4)", IndexError, r"stride\(\): dim -4 is out of range"),
    ("t_of_3d", "pyth.zeros(2, 2, 2).t()", RuntimeError, r"expects a tensor with <= 2 dimensions"),
    ("len_0dim", "len(s0)", TypeError, r"len\(\) of a 0-d tensor"),
    ("iter_0dim", "iter(s0)", TypeError, r"iteration over a 0-d tensor"),
    # ---- in-place geometry ----
    ("set_wrong_storage_type", "v5.set_(pyth.IntStorage(3))", TypeError, r"expected a FloatStorage"),
    ("set_wrong_tensor_type", "v5.set_(i3)", TypeError, r"expected a pyth.FloatTensor"),
    ("set_int", "v5.set_(1)", TypeError, r"expected a Storage or a Tensor, got int"),
    ("set_size_stride_lengths", "v5.set_(st3, 0, (2,), (1, 1))", RuntimeError, r"same length"),
    ("set_negative_offset", "v5.set_(st3, -1, (2,))", ValueError, r"negative storage offset -1"),
    ("set_borrowed_cannot_grow", "pyth.FloatTensor().set_(pyth.from_numpy(np.zeros(2, np.float32)).storage(), 0, (5,))",
     RuntimeError, r"'numpy' allocator cannot grow it", ISOLATED),
    ("resize_negative", "v5.resize_(-1)", ValueError, r"negative size -1"),
    ("resize_overflow", "v5.resize_(2**62, 4)", MemoryError, r"overflows int64"),
    ("resize_borrowed", "pyth.from_numpy(np.zeros(3)).resize_(100)", RuntimeError, r"cannot grow it", ISOLATED),
    ("resize_mapped_storage", "pyth.FloatStorage.from_file(small).resize_(100)", RuntimeError,
     r"'mapped' allocator cannot be resized", ISOLATED),
    # ---- copy, fill, conversions ----
    ("copy_shape_mismatch", "pyth.zeros(3).copy_(pyth.zeros(4))", RuntimeError, r"copy_\(\): shape \[4\] cannot be broadcast to shape \[3\]"),
    ("copy_into_expanded", "e33.copy_(pyth.ones(3, 3))", RuntimeError, r"single memory location .*dim 0 has size 3 and stride 0"),
    ("copy_str", "v5.copy_('abc')", TypeError, r"invalid data type 'str'"),
    ("copy_ragged_list", "m.copy_([[1, 2], [3]])", ValueError, r"expected sequence of length"),
    ("fill_tensor_with_dims", "v5.fill_(pyth.zeros(2))", RuntimeError, r"0-dimension value tensor but got tensor with 1 dimensions"),
    ("fill_int_overflow", "pyth.IntTensor(2).fill_(2**40)", RuntimeError, r"cannot be converted to type int32 without overflow"),
    ("fill_int_nan", "pyth.IntTensor(2).fill_(float('nan'))", RuntimeError, r"value nan cannot be converted"),
    ("fill_byte_negative", "pyth.ByteTensor(2).fill_(-1)", RuntimeError, r"value -1 cannot be converted to type uint8"),
    ("fill_str", "v5.fill_('x')", TypeError, r"float32 value must be a number, not str"),
    ("fill_bool_str", "pyth.BoolTensor(2).fill_('x')", TypeError, r"bool value must be a number"),
    ("fill_expanded_ok_setitem_not", "e33.__setitem__((slice(None), 0), 1.0)", RuntimeError, r"single memory location"),
    ("item_many", "m.item()", RuntimeError, r"a Tensor with 6 elements cannot be converted to Scalar"),
    ("bool_many", "bool(m)", RuntimeError, r"Boolean value of Tensor with more than one value is ambiguous"),
    ("bool_empty", "bool(pyth.zeros(0))", RuntimeError, r"Boolean value of Tensor with no values"),
    ("float_many", "float(m)", ValueError, r"only one element tensors"),
    ("int_many", "int(v5)", ValueError, r"only one element tensors"),
    ("operator_index_float", "operator.index(pyth.tensor(1.5))", TypeError, r"only integer tensors of a single element"),
    ("type_unknown_name", "v5.type('pyth.NoSuchTensor')", ValueError, r"invalid type 'pyth.NoSuchTensor'"),
    ("type_int", "v5.type(3)", TypeError, r"expected a tensor type, got 3"),
    ("to_cuda", "v5.to('cuda')", AssertionError, r"not compiled with CUDA enabled"),
    # ---- indexing ----
    ("index_out_of_range", "v5[5]", IndexError, r"index 5 is out of bounds for dimension 0 with size 5"),
    ("index_huge", "v5[2**70]", IndexError, r"out of bounds for dimension 0"),
    ("index_too_many", "m[0, 0, 0]", IndexError, r"too many indices for tensor of dimension 2"),
    ("index_two_ellipses", "m[..., ...]", IndexError, r"single ellipsis"),
    ("index_negative_step", "v5[::-1]", ValueError, r"step must be greater than zero"),
    ("index_str", "v5['a']", TypeError, r"invalid data type 'str'"),
    ("index_float", "v5[1.5]", IndexError, r"got float"),
    ("index_list_out_of_range", "v5[[0, 5]]", IndexError, r"index 5 is out of bounds for dimension 0 with size 5"),
    ("index_float_tensor", "v5[pyth.tensor([0.5])]", IndexError, r"must be long, int, byte or bool tensors"),
    ("index_mask_shape", "v5[pyth.tensor([True, False])]", IndexError, r"shape of the mask \[2\] at index 0 does not match"),
    ("index_not_broadcastable", "m[[0, 1], [0, 1, 2]]", IndexError, r"could not be broadcast together with shapes \[2\], \[3\]"),
    ("index_float_list", "v5[[0.5]]", IndexError, r"must be integer or bool"),
    ("setitem_shape", "m.__setitem__(0, pyth.zeros(5))", RuntimeError, r"The expanded size of the tensor \(3\) must match the existing size \(5\)"),
    ("setitem_advanced_shape", "m.__setitem__([0, 1], pyth.zeros(5))", RuntimeError, r"shape mismatch: value tensor of shape \[5\]"),
    ("setitem_str", "v5.__setitem__(0, 'x')", TypeError, r"invalid data type 'str'"),
    ("setitem_overflow", "i3.__setitem__(0, 2**70)", RuntimeError, r"cannot be converted to type int64 without overflow"),
    # ---- numpy bridge ----
    ("from_numpy_list", "pyth.from_numpy([1, 2])", TypeError, r"expected np.ndarray \(got list\)"),
    ("from_numpy_complex", "pyth.from_numpy(np.zeros(3, dtype=complex))", TypeError, r"can't convert np.ndarray of type complex128"),
    ("from_numpy_object", "pyth.from_numpy(np.zeros(3, dtype=object))", TypeError, r"type object"),
    ("from_numpy_record", "pyth.from_numpy(np.zeros(3, dtype=[('a', 'f4')]))", TypeError, r"can't convert"),
    ("from_numpy_negative_strides", "pyth.from_numpy(np.zeros(3)[::-1])", ValueError, r"negative strides are not supported"),
    ("from_numpy_byteorder", "pyth.from_numpy(np.zeros(3, dtype='>f4'))", ValueError, r"byte order"),
    ("from_numpy_misaligned_strides", "pyth.from_numpy(np.lib.stride_tricks.as_strided(np.zeros(4, np.float32), (2,), (6,)))",
     ValueError, r"not multiples of the element size 4", ISOLATED),
    ("numpy_of_bfloat16", "bf.numpy()", TypeError, r"bfloat16 has no numpy equivalent"),
    ("array_bfloat16_nocopy", "bf.__array__(copy=False)", ValueError, r"bfloat16 has no numpy equivalent"),
    ("array_dtype_nocopy", "v5.__array__(dtype=np.float64, copy=False)", ValueError, r"needs a copy"),
    # ---- storage ----
    ("storage_negative", "pyth.FloatStorage(-1)", ValueError, r"negative storage size -1"),
    ("storage_overflow", "pyth.FloatStorage(2**62)", MemoryError, r"overflow the address space"),
    ("storage_huge_allocation", "pyth.FloatStorage(2**45)", MemoryError, r"failed to allocate", ISOLATED),
    ("storage_get_out", "st3[3]", IndexError, r"storage index 3 is out of range for size 3"),
    ("storage_get_negative_out", "st3[-4]", IndexError, r"storage index -4 is out of range for size 3"),
    ("storage_get_float", "st3[1.5]", TypeError, r"'float' object cannot be interpreted as an integer"),
    ("storage_set_str", "st3.__setitem__(0, 'x')", TypeError, r"float32 value must be a number, not str"),
    ("storage_set_out", "st3.__setitem__(5, 1.0)", IndexError, r"out of range for size 3"),
    ("storage_resize_negative", "st3.resize_(-1)", ValueError, r"negative storage size -1"),
    ("storage_resize_overflow", "st3.resize_(2**62)", MemoryError, r"overflow the address space"),
    ("storage_resize_str", "st3.resize_('a')", TypeError, r"'str' object cannot be interpreted as an integer"),
    ("storage_copy_size", "st3.copy_(pyth.FloatStorage(4))", RuntimeError, r"storage sizes do not match \(3 and 4\)"),
    ("storage_copy_tensor", "st3.copy_(v5)", TypeError, r"expected a Storage, got FloatTensor"),
    ("storage_type_int", "st3.type(3)", TypeError, r"expected a Storage class or a dtype"),
    ("storage_from_str_list", "pyth.FloatStorage([1, 'a'])", TypeError, r"invalid data type 'str'"),
    ("storage_from_float", "pyth.FloatStorage(3.5)", TypeError, r"not iterable"),
    ("storage_borrowed_resize", "pyth.from_numpy(np.zeros(3)).storage().resize_(10)", RuntimeError,
     r"'numpy' allocator cannot be resized \(from 3 to 10", ISOLATED),
    # ---- mapped files and shared memory ----
    ("mapped_missing_dir", "pyth.FloatStorage.from_file('/nonexistent/dir/x.bin', shared=True, size=10)", RuntimeError,
     r"unable to open '/nonexistent/dir/x.bin' for shared mapping: No such file", ISOLATED),
    ("mapped_missing_private", "pyth.FloatStorage.from_file(os.path.join(tmpdir, 'nope.bin'))", RuntimeError,
     r"read-only for private mapping: No such file", ISOLATED),
    ("mapped_too_short", "pyth.FloatStorage.from_file(small, shared=False, size=100)", RuntimeError,
     r"is too short: it has 8 bytes, the storage needs 400", ISOLATED),
    ("mapped_directory", "pyth.FloatStorage.from_file(tmpdir)", RuntimeError, r"unable to map", ISOLATED),
    ("mapped_negative_size", "pyth.FloatStorage.from_file(small, shared=True, size=-1)", ValueError,
     r"negative storage size -1", ISOLATED),
    ("mapped_nul_in_name", "pyth.FloatStorage.from_file(small + '\\0.x')", ValueError, r"embedded null byte", ISOLATED),
    ("mapped_name_not_path", "pyth.FloatStorage.from_file(123)", TypeError, r"int", ISOLATED),
    ("shared_resize", "pyth.FloatStorage(3).share_memory_().resize_(10)", RuntimeError,
     r"'shared' allocator cannot be resized", ISOLATED),
    # ---- a storage shrunk under its tensors: every access must be refused, not read ----
    ("shrunk_clone", "t = pyth.zeros(10); t.storage().resize_(2); t.clone()", RuntimeError,
     r"reaches storage element 9, but its storage has only 2 elements", ISOLATED),
    ("shrunk_fill", "t = pyth.zeros(10); t.storage().resize_(2); t.fill_(1)", RuntimeError,
     r"fill_\(\): the tensor reaches storage element 9", ISOLATED),
    ("shrunk_add", "t = pyth.zeros(10); t.storage().resize_(2); t + 1", RuntimeError, r"add\(\): the tensor reaches", ISOLATED),
    ("shrunk_exp_out", "t = pyth.zeros(10); o = pyth.zeros(10); o.storage().resize_(0); pyth.exp(t, out=o)",
     RuntimeError, r"exp\(\): the tensor reaches", ISOLATED),
    ("shrunk_numpy", "t = pyth.zeros(10); t.storage().resize_(2); t.numpy()", RuntimeError, r"numpy\(\): the tensor reaches", ISOLATED),
    ("shrunk_item", "t = pyth.zeros(10)[9]; t.storage().resize_(2); t.item()", RuntimeError, r"item\(\)", ISOLATED),
    ("shrunk_index_view", "t = pyth.zeros(10); t.storage().resize_(2); t[5:]", RuntimeError, r"need a storage of 10 elements, but it has 2", ISOLATED),
    ("shrunk_index_gather", "t = pyth.zeros(10); t.storage().resize_(2); t[[0, 7]]", RuntimeError, r"need a storage of 10 elements, but it has 2|reaches storage element", ISOLATED),
    ("shrunk_copy_src", "t = pyth.zeros(10); t.storage().resize_(0); pyth.zeros(10).copy_(t)", RuntimeError, r"copy_\(\): the tensor reaches", ISOLATED),
    ("shrunk_tolist", "t = pyth.zeros(4); t.storage().resize_(0); t.tolist()", RuntimeError, r"the tensor reaches", ISOLATED),
    ("shrunk_repr", "t = pyth.zeros(4); t.storage().resize_(0); repr(t)", RuntimeError, r"the tensor reaches", ISOLATED),
    # ---- pointwise ----
    ("add_two_scalars", "pyth.add(1, 2)", TypeError, r"add\(\): expected at least one Tensor argument"),
    ("add_str", "pyth.add(v5, 'x')", TypeError, r"unsupported operand type: str"),
    ("exp_list", "pyth.exp([1, 2])", TypeError, r"exp\(\): argument 'input' must be Tensor, not list"),
    ("isnan_list", "pyth.isnan([1.0])", TypeError, r"isnan\(\): argument 'input' must be Tensor, not list"),
    ("add_broadcast", "pyth.add(m, pyth.zeros(4))", RuntimeError, r"size of tensor a \(3\) must match the size of tensor b \(4\)"),
    ("div_bad_rounding", "pyth.div(v5, v5, rounding_mode='round')", RuntimeError, r"rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'"),
    ("bitwise_float", "pyth.bitwise_and(v5, v5)", RuntimeError, r"bitwise_and\(\): not implemented for 'Float'"),
    ("shift_float", "v5 << 1", RuntimeError, r"not implemented for 'Float'"),
    ("floor_divide_int_zero", "i3 // pyth.zeros(3, dtype=pyth.int64)", RuntimeError, r"ZeroDivisionError"),
    ("remainder_int_zero", "i3 % 0", RuntimeError, r"ZeroDivisionError"),
    ("fmod_int_zero", "pyth.fmod(i3, 0)", RuntimeError, r"fmod\(\): ZeroDivisionError"),
    ("pow_int_negative_scalar", "i3 ** -1", RuntimeError, r"integers to negative integer powers are not allowed"),
    ("sub_bool", "b3 - b3", RuntimeError, r"not implemented for 'Bool'|bool tensors? is not supported"),
    ("sub_bool_scalar", "i3 - True", RuntimeError, r"with a bool tensor is not supported"),
    ("neg_bool", "-b3", RuntimeError, r"negation, the `-` operator, on a bool tensor"),
    ("abs_bool", "pyth.abs(b3)", RuntimeError, r"abs\(\): not implemented for 'Bool'"),
    ("where_float_cond", "pyth.where(v5, v5, v5)", RuntimeError, r"expected condition to be a bool tensor"),
    ("where_str", "pyth.where(b3, i3, 'x')", TypeError, r"unsupported operand type: str"),
    ("clamp_no_bounds", "pyth.clamp(v5)", RuntimeError, r"at least one of 'min' or 'max'"),
    ("clamp_str_bound", "pyth.clamp(v5, 'a')", TypeError, r"unsupported operand type: str"),
    ("addcdiv_int", "pyth.addcdiv(i3, i3, i3)", RuntimeError, r"integer division with addcdiv is not supported"),
    ("fill_int8_overflow", "pyth.tensor([1], dtype=pyth.int8).fill_(1000)", RuntimeError, r"value 1000 cannot be converted to type int8"),
    ("alpha_float_int", "pyth.add(i3, i3, alpha=0.5)", RuntimeError, r"alpha must not be a floating point number"),
    # ---- out= ----
    ("out_not_tensor", "pyth.add(v5, v5, out=[1])", TypeError, r"out must be a Tensor, not list"),
    ("out_cannot_cast", "pyth.add(v5, v5, out=pyth.zeros(5, dtype=pyth.int32))", RuntimeError,
     r"result type Float can't be cast to the desired output type Int"),
    ("out_bool", "pyth.exp(v5, out=pyth.zeros(5, dtype=pyth.bool))", RuntimeError, r"can't be cast to the desired output type Bool"),
    ("out_expanded", "pyth.add(m.new_tensor if False else pyth.ones(3, 3), 1, out=e33)", RuntimeError, r"single memory location"),
    ("out_borrowed_cannot_grow", "pyth.add(v5, v5, out=pyth.from_numpy(np.zeros(2, np.float32)))", RuntimeError,
     r"cannot grow it", ISOLATED),
    # ---- in-place ----
    ("inplace_broadcast_grows_self", "pyth.zeros(3).add_(pyth.zeros(2, 3))", RuntimeError,
     r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"),
    ("inplace_float_into_int", "i3.add_(1.5)", RuntimeError, r"result type Float can't be cast to the desired output type Long"),
    ("inplace_div_int", "i3.div_(2)", RuntimeError, r"can't be cast to the desired output type Long"),
    ("inplace_bool_add_int", "b3.add_(1)", RuntimeError, r"can't be cast to the desired output type Bool"),
    ("inplace_expanded", "e33.add_(1)", RuntimeError, r"single memory location"),
    ("inplace_exp_int", "i3.exp_()", RuntimeError, r"can't be cast to the desired output type Long"),
    ("inplace_clamp_no_bounds", "v5.clamp_()", RuntimeError, r"at least one of 'min' or 'max'"),
    # ---- layers, losses, optimizers, data (each names the layer and the sizes) ----
    ("conv2d_channels", "pyth.nn.Conv2d(3, 4, 3)(pyth.randn(2, 4, 8, 8))", RuntimeError,
     r"weight of size \[4, 3, 3, 3\], expected input\[2, 4, 8, 8\] to have 3 channels, but got 4"),
    ("conv2d_rank", "pyth.nn.Conv2d(3, 4, 3)(pyth.randn(8, 8))", RuntimeError,
     r"Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d, but got input of size: \[8, 8\]"),
    ("conv2d_kernel_too_big", "pyth.nn.Conv2d(3, 4, 9)(pyth.randn(2, 3, 8, 8))", RuntimeError,
     r"padded input size per channel: \(8 x 8\). Kernel size: \(9 x 9\)"),
    ("conv2d_groups", "pyth.nn.Conv2d(3, 4, 3, groups=2)", ValueError,
     r"in_channels must be divisible by groups"),
    ("conv2d_negative_padding", "pyth.nn.functional.conv2d(pyth.randn(1, 3, 8, 8), "
     "pyth.randn(4, 3, 3, 3), padding=-1)", RuntimeError, r"conv2d\(\): negative padding"),
    ("conv2d_zero_stride", "pyth.nn.functional.conv2d(pyth.randn(1, 3, 8, 8), "
     "pyth.randn(4, 3, 3, 3), stride=0)", RuntimeError, r"conv2d\(\): non-positive stride"),
    ("conv1d_channels", "pyth.nn.Conv1d(2, 4, 3)(pyth.randn(1, 3, 10))", RuntimeError,
     r"expected input\[1, 3, 10\] to have 2 channels, but got 3"),
    ("conv_transpose_channels", "pyth.nn.ConvTranspose2d(3, 4, 3)(pyth.randn(1, 5, 4, 4))",
     RuntimeError, r"expected input\[1, 5, 4, 4\] to have 3 channels, but got 5"),
    ("maxpool_padding", "pyth.nn.MaxPool2d(2, padding=2)(pyth.randn(1, 3, 8, 8))", RuntimeError,
     r"pad should be at most half of effective kernel size, but got pad=2, kernel_size=2"),
    ("maxpool_rank", "pyth.nn.MaxPool2d(2)(pyth.randn(8))", RuntimeError,
     r"max_pool2d: Expected 3D or 4D .* but got: \[8\]"),
    ("avgpool_output_too_small", "pyth.nn.AvgPool2d(9)(pyth.randn(1, 3, 8, 8))", RuntimeError,
     r"Given input size: \(3x8x8\). Calculated output size: \(3x0x0\)"),
    ("batchnorm_channels", "pyth.nn.BatchNorm2d(4)(pyth.randn(2, 3, 8, 8))", RuntimeError,
     r"batch_norm\(\): expected input with 4 channels, got 3"),
    ("batchnorm_rank", "pyth.nn.BatchNorm2d(3)(pyth.randn(3, 8))", ValueError,
     r"expected 4D input \(got 2D input\)"),
    ("batchnorm_one_value", "pyth.nn.BatchNorm1d(3)(pyth.randn(1, 3))", ValueError,
     r"Expected more than 1 value per channel when training"),
    ("layernorm_shape", "pyth.nn.LayerNorm(5)(pyth.randn(2, 3))", RuntimeError,
     r"normalized_shape=\[5\], expected input with shape \[\*, 5\], but got input of size\s?\[2, 3\]"),
    ("groupnorm_groups", "pyth.nn.GroupNorm(2, 3)", ValueError,
     r"num_channels \(3\) must be divisible by num_groups \(2\)"),
    ("embedding_index", "pyth.nn.Embedding(4, 2)(pyth.tensor([1, 4]))", IndexError,
     r"embedding\(\): index 4 is out of range for 4 embeddings"),
    ("embedding_float_index", "pyth.nn.Embedding(4, 2)(pyth.tensor([1.0]))", RuntimeError,
     r"embedding\(\): expected indices of dtype int64 or int32, got Float"),
    ("linear_features", "pyth.nn.Linear(5, 2)(pyth.randn(3, 4))", RuntimeError,
     r"linear\(\): input's last dim \(4\) does not match in_features of the weight \(5\)"),
    ("lstm_input_size", "pyth.nn.LSTM(4, 3)(pyth.randn(5, 2, 6))", RuntimeError,
     r"input.size\(-1\) must be equal to input_size. Expected 4, got 6"),
    ("lstm_rank", "pyth.nn.LSTM(4, 3)(pyth.randn(4))", ValueError,
     r"LSTM: Expected input to be 2D or 3D, got 1D"),
    ("gru_hidden", "pyth.nn.GRU(4, 3)(pyth.randn(5, 2, 4), pyth.randn(1, 3, 3))", RuntimeError,
     r"Expected hidden size \(1, 2, 3\), got \[1, 3, 3\]"),
    ("cross_entropy_target_range", "pyth.nn.functional.cross_entropy(pyth.randn(3, 5), "
     "pyth.tensor([0, 5, 1]))", IndexError, r"target 5 is out of bounds for 5 classes"),
    ("cross_entropy_batch", "pyth.nn.functional.cross_entropy(pyth.randn(3, 5), "
     "pyth.tensor([0, 1]))", ValueError, r"expected input batch_size \(3\) to match target "
     r"batch_size \(2\)"),
    ("cross_entropy_target_shape", "pyth.nn.functional.cross_entropy(pyth.randn(3, 5), "
     "pyth.tensor([[0], [1], [2]]))", RuntimeError, r"expected target of size .* for input of "
     r"size \[3, 5\], got \[3, 1\]"),
    ("loss_reduction", "pyth.nn.functional.cross_entropy(pyth.randn(3, 5), pyth.tensor([0, 1, 2]),"
     " reduction='avg')", ValueError, r"avg is not a valid value for reduction"),
    ("nll_float_target", "pyth.nn.functional.nll_loss(pyth.randn(3, 5), "
     "pyth.tensor([0., 1., 2.]))", RuntimeError, r"expected target of dtype int64"),
    ("mse_shapes", "pyth.nn.functional.mse_loss(pyth.randn(3), pyth.randn(4))", RuntimeError,
     r"size of tensor a \(3\) must match the size of tensor b \(4\)"),
    ("bce_input_range", "pyth.nn.functional.binary_cross_entropy(pyth.tensor([1.5]), "
     "pyth.tensor([1.0]))", RuntimeError, r"all elements of input should be between 0 and 1"),
    ("bce_shapes", "pyth.nn.functional.binary_cross_entropy(pyth.rand(3), pyth.rand(4))",
     ValueError, r"target size \(\[4\]\) that is different to the input size \(\[3\]\)"),
    ("dropout_p", "pyth.nn.Dropout(1.5)", ValueError, r"between 0 and 1, but got 1.5"),
    ("sgd_lr", "pyth.optim.SGD([pyth.zeros(2, requires_grad=True)], lr=-1)", ValueError,
     r"Invalid learning rate: -1"),
    ("adam_betas", "pyth.optim.Adam([pyth.zeros(2, requires_grad=True)], betas=(1.0, 0.9))",
     ValueError, r"Invalid beta parameter at index 0: 1.0"),
    ("sgd_nesterov", "pyth.optim.SGD([pyth.zeros(2, requires_grad=True)], lr=0.1, "
     "nesterov=True)", ValueError, r"Nesterov momentum requires a momentum and zero dampening"),
    ("optimizer_no_params", "pyth.optim.SGD([], lr=0.1)", ValueError,
     r"optimizer got an empty parameter list"),
    ("scheduler_not_optimizer", "pyth.optim.lr_scheduler.StepLR(None, 2)", TypeError,
     r"NoneType is not an Optimizer"),
    ("load_state_dict_shape", "pyth.nn.Linear(2, 2).load_state_dict({'weight': pyth.zeros(3, 2),"
     " 'bias': pyth.zeros(2)})", RuntimeError, r"size mismatch for weight"),
    ("dataloader_batch_size", "pyth.utils.data.DataLoader(range(4), batch_size=0)", ValueError,
     r"batch_size should be a positive integer value, but got batch_size=0"),
    ("dataloader_workers", "pyth.utils.data.DataLoader(range(4), num_workers=-1)", ValueError,
     r"num_workers option should be non-negative"),
]
_ROWS = [(c[0], c[1], c[2], c[3], len(c) > 4 and c[4]) for c in CASES]


def test_there_are_over_100_cases():
    assert len(_ROWS) >= 100
    assert len({r[0] for r in _ROWS}) == len(_ROWS), "case ids must be unique"


@pytest.fixture(scope="module")
def namespace():
    ns: dict = {}
    exec(SETUP, ns)  # noqa: S102  (this file's own setup code)
    return ns


def _run_here(code: str, ns: dict) -> None:
    scope = dict(ns)
    *stmts, last = code.split("; ")
    for s in stmts:
        exec(s, scope)  # noqa: S102  (this file's own CASES)
    eval(last, scope)


@pytest.mark.parametrize("cid,code,exc,words", [r[:4] for r in _ROWS if not r[4]],
                         ids=[r[0] for r in _ROWS if not r[4]])
def test_misuse_raises(cid, code, exc, words, namespace):
    with pytest.raises(exc) as info:
        _run_here(code, namespace)
    assert re.search(words, str(info.value)), f"{cid}: message {str(info.value)!r} lacks {words!r}"


_CHILD = SETUP + r'''
import json, sys
code = sys.argv[1]
*stmts, last = code.split("; ")
try:
    for s in stmts:
        exec(s)
    eval(last)
    print(json.dumps({"raised": None}))
except BaseException as e:
    print(json.dumps({"raised": type(e).__name__, "mro": [c.__name__ for c in type(e).__mro__],
                      "message": str(e)}))
'''


@pytest.mark.parametrize("cid,code,exc,words", [r[:4] for r in _ROWS if r[4]],
                         ids=[r[0] for r in _ROWS if r[4]])
def test_misuse_raises_isolated(cid, code, exc, words):
    """Cases that could crash the interpreter run in a child: a crash fails this test."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(os.path.dirname(pyth.__file__))] +
                                        [p for p in sys.path if p])
    # cwd: the tests folder, so the child's first path entry is not a source checkout whose
    # pyth/ has no compiled core (CI runs from one, against the installed package)
    r = subprocess.run([sys.executable, "-c", _CHILD, code], capture_output=True, text=True,
                       timeout=120, env=env, check=False,
                       cwd=os.path.dirname(os.path.abspath(__file__)))
    assert r.returncode == 0, f"{cid}: child died with {r.returncode}:\n{r.stderr[-3000:]}"
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["raised"] is not None, f"{cid}: no exception"
    assert exc.__name__ in out["mro"], f"{cid}: raised {out['raised']}: {out['message']}"
    assert re.search(words, out["message"]), f"{cid}: message {out['message']!r} lacks {words!r}"
