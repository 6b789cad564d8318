"""Opt-in OCR readability check of rendered pages (rapidocr, bundled ONNX models, offline).

OCR protocol (one protocol for every measurement in the study; see `OCR_PROTOCOL`): the page
is read the way the model sees it.

1. The whole page goes to rapidocr as it is sent to the model (the renderer only emits page
   sizes the backbone's image processor keeps unchanged): no strips, no upscaling by us,
   rapidocr's default models and settings but two limits that would not read the page as
   sent (`RAPIDOCR_LIMITS`): rapidocr shrinks any image whose longer side exceeds 2000 px to
   2000 px before detecting and recognizing (a 480 x 4096 history page of 9 px glyphs is
   read at 4.4 px), and its detector keeps at most 1000 text boxes a page (the rest of a
   dense page, its top rows, is never read). Both are lifted; a page at most 2000 px a side
   with fewer boxes reads exactly as under the defaults.
2. Recognized words (rapidocr word boxes) are assigned to the page's text columns by their
   x centre; a word whose centre lies in a column's line-number gutter (a number, or the
   continuation mark of a wrapped row) is dropped: the gutter is not code.
3. Per column, words are put into rows by y, then x; columns are read left to right.
4. Character accuracy = max(0, 1 - Levenshtein(ref, hyp) / len(ref)), where `ref` is the code
   text of the page's rows without the gutter and both strings have all whitespace removed
   (OCR cannot report indentation).

A second, independent reader (Tesseract, swevis.render.tesseract) reads the same page through
its own engine, upscaled, and is scored by steps 2-4 unchanged: `READERS` names both, and
`available_readers()` those installed here.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import logging
import threading
from importlib.metadata import version
from pathlib import Path

import numpy as np

from swevis.errors import SwevisError
from swevis.fsutil import write_atomic
from swevis.render.core import RenderResult, prepare_lines
from swevis.render import tesseract
from swevis.render.raster import visible_rows

log = logging.getLogger(__name__)

# rapidocr's defaults that would read a page other than as sent (module docstring, step 1):
# no page is reduced (the largest side any image family keeps is 16384 px) and every text box
# the detector finds is read
RAPIDOCR_LIMITS = {"Global.max_side_len": 32768, "Det.max_candidates": 100000}

# How rapidocr's engine runs, which changes no word it reads: one onnxruntime thread (the
# study runs its OCR jobs side by side on the workflow's cores), and onnxruntime's memory
# arena, which rapidocr turns off: without it the detector's input (a page whose shorter side
# is upscaled to 736 px, tens of MB) and every recognition batch are allocated afresh; with
# it a page reads the same words for less CPU (docs/measurements.md)
RAPIDOCR_ENGINE = {
    "Global.log_level": "error",
    "EngineConfig.onnxruntime.intra_op_num_threads": 1,
    "EngineConfig.onnxruntime.inter_op_num_threads": 1,
    "EngineConfig.onnxruntime.enable_cpu_mem_arena": True,
}

OCR_PROTOCOL = (
    "rapidocr {version} default models and settings on whole pages as sent (no strips, no upscaling; "
    "no reduction to 2000 px, no cap of 1000 boxes); "
    "word boxes in the line-number gutter dropped; reading order by column/y/x; "
    "char accuracy = 1 - levenshtein/len(ref) on whitespace-free code text without line numbers"
)


def levenshtein(a: str, b: str) -> int:
    """Edit distance (unit costs) by Myers/Hyyro bit-parallel algorithm: O(len(a)*len(b)/w)."""
    if a == b:
        return 0
    if not a:
        return len(b)
    if not b:
        return len(a)
    if len(a) > len(b):
        a, b = b, a
    m = len(a)
    peq: dict[str, int] = {}
    for i, ch in enumerate(a):
        peq[ch] = peq.get(ch, 0) | (1 << i)
    mask = (1 << m) - 1
    high = 1 << (m - 1)
    pv, mv, score = mask, 0, m
    for ch in b:
        eq = peq.get(ch, 0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = mv | (~(xh | pv) & mask)
        mh = pv & xh
        if ph & high:
            score += 1
        elif mh & high:
            score -= 1
        ph = ((ph << 1) | 1) & mask
        mh = (mh << 1) & mask
        pv = mh | (~(xv | ph) & mask)
        mv = ph & xv
    return score


def char_accuracy(reference: str, hypothesis: str) -> float:
    ref = "".join(reference.split())
    hyp = "".join(hypothesis.split())
    if not ref:
        return 1.0 if not hyp else 0.0
    return max(0.0, 1.0 - levenshtein(ref, hyp) / len(ref))


RAPIDOCR = "rapidocr"
TESSERACT = "tesseract"
READERS = (RAPIDOCR, TESSERACT)


def protocol(reader: str = RAPIDOCR) -> str:
    """The OCR protocol of a reader with its version, for provenance columns."""
    if reader == TESSERACT:
        return tesseract.protocol()
    _known(reader)
    return OCR_PROTOCOL.format(version=rapidocr_version())


def _known(reader: str) -> None:
    if reader not in READERS:
        raise SwevisError(f"unknown OCR reader {reader!r} (known: {', '.join(READERS)})")


def available_readers() -> list[str]:
    """The readers installed here: rapidocr (a dependency) and Tesseract when its program is."""
    return [RAPIDOCR, TESSERACT] if tesseract.available() else [RAPIDOCR]


def reader_words(image, reader: str = RAPIDOCR) -> list[tuple[float, float, str]]:
    """One reader's words of a whole page as (y_centre, x_centre, text) in page px."""
    if reader == TESSERACT:
        return tesseract.tesseract_words(image)
    _known(reader)
    return ocr_words(image)


def rapidocr_version() -> str:
    try:
        return version("rapidocr")
    except Exception:  # pragma: no cover
        return "unknown"


def _onnxruntime_version() -> str:
    try:
        return version("onnxruntime")
    except Exception:  # pragma: no cover
        return "unknown"


class OcrCache:
    """A reader's words of a page, kept on disk by page content, so that a rerun (or a second
    cell that draws the very same page) reads no page twice.

    The key is the SHA-256 of the page's PNG bytes (the image as it is sent) together with the
    OCR protocol, which names the rapidocr version, and the onnxruntime version (for Tesseract:
    its protocol, which names its version and upscaling): a new engine reads every page again. Entries are small JSON files under `folder/<2 hex>/<key>.json`,
    written atomically (jobs that run side by side may share the folder).
    """

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self.hits = 0
        self.misses = 0

    def key(self, image, reader: str = RAPIDOCR) -> str:
        buf = io.BytesIO()
        image.save(buf, format="PNG", optimize=False)
        h = hashlib.sha256(buf.getvalue())
        if reader == RAPIDOCR:  # the key rapidocr's entries were always stored under
            h.update(f"\0{protocol()}\0onnxruntime {_onnxruntime_version()}".encode())
        else:
            h.update(f"\0{protocol(reader)}".encode())
        return h.hexdigest()

    def words(self, image, reader: str = RAPIDOCR) -> list[tuple[float, float, str]]:
        """`reader_words(image, reader)`, from the cache when this page was read before."""
        path = self.folder / (k := self.key(image, reader))[:2] / f"{k}.json"
        try:
            words = [tuple(w) for w in json.loads(path.read_text())["words"]]
            self.hits += 1
            return words
        except (OSError, ValueError, KeyError, TypeError):
            pass  # absent or unreadable: read the page (a damaged entry is rewritten)
        words = reader_words(image, reader)
        self.misses += 1
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps({"protocol": protocol(reader), "words": words}))
        return words


def read_without_direction_classifier() -> None:
    """rapidocr reads from here on with its direction classifier off (`Global.use_cls`), its
    words cached under a protocol that says so. Pages are drawn upright, and the classifier
    turns some upright rows 180 degrees before they are read (rows of `-rw-r--r--`,
    docs/studies/other-agents-pages.md); the legibility benchmark's `--no-direction-classifier`."""
    global OCR_PROTOCOL, RAPIDOCR_LIMITS
    OCR_PROTOCOL = OCR_PROTOCOL.replace("no cap of 1000 boxes)", "no cap of 1000 boxes, no direction classifier)")
    RAPIDOCR_LIMITS = {**RAPIDOCR_LIMITS, "Global.use_cls": False}
    _engine.cache_clear()


_lock = threading.Lock()


@functools.lru_cache(maxsize=1)
def _engine():
    try:
        # Lazy: `from rapidocr import RapidOCR` takes ~1.0 s (python -X importtime, onnxruntime),
        # and the OCR check is opt-in.
        from rapidocr import RapidOCR
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise SwevisError(
            "the OCR check needs the rapidocr and onnxruntime packages (pip install rapidocr onnxruntime)"
        ) from exc
    return RapidOCR(params={**RAPIDOCR_ENGINE, **RAPIDOCR_LIMITS})


def ocr_words(image) -> list[tuple[float, float, str]]:
    """rapidocr words of one whole image as (y_centre, x_centre, text)."""
    with _lock:
        result = _engine()(np.asarray(image.convert("RGB")), return_word_box=True)
    if result is None or not result.word_results:
        return []
    out = []
    for line in result.word_results:
        for txt, _score, box in line:
            box = np.asarray(box, dtype=float)
            out.append((float(box[:, 1].mean()), float(box[:, 0].mean()), str(txt)))
    return out


def read_code_columns(
    image, columns: list[tuple[float, float]], line_height: float, cache: OcrCache | None = None,
    reader: str = RAPIDOCR,
) -> list[str]:
    """OCR a whole page and return the code text of each column, the gutter dropped.

    columns: per text column, (x where its gutter starts, x where its code starts) in page px.
    cache: where words of pages read before are kept (None: read the page).
    reader: one of READERS.
    """
    rows_by_col: list[list[tuple[float, float, str]]] = [[] for _ in columns]
    words = cache.words(image, reader) if cache is not None else reader_words(image, reader)
    for y, x, txt in words:
        col = max((i for i, (g0, _) in enumerate(columns) if g0 <= x), default=0)
        if x < columns[col][1]:
            continue  # a line number or continuation mark
        rows_by_col[col].append((y, x, txt))
    return [_rows_in_order(words, line_height) for words in rows_by_col]


def _rows_in_order(words: list[tuple[float, float, str]], line_height: float) -> str:
    """Words joined in reading order: rows by y (within half a line height), then x."""
    rows: list[list[tuple[float, float, str]]] = []
    for word in sorted(words):
        if rows and abs(word[0] - rows[-1][0][0]) < 0.5 * line_height:
            rows[-1].append(word)
        else:
            rows.append([word])
    return "\n".join(" ".join(t for _, _, t in sorted(r, key=lambda b: b[1])) for r in rows)


def ocr_page_accuracy(
    result: RenderResult, text: str, page: int, cache: OcrCache | None = None, reader: str = RAPIDOCR
) -> float:
    """OCR accuracy of one whole rendered page over its code text, gutter excluded on both
    sides (the protocol of swevis.render.ocr): what the model is shown, read as it is shown.
    Only `result.pages[page]` needs to be drawn. reader: one of READERS."""
    plan = result.plan
    lines = prepare_lines(text)
    colw = (plan.gutter + plan.wrap) * plan.advance + 2.0 * plan.advance  # raster.py's column pitch
    ncols = len(plan.page_columns[page])
    # a word belongs to the gutter when its centre is left of the separator space's middle
    geometry = [(plan.margin + c * colw, plan.margin + c * colw + (plan.gutter - 0.5) * plan.advance) for c in range(ncols)]
    ref = "\n".join(r[plan.gutter :] for c in range(ncols) for r in visible_rows(lines, result.start_line, plan, page, c))
    hyp = "\n".join(read_code_columns(result.pages[page], geometry, plan.line_px, cache, reader))
    return char_accuracy(ref, hyp)
