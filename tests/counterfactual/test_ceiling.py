"""The code-window ceiling of a replay (swevis.counterfactual.ceiling) on hand-built records."""

import pytest

from swevis.counterfactual.ceiling import CODE_TERMS, ceiling_table, observation_code_terms, realized_share, trajectory_ceiling


def cost(text_tokens, tokens, kind="image", image_tokens=0, guard=False, floor=False, reason=None, full=None):
    return {"text_tokens": text_tokens, "tokens": tokens, "kind": kind, "text_reason": reason, "pages": int(kind == "image"),
            "image_tokens": image_tokens, "guard_bound": guard, "floor_bound": floor, "full_tokens": full, "memory": None}


def step(i, obs, prompt, costs=(), kind="text"):
    return {"trajectory": "t", "truncated": False, "step": i, "observation_kind": kind, "observation_tokens": obs, "prompt_tokens": prompt,
            "code_tokens": sum(c["text_tokens"] for c in costs), "window_costs": list(costs)}


def test_an_observation_splits_its_gap_into_window_terms():
    # a 300-token window rendered at 110 image tokens + an 12-token note, a 90-token window kept as text
    costs = [cost(300, 122, image_tokens=110), cost(90, 90, kind="text", reason="cheaper_as_text")]
    code, terms = observation_code_terms(shown=122 + 90 + 50, text=300 + 90 + 50, costs=costs, ratio=3)
    assert code == 390
    assert terms["page_overhead"] == 12 and terms["layout_tolerance"] == pytest.approx(10)
    assert terms["kept_as_text"] == pytest.approx(60) and terms["outside_windows"] == 0
    assert sum(terms.values()) == pytest.approx((122 + 90 + 50) - (300 + 90 + 50) + 390 * (1 - 1 / 3))


def test_the_ceiling_renders_exactly_the_code_windows_and_the_share_is_of_its_saving():
    text = [step(0, 100, 1000), step(1, 400, 1100), step(2, 0, 1500, kind="none")]
    r3 = [step(0, 100, 1000), step(1, 150, 1100, [cost(300, 150, image_tokens=140, floor=True)], kind="image"),
          step(2, 0, 1250, kind="none")]
    p_text = 3600
    one = trajectory_ceiling(r3, {s["step"]: s["observation_tokens"] for s in text}, p_text, 3.0)
    # the window (300 tokens) is in 1 later prompt: the ceiling saves 300 * 2/3 = 200 tokens
    assert one["code_tokens_weighted"] == 300 and one["code_ceiling_prompt_tokens"] == pytest.approx(3400)
    assert one["code_share"] == pytest.approx(300 / 3600)
    assert one["code_gap_tokens"] == pytest.approx(3350 - 3400)  # below the ceiling: negative gap
    assert sum(one[f"code_gap_{t}"] for t in CODE_TERMS) == pytest.approx(one["code_gap_tokens"])
    assert realized_share(3600, 3350, 3400) == pytest.approx(250 / 200)
    assert realized_share(3600, 3600, 3600) is None


def test_the_table_adds_trajectories_and_skips_text():
    text = [step(0, 400, 1000), step(1, 0, 1400, kind="none")]
    r3 = [step(0, 200, 1000, [cost(300, 200, image_tokens=190, guard=True)], kind="image"), step(1, 0, 1200, kind="none")]
    steps = [{**s, "condition": "text"} for s in text] + [{**s, "condition": "r3"} for s in r3]
    steps += [{**s, "trajectory": "u"} for s in steps]
    (row,) = ceiling_table(steps, {"text": None, "r3": 3.0})
    assert row["trajectories"] == 2 and row["text_prompt_tokens"] == 4800 and row["prompt_tokens"] == 4400
    assert row["code_ceiling_prompt_tokens"] == pytest.approx(4800 - 2 * 200)
    assert row["realized_share"] == pytest.approx(1.0)  # 400 saved of 400 possible
    assert row["code_gap_guard_bound"] == pytest.approx(2 * (190 - 100))
