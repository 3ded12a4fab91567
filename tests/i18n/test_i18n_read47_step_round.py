"""One name per quantity, in Portuguese (read 47): the glossary (docs/glossary.pt-BR.md) keeps "rodada" for a
classroom vote's round ("Rodada 2", "Iniciar a rodada 2") and calls one propose-then-verify cycle of speculative
decoding a "passo", as the pages do. The pt quiz twins, lesson 2 and the teaching plan said "uma rodada de
decodificação especulativa", so in class "Rodada 2" (the vote) and a decoding "rodada" sat side by side. The English
twins now say "step" for that cycle too, as docs/glossary.pt-BR.md and STYLE.md do ("drafted tokens per step")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from specviz.core.i18n import using
from specviz.teach.learn import BY_NUMBER, LESSONS

ROOT = Path(__file__).parents[2]
RODADA = re.compile(r"\brodadas?\b", re.IGNORECASE)
# Where a Portuguese text may say "rodada": a classroom vote's round, numbered or counted per push, as the teaching
# plan and the classroom pages say it (the CSV's column too). Anything else (a decoding step) is a "passo".
VOTE_ROUND = re.compile(r"rodadas? (?:\d|\{)|duas rodadas|só a rodada 1|\buma rodada\)|\*\*uma rodada\*\*|"
                        r"envio de uma rodada|Iniciar a rodada 2|pergunta, rodada,\s+aluno", re.IGNORECASE)
# The English for a decoding step said "round" after one of these ("one round", "the next round's draft");
# "round" the verb (a computer rounds, a near-tie can round the other way) follows none of them.
ROUND_AS_STEP = re.compile(r"\b(?:a|one|the|each|every|this|that|next|later|worst|speculative|decoding|per|\d+)"
                           r"\s+rounds?\b", re.IGNORECASE)


def _stray(text: str) -> list[str]:
    """Each "rodada" of `text` that no vote-round context covers, with a few words around it."""
    covered = [m.span() for m in VOTE_ROUND.finditer(text)]
    return [text[max(0, m.start() - 30):m.end() + 30] for m in RODADA.finditer(text)
            if not any(start <= m.start() < end for start, end in covered)]


def _texts(question) -> list[str]:
    answer = question.answer if isinstance(question.answer, (list, tuple)) else ()
    return [question.prompt, *question.choices, *answer, question.explanation]


@pytest.fixture(scope="module")
def bank(bundled_bank):  # tests/conftest.py, in English and Portuguese
    return bundled_bank


def test_no_quiz_question_calls_a_decoding_step_a_round(bank):
    lang, questions = bank
    by_id = questions.by_id()
    stray = [(q.id, text) for q in questions for text in _texts(q)
             if (_stray(text) if lang == "pt" else ROUND_AS_STEP.search(text))]
    assert stray == [], f"{lang}: a decoding step called a round"
    # the questions that used to say it, as a learner reads them now
    step = {"en": "Put the parts of one speculative decoding step in order.",
            "pt": "Coloque em ordem as partes de um passo de decodificação especulativa."}
    assert by_id["ci-round-order"].prompt == step[lang]
    tally = {"en": "3 drafts; the step adds 4 tokens, the last one the target's own.",
             "pt": "3 palpites; o passo acrescenta 4 tokens, o último do próprio alvo."}
    assert by_id["fd-tally"].answer == tally[lang]


def test_no_portuguese_lesson_calls_a_decoding_step_a_round():
    with using("pt"):
        shown = {lesson.number: " ".join([lesson.shown_title(), lesson.shown_objective(), lesson.shown_text()])
                 for lesson in LESSONS}
        objective = BY_NUMBER[2].shown_objective()
        text = BY_NUMBER[2].shown_text()
    assert len(shown) == len(LESSONS) >= 11
    assert {number: _stray(words) for number, words in shown.items() if _stray(words)} == {}
    assert objective.startswith("Descrever um passo de decodificação especulativa:")
    # the English name of the cycle is kept as a name, so the reader of an English paper knows both words
    assert "Cada **passo** (em inglês **step**, também chamado de **round**) tem quatro partes" in text
    assert BY_NUMBER[2].objective.startswith("Describe one step of speculative decoding:")
    assert "Each **step** (also called a **round**) has four parts" in BY_NUMBER[2].text


def test_the_teaching_plan_says_rodada_only_for_a_vote():
    plan = (ROOT / "docs" / "teaching.pt-BR.md").read_text(encoding="utf-8")
    votes = VOTE_ROUND.findall(plan)
    assert len(votes) >= 20  # the plan does talk about vote rounds: the rule is checked on real uses
    assert _stray(plan) == []
    assert "2. descrever um passo: propor K palpites" in plan
    assert "2. describe one step: propose K drafts" in (ROOT / "docs" / "teaching.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("text, stray", [
    ("Uma pergunta de **duas rodadas** leva cerca de 4 minutos; uma de **uma rodada**, cerca de 2.", 0),
    ("aperte **Iniciar a rodada 2 (depois da discussão)**; o gráfico mostra a rodada 1", 0),
    ("2. descrever uma rodada: propor K palpites", 1),
    ("Descrever uma rodada de decodificação especulativa: propor, verificar", 1),
    ("Cada **rodada** (também chamada de **passo**) tem quatro partes", 1),
])
def test_the_rule_tells_a_vote_round_from_a_decoding_step(text, stray):
    """The old texts' sentences fail it; the plan's vote rounds pass."""
    assert len(_stray(text)) == stray
