"""CART partial synthesis (idrisk.synthesis) against synthpop's outputs."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
from _shared import cedata_path, fixtures_dir

from idrisk import SyntheticData
from idrisk.synthesis import CARTSynthesizer, Synds, syn, syn_r

SCENARIOS = {
    1: ["Income"],
    2: ["Tenure", "Income"],
    3: ["Expenditure", "Income"],
    4: ["Tenure", "Expenditure", "Income"],
}


@pytest.mark.parametrize("scenario", [1, 2, 3, 4])
def test_reproduces_synthpop_fixtures(ce, scenario):
    """The compiled tree growing, routing and draws reproduce synthpop's datasets."""
    folder = fixtures_dir("synthpop") / f"scenario{scenario}"
    if not folder.is_dir():
        pytest.skip(f"fixtures not found at {folder}")
    res = syn(ce, m=20, syn=SCENARIOS[scenario], seed=2021)
    assert len(res.frames) == 20
    for i, ours in enumerate(res.frames, start=1):
        ref = pd.read_csv(folder / f"syn_{i:02d}.csv")
        assert list(ours.columns) == list(ref.columns)
        for c in ce.columns:
            assert ours[c].dtype == ce[c].dtype, c
            a = ours[c].astype(int) if isinstance(ours[c].dtype, pd.CategoricalDtype) else ours[c]
            np.testing.assert_array_equal(a.to_numpy(), ref[c].to_numpy(),
                                          err_msg=f"scenario {scenario}, dataset {i}, {c}")


def test_m1_equals_first_replicate(ce):
    vs = SCENARIOS[4]
    one = syn(ce, m=1, syn=vs, seed=77)
    three = syn(ce, m=3, syn=vs, seed=77)
    pd.testing.assert_frame_equal(one.frames[0], three.frames[0])
    assert not three.frames[1].equals(three.frames[2])


def test_structure_and_result_object(ce):
    res = syn(ce, m=2, syn=SCENARIOS[4], seed=5)
    assert isinstance(res, SyntheticData)
    cart = CARTSynthesizer(syn=SCENARIOS[4]).fit(ce)  # the resolved settings: fitted attributes
    assert res.settings == cart.get_params() and cart.syn_ == SCENARIOS[4]
    assert cart.methods_ == {"Age": "", "Urban": "", "Tenure": "sample", "Educ": "",
                          "Expenditure": "cart", "Marital": "", "Income": "cart"}
    pm = cart.predictor_matrix_
    assert pm.loc["Income", ["Tenure", "Expenditure"]].tolist() == [1, 1]
    assert pm.loc["Expenditure"].sum() == 1 and pm.loc["Tenure"].sum() == 0
    assert pm[["Age", "Urban", "Marital", "Educ"]].to_numpy().sum() == 0
    for df in res.frames:
        for c in ["Age", "Urban", "Educ", "Marital"]:
            pd.testing.assert_series_equal(df[c], ce[c])
        # synthetic values are original values
        assert df["Income"].isin(ce["Income"]).all()
        assert list(df["Tenure"].cat.categories) == [1, 2, 4, 5, 6]
    frame = res.to_frame()
    assert frame["dataset"].tolist() == [1] * len(ce) + [2] * len(ce)
    assert "SyntheticData(method='cart', m=2" in repr(res)


def test_cart_donors_share_the_leaf(ce):
    res = syn(ce, m=1, syn=SCENARIOS[3], seed=9)
    tree = res.fitted["trees"]["Income"]
    s = res.frames[0]
    leaf_of_syn = tree.apply(s[["Expenditure"]]).to_numpy()
    orig_leaf_values = ce.groupby(tree.where_.to_numpy())["Income"].apply(set)
    ok = [inc in orig_leaf_values[leaf] for inc, leaf in zip(s["Income"], leaf_of_syn)]
    assert all(ok)


def test_syn_r_layout_and_seeds(ce):
    small = ce.iloc[:400]
    one = syn_r(small, m=1, visit_sequence=["Tenure", "Income"], seed=2021)
    assert isinstance(one, Synds) and isinstance(one.syn, pd.DataFrame) and one.seed == 2021
    many = syn_r(small, m=3, visit_sequence=[3, 7], seed=2021)
    assert isinstance(many.syn, list) and len(many.syn) == 3
    pd.testing.assert_frame_equal(many.syn[0], one.syn)
    assert many.visit_sequence.tolist() == [3, 7]
    drawn = syn_r(small, m=1, visit_sequence=["Income"])  # seed = "sample"
    assert 1 <= drawn.seed <= 10**9
    again = syn_r(small, m=1, visit_sequence=["Income"], seed=drawn.seed)
    pd.testing.assert_frame_equal(drawn.syn, again.syn)
    na = syn_r(small, m=1, visit_sequence=["Income"], seed=None)
    assert na.seed is None


def test_proper_and_numpy_modes(ce):
    small = ce.iloc[:800]
    vs = SCENARIOS[4]
    pr = syn(small, m=2, syn=vs, seed=3, proper=True)
    assert pr.settings["proper"] is True and pr.frames[0]["Income"].isin(small["Income"]).all()
    fast = syn(small, m=2, syn=vs, seed=3, rng="numpy")
    exact = syn(small, m=2, syn=vs, seed=3)
    assert fast.frames[0]["Income"].isin(small["Income"]).all()
    assert not fast.frames[0]["Income"].equals(exact.frames[0]["Income"])
    again = syn(small, m=2, syn=vs, seed=3, rng="numpy")
    pd.testing.assert_frame_equal(fast.frames[1], again.frames[1])


def test_numpy_mode_is_statistically_like_r_mode(ce):
    vs = SCENARIOS[2]
    fast = syn(ce, m=1, syn=vs, seed=1, rng="numpy").frames[0]
    exact = syn(ce, m=1, syn=vs, seed=1).frames[0]
    # Income within Tenure level: bootstrapped; group medians close to the original's
    for df in (fast, exact):
        med = df.groupby("Tenure", observed=True)["Income"].median()
        ref = ce.groupby("Tenure", observed=True)["Income"].median()
        big = ce["Tenure"].value_counts() > 300
        np.testing.assert_allclose(med[big[big].index], ref[big[big].index], rtol=0.15)


def test_factor_target_and_user_predictor_matrix(ce):
    small = ce.iloc[:600]
    pm = pd.DataFrame(0, index=small.columns, columns=small.columns)
    pm.loc["Tenure", ["Age", "Income"]] = 1
    pm.loc["Income", "Tenure"] = 1  # later variable: removed
    res = syn(small, m=1, syn=["Income", "Tenure"], seed=4, predictor_matrix=pm)
    cart = CARTSynthesizer(syn=["Income", "Tenure"], predictor_matrix=pm).fit(small)
    assert cart.predictor_matrix_.loc["Income"].sum() == 0
    assert cart.methods_["Tenure"] == "cart"
    assert res.settings["predictor_matrix"] is pm  # the parameter, unchanged
    out = res.frames[0]["Tenure"]
    assert list(out.cat.categories) == [1, 2, 4, 5, 6] and out.notna().all()


def test_argument_errors(ce):
    with pytest.raises(ValueError, match="not a column"):
        syn(ce, syn=["Nope"])
    with pytest.raises(ValueError, match="repeats"):
        syn(ce, syn=["Income", "Income"])
    with pytest.raises(ValueError, match="m must be"):
        syn(ce, m=0)
    with pytest.raises(NotImplementedError, match="spline"):
        syn(ce, syn=["Income"], smoothing="spline")
    with pytest.raises(ValueError, match="smoothing"):
        syn(ce, syn=["Income"], smoothing="kernel")
    with pytest.raises(ValueError, match="seed must be"):
        syn_r(ce, seed="random")


_R_REFERENCE = r"""
suppressMessages(library(rpart))
d <- read.csv("%s")
for (v in c("Urban","Marital","Tenure")) d[[v]] <- as.factor(d[[v]])
d <- d[1:%d, ]
vs <- c(%s); proper <- %s
set.seed(%d); n <- nrow(d); out <- c()
for (i in 1:2) {
  s <- d
  for (j in seq_along(vs)) {
    v <- vs[j]
    if (j == 1) { y <- d[[v]]; if (proper) y <- y[sample.int(n, n, TRUE)]
                  s[[v]] <- y[sample.int(n, n, TRUE)]; next }
    pr <- intersect(names(d), vs[1:(j-1)])  # predictors in data-column order, as synthpop
    x <- d[pr]; y <- d[[v]]
    if (proper) { b <- sample.int(n, n, TRUE); x <- x[b, , drop=FALSE]; y <- y[b] }
    df <- data.frame(y = if (is.factor(y)) factor(y) else y, x)
    if (is.factor(y)) {
      fit <- rpart(y ~ ., data=df, method="class", minbucket=5, cp=1e-8)
      p <- predict(fit, newdata=s[pr], type="prob")
      s[[v]] <- factor(apply(p, 1, function(pr) colnames(p)[sample.int(ncol(p), 1, prob=pr)]),
                       levels=levels(d[[v]]))
    } else {
      fit <- rpart(y ~ ., data=df, method="anova", minbucket=5, cp=1e-8)
      leaves <- as.numeric(rownames(fit$frame))[fit$where]
      fit$frame$yval <- as.numeric(rownames(fit$frame))
      nodes <- predict(fit, newdata=s[pr])
      new <- numeric(n)
      for (L in unique(nodes)) { idx <- which(nodes == L); don <- y[leaves == L]
        new[idx] <- don[sample.int(length(don), length(idx), TRUE)] }
      s[[v]] <- new
    }
  }
  out <- c(out, sprintf("%%.17g", as.numeric(as.character(s[[vs[length(vs)]]]))))
}
cat(out)
"""


@pytest.mark.needs_r
@pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript (R) not found")
@pytest.mark.parametrize(("vs", "proper", "nrows"), [
    (["Expenditure", "Tenure"], False, 3000),   # factor (class) CART target
    (["Expenditure", "Income"], True, 5571),    # proper = TRUE
    (["Income", "Expenditure", "Marital"], False, 2000),
])
def test_against_r_reference_of_the_spec(ce, vs, proper, nrows):
    """A 30-line R re-implementation of the spec (sample.int + rpart only)."""
    code = _R_REFERENCE % (cedata_path(), nrows, ", ".join(f'"{v}"' for v in vs),
                           "TRUE" if proper else "FALSE", 31)
    r = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True, check=True)
    ref = np.array(r.stdout.split(), dtype=float).reshape(2, nrows)
    res = syn(ce.iloc[:nrows], m=2, syn=vs, seed=31, proper=proper)
    for i in range(2):
        col = res.frames[i][vs[-1]]
        ours = col.astype(float).to_numpy()
        np.testing.assert_array_equal(ours, ref[i])


def _reference_donor_draw(y, where, nodes, stream):
    """syn.cart's donor draw, leaf by leaf: leaves in first-appearance order, each one
    ``unif_index(donors, targets)`` call, targets in row order, donors in row order."""
    out = np.empty(nodes.size, dtype=y.dtype)
    seen: list[int] = []
    for v in nodes.tolist():
        if v not in seen:
            seen.append(v)
    for leaf in seen:
        donors = np.flatnonzero(where == leaf)
        targets = np.flatnonzero(nodes == leaf)
        out[targets] = y[donors[stream.unif_index(donors.size, targets.size)]]
    return out


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("rng", ["r", "numpy"])
def test_leaf_donor_draws_equal_the_per_leaf_reference(seed, rng):
    """Compiled grouping and hash look-ups against a leaf-by-leaf loop."""
    from idrisk.synthesis.cart_synthesis import _LeafDonors
    from idrisk.synthesis.rng import make_stream
    from idrisk.synthesis.rpart_tree import RpartTree

    g = np.random.default_rng(seed)
    n = int(g.choice([30, 200, 3000]))
    X = pd.DataFrame({"x": g.normal(size=n), "z": g.integers(0, 40, n).astype(float)})
    y = pd.Series(np.round(X["x"] * 10 + X["z"] + g.normal(size=n), 1))
    tree = RpartTree(minbucket=int(g.choice([1, 5]))).fit(X, y)
    new = pd.DataFrame({"x": g.normal(size=n), "z": g.integers(0, 40, n).astype(float)})
    nodes = tree.apply(new).to_numpy()
    values = y.to_numpy()
    a, b = make_stream(rng, seed), make_stream(rng, seed)
    donors = _LeafDonors(tree, values)
    assert donors.all_leaves(nodes) and not donors.all_leaves(np.array([1, *nodes]))
    got = donors.draw(nodes, a)
    want = _reference_donor_draw(values, tree.where_.to_numpy(), nodes, b)
    np.testing.assert_array_equal(got, want)
    assert a.unif_rand(3).tolist() == b.unif_rand(3).tolist()  # streams left at one place


def test_booleans_are_categorical_in_synthesis():
    """A bool column is a factor (the package's rule, idrisk._schema.is_categorical): a
    classification tree synthesizes it and the output stays bool."""
    from idrisk._schema import is_categorical

    rng = np.random.default_rng(8)
    x = rng.normal(size=300)
    df = pd.DataFrame({"x": x, "flag": x + rng.normal(scale=0.3, size=300) > 0})
    assert is_categorical(df["flag"])
    res = syn(df, m=2, syn=["x", "flag"], seed=4)
    assert CARTSynthesizer(syn=["x", "flag"]).fit(df).methods_ == {"x": "sample", "flag": "cart"}
    assert res.fitted["trees"]["flag"].method == "class"
    for frame in res:
        assert frame["flag"].dtype == bool and frame["x"].dtype == float
    # the same draws as the column given as text labels (a factor by construction)
    text = syn(df.assign(flag=df["flag"].map({True: "TRUE", False: "FALSE"})), m=2,
               syn=["x", "flag"], seed=4)
    for a, b in zip(res, text, strict=True):
        np.testing.assert_array_equal(a["flag"].map({True: "TRUE", False: "FALSE"}), b["flag"])


def test_duplicate_column_names_are_named():
    data = pd.DataFrame(np.arange(20.0).reshape(10, 2), columns=["a", "a"])
    with pytest.raises(ValueError, match=r"more than one column named \['a'\]"):
        CARTSynthesizer().fit(data)
