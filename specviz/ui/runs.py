"""Models and traces for the pages: loaded once per server, shared safely between browser sessions.

Models are cached with `st.cache_resource` (one copy per server process). Generation on a shared model is
serialised with a per-pair lock, because each call keeps its own KV caches but the CPU is better used by one
generation at a time than by several fighting for two cores. Traces are cached with `st.cache_data`, keyed by
every setting that changes them (same settings + same seed = same trace), and each session gets its own copy.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import streamlit as st

from specviz.baseline import autoregressive_generate
from specviz.decoding import speculative_generate
from specviz.models import Pair, encode_prompt, load_pair
from specviz.proposers import make_proposer
from specviz.trace import Trace


@dataclass(frozen=True)
class RunSettings:
    """Everything that decides a trace; hashable so it can key caches and be bound to the URL."""

    pair: str = "toy"
    proposer: str = "draft"
    prompt: str = "Why is the sky blue?"
    chat: bool = True
    k: int = 4
    max_new_tokens: int = 32
    temperature: float = 0.7
    top_k: int = 0
    top_p: float = 1.0
    seed: int = 0
    layers: int | None = None


@st.cache_resource(show_spinner=False, max_entries=3)
def _loaded_pair_and_lock(name: str) -> tuple[Pair, threading.Lock]:
    return load_pair(name), threading.Lock()


@st.cache_resource(show_spinner=False)
def _lock_for(name: str) -> threading.Lock:
    return threading.Lock()


def _pair_and_lock(name: str) -> tuple[Pair, threading.Lock]:
    """A pair loaded by hand on the Models page is reused as it is (no second copy in memory); any other is
    loaded once per server."""
    from specviz.ui.models_view import loaded_pair

    by_hand = loaded_pair(name) if name not in ("toy", "default") else None
    if by_hand is not None:
        return by_hand, _lock_for(name)
    return _loaded_pair_and_lock(name)


def get_pair(name: str) -> Pair:
    """The loaded pair, with a status box while a slow first load runs (the GGUF conversion takes ~15 s)."""
    return _get(name)[0]


def _get(name: str) -> tuple[Pair, threading.Lock]:
    if name == "toy":
        return _pair_and_lock(name)
    with st.status(f"Loading the '{name}' models (the first load converts the weights, about 15 s)...",
                   expanded=False) as status:
        result = _pair_and_lock(name)
        status.update(label=f"Models '{name}' ready.", state="complete")
    return result


@st.cache_data(show_spinner=False, max_entries=64)
def _speculative(settings: RunSettings) -> Trace:
    pair, lock = _pair_and_lock(settings.pair)
    ids = encode_prompt(pair.tokenizer, settings.prompt, chat=pair.chat and settings.chat)
    proposer = make_proposer(pair, settings.proposer, layers=settings.layers)
    with lock:
        trace = speculative_generate(
            pair.target, proposer, ids, k=settings.k, max_new_tokens=settings.max_new_tokens,
            temperature=settings.temperature, top_k=settings.top_k, top_p=settings.top_p, seed=settings.seed,
            tokenizer=pair.tokenizer,
        )
    trace.meta.update(pair=settings.pair, proposer=proposer.name, chat=settings.chat, prompt=settings.prompt)
    return trace


@st.cache_data(show_spinner=False, max_entries=64)
def _autoregressive(settings: RunSettings) -> Trace:
    pair, lock = _pair_and_lock(settings.pair)
    ids = encode_prompt(pair.tokenizer, settings.prompt, chat=pair.chat and settings.chat)
    with lock:
        trace = autoregressive_generate(
            pair.target, ids, max_new_tokens=settings.max_new_tokens, temperature=settings.temperature,
            top_k=settings.top_k, top_p=settings.top_p, seed=settings.seed, tokenizer=pair.tokenizer,
        )
    trace.meta.update(pair=settings.pair, proposer="none", chat=settings.chat, prompt=settings.prompt)
    return trace


def run_speculative(settings: RunSettings) -> Trace:
    """The speculative trace for these settings (ValueError with one sentence on bad input)."""
    _get(settings.pair)
    with st.spinner("Running speculative decoding..."):
        return _speculative(settings)


def run_autoregressive(settings: RunSettings) -> Trace:
    """The target-only trace for the same settings (the race's other lane)."""
    _get(settings.pair)
    with st.spinner("Running target-only decoding..."):
        return _autoregressive(settings)
