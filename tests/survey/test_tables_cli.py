"""SurveyTable, combining over m datasets, PPS sampling and the survey-table CLI."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from idrisk.cli import main
from idrisk.survey import (
    SurveyTable,
    combine_tables,
    design_table,
    pps_sample,
    simulate_population,
)
from idrisk.utility.combining import combine_partial


def sample(seed=1, n=200):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "field": rng.choice(["A", "B", "C"], n), "gender": rng.choice(["F", "M"], n),
        "salary": rng.lognormal(11, 0.4, n), "w": rng.lognormal(4, 0.5, n),
    })


def test_table_layout_repr_and_additivity():
    tab = design_table(sample(), "salary", "w", "field", ["field", "gender"])
    f = tab.to_frame()
    assert list(f.columns[:2]) == ["field", "gender"]
    assert {"count", "count_se", "mean", "mean_se"} <= set(f.columns)
    assert len(f) == 3 * 2 + 3 + 2 + 1
    assert (f.iloc[-1][["field", "gender"]] == "All").all()
    assert "SurveyTable(method='direct'" in repr(tab) and "<table" in tab._repr_html_()
    assert tab.additivity() < 1e-12
    assert tab.cell(field="B")["count"] == pytest.approx(
        f.loc[(f.field == "B") & (f.gender == "All"), "count"].item())


def test_domains_by_zeroing_not_subsetting():
    """A domain's SE uses all units of its strata: it differs from the subset's SE."""
    df = sample(2)
    full = design_table(df, "salary", "w", "field", ["gender"], margins=False).table
    sub = df[df.gender == "F"]
    alone = design_table(sub, "salary", "w", "field", ["gender"], margins=False).table
    assert full.loc[0, "count"] == pytest.approx(alone.loc[0, "count"])
    assert full.loc[0, "count_se"] > 1.05 * alone.loc[0, "count_se"]


def test_combine_tables_equals_combine_partial_per_cell():
    tabs = [design_table(sample(s), "salary", "w", "field", ["field", "gender"])
            for s in (3, 4, 5)]
    # same rows in every table (all cells occur in every sample)
    comb = combine_tables(tabs).to_frame()
    for i in range(len(comb)):
        for s in ("count", "mean"):
            ref = combine_partial([t.table[s].iloc[i] for t in tabs],
                                  [t.table[f"{s}_se"].iloc[i] ** 2 for t in tabs])
            assert comb[s].iloc[i] == pytest.approx(ref.q_bar, rel=1e-14)
            assert comb[f"{s}_se"].iloc[i] ** 2 == pytest.approx(ref.T, rel=1e-12)
            assert comb[f"{s}_df"].iloc[i] == pytest.approx(ref.df, rel=1e-12)
            assert comb[f"{s}_low"].iloc[i] == pytest.approx(ref.ci_low, rel=1e-12)
    one = combine_tables(tabs[:1]).to_frame()
    assert np.isinf(one["count_df"]).all()
    np.testing.assert_allclose(one["count_se"], tabs[0].table["count_se"])


def test_combine_tables_rejects_different_rows():
    a = design_table(sample(3), "salary", "w", "field", ["field"])
    b = design_table(sample(3), "salary", "w", "field", ["gender"])
    with pytest.raises(ValueError, match="different rows"):
        combine_tables([a, b])


def test_errors_name_the_argument():
    df = sample()
    with pytest.raises(KeyError, match="weight='wt'"):
        design_table(df, "salary", "wt", "field", ["field"])
    with pytest.raises(TypeError, match="y column 'gender' must be numeric"):
        design_table(df, "gender", "w", "field", ["field"])
    with pytest.raises(ValueError, match="variance must be"):
        design_table(df, "salary", "w", "field", ["field"], variance="jackknife")


def test_pps_sample_has_exact_inclusion_probabilities():
    """Systematic PPS: the empirical inclusion frequency matches pi (a noise baseline)."""
    pop = simulate_population(600, seed=3)
    hits = np.zeros(len(pop))
    reps = 200
    for s in range(reps):
        smp = pps_sample(pop, 60, seed=s)
        hits[pop.index.get_indexer(smp.index)] += 1
        assert len(smp) == 60
    pi = pps_sample(pop, 60, seed=0)
    from idrisk.survey import inclusion_probabilities
    want = np.zeros(len(pop))
    for f in pop.field.cat.categories:
        idx = np.flatnonzero(pop.field == f)
        nh = int((pi.field == f).sum())
        want[idx] = inclusion_probabilities(pop["size"].to_numpy()[idx], nh)
    z = (hits / reps - want) / np.sqrt(np.maximum(want * (1 - want), 1e-12) / reps)
    assert np.mean(np.abs(z) < 3) > 0.97


def test_cli_direct_and_laplace(tmp_path, capsys):
    df = sample(6)
    path = tmp_path / "s.csv"
    df.to_csv(path, index=False)
    out = tmp_path / "t.csv"
    base = ["survey-table", str(path), "--y", "salary", "--weight", "w"]
    assert main([*base, "--strata", "field", "--by", "field", "gender", "--out", str(out)]) == 0
    got = pd.read_csv(out, keep_default_na=False)
    want = design_table(df, "salary", "w", "field", ["field", "gender"]).to_frame()
    np.testing.assert_allclose(got["count_se"], want["count_se"], rtol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main([*base, "--strata", "field", "--by", "gender", "--method", "laplace",
                     "--epsilon", "5", "--seed", "3", "--out", str(out), "--overwrite"]) == 0
    lap = pd.read_csv(out)
    assert "count_scale" in lap
    assert main([*base, "--by", "gender", "--method", "laplace"]) == 2
    assert "needs --epsilon" in capsys.readouterr().err
    assert main(["survey-table", str(path), "--y", "pay", "--weight", "w", "--by",
                 "gender"]) == 2
    assert "column 'pay'" in capsys.readouterr().err


def test_survey_table_repr_is_readable():
    t = SurveyTable(pd.DataFrame({"g": ["a", "All"], "count": [1.0, 1.0], "count_se": [0, 0],
                                  "mean": [2.0, 2.0], "mean_se": [0.1, 0.1]}), by=["g"],
                    info={"epsilon": 10.8})
    assert "epsilon=10.8" in repr(t)


def test_synthetic_tables_release_only_what_the_mechanism_protects():
    """FBS/FBP tables leave out the per-row sample counts (the design columns are kept, so
    they are the confidential counts); on request they come labelled as not private."""
    from idrisk.survey import SurveySynthesis

    rng = np.random.default_rng(1)
    frames = [pd.DataFrame({"field": np.repeat(["p", "q"], 10), "gender": np.tile(["f", "m"], 10),
                            "salary": rng.uniform(1, 2, 20), "w": rng.uniform(1, 3, 20)})
              for _ in range(2)]
    for method in ("fbs", "fbp"):
        out = SurveySynthesis(frames, method=method, seed=1, delta_alpha=0.5, epsilon=2.0,
                              syn="salary", weight="w", known=("field", "gender"),
                              strata="field")
        released = out.tables(by=["field", "gender"])
        assert "n" not in released.table and "n_not_private" not in released.table
        assert released.epsilon == 2.0 and released.delta_alpha == 0.5 and released.m == 2
        asked = out.tables(by=["field", "gender"], sample_counts=True)
        assert asked.table["n_not_private"].tolist()[:4] == [5, 5, 5, 5]
        pd.testing.assert_frame_equal(asked.table.drop(columns="n_not_private"),
                                      released.table)


def test_laplace_table_releases_no_exact_count(tmp_path, capsys):
    """The released Laplace table holds noised statistics and scales, never the exact cell
    sizes; they come only on request, labelled as not private."""
    from idrisk.survey import laplace_table

    df = sample(7, n=300)
    path = tmp_path / "s.csv"
    df.to_csv(path, index=False)
    exact = design_table(df, "salary", "w", "field", ["field", "gender"]).to_frame()["n"]
    assert exact.nunique() > 3
    out = tmp_path / "lap.csv"
    base = ["survey-table", str(path), "--y", "salary", "--weight", "w", "--strata", "field",
            "--by", "field", "gender", "--method", "laplace", "--epsilon", "5", "--seed", "2"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main([*base, "--out", str(out)]) == 0
        released = pd.read_csv(out, keep_default_na=False)
        assert list(released.columns) == ["field", "gender", "count", "count_se", "mean",
                                           "mean_se", "count_scale", "mean_scale"]
        numbers = released.drop(columns=["field", "gender"])
        for column in numbers:  # no column is (or contains) the exact sizes
            assert not np.isin(exact.to_numpy(), numbers[column].to_numpy()).all(), column
        tab = laplace_table(df, "salary", "w", "field", ["field", "gender"], epsilon=5, seed=2)
        assert "n" not in tab.to_frame().columns
        assert main([*base, "--out", str(out), "--overwrite", "--sample-counts"]) == 0
    assert "not protected" in capsys.readouterr().err
    shown = pd.read_csv(out, keep_default_na=False)
    np.testing.assert_array_equal(shown["n_not_private"], exact)
