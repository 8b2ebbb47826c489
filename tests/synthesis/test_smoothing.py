"""Smoothing of synthesised numeric values (idrisk.synthesis, spec section 5.5)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from idrisk._rround import r_round
from idrisk.exceptions import InputError
from idrisk.synthesis import CARTSynthesizer, smoothing, syn
from idrisk.synthesis.rng import RStream
from idrisk.synthesis.smoothing import bw_sj, decimal_places, smooth_density

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _synthpop_live import match_rate, synthpop_syn  # noqa: E402

needs_rscript = pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript (R) not found")


def _r(code: str) -> np.ndarray:
    out = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True, check=True)
    return np.array(out.stdout.split(), dtype=float)


@needs_rscript
@pytest.mark.parametrize("n", [8, 300, 3000])  # 3000 uses R's binned pair counts
def test_bw_sj_equals_r(tmp_path, n):
    x = np.round(np.random.default_rng(n).lognormal(size=n), 2)
    path = tmp_path / "x.txt"
    np.savetxt(path, x, fmt="%.17g")
    ref = _r(f'x <- scan("{path}", quiet = TRUE); cat(sprintf("%.17g", bw.SJ(x)))')[0]
    assert bw_sj(x) == ref  # to the last bit


@needs_rscript
def test_sd_and_bw_sj_equal_r_on_two_decimal_values():
    """R's sd squares each deviation in long double: values with two decimals put a double
    square one ulp off R's sd, and bw.SJ (and every smoothed value) off R's (found by review
    with R's seeds 26, 36 and 37 of runif(100) rounded to two decimals)."""
    for seed in (26, 36, 37):
        out = _r(f"set.seed({seed}); z <- round(runif(100) * 100, 2); "
                 'cat(sprintf("%.17g", c(sd(z), bw.SJ(z), z)))')
        sd_r, bw_r, z = out[0], out[1], out[2:]
        assert smoothing._r_sd(z) == sd_r
        assert bw_sj(z) == bw_r


def test_smooth_density_rules():
    rng = np.random.default_rng(0)
    yobs = np.round(rng.normal(50, 10, 500), 1)
    ysyn = rng.choice(yobs, 500)
    out = smooth_density(ysyn, yobs, RStream(1))
    bw = bw_sj(ysyn)
    assert out.min() >= yobs.min() and out.max() <= yobs.max() + bw  # not top-coded: max + bw
    assert (out != ysyn).mean() > 0.8
    # 12.3 - 12 is 0.300000000000001 to R: 15 places, so one-decimal data stay unrounded
    assert (out != np.round(out, 1)).mean() > 0.9
    # more than 70% at one value: those rows are left alone
    spiky = np.where(np.arange(500) < 400, 0.0, ysyn)
    out2 = smooth_density(spiky, np.concatenate([yobs, [0.0]]), RStream(2))
    assert (out2[:400] == 0).all() and (out2[400:] != spiky[400:]).mean() > 0.8
    # top-coded data: the rows at the maximum are left alone, the others clipped to it
    top = np.where(np.arange(500) % 3 == 0, yobs.max(), ysyn)
    out3 = smooth_density(top, yobs, RStream(3))
    assert (out3[top == yobs.max()] == yobs.max()).all() and out3.max() == yobs.max()


def test_r_round_and_decimal_places():
    # R 4.2: round(c(12.345, 2.675, 0.285, -12.345), 2); synthpop:::decimalplaces
    np.testing.assert_array_equal(r_round(np.array([12.345, 2.675, 0.285, -12.345]), 2),
                                  [12.35, 2.67, 0.28, -12.35])
    assert [decimal_places(v) for v in (12.3, 0.5, 2.25, 12.34, 3.0, 100.01, 3.00012)] == [
        15, 1, 2, 2, 0, 16, 18]
    assert decimal_places(3.00001) == 18  # 1.00000000000655e-05
    with pytest.raises(InputError, match="decimal places"):
        decimal_places(1e-05)  # R writes 1e-05: synthpop stops (subscript out of bounds)


def _smooth_case(kind: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = 400
    yobs = {"dec1": lambda: np.round(rng.gamma(2, 5, n), 1),
            "dec2": lambda: np.round(rng.normal(50, 10, n), 2),
            "int": lambda: np.round(rng.gamma(2, 50, n)),
            "neg": lambda: np.round(rng.normal(0, 3, n), 3)}[kind]()
    ysyn = rng.choice(yobs, n)
    if kind == "int":
        ysyn[: n // 3] = yobs.max()  # top-coded
    if seed % 2:
        ysyn[: int(n * 0.75)] = ysyn[n - 1]  # one value above 70%
    return ysyn, yobs


@needs_rscript
@pytest.mark.parametrize("kind", ["dec1", "dec2", "int", "neg"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_smooth_density_equals_synthpop(tmp_path, kind, seed):
    """smooth_density against synthpop 1.9-3's own syn.smooth (live), same seed."""
    ysyn, yobs = _smooth_case(kind, seed)
    np.savetxt(tmp_path / "ysyn.txt", ysyn, fmt="%.17g")
    np.savetxt(tmp_path / "yobs.txt", yobs, fmt="%.17g")
    ref = _r(f"""suppressMessages(library(synthpop)); set.seed({seed})
      ys <- scan("{tmp_path / 'ysyn.txt'}", quiet = TRUE)
      yo <- scan("{tmp_path / 'yobs.txt'}", quiet = TRUE)
      cat(sprintf("%.17g", synthpop:::syn.smooth(ys, yo, smoothing = "density")))""")
    np.testing.assert_array_equal(smooth_density(ysyn, yobs, RStream(seed)), ref)


def test_per_variable_smoothing_and_errors():
    d = pd.DataFrame({"x": np.arange(60.0) % 17, "y": np.arange(60.0) * 1.5,
                      "g": list("ab") * 30})
    plain = syn(d, syn=["x", "y"], seed=1).frames[0]
    only_y = syn(d, syn=["x", "y"], seed=1, smoothing={"y": "density"}).frames[0]
    pd.testing.assert_series_equal(plain["x"], only_y["x"])  # x not smoothed, same draws
    assert not plain["y"].equals(only_y["y"])
    with pytest.raises(ValueError, match="unknown column"):
        syn(d, syn=["x"], smoothing={"zz": "density"})
    with pytest.raises(NotImplementedError, match="rmean"):
        syn(d, syn=["x"], smoothing="rmean")
    # factors are never smoothed
    g = syn(d, syn=["g", "x"], seed=2, smoothing="density")
    assert g.settings["smoothing"] == "density"  # the parameter; resolved: smoothing_
    assert CARTSynthesizer(syn=["g", "x"], smoothing="density").fit(d).smoothing_ == {
        "x": "density"}


@needs_rscript
def test_sampled_column_with_missing_values_is_smoothed_around_them(tmp_path):
    """A sampled column with NAs that nothing uses (not padded): synthpop's syn.sample
    smooths the values that are not NA and leaves the NAs (live synthpop::syn)."""
    rng = np.random.default_rng(9)
    n = 300
    y = np.round(rng.gamma(2.0, 3.0, n), 1)
    y[rng.random(n) < 0.1] = np.nan
    d = pd.DataFrame({"y": y, "x": np.arange(n, dtype=float)})
    ref = synthpop_syn(tmp_path, d, 1, 6, visit_sequence="y", smoothing="density")
    out = syn(d, m=1, syn=["y"], seed=6, smoothing="density").frames[0]
    assert match_rate([out], ref) == 1.0
    pd.testing.assert_series_equal(out["x"], d["x"])


@pytest.mark.parametrize("m", [1, 3])
@pytest.mark.parametrize("seed", [17, 2024])
def test_syn_with_density_smoothing_equals_synthpop(tmp_path, m, seed):
    """sample + smoothing, then cart (on smoothed predictors) + smoothing: live synthpop::syn."""
    rng = np.random.default_rng(seed)
    n = 400
    x = np.round(rng.gamma(2.0, 3.0, n), 1)
    g = rng.choice(list("abc"), n)
    d = pd.DataFrame({"x": x, "g": pd.Categorical(g), "v": np.round(x * 2 + rng.normal(size=n)
                                                                   + (g == "b"), 2)})
    ref = synthpop_syn(tmp_path, d, m, seed, smoothing="density")
    res = syn(d, m=m, seed=seed, smoothing="density")
    assert match_rate(res.frames, ref) == 1.0
    cart = CARTSynthesizer(smoothing="density").fit(d)
    assert cart.smoothing_ == {"x": "density", "v": "density"}




# synthpop's syn.smooth stops on these (checked live below): all one value (its table has no
# second-largest cell: "argument is of length zero"), fewer than 2 values left after the 70 %
# spike rule or the top-coding rule ("need at least 2 points to select a bandwidth
# automatically"), 2 or more left but all equal (bw.SJ: "sample is too sparse to find TD")
_SMOOTH_STOPS = {
    "one value": [3.0] * 6,
    "empty": [],
    "spike leaves one": [1.0] * 8 + [2.0],
    "spike leaves ties": [1.0] * 8 + [2.0, 2.0],
    "top-coded, no max": [1.0, 2.0, 3.0, 4.0, 5.0] + [8.0] * 80,
    # synthpop drops the rows at max(yobs) by position from the rows kept: here the first
    "top-coded, by position": [10.0, 1.0, 2.0] + [10.0] * 80,
    # under the spike rule but an IQR of 0: bw.SJ's scale is 0 ("sample is too sparse")
    "interquartile range 0": [0.0] * 3 + [1.0] * 13 + [2.0] * 4,
}


@pytest.mark.parametrize("case", sorted(_SMOOTH_STOPS))
def test_smooth_density_stops_where_synthpop_stops(case):
    ysyn = np.array(_SMOOTH_STOPS[case])
    with pytest.raises(InputError, match="synthpop"):
        smooth_density(ysyn, np.arange(1.0, 11.0), RStream(1))


@needs_rscript
def test_synthpop_stops_on_the_same_inputs():
    cases = "; ".join(f"c({', '.join(map(repr, v))})" if v else "numeric(0)"
                      for v in _SMOOTH_STOPS.values())
    out = subprocess.run(["Rscript", "-e", f"""suppressMessages(library(synthpop))
      for (v in list({cases.replace('; ', ', ')})) cat(tryCatch({{
        synthpop:::syn.smooth(v, 1:10, smoothing = "density"); "ok"}},
        error = function(e) "error"), "\\n")"""], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["error"] * len(_SMOOTH_STOPS)


@needs_rscript
def test_syn_stops_on_a_spike_column_as_synthpop(tmp_path):
    """97.5 % of k at one value: the rest after the spike rule are too few for bw.SJ."""
    rng = np.random.default_rng(1)
    d = pd.DataFrame({"f": pd.Categorical(rng.choice(["a", "b"], 200)),
                      "k": np.r_[np.full(195, 5.0), np.arange(1.0, 6.0)]})
    with pytest.raises(RuntimeError, match="need at least 2 points"):
        synthpop_syn(tmp_path, d, 1, 1, smoothing="density")
    with pytest.raises(InputError, match="column 'k'.*synthpop") as err:
        syn(d, m=1, seed=1, smoothing="density")
    assert err.value.column == "k"
