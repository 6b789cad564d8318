"""`r<N>`, the paper's page family: code windows rendered as they are observed, nothing else
(PageFamily's defaults); every agent takes it."""

from __future__ import annotations

from swevis.page_families.record import PageFamily

CODE = PageFamily(name="code", prefix="", every_agent=True)
