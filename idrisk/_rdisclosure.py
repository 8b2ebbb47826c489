"""synthpop 1.9-3's ``disclosure``, ``multi.disclosure`` and ``replicated.uniques`` with R's
names and result shapes (R-shaped lists that print as synthpop prints them); re-exported by
:mod:`idrisk.r`. The tables come from :mod:`idrisk.risk._synthpop_tables`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import pandas as pd

from ._rround import r_round_one
from ._rtext import _format_real, _print_list, _rounded, _write, r_print_frame
from ._synthetic import synthetic_frames
from .risk._rfactor import is_r_numeric
from .risk._synthpop_tables import _quirk, disclosure_tables, multi_disclosure_tables
from .risk._synthpop_uniques import replicated_uniques_tables

_CHECK1_TEXT = (
    "Please add 'check_1way' to to.print (e.g. print(disclosure_result, to.print = "
    "'check_1way'),\nand look at original data to decide if backround knowledge would make "
    "this disclosure likely\nConsider excluding this level with the not.targetlev parameter "
    "to the disclosure function.\n\n"
)
_CHECK2_TEXT = (
    "\nPlease examine component $check_2way of the disclosure object and look at original "
    "data.\nConsider excluding these key-target pairs with some the following parameters to "
    "disclosure:\nexclude_ov_denom_lim = TRUE or defining key-target combinations from "
    "exclude.targetlevs,\nexclude.keys and exclude.keylevs\n\n"
)
TO_PRINT = ("short", "ident", "attrib", "allCAPs", "check_1way", "check_2way", "exclusions",
            "all")


def _na_rows_as_r(check: object) -> object:
    """A check_2way frame as R prints it: its rows of NAs (R's row names ``NA``, ``NA.1``,
    ...; see the quirk *'|' in level labels*) show ``<NA>`` in the text columns and ``NA``
    (not NaN) in the numeric ones."""
    if not isinstance(check, pd.DataFrame):
        return check
    na = [bool(re.fullmatch(r"NA(\.\d+)?", str(r))) for r in check.index]
    na = [a and b for a, b in zip(na, check.isna().all(axis=1), strict=True)]
    if not any(na):
        return check
    out = check.astype(object)
    for c in out.columns:
        text = "<NA>" if not pd.api.types.is_numeric_dtype(check[c].dtype) else None
        out[c] = pd.Series([text if a else v for a, v in zip(na, out[c], strict=True)],
                           index=out.index, dtype=object)
    return out


def format_disclosure(x: dict, to_print: Sequence[str] | str | None = None,
                      digits: int | None = None) -> str:
    """The text of synthpop's ``print.disclosure`` (the ``"all"`` option leaves out R's line
    showing the call, which has no Python form)."""
    tp = list([to_print] if isinstance(to_print, str) else (to_print or [x["to.print"]]))
    bad = [t for t in tp if t not in TO_PRINT]
    if bad:
        raise ValueError(f"to_print: {bad} not among {list(TO_PRINT)}")
    if "short" in tp and len(tp) > 1:
        raise ValueError("to_print: 'short' must be used alone")
    if "all" in tp:
        tp = tp + ["ident", "attrib", "allCAPs"]
    dg = x["digits"] if digits is None else digits
    keys = " ".join(x["keys"])
    target = x["target"]

    def table(frame: object) -> str:  # print() of a table: its lines, each ended
        lines = _print_list(frame) if isinstance(frame, list) else r_print_frame(frame)
        return "".join(line + "\n" for line in lines)

    # what R writes with cat() and print(), as one stream: cat's texts open with "\n"
    out = [f"Disclosure measures from synthesis for {x['Norig']} records in original data.\n"]
    if any(float(n.iloc[:, :5].to_numpy().sum()) > 0 for n in x["Nexclusions"]):
        out.append("\nSome records excluded from the evaluation of disclosure risks\nSee "
                   "details by adding 'exclusions' to the parameter to.print of disclosure,\n"
                   "    or by printing the details with to,print including 'exclusions'.")
    m = len(x["ident"])
    if "short" in tp:
        short = pd.DataFrame(
            {
                "Identity (UiO/repU)": [x["ident"]["UiO"].iloc[0], *x["ident"]["repU"]],
                "Attrib (Dorig/DiSCO)": [x["attrib"]["Dorig"].iloc[0], *x["attrib"]["DiSCO"]],
            },
            index=["Original"] + [f"Synthesis {j + 1}" for j in range(m)],
        )
        out += [f"\nIdentity  measures for keys {keys} \nand attribute measures for {target} "
                "from the same keys\n", table(_rounded(short, dg))]
    if "ident" in tp:
        out += [f"\nIdentity disclosure measures for {m} synthetic data set(s) from keys:\n "
                f"{keys} \n\n", table(_rounded(x["ident"], dg))]
    if "attrib" in tp:
        out += [f"\nAttribute disclosure measures for {target} from keys: {keys} \n",
                table(_rounded(x["attrib"], dg))]
    if "allCAPs" in tp:
        out += [f"\nCAP measures for the target {target} with keys\n{keys} \n\n",
                table(_rounded(x["allCAPs"], dg))]
    if x["check1"] and "check_1way" not in tp:
        out += [f"\nThe 1 way distributions of {target} has a large contribution to disclosure "
                f"from level {x['check1']} \n", _CHECK1_TEXT]
    if "check_1way" in tp:  # never NULL: a list of "" when nothing is flagged
        out += ["\nDetails of target level contributing disproportionately to disclosure\n",
                table(x["check_1way"])]
    if x["check2"] and "check_2way" not in tp:
        out += [f"\nDetails of target-key pairs contributing disproportionately to disclosure "
                f"of {target} \n{x['check2']} \n", _CHECK2_TEXT]
    if "check_2way" in tp:
        c2 = x["check_2way"]
        dims = f" {c2.shape[0]} {c2.shape[1]}" if isinstance(c2, pd.DataFrame) else ""
        out += ["\nDetails of target-key combinations contributing disproportionately to "
                f"disclosure\nThis is a list with one for each of{dims} syntheses\n",
                table([_na_rows_as_r(c) for c in c2] if isinstance(c2, list)
                      else _na_rows_as_r(c2))]
    if "exclusions" in tp:
        for j, n in enumerate(x["Nexclusions"]):
            if float(n.to_numpy().sum()) > 0:
                out += [f"\nRecords excluded from attribute exclusion measures for synthesis "
                        f"{j + 1} \n", table(n)]
            else:
                out.append(f"\nNo records excluded from attribute exclusion measures for "
                           f"synthesis {j + 1} \n")
    text = "".join(out)
    return text[:-1] if text.endswith("\n") else text


# ====================================================================== R-shaped results
class DisclosureList(dict):
    """synthpop's ``disclosure`` object: a dict with R's component names; printing follows
    ``print.disclosure`` (:meth:`print` takes ``to_print`` and ``digits``)."""

    def __repr__(self) -> str:
        return format_disclosure(self)

    def print(self, to_print: Sequence[str] | str | None = None,
              digits: int | None = None) -> None:
        """Print like R's ``print(x, to.print = , digits = )``."""
        print(format_disclosure(self, to_print, digits))


class MultiDisclosureList(dict):
    """synthpop's ``multi.disclosure`` object (a dict with R's component names)."""

    def __repr__(self) -> str:
        x = self
        dg = x["digits"]
        table = x["attrib.table"].copy()
        for c in ("attrib.orig", "attrib.syn"):  # NaN here is R's NA (a mean of nothing)
            table[c] = pd.Series([None if math.isnan(v) else r_round_one(v, dg)
                                  for v in table[c]], index=table.index, dtype=object)
        lines = [
            f"Disclosure risk for {x['Norig']} records in the original data",
            f"Results are averaged over {x['m']} syntheses" if x["m"] > 1 else "",
            "Identity disclosure measures",
            f"from keys: {' '.join(x['keys'])} ",
            f"For original  ( UiO )  {_cat_number(r_round_one(x['ident.orig'][0], dg))} %",
            f"For synthetic ( {x['ident.meas']} ) "
            f"{_cat_number(r_round_one(x['ident.syn'][0], dg))} %.",
            "",
            f"Table of attribute disclosure measures for {' '.join(x['keys'])} ",
            f"Original measure is  {'CAPd' if x['attrib.meas'] == 'DCAP' else 'Dorig'} and "
            f"synthetic measure is {x['attrib.meas']} ",
            "Variables Ordered by synthetic disclosure measure",
            "",
        ]
        return "\n".join(lines + r_print_frame(table))


class RepUniqList(dict):
    """synthpop's ``replicated.uniques`` object (a dict with R's component names)."""

    def __repr__(self) -> str:
        x = self
        lines = [f"Uniques and replicated uniques for  {x['m']}  synthesised data set(s)", "",
                 f" from keys:  {' '.join(x['keys'])} ", ""]
        if x["m"] == 1:
            lines += r_print_frame(x["res_tab"])
        else:
            lines += _print_list(x["res_tab"])
        lines += ["To view possible exclusions from synthesised data set(s) check components",
                  "  synU.rm (suggested for low-fidelity synthesis) or  repU.rm (for high "
                  "fidelity)"]
        return "\n".join(lines)


def _cat_number(v: float) -> str:
    """A number as R's ``cat()`` writes it (7 significant digits; NA for a missing one)."""
    if math.isnan(v):
        return "NA"
    _, decimals, scientific = _format_real([v], 7)
    return _write(v, decimals, scientific)


def _synorig_changes(syn: pd.DataFrame, data: pd.DataFrame) -> list[str]:
    """What synthpop's ``synorig.compare`` would change (empty: nothing)."""
    changes = []
    extra = [c for c in syn.columns if c not in data.columns]
    if extra:
        changes.append(f"synthetic columns {extra} are not in data")
    for c in [c for c in syn.columns if c in data.columns]:
        a, b = syn[c], data[c]
        for where, s in (("synthetic", a), ("original", b)):
            if not (is_r_numeric(s) or isinstance(s.dtype, pd.CategoricalDtype)):
                changes.append(f"{c!r} is turned from character into a factor in the {where}")
        if is_r_numeric(a) != is_r_numeric(b):
            changes.append(f"{c!r} is numeric in one data set and not in the other")
        elif isinstance(a.dtype, pd.CategoricalDtype) and isinstance(b.dtype, pd.CategoricalDtype):
            if list(a.cat.categories) != list(b.cat.categories):
                changes.append(f"levels of {c!r} differ between synthetic and original")
    return changes


def _data_frame_method(object: object, data: pd.DataFrame, compare_synorig: bool,
                       print_out: bool = True) -> list[pd.DataFrame]:
    """The synthetic frames after the data.frame/list method's ``synorig.compare`` step."""
    frames = synthetic_frames(object, "object")
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    if not compare_synorig:
        return frames
    changes = _synorig_changes(frames[0], data)
    if not changes:
        if print_out:
            print("Synthetic and original data checked with synorig.compare,\n"
                  " looks like no adjustment needed\n")
        return frames
    fixable = all("from character into a factor" in c for c in changes)
    if not fixable:
        raise ValueError(
            "synorig.compare would adjust the data sets (" + "; ".join(changes) + "); make "
            "the synthetic and original columns agree (same columns, dtypes and categories) "
            "or pass compare_synorig=False"
        )
    if len(frames) > 1:
        _quirk("compare.synorig keeps one synthesis", "synorig.compare converted character "
               f"columns ({'; '.join(changes)}) and only the first of the {len(frames)} "
               "synthetic data sets is used")
    return frames[:1]


def _synds_cont_na(object: object, cont_na: dict | None) -> dict | None:
    if cont_na is not None:
        return cont_na
    settings = getattr(object, "settings", None) or {}
    return settings.get("cont.na") or settings.get("cont_na")


def _dispatch(object: object, data: pd.DataFrame, cont_na: dict | None,
              compare_synorig: bool) -> tuple[list[pd.DataFrame], dict | None]:
    """synthpop's S3 dispatch: a DataFrame is the data.frame method, anything else synds."""
    if isinstance(object, pd.DataFrame):
        return _data_frame_method(object, data, compare_synorig), cont_na
    return synthetic_frames(object, "object"), _synds_cont_na(object, cont_na)


def _print_progress(res: dict, target: str) -> None:
    for j, p in enumerate(res["_tables"]):
        (r0, c0), (r1, c1) = p["dims"]
        print(f"-------------------Synthesis {j + 1} --------------------")
        print(f"Table for target {target} from GT alone with keys has {r0} rows {c0} colums.")
        print(f"Table for target  {target} from GT & SD with all key combinations has {r1} "
              f"rows {c1} colums.")


def disclosure(
    object: pd.DataFrame | Sequence[pd.DataFrame],
    data: pd.DataFrame,
    keys: str | int | Sequence[str | int],
    target: str | int,
    *,
    cont_na: dict[str, Sequence[float]] | None = None,
    print_flag: bool = True,
    denom_lim: int = 5,
    exclude_ov_denom_lim: bool = False,
    not_targetlev: str | Sequence[str] | None = None,
    usetargetNA: bool = True,
    usekeysNA: bool | Sequence[bool] = True,
    exclude_keys: str | Sequence[str] | None = None,
    exclude_keylevs: str | Sequence[str] | None = None,
    exclude_targetlevs: str | Sequence[str] | None = None,
    ngroups_target: int | None = None,
    ngroups_keys: int | Sequence[int] | None = None,
    thresh_1way: Sequence[float] = (50, 90),
    thresh_2way: Sequence[float] = (4, 80),
    digits: int = 2,
    to_print: str | Sequence[str] = "short",
    compare_synorig: bool = True,
) -> DisclosureList:
    """synthpop 1.9-3's ``disclosure()``: R's arguments (``.`` written ``_``) and defaults.

    ``object`` is one synthetic DataFrame (synthpop's ``data.frame`` method, m = 1, with
    ``compare_synorig``) or a list of them / a :class:`~idrisk.SyntheticData` (the ``synds``
    method with m = its length; ``cont_na`` then plays ``object$cont.na``). The result is a
    dict with synthpop's components (``ident``, ``attrib``, ``allCAPs``, ``check_1way``,
    ``check1``, ``check_2way``, ``check2``, ``Nexclusions``, ``keys``, ``target``, ``Norig``,
    ``digits``, ``to.print``) equal to synthpop's when R runs with ``LC_COLLATE=C`` (level
    names are sorted by code point). Its ``repr`` is ``print.disclosure``'s text.

    Where synthpop's numbers come from a quirk of its code, they are reproduced and a
    :class:`SynthpopQuirkWarning` names the quirk (see :func:`disclosure_tables`).

    Examples
    --------
    >>> import pandas as pd
    >>> from idrisk.r import disclosure
    >>> ods = pd.DataFrame({"sex": pd.Categorical(["F", "F", "M", "M"]),
    ...                     "smoke": pd.Categorical(["no", "yes", "no", "no"])})
    >>> syn = ods.assign(smoke=pd.Categorical(["no", "no", "no", "no"]))
    >>> d = disclosure([syn], ods, keys="sex", target="smoke", print_flag=False)
    >>> d["attrib"][["Dorig", "DiSCO"]]
       Dorig  DiSCO
    1   50.0   75.0
    >>> print(repr(d).splitlines()[0])
    Disclosure measures from synthesis for 4 records in original data.
    """
    frames, cont_na = _dispatch(object, data, cont_na, compare_synorig)
    if isinstance(to_print, str):
        to_print = [to_print]
    bad = [t for t in to_print if t not in TO_PRINT]
    if bad:
        raise ValueError(f"to_print: {bad} not among {list(TO_PRINT)}")
    res = disclosure_tables(
        frames, data, keys, target, cont_na=cont_na, denom_lim=denom_lim,
        exclude_ov_denom_lim=exclude_ov_denom_lim, not_targetlev=not_targetlev,
        usetargetNA=usetargetNA, usekeysNA=usekeysNA, exclude_keys=exclude_keys,
        exclude_keylevs=exclude_keylevs, exclude_targetlevs=exclude_targetlevs,
        ngroups_target=ngroups_target, ngroups_keys=ngroups_keys, thresh_1way=thresh_1way,
        thresh_2way=thresh_2way,
    )
    if print_flag:
        _print_progress(res, res["target"])
    res.pop("_tables")
    out = DisclosureList(res)
    out["digits"] = digits
    out["to.print"] = to_print[0] if len(to_print) == 1 else list(to_print)
    return out


def multi_disclosure(
    object: pd.DataFrame | Sequence[pd.DataFrame],
    data: pd.DataFrame,
    keys: str | int | Sequence[str | int],
    targets: str | Sequence[str] | None = None,
    *,
    cont_na: dict[str, Sequence[float]] | None = None,
    print_flag: bool = True,
    denom_lim: int = 5,
    exclude_ov_denom_lim: bool = False,
    not_targetslev: str | Sequence[str] | None = None,
    usetargetsNA: bool | Sequence[bool] = True,
    usekeysNA: bool | Sequence[bool] = True,
    exclude_keys: Sequence | None = None,
    exclude_keylevs: Sequence | None = None,
    exclude_targetlevs: Sequence | None = None,
    ngroups_targets: int | Sequence[int | None] | None = None,
    ngroups_keys: int | Sequence[int] | None = None,
    ident_meas: str = "repU",
    attrib_meas: str = "DiSCO",
    thresh_1way: Sequence[float] = (50, 90),
    thresh_2way: Sequence[float] = (4, 80),
    digits: int = 2,
    plot: bool = True,
    compare_synorig: bool = True,
) -> MultiDisclosureList:
    """synthpop 1.9-3's ``multi.disclosure()``: :func:`disclosure` for several targets and
    the summary table ``attrib.table`` (R's arguments, ``.`` written ``_``).

    ``object`` as in :func:`disclosure`. synthpop's data.frame/list method treats a list of
    frames as one data set; here a list is the synds method with m = its length. ``plot``
    is accepted for R's signature; draw the plot with
    :meth:`idrisk.risk.DisclosureSummary.plot`. The components ``output.list``
    (disclosure results by target) hold :class:`DisclosureList` objects. Quirks reproduced:
    ``ident.syn`` is synthesis 1's value; ``exclude_keylevs`` is never used (synthpop
    passes ``exclude_targetlevs`` in its place); the keys are put in data order while
    ``usekeysNA`` and ``ngroups_keys`` stay in the order given.

    Examples
    --------
    >>> import pandas as pd
    >>> from idrisk.r import multi_disclosure
    >>> ods = pd.DataFrame({"sex": pd.Categorical(["F", "F", "M", "M"]),
    ...                     "smoke": pd.Categorical(["no", "yes", "no", "no"]),
    ...                     "sport": pd.Categorical(["y", "n", "n", "y"])})
    >>> md = multi_disclosure([ods], ods, keys="sex", print_flag=False)
    >>> md["attrib.table"][["attrib.orig", "attrib.syn"]]
             attrib.orig  attrib.syn
    1 sport          0.0         0.0
    2 smoke         50.0        50.0
    """
    frames, cont_na = _dispatch(object, data, cont_na, compare_synorig)
    res = multi_disclosure_tables(
        frames, data, keys, targets, cont_na=cont_na, denom_lim=denom_lim,
        exclude_ov_denom_lim=exclude_ov_denom_lim, not_targetslev=not_targetslev,
        usetargetsNA=usetargetsNA, usekeysNA=usekeysNA, exclude_keys=exclude_keys,
        exclude_keylevs=exclude_keylevs, exclude_targetlevs=exclude_targetlevs,
        ngroups_targets=ngroups_targets, ngroups_keys=ngroups_keys, ident_meas=ident_meas,
        attrib_meas=attrib_meas, thresh_1way=thresh_1way, thresh_2way=thresh_2way,
    )
    outputs = {}
    for i, (t, r) in enumerate(res["output.list"].items(), start=1):
        if print_flag:
            print(f"------------------ {i} {t} ------------------- ")
            _print_progress(r, t)
        r = DisclosureList({k: v for k, v in r.items() if k != "_tables"})
        r["digits"], r["to.print"] = digits, "short"
        outputs[t] = r
    res["output.list"] = outputs
    out = MultiDisclosureList(res)
    out["digits"] = digits
    out["plot"] = plot
    return out


def replicated_uniques(
    object: pd.DataFrame | Sequence[pd.DataFrame],
    data: pd.DataFrame,
    keys: str | Sequence[str] | None = None,
) -> RepUniqList:
    """synthpop 1.9-3's ``replicated.uniques()`` (``keys`` defaults to all columns of
    ``data``): ``res_tab`` (a DataFrame for m = 1, a list for m > 1), ``repU.rm`` and
    ``synU.rm`` (boolean arrays, length k or k x m), ``m``, ``n``, ``k``, ``keys``.

    Quirks reproduced (with a :class:`SynthpopQuirkWarning`): with several keys, numeric
    columns are compared as text formatted to a common width within each data set; with one
    key no synthetic unique counts as present in the original, and for m = 1 ``repU.rm`` is
    all False.

    Examples
    --------
    >>> import pandas as pd
    >>> from idrisk.r import replicated_uniques
    >>> ods = pd.DataFrame({"sex": ["F", "F", "M"], "age": [30, 40, 30]})
    >>> syn = pd.DataFrame({"sex": ["F", "M", "M"], "age": [30, 30, 50]})
    >>> replicated_uniques([syn], ods)["res_tab"]
                                   Number  from total       %
    Original                          3.0         3.0  100.00
    Synthetic                         3.0         3.0  100.00
    Synthetic uniques in original     2.0         3.0   66.67
    Replicated uniques                2.0         3.0   66.67
    """
    return RepUniqList(replicated_uniques_tables(synthetic_frames(object, "object"), data, keys))
