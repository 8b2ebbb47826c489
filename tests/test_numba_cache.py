"""Compiled kernels: cached in idrisk's cache directory, loaded from it by the next process,
and silent.

Two new processes run the same work touching every kernel (CART synthesis, the counting
engine's grid and candidate kernels, the DPMPM class step, the DP-areal target) with one
empty ``IDRISK_CACHE_DIR``: the first compiles and writes the cache there (and nowhere else:
not in the working directory, not next to the sources), the second loads every kernel it
calls from the cache (no cache miss), and neither prints a numba warning. The second loads
them without numba's target-context refresh (``idrisk._numba._KernelCache``: the ~0.25 s of
lowering-rule imports a new process otherwise waits for) and computes exactly what the first
computed; its synthesis and risk calls import neither tqdm (no bar is shown), nor numba's
lowering rules and ``scipy.linalg``, nor the disclosure measures.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

WORK = r"""
import hashlib, json, sys, warnings
import numpy as np
import pandas as pd
from numba.core.registry import cpu_target
refreshes = []
_refresh = cpu_target.target_context.refresh
def counted_refresh():
    refreshes.append(1)
    _refresh()
cpu_target.target_context.refresh = counted_refresh
from idrisk import identification_risk, syn
from idrisk.datasets import load_demo

digest = hashlib.sha256()
conf = load_demo().iloc[:400].reset_index(drop=True)
digest.update(pd.util.hash_pandas_object(syn(conf, m=1, seed=1).frames[0]).to_numpy())
syns = [conf.assign(Income=conf["Income"].to_numpy()[::-1].copy())]
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)
    for res in (identification_risk(conf, syns, known=["Age", "Urban"], syn=["Income"], r=0.1),
                identification_risk(conf, syns, known=["Age", "Urban"],
                                    syn=["Income", "Expenditure"], r=0.2, ellipsoid=True)):
        digest.update(np.ascontiguousarray(res.c).tobytes())
# what the quick start's kind of work must not import (the start-up a user waits for)
early = [m for m in ("tqdm", "scipy.linalg", "numba.np.arraymath",
                     "idrisk.risk.disclosure_measures") if m in sys.modules]
from idrisk.categorical import DPMPM
cats = conf[["Urban", "Marital", "Tenure"]].astype(str).astype("category")
fit = DPMPM(syn="Tenure", K=4, n_iter=5, burn=2, keep=1, seed=1, progress=False).fit(cats)
digest.update(fit.trace_.to_numpy(dtype=float).tobytes())
from idrisk.categorical.dp_areal import _sigma_logp
digest.update(np.float64(_sigma_logp(np.zeros(3), np.zeros((2, 2)), 2, 4.0)).tobytes())

from numba.core.registry import CPUDispatcher
stats = {}
for name, mod in list(sys.modules.items()):
    if not name.startswith("idrisk"):
        continue
    for attr, obj in vars(mod).items():
        if isinstance(obj, CPUDispatcher) and obj.signatures:
            key = f"{name}.{attr}"
            stats[key] = [sum(obj.stats.cache_hits.values()),
                          sum(obj.stats.cache_misses.values()), obj._cache.cache_path]
print(json.dumps({"kernels": stats, "refreshes": len(refreshes), "early": early,
                  "digest": digest.hexdigest()}))
"""


def _run(tmp_path: Path, cache: Path) -> tuple[dict, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR",)}
    env.update(IDRISK_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT), MPLBACKEND="Agg",
               PYTHONWARNINGS="default")
    out = subprocess.run([sys.executable, "-c", WORK], cwd=tmp_path, env=env, text=True,
                         capture_output=True, timeout=900)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1]), out.stderr


@pytest.mark.slow
def test_kernels_cache_outside_the_package_and_stay_silent(tmp_path):
    cache = tmp_path / "cache"
    work = tmp_path / "cwd"
    work.mkdir()
    before = {p for p in (ROOT / "idrisk").rglob("*") if p.suffix in (".nbi", ".nbc")}
    first_run, err1 = _run(work, cache)
    second_run, err2 = _run(work, cache)
    first, second = first_run["kernels"], second_run["kernels"]
    assert first_run["refreshes"] >= 1  # compiling refreshes numba's context
    assert second_run["refreshes"] == 0  # loading does not
    assert second_run["digest"] == first_run["digest"]
    assert second_run["early"] == []  # no progress bar shown, nothing compiled, no disclosure
    for err in (err1, err2):
        assert "numba" not in err.lower(), err
    assert list(work.iterdir()) == []
    after = {p for p in (ROOT / "idrisk").rglob("*") if p.suffix in (".nbi", ".nbc")}
    assert after == before
    assert any((cache / "numba").rglob("*.nbi"))
    entry_points = {"idrisk.risk._fewkernels.count_few_sweep",
                    "idrisk.risk._kernels.count_candidates",
                    "idrisk.synthesis._rpart_grow.grow",
                    "idrisk.synthesis._kernels.route",
                    "idrisk.synthesis._kernels.unif_index_groups",
                    "idrisk.categorical._kernels._z_step",
                    "idrisk.categorical.dp_areal._sigma_logp"}
    assert entry_points <= set(second), entry_points - set(second)
    for name, (hits, misses, path) in second.items():
        assert misses == 0 and hits >= 1, f"{name} was compiled again (not cached)"
        assert Path(path).is_relative_to(cache / "numba"), (name, path)
    assert all(first[name][1] >= 1 for name in entry_points)  # the first run compiled them


def _triple(x):
    return 3 * x


def test_a_failed_fast_load_falls_back_to_numbas_own_path(monkeypatch):
    """Should the refresh-free load fail in any way, the kernel loads (or compiles) as numba
    does it, and computes the same."""
    import idrisk._numba as nb

    tried = []
    load = nb._KernelCache._load_overload

    def fails_once(self, sig, target_context):
        if not tried:
            tried.append(sig)
            raise RuntimeError("simulated failure of the fast load")
        return load(self, sig, target_context)

    monkeypatch.setattr(nb._KernelCache, "_load_overload", fails_once)
    kernel = nb.jit(_triple)
    assert isinstance(kernel._cache, nb._KernelCache)
    assert kernel(14) == 42
    assert tried  # the fast path was tried first
