# Stage 1: sample task instances, mirror their repositories, check out base commits.


checkpoint sample_instances:
    input:
        # a local task file is an input: editing it resamples (and reruns what changed)
        # (local(): never in a remote default storage, like profiles/kubernetes')
        task_file=(
            [local(config["tasks"]["path"])]
            if config["tasks"]["source"] == "file" and config["tasks"]["path"]
            else []
        ),
    output:
        instances=LAYOUT.instances(),
        summary=LAYOUT.table("instances.summary.json"),
    log:
        LAYOUT.log("tasks", "sample_instances.log"),
    benchmark:
        bench("sample_instances")
    conda:
        "../envs/swevis.yaml"
    params:
        # only what the sample is made of: mirror and checkout settings rerun nothing here
        tasks=keys_of(
            "tasks",
            "source",
            "dataset",
            "split",
            "path",
            "n",
            "seed",
            "instance_ids",
            "languages",
            "bundled_set",
        ),
        # the bundled probe sets the matrix names: their rows follow the study's, tagged
        probe_sets=matrix_probe_sets(config),
    script:
        "../scripts/sample_instances.py"


# The bundled sets the study localizes beside its sample and runs nothing on
# (tasks.localized_sets): a checkpoint of its own, so adding a set reruns the localization
# table and the new repositories' mirrors, checkouts and indexes, not the sampling and
# nothing that reads instances.jsonl.
# (The mirror and checkout jobs read the file by its place in the layout, not as an input:
# a new input would rerun every existing mirror, checkout and run.)
checkpoint localized_instances:
    output:
        instances=LAYOUT.localized_instances(),
    log:
        LAYOUT.log("tasks", "localized_instances.log"),
    benchmark:
        bench("localized_instances")
    conda:
        "../envs/swevis.yaml"
    params:
        # bundled_set: the set a bundled study samples from is not localized twice
        tasks=keys_of("tasks", "source", "bundled_set", "localized_sets"),
    script:
        "../scripts/localized_instances.py"


rule mirror_repo:
    input:
        instances=ancient(LAYOUT.instances()),
    output:
        manifest=LAYOUT.mirror_manifest("{repo_slug}"),
    log:
        LAYOUT.log("tasks", "mirror_{repo_slug}.log"),
    benchmark:
        bench("mirror_repo", "{repo_slug}")
    retries: 1
    conda:
        "../envs/swevis.yaml"
    params:
        # the clone and stall timeouts are read from the config in the script: how long a
        # transfer may take changes no mirror, so it reruns nothing. Nor do the sampled
        # commits: one sampled later is fetched by the checkout that needs it.
        tasks=keys_of("tasks", "repo_cache", "remote_url"),
    script:
        "../scripts/mirror_repo.py"


rule checkout_instance:
    input:
        instances=ancient(LAYOUT.instances()),
        mirror=run_mirror,
    output:
        manifest=LAYOUT.checkout_manifest("{instance}"),
    log:
        LAYOUT.log("tasks", "checkout_{instance}.log"),
    benchmark:
        bench("checkout_instance", "{instance}")
    conda:
        "../envs/swevis.yaml"
    params:
        checkout_root=config["tasks"]["checkout_root"],
        base=instance_base,
    script:
        "../scripts/checkout_instance.py"


rule all_checkouts:
    input:
        lambda wc: [LAYOUT.checkout_manifest(i) for i in sampled_instance_ids()],
    output:
        done=LAYOUT.checkouts_done(),
    log:
        LAYOUT.log("tasks", "all_checkouts.log"),
    benchmark:
        bench("all_checkouts")
    conda:
        "../envs/swevis.yaml"
    script:
        "../scripts/collect_checkouts.py"
