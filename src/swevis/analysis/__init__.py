"""Tables 1-3, figures 2/4/5/6 and the statistics beyond the paper (polars + matplotlib).

Flow: per condition, `load.write_condition_summary` -> summary.json; then `build.build_tables`
and `build.build_figures` read the summaries present (see docs/DESIGN.md: a deleted condition
changes the set, so the tables rebuild with it). Import the modules themselves: this package
file imports nothing, so a Snakefile that needs one helper does not load matplotlib (0.85 s).
"""
