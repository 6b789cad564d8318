"""Documentation files (rst, md, txt) -> ordered text chunks (Prometheus's TextNode / NEXT_CHUNK).

Chunks are cut adaptively: paragraphs first, then lines, then words, then characters, so a
chunk never exceeds `chunk_chars` unless a single character run forces it. Each chunk keeps
its 1-based line span; the build links consecutive chunks with `next_id`. `TEXT` is the
language record (registered in swevis.index.languages).
"""

from __future__ import annotations

from swevis.index.records import ChunkRec, FileExtract, Language


def _pieces(text: str, limit: int, seps: tuple[str, ...]) -> list[str]:
    """Split text into pieces no longer than limit, trying separators coarse to fine."""
    if len(text) <= limit:
        return [text]
    if not seps:
        return [text[i : i + limit] for i in range(0, len(text), limit)]
    sep, rest = seps[0], seps[1:]
    parts = text.split(sep)
    out: list[str] = []
    cur = ""
    for i, part in enumerate(parts):
        piece = part + (sep if i < len(parts) - 1 else "")
        if len(piece) > limit:
            if cur:
                out.append(cur)
                cur = ""
            out.extend(_pieces(piece, limit, rest))
        elif len(cur) + len(piece) > limit:
            out.append(cur)
            cur = piece
        else:
            cur += piece
    if cur:
        out.append(cur)
    return out


def chunk_text(text: str, chunk_chars: int) -> list[ChunkRec]:
    chunks: list[ChunkRec] = []
    line = 1
    for piece in _pieces(text, max(1, chunk_chars), ("\n\n", "\n", " ")):
        n_nl = piece.count("\n")
        body = piece.strip()
        if body:
            lead = len(piece) - len(piece.lstrip())
            start = line + piece[:lead].count("\n")
            end = start + body.count("\n")
            chunks.append(ChunkRec(start, end, body))
        line += n_nl
    return chunks


def extract(path: str, data: bytes, module: str, options: dict | None = None) -> FileExtract:
    options = options or {}
    fx = FileExtract(language="text")
    text = data.decode("utf-8", "replace")
    fx.chunks = chunk_text(text, int(options["chunk_chars"]))
    return fx


TEXT = Language(
    name="text",
    extensions=(".rst", ".md", ".txt"),
    extract=extract,
    kind="doc",
    # a document in a test folder, or a doctest file test_*.txt, is test material like code there
    test_dirs=("tests", "test", "testing"),
    test_only_dirs=("tests",),
    test_files=("test_*",),
)
