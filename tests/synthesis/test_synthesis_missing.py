"""Missing values in synthesised columns (idrisk.synthesis, spec section 5.6)."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from idrisk.synthesis import syn


def _data(seed: int = 0, n: int = 400) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    f = rng.choice(["a", "b", "c"], n)
    x = np.round(rng.normal(size=n) + (f == "b") * 2, 1)
    y = np.round(x * 3 + rng.normal(size=n), 0)
    d = pd.DataFrame({"f": pd.Categorical(f, categories=["a", "b", "c", "d"]), "x": x, "y": y,
                      "k": np.arange(n)})
    d.loc[rng.random(n) < 0.12, "f"] = None
    d.loc[rng.random(n) < 0.2, "x"] = np.nan
    d.loc[rng.random(n) < 0.1, "y"] = np.nan
    return d


def test_missing_values_are_synthesised_and_restored():
    d = _data()
    res = syn(d, m=3, syn=["f", "x", "y"], seed=11)
    for out in res.frames:
        assert list(out.columns) == list(d.columns)
        assert out.dtypes.equals(d.dtypes)
        assert list(out["f"].cat.categories) == ["a", "b", "c", "d"]
        pd.testing.assert_series_equal(out["k"], d["k"])
        for c in ("x", "y"):  # observed synthetic values are original observed values
            assert out[c].dropna().isin(d[c].dropna()).all()
        # NA shares: f is a bootstrap; x, y come from trees with the NA indicator
        share = out[["f", "x", "y"]].isna().mean()
        np.testing.assert_allclose(share, d[["f", "x", "y"]].isna().mean(), atol=0.06)
    # the helper columns are gone and the trees used them: x ~ f, x_1 and y ~ f, x, x_1, y_1
    assert [c for c in res.fitted["trees"]["x"].feature_names_] == ["f", "x_1"]
    assert [c for c in res.fitted["trees"]["y"].feature_names_] == ["f", "x", "x_1", "y_1"]
    assert "NAtemp" in res.fitted["trees"]["x_1"].levels_["f"]


def test_complete_columns_unaffected_by_missing_elsewhere():
    d = _data()
    full = d.assign(x=d["x"].fillna(0.5))
    a = syn(full, m=1, syn=["x"], seed=3).frames[0]
    b = syn(full.assign(k=np.where(d.index % 7 == 0, np.nan, d["k"])), m=1,
            syn=["x"], seed=3).frames[0]
    pd.testing.assert_series_equal(a["x"], b["x"])  # kept, unused column with NAs: no effect


_R_MISSING = r"""
suppressMessages(library(rpart))
set.seed(%d)
d <- read.csv("%s", colClasses = c("character", "numeric", "numeric", "integer"))
d$f <- factor(d$f, levels = c("a", "b", "c", "d"))
n <- nrow(d)
w <- d
w$f <- addNA(w$f); levels(w$f)[is.na(levels(w$f))] <- "NAtemp"
w$x_1 <- factor(ifelse(is.na(d$x), "NAtemp", "0"), levels = c("0", "NAtemp")); w$x[is.na(w$x)] <- 0
w$y_1 <- factor(ifelse(is.na(d$y), "NAtemp", "0"), levels = c("0", "NAtemp")); w$y[is.na(w$y)] <- 0
cart <- function(v, pr, s) {
  df <- data.frame(y = w[[v]], w[pr]); if (is.factor(df$y)) df$y <- factor(df$y)
  if (is.factor(df$y)) {
    fit <- rpart(y ~ ., data = df, method = "class", minbucket = 5, cp = 1e-8)
    p <- predict(fit, newdata = s[pr], type = "prob")
    factor(apply(p, 1, function(q) colnames(p)[sample.int(ncol(p), 1, prob = q)]),
           levels = levels(w[[v]]))
  } else {
    fit <- rpart(y ~ ., data = df, method = "anova", minbucket = 5, cp = 1e-8)
    leaves <- as.numeric(rownames(fit$frame))[fit$where]
    fit$frame$yval <- as.numeric(rownames(fit$frame))
    nodes <- predict(fit, newdata = s[pr]); new <- numeric(n)
    for (L in unique(nodes)) { idx <- which(nodes == L); don <- df$y[leaves == L]
      new[idx] <- don[sample.int(length(don), length(idx), TRUE)] }
    new
  }
}
out <- c()
for (i in 1:2) {
  s <- w
  s$f <- w$f[sample.int(n, n, TRUE)]
  s$x_1 <- cart("x_1", c("f"), s)
  s$x <- cart("x", c("f", "x_1"), s)
  s$y_1 <- cart("y_1", c("f", "x", "x_1"), s)
  s$y <- cart("y", c("f", "x", "x_1", "y_1"), s)
  fo <- as.integer(s$f); fo[s$f == "NAtemp"] <- NA
  xo <- ifelse(s$x_1 == "NAtemp", NA, s$x); yo <- ifelse(s$y_1 == "NAtemp", NA, s$y)
  out <- c(out, sprintf("%%.17g", c(fo, xo, yo)))
}
cat(out)
"""


@pytest.mark.needs_r
@pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript (R) not found")
@pytest.mark.parametrize("seed", [5, 2021])
def test_against_r_reference(tmp_path, seed):
    """The padding of section 5.6 written in R (sample.int + rpart): same values."""
    d = _data(seed=seed)
    path = tmp_path / "d.csv"
    d.to_csv(path, index=False)
    r = subprocess.run(["Rscript", "-e", _R_MISSING % (seed, path)], capture_output=True,
                       text=True, check=True)
    ref = np.array([np.nan if t == "NA" else float(t) for t in r.stdout.split()])
    ref = ref.reshape(2, 3, len(d))
    res = syn(d, m=2, syn=["f", "x", "y"], seed=seed)
    for i, out in enumerate(res.frames):
        codes = out["f"].cat.codes.to_numpy().astype(float) + 1
        codes[codes == 0] = np.nan
        np.testing.assert_array_equal(codes, ref[i, 0])
        np.testing.assert_array_equal(out["x"].to_numpy(), ref[i, 1])
        np.testing.assert_array_equal(out["y"].to_numpy(), ref[i, 2])


#: y smoothed (density, synthpop's own syn.smooth) on the rows drawn as observed, against the
#: data's observed values; the rows drawn as missing keep their placeholder
_SMOOTH_Y = r"""
suppressMessages(library(synthpop))
smooth <- function(ys, yobs) synthpop:::syn.smooth(ys, yobs, smoothing = "density")
"""


@pytest.mark.needs_r
@pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript (R) not found")
def test_density_smoothing_of_a_column_with_missing_values_against_r(tmp_path):
    """Only the values drawn as observed are smoothed (the NAs were in the smoothing)."""
    d = _data(seed=8)
    path = tmp_path / "d.csv"
    d.to_csv(path, index=False)
    draw_y = '  s$y <- cart("y", c("f", "x", "x_1", "y_1"), s)\n'
    assert draw_y in _R_MISSING
    code = (_SMOOTH_Y + _R_MISSING).replace(draw_y, draw_y + (
        '  obs <- s$y_1 != "NAtemp"\n  s$y[obs] <- smooth(s$y[obs], d$y[!is.na(d$y)])\n'))
    r = subprocess.run(["Rscript", "-e", code % (8, path)], capture_output=True, text=True,
                       check=True)
    ref = np.array([np.nan if t == "NA" else float(t) for t in r.stdout.split()])
    ref = ref.reshape(2, 3, len(d))
    res = syn(d, m=2, syn=["f", "x", "y"], seed=8, smoothing={"y": "density"})
    for i, out in enumerate(res.frames):
        np.testing.assert_array_equal(out["x"].to_numpy(), ref[i, 1])
        np.testing.assert_array_equal(out["y"].to_numpy(), ref[i, 2])
