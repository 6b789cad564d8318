"""The page families, one module each, and their registry `FAMILIES`: a condition is `text` or
a family's `<prefix>r<N>`, and swevis.conditions builds its grammar (the Snakemake wildcard,
the config schema's pattern, every parser) from the families listed here.

Adding a family is a module defining its PageFamily (swevis.page_families.record says what
one holds) and one more entry in FAMILIES.
"""

from __future__ import annotations

from swevis.errors import SwevisError
from swevis.page_families import both_family, code_family, hist_family, obs_family
from swevis.page_families.record import CallTokens, PageFamily

__all__ = ["PageFamily", "CallTokens", "FAMILIES", "DEFAULT_FAMILY", "page_family"]

# the registry, in the order tables and messages list the families; the first is r<N>'s
FAMILIES: tuple[PageFamily, ...] = (code_family.CODE, obs_family.OBS, hist_family.HIST, both_family.BOTH)
DEFAULT_FAMILY = FAMILIES[0]


def page_family(name: str) -> PageFamily:
    """The family of that name (a SwevisError naming the known ones otherwise)."""
    found = next((f for f in FAMILIES if f.name == name), None)
    if found is None:
        raise SwevisError(f"unknown page family {name!r}; known: {', '.join(f.name for f in FAMILIES)}")
    return found
