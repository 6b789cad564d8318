"""The observation condition of a run: `text`, or a page family at nominal compression ratio N
(budget = text tokens / N), written `<prefix>r<N>`: `r<N>` renders code windows, and each
other family of swevis.page_families (one module each) names what else it renders.

An agent takes the families its AgentKind.page_families names (swevis.agents.registry).

The one parser of condition names: the Snakemake wildcard constraint, the config schema's
pattern (filled in by swevis.config) and every CLI use PATTERN, built from the registered
families, and the observation pipeline reads the ratio from `Condition.parse`, so a name
means the same thing everywhere and a bad one fails where it is read. Only the canonical
spelling is accepted (r3, r2.5, r0.5; not r3.0, r03, R3), so one condition has one results
folder.
"""

from __future__ import annotations

import argparse
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
# The grammar of a condition name; swevis.config fills it into the schema as ^(PATTERN)$.
PATTERN = rf"text|(?:{_PREFIXES})?r{_RATIO}"
# A code-family name only (r<N>): what the replay's memory goes in front of (mem+r<N>).
CODE_PATTERN = rf"r{_RATIO}"
# The counterfactual replay's conditions (swevis.counterfactual.replay.ReplayCondition): a
# condition, or the working memory in front of one (mem = text, mem+r<N>).
MEMORY = "mem"
REPLAY_PATTERN = rf"{PATTERN}|{MEMORY}|{MEMORY}\+{CODE_PATTERN}"


def spelled_conditions() -> str:
    """The conditions in words: `text, rN, obs-rN or hist-rN`."""
    words = [TEXT] + [f.spelling for f in FAMILIES]
    return ", ".join(words[:-1]) + " or " + words[-1]


class ConditionError(SwevisError, ValueError):
    """A condition name that is neither `text` nor a page family's `<prefix>r<positive number>`."""


@dataclass(frozen=True)
class Condition:
    """`ratio` is None for text, else the positive compression ratio of the rendered pages;
    `family` names what is rendered (a registered page family; text is the default family's
    with no ratio)."""

    ratio: float | None = None
    family: str = DEFAULT_FAMILY.name

    def __post_init__(self) -> None:
        if self.family not in FAMILY_NAMES or (self.ratio is None and self.family != DEFAULT_FAMILY.name):
            raise ConditionError(f"page family {self.family!r} needs a ratio and is one of {', '.join(FAMILY_NAMES)}")
        r = self.ratio
        if r is not None and (isinstance(r, bool) or not isinstance(r, (int, float)) or not math.isfinite(r) or r <= 0):
            raise ConditionError(f"ratio must be a positive number, got {r!r}")
        if r is not None:
            object.__setattr__(self, "ratio", float(r))

    @classmethod
    def parse(cls, name: str) -> Condition:
        """`text` or a family's `<prefix>r<N>`; anything else is a ConditionError naming the value."""
        if not isinstance(name, str) or not re.fullmatch(PATTERN, name):
            others = [f"{f.prefix}r<N>" for f in FAMILIES if f.prefix]
            spelled = ", ".join(others[:-1]) + " or " + others[-1] if len(others) > 1 else "".join(others)
            raise ConditionError(f"unknown condition {name!r}: use text, r<positive number> (r1, r3, r2.5)"
                                 f"{', ' if spelled else ''}{spelled}{_canonical_hint(name)}")
        return _parse_valid(name)

    @property
    def visual(self) -> bool:
        return self.ratio is not None

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
        if self.ratio is None:
            return TEXT
        return self.page_family.prefix + "r" + format(Decimal(repr(self.ratio)).normalize(), "f")


@functools.cache
def _parse_valid(name: str) -> Condition:
    """Condition.parse of a well-formed name, made once a name: a Condition is immutable, and
    a study's plan parses each of its few conditions for thousands of jobs."""
    if name == TEXT:
        return Condition(None)
    prefix, ratio = re.fullmatch(rf"({_PREFIXES})?r(.+)", name).groups()
    return Condition(float(ratio), _BY_PREFIX[prefix or ""].name)


def pages_read(names: list[str], pages: dict) -> dict:
    """The part of config agents.pages that conditions `names` read (their families' `settings`;
    {} for text and rN): the workflow passes a run or a replay only these, so editing one
    reruns only the conditions that read it."""
    families = {Condition.parse(str(n).rpartition("+")[2]).family for n in names if str(n) != MEMORY}
    return {k: pages[k] for f in FAMILIES if f.name in families for k in f.settings if k in pages}


def _canonical_hint(name: object) -> str:
    """', write r3' for a near miss such as r3.0, R3 or r03."""
    if not isinstance(name, str):
        return ""
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
