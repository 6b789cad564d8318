# Stage 4: grade every trajectory's patch (local runner, or the official harness in Docker
# per condition) and summarize each condition in summary.json.


if config["harness"]["kind"] == "local":

    rule evaluate_local:
        input:
            instances=LAYOUT.instances(),
            mirror=lambda wc: instance_mirror(wc.instance),
            patch=LAYOUT.run_file(
                "{model}",
                "{agent}",
                "{scope}",
                "{condition}",
                "{instance}",
                "patch.diff",
            ),
        output:
            eval=LAYOUT.run_file(
                "{model}",
                "{agent}",
                "{scope}",
                "{condition}",
                "{instance}",
                "eval.json",
            ),
        log:
            LAYOUT.log(
                "harness",
                "{model}",
                "{agent}-{scope}",
                "{condition}",
                "{instance}.log",
            ),
        conda:
            "../envs/swevis.yaml"
        params:
            harness=section(config, "harness"),
        script:
            "../scripts/evaluate_local.py"

else:

    rule evaluate_docker:
        input:
            instances=LAYOUT.instances(),
            patches=lambda wc: [
                LAYOUT.run_file(
                    wc.model, wc.agent, wc.scope, wc.condition, i, "patch.diff"
                )
                for i in sampled_instance_ids()
            ],
        output:
            done=LAYOUT.harness_summary("{model}", "{agent}", "{scope}", "{condition}"),
        log:
            LAYOUT.log("harness", "{model}", "{agent}-{scope}", "{condition}.log"),
        benchmark:
            LAYOUT.log(
                "harness", "{model}", "{agent}-{scope}", "{condition}.benchmark.tsv"
            )
        conda:
            "../envs/swevis.yaml"
        resources:
            docker=1,
        params:
            harness=section(config, "harness"),
        script:
            "../scripts/evaluate_docker.py"


rule summarize_condition:
    input:
        instances=LAYOUT.instances(),
        trajs=lambda wc: [
            LAYOUT.run_file(wc.model, wc.agent, wc.scope, wc.condition, i, "traj.json")
            for i in sampled_instance_ids()
        ],
        evals=condition_evaluations,
    output:
        summary=LAYOUT.condition_summary("{model}", "{agent}", "{scope}", "{condition}"),
    log:
        LAYOUT.log("summaries", "{model}", "{agent}-{scope}", "{condition}.log"),
    conda:
        "../envs/swevis.yaml"
    params:
        analysis=section(config, "analysis"),
        index=section(config, "index"),
        models=list(config["models"]),
    script:
        "../scripts/summarize_condition.py"
