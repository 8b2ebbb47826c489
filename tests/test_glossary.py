"""One name, one meaning: the public API is held to the glossary (docs/guide/glossary.md).

* every parameter of every public signature -- the functions and classes in ``idrisk.__all__``
  and in the ``__all__`` of each public module below ``idrisk`` (the scope of the reference
  pages, ``tests/test_docs.py``), public methods and constructors included -- is a name of
  the glossary's Python table;
* no name appears twice in the glossary (a name with two meanings);
* the R-shaped signatures (:mod:`idrisk.r`, :mod:`idrisk.rcompat`, any ``*_r`` wrapper) use
  R's and synthpop's names instead: those of the glossary's table of R names;
* no public signature outside the R-shaped modules has a ``**kwargs`` catch-all (selectors
  such as ``SurveyTable.cell(**labels)`` are listed below);
* the risk options travel as explicit keywords or as ``options=RiskOptions(...)``, with one
  default for ``r``, and a misspelt option is reported under the public function's name
  with the right name suggested.

The constructors of result classes (dataclass fields) and of warnings and errors are not
parameters a user passes and are not checked.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re
from collections import defaultdict
from collections.abc import Iterator

import pandas as pd
import pytest
from _shared import REPO_ROOT, public_modules

GLOSSARY = REPO_ROOT / "docs" / "guide" / "glossary.md"

#: modules whose signatures are R's (checked against the glossary's table of R names)
R_SHAPED = ("idrisk.r", "idrisk.rcompat")

#: ``**name`` parameters that select or name things rather than catch options
SELECTORS = {
    "SurveyTable.cell": "labels",          # cell(Sex="F", Region="North")
    "RiskOptions.replace": "changes",      # dataclasses.replace, names checked
    "InherentBounds.table": "synthesizers",  # table(DPMPM=frame, ...): column name -> frame
}


# ------------------------------------------------------------------ the glossary
ROW = re.compile(r"^\|\s*(`[^|]+`)\s*\|\s*(.+?)\s*\|\s*$")


def parse_glossary(text: str) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """``({name: [meanings]}, {r_name_spelling: [meanings]})`` from the page's tables.

    A table row ``| `a`, `b` | meaning |`` defines each of its names once. Rows under a
    heading that starts with "R's names" form the second dict (the Python spellings of R's
    arguments, e.g. ``syn.vars`` -> ``syn_vars``).
    """
    python: dict[str, list[str]] = defaultdict(list)
    r_names: dict[str, list[str]] = defaultdict(list)
    target = python
    for line in text.splitlines():
        if line.startswith("#"):
            target = r_names if line.lstrip("#").strip().startswith("R's names") else python
            continue
        match = ROW.match(line)
        if not match or set(match.group(2)) <= set("-: "):
            continue
        for name in re.findall(r"`([^`]+)`", match.group(1)):
            target[name].append(match.group(2))
    return dict(python), dict(r_names)


@pytest.fixture(scope="module")
def glossary() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    return parse_glossary(GLOSSARY.read_text(encoding="utf-8"))


# ------------------------------------------------------------------ the public signatures
def _generated_init(cls: type) -> bool:
    """A dataclass's own ``__init__`` (its fields), not a signature a user learns."""
    init = inspect.unwrap(vars(cls).get("__init__", object.__init__))
    code = getattr(init, "__code__", None)
    return dataclasses.is_dataclass(cls) and (code is None or code.co_filename == "<string>")


#: dataclasses whose constructor is a public signature (options a user passes)
CONSTRUCTORS = {"RiskOptions", "Scenario"}


def _callables(name: str, obj: object) -> Iterator[tuple[str, object]]:
    if inspect.isclass(obj):
        if name in CONSTRUCTORS or not (_generated_init(obj) or issubclass(obj, BaseException)):
            yield f"{name}.__init__", obj.__init__
        for key, value in vars(obj).items():
            if key.startswith("_"):
                continue
            if isinstance(value, (staticmethod, classmethod)):
                value = value.__func__
            if inspect.isfunction(value):
                yield f"{name}.{key}", value
    elif callable(obj) and not isinstance(obj, type):
        yield name, obj


def public_signatures() -> Iterator[tuple[str, str, inspect.Signature]]:
    """``(module, qualified name, signature)`` of every public function, method and
    constructor (each object once, under the first module exporting it)."""
    seen: set[int] = set()
    for module_name in public_modules():
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.ismodule(obj) and hasattr(obj, name):
                obj = getattr(obj, name)
            for qualname, func in _callables(name, obj):
                if id(func) in seen:
                    continue
                seen.add(id(func))
                try:
                    signature = inspect.signature(func)
                except (TypeError, ValueError):  # a builtin without a signature
                    continue
                yield module_name, qualname, signature


def is_r_shaped(module: str, qualname: str) -> bool:
    function = qualname.split(".")[0]
    return module in R_SHAPED or function.endswith("_r")


def parameters(r_shaped: bool) -> dict[str, set[str]]:
    """``{parameter name: {"module:function", ...}}`` of the (R-shaped or other) signatures."""
    out: dict[str, set[str]] = defaultdict(set)
    for module, qualname, signature in public_signatures():
        if is_r_shaped(module, qualname) != r_shaped:
            continue
        for p in signature.parameters.values():
            if p.name in ("self", "cls"):
                continue
            if p.kind is p.VAR_KEYWORD and not r_shaped:
                continue  # the catch-all test's business
            out[p.name].add(f"{module}:{qualname}")
    return dict(out)


# ------------------------------------------------------------------ the tests
def test_the_glossary_gives_each_name_one_meaning(glossary):
    python, r_names = glossary
    assert len(python) > 100, "the glossary's Python table was not found"
    twice = {name: meanings for name, meanings in python.items() if len(meanings) > 1}
    assert not twice, f"names given more than one meaning in {GLOSSARY.name}: {twice}"
    twice_r = {name: meanings for name, meanings in r_names.items() if len(meanings) > 1}
    assert not twice_r, f"R names listed twice in {GLOSSARY.name}: {twice_r}"


def test_every_public_parameter_is_in_the_glossary(glossary):
    python, _ = glossary
    used = parameters(r_shaped=False)
    missing = {name: sorted(where)[:3] for name, where in used.items()
               if name not in python}
    assert not missing, (
        f"parameters not in {GLOSSARY.relative_to(REPO_ROOT)} (add each with its one meaning, "
        f"or use the glossary's name for that role): {missing}"
    )


def test_r_shaped_signatures_use_r_names(glossary):
    _, r_names = glossary
    used = parameters(r_shaped=True)
    assert used, "no R-shaped signature found"
    missing = {name: sorted(where)[:3] for name, where in used.items() if name not in r_names}
    assert not missing, f"R-shaped parameters not among the glossary's R names: {missing}"


def test_no_public_signature_has_a_kwargs_catch_all():
    found = []
    for module, qualname, signature in public_signatures():
        if is_r_shaped(module, qualname):
            continue
        for p in signature.parameters.values():
            if p.kind is p.VAR_KEYWORD and SELECTORS.get(qualname) != p.name:
                found.append(f"{module}:{qualname}(**{p.name})")
    assert not found, f"**kwargs catch-alls in public signatures: {found}"


def test_the_glossary_is_in_the_guide():
    index = (REPO_ROOT / "docs" / "guide" / "index.md").read_text(encoding="utf-8")
    assert re.search(r"^(glossary|\*)$", index, re.M), "glossary not in the guide's toctree"


# ------------------------------------------------------------------ the risk options
def _options_takers():
    from idrisk.analysis import m_experiment, radius_sweep, risk_utility
    from idrisk.reporting import compute_report, report

    return [report, compute_report, radius_sweep, risk_utility, m_experiment]


def test_risk_options_are_explicit_keywords_everywhere():
    from idrisk.risk.options import MATCHING, RiskOptions

    fields = {f.name for f in dataclasses.fields(RiskOptions)}
    assert set(MATCHING) == fields - {"known", "syn", "r", "rules"}
    for func in _options_takers():
        params = inspect.signature(func).parameters
        missing = [name for name in (*MATCHING, "options") if name not in params]
        assert not missing, f"{func.__name__} lacks {missing}"
        for name in MATCHING:
            assert params[name].kind is params[name].KEYWORD_ONLY, (func.__name__, name)
            default, field = params[name].default, RiskOptions.__dataclass_fields__[name].default
            same = default == field or (field == () and default is None)
            assert same, f"{func.__name__}({name}={default!r}): RiskOptions says {field!r}"


def test_one_default_radius():
    """R's ``r = NULL``: every variable matched exactly unless a radius is given."""
    import idrisk
    from idrisk.analysis import risk_utility

    takers = (idrisk.identification_risk, idrisk.report, idrisk.reporting.compute_report)
    defaults = {f.__name__: inspect.signature(f).parameters["r"].default for f in takers}
    defaults["RiskOptions"] = idrisk.RiskOptions.__dataclass_fields__["r"].default
    assert set(defaults.values()) == {None}, defaults
    assert inspect.signature(risk_utility).parameters["r"].default is inspect.Parameter.empty


@pytest.mark.parametrize("call", [
    "report(d, [d], ['a'], ['b'], out_dir=str(tmp), percentge=False)",
    "compute_report(d, [d], ['a'], ['b'], percentge=False)",
    "radius_sweep(d, [d], ['a'], ['b'], percentge=False)",
    "risk_utility(d, {1: Scenario(['b'], [d])}, ['a'], 0.1, percentge=False)",
    "m_experiment(d, ['b'], ['a'], 0.1, percentge=False)",
    "RiskOptions(known='a', percentge=False)",
])
def test_a_misspelt_option_names_the_function_and_the_right_name(call, tmp_path):
    from idrisk import RiskOptions  # noqa: F401
    from idrisk.analysis import Scenario, m_experiment, radius_sweep, risk_utility  # noqa: F401
    from idrisk.reporting import compute_report, report  # noqa: F401

    d = pd.DataFrame({"a": [1, 2], "b": [1.0, 2.0]})  # noqa: F841
    tmp = tmp_path / "never-written"  # noqa: F841
    function = call.split("(")[0]
    with pytest.raises(TypeError) as err:
        eval(call)
    assert str(err.value) == (f"{function}() got an unexpected keyword argument 'percentge'; "
                              "did you mean 'percentage'?")
    assert not (tmp_path / "never-written").exists()


def test_options_object_or_keywords_not_both():
    from idrisk import RiskOptions
    from idrisk.analysis import radius_sweep

    d = pd.DataFrame({"a": ["x", "y", "x"], "b": [1.0, -2.0, 3.0]})
    s = d.assign(b=[1.05, -2.1, 2.0])
    kw = radius_sweep(d, [s], ["a"], ["b"], radii=[0.1], abs_radius=True, closed=True)
    obj = radius_sweep(d, [s], ["a"], ["b"], radii=[0.1],
                       options=RiskOptions(known="a", abs_radius=True, closed=True))
    pd.testing.assert_frame_equal(kw, obj)
    plain = radius_sweep(d, [s], ["a"], ["b"], radii=[0.1])
    assert not plain.equals(kw)  # the options did reach identification_risk
    with pytest.raises(TypeError, match="closed given both as a keyword and in options="):
        radius_sweep(d, [s], ["a"], ["b"], radii=[0.1], closed=True,
                     options=RiskOptions(known="a", abs_radius=True))
    with pytest.raises(TypeError, match="options must be a RiskOptions"):
        radius_sweep(d, [s], ["a"], ["b"], radii=[0.1], options={"closed": True})
