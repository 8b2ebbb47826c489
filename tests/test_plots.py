"""Figures: check what is drawn (boxes, points, rectangles), not pixels."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from idrisk.plots import (  # noqa: E402
    colors_for,
    plot_2d_boxplot,
    plot_ecdf,
    plot_record_risk,
    plot_risk_at_max,
    plot_risk_by_radius,
    plot_utility_risk,
)

RADII = [0.01, 0.025, 0.05, 0.1, 0.2, 0.3]


@pytest.fixture
def sweep() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = [(s, r, d, float(rng.integers(0, 50))) for s in (1, 2, 3, 4) for r in RADII
            for d in range(1, 6)]
    return pd.DataFrame(rows, columns=["scenario", "r", "dataset", "exp_risk"])


def _legend_texts(fig):
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    return [t.get_text() for lg in legends for t in lg.get_texts()]


def _face(patch):
    return matplotlib.colors.to_hex(patch.get_facecolor(), keep_alpha=False)


def test_risk_by_radius(sweep):
    fig = plot_risk_by_radius(sweep, n=5571)
    assert len(fig.axes) == 4
    colors = colors_for([1, 2, 3, 4])
    ylims = {ax.get_ylim() for ax in fig.axes}
    assert len(ylims) == 1  # one y-scale shared by the panels
    assert "Identification risk by radius" in fig._suptitle.get_text()
    assert "out of n = 5571" in fig.axes[0].get_ylabel()
    texts = _legend_texts(fig)
    assert [f"scenario ({s})" in " ".join(texts) for s in (1, 2, 3, 4)] == [True] * 4
    assert any("maximising radius" in t for t in texts) and any("median" in t for t in texts)
    for ax, s in zip(fig.axes, (1, 2, 3, 4), strict=True):
        assert [t.get_text() for t in ax.get_xticklabels()] == ["1%", "2.5%", "5%", "10%",
                                                                "20%", "30%"]
        # one face colour per scenario: every box of this panel has the scenario's colour
        assert {_face(p) for p in ax.patches} == {colors[s]}
        assert ax.get_xlabel().startswith("radius r")
        # 6 lines per box (whiskers, caps, median, fliers) + the maximising-radius marker
        assert len(ax.lines) == 6 * len(RADII) + 1
        g = sweep[sweep.scenario == s]
        meds = sorted(g.groupby("r").exp_risk.median())
        drawn = sorted(float(ln.get_ydata()[0]) for ln in ax.lines
                       if len(set(ln.get_ydata())) == 1 and len(ln.get_xdata()) == 2)
        for m in meds:
            assert any(np.isclose(m, d) for d in drawn)
        assert ax.get_title() == f"Scenario ({s})"
    plt.close(fig)


def test_risk_at_max(sweep):
    at = sweep[sweep.r == 0.1]
    ax = plot_risk_at_max(at)
    fig = ax.figure
    assert len(ax.get_xticklabels()) == 4
    assert len(ax.lines) == 6 * 4
    assert ax.get_title() and "records identified" in ax.get_ylabel()
    colors = colors_for([1, 2, 3, 4])
    assert [_face(p) for p in ax.patches] == [colors[s] for s in (1, 2, 3, 4)]
    assert "box: middle half (Q1–Q3)" in _legend_texts(fig)
    assert "r = 10%" in ax.get_xticklabels()[0].get_text()
    plt.close(fig)


def test_utility_risk_rectangles():
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"scenario": np.repeat([1, 2, 3, 4], 20), "U_p": rng.random(80),
                       "exp_risk": rng.random(80) * 40})
    ax = plot_utility_risk(df, [1, 2, 4])
    fig = ax.figure
    assert len(ax.collections) == 3
    # scenario 4 keeps the colour it has in the figures with all four scenarios
    colors = colors_for([1, 2, 3, 4])
    assert [matplotlib.colors.to_hex(c.get_facecolor()[0]) for c in ax.collections] == [
        colors[s] for s in (1, 2, 4)]
    texts = _legend_texts(fig)
    assert texts[:3] == ["scenario (1)", "scenario (2)", "scenario (4)"]
    assert any(t.startswith("box: Q1–Q3") for t in texts)  # the rectangles have a legend
    assert ax.get_title() and "U_p" in ax.get_xlabel() and "out of n" in ax.get_ylabel()
    assert all(len(c.get_offsets()) == 20 for c in ax.collections)
    rects = [p for p in ax.patches if isinstance(p, Rectangle)]
    assert len(rects) == 3
    g = df[df.scenario == 2]
    x1, x3 = np.quantile(g.U_p, [0.25, 0.75])
    y1, y3 = np.quantile(g.exp_risk, [0.25, 0.75])
    r = rects[1]
    assert (r.get_x(), r.get_y(), r.get_width(), r.get_height()) == pytest.approx(
        (x1, y1, x3 - x1, y3 - y1))
    with pytest.raises(KeyError, match="scenario"):
        plot_utility_risk(df, [5])
    plt.close("all")


def test_2d_boxplot():
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"m": np.repeat([1, 10, 20], 30), "U_p": rng.random(90),
                       "record_mean_risk": rng.random(90)})
    ax = plot_2d_boxplot(df)
    fig = ax.figure
    assert len(ax.patches) == 3
    assert len(ax.lines) == 6 * 3
    g = df[df.m == 10]
    r = ax.patches[1]
    assert r.get_x() == pytest.approx(np.quantile(g.U_p, 0.25))
    assert r.get_y() + r.get_height() == pytest.approx(np.quantile(g.record_mean_risk, 0.75))
    # whiskers reach the extremes
    xs = np.concatenate([ln.get_xdata() for ln in ax.lines[6:12]])
    assert xs.min() == pytest.approx(g.U_p.min()) and xs.max() == pytest.approx(g.U_p.max())
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts[:3] == ["m = 1", "m = 10", "m = 20"]
    assert any(t.startswith("box") for t in texts) and ax.get_title()
    plt.close(fig)


def test_missing_columns():
    with pytest.raises(KeyError, match="lacks"):
        plot_risk_by_radius(pd.DataFrame({"scenario": [1]}))


def test_record_risk_and_ecdf():
    rr = pd.DataFrame({1: [0.0, 0.0, 0.5, 1.0, 0.25], 3: [0.0, 0.1, 0.2, 0.0, 0.0]})
    ax = plot_record_risk(rr, colors=colors_for([1, 2, 3]))
    fig = ax.figure
    assert ax.get_title() and "records" in ax.get_ylabel()
    assert _legend_texts(fig) == ["scenario (1)", "scenario (3)"]
    bars3 = [p for p in ax.patches if _face(p) == colors_for([1, 2, 3])[3]]
    assert sum(p.get_height() for p in bars3) == 5  # every record counted once
    o = pd.Series([1.0, 2.0, 3.0, 4.0])
    fig2 = plot_ecdf(o, {1: [o + 0.5, o], 2: [o * 2]}, "Income", unit="USD").figure
    assert len(fig2.axes[0].lines) == 4 and "USD" in fig2.axes[0].get_xlabel()
    assert _legend_texts(fig2)[0] == "confidential"
    plt.close("all")


def test_category_shares():
    from idrisk.plots import plot_category_shares

    o = pd.Series(["1", "2", "2", "4", "4", "4"])
    s1 = [pd.Series(["1", "1", "2", "4", "4", "4"]), pd.Series(["2", "2", "2", "4", "4", "6"])]
    ax = plot_category_shares(o, {2: s1}, "Tenure", colors=colors_for([1, 2]))
    fig = ax.figure
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2", "4", "6"]
    heights = [p.get_height() for p in ax.patches]
    assert heights[:4] == pytest.approx([1 / 6, 2 / 6, 3 / 6, 0])  # confidential
    assert heights[4:] == pytest.approx([1 / 6, 2 / 6, 2.5 / 6, 1 / 12])  # mean of the two
    assert _face(ax.patches[4]) == colors_for([1, 2])[2]
    assert _legend_texts(fig)[0] == "confidential" and ax.get_title()
    plt.close(fig)


def test_risk_by_radius_flags_a_maximum_at_the_edge_of_the_grid():
    rising = pd.DataFrame({"scenario": [1] * 6, "r": [0.01, 0.01, 0.05, 0.05, 0.1, 0.1],
                           "dataset": [1, 2] * 3, "exp_risk": [1.0, 2, 3, 4, 5, 6]})
    inside = rising.assign(exp_risk=[1.0, 2, 7, 8, 5, 6])

    def flags(fig):
        return [t.get_text() for ax in fig.axes for t in ax.texts]

    fig = plot_risk_by_radius(rising, n=10)
    assert flags(fig) == ["maximum at the largest radius of the grid:\nextend the grid above "
                          "10%"]
    assert flags(plot_risk_by_radius(inside, n=10)) == []
    plt.close("all")


def test_category_shares_keep_the_factor_order_and_wrap_long_labels():
    from idrisk.plots import plot_category_shares

    levels = ["PRIMARY/NO EDUCATION", "VOCATIONAL/GRAMMAR", "SECONDARY",
              "POST-SECONDARY OR HIGHER"]  # R's order, not alphabetical
    o = pd.Series(pd.Categorical(np.repeat(levels, [1, 2, 3, 4]), categories=levels))
    ax = plot_category_shares(o, {1: [o.astype(str)]}, "edu")
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert [t.replace("\n", "").replace(" ", "") for t in ticks] == [
        v.replace(" ", "") for v in levels]
    assert all(max(len(line) for line in t.split("\n")) <= 12 for t in ticks[:2])
    counts = pd.Series(np.repeat([10, 2, 300], [1, 1, 1]).astype(str))  # codes by value
    ax = plot_category_shares(counts, {1: [counts]}, "code")
    assert [t.get_text() for t in ax.get_xticklabels()] == ["2", "10", "300"]
    plt.close("all")


@pytest.mark.parametrize("scenarios", [[1], [1, 2, 3, 4]])
def test_risk_by_radius_y_axis_fits_its_data(scenarios):
    """The y axis ends within 15% above the highest risk (issue 29: 4 shared panels ran to
    100 for data peaking at 53), and starts at 0 so that boxes compare as lengths."""
    rng = np.random.default_rng(1)
    rows = [(s, r, d, float(rng.uniform(20, 50))) for s in scenarios for r in RADII
            for d in range(1, 6)]
    sweep = pd.DataFrame(rows, columns=["scenario", "r", "dataset", "exp_risk"])
    sweep.loc[3, "exp_risk"] = 53.0
    fig = plot_risk_by_radius(sweep, n=5571)
    for ax in fig.axes:
        low, high = ax.get_ylim()
        assert low == 0
        assert 53 <= high <= 53 * 1.15, high
    plt.close(fig)
