"""The features that tell the edited symbol from its neighbours (swevis.localize.symtext), and
D_loc computing them over its candidates, with the best files' definitions as candidates."""

from __future__ import annotations

from helpers import indexed_repo

from swevis.localize import by_kind, localize_issue
from swevis.localize.dloc import issue_evidence
from swevis.localize.hints import extract_hints
from swevis.localize.symtext import (
    IssueWords, file_context, found_terms, frame_features, name_features, quoted_strings, set_features, subwords, text_features,
)

ISSUE = (
    "Parsing a config with an empty section fails with `ConfigError`: 'section must not be empty'.\n"
    "I expected `Parser.read` to skip it."
)
PARSER = (
    "class ConfigError(Exception):\n    pass\n\n\n"
    "class Parser:\n"
    "    def read(self, text):\n"
    "        return [self.section(s) for s in text.split('[')]\n\n"
    "    def section(self, s):\n"
    "        if not s.strip():\n"
    "            raise ConfigError('section must not be empty')\n"
    "        return s\n\n"
    "    def write(self, data):\n"
    "        return str(data)\n\n\n"
    "def banner():\n"
    "    return 42\n"
)


def test_quoted_strings_keep_messages_not_bare_identifiers():
    assert quoted_strings("fails: 'section must not be empty' in \"read\" and 'x'") == ["section must not be empty"]


def test_text_features_read_the_symbols_own_lines():
    hints = extract_hints(ISSUE)
    quoted = quoted_strings(ISSUE)
    section = text_features(hints, quoted, "Parser.section", "method",
                            "    def section(self, s):\n        raise ConfigError('section must not be empty')")
    write = text_features(hints, quoted, "Parser.write", "method", "    def write(self, data):\n        return str(data)")
    read = text_features(hints, quoted, "Parser.read", "method", "    def read(self, text):\n        return []")
    assert section["body_quote"] == 1.0 and write["body_quote"] == 0.0
    assert section["body_ident"] > write["body_ident"]
    assert read["named"] == 1.0 and section["named"] == 0.0
    assert section["class_named"] == write["class_named"] == 1.0  # the issue names Parser
    assert text_features(hints, quoted, "helper", "function", "")["class_named"] == 0.0
    one_line = text_features(hints, quoted, "f", "function", "def f(): pass")
    assert 0.0 < one_line["size"] < write["size"] < 1.0 and text_features(hints, quoted, "f", "function", "")["size"] == 0.0


def test_file_context_ranks_candidates_within_their_file():
    assert file_context(["a", "b", "a", "a"], [0.2, 0.9, 0.7, 0.1]) == [0.5, 1.0, 1.0, 1 / 3]


def test_name_features_match_the_names_words_against_the_issue():
    assert subwords("RelatedOnlyFieldListFilter") == {"related", "only", "field", "list", "filter"}
    assert subwords("_group_parentheses") == {"group", "parentheses"}
    words = IssueWords("Fixed IndexError on unmatched parentheses in group tokens of helpers.py and `Parser`")
    grouped = name_features(words, "pkg/helpers.py", "_group_parentheses", "function")
    assert grouped["name_words"] == 1.0 and grouped["file_named"] == 1.0 and grouped["name_in_text"] == 0.0
    other = name_features(words, "pkg/core.py", "Parser.apply_rules", "method")
    assert other["name_words"] == 0.0 and other["class_words"] == 1.0 and other["file_named"] == 0.0
    assert name_features(words, "pkg/core.py", "Parser", "class")["name_in_text"] == 1.0
    assert name_features(words, "pkg/__init__.py", "f", "function")["file_named"] == 0.0  # the package is pkg
    assert [name_features(words, p, "main", "function")["outside_package"] for p in
            ("bin/mailmap_check.py", "setup.py", "pkg/bin.py")] == [1.0, 1.0, 0.0]
    # Go's root package is library code (cobra's command.go); a Rust build script is not
    assert [name_features(words, p, "main", "function")["outside_package"] for p in
            ("command.go", "tools/gen.go", "build.rs")] == [0.0, 1.0, 1.0]


def test_set_features_weigh_rare_words_and_rank_files_together():
    words = IssueWords("Fix the tranforms typo in value handling")
    bodies = ["x = value  # tranforms", "return value", "return value + 1", "pass"]
    found = [found_terms(words, b) for b in bodies]
    f = set_features(["a.py", "a.py", "b.py", "c.py"], [0.2, 1.0, 0.5, 0.0], [0.3, 0.3, 1.0, 0.1], found)
    assert f["body_terms"][0] == 1.0 and 0.0 < f["body_terms"][1] == f["body_terms"][2] < 0.5 and f["body_terms"][3] == 0.0
    assert f["file_rank"] == [0.5, 0.5, 1.0, 1 / 3]
    assert f["file_best"] == [1.0, 1.0, 0.5, 0.0]
    assert f["file_cands"][0] == f["file_cands"][1] > f["file_cands"][2]


def test_frame_features_point_into_the_definition_holding_the_frames_line():
    hints = extract_hints('Traceback (most recent call last):\n  File "/usr/lib/site-packages/cfg/parser.py", line 12, in section')
    assert frame_features(hints, ["cfg/parser.py", "cfg/parser.py", "other/parser.py"], [(9, 13), (5, 8), (9, 13)]) == [1.0, 0.0, 0.0]
    assert frame_features(extract_hints("no frames here"), ["cfg/parser.py"], [(1, 99)]) == [0.0]


def test_dloc_computes_the_features_and_adds_the_best_files_definitions(tmp_path):
    filler = "".join(f"\n\ndef tally_{i}(values):\n    return sum(values) * {i}\n" for i in range(30))
    repo, index = indexed_repo(tmp_path, {"cfg/__init__.py": "", "cfg/parser.py": PARSER + filler})
    shallow = {"bm25_depth": 3}  # as in a large repository: most of the file's definitions have no evidence
    with index:
        sc, feats = issue_evidence(index, ISSUE, repo_dir=repo, options=shallow)
        by_name = {sc.syms[sid].qualname: f for sid, f in feats.items()}
        assert by_name["Parser.section"]["body_quote"] == 1.0 and by_name["Parser.write"]["body_quote"] == 0.0
        assert by_name["Parser.read"]["named"] == 1.0
        assert all(0.0 < f["in_file_rank"] <= 1.0 and 0.0 <= f["file_score"] <= 1.0 for f in feats.values())
        assert by_name["Parser.section"]["body_terms"] > by_name["Parser.write"]["body_terms"]
        assert not any(f["in_frame"] for f in feats.values())  # the issue has no traceback
        assert by_name["Parser.read"]["name_in_text"] == 1.0 and by_name["Parser.read"]["class_words"] == 1.0
        assert {f["file_rank"] for f in feats.values()} == {1.0} and all(f["file_best"] == 1.0 for f in feats.values())
        assert "tally_7" not in by_name and not sc.expanded
        sc2, feats2 = issue_evidence(index, ISSUE, repo_dir=repo, options=shallow, candidate_files=1)
        added = {sc2.syms[sid].qualname for sid in sc2.expanded}
        assert "tally_7" in added and "banner" in added and not added & set(by_name)
        assert {sc2.syms[sid].qualname for sid in feats2} == set(by_name) | added
        assert all(feats2[sid]["heuristic"] == 0.0 for sid in sc2.expanded)


def test_a_model_fitted_on_the_quoted_message_ranks_the_method_that_raises_it_first(tmp_path):
    repo, index = indexed_repo(tmp_path, {"cfg/__init__.py": "", "cfg/parser.py": PARSER})
    model = {"features": ["heuristic", "body_quote"], "weights": [1.0, 5.0], "bias": -3.0, "candidate_files": 1}
    with index:
        syms = by_kind(localize_issue(index, ISSUE, model=model, repo_dir=repo), "symbol")
        assert syms[0].qualified_name == "Parser.section"
        off = by_kind(localize_issue(index, ISSUE, model={**model, "weights": [1.0, 0.0]}, repo_dir=repo), "symbol")
        assert off[0].qualified_name != "Parser.section"


def test_the_private_flag_reads_each_languages_convention_not_pythons_underscore():
    from swevis.index.store import Symbol
    from swevis.localize.dloc import _symbol_flags

    def flag(path, name, signature):
        s = Symbol(1, 1, path, "", name, name, "function", 1, 2, signature, "", None)
        return _symbol_flags(None, s, {})["is_private"]

    assert [flag("pkg/a.py", "_split", "def _split(s)"), flag("pkg/a.py", "__init__", "def __init__(self)")] == [1.0, 0.0]
    assert [flag("args.go", "legacyArgs", "func legacyArgs()"), flag("args.go", "ExactArgs", "func ExactArgs(n int)")] == [1.0, 0.0]
    assert [flag("src/lib.rs", "parse", "fn parse()"), flag("src/lib.rs", "run", "pub fn run()")] == [1.0, 0.0]
    assert flag("src/main/java/a/A.java", "check", "private void check()") == 1.0
