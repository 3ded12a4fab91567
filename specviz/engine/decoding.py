"""The speculative loop: propose, score, verify, rewind, emit. One function per step: the papers' propose, score,
verify and emit in their order, with the rewind of the caches, which their algorithms do not spell out, before the emit.

    trace = speculative_generate(target, draft, input_ids, k=4, temperature=0.7, seed=1)

`draft` is a causal LM (wrapped in a `DraftModelProposer`) or any `Proposer`. Randomness comes only from a
`torch.Generator` seeded with `seed`, so the same call on the same models gives the same tokens and verdicts
(the timings are measured anew; another dtype or machine rounds differently and can change the tokens).
`verifier` defaults to the exact rule; the Exactness lab passes deliberately broken rules through the same loop.
Target-only decoding (`specviz.engine.baseline`) is this loop with nothing drafted: each step is then one target
forward and one token.

The loose keywords are the public face of three objects: `GenerationSettings` (what to sample), `DecodeOptions`
(how to record, time and bound it) and `specviz.engine.draft_shape.DraftShape` (what a step drafts: the one type
for K, a tree's nodes, width and lookup branch). `decode` takes the objects themselves.

The step itself (`SpeculativeDecoder.step`) only decides; what it decided (`StepOutcome`) goes to a
`specviz.engine.recording.TraceRecorder`, which adds the drafts' texts and top-10 lists and builds the `Trace`. The
emitted tokens get their text when the step makes them, from the recorder's `text`, so an observer (`on_step`) can
show them at once.

With `tree_nodes` > 0 a proposer that can branch drafts a tree (`specviz.engine.tree`, EAGLE-2 style) instead of a chain:
the same five steps, with one target forward over the whole tree, the tree rule (`specviz.engine.tree_verifier`) and a
cache compaction that keeps only the accepted path. `tree_nodes=0` is the chain, untouched.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any

import torch
from transformers import PreTrainedModel

from specviz.engine.kinds import Mode, StopReason
from specviz.engine.generation import (Clock, GenerationSettings, append_until_stop, check_context, default_clock, eos_ids,
                                prompt_ids, synchronize)
from specviz.core.text import template_tokens
from specviz.engine.kvcache import CachedModel, runner_for
from specviz.engine.limits import is_integral, is_real
from specviz.engine.draft_shape import DraftShape
from specviz.engine.proposers import DraftModelProposer, Proposal, Proposer
from specviz.engine.proposers.ngram import prompt_lookup
from specviz.engine.recording import StepOutcome, TraceRecorder
from specviz.engine.sampling import SamplingConfig, point_masses
from specviz.engine.trace import EmittedToken, Trace, TokenKind
from specviz.engine.tree import DraftTree, graft_copy
from specviz.engine.tree_verifier import TreeVerifier, TreeVerifyResult, verify_tree
from specviz.engine.verifier import Verifier, VerifyResult, verify

StepObserver = Callable[[StepOutcome], None]


@dataclass(frozen=True)
class DecodeOptions:
    """How one generation is read, recorded, watched and bounded. Three of them can change what it samples:
    `deadline` (where it stops), `eos_token_id` (where it stops, where a proposal ends and which tree nodes are not
    expanded) and `tokenizer` (its chat-template markers end a deterministic proposal and a tree's lookup branch):
    other drafts, so other draws at temperature > 0. `record`, `clock` (but through a deadline) and `on_step` change
    nothing.

    `tokenizer` gives token texts and the chat-template markers; `eos_token_id` names the stop tokens in place of
    the model's (None: the model's generation config's, else the tokenizer's: `specviz.engine.generation.eos_ids`).
    With `record=False` the per-token details (top-10 lists, token text) are left out of the steps, so the cost of
    recording can itself be measured; the decisions, kinds and timings stay. `clock` times every step. `on_step` is
    called with each `StepOutcome` as soon as it is decided (for progress displays). With `deadline` (a `clock()`
    value) the run stops cleanly after the step that passes it, with stop reason "deadline" and the partial trace.
    """

    tokenizer: Any = None
    eos_token_id: int | Sequence[int] | None = None
    record: bool = True
    clock: Clock = default_clock
    on_step: StepObserver | None = None
    deadline: float | None = None

    def __post_init__(self) -> None:
        """A deadline that is no number (nan never passes, True is no time) and stop tokens that are no token ids
        are ValueErrors with one sentence, not a run that silently never stops or stops on token 1."""
        deadline = self.deadline
        if deadline is not None and (not is_real(deadline) or math.isnan(deadline)):
            raise ValueError(f"deadline must be a clock() value, a number (got {deadline!r}).")
        ends = self.eos_token_id
        ends = [] if ends is None else [ends] if not isinstance(ends, Sequence) or isinstance(ends, str) else ends
        for end in ends:
            if not is_integral(end):
                raise ValueError(f"eos_token_id must be a token id or a list of them (got {self.eos_token_id!r}).")

    @classmethod
    def take(cls, keywords: dict[str, Any], **given: Any) -> tuple[DecodeOptions, dict[str, Any]]:
        """The options named in `keywords` (and `given`), and the keywords that are not options."""
        names = {f.name for f in fields(cls)}
        options = cls(**given, **{name: value for name, value in keywords.items() if name in names})
        return options, {name: value for name, value in keywords.items() if name not in names}


def settings_from(function: str, keywords: dict[str, Any], k: int | None) -> tuple[GenerationSettings, DecodeOptions]:
    """The two settings objects from a public function's loose keywords: those of `GenerationSettings`
    (max_new_tokens, temperature, top_k, top_p, seed; K is given apart) and of `DecodeOptions`. A keyword neither
    knows is a TypeError, as Python raises for a keyword argument a function does not take."""
    options, rest = DecodeOptions.take(keywords)
    sampled = {f.name for f in fields(GenerationSettings)} - {"k"}
    for name in rest:
        if name not in sampled:
            raise TypeError(f"{function}() got an unexpected keyword argument {name!r}")
    return GenerationSettings(**rest, k=k), options


def speculative_generate(
    target: PreTrainedModel,
    draft: PreTrainedModel | Proposer,
    input_ids: Sequence[int] | torch.Tensor,
    *,
    shape: DraftShape | None = None,
    k: int | None = None,
    max_new_tokens: int = 64,
    temperature: float = 0.0,
    top_k: int = 0,
    top_p: float = 1.0,
    seed: int = 0,
    tokenizer=None,
    eos_token_id: int | Sequence[int] | None = None,
    verifier: Verifier = verify,
    record: bool = True,
    clock: Clock = default_clock,
    draft_length=None,
    on_step: StepObserver | None = None,
    deadline: float | None = None,
    tree_nodes: int | None = None,
    tree_width: int | None = None,
    tree_verifier: TreeVerifier = verify_tree,
    tree_lookup: int | None = None,
    tree_top_children: bool = False,
) -> Trace:
    """Generate up to `max_new_tokens` tokens after `input_ids` by speculative decoding; return the trace.

    The keywords are spelled out here for readers and editors; inside they become three objects,
    `GenerationSettings` (what to sample: max_new_tokens, temperature, top_k, top_p, seed, K), `DecodeOptions`
    (tokenizer, eos_token_id, record, clock, on_step, deadline: each documented there) and the `DraftShape`, which is
    what `decode` takes.

    `shape` (a `specviz.engine.draft_shape.DraftShape`) says what one step drafts; `k`, `tree_nodes`, `tree_width` and
    `tree_lookup` are its fields as loose keywords for notebooks (defaults 4, 0, 4, 0: a chain of K = 4). Give
    either: a size keyword beside a `shape` that says otherwise is a ValueError. `tree_nodes` > 0 drafts a tree of at
    most that many nodes, depth at most K, at most `tree_width` nodes expanded per level and as many children per
    node (a proposer that cannot branch keeps drafting a chain), plus up to `tree_lookup` tokens copied from the
    context by prompt lookup as one more branch (`specviz.engine.tree.graft_copy`); `tree_verifier` judges it (the
    exact `verify_tree` unless the Exactness lab passes another rule; `tree_top_children=True` drafts the draft's
    top tokens as children at every temperature, for a rule that judges them so). `draft_length` (a
    `specviz.engine.policies.DraftLength`) picks each step's K in place of the constant one.
    """
    sizes = {"k": k, "tree_nodes": tree_nodes, "tree_width": tree_width, "tree_lookup": tree_lookup}
    if shape is not None and not isinstance(shape, DraftShape):  # a label or a mapping was an AttributeError
        raise ValueError(f"shape must be a DraftShape, e.g. DraftShape.from_label('chain K=4') or "
                         f"DraftShape.of({{'k': 4}}) (got {shape!r}).")
    if shape is not None:
        differ = [f"{name}={value!r}" for name, value in sizes.items()
                  if value is not None and value != getattr(shape, name)]
        if differ:
            raise ValueError(f"Give the draft's sizes once: shape={shape!r} and {', '.join(differ)} disagree.")
    given = {name: value for name, value in sizes.items() if value is not None}
    settings = GenerationSettings(max_new_tokens, temperature, top_k, top_p, seed,
                                  shape.k if shape else k if k is not None else 4)
    options = DecodeOptions(tokenizer, eos_token_id, record, clock, on_step, deadline)
    shape = shape or DraftShape(**{**given, "k": settings.k})  # settings.k: a NumPy K made a Python int
    proposer = draft if isinstance(draft, Proposer) else DraftModelProposer(draft, target.config.vocab_size)
    return decode(target, proposer, input_ids, settings, options, verifier=verifier, draft_length=draft_length,
                  shape=shape, tree=TreeVerification(tree_verifier, tree_top_children))


@dataclass(frozen=True)
class TreeVerification:
    """How a draft tree is judged, apart from its sizes (those are the run's `DraftShape`): the tree rule `verifier`
    and how its children are drafted: samples of q without replacement at temperature > 0, or, with `top_children`,
    the draft's top tokens at every temperature (for a rule that judges top-k children, such as the Exactness lab's).
    A `top_children` that is not a bool is a ValueError with one sentence."""

    verifier: TreeVerifier = verify_tree
    top_children: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.top_children, bool):
            raise ValueError(f"tree_top_children must be True or False (got {self.top_children!r}).")


def decode(target: PreTrainedModel, proposer: Proposer, input_ids: Sequence[int] | torch.Tensor,
           settings: GenerationSettings, options: DecodeOptions | None = None, *, mode: Mode = Mode.SPECULATIVE,
           verifier: Verifier = verify, draft_length=None, shape: DraftShape | None = None,
           tree: TreeVerification | None = None) -> Trace:
    """The loop both `speculative_generate` and `autoregressive_generate` run: prefill, then steps until a stop.
    `settings` say what to sample, `options` how to record, time and bound it (`DecodeOptions()` when None), `shape`
    what a step drafts (None: a chain of `settings.k`) and `tree` how a tree is judged (`TreeVerification()`: the exact
    rule). K is `settings.k` (None: target-only decoding); a shape with another K is a ValueError."""
    if shape is not None and shape.k != settings.k:
        raise ValueError(f"The shape drafts K={shape.k} but the settings say K={settings.k}: give both the same K.")
    options = options or DecodeOptions()
    clock, deadline, on_step = options.clock, options.deadline, options.on_step
    prompt = prompt_ids(input_ids, target)
    check_context(target, len(prompt), settings)
    eos = eos_ids(target, options.tokenizer, options.eos_token_id)
    recorder = TraceRecorder(options.tokenizer, options.record)
    decoder = SpeculativeDecoder(target, proposer, settings, eos, verifier, clock, draft_length,
                                 template_tokens(options.tokenizer) - eos, shape, tree, token_text=recorder.text)
    start = clock()
    decoder.prefill(prompt)
    prefill_seconds = clock() - start
    sequence, output, stop = list(prompt), [], ""
    while not stop:
        outcome = decoder.step(sequence, output)
        recorder.observe(outcome)
        if on_step is not None:
            on_step(outcome)
        stop = outcome.stop or (StopReason.DEADLINE if deadline is not None and clock() > deadline else "")
    # a proposer that cannot branch drafted chains whatever the shape says: its trace records no tree
    tree_settings = shape.tree_settings() if shape is not None and proposer.can_branch else {}
    # read 53: a short step's reasons name the policy that shortened it (the threshold's confidence stop, a K the
    # heuristic or optimal policy moved), so the trace says which ran: none recorded is constant K
    policy = {"policy": draft_length.name} if draft_length is not None else {}
    # the confidence stop (`policies.confident`), whatever picked K; and the threshold policy's even at 0, which
    # stops nothing (read 53: unrecorded, the text said drafting "stops ... below its threshold")
    if proposer.stop_below > 0 or policy.get("policy") == "threshold":
        policy["threshold"] = proposer.stop_below
    if policy.get("policy") == "heuristic":  # its steps up and down (read 53: the text said 2 and 1 whatever they were)
        # and its bounds (read 54: without K max no reader could tell whether its K ever moved; `timeline.policy_ks`)
        policy.update(heuristic_grow=draft_length.grow, heuristic_shrink=draft_length.shrink,
                      heuristic_k_min=draft_length.k_min, heuristic_k_max=draft_length.k_max)
    recorded = {**settings.to_dict(), **tree_settings, "proposer": proposer.name, **proposer.own_settings(), **policy}
    return recorder.trace(mode, recorded, prompt, output, stop, prefill_seconds, wall_seconds=clock() - start)


class SpeculativeDecoder:
    """One generation's state: the target's cached runner, the proposer, the generator and the settings.
    `token_text` gives each emitted token its text as the token is made (the recorder's `TraceRecorder.text`)."""

    def __init__(self, target: PreTrainedModel, proposer: Proposer, settings: GenerationSettings, eos: set[int],
                 verifier: Verifier = verify, clock: Clock = default_clock, draft_length=None,
                 template: set[int] = frozenset(), shape: DraftShape | None = None,
                 tree: TreeVerification | None = None, *,
                 token_text: Callable[[int], str] = lambda token_id: ""):
        self.target = runner_for(target, feature_layers=proposer.feature_layers)
        self.proposer = proposer
        self.settings = settings
        self.eos = eos
        self.clock = clock
        self.token_text = token_text
        self.draft_length = draft_length  # a specviz.engine.policies.DraftLength, or None for the constant settings.k
        context = StepContext(self.target, proposer, settings.sampling, settings.generator(), frozenset(eos),
                              frozenset(template), target.config.vocab_size, settings.max_new_tokens, self.depth)
        self.chain_shape, self.tree_shape = ChainStep(context, verifier), None
        if shape is not None and shape.tree_nodes:
            self.tree_shape = TreeStep(context, shape, tree or TreeVerification())

    def prefill(self, prompt: list[int]) -> None:
        """Fill the target's cache with the prompt except its last token, which the first step feeds, and give the
        proposer its warm start: a draft model, separate or layer-skip, fills its own cache alike; a feature drafter
        gets the target's states of the prompt (EAGLE fills its one-layer cache as it proposes, Medusa keeps only the
        states); n-gram lookup keeps nothing."""
        self.proposer.reset()
        if self.draft_length is not None:
            self.draft_length.reset()
        self.target.reset()
        self.target.prefill(prompt, features=self.proposer.needs_target_features)
        if self.target.last_hidden is not None:
            self.proposer.observe_target(0, self.target.last_hidden)
        self.proposer.prefill(prompt)
        synchronize(self.target.device)

    def step(self, sequence: list[int], output: list[int]) -> StepOutcome:
        """One round; extends `sequence` and `output` in place with what it emits. The five steps are the same for a
        chain and a tree; `ChainStep` and `TreeStep` hold what differs (what is drafted, scored, kept)."""
        shape = self.tree_shape if self.tree_shape is not None and self.proposer.can_branch else self.chain_shape
        t0, before = self.clock(), (len(self.target), self.proposer.cache_length())
        # 1. propose: K drafts (a chain) or a tree of at most N drafted nodes and depth K, plus a lookup branch of
        #    at most tree_lookup copied tokens (which may reach deeper than K); never past the token limit
        draft = shape.propose(sequence, len(output))
        t1 = self.clock() if len(draft) else t0  # nothing drafted (target-only decoding): no draft time
        # 2. score: one target forward over the last token and every draft -> p at each drafted position and one more
        target_probs = shape.score(sequence, draft)
        t2 = self.clock()
        # 3. verify: the rule keeps a prefix (a path) of the drafts and samples the recovered or bonus token
        result = shape.verify(target_probs, draft)
        if self.draft_length is not None:
            self.draft_length.observe(draft.depth, result.n_accepted)
        # 4. rewind: the target's cache keeps the sequence plus the accepted drafts, nothing after them; the proposer
        # rolls back its own (an EAGLE drafter drops every drafted position and reads the kept ones again next step)
        kept_length = len(sequence) + result.n_accepted
        shape.rewind(kept_length, result)
        if self.proposer.needs_target_features:  # a feature drafter gets the target's states of the kept tokens
            start = self.target.last_start
            self.proposer.observe_target(start, self.target.last_hidden[: kept_length - start])
        # 5. emit: the accepted drafts, then the recovered or bonus token; stop at EOS or max_new_tokens
        kept, stop = append_until_stop(output, emitted_tokens(result, self.token_text), self.eos,
                                       self.settings.max_new_tokens)
        sequence.extend(t.token_id for t in kept)
        return StepOutcome(
            result.drafts, result.draft_probs, result.target_probs, result.verdict, result.next_kind, kept, stop,
            context_length=len(sequence) - len(kept), proposer=self.proposer.name,
            target_cache=(before[0], len(self.target)), draft_cache=(before[1], self.proposer.cache_length()),
            draft_seconds=t1 - t0, verify_seconds=t2 - t1, overhead_seconds=self.clock() - t2,
            tree=result.tree, tree_verdict=result.tree_verdict, tree_target_probs=result.tree_target_probs)

    def depth(self, n_emitted: int) -> int:
        """How deep this round may draft: the policy's K or the constant one, never past the token limit."""
        wanted = self.settings.k if self.draft_length is None else self.draft_length.next_k()
        return min(wanted or 0, self.settings.max_new_tokens - n_emitted - 1)


@dataclass(frozen=True)
class StepContext:
    """What a step strategy works with, handed over once: the target's cached runner, the proposer, how to sample
    and the generation's one generator, the stop tokens, the chat-template markers, the vocabulary size V, the token
    limit, and `depth`, which says how deep a round may draft after `n_emitted` tokens (the policy's K or the
    constant one, never past the limit)."""

    target: CachedModel
    proposer: Proposer
    sampling: SamplingConfig
    generator: torch.Generator
    eos: frozenset[int]
    template: frozenset[int]  # markers such as <|im_start|>: a model writes them around answers, never inside
    vocab_size: int
    max_new_tokens: int
    depth: Callable[[int], int]  # tokens emitted so far -> how deep this round may draft


@dataclass(frozen=True)
class StepResult:
    """What one round decided, as a chain: its drafts (K), their q (K, V), p before each draft and after the last
    (K+1, V) and the chain verdict. A tree round's drafts are its main line (`main_line`); the whole tree, its
    verdict and p at the root and at every node (N+1, V) come with them. None of the three for a chain."""

    drafts: list[int]
    draft_probs: torch.Tensor  # (K, V)
    target_probs: torch.Tensor  # (K+1, V)
    verdict: VerifyResult
    tree: DraftTree | None = None
    tree_verdict: TreeVerifyResult | None = None
    tree_target_probs: torch.Tensor | None = None  # (N+1, V)

    @property
    def n_accepted(self) -> int:
        return self.verdict.n_accepted

    @property
    def next_kind(self) -> TokenKind:
        """The kind of the token after the accepted drafts, decided here and nowhere else: the verdict's recovered
        or bonus token, or a plain target token when nothing was drafted (a rule given no drafts samples its "bonus"
        from p at the first position: that is one step of target-only decoding)."""
        return self.verdict.next_kind if self.drafts else TokenKind.TARGET


@dataclass
class ChainDraft:
    """A chain's proposal: the drafted tokens (K) and their q (K, V)."""

    tokens: list[int]
    draft_probs: torch.Tensor

    def __len__(self) -> int:
        return len(self.tokens)

    @property
    def depth(self) -> int:
        return len(self.tokens)


class ChainStep:
    """What a chain round does at each of the five steps of `SpeculativeDecoder.step`, with the chain rule
    `verifier` (the exact `verify` unless the Exactness lab passes a broken rule)."""

    def __init__(self, context: StepContext, verifier: Verifier = verify):
        self.context = context
        self.verifier = verifier

    def propose(self, sequence: list[int], n_emitted: int) -> ChainDraft:
        """The drafted tokens and their q.

        A proposal ends at its first end-of-text token: nothing after it could ever be emitted, so drafts past it
        would only be scored and thrown away (exact: those drafts are never reached or never emitted).
        A deterministic proposal (n-gram lookup, q a point mass) also ends just before a chat-template marker
        (`<|im_start|>`), which lookup copies from the template in the prompt but a model never writes inside its
        answer: cutting a deterministic proposal is just another deterministic proposer, so the rule stays exact.
        A sampled draft is never cut before a token for what that token is (only after an end-of-text one, as
        above): cutting the chain before a marker m drawn from q would emit a bonus token from p in place of what the
        rule gives m's draw (m itself with a = min(1, p(m)/q(m)), else a recovered token), that is
        p − q(m)·(a·δ_m + (1 − a)·norm(max(0, p − q))) + q(m)·p: not p."""
        c = self.context
        k = c.depth(n_emitted)
        proposal = c.proposer.propose(sequence, k, c.sampling, c.generator) if k > 0 else Proposal([], None)
        drafts = proposal.tokens[:k]
        check_drafts(drafts, c.vocab_size, c.proposer.name)
        markers = c.template if proposal.draft_probs is None else frozenset()
        end = next((i for i, token in enumerate(drafts) if token in c.eos or token in markers), None)
        if end is not None:
            drafts = drafts[: end + (drafts[end] in c.eos)]
        synchronize(c.target.device)
        return ChainDraft(drafts, draft_distributions(proposal, drafts, c.vocab_size))

    def score(self, sequence: list[int], draft: ChainDraft) -> torch.Tensor:
        """p at the K+1 positions after the sequence's last token and each draft (K+1, V), from one forward."""
        c = self.context
        logits = c.target.feed(sequence, draft.tokens, keep=len(draft) + 1, features=c.proposer.needs_target_features)
        target_probs = c.sampling.probs(logits).cpu()
        synchronize(c.target.device)
        return target_probs

    def verify(self, target_probs: torch.Tensor, draft: ChainDraft) -> StepResult:
        """The chain rule's verdict on the drafts, with what it judged."""
        verdict = self.verifier(target_probs, draft.draft_probs, draft.tokens, generator=self.context.generator)
        return StepResult(draft.tokens, draft.draft_probs, target_probs, verdict)

    def rewind(self, length: int, result: StepResult) -> None:
        """Forget everything after the first `length` tokens in the target's cache; the proposer rolls back its own."""
        self.context.target.rewind(length)
        self.context.proposer.rollback(length)


class TreeStep:
    """What a tree round does at each of the five steps: one forward over the whole tree (tree mask, per-node
    positions), the recursive tree rule (`rule.verifier`), and a cache compaction that keeps only the accepted
    path. `shape` says how big the tree may grow (its nodes, width and lookup branch; the depth is the round's K)."""

    def __init__(self, context: StepContext, shape: DraftShape, rule: TreeVerification | None = None):
        self.context = context
        self.shape = shape
        self.rule = rule or TreeVerification()

    def propose(self, sequence: list[int], n_emitted: int) -> DraftTree:
        """A draft tree: drafted nodes to depth at most K. Greedy trees take the draft's top tokens; sampled ones draw
        children from q without replacement, unless its rule judges top tokens (`TreeVerification.top_children`:
        the Exactness lab's top-k rules). With a lookup branch, up to `lookup` tokens that followed the latest earlier
        occurrence of the sequence's last 3 tokens (failing a match, its last 2, then its last 1; where fewer follow it,
        the copy reads on into itself: `prompt_lookup(overlap=True)`) are grafted on
        (deterministic, so exact at every temperature); that branch is bounded by `lookup`, not by K, so it can
        reach deeper than the drafted nodes."""
        c, shape = self.context, self.shape
        depth = c.depth(n_emitted)
        sampled = not c.sampling.greedy and not self.rule.top_children
        if depth <= 0:
            return DraftTree([], [], torch.zeros(0, c.vocab_size), sampled)
        tree = c.proposer.propose_tree(sequence, max_nodes=shape.tree_nodes, max_depth=depth, width=shape.tree_width,
                                       sampling=c.sampling, generator=c.generator, sampled=sampled,
                                       stop_tokens=c.eos)
        check_drafts(tree.tokens, c.vocab_size, c.proposer.name)
        if shape.tree_lookup:  # one more branch, copied from the context; never past the token limit
            room = min(shape.tree_lookup, c.max_new_tokens - n_emitted - 1)
            copy = prompt_lookup(sequence, room, exclude=c.template, overlap=True) if room > 0 else []
            tree = graft_copy(tree, copy, c.vocab_size, c.eos)
        synchronize(c.target.device)
        if not len(tree):
            return DraftTree([], [], torch.zeros(0, c.vocab_size), sampled)
        return tree

    def score(self, sequence: list[int], tree: DraftTree) -> torch.Tensor:
        """p at the root and every node (N+1, V), from one forward with the tree mask."""
        c = self.context
        logits = c.target.feed_tree(sequence, tree, features=c.proposer.needs_target_features)
        target_probs = c.sampling.probs(logits).cpu()
        synchronize(c.target.device)
        return target_probs

    def verify(self, target_probs: torch.Tensor, tree: DraftTree) -> StepResult:
        """The tree rule's verdict, as its main line with the whole tree beside it."""
        return main_line(tree, target_probs, self.rule.verifier(target_probs, tree, generator=self.context.generator))

    def rewind(self, length: int, result: StepResult) -> None:
        """The target's cache (and a draft model's) keeps the sequence plus the accepted path, nothing else of the
        tree; an EAGLE drafter drops every drafted node (`EagleProposer.keep_tree_path`)."""
        self.context.target.keep_path(result.tree_verdict.path)
        self.context.proposer.keep_tree_path(length, result.tree_verdict.path)


def main_line(tree: DraftTree, target_probs: torch.Tensor, verdict: TreeVerifyResult) -> StepResult:
    """The tree step seen as a chain, for everything that reads chains (decisions, emitted tokens, metrics): the
    accepted path, then the first child tried below it if that was rejected. Its drafts (K), their q (K, V), p
    before each and after the last (K+1, V) and a chain verdict with the tree's recovered or bonus token; the whole
    tree, its verdict and p at every node (N+1, V) come with them, for the step's tree record."""
    line = list(verdict.path)
    after = verdict.tested[verdict.tested.index(line[-1]) + 1:] if line else verdict.tested
    if after:
        line.append(after[0])  # the first rejected child below the path
    rows = [0] + [node + 1 for node in line]
    order = {node: i for i, node in enumerate(verdict.tested)}
    chain = VerifyResult(verdict.n_accepted, [verdict.uniforms[order[n]] for n in line],
                         [verdict.accept_probs[order[n]] for n in line], verdict.next_token, verdict.next_kind,
                         verdict.next_dist)
    draft_probs = tree.draft_probs[line] if line else torch.zeros(0, target_probs.shape[-1])
    return StepResult([tree.tokens[n] for n in line], draft_probs, target_probs[rows], chain,
                      tree=tree, tree_verdict=verdict, tree_target_probs=target_probs)


def emitted_tokens(result: StepResult, text: Callable[[int], str] = lambda token_id: "") -> list[EmittedToken]:
    """The accepted drafts, then the recovered, bonus or target token (`StepResult.next_kind`), each with its text."""
    verdict, target_probs, x = result.verdict, result.target_probs, result.verdict.next_token
    n = verdict.n_accepted
    tokens = [EmittedToken(d, text(d), TokenKind.ACCEPTED, float(target_probs[i, d]), float(result.draft_probs[i, d]),
                           verdict.uniforms[i]) for i, d in enumerate(result.drafts[:n])]
    tokens.append(EmittedToken(x, text(x), result.next_kind, float(target_probs[n, x])))
    return tokens


def check_drafts(tokens: Sequence[int], vocab_size: int, proposer: str) -> None:
    """A ValueError with one sentence when a proposer drafts something that is no token id of the target's
    vocabulary (0 to V - 1), before anything indexes a distribution with it.

    >>> check_drafts([0, 9], 10, "mine")
    >>> check_drafts([3, 10], 10, "mine")
    Traceback (most recent call last):
    ...
    ValueError: The mine proposer drafted 10, which is no token id of the target's vocabulary (0 to 9).
    """
    for token in tokens:
        if not is_integral(token) or not 0 <= token < vocab_size:
            raise ValueError(f"The {proposer} proposer drafted {token!r}, which is no token id of the target's "
                             f"vocabulary (0 to {vocab_size - 1}).")


def draft_distributions(proposal: Proposal, drafts: list[int], vocab_size: int) -> torch.Tensor:
    """q for each drafted position (K, V); a deterministic proposer's q is a point mass on its guess."""
    if proposal.draft_probs is not None:
        return proposal.draft_probs[: len(drafts)]
    return point_masses(drafts, vocab_size)
