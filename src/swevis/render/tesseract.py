"""Tesseract (Debian's tesseract-ocr program) as a second, independent OCR reader of pages.

rapidocr decides the renderer's guards, so it also tuned the drawing it checks; Tesseract is
another engine (LSTM lines, its own models) that checks the same pages. At send size it
reads almost nothing below 8 px, so the page is prepared for it first (`ReadSettings`):
greyscale, upscaled with an interpolating filter, optionally its levels stretched. That adds
no information (the same pixels, interpolated and remapped; nothing uses the source text),
it only gives Tesseract's line finder glyphs of the size it was trained on. The program is
called as a subprocess (TSV output: one row a word with its box), one thread
(OMP_THREAD_LIMIT=1: the study runs its OCR jobs side by side). Word boxes are mapped back
to page pixels, so swevis.render.ocr assigns words to columns, drops the gutter and scores
them exactly as it does rapidocr's. `READ` is the setting the study reads with, chosen by
benchmarks/bench_tesseract_reader.py on windows the frontier does not measure.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import os
import shutil
import subprocess

from swevis.errors import SwevisError

PROGRAM = "tesseract"
TIMEOUT_S = 600
MISSING = "the second OCR reader needs the tesseract program (Debian: apt-get install tesseract-ocr)"
RESAMPLE = ("lanczos", "bicubic")
LEVELS = ("none", "stretch", "otsu")
GREY = ("luma", "darkest")
CHARSETS = ("any", "ascii")
ASCII = "".join(chr(c) for c in range(32, 127))  # printable ASCII, the space included (without it the LSTM writes _ for spaces)


@dataclasses.dataclass(frozen=True)
class ReadSettings:
    """How a page is prepared for Tesseract and how it is asked to read it.

    scale, resample: the upscaling (an integer factor; Lanczos or bicubic interpolation).
    levels: after upscaling, none; stretch (grey levels spread to 0..255, 1% clipped at each
    end); otsu (binarized at Otsu's threshold of the upscaled page's histogram).
    psm, oem: Tesseract's page segmentation and engine modes; dpi: the resolution it is told
    (None: it guesses). dictionaries: False stops Tesseract's word lists (load_system_dawg,
    load_freq_dawg) from correcting code towards English words. lang, tessdata_dir: the model
    (`-l`; Debian's tesseract-ocr-eng by default) and the folder it is read from (None:
    Tesseract's own; a folder needs the `configs/tsv` file beside the model). The defaults are the setting
    the study reads with (`READ`); the earlier reader was charset any, gamma 1, line_y True.
    """

    scale: int = 3
    resample: str = "lanczos"
    levels: str = "none"
    psm: int = 6
    oem: int | None = None
    dpi: int | None = None
    dictionaries: bool = True
    grey: str = "luma"
    charset: str = "ascii"
    gamma: float = 2.0
    sharpen: int = 0
    line_y: bool = False
    lang: str = "eng"
    tessdata_dir: str | None = None

    def __post_init__(self):
        if (self.scale < 1 or self.resample not in RESAMPLE or self.levels not in LEVELS or self.grey not in GREY
                or self.charset not in CHARSETS or self.gamma <= 0 or self.sharpen < 0 or not self.lang):
            raise SwevisError(f"tesseract: bad read settings {self} (scale >= 1, resample in {RESAMPLE}, levels in "
                              f"{LEVELS}, grey in {GREY}, charset in {CHARSETS}, gamma > 0, sharpen >= 0, a model name)")

    def args(self) -> list[str]:
        """The command-line options after `tesseract stdin stdout` (before the `tsv` config)."""
        out = ["--psm", str(self.psm)]
        if self.lang != "eng":
            out += ["-l", self.lang]
        if self.tessdata_dir is not None:
            out += ["--tessdata-dir", self.tessdata_dir]
        if self.oem is not None:
            out += ["--oem", str(self.oem)]
        if self.dpi is not None:
            out += ["--dpi", str(self.dpi)]
        if not self.dictionaries:
            out += ["-c", "load_system_dawg=0", "-c", "load_freq_dawg=0"]
        if self.charset == "ascii":
            out += ["-c", f"tessedit_char_whitelist={ASCII}"]
        return out

    def describe(self) -> str:
        """The settings in words, for the protocol (and so the OCR cache key)."""
        levels = {"none": "", "stretch": ", levels stretched", "otsu": ", Otsu-binarized"}[self.levels]
        grey = "greyscale" if self.grey == "luma" else "greyscale (darkest channel)"
        levels += f", gamma {self.gamma:g}" if self.gamma != 1 else ""
        levels += f", unsharp mask {self.sharpen}%" if self.sharpen else ""
        args = " ".join(a if "whitelist" not in a else "tessedit_char_whitelist=<printable ASCII>" for a in self.args())
        where = "; each word at its Tesseract line's y" if self.line_y else ""
        return f"{grey}, upscaled {self.scale}x with {self.resample}{levels} (the same pixels); {args}{where}"


# chosen by benchmarks/bench_tesseract_reader.py (docs/single-read.md, "Two readers"): printable
# ASCII and gamma 2 read best; upscaling 4x or 5x, bicubic, stretched or Otsu levels, psm 4,
# --dpi, no word lists, the darkest channel, sharpening and a word at its line's y did not.
READ = ReadSettings()
TESSERACT_PROTOCOL = (
    "tesseract {version} TSV words of the whole page as sent, {settings}; word boxes mapped back to page px; "
    "then swevis.render.ocr's gutter, reading order and char accuracy"
)


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


def protocol(settings: ReadSettings | None = None) -> str:
    """The reading protocol with Tesseract's version, for provenance columns and the cache key."""
    return TESSERACT_PROTOCOL.format(version=tesseract_version(), settings=(settings or READ).describe())


def upscale(image, scale: int | None = None, resample: str = "lanczos", grey: str = "luma"):
    """The page greyscale and `scale` (default READ.scale) times larger, interpolated: no new
    information."""
    from PIL import Image, ImageChops

    scale = scale or READ.scale
    filt = {"lanczos": Image.Resampling.LANCZOS, "bicubic": Image.Resampling.BICUBIC}[resample]
    if grey == "darkest" and image.mode == "RGB":
        r, g, b = image.split()
        grey = ImageChops.darker(ImageChops.darker(r, g), b)
    else:
        grey = image.convert("L")
    return grey.resize((grey.width * scale, grey.height * scale), filt)


def prepare(image, settings: ReadSettings | None = None):
    """The image Tesseract reads: `upscale`d, sharpened, its gamma and levels as `settings` says."""
    from PIL import ImageFilter, ImageOps

    s = settings or READ
    big = upscale(image, s.scale, s.resample, s.grey)
    if s.sharpen:
        big = big.filter(ImageFilter.UnsharpMask(radius=s.scale / 2, percent=s.sharpen, threshold=0))
    if s.gamma != 1:
        big = big.point([round(255 * (v / 255) ** s.gamma) for v in range(256)])
    if s.levels == "stretch":
        return ImageOps.autocontrast(big, cutoff=1)
    if s.levels == "otsu":
        t = otsu_threshold(big.histogram())
        return big.point(lambda v: 255 if v > t else 0)
    return big


def otsu_threshold(histogram: list[int]) -> int:
    """Otsu's threshold of a 256-bin grey histogram: the level that maximizes the variance
    between the pixels at or below it and those above it."""
    total = sum(histogram)
    sum_all = sum(i * n for i, n in enumerate(histogram))
    best, best_var, w0, sum0 = 0, -1.0, 0, 0.0
    for t, n in enumerate(histogram):
        w0 += n
        sum0 += t * n
        w1 = total - w0
        if w0 == 0 or w1 == 0:
            continue
        between = w0 * w1 * (sum0 / w0 - (sum_all - sum0) / w1) ** 2
        if between > best_var:
            best, best_var = t, between
    return best


def parse_tsv(tsv: str, scale: float, line_y: bool = False) -> list[tuple[float, float, str]]:
    """Tesseract's TSV as words (y_centre, x_centre, text) in the page's own pixels.

    Only level-5 rows (words) with text count; boxes are divided by `scale`, the upscaling the
    page was read at. With line_y, a word's y is the centre of the text line Tesseract put it in (its
    level-4 row), not of its own box: a word of quotes, commas or underscores has a box far
    above or below its line's middle, and swevis.render.ocr orders words into rows by y, so
    its own centre would move it to a row of its own. A malformed row (not 12
    tab-separated fields) is an error, not a skip.
    """
    lines = tsv.splitlines()
    if not lines:
        return []
    head = lines[0].split("\t")
    if head[:1] != ["level"] or "text" not in head:
        raise SwevisError(f"tesseract: unexpected TSV header {lines[0][:80]!r}")
    col = {name: i for i, name in enumerate(head)}
    line_ys: dict[tuple[str, ...], float] = {}
    words = []
    for line in lines[1:]:
        if not line:
            continue
        f = line.split("\t")
        if len(f) != len(head):
            raise SwevisError(f"tesseract: malformed TSV row {line[:80]!r}")
        left, top, width, height = (float(f[col[k]]) for k in ("left", "top", "width", "height"))
        where = tuple(f[col[k]] for k in ("page_num", "block_num", "par_num", "line_num"))
        if f[col["level"]] == "4":
            line_ys[where] = top + height / 2
        text = f[col["text"]].strip()
        if f[col["level"]] != "5" or not text:
            continue
        y = line_ys.get(where, top + height / 2) if line_y else top + height / 2
        words.append((y / scale, (left + width / 2) / scale, text))
    return words


def tesseract_words(image, settings: ReadSettings | None = None) -> list[tuple[float, float, str]]:
    """Tesseract's words of one whole page as (y_centre, x_centre, text) in page px, read with
    `settings` (default READ)."""
    if not available():
        raise SwevisError(MISSING)
    s = settings or READ
    buf = io.BytesIO()
    prepare(image, s).save(buf, format="PNG")
    try:
        out = subprocess.run(
            [PROGRAM, "stdin", "stdout", *s.args(), "tsv"],
            input=buf.getvalue(), capture_output=True, timeout=TIMEOUT_S,
            env={**os.environ, "OMP_THREAD_LIMIT": "1"},
        )
    except subprocess.TimeoutExpired as exc:
        raise SwevisError(f"tesseract: no answer within {TIMEOUT_S} s") from exc
    if out.returncode != 0:
        raise SwevisError(f"tesseract failed (exit {out.returncode}): {out.stderr.decode(errors='replace').strip()[:200]}")
    return parse_tsv(out.stdout.decode("utf-8", errors="replace"), s.scale, s.line_y)
