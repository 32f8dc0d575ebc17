"""Tests of repr/str (pyth/_printing.py) and Tensor.explain() (pyth/_explain.py).

Expected text is derived independently: values from numpy, footers from the API.md type table,
reached storage cells from sizes/strides/offset by brute-force enumeration.
"""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest
from _support import DTYPE_NAMES, TH_NAME, pdt

import pyth
from pyth._explain import explain
from pyth._printing import format_tensor


def split(text: str) -> tuple[list[str], str]:
    """The value lines and the footer line of a printed tensor."""
    lines = text.split("\n")
    return lines[:-1], lines[-1]


def tokens(text: str) -> list[list[str]]:
    """The whitespace-separated tokens of each value line."""
    return [line.split() for line in split(text)[0]]


def blocks(text: str) -> list[tuple[str, list[list[str]]]]:
    """The N-D slices of a printed tensor: (header, token rows) for each `(...) = ` block."""
    out = []
    for line in split(text)[0]:
        if line.startswith("("):
            out.append((line, []))
        elif line.strip() and out:
            out[-1][1].append(line.split())
    return out


# ---------------------------------------------------------------- footers

@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_footer_names_every_dtype(name):
    t = pyth.zeros(2, 3, dtype=pdt(name))
    _, footer = split(format_tensor(t))
    assert footer == f"[pyth.{TH_NAME[name]}Tensor of size 2x3]"


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_repr_and_str_use_the_legacy_format(name):
    t = pyth.ones(3, dtype=pdt(name))
    assert repr(t) == format_tensor(t)
    assert str(t) == format_tensor(t)
    assert repr(t).endswith(f"[pyth.{TH_NAME[name]}Tensor of size 3]")


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_zero_dim_prints_one_value_and_empty_size(name):
    t = pyth.ones(2, dtype=pdt(name))[1]  # a 0-dim view
    assert t.dim() == 0
    lines, footer = split(format_tensor(t))
    assert footer == f"[pyth.{TH_NAME[name]}Tensor of size ()]"
    assert [line.split() for line in lines] == [["True" if name == "bool" else "1"]]


@pytest.mark.parametrize("shape, text", [((0,), "0"), ((0, 3), "0x3"), ((3, 0), "3x0"),
                                         ((2, 0, 4), "2x0x4")])
def test_size_zero_prints_only_the_footer(shape, text):
    t = pyth.zeros(*shape)
    assert format_tensor(t) == f"[pyth.FloatTensor of size {text}]"


def test_footer_of_four_dims():
    assert split(format_tensor(pyth.zeros(2, 1, 3, 4)))[1] == "[pyth.FloatTensor of size 2x1x3x4]"


# ---------------------------------------------------------------- values and layout

def test_one_dim_prints_as_a_column():
    a = np.array([3, -1, 40, 7], dtype=np.int64)
    lines, _ = split(format_tensor(pyth.tensor(a)))
    assert len(lines) == len(a)
    assert [int(line) for line in lines] == a.tolist()


def test_two_dim_prints_rows_matching_numpy():
    a = np.arange(12, dtype=np.int32).reshape(3, 4) * 7 - 20
    toks = tokens(format_tensor(pyth.tensor(a)))
    assert [[int(v) for v in row] for row in toks] == a.tolist()


def test_columns_are_right_aligned_to_a_common_width():
    a = np.array([[1, -200, 3], [40000, 5, 6]], dtype=np.int64)
    lines, _ = split(format_tensor(pyth.tensor(a)))
    assert len({len(line) for line in lines}) == 1
    # every column ends at the same character position in every row
    ends = [[m.end() for m in re.finditer(r"\S+", line)] for line in lines]
    assert ends[0] == ends[1]
    widest = max(len(str(v)) for v in a.ravel())
    assert all(len(line) >= 3 * widest for line in lines)


def test_transposed_view_prints_its_own_values():
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    t = pyth.tensor(a).t()
    assert [[float(v) for v in row] for row in tokens(format_tensor(t))] == a.T.tolist()


def test_integral_floats_print_without_decimals():
    toks = tokens(format_tensor(pyth.tensor([1.0, -2.0, 30.0])))
    assert toks == [["1"], ["-2"], ["30"]]


def test_fractional_floats_print_four_decimals():
    values = [0.5, -1.25, 3.0, 2.0 / 3.0]
    toks = [row[0] for row in tokens(format_tensor(pyth.tensor(values, dtype=pyth.float64)))]
    assert toks == ["%.4f" % v for v in values]


@pytest.mark.parametrize("values", [[1e10, 1.0], [1e-6, 1.0], [-3.5e12, 0.25]])
def test_extreme_magnitudes_switch_to_scientific(values):
    toks = [row[0] for row in tokens(format_tensor(pyth.tensor(values, dtype=pyth.float64)))]
    assert toks == ["%.4e" % v for v in values]


def test_nan_and_inf_print_by_name():
    values = [float("nan"), float("inf"), float("-inf"), 1.5]
    toks = [row[0] for row in tokens(format_tensor(pyth.tensor(values)))]
    assert toks == ["nan", "inf", "-inf", "1.5000"]


def test_nan_inf_do_not_spoil_integral_printing():
    t = pyth.tensor([float("nan"), 2.0, float("inf")])
    toks = [row[0] for row in tokens(format_tensor(t))]
    assert toks == ["nan", "2", "inf"]


def test_bool_prints_true_false():
    a = np.array([[True, False], [False, True]])
    assert tokens(format_tensor(pyth.tensor(a))) == [["True", "False"], ["False", "True"]]


@pytest.mark.parametrize("name, value", [("int64", 2**40 + 3), ("int64", -(2**62)),
                                         ("uint8", 255), ("int8", -128), ("int16", -32768),
                                         ("int32", 2**31 - 1)])
def test_integer_types_print_exact_integers(name, value):
    toks = tokens(format_tensor(pyth.tensor([value, 1], dtype=pdt(name))))
    assert toks == [[str(value)], ["1"]]


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_reduced_precision_floats_print_their_values(name):
    toks = tokens(format_tensor(pyth.tensor([0.5, -1.5, 2.25], dtype=pdt(name))))
    assert toks == [["0.5000"], ["-1.5000"], ["2.2500"]]


def test_three_dim_prints_headed_slices():
    a = np.arange(24, dtype=np.int64).reshape(2, 3, 4)
    text = format_tensor(pyth.tensor(a))
    got = blocks(text)
    assert [h for h, _ in got] == ["(0,.,.) = ", "(1,.,.) = "]
    for i, (_, rows) in enumerate(got):
        assert [[int(v) for v in row] for row in rows] == a[i].tolist()
    # slices are separated by a blank line
    assert "\n\n(1,.,.) = " in text


def test_four_dim_slices_in_order():
    a = np.arange(2 * 3 * 2 * 2, dtype=np.int64).reshape(2, 3, 2, 2)
    got = blocks(format_tensor(pyth.tensor(a)))
    expected_headers = [f"({i},{j},.,.) = " for i in range(2) for j in range(3)]
    assert [h for h, _ in got] == expected_headers
    for (i, j), (_, rows) in zip(itertools.product(range(2), range(3)), got):
        assert [[int(v) for v in row] for row in rows] == a[i, j].tolist()


# ---------------------------------------------------------------- summarisation

def test_exactly_1000_elements_are_not_summarised():
    lines, _ = split(format_tensor(pyth.arange(1000)))
    assert len(lines) == 1000
    assert "..." not in format_tensor(pyth.arange(1000))


def test_long_vector_shows_three_at_each_end():
    toks = [row[0] for row in tokens(format_tensor(pyth.arange(1001)))]
    assert toks == ["0", "1", "2", "...", "998", "999", "1000"]


def test_wide_matrix_summarises_columns():
    a = np.arange(2000, dtype=np.int64).reshape(2, 1000)
    toks = tokens(format_tensor(pyth.tensor(a)))
    expected = [[str(v) for v in row[:3]] + ["..."] + [str(v) for v in row[-3:]] for row in a]
    assert toks == expected


def test_big_matrix_summarises_rows_and_columns():
    a = np.arange(40 * 50, dtype=np.int64).reshape(40, 50)
    toks = tokens(format_tensor(pyth.tensor(a)))

    def row(r):
        return [str(v) for v in a[r, :3]] + ["..."] + [str(v) for v in a[r, -3:]]

    assert toks == [row(0), row(1), row(2), ["..."], row(37), row(38), row(39)]


def test_summarised_slices_keep_their_true_indices():
    a = np.arange(10 * 10 * 20, dtype=np.int64).reshape(10, 10, 20)
    got = blocks(format_tensor(pyth.tensor(a)))
    assert [h for h, _ in got] == [f"({i},.,.) = " for i in (0, 1, 2, 7, 8, 9)]
    _, rows = got[3]  # slice 7
    assert rows[0] == [str(v) for v in a[7, 0, :3]] + ["..."] + [str(v) for v in a[7, 0, -3:]]
    assert rows[-1] == [str(v) for v in a[7, 9, :3]] + ["..."] + [str(v) for v in a[7, 9, -3:]]


def test_summary_format_is_chosen_from_the_shown_values():
    # the hidden middle holds a fraction; the shown ends are integral
    a = np.arange(2000, dtype=np.float64)
    a[1000] = 0.5
    toks = [row[0] for row in tokens(format_tensor(pyth.tensor(a)))]
    assert toks == ["0", "1", "2", "...", "1997", "1998", "1999"]


def test_huge_tensor_prints_summarised():
    t = pyth.zeros(3000, 3000)
    lines, footer = split(format_tensor(t))
    assert footer == "[pyth.FloatTensor of size 3000x3000]"
    assert len(lines) == 7


# ---------------------------------------------------------------- explain()

def reached_cells(t) -> dict[int, int]:
    """Cells reached by t, counted by brute force over every index (the oracle)."""
    sizes, strides, offset = tuple(t.size()), t.stride(), t.storage_offset()
    counts: dict[int, int] = {}
    for index in itertools.product(*(range(n) for n in sizes)):
        cell = offset + sum(i * s for i, s in zip(index, strides))
        counts[cell] = counts.get(cell, 0) + 1
    return counts


def drawn_cells(text: str) -> tuple[set[int], set[int]]:
    """(all cells drawn, cells marked reached) parsed from an explain() drawing."""
    drawn: set[int] = set()
    marked: set[int] = set()
    lines = text.split("\n")
    for k, line in enumerate(lines):
        if line.strip().startswith("cell ") and k + 1 < len(lines):
            cells = [int(c) for c in line.split()[1:]]
            marks = lines[k + 1].split()[1:]
            assert lines[k + 1].strip().startswith("reached")
            assert len(marks) == len(cells)
            drawn.update(cells)
            marked.update(c for c, m in zip(cells, marks) if m == "^")
    return drawn, marked


def worked_examples(text: str) -> list[tuple[tuple[int, ...], int]]:
    """The `(i, j) -> ... = cell` lines of explain()."""
    out = []
    for m in re.finditer(r"^\s*\(([\d, ]+)\) -> .* = (\d+)$", text, re.M):
        out.append((tuple(int(v) for v in m.group(1).split(",")), int(m.group(2))))
    return out


def field(text: str, name: str) -> str:
    m = re.search(rf"^\s*{name}\s+(.*)$", text, re.M)
    assert m, f"explain() has no '{name}' line:\n{text}"
    return m.group(1).strip()


def check_view(t):
    """The drawing, geometry and examples of explain(t) agree with the oracle."""
    text = explain(t)
    assert t.explain() == text
    assert field(text, "sizes") == str(tuple(t.size()))
    assert field(text, "strides") == str(tuple(t.stride()))
    assert field(text, "storage offset") == str(t.storage_offset())
    assert field(text, "contiguous") == ("yes" if t.is_contiguous() else "no")
    drawn, marked = drawn_cells(text)
    assert drawn == set(range(len(t.storage())))
    assert marked == set(reached_cells(t))
    storage = t.storage()
    examples = worked_examples(text)
    assert examples, text
    for index, cell in examples:
        expected = t.storage_offset() + sum(i * s for i, s in zip(index, t.stride()))
        assert cell == expected
        assert t[index].item() == storage[cell]
    return text


def test_explain_transposed_view():
    base = pyth.arange(6, dtype=pyth.float32).view(2, 3)
    t = base.t()
    text = check_view(t)
    assert "element (i, j) -> cell 0 + i*1 + j*3" in text
    assert field(text, "contiguous") == "no"


def test_explain_narrowed_view_reaches_a_block():
    base = pyth.arange(20, dtype=pyth.float32).view(4, 5)
    t = base.narrow(1, 1, 3).narrow(0, 1, 2)
    text = check_view(t)
    assert set(reached_cells(t)) == {6, 7, 8, 11, 12, 13}  # rows 1-2, columns 1-3
    assert f"element (i, j) -> cell {t.storage_offset()} + i*5 + j*1" in text


def test_explain_stepped_view():
    base = pyth.arange(30, dtype=pyth.int64).view(5, 6)
    check_view(base[1::2, ::3])


def test_explain_expanded_view_notes_shared_cells():
    base = pyth.arange(4, dtype=pyth.float32).view(4, 1)
    t = base.expand(4, 3)
    assert t.stride() == (1, 0)
    text = check_view(t)
    assert "stride 0" in text
    assert "dim 1" in text
    # every reached cell is shared by the three expanded entries
    times = [line for line in text.split("\n") if line.strip().startswith("times")]
    assert times
    counts = [int(v) for v in times[0].split()[1:] if v != "."]
    assert counts == [3, 3, 3, 3]


def test_explain_zero_dim_names_its_cell():
    base = pyth.arange(5, dtype=pyth.float32)
    t = base[3]
    assert t.dim() == 0
    text = explain(t)
    assert "-> cell 3" in text
    drawn, marked = drawn_cells(text)
    assert marked == {3}


def test_explain_storage_facts():
    t = pyth.zeros(3, 4, dtype=pyth.float64)
    text = explain(t)
    assert "12 cells" in text
    assert f"{12 * 8} bytes" in text
    assert "'default'" in text
    assert str(t.dtype) in text


def test_explain_refcount_counts_views():
    t = pyth.zeros(6)

    def refcount(text):
        return int(re.search(r"refcount (\d+)", text).group(1))

    before = refcount(explain(t))
    assert before == t._h.storage.refcount
    views = [t.narrow(0, 1, 2), t.view(2, 3)]
    assert refcount(explain(t)) == before + len(views)
    del views


def test_explain_numpy_allocator():
    t = pyth.from_numpy(np.arange(6.0))
    assert "'numpy'" in explain(t)


def test_explain_big_storage_summarises_the_range():
    base = pyth.arange(1000, dtype=pyth.float32)
    t = base[100:300]
    text = explain(t)
    assert "cell " not in [line.strip()[:5] for line in text.split("\n")]  # no drawing
    assert "200 of the 1000 cells" in text
    assert "100 .. 299" in text


def test_explain_big_strided_view_counts_distinct_cells():
    base = pyth.arange(10000, dtype=pyth.float32).view(100, 100)
    t = base.t()[::2]
    expected = reached_cells(t)
    text = explain(t)
    assert f"{len(expected)} of the 10000 cells" in text
    assert f"{min(expected)} .. {max(expected)}" in text


def test_explain_big_expanded_view_counts_shared_cells_once():
    base = pyth.arange(1000, dtype=pyth.float32)
    t = base[200:300].view(100, 1).expand(100, 5)
    text = explain(t)
    assert "100 of the 1000 cells" in text
    assert "200 .. 299" in text
    assert "stride 0" in text


def test_explain_huge_views_never_overcount_cells():
    # more elements than explain() walks: the count comes from the strides alone
    t = pyth.zeros(1100, 1000).t()
    assert "1100000 of the 1100000 cells" in explain(t)
    base = pyth.zeros(2100)
    overlapping = base.as_strided((1100, 1000), (1, 1))  # cell i + j: only 2099 distinct
    text = explain(overlapping)
    m = re.search(r"reaches (at most )?(\d+) of the 2100 cells", text)
    assert m, text
    assert m.group(1) or int(m.group(2)) == 2099
    assert "0 .. 2098" in text


def test_explain_empty_view():
    t = pyth.zeros(0, 3)
    text = explain(t)
    _, marked = drawn_cells(text)
    assert marked == set()
    assert "no elements" in text

