"""What else might lift D_loc's symbol ranking on the development set: each probe against the
shipped re-ranker's features, held out by repository (docs/studies/ranking-probes.md).

    .venv/bin/python benchmarks/ranking_probes.py [--config my.yaml] [--out WORK] [--mirrors CLONES]
        [--probes files recency trees dense literals] [--dense-every 3]
"""

from swevis_dev.ranking_probes_cli import main

if __name__ == "__main__":
    raise SystemExit(main())
