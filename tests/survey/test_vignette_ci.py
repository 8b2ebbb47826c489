"""The CI-sized run of ``vignettes/survey_tables.py``: one sample, short Stan runs.

At this size it can show: both synthesizers beat the Laplace mechanism by a wide margin on
counts and on means (median over the 27 cells of |error| relative to the confidential
sample's |error|), synthetic tables are additive and Laplace tables are not, and
epsilon = 2 Delta_alpha m.  Coverage and the FBS-vs-FBP ordering need repeated samples
(the vignette's full run).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("stan")

VIGNETTE = Path(__file__).resolve().parents[2] / "vignettes" / "survey_tables.py"


def _load():
    spec = importlib.util.spec_from_file_location("survey_tables_vignette", VIGNETTE)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.stan
@pytest.mark.slow
def test_vignette_ci_run_shows_the_findings():
    vig = _load()
    results, fits, truth = vig.run_simulation(
        1, seed=2021, chains=2, warmup=150, draws=150, refits=0, m_values=(3,),
        progress=False,
    )
    assert len(truth) == 27
    summary = vig.summarize(results, truth)
    med = summary.groupby(["method", "stat"])["rmse_ratio"].median()
    for stat in ("count", "mean"):
        for method in ("fbs", "fbp"):
            assert med["laplace", stat] > 2 * med[method, stat], (stat, method, med)
    # additivity: cells add up to margins in synthetic tables, not in Laplace tables
    for method in ("fbs", "fbp", "laplace"):
        rows = results[results.method == method]
        cells = rows[(rows.field != "All") & (rows.gender != "All")]
        total = rows[(rows.field == "All") & (rows.gender == "All")]["count"].item()
        rel = abs(cells["count"].sum() - total) / total
        assert (rel > 1e-3) if method == "laplace" else (rel < 1e-9), (method, rel)
    # every published finding gets a row with a factor and a verdict (no SE from one sample)
    comp = vig.paper_comparison(summary, fits, results, truth)
    assert list(comp.columns) == ["finding", "paper", "this run", "factor", "verdict"]
    assert len(comp) >= 20 and comp["finding"].str.contains("Laplace").any()
    # the privacy accounting is recorded for every fit
    assert set(fits["method"]) == {"fbs", "fbp"}
    assert (fits["delta_alpha"] > 0).all() and (fits["delta_alpha"] < fits["delta_max"]).all()
