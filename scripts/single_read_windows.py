"""Snakemake adapter: sample the study's code windows (swevis.analysis.single_read_io.sample_study_windows)."""

from swevis.logutil import script_logging
from swevis.analysis.single_read_io import sample_study_windows

with script_logging(snakemake.log[0]) as log:
    n = sample_study_windows(snakemake.input.checkouts, snakemake.params.single_read, snakemake.output.windows)
    log.info("sampled %d windows", n)
