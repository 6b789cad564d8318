r"""Image-token models, one per backbone family, exact to each provider's published formula.

`image_tokens(width, height, family)` is the number of prompt tokens one image of that size
costs, *including* the per-image wrapper tokens the chat template adds around it.
`processed_size(width, height, family)` is the size the provider's processor resizes the
image to (what the model sees); the renderer emits pages that are not resized.

| family        | processor (source of the formula)                                              | wrapper |
|---------------|--------------------------------------------------------------------------------|---------|
| qwen2.5-vl    | smart_resize, patch 14, merge 2 (factor 28), min_pixels 3136, max_pixels 12845056 (preprocessor_config.json) | 2: <\|vision_start\|> <\|vision_end\|> |
| qwen3-vl      | smart_resize, patch 16, merge 2 (factor 32), shortest_edge(min_pixels) 65536, longest_edge(max_pixels) 16777216 | 2 |
| qwen3.5       | same processor as qwen3-vl (Qwen3.5 preprocessor_config.json)                  | 2 |
| kimi-k2.5     | MoonViT NaViT resize: patch 14, merge 2x2, in_patch_limit 16384, patch_limit_on_one_side 512, never upscales, pad to 28 | 4: <\|media_begin\|> image <\|media_content\|> <\|media_end\|> |
| openai-tile   | gpt-4o high detail: fit in 2048x2048, shortest side down to 768, 85 + 170 per 512 px tile | 0 |
| openai-patch  | gpt-4.1-mini: 32 px patches, cap 1536 (documented scale-down rule), x1.62; `openai-patch:<model>` picks another multiplier | 0 |
| claude        | long edge <= 1568 and <= ~1600 tokens (~1.2 MP), tokens = ceil(w*h/750)         | 0 |
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from swevis.errors import SwevisError


class ImageFamilyError(SwevisError):
    """An unknown image-token family or an impossible image size."""


@dataclass(frozen=True)
class QwenSpec:
    patch: int
    merge: int
    min_pixels: int
    max_pixels: int

    @property
    def factor(self) -> int:
        return self.patch * self.merge


QWEN = {
    "qwen2.5-vl": QwenSpec(patch=14, merge=2, min_pixels=3136, max_pixels=12845056),
    "qwen3-vl": QwenSpec(patch=16, merge=2, min_pixels=65536, max_pixels=16777216),
    "qwen3.5": QwenSpec(patch=16, merge=2, min_pixels=65536, max_pixels=16777216),
}
KIMI = {"patch": 14, "merge": 2, "in_patch_limit": 16384, "patch_limit_on_one_side": 512}
OPENAI_TILE = {"fit": 2048, "short_side": 768, "tile": 512, "base": 85, "per_tile": 170}
OPENAI_PATCH = {"patch": 32, "cap": 1536}
PATCH_MULTIPLIERS = {
    "gpt-4.1": 1.0,
    "gpt-4.1-mini": 1.62,
    "gpt-4.1-nano": 2.46,
    "gpt-5-mini": 1.62,
    "gpt-5-nano": 2.46,
    "o4-mini": 1.72,
}
OPENAI_PATCH_DEFAULT_MODEL = "gpt-4.1-mini"
CLAUDE = {"long_edge": 1568, "max_tokens": 1600, "pixels_per_token": 750}

WRAPPER_TOKENS = {
    "qwen2.5-vl": 2,
    "qwen3-vl": 2,
    "qwen3.5": 2,
    "kimi-k2.5": 4,
    "openai-tile": 0,
    "openai-patch": 0,
    "claude": 0,
}
# c0: chat-template tokens one message costs around its content.
#   Qwen: "<|im_start|>" role "\n" ... "<|im_end|>" "\n" = 5;  Kimi: "<|im_user|>" role
#   "<|im_middle|>" ... "<|im_end|>" = 4;  OpenAI: 3 per message (OpenAI cookbook);
#   Claude: not published, 3 assumed.
MESSAGE_OVERHEAD = {
    "qwen2.5-vl": 5,
    "qwen3-vl": 5,
    "qwen3.5": 5,
    "kimi-k2.5": 4,
    "openai-tile": 3,
    "openai-patch": 3,
    "claude": 3,
}
# tokens that prime the reply ("<|im_start|>assistant\n" etc.), counted once per request
REPLY_PRIMING = {
    "qwen2.5-vl": 3,
    "qwen3-vl": 3,
    "qwen3.5": 3,
    "kimi-k2.5": 3,
    "openai-tile": 3,
    "openai-patch": 3,
    "claude": 0,
}
FAMILIES = tuple(WRAPPER_TOKENS)


def _base_family(family: str) -> tuple[str, str | None]:
    base, _, variant = family.partition(":")
    if base not in WRAPPER_TOKENS:
        raise ImageFamilyError(f"unknown image family {family!r}; known: {', '.join(FAMILIES)}")
    if variant and base != "openai-patch":
        raise ImageFamilyError(f"image family {base!r} takes no variant (got {family!r})")
    if variant and variant not in PATCH_MULTIPLIERS:
        raise ImageFamilyError(
            f"unknown openai-patch model {variant!r}; known: {', '.join(PATCH_MULTIPLIERS)}"
        )
    return base, (variant or None)


def _check_size(width: int, height: int) -> None:
    if int(width) != width or int(height) != height or width < 1 or height < 1:
        raise ImageFamilyError(f"image size must be positive integers, got {width}x{height}")


# ---- Qwen ---------------------------------------------------------------------------------


def smart_resize(height: int, width: int, factor: int, min_pixels: int, max_pixels: int) -> tuple[int, int]:
    """Qwen2-VL/2.5-VL/3-VL `smart_resize` (transformers): (h, w) on the factor grid.

    Python's round() (half to even) is used exactly as the reference implementation does.
    """
    if max(height, width) / min(height, width) > 200:
        raise ImageFamilyError(
            f"absolute aspect ratio must be smaller than 200, got {max(height, width) / min(height, width):.1f}"
        )
    h_bar = round(height / factor) * factor
    w_bar = round(width / factor) * factor
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return h_bar, w_bar


def _qwen(width: int, height: int, spec: QwenSpec) -> tuple[tuple[int, int], int]:
    h, w = smart_resize(height, width, spec.factor, spec.min_pixels, spec.max_pixels)
    return (w, h), (h // spec.factor) * (w // spec.factor)


# ---- Kimi K2.5 (MoonViT) ------------------------------------------------------------------


def _kimi(width: int, height: int) -> tuple[tuple[int, int], int]:
    ps, limit, side = KIMI["patch"], KIMI["in_patch_limit"], KIMI["patch_limit_on_one_side"]
    s1 = math.sqrt(limit / (max(1.0, width // ps) * max(1.0, height // ps)))
    s2 = side * ps / width
    s3 = side * ps / height
    scale = min(1.0, s1, s2, s3)
    new_w = min(max(1, int(width * scale)), side * ps)  # int() truncation as the reference does
    new_h = min(max(1, int(height * scale)), side * ps)
    factor = KIMI["merge"] * ps
    pad_w = math.ceil(new_w / factor) * factor
    pad_h = math.ceil(new_h / factor) * factor
    return (new_w, new_h), (pad_h // factor) * (pad_w // factor)


# ---- OpenAI -------------------------------------------------------------------------------


def _openai_tile(width: int, height: int) -> tuple[tuple[int, int], int]:
    w, h = float(width), float(height)
    fit = OPENAI_TILE["fit"]
    if max(w, h) > fit:  # fit within 2048 x 2048 (downscale only)
        s = fit / max(w, h)
        w, h = w * s, h * s
    short = OPENAI_TILE["short_side"]
    if min(w, h) > short:  # shortest side down to 768 (downscale only)
        s = short / min(w, h)
        w, h = w * s, h * s
    w, h = round(w, 6), round(h, 6)
    w_i, h_i = int(w), int(h)
    tile = OPENAI_TILE["tile"]
    tiles = math.ceil(w / tile) * math.ceil(h / tile)
    return (w_i, h_i), OPENAI_TILE["base"] + OPENAI_TILE["per_tile"] * tiles


def _openai_patch(width: int, height: int, multiplier: float) -> tuple[tuple[int, int], int]:
    ps, cap = OPENAI_PATCH["patch"], OPENAI_PATCH["cap"]
    w, h = float(width), float(height)
    if math.ceil(w / ps) * math.ceil(h / ps) > cap:
        r = math.sqrt(ps * ps * cap / (w * h))
        r *= min(math.floor(w * r / ps) / (w * r / ps), math.floor(h * r / ps) / (h * r / ps))
        w, h = w * r, h * r
    w, h = round(w, 6), round(h, 6)  # float noise must not add a patch
    patches = min(cap, math.ceil(w / ps) * math.ceil(h / ps))
    return (int(w), int(h)), math.ceil(patches * multiplier)


# ---- Claude -------------------------------------------------------------------------------


def _claude(width: int, height: int) -> tuple[tuple[int, int], int]:
    ppt, long_edge = CLAUDE["pixels_per_token"], CLAUDE["long_edge"]
    max_pixels = CLAUDE["max_tokens"] * ppt
    s = min(1.0, long_edge / max(width, height), math.sqrt(max_pixels / (width * height)))
    w, h = (width, height) if s >= 1.0 else (max(1, int(round(width * s, 6))), max(1, int(round(height * s, 6))))
    return (w, h), math.ceil(w * h / ppt)


def _dispatch(width: int, height: int, family: str) -> tuple[tuple[int, int], int]:
    _check_size(width, height)
    base, variant = _base_family(family)
    width, height = int(width), int(height)
    if base in QWEN:
        return _qwen(width, height, QWEN[base])
    if base == "kimi-k2.5":
        return _kimi(width, height)
    if base == "openai-tile":
        return _openai_tile(width, height)
    if base == "openai-patch":
        return _openai_patch(width, height, PATCH_MULTIPLIERS[variant or OPENAI_PATCH_DEFAULT_MODEL])
    return _claude(width, height)


def image_tokens(width: int, height: int, family: str) -> int:
    """Prompt tokens of one image of width x height px, wrapper tokens included."""
    _, tokens = _dispatch(width, height, family)
    return tokens + WRAPPER_TOKENS[_base_family(family)[0]]


def image_tokens_raw(width: int, height: int, family: str) -> int:
    """Image tokens without the wrapper tokens."""
    return _dispatch(width, height, family)[1]


def tokens_and_size(width: int, height: int, family: str) -> tuple[int, tuple[int, int]]:
    """(image_tokens incl. wrapper, processed size) in one evaluation."""
    size, tokens = _dispatch(width, height, family)
    return tokens + WRAPPER_TOKENS[_base_family(family)[0]], size


def processed_size(width: int, height: int, family: str) -> tuple[int, int]:
    """(width, height) the provider's processor resizes the image to before encoding."""
    return _dispatch(width, height, family)[0]


def wrapper_tokens(family: str) -> int:
    return WRAPPER_TOKENS[_base_family(family)[0]]


def message_overhead(family: str) -> int:
    """c0: the chat-template tokens around one message's content for this family."""
    return MESSAGE_OVERHEAD[_base_family(family)[0]]


def reply_priming(family: str) -> int:
    return REPLY_PRIMING[_base_family(family)[0]]


@dataclass(frozen=True)
class PageGrid:
    """How the renderer should size pages for a family so the processor keeps them as they are."""

    step_w: int  # page width is a multiple of this
    step_h: int
    min_w: int
    min_h: int
    max_w: int
    max_h: int
    max_pixels: int
    min_pixels: int


def page_grid(family: str) -> PageGrid:
    base, _ = _base_family(family)
    if base in QWEN:
        s = QWEN[base]
        f = s.factor
        return PageGrid(f, f, f, f, 16384, 16384, s.max_pixels, s.min_pixels)
    if base == "kimi-k2.5":
        f = KIMI["patch"] * KIMI["merge"]
        side = KIMI["patch"] * KIMI["patch_limit_on_one_side"]
        side -= side % f
        return PageGrid(f, f, f, f, side, side, KIMI["in_patch_limit"] * KIMI["patch"] ** 2, 1)
    if base == "openai-tile":
        # no resize: fits 2048 and the shortest side <= 768; 512 px tiles are paid whole,
        # so page sides on a 32 px grid are free to fill the tile.
        return PageGrid(32, 32, 32, 32, 2048, 2048, 2048 * 768, 1)
    if base == "openai-patch":
        ps = OPENAI_PATCH["patch"]
        return PageGrid(ps, ps, ps, ps, 16384, 16384, OPENAI_PATCH["cap"] * ps * ps, 1)
    return PageGrid(
        8, 8, 8, 8, CLAUDE["long_edge"], CLAUDE["long_edge"], CLAUDE["max_tokens"] * CLAUDE["pixels_per_token"], 1
    )


def is_kept(width: int, height: int, family: str) -> bool:
    """True if the processor leaves an image of this size unchanged (ignoring grid padding)."""
    return processed_size(width, height, family) == (width, height)
