"""Opt-in OCR readability check of rendered pages (rapidocr, bundled ONNX models, offline).

OCR protocol (one protocol for every measurement in the study; see `OCR_PROTOCOL`):

1. The page is taken exactly as the model sees it: the renderer only emits page sizes that
   the backbone's image processor keeps unchanged (no resize), so the PNG is the model's view.
2. Each text column of the page is cut into horizontal strips of at most `strip_rows` rows,
   at source-row boundaries, padded with a white border of `pad` px, and upscaled by the
   integer factor `upscale` (bicubic). rapidocr otherwise rescales whole pages to fit
   `min_side_len`/`max_side_len`, so its reading would depend on page size, not glyph size;
   strips of a fixed row count make the reading depend on glyph size only.
3. Recognized boxes are put into reading order (strip, then y, then x) and joined.
4. Character accuracy = max(0, 1 - Levenshtein(ref, hyp) / len(ref)), where `ref` is the
   visible text of the strip (line numbers included, as they are rendered) and both strings
   have all whitespace removed (OCR cannot report indentation).
"""

from __future__ import annotations

import functools
import logging
import threading
from dataclasses import dataclass
from importlib.metadata import version

import numpy as np

from swevis.errors import SwevisError

log = logging.getLogger(__name__)

OCR_PROTOCOL = (
    "rapidocr {version} default models; per-column strips of <= {strip_rows} rows, "
    "pad {pad}px, upscale x{upscale} bicubic; reading order by strip/y/x; "
    "char accuracy = 1 - levenshtein/len(ref) on whitespace-free text incl. line numbers"
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


@dataclass(frozen=True)
class OcrSettings:
    strip_rows: int = 24
    pad: int = 8
    upscale: int = 2

    def protocol(self) -> str:
        return OCR_PROTOCOL.format(version=rapidocr_version(), **self.__dict__)


def rapidocr_version() -> str:
    try:
        return version("rapidocr")
    except Exception:  # pragma: no cover
        return "unknown"


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
    return RapidOCR(
        params={
            "Global.log_level": "error",
            "EngineConfig.onnxruntime.intra_op_num_threads": 1,
            "EngineConfig.onnxruntime.inter_op_num_threads": 1,
        }
    )


def ocr_lines(image) -> list[tuple[float, float, str]]:
    """rapidocr boxes of one image as (y_center, x_left, text)."""
    with _lock:
        result = _engine()(np.asarray(image.convert("RGB")))
    if result is None or result.txts is None or result.boxes is None:
        return []
    out = []
    for box, txt in zip(result.boxes, result.txts):
        box = np.asarray(box)
        out.append((float(box[:, 1].mean()), float(box[:, 0].min()), str(txt)))
    return out


def read_in_order(image, line_height: float) -> str:
    """OCR one strip and join its boxes in reading order (rows by y, then x)."""
    boxes = sorted(ocr_lines(image))
    rows: list[list[tuple[float, float, str]]] = []
    for box in boxes:
        if rows and abs(box[0] - rows[-1][0][0]) < 0.5 * line_height:
            rows[-1].append(box)
        else:
            rows.append([box])
    return "\n".join(" ".join(t for _, _, t in sorted(r, key=lambda b: b[1])) for r in rows)
