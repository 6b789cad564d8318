"""The language of a task row, and the check that swevis can index it.

A row names its language in `language` (SWE-PolyBench writes "Java", "TypeScript"; swevis
writes the index's lower-case names). A row without one is Python, the language of the
original SWE-bench schema, unless swebench's `MAP_REPO_TO_EXT` lists its repository under
another language (SWE-bench Multilingual's rows carry no language of their own). Rows of
derived Python stay without the field, so rows that were Python before keep their bytes.

The languages swevis knows are the index's registered code languages
(`swevis.index.languages.registered("code")`): nothing here lists them again.
"""

from __future__ import annotations

from typing import Any, Iterable

from swevis.errors import TaskSourceError

# a row without `language` (the SWE-bench schema's own language)
DEFAULT_LANGUAGE = "python"
# spellings of datasets and swebench's MAP_REPO_TO_EXT -> the index's language names
ALIASES = {
    "py": "python", "js": "javascript", "ts": "typescript", "rs": "rust", "golang": "go",
    "rb": "ruby", "c++": "cpp",
}


def canonical(name: str) -> str:
    """The index's spelling of a language name ("TypeScript" -> "typescript", "rs" -> "rust")."""
    low = name.strip().lower()
    return ALIASES.get(low, low)


def row_language(row: dict[str, Any]) -> str:
    """The language of a prepared row (`language`, else Python)."""
    return row.get("language") or DEFAULT_LANGUAGE


def known_languages() -> tuple[str, ...]:
    """The languages swevis can index: the registry's code languages, sorted."""
    from swevis.index.languages import registered

    return tuple(sorted(lang.name for lang in registered("code")))


def repo_languages() -> dict[str, str]:
    """swebench's language of each repository it has specs for (SWE-bench Multilingual's)."""
    # Lazy: swebench's harness takes ~2 s to import; only rows without a language need it.
    from swebench.harness.constants import MAP_REPO_TO_EXT

    return {repo: canonical(ext) for repo, ext in MAP_REPO_TO_EXT.items()}


def with_language(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows, each `language` in the index's spelling; a row without one gets the language
    swebench lists for its repository when that is not Python."""
    by_repo: dict[str, str] | None = None
    out = []
    for row in rows:
        row = dict(row)
        if row.get("language"):
            row["language"] = canonical(str(row["language"]))
        else:
            row.pop("language", None)
            if by_repo is None:
                by_repo = repo_languages()
            derived = by_repo.get(row["repo"], DEFAULT_LANGUAGE)
            if derived != DEFAULT_LANGUAGE:
                row["language"] = derived
        out.append(row)
    return out


def check_languages(wanted: list[str]) -> list[str]:
    """config tasks.languages in the index's spelling; one swevis cannot index is refused by
    name (the workflow checks it while planning, so no job starts on it)."""
    known = known_languages()
    wanted_names = [canonical(w) for w in wanted]
    unknown = [w for w in wanted_names if w not in known]
    if unknown:
        raise TaskSourceError(
            f"tasks.languages: {', '.join(unknown)} is not a language swevis can index (known: {', '.join(known)})"
        )
    return wanted_names


def take_languages(rows: Iterable[dict[str, Any]], wanted: list[str], origin: str) -> list[dict[str, Any]]:
    """The rows of the `wanted` languages (all when empty); a kept row of a language swevis
    cannot index is refused, naming the row, its language and the known ones."""
    known = known_languages()
    wanted_names = check_languages(wanted)
    kept = [r for r in rows if not wanted_names or row_language(r) in wanted_names]
    for row in kept:
        language = row_language(row)
        if language not in known:
            raise TaskSourceError(
                f"{origin}, instance {row['instance_id']}: language {language!r} is not one swevis can index "
                f"(known: {', '.join(known)}); leave its rows out with tasks.languages"
            )
    return kept
