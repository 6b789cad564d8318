"""Progress of an index build on stderr: a live "files parsed of total" line when stderr is
a terminal, one summary line when it is not (a log file or a pipe keeps no carriage returns).

Hand-written rather than a progress-bar library: one line, updated at most ten times a
second, is all the build needs, and the project depends on none such.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class BuildProgress:
    """A `progress(done, total, parsed)` callback for `build_index`, and the closing line."""

    def __init__(self, label: str, stream: TextIO | None = None, interval: float = 0.1):
        self.label = label
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty()
        self.interval = interval
        self._last = 0.0
        self._drawn = False

    def __call__(self, done: int, total: int, parsed: int) -> None:
        if not self.live:
            return
        now = time.monotonic()
        if done < total and now - self._last < self.interval:
            return
        self._last = now
        self.stream.write(f"\rindexing {self.label}: {done}/{total} files ({parsed} parsed)\x1b[K")
        self.stream.flush()
        self._drawn = True

    def finish(self, stats) -> None:
        """The summary: files parsed of total, unchanged, removed, seconds."""
        line = (f"indexed {self.label}: {stats.files_parsed} of {stats.n_files} files parsed, {stats.files_unchanged}"
                f" unchanged, {stats.files_removed} removed ({stats.mode}, {stats.seconds:.1f} s)")
        self.stream.write(("\r" if self._drawn else "") + line + ("\x1b[K\n" if self._drawn else "\n"))
        self.stream.flush()
