"""`obs-r<N>`: code windows and long non-code observations (test output, tracebacks,
listings, diffs) rendered; short ones stay text (agents.pages.obs_min_tokens), and so do the
lines of rulers and progress dots (obs_run_chars)."""

from __future__ import annotations

from typing import Any

from swevis.page_families.record import CallTokens, PageFamily


class ObservationFamily(PageFamily):
    def finish(self, pages: Any, settings: Any, content: Any, record: dict[str, Any], label: str) -> tuple[Any, dict]:
        """Each long text run of the observation as pages too (the record counts them in
        `pages` and `output_pages`, and its tokens as shown, and says why a run that could not
        be drawn stays text in `output_text_reasons`)."""
        content, added, failed = pages.long_text(content, settings.obs_min_tokens, label, settings.obs_run_chars)
        if failed:  # runs that could not be drawn stay text: why (missing_glyph, render_failed)
            record = {**record, "output_text_reasons": failed}
        if not added:
            return content, record
        tokens = pages.message_tokens(content) - pages.message_tokens("")
        return content, {**record, "kind": "image", "pages": int(record.get("pages") or 0) + added,
                         "output_pages": added, "tokens": tokens}

    def ceiling_tokens(self, call: CallTokens, settings: Any) -> int:
        """An observation of at least obs_min_tokens whole, else its code windows."""
        whole = call.observation()
        return whole if whole is not None and whole >= settings.obs_min_tokens else call.code


OBS = ObservationFamily(name="obs", prefix="obs-", settings=("obs_min_tokens", "obs_run_chars"))
