"""The fast engine equals the brute-force reference on random small data (hypothesis).

The engine is the compiled kernels (numba); the reference is plain Python.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import reference_risk
from strategies import risk_problems

from idrisk import identification_risk


def assert_equals_reference(orig, syns, call) -> None:
    """The engine's every component equals the O(n²) reference's, entry for entry."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = identification_risk(orig, syns, **call).to_r_dict()
    for key, value in reference_risk(orig, syns, **call).items():
        np.testing.assert_array_equal(got[key], value, err_msg=key)


@settings(max_examples=150, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(problem=risk_problems())
def test_fast_path_equals_brute_force(problem):
    orig, syns, call = problem
    assert_equals_reference(orig, syns, call)


def test_reference_agrees_with_r_on_fixtures():
    """The reference itself is checked against R on a few fixtures (it is the judge above)."""
    from fixture_io import load_case

    for name in [
        "euclid_known_plus_syn_hand",
        "negzero_pct_noneuclid_hand",
        "extra_na_in_syn_continuous",
        "cat_rnull_new_level_later_syn",
        "T0_c0_hand",
    ]:
        case = load_case(name)
        a = case.args
        want = reference_risk(
            case.orig, case.syn, a["known"], a["syn"], a["r"], a["percentage"], a["euclideanDist"]
        )
        for key, value in want.items():
            np.testing.assert_array_equal(np.asarray(value, float), case.r_value(key), err_msg=key)


def test_numpy_brute_force_baseline_matches_r():
    """The O(n^2) baseline used in the benchmarks is itself exact on R's fixtures."""
    from fixture_io import case_names, load_case
    from reference import brute_force_numpy

    for name in case_names():
        case = load_case(name)
        a = case.args
        if case.expected["returned_null"] or a["n"] > 1000:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = brute_force_numpy(case.orig, case.syn, a["known"], a["syn"], a["r"],
                                    a["percentage"], a["euclideanDist"]).to_r_dict()
        for key in ("c_vector", "T_vector", "exp.risk_vector"):
            np.testing.assert_array_equal(got[key], case.r_value(key), err_msg=f"{name} {key}")


@settings(max_examples=80, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(problem=risk_problems())
def test_sorted_search_path_equals_brute_force(problem):
    """Large inputs search in sorted order; force that path on small data and compare."""
    import idrisk.risk.matching as matching

    orig, syns, call = problem
    saved = matching._SORT_NEEDLES
    matching._SORT_NEEDLES = 1
    try:
        assert_equals_reference(orig, syns, call)
    finally:
        matching._SORT_NEEDLES = saved


GRID2 = [-1.0, -0.0, 0.0, 1.0, 2.0, 2.5, 3.0, 4.0, 5.0, 10.0, 12.5]


@st.composite
def two_continuous_problems(draw):
    """Two continuous variables without NA (the compiled grid's case), a categorical key, values
    on a small grid so that interval ends fall on synthetic values, every option."""
    n = draw(st.integers(1, 30))
    m = draw(st.integers(1, 3))

    def values(size):
        return draw(st.lists(st.sampled_from(GRID2), min_size=size, max_size=size))

    orig = pd.DataFrame({
        "g": pd.Categorical(draw(st.lists(st.sampled_from("ab"), min_size=n, max_size=n))),
        "x": values(n),
        "y": values(n),
    })  # fmt: skip
    syns = [orig.assign(y=values(n), x=values(n) if draw(st.booleans()) else orig["x"])
            for _ in range(m)]
    percentage = draw(st.booleans())
    pool = [0.1, 0.25, 0.5, 1.0] if percentage else [0.0, 0.5, 1.0, 2.0, 2.5]
    call = dict(
        known=["g", "x"], syn=["y"], r=[draw(st.sampled_from(pool)), draw(st.sampled_from(pool))],
        percentage=percentage, euclidean_dist=draw(st.booleans()), closed=draw(st.booleans()),
        abs_radius=draw(st.booleans()), na_matches=draw(st.booleans()),
    )  # fmt: skip
    return orig, syns, call


@settings(max_examples=100, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(problem=two_continuous_problems())
def test_two_continuous_equal_brute_force(problem):
    """The compiled two-variable grid (and the numpy grid/expansion) on tie-heavy data."""
    orig, syns, call = problem
    assert_equals_reference(orig, syns, call)


@settings(max_examples=80, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(problem=st.one_of(risk_problems(), two_continuous_problems()))
def test_few_grid_buckets_equal_brute_force(problem):
    """The compiled grid with 2 buckets (every bucket cut by windows: edge checks everywhere)
    and cached target orders from the first target on."""
    import idrisk.risk.matching as matching

    orig, syns, call = problem
    saved = matching._GRID_BUCKETS, matching._CACHED_ORDERS
    matching._GRID_BUCKETS, matching._CACHED_ORDERS = 2, 1
    try:
        assert_equals_reference(orig, syns, call)
    finally:
        matching._GRID_BUCKETS, matching._CACHED_ORDERS = saved
