"""Oracle tests for pyth's view operations.

Every view (narrow, select, transpose, t, T, permute, unfold, squeeze, unsqueeze, view,
reshape, expand, expand_as, flatten, diagonal, as_strided) is checked for sizes, strides,
storage offset, values and storage sharing against numpy (always) and PyTorch (when
installed), over several dtypes and input layouts (contiguous, transposed, stepped, offset),
0-dim tensors and size-0 dims.  Also: error paths, is_contiguous, contiguous(), clone(),
is_set_to, set_, resize_, resize_as_.
"""
import numpy as np
import pytest
from _support import (
    DTYPE_NAMES,
    NP_CARRIER,
    ROOTED_LAYOUTS,
    TH_NAME,
    c_strides,
    distinct_values,
    kw,
    np_offset,
    np_via_tolist,
    pdt,
    rooted_view,
    run_all,
    same_storage,
    tensor_of,
    torch_values,
)
from numpy.lib.stride_tricks import as_strided as np_as_strided
from numpy.lib.stride_tricks import sliding_window_view

import pyth

# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def np_strides(a):
    return tuple(s // a.itemsize for s in a.strides)


def np_unfold(a, d, size, step):
    d = d % a.ndim
    w = sliding_window_view(a, size, axis=d)
    idx = [slice(None)] * w.ndim
    idx[d] = slice(None, None, step)
    return w[tuple(idx)]


def np_view(shape):
    return lambda a: np.reshape(a, shape, copy=False)


def np_flatten(start=0, end=-1):
    def f(a):
        if a.ndim == 0:
            return a.reshape(1)
        s, e = start % a.ndim, end % a.ndim
        return a.reshape(a.shape[:s] + (-1,) + a.shape[e + 1:])
    return f


def check_geometry_np(vp, vn, rn, rp=None, view=True):
    """vp (pyth) against vn (numpy view of rn)."""
    assert tuple(vp.shape) == vn.shape
    assert vp.dim() == vn.ndim
    assert vp.numel() == vn.size
    got, exp = tuple(vp.stride()), np_strides(vn)
    assert len(got) == vn.ndim
    for d in range(vn.ndim):
        if vn.shape[d] > 1:
            assert got[d] == exp[d], f"stride of dim {d}: got {got}, numpy {exp}"
    if vn.size > 0:
        assert vp.storage_offset() == np_offset(vn, rn)
    np.testing.assert_array_equal(np_via_tolist(vp), vn)
    if view and rp is not None:
        assert same_storage(vp, rp), "a view must share its base's storage"
        if vn.size > 0:
            assert vp.data_ptr() == (vp.storage().data_ptr()
                                     + vp.storage_offset() * vp.element_size())


# --------------------------------------------------------------------------------------------
# the table of views: (id, shape, op applied to pyth / torch tensors, numpy mirror, kind)
#   kind "view": must be a view; "maybe_copy": view exactly when numpy can view, else a copy;
#   "view_or_error": a view when numpy can view without copy, else RuntimeError.
# --------------------------------------------------------------------------------------------

S3 = (3, 4, 5)
S4 = (4, 5, 6)

CASES = [
    # narrow
    ("narrow_d0", S3, lambda x: x.narrow(0, 1, 2), lambda a: a[1:3], "view"),
    ("narrow_d1", S3, lambda x: x.narrow(1, 0, 4), lambda a: a[:, 0:4], "view"),
    ("narrow_last_one", S3, lambda x: x.narrow(2, 4, 1), lambda a: a[:, :, 4:5], "view"),
    ("narrow_negdim", S3, lambda x: x.narrow(-1, 1, 3), lambda a: a[..., 1:4], "view"),
    ("narrow_negdim_first", S3, lambda x: x.narrow(-3, 2, 1), lambda a: a[2:3], "view"),
    ("narrow_len0", S3, lambda x: x.narrow(1, 2, 0), lambda a: a[:, 2:2], "view"),
    ("narrow_at_end_len0", S3, lambda x: x.narrow(1, 4, 0), lambda a: a[:, 4:4], "view"),
    ("narrow_negstart", S3, lambda x: x.narrow(2, -2, 2), lambda a: a[:, :, 3:5], "view"),
    ("narrow_1d", (6,), lambda x: x.narrow(0, 2, 3), lambda a: a[2:5], "view"),
    ("narrow_zero_size_dim", (0, 3), lambda x: x.narrow(1, 1, 2), lambda a: a[:, 1:3], "view"),
    # select
    ("select_d0", S3, lambda x: x.select(0, 1), lambda a: a[1], "view"),
    ("select_neg_index", S3, lambda x: x.select(1, -1), lambda a: a[:, -1], "view"),
    ("select_negdim", S3, lambda x: x.select(-1, 2), lambda a: a[..., 2], "view"),
    ("select_1d_to_0d", (6,), lambda x: x.select(0, 4), lambda a: a[4, ...], "view"),
    ("select_1d_neg", (6,), lambda x: x.select(-1, -6), lambda a: a[0, ...], "view"),
    ("select_zero_size_other", (0, 3), lambda x: x.select(1, 2), lambda a: a[:, 2], "view"),
    # transpose / t / T
    ("transpose_01", S3, lambda x: x.transpose(0, 1), lambda a: np.swapaxes(a, 0, 1), "view"),
    ("transpose_02", S3, lambda x: x.transpose(0, 2), lambda a: np.swapaxes(a, 0, 2), "view"),
    ("transpose_neg", S3, lambda x: x.transpose(-1, -3), lambda a: np.swapaxes(a, 2, 0), "view"),
    ("transpose_same", S3, lambda x: x.transpose(1, 1), lambda a: a, "view"),
    ("transpose_2d", (4, 6), lambda x: x.transpose(1, 0), lambda a: a.T, "view"),
    ("transpose_0d", (), lambda x: x.transpose(0, -1), lambda a: a, "view"),
    ("t_2d", (4, 6), lambda x: x.t(), lambda a: a.T, "view"),
    ("t_1d", (6,), lambda x: x.t(), lambda a: a, "view"),
    ("t_0d", (), lambda x: x.t(), lambda a: a, "view"),
    ("t_zero_size", (0, 3), lambda x: x.t(), lambda a: a.T, "view"),
    ("T_2d", (4, 6), lambda x: x.T, lambda a: a.T, "view"),
    # permute
    ("permute_201", S3, lambda x: x.permute(2, 0, 1), lambda a: a.transpose(2, 0, 1), "view"),
    ("permute_tuple", S3, lambda x: x.permute((1, 2, 0)), lambda a: a.transpose(1, 2, 0), "view"),
    ("permute_neg", S3, lambda x: x.permute(-1, 0, -2), lambda a: a.transpose(2, 0, 1), "view"),
    ("permute_identity", S3, lambda x: x.permute(0, 1, 2), lambda a: a, "view"),
    ("permute_4d", (2, 3, 4, 5), lambda x: x.permute(3, 1, 0, 2),
     lambda a: a.transpose(3, 1, 0, 2), "view"),
    ("permute_0d", (), lambda x: x.permute(()), lambda a: a, "view"),
    ("permute_zero_size", (2, 0, 3), lambda x: x.permute(2, 1, 0),
     lambda a: a.transpose(2, 1, 0), "view"),
    # unfold
    ("unfold_1d", (7,), lambda x: x.unfold(0, 2, 1), lambda a: np_unfold(a, 0, 2, 1), "view"),
    ("unfold_1d_step", (7,), lambda x: x.unfold(0, 3, 2), lambda a: np_unfold(a, 0, 3, 2), "view"),
    ("unfold_1d_full", (7,), lambda x: x.unfold(0, 7, 1), lambda a: np_unfold(a, 0, 7, 1), "view"),
    ("unfold_step_gt_size", (7,), lambda x: x.unfold(0, 2, 3),
     lambda a: np_unfold(a, 0, 2, 3), "view"),
    ("unfold_mid", S3, lambda x: x.unfold(1, 2, 1), lambda a: np_unfold(a, 1, 2, 1), "view"),
    ("unfold_first", S3, lambda x: x.unfold(0, 2, 1), lambda a: np_unfold(a, 0, 2, 1), "view"),
    ("unfold_negdim", S3, lambda x: x.unfold(-1, 3, 2), lambda a: np_unfold(a, 2, 3, 2), "view"),
    ("unfold_size1", S3, lambda x: x.unfold(2, 1, 3), lambda a: np_unfold(a, 2, 1, 3), "view"),
    # squeeze / unsqueeze
    ("squeeze_all", (1, 3, 1, 4), lambda x: x.squeeze(), lambda a: np.squeeze(a), "view"),
    ("squeeze_all_to_0d", (1, 1), lambda x: x.squeeze(), lambda a: np.squeeze(a), "view"),
    ("squeeze_nothing", (3, 4), lambda x: x.squeeze(), lambda a: a, "view"),
    ("squeeze_d0", (1, 3, 1, 4), lambda x: x.squeeze(0), lambda a: np.squeeze(a, 0), "view"),
    ("squeeze_d2", (1, 3, 1, 4), lambda x: x.squeeze(2), lambda a: np.squeeze(a, 2), "view"),
    ("squeeze_negdim", (1, 3, 1, 4), lambda x: x.squeeze(-2), lambda a: np.squeeze(a, 2), "view"),
    ("squeeze_noop_dim", (1, 3, 1, 4), lambda x: x.squeeze(1), lambda a: a, "view"),
    ("squeeze_0d", (), lambda x: x.squeeze(), lambda a: a, "view"),
    ("squeeze_0d_dim", (), lambda x: x.squeeze(0), lambda a: a, "view"),
    ("squeeze_zero_size", (1, 0, 1), lambda x: x.squeeze(), lambda a: np.squeeze(a), "view"),
    ("unsqueeze_0", (3, 4), lambda x: x.unsqueeze(0), lambda a: np.expand_dims(a, 0), "view"),
    ("unsqueeze_1", (3, 4), lambda x: x.unsqueeze(1), lambda a: np.expand_dims(a, 1), "view"),
    ("unsqueeze_end", (3, 4), lambda x: x.unsqueeze(2), lambda a: np.expand_dims(a, 2), "view"),
    ("unsqueeze_neg1", (3, 4), lambda x: x.unsqueeze(-1), lambda a: np.expand_dims(a, -1), "view"),
    ("unsqueeze_neg3", (3, 4), lambda x: x.unsqueeze(-3), lambda a: np.expand_dims(a, -3), "view"),
    ("unsqueeze_0d", (), lambda x: x.unsqueeze(0), lambda a: np.expand_dims(a, 0), "view"),
    ("unsqueeze_0d_neg", (), lambda x: x.unsqueeze(-1), lambda a: np.expand_dims(a, 0), "view"),
    # view
    ("view_flat", S3, lambda x: x.view(60), np_view((60,)), "view_or_error"),
    ("view_12_5", S3, lambda x: x.view(12, 5), np_view((12, 5)), "view_or_error"),
    ("view_tuple", S3, lambda x: x.view((12, 5)), np_view((12, 5)), "view_or_error"),
    ("view_infer_only", S3, lambda x: x.view(-1), np_view((-1,)), "view_or_error"),
    ("view_infer_last", S3, lambda x: x.view(3, -1), np_view((3, -1)), "view_or_error"),
    ("view_infer_mid", S3, lambda x: x.view(2, -1, 5, 1), np_view((2, -1, 5, 1)), "view_or_error"),
    ("view_5_4_3", S3, lambda x: x.view(5, 4, 3), np_view((5, 4, 3)), "view_or_error"),
    ("view_identity", S3, lambda x: x.view(3, 4, 5), np_view((3, 4, 5)), "view_or_error"),
    ("view_add_ones", S3, lambda x: x.view(1, 3, 4, 1, 5), np_view((1, 3, 4, 1, 5)),
     "view_or_error"),
    ("view_merge_front", S3, lambda x: x.view(12, 5), np_view((12, 5)), "view_or_error"),
    ("view_merge_back", S3, lambda x: x.view(3, 20), np_view((3, 20)), "view_or_error"),
    ("view_0d_to_1", (), lambda x: x.view(1), np_view((1,)), "view_or_error"),
    ("view_0d_infer", (), lambda x: x.view(-1), np_view((-1,)), "view_or_error"),
    ("view_0d_to_1x1", (), lambda x: x.view(1, 1), np_view((1, 1)), "view_or_error"),
    ("view_1_to_0d", (1,), lambda x: x.view(()), np_view(()), "view_or_error"),
    ("view_zero_size_infer", (0, 3), lambda x: x.view(-1), np_view((-1,)), "view_or_error"),
    ("view_zero_size_3_0", (0, 3), lambda x: x.view(3, 0), np_view((3, 0)), "view_or_error"),
    # reshape
    ("reshape_flat", S3, lambda x: x.reshape(60), lambda a: a.reshape(60), "maybe_copy"),
    ("reshape_infer", S3, lambda x: x.reshape(-1, 5), lambda a: a.reshape(-1, 5), "maybe_copy"),
    ("reshape_tuple", S3, lambda x: x.reshape((5, 12)), lambda a: a.reshape(5, 12), "maybe_copy"),
    ("reshape_same", S3, lambda x: x.reshape(3, 4, 5), lambda a: a.reshape(3, 4, 5), "maybe_copy"),
    ("reshape_add_ones", S3, lambda x: x.reshape(3, 1, 4, 5),
     lambda a: a.reshape(3, 1, 4, 5), "maybe_copy"),
    ("reshape_0d", (), lambda x: x.reshape(1), lambda a: a.reshape(1), "maybe_copy"),
    ("reshape_to_0d", (1, 1), lambda x: x.reshape(()), lambda a: a.reshape(()), "maybe_copy"),
    ("reshape_zero_size", (0, 3), lambda x: x.reshape(3, 0), lambda a: a.reshape(3, 0),
     "maybe_copy"),
    # expand
    ("expand_col", (3, 1), lambda x: x.expand(3, 4), lambda a: np.broadcast_to(a, (3, 4)), "view"),
    ("expand_new_dim", (3, 1), lambda x: x.expand(2, 3, 4),
     lambda a: np.broadcast_to(a, (2, 3, 4)), "view"),
    ("expand_minus1", (3, 1), lambda x: x.expand(-1, 4), lambda a: np.broadcast_to(a, (3, 4)),
     "view"),
    ("expand_tuple", (3, 1), lambda x: x.expand((2, 3, 4)),
     lambda a: np.broadcast_to(a, (2, 3, 4)), "view"),
    ("expand_keep_minus1", (3, 1), lambda x: x.expand(2, -1, -1),
     lambda a: np.broadcast_to(a, (2, 3, 1)), "view"),
    ("expand_identity", (3, 4), lambda x: x.expand(3, 4), lambda a: a, "view"),
    ("expand_lead", (3, 4), lambda x: x.expand(2, 3, 4), lambda a: np.broadcast_to(a, (2, 3, 4)),
     "view"),
    ("expand_0d", (), lambda x: x.expand(2, 3), lambda a: np.broadcast_to(a, (2, 3)), "view"),
    ("expand_0d_to_0d", (), lambda x: x.expand(()), lambda a: a, "view"),
    ("expand_to_zero", (1,), lambda x: x.expand(0), lambda a: np.broadcast_to(a, (0,)), "view"),
    ("expand_zero_size", (0, 1), lambda x: x.expand(0, 3), lambda a: np.broadcast_to(a, (0, 3)),
     "view"),
    # flatten
    ("flatten_all", S3, lambda x: x.flatten(), np_flatten(), "maybe_copy"),
    ("flatten_from1", S3, lambda x: x.flatten(1), np_flatten(1), "maybe_copy"),
    ("flatten_01", S3, lambda x: x.flatten(0, 1), np_flatten(0, 1), "maybe_copy"),
    ("flatten_12", S3, lambda x: x.flatten(1, 2), np_flatten(1, 2), "maybe_copy"),
    ("flatten_neg", S3, lambda x: x.flatten(-2, -1), np_flatten(-2, -1), "maybe_copy"),
    ("flatten_single", S3, lambda x: x.flatten(1, 1), np_flatten(1, 1), "maybe_copy"),
    ("flatten_0d", (), lambda x: x.flatten(), np_flatten(), "maybe_copy"),
    # diagonal
    ("diagonal_main", (4, 6), lambda x: x.diagonal(), lambda a: np.diagonal(a), "view"),
    ("diagonal_above", (4, 6), lambda x: x.diagonal(1), lambda a: np.diagonal(a, 1), "view"),
    ("diagonal_below", (4, 6), lambda x: x.diagonal(-1), lambda a: np.diagonal(a, -1), "view"),
    ("diagonal_kw", (4, 6), lambda x: x.diagonal(offset=2), lambda a: np.diagonal(a, 2), "view"),
    ("diagonal_far_above", (4, 6), lambda x: x.diagonal(6), lambda a: np.diagonal(a, 6), "view"),
    ("diagonal_far_below", (4, 6), lambda x: x.diagonal(-4), lambda a: np.diagonal(a, -4), "view"),
    ("diagonal_3d_02", S3, lambda x: x.diagonal(0, 0, 2), lambda a: np.diagonal(a, 0, 0, 2),
     "view"),
    ("diagonal_3d_neg", S3, lambda x: x.diagonal(1, -1, 0), lambda a: np.diagonal(a, 1, 2, 0),
     "view"),
    ("diagonal_3d_12", S3, lambda x: x.diagonal(0, 1, 2), lambda a: np.diagonal(a, 0, 1, 2),
     "view"),
    ("diagonal_3d_21", S3, lambda x: x.diagonal(-1, 2, 1), lambda a: np.diagonal(a, -1, 2, 1),
     "view"),
    ("diagonal_kw_dims", S3, lambda x: x.diagonal(offset=1, dim1=1, dim2=0),
     lambda a: np.diagonal(a, 1, 1, 0), "view"),
    # chains
    ("chain_select_narrow_transpose", S4,
     lambda x: x.select(0, 2).narrow(1, 1, 3).transpose(0, 1),
     lambda a: np.swapaxes(a[2][:, 1:4], 0, 1), "view"),
    ("chain_permute_narrow_select_unsqueeze_expand", S4,
     lambda x: x.permute(2, 0, 1).narrow(0, 1, 4).select(1, -1).unsqueeze(0).expand(3, -1, -1),
     lambda a: np.broadcast_to(a.transpose(2, 0, 1)[1:5, -1][None], (3, 4, 5)), "view"),
    ("chain_unfold_diagonal", S4, lambda x: x.unfold(2, 2, 2).diagonal(0, 0, 1),
     lambda a: np.diagonal(np_unfold(a, 2, 2, 2), 0, 0, 1), "view"),
    ("chain_permute_view", S4, lambda x: x.permute(2, 0, 1).view(6, 20),
     lambda a: np.reshape(a.transpose(2, 0, 1), (6, 20), copy=False), "view_or_error"),
    ("chain_t_view_add_dim", (4, 6), lambda x: x.t().view(6, 1, 4),
     lambda a: np.reshape(a.T, (6, 1, 4), copy=False), "view_or_error"),
    ("chain_t_diagonal", (5, 5), lambda x: x.t().diagonal(1), lambda a: np.diagonal(a.T, 1),
     "view"),
    ("chain_expand_narrow_t", (3, 1), lambda x: x.expand(3, 5).narrow(1, 1, 3).t(),
     lambda a: np.broadcast_to(a, (3, 5))[:, 1:4].T, "view"),
    ("chain_select_select_unsqueeze", S4, lambda x: x.select(2, 1).select(0, -1).unsqueeze(1),
     lambda a: np.expand_dims(a[:, :, 1][-1], 1), "view"),
    ("chain_squeeze_of_narrow", S4, lambda x: x.narrow(1, 3, 1).squeeze(1).t(),
     lambda a: a[:, 3:4][:, 0].T, "view"),
]

CASE_PARAMS = [pytest.param(c[1], c[2], c[3], c[4], id=c[0]) for c in CASES]
OVERLAPPING = {"expand_col", "expand_new_dim", "expand_minus1", "expand_tuple",
               "expand_keep_minus1", "expand_lead", "expand_0d", "expand_zero_size",
               "chain_permute_narrow_select_unsqueeze_expand", "chain_expand_narrow_t",
               "unfold_1d", "unfold_1d_step", "unfold_mid", "unfold_first", "unfold_negdim"}
NONOVERLAP_PARAMS = [pytest.param(c[1], c[2], c[3], c[4], id=c[0]) for c in CASES
                     if c[0] not in OVERLAPPING]


def run_case(shape, fn, npfn, kind, name, layout):
    rp, bp, rn, bn = rooted_view(shape, name, layout)
    try:
        vn = npfn(bn)
    except (ValueError, AttributeError):
        assert kind == "view_or_error", "numpy mirror failed unexpectedly"
        with pytest.raises(RuntimeError, match=kw("view|stride|contiguous|reshape")):
            fn(bp)
        return None
    vp = fn(bp)
    if kind in ("view", "view_or_error"):
        check_geometry_np(vp, vn, rn, rp, view=True)
    else:  # maybe_copy: a view exactly when numpy could make one
        np.testing.assert_array_equal(np_via_tolist(vp), vn)
        assert tuple(vp.shape) == vn.shape
        if vn.size > 0:
            if np.shares_memory(vn, rn):
                check_geometry_np(vp, vn, rn, rp, view=True)
            else:
                assert not same_storage(vp, rp), "numpy had to copy, so the result cannot be a view"
                assert vp.is_contiguous()
    if vn.size:   # empty tensors: see test_empty_tensors_are_contiguous
        assert vp.is_contiguous() == bool(vn.flags.c_contiguous)
    return rp, bp, rn, bn, vp, vn


@pytest.mark.parametrize("layout", ROOTED_LAYOUTS)
@pytest.mark.parametrize("shape,fn,npfn,kind", CASE_PARAMS)
def test_view_matches_numpy_layouts(shape, fn, npfn, kind, layout):
    run_case(shape, fn, npfn, kind, "float32", layout)


@pytest.mark.parametrize("shape,fn,npfn,kind", CASE_PARAMS)
def test_view_matches_numpy_dtypes(shape, fn, npfn, kind):
    """Every dtype on the contiguous layout, four of them also on the transposed one."""
    combos = ([(n, "contig") for n in DTYPE_NAMES if n != "float32"]
              + [(n, "transposed") for n in ("bfloat16", "int8", "bool", "float16")])
    run_all(combos, lambda name, layout: run_case(shape, fn, npfn, kind, name, layout))


def new_values(n, name):
    k = np.arange(n)
    if name == "bool":
        return None
    if name == "uint8":
        return (255 - k % 100).astype(np.uint8)
    if name == "int8":
        return (-(k % 100) - 1).astype(np.int8)
    if name in ("float16", "bfloat16", "float32", "float64"):
        return (-(k % 120) * 0.5 - 1.0).astype(NP_CARRIER[name])
    return (-k - 1000).astype(NP_CARRIER[name])


@pytest.mark.parametrize("layout", ["contig", "transposed", "stepped"])
@pytest.mark.parametrize("shape,fn,npfn,kind", NONOVERLAP_PARAMS)
def test_write_through_view_reaches_base(shape, fn, npfn, kind, layout):
    run_all([(n,) for n in ("float32", "uint8", "bfloat16", "bool", "int64")],
            lambda name: write_through(shape, fn, npfn, kind, layout, name))


def write_through(shape, fn, npfn, kind, layout, name):
    out = run_case(shape, fn, npfn, kind, name, layout)
    if out is None:
        return
    rp, bp, rn, bn, vp, vn = out
    if vn.size == 0 or not np.shares_memory(vn, rn):
        return
    if name == "bool":
        vals = ~vn
    else:
        vals = new_values(vn.size, name).reshape(vn.shape)
    # a writeable numpy mirror of the view on a copy of the root
    expected = rn.copy()
    mirror = np_as_strided(expected.reshape(-1)[np_offset(vn, rn):], shape=vn.shape,
                           strides=vn.strides)
    mirror[...] = vals
    vp.copy_(tensor_of(np.array(vals, copy=True), name))
    np.testing.assert_array_equal(np_via_tolist(rp), expected)
    base_mirror = np_as_strided(expected.reshape(-1)[np_offset(bn, rn):], shape=bn.shape,
                                strides=bn.strides)
    np.testing.assert_array_equal(np_via_tolist(bp), base_mirror)
    np.testing.assert_array_equal(np_via_tolist(vp), vals)


# --------------------------------------------------------------------------------------------
# against PyTorch
# --------------------------------------------------------------------------------------------

def torch_build(torch, shape, name, layout):
    rp, bp, rn, bn = rooted_view(shape, name, layout)
    rt = torch.tensor(rn)            # a fresh contiguous tensor with standard strides
    if name == "bfloat16":
        rt = rt.to(torch.bfloat16)
    nd = len(shape)
    if nd == 0 or layout == "contig":
        bt = rt
    elif layout == "transposed":
        bt = rt.permute(*tuple(range(nd))[::-1])
    elif layout == "stepped":
        bt = rt[..., 1::2]
    else:
        bt = rt.narrow(0, 1, shape[0])
    return rp, bp, rt, bt


TORCH_COMBOS = ([("float32", lay) for lay in ROOTED_LAYOUTS]
                + [(n, lay) for n in ("bfloat16", "bool", "int16") for lay in ("contig", "transposed")])


@pytest.mark.parametrize("shape,fn,npfn,kind", CASE_PARAMS)
def test_view_matches_torch(shape, fn, npfn, kind):
    torch = pytest.importorskip("torch")
    run_all(TORCH_COMBOS, lambda name, layout: torch_case(torch, shape, fn, name, layout))


def torch_case(torch, shape, fn, name, layout):
    rp, bp, rt, bt = torch_build(torch, shape, name, layout)
    try:
        vt = fn(bt)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            fn(bp)
        return
    vp = fn(bp)
    assert tuple(vp.shape) == tuple(vt.shape)
    np.testing.assert_array_equal(np_via_tolist(vp), torch_values(vt))
    if vt.numel():   # empty tensors: see test_empty_tensors_are_contiguous
        assert vp.is_contiguous() == vt.is_contiguous()
    t_view = vt.untyped_storage().data_ptr() == rt.untyped_storage().data_ptr()
    assert same_storage(vp, rp) == t_view
    if vt.numel() == 0:
        return                       # strides / offsets of empty views carry no meaning
    if t_view:
        assert tuple(vp.stride()) == tuple(vt.stride())
        assert vp.storage_offset() == vt.storage_offset()
    else:
        assert vp.is_contiguous()


def test_0d_unfold_like_torch():
    x = pyth.tensor(5.0)
    u = x.unfold(0, 1, 1)
    assert tuple(u.shape) == (1,)
    assert u.tolist() == [5.0]
    assert same_storage(u, x)


def test_unfold_size0_like_torch():
    x = pyth.tensor(np.arange(5, dtype=np.float32))
    u = x.unfold(0, 0, 1)
    assert tuple(u.shape) == (6, 0)
    assert u.numel() == 0


def test_unfold_against_torch_corners():
    torch = pytest.importorskip("torch")
    for shape, args in [((), (0, 1, 1)), ((5,), (0, 0, 1)), ((5,), (0, 0, 2)),
                        ((0, 3), (1, 2, 1)), ((4, 0), (0, 2, 2))]:
        a = distinct_values(shape, "float32")
        vt = torch.from_numpy(a).unfold(*args)
        vp = pyth.tensor(a).unfold(*args)
        assert tuple(vp.shape) == tuple(vt.shape), (shape, args)
        if vt.numel():
            assert tuple(vp.stride()) == tuple(vt.stride()), (shape, args)
        np.testing.assert_array_equal(np_via_tolist(vp), vt.numpy())


# --------------------------------------------------------------------------------------------
# expand_as, as_strided
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_expand_as(name):
    a = distinct_values((3, 1), name)
    x = tensor_of(a, name)
    other = pyth.zeros(2, 3, 4)
    e = x.expand_as(other)
    assert tuple(e.shape) == (2, 3, 4)
    assert tuple(e.stride()) == (0, 1, 0)
    assert same_storage(e, x)
    np.testing.assert_array_equal(np_via_tolist(e), np.broadcast_to(a, (2, 3, 4)))
    # writes through the (one and only) underlying element of each row
    x.copy_(tensor_of(a[::-1].copy(), name))
    np.testing.assert_array_equal(np_via_tolist(e), np.broadcast_to(a[::-1], (2, 3, 4)))


def test_expand_as_mismatch_raises():
    x = pyth.zeros(2, 3)
    with pytest.raises(RuntimeError, match=kw("expand")):
        x.expand_as(pyth.zeros(3, 3))


AS_STRIDED = [
    ((2, 3), (3, 1), 0),
    ((3, 2), (1, 3), 2),
    ((4,), (0,), 5),
    ((2, 2, 2), (8, 2, 1), 1),
    ((0, 3), (3, 1), 0),
    ((), (), 7),
    ((3, 3), (1, 1), 0),
    ((2, 5), (12, 2), 3),
]


@pytest.mark.parametrize("name", ["float32", "int64", "bfloat16", "bool", "uint8"])
@pytest.mark.parametrize("size,stride,offset", AS_STRIDED)
def test_as_strided(size, stride, offset, name):
    rn = distinct_values((24,), name)
    rp = tensor_of(rn, name)
    vp = rp.as_strided(size, stride, offset)
    vn = np_as_strided(rn[offset:], shape=size, strides=[s * rn.itemsize for s in stride])
    assert tuple(vp.shape) == size
    assert tuple(vp.stride()) == stride
    assert vp.storage_offset() == offset
    assert same_storage(vp, rp)
    np.testing.assert_array_equal(np_via_tolist(vp), vn)


def test_as_strided_uses_storage_coordinates():
    rn = np.arange(24, dtype=np.float32)
    rp = pyth.tensor(rn)
    v = rp.view(4, 6).t()                      # non-contiguous; storage offset 0
    a = v.as_strided((3,), (5,), 1)
    assert a.tolist() == [1.0, 6.0, 11.0]
    w = rp.narrow(0, 4, 10)                    # storage offset 4
    b = w.as_strided((2, 2), (2, 1))           # offset defaults to w's own offset, as torch
    assert b.storage_offset() == 4
    assert b.tolist() == [[4.0, 5.0], [6.0, 7.0]]
    c = w.as_strided((2,), (1,), 0)            # explicit offsets are absolute in the storage
    assert c.tolist() == [0.0, 1.0]
    # writes through
    a.copy_(pyth.tensor([-1.0, -2.0, -3.0]))
    assert rp.tolist()[1] == -1.0 and rp.tolist()[6] == -2.0 and rp.tolist()[11] == -3.0


def test_as_strided_matches_torch():
    torch = pytest.importorskip("torch")
    rn = distinct_values((24,), "float32")
    for size, stride, offset in AS_STRIDED:
        vt = torch.from_numpy(rn.copy()).as_strided(size, stride, offset)
        vp = pyth.tensor(rn).as_strided(size, stride, offset)
        assert tuple(vp.shape) == tuple(vt.shape)
        assert tuple(vp.stride()) == tuple(vt.stride())
        assert vp.storage_offset() == vt.storage_offset()
        assert vp.is_contiguous() == vt.is_contiguous()
        np.testing.assert_array_equal(np_via_tolist(vp), vt.numpy())


# --------------------------------------------------------------------------------------------
# sharing and write-through, explicitly
# --------------------------------------------------------------------------------------------

def test_select_of_1d_gives_0d_view_that_writes_through():
    x = pyth.tensor([1.0, 2.0, 3.0])
    s = x.select(0, 1)
    assert s.dim() == 0 and tuple(s.shape) == ()
    assert s.item() == 2.0
    s.copy_(pyth.tensor(9.0))
    assert x.tolist() == [1.0, 9.0, 3.0]


def test_chain_write_through_and_base_write_visible():
    base = pyth.tensor(np.arange(60, dtype=np.int64).reshape(3, 4, 5))
    v = base.select(0, 1).narrow(1, 1, 3).transpose(0, 1)   # (3, 4): base[1, :, 1:4].T
    v.copy_(pyth.tensor(np.full((3, 4), -7, dtype=np.int64)))
    exp = np.arange(60).reshape(3, 4, 5)
    exp[1, :, 1:4] = -7
    np.testing.assert_array_equal(np_via_tolist(base), exp)
    # and the other way: writing the base is visible in the view
    base.copy_(pyth.tensor(np.zeros((3, 4, 5), dtype=np.int64)))
    assert np_via_tolist(v).sum() == 0


def test_storage_object_is_shared_not_copied():
    x = pyth.tensor(np.arange(6, dtype=np.float32))
    v = x.narrow(0, 2, 3)
    s = v.storage()
    assert len(s) == 6
    s[3] = 42.0
    assert x.tolist()[3] == 42.0
    assert v.tolist()[1] == 42.0


def test_views_keep_storage_alive():
    import gc
    x = pyth.tensor(np.arange(12, dtype=np.float64)).view(3, 4)
    v = x.t().narrow(0, 1, 2)
    del x
    gc.collect()
    assert v.tolist() == [[1.0, 5.0, 9.0], [2.0, 6.0, 10.0]]


# --------------------------------------------------------------------------------------------
# errors
# --------------------------------------------------------------------------------------------

RT, IE, VE = RuntimeError, IndexError, ValueError

ERRORS = [
    # id, shape, fn, exception(s), keywords, torch raises the same type
    ("narrow_past_end", (5,), lambda x: x.narrow(0, 4, 2), RT, ("narrow", "5"), True),
    ("narrow_past_end_dim1", (3, 5), lambda x: x.narrow(1, 3, 3), RT, ("narrow", "5"), True),
    ("narrow_start_out_of_range", (5,), lambda x: x.narrow(0, 6, 0), IE, ("6",), True),
    ("narrow_neg_start_out_of_range", (5,), lambda x: x.narrow(0, -6, 1), IE, ("-6",), True),
    ("narrow_negative_length", (5,), lambda x: x.narrow(0, 0, -1), RT, ("narrow",), True),
    ("narrow_bad_dim", (2, 3, 4), lambda x: x.narrow(3, 0, 1), IE, ("dim", "3"), True),
    ("narrow_bad_negdim", (2, 3, 4), lambda x: x.narrow(-4, 0, 1), IE, ("dim", "-4"), True),
    ("narrow_0d", (), lambda x: x.narrow(0, 0, 1), (IE, RT), ("narrow|dim",), True),
    ("select_out_of_range", (5,), lambda x: x.select(0, 5), IE, ("select", "5"), True),
    ("select_neg_out_of_range", (5,), lambda x: x.select(0, -6), IE, ("select", "-6"), True),
    ("select_dim1_out_of_range", (2, 3), lambda x: x.select(1, 3), IE, ("select", "3"), True),
    ("select_bad_dim", (3, 4), lambda x: x.select(2, 0), IE, ("dim", "2"), True),
    ("select_0d", (), lambda x: x.select(0, 0), IE, ("select|dim",), True),
    ("select_zero_size", (0, 3), lambda x: x.select(0, 0), IE, ("select", "0"), True),
    ("transpose_bad_dim", (2, 3, 4), lambda x: x.transpose(0, 3), IE, ("dim", "3"), True),
    ("transpose_bad_negdim", (2, 3, 4), lambda x: x.transpose(-4, 0), IE, ("dim", "-4"), True),
    ("t_3d", (2, 3, 4), lambda x: x.t(), RT, (r"t\(\)|transpose|dim",), True),
    ("permute_duplicate", (2, 3), lambda x: x.permute(0, 0), RT, ("permute",), True),
    ("permute_wrong_length", (2, 3), lambda x: x.permute(0), RT, ("permute",), True),
    ("permute_bad_dim", (2, 3), lambda x: x.permute(0, 2), IE, ("dim", "2"), True),
    ("unfold_too_big", (5,), lambda x: x.unfold(0, 6, 1), RT, ("unfold", "6", "5"), True),
    ("unfold_step0", (5,), lambda x: x.unfold(0, 2, 0), RT, ("step",), True),
    ("unfold_negative_step", (5,), lambda x: x.unfold(0, 2, -1), RT, ("step",), True),
    ("unfold_negative_size", (5,), lambda x: x.unfold(0, -1, 1), RT, ("size",), True),
    ("unfold_bad_dim", (2, 3), lambda x: x.unfold(2, 1, 1), IE, ("dim", "2"), True),
    ("squeeze_bad_dim", (2, 3, 4), lambda x: x.squeeze(3), IE, ("dim", "3"), True),
    ("squeeze_bad_negdim", (2, 3, 4), lambda x: x.squeeze(-4), IE, ("dim", "-4"), True),
    ("unsqueeze_bad_dim", (2, 3, 4), lambda x: x.unsqueeze(4), IE, ("dim", "4"), True),
    ("unsqueeze_bad_negdim", (2, 3, 4), lambda x: x.unsqueeze(-5), IE, ("dim", "-5"), True),
    ("unsqueeze_0d_bad", (), lambda x: x.unsqueeze(2), IE, ("dim", "2"), True),
    ("view_bad_numel", (2, 3), lambda x: x.view(4, -1), RT, ("6",), True),
    ("view_bad_numel_plain", (2, 3), lambda x: x.view(7), RT, ("6",), True),
    ("view_two_inferred", (2, 3), lambda x: x.view(-1, -1), RT, ("infer|-1",), True),
    ("view_ambiguous_zero", (0, 3), lambda x: x.view(-1, 0), RT, ("-1|infer|ambiguous",), True),
    ("view_negative_size", (2, 3), lambda x: x.view(-2, 3), (RT, VE), ("-2",), True),
    ("view_transposed", (2, 3), lambda x: x.t().view(6), RT,
     ("view|stride|contiguous",), True),
    ("view_merge_noncontig", (4, 5, 6), lambda x: x.transpose(0, 1).view(5, 24), RT,
     ("view|stride|contiguous",), True),
    ("view_narrowed", (4, 6), lambda x: x.narrow(1, 0, 3).view(12), RT,
     ("view|stride|contiguous",), True),
    ("reshape_bad_numel", (2, 3), lambda x: x.reshape(4, 2), RT, ("6",), True),
    ("expand_non_singleton", (2, 3), lambda x: x.expand(3, 3), RT, ("expand",), True),
    ("expand_non_singleton_inner", (2, 3), lambda x: x.expand(2, 4), RT, ("expand",), True),
    ("expand_too_few_sizes", (2, 3), lambda x: x.expand(3), RT, ("expand",), True),
    ("expand_minus1_new_dim", (2, 1), lambda x: x.expand(-1, 2, 3), RT, ("-1|expand",), True),
    ("expand_negative_size", (2, 1), lambda x: x.expand(2, -2), (RT, VE), ("-2|expand|size",),
     True),
    ("diagonal_same_dims", (2, 3), lambda x: x.diagonal(0, 0, 0), RT, ("diagonal",), True),
    ("diagonal_bad_dim", (2, 3), lambda x: x.diagonal(0, 0, 2), IE, ("dim", "2"), True),
    ("diagonal_1d", (3,), lambda x: x.diagonal(), IE, ("dim",), True),
    ("flatten_bad_order", (2, 3, 4), lambda x: x.flatten(2, 0), RT, ("flatten|start|end",), True),
    ("flatten_bad_dim", (2, 3), lambda x: x.flatten(0, 2), IE, ("dim", "2"), True),
    ("as_strided_out_of_bounds", (2, 3), lambda x: x.as_strided((3, 3), (1, 1), 10), RT,
     ("storage|bound|size",), True),
    ("as_strided_negative_stride", (6,), lambda x: x.as_strided((2,), (-1,), 3), (RT, VE),
     ("stride",), True),
    ("as_strided_length_mismatch", (6,), lambda x: x.as_strided((2, 2), (1,)), RT,
     ("stride|size|length",), True),
]


@pytest.mark.parametrize("shape,fn,exc,words,torch_same",
                         [pytest.param(*e[1:], id=e[0]) for e in ERRORS])
def test_view_errors(shape, fn, exc, words, torch_same):
    x = tensor_of(distinct_values(shape, "float32"), "float32")
    with pytest.raises(exc, match=kw(*words)):
        fn(x)


@pytest.mark.parametrize("shape,fn,exc,words,torch_same",
                         [pytest.param(*e[1:], id=e[0]) for e in ERRORS])
def test_view_error_types_match_torch(shape, fn, exc, words, torch_same):
    """Sanity check of the oracle: PyTorch raises the same exception type."""
    torch = pytest.importorskip("torch")
    if not torch_same:
        pytest.skip("API.md deliberately differs from PyTorch here")
    with pytest.raises(exc):
        fn(torch.from_numpy(distinct_values(shape, "float32")))


def test_narrow_message_names_start_length_size_dim():
    x = pyth.zeros(5)
    with pytest.raises(RuntimeError, match=kw("narrow", r"\b4\b", r"\b2\b", r"\b5\b", "dim")):
        x.narrow(0, 4, 2)


def test_select_message_names_index_and_size():
    x = pyth.zeros(3, 5)
    with pytest.raises(IndexError, match=kw("select", r"\b7\b", r"\b5\b")):
        x.select(1, 7)


def test_failed_view_leaves_input_untouched():
    x = pyth.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    for f in (lambda: x.narrow(0, 1, 5), lambda: x.view(4), lambda: x.expand(3, 3),
              lambda: x.t().view(6), lambda: x.select(2, 0)):
        with pytest.raises((RuntimeError, IndexError)):
            f()
    assert tuple(x.shape) == (2, 3) and tuple(x.stride()) == (3, 1)
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


# --------------------------------------------------------------------------------------------
# is_contiguous, contiguous(), clone()
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,fn,npfn,kind", CASE_PARAMS)
def test_contiguous_and_clone(shape, fn, npfn, kind):
    run_all([("contig",), ("transposed",), ("stepped",), ("offset",)],
            lambda layout: contiguous_and_clone(shape, fn, npfn, layout))


def contiguous_and_clone(shape, fn, npfn, layout):
    rp, bp, rn, bn = rooted_view(shape, "float32", layout)
    try:
        vn = npfn(bn)
    except (ValueError, AttributeError):
        return
    vp = fn(bp)
    expect = np_via_tolist(vp)
    if vn.size == 0:
        np.testing.assert_array_equal(np_via_tolist(vp.clone()), vn)
        assert tuple(vp.contiguous().shape) == vn.shape
        return       # empty tensors: see test_empty_tensors_are_contiguous
    # contiguous()
    c = vp.contiguous()
    if vn.flags.c_contiguous:
        assert vp.is_contiguous()
        assert c is vp, "contiguous() must return self when already contiguous"
    else:
        assert not vp.is_contiguous()
        assert c is not vp
        assert c.is_contiguous()
        assert tuple(c.shape) == vn.shape
        if vn.size:
            assert not same_storage(c, rp)
            for d in range(vn.ndim):
                if vn.shape[d] > 1:
                    assert c.stride(d) == c_strides(vn.shape)[d]
        np.testing.assert_array_equal(np_via_tolist(c), vn)
    # clone(): equal values, own storage, no stride-0 overlap, independent of the source
    k = vp.clone()
    assert k is not vp
    assert tuple(k.shape) == vn.shape and k.dtype == vp.dtype
    np.testing.assert_array_equal(np_via_tolist(k), vn)
    if vn.size:
        assert not same_storage(k, rp)
        assert all(k.stride(d) != 0 for d in range(k.dim()) if k.size(d) > 1)
        k.copy_(pyth.tensor(np.full(vn.shape, 99.0, dtype=np.float32)))
        np.testing.assert_array_equal(np_via_tolist(vp), expect)
        np.testing.assert_array_equal(np_via_tolist(rp), rn)


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_clone_of_expanded_is_writable_per_element(name):
    a = distinct_values((3, 1), name)
    e = tensor_of(a, name).expand(3, 4)
    k = e.clone()
    assert k.is_contiguous()
    assert tuple(k.stride()) == (4, 1)
    np.testing.assert_array_equal(np_via_tolist(k), np.broadcast_to(a, (3, 4)))


@pytest.mark.parametrize("shape,strides,expected", [
    ((2, 3), (3, 1), True),
    ((2, 3), (1, 2), False),
    ((3, 1), (1, 7), True),         # strides of size-1 dims do not matter
    ((1, 3), (99, 1), True),
    ((2, 3), (4, 1), False),        # padded rows
    ((0, 3), (1, 5), True),         # no elements: contiguous
    ((), (), True),
    ((3,), (0,), False),            # expanded
    ((1,), (0,), True),
    ((2, 2), (2, 1), True),
])
def test_is_contiguous_rules(shape, strides, expected):
    x = pyth.zeros(64)
    v = x.as_strided(shape, strides, 0)
    assert v.is_contiguous() == expected
    arr = np_as_strided(np.zeros(64, np.float32), shape=shape, strides=[4 * s for s in strides])
    assert bool(arr.flags.c_contiguous) == expected  # the oracle agrees


@pytest.mark.parametrize("make", [
    lambda: pyth.zeros(3, 4, 5).permute(2, 0, 1).narrow(1, 1, 0),
    lambda: pyth.zeros(2, 7)[:, 1::2][:0],
    lambda: pyth.zeros(0, 1).expand(0, 3),
    lambda: pyth.zeros(2, 0, 3).permute(2, 1, 0),
    lambda: pyth.zeros(0, 3).t(),
], ids=["narrow_of_permuted", "stepped", "expanded", "permuted", "transposed"])
def test_empty_tensors_are_contiguous(make):
    """numpy and PyTorch call every tensor without elements contiguous."""
    v = make()
    assert v.numel() == 0
    assert v.is_contiguous()
    assert v.contiguous() is v


def test_is_contiguous_rules_match_torch():
    torch = pytest.importorskip("torch")
    for shape, strides in [((2, 3), (3, 1)), ((2, 3), (1, 2)), ((3, 1), (1, 7)), ((0, 3), (1, 5)),
                           ((3,), (0,)), ((1,), (0,)), ((2, 3), (4, 1)), ((1, 1, 4), (3, 9, 1))]:
        vt = torch.zeros(64).as_strided(shape, strides, 0)
        vp = pyth.zeros(64).as_strided(shape, strides, 0)
        assert vp.is_contiguous() == vt.is_contiguous(), (shape, strides)


# --------------------------------------------------------------------------------------------
# is_set_to, set_
# --------------------------------------------------------------------------------------------

def test_is_set_to():
    x = pyth.tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    assert x.is_set_to(x)
    assert x.is_set_to(x.view(3, 4))
    assert x.is_set_to(x.narrow(0, 0, 3))
    assert x.view(3, 4).is_set_to(x)
    assert not x.is_set_to(x.clone())
    assert not x.is_set_to(x.t())
    assert not x.is_set_to(x.narrow(0, 1, 2))
    assert not x.is_set_to(x.view(4, 3))
    assert not x.is_set_to(x.view(12))
    y = pyth.tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    assert not x.is_set_to(y)            # equal values, other storage


def test_is_set_to_matches_torch():
    torch = pytest.importorskip("torch")
    xt = torch.arange(12.0).view(3, 4)
    xp = pyth.tensor(np.arange(12, dtype=np.float32)).view(3, 4)
    for f in (lambda x: x, lambda x: x.view(3, 4), lambda x: x.t(), lambda x: x.t().t(),
              lambda x: x.narrow(1, 0, 4), lambda x: x[1:], lambda x: x.expand(3, 4),
              lambda x: x.unsqueeze(0).squeeze(0), lambda x: x.view(12)):
        assert xp.is_set_to(f(xp)) == xt.is_set_to(f(xt))


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_set_storage_offset_size_stride(name):
    prefix = TH_NAME[name]
    vals = distinct_values((12,), name)
    s = getattr(pyth, prefix + "Storage")(vals.tolist())
    t = getattr(pyth, prefix + "Tensor")()
    r = t.set_(s, 2, (2, 3), (3, 1))
    assert r is t
    assert t.dtype == pdt(name)
    assert tuple(t.shape) == (2, 3) and tuple(t.stride()) == (3, 1)
    assert t.storage_offset() == 2
    np.testing.assert_array_equal(np_via_tolist(t), vals[2:8].reshape(2, 3))
    assert t.storage().data_ptr() == s.data_ptr()
    # non-contiguous geometry
    t.set_(s, 1, (3, 2), (1, 4))
    np.testing.assert_array_equal(np_via_tolist(t), np_as_strided(vals[1:], (3, 2),
                                                          (vals.itemsize, 4 * vals.itemsize)))
    assert not t.is_contiguous()


def test_set_shares_with_storage_both_ways():
    s = pyth.FloatStorage(list(range(12)))
    t = pyth.FloatTensor().set_(s, 2, (2, 3), (3, 1))
    s[2] = 100.0
    assert t.tolist()[0][0] == 100.0
    t.select(1, 2).copy_(pyth.tensor([-1.0, -2.0]))
    assert s[4] == -1.0 and s[7] == -2.0


def test_set_grows_resizable_storage():
    s = pyth.FloatStorage(4)
    t = pyth.FloatTensor()
    t.set_(s, 2, (3, 3), (3, 1))
    assert tuple(t.shape) == (3, 3)
    assert len(s) >= 11
    assert t.storage().size() >= 11
    assert t.storage().data_ptr() == s.data_ptr()
    t.copy_(pyth.tensor(np.arange(9, dtype=np.float32).reshape(3, 3)))
    assert [s[i] for i in range(2, 11)] == [float(i) for i in range(9)]


def test_set_on_numpy_storage_cannot_grow():
    a = np.arange(4, dtype=np.float32)
    s = pyth.from_numpy(a).storage()
    t = pyth.FloatTensor()
    with pytest.raises(RuntimeError, match=kw("storage|grow|resiz|size")):
        t.set_(s, 0, (3, 3), (3, 1))
    # within bounds it works, and writes reach the array
    t.set_(s, 1, (3,), (1,))
    assert t.tolist() == [1.0, 2.0, 3.0]
    t.copy_(pyth.tensor([7.0, 8.0, 9.0]))
    np.testing.assert_array_equal(a, [0.0, 7.0, 8.0, 9.0])


def test_set_negative_offset_raises():
    s = pyth.FloatStorage(4)
    with pytest.raises((ValueError, RuntimeError), match=kw("offset|-1")):
        pyth.FloatTensor().set_(s, -1, (2,), (1,))


def test_set_to_tensor():
    src = pyth.tensor(np.arange(12, dtype=np.float32).reshape(3, 4)).t()
    t = pyth.FloatTensor()
    t.set_(src)
    assert t.is_set_to(src)
    assert tuple(t.shape) == (4, 3) and tuple(t.stride()) == (1, 4)
    np.testing.assert_array_equal(np_via_tolist(t), np.arange(12).reshape(3, 4).T)


# --------------------------------------------------------------------------------------------
# resize_, resize_as_
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_resize_shrink_and_reshape_keeps_storage(name):
    vals = distinct_values((6,), name)
    t = tensor_of(vals, name)
    ptr = t.storage().data_ptr()
    r = t.resize_(3, 2)
    assert r is t
    assert tuple(t.shape) == (3, 2) and tuple(t.stride()) == (2, 1)
    assert t.storage().data_ptr() == ptr
    np.testing.assert_array_equal(np_via_tolist(t), vals.reshape(3, 2))
    t.resize_((2, 2))
    assert tuple(t.shape) == (2, 2)
    np.testing.assert_array_equal(np_via_tolist(t), vals[:4].reshape(2, 2))
    assert t.storage().size() == 6           # shrinking never shrinks the storage
    t.resize_(0)
    assert tuple(t.shape) == (0,) and t.numel() == 0
    t.resize_(())
    assert tuple(t.shape) == () and t.numel() == 1
    np.testing.assert_array_equal(np_via_tolist(t), vals[0])


def test_resize_grow_keeps_prefix():
    vals = np.arange(6, dtype=np.float64)
    t = pyth.tensor(vals)
    t.resize_(4, 4)
    assert tuple(t.shape) == (4, 4) and tuple(t.stride()) == (4, 1)
    assert t.storage().size() >= 16
    np.testing.assert_array_equal(np_via_tolist(t).reshape(-1)[:6], vals)


def test_resize_of_offset_view_grows_shared_storage():
    base = pyth.tensor(np.arange(6, dtype=np.float32))
    v = base.narrow(0, 2, 3)
    v.resize_(4)
    assert v.tolist() == [2.0, 3.0, 4.0, 5.0]
    assert same_storage(v, base)
    v.resize_(5)                       # needs 7 elements: the shared storage grows
    assert v.storage().size() >= 7
    assert v.storage_offset() == 2
    assert v.tolist()[:4] == [2.0, 3.0, 4.0, 5.0]


def test_resize_same_size_keeps_strides():
    x = pyth.tensor(np.arange(6, dtype=np.float32).reshape(2, 3)).t()
    x.resize_(3, 2)
    assert tuple(x.stride()) == (1, 3)
    np.testing.assert_array_equal(np_via_tolist(x), np.arange(6).reshape(2, 3).T)


def test_resize_matches_torch():
    torch = pytest.importorskip("torch")
    for sizes in [(3, 2), (2, 2), (4, 4), (0,), (), (1, 6), (6, 1, 1)]:
        xt = torch.arange(6.0).view(2, 3)
        xp = pyth.tensor(np.arange(6, dtype=np.float32)).view(2, 3)
        xt.resize_(sizes)
        xp.resize_(sizes)
        assert tuple(xp.shape) == tuple(xt.shape)
        assert tuple(xp.stride()) == tuple(xt.stride())
        n = min(6, xt.numel())
        np.testing.assert_array_equal(np_via_tolist(xp).reshape(-1)[:n], xt.reshape(-1)[:n].numpy())


def test_resize_negative_raises():
    t = pyth.zeros(2, 3)
    with pytest.raises(ValueError, match=kw("-1|negative")):
        t.resize_(-1)
    assert tuple(t.shape) == (2, 3)


def test_resize_numpy_borrowed_cannot_grow():
    a = np.zeros(4, dtype=np.float32)
    t = pyth.from_numpy(a)
    t.resize_(2, 2)                     # fits: fine
    assert tuple(t.shape) == (2, 2)
    with pytest.raises((RuntimeError, MemoryError), match=kw("storage|grow|resiz|size")):
        t.resize_(10)


@pytest.mark.parametrize("name", ["float32", "int64", "bool", "bfloat16"])
def test_resize_as(name):
    t = tensor_of(distinct_values((6,), name), name)
    other = pyth.zeros(2, 5, dtype=pyth.float64)
    r = t.resize_as_(other)
    assert r is t
    assert tuple(t.shape) == (2, 5) and t.is_contiguous()
    assert t.dtype == pdt(name)
    t.resize_as_(pyth.zeros(4, 6).t())
    assert tuple(t.shape) == (6, 4)
    t.resize_as_(pyth.tensor(3.0))
    assert tuple(t.shape) == ()
