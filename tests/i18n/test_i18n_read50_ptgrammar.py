"""Portuguese findings of the 50th read (the catalog's msgstr against its English msgid, and the Portuguese docs);
each test says what the read found."""

from __future__ import annotations

from pathlib import Path

import pytest

from specviz.core.i18n import _, ngettext, using

ROOT = Path(__file__).resolve().parents[2]


def test_a_later_tree_childs_hover_calls_p_prime_and_q_prime_residual_distributions():
    """Read 50: a tree child tried after a rejected sibling hovered "q′ = … · p′ = … (os resíduos que os irmãos
    tentados antes dele deixaram)", and the tree's reading guide said the same: "resíduos" (a statistician's residual
    errors), a second name for what every other Portuguese page calls the residual distribution ("a distribuição
    residual", "o p′ residual"), as the glossary fixes it."""
    from specviz.engine.trace import TreeNode
    from specviz.ui.common.tree_figures import _hover
    from specviz.ui.common.tree_view import TEXT

    later = TreeNode(4, "b", -1, 1, 0.3, 0.4, "accepted", uniform=0.1, accept_prob=0.77,
                     target_prob_used=0.27, draft_prob_used=0.35)
    with using("pt"):
        hover, guide = _hover(1, later), _(TEXT["read_tree"])
    for said in (hover, guide):
        assert "resíduo" not in said, said
    # read 51: only p′ is the residual the siblings left (q′ is q without them, or a point mass), as the guide says;
    # the hover names neither a residual
    assert "p′, a distribuição residual que os irmãos tentados antes dele deixaram, e q′, o q do rascunho" in guide
    assert "(depois que os irmãos tentados antes dele foram rejeitados)" in hover, hover


def test_the_proposers_tree_mask_says_a_node_may_read_as_the_mask_legend_does():
    """Read 50: the Proposers page's tree-mask note said a node "só pode atender ao contexto" and "✓ = pode atender",
    a calque of "attend" ("atender" is to serve or to answer), where the mask's own legend and the tree page say
    "lê" / "pode ler"."""
    from specviz.ui.proposers.view import TREE_TEXT

    with using("pt"):
        said, legend = _(TREE_TEXT["mask"]), _("may read →")
    assert "atender" not in said
    assert "cada nó só pode ler o contexto, os seus próprios ancestrais e a si mesmo" in said and "✓ = pode ler" in said
    assert legend == "pode ler →"


def test_the_acceptance_by_position_caption_says_later_positions_not_final_ones():
    """Read 50: "so its later positions survive more often than α^i" read "as suas posições finais sobrevivem", the
    last positions only, where the English speaks of every position after the first."""
    msgid = ("If every draft were accepted independently with probability α, position i would survive with "
             "probability α^i (dotted). Real acceptance can cluster: an n-gram match, say, keeps going or fails "
             "at once, so its later positions survive more often than α^i.")
    assert msgid[:80] in (ROOT / "pages" / "speedup_lab.py").read_text(encoding="utf-8")  # the page's caption
    with using("pt"):
        said = _(msgid)
    assert "as suas posições posteriores sobrevivem mais vezes que α^i" in said, said
    assert "finais" not in said


def test_a_student_who_missed_a_one_question_session_is_told_of_its_question_not_theirs():
    """Read 50: "This session has ended before you answered its question." read "antes que você respondesse à sua
    pergunta", where "sua" reads as the student's own question; the plural read "das suas {n} perguntas" the same
    way."""
    with using("pt"):
        one = ngettext("This session has ended before you answered its question.",
                       "This session has ended before you answered any of its {n} questions.", 1)
        four = ngettext("This session has ended before you answered its question.",
                        "This session has ended before you answered any of its {n} questions.", 4)
    assert one == "Esta sessão foi encerrada antes que você respondesse à única pergunta dela."
    assert four == "Esta sessão foi encerrada antes que você respondesse a qualquer uma das 4 perguntas dela."


def test_a_tree_level_without_children_is_refused_as_every_other_value_is():
    """Read 50: every Portuguese refusal quotes the value it got as "(recebido: …)"; the Exactness lab's tree level
    alone said "(recebeu 0)"."""
    from specviz.labs.exactness.tree_lab import one_level_samples

    with using("pt"), pytest.raises(ValueError) as refused:
        one_level_samples([0.5, 0.5], [0.5, 0.5], "tree_top_children", 0, 10)
    assert str(refused.value) == "Um nível da árvore precisa de pelo menos um filho (recebido: 0).", str(refused.value)


def test_the_overview_calls_a_plain_target_token_comum_as_plain_decoding_is():
    """Read 50: the Overview's replay said "um token simples do alvo" for a step with no drafts, where plain
    decoding is "decodificação comum" everywhere and the glossary rules out "simples" for it."""
    with using("pt"):
        said = _("no drafts this step: one plain target token")
    assert said == "nenhum palpite neste passo: um token comum do alvo"


def test_the_portuguese_readme_names_the_older_transformers_check_as_the_english_does():
    """Read 50: "its older-transformers check builds a scratch virtualenv" read "o teste do transformers mais antigo",
    the oldest test of transformers, where the check runs the tests under the GPU image's older transformers."""
    readme = " ".join((ROOT / "README.pt-BR.md").read_text(encoding="utf-8").split())
    assert "o teste com a versão mais antiga do transformers monta um virtualenv temporário" in readme
    assert "o teste do transformers mais antigo" not in readme
