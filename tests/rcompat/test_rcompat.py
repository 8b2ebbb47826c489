"""idrisk.rcompat: pandas <-> R conversion (R objects built by R code), results, reports."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from idrisk.rcompat import (
    RNotAvailableError,
    RPackageNotInstalledError,
    compare_results,
    dataframe_from_r,
    dataframe_to_r,
    dataframes_from_r,
    dataframes_to_r,
    load_r_dataset,
    require_r_package,
    result_from_r,
    result_to_r,
)
from idrisk.risk.result import IdentificationRiskResult


@pytest.fixture(scope="module")
def ro():
    from idrisk.rcompat._session import robjects

    try:
        return robjects()
    except RNotAvailableError as exc:
        pytest.skip(f"R/rpy2 not available: {exc}")


def r_true(ro, code: str, *args) -> bool:
    """Evaluate an R function on args; it must return a single TRUE/FALSE."""
    return bool(ro.r(code)(*args)[0])


# ------------------------------------------------------------------ R -> pandas -> R
R_FRAME = """data.frame(
  f = factor(c("b", NA, "a", "b"), levels = c("b", "a", "unused")),
  o = factor(c("lo", "hi", NA, "hi"), levels = c("lo", "hi"), ordered = TRUE),
  s = c("x", NA, "NA", ""),
  l = c(TRUE, NA, FALSE, TRUE),
  i = c(1L, NA, -3L, .Machine$integer.max),
  d = c(1.5, NA, NaN, -Inf),
  stringsAsFactors = FALSE)"""


def test_r_frame_to_pandas_types_labels_and_na(ro):
    df = dataframe_from_r(ro.r(R_FRAME))
    assert list(df.columns) == ["f", "o", "s", "l", "i", "d"]
    assert isinstance(df.index, pd.RangeIndex) and len(df) == 4
    f = df["f"]
    assert list(f.cat.categories) == ["b", "a", "unused"] and not f.cat.ordered
    assert f.cat.codes.tolist() == [0, -1, 1, 0]
    assert df["o"].cat.ordered and list(df["o"].cat.categories) == ["lo", "hi"]
    assert df["o"].cat.codes.tolist() == [0, 1, -1, 1]
    assert pd.api.types.is_string_dtype(df["s"])
    assert df["s"].isna().tolist() == [False, True, False, False]
    assert df["s"][2] == "NA" and df["s"][3] == ""
    assert str(df["l"].dtype) == "boolean"
    assert df["l"].isna().tolist() == [False, True, False, False]
    assert df["l"][0] and not df["l"][2]
    assert str(df["i"].dtype) == "Int32"
    assert df["i"].isna().tolist() == [False, True, False, False]
    assert df["i"][2] == -3 and df["i"][3] == 2**31 - 1
    assert df["d"].dtype == np.float64
    assert df["d"][0] == 1.5 and np.isnan(df["d"][1]) and np.isnan(df["d"][2])
    assert df["d"][3] == -np.inf


def test_r_frame_round_trip_is_identical(ro):
    rdf = ro.r(R_FRAME)
    back = dataframe_to_r(dataframe_from_r(rdf))
    assert r_true(ro, "identical", back, rdf)
    # NA_real_ and NaN are told apart after the trip
    assert r_true(ro, "function(x) identical(is.nan(x$d), c(FALSE, FALSE, TRUE, FALSE))", back)


@pytest.mark.parametrize(
    "code",
    [
        "data.frame(x = c(1L, 2L), y = c(TRUE, FALSE), z = c(0.5, 2))",  # no NA: plain dtypes
        "data.frame(x = c(NA_integer_, NA), y = c(NA, NA), z = c(NA_real_, NA),"
        " s = c(NA_character_, NA), f = factor(c(NA, NA), levels = 'a'))",  # all NA
        "data.frame(f = factor(character(0)), x = integer(0), s = character(0))",  # no rows
        "data.frame(f = factor('a'), x = 1L, s = 'z', stringsAsFactors = FALSE)",  # one row
        "data.frame(x = c(1.5, 2), row.names = c('r1', 'r2'))",  # real row names
        "data.frame(f = factor(c('2', '10', '1')))",  # numeric-looking labels, R's level order
    ],
)
def test_round_trip_edge_patterns(ro, code):
    rdf = ro.r(code)
    df = dataframe_from_r(rdf)
    assert r_true(ro, "identical", dataframe_to_r(df), rdf)


def test_plain_dtypes_without_na(ro):
    df = dataframe_from_r(ro.r("data.frame(x = c(1L, 2L), y = c(TRUE, FALSE))"))
    assert df["x"].dtype == np.int32 and df["y"].dtype == bool


def test_factor_labels_kept_where_rpy2_default_gives_codes(ro):
    df = dataframe_from_r(ro.r("data.frame(u = factor(c(2, 1, 2)))"))
    assert df["u"].astype(str).tolist() == ["2", "1", "2"]


# ------------------------------------------------------------------ pandas -> R -> pandas
def test_pandas_to_r_checked_by_r_code(ro):
    df = pd.DataFrame(
        {
            "cat": pd.Categorical(["a", None, "c"], categories=["c", "b", "a"]),
            "ord": pd.Categorical(["lo", "hi", "lo"], categories=["lo", "hi"], ordered=True),
            "s": pd.Series(["x", None, "NA"], dtype="str"),
            "obj": pd.Series(["p", np.nan, "q"], dtype=object),
            "b": [True, False, True],
            "nb": pd.array([True, None, False], dtype="boolean"),
            "i64": np.array([1, 2, -5], dtype=np.int64),
            "ni": pd.array([1, None, 3], dtype="Int64"),
            "f": [1.25, np.nan, 3.0],
            "nf": pd.array([1.5, None, 2.5], dtype="Float64"),
        }
    )
    rdf = dataframe_to_r(df)
    expected = """data.frame(
      cat = factor(c("a", NA, "c"), levels = c("c", "b", "a")),
      ord = factor(c("lo", "hi", "lo"), levels = c("lo", "hi"), ordered = TRUE),
      s = c("x", NA, "NA"), obj = c("p", NA, "q"),
      b = c(TRUE, FALSE, TRUE), nb = c(TRUE, NA, FALSE),
      i64 = c(1L, 2L, -5L), ni = c(1L, NA, 3L),
      f = c(1.25, NaN, 3), nf = c(1.5, NA, 2.5), stringsAsFactors = FALSE)"""
    assert r_true(ro, "identical", rdf, ro.r(expected))
    back = dataframe_from_r(rdf)
    assert back["cat"].tolist()[0] == "a" and pd.isna(back["cat"][1])
    assert list(back["cat"].cat.categories) == ["c", "b", "a"]
    assert back["ni"].isna().tolist() == [False, True, False]
    assert back["nf"].isna().tolist() == [False, True, False]


def test_big_integers_become_double_with_warning(ro):
    df = pd.DataFrame({"x": np.array([1, 2**40], dtype=np.int64)})
    with pytest.warns(UserWarning, match="'x'"):
        rdf = dataframe_to_r(df)
    assert r_true(ro, "function(d) is.double(d$x) && d$x[2] == 2^40", rdf)


def test_unsupported_columns_are_named(ro):
    with pytest.raises(TypeError, match="'when'"):
        dataframe_to_r(pd.DataFrame({"when": pd.to_datetime(["2020-01-01"])}))
    with pytest.raises(TypeError, match="'d'"):
        dataframe_from_r(ro.r("data.frame(d = as.Date('2020-01-01'))"))


def test_lists_of_frames(ro):
    rlist = ro.r("list(data.frame(a = factor(c('x', NA))), data.frame(a = factor('y')))")
    frames = dataframes_from_r(rlist)
    assert [f["a"].cat.categories.tolist() for f in frames] == [["x"], ["y"]]
    assert r_true(ro, "identical", dataframes_to_r(frames), rlist)
    named = dataframes_to_r(frames, names=["one", "two"])
    assert list(ro.r["names"](named)) == ["one", "two"]


# ------------------------------------------------------------------ result lists
def _result() -> IdentificationRiskResult:
    c = np.array([[1, 0], [2, 1], [1, 2]])
    own = np.array([[1, 0], [1, 0], [0, 1]])
    return IdentificationRiskResult.from_counts(c, own)


def test_result_to_r_has_r_names_order_and_storage(ro):
    res = _result()
    rlist = result_to_r(res)
    check = """function(x) (identical(names(x), c("s_vector", "exp.risk_vector",
      "true.rate_vector", "false.rate_vector", "c_vector", "T_vector", "K_vector", "F_vector",
      "Risk_vector")) && all(vapply(x, is.double, TRUE)) && identical(dim(x$c_vector), c(3L, 2L))
      && is.null(dimnames(x$c_vector)) && identical(x$c_vector, matrix(c(1, 2, 1, 0, 1, 2), 3))
      && identical(x$Risk_vector[2, ], c(0.5, 0)))"""
    assert r_true(ro, check, rlist)
    back = result_from_r(rlist)
    for key, value in res.to_r_dict().items():
        np.testing.assert_array_equal(back.to_r_dict()[key], value)


def test_result_from_r_list_built_in_r(ro):
    rlist = ro.r(
        """list(s_vector = c(0, 1), exp.risk_vector = c(0, 1), true.rate_vector = c(0, 0.5),
        false.rate_vector = c(NaN, 0), c_vector = matrix(c(0, 2, 1, 0), 2),
        T_vector = matrix(c(1, 1, 1, 1), 2), K_vector = matrix(c(0, 0, 1, 0), 2),
        F_vector = matrix(0, 2, 2), Risk_vector = matrix(c(0, 0.5, 1, 0), 2))"""
    )
    res = result_from_r(rlist, index=pd.Index(["a", "b"]))
    assert res.c.loc["b", 1] == 2 and res.risk.loc["b", 1] == 0.5 and res.c.loc["a", 2] == 1
    assert np.isnan(res.false_rate[1]) and res.false_rate[2] == 0
    assert result_from_r(ro.NULL) is None


# ------------------------------------------------------------------ compare_results
def test_compare_results_counts_and_locates_differences():
    a = _result()
    d = a.to_r_dict()
    d["c_vector"] = d["c_vector"].astype(float)
    d["c_vector"][1, 1] = 4
    d["c_vector"][2, 0] = 7
    d["false.rate_vector"] = np.array([np.nan, 0.0])
    report = compare_results(a, d)
    assert not report
    table = report.to_frame()
    assert table.loc["c_vector", "n_diff"] == 2
    assert table.loc["c_vector", "max_abs_diff"] == 6
    assert table.loc["c_vector", "first_record"] == 1
    assert table.loc["c_vector", "first_dataset"] == 2
    assert table.loc["false.rate_vector", "max_abs_diff"] == np.inf
    assert table.loc["s_vector", "n_diff"] == 0
    assert "DIFFER" in repr(report) and "c_vector" in repr(report)
    assert compare_results(a, a.to_r_dict())
    assert "AGREE" in str(compare_results(a, a))


def test_compare_results_refusals():
    a = _result()
    one = compare_results(a, None, errors={"R": "Error: too short"})
    assert not one and not one.both_refused
    assert "returned a result" in repr(one) and "Error: too short" in repr(one)
    # both refusing is agreement, whatever the wording; both messages are shown
    both = compare_results(
        None, None, errors={"idrisk": "r has 2 entries", "R": "Error: radius vector must be"}
    )
    assert both and both.both_refused
    text = repr(both)
    assert "AGREE" in text and "r has 2 entries" in text and "Error: radius vector" in text


def test_difference_report_names_component_record_and_both_values():
    a = _result()
    d = a.to_r_dict()
    d["Risk_vector"] = d["Risk_vector"].astype(float)
    d["Risk_vector"][2, 1] = 0.25
    report = compare_results(a, d, index=pd.Index(["r1", "r2", "r3"]))
    line = report.components[-1].describe()
    assert line.startswith("Risk_vector: 1 entry differs")
    assert "record r3, dataset 2: idrisk 0.5, R 0.25" in line
    assert line in repr(report)
    row = report.to_frame().loc["Risk_vector"]
    assert row["idrisk_value"] == 0.5 and row["R_value"] == 0.25


# ------------------------------------------------------------------ language objects
@pytest.mark.parametrize(
    ("code", "text"),
    [
        ("quote(sum(1, 2))", "sum(1, 2)"),  # evaluated, this would be "3"
        ('quote(stop("boom"))', 'stop("boom")'),  # evaluated, this would raise
        ("quote(syn(data = data, m = m))", "syn(data = data, m = m)"),  # no function syn()
        ("quote(no_such_variable)", "no_such_variable"),  # a symbol
        ("~ x + y", "~x + y"),  # a formula
        ("y ~ log(x)", "y ~ log(x)"),
        ("expression(a + 1, b)", "expression(a + 1, b)"),
        (
            "(function(data, m) match.call())(1:3, m = 2 + 3)",
            "(function(data, m) match.call())(data = 1:3, m = 2 + 3)",
        ),
    ],
)
def test_language_objects_are_deparsed_not_evaluated(ro, code, text):
    from idrisk.rcompat.convert import deparse_r, to_python

    obj = ro.r(code)
    assert deparse_r(obj) == text
    assert to_python(obj) == text


def test_language_objects_inside_lists(ro):
    """A synds-like list: its stored call, a formula and plain values convert field by field."""
    from idrisk.rcompat.convert import to_python

    obj = ro.r(
        """local({
          f <- function(data, m = 1, seed = NA) match.call()
          list(call = f(data = mydata, m = 2, seed = 2021), formula = Income ~ Age + Urban,
               m = 2L, method = c(Age = "", Income = "cart"), sym = as.name("x"))
        })"""
    )
    got = to_python(obj)
    assert got["call"] == "f(data = mydata, m = 2, seed = 2021)"
    assert got["formula"] == "Income ~ Age + Urban"
    assert got["m"] == 2 and got["method"] == {"Age": "", "Income": "cart"}
    assert got["sym"] == "x"


# ------------------------------------------------------------------ R packages
def test_missing_r_package_is_named(ro):
    with pytest.raises(RPackageNotInstalledError, match="'noSuchPkgXYZ'"):
        require_r_package("noSuchPkgXYZ")


def test_missing_rpy2_is_a_clear_error(monkeypatch):
    import sys

    from idrisk.rcompat import _session

    _session.robjects.cache_clear()
    monkeypatch.setitem(sys.modules, "rpy2", None)
    try:
        with pytest.raises(RNotAvailableError, match="rpy2 is not installed"):
            _session.robjects()
    finally:
        _session.robjects.cache_clear()


def test_load_r_dataset(ro):
    cars = load_r_dataset("mtcars", package="datasets")
    assert cars.shape == (32, 11) and cars.index[0] == "Mazda RX4"
    assert cars["cyl"].dtype == np.float64  # as R stores it
    coded = load_r_dataset("mtcars", package="datasets", factors=["cyl"])
    assert coded["cyl"].cat.categories.tolist() == ["4", "6", "8"]  # R's as.factor labels
    assert coded["cyl"].astype(float).tolist() == cars["cyl"].tolist()
    with pytest.raises(ValueError, match="'nope'"):
        load_r_dataset("mtcars", package="datasets", factors=["nope"])
    iris = load_r_dataset("iris", package="datasets")
    assert iris["Species"].cat.categories.tolist() == ["setosa", "versicolor", "virginica"]
    with pytest.raises(ValueError, match="nope"):
        load_r_dataset("nope", package="datasets")



def test_starting_r_leaves_child_processes_a_clean_library_path(ro):
    """R puts its library folders on LD_LIBRARY_PATH; a child Python (Dask's workers) started
    afterwards must still load its own libpython and import ``ssl``."""
    import subprocess
    import sys

    code = (
        "import os, subprocess, sys\n"
        "before = os.environ.get('LD_LIBRARY_PATH')\n"
        "from idrisk.rcompat._session import robjects\n"
        "robjects()\n"
        "assert os.environ.get('LD_LIBRARY_PATH') == before, os.environ.get('LD_LIBRARY_PATH')\n"
        "out = subprocess.run([sys.executable, '-c', 'import ssl'],\n"
        "                     capture_output=True, text=True)\n"
        "print('child', out.returncode, out.stderr[-300:])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-800:]
    assert out.stdout.startswith("child 0"), out.stdout
