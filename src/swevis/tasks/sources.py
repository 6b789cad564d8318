"""Task sources behind one interface: the bundled sample, a Hugging Face dataset, a local file.

Every source returns validated rows (see schema.validate_row); `origin` names where rows
came from so errors can point at it.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any, Protocol

import polars as pl

from swevis.errors import TaskSourceError
from swevis.provenance import provenance
from swevis.tasks import bundled
from swevis.tasks.formats import swebench_row
from swevis.tasks.languages import row_language, take_languages, with_language
from swevis.tasks.sampling import stratified_sample
from swevis.tasks.schema import validate_row


class TaskSource(Protocol):
    origin: str

    def load(self) -> list[dict[str, Any]]: ...


class BundledSource:
    """The sample tasks shipped in the package (src/swevis/data/sample): one of its sets,
    `instances` (the study's sample) unless tasks.bundled_set names another (`polyglot`)."""

    def __init__(self, sample_dir: Path | None = None, set_name: str = bundled.STUDY_SET):
        self.sample_dir = Path(sample_dir) if sample_dir else bundled.SAMPLE_DIR
        self.set_name = set_name
        # the package's own sample by its place in the package, not this host's install location
        where = "swevis/data/sample" if self.sample_dir == bundled.SAMPLE_DIR else self.sample_dir
        which = "" if set_name == bundled.STUDY_SET else f", set {set_name}"
        self.origin = f"bundled sample ({where}{which})"

    def load(self) -> list[dict[str, Any]]:
        return bundled.load_bundled_set(self.set_name, self.sample_dir)


def prepare_rows(rows: list[Any], origin: str) -> list[dict[str, Any]]:
    """A source's rows as validated SWE-bench rows (SWE-PolyBench's renamed), each with its
    language (swevis.tasks.languages); errors name `origin` and the row number."""
    return with_language([validate_row(swebench_row(row, origin, i), origin, i) for i, row in enumerate(rows, start=1)])


class HuggingFaceSource:
    """A dataset split through `datasets`, e.g. princeton-nlp/SWE-bench_Verified,
    SWE-bench/SWE-bench_Multilingual or AmazonScience/SWE-PolyBench_Verified, split test.

    `dataset` may also be a local dataset folder or a builder name; `data_files` is passed
    through for builders such as "json" (used by the offline tests).
    """

    def __init__(self, dataset: str, split: str, data_files: Any = None):
        self.dataset, self.split, self.data_files = dataset, split, data_files
        self.origin = f"Hugging Face dataset {dataset} (split {split})"

    def load(self) -> list[dict[str, Any]]:
        try:
            # Lazy: `import datasets` takes ~0.9 s (python -X importtime); only this source needs it.
            import datasets
        except ImportError as exc:  # pragma: no cover - datasets is a dependency
            raise TaskSourceError("the huggingface source needs the `datasets` package") from exc
        kwargs = {"data_files": self.data_files} if self.data_files is not None else {}
        try:
            ds = datasets.load_dataset(self.dataset, split=self.split, **kwargs)
        except ValueError as exc:
            if "split" in str(exc).lower():
                raise TaskSourceError(f"{self.origin}: no such split ({exc})") from None
            raise TaskSourceError(f"{self.origin}: {exc}") from None
        except (FileNotFoundError, ConnectionError, OSError) as exc:
            raise TaskSourceError(
                f"{self.origin}: cannot load the dataset ({type(exc).__name__}: {exc}). "
                "Check the name, your network, or HF_DATASETS_OFFLINE."
            ) from None
        except Exception as exc:  # datasets raises its own types (DatasetNotFoundError, ...)
            raise TaskSourceError(f"{self.origin}: {type(exc).__name__}: {exc}") from None
        return prepare_rows([dict(row) for row in ds], self.origin)


class FileSource:
    """A local .json (a list of rows), .jsonl or .parquet file of SWE-bench or SWE-PolyBench rows."""

    SUFFIXES = (".json", ".jsonl", ".parquet")

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.origin = str(self.path)

    def load(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            raise TaskSourceError(f"task file {self.path} does not exist")
        suffix = self.path.suffix.lower()
        if suffix not in self.SUFFIXES:
            raise TaskSourceError(f"task file {self.path}: unsupported format (use one of {', '.join(self.SUFFIXES)})")
        return prepare_rows(getattr(self, f"_read_{suffix[1:]}")(), self.origin)

    def _text(self) -> str:
        try:
            return self.path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            raise TaskSourceError(f"{self.path}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None

    def _read_json(self) -> list[Any]:
        try:
            data = json.loads(self._text())
        except json.JSONDecodeError as exc:
            raise TaskSourceError(f"{self.path}: invalid JSON at line {exc.lineno} ({exc.msg})") from None
        if not isinstance(data, list):
            raise TaskSourceError(f"{self.path}: expected a JSON list of instance objects")
        return data

    def _read_jsonl(self) -> list[Any]:
        rows = []
        for number, line in enumerate(self._text().splitlines(), start=1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise TaskSourceError(f"{self.path}, row {number}: invalid JSON ({exc.msg})") from None
        return rows

    def _read_parquet(self) -> list[Any]:
        try:
            return pl.read_parquet(self.path).to_dicts()
        except Exception as exc:
            raise TaskSourceError(f"{self.path}: cannot read parquet ({exc})") from None


def open_source(tasks_cfg: dict[str, Any]) -> TaskSource:
    """The source the `tasks` config section names."""
    kind = tasks_cfg.get("source", "bundled")
    if kind == "bundled":
        return BundledSource(set_name=tasks_cfg.get("bundled_set") or bundled.STUDY_SET)
    if kind == "huggingface":
        return HuggingFaceSource(tasks_cfg["dataset"], tasks_cfg["split"])
    if kind == "file":
        if not tasks_cfg.get("path"):
            raise TaskSourceError("tasks.source is 'file' but tasks.path is not set")
        return FileSource(tasks_cfg["path"])
    raise TaskSourceError(f"unknown task source {kind!r}")


def select_instances(tasks_cfg: dict[str, Any]) -> list[dict[str, Any]]:
    """Load the configured source and take the configured sample (or the listed ids)."""
    source = open_source(tasks_cfg)
    rows = source.load()
    if not rows:
        raise TaskSourceError(f"{source.origin} has no instances")
    rows = take_languages(rows, tasks_cfg.get("languages") or [], source.origin)
    if not rows:
        raise TaskSourceError(f"{source.origin} has no instances of {', '.join(tasks_cfg['languages'])}")
    wanted = tasks_cfg.get("instance_ids") or []
    if wanted:
        by_id = {r["instance_id"]: r for r in rows}
        missing = [i for i in wanted if i not in by_id]
        if missing:
            raise TaskSourceError(f"{source.origin} has no instance(s) {', '.join(missing)}")
        return [by_id[i] for i in sorted(set(wanted))]
    return stratified_sample(rows, tasks_cfg.get("n"), tasks_cfg.get("seed", 0))


def probe_instances(names: list[str], study: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows of the bundled probe sets `names`, each tagged ``probe_set`` (its set), to be
    written after the study's rows into instances.jsonl. An id in the study's sample too is an
    error: one run folder cannot be both."""
    taken = {r["instance_id"] for r in study}
    out: list[dict[str, Any]] = []
    for name in sorted(set(names)):
        for row in bundled.load_bundled_set(name):
            if row["instance_id"] in taken:
                raise TaskSourceError(f"probe set {name}: instance {row['instance_id']} is in the study's sample too")
            taken.add(row["instance_id"])
            out.append({**row, "probe_set": name})
    return out


def localized_instances(names: list[str], tasks_cfg: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows of the bundled sets `names` (tasks.localized_sets), each tagged
    ``localized_set``: the workflow indexes and localizes them beside the study's sample (the
    localization table, by language) and runs no agent on them. The set the study samples
    from (tasks.bundled_set of a bundled study) is left out: its rows are the study's."""
    bundled_study = tasks_cfg.get("source", "bundled") == "bundled"
    study_set = (tasks_cfg.get("bundled_set") or bundled.STUDY_SET) if bundled_study else None
    out: list[dict[str, Any]] = []
    for name in sorted(set(names) - {study_set}):
        out.extend({**row, "localized_set": name} for row in bundled.load_bundled_set(name))
    return out


def sample_summary(tasks_cfg: dict[str, Any], rows: list[dict[str, Any]],
                   probes: list[dict[str, Any]] = ()) -> dict[str, Any]:
    """What the sample is and where it came from, written beside instances.jsonl (`rows` the
    study's sample; `probes` the probe sets' rows, listed apart)."""
    probe_sets: dict[str, list[str]] = {}
    for row in probes:
        probe_sets.setdefault(row["probe_set"], []).append(row["instance_id"])
    return {
        "source": open_source(tasks_cfg).origin,
        "n": len(rows),
        "seed": tasks_cfg.get("seed"),
        "per_repo": dict(sorted(Counter(r["repo"] for r in rows).items())),
        "per_language": dict(sorted(Counter(row_language(r) for r in rows).items())),
        "instance_ids": [r["instance_id"] for r in rows],
        "probe_sets": probe_sets,
        **provenance(tasks_cfg),
    }
