# Stage 2: the repository index (one SQLite file per repo@commit, shared by every instance at
# that commit, built from the checkout of any one of them) and the localization quality table
# (D_loc vs the BM25-only baseline at top-k).

from swevis.index.store import SCHEMA_VERSION as INDEX_SCHEMA_VERSION


rule index_repo:
    input:
        manifest=lambda wc: in_sample("index_checkout", (wc.repo_slug, wc.sha)),
    output:
        db=LAYOUT.index_db("{repo_slug}", "{sha}"),
    log:
        LAYOUT.log("index", "{repo_slug}@{sha}.log"),
    benchmark:
        bench("index_repo", "{repo_slug}@{sha}")
    conda:
        "../envs/swevis.yaml"
    params:
        index=section(config, "index"),
        # a new index schema (swevis.index.store) rebuilds every index (rerun trigger: params)
        schema_version=INDEX_SCHEMA_VERSION,
    script:
        "../scripts/index_repo.py"


rule localization_table:
    input:
        instances=LAYOUT.instances(),
        localized=LAYOUT.localized_instances(),
        ranker=ranker_weights,
        dbs=lambda wc: list(localized_index().localization_dbs),
    output:
        table=LAYOUT.table("localization.csv"),
        instances=LAYOUT.table("localization_instances.csv"),
    log:
        LAYOUT.log("index", "localization_table.log"),
    benchmark:
        bench("localization_table")
    conda:
        "../envs/swevis.yaml"
    params:
        localize=section(config, "localize"),
        top_k=config["analysis"]["localization_top_k"],
    script:
        "../scripts/localize_table.py"
