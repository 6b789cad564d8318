# Stage 5: Tables 1-3, statistics and Figures 2, 4, 5, 6 from the condition summaries.
#
# Rerunning one condition by deleting its folder: Snakemake treats the summaries as
# intermediates and leaves a deleted one alone while the tables exist ("Nothing to be
# done"). The `rebuild` param (swevis.workflow.missing_inputs_token) changes exactly when
# expected summaries went missing behind existing outputs, so the tables rerun and pull in
# exactly the missing conditions; the next run sees the same token and does nothing. The
# token's ledger is written while the DAG of a real run is built; a dry run only reads it.

TABLE_NAMES = (
    ["table1", "table1_long"]
    + (["table2", "table2_long"] if len(table_models(config)) > 1 else [])
    + ["table3", "stats_mcnemar", "calibration"]
)
RETIRED_TABLES = [n for n in ("table2", "table2_long") if n not in TABLE_NAMES]
# each agent's action-class figure (the registry's), and Figure 6 (coverage vs resolution)
FIGURE_NAMES = [*action_figures(), "figure6.png"]


rule tables:
    input:
        summaries=condition_summaries(),
    output:
        **{n: LAYOUT.table(f"{n}.csv") for n in TABLE_NAMES},
    log:
        LAYOUT.log("analysis", "tables.log"),
    benchmark:
        bench("tables")
    conda:
        "../envs/swevis.yaml"
    params:
        analysis=analysis_params(),
        matrix=section(config, "agents")["matrix"],
        models=list(config["models"]),
        rebuild=rebuild_token,
        # a Table 2 of an earlier config with a second model: removed, never left as current
        retired=[LAYOUT.table(f"{n}.csv") for n in RETIRED_TABLES],
    script:
        "../scripts/build_tables.py"


rule figures:
    input:
        summaries=condition_summaries(),
    output:
        **{
            n.removesuffix(".png"): report(
                LAYOUT.figure(n),
                caption=f"../report/{n.removesuffix('.png')}.rst",
                category="Figures",
                labels={"item": f"Figure {n[6]}", "file": LAYOUT.figure(n)},
            )
            for n in FIGURE_NAMES
        },
    log:
        LAYOUT.log("analysis", "figures.log"),
    benchmark:
        bench("figures")
    conda:
        "../envs/swevis.yaml"
    params:
        analysis=analysis_params(),
        matrix=section(config, "agents")["matrix"],
        models=list(config["models"]),
        rebuild=rebuild_token,
    script:
        "../scripts/build_figures.py"


# The retrieved context's precision and recall against the gold patch (files, symbols,
# lines): the conditions of agents that record one (LET's locator, Prometheus's retrieval
# stage), from their summaries, and D_loc at each cut-off of localization.csv. Every
# summary is an input (a condition of another agent contributes no row); like the tables,
# it reruns when summaries went missing behind it (its own ledger).


rule table_retrieval:
    input:
        summaries=condition_summaries(),
        localization=LAYOUT.table("localization_instances.csv"),
    output:
        table=LAYOUT.table("table_retrieval.csv"),
    log:
        LAYOUT.log("analysis", "table_retrieval.log"),
    benchmark:
        bench("table_retrieval")
    conda:
        "../envs/swevis.yaml"
    params:
        bootstrap=section(config, "analysis")["bootstrap"],
        rebuild=lambda wc: missing_inputs_token(
            LAYOUT.log("analysis", "retrieval-rebuild-ledger.json"),
            [LAYOUT.table("table_retrieval.csv")],
            condition_summaries(),
            record=not workflow.dryrun,
        ),
    script:
        "../scripts/retrieval_table.py"


# The probe sets' runs (agents.matrix probe_sets), one row a model, agent, condition and probe
# instance: the issue's class, the class the agent routed it as, the route, the candidates, the
# vote, whether it answered (a question), its patch's lines, and whether the patch resolved it. Only when an entry names a probe set.
PROBE_TARGETS = [LAYOUT.table("table_probes.csv")] if PROBE_CELLS else []


rule table_probes:
    input:
        instances=LAYOUT.instances(),
        validation=VALIDATION,
        trajs=lambda wc: [
            f for key in PROBE_CELLS for f in probe_runs(key, "traj.json")
        ],
        patches=lambda wc: [
            f for key in PROBE_CELLS for f in probe_runs(key, "patch.diff")
        ],
        harness=[LAYOUT.probe_harness_dir(key) for key in PROBE_CELLS],
    output:
        table=LAYOUT.table("table_probes.csv"),
    log:
        LAYOUT.log("analysis", "table_probes.log"),
    benchmark:
        bench("table_probes")
    conda:
        "../envs/swevis.yaml"
    params:
        cells=[[*key, condition_probe_sets(key)] for key in PROBE_CELLS],
    script:
        "../scripts/probes_table.py"
