"""Question texts say no jargon that no lesson explains (read 47). The guided path promises that every term in its
lessons' texts and questions is explained before it is used, and a missed check is asked again as a sibling on the
same concept, any question of the bank; several siblings' prompts or keys named things no lesson teaches ("p50,
p99", "the backbone", "'typical acceptance'", "layer dropout", "an early-exit loss"). Each now says what it means
where it says it, in English and in Portuguese."""

from __future__ import annotations

import re

import pytest

from specviz.teach.quiz import BANK_DIR, load_bank

# question id -> (a term that needs its meaning beside it, the words that give that meaning), per language
EXPLAINED = {
    "en": {"pr-watch": [("p50", "is its median"), ("p99", "only the slowest 1% exceed")],
           "md-facts": [("typical acceptance", "keeps any draft the target finds likely enough")],
           "ls-training": [("layer dropout", "random layers skipped during training"),
                           ("early-exit loss", "after each layer, read through the LM head")]},
    "pt": {"pr-watch": [("p50", "a sua mediana"), ("p99", "só o 1% mais lento")],
           "md-facts": [("aceitação típica", "mantém qualquer palpite que o alvo ache provável o bastante")],
           "ls-training": [("dropout de camadas", "camadas sorteadas puladas durante o treino"),
                           ("perda de saída antecipada", "depois de cada camada, lido pela cabeça de LM")]},
}
UNEXPLAINED = {"en": ["backbone"], "pt": ["modelo base"]}  # said plainly instead: the target's own weights


def _text(q) -> str:
    return " ".join([q.prompt, *q.choices, *(q.answer if q.kind == "ordering" else ())])


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_sibling_explains_the_jargon_it_says(lang):
    by_id = load_bank([BANK_DIR], lang=lang).by_id()
    for qid, pairs in EXPLAINED[lang].items():
        text = _text(by_id[qid])
        for term, meaning in pairs:
            assert term in text and meaning in text, (qid, term)
    said = [(q.id, word) for q in by_id.values() for word in UNEXPLAINED[lang] if word in _text(q)]
    assert said == []


@pytest.mark.parametrize(("lang", "term", "meaning"), [
    ("en", "chi-square", "says how likely the gaps between them are by chance alone"),
    ("pt", "qui-quadrado", "quão provável é que as diferenças entre os dois venham só do acaso")])
def test_the_exactness_checks_key_says_no_test_no_lesson_explains(lang, term, meaning):
    """Read 47: q-check-exactness's key said "for example with a chi-square test", a test no lesson explains; the key
    says what to compare, and the explanation (shown after the answer) names the test and what it says."""
    question = load_bank([BANK_DIR], lang=lang).by_id()["q-check-exactness"]
    assert term not in question.answer and term not in question.prompt
    assert term in question.explanation and meaning in " ".join(question.explanation.split())


# read 52: a bare "acceptance" (pt "aceitação") where the acceptance rate (accepted / drafted) is meant
BARE_ACCEPTANCE = {"en": re.compile(r"\bacceptance(?! (?:rate|probability|by position|test|rule)\b)", re.IGNORECASE),
                   "pt": re.compile(r"(?<!taxa de )(?<!probabilidade de )\baceitação(?! por posição)",
                                    re.IGNORECASE)}


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_production_questions_name_the_acceptance_rate_not_a_bare_acceptance(lang):
    """pr-roadmap's "acceptance targets/goals" and "acceptance can drift", pr-watch's "exact at any acceptance" and
    pr-pick-draft's "the acceptance goal" named no quantity: the dashboards' number is the acceptance rate."""
    by_id = load_bank(lang=lang).by_id()
    bare = [(qid, m.group(0)) for qid in ("pr-roadmap", "pr-watch", "pr-pick-draft")
            for m in BARE_ACCEPTANCE[lang].finditer(f"{_text(by_id[qid])} {by_id[qid].explanation}")]
    assert bare == []


@pytest.mark.parametrize(("lang", "said"), [
    ("en", "(With one p and q, α = β = Σ min(p, q): the Theory explorer's β, the chance at one position, and α, its "
           "mean over positions, are the same number here.)"),
    ("pt", "(Com um só p e um só q, α = β = Σ min(p, q): o β do Explorador de teoria, a chance numa posição, e α, a "
           "sua média sobre as posições, são aqui o mesmo número.)")])
def test_the_one_pair_alpha_questions_say_alpha_is_the_theory_explorers_beta_there(lang, said):
    """Read 55: the Theory explorer (after Leviathan et al.) calls Σ min(p, q) at one position β and α = E[β], while
    ar-alpha, ar-alpha-2 and rs-total ask "α = Σ min(p, q)" of one given p and q, where the two are one number. Each
    explanation now says so once, so a student who met β in Theory is not told two names for one thing unexplained."""
    by_id = load_bank([BANK_DIR], lang=lang).by_id()
    for qid in ("ar-alpha", "ar-alpha-2", "rs-total"):
        question = by_id[qid]
        assert "α = Σ min(p, q)" in question.prompt, qid  # the question names α itself, for its one p and q
        # "at this position" is β's phrase (lesson 6, the Exactness lab): the two α questions ask of their p and q
        prompt = " ".join(question.prompt.split())
        assert "min(p, q) at this position" not in prompt and "min(p, q) nesta posição" not in prompt, qid
        assert " ".join(question.explanation.split()).count(said) == 1, qid
