"""The BM25 model's score matrix is bm25s's own, array for array, for every method."""

from __future__ import annotations

import bm25s
import numpy as np
import pytest

from swevis.index.lexical import Lexical, term_counts

CORPUS = [
    ["contour", "set", "contour_set", "get_path", "path", "path"],
    [],
    ["widths", "natural_width", "width", "width", "width"],
    ["merge", "set", "merge"],
    ["path"],
    ["a" + str(i % 7) for i in range(40)],
]


# more documents than one block of the matrix's document numbers (4,096)
LARGE = [[f"w{(i * 7 + j) % 997}" for j in range(i % 13)] for i in range(9000)]


@pytest.mark.parametrize("method", ["lucene", "robertson", "atire", "bm25l", "bm25+"])
@pytest.mark.parametrize("corpus", [CORPUS, LARGE], ids=["small", "large"])
def test_matrix_equals_bm25s(method, corpus):
    ours = Lexical.build(iter(corpus), k1=1.2, b=0.6, method=method).model
    vocab: dict[str, int] = {}
    ids = [[vocab.setdefault(t, len(vocab)) for t in (doc or ["__empty__"])] for doc in corpus]
    ref = bm25s.BM25(k1=1.2, b=0.6, method=method)
    ref.index((ids, vocab), show_progress=False)
    assert ours.vocab_dict == ref.vocab_dict
    for key in ("data", "indices", "indptr"):
        assert ours.scores[key].dtype == ref.scores[key].dtype, key
        assert np.array_equal(ours.scores[key], ref.scores[key]), key
    assert ours.scores["num_docs"] == ref.scores["num_docs"] == len(corpus)
    if method in ("bm25l", "bm25+"):
        assert np.array_equal(ours.nonoccurrence_array, ref.nonoccurrence_array)
    else:
        assert ours.nonoccurrence_array is None
    query = ["path", "width", "merge", "unknown", "w5", "w996"]
    assert np.array_equal(Lexical(ours).scores(query), Lexical(ref).scores(query))


def test_empty_corpus_has_no_model():
    assert Lexical.build(iter([])).model is None
    assert Lexical.build(iter([])).top(["x"], 3) == []


def test_a_corpus_counted_file_by_file_gives_the_same_model():
    """An update rebuilds the model from each file's stored counts: grouping the documents by
    file must not change the vocabulary's numbering or any array."""
    whole = Lexical.build(iter(LARGE[:3000] + CORPUS)).model
    groups = [term_counts(LARGE[i : min(i + 37, 3000)]) for i in range(0, 3000, 37)] + [term_counts(CORPUS[:2]),
                                                                         term_counts([]), term_counts(CORPUS[2:])]
    parts = Lexical.from_counts(groups).model
    assert parts.vocab_dict == whole.vocab_dict and list(parts.vocab_dict) == list(whole.vocab_dict)
    for key in ("data", "indices", "indptr"):
        assert np.array_equal(parts.scores[key], whole.scores[key]), key
