"""Tesseract (Debian's tesseract-ocr program) as a second, independent OCR reader of pages.

rapidocr decides the renderer's guards, so it also tuned the drawing it checks; Tesseract is
another engine (LSTM lines, its own models) that checks the same pages. At send size it
reads almost nothing below 8 px, so the page is read upscaled: greyscale, `SCALE` times
larger with Lanczos resampling. That adds no information (the same pixels, interpolated),
it only gives Tesseract's line finder glyphs of the size it was trained on. The program is
called as a subprocess (`--psm 6`: one uniform block of text; TSV output: one row a word with
its box), one thread (OMP_THREAD_LIMIT=1: the study runs its OCR jobs side by side). Word
boxes are mapped back to page pixels, so swevis.render.ocr assigns words to columns, drops
the gutter and scores them exactly as it does rapidocr's.
"""

from __future__ import annotations

import functools
import io
import os
import shutil
import subprocess

from swevis.errors import SwevisError

PROGRAM = "tesseract"
SCALE = 3
PSM = 6
TIMEOUT_S = 600
TESSERACT_PROTOCOL = (
    "tesseract {version} --psm 6 TSV words of the whole page as sent, greyscale, upscaled {scale}x with Lanczos "
    "(the same pixels); word boxes mapped back to page px; then swevis.render.ocr's gutter, reading order and "
    "char accuracy"
)
MISSING = "the second OCR reader needs the tesseract program (Debian: apt-get install tesseract-ocr)"


def available() -> bool:
    """Whether the tesseract program is on PATH."""
    return shutil.which(PROGRAM) is not None


@functools.lru_cache(maxsize=1)
def tesseract_version() -> str:
    """`tesseract --version`'s first line's version ("5.3.0"), or "unknown"."""
    if not available():
        return "unknown"
    out = subprocess.run([PROGRAM, "--version"], capture_output=True, text=True, timeout=60)
    first = (out.stdout or out.stderr).splitlines()[:1]
    return first[0].split()[-1] if first else "unknown"


def protocol() -> str:
    """The reading protocol with Tesseract's version, for provenance columns and the cache key."""
    return TESSERACT_PROTOCOL.format(version=tesseract_version(), scale=SCALE)


def upscale(image, scale: int | None = None):
    """The page greyscale and `scale` (default SCALE) times larger (Lanczos): interpolated, no
    new information."""
    from PIL import Image

    scale = scale or SCALE
    grey = image.convert("L")
    return grey.resize((grey.width * scale, grey.height * scale), Image.Resampling.LANCZOS)


def parse_tsv(tsv: str, scale: float) -> list[tuple[float, float, str]]:
    """Tesseract's TSV as words (y_centre, x_centre, text) in the page's own pixels.

    Only level-5 rows (words) with text count; boxes are divided by `scale`, the upscaling the
    page was read at. A malformed row (not 12 tab-separated fields) is an error, not a skip.
    """
    lines = tsv.splitlines()
    if not lines:
        return []
    head = lines[0].split("\t")
    if head[:1] != ["level"] or "text" not in head:
        raise SwevisError(f"tesseract: unexpected TSV header {lines[0][:80]!r}")
    col = {name: i for i, name in enumerate(head)}
    words = []
    for line in lines[1:]:
        if not line:
            continue
        f = line.split("\t")
        if len(f) != len(head):
            raise SwevisError(f"tesseract: malformed TSV row {line[:80]!r}")
        text = f[col["text"]].strip()
        if f[col["level"]] != "5" or not text:
            continue
        left, top, width, height = (float(f[col[k]]) for k in ("left", "top", "width", "height"))
        words.append(((top + height / 2) / scale, (left + width / 2) / scale, text))
    return words


def tesseract_words(image) -> list[tuple[float, float, str]]:
    """Tesseract's words of one whole page as (y_centre, x_centre, text) in page px."""
    if not available():
        raise SwevisError(MISSING)
    buf = io.BytesIO()
    scale = SCALE
    upscale(image, scale).save(buf, format="PNG")
    try:
        out = subprocess.run(
            [PROGRAM, "stdin", "stdout", "--psm", str(PSM), "tsv"],
            input=buf.getvalue(), capture_output=True, timeout=TIMEOUT_S,
            env={**os.environ, "OMP_THREAD_LIMIT": "1"},
        )
    except subprocess.TimeoutExpired as exc:
        raise SwevisError(f"tesseract: no answer within {TIMEOUT_S} s") from exc
    if out.returncode != 0:
        raise SwevisError(f"tesseract failed (exit {out.returncode}): {out.stderr.decode(errors='replace').strip()[:200]}")
    return parse_tsv(out.stdout.decode("utf-8", errors="replace"), scale)
