"""Resumable trajectories: the step journal, and picking a killed run up where it stopped.

The journal (JSON lines, one file per (model, agent-scope, condition, instance), under
``agents.journal_dir``, outside the rule's outputs so Snakemake never deletes it) holds

    line 1   {"journal": "swevis-journal-1", "identity": {...}}
    line k   {"step": <step record>, "response": <the assistant turn's full text>}

Each step is appended (and fsynced) by :class:`~swevis.agents.run.trajectory.StepRecorder` the
moment it completes. One model call gives exactly one step (mini's parser accepts one
action per turn), so the recorded responses are the trajectory's assistant turns in order.

Resuming (a rerun finds a journal whose identity matches):

1. The environment starts afresh (a new checkout at base_commit, or a new container).
2. The journal's recorded turns are re-run through the *same* agent loop: a
   :class:`~swevis.models.playback.PlaybackModel` serves them in order, so every recorded action
   is executed again (rebuilding the working tree: edits, files, LET's committed plan) and
   every observation is rebuilt for the conversation. No request is made for them.
3. :class:`ResumingRecorder` keeps the journal's own step records for those steps (usage as
   billed, not re-estimated), checks that each re-run step is the recorded one, and does
   not journal them twice.
4. When the recorded turns run out the PlaybackModel's ``fallback`` (composed by
   :func:`swevis.agents.run.chat.open_chat_stack`) -- the live model,
   behind the spend guard seeded with the journal's spend -- takes over, and new steps are
   journaled as before.

A run that is killed while a request is in flight repeats that one request: at most
steps + 1 requests in total. A run that fails on the machinery (an InfrastructureError:
the endpoint unreachable or refusing past its retries, no API key, no environment) writes
no ``traj.json`` and keeps its journal, so the retry makes only the requests that are
missing (the failed call and those after it). The journal is discarded when the trajectory
completes (``traj.json`` written), except when it ended on a spend cap: a rerun after
raising the cap continues instead of paying again. A journal written under a different identity (other model settings, limits,
condition, renderer or pre-localization) is discarded with a warning, never re-run.
Playback backends never resume: their runs are free and deterministic, they start afresh.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any

from swevis.agents.observation.actions import scripts_written
from swevis.agents.run.trajectory import StepRecorder
from swevis.errors import SwevisError
from swevis.fsutil import write_atomic
from swevis.models.playback import PlaybackSource, PlaybackTurn
from swevis.models.spend import Spend, spend_of_usage

log = logging.getLogger(__name__)

JOURNAL_FORMAT = "swevis-journal-1"

# What a trajectory depends on. Keys left out (spend caps, retries, timeouts of requests,
# prices, cache and folder settings) may change between a kill and the rerun.
PROFILE_IDENTITY_KEYS = (
    "backend", "model_id", "base_url", "tokenizer", "image_family", "temperature", "max_tokens",
    "max_tokens_field", "top_p", "seed", "extra_body", "max_images_per_request", "image_policy",
)
AGENT_IDENTITY_KEYS = (
    "step_limit", "locator_step_limit", "editor_step_limit", "max_format_errors", "wide_margin",
    "max_window_chars", "let_editor_visual", "environment", "command_timeout_s", "top_k",
)


class ResumeDiverged(SwevisError):
    """A re-run step is not the step the journal recorded (the journal cannot be trusted)."""


def _digest(data: Any) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:16]


def journal_identity(spec: Any) -> dict[str, Any]:
    """The key of a trajectory's journal: who runs what, where, and a hash of the settings."""
    profile = spec.profile or {}
    agents = spec.settings.to_dict()
    settings = {
        "profile": {k: profile.get(k) for k in PROFILE_IDENTITY_KEYS},
        "agents": {k: agents[k] for k in AGENT_IDENTITY_KEYS},
        "render": spec.render_cfg,
        "index": spec.localize_cfg,
        "preloc": (spec.preloc or {}).get("package"),
    }
    return {
        "model": spec.model_name,
        "agent": spec.agent,
        "scope": spec.scope,
        "condition": spec.condition,
        "instance_id": spec.row.get("instance_id"),
        "repeat": spec.repeat,
        "settings": _digest(settings),
    }


def read_journal(path: str | Path) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """(header, step records). A line cut short by a kill ends the readable part."""
    header, records = None, []
    with Path(path).open(encoding="utf-8") as fh:
        for n, line in enumerate(fh):
            if not line.endswith("\n"):
                log.warning("journal %s: dropping a half-written last line", path)
                break
            try:
                rec = json.loads(line)
            except ValueError:
                log.warning("journal %s: line %d is not JSON; keeping the %d steps before it", path, n + 1, len(records))
                break
            if n == 0:
                header = rec if isinstance(rec, dict) and rec.get("journal") == JOURNAL_FORMAT else None
                if header is None:
                    return None, []
                continue
            if not isinstance(rec, dict) or not isinstance(rec.get("step"), dict):
                log.warning("journal %s: line %d is not a step record; keeping the steps before it", path, n + 1)
                break
            records.append(rec)
    return header, records


class ResumingRecorder(StepRecorder):
    """A StepRecorder that first re-plays the journal's steps (kept as recorded, not journaled
    again), then records and journals new ones."""

    def __init__(self, journal_path: str | Path | None, prior: list[dict[str, Any]]):
        super().__init__(journal_path)
        self.prior = prior
        self.observation_mismatches = 0

    @property
    def resumed_steps(self) -> int:
        return len(self.prior)

    def add(self, **kwargs: Any) -> dict[str, Any]:
        i = len(self.steps)
        if i >= len(self.prior):
            return super().add(**kwargs)
        recorded = self.prior[i]
        if (recorded.get("phase"), recorded.get("action")) != (kwargs.get("phase"), kwargs.get("action")):
            raise ResumeDiverged(
                f"journal {self.journal_path}: re-run step {i} is {kwargs.get('phase')}:{kwargs.get('action')!r}, "
                f"the journal recorded {recorded.get('phase')}:{recorded.get('action')!r}; delete the journal to start afresh"
            )
        obs = kwargs.get("observation") or {}
        if int(obs.get("tokens") or 0) != int((recorded.get("observation") or {}).get("tokens") or 0):
            self.observation_mismatches += 1
            log.warning("resumed step %d: the rebuilt observation differs from the recorded one", i)
        step = {**recorded, "index": i}
        self.steps.append(step)
        if not kwargs.get("format_error"):  # later steps class a script run by what this one wrote, as live
            self.scripts.update(scripts_written(kwargs.get("action")))
        return step


class TrajectoryJournal:
    """One trajectory's journal: validated on open, re-run on resume, discarded on completion."""

    def __init__(self, path: str | Path | None, identity: dict[str, Any], *, resume: bool = True):
        self.path = Path(path) if path else None
        self.identity = identity
        self.records: list[dict[str, Any]] = []
        self.discarded_reason: str | None = None
        if self.path is None:
            return
        if self.path.exists():
            if not resume:
                self.discarded_reason = "resume disabled"
            else:
                try:
                    header, records = read_journal(self.path)
                except OSError as exc:
                    header, records = None, []
                    log.warning("journal %s cannot be read (%s)", self.path, exc)
                if header is None:
                    self.discarded_reason = "no valid header"
                elif header.get("identity") != identity:
                    self.discarded_reason = "written for other settings"
                else:
                    self.records = records
            if self.discarded_reason:
                log.warning("journal %s discarded (%s): starting afresh", self.path, self.discarded_reason)
            elif self.records:
                log.info("journal %s: resuming after %d recorded step(s)", self.path, len(self.records))
        self._rewrite()

    def _rewrite(self) -> None:
        """Header + the readable records, atomically (drops a half-written line)."""
        assert self.path is not None
        lines = [json.dumps({"journal": JOURNAL_FORMAT, "identity": self.identity})]
        lines += [json.dumps(rec, default=str) for rec in self.records]
        write_atomic(self.path, "".join(line + "\n" for line in lines), fsync=True)

    @property
    def resumed(self) -> bool:
        return bool(self.records)

    @property
    def prior_steps(self) -> list[dict[str, Any]]:
        return [r["step"] for r in self.records]

    def turns(self) -> list[PlaybackTurn]:
        """The recorded assistant turns, in order (untagged: they serve every purpose in turn)."""
        return [
            PlaybackTurn(content=r["response"], index=i)
            for i, r in enumerate(self.records)
            if r.get("response") is not None
        ]

    def recorder(self) -> StepRecorder:
        return ResumingRecorder(self.path, self.prior_steps) if self.resumed else StepRecorder(self.path)

    def recorded_source(self) -> PlaybackSource | None:
        """The journal's recorded assistant turns, as the source a PlaybackModel serves, or
        None when there are none."""
        turns = self.turns()
        return PlaybackSource("swevis-journal", str(self.path), turns) if turns else None

    def prior_spend(self, profile: dict[str, Any]) -> Spend:
        """What the recorded turns cost (one call each, usage as recorded)."""
        total = Spend()
        for rec in self.records:
            if rec.get("response") is not None:
                total = total + spend_of_usage(profile, rec["step"].get("usage") or {})
        return total

    def info(self) -> dict[str, Any]:
        return {
            "resumed_steps": len(self.records),
            "journal_discarded": self.discarded_reason,
        }

    def discard(self) -> None:
        if self.path is not None:
            self.path.unlink(missing_ok=True)
