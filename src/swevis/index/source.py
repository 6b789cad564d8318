"""Lines of a checkout's files, read once each: the source text D_loc's spans and the graph's
queries show beside the index's rows (which hold no source)."""

from __future__ import annotations

from pathlib import Path


class SourceLines:
    """Lines of repository files, read once each (None when the file cannot be read)."""

    def __init__(self, repo_dir: str | Path | None):
        self.root = Path(repo_dir) if repo_dir else None
        self.cache: dict[str, list[str] | None] = {}

    def __call__(self, path: str) -> list[str] | None:
        if path not in self.cache:
            self.cache[path] = None
            if self.root is not None:
                try:
                    self.cache[path] = (self.root / path).read_bytes().decode("utf-8", "replace").splitlines()
                except OSError:
                    pass
        return self.cache[path]
