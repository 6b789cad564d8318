"""mini-swe-agent's Model protocol over a swevis ChatModel, with the observation pipeline.

mini-swe-agent's DefaultAgent owns the loop (templates, step limit, format-error limit,
submission, exit statuses). This adapter supplies what differs in swevis: our chat backends
(usage per call beside the token estimate, playback, response cache), action parsing in
mini's text format, and observations that may be rendered code. It records every step.
"""

from __future__ import annotations

from typing import Any

from minisweagent.exceptions import FormatError
from minisweagent.models.utils.actions_text import parse_regex_actions

from swevis.agents.observation.observe import ObservationPipeline
from swevis.agents.tool_registry import tool_of
from swevis.agents.run.trajectory import StepRecorder

ACTION_REGEX = r"```mswea_bash_command\s*\n(.*?)\n```"


class _Config:
    """Just enough of a pydantic config for DefaultAgent.get_template_vars / serialize."""

    def __init__(self, **values: Any):
        self.__dict__.update(values)

    def model_dump(self, mode: str | None = None) -> dict[str, Any]:
        return dict(self.__dict__)


class SwevisAgentModel:
    def __init__(
        self,
        chat: Any,
        pipeline: ObservationPipeline,
        recorder: StepRecorder,
        *,
        phase: str,
        purpose: str,
        format_error_template: str,
        action_regex: str = ACTION_REGEX,
    ):
        self.chat = chat
        self.pipeline = pipeline
        self.recorder = recorder
        self.phase = phase
        self.purpose = purpose
        self.action_regex = action_regex
        self.format_error_template = format_error_template
        self.config = _Config(model_name=getattr(chat, "model_id", "") or getattr(chat, "profile_name", ""))
        self._pending: dict[str, Any] | None = None

    # -- Model protocol
    def query(self, messages: list[dict], **kwargs) -> dict:
        response = self.chat.complete(self.pipeline.request(messages), purpose=self.purpose)
        usage = response.record()["usage"]
        history_pages = self.pipeline.new_history_pages()  # pages this request sent beyond the observations'
        try:
            actions = parse_regex_actions(
                response.content or "",
                action_regex=self.action_regex,
                format_error_template=self.format_error_template,
                template_kwargs={"finish_reason": response.finish_reason},
            )
        except FormatError:
            self.recorder.add(
                phase=self.phase, action=None, tool=None, observation=None, usage=usage,
                format_error=True, response=response.content, history_pages=history_pages,
            )
            raise
        self._pending = {"usage": usage, "response": response.content, "history_pages": history_pages}
        return {
            "role": "assistant",
            "content": response.content,
            "extra": {"actions": actions, "cost": 0.0, "usage": usage, "purpose": self.purpose, "cached": response.cached},
        }

    def format_message(self, **kwargs) -> dict:
        return dict(kwargs)

    def format_observation_messages(self, message: dict, outputs: list[dict], template_vars: dict | None = None) -> list[dict]:
        actions = message.get("extra", {}).get("actions", [])
        pending = self._pending or {"usage": message.get("extra", {}).get("usage", {}), "response": None}
        self._pending = None
        results = []
        for i, (action, output) in enumerate(zip(actions, outputs)):
            command = action.get("command", "")
            windows = (output.get("extra") or {}).get("windows")
            self.pipeline.begin_action(command, pending["response"])
            if windows is not None:
                content, record = self.pipeline.observe_windows(output.get("output", ""), windows)
            else:
                content, record = self.pipeline.observe(command, output, template_vars)
            content, record = self.pipeline.finish(content, record, f"output of step {len(self.recorder.steps) + 1}")
            self.recorder.add(
                phase=self.phase,
                action=command,
                tool=tool_of(command),
                observation=record,
                usage=pending["usage"] if i == 0 else {"prompt_tokens": 0, "completion_tokens": 0},
                response=pending["response"] if i == 0 else None,
                history_pages=pending.get("history_pages", 0) if i == 0 else 0,
            )
            results.append(
                {
                    "role": "user",
                    "content": content,
                    "extra": {"returncode": output.get("returncode"), "observation": record},
                }
            )
        return results

    def record_final_action(self, command: str, format_error: bool = False) -> None:
        """A step with no observation: its action ended the phase (submit, commit_plan), or a
        tool rejected its arguments (format_error)."""
        pending = self._pending
        self._pending = None
        if pending is None:
            return
        self.recorder.add(
            phase=self.phase, action=command, tool=tool_of(command), observation=None, usage=pending["usage"],
            response=pending["response"], format_error=format_error, history_pages=pending["history_pages"],
        )

    def get_template_vars(self, **kwargs) -> dict[str, Any]:
        return {}

    def serialize(self) -> dict:
        return {"info": {"config": {"model": self.config.model_dump(), "model_type": "swevis"}}}
