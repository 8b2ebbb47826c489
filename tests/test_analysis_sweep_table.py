"""radius_sweep's table, framed once (issue 30), equals the table built per (scenario, radius)
from identification_risk and joined, dtypes included: numbers, None, per-column radii, and
scenarios named by text or numbers."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from idrisk import identification_risk
from idrisk.analysis import Scenario, radius_sweep


def _joined(conf, scen, known, radii) -> pd.DataFrame:
    parts = []
    for name, sc in scen.items():
        for r in radii:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = identification_risk(conf, sc.synthetic, known, sc.syn,
                                          r=dict(r) if isinstance(r, dict) else r)
            label = (None if r is None else ", ".join(f"{k}={v:g}" for k, v in r.items())
                     if isinstance(r, dict) else float(r))
            df = pd.DataFrame({
                "scenario": name, "r": [label] * res.m,
                "dataset": np.asarray(res.exp_risk.index, dtype=int),
                "exp_risk": res.exp_risk.to_numpy(dtype=float),
                "true_rate": res.true_rate.to_numpy(dtype=float),
                "false_rate": res.false_rate.to_numpy(dtype=float)})
            df["record_mean_risk"] = df["exp_risk"] / len(conf)
            df["s"] = res.s.to_numpy()
            df["c_zero"] = res.checks["c_zero"].to_numpy()
            df["never_match"] = res.checks["never_match"].to_numpy()
            parts.append(df)
    return pd.concat(parts, ignore_index=True)


@pytest.mark.parametrize("names", [("a", "b"), (1, 2), ("a", 2)])
@pytest.mark.parametrize("radii", [[0.05, 0.1], [None, 0.1], [{"Age": 0.1, "Income": 0.2}, 0.3]])
def test_sweep_table_equals_the_joined_tables(names, radii):
    rng = np.random.default_rng(8)
    n = 80
    conf = pd.DataFrame({"Sex": rng.choice(["F", "M"], n), "Age": rng.integers(20, 70, n) * 1.0,
                         "Income": np.round(rng.lognormal(8, 1, n))})
    syns = [conf.assign(Income=np.round(conf.Income * rng.lognormal(0, 0.1, n)))
            for _ in range(3)]
    scen = {names[0]: Scenario(["Income"], syns), names[1]: Scenario(["Income"], syns[:2])}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = radius_sweep(conf, scen, ["Sex", "Age"], radii=radii, progress=False)
    pd.testing.assert_frame_equal(got, _joined(conf, scen, ["Sex", "Age"], radii))
