"""Utility measures on data with missing values (as synthpop's ``utility.gen``), and the
package's one categorical rule (booleans are categorical) in the utility part."""

from __future__ import annotations

import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from idrisk import SyntheticData
from idrisk._schema import is_categorical
from idrisk.utility import pmse, propensity_utility, table_deviations
from idrisk.utility.propensity import _with_missing, logit_n_params


def _data(n: int, shift: float, seed: int) -> pd.DataFrame:
    r = np.random.default_rng(seed)
    x = r.normal(shift, 1, n)
    z = r.normal(0, 1, n)
    g = r.choice(["a", "b", "c"], n).astype(object)
    x[r.random(n) < 0.15] = np.nan
    g[r.random(n) < 0.1] = None
    return pd.DataFrame({"x": x, "g": pd.Categorical(g, categories=["a", "b", "c"]), "z": z})


@pytest.fixture(scope="module")
def frames():
    return _data(200, 0.0, 1), [_data(200, 0.3, 2), _data(200, 0.0, 3)]


def test_missing_values_give_numbers_not_nan(frames):
    orig, syns = frames
    res = pmse(orig, syns, method="logit", resamp_method="theory")
    assert np.isfinite(res.pMSE).all() and np.isfinite(res.S_pMSE).all()
    # x with NAs: value column + indicator x_NA; g: NA is a fourth level. Parameters:
    # intercept, x, x_NA, g (b, c, NA), z = 7, and the products of the blocks: x.g 3, x.z 1,
    # x_NA.g 3, x_NA.z 1, g.z 3 = 11 (x.x_NA is 0: x is 0 where x_NA is 1). With dataset 1
    # no record lacks both x and g, so x_NA.g[NA] is 0 too (and R counts the same, since the
    # theory null, which divides by these counts, equals R's in the live test below).
    assert res.n_params.tolist() == [17, 18]
    up = propensity_utility(orig, SyntheticData(syns), method="logit")
    np.testing.assert_allclose(up.to_numpy(), res.pMSE.to_numpy())


def test_the_filler_of_a_missing_number_does_not_matter(frames, monkeypatch):
    """The indicator and its interactions span the same space whatever value stands in for
    the missing numbers (here 0, then 1000)."""
    orig, syns = frames
    base = pmse(orig, syns, method="logit", resamp_method="none").pMSE
    o2, s2, variables, levels = _with_missing(orig, syns, list(orig.columns))
    assert variables == ["x", "g", "z", "x_NA"] and levels["g"][-1] == "<NA>"
    shifted = [f.assign(x=f["x"].where(f["x_NA"] == 0, 1000.0)) for f in (o2, *s2)]
    module = sys.modules["idrisk.utility.propensity"]
    monkeypatch.setattr(module, "_with_missing",
                        lambda o, s, v: (shifted[0], shifted[1:], variables, levels))
    again = pmse(orig, syns, method="logit", resamp_method="none").pMSE
    assert not again.equals(base)  # the fits did run on other numbers
    # exact in theory; dataset 2 has a quasi-separated cell whose Newton stop differs (2e-7)
    np.testing.assert_allclose(again.to_numpy(), base.to_numpy(), rtol=1e-6)


def test_booleans_are_categorical_in_utility():
    """A bool column is a factor (the package's rule), entered with treatment contrasts."""
    rng = np.random.default_rng(4)
    orig = pd.DataFrame({"b": rng.random(300) < 0.3, "y": rng.normal(size=300)})
    syn = pd.DataFrame({"b": rng.random(300) < 0.5, "y": rng.normal(size=300)})
    assert is_categorical(orig["b"])
    _, _, _, levels = _with_missing(orig, [syn], ["b", "y"])
    assert levels == {"b": [False, True]}
    as_text = pmse(orig.assign(b=orig["b"].map(str)), syn.assign(b=syn["b"].map(str)),
                   method="logit", resamp_method="theory")
    res = pmse(orig, syn, method="logit", resamp_method="theory")
    np.testing.assert_allclose(res.pMSE.to_numpy(), as_text.pMSE.to_numpy(), rtol=1e-10)
    td = table_deviations(orig, [syn], "b", [], ways=(1,))
    assert td.cells["cell"].tolist() == ["False", "True"]


def test_tables_count_missing_labels_as_a_level():
    orig = pd.DataFrame({"sex": list("ffmm"), "county": ["a", None, "b", None]})
    syn = pd.DataFrame({"sex": list("ffmm"), "county": ["a", "b", "b", None]})
    td = table_deviations(orig, [syn], "county", "sex", ways=(1, 2))
    one = td.cells[td.cells["way"] == 1].set_index("cell")
    assert one.loc["<NA>", "orig"] == 2 and one.loc["<NA>", "syn"] == 1
    assert td.summary().loc["one-way", "mean_abs_deviation"] == 2.0


_R_UTILITY_GEN = r"""
suppressMessages(library(synthpop))
rd <- function(f) {
  d <- read.csv(f, stringsAsFactors = FALSE, na.strings = "")
  d$g <- factor(d$g, levels = c("a", "b", "c"))
  d
}
o <- rd("%(orig)s")
s <- lapply(c(%(syns)s), rd)
rs <- %(resamp)s
u <- utility.gen(s, o, method = "%(method)s", maxorder = %(maxorder)d, resamp.method = rs,
                 print.flag = FALSE)
for (k in c("pMSE", "SPECKS", "S_pMSE")) cat(k, format(u[[k]], digits = 17), "\n")
"""


def _utility_gen_r(orig, syns, method, maxorder, resamp, tmp_path):
    """synthpop::utility.gen on the same frames (written to CSV), through Rscript."""
    if shutil.which("Rscript") is None:
        pytest.skip("Rscript (R) not found")
    paths = []
    for k, frame in enumerate([orig, *syns]):
        path = tmp_path / f"d{k}.csv"
        frame.to_csv(path, index=False, float_format="%.17g")
        paths.append(path.as_posix())
    code = _R_UTILITY_GEN % {
        "orig": paths[0], "syns": ", ".join(f'"{p}"' for p in paths[1:]), "method": method,
        "maxorder": maxorder, "resamp": f'"{resamp}"' if resamp else "NULL"}
    r = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True)
    if r.returncode != 0 and "synthpop" in r.stderr:
        pytest.skip(f"needs the R package synthpop: {r.stderr.strip()[-200:]}")
    assert r.returncode == 0, r.stderr
    out = {}
    for line in r.stdout.splitlines():  # synthpop also prints a note on its checks
        key, *values = line.split() or [""]
        if key in ("pMSE", "SPECKS", "S_pMSE"):
            out[key] = pd.to_numeric(pd.Series(values), errors="coerce").to_numpy()
    return out


@pytest.mark.needs_r
@pytest.mark.parametrize(("method", "maxorder"), [("logit", 1), ("logit", 0), ("cart", 1)])
def test_pmse_with_missing_values_equals_live_synthpop(frames, method, maxorder, tmp_path):
    orig, syns = frames
    ref = _utility_gen_r(orig, syns, method, maxorder, "none", tmp_path)
    ours = pmse(orig, syns, method=method, maxorder=maxorder, resamp_method="none")
    # logit: R's glm stops at a relative deviance change of 1e-8, statsmodels converges
    # further (seen: 2e-7 relative); the trees are the same, so cart agrees to the last digit
    rtol = 1e-6 if method == "logit" else 1e-12
    np.testing.assert_allclose(ours.pMSE.to_numpy(), ref["pMSE"], rtol=rtol)
    np.testing.assert_allclose(ours.SPECKS.to_numpy(), ref["SPECKS"], atol=1e-12)


@pytest.mark.needs_r
def test_theory_s_pmse_with_missing_values_equals_live_synthpop(frames, tmp_path):
    orig, syns = frames
    # every column synthesized: synthpop's default null is the theory one
    ref = _utility_gen_r(orig, syns, "logit", 1, None, tmp_path)
    ours = pmse(orig, syns, method="logit", maxorder=1)
    assert ours.resamp_method == "theory"
    np.testing.assert_allclose(ours.S_pMSE.to_numpy(), ref["S_pMSE"], rtol=1e-6)


# ---------------------------------------------------------------------------------------------
# synthpop's defaults and budget (issue 29): method="cart", max_params=400
# ---------------------------------------------------------------------------------------------
def _sd2011_like(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    income = np.round(rng.lognormal(7.3, 0.6, n))
    income[rng.random(n) < 0.2] = np.nan
    return pd.DataFrame({
        "sex": rng.choice(["FEMALE", "MALE"], n), "age": rng.integers(16, 90, n).astype(float),
        "region": rng.choice([f"R{k:02d}" for k in range(16)], n),
        "edu": rng.choice(["PRIMARY", "VOCATIONAL", "SECONDARY", "POST-SECONDARY"], n),
        "marital": rng.choice(["SINGLE", "MARRIED", "WIDOWED", "DIVORCED", "SEPARATED"], n),
        "income": income, "depress": rng.integers(0, 21, n).astype(float),
        "socprof": rng.choice([f"S{k}" for k in range(10)], n),
        "placesize": rng.choice([f"P{k}" for k in range(6)], n)})


def test_defaults_are_synthpops_and_a_large_logit_is_refused_before_fitting(monkeypatch):
    orig, syn = _sd2011_like(600, 1), _sd2011_like(600, 2)
    k = logit_n_params(orig, syn)
    # blocks: sex 1, age 1, region 15, edu 3, marital 4, income 1, income_NA 1, depress 1,
    # socprof 9, placesize 5
    widths = [1, 1, 15, 3, 4, 1, 1, 1, 9, 5]
    assert k == 1 + sum(widths) + sum(a * b for i, a in enumerate(widths) for b in widths[i + 1:])
    assert k > 400
    module = sys.modules["idrisk.utility.propensity"]
    monkeypatch.setattr(module, "_design", lambda *a: pytest.fail("design built"))
    with pytest.raises(ValueError, match=f"large model with {k} parameters.*max_params=400"):
        pmse(orig, syn, method="logit")
    with pytest.raises(ValueError, match=f"large model with {k} parameters"):
        propensity_utility(orig, syn, method="logit")
    # the defaults fit a CART model (no design matrix) and give a number
    res = pmse(orig, syn, resamp_method="none")
    assert res.method == "cart" and np.isfinite(res.pMSE).all()
    up = propensity_utility(orig, syn)
    np.testing.assert_allclose(up.to_numpy(), res.pMSE.to_numpy())


def test_logit_memory_budget_is_checked_before_fitting(monkeypatch):
    orig, syn = _sd2011_like(300, 3), _sd2011_like(300, 4)
    module = sys.modules["idrisk.utility.propensity"]
    monkeypatch.setattr(module, "LOGIT_MAX_BYTES", 8 * 600 * 10)
    monkeypatch.setattr(module, "_design", lambda *a: pytest.fail("design built"))
    with pytest.raises(ValueError, match="design matrix .*600 rows x .* exceeds idrisk's budget"):
        pmse(orig[["age", "sex", "edu"]], syn[["age", "sex", "edu"]], method="logit",
             maxorder=1)


_R_SD2011 = r"""
suppressMessages(library(synthpop))
o <- read.csv("%(orig)s", stringsAsFactors = TRUE)
s <- lapply(c(%(syns)s), read.csv, stringsAsFactors = TRUE)
for (i in seq_along(s)) for (v in names(o)) if (is.factor(o[[v]]))
  s[[i]][[v]] <- factor(s[[i]][[v]], levels = levels(o[[v]]))
u <- utility.gen(s, o, resamp.method = "none", print.flag = FALSE)
cat("cart", format(u$pMSE, digits = 17), "\n")
e <- try(utility.gen(s, o, method = "logit", resamp.method = "none", print.flag = FALSE),
         silent = TRUE)
cat("logit_error", gsub("\n", " ", as.character(e)), "\n")
"""


@pytest.mark.needs_r
def test_default_cart_and_logit_refusal_equal_live_synthpop(tmp_path):
    """synthpop::utility.gen with its defaults (cart) gives our default pMSE to the last digit;
    with method = "logit" it refuses the same model, counting the same parameters."""
    if shutil.which("Rscript") is None:
        pytest.skip("Rscript (R) not found")
    orig = _sd2011_like(800, 5)
    syns = [_sd2011_like(800, 6 + j) for j in range(2)]
    paths = []
    for k, frame in enumerate([orig, *syns]):
        path = tmp_path / f"d{k}.csv"
        frame.to_csv(path, index=False, float_format="%.17g")
        paths.append(path.as_posix())
    code = _R_SD2011 % {"orig": paths[0], "syns": ", ".join(f'"{p}"' for p in paths[1:])}
    r = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True)
    if r.returncode != 0 and "synthpop" in r.stderr:
        pytest.skip(f"needs the R package synthpop: {r.stderr.strip()[-200:]}")
    assert r.returncode == 0, r.stderr
    lines = {ln.split()[0]: ln.split(None, 1)[1] for ln in r.stdout.splitlines() if ln.strip()}
    ref = np.array(lines["cart"].split(), dtype=float)
    ours = pmse(orig, syns, resamp_method="none")
    np.testing.assert_allclose(ours.pMSE.to_numpy(), ref, rtol=1e-12)
    k = logit_n_params(orig, syns)
    assert f"large model with {k} parameters" in lines["logit_error"]
    with pytest.raises(ValueError, match=f"large model with {k} parameters"):
        pmse(orig, syns, method="logit")
