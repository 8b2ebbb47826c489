"""The few-values grid's datasets counted together by ranges of keys (large inputs whose
synthetic datasets share the first one's keys: known categorical variables; the first one
too when the sweep was laid out from it without counting it,
:func:`idrisk.risk.matching.few_plan`).

Per dataset, :class:`idrisk.risk._fewgrid.FewSweep` sorts the rows, lays them out and passes
over every target: a target's window ends mispredict once per dataset, and the counts are
scattered into the dataset's column. Here the work is cut into tasks of a range of keys and a
group of datasets (about :data:`TASK_ROWS` rows each): the task's rows of every dataset of its
group are stacked in one array (each thread's arrays reused from task to task), sorted once
by (key, u) with numpy's integer sort, and one pass over the range's targets counts every
dataset of the group (as :func:`idrisk.risk._fewkernels.few_stack`, a small sweep's stack)
into the group's buffer in the targets' order; once every range of a group is counted, its
columns are gathered into the records' order (random reads cost about half of random writes).
The counts are those of the per-dataset sweep: the same rows lie between a window's ends
whatever the order of equal values.

Slot keys. A row is stacked as one 64-bit sort key: its key within the range in the top bits
(none when the range is one key), then the high bits of u's order-preserving key
(:func:`idrisk.risk._order.key`), then its slot (the dataset's place in the group and the rank
of its w) in the low bits. The sorted keys are the whole stack: no row is gathered after the
sort. A window's end moves over the rows whose kept bits are below its bound's. Where a row's
kept bits equal the bound's, the values decide when every value of the task lost only zero
bits (its kept bits are then the value itself, as whole numbers are); otherwise the end is
undecided (a bound within about 2**-40 of a value, relatively, or equal to one), and the
target's counts are found again from the values of its key's rows. A task with more than
:data:`UNDECIDED_MAX` such targets, and every later one, is counted the exact way: the row in
the low bits, the rows gathered after the sort, runs of equal high bits sorted by value
(:func:`idrisk.risk._order.rows_of`) and the windows' ends decided on the values
(:func:`idrisk.risk._fewkernels.few_stack`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from .._numba import jit as _jit
from . import _fewkernels
from ._order import VALUE_MIN_BITS, key, rows_of

__all__ = ["TASK_KEYS", "TASK_ROWS", "count_by_key", "key_side"]

#: the rows (of every dataset of a group) a task stacks: 8 bytes each while it runs (32 the
#: exact way)
TASK_ROWS = 1 << 21

#: the most targets of a task whose window ends its slot keys leave undecided, each counted
#: again from the values of its key's rows (more: the task, and every later one, are counted
#: the exact way)
UNDECIDED_MAX = 8

#: the parts of the last group's gather (run as tasks: the count's threads are free by then)
GATHER_PARTS = 4

#: the most keys in a task's range (their number takes the sort keys' top bits: with
#: TASK_ROWS the exact way, 16 and 21 bits leave 27 of the value's; one key alone takes no bit)
TASK_KEYS = 1 << 16


@_jit
def key_side(skey, yu, yw, values, n_keys, last, row_starts, out_values, out_ranks):
    """A dataset's live rows grouped by key: key k's u values (``yu``) at ``row_starts[k]:
    row_starts[k + 1]`` of ``out_values`` and the ranks of their w (``yw``) among ``values`` in
    ``out_ranks`` (row order within a key), in one sequential pass after the cells of
    :func:`idrisk.risk._fewkernels.cells_of` (``last``'s when w is the first dataset's). False
    (the outputs then invalid) when the dataset does not fit the sweep (as
    :func:`idrisk.risk._fewkernels.few_fit`). ``skey`` must be the first dataset's keys (those
    of ``last`` and ``row_starts``)."""
    ok, cells, _ = _fewkernels.cells_of(skey, yw, values, n_keys, last)
    if not ok:
        return False
    n_values = values.shape[0]
    fill = row_starts[:-1].copy()
    for r in range(skey.shape[0]):
        k = skey[r]
        if k < 0:
            continue
        if k >= n_keys or np.isnan(yu[r]):
            return False
        p = fill[k]
        fill[k] = p + 1
        out_values[p] = yu[r]
        out_ranks[p] = cells[r] - k * n_values
    return True


@_jit
def _stack_rows(values, ranks, row_starts, k0, k1, q, width, group_bits, shift, keys, pair):
    """Dataset q (of a task's group) of keys ``k0``..``k1 - 1`` (its :func:`key_side`) into
    ``pair`` at ``q * rows`` (u, then the slot as a float: one cache line holds both for
    :func:`_take_pairs`), with their sort :func:`key` by (key - k0, u)."""
    a = row_starts[k0]
    base = q * (row_starts[k1] - a) - a
    bits = values.view(np.uint64)
    for k in range(k0, k1):
        for p in range(row_starts[k], row_starts[k + 1]):
            pos = base + p
            pair[pos, 0] = values[p]
            pair[pos, 1] = q * width + ranks[p]
            keys[pos] = key(values[p], bits[p], k - k0, group_bits, shift, pos)


@_jit
def _stack_slot_keys(values, ranks, row_starts, k0, k1, q, width, group_bits, slot_bits, keys):
    """Dataset q (of a task's group) of keys ``k0``..``k1 - 1`` (its :func:`key_side`) into
    ``keys`` at ``q * rows``: each row's slot key (see the module's notes). True when every
    value lost only zero bits (its key's value is then the value itself)."""
    a = row_starts[k0]
    base = q * (row_starts[k1] - a) - a
    bits = values.view(np.uint64)
    sb = np.uint64(slot_bits)
    drop = np.uint64(slot_bits + group_bits)
    lost = np.uint64(0)
    for k in range(k0, k1):
        prefix = np.uint64(k - k0) << np.uint64(64 - group_bits) if group_bits > 0 else np.uint64(0)
        for p in range(row_starts[k], row_starts[k + 1]):
            whole = key(values[p], bits[p], 0, 0, 0, 0)
            lost |= whole & ((np.uint64(1) << drop) - np.uint64(1))
            keys[base + p] = prefix | ((whole >> drop) << sb) | np.uint64(q * width + ranks[p])
    return lost == 0


@_jit
def _end(keys, p, stop, bound, whole, slot_bits, drop, exact, on_equal, step, diff):
    """A u-window's end ``p`` moved over the sorted slot keys ``keys[p:stop]`` whose kept bits
    (above the ``slot_bits``, the key within the range included) are below ``bound`` (the
    bound's; ``whole``: its whole key, of which ``drop`` bits were dropped), each row's slot
    moved by ``step`` in ``diff``. Rows whose kept bits equal the bound's are stepped over when
    their value is below the bound's, or equal with ``on_equal``, read from their kept bits
    when ``exact``; otherwise the end is undecided (returned True) and stays before them (a
    later bound above their kept bits steps over them)."""
    sb = np.uint64(slot_bits)
    slots = (np.uint64(1) << sb) - np.uint64(1)
    while p < stop and (keys[p] >> sb) < bound:
        diff[keys[p] & slots] += step
        p += 1
    if p < stop and (keys[p] >> sb) == bound:
        if not exact:
            return p, True
        value = (bound & ((np.uint64(1) << (np.uint64(64) - drop)) - np.uint64(1))) << drop
        if value < whole or (on_equal and value == whole):
            while p < stop and (keys[p] >> sb) == bound:
                diff[keys[p] & slots] += step
                p += 1
    return p, False


@_jit
def _count_slot_keys(starts, keys, slot_bits, group_bits, exact, width, keys_first, lo_bits,
                     hi_bits, c_rank, d_rank, closed, k0, i0, i1, undecided, c_out):
    """:func:`idrisk.risk._fewkernels.few_stack` of a task's sorted slot keys (see the
    module's notes; ``lo_bits``/``hi_bits``: the targets' bounds on u as uint64, in their
    order), into ``c_out[i]`` for targets ``i0``..``i1 - 1``.

    Where a bound's kept bits equal a row's, the values decide when they are ``exact``
    (:func:`_stack_slot_keys`); otherwise the window's end is undecided: it stays before those
    rows (a later bound above their kept bits steps over them) and the target is written to
    ``undecided``, its counts to be found again from the values (:func:`_recount`). Returns
    the number of undecided targets, or -1 when they do not fit ``undecided`` (the task must
    then be counted the exact way)."""
    n_keys = starts.shape[0] - 1
    is_open = not closed
    slots = (np.uint64(1) << np.uint64(slot_bits)) - np.uint64(1)
    drop = np.uint64(slot_bits + group_bits)
    kept = np.uint64(64 - slot_bits - group_bits)
    lo_first, hi_first = lo_bits.view(np.float64), hi_bits.view(np.float64)
    fixed = _fewkernels.masked_width(c_rank, d_rank, i0, i1)
    diff = np.zeros(c_out.shape[1] * width, dtype=np.int32)
    n_undecided = 0
    current = -1
    prefix = np.uint64(0)
    p = 0
    q = 0
    stop = 0
    for i in range(i0, i1):
        k = keys_first[i]
        if k < 0 or k >= n_keys:
            _fewkernels.window_counts(diff, width, fixed, 0, 0, False, i, c_out)
            continue
        if k != current:  # empty the window (diff back to zeros), then the key's block
            while p < q:
                diff[keys[p] & slots] -= 1
                p += 1
            while q < p:
                diff[keys[q] & slots] += 1
                q += 1
            current = k
            p = starts[k]
            q = p
            stop = starts[k + 1]
            prefix = np.uint64(k - k0) << kept if group_bits > 0 else np.uint64(0)
        whole = key(lo_first[i], lo_bits[i], 0, 0, 0, 0)
        p, lo_undecided = _end(keys, p, stop, prefix | (whole >> drop), whole, slot_bits, drop,
                               exact, is_open, -1, diff)  # fmt: skip
        whole = key(hi_first[i], hi_bits[i], 0, 0, 0, 0)
        q, hi_undecided = _end(keys, q, stop, prefix | (whole >> drop), whole, slot_bits, drop,
                               exact, closed, 1, diff)  # fmt: skip
        if lo_undecided or hi_undecided:  # (counted again from the values: _recount)
            if n_undecided == undecided.shape[0]:
                return -1
            undecided[n_undecided] = i
            n_undecided += 1
        _fewkernels.window_counts(diff, width, fixed, c_rank[i], d_rank[i], p < q, i, c_out)
    return n_undecided


@_jit
def _window_count(values, ranks, a, b, lo, hi, c, d, closed):
    """Rows ``a``..``b - 1`` of a dataset's :func:`key_side` whose u lies in ``(lo, hi)``
    (``[lo, hi]`` when ``closed``) and whose w rank in ``[c, d)``: a target's count, row by
    row."""
    count = 0
    for p in range(a, b):
        u = values[p]
        inside = (lo <= u and u <= hi) if closed else (lo < u and u < hi)
        count += inside and c <= ranks[p] and ranks[p] < d
    return count


def _recount(undecided: np.ndarray, group: list[int], sides: dict[int, tuple],
             row_starts: np.ndarray, targets: Any, windows: tuple, closed: bool,
             buf: np.ndarray) -> None:  # fmt: skip
    """The counts of the ``undecided`` targets (:func:`_count_slot_keys`) of every dataset of
    ``group`` into ``buf``, from the values (:func:`_window_count`)."""
    c_rank, d_rank = windows
    for i in undecided:
        k = targets.keys_first[i]
        a, b = row_starts[k], row_starts[k + 1]
        for q, j in enumerate(group):
            values, ranks = sides[j]
            buf[i, q] = _window_count(
                values, ranks, a, b, targets.lo_first[i], targets.hi_second[i], c_rank[i],
                d_rank[i], closed,
            )  # fmt: skip


@_jit
def _take_pairs(order, pair, out_u, out_slot):
    """``out_u, out_slot = pair[order, 0], pair[order, 1]`` (as int32) in one pass: one
    random read a row where two arrays take two."""
    for i in range(order.shape[0]):
        r = order[i]
        out_u[i] = pair[r, 0]
        out_slot[i] = np.int32(pair[r, 1])


@_jit
def _gather(buf, at, columns, c_out):
    """``c_out[r, columns[q]] = buf[at[r], q]``: a group's counts, in the targets' order, into
    its datasets' columns in the records' order (``at[r]``: record r's place among the
    targets), one column after the other (random reads, sequential writes)."""
    for q in range(columns.shape[0]):
        j = columns[q]
        for r in range(at.shape[0]):
            c_out[r, j] = buf[at[r], q]


def _tasks(row_starts: np.ndarray, target_starts: np.ndarray,
           datasets: list[int]) -> tuple[list[list[int]], list[tuple[int, int]]]:  # fmt: skip
    """The groups and the key ranges (k0, k1) of the tasks (one per group and range): groups
    of datasets small enough that the largest key's rows of a group fit :data:`TASK_ROWS`,
    and ranges of at most :data:`TASK_KEYS` keys holding at most as many rows (a key with more
    alone), each from a key with targets to one."""
    if not datasets:
        return [], []
    sizes = np.diff(row_starts)
    with_targets = np.diff(target_starts) > 0
    largest = int(sizes[with_targets].max(initial=0))
    per_group = max(1, min(len(datasets), TASK_ROWS // max(largest, 1)))
    n_groups = -(-len(datasets) // per_group)
    groups = [list(g) for g in np.array_split(np.asarray(datasets), n_groups)]
    per_group = max(len(g) for g in groups)
    ranges = []
    k0 = last = -1  # the open range's first and last keys with targets
    held = 0
    for k in range(len(sizes)):
        size = int(sizes[k]) * per_group
        if k0 >= 0 and (held + size > TASK_ROWS or k - k0 >= TASK_KEYS):
            ranges.append((k0, last + 1))
            k0 = -1
        if k0 < 0:
            if not with_targets[k]:
                continue
            k0, held = k, 0
        held += size
        if with_targets[k]:
            last = k
    if k0 >= 0:
        ranges.append((k0, last + 1))
    return groups, ranges


def count_by_key(targets: Any, n_values: int, n_keys: int, windows: tuple, closed: bool,
                 row_starts: np.ndarray, sides: dict[int, tuple], c_out: np.ndarray,
                 run: Callable[[list], None], done: Callable[[int], None]) -> None:  # fmt: skip
    """The counts of the datasets ``sides`` (j -> its :func:`key_side`: values, ranks; keys
    at ``row_starts``, the same for each) into ``c_out[:, j]``, by the tasks of the module's
    notes run by ``run`` (a list of callables); once dataset j's counts are all written, it is
    dropped from ``sides`` and ``done(j)`` is called.

    ``targets``, ``n_values``, ``n_keys``, ``windows`` (the targets' rank windows) and
    ``closed``: the first dataset's :class:`idrisk.risk._fewgrid.FewSweep`."""
    t = targets
    c_rank, d_rank = windows
    width = n_values + 16
    n = len(t.first)
    target_starts = np.searchsorted(t.keys_first, np.arange(n_keys + 1))
    dead = int(target_starts[0])  # targets with a key < 0 (first in the sweep's order)
    groups, ranges = _tasks(row_starts, target_starts, sorted(sides))
    at = np.empty(n, dtype=np.int64)  # each record's place among the targets
    at[t.first] = np.arange(n)
    bufs: dict[int, np.ndarray] = {}  # a group's counts in the targets' order (while counted)
    left = [len(ranges)] * len(groups)
    lock = threading.Lock()
    # memory reused from task to task (new memory costs its first touch): each thread's
    # work arrays, sized for the largest task, and the buffers of the groups already gathered
    rows = max((int(row_starts[k1] - row_starts[k0]) for k0, k1 in ranges), default=0)
    most = rows * max((len(group) for group in groups), default=0)
    scratch = threading.local()
    by_slot = [True]  # (sticky: see UNDECIDED_MAX)
    lo_bits, hi_bits = t.lo_first.view(np.uint64), t.hi_second.view(np.uint64)
    spare: list[np.ndarray] = []
    whole: dict[int, np.ndarray] = {}  # a group's buffer as allocated (the widest group's)

    def task(g: int, k0: int, k1: int) -> None:
        group = groups[g]
        with lock:
            if g not in bufs:
                found = spare.pop() if spare else np.empty((n, max(map(len, groups))),
                                                           dtype=np.int32, order="F")
                whole[g] = found
                bufs[g] = found[:, :len(group)]
                bufs[g][:dead] = 0
            buf = bufs[g]
        if not hasattr(scratch, "keys"):
            scratch.keys = np.empty(most, dtype=np.uint64)
        i0, i1 = int(target_starts[k0]), int(target_starts[k1])
        total = int(row_starts[k1] - row_starts[k0]) * len(group)
        keys = scratch.keys[:total]
        group_bits = (k1 - 1 - k0).bit_length()
        starts = np.zeros(n_keys + 1, dtype=np.int64)  # key k's rows of the group, sorted
        starts[k0 + 1:k1 + 1] = (row_starts[k0 + 1:k1 + 1] - row_starts[k0]) * len(group)
        slot_bits = (len(group) * width - 1).bit_length()
        if by_slot[0] and 64 - group_bits - slot_bits >= VALUE_MIN_BITS:
            exact = True
            for q, j in enumerate(group):
                values, ranks = sides[j]
                exact &= _stack_slot_keys(values, ranks, row_starts, k0, k1, q, width,
                                          group_bits, slot_bits, keys)  # fmt: skip
            keys.sort()
            undecided = np.empty(UNDECIDED_MAX, dtype=np.int64)
            found = _count_slot_keys(starts, keys, slot_bits, group_bits, exact, width,
                                     t.keys_first, lo_bits, hi_bits, c_rank, d_rank, closed,
                                     k0, i0, i1, undecided, buf)  # fmt: skip
            if found >= 0:
                _recount(undecided[:found], group, sides, row_starts, t, windows, closed, buf)
                return
            by_slot[0] = False  # (too many undecided: this task and the later ones exact)
        shift = max(1, (total - 1).bit_length())
        if 64 - group_bits - shift < VALUE_MIN_BITS:  # (never: see TASK_KEYS)
            raise AssertionError("a task's keys and rows leave too few bits of the value")
        if not hasattr(scratch, "pair"):
            scratch.pair = np.empty((most, 2), dtype=np.float64)
            scratch.sorted_u = np.empty(most, dtype=np.float64)
            scratch.slot = np.empty(most, dtype=np.int32)
        pair = scratch.pair[:total]
        for q, j in enumerate(group):
            values, ranks = sides[j]
            _stack_rows(values, ranks, row_starts, k0, k1, q, width, group_bits, shift, keys,
                        pair)  # fmt: skip
        keys.sort()
        order = rows_of(keys, shift, pair[:, 0])
        sorted_u, slot = scratch.sorted_u[:total], scratch.slot[:total]
        _take_pairs(order, pair, sorted_u, slot)
        _fewkernels.few_stack(starts, sorted_u, slot, width, t.keys_first, t.lo_first,
                              t.hi_second, c_rank, d_rank, t.first, closed, i0, i1, 0,
                              buf)  # fmt: skip

    unfinished = [len(groups)]
    last_group: list[int] = []  # the group finished last: gathered after, by every thread

    def finish(g: int, k0: int, k1: int) -> None:
        task(g, k0, k1)
        with lock:
            left[g] -= 1
            closing = not left[g]
            if closing:
                unfinished[0] -= 1
                if not unfinished[0]:
                    last_group.append(g)
                    return
        if closing:
            close(g)

    def close(g: int, parts: int = 1) -> None:  # a group's counts into c_out, datasets dropped
        kept = bufs.pop(g, None)
        buf = kept if kept is not None else np.zeros((n, len(groups[g])), dtype=np.int32,
                                                     order="F")  # (no range: no target's key)
        columns = np.asarray(groups[g], dtype=np.int64)
        if parts == 1:
            _gather(buf, at, columns, c_out)
        else:
            cut = [n * p // parts for p in range(parts + 1)]
            run([lambda a=a, b=b: _gather(buf, at[a:b], columns, c_out[a:b])
                 for a, b in zip(cut[:-1], cut[1:])])  # fmt: skip
        if kept is not None:
            with lock:  # (for the next group)
                spare.append(whole.pop(g))
        for j in groups[g]:
            sides.pop(j, None)
            done(j)

    if not ranges:
        for g in range(len(groups)):
            close(g)
    run([lambda g=g, k0=k0, k1=k1: finish(g, k0, k1) for g in range(len(groups))
         for k0, k1 in ranges])  # fmt: skip
    for g in last_group:  # (the other threads have no task left: the gather is split)
        close(g, GATHER_PARTS)
