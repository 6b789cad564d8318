# The counterfactual replay as a study: every set of config `counterfactual.sets` (recorded
# trajectories of public formats) replayed from its recorded observations under each
# condition and backbone (swevis.analysis.counterfactual; mem and mem+rN put the agents'
# working memory in front of text and rN), into
# results/counterfactual/<set>/: per_step.parquet, table.csv (reductions with bootstrap CIs
# over trajectories), decomposition.csv (the gap to the ceiling) and figure.png.

from pathlib import Path

from swevis.counterfactual.formats import trajectory_files
from swevis.workflow import backbone_profiles, set_folders

try:
    COUNTERFACTUAL_SETS = set_folders(config)
    COUNTERFACTUAL_BACKBONES = backbone_profiles(config)
    COUNTERFACTUAL_FILES = {
        name: [str(f) for f in trajectory_files(folder, Path(folder) / ".no-output")]
        for name, folder in COUNTERFACTUAL_SETS.items()
    }
except SwevisError as exc:
    raise WorkflowError(str(exc)) from None


COUNTERFACTUAL_TARGETS = [
    LAYOUT.counterfactual(cfset, name)
    for cfset in COUNTERFACTUAL_SETS
    for name in ("per_step.parquet", "table.csv", "decomposition.csv", "figure.png")
]


rule counterfactual_replay:
    input:
        trajectories=lambda wc: COUNTERFACTUAL_FILES[wc.cfset],
    output:
        steps=LAYOUT.counterfactual("{cfset}", "per_step.parquet"),
    log:
        LAYOUT.log("counterfactual", "{cfset}-replay.log"),
    benchmark:
        bench("counterfactual_replay", "{cfset}")
    wildcard_constraints:
        cfset="|".join(COUNTERFACTUAL_SETS),
    conda:
        "../envs/swevis.yaml"
    params:
        folder=lambda wc: COUNTERFACTUAL_SETS[wc.cfset],
        conditions=config["counterfactual"]["conditions"],
        backbones=COUNTERFACTUAL_BACKBONES,
        prompt_cache=config["counterfactual"]["prompt_cache"],
        agents=counterfactual_agents_params(),
        render=section(config["single_read"], "render"),
    script:
        "../scripts/counterfactual_replay.py"


rule counterfactual_table:
    input:
        steps=LAYOUT.counterfactual("{cfset}", "per_step.parquet"),
    output:
        table=LAYOUT.counterfactual("{cfset}", "table.csv"),
        decomposition=LAYOUT.counterfactual("{cfset}", "decomposition.csv"),
        figure=report(
            LAYOUT.counterfactual("{cfset}", "figure.png"),
            caption="../report/counterfactual_figure.rst",
            category="Counterfactual replay",
            subcategory="{cfset}",
            labels={
                "item": "Figure",
                "file": LAYOUT.counterfactual("{cfset}", "figure.png"),
            },
        ),
    log:
        LAYOUT.log("counterfactual", "{cfset}-table.log"),
    benchmark:
        bench("counterfactual_table", "{cfset}")
    wildcard_constraints:
        cfset="|".join(COUNTERFACTUAL_SETS),
    conda:
        "../envs/swevis.yaml"
    params:
        bootstrap=section(config["counterfactual"], "bootstrap"),
        dpi=config["analysis"]["figure_dpi"],
    script:
        "../scripts/counterfactual_table.py"
