"""Snakemake adapter: the HTML views of the results tables and of the environment validation
that Snakemake's report shows (swevis.analysis.report_views)."""

from swevis.analysis.report_views import table_view, validation_view
from swevis.logutil import exit_without_teardown, script_logging

with script_logging(snakemake.log[0]) as log:  # noqa: F821
    titles = snakemake.params.titles  # noqa: F821
    for name, out in snakemake.output.items():  # noqa: F821
        source = snakemake.input[name]  # noqa: F821
        view = validation_view if name == "validation" else table_view
        view(source, out, titles[name])
        log.info("view %s: %s -> %s", name, source, out)

exit_without_teardown()
