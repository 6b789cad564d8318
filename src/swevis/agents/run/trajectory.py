"""Step records and the trajectory file (format swevis-traj-1; see docs/DESIGN.md results layout).

Every step is appended to a journal (JSON lines) the moment it completes, so a crash loses
at most the step in flight; traj.json is written at the end from the same records.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from swevis import provenance
from swevis.agents.observation.actions import classify_action, scripts_written
from swevis.agents.observation.pages import PAGES_KEY, SHOWS_KEY
from swevis.redaction import redact

TRAJ_FORMAT = "swevis-traj-1"

# mini-swe-agent exit statuses -> ours
EXIT_STATUS = {
    "Submitted": "submitted",
    "LimitsExceeded": "step_limit",
    "TimeExceeded": "step_limit",
    "RepeatedFormatError": "format_errors",
    "ContextLengthExceeded": "context_length",
    "CostLimitExceeded": "cost_limit",
}


def exit_status_of(mini_status: str) -> str:
    return EXIT_STATUS.get(mini_status, "error")


def image_free(content: Any) -> Any:
    """Message content with image data replaced by its label and size, and no text a page
    shows (SHOWS_KEY), so traj.json stays small."""
    if not isinstance(content, list):
        return content
    out = []
    for part in content:
        if isinstance(part, dict) and part.get("type") == "image_url":
            url = part.get("image_url", {}).get("url", "")
            out.append({"type": "image_url", "label": part.get("swevis_label"), "bytes_b64": len(url)})
        else:
            out.append({k: v for k, v in part.items() if k not in (SHOWS_KEY, PAGES_KEY)} if isinstance(part, dict) else part)
    return out


class StepRecorder:
    """Collects the steps of one trajectory (all phases) and journals each as it completes."""

    def __init__(self, journal_path: str | Path | None = None):
        self.steps: list[dict[str, Any]] = []
        self.scripts: dict[str, str] = {}  # files the actions wrote whole: running one is classed by its text
        self.journal_path = Path(journal_path) if journal_path else None
        if self.journal_path:
            self.journal_path.parent.mkdir(parents=True, exist_ok=True)

    @property
    def resumed_steps(self) -> int:
        """How many steps of a killed run's journal this recorder re-plays (none: a new run)."""
        return 0

    def _journal(self, record: dict[str, Any]) -> None:
        if not self.journal_path:
            return
        with self.journal_path.open("a") as fh:
            fh.write(redact(json.dumps(record, default=str)) + "\n")  # appended: not through fsutil
            fh.flush()
            os.fsync(fh.fileno())

    def add(
        self,
        *,
        phase: str,
        action: str | None,
        tool: str | None,
        observation: dict[str, Any] | None,
        usage: dict[str, Any],
        format_error: bool = False,
        response: str | None = None,
        history_pages: int = 0,
    ) -> dict[str, Any]:
        """One step; `history_pages`: the pages its request sent for the first time outside
        its observation (hist-rN's and both-rN's frozen history blocks)."""
        step = {
            "index": len(self.steps),
            "phase": phase,
            "action": action,
            "action_class": None if format_error else classify_action(action, self.scripts),
            "tool": tool,
            "observation": observation or {"kind": "none", "pages": 0, "tokens": 0, "window": None},
            "usage": usage,
            "format_error": format_error,
            "history_pages": history_pages,
        }
        self.steps.append(step)
        if not format_error:
            self.scripts.update(scripts_written(action))
        self._journal({"step": step, "response": response})
        return step

    def phase_totals(self) -> dict[str, dict[str, int]]:
        """Tokens, calls and steps per phase; cached_prompt_tokens is the part of prompt_tokens
        the endpoint served from its prefix cache (billed at the cached-input price)."""
        phases: dict[str, dict[str, int]] = {}
        for s in self.steps:
            p = phases.setdefault(s["phase"], {"prompt_tokens": 0, "cached_prompt_tokens": 0, "completion_tokens": 0,
                                               "calls": 0, "steps": 0})
            p["prompt_tokens"] += int(s["usage"].get("prompt_tokens") or 0)
            p["cached_prompt_tokens"] += int(s["usage"].get("cached_prompt_tokens") or 0)
            p["completion_tokens"] += int(s["usage"].get("completion_tokens") or 0)
            p["calls"] += 1
            p["steps"] += 1
        return phases

    def totals(self) -> dict[str, int]:
        return {
            "prompt_tokens": sum(int(s["usage"].get("prompt_tokens") or 0) for s in self.steps),
            "cached_prompt_tokens": sum(int(s["usage"].get("cached_prompt_tokens") or 0) for s in self.steps),
            "completion_tokens": sum(int(s["usage"].get("completion_tokens") or 0) for s in self.steps),
            "calls": len(self.steps),
            "format_errors": sum(1 for s in self.steps if s["format_error"]),
            # every page sent, once: each observation's, and each history page when its block froze
            "image_pages": sum(int(s["observation"].get("pages") or 0) + int(s.get("history_pages") or 0)
                               for s in self.steps),
            "history_pages": sum(int(s.get("history_pages") or 0) for s in self.steps),
        }

    def viewed_windows(self, phases: tuple[str, ...] | None = None) -> list[list[Any]]:
        out = []
        for s in self.steps:
            if phases and s["phase"] not in phases:
                continue
            obs = s["observation"]
            if obs.get("window"):
                w = obs["window"]
                out.append([w["path"], w["start"], w["end"]])
            for w in obs.get("windows") or []:
                out.append([w["path"], w["start"], w["end"]])
        return out


def write_json_atomic(data: Any, path: str | Path) -> None:
    provenance.write_json_atomic(data, path)
