from pathlib import Path

from swevis.workflow import missing_inputs_token


def test_token_changes_once_per_deletion(tmp_path: Path):
    ledger, out, a, b = (tmp_path / n for n in ("ledger.json", "table.csv", "a.json", "b.json"))
    inputs = [str(a), str(b)]
    # nothing built yet: no outputs, nothing to trigger
    assert missing_inputs_token(ledger, [str(out)], inputs) == 0
    a.write_text("{}"), b.write_text("{}"), out.write_text("t")
    assert missing_inputs_token(ledger, [str(out)], inputs) == 0
    a.unlink()
    first = missing_inputs_token(ledger, [str(out)], inputs)
    assert first == 1
    # the same state (a dry run, then the real run) keeps the same token
    assert missing_inputs_token(ledger, [str(out)], inputs) == 1
    # after the rebuild: inputs back, outputs newer -> unchanged, so nothing reruns
    a.write_text("{}"), out.write_text("t2")
    assert missing_inputs_token(ledger, [str(out)], inputs) == 1
    # a later deletion is a new event
    import os
    os.utime(out, (10**9, 2 * 10**9))
    b.unlink()
    assert missing_inputs_token(ledger, [str(out)], inputs) == 2


def test_corrupt_ledger_starts_over(tmp_path: Path):
    ledger = tmp_path / "ledger.json"
    ledger.write_text("{oops")
    assert missing_inputs_token(ledger, [], []) == 0


def test_a_dry_run_sees_the_token_the_real_run_records_and_writes_nothing(tmp_path: Path):
    ledger, out, a = (tmp_path / n for n in ("ledger.json", "table.csv", "a.json"))
    out.write_text("t")
    assert missing_inputs_token(ledger, [str(out)], [str(a)], record=False) == 1
    assert not ledger.exists()  # undoing the change previewed leaves nothing to rerun
    assert missing_inputs_token(ledger, [str(out)], [str(a)]) == 1
    assert missing_inputs_token(ledger, [str(out)], [str(a)], record=False) == 1
