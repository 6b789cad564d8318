"""The observation condition of a run: `text`, or `r<N>` for code windows rendered as pages
at nominal compression ratio N (budget = text tokens / N).

The one parser of condition names: the Snakemake wildcard constraint, the config schema's
pattern and every CLI use PATTERN, and the observation pipeline reads the ratio from
`Condition.parse`, so a name means the same thing everywhere and a bad one fails where it is
read. Only the canonical spelling is accepted (r3, r2.5, r0.5; not r3.0, r03, R3), so one
condition has one results folder.
"""

from __future__ import annotations

import argparse
import math
import re
from dataclasses import dataclass
from decimal import Decimal

from swevis.errors import SwevisError

TEXT = "text"
_RATIO = r"(?:[1-9][0-9]*|(?:0|[1-9][0-9]*)\.[0-9]*[1-9])"
# The grammar of a condition name; data/config.schema.yaml spells it as ^(PATTERN)$.
PATTERN = rf"text|r{_RATIO}"


class ConditionError(SwevisError, ValueError):
    """A condition name that is neither `text` nor `r<positive number>`."""


@dataclass(frozen=True)
class Condition:
    """`ratio` is None for text, else the positive compression ratio of the rendered pages."""

    ratio: float | None = None

    def __post_init__(self) -> None:
        r = self.ratio
        if r is not None and (isinstance(r, bool) or not isinstance(r, (int, float)) or not math.isfinite(r) or r <= 0):
            raise ConditionError(f"ratio must be a positive number, got {r!r}")
        if r is not None:
            object.__setattr__(self, "ratio", float(r))

    @classmethod
    def parse(cls, name: str) -> Condition:
        """`text` or `r<N>`; anything else is a ConditionError naming the value."""
        if not isinstance(name, str) or not re.fullmatch(PATTERN, name):
            hint = _canonical_hint(name)
            raise ConditionError(f"unknown condition {name!r}: use text or r<positive number> (r1, r3, r2.5){hint}")
        return cls(None) if name == TEXT else cls(float(name[1:]))

    @property
    def visual(self) -> bool:
        return self.ratio is not None

    def __str__(self) -> str:
        if self.ratio is None:
            return TEXT
        return "r" + format(Decimal(repr(self.ratio)).normalize(), "f")


def _canonical_hint(name: object) -> str:
    """', write r3' for a near miss such as r3.0, R3 or r03."""
    if not isinstance(name, str):
        return ""
    m = re.fullmatch(r"[rR]\s*([0-9]*\.?[0-9]+)", name.strip())
    if not m or float(m.group(1)) <= 0:
        return ""
    return f"; write {Condition(float(m.group(1)))}"


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
