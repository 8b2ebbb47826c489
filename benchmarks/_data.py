"""Data of the benchmarks (issue 12): the CE scenario-1 setup and generated large files.

Everything is deterministic for a given seed.
"""

from __future__ import annotations

import compileall
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

CE1_CALL = dict(known=["Age", "Urban", "Marital"], syn=["Income"], r=0.1)


def ce_scenario1(m: int = 20, seed: int = 12) -> tuple[pd.DataFrame, list[pd.DataFrame]]:
    """CE sample (n = 5,571) and m synthetic versions with Income resampled within the
    Age x Urban x Marital groups and multiplied by 5% log-normal noise (the issue's setup)."""
    from _shared import cedata_path

    from idrisk.datasets import read_ce

    ce = read_ce(cedata_path())
    rng = np.random.default_rng(seed)
    groups = ce.groupby(["Age", "Urban", "Marital"], observed=True).indices
    income = ce["Income"].to_numpy()
    syns = []
    for _ in range(m):
        new = np.empty_like(income)
        for rows in groups.values():
            new[rows] = income[rng.choice(rows, size=len(rows), replace=True)]
        new = new * rng.lognormal(0.0, 0.05, len(new))
        syns.append(ce.assign(Income=new))
    return ce, syns


def make_age_income(n: int, m: int, both: bool, seed: int = 1):
    """n records: Age (integer 18-90, continuous), Urban and Marital (categorical), Income
    (log-normal). Synthetic versions: Income resampled and jittered by 5% log-normal noise;
    with ``both`` Age is synthesized too (resampled, so still whole years)."""
    rng = np.random.default_rng(seed)
    orig = pd.DataFrame(
        {
            "Age": rng.integers(18, 91, n).astype(np.float64),
            "Urban": pd.Categorical(rng.choice(["1", "2"], n, p=[0.93, 0.07])),
            "Marital": pd.Categorical(rng.choice(list("12345"), n)),
            "Income": np.round(rng.lognormal(10.5, 1.0, n), 2),
        }
    )
    syns = []
    for _ in range(m):
        income = orig["Income"].to_numpy()[rng.permutation(n)] * rng.lognormal(0, 0.05, n)
        frame = orig.assign(Income=income)
        if both:
            frame["Age"] = orig["Age"].to_numpy()[rng.permutation(n)]
        syns.append(frame)
    known = ["Age", "Urban", "Marital"] if not both else ["Urban", "Marital"]
    syn = ["Income"] if not both else ["Age", "Income"]
    return orig, syns, dict(known=known, syn=syn, r=0.1)


def make_three_continuous(n: int, m: int, seed: int = 2):
    """n records: Urban, Marital (categorical), Age (known, continuous), Income and
    Expenditure (log-normal, synthesized by resampling and 5% noise)."""
    rng = np.random.default_rng(seed)
    orig = pd.DataFrame(
        {
            "Age": rng.integers(18, 91, n).astype(np.float64),
            "Urban": pd.Categorical(rng.choice(["1", "2"], n, p=[0.93, 0.07])),
            "Marital": pd.Categorical(rng.choice(list("12345"), n)),
            "Income": np.round(rng.lognormal(10.5, 1.0, n), 2),
            "Expenditure": np.round(rng.lognormal(9.5, 0.8, n), 2),
        }
    )
    syns = []
    for _ in range(m):
        perm = rng.permutation(n)
        syns.append(
            orig.assign(
                Income=orig["Income"].to_numpy()[perm] * rng.lognormal(0, 0.05, n),
                Expenditure=orig["Expenditure"].to_numpy()[perm] * rng.lognormal(0, 0.05, n),
            )
        )
    call = dict(known=["Age", "Urban", "Marital"], syn=["Income", "Expenditure"], r=0.1,
                euclidean_dist=True)
    return orig, syns, call


def as_installed(root: Path) -> dict[str, str]:
    """The environment of a new process that runs idrisk from ``root`` as pip installed it.

    pip compiles the bytecode at install; a checkout run with ``PYTHONDONTWRITEBYTECODE`` set
    would compile every idrisk module again in every process (about 30 ms), so the bytecode is
    compiled here and the variable dropped. ``PYTHONPATH`` is ``root``.
    """
    compileall.compile_dir(str(root / "idrisk"), quiet=1)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(root)
    return env


def machine_load() -> str:
    """``uptime``'s load averages, recorded with every result (the machine is shared)."""
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):  # pragma: no cover
        return "unknown"


def run_measured(code: str, timeout: float = 1800) -> dict:
    """Run ``code`` in a fresh Python process and return its dict ``result``.

    ``code`` must leave a JSON-able dict named ``result``; the child's own peak resident memory
    (``ru_maxrss``, MB) is added as ``peak_rss_mb``.
    """
    import json

    tail = (
        "\nimport json as _j, resource as _r\n"
        "result['peak_rss_mb'] = _r.getrusage(_r.RUSAGE_SELF).ru_maxrss / 1024\n"
        "print(_j.dumps(result))\n"
    )
    out = subprocess.run([sys.executable, "-c", code + tail], capture_output=True, text=True,
                         timeout=timeout, check=False)
    if out.returncode:
        raise RuntimeError(f"benchmark child failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])
