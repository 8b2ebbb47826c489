"""The count's threads: helper threads kept for the process, and items shared among them.

A thread's start costs ~0.1 ms, and a radius of a small sweep is counted in ~0.5 ms: the
helpers are started once (:func:`start_helpers`, a pool grown to the most asked for) and
:func:`share` hands each thread the next item until none is left (one hand-off per thread,
where a pool's ``map`` has one per item). A forked process starts helpers of its own.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

__all__ = ["CORES", "NO_BAR", "NoBar", "share", "start_helpers"]

#: the cores, read once (``os.cpu_count`` costs ~10 us a call; a sweep's radius asks twice)
CORES = os.cpu_count() or 1


class NoBar:
    """A progress bar that shows nothing (the steps after a bar's datasets are done)."""

    def update(self, k: int = 1) -> None:
        pass


NO_BAR = NoBar()

#: the helper threads of :func:`share` (pool, its size), started once and grown to the most
#: asked for (a thread's start costs ~0.1 ms: a radius of a small sweep is counted in ~0.5 ms)
HELPERS: list[tuple[ThreadPoolExecutor, int]] = []
HELPERS_LOCK = threading.Lock()


def start_helpers(work: Any, count: int) -> list:
    """``count`` helpers running ``work`` (futures), from a pool of at least ``count``
    threads, or of one fewer than the cores."""
    size = max(count, CORES - 1)
    with HELPERS_LOCK:  # (a pool is replaced only here: no submit after its shutdown)
        if not HELPERS or HELPERS[0][1] < size:
            if HELPERS:
                HELPERS[0][0].shutdown(wait=False)  # (its threads finish what they hold)
                HELPERS.clear()
            HELPERS.append((ThreadPoolExecutor(size, thread_name_prefix="idrisk-count"), size))
        pool = HELPERS[0][0]
        return [pool.submit(work) for _ in range(count)]


def forget_helpers() -> None:
    """In a forked process: none of the parent's threads exist, and the lock may have been
    held by one of them at the fork."""
    global HELPERS_LOCK
    HELPERS_LOCK = threading.Lock()
    HELPERS.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=forget_helpers)


def share(task: Any, items: Iterable[int], workers: int, bar: Any) -> None:
    """``task(j)`` for every item, on ``workers`` threads (this one and helper threads kept
    for the process) that each take the next item until none is left: one hand-off per
    thread, where a pool's ``map`` has one per item (numpy's sorts and the kernels release
    the GIL). The first error stops the others at their next item and is raised here. A
    helper that has not started when this thread runs out of items is called off (so that a
    busy pool, or a count inside a helper, never waits for itself)."""
    if workers <= 1:
        for j in items:
            task(j)
            bar.update()
        return
    left = iter(items)
    lock = threading.Lock()
    errors: list[BaseException] = []

    def work() -> None:
        while not errors:
            with lock:
                j = next(left, None)
            if j is None:
                return
            try:
                task(j)
            except BaseException as error:  # noqa: BLE001 -- raised by the calling thread
                errors.append(error)
                return
            bar.update()

    started = start_helpers(work, workers - 1)
    work()
    for future in started:
        if not future.cancel():
            future.result()
    if errors:
        raise errors[0]
