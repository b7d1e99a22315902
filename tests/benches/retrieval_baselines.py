"""Baselines for the retrieval benchmark (retrieval.rs): plain BM25 over the same KorQuAD half.

Usage: retrieval_baselines.py KORQUAD_JSON FIRST_ARTICLE END_ARTICLE BUDGETS_JSON

The passages are the set's paragraphs. For each question (in the order retrieval.rs asks them),
paragraphs are taken best first until they fill that question's character budget (Maru's own
result length for it; the last one cut at the budget), and the question counts when one of its
answers is inside. Also the top five paragraphs whole, whatever their length. Prints one JSON
object: name -> share of questions answered.
"""

import json
import sys

import bm25s
from kiwipiepy import Kiwi


def main():
    path, first, end, budgets_path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    with open(path, encoding="utf-8") as f:
        articles = json.load(f)["data"][first:end]
    with open(budgets_path, encoding="utf-8") as f:
        budgets = json.load(f)
    paragraphs, questions = [], []
    for article in articles:
        for p in article["paragraphs"]:
            paragraphs.append(p["context"])
            for qa in p["qas"]:
                questions.append((qa["question"], [a["text"] for a in qa["answers"]]))
    questions = questions[: len(budgets)]

    kiwi = Kiwi()

    def whitespace(text):
        return text.lower().split()

    def morphemes(text):
        return [t.form.lower() for t in kiwi.tokenize(text)]

    out = {}
    for name, tokenize in (("BM25, whitespace tokens", whitespace), ("BM25, Kiwi morphemes", morphemes)):
        retriever = bm25s.BM25()
        retriever.index([tokenize(p) for p in paragraphs], show_progress=False)
        within, top5 = 0, 0
        for (question, answers), budget in zip(questions, budgets):
            tokens = tokenize(question) or [""]
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
    print(json.dumps(out))


if __name__ == "__main__":
    main()
