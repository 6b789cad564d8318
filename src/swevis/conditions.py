"""The observation condition of a run: `text`, or a page family at nominal compression ratio N
(budget = text tokens / N), written `<prefix>r<N>`: `r<N>` renders code windows, and each
other family of swevis.page_families (one module each) names what else it renders.

Or observation masking (The Complexity Trap, arXiv 2508.21433), which renders nothing and so
has no ratio: `mask-k<M>` keeps the last M observations and replaces each older one with a
one-line placeholder; `maskb-k<M>` masks in frozen blocks of agents.pages.mask_block calls, so
the prefix cache keeps serving what was masked before (swevis.agents.observation.masking). A
history family draws its pages from masked history as `maskb-k<M>+hist-r<N>` (or `mask-k<M>+`).

An agent takes the families its AgentKind.page_families names (swevis.agents.registry), and
masking when it takes hist (both rewrite each request's history).

The one parser of condition names: the Snakemake wildcard constraint, the config schema's
pattern (filled in by swevis.config) and every CLI use PATTERN, built from the registered
families, and the observation pipeline reads the ratio from `Condition.parse`, so a name
means the same thing everywhere and a bad one fails where it is read. Only the canonical
spelling is accepted (r3, r2.5, r0.5; not r3.0, r03, R3), so one condition has one results
folder.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import math
import re
from dataclasses import dataclass
from decimal import Decimal

from swevis.errors import SwevisError
from swevis.page_families import DEFAULT_FAMILY, FAMILIES, PageFamily, page_family

TEXT = "text"
_RATIO = r"(?:[1-9][0-9]*|(?:0|[1-9][0-9]*)\.[0-9]*[1-9])"
FAMILY_NAMES = tuple(f.name for f in FAMILIES)  # every registered page family
_BY_PREFIX = {f.prefix: f for f in FAMILIES}
_PREFIXES = "|".join(f.prefix for f in FAMILIES if f.prefix)  # each a plain word and `-` (a test checks)
# Masking: M, the observations kept, a positive integer written canonically (k5, not k05).
NAIVE_MASK, BLOCK_MASK = "mask-", "maskb-"
MASK_PATTERN = r"maskb?-k[1-9][0-9]*"
# the families whose pages may be drawn from masked history (`<mask>+<family>r<N>`)
MASKED_FAMILIES = ("hist",)
_MASKED_PREFIXES = "|".join(f.prefix for f in FAMILIES if f.name in MASKED_FAMILIES)
# The grammar of a condition name; swevis.config fills it into the schema as ^(PATTERN)$.
PATTERN = rf"text|{MASK_PATTERN}(?:\+(?:{_MASKED_PREFIXES})r{_RATIO})?|(?:{_PREFIXES})?r{_RATIO}"
# A code-family name only (r<N>): what the replay's memory goes in front of (mem+r<N>).
CODE_PATTERN = rf"r{_RATIO}"
# The counterfactual replay's conditions (swevis.counterfactual.replay.ReplayCondition): a
# condition, or the working memory in front of one (mem = text, mem+r<N>).
MEMORY = "mem"
REPLAY_PATTERN = rf"{PATTERN}|{MEMORY}|{MEMORY}\+{CODE_PATTERN}"
# the config agents.pages keys a blocked masking (maskb-kM) reads
MASK_SETTINGS = ("mask_block",)


def spelled_conditions() -> str:
    """The conditions in words: `text, rN, obs-rN, hist-rN, mask-kM or maskb-kM`."""
    words = [TEXT] + [f.spelling for f in FAMILIES] + [f"{NAIVE_MASK}kM", f"{BLOCK_MASK}kM"]
    return ", ".join(words[:-1]) + " or " + words[-1]


class ConditionError(SwevisError, ValueError):
    """A condition name that is neither `text`, a page family's `<prefix>r<positive number>`
    nor a masking `mask-k<M>` / `maskb-k<M>` (alone or in front of a history family)."""


@dataclass(frozen=True)
class Mask:
    """Observation masking: the last `keep` observations stay, older ones become a one-line
    placeholder; `blocks`: only in whole frozen blocks (maskb-kM, cache-stable)."""

    keep: int
    blocks: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.keep, bool) or not isinstance(self.keep, int) or self.keep < 1:
            raise ConditionError(f"masking keeps a positive whole number of observations, got {self.keep!r}")

    @property
    def spelling(self) -> str:
        """How its conditions are written in words: `mask-kM`, `maskb-kM`."""
        return f"{BLOCK_MASK if self.blocks else NAIVE_MASK}kM"

    def __str__(self) -> str:
        return f"{BLOCK_MASK if self.blocks else NAIVE_MASK}k{self.keep}"


@dataclass(frozen=True)
class Condition:
    """`ratio` is None for text, else the positive compression ratio of the rendered pages;
    `family` names what is rendered (a registered page family; text is the default family's
    with no ratio); `mask`, the observation masking in front of it (None: none)."""

    ratio: float | None = None
    family: str = DEFAULT_FAMILY.name
    mask: Mask | None = None

    def __post_init__(self) -> None:
        if self.family not in FAMILY_NAMES or (self.ratio is None and self.family != DEFAULT_FAMILY.name):
            raise ConditionError(f"page family {self.family!r} needs a ratio and is one of {', '.join(FAMILY_NAMES)}")
        if self.mask is not None and self.ratio is not None and self.family not in MASKED_FAMILIES:
            raise ConditionError(f"masking goes in front of {', '.join(MASKED_FAMILIES)} only, not {self.family!r}")
        r = self.ratio
        if r is not None and (isinstance(r, bool) or not isinstance(r, (int, float)) or not math.isfinite(r) or r <= 0):
            raise ConditionError(f"ratio must be a positive number, got {r!r}")
        if r is not None:
            object.__setattr__(self, "ratio", float(r))

    @classmethod
    def parse(cls, name: str) -> Condition:
        """`text`, a family's `<prefix>r<N>`, or a masking (`mask-k<M>`, `maskb-k<M>`, alone or
        before a masked family's name); anything else is a ConditionError naming the value."""
        if not isinstance(name, str) or not re.fullmatch(PATTERN, name):
            others = [f"{f.prefix}r<N>" for f in FAMILIES if f.prefix]
            others += [f"{NAIVE_MASK}k<M>", f"{BLOCK_MASK}k<M> (M observations kept)",
                       f"{NAIVE_MASK}k<M>+ or {BLOCK_MASK}k<M>+{page_family(MASKED_FAMILIES[0]).prefix}r<N>"]
            spelled = ", ".join(others[:-1]) + " or " + others[-1]
            raise ConditionError(f"unknown condition {name!r}: use text, r<positive number> (r1, r3, r2.5), "
                                 f"{spelled}{_canonical_hint(name)}")
        return _parse_valid(name)

    @property
    def visual(self) -> bool:
        return self.ratio is not None

    @property
    def kind(self) -> str:
        """What the condition does, as the replay's records and tables name it: `text`, its
        page family, `mask`/`maskb`, or `maskb+hist` for a family over masked history."""
        masking = "" if self.mask is None else str(self.mask).partition("-")[0]
        shown = self.family if self.visual else ""
        return "+".join(filter(None, (masking, shown))) or TEXT

    @property
    def page_family(self) -> PageFamily:
        """The family object (swevis.page_families): its hooks, settings keys and ceiling."""
        return page_family(self.family)

    @property
    def code_ratio(self) -> float | None:
        """The ratio code windows are rendered at as they are observed (None: they stay text,
        under text and a family that renders no fresh observation)."""
        return self.ratio if self.page_family.code_windows else None

    def __str__(self) -> str:
        masking = None if self.mask is None else str(self.mask)
        if self.ratio is None:
            return masking or TEXT
        shown = self.page_family.prefix + "r" + format(Decimal(repr(self.ratio)).normalize(), "f")
        return shown if masking is None else f"{masking}+{shown}"


@functools.cache
def _parse_valid(name: str) -> Condition:
    """Condition.parse of a well-formed name, made once a name: a Condition is immutable, and
    a study's plan parses each of its few conditions for thousands of jobs."""
    if name == TEXT:
        return Condition(None)
    masked = re.fullmatch(rf"(maskb?)-k([0-9]+)(?:\+(.+))?", name)
    if masked:
        kind, keep, shown = masked.groups()
        mask = Mask(int(keep), kind + "-" == BLOCK_MASK)
        return dataclasses.replace(_parse_valid(shown), mask=mask) if shown else Condition(mask=mask)
    prefix, ratio = re.fullmatch(rf"({_PREFIXES})?r(.+)", name).groups()
    return Condition(float(ratio), _BY_PREFIX[prefix or ""].name)


def pages_read(names: list[str], pages: dict) -> dict:
    """The part of config agents.pages that conditions `names` read (their families' `settings`;
    {} for text and rN): the workflow passes a run or a replay only these, so editing one
    reruns only the conditions that read it."""
    parsed = [Condition.parse(str(n).removeprefix(f"{MEMORY}+")) for n in names if str(n) != MEMORY]
    families = {c.family for c in parsed}
    keys = [k for f in FAMILIES if f.name in families for k in f.settings]
    keys += [k for k in MASK_SETTINGS if any(c.mask is not None and c.mask.blocks for c in parsed)]
    return {k: pages[k] for k in keys if k in pages}


def _canonical_hint(name: object) -> str:
    """'; write r3' for a near miss such as r3.0, R3 or r03 ('; write mask-k5' for mask-k05)."""
    if not isinstance(name, str):
        return ""
    masked = re.fullmatch(r"(maskb?-)[kK]\s*0*([1-9][0-9]*)", name.strip())
    if masked:
        return f"; write {masked.group(1)}k{masked.group(2)}"
    m = re.fullmatch(rf"({_PREFIXES})?[rR]\s*([0-9]*\.?[0-9]+)", name.strip())
    if not m or float(m.group(2)) <= 0:
        return ""
    return f"; write {Condition(float(m.group(2)), _BY_PREFIX[m.group(1) or ''].name)}"


def condition_arg(value: str) -> Condition:
    """argparse `type=` for one condition: the error is argparse's one line."""
    try:
        return Condition.parse(value)
    except ConditionError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def conditions_arg(value: str) -> list[Condition]:
    """argparse `type=` for a comma-separated list of distinct conditions."""
    names = [c.strip() for c in value.split(",") if c.strip()]
    if not names:
        raise argparse.ArgumentTypeError("no conditions given (e.g. text,r1,r3)")
    conditions = [condition_arg(n) for n in names]
    repeated = sorted({str(c) for c in conditions if conditions.count(c) > 1})
    if repeated:
        raise argparse.ArgumentTypeError(f"condition {', '.join(repeated)} given more than once")
    return conditions


def ratio_arg(value: str) -> float:
    """argparse `type=` for a nominal ratio: a positive number (3, 2.5) or a condition name (r3)."""
    if value.startswith("r"):
        return condition_arg(value).ratio
    try:
        return Condition(float(value)).ratio
    except ValueError:  # not a number, or not a positive finite one
        raise argparse.ArgumentTypeError(f"ratio must be a positive number or rN, got {value!r}") from None
