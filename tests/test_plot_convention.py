"""One plot convention: every ``plot_*`` of the package takes ``ax``, draws into it, returns the
Axes (or the Figure of a multi-panel plot) and never touches the matplotlib backend."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

MODULES = ("idrisk.plots", "idrisk.weighted.plots", "idrisk.categorical.plots")
PKG = Path(__file__).resolve().parents[1] / "idrisk"
MULTI_PANEL = {"plot_risk_by_radius", "plot_table_deviations"}


def _plot_functions():
    import importlib

    out = []
    for name in MODULES:
        module = importlib.import_module(name)
        for attr in module.__all__:
            if attr.startswith("plot_"):
                out.append((name, attr, getattr(module, attr)))
    return out


def _calls():
    """name -> (args, kwargs) that draw a small figure; every plot_* must be listed."""
    from idrisk.risk import inherent_bounds, label_risk
    from idrisk.utility import table_deviations

    rng = np.random.default_rng(0)
    sweep = pd.DataFrame([(s, r, d, float(rng.integers(0, 9)))
                          for s in (1,) for r in (0.05, 0.1) for d in (1, 2)],
                         columns=["scenario", "r", "dataset", "exp_risk"])
    ru = pd.DataFrame({"scenario": [1, 1, 2, 2], "U_p": [0.1, 0.2, 0.3, 0.4],
                       "exp_risk": [4.0, 3.0, 2.0, 1.0], "m": [1, 1, 10, 10],
                       "record_mean_risk": [0.1, 0.2, 0.3, 0.4]})
    o = pd.Series([1.0, 2.0, 3.0, 3.0])
    d = pd.DataFrame({"g": rng.integers(0, 2, 120), "lab": rng.geometric(0.3, 120)})
    syn = [d.assign(lab=rng.permutation(d["lab"].to_numpy())) for _ in range(2)]
    bounds = inherent_bounds(d, "lab", "g", n_repeats=5, seed=1)
    risks = {"Data": pd.Series([0.1, 0.3, 0.5]), "Marginal": pd.Series([0.0, 0.1, 0.2])}
    return {
        "plot_risk_by_radius": ((sweep,), {}),
        "plot_risk_at_max": ((sweep,), {}),
        "plot_utility_risk": ((ru,), {}),
        "plot_2d_boxplot": ((ru,), {}),
        "plot_record_risk": ((pd.DataFrame({1: [0.0, 0.5, 1.0]}),), {}),
        "plot_ecdf": ((o, {1: [o]}, "x"), {}),
        "plot_category_shares": ((pd.Series(["a", "b"]), {1: [pd.Series(["a", "a"])]}, "x"),
                                 {}),
        "plot_risk_violins": ((risks,), {}),
        "plot_whack_a_mole": ((o, o, o + 0.5), {}),
        "plot_weights_vs_value": ((o, {"Marginal": o / 4}), {}),
        "plot_bounds": ((bounds, {"shuffle": label_risk(d, syn, "lab", "g")}), {}),
        "plot_table_deviations": (({"shuffle": table_deviations(d, syn, "lab", "g",
                                                                ways=(1, 2))},),
                                  {"ways": (1, 2)}),
    }


def test_every_plot_function_takes_ax_and_returns_it():
    import matplotlib.pyplot as plt

    calls = _calls()
    functions = _plot_functions()
    assert {attr for _, attr, _ in functions} == set(calls), "list every plot_* in _calls"
    for module, attr, func in functions:
        params = inspect.signature(func).parameters
        assert "ax" in params and params["ax"].default is None, f"{module}.{attr}: no ax=None"
        args, kwargs = calls[attr]
        panels = {"plot_table_deviations": 2}.get(attr, 1)
        fig, axes = plt.subplots(1, panels, squeeze=False)
        given = list(axes[0]) if attr in MULTI_PANEL else axes[0][0]
        got = func(*args, **kwargs, ax=given)
        if attr in MULTI_PANEL:
            assert got is fig, f"{module}.{attr} must return the Figure of the given Axes"
        else:
            assert got is given, f"{module}.{attr} must return the Axes it was given"
            assert given.has_data() or given.patches or given.lines, f"{attr} drew nothing"
        assert len(fig.axes) >= panels
        # and without ax: a new figure with a title somewhere
        own = func(*args, **kwargs)
        own_fig = own if attr in MULTI_PANEL else own.figure
        titles = [a.get_title() for a in own_fig.axes] + [
            own_fig._suptitle.get_text() if own_fig._suptitle else ""]
        assert any(titles), f"{attr}: no title"
        plt.close("all")


def test_no_module_sets_the_backend():
    offenders = []
    for path in sorted(PKG.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("use", "switch_backend")
                    and isinstance(node.func.value, ast.Name)
                    and node.func.value.id in ("matplotlib", "plt", "mpl")):
                offenders.append(f"{path.relative_to(PKG.parent)}:{node.lineno}")
    assert not offenders, "matplotlib.use in the package:\n" + "\n".join(offenders)


def test_plotting_and_report_leave_the_users_backend(tmp_path):
    code = (
        "import matplotlib; matplotlib.use('svg')\n"
        "import idrisk.plots, idrisk.weighted.plots, idrisk.categorical.plots, idrisk.reporting\n"
        "import pandas as pd\n"
        "from idrisk.plots import plot_ecdf\n"
        "o = pd.Series([1.0, 2.0, 3.0]); plot_ecdf(o, {1: [o]}, 'x')\n"
        "from idrisk.datasets import load_demo\n"
        "d = load_demo(n=120, seed=1)\n"
        "s = d.assign(Income=d.Income.sample(frac=1, random_state=1).to_numpy())\n"
        f"idrisk.reporting.report(d, [s], ['Age'], ['Income'], out_dir={str(tmp_path / 'r')!r},"
        " radii=[0.1], utility=False)\n"
        "print(matplotlib.get_backend())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path,
                          env={"PYTHONPATH": str(PKG.parent), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == "svg"


@pytest.mark.parametrize("module", MODULES)
def test_plot_modules_import_without_pyplot(module):
    """Importing a plot module neither imports pyplot nor picks a backend."""
    code = f"import sys, {module}; print('matplotlib.pyplot' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env={"PYTHONPATH": str(PKG.parent), "PATH": "/usr/bin"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "False"
