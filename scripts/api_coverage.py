#!/usr/bin/env python
"""Which of PyTorch's tensor-API names pyth has: writes docs/coverage.md.

The families are those of PyTorch's reference page for `torch` (creation; indexing, slicing,
joining, mutating; random sampling; pointwise; reductions; comparisons; other math; BLAS and
LAPACK) plus the methods of `torch.Tensor`. The names come from the checked-in lists below,
filtered by `dir(torch)` / `dir(torch.Tensor)` when PyTorch is installed (so names a given
PyTorch lacks are not counted) and extended with every public Tensor method it has. A name
pyth lacks on purpose is listed with its reason (complex dtypes, sparse or quantized layouts,
devices pyth does not have, autograd internals); the percentage is of the names in scope.

Usage: python scripts/api_coverage.py [--check PERCENT]
"""

from __future__ import annotations

import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
try:  # the installed pyth; else the checkout's (which needs an in-place build)
    import pyth  # noqa: F401
except ImportError:
    sys.path.insert(0, ROOT)

FAMILIES = {
    "Creation": """tensor sparse_coo_tensor sparse_csr_tensor sparse_csc_tensor sparse_bsr_tensor
        sparse_bsc_tensor asarray as_tensor as_strided from_file from_numpy from_dlpack
        frombuffer zeros zeros_like ones ones_like arange range linspace logspace eye empty
        empty_like empty_strided full full_like quantize_per_tensor quantize_per_channel
        dequantize complex polar heaviside""",
    "Indexing, slicing, joining, mutating": """adjoint argwhere cat concat concatenate conj
        chunk dsplit column_stack dstack gather hsplit hstack index_add index_copy index_reduce
        index_select masked_select movedim moveaxis narrow narrow_copy nonzero permute reshape
        row_stack select scatter diagonal_scatter select_scatter slice_scatter scatter_add
        scatter_reduce split squeeze stack swapaxes swapdims t take take_along_dim tensor_split
        tile transpose unbind unravel_index unsqueeze vsplit vstack where""",
    "Random sampling": """seed manual_seed initial_seed get_rng_state set_rng_state bernoulli
        multinomial normal poisson rand rand_like randint randint_like randn randn_like
        randperm""",
    "Pointwise": """abs absolute acos arccos acosh arccosh add addcdiv addcmul angle asin arcsin
        asinh arcsinh atan arctan atanh arctanh atan2 arctan2 bitwise_not bitwise_and bitwise_or
        bitwise_xor bitwise_left_shift bitwise_right_shift ceil clamp clip conj_physical
        copysign cos cosh deg2rad div divide digamma erf erfc erfinv exp exp2 expm1
        fake_quantize_per_channel_affine fake_quantize_per_tensor_affine fix float_power floor
        floor_divide fmod frac frexp gradient imag ldexp lerp lgamma log log10 log1p log2
        logaddexp logaddexp2 logical_and logical_not logical_or logical_xor logit hypot i0
        igamma igammac mul multiply mvlgamma nan_to_num neg negative nextafter polygamma
        positive pow quantized_batch_norm quantized_max_pool1d quantized_max_pool2d rad2deg real
        reciprocal remainder round rsqrt sigmoid sign sgn signbit sin sinc sinh softmax sqrt
        square sub subtract tan tanh true_divide trunc xlogy""",
    "Reductions": """argmax argmin amax amin aminmax all any max min dist logsumexp mean nanmean
        median nanmedian mode norm nansum prod quantile nanquantile std std_mean sum unique
        unique_consecutive var var_mean count_nonzero""",
    "Comparisons": """allclose argsort eq equal ge greater_equal gt greater isclose isfinite isin
        isinf isposinf isneginf isnan isreal kthvalue le less_equal lt less maximum minimum fmax
        fmin ne not_equal sort topk msort""",
    "Other math": """atleast_1d atleast_2d atleast_3d bincount block_diag broadcast_tensors
        broadcast_to broadcast_shapes bucketize cartesian_prod cdist clone combinations corrcoef
        cov cross cummax cummin cumprod cumsum diag diag_embed diagflat diagonal diff einsum
        flatten flip fliplr flipud kron rot90 gcd histc histogram histogramdd meshgrid lcm
        logcumsumexp ravel renorm repeat_interleave roll searchsorted tensordot trace tril
        tril_indices triu triu_indices unflatten vander view_as_real view_as_complex
        resolve_conj resolve_neg""",
    "BLAS and LAPACK": """addbmm addmm addmv addr baddbmm bmm chain_matmul cholesky
        cholesky_inverse cholesky_solve dot geqrf ger inner inverse det logdet slogdet lu
        lu_solve lu_unpack matmul matrix_power matrix_exp mm mv orgqr ormqr outer pinverse qr
        svd svd_lowrank pca_lowrank lobpcg trapz trapezoid cumulative_trapezoid
        triangular_solve vdot""",
}

# names pyth leaves out on purpose, by reason (a regular expression per reason, matched
# against the whole name)
REASONS = [
    ("complex dtypes (pyth has none)", r"angle|conj|conj_physical|imag|real|polar|complex|"
     r"view_as_real|view_as_complex|resolve_conj|resolve_neg|is_conj|is_neg|conj_physical_|"
     r"isreal_?|is_complex|cfloat|cdouble|chalf|sgn_|_?neg_view|"
     r"x?conj.*|.*_conj.*|.*complex.*|real_|imag_"),
    ("sparse layouts", r"sparse_.*|.*_sparse.*|to_sparse.*|is_sparse.*|coalesce|is_coalesced|"
     r"indices|values|crow_indices|col_indices|ccol_indices|row_indices|sparse_dim|dense_dim|"
     r"_nnz|to_dense|smm|sspaddmm|hspmm|sparse_mask|sparse_resize_.*|_values|_indices|"
     r"nnz|spmm"),
    ("quantized tensors", r"quantize.*|dequantize|fake_quantize.*|quantized_.*|q_.*|qscheme|"
     r"int_repr|is_quantized|.*_quantized.*"),
    ("devices pyth lacks (CUDA, XPU, MPS, IPU, meta, pinned memory)",
     r"cuda|xpu|mps|ipu|hip|is_cuda|is_xpu|is_mps|is_ipu|is_meta|is_mkldnn|is_vulkan|is_xla|"
     r"is_mtia|is_maia|pin_memory|is_pinned|record_stream|get_device|to_mkldnn|is_nested|"
     r"is_hpu|mtia|module_load|is_ort|is_shared_ipc"),
    ("nested tensors", r"nested_.*|to_padded_tensor"),
    ("named tensors", r"has_names|names|rename_?|refine_names|align_as|align_to|name"),
    ("autograd hooks and dtypes pyth does not have yet",
     r"register_post_accumulate_grad_hook|grad_dtype"),
    ("spectral ops (pyth has no FFT)", r"stft|istft"),
    ("removed from PyTorch (attributes of the pre-0.4 Variable)", r"reinforce|volatile"),
]

FIXED_TENSOR_METHODS = """abs add addmm all any argmax argmin argsort bmm bool byte ceil
    char chunk clamp clone contiguous copy_ cos cpu cumprod cumsum data_ptr detach diag diagonal
    dim div dot double element_size eq exp expand expand_as fill_ flatten flip float floor
    gather ge gt half index_add index_copy index_fill index_select int is_contiguous
    is_floating_point item le log long lt masked_fill masked_select matmul max mean min mm mul
    narrow ne neg nonzero norm numel numpy permute pow prod repeat reshape resize_ round rsqrt
    scatter scatter_add select short sigmoid sign sin size sort sqrt squeeze std stride sub sum
    t tanh to tolist topk transpose tril triu type type_as unfold unsqueeze var view view_as
    zero_""".split()


def _families(torch) -> dict:
    fams = {k: sorted(set(v.split())) for k, v in FAMILIES.items()}
    if torch is not None:
        fams = {k: [n for n in v if hasattr(torch, n)] for k, v in fams.items()}
        methods = sorted(n for n in dir(torch.Tensor) if not n.startswith("_"))
    else:
        methods = sorted(FIXED_TENSOR_METHODS)
    fams["Tensor methods"] = methods
    return fams


def _reason(name: str) -> str | None:
    for reason, pattern in REASONS:
        if re.fullmatch(pattern, name):
            return reason
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", type=float, default=None,
                    help="exit 1 when in-scope coverage is below this percentage")
    ap.add_argument("--output", default=os.path.join(ROOT, "docs", "coverage.md"))
    args = ap.parse_args()
    try:
        import torch
    except ImportError:
        torch = None
    import pyth
    fams = _families(torch)
    rows, sections = [], []
    total_have = total_scope = total_excluded = 0
    for fam, names in fams.items():
        have, missing, excluded = [], [], []
        for n in names:
            target = pyth.Tensor if fam == "Tensor methods" else pyth
            if hasattr(target, n):
                have.append(n)
            elif _reason(n):
                excluded.append((n, _reason(n)))
            else:
                missing.append(n)
        scope = len(have) + len(missing)
        total_have, total_scope = total_have + len(have), total_scope + scope
        total_excluded += len(excluded)
        pct = 100.0 * len(have) / scope if scope else 100.0
        rows.append(f"| {fam} | {len(have)} | {scope} | {pct:.1f} % | {len(excluded)} |")
        lines = [f"### {fam}", "", f"Has ({len(have)}): " + ", ".join(f"`{n}`" for n in have),
                 ""]
        if missing:
            lines += [f"**Missing ({len(missing)})**: " + ", ".join(f"`{n}`" for n in missing),
                      ""]
        if excluded:
            by_reason: dict = {}
            for n, r in excluded:
                by_reason.setdefault(r, []).append(n)
            lines += [f"Out of scope ({len(excluded)}):", ""]
            lines += [f"- {r}: " + ", ".join(f"`{n}`" for n in ns) for r, ns in by_reason.items()]
            lines.append("")
        sections.append("\n".join(lines))
    pct = 100.0 * total_have / total_scope if total_scope else 100.0
    source = (f"PyTorch {torch.__version__} (`dir(torch)`, `dir(torch.Tensor)`)" if torch
              else "the checked-in lists in scripts/api_coverage.py (PyTorch not installed)")
    doc = "\n".join([
        "# PyTorch API coverage", "",
        f"Generated by `scripts/api_coverage.py` from {source}. A name counts when pyth has it "
        f"at the same place (`pyth.<name>` for the families, `pyth.Tensor.<name>` for methods); "
        f"names left out on purpose (complex dtypes, sparse and quantized layouts, devices pyth "
        f"does not have) are listed with the reason "
        f"and not counted.", "",
        f"**Total: {total_have} of {total_scope} names in scope ({pct:.1f} %); "
        f"{total_excluded} out of scope.**", "",
        "| family | pyth has | in scope | coverage | out of scope |", "|---|---|---|---|---|",
        *rows, "", *sections])
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, "w") as f:
        f.write(doc + "\n")
    print(f"{total_have}/{total_scope} in scope ({pct:.1f} %), {total_excluded} out of scope "
          f"-> {os.path.relpath(args.output, ROOT)}")
    return 1 if args.check is not None and pct < args.check else 0


if __name__ == "__main__":
    sys.exit(main())
