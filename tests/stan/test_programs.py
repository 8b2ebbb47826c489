"""The shipped Stan programs as stanc sees them (issue 24, item 3).

* CmdStan's ``stanc`` (default mode, as ``cmdstanpy`` compiles) translates every program in
  ``stan/`` without a warning.
* httpstan (PyStan) runs stanc with ``--warn-pedantic``. Its only notes on the shipped programs
  are "parameter X has no priors ... or the prior(s) depend on data variables" (and "has 2
  priors" for a mixture's precision, whose normalising term stanc counts as a second prior):
  the priors exist, but their hyperparameters are data so that they can be set from Python
  (``FBS(coef_scale=..., eta_sigma=...)``, ``DPAreal(lkj_eta=...)``, the Dirichlet
  concentration alpha / K). The test checks that every parameter named in such a note does
  have a sampling statement or a ``target +=`` term in the model block, so a parameter that
  really has no prior fails it.
"""

from __future__ import annotations

import re
import subprocess

import pytest

from idrisk.stan.backend import cmdstan_path, program_path

PROGRAMS = ["dp_areal", "dp_areal_nc", "fbp", "fbs", "weighted_mixture_normal",
            "weighted_negbin", "weighted_normal_known_sd"]


def test_the_list_is_every_shipped_program():
    shipped = sorted(p.stem for p in program_path("fbs").parent.glob("*.stan"))
    assert shipped == PROGRAMS


@pytest.mark.stan
@pytest.mark.parametrize("name", PROGRAMS)
def test_cmdstan_stanc_translates_without_warnings(name, tmp_path):
    home = cmdstan_path()
    if home is None:
        pytest.skip("CmdStan not found (CMDSTAN, or ~/.cmdstan): ../shared/cmdstan/install.sh")
    done = subprocess.run([str(home / "bin" / "stanc"), str(program_path(name)),
                           f"--o={tmp_path / 'model.hpp'}"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "warning" not in (done.stdout + done.stderr).lower(), done.stdout + done.stderr


def _block(code: str, name: str) -> str:
    code = re.sub(r"//[^\n]*", "", code)
    start = code.find(f"\n{name} {{")
    if start < 0:
        return ""
    depth, i = 0, code.index("{", start)
    for j in range(i, len(code)):
        depth += {"{": 1, "}": -1}.get(code[j], 0)
        if depth == 0:
            return code[i:j + 1]
    raise AssertionError(f"unbalanced {name} block")


def _mentions(statement: str, names: set[str]) -> bool:
    return any(re.search(rf"\b{re.escape(n)}\b", statement) for n in names)


def _has_prior_term(param: str, code: str) -> bool:
    """``param``, or a transformed parameter computed from it, is in a ``~`` statement or a
    ``target +=`` term of the model block."""
    names = {param}
    derived = _block(code, "transformed parameters")
    for _ in range(5):  # the closure of "computed from" over the transformed parameters
        for statement in derived.split(";"):
            m = re.search(r"(\w+)(\[[^]]*\])?\s*=[^=]", statement)
            if m and _mentions(statement[m.end() - 1:], names):
                names.add(m.group(1))
    return any(_mentions(s, names) and ("~" in s or "target +=" in s)
               for s in _block(code, "model").split(";"))


@pytest.mark.stan
@pytest.mark.parametrize("name", PROGRAMS)
def test_pedantic_notes_are_only_priors_with_data_valued_hyperparameters(name):
    compile_ = pytest.importorskip("httpstan.compile").compile
    code = program_path(name).read_text()
    _cpp, notes = compile_(code, f"model_{name}")
    notes = " ".join(notes.split())
    found = re.findall(r"Warning: (.*?)(?=Warning: |$)", notes)
    for note in found:
        m = re.match(r"The parameter (\w+) has (no priors\. This means either no prior is "
                     r"provided, or the prior\(s\) depend on data variables|2 priors)", note)
        assert m, f"{name}.stan: a pedantic note of another kind: {note}"
        assert _has_prior_term(m.group(1), code), (
            f"{name}.stan: parameter {m.group(1)} has no prior term in the model block")
