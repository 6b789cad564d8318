"""Chat backends behind one small interface (see base.ChatModel.complete).

- ``OpenAIChatModel``: any OpenAI-compatible endpoint; images as base64 PNG content
  parts; retries; a response cache keyed by the exact request; usage per call beside the
  token models' estimate.
- ``ReplayModel``: recorded assistant turns from a demonstration or a trajectory (ours or
  mini-swe-agent's), with estimated usage.
- ``make_model``: the backend a config profile names; ``is_live``: whether it calls an endpoint.
"""

from swevis.models.base import (
    ChatModel,
    ChatResponse,
    ContextLengthExceeded,
    EndpointFailed,
    MissingAPIKey,
    ModelCallFailed,
    ModelConfigError,
    ModelError,
    ReplayExhausted,
    ReplaySourceError,
    Usage,
    is_live,
    resolve_profile,
)
from swevis.models.cache import ResponseCache, request_key
from swevis.models.factory import make_model, register_api_keys
from swevis.models.messages import apply_image_cap, image_part, prepare_messages
from swevis.models.openai_backend import OpenAIChatModel
from swevis.models.replay import (
    ReplayModel,
    ReplaySource,
    ReplayTurn,
    load_replay_source,
    load_replay_turns,
    read_demonstration,
    read_minisweagent_trajectory,
    read_swevis_trajectory,
)

__all__ = [
    "ChatModel",
    "ChatResponse",
    "ContextLengthExceeded",
    "EndpointFailed",
    "MissingAPIKey",
    "ModelCallFailed",
    "ModelConfigError",
    "ModelError",
    "OpenAIChatModel",
    "ReplayExhausted",
    "ReplayModel",
    "ReplaySource",
    "ReplaySourceError",
    "ReplayTurn",
    "ResponseCache",
    "Usage",
    "apply_image_cap",
    "image_part",
    "is_live",
    "load_replay_source",
    "load_replay_turns",
    "make_model",
    "prepare_messages",
    "read_demonstration",
    "read_minisweagent_trajectory",
    "read_swevis_trajectory",
    "register_api_keys",
    "request_key",
    "resolve_profile",
]
