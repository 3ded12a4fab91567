"""The Serving page's connection and live panel: which vLLM server, and what its /metrics say as it runs.

The address is checked (`client.base_url`) before anything is sent; every failure is one sentence. Scrapes use a
3-second timeout, and the live panel re-reads /metrics every few seconds in an `st.fragment`, keeping the last
`HISTORY` scrapes in the session so the charts show rates over time.
"""

from __future__ import annotations

import time

import streamlit as st

from specviz.i18n import _, number, percent
from specviz.serving import client
from specviz.serving.metrics import Delta, Scrape, parse_scrape
from specviz.serving.server import SPECS, Server
from specviz.ui import charts as plot
from specviz.ui import serving_charts as charts
from specviz.ui.escaping import escape_markdown
from specviz.ui.frame import speak_visitors_language

HISTORY = 150
REFRESH_S = 3.0
LIVE_KEY = "serving_history"


def server_url() -> str | None:
    """The address field; the checked base URL, or None after one sentence on what is wrong."""
    typed = st.text_input(_("vLLM server"), value=client.LOCAL_URL, key="serving_url", max_chars=500,
                          help=_("The local server from `make serve` by default, or any vLLM server you can reach "
                                 "(a cluster's address). Read-only: specviz reads /metrics and /v1/models and stores "
                                 "no credentials."))
    try:
        return client.base_url(typed)
    except ValueError as exc:
        st.error(escape_markdown(str(exc)))
        return None


def scrape(base: str) -> Scrape:
    """One /metrics read now; a ServerError or ValueError (not vLLM) with one sentence otherwise."""
    return parse_scrape(client.get_text(f"{base}/metrics"), at=time.monotonic())


def _history(base: str) -> list[Scrape]:
    state = st.session_state.get(LIVE_KEY)
    if not state or state["url"] != base:
        state = st.session_state[LIVE_KEY] = {"url": base, "scrapes": []}
    return state["scrapes"]


def probe(base: str) -> Scrape | None:
    """Reads the server once for the page's header; None after a warning sentence when it cannot."""
    try:
        first = scrape(base)
    except ValueError as exc:
        st.warning(escape_markdown(str(exc)))
        return None
    history = _history(base)
    history.append(first)
    del history[:-HISTORY]
    local = Server().state()
    if local is not None and local.url == base:
        st.caption(escape_markdown(_("The local server started by make serve: {spec}, K = {k}.",
                                     spec=_(SPECS[local.spec]), k=local.k)))
    return first


def live_panel(base: str) -> None:
    """The counters since the server started, and their rates over time, refreshed every REFRESH_S seconds."""
    live = st.toggle(_("Live updates"), value=True, key="serving_live",
                     help=_("Re-read /metrics every {seconds} s while this page is open.", seconds=number(REFRESH_S, 0)))
    st.fragment(run_every=REFRESH_S if live else None)(_live_body)(base)


def _live_body(base: str) -> None:
    speak_visitors_language()  # a timed rerun runs in a fresh thread, which speaks English until told
    history = _history(base)
    if not history or time.monotonic() - history[-1].at > 0.5:
        try:
            history.append(scrape(base))
        except ValueError as exc:
            st.warning(escape_markdown(str(exc)))
            if not history:
                return
        del history[:-HISTORY]
    now = history[-1]
    m = st.columns(4)
    rate, mal = now.acceptance_rate, now.mean_accepted_length
    m[0].metric(_("Acceptance rate"), "–" if rate is None else percent(rate, 1),
                help=_("Accepted / drafted tokens since the server started (vLLM's counters). Not α: it stops "
                       "counting a draft at its first rejection."))
    m[1].metric(_("Mean accepted length"), "–" if mal is None else number(mal, 2),
                help=_("1 + accepted / drafts: tokens per verify step, including the one recovered or bonus token "
                       "every step emits (vLLM's definition)."))
    m[2].metric(_("Drafts"), number(now.drafts, 0), help=_("Verify steps that carried drafted tokens, since start."))
    m[3].metric(_("Tokens generated"), number(now.generation_tokens, 0),
                help=_("{running} requests running, {waiting} waiting now.", running=number(now.running, 0),
                       waiting=number(now.waiting, 0)))
    if not now.speculating:
        st.info(_("This server exposes no speculative-decoding counters: it was started without "
                  "--speculative-config. Start one with `make serve SPEC=ngram` to see acceptance."))
    deltas = [Delta.between(a, b) for a, b in zip(history, history[1:])]
    left, right = st.columns([3, 2])
    if deltas:
        plot.show(charts.live_figure(deltas, history[0].at), key="serving_live_chart", where=left,
                  name=_("The server's counters over time: acceptance rate, mean accepted length, drafts and tokens "
                         "per second"))
    else:
        left.caption(_("The charts over time start with the next read, {seconds} s from now.",
                       seconds=number(REFRESH_S, 0)))
    if now.per_position:
        plot.show(charts.per_position_figure(now.per_position), key="serving_position_chart", where=right)
        right.caption(_("Position 1 is the first drafted token; a later position can only be accepted when every "
                        "earlier one was, so the bars fall."))
