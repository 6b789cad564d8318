"""The action classifier against a hand-labelled reference of real agent actions.

tests/fixtures/actions_labelled.csv holds 536 commands from public trajectories of tasks
outside SWE-bench Verified (which no part of the study may be fitted on): mini-swe-agent
runs on SWE-bench Lite and dev instances, OpenHands' example and test logs (Multi-SWE-bench,
its resolver, its runtime tests), SWE-agent's and mini-swe-agent's test trajectories. The
source column names repository, commit, file, instance and step; each command was labelled
by hand with a one-line reason before the classifier was run on it. The tables count
actions by class, so each class must agree. Judged one command at a time, as here, six
edits are missed: runs of a script the trajectory wrote to rewrite a repository file,
which `classify_actions` over the whole trajectory gets right.
"""

import csv
from collections import Counter
from pathlib import Path

import pytest

from swevis.agents.observation.actions import ACTION_CLASSES, classify_action

CSV = Path(__file__).resolve().parents[1] / "fixtures" / "actions_labelled.csv"
ROWS = list(csv.DictReader(CSV.open(newline="")))
VERIFIED = {r["instance_id"] for r in csv.DictReader((CSV.parent / "swebench" / "verified_ids.csv").open(newline=""))}


def test_reference_is_large_varied_and_sourced():
    assert len(ROWS) >= 300
    assert {r["label"] for r in ROWS} == set(ACTION_CLASSES)
    assert all(r["reason"].strip() and r["source"].strip() for r in ROWS)
    assert len({r["source"].rsplit(" step ", 1)[0] for r in ROWS}) >= 100  # many trajectories
    assert len({r["command"] for r in ROWS}) == len(ROWS)


def test_no_labelled_action_comes_from_a_verified_instance():
    named = [w.strip("(),") for r in ROWS for w in r["source"].split() if "__" in w and "/" not in w]
    assert named and not VERIFIED & set(named)
    assert not any(iid in r["source"] for r in ROWS for iid in VERIFIED)


@pytest.mark.parametrize("label", ACTION_CLASSES)
def test_per_class_agreement_is_at_least_95_percent(label):
    rows = [r for r in ROWS if r["label"] == label]
    wrong = [(r["command"][:120], classify_action(r["command"])) for r in rows if classify_action(r["command"]) != label]
    agreement = 1 - len(wrong) / len(rows)
    assert agreement >= 0.95, f"{label}: {agreement:.1%} of {len(rows)}; first misses {wrong[:5]}"


def test_no_class_is_a_sink():
    """Precision too: no class takes many actions of another (as `test` took scripts' names)."""
    got = Counter(classify_action(r["command"]) for r in ROWS)
    right = Counter(r["label"] for r in ROWS if classify_action(r["command"]) == r["label"])
    for label in ACTION_CLASSES:
        assert right[label] / got[label] >= 0.9, f"{label}: precision {right[label] / got[label]:.1%}"
