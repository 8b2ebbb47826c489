"""The few-values grid's datasets after the first, counted together by ranges of keys (large
inputs whose synthetic datasets share the first one's keys: known categorical variables).

Per dataset, :class:`idrisk.risk._fewgrid.FewSweep` sorts the rows, lays them out and passes
over every target: a target's window ends mispredict once per dataset, and the counts are
scattered into the dataset's column. Here the work is cut into tasks of a range of keys and a
group of datasets (about :data:`TASK_ROWS` rows each): the task's rows of every dataset of its
group are stacked in one array, sorted once by (key, u) with numpy's integer sort
(:func:`idrisk.risk._order.key`), and one pass over the range's targets counts every dataset
of the group (:func:`idrisk.risk._fewkernels.few_stack`, as a small sweep's stack) into a
buffer in the targets' order, scattered into the datasets' columns afterwards. The counts are
those of the per-dataset sweep: the same rows lie between a window's ends whatever the order
of equal values.
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

#: the rows (of every dataset of a group) a task stacks: 32 bytes each while it runs
TASK_ROWS = 1 << 20

#: the most keys in a task's range (their number takes the sort keys' top bits: with
#: TASK_ROWS, 16 and 20 bits leave 28 of the value's; one key alone takes no bit)
TASK_KEYS = 1 << 16


@_jit
def key_side(skey, y, u, values, n_keys, last, row_starts, out_values, out_ranks):
    """A later dataset's live rows grouped by key: key k's u values at ``row_starts[k]:
    row_starts[k + 1]`` of ``out_values`` and the ranks of their w among ``values`` in
    ``out_ranks`` (row order within a key), in one sequential pass after the cells of
    :func:`idrisk.risk._fewkernels.few_fit` (``last``'s when w is the first dataset's). False
    (the outputs then invalid) when the dataset does not fit the sweep (as ``few_fit``).
    ``skey`` must be the first dataset's keys (those of ``last`` and ``row_starts``)."""
    last_skey, last_w, cells, _ = last
    if not _fewkernels.same_rows(last_skey, skey, last_w, y[:, 1 - u]):
        cells = np.empty_like(cells)
        _, ok = _fewkernels.few_cells(skey, y[:, 1 - u], values, n_keys, cells)
        if not ok:
            return False
    n_values = values.shape[0]
    fill = row_starts[:-1].copy()
    for r in range(skey.shape[0]):
        k = skey[r]
        if k < 0:
            continue
        if k >= n_keys or np.isnan(y[r, u]):
            return False
        p = fill[k]
        fill[k] = p + 1
        out_values[p] = y[r, u]
        out_ranks[p] = cells[r] - k * n_values
    return True


@_jit
def _stack_rows(values, ranks, row_starts, k0, k1, q, width, group_bits, shift, keys, stacked,
                slots):  # fmt: skip
    """Dataset q (of a task's group) of keys ``k0``..``k1 - 1`` (its :func:`key_side`) into
    ``stacked`` and ``slots`` at ``q * rows``, with their sort :func:`key` by (key - k0, u)."""
    a = row_starts[k0]
    base = q * (row_starts[k1] - a) - a
    bits = values.view(np.uint64)
    for k in range(k0, k1):
        for p in range(row_starts[k], row_starts[k + 1]):
            pos = base + p
            stacked[pos] = values[p]
            slots[pos] = q * width + ranks[p]
            keys[pos] = key(values[p], bits[p], k - k0, group_bits, shift, pos)


@_jit
def _scatter(buf, first, i0, columns, c_out):
    """``c_out[first[i0 + i], columns[q]] = buf[i, q]``: a task's counts, in the targets'
    order, into the datasets' columns (one column after the other)."""
    for q in range(columns.shape[0]):
        j = columns[q]
        for i in range(buf.shape[0]):
            c_out[first[i0 + i], j] = buf[i, q]


def _tasks(row_starts: np.ndarray, target_starts: np.ndarray, datasets: list[int]) -> list:
    """(k0, k1, group) of every task: groups of datasets small enough that the largest key's
    rows of a group fit :data:`TASK_ROWS`, and ranges of at most :data:`TASK_KEYS` keys holding
    at most as many rows (a key with more alone), each from a key with targets to one."""
    if not datasets:
        return []
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
    return [(k0, k1, group) for group in groups for k0, k1 in ranges]


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
    target_starts = np.searchsorted(t.keys_first, np.arange(n_keys + 1))
    dead = int(target_starts[0])  # targets with a key < 0 (first in the sweep's order)
    datasets = sorted(sides)
    for j in datasets:
        c_out[t.first[:dead], j] = 0
    tasks = _tasks(row_starts, target_starts, datasets)
    left = {j: sum(j in group for _, _, group in tasks) for j in datasets}
    lock = threading.Lock()

    def task(k0: int, k1: int, group: list[int]) -> None:
        i0, i1 = int(target_starts[k0]), int(target_starts[k1])
        total = int(row_starts[k1] - row_starts[k0]) * len(group)
        shift = max(1, (total - 1).bit_length())
        group_bits = (k1 - 1 - k0).bit_length()
        if 64 - group_bits - shift < VALUE_MIN_BITS:  # (never: see TASK_KEYS)
            raise AssertionError("a task's keys and rows leave too few bits of the value")
        stacked = np.empty(total, dtype=np.float64)
        slots = np.empty(total, dtype=np.int32)
        keys = np.empty(total, dtype=np.uint64)
        for q, j in enumerate(group):
            values, ranks = sides[j]
            _stack_rows(values, ranks, row_starts, k0, k1, q, width, group_bits, shift, keys,
                        stacked, slots)  # fmt: skip
        keys.sort()
        order = rows_of(keys, shift, stacked)
        del keys
        sorted_u, slot = stacked[order], slots[order]
        del order, stacked, slots
        starts = np.zeros(n_keys + 1, dtype=np.int64)
        starts[k0 + 1:k1 + 1] = (row_starts[k0 + 1:k1 + 1] - row_starts[k0]) * len(group)
        buf = np.empty((i1 - i0, len(group)), dtype=np.int32)
        _fewkernels.few_stack(starts, sorted_u, slot, width, t.keys_first, t.lo_first,
                              t.hi_second, c_rank, d_rank, t.first, closed, i0, i1, i0,
                              buf)  # fmt: skip
        _scatter(buf, t.first, i0, np.asarray(group, dtype=np.int64), c_out)

    def finish(k0: int, k1: int, group: list[int]) -> None:
        task(k0, k1, group)
        for j in group:
            with lock:
                left[j] -= 1
                last = not left[j]
            if last:
                drop(j)

    def drop(j: int) -> None:
        sides.pop(j, None)
        done(j)

    for j in datasets:
        if not left[j]:  # in no task: every target's key is < 0
            drop(j)
    run([lambda z=z: finish(*z) for z in tasks])
