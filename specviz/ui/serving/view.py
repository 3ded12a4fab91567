"""The Serving page's connection and live panel: which vLLM server, and what its /metrics say as it runs.

The address is checked (`client.base_url`, then `client.allowed`: this machine unless the operator lists the host)
before anything is sent; every failure is one neutral sentence. A scrape has a 3-second total deadline, and the live
panel re-reads /metrics every few seconds in a live fragment (`specviz.ui.common.frame.live_fragment`, only while its tab
is open), keeping the last `HISTORY` scrapes in the session so the charts show rates over time. After a failed read
it waits longer before the next one (REFRESH_S doubling up to BACKOFF_MAX_S), so a wrong address costs a server
little.
"""

from __future__ import annotations

import time

import streamlit as st

from specviz.core.i18n import _, number, percent
from specviz.serving import client
from specviz.serving.metrics import Delta, Scrape, parse_scrape
from specviz.serving.server import SPECS, Server
from specviz.ui.common import charts as plot
from specviz.ui.common.escaping import escape_markdown
from specviz.ui.common.frame import live_fragment
from specviz.ui.serving import charts

HISTORY = 150
REFRESH_S = 3.0
BACKOFF_MAX_S = 60.0
LIVE_KEY = "serving_history"


def server_url() -> str | None:
    """The address field; the checked base URL, or None after one sentence on what is wrong."""
    typed = st.text_input(_("vLLM server"), value=client.LOCAL_URL, key="serving_url", max_chars=500,
                          help=_("The local server from `make serve` by default. Another server only if whoever "
                                 "runs this app lists its host in $SPECVIZ_SERVING_HOSTS. specviz reads /metrics and "
                                 "/v1/models; only the Load generator's sweep sends it chat requests "
                                 "(/v1/chat/completions). No credentials are sent or stored."))
    try:
        base = client.base_url(typed)
    except ValueError as exc:
        st.error(escape_markdown(str(exc)))
        return None
    if not client.allowed(base):  # said before anything is resolved or sent
        st.error(escape_markdown(str(client.not_allowed())))
        return None
    return base


def scrape(base: str) -> Scrape:
    """One /metrics read now; otherwise a ServerError with the one neutral sentence (a page that answers but is not
    vLLM's is not told apart from one that does not answer)."""
    text = client.get_text(f"{base}/metrics")
    try:
        return parse_scrape(text, at=time.monotonic())
    except ValueError:
        raise client.ServerError(_(client.NO_ANSWER, url=base)) from None


def _state(base: str) -> dict:
    state = st.session_state.get(LIVE_KEY)
    if not state or state["url"] != base:
        # "since": the first read's time, the live chart's zero ("seconds since you connected"); kept apart from
        # the scrapes, which keep only the last HISTORY reads (7.5 minutes at REFRESH_S)
        state = st.session_state[LIVE_KEY] = {"url": base, "scrapes": [], "failures": 0, "next_at": 0.0,
                                              "problem": None, "since": None}
    return state


def _history(base: str) -> list[Scrape]:
    return _state(base)["scrapes"]


def read_now(base: str) -> Scrape | None:
    """A new scrape added to the history, unless an earlier failure asks to wait (None then, or on a failure, whose
    sentence is kept in the state); each failure in a row doubles the wait, up to BACKOFF_MAX_S."""
    state = _state(base)
    now = time.monotonic()
    if now < state["next_at"]:
        return None
    try:
        scraped = scrape(base)
    except ValueError as exc:
        state["failures"] += 1
        state["next_at"] = now + min(REFRESH_S * 2 ** min(state["failures"], 10), BACKOFF_MAX_S)
        state["problem"] = str(exc)
        return None
    state.update(failures=0, next_at=0.0, problem=None)
    history = state["scrapes"]
    if state.get("since") is None:
        state["since"] = scraped.at
    history.append(scraped)
    del history[:-HISTORY]
    return scraped


def probe(base: str) -> Scrape | None:
    """Reads the server for the page's header (or the last read, while failures ask to wait); None after a warning
    sentence when it cannot."""
    first = read_now(base)
    state = _state(base)
    if first is None and (state["problem"] or not state["scrapes"]):
        st.warning(escape_markdown(state["problem"] or _(client.NO_ANSWER, url=base)))
        return None
    first = first or state["scrapes"][-1]
    local = Server().state()
    if local is not None and local.url == base:  # no K for a server that drafts nothing
        st.caption(escape_markdown(_("The local server started by make serve: {spec}.", spec=_(SPECS[local.spec]))
                                   if local.spec == "none" else
                                   _("The local server started by make serve: {spec}, K = {k}.",
                                     spec=_(SPECS[local.spec]), k=local.k)))
    return first


def live_panel(base: str) -> None:
    """The counters since the server started, and their rates over time, refreshed every REFRESH_S seconds."""
    live = st.toggle(_("Live updates"), value=True, key="serving_live",
                     help=_("Re-read /metrics every {seconds} s while this page is shown (a hidden browser tab "
                            "pauses it).", seconds=number(REFRESH_S, 0)))
    live_fragment(_live_body, run_every=REFRESH_S if live else None)(base)


def _live_body(base: str) -> None:
    """The live panel's fragment (run by `live_fragment`, so in the session's language; a failure is one sentence)."""
    history = _history(base)
    if not history or time.monotonic() - history[-1].at > 0.5:
        read_now(base)
        problem = _state(base)["problem"]
        if problem:
            st.warning(escape_markdown(problem))
        if not history:
            return
    now = history[-1]
    m = st.columns(4)
    rate, mal = now.acceptance_rate, now.mean_accepted_length
    m[0].metric(_("Acceptance rate"), "–" if rate is None else percent(rate, 1),
                help=_("Accepted / drafted tokens since the server started (vLLM's counters). Not α: the drafts "
                       "after a step's first rejection count as drafted, never as accepted."))
    m[1].metric(_("Mean accepted length (drafted steps)"), "–" if mal is None else number(mal, 2),
                # read 54: "never below the tokens per target pass" holds per request; one batched target pass
                # emits tokens for each of its requests, so 16 streams' pass can emit far more than this mean
                help=_("1 + accepted / steps with drafts, computed here from vLLM's counters since the server "
                       "started (its /metrics page holds the counters, not this mean, which its log lines print): "
                       "tokens per verify step of one request, including the one recovered or bonus token every "
                       "step emits. Steps that drafted nothing (n-gram lookup without a match) are left out, so for "
                       "n-gram lookup it can read above a request's tokens per step over all its steps (a step "
                       "without drafts emits one), never below. It counts per request: with several requests "
                       "batched, one target pass emits tokens for each of them, more than this mean."))
    m[2].metric(_("Steps with drafts"), number(now.drafts, 0),
                help=_("Verify steps that carried drafted tokens since the server started, counted per request "
                       "(vLLM's num_drafts: one request's step, not a drafted token; a forward over several running "
                       "requests counts once for each of them that carried drafts)."))
    m[3].metric(_("Tokens generated"), number(now.generation_tokens, 0),
                # counts after a colon agree with any number: "1 requests running" (and "1 requisições") read wrong
                help=_("Generated since the server started. Requests now: {running} running, {waiting} waiting.",
                       running=number(now.running, 0), waiting=number(now.waiting, 0)))
    if not now.speculating:
        # Read 45: `make serve SPEC=ngram` refuses while a server `make serve` started runs ("stop it first")
        st.info(_("This server exposes no speculative-decoding counters: it was started without "
                  "--speculative-config. To see acceptance, serve with speculation: `make serve SPEC=ngram` (if "
                  "`make serve` started this one, stop it first with `make serve-stop`)."))
    deltas = [Delta.between(a, b) for a, b in zip(history, history[1:])]
    left, right = st.columns([3, 2])
    if deltas:
        since = _state(base).get("since")
        plot.show(charts.live_figure(deltas, history[0].at if since is None else since), key="serving_live_chart",
                  where=left,
                  name=_("What the server's counters give over time: acceptance rate, mean accepted length over "
                         "drafted steps, steps with drafts and tokens per second"))
    elif st.session_state.get("serving_live", True):
        left.caption(_("The charts over time start with the next read, {seconds} s from now.",
                       seconds=number(REFRESH_S, 0)))
    else:  # read 53: with Live updates off no read comes in 3 s, which the caption above promised
        left.caption(_("The charts over time start with the next read: Live updates is off, so turn it on to read "
                       "/metrics again."))
    if now.per_position:
        # vLLM's counters are totals since the server started (a restart sets them to zero), so this chart counts
        # over the server's whole life, where the charts over time use the difference between two reads
        plot.show(charts.per_position_figure(now.per_position), key="serving_position_chart", where=right,
                  name=_("Acceptance by position since the server started"))
        right.caption(_("Counted since the server started, not since you connected. Position 1 is the first "
                        "drafted token; a later position can only be accepted when every earlier one was, so no bar "
                        "is taller than the one before it (two can be level)."))
