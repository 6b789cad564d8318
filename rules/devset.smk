# The localization development set (swevis.localize.devset, docs/localization.md): the
# re-ranker's shipped weights as a workflow target. `rule all` never asks for them; build them
# by name, `snakemake --cores 2 devset_weights`. That clones the repositories the case lists
# name (devset.mirrors, from devset.remote), rebuilds every case outside the repository
# (devset.work), measures D_loc along history, stores the cases' past commits and fits
# devset.fit's variant on them and on the other languages' mined fixes (`devset fit
# --polyglot`), writing the weights with their provenance to devset.weights. Every step
# resumes from what devset.work holds (hours of CPU for the 2,114 cases); its output is a
# manifest written last, never the folders it fills (Snakemake would delete those first).

from swevis.workflow import devset_params, devset_small_files

DEVSET = config["devset"]
DEVSET_LISTS = [
    local(f"{DEVSET['lists']}/{name}")
    for name in ("mined.csv", "issues.csv", "mined_polyglot.csv")
]
DEVSET_SMALL = [local(path) for path in devset_small_files(config)]


rule devset_fetch:
    input:
        lists=DEVSET_LISTS,
    output:
        manifest=local(f"{DEVSET['work']}/mirrors.json"),
    log:
        LAYOUT.log("devset", "fetch.log"),
    benchmark:
        bench("devset_fetch")
    conda:
        "../envs/swevis.yaml"
    params:
        devset=devset_params(config, "remote"),
    script:
        "../scripts/devset_fetch.py"


rule devset_prepare:
    input:
        lists=DEVSET_LISTS,
        mirrors=local(f"{DEVSET['work']}/mirrors.json"),
    output:
        manifest=local(f"{DEVSET['work']}/prepared.json"),
    log:
        LAYOUT.log("devset", "prepare.log"),
    benchmark:
        bench("devset_prepare")
    conda:
        "../envs/swevis.yaml"
    params:
        devset=devset_params(config),
    script:
        "../scripts/devset_prepare.py"


rule devset_measure:
    input:
        lists=DEVSET_LISTS,
        prepared=local(f"{DEVSET['work']}/prepared.json"),
    output:
        manifest=local(f"{DEVSET['work']}/measured.json"),
    log:
        LAYOUT.log("devset", "measure.log"),
    benchmark:
        bench("devset_measure")
    conda:
        "../envs/swevis.yaml"
    params:
        devset=devset_params(config),
    script:
        "../scripts/devset_measure.py"


rule devset_history:
    input:
        lists=DEVSET_LISTS,
        mirrors=local(f"{DEVSET['work']}/mirrors.json"),
    output:
        manifest=local(f"{DEVSET['work']}/history.json"),
    log:
        LAYOUT.log("devset", "history.log"),
    benchmark:
        bench("devset_history")
    conda:
        "../envs/swevis.yaml"
    params:
        devset=devset_params(config, "history_depth"),
    script:
        "../scripts/devset_history.py"


rule devset_weights:
    input:
        lists=DEVSET_LISTS,
        measured=local(f"{DEVSET['work']}/measured.json"),
        history=local(f"{DEVSET['work']}/history.json"),
        small=DEVSET_SMALL,
    output:
        weights=local(DEVSET["weights"]),
    log:
        LAYOUT.log("devset", "weights.log"),
    benchmark:
        bench("devset_weights")
    conda:
        "../envs/swevis.yaml"
    params:
        devset=devset_params(config, "fit", "weights"),
    script:
        "../scripts/devset_weights.py"
