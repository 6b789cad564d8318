# The ablation: every configured variant against its base agent: LET's variants (working
# memory, bug reproduction, patch verification; config agents.variants) against plain LET,
# Prometheus's ablations (each component off alone; agents.prometheus.ablations) against
# Prometheus: results/table_ablation.csv and results/figures/figure_ablation.png.
#
# Each variant runs, like every condition, as one folder under
# results/runs/<model>/<variant>-<scope>/<condition>/ (rules run_agent, evaluate_*,
# summarize_condition), in the models, scopes and conditions of `agents.ablation`. The base
# agent's cells of the same scopes and conditions are the reference (they are also cells of
# the matrix, so nothing runs twice). With no variants configured, this file defines no rule
# and ABLATION_TARGETS is empty, so `rule all` asks for nothing.

from swevis.workflow import ablation_cells, agent_variants, missing_inputs_token

# {variant: {base, entry}}: the table's rows and what each variant changes
ABLATION_VARIANTS = {
    name: {"base": base, "entry": entry}
    for name, (base, entry) in agent_variants(config).items()
}
ABLATION_CELLS = ablation_cells(config)
ABLATION_TARGETS = (
    [LAYOUT.table("table_ablation.csv"), LAYOUT.figure("figure_ablation.png")]
    if ABLATION_VARIANTS
    else []
)


if ABLATION_VARIANTS:

    rule ablation:
        input:
            summaries=[
                LAYOUT.condition_summary(ConditionKey(*cell))
                for cell in ABLATION_CELLS
            ],
        output:
            table=LAYOUT.table("table_ablation.csv"),
            figure=report(
                LAYOUT.figure("figure_ablation.png"),
                caption="../report/figure_ablation.rst",
                category="Figures",
                labels={
                    "item": "Ablations (variants against their base agent)",
                    "file": LAYOUT.figure("figure_ablation.png"),
                },
            ),
        log:
            LAYOUT.log("analysis", "ablation.log"),
        benchmark:
            bench("ablation")
        conda:
            "../envs/swevis.yaml"
        params:
            variants=ABLATION_VARIANTS,
            analysis=analysis_params(),
            conditions=section(config, "agents")["ablation"]["conditions"],
            models=list(config["models"]),
            rebuild=lambda wc: missing_inputs_token(
                LAYOUT.log("analysis", "ablation-rebuild-ledger.json"),
                ABLATION_TARGETS,
                [
                    LAYOUT.condition_summary(ConditionKey(*cell))
                    for cell in ABLATION_CELLS
                ],
                record=not workflow.dryrun,
            ),
        script:
            "../scripts/ablation_table.py"
