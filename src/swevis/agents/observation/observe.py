"""The observation pipeline shared by the agents: code windows as text or as rendered pages.

A command that reads code (see actions.detect_code_read) shows a window: a file and a line
span. In wide scope the window grows by `wide_margin` lines each side. Under a visual
condition (rN) the window is rendered for the budget T_text/N and sent as image parts of the
user message, with the repository's line numbers; every other output stays text. The
window text always comes from the file itself, so the pages are faithful to the repository
whatever the command printed.

Several windows of one recorded observation (grep's context groups, a diff's hunks) may share
pages (`shared_pages`): one render, the windows separated by a row without a number.

Outputs longer than `max_window_chars` take the text path with mini-swe-agent's elision in
both modalities, so a visual condition never shows more code than its text twin.

Never dearer: a window is sent as pages only when the pages and their note cost fewer prompt
tokens than its text under the backbone's accounting (swevis.tokens.count_message_tokens:
the run's tokenizer and image family). Otherwise it stays text and its record says why in
`text_reason` (`cheaper_as_text`, `render_failed`, `missing_glyph` (a character no font of
the renderer draws: drawn, it would be an empty box), `over_max_window_chars`; pack_context:
`text_reasons`, one per window kept as text), so a replay and the tables can count the
windows a visual condition kept as text.

Every other command output passes through swevis.agents.observation.volatile first (test timings and
the like), so a rerun's requests match the response cache.
"""

from __future__ import annotations

import logging
import shlex
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from jinja2 import StrictUndefined, Template

from swevis.agents.observation.actions import CodeRead, detect_code_read
from swevis.agents.observation.output_windows import RecordedWindow, identify_windows
from swevis.agents.observation.masking import MaskedHistory
from swevis.agents.observation.pages import PageSettings, TextPages, calls_of, join_text, shows
from swevis.agents.observation.volatile import normalize as normalize_volatile
from swevis.agents.settings import AgentSettings
from swevis.conditions import Condition, Mask, PageFamily
from swevis.models import image_part, resolve_profile
from swevis.render import MissingGlyphs, RenderError, render_window
from swevis.tokens import count_message_tokens, text_tokens

log = logging.getLogger(__name__)

ReadFile = Callable[[str], "str | None"]


@dataclass
class ObservationConfig:
    """How observations are built; a setting left None takes the schema's default (the
    runner passes every one of them from the run's settings and resolved profile)."""

    condition: str = "text"  # text | r1 | r3 | ...
    scope: str = "normal"  # normal | wide
    wide_margin: int | None = None  # agents.wide_margin
    max_window_chars: int | None = None  # agents.max_window_chars
    tokenizer: str | None = None  # models.<name>.tokenizer
    image_family: str | None = None  # models.<name>.image_family
    render: dict = field(default_factory=dict)  # RenderSettings overrides (config single_read.render)
    visual_enabled: bool = True  # LET's editor reads text unless config turns rendering on
    # False: pages are laid out but not drawn (blank pages of their sizes): the same token
    # counts and text/pages decisions for a fraction of the time; only for accounting (the
    # counterfactual replay), never for a model that reads the pages
    draw_pages: bool = True
    pages: dict = field(default_factory=dict)  # config agents.pages (obs-rN, hist-rN; swevis.agents.observation.pages)

    def __post_init__(self) -> None:
        Condition.parse(self.condition)  # a bad name fails here, before any step runs
        if self.wide_margin is None or self.max_window_chars is None:
            agents = AgentSettings.from_config({})
            self.wide_margin = agents.wide_margin if self.wide_margin is None else self.wide_margin
            self.max_window_chars = agents.max_window_chars if self.max_window_chars is None else self.max_window_chars
        if self.tokenizer is None or self.image_family is None:
            profile = resolve_profile("profile", {})
            self.tokenizer = self.tokenizer or profile["tokenizer"]
            self.image_family = self.image_family or profile["image_family"]

    @property
    def ratio(self) -> float | None:
        """The render ratio of code windows; None when they stay text (text, hist-rN)."""
        return Condition.parse(self.condition).code_ratio if self.visual_enabled else None

    @property
    def family(self) -> PageFamily | None:
        """The condition's page family (swevis.page_families); None when nothing is rendered."""
        c = Condition.parse(self.condition)
        return c.page_family if c.visual and self.visual_enabled else None

    def text_pages(self) -> TextPages:
        """How this condition renders non-code text (obs-rN, hist-rN)."""
        return TextPages(Condition.parse(self.condition).ratio, self.tokenizer, self.image_family, self.render,
                         self.draw_pages)


def masked_history(mask: Mask | None, settings: PageSettings, config: ObservationConfig) -> MaskedHistory | None:
    """The request hook of a masking condition (None: the condition masks nothing)."""
    if mask is None:
        return None
    return MaskedHistory(mask.keep, settings.mask_block if mask.blocks else None, config.tokenizer, config.image_family)


@dataclass
class Window:
    path: str
    start: int
    end: int
    text: str
    numbered: bool

    def ref(self) -> dict[str, Any]:
        return {"path": self.path, "start": self.start, "end": self.end}


def resolve_window(read: CodeRead, read_file: ReadFile, margin: int = 0) -> Window | None:
    """The concrete window of a code read (clamped to the file), widened by `margin`."""
    content = read_file(read.path)
    if content is None:
        return None
    lines = content.splitlines(keepends=True)
    n = len(lines)
    if n == 0:
        return None
    if read.start < 0:
        start, end = max(1, n + read.start + 1), n
    else:
        start, end = max(1, read.start), n if read.end is None else min(n, read.end)
    if start > end:
        return None
    start, end = max(1, start - margin), min(n, end + margin)
    return Window(read.path, start, end, "".join(lines[start - 1 : end]), read.numbered)


def number_lines(lines: list[str], start: int) -> str:
    """Lines numbered from `start` as `nl -ba` (and view_code) prints them: the one format
    every code window takes as text (view_code, observations, PLB's package, the memory)."""
    return "".join(f"{start + i:6d}\t{line}\n" for i, line in enumerate(lines))


def format_window_text(window: Window) -> str:
    """The window as the command would print it (numbered like `nl -ba` when it was)."""
    if not window.numbered:
        return window.text
    return number_lines(window.text.splitlines(), window.start)


SEPARATOR = "\u22ef"  # ⋯, the row between windows that share pages (with the file's name when it changes)


def shared_window(windows: list[Window]) -> tuple[Window, list[int | None]]:
    """Several windows of one observation as one window to render on shared pages, and each
    line's gutter number (None: the separator row between two windows)."""
    lines: list[str] = []
    numbers: list[int | None] = []
    for k, w in enumerate(windows):
        if k:
            lines.append(SEPARATOR if w.path == windows[k - 1].path else f"{SEPARATOR} {w.path}")
            numbers.append(None)
        body = w.text.splitlines()
        lines += body
        numbers += list(range(w.start, w.start + len(body)))
    text = "".join(line + "\n" for line in lines)
    return Window(windows[0].path, windows[0].start, windows[-1].end, text, True), numbers


def image_note(pages: int) -> str:
    """The text that goes with a window's pages: only that the code follows as images (the
    model named the file in its command; the pages carry the repository's line numbers)."""
    return f"[code shown as {pages} image{'' if pages == 1 else 's'} below]"


def canonical_command(w: RecordedWindow) -> str:
    """A command the observation pipeline reads as exactly this window."""
    quoted = shlex.quote(w.path)
    return f"nl -ba {quoted} | sed -n '{w.start},{w.end}p'" if w.numbered else f"sed -n '{w.start},{w.end}p' {quoted}"


def merge_parts(parts: list[dict]) -> str | list[dict]:
    """Adjacent text parts joined (saying what the pages after them show, join_text); a
    content of text only is a plain string."""
    out: list[dict] = []
    for p in parts:
        if p["type"] == "text" and out and out[-1]["type"] == "text":
            out[-1] = join_text(out[-1], p)
        elif p["type"] != "text" or p["text"]:
            out.append(p)
    if all(p["type"] == "text" for p in out):
        return "".join(p["text"] for p in out)
    return out


def shown_tokens(pipeline: "ObservationPipeline", content: Any, record: dict[str, Any]) -> int:
    """A window's tokens as shown: its text's, or the record's (note + pages) when it has pages."""
    return int(record["tokens"]) if isinstance(content, list) else pipeline._text_tokens(content)


def window_cost(pipeline: "ObservationPipeline", segment: str, content: Any, record: dict[str, Any],
                plain: tuple[Any, dict[str, Any]] | None = None) -> dict[str, Any]:
    """What one window cost under the condition, for the gap decompositions
    (swevis.analysis.counterfactual, swevis.counterfactual.ceiling): its text's tokens as the
    output printed it, its tokens as shown, and why it stayed text or how its pages were
    bound. With the memory, `plain` is what the condition without it showed: kind, reason
    and pages describe that, `full_tokens` its tokens and `memory` what the memory did."""
    plain_content, plain_record = plain or (content, record)
    render = plain_record.get("render") or {}
    return {
        "text_tokens": pipeline._text_tokens(segment),
        "tokens": shown_tokens(pipeline, content, record),
        "kind": plain_record["kind"],
        "text_reason": plain_record.get("text_reason"),
        "pages": int(plain_record.get("pages") or 0),
        "image_tokens": int(render.get("image_tokens") or 0),
        "guard_bound": bool(render.get("guard_bound")),
        "floor_bound": bool(render.get("floor_bound")),
        "full_tokens": shown_tokens(pipeline, plain_content, plain_record),
        "memory": (record.get("memory") or {}).get("kind"),
    }


class ObservationPipeline:
    """Turns (command, output) into a user-message content and an observation record."""

    # the plain condition's (content, record) of the last window, kept by a pipeline that puts
    # the memory in front of one (the counterfactual's), for window_cost; None here
    plain: tuple[Any, dict[str, Any]] | None = None

    def __init__(self, config: ObservationConfig, read_file: ReadFile, observation_template: str):
        self.config = config
        self.read_file = read_file
        self.template = Template(observation_template, undefined=StrictUndefined)
        self.page_settings = PageSettings.from_config({"pages": config.pages})
        # the page family's request hook, made once: it keeps what it rendered (hist's frozen blocks)
        self.history = config.family.history(config.text_pages(), self.page_settings) if config.family else None
        self.masking = masked_history(Condition.parse(config.condition).mask, self.page_settings, config)

    def begin_action(self, command: str, response: str | None) -> None:
        """Told each action and the model response it came from before it is observed: a
        pipeline with a memory keeps the response's stated reason for the windows it stores."""

    # -- the two hooks of the page families (swevis.page_families; rendered by swevis.agents.observation.pages)
    def request(self, messages: list[dict]) -> list[dict]:
        """The messages a call sends: under hist-rN with the old history in frozen pages,
        under mask-kM with the old observations masked (and a history family's blocks frozen
        only once masked)."""
        if self.masking is None:
            return messages if self.history is None else self.history.request(messages)
        masked = self.masking.request(messages)
        if self.history is None:
            return masked
        return self.history.request(masked, ready=self.masking.masked_calls(len(calls_of(messages)[1])))

    def new_history_pages(self) -> int:
        """The history pages the last request sent for the first time (the blocks it froze;
        0 without a history hook): every later request sends them again, unchanged."""
        return 0 if self.history is None else self.history.new_pages

    def finish(self, content: Any, record: dict[str, Any], label: str = "observation") -> tuple[Any, dict[str, Any]]:
        """An observation as sent, through its page family's hook: under obs-rN its long text
        runs as pages too (the record counts them in `pages` and `output_pages`, and its
        tokens as shown). A run, or under hist-rN a history block, that could not be rendered
        stays text, and the record says why (`output_text_reasons`, `history_text_reasons`:
        missing_glyph or render_failed)."""
        family = self.config.family
        if family is None:
            return content, record
        if self.history is not None:
            failed = self.history.kept_as_text()
            record = {**record, "history_text_reasons": failed} if failed else record
        return family.finish(self.config.text_pages(), self.page_settings, content, record, label)

    # -- helpers
    def _text(self, output: dict[str, Any], template_vars: dict | None) -> str:
        return self.template.render(output=output, **(template_vars or {}))

    def _text_tokens(self, text: str) -> int:
        return text_tokens(text, self.config.tokenizer)

    def _prompt_tokens(self, content: str | list[dict]) -> int:
        """Prompt tokens of a user message with this content, as the backbone counts them."""
        message = {"role": "user", "content": content}
        return count_message_tokens([message], self.config.tokenizer, self.config.image_family)

    def _render_parts(self, window: Window, numbers: list[int | None] | None = None) -> tuple[list[dict], dict[str, Any]] | str:
        """The window's image parts and render record, or why it cannot be rendered
        (`numbers`: the gutter numbers of windows that share pages, see shared_window)."""
        try:
            result = render_window(
                window.path,
                window.start,
                window.text,
                self.config.ratio,
                self.config.tokenizer,
                self.config.image_family,
                self.config.render or None,
                rasterize=self.config.draw_pages,
                numbers=numbers,
            )
        except RenderError as exc:
            log.info("window %s:%d-%d stays text: %s", window.path, window.start, window.end, exc)
            return "missing_glyph" if isinstance(exc, MissingGlyphs) else "render_failed"
        pngs = result.png_bytes() if self.config.draw_pages else result.blank_png_bytes()
        label = f"{window.path}:{window.start}-{window.end}"
        parts = [image_part(png, label=f"page {i + 1} of {label}") for i, png in enumerate(pngs)]
        info = {
            "pages": len(pngs),
            "image_tokens": result.image_tokens,
            "text_tokens_of_window": result.text_tokens,
            "font_px": result.layout.get("font_px"),
            "realized_ratio": result.layout.get("realized_ratio"),
            "guard_bound": result.layout.get("guard_bound"),
            "floor_bound": result.layout.get("floor_bound"),
            "resolution": result.layout.get("resolution"),
        }
        return parts, info

    def shared_pages(self, windows: list[Window]) -> tuple[list[dict], dict[str, Any]] | str:
        """Several windows of one observation on shared pages: their image parts and render
        record, or why they cannot be rendered (the caller then renders each on its own)."""
        window, numbers = shared_window(windows)
        return self._render_parts(window, numbers)

    # -- code windows found inside an output (swevis.agents.observation.output_windows)
    def observe_in_place(self, observation: str, windows: list[RecordedWindow]) -> tuple[Any, int, list[dict[str, Any]]]:
        """`observation` with each window passed through the pipeline where it stands (pages
        under rN unless it keeps the text; with the memory, its notes), or, when that costs
        less, all of them on shared pages. Returns (content, image pages, a window_cost
        record per window)."""
        each = self._in_place_each(observation, windows)
        if len(windows) < 2:
            return each
        # with the memory too: the windows were shown (so remembered) either way, and shared
        # pages cheaper than the memory's notes and pages keep mem+rN no dearer than rN
        shared = self._in_place_shared(observation, windows)
        if shared is not None and self._prompt_tokens(shared[0]) < self._prompt_tokens(each[0]):
            return shared
        return each

    def _in_place_each(self, observation: str, windows: list[RecordedWindow]) -> tuple[Any, int, list[dict[str, Any]]]:
        parts: list[dict] = []
        pos, pages, costs = 0, 0, []
        # each window is observed alone: its file is its own lines, its output is not templated
        # again (the observation around it already is)
        read_file, template = self.read_file, self.template
        self.template = Template("{{ output.output }}", undefined=StrictUndefined)
        try:
            for w in windows:
                parts.append({"type": "text", "text": observation[pos : w.span[0]]})
                synthetic = "\n" * (w.start - 1) + w.text  # the window's lines at their line numbers
                self.read_file = lambda path, w=w, synthetic=synthetic: synthetic if path == w.path else None
                segment = observation[w.span[0] : w.span[1]]
                content, record = self.observe(canonical_command(w), {"returncode": 0, "output": segment})
                parts.extend([{"type": "text", "text": content}] if isinstance(content, str) else content)
                pages += int(record.get("pages") or 0)
                costs.append(window_cost(self, segment, content, record, self.plain))
                pos = w.span[1]
        finally:
            self.read_file, self.template = read_file, template
        parts.append({"type": "text", "text": observation[pos:]})
        return merge_parts(parts), pages, costs

    def _in_place_shared(self, observation: str, windows: list[RecordedWindow]) -> tuple[Any, int, list[dict[str, Any]]] | None:
        """All windows on shared pages, placed where the first one was; the text around them
        stays. None when they cannot be rendered together."""
        rendered = self.shared_pages([Window(w.path, w.start, w.end, w.text, w.numbered) for w in windows])
        if isinstance(rendered, str):
            return None
        images, info = rendered
        note = image_note(info["pages"]) + "\n"
        parts = [{"type": "text", "text": observation[: windows[0].span[0]]}, {"type": "text", "text": note}, *images]
        for w, nxt in zip(windows, [*windows[1:], None]):
            parts.append({"type": "text", "text": observation[w.span[1] : nxt.span[0] if nxt else len(observation)]})
        segments = [observation[w.span[0] : w.span[1]] for w in windows]
        return merge_parts(parts), info["pages"], self._shared_costs(segments, info, self._text_tokens(note))

    def _shared_costs(self, segments: list[str], info: dict[str, Any], note_tokens: int) -> list[dict[str, Any]]:
        """window_cost records of windows on shared pages: the note's and the pages' tokens
        split in proportion to each window's text tokens (integers that add up to the whole)."""
        text = [self._text_tokens(s) for s in segments]
        total = max(1, sum(text))

        def split(amount: int) -> list[int]:
            shares = [amount * t // total for t in text]
            shares[-1] += amount - sum(shares)
            return shares

        images, shown = split(int(info["image_tokens"])), split(int(info["image_tokens"]) + note_tokens)
        return [{"text_tokens": t, "tokens": c, "kind": "image", "text_reason": None, "pages": info["pages"] if k == 0 else 0,
                 "image_tokens": i, "guard_bound": bool(info["guard_bound"]), "floor_bound": bool(info["floor_bound"]),
                 "full_tokens": c, "memory": None} for k, (t, c, i) in enumerate(zip(text, shown, images))]

    # -- main entry
    def observe(
        self, command: str | None, output: dict[str, Any], template_vars: dict | None = None
    ) -> tuple[str | list[dict], dict[str, Any]]:
        """Content for the observation message, and what it was (kind, pages, tokens, window)."""
        read = detect_code_read(command) if output.get("returncode") == 0 else None
        if read is None and output.get("returncode") == 0 and self.config.ratio is not None:
            found = self._in_output(command, output, template_vars)
            if found is not None:
                return found
        window = None
        if read is not None:
            margin = self.config.wide_margin if self.config.scope == "wide" else 0
            window = resolve_window(read, self.read_file, margin)
        if window is None:  # command output, not code: test timings and the like made stable
            output = {**output, "output": normalize_volatile(output.get("output", ""))}
        text_reason = None
        if window is not None and self.config.ratio is not None:
            text_reason = "over_max_window_chars"
        if window is not None and len(window.text) <= self.config.max_window_chars:
            if self.config.scope == "wide":
                output = {**output, "output": format_window_text(window)}
            if self.config.ratio is not None:
                text_reason, shown = self._as_pages(window, output, template_vars)
                if shown is not None:
                    return shown
        text = self._text(output, template_vars)
        record = {
            "kind": "text",
            "pages": 0,
            "tokens": self._text_tokens(text),
            "window": window.ref() if window is not None else None,
        }
        if text_reason is not None:
            record["text_reason"] = text_reason
        return text, record

    def _in_output(self, command: str | None, output: dict[str, Any],
                   template_vars: dict | None) -> tuple[list[dict], dict[str, Any]] | None:
        """The code windows the output itself shows (grep's context groups, a diff's hunks,
        several reads in one command; swevis.agents.observation.output_windows), rendered where they
        stand; only windows whose lines the file has as shown (a hunk is the diff's own
        text). None when there are none, or the pages would not cost less than the text."""
        printed = output.get("output") or ""
        windows = [w for w in identify_windows(command, printed, returncode=0) if self._as_in_file(w)]
        text = self._text(output, template_vars)
        at = text.find(printed) if printed else -1
        if not windows or at < 0 or len(printed) > self.config.max_window_chars:
            return None
        windows = [replace(w, span=(w.span[0] + at, w.span[1] + at)) for w in windows]
        content, pages, costs = self.observe_in_place(text, windows)
        if not pages or self._prompt_tokens(content) >= self._prompt_tokens(text):
            return None
        tokens = sum(c["tokens"] for c in costs) + self._text_tokens(text) - sum(c["text_tokens"] for c in costs)
        return content, {"kind": "image", "pages": pages, "tokens": tokens, "window": None,
                         "windows": [w.ref() for w in windows], "window_costs": costs}

    def _as_in_file(self, w: RecordedWindow) -> bool:
        if w.kind == "diff":
            return True
        content = self.read_file(w.path)
        return content is not None and content.splitlines()[w.start - 1 : w.end] == w.text.splitlines()

    def _as_pages(
        self, window: Window, output: dict[str, Any], template_vars: dict | None
    ) -> tuple[str | None, tuple[list[dict], dict[str, Any]] | None]:
        """The window as pages and their record, if they cost less than its text; otherwise
        (why it stays text, None)."""
        rendered = self._render_parts(window)
        if isinstance(rendered, str):
            return rendered, None
        parts, info = rendered
        header = self._text({**output, "output": image_note(info["pages"]) + "\n"}, template_vars)
        content = [shows({"type": "text", "text": header}, self._text(output, template_vars), info["pages"]), *parts]
        if self._prompt_tokens(content) >= self._prompt_tokens(self._text(output, template_vars)):
            return "cheaper_as_text", None
        record = {
            "kind": "image",
            "pages": info["pages"],
            "tokens": self._text_tokens(header) + info["image_tokens"],
            "window": window.ref(),
            "render": info,
        }
        return None, (content, record)

    def observe_windows(self, text: str, windows: list[dict[str, Any]]) -> tuple[str | list[dict], dict[str, Any]]:
        """A tool output that carries code windows (pack_context): `text` is the rest of the
        output; each window follows it as numbered text, or as pages under a visual condition."""
        refs = [{k: w[k] for k in ("path", "start", "end")} for w in windows]
        if self.config.ratio is None or not windows:
            for w in windows:
                window = Window(w["path"], w["start"], w["end"], w["text"] + "\n", True)
                text += f"\n[window {w['path']}:{w['start']}-{w['end']}]\n{format_window_text(window)}"
            return text, {"kind": "text", "pages": 0, "tokens": self._text_tokens(text), "window": None, "windows": refs}
        parts: list[dict] = [{"type": "text", "text": text}]
        pages = 0
        tokens = self._text_tokens(text)
        reasons = []
        for w in windows:
            window = Window(w["path"], w["start"], w["end"], w["text"] + "\n", True)
            body = [{"type": "text", "text": f"[window {w['path']}:{w['start']}-{w['end']}]\n{format_window_text(window)}"}]
            rendered = self._render_parts(window)
            shown = None
            if not isinstance(rendered, str):
                window_parts, info = rendered
                caption = f"[window {w['path']}:{w['start']}-{w['end']}] {image_note(info['pages'])}"
                shown = [shows({"type": "text", "text": caption}, body[0]["text"], info["pages"]), *window_parts]
                if self._prompt_tokens(shown) >= self._prompt_tokens(body):
                    shown = None
            if shown is None:  # never dearer: this window stays text, and the record says why
                reasons.append(rendered if isinstance(rendered, str) else "cheaper_as_text")
                parts.extend(body)
                tokens += self._text_tokens(body[0]["text"])
                continue
            parts.extend(shown)
            pages += info["pages"]
            tokens += self._text_tokens(caption) + info["image_tokens"]
        return parts, {
            "kind": "image" if pages else "text",
            "pages": pages,
            "tokens": tokens,
            "window": None,
            "windows": refs,
            "text_reasons": reasons,
        }
