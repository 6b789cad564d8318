r"""Image-token families: one `ImageFamily` record per backbone family, in one registry.

`image_family(name)` is the record of a family (`FAMILIES` holds them all): its processor
(the provider's resize and token formula, with the published numbers), the chat-template
tokens around an image and a message, the page grid the renderer sizes pages on, and the
renderer's rough pixels per token. Every number of a family is stated once, in its record.

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
from dataclasses import dataclass, replace
from typing import Protocol

from swevis.errors import SwevisError


class ImageFamilyError(SwevisError):
    """An unknown image-token family or an impossible image size."""


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


# the renderer's cap on a page side where the processor sets none of its own
MAX_PAGE_SIDE = 16384


class Processor(Protocol):
    """A provider's image processor: how it resizes an image and what the result costs."""

    def process(self, width: int, height: int) -> tuple[tuple[int, int], int]:
        """((width, height) the model sees, image tokens without the wrapper)."""

    def page_grid(self) -> PageGrid:
        """The pages this processor keeps as they are."""


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


@dataclass(frozen=True)
class QwenResize:
    """Qwen2-VL/2.5-VL/3-VL: `smart_resize` onto the merged-patch grid, a token per merged patch."""

    patch: int
    merge: int
    min_pixels: int
    max_pixels: int

    @property
    def factor(self) -> int:
        return self.patch * self.merge

    def process(self, width: int, height: int) -> tuple[tuple[int, int], int]:
        h, w = smart_resize(height, width, self.factor, self.min_pixels, self.max_pixels)
        return (w, h), (h // self.factor) * (w // self.factor)

    def page_grid(self) -> PageGrid:
        f = self.factor
        return PageGrid(f, f, f, f, MAX_PAGE_SIDE, MAX_PAGE_SIDE, self.max_pixels, self.min_pixels)


# ---- Kimi K2.5 (MoonViT) ------------------------------------------------------------------


@dataclass(frozen=True)
class MoonViTResize:
    """MoonViT's NaViT resize: scale down to the patch limits (never up), pad to merged patches."""

    patch: int
    merge: int
    in_patch_limit: int
    patch_limit_on_one_side: int

    def process(self, width: int, height: int) -> tuple[tuple[int, int], int]:
        ps, side = self.patch, self.patch_limit_on_one_side
        s1 = math.sqrt(self.in_patch_limit / (max(1.0, width // ps) * max(1.0, height // ps)))
        s2 = side * ps / width
        s3 = side * ps / height
        scale = min(1.0, s1, s2, s3)
        new_w = min(max(1, int(width * scale)), side * ps)  # int() truncation as the reference does
        new_h = min(max(1, int(height * scale)), side * ps)
        factor = self.merge * ps
        pad_w = math.ceil(new_w / factor) * factor
        pad_h = math.ceil(new_h / factor) * factor
        return (new_w, new_h), (pad_h // factor) * (pad_w // factor)

    def page_grid(self) -> PageGrid:
        f = self.patch * self.merge
        side = self.patch * self.patch_limit_on_one_side
        side -= side % f
        return PageGrid(f, f, f, f, side, side, self.in_patch_limit * self.patch**2, 1)


# ---- OpenAI -------------------------------------------------------------------------------


@dataclass(frozen=True)
class OpenAITiles:
    """gpt-4o high detail: fit the image, shorten its shortest side, pay per 512 px tile."""

    fit: int
    short_side: int
    tile: int
    base: int
    per_tile: int

    def process(self, width: int, height: int) -> tuple[tuple[int, int], int]:
        w, h = float(width), float(height)
        if max(w, h) > self.fit:  # fit within 2048 x 2048 (downscale only)
            s = self.fit / max(w, h)
            w, h = w * s, h * s
        if min(w, h) > self.short_side:  # shortest side down to 768 (downscale only)
            s = self.short_side / min(w, h)
            w, h = w * s, h * s
        w, h = round(w, 6), round(h, 6)
        tiles = math.ceil(w / self.tile) * math.ceil(h / self.tile)
        return (int(w), int(h)), self.base + self.per_tile * tiles

    def page_grid(self) -> PageGrid:
        # no resize: fits 2048 and the shortest side <= 768; 512 px tiles are paid whole,
        # so page sides on a 32 px grid are free to fill the tile.
        return PageGrid(32, 32, 32, 32, self.fit, self.fit, self.fit * self.short_side, 1)


@dataclass(frozen=True)
class OpenAIPatches:
    """gpt-4.1 and later: 32 px patches up to a cap (the documented scale-down), times a
    per-model multiplier."""

    patch: int
    cap: int
    multiplier: float

    def process(self, width: int, height: int) -> tuple[tuple[int, int], int]:
        ps, cap = self.patch, self.cap
        w, h = float(width), float(height)
        if math.ceil(w / ps) * math.ceil(h / ps) > cap:
            r = math.sqrt(ps * ps * cap / (w * h))
            r *= min(math.floor(w * r / ps) / (w * r / ps), math.floor(h * r / ps) / (h * r / ps))
            w, h = w * r, h * r
        w, h = round(w, 6), round(h, 6)  # float noise must not add a patch
        patches = min(cap, math.ceil(w / ps) * math.ceil(h / ps))
        return (int(w), int(h)), math.ceil(patches * self.multiplier)

    def page_grid(self) -> PageGrid:
        ps = self.patch
        return PageGrid(ps, ps, ps, ps, MAX_PAGE_SIDE, MAX_PAGE_SIDE, self.cap * ps * ps, 1)


# ---- Claude -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClaudeResize:
    """Claude: scale down to the long-edge and token limits, a token per 750 px."""

    long_edge: int
    max_tokens: int
    pixels_per_token: int

    def process(self, width: int, height: int) -> tuple[tuple[int, int], int]:
        ppt, max_pixels = self.pixels_per_token, self.max_tokens * self.pixels_per_token
        s = min(1.0, self.long_edge / max(width, height), math.sqrt(max_pixels / (width * height)))
        w, h = (width, height) if s >= 1.0 else (max(1, int(round(width * s, 6))), max(1, int(round(height * s, 6))))
        return (w, h), math.ceil(w * h / ppt)

    def page_grid(self) -> PageGrid:
        edge = self.long_edge
        return PageGrid(8, 8, 8, 8, edge, edge, self.max_tokens * self.pixels_per_token, 1)


# ---- the record and the registry -----------------------------------------------------------


@dataclass(frozen=True)
class ImageFamily:
    """Everything swevis knows about one backbone family's image and chat-template tokens."""

    name: str
    processor: Processor  # the provider's resize and token formula, with its numbers
    wrapper_tokens: int  # the chat template's tokens around each image
    message_overhead: int  # c0: the chat template's tokens around one message's content
    reply_priming: int  # the tokens that prime the reply, once per request
    px_per_token: float  # image px per token, only for the renderer's analytic pre-selection of fonts
    default_tokenizer: str  # the text tokenizer `swevis render --model <family>` counts with

    def process(self, width: int, height: int) -> tuple[tuple[int, int], int]:
        """((width, height) the model sees, image tokens without the wrapper)."""
        _check_size(width, height)
        return self.processor.process(int(width), int(height))

    def tokens_and_size(self, width: int, height: int) -> tuple[int, tuple[int, int]]:
        """(image tokens incl. wrapper, processed size) in one evaluation."""
        size, tokens = self.process(width, height)
        return tokens + self.wrapper_tokens, size

    def image_tokens(self, width: int, height: int) -> int:
        """Prompt tokens of one image of width x height px, wrapper tokens included."""
        return self.tokens_and_size(width, height)[0]

    def page_grid(self) -> PageGrid:
        return self.processor.page_grid()


# c0 (message_overhead), from each chat template: Qwen "<|im_start|>" role "\n" ... "<|im_end|>"
# "\n" = 5; Kimi "<|im_user|>" role "<|im_middle|>" ... "<|im_end|>" = 4; OpenAI 3 per
# message (OpenAI cookbook); Claude not published, 3 assumed. Reply priming: Qwen, Kimi and
# OpenAI prime the reply with 3 tokens ("<|im_start|>assistant\n" etc.); Claude with none.
QWEN2_5_VL = ImageFamily(
    name="qwen2.5-vl",
    # preprocessor_config.json: patch 14, merge 2 (factor 28)
    processor=QwenResize(patch=14, merge=2, min_pixels=3136, max_pixels=12845056),
    wrapper_tokens=2,  # <|vision_start|> <|vision_end|>
    message_overhead=5,
    reply_priming=3,
    px_per_token=784.0,  # a 28 x 28 merged patch
    default_tokenizer="qwen3",
)
QWEN3_VL = ImageFamily(
    name="qwen3-vl",
    # preprocessor_config.json: patch 16, merge 2 (factor 32), shortest_edge (min_pixels),
    # longest_edge (max_pixels)
    processor=QwenResize(patch=16, merge=2, min_pixels=65536, max_pixels=16777216),
    wrapper_tokens=2,  # <|vision_start|> <|vision_end|>
    message_overhead=5,
    reply_priming=3,
    px_per_token=1024.0,  # a 32 x 32 merged patch
    default_tokenizer="qwen3",
)
# Qwen3.5's preprocessor_config.json and chat template are Qwen3-VL's
QWEN3_5 = replace(QWEN3_VL, name="qwen3.5")
KIMI_K2_5 = ImageFamily(
    name="kimi-k2.5",
    # MoonViT: patch 14, merge 2x2, never upscales, pads to 28
    processor=MoonViTResize(patch=14, merge=2, in_patch_limit=16384, patch_limit_on_one_side=512),
    wrapper_tokens=4,  # <|media_begin|> image <|media_content|> <|media_end|>
    message_overhead=4,
    reply_priming=3,
    px_per_token=784.0,  # a 28 x 28 merged patch
    default_tokenizer="qwen3",
)
OPENAI_TILE = ImageFamily(
    name="openai-tile",
    # gpt-4o high detail: fit in 2048 x 2048, shortest side down to 768, 85 + 170 per 512 px tile
    processor=OpenAITiles(fit=2048, short_side=768, tile=512, base=85, per_tile=170),
    wrapper_tokens=0,
    message_overhead=3,
    reply_priming=3,
    px_per_token=512.0 * 512.0 / 170.0,  # a tile's area over its tokens
    default_tokenizer="cl100k_base",
)
# openai-patch's token multiplier per model (`openai-patch:<model>`; plain openai-patch is gpt-4.1-mini)
PATCH_MULTIPLIERS = {
    "gpt-4.1": 1.0,
    "gpt-4.1-mini": 1.62,
    "gpt-4.1-nano": 2.46,
    "gpt-5-mini": 1.62,
    "gpt-5-nano": 2.46,
    "o4-mini": 1.72,
}
OPENAI_PATCH = ImageFamily(
    name="openai-patch",
    # gpt-4.1-mini: 32 px patches, cap 1536 (the documented scale-down rule)
    processor=OpenAIPatches(patch=32, cap=1536, multiplier=PATCH_MULTIPLIERS["gpt-4.1-mini"]),
    wrapper_tokens=0,
    message_overhead=3,
    reply_priming=3,
    # a 32 px patch over gpt-4.1-mini's multiplier; the openai-patch:<model> variants keep it
    px_per_token=1024.0 / 1.62,
    default_tokenizer="cl100k_base",
)
CLAUDE = ImageFamily(
    name="claude",
    # long edge <= 1568 and <= ~1600 tokens (~1.2 MP), tokens = ceil(w*h/750)
    processor=ClaudeResize(long_edge=1568, max_tokens=1600, pixels_per_token=750),
    wrapper_tokens=0,
    message_overhead=3,
    reply_priming=0,
    px_per_token=750.0,
    default_tokenizer="cl100k_base",
)


def _openai_patch_variant(model: str, multiplier: float) -> ImageFamily:
    """`openai-patch:<model>`: openai-patch with that model's multiplier."""
    processor = replace(OPENAI_PATCH.processor, multiplier=multiplier)
    return replace(OPENAI_PATCH, name=f"openai-patch:{model}", processor=processor)


# The registry, in the order the config reference lists the families (the default first).
FAMILIES: dict[str, ImageFamily] = {
    f.name: f
    for f in (
        QWEN3_5, QWEN3_VL, QWEN2_5_VL, KIMI_K2_5, OPENAI_TILE, OPENAI_PATCH, CLAUDE,
        *(_openai_patch_variant(model, m) for model, m in PATCH_MULTIPLIERS.items()),
    )
}


def image_family(name: str) -> ImageFamily:
    """The record of family `name`; an unknown name is a one-line ImageFamilyError."""
    record = FAMILIES.get(name) if isinstance(name, str) else None
    if record is None:
        raise ImageFamilyError(f"unknown image family {name!r}; known: {', '.join(FAMILIES)}")
    return record


# ---- by family name, for callers that hold one ---------------------------------------------


def image_tokens(width: int, height: int, family: str) -> int:
    """Prompt tokens of one image of width x height px, wrapper tokens included."""
    return image_family(family).image_tokens(width, height)


def image_tokens_raw(width: int, height: int, family: str) -> int:
    """Image tokens without the wrapper tokens."""
    return image_family(family).process(width, height)[1]


def tokens_and_size(width: int, height: int, family: str) -> tuple[int, tuple[int, int]]:
    """(image_tokens incl. wrapper, processed size) in one evaluation."""
    return image_family(family).tokens_and_size(width, height)


def processed_size(width: int, height: int, family: str) -> tuple[int, int]:
    """(width, height) the provider's processor resizes the image to before encoding."""
    return image_family(family).process(width, height)[0]


def wrapper_tokens(family: str) -> int:
    return image_family(family).wrapper_tokens


def message_overhead(family: str) -> int:
    """c0: the chat-template tokens around one message's content for this family."""
    return image_family(family).message_overhead


def reply_priming(family: str) -> int:
    return image_family(family).reply_priming


def page_grid(family: str) -> PageGrid:
    return image_family(family).page_grid()


def is_kept(width: int, height: int, family: str) -> bool:
    """True if the processor leaves an image of this size unchanged (ignoring grid padding)."""
    return processed_size(width, height, family) == (width, height)
