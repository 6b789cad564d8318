"""Chat backends behind one small interface (see base.ChatModel.complete).

- ``OpenAIChatModel``: any OpenAI-compatible endpoint; images as base64 PNG content
  parts; retries; a response cache keyed by the exact request; usage per call beside the
  token models' estimate.
- ``PlaybackModel``: recorded assistant turns from a demonstration or a trajectory (ours or
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
    PlaybackExhausted,
    PlaybackSourceError,
    Usage,
    is_live,
    resolve_profile,
)
from swevis.models.cache import ResponseCache, request_key
from swevis.models.factory import make_model, register_api_keys
from swevis.models.messages import apply_image_cap, image_part, prepare_messages
from swevis.models.openai_backend import OpenAIChatModel
from swevis.models.playback import (
    PlaybackModel,
    PlaybackSource,
    PlaybackTurn,
    load_playback_source,
    load_playback_turns,
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
    "PlaybackExhausted",
    "PlaybackModel",
    "PlaybackSource",
    "PlaybackSourceError",
    "PlaybackTurn",
    "ResponseCache",
    "Usage",
    "apply_image_cap",
    "image_part",
    "is_live",
    "load_playback_source",
    "load_playback_turns",
    "make_model",
    "prepare_messages",
    "read_demonstration",
    "read_minisweagent_trajectory",
    "read_swevis_trajectory",
    "register_api_keys",
    "request_key",
    "resolve_profile",
]
