"""Token models: text tokenizers (offline first) and image-token formulas per backbone family.

    text_tokens(text, tokenizer) -> int            tokenizer_info(name) -> dict
    text_token_ids(text, tokenizer) -> tuple[int, ...]
    image_family(name) -> ImageFamily              (one record a family; FAMILIES: the registry)
    image_tokens(width, height, family) -> int     (wrapper tokens included)
    message_overhead(family) -> int                (c0, per message)
    count_message_tokens(messages, tokenizer, image_family) -> int
"""

from swevis.tokens.image import (
    FAMILIES,
    ImageFamily,
    ImageFamilyError,
    PageGrid,
    image_family,
    image_tokens,
    image_tokens_raw,
    is_kept,
    message_overhead,
    page_grid,
    processed_size,
    reply_priming,
    smart_resize,
    tokens_and_size,
    wrapper_tokens,
)
from swevis.tokens.messages import ImageSizeError, count_message_tokens, data_url_size, png_size
from swevis.tokens.text import TokenizerError, text_token_ids, text_tokens, tokenizer_info, tokenizer_names

__all__ = [
    "FAMILIES",
    "ImageFamily",
    "ImageFamilyError",
    "ImageSizeError",
    "PageGrid",
    "TokenizerError",
    "count_message_tokens",
    "data_url_size",
    "image_family",
    "image_tokens",
    "image_tokens_raw",
    "is_kept",
    "message_overhead",
    "page_grid",
    "png_size",
    "processed_size",
    "reply_priming",
    "smart_resize",
    "text_token_ids",
    "text_tokens",
    "tokenizer_info",
    "tokenizer_names",
    "tokens_and_size",
    "wrapper_tokens",
]
