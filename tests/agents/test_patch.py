"""The submitted patch is everything the agent changed against base_commit: staged, unstaged,
committed and new files (binary ones too), never ignored files, bytecode or scratch outside
the repository. Each patch applies to a fresh checkout at base_commit and reproduces the
agent's tree there."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

from swevis.sandbox.environments import make_environment
from swevis.agents.run.runner import RunSpec, run_instance
from swevis.agents.tools.environment import working_tree_diff
from swevis.config import schema_defaults
from swevis.errors import InfrastructureError
from swevis.tasks.bundled import load_bundled_instances
from swevis.tasks.repos import checkout, ensure_mirror

# the environment options as the runner passes them (the validated agents settings): the schema's defaults
ENV_OPTIONS = {k: schema_defaults("agents")[k] for k in ("docker_network", "docker_cpus", "docker_memory", "docker_pids", "env_passthrough")}

PROFILE = {"backend": "playback", "model_id": "test", "tokenizer": "qwen3", "image_family": "qwen3.5"}
GIT_ID = "git -c user.name=agent -c user.email=agent@example.invalid"
BINARY = bytes(range(256)) * 4  # NUL bytes and invalid UTF-8: git treats it as binary


@pytest.fixture
def local_env(instance, tmp_path):
    row, mirror = instance
    env, repo, ws = make_environment("local", row, mirror=mirror, timeout_s=60, live_model=False,
                                     allow_live_on_host=False, workspace=str(tmp_path / "ws"), **ENV_OPTIONS)
    yield env, Path(repo)
    ws.close()


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout


def tree(repo: Path) -> dict[str, bytes]:
    """The files a patch should carry: tracked and untracked, not ignored, no bytecode."""
    names = git(repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    return {n: (repo / n).read_bytes() for n in names if n and (repo / n).is_file() and not n.endswith(".pyc")}


def applied_at_base(instance, patch: str, dest: Path) -> dict[str, bytes]:
    row, mirror = instance
    fresh = checkout(mirror, row["base_commit"], dest)
    (dest.parent / "patch.diff").write_text(patch)
    proc = subprocess.run(["git", "apply", str(dest.parent / "patch.diff")], cwd=fresh, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return tree(fresh)


SCENARIOS = {
    # mini-swe-agent's own submit idiom stages the change before diffing it
    "staged": "echo 'STAGED = 1' >> ledgerkit/money.py && git add -A",
    "committed": f"echo 'COMMITTED = 1' >> ledgerkit/money.py && git rm -q README.md && {GIT_ID} commit -qam fix"
                 " && echo 'AFTER_COMMIT = 1' >> ledgerkit/ledger.py",
    "new_files": "mkdir -p ledgerkit/extra && printf 'def helper():\\n    return 1\\n' > ledgerkit/extra/helper.py"
                 " && python -c \"open('ledgerkit/table.bin', 'wb').write(bytes(range(256)) * 4)\"",
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_patch_carries_every_change_and_applies_at_base(name, instance, local_env, tmp_path):
    env, repo = local_env
    out = env.execute({"command": SCENARIOS[name]})
    assert out["returncode"] == 0, out["output"]
    # noise the patch must leave out: scratch outside the repo, pytest's cache, bytecode
    scratch = env.execute({"command": "echo scratch > ../scratch.txt && python -m pytest -q tests/test_money.py >/dev/null;"
                                      " mkdir -p ledgerkit/__pycache__ && touch ledgerkit/__pycache__/money.cpython-311.pyc"})
    assert scratch["returncode"] == 0, scratch["output"]
    assert (repo / ".pytest_cache").is_dir()
    status_before = git(repo, "status", "--porcelain")
    patch = working_tree_diff(env)
    assert git(repo, "status", "--porcelain") == status_before  # the agent's index is left as it was
    assert "scratch" not in patch and ".pytest_cache" not in patch and ".pyc" not in patch
    assert applied_at_base(instance, patch, tmp_path / "fresh" / "repo") == tree(repo)
    if name == "new_files":
        assert "GIT binary patch" in patch and (tmp_path / "fresh" / "repo" / "ledgerkit" / "table.bin").read_bytes() == BINARY


def test_no_change_is_an_empty_patch(local_env):
    env, _ = local_env
    assert working_tree_diff(env) == ""


def test_a_run_that_submits_with_git_add_records_its_patch(instance, tmp_path):
    """The user trial's defect: mini's `git add -A && git diff --cached` submission left an empty patch.diff."""
    row, mirror = instance
    demo = tmp_path / "demo.yaml"
    demo.write_text(yaml.safe_dump({"format": "swevis-demo-1", "turns": {"agent": [
        "THOUGHT: fix.\n\n```mswea_bash_command\necho 'FIXED = 1' >> ledgerkit/money.py\n```\n",
        "THOUGHT: submit.\n\n```mswea_bash_command\n"
        "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached\n```\n",
    ]}}))
    traj = run_instance(RunSpec("qwen3.5", PROFILE, "mini", "normal", "text", row, mirror, str(tmp_path / "out"),
                                playback_source=str(demo), workspace=str(tmp_path / "ws")))
    assert traj["exit_status"] == "submitted", traj["error"]
    patch = (tmp_path / "out" / "patch.diff").read_text()
    fixed = applied_at_base(instance, patch, tmp_path / "fresh" / "repo")
    assert fixed["ledgerkit/money.py"].endswith(b"FIXED = 1\n")


def test_user_git_config_does_not_change_the_patch(instance, local_env, tmp_path, monkeypatch):
    """A host ~/.gitconfig with diff.noprefix, rename detection or a pager must not break the patch."""
    env, repo = local_env
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[diff]\n\tnoprefix = true\n\trenames = copies\n[color]\n\tui = always\n")
    monkeypatch.setenv("HOME", str(home))
    out = env.execute({"command": "git mv ledgerkit/money.py ledgerkit/cash.py && echo 'MOVED = 1' >> ledgerkit/cash.py"})
    assert out["returncode"] == 0, out["output"]
    patch = working_tree_diff(env)
    assert "diff --git a/ledgerkit/cash.py b/ledgerkit/cash.py" in patch and "\x1b[" not in patch
    assert applied_at_base(instance, patch, tmp_path / "fresh" / "repo") == tree(repo)


def test_a_patch_that_cannot_be_taken_fails_the_run_and_writes_nothing(instance, tmp_path):
    """A broken git (here: the agent removed .git) is no empty patch to grade: the job fails."""
    row, mirror = instance
    demo = tmp_path / "demo.yaml"
    demo.write_text(yaml.safe_dump({"format": "swevis-demo-1", "turns": {"agent": [
        "THOUGHT: fix.\n\n```mswea_bash_command\necho 'FIXED = 1' >> ledgerkit/money.py && rm -rf .git\n```\n",
        "THOUGHT: submit.\n\n```mswea_bash_command\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```\n",
    ]}}))
    out = tmp_path / "out"
    with pytest.raises(InfrastructureError, match="the patch could not be taken: git diff against") as err:
        run_instance(RunSpec("qwen3.5", PROFILE, "mini", "normal", "text", row, mirror, str(out),
                             playback_source=str(demo), workspace=str(tmp_path / "ws")))
    assert "\n" not in str(err.value) and "not a git repository" in str(err.value).lower()
    assert not (out / "traj.json").exists() and not (out / "patch.diff").exists()
