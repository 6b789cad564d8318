"""What redaction costs: swevis.redaction.redact over text of the bundled repositories'
sources (what trajectories and observations hold), with 0, 1 and 4 registered secrets, and
the per-call cost it adds to a model request (ChatModel.prepare on a 60-message
conversation of code observations).

    .venv/bin/python benchmarks/bench_redaction.py [--repeat 5]

Prints a table: text size, secrets, best-of-N seconds and MB/s; then prepare() per call
without and with a registered key. Nothing is written.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from swevis import redaction
from swevis.models.base import ChatModel

PROJECT_ROOT = Path(__file__).resolve().parents[1]
REPOS = PROJECT_ROOT / "src" / "swevis" / "data" / "sample" / "repos"
SECRETS = {"SWEVIS_API_KEY": "sk-proj-5c1e9a77d2b04f8e-bench", "HF_TOKEN": "hf_0a1b2c3d4e5f6a7b8c9d0e1f",
           "GITHUB_PAT": "ghp_0123456789abcdefghij0123456789", "DB_PASSWORD": 'p@ss "wörd"/\\&x'}


def corpus(size: int) -> str:
    code = "\n".join(p.read_text() for p in sorted(REPOS.rglob("*.py")))
    return (code * (size // len(code) + 1))[:size]


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


class _Prepared(ChatModel):
    backend = "bench"

    def _complete(self, *args, **kwargs):  # never called: only prepare() is timed
        raise NotImplementedError


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{'text':>8} {'secrets':>7} {'seconds':>9} {'MB/s':>7}")
    for size in (100_000, 1_000_000, 10_000_000):
        text = corpus(size)
        for n in (0, 1, 4):
            redaction.forget_secrets()
            for name, value in list(SECRETS.items())[:n]:
                redaction.register_secret(value, name)
            s = best(lambda: redaction.redact(text), args.repeat)
            print(f"{size / 1e6:>7.1f}M {n:>7} {s:>9.4f} {size / 1e6 / s:>7.1f}")
    code = corpus(4_000)
    messages = [{"role": "system", "content": "You are a careful engineer."}]
    messages += [{"role": "user" if i % 2 else "assistant", "content": code} for i in range(60)]
    model = _Prepared("bench", {})
    redaction.forget_secrets()
    without = best(lambda: model.prepare(messages), args.repeat)
    redaction.register_secret(SECRETS["SWEVIS_API_KEY"], "SWEVIS_API_KEY")
    with_key = best(lambda: model.prepare(messages), args.repeat)
    print(f"\nprepare() of 61 messages ({sum(len(m['content']) for m in messages) / 1e3:.0f} KB): "
          f"{without * 1e3:.2f} ms without a secret, {with_key * 1e3:.2f} ms with one (x{with_key / without:.1f})")


if __name__ == "__main__":
    main()
