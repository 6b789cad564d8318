"""The chat stack of one trajectory, composed in one place:

    backend (swevis.models.make_model)
      -> spend guard (swevis.models.spend: the caps, the condition's ledger)
        -> journal (swevis.agents.run.resume: a resumed run's recorded turns first)
          -> adapter (swevis.agents.run.model_adapter: one per phase, mini-swe-agent's Model)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from swevis.agents.run.model_adapter import SwevisAgentModel
from swevis.agents.observation.observe import ObservationPipeline
from swevis.agents.run.resume import TrajectoryJournal, journal_identity
from swevis.agents.run.spec import RunSpec
from swevis.agents.run.trajectory import StepRecorder
from swevis.models import ChatModel, PlaybackModel, make_model
from swevis.models.spend import SpendCaps, SpendGuard, SpendLedger


@dataclass
class ChatStack:
    """What a trajectory talks to (`chat`), and the layers it reports on."""

    chat: ChatModel  # the journal's recorded turns (if any), then the guarded backend
    guard: SpendGuard
    journal: TrajectoryJournal
    profile: dict[str, Any]  # resolved: prices for the trajectory's cost

    def adapter(
        self, pipeline: ObservationPipeline, recorder: StepRecorder, *, phase: str, purpose: str, format_error_template: str
    ) -> SwevisAgentModel:
        """The top of the stack for one phase: the model mini-swe-agent's loop calls."""
        return SwevisAgentModel(
            self.chat, pipeline, recorder, phase=phase, purpose=purpose, format_error_template=format_error_template
        )


def guarded_backend(spec: RunSpec, journal: TrajectoryJournal | None = None, backend: ChatModel | None = None) -> SpendGuard:
    """The backend `spec` names (or `backend`, made from it already) under its spend guard:
    the trajectory caps, and for a live model the condition caps and ledger. What
    `journal`'s recorded turns cost counts first."""
    if backend is None:
        backend = make_model(spec.model_name, spec.profile, cache_dir=spec.cache_dir, playback_source=spec.playback_source)
    live = spec.live
    caps = spec.settings.to_dict()
    return SpendGuard(
        backend,
        trajectory_caps=SpendCaps.from_config("trajectory", caps),
        condition_caps=SpendCaps.from_config("condition", caps) if live else None,
        ledger=SpendLedger(spec.ledger_path) if live and spec.ledger_path else None,
        prior=journal.prior_spend(backend.profile) if journal is not None else None,
        instance=spec.row["instance_id"],
    )


def open_chat_stack(spec: RunSpec) -> ChatStack:
    """Backend -> spend guard -> journal for `spec`. Live models resume from the journal and
    enter the condition's ledger; playback models never resume and only the trajectory caps apply."""
    # the backend first: a profile it refuses (a key, a price, a prefix cache family) leaves no journal behind
    backend = make_model(spec.model_name, spec.profile, cache_dir=spec.cache_dir, playback_source=spec.playback_source)
    journal = TrajectoryJournal(spec.journal_path, journal_identity(spec), resume=spec.live and spec.settings.resume)
    guard = guarded_backend(spec, journal, backend)
    chat: ChatModel = guard
    recorded = journal.recorded_source()
    if recorded is not None:
        estimator, text_counter = guard.estimators
        chat = PlaybackModel(
            guard.profile_name, guard.profile, source=recorded, fallback=guard, estimator=estimator, text_counter=text_counter
        )
    return ChatStack(chat=chat, guard=guard, journal=journal, profile=guard.profile)
