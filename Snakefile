# swevis workflow: the study of rendered code as agent context, end to end.
# Rules only wire files to package functions (src/swevis); see docs/DESIGN.md and README.md.

import os

from snakemake.exceptions import WorkflowError
from snakemake.utils import min_version

from swevis.config import SCHEMA_PATH
from swevis.errors import SwevisError
from swevis.paths import WILDCARD_CONSTRAINTS
from swevis.workflow import check_config

min_version("9.0")

# One BLAS thread a job (the jobs inherit this environment): each job is one core's worth,
# and OpenBLAS's own threads spin while the other jobs hold the cores: the working memory's
# MiniLM embeddings took several times the CPU seconds on 2 busy cores, for the same vectors
# bit for bit (docs/measurements.md). A value set outside is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


# The embedded default is the study only when no --configfile is given: a user's file
# defines the whole study (models, matrix, ablation); nothing of config.yaml merges into it.
# --config overrides apply on top either way.
if not workflow.overwrite_configfiles:

    configfile: "config.yaml"


# the schema (defaults filled in) and the cross-references it cannot express; a user error
# is one line naming the key
try:
    check_config(config, SCHEMA_PATH)
except SwevisError as exc:
    raise WorkflowError(str(exc)) from None


include: "rules/common.smk"


wildcard_constraints:
    **WILDCARD_CONSTRAINTS,


include: "rules/tasks.smk"
include: "rules/index.smk"
include: "rules/single_read.smk"
include: "rules/agents.smk"
include: "rules/evaluation.smk"
include: "rules/analysis.smk"
include: "rules/ablation.smk"
include: "rules/counterfactual.smk"
include: "rules/report.smk"
include: "rules/devset.smk"


# the landing page of `snakemake --report` (make report)
report: "report/workflow.rst"


rule all:
    default_target: True
    input:
        LAYOUT.instances(),
        LAYOUT.checkouts_done(),
        LAYOUT.table("localization.csv"),
        LAYOUT.table("table_retrieval.csv"),
        LAYOUT.table("table4.csv"),
        LAYOUT.figure("figure3.png"),
        LAYOUT.single_read("frontier.csv"),
        [LAYOUT.table(f"{n}.csv") for n in TABLE_NAMES],
        PROBE_TARGETS,
        [LAYOUT.figure(n) for n in FIGURE_NAMES],
        ABLATION_TARGETS,
        COUNTERFACTUAL_TARGETS,
        REPORT_TARGETS,
