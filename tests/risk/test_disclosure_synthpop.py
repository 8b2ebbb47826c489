"""idrisk.r's disclosure(), multi_disclosure() and replicated_uniques() against live synthpop
1.9-3 (R run with LC_COLLATE=C): every component of every case equal to the last bit, on
synthetic data made by synthpop::syn in R from SD2011 subsets (with NA injected in keys and
target) and the CE sample."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _disclosure_r import assert_same, frame, frames, printed, run, value  # noqa: E402

from idrisk._rdisclosure import format_disclosure  # noqa: E402
from idrisk.exceptions import SynthpopQuirkWarning  # noqa: E402
from idrisk.r import disclosure, multi_disclosure, replicated_uniques  # noqa: E402

pytestmark = pytest.mark.needs_r

#: SD2011 rows 1:1000 with NA put into two keys (edu, sex) and the target marital, so that the
#: NA recoding and usekeysNA/usetargetNA are exercised; m = 1 and m = 3 syntheses by syn().
SETUP_SD = """
ods <- SD2011[1:1000, c("sex", "age", "region", "placesize", "edu", "income", "marital",
                        "depress", "nociga", "smoke")]
set.seed(11)
ods$edu[sample(1000, 40)] <- NA
ods$sex[sample(1000, 15)] <- NA
ods$marital[sample(1000, 25)] <- NA
sd3 <- syn(ods, m = 3, seed = 2, print.flag = FALSE, cont.na = list(income = -8, nociga = -8))
sd1 <- syn(ods, m = 1, seed = 5, print.flag = FALSE, cont.na = list(income = -8, nociga = -8))
"""
CONT_NA = {"income": [-8], "nociga": [-8]}
#: exact: idrisk sums as R does (column order, long-double accumulation, R's mean()); where
#: numpy's long double is plain double (not x86-64), R's sums can differ in the last bit
RTOL = 0.0 if np.finfo(np.longdouble).nmant >= 63 else 1e-12


@pytest.fixture(scope="module")
def sd():
    run(SETUP_SD)
    return {"ods": frame("ods"), "sd3": frames("sd3$syn"), "sd1": frames("sd1$syn")}


def r_vector(values) -> str:
    if isinstance(values, dict):
        return "list(" + ", ".join(f"{k} = {r_vector(v)}" for k, v in values.items()) + ")"
    if isinstance(values, str):
        return f'"{values}"'
    if isinstance(values, bool):
        return "TRUE" if values else "FALSE"
    if isinstance(values, (int, float)):
        return repr(values)
    return "c(" + ", ".join(r_vector(v) for v in values) + ")"


def r_args(kw: dict) -> str:
    names = {"cont_na": "cont.na", "not_targetlev": "not.targetlev", "exclude_keys":
             "exclude.keys", "exclude_keylevs": "exclude.keylevs", "exclude_targetlevs":
             "exclude.targetlevs", "not_targetslev": "not.targetslev", "ident_meas":
             "ident.meas", "attrib_meas": "attrib.meas", "compare_synorig": "compare.synorig"}
    parts = []
    for k, v in kw.items():
        if k in ("exclude_keys", "exclude_keylevs", "exclude_targetlevs") and isinstance(
                v, list) and v and isinstance(v[0], list):
            parts.append(f"{names[k]} = list({', '.join(r_vector(x) for x in v)})")
        else:
            parts.append(f"{names.get(k, k)} = {r_vector(v)}")
    return ", ".join(parts)


def both(obj: str, py_obj, data, keys, target, **kw):
    """Run synthpop's and idrisk's disclosure(); compare; return (ours, theirs)."""
    rcall = (f"disclosure({obj}, ods, keys = {r_vector(keys)}, target = {r_vector(target)}, "
             f"print.flag = FALSE{', ' if kw else ''}{r_args(kw)})")
    theirs = value(f"unclass({rcall})")
    extra = {} if isinstance(py_obj, pd.DataFrame) or "cont_na" in kw else {"cont_na": CONT_NA}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SynthpopQuirkWarning)
        ours = disclosure(py_obj, data, keys, target, print_flag=False, **extra, **kw)
    assert_same(ours, theirs, rcall, rtol=RTOL)
    return ours, rcall


CASES = [
    # (keys, target, options)
    (["sex", "age", "edu"], "marital", {}),
    (["sex", "age", "edu"], "marital", {"thresh_1way": [5, 20], "thresh_2way": [1, 50]}),
    (["sex", "age", "edu"], "marital", {"thresh_1way": [0, 0], "thresh_2way": [0, 0]}),
    (["age", "region"], "edu", {}),
    (["edu", "sex", "region"], "marital", {"usekeysNA": [False, True, True]}),
    (["region", "edu", "sex"], "marital", {"usekeysNA": [True, False, True]}),
    (["sex", "edu"], "marital", {"usekeysNA": False, "usetargetNA": False}),
    (["sex", "age", "edu"], "marital", {"not_targetlev": "MARRIED"}),
    (["sex", "age", "edu"], "marital", {"not_targetlev": ["MARRIED", "SINGLE"]}),
    (["sex", "age", "edu"], "marital", {"exclude_keys": "sex", "exclude_keylevs": "MALE",
                                        "exclude_targetlevs": "SINGLE"}),
    (["sex", "age", "edu"], "marital", {"exclude_keys": ["sex", "edu"],
                                        "exclude_keylevs": ["FEMALE", "SECONDARY"],
                                        "exclude_targetlevs": ["MARRIED", "WIDOWED"]}),
    (["sex", "age", "edu"], "marital", {"exclude_ov_denom_lim": True}),
    (["sex", "age", "edu"], "marital", {"exclude_ov_denom_lim": True, "denom_lim": 2}),
    (["sex", "age", "edu"], "marital", {"denom_lim": 2}),
    (["sex", "edu"], "income", {"ngroups_target": 5}),
    (["sex", "edu"], "income", {"ngroups_target": 3}),
    (["sex", "depress"], "marital", {"ngroups_keys": 4}),
    (["age", "sex", "depress"], "smoke", {"ngroups_keys": [6, 0, 3]}),
    (["age", "sex"], "nociga", {"ngroups_target": 4}),
    (["age", "sex"], "nociga", {}),
    (["sex", "age"], "depress", {}),
    (["age"], "edu", {}),
    (["region"], "marital", {"usekeysNA": False}),
    (["placesize", "sex", "age"], "region", {"digits": 3}),
    ([1, 2, 5], 7, {}),
]


@pytest.mark.parametrize(("keys", "target", "kw"), CASES)
@pytest.mark.parametrize("obj", ["sd3", "sd1"])
def test_disclosure_synds_equals_synthpop(sd, obj, keys, target, kw):
    both(obj, sd[obj], sd["ods"], keys, target, **kw)


@pytest.mark.parametrize(("keys", "target", "kw"), CASES[:3] + CASES[14:16])
def test_disclosure_data_frame_and_list_methods(sd, keys, target, kw):
    """synthpop's data.frame method (cont.na given explicitly) and list method."""
    kw = {**kw, "cont_na": CONT_NA}
    both("sd1$syn", sd["sd1"][0], sd["ods"], keys, target, **kw)
    both("sd3$syn", list(sd["sd3"]), sd["ods"], keys, target, **kw)


def test_compare_synorig_with_character_columns(sd):
    """Character columns make synorig.compare convert them to factors: same measures (a
    factor's levels sort like the characters do); R's list method then keeps only its first
    synthetic data set, whereas a Python list is always the synds method (all m)."""
    run("o2 <- ods; o2$smoke <- as.character(o2$smoke); s2 <- lapply(sd3$syn, function(x) "
        "{x$smoke <- as.character(x$smoke); x})")
    call = 'disclosure({}, o2, keys = c("sex", "age"), target = "smoke", print.flag = FALSE)'
    theirs = value(f"unclass({call.format('s2[[1]]')})")
    assert len(value(f"unclass({call.format('s2')})$ident")) == 1

    def as_text(f):
        return f.assign(smoke=f["smoke"].astype(object).where(f["smoke"].notna(), None))

    ours = disclosure(as_text(sd["sd3"][0]), as_text(sd["ods"]), ["sex", "age"], "smoke",
                      print_flag=False)
    assert_same(ours, theirs, "compare.synorig", rtol=RTOL)


def test_positional_combination_quirk(sd):
    """An ungrouped numeric target without NA whose synthetic values miss a level (7): the
    synthetic table gets the row added and is sorted by name ("10" < "9"), the original's
    stays in numeric order, and synthpop combines them by position. Reproduced with a
    warning; the corrected mode differs."""
    run("od <- ods; od$depress[is.na(od$depress)] <- 0; sq <- sd1; "
        "sq$syn$depress[is.na(sq$syn$depress) | sq$syn$depress == 7] <- 8")
    od, sq = frame("od"), frames("sq$syn")
    theirs = value('unclass(disclosure(sq, od, keys = c("sex", "edu"), target = "depress", '
                   'print.flag = FALSE))')
    with pytest.warns(SynthpopQuirkWarning, match="tables combined by position"):
        ours = disclosure(sq, od, ["sex", "edu"], "depress", print_flag=False)
    assert_same(ours, theirs, "positional", rtol=RTOL)
    from idrisk.risk._synthpop_tables import disclosure_tables

    fixed = disclosure_tables(sq, od, ["sex", "edu"], "depress", quirks="corrected")
    # DCAP pairs synthetic proportions with original counts: misaligned rows change it
    assert fixed["allCAPs"]["DCAP"].iloc[0] != ours["allCAPs"]["DCAP"].iloc[0]


@pytest.mark.filterwarnings("ignore:synthpop quirk 'identity measures")
def test_tcap_inf_when_no_record_left_in_its_denominator():
    """denom_lim 1 keeps the original record b (a DiSCO record) but excludes both synthetic
    cells (2 records each): synthpop's TCAP is 1 / 0 = Inf. Reproduced, with a warning."""
    run('tco <- data.frame(k0 = c("a", "a", "a", "b"), t = "x", stringsAsFactors = TRUE); '
        'tcs <- data.frame(k0 = c("a", "a", "b", "b"), t = "x", stringsAsFactors = TRUE)')
    tco, tcs = frame("tco"), frame("tcs")
    kw = "usekeysNA = FALSE, usetargetNA = FALSE, exclude_ov_denom_lim = TRUE, denom_lim = 1"
    theirs = value(f'unclass(disclosure(tcs, tco, keys = "k0", target = "t", '
                   f'print.flag = FALSE, {kw}))')
    with pytest.warns(SynthpopQuirkWarning, match="TCAP over no records"):
        ours = disclosure(tcs, tco, "k0", "t", print_flag=False, usekeysNA=False,
                          usetargetNA=False, exclude_ov_denom_lim=True, denom_lim=1)
    assert_same(ours, theirs, "TCAP Inf", rtol=RTOL)
    assert np.isinf(ours["allCAPs"]["TCAP"].iloc[0])


def test_na_recoding_sorts_levels_by_name(sd):
    """A numeric target with NA: synthpop recodes it to text, levels sorted by name with
    "Missing", in both tables; so a level the synthetic data lacks (7) is added in the same
    (name) order and the tables line up - no positional quirk, no warning."""
    run("sn <- sd1; sn$syn$depress[sn$syn$depress %in% 7] <- 8")
    sn = frames("sn$syn")
    assert sd["ods"]["depress"].isna().any() and sn[0]["depress"].isna().any()
    theirs = value('unclass(disclosure(sn, ods, keys = c("sex", "edu"), target = "depress", '
                   'print.flag = FALSE, thresh_2way = c(0, 0)))')
    with warnings.catch_warnings():
        warnings.simplefilter("error", SynthpopQuirkWarning)
        ours = disclosure(sn, sd["ods"], ["sex", "edu"], "depress", print_flag=False,
                          thresh_2way=(0, 0), cont_na=CONT_NA)
    assert_same(ours, theirs, "NA recoding", rtol=RTOL)


def test_usekeysNA_permutation_quirk(sd):
    """Keys edu, sex, region (data order sex, region, edu) with usekeysNA FALSE for edu:
    synthpop applies FALSE to region. Same numbers here, with a warning."""
    with pytest.warns(SynthpopQuirkWarning, match="usekeysNA permutation"):
        disclosure(sd["sd1"], sd["ods"], ["edu", "sex", "region"], "marital",
                   usekeysNA=[False, True, True], print_flag=False)
    ours, _ = both("sd1", sd["sd1"], sd["ods"], ["edu", "sex", "region"], "marital",
                   usekeysNA=[False, True, True])
    # the same as FALSE on region given in data order (sex, region, edu), where no
    # permutation happens
    right, _ = both("sd1", sd["sd1"], sd["ods"], ["sex", "region", "edu"], "marital",
                    usekeysNA=[True, False, True])
    assert_same(ours, dict(right))


@pytest.mark.parametrize("to_print", ["short", "ident", "attrib", "allCAPs", "check_1way",
                                      "check_2way", "exclusions", ["attrib", "ident"]])
@pytest.mark.parametrize("obj", ["sd3", "sd1"])
def test_print_disclosure_text(sd, obj, to_print):
    kw = {"thresh_1way": [5, 20], "not_targetlev": "WIDOWED"}
    ours, rcall = both(obj, sd[obj], sd["ods"], ["sex", "age", "edu"], "marital", **kw)
    theirs = printed(f"print({rcall}, to.print = {r_vector(to_print)})")
    assert format_disclosure(ours, to_print).split("\n") == theirs


def test_print_flag_lines(sd, capsys):
    """The progress lines, with the table sizes before and after the completion."""
    theirs = printed('d <- disclosure(sd3, ods, keys = c("sex", "age", "region"), '
                     'target = "edu")')
    assert theirs[1].split()[-2] != theirs[2].split()[-2]  # synthetic-only key combinations
    disclosure(sd["sd3"], sd["ods"], ["sex", "age", "region"], "edu", cont_na=CONT_NA)
    assert capsys.readouterr().out.rstrip("\n").split("\n") == theirs


# ------------------------------------------------------------------ multi.disclosure
MULTI = [
    {},
    {"targets": ["marital", "region", "smoke"], "thresh_1way": [5, 20]},
    {"targets": ["income", "depress", "edu"], "ngroups_targets": [4, 0, 0]},
    {"targets": ["marital", "edu"], "usetargetsNA": [False, True], "usekeysNA": False,
     "not_targetslev": ["MARRIED", ""]},
    {"attrib_meas": "DCAP", "ident_meas": "UiSiO"},
    {"attrib_meas": "DiSDiO", "ident_meas": "baseCAPd", "exclude_ov_denom_lim": True},
]


@pytest.mark.parametrize("kw", MULTI)
@pytest.mark.parametrize("obj", ["sd3", "sd1"])
def test_multi_disclosure_equals_synthpop(sd, obj, kw):
    keys = ["sex", "age", "placesize"]
    theirs = value(f"x <- unclass(multi.disclosure({obj}, ods, keys = {r_vector(keys)}, "
                   f"print.flag = FALSE, plot = FALSE{', ' if kw else ''}{r_args(kw)})); "
                   "x$attrib.plot <- NULL; x")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SynthpopQuirkWarning)
        ours = multi_disclosure(sd[obj], sd["ods"], keys, print_flag=False, plot=False,
                                cont_na=CONT_NA, **kw)
    outputs = theirs.pop("output.list")
    for k in ("ident.orig", "ident.syn", "usetargetsNA", "usekeysNA"):
        if not isinstance(theirs[k], list):
            theirs[k] = [theirs[k]]
    assert_same(ours, theirs, f"multi {obj} {kw}", rtol=RTOL)
    assert list(ours["output.list"]) == list(outputs)
    for t, out in outputs.items():
        assert_same(ours["output.list"][t], out, f"multi {obj} {kw} {t}", rtol=RTOL)
    if obj == "sd3":
        lines = printed(f"print(multi.disclosure({obj}, ods, keys = {r_vector(keys)}, "
                        f"print.flag = FALSE, plot = FALSE{', ' if kw else ''}{r_args(kw)}))")
        assert repr(ours).split("\n") == lines


# ------------------------------------------------------------------ replicated.uniques
@pytest.mark.parametrize("keys", [["sex", "age", "income"], ["income"], ["age", "depress"],
                                  ["edu"], ["sex", "edu", "income", "nociga"],
                                  ["marital", "sex"], None])
@pytest.mark.parametrize("obj", ["sd3", "sd1"])
def test_replicated_uniques_equals_synthpop(sd, obj, keys):
    kr = "" if keys is None else f", keys = {r_vector(keys)}"
    theirs = value(f"unclass(replicated.uniques({obj}, ods{kr}))")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SynthpopQuirkWarning)
        ours = replicated_uniques(sd[obj], sd["ods"], keys)
    for name in ("repU.rm", "synU.rm"):
        t = theirs.pop(name)
        t = np.asarray(t.to_numpy() if hasattr(t, "to_numpy") else t, dtype=bool)
        np.testing.assert_array_equal(ours[name], t.reshape(ours[name].shape), err_msg=name)
    if not isinstance(theirs["keys"], list):
        theirs["keys"] = [theirs["keys"]]
    assert_same(ours, theirs, f"replicated.uniques {obj} {keys}")
    assert repr(ours).split("\n") == printed(f"print(replicated.uniques({obj}, ods{kr}))")


def test_replicated_uniques_width_quirk():
    """Several keys with a numeric column: synthpop compares text formatted to a common width
    within each data set, so a unique record with income 800 is " 800" in one data set and
    "800" in another and is not counted as replicated; corrected mode counts it."""
    run('o <- data.frame(sex = factor(c("A", "A", "B")), inc = c(800, 1500, 2000)); '
        'sy <- data.frame(sex = factor(c("A", "B", "B")), inc = c(800, 15, 20)); '
        'sds <- list(syn = sy, m = 1, n = 3, k = 3); class(sds) <- "synds"')
    theirs = value('replicated.uniques(sds, o, keys = c("sex", "inc"))$res_tab')
    o, sy = frame("o"), frame("sy")
    with pytest.warns(SynthpopQuirkWarning, match="width formatting"):
        ours = replicated_uniques(sy, o, ["sex", "inc"])
    assert_same(ours["res_tab"], theirs)
    assert theirs.loc["Replicated uniques", "Number"] == 0
    from idrisk.risk._synthpop_uniques import replicated_uniques_tables

    fixed = replicated_uniques_tables([sy], o, ["sex", "inc"], quirks="corrected")
    assert fixed["res_tab"].loc["Replicated uniques", "Number"] == 1


# ------------------------------------------------------------------ CE sample
@pytest.fixture(scope="module")
def ce_r(ce):
    from idrisk.rcompat._session import robjects
    from idrisk.rcompat.convert import dataframe_to_r

    run("1")
    robjects().globalenv["ce"] = dataframe_to_r(ce)
    run("oce <- ce; sce <- syn(ce, m = 2, seed = 2021, print.flag = FALSE)")
    return {"ods": frame("oce"), "sce": frames("sce$syn")}


@pytest.mark.parametrize(("keys", "target", "kw"), [
    (["Urban", "Tenure", "Marital"], "Educ", {}),
    (["Age", "Urban", "Marital"], "Tenure", {"thresh_2way": [2, 60]}),
    (["Marital", "Age"], "Income", {"ngroups_target": 5, "ngroups_keys": [0, 5]}),
    (["Age", "Urban", "Marital", "Educ"], "Income", {"ngroups_target": 7,
                                                    "thresh_1way": [0, 0],
                                                    "thresh_2way": [0, 0]}),  # labels shown
    (["Urban", "Educ", "Expenditure"], "Marital", {"ngroups_keys": 4,
                                                    "exclude_ov_denom_lim": True}),
])
def test_ce_sample(ce_r, keys, target, kw):
    rcall = (f"disclosure(sce, oce, keys = {r_vector(keys)}, target = {r_vector(target)}, "
             f"print.flag = FALSE{', ' if kw else ''}{r_args(kw)})")
    theirs = value(f"unclass({rcall})")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SynthpopQuirkWarning)
        ours = disclosure(ce_r["sce"], ce_r["ods"], keys, target, print_flag=False, **kw)
    assert_same(ours, theirs, rcall, rtol=RTOL)


def test_ce_replicated_uniques(ce_r):
    keys = ["Age", "Urban", "Marital", "Educ"]
    theirs = value(f"unclass(replicated.uniques(sce, oce, keys = {r_vector(keys)}))")
    ours = replicated_uniques(ce_r["sce"], ce_r["ods"], keys)
    for name in ("repU.rm", "synU.rm"):
        t = np.asarray(theirs.pop(name).to_numpy(), dtype=bool)
        np.testing.assert_array_equal(ours[name], t, err_msg=name)
    assert_same(ours, theirs, "CE replicated.uniques")


def test_multi_disclosure_exclude_keylevs_quirk(sd):
    """multi.disclosure passes exclude.targetlevs as the key levels: synthpop rejects a
    correct exclusion (a target level is no level of the key), and so does idrisk.r; the
    corrected mode applies the pairs as given, equal to disclosure() with them."""
    from idrisk.risk._synthpop_tables import disclosure_tables, multi_disclosure_tables

    call = ('multi.disclosure(sd3, ods, keys = c("sex", "age"), targets = c("marital", "edu"),'
            ' exclude.keys = list("sex", "sex"), exclude.keylevs = list("MALE", "MALE"), '
            'exclude.targetlevs = list("SINGLE", "SECONDARY"), print.flag = FALSE, '
            'plot = FALSE)')
    with pytest.raises(Exception, match="exclude.keylevs position 1 must be one of levels"):
        run(call)
    kw = {"targets": ["marital", "edu"], "exclude_keys": ["sex", "sex"],
          "exclude_keylevs": ["MALE", "MALE"], "exclude_targetlevs": ["SINGLE", "SECONDARY"]}
    with pytest.raises(ValueError, match="exclude_keylevs"):
        with pytest.warns(SynthpopQuirkWarning, match="exclude.keylevs ignored"):
            multi_disclosure(sd["sd3"], sd["ods"], ["sex", "age"], print_flag=False, **kw)
    fixed = multi_disclosure_tables(sd["sd3"], sd["ods"], ["sex", "age"], quirks="corrected",
                                    **kw)
    both("sd3", sd["sd3"], sd["ods"], ["sex", "age"], "edu", exclude_keys="sex",
         exclude_keylevs="MALE", exclude_targetlevs="SECONDARY")  # the pair itself is valid
    one = disclosure_tables(sd["sd3"], sd["ods"], ["sex", "age"], "edu", exclude_keys="sex",
                            exclude_keylevs="MALE", exclude_targetlevs="SECONDARY",
                            quirks="corrected")
    assert_same(fixed["output.list"]["edu"]["attrib"], one["attrib"])


def test_grouping_falls_back_to_equal_width(sd):
    """A key with 95% zeros: quantile breaks give fewer than three classes for the original,
    so synthpop groups it with equal-width classes; same labels and measures here."""
    run("og <- ods; og$depress[1:950] <- 0; sg <- sd3; "
        "for (j in 1:3) sg$syn[[j]]$depress[1:940] <- 0")
    og, sg = frame("og"), frames("sg$syn")
    kw = {"ngroups_keys": [0, 5], "thresh_2way": [0, 0]}
    theirs = value('unclass(disclosure(sg, og, keys = c("sex", "depress"), target = "marital",'
                   ' print.flag = FALSE, ngroups_keys = c(0, 5), thresh_2way = c(0, 0)))')
    ours = disclosure(sg, og, ["sex", "depress"], "marital", print_flag=False,
                      cont_na=CONT_NA, **kw)
    assert_same(ours, theirs, "equal-width fallback", rtol=RTOL)
    labels = [str(x) for c in theirs["check_2way"] if isinstance(c, pd.DataFrame)
              for x in c["target_key_levs"]]
    assert "MARRIED|[3.2,6.4)" in labels, labels  # five classes of width 16/5


#: keys k (levels holding "|": "p|1", "p|2") and k2; the target t is fixed by k = "p|1" (x)
#: and k = "p|2" (w), so the 2-way check flags both pairs; the synthetic data is a shuffle
SETUP_BAR = """
set.seed(1); n <- 200
bod <- data.frame(k = factor(sample(c("p|1", "q", "r", "p|2"), n, TRUE)),
                  k2 = factor(sample(c("u", "v"), n, TRUE)))
bod$t <- factor(ifelse(bod$k == "p|1", "x",
                       ifelse(bod$k == "p|2", "w", sample(c("z", "w"), n, TRUE))))
bsd <- bod[sample(n), ]
"""


@pytest.mark.parametrize("thresh_2way", [[4, 80], [4, 30]])
def test_bar_in_a_key_level_gives_r_rows_of_na(thresh_2way):
    """synthpop reads the pair "x|p|1" back as target "x", key "p": no records, share
    0 * 100 / 0 = NaN, and its row selection turns the NaN rows into rows of NAs named
    "NA", "NA.1" (idrisk divided by zero here)."""
    run(SETUP_BAR)
    bod, bsd = frame("bod"), frame("bsd")
    run(f'bx <- disclosure(bsd, bod, keys = c("k", "k2"), target = "t", print.flag = FALSE, '
        f'thresh_2way = {r_vector(thresh_2way)})')
    theirs = value("unclass(bx)")
    with pytest.warns(SynthpopQuirkWarning, match="'\\|' in level labels"):
        ours = disclosure(bsd, bod, ["k", "k2"], "t", print_flag=False,
                          thresh_2way=thresh_2way)
    assert_same(ours, theirs, "'|' in key levels", rtol=RTOL)
    for to_print in ("check_2way", "short"):  # R prints the rows of NAs as <NA> and NA
        lines = printed(f'print(bx, to.print = "{to_print}")')
        assert format_disclosure(ours, to_print).split("\n") == lines
    check = ours["check_2way"]
    assert [i for i in check.index if i.startswith("NA")] == ["NA", "NA.1"]
    assert check.loc[["NA", "NA.1"]].isna().all(axis=None)
    from idrisk.risk import disclosure as measures

    fixed = measures(bod, bsd, ["k", "k2"], "t", thresh_2way=thresh_2way, quirks="corrected")
    pairs = fixed.check_2way.set_index("target_key_levs")
    assert pairs.loc[["x|p|1", "w|p|2"], "PctTargetKeyLevel"].tolist() == [100.0, 100.0]


@pytest.mark.filterwarnings("ignore:synthpop quirk")
def test_bar_in_a_target_level_stops_as_synthpop_does():
    """The pair "x|y|p" is read as target "x", not a level: synthpop stops."""
    run(SETUP_BAR + 'bod2 <- bod; levels(bod2$k)[1:2] <- c("p", "P"); '
        'levels(bod2$t)[2] <- "x|y"; bsd2 <- bod2[sample(n), ]')
    bod2, bsd2 = frame("bod2"), frame("bsd2")
    with pytest.raises(Exception, match="replacement has length zero"):
        run('disclosure(bsd2, bod2, keys = c("k", "k2"), target = "t", print.flag = FALSE)')
    with pytest.raises(ValueError, match="a level of target 't' holds '\\|'"):
        disclosure(bsd2, bod2, ["k", "k2"], "t", print_flag=False)
