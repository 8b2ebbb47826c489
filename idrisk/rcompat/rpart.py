"""R's own ``rpart`` through rpy2: an independent check of :class:`idrisk.synthesis.RpartTree`.

Needs R, the R package rpart and the Python package ``rpy2`` (``pip install
idrisk[r]``; Debian: ``apt-get install r-base-core r-cran-rpart``). They are
imported only when a function here is called; a clear :class:`ImportError`
names whatever is missing.

Examples
--------
>>> import pandas as pd
>>> X = pd.DataFrame({"x": [float(i) for i in range(40)]})
>>> y = pd.Series([0.0] * 20 + [10.0] * 20)
>>> fit = rpart_fit(X, y, minbucket=5)       # doctest: +SKIP
>>> fit.n_leaves                              # doctest: +SKIP
2
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from .._result import Result

__all__ = ["RpartFit", "r_available", "rpart_fit"]

_R_CODE = r"""
function(df, method, minbucket, minsplit, cp, maxdepth, xval, seed, newdata) {
  if (!is.null(seed)) set.seed(seed)
  ctrl <- rpart::rpart.control(minbucket = minbucket, minsplit = minsplit, cp = cp,
                               maxdepth = maxdepth, xval = xval)
  fit <- rpart::rpart(.y ~ ., data = df, method = method, control = ctrl)
  nodes <- as.numeric(rownames(fit$frame))
  fit$frame$yval <- nodes
  pred <- if (is.null(newdata)) numeric(0) else
    as.numeric(predict(fit, newdata = newdata, type = "vector"))
  fr <- fit$frame
  s_node <- numeric(0); s_var <- character(0); s_agree <- numeric(0); s_adj <- numeric(0)
  if (!is.null(fit$splits)) {
    inner <- fr$var != "<leaf>"
    nsplit <- 1 + fr$ncompete[inner] + fr$nsurrogate[inner]
    owner <- rep(nodes[inner], nsplit)
    kind <- unlist(lapply(which(inner), function(i)
      c("primary", rep("compete", fr$ncompete[i]), rep("surrogate", fr$nsurrogate[i]))))
    sur <- kind == "surrogate"
    s_node <- owner[sur]; s_var <- rownames(fit$splits)[sur]
    s_agree <- fit$splits[sur, "improve"]; s_adj <- fit$splits[sur, "adj"]
  }
  list(where = nodes[fit$where], fitted_rows = match(names(fit$where), rownames(df)),
       nodes = nodes, var = as.character(fr$var), n = fr$n,
       dev = fr$dev, pred = pred, s_node = s_node, s_var = s_var,
       s_agree = s_agree, s_adj = s_adj)
}
"""


def _require_r():
    """Import rpy2 and check R's rpart; raise ImportError naming what is missing."""
    try:
        from ._session import start_r

        ro = start_r()  # first: it undoes R's LD_LIBRARY_PATH
        from rpy2.robjects import pandas2ri
        from rpy2.robjects.conversion import localconverter
        from rpy2.robjects.packages import isinstalled
    except Exception as exc:  # rpy2 absent, or R itself cannot be loaded
        raise ImportError(
            "the rpart engine needs the Python package rpy2 (pip install 'rpy2==3.5.17' "
            f"or idrisk[r]) and a working R installation: {exc}"
        ) from exc
    if not isinstalled("rpart"):
        raise ImportError("the rpart engine needs the R package 'rpart' "
                          "(Debian: apt-get install r-cran-rpart)")
    return ro, pandas2ri, localconverter


def r_available() -> bool:
    """Whether rpy2, R and rpart are all usable."""
    try:
        _require_r()
    except ImportError:
        return False
    return True


@dataclass(frozen=True, repr=False)
class RpartFit(Result):
    """What R's rpart returned.

    Attributes
    ----------
    where : pandas.Series
        Leaf node number per fitted row (index = row labels of the rows rpart kept).
    frame : pandas.DataFrame
        rpart's ``frame`` (node, var, n, dev), one row per node.
    predicted_nodes : pandas.Series or None
        Node where each ``newdata`` row stops (rpart's ``predict`` routing).
    surrogates : pandas.DataFrame
        rpart's surrogate splits, in rpart's order: node, var, agree (rpart's
        ``improve`` column for a surrogate) and adj.
    """

    where: pd.Series
    frame: pd.DataFrame
    predicted_nodes: pd.Series | None = field(default=None)
    surrogates: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)

    @property
    def n_leaves(self) -> int:
        return int((self.frame["var"] == "<leaf>").sum())

    def _header(self) -> str:
        return f"RpartFit(n={self.where.size}, nodes={len(self.frame)}, leaves={self.n_leaves})"

    def summary(self) -> pd.DataFrame:
        """rpart's node table (node, var, n, dev)."""
        return self.frame.copy()

    def to_frame(self) -> pd.DataFrame:
        """One row per fitted record: its leaf node (rpart's ``where``)."""
        return self.where.rename("leaf").rename_axis("record").reset_index()


def _to_r_frame(df: pd.DataFrame, ro, pandas2ri, localconverter):
    clean = pd.DataFrame(index=range(len(df)))
    for c in df.columns:
        col = df[c].reset_index(drop=True)
        if isinstance(col.dtype, pd.CategoricalDtype):
            # rpy2 makes factors only from string categories; keep the level order
            clean[c] = col.cat.rename_categories([str(v) for v in col.cat.categories])
        elif pd.api.types.is_bool_dtype(col):
            clean[c] = col.astype(bool)
        elif pd.api.types.is_numeric_dtype(col):
            clean[c] = col.astype(float)
        else:
            clean[c] = pd.Categorical(col.astype(object)).rename_categories(str)
    with localconverter(ro.default_converter + pandas2ri.converter):
        return ro.conversion.py2rpy(clean)


def rpart_fit(
    X: pd.DataFrame,
    y: pd.Series,
    method: Literal["anova", "class"] = "anova",
    *,
    minbucket: int = 5,
    minsplit: int | None = None,
    cp: float = 1e-8,
    maxdepth: int = 30,
    xval: int = 10,
    seed: int | None = None,
    newdata: pd.DataFrame | None = None,
) -> RpartFit:
    """Fit R's ``rpart(y ~ ., method, control)`` and return leaf memberships.

    Parameters
    ----------
    X : pandas.DataFrame
        Predictors (categoricals become R factors with the same levels).
    y : pandas.Series
        Response; for ``method="class"`` it is turned into a factor.
    method, minbucket, minsplit, cp, maxdepth, xval
        rpart controls (``minsplit`` defaults to ``3 * minbucket``).
    seed : int, optional
        ``set.seed`` before the fit (the cross-validation groups use it).
    newdata : pandas.DataFrame, optional
        Rows to route down the fitted tree (``predict`` with node numbers).

    Returns
    -------
    RpartFit
    """
    ro, pandas2ri, localconverter = _require_r()
    if ".y" in X.columns:
        raise ValueError("X must not have a column named '.y'")
    df = X.copy()
    yy = pd.Series(y).reset_index(drop=True)
    if method == "class":
        yy = pd.Categorical(yy.astype(object)) if not isinstance(yy.dtype, pd.CategoricalDtype) \
            else yy
    elif method != "anova":
        raise ValueError(f"method must be 'anova' or 'class', got {method!r}")
    df = df.reset_index(drop=True)
    df.insert(0, ".y", yy)
    rdf = _to_r_frame(df, ro, pandas2ri, localconverter)
    rnew = ro.NULL if newdata is None else _to_r_frame(newdata[list(X.columns)], ro, pandas2ri,
                                                      localconverter)
    fun = ro.r(_R_CODE)
    minsplit = 3 * int(minbucket) if minsplit is None else int(minsplit)
    out = fun(rdf, method, int(minbucket), minsplit, float(cp), int(maxdepth), int(xval),
              ro.NULL if seed is None else int(seed), rnew)
    res = {k: out.rx2(k) for k in ("where", "fitted_rows", "nodes", "var", "n", "dev", "pred",
                                   "s_node", "s_var", "s_agree", "s_adj")}
    rows = np.asarray(res["fitted_rows"], dtype=np.int64) - 1
    where = pd.Series(np.asarray(res["where"], dtype=np.int64), index=X.index[rows], name="node")
    frame = pd.DataFrame({
        "var": list(res["var"]),
        "n": np.asarray(res["n"], dtype=np.int64),
        "dev": np.asarray(res["dev"], dtype=float),
    }, index=pd.Index(np.asarray(res["nodes"], dtype=np.int64), name="node"))
    pred = None
    if newdata is not None:
        pred = pd.Series(np.asarray(res["pred"], dtype=np.int64), index=newdata.index, name="node")
    surrogates = pd.DataFrame({
        "node": np.asarray(res["s_node"], dtype=np.int64),
        "var": [str(v) for v in res["s_var"]],
        "agree": np.asarray(res["s_agree"], dtype=float),
        "adj": np.asarray(res["s_adj"], dtype=float),
    })
    return RpartFit(where, frame, pred, surrogates)
