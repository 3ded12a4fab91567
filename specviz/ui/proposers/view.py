"""The Proposers page's pieces: who can propose drafts, what each costs and needs, where it wins and loses, a
diagram each, a recorded trace where specviz has the proposer, the quiz questions that test it, and tree
verification.

Every sentence a reader sees is in `PROPOSERS` (the diagrams' labels included), `TREE_TEXT` or `TEXT` below (or, for a
proposer registered without a section here, its label and note in `specviz.engine.proposers.registry`), marked
with `N_()` (named placeholders, no sentences glued together) and translated with `_()` where it is drawn; a
diagram's labels (`DIAGRAM_LABELS`, gathered from the diagrams) are translated by `diagram()`. p = target, q = draft
throughout.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from streamlit.errors import StreamlitAPIException

from specviz.core.i18n import N_, _, get_language, number, small_number
from specviz.engine.proposers import registry
from specviz.engine.trace import Trace
from specviz.engine.tree import mask_rows
from specviz.labs.bench import quoted
from specviz.labs.exactness import one_step_distribution
from specviz.labs.examples import list_examples, load_example
from specviz.teach.quiz import BANK_DIR, load_bank
from specviz.ui.common import charts
from specviz.ui.common.escaping import escape_markdown
from specviz.ui.common.palette import BLUISH_GREEN, P_COLOR, REDDISH_PURPLE
from specviz.ui.common.tokens import output_html

# Streamlit draws every text of a graphviz chart at calc(0.75rem × 0.8) = 10.2 units of the SVG (its GraphVizChart
# style sets font-size on `*`), whatever fontsize the dot names; the dot's fontsize only sizes the boxes. At 16 the
# boxes were laid out for 1.6× the text drawn, so a wide diagram (Medusa's, over 440 units in Portuguese) was shrunk
# to its 356 px column (at 1400 px as on a phone) and its text with it, to 8 px. Laid out for the size drawn, with
# thinner margins and, left to right, closer ranks, the diagrams are narrower: their text shows at 10.2 × 4/3 ≈
# 13.6 px wherever they fit (an SVG unit is a point), Medusa's at 12 px or more in both languages.
_NODE = 'node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11, margin="0.1,0.05"];'
_EDGE = 'edge [fontname="Helvetica", fontsize=10, color="#444444"];'
_HEAD = f'rankdir=TB; bgcolor="transparent"; pad=0.05; nodesep=0.3; ranksep=0.35; {_NODE} {_EDGE}'
_TREE_HEAD = f'rankdir=LR; bgcolor="transparent"; pad=0.05; nodesep=0.2; ranksep=0.25; {_NODE} {_EDGE}'
# node colours, the palette's hues: the draft side orange, the target side blue, cheap lookups grey
_DRAFT = 'fillcolor="#FFF4DC", color="#E69F00"'
_TARGET = 'fillcolor="#DDEBF7", color="#0072B2"'
_PLAIN = 'fillcolor="#FFFFFF", color="#6B6B6B"'
_KEPT = 'fillcolor="#D3EFE6", color="#009E73"'



def _dot(nodes: dict[str, tuple[str, str]], edges: list[tuple[str, ...]], head: str = _HEAD) -> str:
    """A diagram as graphviz: `nodes` maps an id to (label, colours); an edge is (from, to) or (from, to, label).

    >>> _dot({"a": ("draft", _DRAFT)}, [("a", "a", "K times")], head="")
    'digraph g {  a [label="draft", fillcolor="#FFF4DC", color="#E69F00"]; a -> a [label="K times"]; }'
    """
    shown = [f'{key} [label="{label}", {look}];' for key, (label, look) in nodes.items()]
    shown += [f'{start} -> {end}' + (f' [label="{label[0]}"];' if label else ";") for start, end, *label in edges]
    return f'digraph g {{ {head} {" ".join(shown)} }}'


@dataclass(frozen=True)
class Proposer:
    """One way to propose drafts, and what the page says about it."""

    key: str
    title: str
    how: str
    costs: str
    needs: str
    wins: str
    loses: str
    dot: str
    example: str | None = None  # a recorded trace in assets/traces where specviz has this proposer
    quiz_prefixes: tuple[str, ...] = ()  # quiz question ids that test it start with one of these
    figures: tuple[str, ...] = ()  # the measured figures its texts quote (keys of `measured()`)


PROPOSERS: list[Proposer] = [
    Proposer(
        "draft", N_("Separate draft model"),
        how=N_("A small language model with the same tokenizer writes K tokens one by one; the target scores them in "
               "one pass. The classic form (Leviathan et al. 2023, Chen et al. 2023)."),
        costs=N_("A second model's weights and its own KV cache, K draft forwards per step (c is a draft forward's "
                 "cost in target forwards: {c_draft} here for specviz's 4-layer draft, which still pays the full LM "
                 "head)."),
        needs=N_("The same tokenizer and vocabulary as the target (or a translation layer); a draft trained on "
                 "similar text, ideally distilled from the target."),
        wins=N_("A family with a small sibling (a 1B draft for a 70B target: c at least the parameter ratio, about "
                 "0.014) and predictable text."),
        loses=N_("When the draft is not much cheaper than the target, or disagrees with it: each wasted draft costs c."),
        dot=_dot({"ctx": (N_("text so far"), _PLAIN), "d": (N_("small draft LM\\n(K forwards)"), _DRAFT),
                  "t": (N_("target\\n(1 pass, K+1 positions)"), _TARGET)},
                 [("ctx", "d", N_("tokens")), ("d", "t", N_("K tokens + q"))]),
        example="smollm-draft-greedy", quiz_prefixes=("ci-tokenizer",), figures=("c_draft",)),
    Proposer(
        "ngram", N_("n-gram prompt lookup"),
        how=N_("No model at all: find the last few tokens earlier in the text (the prompt or the output so far) and "
               "propose what followed them there. q is a point mass on that guess, so min(1, p/q) becomes p(guess)."),
        costs=N_("Almost nothing: a string search per step (c ≈ 0). No weights, no second cache, no training."),
        needs=N_("Text that repeats: the answer must copy spans of the prompt or of itself."),
        wins=N_("Summaries, rewrites, code edits, retrieval answers, quoting: {ngram}× the speed of specviz's "
                "target-only decoding here on one copying prompt (K = 8, greedy and at T = 0.7)."),
        loses=N_("Open-ended writing whose answer repeats neither its prompt nor itself: few spans match, so there "
                 "is little to draft, and what is drafted is often wrong."),
        dot=_dot({"ctx": (N_("text so far"), _PLAIN), "m": (N_("find the last n tokens\\nearlier in the text"), _PLAIN),
                  "t": (N_("target\\n(1 pass)"), _TARGET)},
                 [("ctx", "m"), ("m", "t", N_("what followed them"))]),
        example="smollm-ngram-t07", quiz_prefixes=("pl-",), figures=("ngram",)),
    Proposer(
        "layerskip", N_("Layer-skip self-speculation"),
        how=N_("The target drafts with its own first layers and its own LM head, then verifies with all of them "
               "(LayerSkip, Elhoushi et al. 2024; Draft & Verify, Zhang et al. 2024, skips a chosen set of "
               "intermediate layers instead). specviz's layer-skip proposer keeps its own cache and recomputes the "
               "early layers; LayerSkip also reuses the draft's early-layer cache during verification."),
        costs=N_("No extra weights; a second (shallow) KV cache in specviz. Besides its layers, every draft pass runs "
                 "the whole LM head (on its own ≈ 21% of SmolLM2-135M's weights), so c is well above the layer ratio "
                 "(7 of 30 layers): {c_layerskip} here."),
        # read 46: Draft & Verify skips intermediate layers of a model never trained for it (a search picks them),
        # so "needs a model trained to exit early" and "loses on untrained models" hold for early exit only
        needs=N_("To draft with its first layers, a model trained to exit early (LayerSkip's early-exit loss), or "
                 "those layers guess poorly; skipping intermediate layers instead (Draft & Verify) needs no "
                 "training, only a search for which layers to skip."),
        wins=N_("One model to serve and store; a good fit for models trained with early exit."),
        # read 46: the range spans the run's K (1, 2, 4, 8) and both temperatures, not one K ("at a fixed K")
        loses=N_("Early exit from a model never trained for it: SmolLM2's first 7 of 30 layers rarely agree with "
                 "the full model ({layerskip}× "
                 "the speed of specviz's target-only decoding here, on one question-answering prompt, at each K the "
                 "run held fixed, 1 to 8, greedy and at T = 0.7)."),
        dot=_dot({"e": (N_("first layers\\n+ LM head"), _DRAFT), "f": (N_("all layers\\n(1 pass)"), _TARGET)},
                 [("e", "f", N_("K tokens + q")), ("e", "e", N_("K times"))]),
        example="smollm-layerskip-t07", quiz_prefixes=("ls-",), figures=("c_layerskip", "layerskip")),
    Proposer(
        "medusa", N_("Medusa heads"),
        how=N_("Extra heads on the target's last hidden state guess further ahead than its LM head, which predicts "
               "token t+1: head k guesses token t+k+1, computed in the same pass that verifies the previous candidates; "
               "their top guesses form a tree that the next pass verifies (Cai et al. 2024). specviz trained its own "
               "for SmolLM2 here (the target frozen, its LM head shared) and runs them live: pick them in the "
               "Playground or the race."),
        costs=N_("A few small heads (a residual block each); training them, on a dataset or on the target's own "
                 "answers (Medusa's self-distillation, as specviz's were); a tree of candidates per pass instead of a "
                 "chain."),
        needs=N_("Training data and the target's hidden states; for a tree of candidates, a tree attention mask in "
                 "the target's kernels (a chain of one guess per head, as in the runs quoted here, needs none)."),
        wins=N_("No separate draft forward at all (c = {c_medusa} here: the time of one head's block, its product "
                "with the LM head's rows for the heads' draft vocabulary and the greedy token pick, over one target "
                "forward): the guesses ride on the verify pass."),
        loses=N_("Each head guesses blind to the tokens chosen before its position, so acceptance falls fast with "
                 "depth. Measured here on the same held-out prompts (greedy, a chain of 4), the share of steps that "
                 "kept the first draft: {medusa_pos1} with specviz's heads, {eagle_pos1} with its EAGLE drafter; "
                 "that kept the first two: {medusa_pos2} against {eagle_pos2}. Three causes, not separated here: the "
                 "EAGLE drafter trained on far more of the target's text (the Models page's cards give both "
                 "counts), it is a larger model (a decoder layer reading three of the target's layers, against "
                 "one small block per head), and it sees more (its first guess reads the token the target just chose, its second its "
                 "own first guess; head 1 and head 2 see neither). Of the steps that kept the first draft, the "
                 "heads kept the second {medusa_after2} of the time, the EAGLE drafter {eagle_after2}. Speed, in this "
                 "float32 run: {medusa}× against {eagle_f32}× as fast as model.generate. Medusa's typical acceptance "
                 "(keep any plausible token) is lossy: the output is not p, as the chart below "
                 "and the Exactness lab show. With the exact rule Medusa stays exact."),
        dot=_dot({"h": (N_("target's last\\nhidden state"), _TARGET), "lm": (N_("LM head: t+1"), _TARGET),
                  "m1": (N_("head 1: t+2"), _DRAFT),
                  "m2": (N_("head 2: t+3"), _DRAFT), "m3": (N_("head 3: t+4"), _DRAFT),
                  "tr": (N_("candidate\\ntree"), _PLAIN)},
                 [("h", "lm"), ("h", "m1"), ("h", "m2"), ("h", "m3"), ("lm", "tr"), ("m1", "tr"), ("m2", "tr"),
                  ("m3", "tr")], head=_TREE_HEAD),  # left to right: four heads side by side shrank the text
        # the tree's box says no more than "candidate tree" ("how" says the next pass verifies it): with
        # "(verified next pass)" the diagram was too wide for its column and its text shrank to 8 px (Portuguese)
        example="smollm-medusa-greedy", quiz_prefixes=("md-",),
        figures=("c_medusa", "medusa_pos1", "eagle_pos1", "medusa_pos2", "eagle_pos2", "medusa_after2",
                 "eagle_after2", "medusa", "eagle_f32")),
    Proposer(
        "eagle", N_("EAGLE-1/2/3"),
        how=N_("A one-layer drafter reads the target's own features: EAGLE-1 predicts the next hidden state from the "
               "current one and the next token's embedding (the token shifted by one, which removes the guesswork "
               "Medusa's heads face) and reads tokens off the target's head, as the diagram shows. EAGLE-2 grows the "
               "candidate tree where the drafter is confident. EAGLE-3, specviz's kind, no longer predicts the next "
               "feature: it drafts from fused low, middle and high layer features, scores tokens with a head of its "
               "own over a smaller draft vocabulary, and trains on its own outputs."),
        costs=N_("One small layer (specviz's: c = {c_eagle} here); training on the target's hidden states; the target "
                 "must hand its features to the drafter after every pass."),
        needs=N_("Access to the target's hidden states; training data; for a tree, tree attention (a static tree in "
                 "EAGLE-1, a dynamic one in EAGLE-2/3). A chain needs none: the runs quoted here draft one, and so "
                 "does `make serve SPEC=eagle` under vLLM."),
        # read 45: "acceptance per unit of draft cost" named no quantity the papers report; their tables compare
        # speedup and the average acceptance length τ (tokens per target forward, our mean accepted length)
        wins=N_("Among the highest speedups and mean accepted lengths reported for trained drafters (the EAGLE "
                 "papers compare both with Medusa's and other methods' on the same targets); supported by vLLM and "
                 "SGLang."),
        loses=N_("A new drafter per target model, and an under-trained one gains little: specviz's is {eagle}× as "
                 "fast as model.generate here in bfloat16 (greedy, held-out prompts, chain of 4), and {eagle_f32}× in "
                 "float32 on another CPU in the Medusa section's run: two runs, named below."),
        dot=_dot({"f": (N_("target features\\n(hidden state)"), _TARGET),
                  "x": (N_("next token\\n(shifted by one)"), _PLAIN), "d": (N_("1 drafter layer"), _DRAFT),
                  "hd": (N_("target's LM head"), _TARGET)},
                 [("f", "d"), ("x", "d"), ("d", "hd", N_("next feature")), ("d", "d", N_("K times"))]),
        example="smollm-eagle-greedy", quiz_prefixes=("eg-",), figures=("c_eagle", "eagle", "eagle_f32")),
    Proposer(
        "mtp", N_("Multi-token prediction"),
        how=N_("The model is trained from the start to predict several future tokens with extra output modules "
               "(Gloeckle et al. 2024; DeepSeek-V3's MTP modules). At inference the extra predictions are drafts."),
        costs=N_("Extra modules trained with the model (not added afterwards); little at inference."),
        needs=N_("A model pre-trained with the multi-token objective."),
        # read 53: "85–90% acceptance of the second token" named no quantity; DeepSeek-V3 (section 5.4.3) reports
        # the acceptance rate of its one MTP module's token, one draft per step, so accepted / drafted
        wins=N_("Models that ship with MTP heads: drafts are nearly free and well matched (DeepSeek-V3, whose one "
                "MTP module drafts the second token of each step, reports an acceptance rate, accepted / drafted, "
                "of 85–90% for it)."),
        loses=N_("Any model pre-trained without it: MTP's gain comes from training the model itself with the "
                 "objective; modules trained afterwards on a frozen model are what Medusa and EAGLE do (above)."),
        dot=_dot({"tr": (N_("shared trunk"), _TARGET), "o1": (N_("token t+1"), _TARGET),
                  "o2": (N_("module: t+2"), _DRAFT), "o3": (N_("module: t+3"), _DRAFT)},
                 [("tr", "o1"), ("tr", "o2"), ("o2", "o3")])),
    Proposer(
        "lookahead", N_("Lookahead decoding (Jacobi)"),
        how=N_("The target itself iterates guesses for several future positions in parallel (Jacobi iteration), "
               "collects the n-grams that appear along the way in a pool, and verifies pool entries that start with "
               "the current token (Fu et al. 2024)."),
        costs=N_("No extra weights; a wider target pass (lookahead window and verification branch) every step."),
        needs=N_("Spare compute per pass: it trades FLOPs for fewer passes."),
        wins=N_("GPUs at batch size 1 with idle compute, and no draft model at hand."),
        loses=N_("Compute-bound settings (large batches), where the wider pass is not free."),
        dot=_dot({"w": (N_("window of guesses\\n(Jacobi steps)"), _TARGET), "p": (N_("n-gram pool"), _PLAIN),
                  "v": (N_("verify branch"), _TARGET)},
                 [("w", "p", N_("new n-grams")), ("p", "v", N_("matches")), ("v", "w", N_("next pass"))])),
    Proposer(
        "suffix", N_("Suffix decoding"),
        how=N_("Like prompt lookup, but over a suffix tree of the prompt and of earlier outputs, across requests; it "
               "proposes the continuations seen most often (a small tree, each node scored by the product of the "
               "shares along its path: at each node on the way, the share of its parent's occurrences that it "
               "followed; an estimate of the chance that the whole path is right, not a count) and sizes the draft by "
               "the length of the match: the longer the suffix it matched, the more tokens it drafts (Oliaro et al. "
               "2024)."),
        costs=N_("A suffix tree in CPU memory, updated as outputs arrive; no model."),
        needs=N_("Repetitive workloads: agents, SQL, code, tool calls that repeat across requests."),
        wins=N_("Agentic and repeated tasks, where long spans recur (long drafts, high acceptance)."),
        loses=N_("Fresh, varied text, like any lookup method."),
        dot=_dot({"h": (N_("earlier outputs\\n+ prompt"), _PLAIN), "s": (N_("suffix tree"), _PLAIN),
                  "t": (N_("target\\n(1 pass)"), _TARGET)},
                 [("h", "s", N_("insert")), ("s", "t", N_("most frequent\\ncontinuation"))])),
]


def sections() -> list[Proposer]:
    """The page's sections: every proposer described above, then each registered one it does not describe
    (`specviz.engine.proposers.registry`), with its label and note as title and text."""
    described = {p.key for p in PROPOSERS}
    extra = [Proposer(info.name, info.label, how=info.note, costs="", needs="", wins="", loses="", dot="")
             for info in registry.proposers() if info.name not in described]
    return [*PROPOSERS, *extra]


def measured() -> dict[str, quoted.Quoted]:
    """The figures the proposers' texts quote, from the committed benchmarks (so they follow a re-run)."""
    return {"c_draft": quoted.draft_cost("default-cpu-drafts", "draft"),
            "c_eagle": quoted.draft_cost("default-cpu-bf16-tree", "eagle"),
            "ngram": quoted.speedup_range("default-cpu-ngram", "ngram", suite="rewrite", k=8),
            "c_layerskip": quoted.draft_cost("default-cpu-layerskip", "layerskip-7"),
            "layerskip": quoted.speedup_range("default-cpu-layerskip", "layerskip-7"),  # fixed K: policy constant
            "eagle": quoted.speedup_range("default-cpu-bf16-tree", "eagle", suite="held-out", k=4, temperature=0.0,
                                          against="speedup_vs_hf_generate"),
            **medusa_against_eagle()}


MEDUSA_RUN = "default-cpu-f32-medusa"  # Medusa and EAGLE on the same held-out prompts (assets/benchmarks/README.md)
RUNS = {  # what each run the page quotes measured (assets/benchmarks/README.md): a caption names the run, not a folder
    "default-cpu-drafts": N_("the trained drafts' run (K = 2 to 4)"),
    "default-cpu-ngram": N_("the n-gram run (K = 1 to 8)"),
    "default-cpu-layerskip": N_("the layer-skip run (K = 1 to 8)"),
    "default-cpu-bf16-tree": N_("the speed-targets run: a chain of 4 (the speedup quoted) and "
                                "the recommended tree"),
    MEDUSA_RUN: N_("Medusa against EAGLE (chains of 2 and 4, a 16-node tree)"),
}


def medusa_against_eagle() -> dict[str, quoted.Quoted]:
    """The Medusa section's figures: both trained drafters in one run, greedy chains of 4 on the same prompts."""
    chain = dict(k=4, temperature=0.0)
    figures = {"c_medusa": quoted.draft_cost(MEDUSA_RUN, "medusa")}
    for name, key in (("medusa", "medusa"), ("eagle", "eagle_f32")):
        figures[key] = quoted.speedup_range(MEDUSA_RUN, name, against="speedup_vs_hf_generate", **chain)
        for depth in (1, 2):
            figures[f"{name}_pos{depth}"] = quoted.kept_through(MEDUSA_RUN, name, depth, **chain)
        figures[f"{name}_after2"] = quoted.kept_after(MEDUSA_RUN, name, 2, **chain)
    return figures


COSTS = ("c_draft", "c_eagle", "c_layerskip", "c_medusa")  # one figure each (a Quoted's low is its high)
SHARES = ("medusa_pos1", "eagle_pos1", "medusa_pos2", "eagle_pos2", "medusa_after2", "eagle_after2")


def figure_texts() -> dict[str, str]:
    """`measured()` written the reader's way, for the placeholders of the proposers' texts. The Medusa section's
    shares get three decimals (read 51: at two, "0.27 ... 0.08" divided to 0.30 beside "the second 0.29 of the
    time", the ratio of the unrounded shares; at three, 0.077 / 0.266 gives the 0.289 written). A measured c is
    written as the runs' results.md, the Speedup lab, the Theory explorer and the race's examples write it
    (`small_number`; read 54: Medusa's "c = 0.05 here" beside 0.046 on those pages)."""
    return {key: small_number(value.low) if key in COSTS else value.text(3 if key in SHARES else 2)
            for key, value in measured().items()}


TEXT = {
    "measured": N_("Figures marked “here” come from the committed benchmarks, each named with its dtype and the CPU "
                   "that measured it: {sources}. The Speedup lab shows these runs and the commands that reproduce "
                   "them."),
    "source": N_("{source} on {machine}, timed by {clock}"),
    "source_run": N_("{source}, {run}, on {machine}, timed by {clock}"),
    "costs": N_("**Costs.** {text}"),
    "needs": N_("**Needs.** {text}"),
    "wins": N_("**Wins.** {text}"),
    "loses": N_("**Loses.** {text}"),
    "example_header": N_("Recorded trace"),
    "example": N_("Recorded trace: **{title}**. {description}"),
    "example_stats": N_("{steps} steps, {tokens} tokens, {per_pass} tokens per target forward (mean accepted "
                        "length, including the recovered or bonus token); accepted / drafted = {ratio}, mean "
                        "min(1, p/q) = {alpha} (an estimate of α)."),
    # a tree's mean is another quantity (Trace.mean_accept_prob), and its accepted / drafted counts every node
    "example_stats_tree": N_("{steps} steps, {tokens} tokens, {per_pass} tokens per target forward (mean accepted "
                             "length, including the recovered or bonus token); accepted / drafted = {ratio}, every "
                             "node of a tree counted as drafted; mean min(1, p′/q′) along each step's main line = "
                             "{alpha} (not an estimate of α: a child tried after a rejected sibling meets the "
                             "residual p′)."),
    # read 50: a tree whose lookup branch copied tokens has accepted / (drafted + copied), as the CLI names it; the
    # text above called that ratio accepted / drafted
    "example_stats_tree_copied": N_("{steps} steps, {tokens} tokens, {per_pass} tokens per target forward (mean "
                                    "accepted length, including the recovered or bonus token); accepted / (drafted "
                                    "+ copied) = {ratio}, every node of the tree and every token its lookup branch "
                                    "copied counted; mean min(1, p′/q′) along each step's main line = {alpha} (not an "
                                    "estimate of α: a child tried after a rejected sibling meets the residual p′)."),
    "open_example": N_("Open it in the Playground"),
    "no_example": N_("specviz has no {title} proposer; the diagram and the notes above are the lesson."),
    "quiz_header": N_("Quiz questions on this ({count})"),
    "quiz_item": N_("- `{id}`: {prompt}"),
    # read 46: a step at K = 1 that keeps its draft emits two tokens; the chart is the first one's distribution.
    # read 53: "gives their share to ... A" read as A getting too much; with its own q it gets exactly p(A)
    "typical_caption": N_("p = target, q = draft on six tokens; the first token one step emits (K = 1) under the "
                          "exact rule and under Medusa's typical acceptance. The exact rule gives back p. Typical "
                          "acceptance keeps every draft above its threshold, so those tokens come out as often as q "
                          "proposes them (B and D too often, C too rarely), and never emits E and F, which fall "
                          "below it: when q draws one of them it emits the target's most likely token, A, instead. "
                          "So A comes out with its own q, {q_a}, plus q(E) + q(F) = {q_ef}: {a} in all, exactly "
                          "p(A), and the chart shows it no excess."),
    "quiz_link": N_("Practise these in the Quiz"),
}

TREE_TEXT = {
    "intro": N_("Medusa, EAGLE (a static tree in EAGLE-1, a dynamic one in EAGLE-2/3) and SpecInfer draft a **tree** "
                "instead of a chain: several candidates per position, each branch a possible continuation. The "
                "target scores every node in one pass."),
    "mask": N_("**Tree attention mask.** All nodes go into one pass as a flat list; each node may attend only to the "
               "context, its own ancestors and itself, not to its siblings' branches. ✓ = may attend."),
    "path": N_("**Longest accepted path.** Greedy (T = 0): walk down from the root, at each node follow the child "
               "that equals the target's argmax; stop when none does and emit the argmax there: the green path above, its nodes marked ✓."),
    "exact": N_("**The exact rule at T > 0** (recursive rejection sampling). Start at the root with p′ = p and q′ = "
                "the q its children were drawn from, and try the children one by one. Child x is kept with "
                "probability min(1, p′(x)/q′(x)); then move down to x and start again with its own p and q. If x is "
                "rejected, two things change before the next child is tried: p′ becomes the residual "
                "norm(max(0, p′ − q′)), and q′ loses x and is renormalised, because the next child was drawn from q "
                "without x (specviz draws children without replacement, as Recursive Speculative Decoding, Jeon et "
                "al. 2024, does; SpecInfer, Miao et al. 2024, draws them with replacement and keeps q′ = q). If "
                "every child is rejected, the token comes from the last p′; if the kept path reaches a leaf, a bonus "
                "token comes from the leaf's p.\n\n"
                "**Top-k children** (EAGLE-2, Li et al. 2024, takes the draft's k most likely tokens) were not drawn "
                "from q at all: each is a point mass, so child x is kept with probability p′(x), and on rejection p′ "
                "loses x and is renormalised. Compare them with q instead and the output drifts from p: that is the "
                "Exactness lab's broken tree rule. Done right, each try is one exact speculative-sampling step of "
                "what is left, so the output is still distributed as p; a tree only raises the chance that some "
                "branch is kept."),
    "lookup": N_("**A lookup branch.** A tree can also hold a branch that no model drafted: the tokens that followed "
                 "the last earlier place where the text's last 3 tokens appeared (failing a match, its last 2, then its "
                 "last 1; prompt lookup), hung under the root "
                 "and sharing the drafted nodes it agrees with. Where fewer tokens follow that place than the branch "
                 "holds, the copy reads on into what it has copied so far, so a repeating loop is carried on past the "
                 "text's end. Fusing a retrieved branch into the drafter's tree is "
                 "RASD's idea (Quan et al. 2025); SAM-Decoding (Hu et al. 2024) instead picks one source per step, "
                 "retrieval when the suffix match is long enough, else the drafter. A copied token is a point mass, "
                 "tried after its drafted siblings, "
                 "so the rule above stays exact. It pays when the answer repeats itself or the prompt, which small "
                 "models often do; the default pair's recommended tree has one."),
    # read 47: vLLM's table rates a separate draft model medium at high QPS, as n-gram and suffix lookup, so
    # "model-based drafts (EAGLE, MTP) above lookups" overclaimed for the classic draft model
    "stops": N_("**Where speculation stops paying.** It spends idle compute to save weight reads. At large batch sizes "
                "the target's pass is already compute-bound, so verifying K+1 positions per sequence costs more than "
                "one, up to K+1 times as much, and rejected drafts waste it; serving engines advise speculation for "
                "low and medium load, and vLLM's table still rates EAGLE and MTP above the lookups at high load "
                "(medium to high gain against medium), though not a separate draft model (medium, as the lookups). "
                "The exception is long contexts: every sequence "
                "still reads its whole KV cache per token, so attention stays memory-bound and speculation pays "
                "again (MagicDec)."),
}

_LABEL = re.compile(r'label="([^"]*)"')
# every label in the diagrams above (and "context" in the tree's), as written there: `diagram()` translates them
DIAGRAM_LABELS = frozenset([*(label for p in PROPOSERS for label in _LABEL.findall(p.dot)), N_("context")])


def diagram(dot: str) -> str:
    """A diagram with its labels in the reader's language (token labels, which are not in DIAGRAM_LABELS, stay)."""
    def translated(match: re.Match) -> str:
        text = match.group(1)
        shown = _(text).replace('"', "'") if text in DIAGRAM_LABELS else text
        return f'label="{shown}"'

    return _LABEL.sub(translated, dot)


# a small candidate tree: (token, parent index, or -1 for a child of the context); node 0 ("the") is the first draft
TREE_NODES: list[tuple[str, int]] = [("the", -1), ("cat", 0), ("dog", 0), ("sat", 1), ("is", 1), ("ran", 2),
                                     ("on", 3), ("down", 3)]
ACCEPTED_PATH = [0, 1, 3, 6]  # the target's argmax at each level in this made-up example


def tree_attention_mask(parents: list[int]) -> list[list[bool]]:
    """mask[i][j]: may node i attend to node j (j is i itself or one of its ancestors). Nodes are listed so that a
    parent comes before its children; -1 marks a root. The engine's own mask (`specviz.engine.tree.mask_rows`)
    without the context's row and column.

    >>> tree_attention_mask([-1, 0, 0, 1])
    [[True, False, False, False], [True, True, False, False], [True, False, True, False], [True, True, False, True]]
    """
    return [[bool(m) for m in row[1:]] for row in mask_rows(parents)[1:]]  # the engine's, less the context


def tree_dot() -> str:
    """The example candidate tree as graphviz, the accepted path in green, marked ✓ and drawn thicker (colour is
    never the only cue)."""
    nodes = {"ctx": (N_("context"), _PLAIN)}
    nodes |= {f"n{i}": (f"✓ {token}", f"{_KEPT}, penwidth=3") if i in ACCEPTED_PATH else (token, _DRAFT)
              for i, (token, _) in enumerate(TREE_NODES)}
    edges = [("ctx" if parent == -1 else f"n{parent}", f"n{i}") for i, (_, parent) in enumerate(TREE_NODES)]
    return _dot(nodes, edges, _TREE_HEAD)


def mask_frame() -> pd.DataFrame:
    """The example tree's attention mask as a ✓ / · table, rows and columns named by token."""
    names = [f"{i}:{token}" for i, (token, _) in enumerate(TREE_NODES)]
    mask = tree_attention_mask([parent for _, parent in TREE_NODES])
    return pd.DataFrame([["✓" if m else "·" for m in row] for row in mask], index=names, columns=names)


@lru_cache(maxsize=4)
def _bank(lang: str = "en"):
    return load_bank([BANK_DIR], lang=lang)


def quiz_items(prefixes: tuple[str, ...]) -> list[tuple[str, str]]:
    """(id, prompt) of the bundled questions whose id starts with one of `prefixes`, in the reader's language."""
    return [(q.id, q.prompt) for q in _bank(get_language()) if prefixes and q.id.startswith(prefixes)]


TYPICAL_P = [0.40, 0.25, 0.15, 0.10, 0.06, 0.04]  # tokens A to F: p (target) and q (draft) of `typical_vs_exact`
TYPICAL_Q = [0.20, 0.30, 0.10, 0.20, 0.10, 0.10]


def typical_vs_exact() -> pd.DataFrame:
    """The distribution of the first token one step emits (K = 1) under the exact rule and under typical
    acceptance, next to p. The caption (`TEXT["typical_caption"]`) names tokens of this example by letter: typical
    acceptance emits q on B, C and D (0.3, 0.1, 0.2), nothing on E and F, and 0.4 on A
    (tests/ui/test_proposers_page.py holds it to that)."""
    p, q = TYPICAL_P, TYPICAL_Q
    exact = one_step_distribution("exact", p, q)[0]
    typical = one_step_distribution("typical_acceptance", p, q)[0]
    return pd.DataFrame({"p (target)": p, "exact rule": exact.tolist(),
                         "typical acceptance": typical.tolist()}, index=list("ABCDEF"))


def typical_caption(frame: pd.DataFrame) -> str:
    """The typical-acceptance chart's caption, with A's numbers from the example: its own q, the q of E and F it
    takes over, and what typical acceptance gives it in all (= p(A) here).

    >>> typical_caption(typical_vs_exact()).split("So A comes out ")[1][:55]
    'with its own q, 0.2, plus q(E) + q(F) = 0.2: 0.4 in all'
    """
    return _(TEXT["typical_caption"], q_a=number(TYPICAL_Q[0], 1), q_ef=number(TYPICAL_Q[4] + TYPICAL_Q[5], 1),
             a=number(float(frame["typical acceptance"].iloc[0]), 1))


def typical_figure(frame: pd.DataFrame) -> go.Figure:
    """The typical-acceptance comparison as grouped bars, one colour per column (p in the target's blue)."""
    colors = [P_COLOR, BLUISH_GREEN, REDDISH_PURPLE]
    fig = go.Figure([go.Bar(x=list(frame.index), y=frame[column], name=column, marker_color=color)
                     for column, color in zip(frame.columns, colors)])
    # the legend at the bottom of the figure, under the axis title (as the Exactness lab's BELOW): hung at -0.25 of
    # the plot's height, its two rows on a 390 px phone fell on the title "token" (read 49, a browser look)
    fig.update_layout(barmode="group", height=280, margin=dict(l=10, r=10, t=10, b=10), xaxis_title=_("token"),
                      yaxis_title=_("probability"),
                      legend=dict(orientation="h", yref="container", yanchor="bottom", y=0, x=0))
    return fig


TYPICAL_COLUMNS = {"p (target)": N_("p (target)"), "exact rule": N_("exact rule"),
                   "typical acceptance": N_("typical acceptance")}


def _link(page: str, label: str, icon: str, query: dict[str, str] | None = None) -> None:
    """A link to another page of the app (a caption when this page runs outside the app's router)."""
    try:
        st.page_link(page, label=label, icon=icon, query_params=query)
    except StreamlitAPIException:
        st.caption(label)


def render_example(name: str, key: str) -> None:
    """A recorded trace's title, numbers, a preview of its first steps, and a link into the Playground."""
    examples = {e.name: e for e in list_examples()}
    if name not in examples:
        return
    example = examples[name]
    trace = load_example(name)[0]
    title, description = example_text(example)
    st.markdown(_(TEXT["example"], title=escape_markdown(title), description=escape_markdown(description)))
    st.caption(example_stats(trace))
    st.html(output_html(trace, upto=6))
    _link("pages/playground.py", _(TEXT["open_example"]), ":material/play_circle:",
          {"source": "example", "example": name})


def example_stats(trace: Trace) -> str:
    """A recorded trace's counts in one sentence: steps, tokens, its mean accepted length, accepted / drafted (a
    tree's lookup branch's copies added below the line, as the CLI writes it) and the mean of min(1, p/q) over the
    tested drafts, named an estimate of α for a chain, and for a tree trace whose every tree was a chain of drafted
    nodes (`Trace.mean_estimates_alpha`, read 51); for any other tree it is the mean min(1, p′/q′) along each step's
    main line, `Trace.mean_accept_prob`."""
    tree = not trace.mean_estimates_alpha
    key = ("example_stats_tree_copied" if trace.num_copied else "example_stats_tree") if tree else "example_stats"
    return _(TEXT[key], steps=trace.num_steps, tokens=trace.num_tokens,
             per_pass=number(trace.mean_accepted_length, 2), ratio=number(trace.acceptance_rate, 2),
             alpha=number(trace.mean_accept_prob, 2))


def example_text(example) -> tuple[str, str]:
    """An example's title and description in the reader's language (specviz.labs.examples translates the shipped ones)."""
    return getattr(example, "shown_title", example.title), getattr(example, "shown_description", example.description)


def render_proposer(proposer: Proposer) -> None:
    """One proposer: its diagram, how it works, costs, needs, wins and losses, its trace and its quiz items."""
    title = _(proposer.title)
    st.subheader(title, anchor=f"proposer-{proposer.key}")
    left, right = st.columns([2, 3])
    with left:
        if proposer.dot:
            st.graphviz_chart(diagram(proposer.dot), width="content")
    with right:
        st.markdown(_(proposer.how))
        shown = figure_texts()
        for field in ("costs", "needs", "wins", "loses"):
            if getattr(proposer, field):
                st.markdown(_(TEXT[field], text=_(getattr(proposer, field), **shown)))
        if proposer.figures:
            figures = measured()
            sources = dict.fromkeys(source_text(figures[key]) for key in proposer.figures)
            st.caption(_(TEXT["measured"], sources="; ".join(sources)))
    if proposer.key == "medusa":
        frame = typical_vs_exact().rename(columns={k: _(v) for k, v in TYPICAL_COLUMNS.items()})
        st.caption(typical_caption(typical_vs_exact()))
        charts.show(typical_figure(frame), "proposers_typical_chart",
                    name=_("Distribution of the first token one step emits: p, the exact rule and typical "
                         "acceptance"))
    if proposer.example:
        with st.expander(_(TEXT["example_header"])):
            render_example(proposer.example, proposer.key)
    elif proposer.key not in registry.names():
        st.caption(_(TEXT["no_example"], title=title))
    items = quiz_items(proposer.quiz_prefixes)
    if items:
        with st.expander(_(TEXT["quiz_header"], count=len(items))):
            st.markdown(quiz_list(items))
            _link("pages/quiz.py", _(TEXT["quiz_link"]), ":material/quiz:")


def source_text(figure: quoted.Quoted) -> str:
    """Where a figure was measured, for the caption: its folder and dtype, the run (`RUNS`), the machine and the
    clock and torch threads that timed it (read 49: the Medusa, n-gram and layer-skip runs ran one torch thread timed
    by CPU time, on a machine named with its 2 cores)."""
    machine, clock = quoted.machine(figure.folder), quoted.timed_by(figure.folder)
    if figure.folder in RUNS:
        return _(TEXT["source_run"], source=figure.source, run=_(RUNS[figure.folder]), machine=machine, clock=clock)
    return _(TEXT["source"], source=figure.source, machine=machine, clock=clock)


def quiz_list(items: list[tuple[str, str]]) -> str:
    return "\n".join(_(TEXT["quiz_item"], id=i, prompt=escape_markdown(" ".join(p.split()))) for i, p in items)


def render_tree_section() -> None:
    """Tree verification: the candidate tree, its attention mask, the accepted path and the exact rule."""
    st.markdown(_(TREE_TEXT["intro"]))
    st.graphviz_chart(diagram(tree_dot()), width="content")
    st.markdown(_(TREE_TEXT["path"]))
    st.markdown(_(TREE_TEXT["mask"]))
    st.dataframe(mask_frame(), width="content")
    st.markdown(_(TREE_TEXT["exact"]))
    st.markdown(_(TREE_TEXT["lookup"]))
    items = quiz_items(("tr-", "md-tree"))
    if items:
        st.markdown(quiz_list(items))
