"""`both-r<N>`: obs-rN and hist-rN together. A fresh observation is rendered as obs-rN renders
it (its code windows, and its long text runs: agents.pages.obs_min_tokens, obs_run_chars), and
the history older than the last hist_keep calls is frozen in blocks as hist-rN freezes it
(hist_keep, hist_block, hist_policy, hist_run_chars, hist_min_font_px).

A frozen block draws its calls again from their text, the observations' pages included (each
page set's note says what text it shows; swevis.agents.observation.pages.sent_pieces): the
request changes from that block on whether its pages are kept or drawn again, so the cache
breaks at the same place either way, and one page set a block cost less than the
observations' pages with the text between them drawn apart (docs/counterfactual.md, Page
families).
"""

from __future__ import annotations

from typing import Any

from swevis.page_families.hist_family import HistoryFamily
from swevis.page_families.obs_family import ObservationFamily
from swevis.page_families.record import CallTokens


class BothFamily(ObservationFamily, HistoryFamily):
    """obs's `finish` (each observation) and hist's `history` (each request)."""

    def ceiling_tokens(self, call: CallTokens, settings: Any) -> tuple[int, int]:  # type: ignore[override]
        """(the call whole, as hist's ceiling renders an old call; its observation as obs's
        ceiling renders a recent one)."""
        return HistoryFamily.ceiling_tokens(self, call, settings), ObservationFamily.ceiling_tokens(self, call, settings)

    def eligible(self, calls: list[tuple[int, int]], settings: Any) -> int:  # type: ignore[override]
        """Every call older than the last hist_keep whole, and the recent ones as obs renders them."""
        old = max(0, len(calls) - settings.hist_keep)
        return sum(whole for whole, _ in calls[:old]) + sum(observed for _, observed in calls[old:])


BOTH = BothFamily(name="both", prefix="both-",
                  settings=("obs_min_tokens", "obs_run_chars", "hist_keep", "hist_block", "hist_policy",
                            "hist_run_chars", "hist_min_font_px"))
