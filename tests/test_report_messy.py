"""The report on a messy survey-like file (missing values, a −8 code, long factor labels, one
scenario): every figure inside its canvas, rendered by a real browser, and no confidential
value in any output by default."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _browser import chromium, images_loaded, needs_chromium

from idrisk.cli import main

EDU = ["PRIMARY/NO EDUCATION", "VOCATIONAL/GRAMMAR", "SECONDARY", "POST-SECONDARY OR HIGHER"]
MARITAL = ["SINGLE", "MARRIED", "WIDOWED", "DIVORCED", "LEGALLY SEPARATED", "DE FACTO SEPARATED"]
REGION = ["Dolnoslaskie", "Kujawsko-pomorskie", "Lodzkie", "Lubelskie", "Lubuskie",
          "Malopolskie", "Mazowieckie", "Opolskie", "Podkarpackie", "Podlaskie", "Pomorskie",
          "Slaskie", "Swietokrzyskie", "Warminsko-mazurskie", "Wielkopolskie",
          "Zachodnio-pomorskie"]
KNOWN = ["sex", "age", "region"]
SYN = ["edu", "marital", "income"]


def messy(n: int = 700, seed: int = 11) -> pd.DataFrame:
    """SD2011-like: NAs, a −8 'no answer' code in income (14%), 16 and 6 long levels."""
    rng = np.random.default_rng(seed)
    income = np.round(rng.lognormal(7.3, 0.6, n), 2) + 0.01 * rng.integers(1, 9, n)
    income[rng.random(n) < 0.14] = -8
    income[rng.random(n) < 0.10] = np.nan
    edu = rng.choice(EDU, n).astype(object)
    edu[rng.random(n) < 0.02] = None
    return pd.DataFrame({"sex": rng.choice(["FEMALE", "MALE"], n), "age": rng.integers(16, 90, n),
                         "region": rng.choice(REGION, n), "edu": edu,
                         "marital": rng.choice(MARITAL, n), "income": np.round(income, 2)})


def synthetic(conf: pd.DataFrame, j: int) -> pd.DataFrame:
    """Half the records keep their values (with a little noise on income), half are redrawn."""
    rng = np.random.default_rng(100 + j)
    out = conf.copy()
    redraw = rng.random(len(conf)) < 0.5
    donors = rng.integers(0, len(conf), len(conf))
    for v in SYN:
        out.loc[redraw, v] = conf[v].to_numpy()[donors][redraw]
    noise = 1 + rng.normal(0, 0.02, len(conf))
    out["income"] = np.where(out.income > 0, np.round(out.income * noise, 2), out.income)
    return out


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    folder = tmp_path_factory.mktemp("messy")
    conf = messy()
    paths = [folder / "survey.csv", folder / "syn_1.csv", folder / "syn_2.csv"]
    conf.to_csv(paths[0], index=False)
    for j, p in enumerate(paths[1:], start=1):
        synthetic(conf, j).to_csv(p, index=False)
    base = ["report", *map(str, paths), "--known", *KNOWN, "--syn", *SYN, "-r", "0.1",
            "--radii", "0.01", "0.05", "0.1", "--maxorder", "0", "--top", "10",
            "--no-progress"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main([*base, "--out-dir", str(folder / "report")]) == 0
        assert main([*base, "--show-confidential-values", "--out-dir",
                     str(folder / "report-confidential")]) == 0
    return conf, folder, base


def _text(html: str) -> str:
    """The page without its embedded images."""
    return re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", html)


def test_no_confidential_value_in_any_output_by_default(written):
    conf, folder, _ = written
    out = folder / "report"
    top = pd.read_csv(out / "top_records.csv")
    assert list(top.columns) == ["scenario", "record", "record_risk", "mean_matches_c",
                                 "unique_true_matches", "missing_matched_values"]
    # the confidential values of the listed records, as they are written in the input file
    rows = conf.iloc[top.record - 1]
    incomes = {f"{v:.2f}" for v in rows.income.dropna() if v > 0}
    labels = set(EDU) | set(MARITAL) | set(REGION)
    assert len(incomes) >= 3
    for name in ("report.html", "report.md", *[p.name for p in out.glob("*.csv")]):
        text = _text((out / name).read_text())
        leaked = sorted(v for v in incomes | labels if v in text)
        assert not leaked, f"{name} holds confidential values {leaked[:5]}"
    assert "CONFIDENTIAL" not in (out / "report.html").read_text()
    # asked for, they are there, and the report says so on its first line
    shown = folder / "report-confidential"
    md = (shown / "report.md").read_text()
    assert md.splitlines()[0].startswith("**CONFIDENTIAL: this report lists confidential values")
    assert "--show-confidential-values" in md.splitlines()[0]
    body = (shown / "report.html").read_text().split("<body>", 1)[1]
    assert body.startswith("<p class='notice'>CONFIDENTIAL")
    assert any(v in _text(body) for v in incomes)


def test_findings_on_messy_data_are_explained(written):
    conf, folder, _ = written
    out = folder / "report"
    html = _text((out / "report.html").read_text())
    # the risk keeps rising to the largest radius of this grid: flagged, with advice
    best = pd.read_csv(out / "best_radius.csv")
    assert best.r.iloc[0] == 0.1 and best.at_edge.iloc[0] == "largest"
    assert "extend the grid (--radii) above 10%" in html
    # the record-number table is only in the custodian's files (issue 29); there, NA matches
    # are explained beside it
    assert "missing values among its matched variables" not in html
    assert "top_records.csv" in html
    custodian = _text((folder / "report-confidential" / "report.html").read_text())
    assert "missing values among its matched variables" in custodian
    assert "matches every synthetic value" in custodian
    # U_p is never printed as NaN
    assert "NaN" not in html


def test_figures_lie_inside_their_canvas(written):
    """Every text of every report figure within the canvas; PNG borders blank; min sizes."""
    import matplotlib.text
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from idrisk.reporting import compute_report
    from idrisk.reporting._figures import report_figures as _figures

    conf, folder, _ = written
    frames = [pd.read_csv(folder / f"syn_{j}.csv") for j in (1, 2)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = compute_report(conf, frames, KNOWN, SYN, r=0.1, radii=[0.01, 0.05, 0.1],
                             maxorder=0)
    figures = _figures(rep)
    assert {"record_risk", "risk_by_radius", "risk_at_max", "ecdf_income", "shares_edu",
            "shares_marital"} <= set(figures)
    for key, (fig, _) in figures.items():
        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        renderer = canvas.get_renderer()
        width, height = canvas.get_width_height()
        assert width >= 640 and height >= 440, key
        # everything drawn (titles, tick labels, legends, annotations), in pixels
        boxes = [ax.get_tightbbox(renderer) for ax in fig.axes] + [
            artist.get_window_extent(renderer) for artist in (*fig.legends, *fig.texts)]
        if fig._suptitle is not None:
            boxes.append(fig._suptitle.get_window_extent(renderer))
        for box in boxes:
            inside = (box.x0 >= -1 and box.y0 >= -1 and box.x1 <= width + 1
                      and box.y1 <= height + 1)
            assert inside, f"{key}: a box at {box.bounds} reaches outside {width}x{height}"
    ecdf = figures["ecdf_income"][0]
    assert any(t.get_text().startswith("-8:") for t in ecdf.findobj(matplotlib.text.Text))
    edu = figures["shares_edu"][0].axes[0]
    squeeze = lambda text: re.sub(r"\s", "", text)  # noqa: E731 (labels are wrapped)
    assert [squeeze(t.get_text()) for t in edu.get_xticklabels()] == [squeeze(v) for v in
                                                                      sorted(EDU)]
    # the written PNGs: nothing touches the edges
    from PIL import Image

    for png in (folder / "report").glob("fig_*.png"):
        with Image.open(png) as im:
            rgb = np.asarray(im.convert("RGB")).astype(int)
        edges = np.concatenate([rgb[:2].reshape(-1, 3), rgb[-2:].reshape(-1, 3),
                                rgb[:, :2].reshape(-1, 3), rgb[:, -2:].reshape(-1, 3)])
        assert edges.min() >= 240, f"{png.name}: something is drawn at the edge"


@needs_chromium
def test_browser_renders_the_messy_report(written, tmp_path):
    _, folder, _ = written
    html = (folder / "report" / "report.html").read_text()
    images, loaded = images_loaded(html, tmp_path)
    assert images == len(list((folder / "report").glob("fig_*.png"))) == loaded >= 5
    png = tmp_path / "page.png"
    chromium([f"--screenshot={png}", "--window-size=1200,4000",
              Path(folder / "report" / "report.html").as_uri()], tmp_path)
    from PIL import Image

    with Image.open(png) as im:
        assert im.size == (1200, 4000)
        assert len(im.convert("RGB").resize((60, 200)).getcolors(maxcolors=100_000)) > 20


def test_the_report_lists_each_file_and_who_may_see_it(written):
    _, folder, _ = written
    out = folder / "report"
    md = (out / "report.md").read_text()
    section = md.split("## Files in this folder and who may see them", 1)[1]
    rows = [line.split(" | ") for line in section.splitlines() if line.startswith("| ")][2:]
    listed = {row[0].strip("| ") for row in rows}
    on_disk = {p.name for p in out.iterdir() if not p.name.startswith("fig_")} | {"fig_*.png"}
    assert listed == on_disk
    assert all(row[2].strip(" |") for row in rows)  # every file says who may see it
