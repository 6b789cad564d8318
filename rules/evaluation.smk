# Stage 4: grade every patch of a condition in one job (the local runner, or the official
# swebench harness in Docker), then summarize the condition in summary.json. One job per
# condition keeps per-job start-up off the critical path; identical patches of an instance
# share one evaluation through the evaluation cache. With the Docker harness the job runs
# where Snakemake runs (cluster pods and most SLURM nodes have no Docker engine).
#
# Before a condition's accuracy counts an instance, its environment is validated once per
# harness (swevis.harness.validate: the gold patch resolves, the empty patch does not);
# the verdicts are cached per instance x harness x environment and shared by every
# condition, and the summaries leave invalid instances out of accuracy, by id.

VALIDATION = os.path.join(
    config["results_dir"], "validation", f"{config['harness']['kind']}.json"
)


if config["harness"]["kind"] == "docker":

    localrules:
        evaluate_condition,
        evaluate_probes,
        validate_environments,


rule validate_environments:
    input:
        instances=LAYOUT.instances(),
        mirrors=lambda wc: list(sample_index().mirrors),
        # the checkouts fetch commits sampled after a mirror was made
        checkouts=LAYOUT.checkouts_done(),
    output:
        validation=VALIDATION,
    log:
        LAYOUT.log("harness", f"validation-{config['harness']['kind']}.log"),
    benchmark:
        bench("validate_environments")
    conda:
        "../envs/swevis.yaml"
    resources:
        docker=1 if config["harness"]["kind"] == "docker" else 0,
    params:
        harness=section(config, "harness"),
    script:
        "../scripts/validate_environments.py"


rule evaluate_condition:
    input:
        instances=LAYOUT.instances(),
        mirrors=lambda wc: list(sample_index().mirrors),
        runs=condition_run_outputs,
    output:
        # the harness's folder: harness_summary.json, its logs and every run's eval.json
        harness=directory(LAYOUT.harness_dir(WILDCARD_CONDITION)),
    log:
        LAYOUT.log("harness", "{model}", "{agent}-{scope}", "{condition}.log"),
    benchmark:
        bench("evaluate_condition", "{model}/{agent}-{scope}-{condition}")
    conda:
        "../envs/swevis.yaml"
    resources:
        docker=1 if config["harness"]["kind"] == "docker" else 0,
    params:
        harness=section(config, "harness"),
        repeats=config["agents"]["repeats"],
    script:
        "../scripts/evaluate_condition.py"


rule summarize_condition:
    input:
        instances=LAYOUT.instances(),
        runs=condition_run_outputs,
        harness=LAYOUT.harness_dir(WILDCARD_CONDITION),
        validation=VALIDATION,
        # the symbol level of the retrieval columns; every run already reads its index
        indexes=lambda wc: sample_index().index_dbs,
    output:
        summary=LAYOUT.condition_summary(WILDCARD_CONDITION),
    log:
        LAYOUT.log("summaries", "{model}", "{agent}-{scope}", "{condition}.log"),
    benchmark:
        bench("summarize_condition", "{model}/{agent}-{scope}-{condition}")
    conda:
        "../envs/swevis.yaml"
    params:
        coverage=section(config, "analysis")["coverage"],
    script:
        "../scripts/summarize_condition.py"


# The probe runs of a condition (agents.matrix probe_sets), graded like its study runs by the
# same script, as a condition folder of their own (<condition>/probes/harness/): no summary
# and no study table reads them; results/table_probes.csv does.
rule evaluate_probes:
    input:
        instances=LAYOUT.instances(),
        mirrors=lambda wc: list(sample_index().mirrors),
        patches=lambda wc: probe_runs(wc, "patch.diff"),
    output:
        harness=directory(LAYOUT.probe_harness_dir(WILDCARD_CONDITION)),
    log:
        LAYOUT.log("harness", "{model}", "{agent}-{scope}", "{condition}.probes.log"),
    benchmark:
        bench("evaluate_probes", "{model}/{agent}-{scope}-{condition}")
    conda:
        "../envs/swevis.yaml"
    resources:
        docker=1 if config["harness"]["kind"] == "docker" else 0,
    params:
        harness=section(config, "harness"),
        repeats=1,
        probe_sets=condition_probe_sets,
    script:
        "../scripts/evaluate_condition.py"
