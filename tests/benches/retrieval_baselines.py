"""Baselines for the retrieval benchmark (retrieval.rs): plain BM25 over the same half of a set.

Usage: retrieval_baselines.py HALF_JSON

The Korean morpheme analysers are the two candidates for Maru's own analysis that ship their
dictionaries through a package registry (Kiwi: `kiwipiepy` with `kiwipiepy_model`, 105 MB;
MeCab-ko: `python-mecab-ko` with `python-mecab-ko-dic`, 108 MB). Each analysis is also timed over
the half's text (MB/s on one core), the figure its indexing would start from.

HALF_JSON holds `paragraphs` (the half's text, a paragraph each), `questions` (each with its
`question` and `answers`, in the order retrieval.rs asked them), `budgets` (Maru's result length
for each question) and `analysis` ("kiwi" for Korean, "stem" for English). For each question,
paragraphs are taken best first until they fill that question's budget (the last one cut at the
budget), and the question counts when one of its answers is inside. Also the top five paragraphs
whole, whatever their length. Prints one JSON object: name -> share of questions answered.
"""

import json
import re
import sys
import time

import bm25s


def analyses(kind):
    def whitespace(text):
        return text.lower().split()

    out = [("BM25, whitespace tokens", whitespace)]
    if kind == "kiwi":
        from kiwipiepy import Kiwi

        kiwi = Kiwi()
        out.append(("BM25, Kiwi morphemes", lambda text: [t.form.lower() for t in kiwi.tokenize(text)]))
        import mecab

        mecab_ko = mecab.MeCab()
        out.append(("BM25, MeCab-ko morphemes", lambda text: [m.lower() for m in mecab_ko.morphs(text)]))
    elif kind == "stem":
        import Stemmer

        stemmer = Stemmer.Stemmer("english")
        out.append(("BM25, Snowball stems", lambda text: stemmer.stemWords(re.findall(r"(?u)\b\w\w+\b", text.lower()))))
    return out


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        half = json.load(f)
    paragraphs, budgets = half["paragraphs"], half["budgets"]
    questions = half["questions"][: len(budgets)]
    out = {}
    for name, tokenize in analyses(half["analysis"]):
        retriever = bm25s.BM25()
        started = time.perf_counter()
        tokens = [tokenize(p) for p in paragraphs]
        seconds = time.perf_counter() - started
        retriever.index(tokens, show_progress=False)
        within, top5 = 0, 0
        for q, budget in zip(questions, budgets):
            answers = q["answers"]
            tokens = tokenize(q["question"]) or [""]
            ranked, _ = retriever.retrieve([tokens], k=min(len(paragraphs), 20), show_progress=False)
            ranked = [paragraphs[i] for i in ranked[0]]
            taken, left = [], budget
            for text in ranked:
                if left <= 0:
                    break
                taken.append(text[:left])
                left -= len(text) + 2
            result = "\n\n".join(taken)
            within += any(a in result for a in answers)
            top = "\n\n".join(ranked[:5])
            top5 += any(a in top for a in answers)
        n = max(len(questions), 1)
        out[name] = within / n
        out[name + ", top-5 paragraphs whole"] = top5 / n
        megabytes = sum(len(p.encode("utf-8")) for p in paragraphs) / 1e6
        out[name + ", analysis MB/s"] = megabytes / max(seconds, 1e-9)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
