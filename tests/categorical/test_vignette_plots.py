"""The categorical-labels vignette's CI-sized run, and the two figures."""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from idrisk.categorical.plots import plot_bounds, plot_table_deviations  # noqa: E402
from idrisk.risk.bounds import inherent_bounds, label_risk  # noqa: E402
from idrisk.utility.tables import table_deviations  # noqa: E402

VIGNETTE = Path(__file__).resolve().parents[2] / "vignettes" / "categorical_labels.py"


def test_plots_have_titles_units_and_legends():
    rng = np.random.default_rng(0)
    d = pd.DataFrame({"g": rng.integers(0, 2, 300), "a": rng.integers(0, 3, 300),
                      "lab": rng.geometric(0.3, 300)})
    b = inherent_bounds(d, "lab", ["g", "a"], n_repeats=15, seed=1)
    syn = [d.assign(lab=rng.permutation(d["lab"].to_numpy())) for _ in range(3)]
    ax = plot_bounds(b, {"shuffle": label_risk(d, syn, "lab", ["g"])}, "attribute_count")
    assert "records" in ax.get_xlabel() and ax.get_legend() is not None
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("Min" in t for t in labels) and any("shuffle" in t for t in labels)
    axes = plot_table_deviations({"shuffle": table_deviations(d, syn, "lab", ["g", "a"])}).axes
    assert [a.get_title() for a in axes] == ["one-way tables", "two-way tables",
                                             "three-way tables"]
    with pytest.raises(ValueError, match="measure"):
        plot_bounds(b, {}, "risk")


@pytest.mark.slow
def test_vignette_ci_run(ce, tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("categorical_labels", VIGNETTE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setattr(mod, "FIG", tmp_path)
    from _shared import cedata_path

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = mod.main(["--ci", "--ce", str(cedata_path())])
    for name in ("ce", "sim"):
        r = res[name]
        t2 = r["table2"]
        assert set(t2) == {"DPMPM", "DPMPM (z=gibbs)", "DP-areal"}
        tab = pd.DataFrame(r["risk"]["case ii"]["table"])
        assert {"Min", "DPMPM", "DP-areal", "Max"} <= set(tab.columns)
        # the bounds bracket the attribute counts of the no-smoothing limit (closed forms)
        cf = r["risk"]["case ii"]["closed_form"]["mean"]
        assert cf["min"] < cf["max"]
        # within-pattern utility (the paper's section 3.3): every pattern counted once
        wp = r["within_pattern"]
        assert wp["a_closer"] + wp["b_closer"] + wp["tie"] == wp["patterns"]
        assert set(r["table2_sd"]) == set(t2)
        assert set(r["risk"]["case ii"]["sd"]) >= {"Min", "Max", "DPMPM", "DP-areal"}
    assert (tmp_path / "categorical_bounds_sim_ci.png").is_file()
    assert (tmp_path / "categorical_within_pattern_sim_ci.png").is_file()
    table = mod.findings_md(res)
    assert table.count("\n| ") >= 15 and "Min" in table
    assert (tmp_path / "categorical_results_ci.json").is_file()
