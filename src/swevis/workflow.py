"""Helpers the Snakefile calls while it builds the DAG (kept here so they are tested)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterable

from swevis.fsutil import write_atomic


def missing_inputs_token(ledger: str | Path, outputs: Iterable[str], inputs: Iterable[str]) -> int:
    """A rule param that changes exactly when expected inputs go missing behind existing outputs.

    Snakemake does not rebuild a deleted intermediate (a condition's summary) while the
    files that consume it (the tables) exist, whatever their mtimes. A param that lists the
    summaries present would trigger the rebuild, but it would also trigger a second,
    needless one on the next run (the params recorded during the rebuild still lack the
    deleted summary). This token avoids that: each time inputs are found missing behind
    the current outputs, the ledger records the event once (keyed by the missing paths and
    the outputs' newest mtime) and the token grows by one; it stays put otherwise, so the
    run after the rebuild sees the same token and does nothing.
    """
    ledger = Path(ledger)
    try:
        state = json.loads(ledger.read_text())
    except (OSError, json.JSONDecodeError):
        state = {"token": 0, "events": []}
    missing = sorted(p for p in inputs if not os.path.exists(p))
    existing = [Path(p).stat().st_mtime for p in outputs if os.path.exists(p)]
    if missing and existing:
        event = [missing, max(existing)]
        if event not in state["events"]:
            state["events"] = (state["events"] + [event])[-100:]
            state["token"] += 1
            write_atomic(ledger, json.dumps(state))
    return int(state["token"])
