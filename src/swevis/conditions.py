"""The observation condition of a run: `text`, or a page family at nominal compression ratio N
(budget = text tokens / N):

- `r<N>` (family `code`): code windows rendered as pages;
- `obs-r<N>` (family `obs`): code windows and long non-code observations (test output,
  tracebacks, listings, diffs) rendered; short ones stay text (agents.pages.obs_min_tokens);
- `hist-r<N>` (family `hist`): the history older than the last agents.pages.hist_keep calls
  rendered, frozen in blocks (swevis.agents.observation.pages); the recent calls stay text.

An agent takes the families its AgentKind.page_families names (swevis.agents.registry).

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
CODE, OBS, HIST = "code", "obs", "hist"
FAMILIES = (CODE, OBS, HIST)  # the page families; a name is <family>-r<N> but for code's r<N>
# The grammar of a condition name; data/config.schema.yaml spells it as ^(PATTERN)$.
PATTERN = rf"text|(?:{OBS}-|{HIST}-)?r{_RATIO}"
# A code-family name only (r<N>): what the replay's memory goes in front of (mem+r<N>).
CODE_PATTERN = rf"r{_RATIO}"


class ConditionError(SwevisError, ValueError):
    """A condition name that is neither `text` nor `[obs-|hist-]r<positive number>`."""


@dataclass(frozen=True)
class Condition:
    """`ratio` is None for text, else the positive compression ratio of the rendered pages;
    `family` says what is rendered (code, obs, hist; text is code's with no ratio)."""

    ratio: float | None = None
    family: str = CODE

    def __post_init__(self) -> None:
        if self.family not in FAMILIES or (self.ratio is None and self.family != CODE):
            raise ConditionError(f"page family {self.family!r} needs a ratio and is one of {', '.join(FAMILIES)}")
        r = self.ratio
        if r is not None and (isinstance(r, bool) or not isinstance(r, (int, float)) or not math.isfinite(r) or r <= 0):
            raise ConditionError(f"ratio must be a positive number, got {r!r}")
        if r is not None:
            object.__setattr__(self, "ratio", float(r))

    @classmethod
    def parse(cls, name: str) -> Condition:
        """`text`, `r<N>`, `obs-r<N>` or `hist-r<N>`; anything else is a ConditionError naming the value."""
        if not isinstance(name, str) or not re.fullmatch(PATTERN, name):
            hint = _canonical_hint(name)
            raise ConditionError(f"unknown condition {name!r}: use text, r<positive number> (r1, r3, r2.5), "
                                 f"obs-r<N> or hist-r<N>{hint}")
        if name == TEXT:
            return cls(None)
        family, ratio = name.split("-") if "-" in name else (CODE, name)
        return cls(float(ratio[1:]), family)

    @property
    def visual(self) -> bool:
        return self.ratio is not None

    @property
    def code_ratio(self) -> float | None:
        """The ratio code windows are rendered at as they are observed (None: they stay text;
        hist renders old history only, never a fresh observation)."""
        return self.ratio if self.family in (CODE, OBS) else None

    def __str__(self) -> str:
        if self.ratio is None:
            return TEXT
        prefix = "" if self.family == CODE else f"{self.family}-"
        return prefix + "r" + format(Decimal(repr(self.ratio)).normalize(), "f")


# The keys of config agents.pages each family reads (swevis.agents.observation.pages): the workflow passes
# a run or a replay only these, so editing one reruns only the conditions that read it.
PAGE_KEYS = {OBS: ("obs_min_tokens", "obs_run_chars"), HIST: ("hist_keep", "hist_block", "hist_policy")}


def pages_read(names: list[str], pages: dict) -> dict:
    """The part of config agents.pages that conditions `names` read ({} for text and rN)."""
    families = {Condition.parse(str(n).rpartition("+")[2]).family for n in names if str(n) != "mem"}
    return {k: pages[k] for f in FAMILIES if f in families for k in PAGE_KEYS.get(f, ()) if k in pages}


def _canonical_hint(name: object) -> str:
    """', write r3' for a near miss such as r3.0, R3 or r03."""
    if not isinstance(name, str):
        return ""
    m = re.fullmatch(r"(?:(obs|hist)-)?[rR]\s*([0-9]*\.?[0-9]+)", name.strip())
    if not m or float(m.group(2)) <= 0:
        return ""
    return f"; write {Condition(float(m.group(2)), m.group(1) or CODE)}"


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
