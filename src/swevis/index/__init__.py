"""The repository index I(repo) = (Σ symbols, F files, G graph, B lexical index).

    stats = build_index(repo_dir, "results/index/owner__name@sha.sqlite")   # incremental if it exists
    idx = open_index(db)        # RepoIndex: symbols_by_name, enclosing_symbol, neighbours, bm25_search, tests_for
"""

from swevis.index.build import IndexStats, build_index
from swevis.index.languages import is_test_path
from swevis.index.store import FileInfo, IndexError_, LexHit, RepoIndex, Symbol, open_index

__all__ = [
    "build_index",
    "open_index",
    "IndexStats",
    "RepoIndex",
    "Symbol",
    "FileInfo",
    "LexHit",
    "IndexError_",
    "is_test_path",
]
