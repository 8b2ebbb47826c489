"""The first contact (issue 29): the README's quick start shows every warning it prints, the
warnings point at the user's line, advice is given only where it fits the data, and
``idrisk demo`` is quiet."""

from __future__ import annotations

import contextlib
import io
import re
import warnings

import numpy as np
import pandas as pd
from _shared import REPO_ROOT

from idrisk import identification_risk
from idrisk.exceptions import RiskInputWarning

README = REPO_ROOT / "README.md"


def _quick_start() -> str:
    text = README.read_text()
    section = text[text.index("## Quick start"):]
    return re.search(r"```python\n(.*?)```", section, flags=re.S).group(1)


def test_every_quick_start_warning_is_shown_in_the_readme(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = compile(_quick_start(), "quickstart.py", "exec")
    with warnings.catch_warnings(record=True) as caught, \
            contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("always")
        exec(code, {"__name__": "__main__"})
    assert caught, "the quick start is quiet: drop the warnings from the README"
    readme = " ".join(README.read_text().split())
    lines = _quick_start().splitlines()
    for w in caught:
        shown = f"{w.category.__name__}: {' '.join(str(w.message).split())[:70]}"
        assert shown in readme, shown
        # each points at the user's line, not at idrisk's source
        assert w.filename == "quickstart.py"
        assert "identification_risk(" in lines[w.lineno - 1]


def _never_matched(income: np.ndarray) -> list[str]:
    n = len(income)
    conf = pd.DataFrame({"Sex": ["F", "M"] * (n // 2), "Income": income})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        identification_risk(conf, [conf] * 2, "Sex", "Income", r=0.1)
    return [str(w.message) for w in caught
            if issubclass(w.category, RiskInputWarning) and "never be matched" in str(w.message)]


def test_missing_value_codes_are_suggested_only_for_a_shared_negative_value():
    n = 200
    positive = np.linspace(1e3, 1e5, n)
    # losses: negative values, each held by one record: real values, no code to name
    losses = positive.copy()
    losses[:20] = -np.linspace(100, 2000, 20)
    (msg,) = _never_matched(losses)
    assert "missing-value code" not in msg and "-8" not in msg
    assert "abs_radius=True" in msg and "percentage=False" in msg
    # a code shared by 20 records: named, with the advice to declare it missing
    coded = positive.copy()
    coded[:20] = -9.0
    (msg,) = _never_matched(coded)
    assert "Values like -9 are often missing-value codes" in msg and "abs_radius=True" in msg


def test_demo_is_quiet(tmp_path, capsys):
    from idrisk.demo import run_demo

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run_demo(tmp_path / "out", m=2, n=600, radii=[0.1], seed=7, progress=False,
                 maxorder=0)
    assert [str(w.message)[:80] for w in caught] == []
    assert capsys.readouterr().err == ""
