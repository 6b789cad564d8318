"""Snakemake adapter: the readability frontier of one backbone (swevis.analysis.single_read_io.study_frontier_part).

The OCR cache folder comes from the config, not from params: it changes no result."""

from swevis.logutil import script_logging
from swevis.analysis.single_read_io import study_frontier_part

with script_logging(snakemake.log[0]) as log:
    rows = study_frontier_part(
        dict(snakemake.params.single_read, ocr=snakemake.params.ocr),
        snakemake.wildcards.sr_backbone,
        snakemake.params.backbone,
        snakemake.output.part,
        cache_dir=snakemake.config["single_read"]["ocr"]["cache_dir"],
        readers=list(snakemake.params.readers),
    )
    log.info("%d frontier rows", len(rows))
