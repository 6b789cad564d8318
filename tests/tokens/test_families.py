"""The image-family registry: a family registered there is known to the validator, the
renderer's layout search and the message accounting; an unknown name is a one-line error."""

import math
from dataclasses import dataclass, replace

import pytest

from swevis.config import ConfigError, validate_config
from swevis.render import render_window
from swevis.tokens import FAMILIES, ImageFamily, ImageFamilyError, PageGrid, count_message_tokens, image_family


@dataclass(frozen=True)
class SquareCells:
    """A toy processor: never resizes, one token a started 20 x 20 px cell."""

    cell: int = 20

    def process(self, width: int, height: int) -> tuple[tuple[int, int], int]:
        return (width, height), math.ceil(width / self.cell) * math.ceil(height / self.cell)

    def page_grid(self) -> PageGrid:
        c = self.cell
        return PageGrid(c, c, c, c, 4000, 4000, 4000 * 4000, 1)


TOY = ImageFamily(
    name="toy-vl",
    processor=SquareCells(),
    wrapper_tokens=1,
    message_overhead=2,
    reply_priming=1,
    px_per_token=400.0,
    default_tokenizer="qwen3",
)
WINDOW = "".join(f"value_{i} = compute({i}, 'a line of code long enough to wrap a little')\n" for i in range(60))


@pytest.fixture
def toy_registered(monkeypatch):
    monkeypatch.setitem(FAMILIES, TOY.name, TOY)


def test_a_registered_family_is_accepted_by_the_validator(toy_registered):
    cfg = validate_config({"models": {"toy": {"image_family": "toy-vl"}}})
    assert cfg["models"]["toy"]["image_family"] == "toy-vl"


def test_the_validator_follows_the_registry(monkeypatch):
    with pytest.raises(ConfigError, match='"toy-vl" is not an image family'):
        validate_config({"models": {"toy": {"image_family": "toy-vl"}}})
    monkeypatch.setitem(FAMILIES, TOY.name, TOY)
    validate_config({"models": {"toy": {"image_family": "toy-vl"}}})


def test_the_layout_search_sizes_pages_on_the_registered_familys_grid_and_formula(toy_registered):
    res = render_window("toy.py", 1, WINDOW, 2, "qwen3", "toy-vl", rasterize=False)
    layout = res.layout
    sizes = layout["page_sizes"]
    assert sizes and all(w % 20 == 0 and h % 20 == 0 for w, h in sizes)
    assert layout["image_tokens"] == sum((w // 20) * (h // 20) + 1 for w, h in sizes)
    assert layout["message_overhead_c0"] == 2
    assert abs(layout["realized_ratio"] / 2 - 1) <= 0.15  # the search met the budget with it
    assert count_message_tokens([{"role": "user", "content": ""}], "qwen3", "toy-vl") == 2 + 1


def test_an_unknown_family_is_a_one_line_error_naming_it_and_the_known_ones(toy_registered):
    with pytest.raises(ImageFamilyError) as info:
        image_family("nope-vl")
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("unknown image family 'nope-vl'; known: qwen3.5, ")
    assert "toy-vl" in message and "openai-patch:gpt-4.1" in message
    with pytest.raises(ImageFamilyError, match="unknown image family 'nope-vl'"):
        render_window("toy.py", 1, WINDOW, 2, "qwen3", "nope-vl", rasterize=False)
    with pytest.raises(ConfigError) as info:
        validate_config({"models": {"p": {"image_family": "nope-vl"}}})
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("config key 'models/p/image_family': \"nope-vl\" is not an image family; known: ")
    assert "toy-vl" in message


def test_openai_patch_is_gpt_4_1_mini_and_each_variant_differs_only_in_its_multiplier():
    base = image_family("openai-patch")
    assert replace(base, name="openai-patch:gpt-4.1-mini") == image_family("openai-patch:gpt-4.1-mini")
    variants = [record for name, record in FAMILIES.items() if name.startswith("openai-patch:")]
    assert len(variants) == 6
    for record in variants:
        assert replace(record, name=base.name, processor=replace(record.processor, multiplier=1.62)) == base
