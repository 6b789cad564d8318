"""Snakemake adapter: a trajectory set replayed under every condition and backbone into per_step.parquet."""

from swevis.analysis.counterfactual import replay_set
from swevis.logutil import script_logging

with script_logging(snakemake.log[0]) as log:
    p = snakemake.params
    steps = replay_set(p.folder, p.conditions, dict(p.backbones), agents_cfg=dict(p.agents), render_cfg=dict(p.render),
                       prompt_cache=dict(p.prompt_cache))
    steps.write_parquet(snakemake.output.steps)
    log.info("wrote %s: %d records of %d trajectories", snakemake.output.steps, steps.height, steps["trajectory"].n_unique())
