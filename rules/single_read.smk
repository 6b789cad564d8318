# Stage: the single-read rendering cost study (Table 4, Figure 3) and the readability
# frontier. Windows come from the sampled instances' checkouts plus the installed matplotlib
# source; every rule only wires files to swevis.analysis.single_read_io.
# Only what a table reports is drawn: the layouts of every render are computed undrawn (token
# counts depend on a page's size alone), and the seeded OCR pages are drawn and read in one
# job per backbone, beside the layouts; single_read_costs and single_read_frontier gather.
# The OCR cache (single_read.ocr.cache_dir) is read from the config in the scripts: it
# changes no result, so it is not a param.

import re

from swevis.workflow import ocr_readers, study_backbones, tesseract_reading

SR_BACKBONES = study_backbones(config)
# The study's OCR jobs are the workflow's longest single processes: started first (Snakemake
# runs the ready job of highest priority), the many short run and evaluation jobs fill the
# other cores around them instead of leaving them as the tail of the run.
SR_PRIORITY = 10
SR_OCR = section(config, "single_read")["ocr"]
# the OCR keys each part reads: the frontier's settings rerun no Table 4 OCR, and back
SR_OCR_COSTS = {
    k: SR_OCR[k] for k in ("enabled", "full", "pages_per_cell", "sample_max_lines")
}
SR_OCR_FRONTIER = {
    k: SR_OCR[k]
    for k in (
        "full",
        "frontier_fonts",
        "frontier_lines",
        "frontier_packages",
        "frontier_windows",
        "frontier_pages",
        "sample_frontier_pages",
        "sample_frontier_fonts",
    )
}


wildcard_constraints:
    sr_backbone="|".join(re.escape(b) for b in SR_BACKBONES),


rule single_read_windows:
    input:
        checkouts=LAYOUT.checkouts_done(),
    output:
        windows=LAYOUT.single_read("windows.parquet"),
    log:
        LAYOUT.log("single_read", "windows.log"),
    benchmark:
        bench("single_read_windows")
    priority: SR_PRIORITY
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


rule single_read_layouts:
    input:
        windows=LAYOUT.single_read("windows.parquet"),
    output:
        layouts=LAYOUT.single_read("layouts.parquet"),
        stats=LAYOUT.single_read("layouts.stats.json"),
    log:
        LAYOUT.log("single_read", "layouts.log"),
    benchmark:
        bench("single_read_layouts")
    priority: SR_PRIORITY
    conda:
        "../envs/swevis.yaml"
    params:
        single_read=keys_of("single_read", "ratios", "render", "rasterize_all"),
        backbones=SR_BACKBONES,
    script:
        "../scripts/single_read_layouts.py"


rule single_read_ocr:
    input:
        windows=LAYOUT.single_read("windows.parquet"),
    output:
        ocr=LAYOUT.single_read("ocr/{sr_backbone}.parquet"),
    log:
        LAYOUT.log("single_read", "ocr-{sr_backbone}.log"),
    benchmark:
        bench("single_read_ocr", "{sr_backbone}")
    priority: SR_PRIORITY
    conda:
        "../envs/swevis.yaml"
    params:
        single_read=keys_of("single_read", "ratios", "seed", "render"),
        ocr=SR_OCR_COSTS,
        backbone=lambda wc: SR_BACKBONES[wc.sr_backbone],
    script:
        "../scripts/single_read_ocr.py"


rule single_read_costs:
    input:
        layouts=LAYOUT.single_read("layouts.parquet"),
        layout_stats=LAYOUT.single_read("layouts.stats.json"),
        ocr=expand(LAYOUT.single_read("ocr/{b}.parquet"), b=list(SR_BACKBONES)),
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
        single_read=keys_of("single_read", "ratios", "seed", "render", "rasterize_all"),
        ocr=SR_OCR_COSTS,
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
        figure=report(
            LAYOUT.figure("figure3.png"),
            caption="../report/figure3.rst",
            category="Figures",
            labels={"item": "Figure 3", "file": LAYOUT.figure("figure3.png")},
        ),
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


rule single_read_frontier_part:
    output:
        part=LAYOUT.single_read("frontier/{sr_backbone}.parquet"),
    log:
        LAYOUT.log("single_read", "frontier-{sr_backbone}.log"),
    benchmark:
        bench("single_read_frontier_part", "{sr_backbone}")
    priority: SR_PRIORITY
    conda:
        "../envs/swevis.yaml"
    params:
        single_read=keys_of("single_read", "seed", "render"),
        ocr=SR_OCR_FRONTIER,
        backbone=lambda wc: SR_BACKBONES[wc.sr_backbone],
        # the OCR readers installed here (rapidocr; Tesseract where installed): installing
        # Tesseract reruns the frontier, which then reads every page with both
        readers=ocr_readers(),
        # how Tesseract reads a page (swevis.render.tesseract.READ): a new setting rereads it
        tesseract=tesseract_reading(),
    script:
        "../scripts/single_read_frontier_part.py"


rule single_read_frontier:
    input:
        parts=expand(LAYOUT.single_read("frontier/{b}.parquet"), b=list(SR_BACKBONES)),
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
        single_read=keys_of("single_read", "seed", "render"),
        ocr=dict(SR_OCR_FRONTIER, guard_threshold=SR_OCR["guard_threshold"]),
        backbones=SR_BACKBONES,
    script:
        "../scripts/single_read_frontier.py"
