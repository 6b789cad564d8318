"""Imported by the Snakemake forkserver only (tests/snakemake_fork.py preloads it): the work
every Snakemake run of the tests repeated after importing snakemake.cli, done once instead.

Why: a forked dry run of the rerun study took 0.85 CPU s, of which Snakemake's five plugin
registries (each scans every folder of sys.path for plugin packages on first use, then
imports the plugins) and modules imported lazily while the workflow runs (smart_open with
boto3, the report, docutils and jinja2, rich, yte, and the swevis modules the Snakefile's input
functions import inside) took about two thirds (0.58 of 0.85 s). A forked copy starts with them loaded; what it
runs is unchanged. Importing runs nothing of the study (no config is read)."""

import importlib

import snakemake.cli  # noqa: F401  first: the registries' modules import each other through it
from snakemake_interface_executor_plugins.registry import ExecutorPluginRegistry
from snakemake_interface_logger_plugins.registry import LoggerPluginRegistry
from snakemake_interface_report_plugins.registry import ReportPluginRegistry
from snakemake_interface_scheduler_plugins.registry import SchedulerPluginRegistry
from snakemake_interface_storage_plugins.registry import StoragePluginRegistry

# the modules a dry run of tests/fixtures/rerun_table.yaml's study and a run of a small one
# imported after snakemake.cli (the leaves: each imports its parents). Not polars: its thread
# pool must not be forked.
LAZY = [
    "argparse_dataclass", "graphlib", "packaging.version", "nbformat", "snakemake.benchmark", "swevis.data",
    "smart_open", "smart_open.s3", "snakemake.report.html_reporter", "snakemake.profiles", "snakemake.storage",
    "docutils.core", "jinja2", "rich.console", "rich.logging", "yte", "dpath", "PIL.ImageDraw", "PIL.ImageFont",
    "swevis.agents.run.demos", "swevis.agents.builtin.let", "swevis.agents.builtin.mini", "swevis.agents.builtin.plb", "swevis.agents.builtin.prometheus",
    "swevis.agents.run.model_adapter", "swevis.agents.settings", "swevis.localize", "swevis.localize.rerank",
    "swevis.localize.retrieval", "swevis.render", "swevis.render.raster", "swevis.render.tesseract",
    "swevis.tasks.bundled", "swevis.tasks.sampling", "swevis.tasks.schema",
]

for registry in (ExecutorPluginRegistry, LoggerPluginRegistry, ReportPluginRegistry, SchedulerPluginRegistry,
                 StoragePluginRegistry):
    registry()  # a singleton: collects the installed plugins once
for name in LAZY:
    importlib.import_module(name)
