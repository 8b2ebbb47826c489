"""The vignettes' findings as data: one CSV per vignette, one rule per vignette, one renderer.

Each ``vignettes/findings/<vignette>.csv`` has one row per finding of a paper:

* ``id``, ``paper`` (000-004, the files of ``shared/papers``), ``source`` (the paper's
  ``Fig. N`` / ``Table N`` / ``supp. Fig. N`` / ``§x.y``, several joined by ``, ``),
  ``finding`` (what is compared);
* ``direction`` the paper states for ``ours - against``: ``>`` (positive), ``<``
  (negative), ``=`` (no difference beyond noise), empty for a descriptive row;
* ``paper``: the paper's number or words (empty when it gives none);
* ``ours_key`` / ``ours``: where our number is stored (``file.json#/json/pointer`` or
  ``file.csv#column?col=value&col=value``, files under ``vignettes/figures/``) and its value
  as printed; ``against_key`` / ``against``: the same for what ours is compared with
  (``paper`` = the paper's number; empty = 0, i.e. ``ours`` is itself a difference). A CSV
  key filters rows with ``col=value``, ``col>number`` or ``col<number`` (joined by ``&``) and
  takes ``column`` of the one matching row, ``column@mean|min|max|sum`` over the matching rows or
  ``@count`` (their number);
* ``scale``: ``log`` when the difference is taken on the log scale, else empty;
* ``noise_unit`` / ``noise``: the vignette's one noise unit and its value;
* ``factor`` = (ours - against) / noise, as printed; ``verdict``; ``note``.

Several runs of one finding (the risk-weighted CE page's two runs) are ``; ``-separated in
``ours_key``, ``ours``, ``against_key``, ``against``, ``noise`` and ``factor``: the rule is
applied to every run.

The rule (``verdict``) is the same for every vignette except for its threshold ``T``
(``RULES``): with the factors signed by the paper's direction, *reproduced* when every
factor exceeds ``T``, *not reproduced* when every factor is below ``-T``, else *not
established*. For ``=`` (the paper claims no effect or our number equals its number):
*reproduced* when every |factor| <= T, *not reproduced* when every |factor| > T. A row
without our number, or without a noise (a level on other data, a rate without a stored SE),
is *not established* (its note says why); a row without a direction and without a published
number is *descriptive*.

``python vignettes/_findings.py`` re-renders the findings table of every vignette between
``<!-- FINDINGS -->`` and ``<!-- /FINDINGS -->``.
"""

from __future__ import annotations

import csv
import json
import math
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIGURES = HERE / "figures"
FINDINGS = HERE / "findings"

#: the threshold T of each vignette's rule and the noise unit it declares
RULES: dict[str, tuple[float, str]] = {
    "ce_section4": (2.0, "standard error (SE) of our statistic"),
    "ce_risk_weighted": (3.0, "|Unweighted 2022 - Unweighted 2023| of the same quantity, in "
                              "each run"),
    "nb_simulation": (2.0, "spread (max - min) of the three unweighted fits"),
    "survey_tables": (2.0, "Monte Carlo SE (paired bootstrap over the 12 samples)"),
    "categorical_labels": (2.0, "standard error (SE) of our statistic"),
}
VERDICTS = ("reproduced", "not reproduced", "not established", "descriptive")
COLUMNS = ["id", "paper", "source", "finding", "direction", "paper_value", "ours_key", "ours",
           "against_key", "against", "scale", "noise_unit", "noise", "factor", "verdict",
           "note"]
BEGIN, END = "<!-- FINDINGS -->", "<!-- /FINDINGS -->"
SEP = ";"


def read_rows(vignette: str) -> list[dict[str, str]]:
    """The rows of ``findings/<vignette>.csv`` (strings, as stored)."""
    with open(FINDINGS / f"{vignette}.csv", newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        if reader.fieldnames != COLUMNS:
            raise ValueError(f"{vignette}.csv: columns {reader.fieldnames} != {COLUMNS}")
        return list(reader)


def split(cell: str) -> list[str]:
    return [c.strip() for c in cell.split(SEP)] if cell.strip() else []


def number(text: str) -> float:
    """A printed number: ``1,234``, ``-0.5``, ``+3``, ``inf``, ``-inf`` (unicode minus too)."""
    t = text.strip().replace(",", "").replace("\u2212", "-").lstrip("+")
    return float(t)


def decimals(text: str) -> int:
    t = text.strip().replace(",", "")
    return len(t.split(".")[1]) if "." in t else 0


def lookup(key: str) -> float:
    """The stored value a key names (see the module docstring for the two key forms)."""
    name, _, path = key.partition("#")
    file = FIGURES / name
    if name.endswith(".json"):
        obj = json.loads(file.read_text(encoding="utf-8"))
        for part in path.lstrip("/").split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            obj = obj[int(part)] if isinstance(obj, list) else obj[part]
        return float(obj)
    if name.endswith(".csv"):
        col, _, query = path.partition("?")
        with open(file, newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
        for cond in filter(None, query.split("&")):
            m = re.match(r"^(.*?)(>|<|=)(.*)$", cond)
            if m is None:
                raise KeyError(f"{key}: bad filter {cond!r}")
            k, op, v = m.groups()
            if op == "=":
                rows = [r for r in rows if r[k] == v]
            else:
                rows = [r for r in rows
                        if (float(r[k]) > float(v)) == (op == ">") and float(r[k]) != float(v)]
        if col == "@count":
            return float(len(rows))
        col, _, stat = col.partition("@")
        if stat:
            vals = [float(r[col]) for r in rows]
            return {"mean": sum(vals) / len(vals), "min": min(vals), "max": max(vals),
                    "sum": sum(vals)}[stat]
        if len(rows) != 1:
            raise KeyError(f"{key}: {len(rows)} rows match")
        return float(rows[0][col])
    raise KeyError(f"{key}: not a .json or .csv file under vignettes/figures")


def against_values(row: dict[str, str]) -> list[float]:
    ours = split(row["ours"])
    against = split(row["against"])
    if not against:
        return [0.0] * len(ours)
    if against == ["paper"]:
        return [number(row["paper_value"])] * len(ours)
    return [number(a) for a in against]


def factors(row: dict[str, str]) -> list[float]:
    """(ours - against) / noise for every run, from the printed numbers of the row."""
    ours = [number(o) for o in split(row["ours"])]
    against = against_values(row)
    noise = [number(n) for n in split(row["noise"])]
    if len(noise) == 1:
        noise = noise * len(ours)
    out = []
    for o, a, n in zip(ours, against, noise, strict=True):
        d = math.log(o) - math.log(a) if row["scale"] == "log" else o - a
        out.append(0.0 if d == 0 else (math.copysign(math.inf, d) if n == 0 else d / n))
    return out


def verdict(direction: str, factor: list[float], threshold: float) -> str:
    """The one rule (module docstring): a verdict from the signed factors of the runs."""
    if direction == "":
        return "descriptive"
    if not factor:
        return "not established"
    if direction == "=":
        if all(abs(f) <= threshold for f in factor):
            return "reproduced"
        if all(abs(f) > threshold for f in factor):
            return "not reproduced"
        return "not established"
    sign = {">": 1.0, "<": -1.0}[direction]
    signed = [sign * f for f in factor]
    if all(f > threshold for f in signed):
        return "reproduced"
    if all(f < -threshold for f in signed):
        return "not reproduced"
    return "not established"


def row_verdict(vignette: str, row: dict[str, str]) -> str:
    """The rule applied to a row, using the row's printed factors."""
    if row["direction"] == "" and row["paper_value"].strip():
        raise ValueError(f"{vignette} row {row['id']}: a published number needs a direction")
    stated = [number(f) for f in split(row["factor"])] if row["ours"].strip() else []
    return verdict(row["direction"], stated, RULES[vignette][0])


def _fmt_factor(cell: str) -> str:
    return "; ".join("∞" if v in ("inf", "+inf") else "−∞" if v == "-inf" else v
                     for v in split(cell))


def render(vignette: str) -> str:
    """The Markdown findings table of a vignette, rendered from its CSV."""
    threshold, unit = RULES[vignette]
    lines = [
        f"Rendered from `vignettes/findings/{vignette}.csv` by `vignettes/_findings.py` "
        f"(do not edit by hand). Rule: factor = (ours − against) / noise, noise = {unit}; "
        f"*reproduced* when every run's factor exceeds {threshold:g} in the paper's "
        f"direction (for \"=\": |factor| ≤ {threshold:g}), *not reproduced* when every run's "
        "is beyond it the other way, else *not established* (also when we have no number or "
        "no noise applies: the note says why); *descriptive*: no published number. Keys: "
        "`file#/json/pointer` or `file.csv#column?filter` under `vignettes/figures/`; the "
        "rows and their noise are built by `vignettes/findings/_build.py`.",
        "",
        "| # | paper, where | finding | paper's direction | paper | ours | against | key "
        "(ours; against) | noise | factor | verdict | note |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in read_rows(vignette):
        keys = "; ".join(f"`{k}`" for k in split(row["ours_key"]) + split(row["against_key"]))
        noise = row["noise"] and f"{row['noise']} ({row['noise_unit']})"
        scale = " (log scale)" if row["scale"] == "log" else ""
        cells = [row["id"], f"{row['paper']} {row['source']}", row["finding"],
                 row["direction"] or "–", row["paper_value"] or "–", row["ours"] or "–",
                 (row["against"] or ("0" if row["ours"] else "–")) + scale, keys or "–",
                 noise or "–", _fmt_factor(row["factor"]) or "–", f"**{row['verdict']}**",
                 row["note"]]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def block(text: str) -> str:
    """The text between the markers of a vignette."""
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[start:end].strip("\n")


def write(vignette: str) -> None:
    path = HERE / f"{vignette}.md"
    text = path.read_text(encoding="utf-8")
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    path.write_text(text[:start] + "\n" + render(vignette) + "\n" + text[end:],
                    encoding="utf-8")


def paper_refs(text: str) -> set[str]:
    """``Fig. N`` / ``Table N`` named in a text (``Figure N`` counts as ``Fig. N``)."""
    refs = set()
    for kind, num in re.findall(r"\b(Table|Figure|Fig\.)\s?(\d+)", text):
        refs.add(f"{'Table' if kind == 'Table' else 'Fig.'} {num}")
    return refs


def row_refs(source: str) -> set[str]:
    """The references a row's ``source`` names (``supp.`` kept as a prefix)."""
    out = set()
    for part in source.split(","):
        m = re.search(r"(supp\.\s)?(Table|Fig\.)\s(\d+)", part.strip())
        if m:
            out.add(f"{'supp. ' if m.group(1) else ''}{m.group(2)} {m.group(3)}")
    return out


if __name__ == "__main__":
    for name in sys.argv[1:] or list(RULES):
        write(name)
        print(f"rendered {name}.md")
