"""Portuguese grammar findings of the 46th read (the catalog's msgstr); each test says what the read found."""

from __future__ import annotations

import pytest

from specviz.cli import format_summary
from specviz.core.i18n import _, using
from specviz.engine.kinds import StopReason
from specviz.engine.trace import EmittedToken, Step, Trace

SAID = {StopReason.EOS: "parou por fim de sequência (eos)",
        StopReason.MAX_NEW_TOKENS: "parou por limite de tokens (max_new_tokens)",
        StopReason.DEADLINE: "parou por limite de tempo (deadline)"}


@pytest.mark.parametrize("reason", list(StopReason))
def test_the_cli_summary_says_why_a_run_stopped_without_a_missing_article(reason):
    """The CLI summary put the stop reason, a noun, after "parou em": "parou em limite de tokens (max_new_tokens)"
    wants the article ("no limite"), which a placeholder after "em" cannot give (the Playground's "Done" line
    already avoids it with whole sentences). "parou por" takes each of the three nouns without one."""
    steps = [Step(0, 2, 0, "target", [], [EmittedToken(6, "a", "target")])]
    trace = Trace("speculative", {}, [1, 2], [6], steps, stop_reason=reason)
    with using("pt"):
        first = format_summary(trace).splitlines()[0]
    assert first == f"resumo: 1 passo, 1 token, {SAID[reason]}"
    assert "parou em" not in first


def test_the_unknown_session_warning_offers_the_servers_sessions_not_the_readers():
    """English offers "one of its sessions" (the server's: the list holds every session on it, whoever started it);
    the Portuguese "uma das suas sessões", said to "você" in an imperative, reads "one of your sessions"."""
    with using("pt"):
        said = _("There is no session {code} on this server. Pick one of its sessions below.", code="X")
    assert said.endswith("Escolha abaixo uma das sessões deste servidor.")
    assert "suas sessões" not in said


def test_the_exactness_note_says_a_larger_k_drafts_no_more_tokens_not_nothing_more():
    """Read 46 (review): "A larger K drafts no more here" (no more tokens than K = {most} does) read "Um K maior não
    rascunha mais nada aqui", which reads as "drafts nothing any more"; it now says no token more."""
    with using("pt"):
        said = _("{note}. A larger K drafts no more here: with this seed, every K from {most} up draws these same "
                 "continuations", note="N", most=2)
    assert said.startswith("N. Um K maior não rascunha nenhum token a mais aqui: com esta semente, todo K a partir "
                           "de 2 sorteia")
    assert "mais nada" not in said


def test_the_sweep_caption_says_how_many_requests_above_the_level_in_agreeing_portuguese():
    """Read 46: "pelo menos uma por fluxo, então tantas quantos fluxos acima de 16" ("as many as there are streams
    above 16") mixed the genders of "tantas" and "quantos" with no verb; it now reads "acima de 16 fluxos, tantas
    quantos forem os fluxos"."""
    msgid = ("{build} ({version}), {model} in {dtype}, K = {k}, {requests} requests a level (at least one per stream, so "
             "as many as there are streams above {requests}), each level measured once, at most {max_tokens} tokens "
             "each; {cpu}, {cores} cores, {date}.")
    with using("pt"):
        said = _(msgid, build="vLLM", version="0.32", model="m", dtype="float32", k=4, requests=16, max_tokens=128,
                 cpu="AMD EPYC", cores=2, date="2026-12-06")
    assert "então, acima de 16 fluxos, tantas quantos forem os fluxos)" in said and "tantas quantos fluxos" not in said
