"""`hist-r<N>`: the history older than the last agents.pages.hist_keep calls rendered, frozen
in blocks of hist_block calls; the recent calls stay text, and a fresh observation is never
rendered (not even its code windows)."""

from __future__ import annotations

from typing import Any

from swevis.page_families.record import CallTokens, PageFamily


class HistoryFamily(PageFamily):
    def history(self, pages: Any, settings: Any) -> Any:
        """The frozen blocks of old calls, memoized: a page once sent is the same bytes in every later request."""
        return pages.history(settings.hist_keep, settings.hist_block, settings.hist_policy, settings.hist_run_chars,
                             settings.hist_min_font_px)

    def ceiling_tokens(self, call: CallTokens, settings: Any) -> int:
        """The whole call, its turn and its observation (no blocks: rendered the moment it is old)."""
        return call.turn_and_observation()

    def eligible(self, calls: list[int], settings: Any) -> int:
        """Every call older than the last hist_keep."""
        return sum(calls[: max(0, len(calls) - settings.hist_keep)])


HIST = HistoryFamily(name="hist", prefix="hist-",
                     settings=("hist_keep", "hist_block", "hist_policy", "hist_run_chars", "hist_min_font_px"),
                     code_windows=False)
