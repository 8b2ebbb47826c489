"""The papers' worked examples, computed with idrisk and stored for the findings tables.

* Hornby & Hu (paper 002), Figs. 1-5: record i's ``IR_i = T_i / c_i`` for the five cases
  of its Section 2 (one synthesized continuous variable: cases 1-2; two: cases 3-4; two
  plus a synthesized categorical variable: case 5), with ``identification_risk`` on small
  data sets laid out as the figures describe (an absolute radius of 10 around record i's
  values; every record shares record i's known pattern);
* Hu, Savitsky & Williams (003 Fig. 1; 000 Figs. 2-4 and supplement Figs. 2-5): Betty's
  marginal risk with 13 records in her pattern and 10, 5 or 1 synthetic values outside her
  ball, her own synthetic value inside (T = 1: cases a, b) or outside (T = 0: cases c, d,
  e), with ``synthetic_marginal_risk``.

Usage: ``python vignettes/worked_examples.py`` (under a second); writes
``vignettes/figures/worked_examples.json``.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from idrisk.risk.identification import identification_risk
from idrisk.weighted.weights import synthetic_marginal_risk

FIG = Path(__file__).resolve().parent / "figures"
FAR = [300.0, 310.0, 320.0, 330.0, 340.0]  # confidential and synthetic values far from i's


def _case(income_syn, expenditure_syn=None, tenure_syn=None) -> dict:
    """Record 0 is i (income 100, expenditure 50, tenure "own"); the rest fill the pattern."""
    n = len(income_syn)
    conf = pd.DataFrame({"Age": [40] * n, "Income": [100.0, *FAR[: n - 1]]})
    syn = pd.DataFrame({"Age": [40] * n, "Income": income_syn})
    variables = ["Income"]
    if expenditure_syn is not None:
        conf["Expenditure"] = [50.0, *FAR[: n - 1]]
        syn["Expenditure"] = expenditure_syn
        variables.append("Expenditure")
    if tenure_syn is not None:
        conf["Tenure"] = pd.Categorical(["own"] * n, categories=["own", "rent"])
        syn["Tenure"] = pd.Categorical(tenure_syn, categories=["own", "rent"])
        variables.append("Tenure")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the filler records have c = 0 on purpose
        res = identification_risk(conf, syn, known=["Age"], syn=variables, r=10.0,
                                  percentage=False)
    c, t = int(np.asarray(res.c)[0, 0]), int(np.asarray(res.T)[0, 0])
    return {"c": c, "T": t, "IR": t / c}


def hornby_hu() -> dict:
    inside = [95.0, 105.0, 99.0, 108.0]  # synthetic incomes in i's interval [90, 110]
    return {
        # case 1: 5 synthetic records in the interval, i's own among them
        "case 1": _case([101.0, *inside, 200.0]),
        # case 2: 4 in the interval, i's own synthetic income outside
        "case 2": _case([150.0, *inside, 200.0]),
        # case 3: 4 in the rectangle, i's own inside
        "case 3": _case([101.0, 95.0, 105.0, 99.0, 200.0],
                        [51.0, 45.0, 55.0, 49.0, 200.0]),
        # case 4: 3 in the rectangle; i's synthetic income in range, expenditure not
        "case 4": _case([101.0, 95.0, 105.0, 99.0, 200.0],
                        [70.0, 45.0, 55.0, 49.0, 200.0]),
        # case 5: case 3 with tenure synthesized too; one of the others' tenure changes
        "case 5": _case([101.0, 95.0, 105.0, 99.0, 200.0],
                        [51.0, 45.0, 55.0, 49.0, 200.0],
                        ["own", "own", "rent", "own", "own"]),
    }


def betty() -> dict:
    y = np.full(13, 100.0)
    near = [101.0, 99.0, 100.0, 102.0, 98.0, 103.0, 97.0, 104.0, 96.0, 105.0, 95.0, 100.5]
    cases = {
        "a": [101.0, *near[:2], *[500.0] * 10],   # 10 outside, Betty's own inside
        "b": [101.0, *near[:7], *[500.0] * 5],    # 5 outside
        "c": [500.0, *near[:12]],                 # 1 outside: Betty's own (T = 0)
        "d": [500.0, *near[:3], *[500.0] * 9],    # 10 outside, Betty's own among them
        "e": [500.0, *near[:8], *[500.0] * 4],    # 5 outside, Betty's own among them
    }
    out = {}
    for name, ys in cases.items():
        res = synthetic_marginal_risk(y, np.zeros(13), [np.asarray(ys)], 0.1)
        out[name] = {"outside": int(sum(abs(v - 100.0) > 10.0 for v in ys)),
                     "IR": float(res.record_risk.iloc[0])}
    return out


def main() -> dict:
    res = {"hornby_hu_2021": hornby_hu(), "betty": betty()}
    FIG.mkdir(parents=True, exist_ok=True)
    (FIG / "worked_examples.json").write_text(json.dumps(res, indent=1) + "\n")
    return res


if __name__ == "__main__":
    print(json.dumps(main(), indent=1))
