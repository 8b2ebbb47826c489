"""Smoothing of synthesised numeric values (idrisk.synthesis, spec section 5.5)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from idrisk.synthesis import CARTSynthesizer, syn
from idrisk.synthesis.rng import RStream
from idrisk.synthesis.smoothing import bw_sj, smooth_density

DATA = Path(__file__).resolve().parent / "data"
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
    assert bw_sj(x) == pytest.approx(ref, rel=1e-13)


def test_smooth_density_rules():
    rng = np.random.default_rng(0)
    yobs = np.round(rng.normal(50, 10, 500), 1)
    ysyn = rng.choice(yobs, 500)
    out = smooth_density(ysyn, yobs, RStream(1))
    assert out.min() >= yobs.min() and out.max() <= yobs.max()  # clipped to observed range
    np.testing.assert_array_equal(out, np.round(out, 1))  # rounded to the data's decimals
    assert (out != ysyn).mean() > 0.8
    # expected values computed by R (set.seed(1); rnorm(n, ysyn, bw.SJ(ysyn)), clipped,
    # rounded), stored with the R script beside them; re-run live below when R is present
    stored_in = pd.read_csv(DATA / "smooth_density_in.csv")
    np.testing.assert_array_equal(stored_in["ysyn"], ysyn)
    np.testing.assert_array_equal(stored_in["yobs"], yobs)
    expect = pd.read_csv(DATA / "smooth_density_r.csv", comment="#")["expected"].to_numpy()
    np.testing.assert_array_equal(out, expect)
    # more than 70% at one value: those rows are left alone
    spiky = np.where(np.arange(500) < 400, 0.0, ysyn)
    out2 = smooth_density(spiky, np.concatenate([yobs, [0.0]]), RStream(2))
    assert (out2[:400] == 0).all() and (out2[400:] != spiky[400:]).mean() > 0.8
    # top-coded data: the rows at the maximum are left alone
    top = np.where(np.arange(500) % 3 == 0, yobs.max(), ysyn)
    out3 = smooth_density(top, yobs, RStream(3))
    assert (out3[top == yobs.max()] == yobs.max()).all()


@needs_rscript
def test_stored_smoothing_reference_matches_live_r():
    out = subprocess.run(
        ["Rscript", str(DATA / "smooth_density_r.R"), str(DATA / "smooth_density_in.csv")],
        capture_output=True, text=True, check=True,
    ).stdout
    live = np.array([float(v) for v in out.splitlines()[2:]])
    stored = pd.read_csv(DATA / "smooth_density_r.csv", comment="#")["expected"].to_numpy()
    np.testing.assert_array_equal(live, stored)
    bw_r = float(out.splitlines()[0].split("=")[1])
    assert bw_sj(pd.read_csv(DATA / "smooth_density_in.csv")["ysyn"]) == pytest.approx(
        bw_r, rel=1e-13)


_R_SMOOTH = r"""
suppressMessages(library(rpart))
d <- read.csv("%s")
smooth <- function(ys, yobs) {
  use <- rep(TRUE, length(ys)); tab <- table(ys)
  if (max(tab) / sum(tab) > 0.7) use <- use & ys != as.numeric(names(tab)[which.max(tab)])
  k <- length(tab)
  if (k >= 2 && 10 * tab[k - 1] < tab[k] - tab[k - 1]) use <- use & ys != max(yobs)
  bw <- bw.SJ(ys[use])
  ys[use] <- rnorm(sum(use), ys[use], bw)
  ys[use] <- pmax(pmin(ys[use], max(yobs)), min(yobs))
  ys[use] <- round(ys[use], 1)
  ys
}
set.seed(%d); n <- nrow(d); out <- c()
for (i in 1:2) {
  x <- smooth(d$x[sample.int(n, n, TRUE)], d$x)
  fit <- rpart(y ~ x, data = d, method = "anova", minbucket = 5, cp = 1e-8)
  leaves <- as.numeric(rownames(fit$frame))[fit$where]
  fit$frame$yval <- as.numeric(rownames(fit$frame))
  nodes <- predict(fit, newdata = data.frame(x = x)); new <- numeric(n)
  for (L in unique(nodes)) { idx <- which(nodes == L); don <- d$y[leaves == L]
    new[idx] <- don[sample.int(length(don), length(idx), TRUE)] }
  y <- smooth(new, d$y)
  out <- c(out, sprintf("%%.17g", c(x, y)))
}
cat(out)
"""


@needs_rscript
def test_syn_with_density_smoothing_against_r(tmp_path):
    """sample + smoothing, then cart (on smoothed predictors) + smoothing, m = 2, in R."""
    rng = np.random.default_rng(4)
    n = 400
    x = np.round(rng.gamma(2.0, 3.0, n), 1)
    d = pd.DataFrame({"x": x, "y": np.round(x * 2 + rng.normal(size=n), 1)})
    path = tmp_path / "d.csv"
    d.to_csv(path, index=False)
    ref = _r(_R_SMOOTH % (path, 17)).reshape(2, 2, n)
    res = syn(d, m=2, syn=["x", "y"], seed=17, smoothing="density")
    cart = CARTSynthesizer(syn=["x", "y"], smoothing="density").fit(d)
    assert cart.smoothing_ == {"x": "density", "y": "density"}
    for i, out in enumerate(res.frames):
        np.testing.assert_array_equal(out["x"].to_numpy(), ref[i, 0])
        np.testing.assert_array_equal(out["y"].to_numpy(), ref[i, 1])


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
    smooths the values that are not NA and leaves the NAs (bw_sj raised on the NAs)."""
    rng = np.random.default_rng(9)
    n = 300
    y = np.round(rng.gamma(2.0, 3.0, n), 1)
    y[rng.random(n) < 0.1] = np.nan
    d = pd.DataFrame({"y": y, "x": np.arange(n)})
    path = tmp_path / "y.txt"
    np.savetxt(path, y, fmt="%.17g")
    ref = _r(f"""x <- scan("{path}", quiet = TRUE); set.seed(6)
      ys <- x[sample.int(length(x), length(x), TRUE)]; ok <- !is.na(ys)
      bw <- bw.SJ(ys[ok]); ys[ok] <- rnorm(sum(ok), ys[ok], bw)
      ys[ok] <- round(pmax(pmin(ys[ok], max(x, na.rm = TRUE)), min(x, na.rm = TRUE)), 1)
      cat(sprintf("%.17g", ys))""")
    out = syn(d, m=1, syn=["y"], seed=6, smoothing="density").frames[0]
    np.testing.assert_array_equal(out["y"].to_numpy(), ref)
    pd.testing.assert_series_equal(out["x"], d["x"])
