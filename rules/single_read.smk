# Stage: the single-read rendering cost study (Table 4, Figure 3) and the readability
# frontier. Windows come from the sampled instances' checkouts plus the installed matplotlib
# source; every rule only wires files to swevis.analysis.single_read.


from swevis.workflow import study_backbones

SR_BACKBONES = study_backbones(config)


rule single_read_windows:
    input:
        checkouts=LAYOUT.checkouts_done(),
    output:
        windows=LAYOUT.single_read("windows.parquet"),
    log:
        LAYOUT.log("single_read", "windows.log"),
    benchmark:
        bench("single_read_windows")
    conda:
        "../envs/swevis.yaml"
    params:
        single_read=keys_of(
            "single_read",
            "window_lines",
            "windows_per_size",
            "seed",
            "include_matplotlib",
            "extra_source_roots",
        ),
    script:
        "../scripts/single_read_windows.py"


rule single_read_costs:
    input:
        windows=LAYOUT.single_read("windows.parquet"),
    output:
        costs=LAYOUT.single_read("costs.parquet"),
        stats=LAYOUT.single_read("costs.stats.json"),
    log:
        LAYOUT.log("single_read", "costs.log"),
    benchmark:
        bench("single_read_costs")
    conda:
        "../envs/swevis.yaml"
    params:
        single_read=keys_of(
            "single_read", "ratios", "seed", "render", "ocr", "rasterize_all"
        ),
        backbones=SR_BACKBONES,
    script:
        "../scripts/single_read_costs.py"


rule single_read_tables:
    input:
        costs=LAYOUT.single_read("costs.parquet"),
    output:
        table4=LAYOUT.table("table4.csv"),
        per_backbone=expand(
            LAYOUT.single_read("table4_{backbone}.csv"), backbone=list(SR_BACKBONES)
        ),
        ocr=expand(
            LAYOUT.single_read("table4_ocr_{backbone}.csv"),
            backbone=list(SR_BACKBONES),
        ),
        figure=LAYOUT.figure("figure3.png"),
    log:
        LAYOUT.log("single_read", "tables.log"),
    benchmark:
        bench("single_read_tables")
    conda:
        "../envs/swevis.yaml"
    params:
        ratios=config["single_read"]["ratios"],
        backbones=list(SR_BACKBONES),
    script:
        "../scripts/single_read_tables.py"


rule single_read_frontier:
    output:
        frontier=LAYOUT.single_read("frontier.csv"),
        summary=LAYOUT.single_read("frontier_summary.json"),
    log:
        LAYOUT.log("single_read", "frontier.log"),
    benchmark:
        bench("single_read_frontier")
    conda:
        "../envs/swevis.yaml"
    params:
        single_read=keys_of("single_read", "seed", "render", "ocr"),
        backbones=SR_BACKBONES,
    script:
        "../scripts/single_read_frontier.py"
