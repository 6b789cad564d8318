"""The page families beyond code windows: `obs-rN` renders long observations, `hist-rN` old
history, `both-rN` the two (swevis.conditions; config agents.pages).

They are cache-stable: a page, once sent, is never drawn again differently. An observation is
rendered once, when it is observed, and its message never changes; a history block is
rendered once, when all its calls are older than the last `hist_keep`, kept (`HistoryPages`
memoizes it) and sent byte-identical in every later request, so a provider's prefix cache
still serves everything up to the newest block. Under `both-rN` the block draws its
observations' text again in place of their pages (sent_pieces): the request changes from the
newest block on either way.

Never dearer: a text run (obs) or a block (hist) is sent as pages only when its note and
pages cost fewer prompt tokens than its text under the backbone's accounting; otherwise it
stays text.

Legible: a line holding a run of `obs_run_chars` (an observation) or `hist_run_chars` (a
history block) or more of one punctuation character (pytest's `=====` and `_____` rulers, rows
of progress dots, a traceback's `^^^^` markers) stays text where it is, between the pages of
the lines around it: neither OCR reader counts such a run (a 70-character ruler reads as a
shorter one at 7 to 10 px, or as `Seeeees`), and a ruler costs few text tokens anyway. Every
line is still sent, in its order, as text or on a page.

Legible (hist): a history block is drawn at `hist_min_font_px` or larger, or stays text when
that would cost as much as its text: smaller history pages read below .93 on other agents'
trajectories (docs/counterfactual.md, Page families).

Pages of non-code text carry no line numbers (the gutter shows only the wrap mark).

`observing(callback)` is the one capture hook: while open, the callback receives every text
sent as pages (a `Shown`) when it is first rendered (benchmarks/bench_page_legibility.py).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import logging
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from swevis.config import typed_section
from swevis.models import image_part
from swevis.render import MissingGlyphs, RenderError, RenderResult, render_window
from swevis.render.core import prepare_lines
from swevis.render.settings import RenderSettings
from swevis.render.shown import shown_text
from swevis.tokens import count_message_tokens, text_tokens

log = logging.getLogger(__name__)

TRANSCRIPT, OUTPUTS = "transcript", "outputs"
# why a text stays text (the code windows' text_reason values, swevis.agents.observation.observe)
MISSING_GLYPH, RENDER_FAILED, CHEAPER_AS_TEXT = "missing_glyph", "render_failed", "cheaper_as_text"

# On the text part that introduces a page set (its note): the text those pages show, for a
# history block that draws it again with its own text (sent_pieces). A `swevis_` key is never
# sent (swevis.models.messages) nor written to traj.json.
SHOWS_KEY, PAGES_KEY = "swevis_shows", "swevis_pages"


def shows(part: dict, text: str, pages: int) -> dict:
    """A page set's note part that says which text its `pages` pages (the image parts after it) show."""
    return {**part, SHOWS_KEY: text, PAGES_KEY: pages}


def join_text(a: dict, b: dict) -> dict:
    """Two adjacent text parts as one, still saying what the pages after `b` show."""
    joined = {"type": "text", "text": a["text"] + b["text"]}
    return shows(joined, a["text"] + b[SHOWS_KEY], b[PAGES_KEY]) if SHOWS_KEY in b else joined


@dataclass(frozen=True)
class PageSettings:
    """Config agents.pages: what obs-rN and hist-rN render, and maskb-kM's blocks."""

    obs_min_tokens: int
    obs_run_chars: int
    hist_run_chars: int
    hist_min_font_px: float
    hist_keep: int
    hist_block: int
    hist_policy: str
    mask_block: int

    @classmethod
    def from_config(cls, agents_cfg: dict[str, Any] | None) -> PageSettings:
        return typed_section(cls, "agents", (agents_cfg or {}).get("pages"), within=("pages",))


@dataclass(frozen=True)
class TextPages:
    """How a text is rendered: the ratio, the backbone's accounting and the renderer's settings."""

    ratio: float
    tokenizer: str
    image_family: str
    render: dict
    draw_pages: bool = True
    # the smallest font a page of this text may be drawn at (None: the renderer's guard, the
    # code windows' one); a text whose layout would need less is drawn larger or stays text
    min_font_px: float | None = None

    def message_tokens(self, content: Any) -> int:
        return count_message_tokens([{"role": "user", "content": content}], self.tokenizer, self.image_family)

    def long_text(self, content: Any, min_tokens: int, label: str, run_chars: int) -> tuple[Any, int, list[str]]:
        """render_long_text on these pages (the obs family's hook, swevis.page_families)."""
        return render_long_text(self, content, min_tokens, label, run_chars)

    def history(self, keep: int, block: int, policy: str, run_chars: int, min_font_px: float) -> HistoryPages:
        """HistoryPages on these pages, drawn at `min_font_px` or larger (the hist family's
        hook, swevis.page_families)."""
        return HistoryPages(dataclasses.replace(self, min_font_px=min_font_px), keep, block, policy, run_chars)

    def pages(self, text: str, label: str, what: str) -> Shown | None:
        """`text` as a note and its pages (no line numbers), or None when it stays text."""
        shown = self.shown_or_reason(text, label, what)
        return shown if isinstance(shown, Shown) else None

    def draw(self, text: str, label: str, rasterize: bool = True) -> tuple[str, RenderResult]:
        """(the text as drawn, its render): the one drawing of a text page, which the
        legibility benchmark repeats with `rasterize` on."""
        body = text if text.endswith("\n") else text + "\n"
        rows = len(prepare_lines(body))
        settings = RenderSettings.from_config(self.render)
        guard = None if self.min_font_px is None else max(self.min_font_px, settings.guard_px())
        # drawn as plain text whatever the label looks like (a label ending `.1` is a Groff
        # file name to Pygments)
        return body, render_window(f"{label}.txt", 1, body, self.ratio, self.tokenizer, self.image_family, settings,
                                   guard=guard, rasterize=rasterize, numbers=[None] * rows)

    def shown_or_reason(self, text: str, label: str, what: str) -> Shown | str:
        """`text` as a note and its pages, or why it stays text: `missing_glyph` (a character
        no font draws), `render_failed` (any other render error), `cheaper_as_text`."""
        try:
            _, result = self.draw(text, label, rasterize=self.draw_pages)
        except RenderError as exc:
            log.info("%s stays text: %s", label, exc)
            return MISSING_GLYPH if isinstance(exc, MissingGlyphs) else RENDER_FAILED
        pngs = result.png_bytes() if self.draw_pages else result.blank_png_bytes()
        n = len(pngs)
        note = f"[{what} shown as {n} image{'' if n == 1 else 's'} below]\n"
        parts = [shows({"type": "text", "text": note}, text, n)] + [image_part(p, label=f"page {i + 1} of {label}")
                                                                    for i, p in enumerate(pngs)]
        if text_tokens(note, self.tokenizer) + result.image_tokens >= text_tokens(text, self.tokenizer):
            return CHEAPER_AS_TEXT
        return Shown(text, label, parts, n, result, self)


@dataclass(frozen=True)
class Shown:
    """A text sent as pages: the note and image parts that replace it, their count, the render
    (pages drawn when `how.draw_pages`) and the TextPages that drew it."""

    text: str
    label: str
    parts: list[dict]
    pages: int
    result: RenderResult
    how: TextPages


_observers: list[Callable[[Shown], None]] = []


@contextlib.contextmanager
def observing(callback: Callable[[Shown], None]) -> Iterator[None]:
    """While open, `callback` receives every text sent as pages, once, when it is first
    rendered: an obs run when it is observed, a history block's texts when the block is
    frozen as pages (a block the never-dearer rule keeps as text is not sent, so not seen).
    For measurements; nothing in a run opens it."""
    _observers.append(callback)
    try:
        yield
    finally:
        _observers.remove(callback)


def _sent(shown: list[Shown]) -> None:
    for callback in list(_observers):
        for s in shown:
            callback(s)


_MARKS = re.compile(r"(?:[^\w\s]|_)+(?:\s+(?:[^\w\s]|_)+)*")  # a line of punctuation only


def legible_pieces(text: str, run_chars: int) -> list[tuple[bool, str]]:
    """`text` cut into consecutive pieces (for a page?, piece) that join back to `text`: a
    line holding a run of `run_chars` or more of one punctuation character is not for a page
    (the readers do not count such runs; module docstring), and a line that is nothing but
    such a run and other punctuation (a traceback's `^^^^` or `~~~~^^^^` under the code it
    marks) keeps the line above with it, so the marks stay under what they mark; 0 cuts nothing."""
    if run_chars <= 0:
        return [(True, text)]
    run = re.compile(r"([^\w\s]|_)\1{%d,}" % (run_chars - 1))
    lines = text.splitlines(keepends=True)
    shown = [shown_text(line) for line in lines]  # judged as the page would show it (colour codes aside)
    legible = [not run.search(line) for line in shown]
    for i, line in enumerate(shown):
        if i and not legible[i] and _MARKS.fullmatch(line.strip()):
            legible[i - 1] = False
    pieces: list[tuple[bool, str]] = []
    for page, line in zip(legible, lines):
        if pieces and pieces[-1][0] == page:
            pieces[-1] = (page, pieces[-1][1] + line)
        else:
            pieces.append((page, line))
    return pieces


def _parts(content: Any) -> list[dict]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def _long_part(pages: TextPages, text: str, min_tokens: int, run_chars: int, label: str,
               failed: list[str], what: str = "output") -> list[Shown | str]:
    """One text part as pieces in order: a `Shown` for each legible run of at least
    `min_tokens` tokens that pages make cheaper, the text between them joined; a run that
    could not be rendered adds its reason to `failed`."""
    out: list[Shown | str] = []
    for legible, piece in legible_pieces(text, run_chars):
        shown = None
        if legible and text_tokens(piece, pages.tokenizer) >= min_tokens:
            shown = pages.shown_or_reason(piece, f"{label}.{len(out)}", what)
            if shown in (MISSING_GLYPH, RENDER_FAILED):
                failed.append(shown)
        if isinstance(shown, Shown):
            out.append(shown)
        elif out and isinstance(out[-1], str):
            out[-1] += piece
        else:
            out.append(piece)
    return out


def render_long_text(pages: TextPages, content: Any, min_tokens: int, label: str,
                     run_chars: int) -> tuple[Any, int, list[str]]:
    """obs-rN: every text part of an observation's content of at least `min_tokens` tokens
    (the output around its code windows, or the whole output when it has none) as pages
    where that costs less, its lines with runs of `run_chars` (legible_pieces) kept as text
    in place; returns (content, pages added, the reason of each run kept as text because it
    could not be rendered)."""
    out: list[dict] = []
    shown: list[Shown] = []
    failed: list[str] = []
    for k, part in enumerate(_parts(content)):
        text = part.get("text") if part.get("type") == "text" else None
        pieces: list[Shown | str] = []
        if text and text_tokens(text, pages.tokenizer) >= min_tokens:
            pieces = _long_part(pages, text, min_tokens, run_chars, f"{label}#{k}", failed)
        if all(isinstance(p, str) for p in pieces):  # an image part, a short text, or no page cheaper
            out.append(part)
            continue
        for piece in pieces:
            out.extend([{"type": "text", "text": piece}] if isinstance(piece, str) else piece.parts)
        shown += [p for p in pieces if isinstance(p, Shown)]
    if not shown:
        return content, 0, failed
    _sent(shown)
    return out, sum(s.pages for s in shown), failed


def _digest(messages: list[dict]) -> str:
    return hashlib.sha256(json.dumps([(m.get("role"), m.get("content")) for m in messages], sort_keys=True,
                                     default=str).encode()).hexdigest()


def message_text(message: dict) -> str:
    """A message's text (its text parts; its pages are not text: `sent_pieces` keeps them)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(p.get("text") or "" for p in content or [] if p.get("type") == "text")


def sent_pieces(messages: list[dict]) -> list[str | list[dict]]:
    """A block's transcript (`[role]` and the text of each message) as text pieces and runs of
    kept pages, in order. A page set whose note says what text it shows (SHOWS_KEY: both-rN's
    observations) is that text again, to be drawn with the rest of the block: one page set
    costs less than the observations' pages and the text between them drawn apart
    (docs/counterfactual.md, Page families). Pages whose text is not known are kept as they
    were sent. Messages without pages give one text piece, the transcript hist-rN draws."""
    pieces: list[str | list[dict]] = []

    def add(piece: str | list[dict]) -> None:
        if pieces and isinstance(piece, str) == isinstance(pieces[-1], str):
            pieces[-1] = pieces[-1] + piece
        elif piece:
            pieces.append(piece)

    for m in messages:
        add(f"[{m.get('role')}]\n")
        redrawn = 0  # the pages still to come of a note whose text was taken instead
        for part in _parts(m.get("content") or ""):
            if part.get("type") != "image_url":
                redrawn = int(part.get(PAGES_KEY) or 0)
                add(part[SHOWS_KEY] if redrawn else part.get("text") or "")
            elif redrawn:
                redrawn -= 1
            else:
                add([part])
        add("\n")
    return pieces


def calls_of(messages: list[dict]) -> tuple[list[dict], list[list[dict]]]:
    """(the prefix before the first assistant turn, each call's messages: an assistant turn
    and the observations after it)."""
    first = next((i for i, m in enumerate(messages) if m.get("role") == "assistant"), len(messages))
    calls: list[list[dict]] = []
    for m in messages[first:]:
        if m.get("role") == "assistant" or not calls:
            calls.append([])
        calls[-1].append(m)
    return messages[:first], calls


class HistoryPages:
    """hist-rN: the request of each call with the history older than the last `keep` calls
    rendered in frozen blocks of `block` calls. A block is rendered the first time all its
    calls are old and kept: later requests send the very same messages."""

    def __init__(self, pages: TextPages, keep: int, block: int, policy: str, run_chars: int = 0):
        self.pages, self.keep, self.block, self.policy = pages, keep, block, policy
        self.run_chars = run_chars  # a transcript's lines that stay text (legible_pieces)
        self.frozen: dict[int, tuple[str, list[dict]]] = {}  # block index -> (its source digest, its messages)
        # label -> why a block's text (or one output, policy outputs) stays text though it
        # could not be rendered (missing_glyph, render_failed); kept_as_text() hands them on
        self.failed: dict[str, str] = {}
        self.new_pages = 0  # the pages of the blocks the last request froze: sent for the first time

    def request(self, messages: list[dict], ready: int | None = None) -> list[dict]:
        """The messages to send for this call (the conversation itself is left as it is);
        `ready`: only the first this many calls are final (over masked history, the masked
        ones: swevis.agents.observation.masking), so only blocks within them freeze."""
        self.new_pages = 0
        prefix, calls = calls_of(messages)
        old = max(0, len(calls) - self.keep)
        blocks = (old if ready is None else min(old, ready)) // self.block
        out = list(prefix)
        for b in range(blocks):
            out += self._block(b, [m for c in calls[b * self.block : (b + 1) * self.block] for m in c])
        for c in calls[blocks * self.block :]:
            out += c
        return out

    def rendered_blocks(self) -> int:
        """Blocks sent as pages so far (a block kept as text is not counted)."""
        return sum(1 for _, msgs in self.frozen.values() if any(isinstance(m.get("content"), list) for m in msgs))

    def _block(self, b: int, source: list[dict]) -> list[dict]:
        digest = _digest(source)
        known = self.frozen.get(b)
        if known is not None:
            if known[0] != digest:  # the conversation was rewritten under a frozen block
                raise RuntimeError(f"history block {b} changed after it was sent as pages")
            return known[1]
        rendered, shown = self._render(b, source)
        self.frozen[b] = (digest, rendered)
        self.new_pages += sum(s.pages for s in shown)
        _sent(shown)
        return rendered

    def _render(self, b: int, source: list[dict]) -> tuple[list[dict], list[Shown]]:
        """The block's messages as sent, and the texts in them sent as pages."""
        label = f"history-{b * self.block + 1}-{(b + 1) * self.block}"
        if self.policy == OUTPUTS:
            out, sent = [], []
            for k, m in enumerate(source):
                # an observation that already sent pages is sent as it is
                plain = m.get("role") != "assistant" and all(q.get("type") == "text" for q in _parts(m.get("content") or ""))
                shown = self._shown(message_text(m), f"{label}#{k}", "output") if plain else None
                out.append({"role": m["role"], "content": shown.parts} if shown else m)
                sent += [shown] if shown else []
            return out, sent
        what = f"calls {b * self.block + 1}-{(b + 1) * self.block} of this conversation"
        transcript = sent_pieces(source)
        pieces: list[Shown | str | list[dict]] = []
        for k, piece in enumerate(transcript):
            if isinstance(piece, list):  # pages already sent: kept as they are
                pieces.append(piece)
            else:
                pieces += self._transcript_pieces(piece, label if len(transcript) == 1 else f"{label}/{k}", what)
        shown = [p for p in pieces if isinstance(p, Shown)]
        content = [part for p in pieces for part in
                   ([{"type": "text", "text": p}] if isinstance(p, str) else p if isinstance(p, list) else p.parts)]
        if not shown or self.pages.message_tokens(content) >= count_message_tokens(
                source, self.pages.tokenizer, self.pages.image_family):
            return list(source), []  # never dearer, per block
        return [{"role": "user", "content": content}], shown

    def _transcript_pieces(self, transcript: str, label: str, what: str) -> list[Shown | str]:
        """A block's transcript as pages, but for the lines `run_chars` keeps as text in place
        (each legible run between them its own pages, labelled `label.k`); a transcript
        with no such line is one page set labelled `label`."""
        if legible_pieces(transcript, self.run_chars) == [(True, transcript)]:
            shown = self._shown(transcript, label, what)
            return [shown if shown is not None else transcript]
        failed: list[str] = []
        pieces = _long_part(self.pages, transcript, 0, self.run_chars, label, failed, what)
        if failed:
            self.failed[label] = failed[0]
        return pieces

    def _shown(self, text: str, label: str, what: str) -> Shown | None:
        shown = self.pages.shown_or_reason(text, label, what)
        if shown in (MISSING_GLYPH, RENDER_FAILED):
            self.failed[label] = shown
        return shown if isinstance(shown, Shown) else None

    def kept_as_text(self) -> dict[str, str]:
        """The blocks (or outputs) that could not be rendered since the last call, with why:
        the observation pipeline records them on the step whose request froze them."""
        failed, self.failed = self.failed, {}
        return failed
