"""what_if: every row is identification_risk on explicitly transformed inputs (a property over
random problems), and knowing less never raises a record's match count's complement: removing
a known variable never lowers any record's c (metamorphic)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies import risk_problems

from idrisk import identification_risk
from idrisk.risk.precision import MEASURES
from idrisk.risk.whatif import what_if

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                      HealthCheck.data_too_large])


def _risk(conf, syns, **call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return identification_risk(conf, syns, **call)


def _what_if(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return what_if(*args, **kwargs)


def _per_dataset(res):
    return res.to_frame("dataset").astype(float).reset_index(drop=True)


def _row(result, change, variable="", setting=None):
    t = result.to_frame()
    sel = (t["change"] == change) & (t["variable"] == variable)
    if setting is not None:
        sel &= t["setting"] == setting
    got = t[sel][list(MEASURES)].astype(float).reset_index(drop=True)
    assert len(got), (change, variable, setting)
    return got


def _options(call):
    return {k: v for k, v in call.items() if k not in ("known", "syn", "r")}


@settings(max_examples=40, **SETTINGS)
@given(problem=risk_problems(), data=st.data())
def test_every_row_is_identification_risk_on_transformed_inputs(problem, data):
    orig, syns, call = problem
    try:
        base = _risk(orig, syns, **call)
    except (ValueError, KeyError, TypeError):
        assume(False)
    cont = [c for c in base.continuous]
    cat = [c for c in base.categorical]
    radii = data.draw(st.lists(st.sampled_from([0.0, 0.1, 0.5, 1.0, 2.5]), max_size=2,
                               unique=True))
    band_var = data.draw(st.sampled_from(cont)) if cont else None
    width = data.draw(st.sampled_from([0.5, 1.0, 2.5]))
    cat_levels = {c: {str(x) for x in pd.unique(orig[c].dropna())} for c in cat}
    merge_var = next((c for c in cat if {"a", "b"} <= cat_levels[c]), None)
    from idrisk import RiskOptions

    options = RiskOptions(known=call["known"], syn=call["syn"], r=call["r"], **_options(call))
    res = _what_if(orig, syns, r=call["r"], radii=radii or None,
                   bands={band_var: width} if band_var else None,
                   merge={merge_var: ["a", "b"]} if merge_var else None, options=options)
    extra = _options(call)
    known, syn = list(call["known"]), list(call["syn"])
    base_r = base.r

    def without(r, *drop):
        if r is None:
            return None
        out = {c: v for c, v in r.items() if c not in drop}
        return out or None

    pd.testing.assert_frame_equal(_row(res, "baseline"), _per_dataset(base))
    for v in known:
        if len(known) == 1 and not syn:
            continue
        kept = [k for k in known if k != v]
        want = _risk(orig, syns, known=kept, syn=syn, r=without(base_r, v), **extra)
        pd.testing.assert_frame_equal(_row(res, "drop", v), _per_dataset(want))
    if base_r is not None:
        grid = radii or None
        for v in (k for k in known if k in cont):
            values = grid if grid is not None else [base_r[v] * x for x in (2.0, 3.0, 5.0)]
            if grid is None and base_r[v] == 0:
                continue
            for value in values:
                setting = (f"r = {100 * value:g}%" if call["percentage"]
                           else f"r = {value:g}")
                want = _risk(orig, syns, known=known, syn=syn, r={**base_r, v: value},
                             **extra)
                pd.testing.assert_frame_equal(_row(res, "radius", v, setting),
                                              _per_dataset(want))
    if band_var:
        def banded(frame):  # written out here, not the module's band_values
            x = frame[band_var].to_numpy(dtype=float)
            return frame.assign(**{band_var: np.floor(x / width) * width + 0.0})

        want = _risk(banded(orig), [banded(f) for f in syns], known=known, syn=syn,
                     r=without(base_r, band_var), **{**extra, "categorical": [band_var]})
        pd.testing.assert_frame_equal(_row(res, "band", band_var), _per_dataset(want))
    if merge_var:
        def merged(frame):
            col = frame[merge_var].astype(object)
            col = col.where(~col.isin(["a", "b"]), "a+b")
            return frame.assign(**{merge_var: col})

        want = _risk(merged(orig), [merged(f) for f in syns], known=known, syn=syn,
                     r=without(base_r), **extra)
        pd.testing.assert_frame_equal(_row(res, "merge", merge_var), _per_dataset(want))


@settings(max_examples=80, **SETTINGS)
@given(problem=risk_problems())
def test_removing_a_known_variable_never_lowers_c(problem):
    """Each record's c can only grow when the intruder knows one variable less.

    Not under R's ``euclidean_dist`` rule: there the known continuous variables share the
    radius d_K = (sum d_v^2)^0.5, so dropping one narrows the others' intervals."""
    orig, syns, call = problem
    assume(not call["euclidean_dist"] and call["known"])
    try:
        full = _risk(orig, syns, **call)
    except (ValueError, KeyError, TypeError):
        assume(False)
    for v in call["known"]:
        kept = [k for k in call["known"] if k != v]
        r = None if full.r is None else {c: x for c, x in full.r.items() if c != v}
        less = _risk(orig, syns, **{**call, "known": kept, "r": r or None})
        assert (less.c.to_numpy() >= full.c.to_numpy()).all(), v


def _small():
    rng = np.random.default_rng(5)
    n = 40
    marital = rng.choice(["single", "married", "widowed", "divorced"], n)
    conf = pd.DataFrame({"Sex": rng.choice(["F", "M"], n), "Marital": marital,
                         "Age": rng.integers(20, 60, n).astype(float),
                         "Income": rng.uniform(10, 100, n)})
    syns = [conf.assign(Income=conf.Income + rng.normal(0, 3, n)) for _ in range(3)]
    return conf, syns


def test_what_if_errors_name_the_variable():
    conf, syns = _small()
    kw = dict(known=["Sex", "Age"], syn="Income", r=0.1)
    with pytest.raises(ValueError, match="'Educ' is not a known or synthesized variable"):
        _what_if(conf, syns, bands={"Educ": 5}, **kw)
    with pytest.raises(ValueError, match="band width of 'Income' must be > 0"):
        _what_if(conf, syns, bands={"Income": 0}, **kw)
    with pytest.raises(ValueError, match="categorical"):
        _what_if(conf, syns, bands={"Sex": 2}, **kw)
    with pytest.raises(ValueError, match="no level 'X'"):
        _what_if(conf, syns, merge={"Sex": ["F", "X"]}, **kw)


def test_what_if_result_faces_and_plot():
    conf, syns = _small()
    res = _what_if(conf, syns, ["Sex", "Marital", "Age"], "Income", r=0.1,
                   bands={"Income": 25},
                   merge={"Marital": [["single", "widowed"], ["married", "divorced"]]})
    t = res.summary()
    assert t["change"].tolist()[:4] == ["baseline", "drop", "drop", "drop"]
    assert t.loc[t["change"] == "merge", "setting"].item() == "single+widowed; married+divorced"
    assert (t["lower"] <= t["exp_risk"]).all() and (t["exp_risk"] <= t["upper"]).all()
    assert len(res.to_frame()) == len(t) * 3
    assert res.baseline == t["exp_risk"].iloc[0]
    import matplotlib

    matplotlib.use("Agg", force=False)
    ax = res.plot()
    assert ax.get_title() and "records identified" in ax.get_xlabel()
    assert ax.get_legend() is not None


def test_m_one_what_if_has_no_interval():
    conf, syns = _small()
    res = _what_if(conf, syns[:1], ["Sex", "Age"], "Income", r=0.1)
    assert res.summary()[["se", "lower", "upper"]].isna().all().all()
    assert any("no interval" in x for x in res.notes)
