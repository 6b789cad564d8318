"""Snakemake adapter: the shipped re-ranker weights (swevis devset fit): the configured variant
fitted on every case, with its held-out estimate and provenance in the weights file."""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy: many small products, one thread

import contextlib  # noqa: E402
import io  # noqa: E402
from pathlib import Path  # noqa: E402

from swevis.localize.devset.settings import DevsetSettings  # noqa: E402
from swevis.localize.devset.steps import fit_weights  # noqa: E402
from swevis.logutil import script_logging  # noqa: E402

with script_logging(snakemake.log[0]) as log:  # noqa: F821
    s = DevsetSettings.of({"devset": snakemake.params.devset})  # noqa: F821
    table = io.StringIO()
    with contextlib.redirect_stdout(table):  # the printed tables belong in the rule's log
        fit_weights(s, s.fit_settings, Path(s.mirrors), Path(s.work), Path(snakemake.output.weights), polyglot=True)  # noqa: F821
    log.info("%s", table.getvalue())
