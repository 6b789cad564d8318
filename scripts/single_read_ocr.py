"""Snakemake adapter: draw and OCR one backbone's seeded Table 4 pages (swevis.analysis.single_read_io.study_ocr).

The OCR cache folder comes from the config, not from params: it changes no result."""

from swevis.logutil import script_logging
from swevis.analysis.single_read_io import study_ocr

with script_logging(snakemake.log[0]) as log:
    stats = study_ocr(
        snakemake.input.windows,
        dict(snakemake.params.single_read, ocr=snakemake.params.ocr),
        snakemake.wildcards.sr_backbone,
        snakemake.params.backbone,
        snakemake.output.ocr,
        cache_dir=snakemake.config["single_read"]["ocr"]["cache_dir"],
    )
    log.info("%s", stats)
