"""The result as a reader sees it (repr with "…", HTML, summary, checks) and the row rule of
``idrisk._align`` for frames and Series."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from idrisk import RiskOptions, identification_risk
from idrisk._align import align_series, check_frame_alignment, index_mismatch


@pytest.fixture(scope="module")
def many():
    rng = np.random.default_rng(2)
    n = 200
    orig = pd.DataFrame({"Sex": pd.Categorical(rng.choice(["F", "M"], n)),
                         "Inc": rng.lognormal(8, 1, n).round(0)})
    orig.loc[:9, "Inc"] = 0.0  # 10 records (5%) never match under a percentage radius
    syns = []
    for j in range(14):
        s = orig.assign(Inc=orig.Inc.to_numpy()[rng.permutation(n)])
        s.loc[s.index[:j], "Inc"] = np.nan  # j records with NA in dataset j + 1
        syns.append(s)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = identification_risk(orig, syns, ["Sex"], ["Inc"], r=0.2)
    return orig, syns, res


def test_repr_marks_the_cut_rows(many):
    *_, res = many
    text = repr(res)
    lines = text.splitlines()
    assert lines[0].startswith("IdentificationRiskResult(n=200, m=14")
    assert any(line.startswith("…") for line in lines)  # rows 6..9 are cut
    body = [ln.split()[0] for ln in lines[2:-1]]
    assert body == ["1", "2", "3", "4", "5", "…", "10", "11", "12", "13", "14", "mean"]
    assert lines[-1] == ("records of 200 with NA in the confidential data / per synthetic "
                         "dataset (match anything): 0 / 0–13; never matched (≤ 0 under a % "
                         "radius): 10; "
                         f"c = 0 (T = 1, risk 0): {res.checks.c_zero.min()}–"
                         f"{res.checks.c_zero.max()}")


def test_checks_counts_are_right(many):
    orig, syns, res = many
    assert res.checks["na_synthetic"].tolist() == list(range(14))
    assert (res.checks["never_match"] == 10).all() and (res.checks["na_confidential"] == 0).all()
    np.testing.assert_array_equal(res.checks["c_zero"], (res.c == 0).sum())
    s = res.summary()
    assert s.loc["na_synthetic", "max"] == 13 and s.loc["never_match", "mean"] == 10
    # a record that never matches: c = 0, T = 1, risk 0 (R's convention) -- in dataset 1; in
    # the others the synthetic NA values match it (NA matches anything, R's rule)
    assert (res.c.iloc[:10, 0] == 0).all() and (res.T.iloc[:10, 0] == 1).all()
    assert (res.risk.iloc[:10, 0] == 0).all()
    assert (res.c.iloc[:10, 5] > 0).all()


def test_html_repr(many):
    *_, res = many
    html = res._repr_html_()
    assert html.startswith("<div") and "<table" in html and "…" in html
    assert "expected number of records identified" in html and "never matched" in html


def test_known_settings_are_truncated_with_ellipsis():
    rng = np.random.default_rng(0)
    cols = {f"k{i}": pd.Categorical(rng.choice(["a", "b"], 30)) for i in range(10)}
    orig = pd.DataFrame(cols)
    res = identification_risk(orig, [orig], known=list(cols)[:-1], syn=["k9"])
    assert "known=['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', …]" in repr(res)


# --------------------------------------------------------------------------- _align

def test_alignment_rule():
    a = pd.RangeIndex(4)
    assert index_mismatch(a, a) is None
    assert index_mismatch(a, pd.Index([10, 11, 12, 13])) is None  # default vs labels: position
    assert "different order" in index_mismatch(a, pd.Index([1, 0, 2, 3]))
    assert "different labels" in index_mismatch(pd.Index([5, 6]), pd.Index([7, 8]))
    f = pd.DataFrame({"x": [1, 2, 3]}, index=["a", "b", "c"])
    g = f.iloc[[2, 0, 1]]
    with pytest.raises(ValueError, match="syn: its index differs from the confidential data's"):
        check_frame_alignment(f, g, "syn")
    assert check_frame_alignment(f, g, "syn", "index")["x"].tolist() == [1, 2, 3]
    assert check_frame_alignment(f, g, "syn", "position") is g
    with pytest.raises(ValueError, match="1 missing"):
        check_frame_alignment(f, g.rename(index={"a": "z"}), "syn", "index")
    with pytest.raises(ValueError, match="align must be"):
        check_frame_alignment(f, g, "syn", "labels")


def test_align_series_names_the_argument():
    u = pd.Series([0.1, 0.2, 0.3], index=[10, 11, 12])
    w = pd.Series([1.0, 2.0, 3.0], index=[12, 11, 10])
    with pytest.raises(ValueError, match=r"^w: its index differs from u's"):
        align_series({"u": u, "w": w})
    out = align_series({"u": u, "w": w}, align="index")
    assert out["w"].tolist() == [3.0, 2.0, 1.0]
    with pytest.raises(ValueError, match="w has 2 entries but u has 3"):
        align_series({"u": u, "w": w.iloc[:2]})
    # arrays have no index: by position
    assert align_series({"u": u, "w": np.array([7, 8, 9])})["w"].tolist() == [7, 8, 9]


def test_na_in_origdata_is_counted_and_warned():
    from idrisk.exceptions import RiskInputWarning

    rng = np.random.default_rng(4)
    n = 300
    orig = pd.DataFrame({"Sex": pd.Categorical(rng.choice(["F", "M"], n)),
                         "Age": rng.integers(20, 90, n).astype(float),
                         "Inc": rng.lognormal(8, 1, n).round(0)})
    orig.loc[[3, 7, 11], "Inc"] = np.nan
    orig.loc[[7, 20], "Age"] = np.nan  # record 7 twice: counted once
    syn = orig.assign(Inc=rng.lognormal(8, 1, n).round(0))
    with pytest.warns(RiskInputWarning,
                      match=r"the confidential data: 4 of 300 records \(1.3%\) have NA in "
                      r"a continuous known/syn variable \(Age: 2, Inc: 3\)"):
        res = identification_risk(orig, [syn], ["Sex", "Age"], ["Inc"], r=0.1)
    assert res.checks["na_confidential"].tolist() == [4]
    # R's rule: a record with NA matches every synthetic record of its key on that variable
    assert res.c.loc[3, 1] >= 1


def test_dask_engine_takes_the_same_arguments():
    pytest.importorskip("dask")
    from idrisk.risk.dask_engine import identification_risk_dask

    rng = np.random.default_rng(6)
    n = 120
    orig = pd.DataFrame({"Urban": rng.choice([1, 2], n), "Age": rng.integers(20, 90, n),
                         "Inc": rng.lognormal(8, 1, n).round(0).astype(str)})
    syn = orig.assign(Inc=rng.lognormal(8, 1, n).round(0).astype(str))
    args = dict(known=["Urban", "Age"], syn=["Inc"], r=0.2, categorical=["Urban"],
                continuous=["Inc"])
    want = identification_risk(orig, [syn], **args)
    options = RiskOptions(**args)
    got = identification_risk_dask(orig, [syn], options, scheduler="synchronous")
    pd.testing.assert_frame_equal(got.c, want.c)
    pd.testing.assert_frame_equal(got.T, want.T)
    assert list(want.categorical) == ["Urban"]
    with pytest.raises(ValueError, match="synthetic dataset 1"):
        identification_risk_dask(orig, [syn.iloc[::-1]], options, scheduler="synchronous")
    aligned = identification_risk_dask(orig, [syn.iloc[::-1]], options.replace(align="index"),
                                       scheduler="synchronous")
    pd.testing.assert_frame_equal(aligned.T, want.T)
