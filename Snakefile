# swevis workflow: the study of rendered code as agent context, end to end.
# Rules only wire files to package functions (src/swevis); see docs/DESIGN.md and README.md.

from snakemake.utils import min_version, validate

from swevis.paths import WILDCARD_CONSTRAINTS

min_version("9.0")


configfile: "config.yaml"


validate(config, "schemas/config.schema.yaml")


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


rule all:
    default_target: True
    input:
        LAYOUT.instances(),
        LAYOUT.checkouts_done(),
        LAYOUT.table("localization.csv"),
        LAYOUT.table("table4.csv"),
        LAYOUT.figure("figure3.png"),
        LAYOUT.single_read("frontier.csv"),
        [LAYOUT.table(f"{n}.csv") for n in TABLE_NAMES],
        [LAYOUT.figure(n) for n in FIGURE_NAMES],
        ABLATION_TARGETS,
