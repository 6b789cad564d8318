"""How far rendering is from what it could save: the code-window ceiling of a replay and the
share of it a condition realizes, with the gap decomposed.

An observation j is part of every later call's prompt, so it counts w_j times (w_j: the calls
after it). Its code windows (every window swevis.agents.observation.output_windows found in the recorded
output, the finder's recall and precision measured by tests/counterfactual/test_window_labels.py)
hold k_j tokens as text, the sum of t_w over its windows. The code share of a trajectory is
s = sum_j w_j k_j / P_text (P_text: the text condition's prompt tokens summed over calls). At
ratio N the ceiling renders exactly the code windows at T/N, with no note, page floor or
guard and everything else as text:

    P*_N = P_text - (1 - 1/N) sum_j w_j k_j,   ceiling reduction = P_text / P*_N,
    realized share = (P_text - P_N) / (P_text - P*_N)   (1: the whole possible saving).

The gap P_N - P*_N is, per observation, (C_j - T_j) + (1 - 1/N) k_j, which splits exactly into
per-window terms (c_w - t_w/N; c_w its tokens as shown, f_w as shown without the memory):
page_overhead (the note and message parts, c_w - image tokens, plus image tokens - t_w/N of a
window at the family's per-image floor), guard_bound and layout_tolerance (image tokens - t_w/N
of a window the readability guard held above its budget, or any other rendered window),
kept_as_text, over_size_limit, render_failed (t_w (1 - 1/N) of a window kept as text and why;
render_failed takes missing_glyph), memory (c_w - f_w), and outside_windows: the rest of the
observation's tokens against the text condition's (token boundaries at the window edges;
about 0).

Each page family has its own ceiling (FamilyCeiling, family_ceiling): call i's prompt holds
E_i tokens the family renders, and its ceiling renders exactly them at T/N,
P*_i = P_text,i - (1 - 1/N) E_i. For code (rN) E_i is the code windows of the observations
before call i (the same ceiling as above); for obs (obs-rN) every earlier observation of at
least agents.pages.obs_min_tokens tokens whole and the code windows of the shorter ones; for
hist (hist-rN) every call older than the last agents.pages.hist_keep, its turn and its
observation (no blocks: each call is rendered the moment it is old); for both (both-rN) the
old calls as hist's and the recent ones as obs's. Masking (mask-kM, maskb-kM) renders nothing:
its ceiling masks every observation older than the last M the moment it is old (no blocks),
E_i being what those placeholders save (the observation's message tokens less its
placeholder's), taken whole (ratio infinite: 1 - 1/N = 1), so naive masking realizes its whole
prompt ceiling and the bill shows what it costs the cache. A family over masked history
(maskb-kM+hist-rN) has no ceiling here (None). On the cache-aware bill
the ceiling keeps the text condition's mix of cached and uncached tokens per call,
B*_i = B_text,i P*_i / P_text,i (B: the prompt's part of the cache-aware spend), so the share
of the bill's ceiling a condition realizes also shows what rendering costs the prefix cache.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from swevis.agents.observation.masking import masked
from swevis.conditions import DEFAULT_FAMILY, Condition
from swevis.tokens import count_message_tokens, text_tokens

CODE_TERMS = (
    "page_overhead", "guard_bound", "layout_tolerance", "kept_as_text", "over_size_limit", "render_failed",
    "memory", "outside_windows",
)
REASON_TERM = {"over_max_window_chars": "over_size_limit", "cheaper_as_text": "kept_as_text",
               "render_failed": "render_failed", "missing_glyph": "render_failed"}


def ceiling_ratio(condition: Condition, memory: bool = False) -> float | None:
    """The ratio a condition's ceilings render at: its own; 1 for the memory in front of text;
    infinite for masking alone (a masked observation's saving is already net of its
    placeholder: module docstring); None for text."""
    if condition.ratio is not None:
        return condition.ratio
    if memory:
        return 1.0
    return math.inf if condition.mask is not None else None


def window_terms(w: Mapping[str, Any], ratio: float) -> dict[str, float]:
    """The gap terms of one window (a replay's window_cost record) against t_w / ratio."""
    terms: dict[str, float] = {}
    full = w["tokens"] if w.get("full_tokens") is None else w["full_tokens"]  # without the memory
    terms["memory"] = w["tokens"] - full
    if w["kind"] == "image":
        terms["page_overhead"] = full - w["image_tokens"]
        key = "guard_bound" if w["guard_bound"] else "page_overhead" if w["floor_bound"] else "layout_tolerance"
        terms[key] = terms.get(key, 0.0) + w["image_tokens"] - w["text_tokens"] / ratio
    else:  # kept as text: the reason it gives, or (none given) never dearer's
        terms[REASON_TERM.get(w.get("text_reason") or "", "kept_as_text")] = full - w["text_tokens"] / ratio
    return terms


def observation_code_terms(shown: int, text: int, costs: Iterable[Mapping[str, Any]],
                           ratio: float) -> tuple[int, dict[str, float]]:
    """(k_j, the code-ceiling gap terms of one observation): `shown` and `text` are its
    message tokens under the condition and under text; the terms sum to
    shown - text + (1 - 1/ratio) k_j."""
    terms = dict.fromkeys(CODE_TERMS, 0.0)
    code = 0
    windows_shown = 0
    for w in costs:
        code += int(w["text_tokens"])
        windows_shown += int(w["tokens"])
        for k, v in window_terms(w, ratio).items():
            terms[k] += v
    terms["outside_windows"] = (shown - windows_shown) - (text - code)
    return code, terms


def trajectory_ceiling(records: list[Mapping[str, Any]], text_tokens: Mapping[int, int],
                       text_prompt: int, ratio: float) -> dict[str, Any]:
    """The code-window ceiling of one trajectory under one condition: `records` its per-call
    records in call order (observation_tokens, prompt_tokens, code_tokens, window_costs), `text_tokens`
    each step's observation tokens under text, `text_prompt` P_text."""
    n = len(records)
    terms = dict.fromkeys(CODE_TERMS, 0.0)
    weighted_code = 0.0
    for i, r in enumerate(records):
        if r["observation_kind"] == "none":
            continue
        _, obs = observation_code_terms(r["observation_tokens"], text_tokens[r["step"]], r["window_costs"] or [], ratio)
        weight = n - 1 - i
        # k_j as the replay counts it under every condition: hist-rN renders no window, so its
        # windows' cost records are empty, and the code share must not depend on which came first
        weighted_code += weight * int(r["code_tokens"])
        for k, v in obs.items():
            terms[k] += weight * v
    prompt = sum(int(r["prompt_tokens"]) for r in records)
    ceiling = text_prompt - (1 - 1 / ratio) * weighted_code
    return {
        "code_tokens_weighted": weighted_code, "code_share": weighted_code / text_prompt if text_prompt else 0.0,
        "code_ceiling_prompt_tokens": ceiling, "code_gap_tokens": prompt - ceiling,
        **{f"code_gap_{k}": v for k, v in terms.items()},
    }


def realized_share(text_prompt: float, prompt: float, ceiling: float) -> float | None:
    """The share of the ceiling's saving a condition realizes (None: the ceiling saves nothing)."""
    possible = text_prompt - ceiling
    return (text_prompt - prompt) / possible if possible > 0 else None


def ceiling_table(steps: list[Mapping[str, Any]], ratios: Mapping[str, float | None]) -> list[dict[str, Any]]:
    """Per condition (other than text) over every trajectory of a replay: text and condition
    prompt tokens, the reduction, the code share, the code-window ceiling and the share of its
    saving realized, and the gap to it by term (tokens). `steps` are the replay's per-call
    records (trajectory, truncated, condition, step, observation_kind, observation_tokens,
    prompt_tokens, code_tokens, window_costs); `ratios` the render ratio of each condition (1
    for `mem`). Each row counts its trajectories and how many of them were cut short."""
    by: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for s in steps:
        by.setdefault((s["trajectory"], s["condition"]), []).append(s)
    rows = []
    for condition, ratio in ratios.items():
        if ratio is None:
            continue
        total: dict[str, Any] = {"text_prompt_tokens": 0, "prompt_tokens": 0}
        trajectories = sorted({t for t, c in by if c == condition})
        default = DEFAULT_FAMILY.name
        family = str(by[(trajectories[0], condition)][0].get("family") or default) if trajectories else default
        for traj in trajectories:
            text = sorted(by[(traj, "text")], key=lambda r: r["step"])
            records = sorted(by[(traj, condition)], key=lambda r: r["step"])
            text_prompt = sum(int(r["prompt_tokens"]) for r in text)
            one = trajectory_ceiling(records, {r["step"]: r["observation_tokens"] for r in text}, text_prompt, ratio)
            one.pop("code_share")
            if "ceiling_eligible_tokens" in records[0]:
                one.update(family_ceiling(records, text, ratio))
            total["text_prompt_tokens"] += text_prompt
            total["prompt_tokens"] += sum(int(r["prompt_tokens"]) for r in records)
            for k, v in one.items():
                total[k] = None if v is None or (k in total and total[k] is None) else total.get(k, 0.0) + v
        if not trajectories:
            continue
        truncated = sum(bool(by[(t, condition)][0]["truncated"]) for t in trajectories)
        row = _ceiling_row(condition, family, len(trajectories), total)
        if math.isinf(ratio):  # masking alone renders no code window: no code-window ceiling
            row.update({k: None for k in row if k.startswith("code_gap_") or k in CODE_CEILING_KEYS})
        rows.append({**row, "truncated": truncated})
    return rows


# a ceiling row's code-window ceiling (a condition that renders code windows at a ratio)
CODE_CEILING_KEYS = ("code_ceiling_prompt_tokens", "code_ceiling_reduction", "realized_share")


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def _ceiling_row(condition: str, family: str, trajectories: int, total: dict[str, Any]) -> dict[str, Any]:
    """One condition's row: the code-window ceiling (its gap terms for the code family only)
    and the family's ceiling and realized share in prompt tokens and on the cache-aware bill."""
    p_text, p, ceiling = total["text_prompt_tokens"], total["prompt_tokens"], total["code_ceiling_prompt_tokens"]
    row = {
        "condition": condition, "family": family, "trajectories": trajectories, **total,
        "reduction": _ratio(p_text, p), "code_share": total["code_tokens_weighted"] / p_text if p_text else 0.0,
        "code_ceiling_reduction": _ratio(p_text, ceiling),
        "realized_share": realized_share(p_text, p, ceiling),
    }
    if family != DEFAULT_FAMILY.name:  # the code windows' gap terms describe rN's losses, not another family's
        row.update({k: None for k in row if k.startswith("code_gap_")})
    row.update(family_shares(p_text, p, total.get("family_ceiling_prompt_tokens"), total.get("text_prompt_bill"),
                             total.get("prompt_bill"), total.get("family_ceiling_prompt_bill")))
    return row


def family_shares(p_text: float, p: float, ceiling: float | None, b_text: float | None, b: float | None,
                  b_ceiling: float | None) -> dict[str, float | None]:
    """A family's ceiling and the share of it realized, in prompt tokens and on the bill
    (the prompt's part of the cache-aware spend; None when unpriced or not replayed)."""
    priced = None not in (b_text, b, b_ceiling)
    return {
        "family_ceiling_reduction": _ratio(p_text, ceiling),
        "family_realized_share": realized_share(p_text, p, ceiling) if ceiling is not None else None,
        "bill_reduction": _ratio(b_text, b) if None not in (b_text, b) else None,
        "family_ceiling_bill_reduction": _ratio(b_text, b_ceiling) if priced else None,
        "family_bill_realized_share": realized_share(b_text, b, b_ceiling) if priced else None,
    }


class FamilyCeiling:
    """Per call of one replayed condition, E_i: the tokens of its prompt that the condition's
    family ceiling renders at T/N (add_call after each call, eligible before the next), as the
    family says (PageFamily.ceiling_tokens, .eligible; `settings`: config agents.pages typed)."""

    def __init__(self, condition: Condition, settings: Any, tokenizer: str, image_family: str):
        self.page_family = condition.page_family if condition.visual else None
        self.mask = condition.mask
        self.family = condition.kind  # the records' `family`
        self.settings = settings
        self.tokenizer, self.image_family = tokenizer, image_family
        self.calls: list[int] = []  # per call so far: the tokens it adds to every later prompt

    def eligible(self) -> int | None:
        """E_i of the next call (0 under text: nothing is rendered; None: no ceiling, a
        family over masked history)."""
        if self.mask is not None:
            return None if self.page_family is not None else sum(self.calls[: max(0, len(self.calls) - self.mask.keep)])
        return self.page_family.eligible(self.calls, self.settings) if self.page_family is not None else 0

    def add_call(self, turn: Mapping[str, Any], observation: str | None, costs: Iterable[Mapping[str, Any]]) -> None:
        """A call's recorded turn, its observation as text and its windows' cost records."""
        if self.mask is not None:
            self.calls.append(self._masked_saving(turn, observation))
        elif self.page_family is not None:
            call = _CallTokens(turn, observation, sum(int(c["text_tokens"]) for c in costs), self)
            self.calls.append(self.page_family.ceiling_tokens(call, self.settings))

    def _masked_saving(self, turn: Mapping[str, Any], observation: str | None) -> int:
        """What masking the call's observation saves (0 when its placeholder is no cheaper)."""
        if observation is None:
            return 0
        message = {"role": "user", "content": observation}
        return masked(dict(turn), message, self.tokenizer, self.image_family)[1]


class _CallTokens:
    """One replayed call's tokens as a family's ceiling asks for them (page_families.CallTokens),
    each counted only when asked."""

    def __init__(self, turn: Mapping[str, Any], observation: str | None, code: int, accounting: FamilyCeiling):
        self.turn, self.text, self.code, self.accounting = turn, observation, code, accounting

    def observation(self) -> int | None:
        return None if self.text is None else text_tokens(self.text, self.accounting.tokenizer)

    def turn_and_observation(self) -> int:
        shown = [dict(self.turn)] + ([{"role": "user", "content": self.text}] if self.text is not None else [])
        return count_message_tokens(shown, self.accounting.tokenizer, self.accounting.image_family)


def family_ceiling(records: list[Mapping[str, Any]], text: list[Mapping[str, Any]], ratio: float) -> dict[str, Any]:
    """The family ceiling of one trajectory under one condition, in prompt tokens and on the
    cache-aware bill (the prompt's part; None when unpriced): `records` and `text` its and
    the text condition's per-call records in call order."""
    bills = [r.get("prompt_spend_cache_aware") for r in text] + [r.get("prompt_spend_cache_aware") for r in records]
    priced = None not in bills
    text_bill = [float(r["prompt_spend_cache_aware"]) for r in text] if priced else []
    out = {"text_prompt_bill": sum(text_bill) if priced else None,
           "prompt_bill": sum(float(r["prompt_spend_cache_aware"]) for r in records) if priced else None}
    if any(r.get("ceiling_eligible_tokens", 0) is None for r in records):  # no ceiling (FamilyCeiling.eligible)
        return {**out, "family_ceiling_prompt_tokens": None, "family_ceiling_prompt_bill": None}
    saved = [(1 - 1 / ratio) * int(r["ceiling_eligible_tokens"] or 0) for r in records]
    text_prompt = [int(r["prompt_tokens"]) for r in text]
    ceiling_bill = sum(b * (p - s) / p if p else b for b, p, s in zip(text_bill, text_prompt, saved)) if priced else None
    return {**out, "family_ceiling_prompt_tokens": sum(text_prompt) - sum(saved[: len(text)]),
            "family_ceiling_prompt_bill": ceiling_bill}
