"""Every shell command in README.md and docs/*.md runs, so a documented command that fails
fails the tests.

The convention the pages follow: shell commands are in ```console blocks, one a line after a
`$ ` prompt; a line ending in a backslash continues on the next. Lines without a prompt are
output and are not run. Other shell fences (bash, sh, shell, zsh), and prompt-less fences that
hold commands, are refused, so no command can hide from this test. A ```yaml block whose first
line is `# file: NAME` is written to NAME in the work folder before its page's commands run
(the pages' study files, such as my.yaml, are then checked by the commands that read them).

Each console block runs in a fresh copy of the workflow folder (the repository's files, with
`.venv` linked to the repository's), in one bash session (so `export` carries to the next
line), with HOME in the test's tmp folder. The copy's `.venv/bin/snakemake` is a shim that
runs the command forked from a process that has imported Snakemake (tests/snakemake_shim.py
says what differs; SWEVIS_TEST_FORK=0 runs the real command). RULES says, for every documented command, how it
runs: as written, or replaced by the dry run or `--help` it names and why (a real run is long,
or needs an engine, a cluster or a live endpoint). A command without a rule fails the test.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
import snakemake_fork
import snakemake_shim
import yaml

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs" / "studies").glob("*.md"))]
MAX_PAGE_LINES = 400
VENV = ROOT / ".venv"
BLOCK_TIMEOUT_S = 1200


@dataclass(frozen=True)
class Rule:
    """How one documented command runs: `run` is None for "as written"."""

    run: str | None = None
    why: str = ""
    slow: bool = False


AS_WRITTEN = Rule()
AS_WRITTEN_SLOW = Rule(slow=True)

PAGES_OCR = ("needs the public Lite trajectories (not in the repository) and reads 40 whole pages a family with two OCR "
             "readers: --help checks the script")
PAGES_OTHER_AGENTS = ("needs public trajectories of other agents (not in the repository) and reads their "
                      "pages with two OCR readers: --help checks the script")
LONG = "the real run is long: a dry run plans the same jobs from the same config"
ENDPOINT = "needs a live model endpoint: a dry run checks the config and plans the jobs"
CLUSTER = "needs a cluster: a dry run loads the profile and plans the jobs"
ENGINE = "needs a Docker engine and minutes: --help checks the subcommand and its arguments"
MINED = "needs full-history clones of the 12 repositories: --help checks the step and its arguments"
MINED_DAG = "needs full-history clones of the 12 repositories and hours: a dry run plans the steps from the case lists"
POLYGLOT_CLONES = "needs full-history clones of the ten repositories of other languages: --help checks the step"
DATA = "needs downloaded SWE-bench rows and repository clones: --help checks the step and its arguments"
TESSERACT_TUNING = "reads hundreds of whole pages with Tesseract (about 2.5 CPU s a page): --help checks the script"
OCR = "reads dozens of whole pages with rapidocr (about 10 CPU s a page): --help checks the script and its arguments"

# The one table of documented commands (continuation lines joined, runs of spaces as one).
RULES: dict[str, Rule] = {
    # README.md
    "make install && make results": Rule(
        "make -n install results && .venv/bin/snakemake -n --cores 2",
        "make install would reinstall into the shared .venv, make results takes most of an hour: "
        "make's dry run of both, then the dry run of the Snakemake target make results runs", slow=True),
    "make test": Rule("make -n test", "the suite would run itself: make's dry run of its recipe"),
    ".venv/bin/snakemake --cores 2 results/table1.csv": Rule(
        ".venv/bin/snakemake -n --cores 2 results/table1.csv", LONG, slow=True),
    "make report": Rule(
        "make -n report", "a report needs the whole run: make's dry run of its recipe"),
    "export MY_ENDPOINT_KEY=...": AS_WRITTEN,
    ".venv/bin/snakemake --cores 2 --configfile examples/my-endpoint.yaml -- results/table1.csv": Rule(
        ".venv/bin/snakemake -n --cores 2 --configfile examples/my-endpoint.yaml -- results/table1.csv",
        ENDPOINT, slow=True),
    ".venv/bin/swevis images build --config examples/docker-sample.yaml": Rule(
        ".venv/bin/swevis images build --help", ENGINE),
    ".venv/bin/snakemake --cores 2 --configfile examples/polyglot.yaml -- results-polyglot/table1.csv": Rule(
        ".venv/bin/snakemake -n --cores 2 --configfile examples/polyglot.yaml -- results-polyglot/table1.csv",
        "needs a JDK and Node.js and runs the agents (tests/workflow/test_workflow_polyglot.py runs it): " + LONG,
        slow=True),
    ".venv/bin/snakemake --cores 2 --configfile examples/docker-sample.yaml": Rule(
        ".venv/bin/snakemake -n --cores 2 --configfile examples/docker-sample.yaml",
        "needs the Docker images and an engine: " + LONG, slow=True),
    "export SWEVIS_SLURM_ACCOUNT=my_account SWEVIS_SLURM_PARTITION=cpu": AS_WRITTEN,
    ".venv/bin/snakemake --cores 2 results/checkouts/all.json": Rule(
        ".venv/bin/snakemake -n --cores 2 results/checkouts/all.json", LONG, slow=True),
    ".venv/bin/snakemake --cores 2 results/checkouts/all.json # on the login node: clones need the internet": Rule(
        ".venv/bin/snakemake -n --cores 2 results/checkouts/all.json", LONG, slow=True),
    ".venv/bin/snakemake --workflow-profile profiles/slurm results/table1.csv": Rule(
        ".venv/bin/snakemake -n --workflow-profile profiles/slurm results/table1.csv", CLUSTER, slow=True),
    # docs/cli.md
    ".venv/bin/swevis --help": AS_WRITTEN,
    ".venv/bin/swevis --version": AS_WRITTEN,
    # docs/tasks.md, docs/localization.md
    ".venv/bin/swevis tasks sample": AS_WRITTEN,
    ".venv/bin/swevis tasks checkout swevis-samples__tabulon-305": AS_WRITTEN,
    ".venv/bin/swevis index .swevis-cache/checkouts/swevis-samples__tabulon-305 --db tabulon.sqlite": AS_WRITTEN,
    ".venv/bin/swevis localize .swevis-cache/checkouts/swevis-samples__tabulon-305 --db tabulon.sqlite "
    "--issue src/swevis/data/sample/instances/swevis-samples__tabulon-305/problem_statement.md": AS_WRITTEN,
    ".venv/bin/snakemake --cores 2 devset_weights": Rule(".venv/bin/snakemake -n --cores 2 devset_weights", MINED_DAG, slow=True),
    ".venv/bin/swevis devset fetch": Rule(".venv/bin/swevis devset fetch --help", MINED),
    ".venv/bin/swevis devset prepare": Rule(".venv/bin/swevis devset prepare --help", MINED),
    "nice -n 15 .venv/bin/swevis devset measure": Rule(".venv/bin/swevis devset measure --help", MINED),
    ".venv/bin/swevis devset history --depth 3000": Rule(".venv/bin/swevis devset history --help", MINED),
    ".venv/bin/swevis devset report": Rule(".venv/bin/swevis devset report --help", MINED),
    "OPENBLAS_NUM_THREADS=1 .venv/bin/swevis devset cv --synthetic": Rule(".venv/bin/swevis devset cv --help", MINED),
    "OPENBLAS_NUM_THREADS=1 .venv/bin/swevis devset fit": Rule(".venv/bin/swevis devset fit --help", MINED),
    ".venv/bin/swevis devset small": Rule(
        ".venv/bin/swevis devset small --help",
        "indexes the three sample repositories and 14 copies of installed libraries (minutes): --help checks its arguments"),
    ".venv/bin/python benchmarks/ranking_probes.py": Rule(".venv/bin/python benchmarks/ranking_probes.py --help", MINED),
    ".venv/bin/swevis devset fetch --polyglot": Rule(".venv/bin/swevis devset fetch --help", POLYGLOT_CLONES),
    ".venv/bin/python benchmarks/bench_symbol_coverage.py --pairs tests/fixtures/index/coverage": AS_WRITTEN,
    ".venv/bin/python benchmarks/bench_symbol_coverage.py --cases devset/mined_polyglot.csv devset/mined.csv "
    "--mirrors .swevis-cache/devset/mirrors": Rule(
        ".venv/bin/python benchmarks/bench_symbol_coverage.py --help",
        "reads the fixes of 1,672 mined cases from the mirrors of 22 repositories: --help checks the script"),
    ".venv/bin/swevis devset mine --polyglot --per-repo 62": Rule(".venv/bin/swevis devset mine --help", POLYGLOT_CLONES),
    ".venv/bin/swevis devset prepare --polyglot": Rule(".venv/bin/swevis devset prepare --help", POLYGLOT_CLONES),
    "nice -n 10 .venv/bin/swevis devset measure --polyglot": Rule(".venv/bin/swevis devset measure --help", POLYGLOT_CLONES),
    ".venv/bin/swevis devset report --polyglot": Rule(".venv/bin/swevis devset report --help", POLYGLOT_CLONES),
    ".venv/bin/swevis devset history --polyglot --depth 300": Rule(".venv/bin/swevis devset history --help", POLYGLOT_CLONES),
    "export OUT=.swevis-cache/devset/issues-polyglot": AS_WRITTEN,
    ".venv/bin/swevis devset fetch --polyglot-issues": Rule(".venv/bin/swevis devset fetch --help", POLYGLOT_CLONES),
    ".venv/bin/swevis devset issue-candidates --per-repo 60 --write issue-candidates.csv": Rule(
        ".venv/bin/swevis devset issue-candidates --help", POLYGLOT_CLONES),
    ".venv/bin/swevis devset issue-texts --write issue-texts.jsonl": Rule(
        ".venv/bin/swevis devset issue-texts --help", "reads 28 issues from the GitHub API: --help checks the step"),
    ".venv/bin/swevis devset prepare --polyglot-issues --issue-texts issue-texts.jsonl --out $OUT": Rule(
        ".venv/bin/swevis devset prepare --help", POLYGLOT_CLONES),
    "nice -n 10 .venv/bin/swevis devset measure --polyglot-issues --out $OUT": Rule(
        ".venv/bin/swevis devset measure --help", POLYGLOT_CLONES),
    ".venv/bin/swevis devset report --polyglot-issues --out $OUT": Rule(".venv/bin/swevis devset report --help", POLYGLOT_CLONES),
    ".venv/bin/swevis devset prepare --polyglot --out $OUT --repos mochajs/mocha Leaflet/Leaflet colinhacks/zod sindresorhus/ky spf13/cobra urfave/cli jhy/jsoup rust-lang/mdBook casey/just": Rule(
        ".venv/bin/swevis devset prepare --help", POLYGLOT_CLONES),
    "nice -n 10 .venv/bin/swevis devset measure --polyglot --out $OUT --repos mochajs/mocha Leaflet/Leaflet colinhacks/zod sindresorhus/ky spf13/cobra urfave/cli jhy/jsoup rust-lang/mdBook casey/just": Rule(
        ".venv/bin/swevis devset measure --help", POLYGLOT_CLONES),
    ".venv/bin/swevis devset report --polyglot --out $OUT": Rule(".venv/bin/swevis devset report --help", POLYGLOT_CLONES),
    "nice -n 10 .venv/bin/swevis devset measure": Rule(".venv/bin/swevis devset measure --help", MINED),
    ".venv/bin/swevis devset history --depth 300": Rule(".venv/bin/swevis devset history --help", MINED),
    "OPENBLAS_NUM_THREADS=1 .venv/bin/swevis devset languages": Rule(".venv/bin/swevis devset languages --help", MINED),
    "OPENBLAS_NUM_THREADS=1 .venv/bin/swevis devset fit --polyglot": Rule(".venv/bin/swevis devset fit --help", MINED),
    ".venv/bin/swevis devset fetch --split": Rule(".venv/bin/swevis devset fetch --help", DATA),
    ".venv/bin/swevis devset split-prepare --rows swe-bench-lite-dev.json --rows swe-bench-dev-easy.json "
    "--rows swe-bench-lite-test.json": Rule(".venv/bin/swevis devset split-prepare --help", DATA),
    ".venv/bin/swevis devset split-measure --release": Rule(".venv/bin/swevis devset split-measure --help", DATA),
    ".venv/bin/swevis devset split-choose --option w_file_symbol=0,0.5,1,2,4 --level file": Rule(
        ".venv/bin/swevis devset split-choose --help", DATA),
    # docs/measurements.md
    "nice .venv/bin/python benchmarks/bench_run_agent.py --repeat 3": Rule(
        ".venv/bin/python benchmarks/bench_run_agent.py --help",
        "runs Snakemake for ten agent jobs, then each of them three times again (minutes): --help checks the script"),
    # docs/single-read.md
    "nice .venv/bin/python benchmarks/bench_legibility.py --windows 4 --sizes 5.5 6 6.5 7 --modes aa super "
    "super+lh1.1 --write-guards benchmarks/out/legibility_guards.json": Rule(
        ".venv/bin/python benchmarks/bench_legibility.py --help", OCR),
    "nice .venv/bin/python benchmarks/bench_legibility.py --windows 4 --sizes 5 5.5 6 6.5 --fonts "
    "/usr/share/fonts/truetype/noto/NotoMono-Regular.ttf --modes super super+lh1.1 aa "
    "--write-guards benchmarks/out/legibility_guards.json": Rule(
        ".venv/bin/python benchmarks/bench_legibility.py --help", OCR),
    "nice .venv/bin/python benchmarks/bench_legibility.py --windows 2 --sizes 5.5 6 6.5 --fonts "
    "/usr/share/fonts/truetype/hack/Hack-Regular.ttf --modes super bilevel mono grid stroke0.5 --no-tesseract": Rule(
        ".venv/bin/python benchmarks/bench_legibility.py --help", OCR),
    "nice .venv/bin/python benchmarks/bench_frontier.py --windows 8 --ratios 3 5 7 --readers rapidocr": Rule(
        ".venv/bin/python benchmarks/bench_frontier.py --help", OCR),
    "nice .venv/bin/python benchmarks/bench_frontier.py --windows 12 --ratios 3 5 7 --readers rapidocr": Rule(
        ".venv/bin/python benchmarks/bench_frontier.py --help", OCR),
    "nice .venv/bin/python benchmarks/bench_legibility.py --windows 16 --sizes 5.5 5.75 6 6.5 --fonts "
    "\"DejaVu Sans Mono\" --modes bicubic super --no-tesseract --write-guards benchmarks/out/legibility_guards.json": Rule(
        ".venv/bin/python benchmarks/bench_legibility.py --help", OCR),
    "nice .venv/bin/python benchmarks/bench_legibility.py --windows 6 --sizes 5.75 7 --fonts \"DejaVu Sans Mono\" "
    "--modes bicubic super --no-rapidocr": Rule(".venv/bin/python benchmarks/bench_legibility.py --help", OCR),
    "nice .venv/bin/python benchmarks/bench_tesseract_reader.py --windows 8 --sizes 5.75 6.5 --jobs 2 --settings "
    "any+gamma1 any+gamma1+s4 any+gamma1+s5 any+gamma1+bicubic any+gamma1+stretch any+gamma1+otsu any+gamma1+psm4 "
    "any+gamma1+nodict any+gamma1+dpi300 any+gamma1+liney gamma1+liney gamma1.5+liney liney gamma2.5+liney "
    "gamma3+liney liney+nodict liney+stretch liney+bicubic gamma1+liney+darkest gamma1+liney+s4 gamma1+liney+bicubic "
    "read": Rule(".venv/bin/python benchmarks/bench_tesseract_reader.py --help", TESSERACT_TUNING),
    "nice .venv/bin/python benchmarks/bench_tesseract_reader.py --windows 12 --sizes 5.75 6 6.5 7 --settings "
    "wordy+any+gamma1 read --jobs 2": Rule(".venv/bin/python benchmarks/bench_tesseract_reader.py --help", TESSERACT_TUNING),
    "nice .venv/bin/python benchmarks/bench_legibility.py --windows 8 --sizes 5.75 6 6.25 6.5 --fonts \"DejaVu Sans "
    "Mono\" --modes bicubic bicubic+lh1.1 bicubic+lh1.0 bicubic+mono bicubic+stroke0.15 --no-rapidocr --packages click "
    "httpx hypothesis jsonschema pandas huggingface_hub": Rule(".venv/bin/python benchmarks/bench_legibility.py --help", OCR),
    "nice .venv/bin/python benchmarks/bench_tesseract_reader.py --windows 8 --sizes 5.75 6 6.5 --jobs 2 --settings read "
    "langLatin": Rule(".venv/bin/python benchmarks/bench_tesseract_reader.py --help", TESSERACT_TUNING),
    "nice .venv/bin/python benchmarks/bench_tesseract_reader.py --windows 8 --sizes 5.75 6 6.5 --jobs 2 --settings oem1 "
    "oem0 --tessdata-dir TESSDATA_DIR": Rule(".venv/bin/python benchmarks/bench_tesseract_reader.py --help", TESSERACT_TUNING),
    "nice .venv/bin/python benchmarks/bench_legibility_text.py --sizes 7 5.75": Rule(
        ".venv/bin/python benchmarks/bench_legibility_text.py --help", OCR),
    ".venv/bin/snakemake --cores 2 results/single_read/frontier_summary.json": Rule(
        ".venv/bin/snakemake -n --cores 2 results/single_read/frontier_summary.json", LONG, slow=True),
    # docs/counterfactual.md
    ".venv/bin/python benchmarks/bench_page_families.py lite_test lite_dev --hist transcript:2:4,outputs:2:4,"
    "transcript:1:4,transcript:3:4,transcript:2:2,transcript:2:8,outputs:1:4,outputs:3:4": Rule(
        ".venv/bin/python benchmarks/bench_page_families.py --help",
        "needs the public Lite trajectories (not in the repository) and an hour: --help checks the script"),
    ".venv/bin/python benchmarks/bench_page_families.py lite_test lite_dev --base text,obs-r3 --hist transcript:1:4": Rule(
        ".venv/bin/python benchmarks/bench_page_families.py --help",
        "needs the public Lite trajectories (not in the repository) and ten minutes: --help checks the script"),
    ".venv/bin/python benchmarks/bench_page_families.py lite_test lite_dev --base text,obs-r3 --hist \"\" "
    "--obs-run-chars 0": Rule(
        ".venv/bin/python benchmarks/bench_page_families.py --help",
        "needs the public Lite trajectories (not in the repository) and ten minutes: --help checks the script"),
    ".venv/bin/python benchmarks/bench_page_families.py lite_test lite_dev --base text,both-r3 --hist \"\"": Rule(
        ".venv/bin/python benchmarks/bench_page_families.py --help",
        "needs the public Lite trajectories (not in the repository) and ten minutes: --help checks the script"),
    ".venv/bin/python benchmarks/bench_page_families.py trajectory-sets/deepseek_reasoner_dev trajectory-sets/sweagent "
    "trajectory-sets/openhands --base text,both-r3 --hist \"\"": Rule(
        ".venv/bin/python benchmarks/bench_page_families.py --help",
        "needs public trajectories of other agents (not in the repository): --help checks the script"),
    ".venv/bin/python benchmarks/bench_page_families.py lite_test lite_dev --base text --hist \"\" "
    "--mask 2,5,10,5:4,10:4,10:8,20:8,10:16": Rule(
        ".venv/bin/python benchmarks/bench_page_families.py --help",
        "needs the public Lite trajectories (not in the repository) and half an hour: --help checks the script"),
    ".venv/bin/python benchmarks/bench_page_families.py lite_dev lite_test --base text --hist \"\" "
    "--mask 10:4+hist,5:4+hist": Rule(
        ".venv/bin/python benchmarks/bench_page_families.py --help",
        "needs the public Lite trajectories (not in the repository) and half an hour: --help checks the script"),
    ".venv/bin/python benchmarks/bench_page_families.py lite_dev --base text --hist \"\" "
    "--mask 1:4+hist,2:4+hist,3:4+hist,5:2+hist,5:8+hist,3:2+hist": Rule(
        ".venv/bin/python benchmarks/bench_page_families.py --help",
        "needs the public Lite trajectories (not in the repository) and a quarter of an hour: --help checks the script"),
    ".venv/bin/python benchmarks/bench_page_families.py trajectory-sets/deepseek_reasoner_dev trajectory-sets/sweagent "
    "trajectory-sets/openhands --base text --hist \"\" --mask 10,10:4,10:8,10:16,5:4+hist,10:4+hist": Rule(
        ".venv/bin/python benchmarks/bench_page_families.py --help",
        "needs public trajectories of other agents (not in the repository): --help checks the script"),
    "nice .venv/bin/python benchmarks/bench_page_legibility.py lite_dev --pages 40 --seed 1": Rule(
        ".venv/bin/python benchmarks/bench_page_legibility.py --help", PAGES_OCR),
    "nice .venv/bin/python benchmarks/bench_page_legibility.py lite_test --pages 40 --seed 1": Rule(
        ".venv/bin/python benchmarks/bench_page_legibility.py --help", PAGES_OCR),
    **{f"nice .venv/bin/python benchmarks/bench_page_legibility.py trajectory-sets/{name} --pages 12 --seed 3 "
       "--families hist -v": Rule(".venv/bin/python benchmarks/bench_page_legibility.py --help", PAGES_OTHER_AGENTS)
       for name in ("deepseek_reasoner_dev", "sweagent", "openhands")},
    ".venv/bin/python benchmarks/fetch_trajectory_sets.py trajectory-sets": Rule(
        ".venv/bin/python benchmarks/fetch_trajectory_sets.py --help",
        "downloads three public repositories from GitHub: --help checks the script; "
        "tests/dev/test_trajectory_sets.py writes a set from a local repository"),
    **{f"nice .venv/bin/python benchmarks/bench_page_legibility.py trajectory-sets/{name} --pages 12 --seed 3 -v": Rule(
        ".venv/bin/python benchmarks/bench_page_legibility.py --help", PAGES_OTHER_AGENTS)
       for name in ("deepseek_reasoner_dev", "sweagent", "openhands")},
    **{f"nice .venv/bin/python benchmarks/bench_page_legibility.py trajectory-sets/{name} --pages 12 --seed 3 "
       "--no-direction-classifier": Rule(".venv/bin/python benchmarks/bench_page_legibility.py --help",
                                         PAGES_OTHER_AGENTS)
       for name in ("deepseek_reasoner_dev", "sweagent", "openhands")},
    ".venv/bin/python benchmarks/bench_page_families.py trajectory-sets/deepseek_reasoner_dev trajectory-sets/sweagent "
    "trajectory-sets/openhands --base text,obs-r3 --hist transcript:1:4": Rule(
        ".venv/bin/python benchmarks/bench_page_families.py --help",
        "needs public trajectories of other agents (not in the repository): --help checks the script"),
    ".venv/bin/python benchmarks/bench_page_families.py trajectory-sets/deepseek_reasoner_dev trajectory-sets/sweagent "
    "trajectory-sets/openhands --base text --hist transcript:1:4 --hist-run-chars 0 --hist-min-font-px 5.75": Rule(
        ".venv/bin/python benchmarks/bench_page_families.py --help",
        "needs public trajectories of other agents (not in the repository): --help checks the script"),
    "nice .venv/bin/python benchmarks/bench_page_legibility.py tests/fixtures/trajectories_coloured --pages 12 --seed 1 "
    "-v": Rule(".venv/bin/python benchmarks/bench_page_legibility.py --help",
               "reads the fixture's pages with two OCR readers (minutes of OCR): --help checks the script; "
               "tests/counterfactual/test_coloured_output_pages.py replays and draws the same pages"),
    ".venv/bin/snakemake --cores 2 results/table4.csv": Rule(
        ".venv/bin/snakemake -n --cores 2 results/table4.csv", LONG, slow=True),
    ".venv/bin/swevis render src/swevis/render/layout.py --lines 1-120 --ratio 3 --model qwen3.5 -o out/": AS_WRITTEN_SLOW,
    # docs/agents.md, docs/counterfactual.md, docs/evaluation.md
    ".venv/bin/swevis agent run --agent let --instance swevis-samples__tabulon-305 --condition r3 -o out/": AS_WRITTEN_SLOW,
    ".venv/bin/swevis agent run --agent mini --instance swevis-samples__tabulon-305 --condition text -o out/": AS_WRITTEN_SLOW,
    ".venv/bin/swevis replay src/swevis/data/trajectories/mini1__swevis-samples__tabulon-305.traj.json "
    "--conditions text,r3 --model kimi-k2.5": AS_WRITTEN,
    ".venv/bin/swevis replay src/swevis/data/trajectories/mini1__swevis-samples__tabulon-305.traj.json "
    "--conditions text,mask-k2,maskb-k2": AS_WRITTEN,
    ".venv/bin/swevis replay src/swevis/data/trajectories/mini1__swevis-samples__tabulon-305.traj.json "
    "--out replay-out": AS_WRITTEN_SLOW,
    ".venv/bin/swevis replay src/swevis/data/trajectories/ --out replay-out "
    "--repo .swevis-cache/checkouts/swevis-samples__tabulon-305": AS_WRITTEN_SLOW,
    ".venv/bin/swevis replay out/traj.json --out replay-out --reexecute": AS_WRITTEN_SLOW,
    ".venv/bin/swevis evaluate swevis-samples__ledgerkit-101": AS_WRITTEN_SLOW,
    ".venv/bin/swevis evaluate swevis-samples__tabulon-305 --patch out/patch.diff": AS_WRITTEN_SLOW,
    # docs/running.md
    ".venv/bin/snakemake --cores 2 --configfile my.yaml -- results/table1.csv": AS_WRITTEN_SLOW,
    "export MY_ENDPOINT_KEY=... KIMI_KEY=...": AS_WRITTEN,
    ".venv/bin/snakemake --cores 16 --resources llm=16 docker=4 --configfile my-study.yaml -- results/table1.csv": Rule(
        ".venv/bin/snakemake -n --cores 16 --resources llm=16 docker=4 --configfile my-study.yaml -- results/table1.csv",
        ENDPOINT + " (the sampling checkpoint, which would download SWE-bench Verified, is planned, not run)",
        slow=True),
    ".venv/bin/snakemake --workflow-profile profiles/kubernetes results/table1.csv": Rule(
        ".venv/bin/snakemake -n --workflow-profile profiles/kubernetes --default-storage-prefix \"$PWD/storage\" "
        "results/table1.csv",
        CLUSTER + "; the storage prefix stands for the ReadWriteMany volume step 3 mounts", slow=True),
    # docs/measurements.md
    "make measurements": Rule(
        "make measurements MEASURE_ARGS=--dry-run",
        "it runs make results from nothing and the whole suite: its dry run plans the same workflow run in an "
        "empty folder and collects the same tests, and writes nothing", slow=True),
    # docs/reruns.md
    "rm -r results/runs/qwen3.5/plb-normal/r3": Rule(
        "rm -rf results/runs/qwen3.5/plb-normal/r3",
        "a fresh copy has no results to delete; that a deleted condition reruns exactly itself and the "
        "tables is tests/workflow/test_workflow_reruns.py's and test_workflow.py's to check"),
    ".venv/bin/snakemake --cores 8 results/table1.csv # reruns exactly that condition and the tables": Rule(
        ".venv/bin/snakemake -n --cores 8 results/table1.csv", LONG, slow=True),
}

SHELL_FENCES = {"bash", "sh", "shell", "zsh", "shell-session"}
COMMAND_START = re.compile(r"^(\$ |\.venv/bin/|make |snakemake |swevis |export |python )")


@dataclass(frozen=True)
class Block:
    page: str
    line: int  # of the opening fence, 1-based
    commands: tuple[str, ...]


def normalized(command: str) -> str:
    return " ".join(command.split())


def fences(text: str) -> list[tuple[int, str, list[str]]]:
    """(line of the opening fence, its info string, its body lines), indentation removed."""
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        stripped = lines[i].lstrip()
        if stripped.startswith("```"):
            indent, info, body, j = len(lines[i]) - len(stripped), stripped[3:].strip(), [], i + 1
            while j < len(lines) and not lines[j].lstrip().startswith("```"):
                body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j])
                j += 1
            out.append((i + 1, info, body))
            i = j + 1
        else:
            i += 1
    return out


def console_commands(body: list[str]) -> list[str]:
    """The `$ ` lines of a console block, continuation lines joined."""
    commands, current = [], None
    for line in body:
        if current is not None:
            current += "\n" + line
        elif line.startswith("$ "):
            current = line[2:]
        if current is not None and not current.endswith("\\"):
            commands.append(current)
            current = None
    assert current is None, f"a command ends in a continuation backslash: {current!r}"
    return commands


def page_blocks(path: Path) -> tuple[list[Block], dict[str, str], list[str]]:
    return parse_page(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))


def parse_page(text: str, page: str) -> tuple[list[Block], dict[str, str], list[str]]:
    """A page's console blocks, its study files (name -> text) and the problems found."""
    blocks, files, problems = [], {}, []
    for line, info, body in fences(text):
        if info == "console":
            commands = console_commands(body)
            if not commands:
                problems.append(f"{page}:{line}: a console block without a `$ ` command")
            blocks.append(Block(page, line, tuple(commands)))
        elif info in SHELL_FENCES:
            problems.append(f"{page}:{line}: a ```{info} block; write shell commands as ```console with `$ `")
        elif info in {"yaml", "yml"} and body and body[0].startswith("# file: "):
            files[body[0].removeprefix("# file: ").strip()] = "\n".join(body) + "\n"
        elif info == "" and any(COMMAND_START.match(b) for b in body):
            problems.append(f"{page}:{line}: commands in a fence without ```console")
    return blocks, files, problems


def all_blocks() -> list[tuple[Block, dict[str, str]]]:
    out = []
    for path in PAGES:
        blocks, files, _ = page_blocks(path)
        out.extend((b, files) for b in blocks)
    return out


def rule_for(command: str, rules: dict[str, Rule]) -> Rule:
    key = normalized(command.replace("\\\n", " "))
    assert key in rules, (
        f"no rule in tests/test_docs.py RULES for the documented command {key!r}: add it, as written "
        "(AS_WRITTEN) or with the dry run it stands for and why")
    return rules[key]


def script(commands: tuple[str, ...], rules: dict[str, Rule]) -> str:
    """A bash script that runs each command (or its substitute) and stops at the first failure,
    naming it (`set -e` would not: it ignores a failure left of `&&`)."""
    lines = []
    for n, command in enumerate(commands):
        rule = rule_for(command, rules)
        lines.append(rule.run if rule.run is not None else command)
        lines.append(f'rc=$?; if [ $rc -ne 0 ]; then echo "docs-test: command {n} exited $rc" >&2; exit 3; fi')
    return "\n".join(lines) + "\n"


def ignore_patterns(folder: Path) -> list[str]:
    """The patterns of a folder's .gitignore (none without one). The walk below reads the subset
    of the syntax these files use (names and globs, a trailing / for folders, a / inside for a
    path from the file's folder); a pattern outside it fails here rather than copy what git
    would leave out."""
    path = folder / ".gitignore"
    patterns = [line.strip() for line in path.read_text().splitlines()] if path.is_file() else []
    patterns = [p for p in patterns if p and not p.startswith("#")]
    unsupported = [p for p in patterns if p.startswith("!") or "**" in p or "\\" in p]
    assert not unsupported, f"{path}: {unsupported}: teach tests/test_docs.py's workflow_files this syntax"
    return patterns


def ignored(relative: str, is_dir: bool, patterns: list[str]) -> bool:
    """Whether a .gitignore's `patterns` ignore the path `relative` to its folder."""
    for pattern in patterns:
        if pattern.endswith("/") and not is_dir:
            continue
        pattern = pattern.strip("/")
        anchored = "/" in pattern
        if fnmatch.fnmatchcase(relative if anchored else relative.rsplit("/", 1)[-1], pattern):
            return True
    return False


def workflow_files(root: Path) -> list[str]:
    """The checkout's files as git lists them (tracked and new, not ignored), found by walking
    the folder with every .gitignore in it, so the tests also run in a copy without .git (a
    downloaded archive)."""
    rules: dict[Path, list[str]] = {}  # folder -> its .gitignore's patterns
    out = []
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        rules[here] = ignore_patterns(here)
        governing = [(base, rules[base]) for base in [here, *here.parents] if base in rules and rules[base]]

        def keep(name: str, is_dir: bool) -> bool:
            path = here / name
            return name != ".git" and not any(
                ignored(path.relative_to(base).as_posix(), is_dir, patterns) for base, patterns in governing)

        dirs[:] = sorted(d for d in dirs if keep(d, True))
        out += [(here / f).relative_to(root).as_posix() for f in sorted(files) if keep(f, False)]
    return out


def fresh_workflow_copy(dest: Path) -> Path:
    """The repository's files (workflow_files) copied with their times, so make sees .venv as
    up to date; .venv linked, not copied (a folder of links with the shim, where it is on)."""
    for name in workflow_files(ROOT):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    if snakemake_shim.enabled():
        snakemake_shim.install(dest / ".venv", VENV)
    else:
        (dest / ".venv").symlink_to(VENV)
    return dest


def run_block(block: Block, files: dict[str, str], rules: dict[str, Rule], tmp: Path) -> subprocess.CompletedProcess:
    work = fresh_workflow_copy(tmp / "work")
    for name, text in files.items():
        (work / name).write_text(text)
    home = tmp / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "PATH": f"{VENV / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cpu_file = tmp / "snakemake-cpu"  # the shim's runs' CPU seconds: the zygote, not bash, waits for them
    if snakemake_shim.enabled():
        env.update(snakemake_shim.environment(cpu_file))
    try:
        return subprocess.run(["bash", "-c", script(block.commands, rules)], cwd=work, env=env,
                              capture_output=True, text=True, timeout=BLOCK_TIMEOUT_S)
    finally:
        snakemake_fork.count_cpu(str(cpu_file))


def block_params() -> list:
    params = []
    for block, files in all_blocks():
        rules = [RULES.get(normalized(c.replace("\\\n", " ")), AS_WRITTEN) for c in block.commands]
        slow = any(r.slow for r in rules) or len(block.commands) > 1
        marks = [pytest.mark.slow] if slow else []
        params.append(pytest.param(block, files, id=f"{block.page}:{block.line}", marks=marks))
    return params


@pytest.mark.parametrize(("block", "files"), block_params())
def test_documented_commands_run(block: Block, files: dict[str, str], tmp_path: Path):
    proc = run_block(block, files, RULES, tmp_path)
    assert proc.returncode == 0, f"{block.page}:{block.line}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"


def test_every_rule_is_a_documented_command():
    documented = {normalized(c.replace("\\\n", " ")) for block, _ in all_blocks() for c in block.commands}
    assert sorted(set(RULES) - documented) == [], "rules for commands no page documents any more"


def test_pages_follow_the_convention():
    problems = [p for path in PAGES for p in page_blocks(path)[2]]
    assert problems == []


def test_the_readme_is_a_way_in():
    assert len((ROOT / "README.md").read_text().splitlines()) <= 250


def long_pages(pages: list[Path], root: Path = ROOT) -> list[str]:
    return [f"{p.relative_to(root)}: {n} lines" for p in pages
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_PAGE_LINES]


def test_no_docs_page_is_over_400_lines():
    """A reference page stays one screenful of topics: a longer one is split by topic, and a
    study's log goes to a page of its own under docs/studies/."""
    assert long_pages(PAGES) == []


def test_the_studies_are_pages_of_the_docs():
    assert [p for p in PAGES if p.parent.name == "studies"], "docs/studies/ holds no page"


def test_the_demonstrations_counted_in_the_docs_are_the_bundled_ones():
    """docs/agents.md states how many demonstrations are bundled (and the command that counts
    them): the number is the files', so a demonstration added or removed fails here."""
    stated = re.findall(r"(\d+) bundled demonstrations", (ROOT / "docs" / "agents.md").read_text(encoding="utf-8"))
    bundled = len(list((ROOT / "src" / "swevis" / "data" / "demos").rglob("*.yaml")))
    assert stated == [str(bundled)]


# --- the checks above can fail -------------------------------------------------------------


def test_a_failing_command_fails_its_block(tmp_path: Path):
    block = Block("page.md", 1, ("export X=1", "false", "echo never"))
    proc = run_block(block, {}, {"export X=1": AS_WRITTEN, "false": AS_WRITTEN, "echo never": AS_WRITTEN}, tmp_path)
    assert proc.returncode != 0 and "command 1 exited 1" in proc.stderr and "never" not in proc.stdout


def test_a_failure_left_of_and_fails_its_block(tmp_path: Path):
    block = Block("page.md", 1, ("false && true",))
    proc = run_block(block, {}, {"false && true": AS_WRITTEN}, tmp_path)
    assert proc.returncode != 0


def test_a_long_page_is_found(tmp_path: Path):
    short, long = tmp_path / "short.md", tmp_path / "long.md"
    short.write_text("line\n" * MAX_PAGE_LINES)
    long.write_text("line\n" * (MAX_PAGE_LINES + 1))
    assert long_pages([short, long], tmp_path) == [f"long.md: {MAX_PAGE_LINES + 1} lines"]


def test_a_command_without_a_rule_fails():
    with pytest.raises(AssertionError, match="no rule"):
        script(("rm -rf /tmp/nothing-here",), {})


def test_the_walk_finds_what_git_lists_and_leaves_out_what_it_ignores(tmp_path: Path):
    (tmp_path / ".gitignore").write_text("# comment\n.venv/\n__pycache__/\n*.egg-info/\nresults/\nbenchmarks/out/\nreport.html\n")
    for name in ["Snakefile", "src/pkg/a.py", "src/pkg/__pycache__/a.pyc", "src/pkg.egg-info/PKG-INFO", "results/t.csv",
                 "docs/page.md", "sub/results/x", "benchmarks/out/r.json",
                 "tests/benchmarks/out/kept.json", "report.html", "docs/report.html", ".git/HEAD", ".venv/bin/python",
                 "results.md", ".hypothesis/.gitignore", ".hypothesis/constants/c1", "docs/img/a.png", "docs/img/b.tmp"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    (tmp_path / ".hypothesis" / ".gitignore").write_text("# made by a tool\n*\n")  # a folder's own .gitignore
    (tmp_path / "docs" / "img" / ".gitignore").write_text("*.tmp\n")
    assert sorted(workflow_files(tmp_path)) == [".gitignore", "Snakefile", "docs/img/.gitignore", "docs/img/a.png", "docs/page.md",
                                                "results.md", "src/pkg/a.py", "tests/benchmarks/out/kept.json"]


def test_the_walk_lists_exactly_what_git_lists_in_this_checkout():
    """The same files as `git ls-files --cached --others --exclude-standard` (where there is a
    .git; a downloaded archive has none, and then there is nothing to compare with)."""
    if not (ROOT / ".git").exists():
        pytest.skip("no .git here (a copy of the checkout): git cannot list its files")
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    present = {name for name in listed if name and (ROOT / name).is_file()}  # a deleted, uncommitted file is listed
    assert set(workflow_files(ROOT)) == present


def test_page_parsing():
    text = ("```console\n$ echo a \\\n    b\noutput\n$ true\n```\n\n```bash\nls\n```\n\n```\nmake results\n```\n"
            "```yaml\n# file: s.yaml\nk: 1\n```\n")
    blocks, files, problems = parse_page(text, "probe.md")
    assert [b.commands for b in blocks] == [("echo a \\\n    b", "true")]
    assert files == {"s.yaml": "# file: s.yaml\nk: 1\n"}
    assert len(problems) == 2 and "```bash" in problems[0] and "without ```console" in problems[1]


# --- links and the generated config reference --------------------------------------------

def anchors(path: Path) -> set[str]:
    """GitHub's heading anchors of a page."""
    out = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


def test_relative_links_resolve():
    broken = []
    for page in PAGES:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+://", target):
                continue
            name, _, anchor = target.partition("#")
            dest = (page.parent / name).resolve() if name else page
            if not dest.exists():
                broken.append(f"{page.name}: {target} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert broken == []


def schema_keys(node: dict, path: str = ""):
    """(dotted key, schema node) of every key of the config schema, as docs/config.md lists
    them: `<name>` for a key the user names, `[]` for an item of a list."""
    for name, child in (node.get("properties") or {}).items():
        key = f"{path}.{name}" if path else name
        yield key, child
        yield from schema_keys(child, key)
    extra = node.get("additionalProperties")
    for child in [extra] if isinstance(extra, dict) else []:
        yield from schema_keys(child, f"{path}.<name>")
    for child in (node.get("patternProperties") or {}).values():
        yield from schema_keys(child, f"{path}.<name>")
    if isinstance(node.get("items"), dict):
        yield from schema_keys(node["items"], f"{path}[]")


def undescribed(schema: dict) -> list[str]:
    return [key for key, node in schema_keys(schema) if not str(node.get("description", "")).strip()]


SCHEMA_WORDS = {
    "type", "description", "default", "enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "items", "properties", "additionalProperties", "patternProperties", "propertyNames", "required", "minItems",
    "uniqueItems", "minLength", "minProperties", "pattern", "errorMessage",
}


def schema() -> dict:
    return yaml.safe_load((ROOT / "src" / "swevis" / "data" / "config.schema.yaml").read_text(encoding="utf-8"))


def test_every_config_key_has_a_description_of_its_own():
    """docs/config.md says what each key means from its own description, never its section's."""
    assert undescribed(schema()) == []


def test_no_description_is_cut_short_by_a_comma():
    """In a one-line `{type: ..., description: ...}` a comma ends an unquoted description and
    YAML reads the rest as a key of its own, which the validator ignores: every key of a
    schema node must be a schema word."""
    stray = {key: sorted(set(node) - SCHEMA_WORDS) for key, node in schema_keys(schema()) if set(node) - SCHEMA_WORDS}
    assert stray == {}
    cut = yaml.safe_load("k: {type: number, description: Gap between columns, in characters.}")["k"]
    assert set(cut) - SCHEMA_WORDS == {"in characters."}  # what the check finds


def test_a_key_without_a_description_is_found_at_any_depth():
    leaf = {"type": "number"}
    schema = {"properties": {"a": {"description": "x", "properties": {"b": leaf}},
                             "m": {"description": "x", "additionalProperties": {"properties": {"c": leaf}}},
                             "p": {"description": "x", "patternProperties": {"^k$": {"properties": {"d": leaf}}}},
                             "l": {"description": "x", "items": {"properties": {"e": leaf}}}}}
    assert undescribed(schema) == ["a.b", "m.<name>.c", "p.<name>.d", "l[].e"]


def test_config_reference_is_generated_from_the_schema():
    proc = subprocess.run([str(VENV / "bin" / "python"), str(ROOT / "scripts" / "config_reference.py")],
                          capture_output=True, text=True, check=True)
    assert proc.stdout == (ROOT / "docs" / "config.md").read_text(), (
        "docs/config.md differs from the schema: run .venv/bin/python scripts/config_reference.py > docs/config.md")
