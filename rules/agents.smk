# Stage 3: PLB's offline pre-localization and the agents' trajectories, one folder per
# (model, agent-scope, condition, instance). These rules pay for model calls: each holds one
# unit of the `llm` resource, and their params are narrow (the model's profile, the agents
# section without its matrix, the renderer and index settings, the digest of the instance's
# row), so unrelated config edits never re-run them, and a grown sample re-runs the new
# instances' only (README "Reruns and paid work" names the exceptions).


rule prelocalize:
    input:
        instances=ancient(LAYOUT.instances()),
        checkout=LAYOUT.checkout_manifest("{instance}"),
        index=run_index,
        demos=preloc_demos,
    output:
        preloc=LAYOUT.preloc("{model}", "{instance}"),
    log:
        LAYOUT.log("preloc", "{model}", "{instance}.log"),
    benchmark:
        bench("prelocalize", "{model}/{instance}")
    conda:
        "../envs/swevis.yaml"
    resources:
        llm=1,
    params:
        profile=model_profile,
        # the agents keys pre-localization reads: the agents' limits rerun no paid call here
        agents=keys_of("agents", "top_k", "cache_dir", "demos_dir"),
        localize=section(config, "localize"),
        instance=instance_digest,
    script:
        "../scripts/prelocalize.py"


rule run_agent:
    input:
        instances=ancient(LAYOUT.instances()),
        # the checkout manifest names the mirror it was made from: no edge of its own to
        # the mirror manifest (one fewer per run job in a study's DAG of thousands)
        checkout=LAYOUT.checkout_manifest("{instance}"),
        index=run_index,
        preloc=run_preloc,
        demos=playback_demos,
    output:
        traj=LAYOUT.run_file(WILDCARD_RUN, "traj.json"),
        patch=LAYOUT.run_file(WILDCARD_RUN, "patch.diff"),
    log:
        LAYOUT.log(
            "runs", "{model}", "{agent}-{scope}", "{condition}", "{instance}.log"
        ),
    benchmark:
        bench("run_agent", "{model}/{agent}-{scope}-{condition}/{instance}")
    conda:
        "../envs/swevis.yaml"
    resources:
        llm=1,
    params:
        profile=model_profile,
        agents=agents_params,
        harness=agent_image_params,
        localize=section(config, "localize"),
        render=render_params,
        instance=instance_digest,
    script:
        "../scripts/run_agent.py"


# Every run of a cell (instances x repeats) in one job: the default path of a study's runs
# (swevis.agents.run.batch says why). Each run keeps its folder, journal and outputs; runs.json
# lists them. A run already made with the same settings and inputs is not run again, and
# the `missing` param reruns the job when a run's folder was deleted behind runs.json.
rule run_condition:
    input:
        instances=ancient(LAYOUT.instances()),
        runs=cell_run_inputs,
    output:
        runs=LAYOUT.cell_runs(WILDCARD_CONDITION),
    log:
        LAYOUT.log("runs", "{model}", "{agent}-{scope}", "{condition}.log"),
    benchmark:
        bench("run_condition", "{model}/{agent}-{scope}-{condition}")
    conda:
        "../envs/swevis.yaml"
    resources:
        llm=1,
    params:
        profile=model_profile,
        agents=agents_params,
        harness=agent_image_params,
        localize=section(config, "localize"),
        render=render_params,
        runs=cell_runs,
        missing=cell_missing_runs,
    script:
        "../scripts/run_condition.py"


# Repeats k > 0 of a run (agents.repeats): the same job in <instance>/repeat-k/, with its own
# response-cache folder so a live model is asked again.
use rule run_agent as run_agent_repeat with:
    output:
        traj=LAYOUT.run_file(WILDCARD_REPEAT, "traj.json"),
        patch=LAYOUT.run_file(WILDCARD_REPEAT, "patch.diff"),
    log:
        LAYOUT.log(
            "runs",
            "{model}",
            "{agent}-{scope}",
            "{condition}",
            "{instance}.repeat-{rep}.log",
        ),
    benchmark:
        bench(
            "run_agent_repeat", "{model}/{agent}-{scope}-{condition}/{instance}-{rep}"
        )


# A probe set's run (agents.matrix probe_sets): the same job, in <condition>/probes/<instance>/,
# apart from the study's runs (swevis.paths.ResultsLayout.probe_dir).
use rule run_agent as run_probe with:
    output:
        traj=LAYOUT.probe_run_file(WILDCARD_RUN, "traj.json"),
        patch=LAYOUT.probe_run_file(WILDCARD_RUN, "patch.diff"),
    log:
        LAYOUT.log(
            "runs",
            "{model}",
            "{agent}-{scope}",
            "{condition}",
            "probes",
            "{instance}.log",
        ),
    benchmark:
        bench("run_probe", "{model}/{agent}-{scope}-{condition}/{instance}")
