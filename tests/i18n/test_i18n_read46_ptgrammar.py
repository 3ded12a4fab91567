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
