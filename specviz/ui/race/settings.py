"""Timeline & race: the settings a race link carries. The live race's settings are one `RunSpec` (checked by it,
refused, never clamped); the page adds which source is raced and which recorded example. Every widget key is also
its URL parameter, and only the settings in use go into the URL, so a shared link opens the same race.
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from specviz.core import urlvalues
from specviz.core.i18n import N_, _, number
from specviz.engine.limits import PAIR_DRAFTERS
from specviz.engine.proposers import registry
from specviz.runs.runspec import WEB_MAX_NEW_TOKENS, RunSpec, float_text, link_refusal, setting_of, setting_refusal
from specviz.ui.race.tree import TREE_FIELDS

# The words below are marked with N_() and translated with _() where they are shown (never at import).
RACE_PAIRS = ("toy", "default")  # the pairs a race offers (the toy pair first: it is instant)
SOURCES = {"example": N_("Recorded example (instant)"), "live": N_("Live run")}
DEFAULTS = RunSpec(pair="toy", proposer="draft", prompt="the quick brown fox jumps over the lazy dog. the quick", k=4,
                   max_new_tokens=48, temperature=1.0)
# widget key (also its URL parameter) -> the RunSpec field it holds; checked by RunSpec, refused, never clamped
RUN_FIELDS = {"race_pair": "pair", "race_proposer": "proposer", "race_prompt": "prompt", "race_k": "k",
              "race_max_new": "max_new_tokens", "race_temperature": "temperature", "race_seed": "seed",
              **TREE_FIELDS}
PAGE_FIELDS = {"race_source": "example", "race_example": ""}  # the page's own settings and their defaults
# What switching the models sets (issue 27 item 3: SmolLM2 at T = 1 wrote word salad and a 3-round race of 48 tokens
# took 289 s on a busy machine): the real model races greedy, shorter, two rounds, so a student gets a conclusion
# sooner (`inputs.race_estimate` says how long before the race starts, from a measured speed). The toy pair keeps
# T = 1 (its drafts are noise: sampling shows every kind).
PAIR_DEFAULTS = {"toy": {"race_temperature": 1.0, "race_max_new": 48},
                 "default": {"race_temperature": 0.0, "race_max_new": 32}}
ROUNDS_BY_PAIR = {"toy": 3, "default": 2}  # rounds of a live race; the page shows their median and spread


def pair_proposers(pair: str) -> tuple[str, ...]:
    """Who can draft for a race's pair, best first (`specviz.engine.proposers.registry.offered`).

    >>> pair_proposers("toy")
    ('draft', 'ngram', 'layerskip')
    """
    return registry.offered(PAIR_DRAFTERS[pair])


PAIR_PROMPTS = {"toy": DEFAULTS.prompt, "default": "Explain owls using an analogy."}  # a prompt each model can answer


def pair_changed() -> None:
    """The models switch's callback: that pair's defaults for temperature and length, the K, node budget and width of
    its draft shape for this machine (`fastest_here`: the one predicted fastest greedy from this machine's
    calibration, else the catalog's; not its lookup branch, which the race's tree lane does not draft), and its
    prompt where the prompt is still the other pair's default (the student may change them again; a link's values
    are kept, since a link never calls this)."""
    from specviz.ui.common.this_machine import fastest_here

    pair = st.session_state.get("race_pair")
    st.session_state.update(PAIR_DEFAULTS.get(pair, {}))
    if pair in PAIR_PROMPTS and st.session_state.get("race_prompt", "").strip() in set(PAIR_PROMPTS.values()):
        st.session_state["race_prompt"] = PAIR_PROMPTS[pair]
    if pair == "default":
        shape, _prediction = fastest_here(pair, float(st.session_state.get("race_temperature", 0.0)))
        st.session_state.update({"race_k": shape.k, "race_tree_nodes": shape.tree_nodes,
                                 "race_tree_width": shape.tree_width})


def parse_url(params: dict[str, str]) -> tuple[dict[str, object], dict[str, str]]:
    """(widget values from the URL's usable parameters, by the name the link writes for each unusable one (read 50:
    the refusal named "example", "prompt", words no link holds, for race_example and race_prompt) the phrase that
    says what it accepts and the value the link gave (read 52: it named only the parameter)).

    >>> parse_url({"race_k": "40", "race_seed": "5", "race_source": "live"})
    ({'race_source': 'live', 'race_seed': 5}, {'race_k': 'race_k must be a whole number from 1 to 16 (got 40)'})
    >>> parse_url({"race_pair": "toy", "race_proposer": "eagle"})[1]  # a proposer the pair does not offer
    {'race_proposer': "race_proposer must be one of draft, ngram, layerskip (got 'eagle')"}
    """
    values: dict[str, object] = {}
    bad: dict[str, str] = {}
    if "race_source" in params:
        if params["race_source"] in SOURCES:
            values["race_source"] = params["race_source"]
        else:
            bad["race_source"] = link_refusal("race_source", params["race_source"], _choices(SOURCES))
    if "race_example" in params:
        example = urlvalues.text(str(params["race_example"]), 100)
        if example is None:
            bad["race_example"] = link_refusal("race_example", params["race_example"],
                                               _("text of at most {limit} characters", limit=number(100, 0)))
        else:
            values["race_example"] = example  # checked against the installed examples when shown
    for key, field in RUN_FIELDS.items():
        if key not in params:
            continue
        raw = params[key]
        spec, problems = RunSpec.parse_query({field: raw}, DEFAULTS)
        value = getattr(spec, field)
        if problems and not problems[0].startswith(f"{field} "):  # a sentence of its own (a lookup with no tree)
            bad[key] = problems[0]
            continue
        if field == "max_new_tokens" and (problems or value > WEB_MAX_NEW_TOKENS):  # this page's top, not RunSpec's
            rule = replace(setting_of(field), hi=WEB_MAX_NEW_TOKENS).rule()
        elif problems:
            bad[key] = setting_refusal(key, raw, field)  # named as the link writes it: race_k, not k
            continue
        elif field == "pair" and value not in RACE_PAIRS:
            rule = _choices(RACE_PAIRS)
        else:
            values[key] = value
            continue
        bad[key] = link_refusal(key, raw, rule)  # named as the link writes it: race_k, not k
    pair = str(values.get("race_pair", DEFAULTS.pair))
    if "race_proposer" in values and values["race_proposer"] not in pair_proposers(pair):
        # eagle for the toy pair: refused with the others, not silently swapped for draft
        bad["race_proposer"] = link_refusal("race_proposer", params["race_proposer"], _choices(pair_proposers(pair)))
        values.pop("race_proposer")
    return values, bad


def _choices(names) -> str:
    return _("one of {choices}", choices=", ".join(names))


def init_from_url() -> list[str]:
    """Fill session state from the URL once per session; returns one phrase per unusable URL value (`parse_url`)."""
    if "race_url_read" in st.session_state:
        return []
    st.session_state["race_url_read"] = True
    values, bad = parse_url({k: st.query_params[k] for k in st.query_params})
    defaults = {**PAGE_FIELDS, **{key: getattr(DEFAULTS, field) for key, field in RUN_FIELDS.items()},
                **PAIR_DEFAULTS.get(str(values.get("race_pair", DEFAULTS.pair)), {})}
    for key, default in defaults.items():
        st.session_state.setdefault(key, values.get(key, default))
    return list(bad.values())


def write_url() -> None:
    """Put the settings in use into the URL (the example's name, or the live-run settings), so the page can be
    shared or reloaded as it is."""
    source = st.session_state.get("race_source", "example")
    used = {"race_source", "race_example"} if source == "example" else {"race_source", *RUN_FIELDS}
    if not st.session_state.get("race_tree_nodes"):  # no tree lane: chain links stay as they were
        used -= set(TREE_FIELDS)
    for key in (*PAGE_FIELDS, *RUN_FIELDS):
        if key not in used:
            if key in st.query_params:
                del st.query_params[key]
            continue
        value = st.session_state.get(key)
        text = float_text(value) if isinstance(value, float) else str(value)  # every digit the run used
        if st.query_params.get(key) != text:
            st.query_params[key] = text

