"""Cases found by a randomized comparison of idrisk's disclosure measures with live synthpop
1.9-3 (R run with LC_COLLATE=C): random small data sets with rare and unused levels, NA,
integer and decimal columns, m = 1-3 resampled and perturbed synthetic data sets, random
keys, targets and options. Each test is one kind of mismatch that comparison found, on the
smallest data that shows it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _disclosure_r import assert_same, frame, frames, printed, run, value  # noqa: E402

from idrisk._rdisclosure import format_disclosure  # noqa: E402
from idrisk.exceptions import SynthpopQuirkWarning  # noqa: E402
from idrisk.r import disclosure, multi_disclosure  # noqa: E402
from idrisk.risk import disclosure as measures  # noqa: E402
from idrisk.risk import disclosure_summary as measures_summary  # noqa: E402

pytestmark = pytest.mark.needs_r


def test_printed_tables_round_as_r():
    """print.disclosure shows ``round(x, digits)``: R >= 4 rounds 1.15 to 1.1 (the nearer of
    1.1 and 1.2 in doubles), numpy to 1.2. Here mean_denom is 23 / 20 = 1.15 (17 key levels
    of one record and 3 of two, each fixing the target)."""
    run('rk <- factor(c(sprintf("k%02d", 1:17), rep(sprintf("k%02d", 18:20), each = 2))); '
        'ro <- data.frame(k = rk, t = factor("x")); rs <- ro; '
        'rd <- disclosure(rs, ro, keys = "k", target = "t", print.flag = FALSE)')
    ro, rs = frame("ro"), frame("rs")
    ours = disclosure(rs, ro, "k", "t", print_flag=False)
    assert ours["attrib"]["mean_denom"].iloc[0] == 1.15
    for digits in (1, 2):
        lines = printed(f'print(rd, to.print = "attrib", digits = {digits})')
        assert format_disclosure(ours, "attrib", digits).split("\n") == lines
    assert printed('print(rd, to.print = "attrib", digits = 1)')[-1].split()[-1] == "1.1"


def test_unused_key_level_counts_as_present_in_uiois():
    """One key: synthpop asks whether an original unique's key level is among the levels of
    the synthetic key factor, unused ones included. Level b is unique in the original and
    unused in the synthetic data: UiOiS counts it (40%), with a warning; the corrected mode
    counts the keys held by synthetic records (20%)."""
    run('uo <- data.frame(k = factor(c("a", "a", "a", "b", "c")), '
        't = factor(c("x", "y", "x", "x", "y"))); '
        'us <- data.frame(k = factor(c("a", "a", "c", "c", "a"), levels = c("a", "b", "c")), '
        't = factor(c("x", "y", "x", "x", "y")))')
    uo, us = frame("uo"), frame("us")
    theirs = value('unclass(disclosure(us, uo, keys = "k", target = "t", print.flag = FALSE))')
    with pytest.warns(SynthpopQuirkWarning, match="unused levels count as present"):
        ours = disclosure(us, uo, "k", "t", print_flag=False)
    assert_same(ours, theirs, "unused key level")
    assert theirs["ident"]["UiOiS"].iloc[0] == 40.0
    fixed = measures(uo, us, "k", "t", quirks="corrected")
    assert fixed.identity.loc[1, "UiOiS"] == 20.0


def test_grouping_counts_cont_na_codes_as_levels():
    """synthpop falls back to equal-width classes when the grouped original has fewer than
    three levels, counting every interval and every cont.na code as a level: two quantile
    classes and the code -9 are three, so the quantile breaks stay (idrisk counted the
    intervals the original uses, two, and switched to equal width)."""
    run('go <- data.frame(k = factor(rep(c("a", "b"), 6)), '
        'x = c(1, 1, 1, 1, 2, 3, 10, 12, -9, -9, 2, 1)); '
        'gs <- go[c(2:12, 1), ]; rownames(gs) <- NULL')
    go, gs = frame("go"), frame("gs")
    call = ('disclosure(gs, go, keys = "k", target = "x", print.flag = FALSE, '
            'cont.na = list(x = -9), ngroups_target = 2)')
    theirs = value(f"unclass({call})")
    ours = disclosure(gs, go, "k", "x", print_flag=False, cont_na={"x": [-9]},
                      ngroups_target=2)
    assert_same(ours, theirs, call)
    fixed = measures(go, gs, "k", "x", cont_na={"x": [-9]}, ngroups_syn=2)
    assert fixed.by_level["level"].tolist()[:2] == ["[1,1.5)", "[1.5,12]"]  # not [1,6.5)


@pytest.mark.parametrize("to_print", ["short", "ident", "exclusions", "check_1way",
                                      ["attrib", "check_2way"]])
def test_print_without_checks_or_exclusions(to_print):
    """R writes its text with cat(), each piece opening with a newline: with no flagged
    check and no exclusion after the last table no blank line ends the print, and the
    exclusions follow the header without a second blank line (idrisk had one extra line
    in both)."""
    run('po <- data.frame(k = factor(c("a", "a", "b", "b", "c", "c")), '
        't = factor(c("x", "y", "x", "y", "x", "x"))); ps <- po[6:1, ]; rownames(ps) <- NULL; '
        'pd <- disclosure(ps, po, keys = "k", target = "t", print.flag = FALSE, '
        'thresh_1way = c(100, 100), thresh_2way = c(100, 100))')
    po, ps = frame("po"), frame("ps")
    ours = disclosure(ps, po, "k", "t", print_flag=False, thresh_1way=(100, 100),
                      thresh_2way=(100, 100))
    tp = to_print if isinstance(to_print, str) else f'c("{to_print[0]}", "{to_print[1]}")'
    tp = f'"{tp}"' if isinstance(to_print, str) else tp
    assert format_disclosure(ours, to_print).split("\n") == printed(f"print(pd, to.print = {tp})")


def test_multi_disclosure_print_with_one_synthesis():
    """print.multi.disclosure says "Results are averaged over m syntheses" only for m > 1;
    for m = 1 a blank line stands there (idrisk printed "averaged over 1 syntheses")."""
    run('mo <- data.frame(k = factor(c("a", "a", "b", "b", "c", "c")), '
        't = factor(c("x", "y", "x", "y", "x", "x")), u = factor(c("p", "q", "p", "p", "q", '
        '"q"))); ms <- mo[6:1, ]; rownames(ms) <- NULL; '
        'md <- multi.disclosure(ms, mo, keys = "k", print.flag = FALSE, plot = FALSE)')
    mo, ms = frame("mo"), frame("ms")
    ours = multi_disclosure(ms, mo, "k", print_flag=False, plot=False)
    assert repr(ours).split("\n") == printed("print(md)")


def test_multi_disclosure_keeps_usekeysna_in_the_order_given():
    """multi.disclosure puts the keys in data order (a, b) but keeps usekeysNA as given
    (TRUE, FALSE for b, a): FALSE lands on b, so a's NA records stay in. idrisk passed the
    keys on as given and disclosure's own reordering applied FALSE to a."""
    run('ko <- data.frame(a = factor(c("p", NA, "q", "p", NA, "q", "p", "q")), '
        'b = factor(c("u", "v", "u", "v", "u", "v", "u", "u")), '
        't = factor(c("x", "x", "y", "x", "y", "y", "x", "x"))); ks <- ko[8:1, ]; '
        'rownames(ks) <- NULL; km <- multi.disclosure(ks, ko, keys = c("b", "a"), '
        'usekeysNA = c(TRUE, FALSE), print.flag = FALSE, plot = FALSE)')
    ko, ks = frame("ko"), frame("ks")
    theirs = value("unclass(km)$output.list$t")
    with pytest.warns(SynthpopQuirkWarning, match="usekeysNA permutation"):
        ours = multi_disclosure(ks, ko, ["b", "a"], usekeysNA=[True, False], print_flag=False,
                                plot=False)
    assert_same(ours["output.list"]["t"], theirs, "multi usekeysNA")
    assert theirs["Nexclusions"][0].loc["original", "missing in  keys"] == 0


@pytest.mark.filterwarnings("ignore:synthpop quirk 'ident.syn from synthesis 1'")
def test_summary_means_as_r():
    """disclosure_summary's table holds multi.disclosure's means over the syntheses: R's
    mean() (long double and a correction pass) of DiSCO 0, 100/6 and 50 is
    22.22222222222222, numpy's 22.222222222222225."""
    run('so <- data.frame(k = factor(letters[1:6]), t = factor(rep(c("x", "y"), each = 3))); '
        'ss <- lapply(list(c(2, 2, 2, 1, 1, 1), c(1, 2, 2, 1, 1, 1), rep(1, 6)), '
        'function(i) data.frame(k = so$k, t = factor(c("x", "y")[i], levels = c("x", "y")))); '
        'sm <- list(syn = ss, m = 3, cont.na = list(k = NA, t = NA)); class(sm) <- "synds"; '
        'sx <- multi.disclosure(sm, so, keys = "k", print.flag = FALSE, plot = FALSE)')
    so, ss = frame("so"), frames("ss")
    table = value("sx$attrib.table")
    ours = measures_summary(so, ss, "k").table
    assert ours["DiSCO"].tolist() == table["attrib.syn"].tolist() == [22.22222222222222]
    assert ours["Dorig"].tolist() == table["attrib.orig"].tolist()


def test_grouping_synthetic_sets_of_different_sizes_stops_as_synthpop():
    """Grouping a numeric key or target over m > 1 synthetic data sets of different sizes:
    synthpop stops (it cannot pool their values); idrisk answered with numbers."""
    run('zo <- data.frame(k = factor(rep(c("a", "b"), 5)), x = c(1:9, 20)); '
        'zl <- list(zo[1:9, ], zo); zm <- list(syn = zl, m = 2, cont.na = list(k = NA, x = NA)); '
        'class(zm) <- "synds"')
    zo, zl = frame("zo"), frames("zl")
    with pytest.raises(Exception, match="x1, x2, and xsyn must be numeric"):
        run('disclosure(zm, zo, keys = "k", target = "x", ngroups_target = 3, '
            'print.flag = FALSE)')
    with pytest.raises(ValueError, match="ngroups for 'x'.*different numbers of rows"):
        disclosure(zl, zo, "k", "x", ngroups_target=3, print_flag=False)
    fixed = measures(zo, zl, "k", "x", ngroups_syn=3, quirks="corrected")
    assert fixed.m == 2
