# Snakemake's report (`make report`: results/report.html): every table and figure with a
# caption (report/*.rst) that says what it shows, from what data and which backend made it.
# The figures are marked for the report where their rules write them. A table is shown
# through an HTML view of its CSV (swevis.analysis.report_views), because the report offers
# a CSV only as a download; the views live under results/report/ and are cheap to redo.

REPORT_VIEWS = {
    **{n: LAYOUT.table(f"{n}.csv") for n in TABLE_NAMES},
    "table4": LAYOUT.table("table4.csv"),
    "frontier": LAYOUT.single_read("frontier.csv"),
    "localization": LAYOUT.table("localization.csv"),
    "table_retrieval": LAYOUT.table("table_retrieval.csv"),
    **(
        {"table_ablation": LAYOUT.table("table_ablation.csv")}
        if ABLATION_VARIANTS
        else {}
    ),
    **({"table_probes": LAYOUT.table("table_probes.csv")} if PROBE_CELLS else {}),
    "validation": VALIDATION,
}
REPORT_TITLES = {
    "table1": "Table 1",
    "table1_long": "Table 1, long form",
    "table2": "Table 2",
    "table2_long": "Table 2, long form",
    "table3": "Table 3",
    "table4": "Table 4",
    "stats_mcnemar": "McNemar tests",
    "calibration": "Token calibration",
    "frontier": "Readability frontier",
    "localization": "Localization quality",
    "table_retrieval": "Retrieval precision and recall",
    "table_ablation": "Ablations (variants against their base agent)",
    "table_probes": "Probe sets: issue class, route and resolution",
    "validation": "Environment validation",
}
# the paper's tables in a category of their own: the landing page (report/workflow.rst)
# lists a category's results by title, which put "Localization quality" before "Table 1"
REPORT_CATEGORIES = {
    **{
        n: "Tables"
        for n in REPORT_TITLES
        if n.startswith("table")
        and n not in ("table_ablation", "table_retrieval", "table_probes")
    },
    "validation": "Validation",
}
REPORT_TARGETS = [
    *[LAYOUT.report_view(n) for n in REPORT_VIEWS],
    *[
        LAYOUT.report_view(f"counterfactual-{s}-{part}")
        for s in COUNTERFACTUAL_SETS
        for part in ("table", "decomposition")
    ],
]


# one rule (and job) per view, so a report on a few targets builds only their views; a
# caption cannot take wildcards, so a wildcard rule could not give each view its own
for _name, _source in REPORT_VIEWS.items():

    rule:
        name:
            f"report_view_{_name}"
        input:
            **{_name: _source},
        output:
            **{
                _name: report(
                    LAYOUT.report_view(_name),
                    caption=f"../report/{_name}.rst",
                    category=REPORT_CATEGORIES.get(
                        _name, "Statistics and measurements"
                    ),
                    labels={"item": REPORT_TITLES[_name], "file": _source},
                )
            },
        log:
            LAYOUT.log("report", f"{_name}.log"),
        benchmark:
            bench("report_view", _name)
        conda:
            "../envs/swevis.yaml"
        params:
            titles={_name: REPORT_TITLES[_name]},
        script:
            "../scripts/report_views.py"


rule report_counterfactual_views:
    input:
        table=LAYOUT.counterfactual("{cfset}", "table.csv"),
        decomposition=LAYOUT.counterfactual("{cfset}", "decomposition.csv"),
    output:
        table=report(
            LAYOUT.report_view("counterfactual-{cfset}-table"),
            caption="../report/counterfactual_table.rst",
            category="Counterfactual replay",
            subcategory="{cfset}",
            labels={
                "item": "Reductions",
                "file": LAYOUT.counterfactual("{cfset}", "table.csv"),
            },
        ),
        decomposition=report(
            LAYOUT.report_view("counterfactual-{cfset}-decomposition"),
            caption="../report/counterfactual_decomposition.rst",
            category="Counterfactual replay",
            subcategory="{cfset}",
            labels={
                "item": "Gap to the ceiling",
                "file": LAYOUT.counterfactual("{cfset}", "decomposition.csv"),
            },
        ),
    log:
        LAYOUT.log("report", "counterfactual-{cfset}-views.log"),
    benchmark:
        bench("report_counterfactual_views", "{cfset}")
    wildcard_constraints:
        cfset="|".join(COUNTERFACTUAL_SETS),
    conda:
        "../envs/swevis.yaml"
    params:
        titles=lambda wc: {
            "table": f"Counterfactual replay of {wc.cfset}: reductions",
            "decomposition": f"Counterfactual replay of {wc.cfset}: gap to the ceiling",
        },
    script:
        "../scripts/report_views.py"
