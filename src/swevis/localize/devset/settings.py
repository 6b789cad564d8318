"""The development set's settings: the config's `devset` section (defaults in the schema)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from swevis.config import typed_section
from swevis.localize.devset.caselists import CaseFiles
from swevis.localize.devset.fitting import FitSettings


@dataclass(frozen=True)
class DevsetSettings:
    """Where the case lists, clones and rebuilt cases are; the fit of the shipped weights."""

    lists: str
    verified: str
    mirrors: str
    remote: str
    issues_api: str
    work: str
    weights: str
    per_repo: int
    history_depth: int
    fit: dict = field(default_factory=dict)

    @classmethod
    def of(cls, config: dict[str, Any]) -> DevsetSettings:
        return typed_section(cls, "devset", config.get("devset"))

    @property
    def files(self) -> CaseFiles:
        return CaseFiles(Path(self.lists), Path(self.verified))

    @property
    def fit_settings(self) -> FitSettings:
        return FitSettings(**self.fit)
