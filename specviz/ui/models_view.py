"""Streamlit pieces of the Models page: the catalog table, a memory check against this machine, and the
"pair by hand" form that validates and loads two local folders or Hub ids. The checks themselves live in
specviz.loading; this module only gathers inputs and shows results, every error as one sentence. A pair loaded by
hand goes into the one pair cache, `specviz.runspec.PAIRS`, under its spec; the page records the spec with
`state.set_custom_pair`, and the Playground finds both."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st
import torch
from streamlit.errors import StreamlitAPIException

from specviz.catalog import CatalogEntry, catalog_rows, load_catalog
from specviz.loading import (DEFAULT_CONTEXT, Machine, ModelLoadError, detect_machine, estimate_entry, gb,
                             pick_device, pick_dtype, plan_placement)
from specviz.machine import SpeedEstimate, measure_bandwidth, speed_from_bandwidth, speed_from_reference
from specviz.models import Pair, load_pair
from specviz.running import PAIRS
from specviz.ui.model_access import ENABLE_ENV, ROOT_ENV, WebModelPolicy
from specviz.ui.escaping import escape_markdown

DEVICE_CHOICES = ("auto", "cpu", "cuda", "mps")
DTYPE_CHOICES = ("auto", "float32", "bfloat16", "float16")


@st.cache_resource(show_spinner=False)
def _catalog() -> dict[str, CatalogEntry]:
    return load_catalog()


def catalog() -> dict[str, CatalogEntry]:
    """The bundled catalog; a broken file is one st.error sentence and an empty catalog."""
    try:
        return _catalog()
    except ValueError as exc:
        st.error(escape_markdown(exc))
        return {}


def machine_summary(machine: Machine) -> str:
    """One line: the GPUs with free memory, MPS, available RAM."""
    parts = [f"{g.name} ({gb(g.free_bytes)} free of {gb(g.total_bytes)})" for g in machine.gpus]
    if machine.mps:
        parts.append("Apple GPU (MPS, memory shared with the CPU)")
    parts.append(f"{gb(machine.ram_available_bytes)} of RAM available")
    return "This machine: " + ", ".join(parts) + ("" if machine.gpus or machine.mps else ", no GPU") + "."


SIZE_COLUMNS = ("name", "target", "draft", "params (B)", "bfloat16 GB", "float32 GB", "K")
USE_COLUMNS = ("name", "device", "hardware", "licence", "gated")


def catalog_table(entries: dict[str, CatalogEntry]) -> None:
    """The catalog as two tables that wrap their text, so no column hides behind a horizontal scroll: the models and
    their sizes, then where each pair runs and under which licence."""
    if not entries:
        return
    rows = pd.DataFrame(catalog_rows(entries))
    for column in ("bfloat16 GB", "float32 GB"):
        rows[column] = rows[column].map(lambda gb_: f"{gb_:.2f}")
    rows["params (B)"] = [" + ".join(f"{m.params_billion:.3g}" for m in e.models) for e in entries.values()]
    st.table(rows[list(SIZE_COLUMNS)].set_index("name"))
    st.markdown("**Where each pair runs, and its licence**")
    st.table(rows[list(USE_COLUMNS)].set_index("name"))
    st.caption("Memory = weights only, parameters x 4 bytes (float32) or x 2 bytes (bfloat16), GB = 10^9 bytes; "
               f"the check below adds a KV cache of {DEFAULT_CONTEXT} tokens when it reads the models' configs. "
               "Gated repositories need you to accept the licence on the model's Hub page and `hf auth login`.")


def memory_check(entries: dict[str, CatalogEntry], machine: Machine) -> None:
    """Pick a catalog pair, a device and a dtype; see whether it fits here and where it would go."""
    names = list(entries)
    if not names:
        return
    left, mid, right = st.columns([2, 1, 1])
    name = left.selectbox("Pair", names, index=names.index("qwen2.5-0.5b-7b") if "qwen2.5-0.5b-7b" in names else 0,
                          key="models_check_pair")
    device_choice = mid.selectbox("Device", DEVICE_CHOICES, key="models_check_device")
    dtype_choice = right.selectbox("Dtype", DTYPE_CHOICES, key="models_check_dtype")
    entry = entries[name]
    try:
        device = pick_device(None if device_choice == "auto" else device_choice, machine)
        dtype = pick_dtype(device, None if dtype_choice == "auto" else dtype_choice, machine)
        estimate = estimate_entry(entry, dtype)
        placement = plan_placement(estimate, machine, device)
    except ModelLoadError as exc:
        st.warning(escape_markdown(exc))
        return
    st.success(escape_markdown(f"{estimate.sentence()}: it fits ({placement.describe()}). Suggested K = {entry.k}; "
                    f"sized for {entry.hardware}."))
    st.info(escape_markdown(speed_estimate(estimate.weights_bytes[0], device).sentence()))


@st.cache_resource(show_spinner="Measuring this machine's memory bandwidth...")
def _bandwidth(device: str) -> float:
    return measure_bandwidth(device)


REFERENCE = ("default", "SmolLM2-135M", 135e6 * 4)  # pair name, how to call it, weight bytes (float32)


def speed_estimate(target_bytes: int, device: torch.device) -> SpeedEstimate:
    """How slow plain decoding with a target of `target_bytes` would be on `device` here: scaled from SmolLM2-135M's
    quickest measured forward when a race has timed it on this device in this server, else the floor set by the
    memory bandwidth, measured once per server process."""
    from specviz.ui.race_view import quiet_forwards  # the race page records what it measured

    name, shown, reference_bytes = REFERENCE
    measured_ms = quiet_forwards().get((name, device.type))
    if measured_ms:
        return speed_from_reference(target_bytes, int(reference_bytes), measured_ms / 1000, shown)
    return speed_from_bandwidth(target_bytes, _bandwidth(str(device)))


@dataclass(frozen=True)
class HandPair:
    target: str
    draft: str
    device: str
    dtype: str

    @property
    def spec(self) -> str:
        return ",".join(x for x in (self.target.strip(), self.draft.strip()) if x)


def hand_form(policy: WebModelPolicy) -> HandPair | None:
    """The "pair by hand" form, if the operator allows it; the submitted values, or None before the button is
    pressed. Remote code is never trusted from the browser."""
    if not policy.enabled:
        st.info(f"Loading models by hand is turned off on this server. Its operator can allow Hugging Face Hub ids "
                f"with `{ENABLE_ENV}=1`, and local folders inside one folder with `{ROOT_ENV}=/path/to/models`. On "
                "your own machine, the command line loads any pair: `python -m specviz generate --pair "
                "TARGET,DRAFT`.")
        return None
    where = "a Hugging Face Hub id" + (" or a folder inside the allowed models folder" if policy.root else "")
    with st.form("models_hand_form"):
        target = st.text_input(f"Target: {where}", key="models_target", max_chars=300,
                               placeholder="Qwen/Qwen2.5-1.5B-Instruct")
        draft = st.text_input(f"Draft: {where} (empty = self-drafting only)", key="models_draft", max_chars=300,
                              placeholder="Qwen/Qwen2.5-0.5B-Instruct")
        left, right = st.columns(2)
        device = left.selectbox("Device", DEVICE_CHOICES, key="models_hand_device")
        dtype = right.selectbox("Dtype", DTYPE_CHOICES, key="models_hand_dtype")
        submitted = st.form_submit_button("Check and load", type="primary")
    if not submitted:
        return None
    return HandPair(target, draft, device, dtype)


_LOADED_WITH: dict[str, tuple[str, str]] = {}  # spec -> (device, dtype) it was loaded with


def _load(spec: str, device: str, dtype: str, progress) -> Pair:
    """Load a pair by hand into the one pair cache, or reuse it when the same spec is there with the same settings.
    Never with remote code. Not st.cache_resource: the progress callback writes into a status box made outside the
    function, which Streamlit's cache cannot replay."""
    settings = (device, dtype)
    with PAIRS.turn(spec):  # one load at a time, and never under a running generation
        pair = PAIRS.loaded(spec)
        if pair is None or _LOADED_WITH.get(spec) != settings:
            pair = load_pair(spec, device=None if device == "auto" else device,
                             dtype=None if dtype == "auto" else dtype, trust_remote_code=False, progress=progress)
            PAIRS.put(spec, pair)
            _LOADED_WITH[spec] = settings
    return pair


def loaded_pair(spec: str) -> Pair | None:
    """The pair loaded for `spec` (the value of `state.custom_pair()`), if it is still in memory."""
    return PAIRS.loaded(spec)


def load_hand_pair(hand: HandPair, policy: WebModelPolicy) -> Pair | None:
    """Check the references against the operator's policy, then load the pair with download and load progress in a
    status box; None (and one sentence, shown, not folded away) when it cannot work."""
    try:
        refs = [policy.check(hand.target, "target")] + ([policy.check(hand.draft, "draft")] if hand.draft.strip()
                                                         else [])
    except ValueError as exc:
        st.error(escape_markdown(exc))
        return None
    hand = HandPair(refs[0], refs[1] if len(refs) > 1 else "", hand.device, hand.dtype)
    with st.status(f"Checking and loading {escape_markdown(hand.spec)}...", expanded=True) as status:
        steps, current = [], status.empty()

        def progress(message: str) -> None:  # a new step gets a line; ticks of the same download rewrite it
            if steps and ":" in message and message.split(":")[0] == steps[-1].split(":")[0]:
                steps[-1] = message
            else:
                steps.append(message)
            current.markdown("  \n".join(escape_markdown(m) for m in steps))
            status.update(label=escape_markdown(message))
        problem = None
        try:
            pair = _load(hand.spec, hand.device, hand.dtype, progress)
        except ValueError as exc:
            problem = escape_markdown(exc)
        except Exception as exc:  # noqa: BLE001 - a broken weight file or config: one sentence, no traceback, no path
            problem = (f"The models could not be loaded ({type(exc).__name__}): their files are damaged or not a "
                       "causal language model specviz can run.")
        if problem is None:
            status.update(label=f"Loaded {escape_markdown(hand.spec)}.", state="complete", expanded=False)
        else:
            status.update(label="This pair cannot be used: the reason is below.", state="error", expanded=False)
    if problem is not None:  # outside the status box, which folds away: the reason is what the visitor needs
        st.error(problem)
        return None
    return pair


def show_loaded(pair: Pair) -> None:
    """What was loaded, where, and how to use it next."""
    info = pair.info
    what = "a separate draft model" if pair.draft is not None else "no separate draft (layer-skip or n-gram only)"
    lines = [f"**{escape_markdown(pair.name)}**: {what}; chat template {'yes' if pair.chat else 'no'}."]
    if info is not None:
        lines.append(f"{escape_markdown(info.estimate.sentence())} (a KV cache of {info.estimate.context} tokens "
                     f"included); {escape_markdown(info.placement)}, {escape_markdown(info.dtype)}.")
    st.success("  \n".join(lines))
    st.info("The pair is stored for this session: open the **Playground** to generate with it.")
    try:
        st.page_link("pages/playground.py", label="Open the Playground", icon=":material/play_circle:")
    except StreamlitAPIException:  # the page run on its own, outside the app's navigation
        pass


def current_machine() -> Machine:
    return detect_machine()


DRAFT_TITLES = {"eagle": "EAGLE-style feature drafter (the default's proposer)", "draft": "Separate draft model"}


def trained_drafts() -> None:
    """The drafts trained here for the offline target, each with its model card."""
    from specviz.drafts import shipped_drafts
    drafts = shipped_drafts()
    if not drafts:
        st.info("No trained drafts in assets/models: `python -m specviz.distill all` makes them.")
        return
    for d in drafts:
        meta = d["meta"]
        with st.expander(f"{DRAFT_TITLES.get(meta['kind'], meta['kind'])}: {d['name']} ({d['megabytes']:.1f} MB)"):
            st.markdown(d["card"])
