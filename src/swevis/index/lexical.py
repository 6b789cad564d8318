"""The lexical index B: a code-aware tokenizer and BM25 (bm25s) persisted inside SQLite.

Identifiers are kept whole (lower-cased) and also split at snake_case and CamelCase
boundaries, so `get_paths`, `ContourSet` and "contour set" meet. Every token then goes
through a light, conservative suffix stemmer (plural -s/-es/-ies, -ing, -ed, final -e), so
"widths" meets `natural_widths`' "width", "rounding" meets `round`, "merging" meets `merge`. The bm25s score matrix
(CSC arrays, document numbers as steps) and vocabulary are stored zlib-compressed in the
index database (a third of their size), so a warm load is a few decompressions.
"""

from __future__ import annotations

import json
import logging
import re
import sqlite3
import zlib
from array import array
from collections import Counter
from collections.abc import Iterable
from itertools import chain, filterfalse

import numpy as np

log = logging.getLogger(__name__)

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

STOPWORDS = frozenset(
    """
    a an and are as at be by for from has have in is it its of on or that the this to was
    were will with not no but if then else elif def class return self cls none true false
    import pass while try except finally raise lambda yield del global nonlocal assert
    async await is we you can do does should would could when which what there their
    """.split()
)

_cache: dict[str, tuple[str, ...]] = {}
_VOWELS = frozenset("aeiouy")
_KEEP_DOUBLE = frozenset("lsz")


def _undouble(stem: str) -> str:
    if len(stem) >= 4 and stem[-1] == stem[-2] and stem[-1] not in _VOWELS and stem[-1] not in _KEEP_DOUBLE:
        return stem[:-1]
    return stem


def stem(word: str) -> str:
    """A light English suffix stemmer for identifiers and prose (lower-case input).

    S-stemmer rules (Harman 1991) plus -ing / -ed and a final -e, each only when a stem of
    at least four letters with a vowel remains, so short code words (`str`, `id`, `bytes`)
    are left alone. Both the indexed documents and the queries pass through it.
    """
    w = word
    if len(w) <= 3 or not w.isalpha():
        return w
    if w.endswith("ies") and len(w) > 4 and not w.endswith(("eies", "aies")):
        w = w[:-3] + "y"
    elif w.endswith(("sses", "shes", "ches", "xes", "zzes")):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is", "ys")) and len(w) > 4:
        w = w[:-1]
    for suf in ("ing", "ed"):
        if w.endswith(suf):
            base = w[: -len(suf)]
            if len(base) >= 4 and _VOWELS & set(base):
                w = _undouble(base)
            break
    if w.endswith("e") and len(w) >= 5 and not w.endswith(("ee", "ie", "ye")):
        w = w[:-1]
    return w


def _split(word: str) -> tuple[str, ...]:
    toks = _cache.get(word)
    if toks is None:
        low = word.lower().strip("_")
        out: list[str] = []
        if len(low) > 1 and low not in STOPWORDS:
            out.append(_stem_ident(low))
        if "_" in word.strip("_") or not (word.islower() or word.isupper()):
            parts = [p.lower() for p in _PARTS.findall(word)]
            if len(parts) > 1:
                out.extend(stem(p) for p in parts if len(p) > 1 and p not in STOPWORDS and p != low)
        toks = tuple(out)
        if len(_cache) < 500_000:
            _cache[word] = toks
    return toks


def _stem_ident(low: str) -> str:
    """Stem the last part of a whole identifier: `natural_widths` -> `natural_width`."""
    if "_" not in low:
        return stem(low)
    head, _, tail = low.rpartition("_")
    return f"{head}_{stem(tail)}" if tail else low


def tokenize(text: str) -> list[str]:
    out: list[str] = []
    add = out.extend
    cache = _cache
    for w in _WORD.findall(text):
        toks = cache.get(w)  # most words were seen before: skip the call into _split
        add(_split(w) if toks is None else toks)
    return out


class Lexical:
    """A BM25 model over documents 0..n-1 (their meaning lives in the bm25_docs table)."""

    def __init__(self, model):
        self.model = model

    @property
    def num_docs(self) -> int:
        return int(self.model.scores["num_docs"]) if self.model is not None else 0

    @classmethod
    def build(cls, corpus_tokens: Iterable[list[str]], *, k1: float = 1.5, b: float = 0.75, method: str = "lucene"):
        """The model of documents given as token lists, in order (one group: see from_counts)."""
        return cls.from_counts([term_counts(corpus_tokens)], k1=k1, b=b, method=method)

    @classmethod
    def from_counts(cls, groups: Iterable[tuple[list[str], np.ndarray]], *, k1: float = 1.5, b: float = 0.75,
                    method: str = "lucene"):
        """The model of the documents of `groups` (each a file's `term_counts`), in order.

        bm25s's own `index` counts each document's terms in a Python loop (a Counter and
        three arrays per document: 0.9 of the 1.6 CPU s a django build spent on BM25); this builds the
        same score matrix, array for array, with one sort over the corpus's (term, document)
        pairs, from bm25s's own idf and term-frequency formulas (a test compares every method
        with bm25s). Counting per file lets an update reuse an unchanged file's counts: only
        its distinct terms are looked up here, never its tokens again.
        """
        # lazy: bm25s adds 48-340 ms (python -X importtime, best of 6: 48) to importing swevis.index
        import bm25s

        # the vocabulary is numbered in first-seen order over the corpus (bm25s numbers a
        # set's, which varies with the hash seed), so the stored model is the same bytes in
        # every process; each group's terms are in first-seen order, so numbering them group
        # after group is that order
        vocab: dict[str, int] = {}
        terms, docs, tfs, n_pairs = [], [], [], []
        n_docs = 0
        for words, counts in groups:
            n, pairs = int(counts[0]), counts[1 : 1 + int(counts[0])]
            new = list(filterfalse(vocab.__contains__, words))  # a group's terms are distinct
            vocab.update(zip(new, range(len(vocab), len(vocab) + len(new))))
            local = np.fromiter(map(vocab.__getitem__, words), dtype=np.int64, count=len(words))
            k = len(counts) - 1 - n
            terms.append(local[counts[1 + n : 1 + n + k // 2]])
            tfs.append(counts[1 + n + k // 2 :])
            n_pairs.append(pairs)
            docs.append(np.arange(n_docs, n_docs + n, dtype=np.int64))
            n_docs += n
        if not n_docs:
            return cls(None)
        model = bm25s.BM25(k1=k1, b=b, method=method)
        pairs = np.concatenate(n_pairs)
        doc = np.repeat(np.concatenate(docs), pairs)
        model.scores = _score_matrix(model, np.concatenate(terms), doc, np.concatenate(tfs), n_docs, len(vocab))
        vocab[""] = len(vocab)  # bm25s's empty token, as its `index` adds it
        model.vocab_dict = vocab
        model.unique_token_ids_set = set(vocab.values())
        return cls(model)

    def scores(self, query_tokens: list[str]) -> np.ndarray:
        if self.model is None:
            return np.zeros(0, dtype=np.float32)
        ids = self.model.get_tokens_ids(query_tokens)
        if not ids:
            return np.zeros(self.num_docs, dtype=np.float32)
        return self.model.get_scores_from_ids(ids)

    def top(self, query_tokens: list[str], k: int) -> list[tuple[int, float]]:
        s = self.scores(query_tokens)
        if s.size == 0:
            return []
        k = min(k, s.size)
        idx = np.argpartition(-s, k - 1)[:k]
        idx = idx[np.argsort(-s[idx], kind="stable")]
        return [(int(i), float(s[i])) for i in idx if s[i] > 0]

    # ---- persistence in SQLite
    def save(self, con: sqlite3.Connection) -> None:
        con.execute("DELETE FROM bm25_model")
        if self.model is None:
            return
        m = self.model
        params = {
            "k1": m.k1,
            "b": m.b,
            "delta": m.delta,
            "method": m.method,
            "idf_method": m.idf_method,
            "dtype": m.dtype,
            "int_dtype": m.int_dtype,
            "num_docs": int(m.scores["num_docs"]),
        }
        rows = [
            ("params", json.dumps(params).encode()),
            ("vocab", zlib.compress(json.dumps(m.vocab_dict).encode(), 1)),
        ]
        nnoc = getattr(m, "nonoccurrence_array", None)
        if nnoc is not None:  # BM25L / BM25+ only
            rows.append(("nnoc", np.ascontiguousarray(nnoc, dtype=np.float32).tobytes()))
        for key in ("data", "indices", "indptr"):
            arr = np.ascontiguousarray(m.scores[key])
            if key == "indices":  # document numbers, ascending within a token: small steps
                arr = np.diff(arr, prepend=arr.dtype.type(0))
            rows.append((key, zlib.compress(arr.tobytes(), 1)))
            rows.append((key + ".dtype", str(arr.dtype).encode()))
        con.executemany("INSERT INTO bm25_model(key, value) VALUES (?, ?)", rows)

    @classmethod
    def load(cls, con: sqlite3.Connection) -> "Lexical":
        # lazy, as in build: bm25s adds 48 ms or more to importing swevis.index
        import bm25s

        blobs = dict(con.execute("SELECT key, value FROM bm25_model").fetchall())
        if "params" not in blobs:
            return cls(None)
        params = json.loads(blobs["params"])
        num_docs = params.pop("num_docs")
        model = bm25s.BM25(**params)
        model.vocab_dict = json.loads(zlib.decompress(blobs["vocab"]))
        model.unique_token_ids_set = set(model.vocab_dict.values())
        scores = {"num_docs": num_docs}
        for key in ("data", "indices", "indptr"):
            dtype = np.dtype(blobs[key + ".dtype"].decode())
            scores[key] = np.frombuffer(zlib.decompress(blobs[key]), dtype=dtype)
        scores["indices"] = np.cumsum(scores["indices"], dtype=scores["indices"].dtype)
        model.scores = scores
        model.nonoccurrence_array = np.frombuffer(blobs["nnoc"], dtype=np.float32) if "nnoc" in blobs else None
        return cls(model)


def term_counts(docs: Iterable[list[str] | dict[str, int]]) -> tuple[list[str], np.ndarray]:
    """A group of documents (one file's) as its distinct terms in first-seen order and one
    int32 array: [n documents, each document's number of distinct terms, their local term
    ids (document by document, first-seen order), their counts]. An empty document holds a
    placeholder term: bm25s needs every document non-empty to keep document ids aligned. A
    document may come counted already (a dict in first-seen order, as `doc_counts` gives)."""
    counted = [doc if isinstance(doc, dict) else Counter(doc or ["__empty__"]) for doc in docs]
    terms = list(dict.fromkeys(chain.from_iterable(counted)))  # first seen, document after document
    local = dict(zip(terms, range(len(terms))))
    out = array("i", [len(counted)])
    out.extend(map(len, counted))
    out.extend(map(local.__getitem__, chain.from_iterable(counted)))
    out.extend(chain.from_iterable(c.values() for c in counted))
    return terms, np.frombuffer(out, dtype=np.int32)


def doc_counts(terms: list[str], counts: np.ndarray) -> list[dict[str, int]]:
    """The documents of a group (`term_counts`) as term -> count dicts, in first-seen order."""
    n = int(counts[0])
    pairs = counts[1 : 1 + n].tolist()
    rest = counts[1 + n :].tolist()
    ids, tfs = rest[: len(rest) // 2], rest[len(rest) // 2 :]
    out, i = [], 0
    for k in pairs:
        out.append({terms[t]: c for t, c in zip(ids[i : i + k], tfs[i : i + k])})
        i += k
    return out


def _score_matrix(model, term: np.ndarray, doc: np.ndarray, tf: np.ndarray, n_docs: int, n_vocab: int) -> dict:
    """bm25s's CSC score matrix (terms as columns, documents ascending inside one) of the
    (term, document, count) triples `term`, `doc`, `tf` (documents numbered from 0, every
    one with a term)."""
    from bm25s import scoring

    lengths = np.bincount(doc, weights=tf, minlength=n_docs).astype(np.int64)
    order = np.argsort((term << 32) | doc)  # term-major, then document: the CSC order (pairs are distinct)
    term, doc = term[order].astype(np.int32), doc[order].astype(np.int32)
    tf = tf[order].astype(model.dtype)
    del order
    df = np.bincount(term, minlength=n_vocab)
    avg_len = lengths.mean()
    idf_fn = scoring._select_idf_scorer(model.idf_method)
    tfc_fn = scoring._select_tfc_scorer(model.method)
    doc_freqs = dict(enumerate(df.tolist()))
    idf = scoring._build_idf_array(doc_freqs, n_docs, idf_fn, model.dtype)
    data = idf[term] * tfc_fn(tf_array=tf, l_d=lengths[doc], l_avg=avg_len, k1=model.k1, b=model.b, delta=model.delta)
    model.nonoccurrence_array = None
    if model.method in model.methods_requiring_nonoccurrence:
        model.nonoccurrence_array = scoring._build_nonoccurrence_array(
            doc_freqs, n_docs, idf_fn, tfc_fn, avg_len, avg_len, model.k1, model.b, model.delta, model.dtype)
        data = data - model.nonoccurrence_array[term]
    indptr = np.zeros(n_vocab + 1, dtype=np.int64)
    np.cumsum(df, out=indptr[1:])
    return {"data": data.astype(model.dtype), "indices": doc.astype(model.int_dtype), "indptr": indptr,
            "num_docs": n_docs}
