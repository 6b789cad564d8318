"""Snakemake adapter: results/localization.csv (D_loc vs BM25-only at top-k) over the sampled
instances and the localized sets (tasks.localized_sets), by set and language."""

import json

from swevis import __version__
from swevis.config import config_hash
from swevis.analysis.localization import localization_table, write_csv
from swevis.localize.rerank import describe
from swevis.logutil import setup_logging
from swevis.paths import repo_slug

setup_logging(snakemake.log[0])  # noqa: F821
params = snakemake.params  # noqa: F821
dbs = list(snakemake.input.dbs)  # noqa: F821


def db_for(row):
    """The input index database of this instance's repo@commit."""
    name = f"{repo_slug(row['repo'])}@{row['base_commit']}.sqlite"
    return next(d for d in dbs if d.endswith("/" + name) or d == name)


with open(snakemake.input.instances) as fh:  # noqa: F821
    # the study's sample: the probe sets' rows in instances.jsonl count in no study table
    rows = [row for row in map(json.loads, filter(str.strip, fh)) if not row.get("probe_set")]
with open(snakemake.input.localized) as fh:  # noqa: F821
    # the localized sets' rows (tagged localized_set), reported by set and language
    rows += [json.loads(line) for line in fh if line.strip()]
summary, per = localization_table(
    rows,
    db_for,
    ks=tuple(params.top_k),
    options=params.localize,
)
extra = {
    "swevis_version": __version__,
    "localize_config": config_hash(params.localize),
    "ranker": describe(params.localize["ranker"]),
}
write_csv(per, snakemake.output.instances, extra)  # noqa: F821
write_csv(summary, snakemake.output.table, extra)  # noqa: F821
