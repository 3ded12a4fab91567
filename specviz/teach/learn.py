"""The guided path: eleven short lessons in order, the learner's progress as URL parameters, and the questions each
lesson checks with, all without Streamlit (the page is `pages/learn.py`, drawn by `specviz.ui.learn.view`).

A `Lesson` names the quiz concepts it introduces (the `concept` labels of `assets/quiz/*.yaml`), the technical
terms it defines (in bold in its text, before any later lesson or check question uses them), two to four check
questions from the bank (on concepts introduced so far), the interaction the page draws for it, and the app page
that goes deeper. `Progress` is where a learner stands, read from and written to the URL: the lesson on screen, the
lessons *mastered* (every check answered right) and those only *attempted* (a check answered, not all right yet).
Moving on marks nothing: a lesson is mastered by its checks alone.

    >>> progress, problem = parse_progress({"lesson": "4", "done": "1,2", "tried": "3"})
    >>> progress.lesson, sorted(progress.done), sorted(progress.tried), problem
    (4, [1, 2], [3], None)
    >>> progress.to_params()
    {'lesson': '4', 'done': '1,2', 'tried': '3'}
    >>> parse_progress({"lesson": "twelve"})[1]
    "The link asked for lesson 'twelve', which is not on the path (lessons 1 to 11), so it starts at lesson 1."

After the last lesson comes the exit ticket (`lesson=ticket`): one question per FAQ topic of the bank.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache

from specviz.core import urlvalues
from specviz.core.i18n import N_, _, list_separator, ngettext
from specviz.core.paths import QUIZ_DIR
from specviz.core.text import typed
from specviz.teach.quiz.schema import FAQ_TOPICS, Bank, Question

TICKET = "ticket"  # the URL value of the exit ticket, the stop after the last lesson


@dataclass(frozen=True)
class Lesson:
    """One lesson. `interaction` names the widget `specviz.ui.learn.view` draws; `page` the app page that goes
    deeper (and `anchor` with `section`, the part of it); `checks` are question ids of the bundled bank."""

    number: int
    slug: str
    title: str
    objective: str
    text: str
    concepts: tuple[str, ...]
    terms: tuple[str, ...]
    checks: tuple[str, ...]
    interaction: str
    page: str
    anchor: str = ""  # a section of that page: its anchor (Streamlit's, from the heading) ...
    section: str = ""  # ... and its heading, which the lesson's link names
    example: str = ""

    # The texts are English messages (marked with N_ below); these give them in the reader's language.
    def shown_title(self) -> str:
        return _(self.title)

    def shown_objective(self) -> str:
        return _(self.objective)

    def shown_text(self) -> str:
        """The text in the reader's language, its figures filled by `measured_figures` ({fp32}, ... read from the
        benchmarks; lesson 7's {article_low}, ... computed from the formula)."""
        return _(self.text, **measured_figures()) if "{" in self.text else _(self.text)

    def shown_section(self) -> str:
        return _(self.section) if self.section else ""


LESSONS: tuple[Lesson, ...] = (
    Lesson(1, "why-slow", N_("Why decoding is slow"),
           N_("Explain why a large model writing one token at a time waits on memory, not on arithmetic."),
           N_("A language model writes text one **token** (a word or a piece of one; the model's list of them is its "
           "**vocabulary**) at a time, after the **prompt**, the text it is given. Each token costs one **forward "
           "pass**: one run of the whole network for the new token, which reads every weight (the model's "
           "learned numbers, its **parameters**) from memory. Each token depends on the ones before it, so the "
           "passes run one after another.\n\n"
           "Reading is the slow part. In **fp16** (16-bit numbers) a parameter takes 2 bytes, and a pass for one "
           "new token does about 2 **FLOPs** (floating-point operations: one multiply and one add) per parameter: "
           "about 1 FLOP per byte read. A GPU can do hundreds of FLOPs in the time it reads one byte, so at **batch "
           "size** 1 (one text generated at a time) the pass is **memory-bound**: its time is set by the **memory "
           "bandwidth** (bytes per second the chip can read), and the arithmetic units mostly wait."),
           ("memory_bound",),
           ("token", "vocabulary", "prompt", "forward pass", "parameters", "fp16", "flops", "batch size",
            "memory-bound", "memory bandwidth"),
           ("mb-bandwidth-bound", "mb-intensity"), "bandwidth", "pages/overview.py"),
    Lesson(2, "loop", N_("The loop: guess cheaply, check in one pass"),
           N_("Describe one step of speculative decoding: propose, verify, accept or reject, correct."),
           N_("Speculative decoding adds a second, much smaller model: the **draft**. The big model whose text we "
           "want is the **target**. Each **step** (also called a **round**) has four parts:\n\n"
           "1. **Propose.** The draft guesses the next **K** tokens, one after another. Its guesses are called "
           "**drafts** (or drafted tokens). The draft is small, so this is cheap.\n"
           "2. **Verify.** The target runs **one** forward pass over the text plus all K drafts. That pass is "
           "memory-bound, so scoring K+1 positions (each draft, plus the slot after the last one) costs about as "
           "much as scoring one.\n"
           "3. **Accept or reject.** Going left to right, the target keeps drafts until the first one it rejects "
           "(the next lesson gives the rule).\n"
           "4. **Correct.** At the first rejected draft the target writes a token of its own in its place, a "
           "**recovered** token, and the drafts after it are dropped. If every draft is kept, the slot after the "
           "last one gives one more token for free, a **bonus** token.\n\n"
           "So one target pass writes (**emits**) between 1 and K+1 tokens instead of exactly 1."),
           ("core_idea",), ("draft", "target", "round", "drafts", "recovered", "bonus", "emits"),
           ("mb-verify-cheap", "ci-round-facts"), "loop", "pages/playground.py", example="smollm-draft-t07"),
    Lesson(3, "rule", N_("The rule: keep x with probability min(1, p/q)"),
           N_("Apply the accept rule to one draft and say when a draft is always kept."),
           N_("The draft does not just name a token x: it draws x from its own probabilities, **q** (q(x) is how "
           "likely the draft thought x was). The target's pass gives its own probabilities **p** at the same position. "
           "The check (the **verifier**) keeps x with probability **min(1, p(x) / q(x))**: it draws a **uniform** random number u "
           "between 0 and 1 (written U(0, 1)) and keeps x when u < min(1, p(x)/q(x)).\n\n"
           "If the target likes x at least as much as the draft did (p ≥ q), x is always kept. If the draft was "
           "over-confident (p < q), x survives only a fraction p/q of the time."),
           ("accept_rule",), ("verifier", "uniform", "min(1, p"),
           ("ar-prob-1", "ar-verdict", "ar-why-always"), "rule", "pages/playground.py"),
    Lesson(4, "first-disagreement", N_("The first disagreement"),
           N_("Say what happens at the first rejection, where the replacement comes from, when a bonus is added, and "
              "what the KV caches keep."),
           N_("Drafts are tested from left to right. At the **first rejection** that draft and every draft after it "
           "are thrown away: the later ones were guessed after a token that is no longer in the text.\n\n"
           "In its place the target writes a recovered token drawn from **norm(max(0, p − q))**, the **residual**: "
           "the target's probabilities minus the draft's, with negative values set to 0 and the rest rescaled to "
           "add up to 1 (renormalised). It holds the tokens the target wanted more than the draft offered. It "
           "costs no extra pass: "
           "p at that position came with the verify pass. If all K drafts are kept, the bonus token is drawn "
           "straight from p at position K+1.\n\n"
           "So that earlier tokens are never computed again, a model keeps for every token of the text the numbers "
           "later tokens read (its keys and values): the **KV cache**. The verify pass wrote the target's entries "
           "for every draft; those of thrown-away drafts are cut off (**rolled back**), while the entries of kept "
           "drafts stay: they are exactly what plain decoding would have computed (in exact arithmetic; lesson 5 "
           "gives the rounding caveat), so the target never recomputes them. A draft with a cache of its own rolls "
           "it back too. One that reads only the text keeps its entries for the kept drafts as they are. The "
           "drafter of lesson 9 that reads the target's internal numbers built its entries for the drafts from its "
           "own stand-ins for those numbers, so it drops them and reads the kept tokens again with the real ones "
           "from the verify pass."),
           ("first_disagreement", "residual", "bonus_token", "kv_rollback"),
           ("first rejection", "residual", "kv cache", "rolled back"),
           ("fd-later-draft", "rs-zero", "bt-count", "kv-target"), "first_disagreement", "pages/playground.py",
           example="smollm-draft-t07"),
    Lesson(5, "exactness", N_("Exactness: the output is the target's"),
           N_("Explain why the output follows the target's distribution whatever the draft, and what would break it."),
           N_("At a drafted position a token x can come out by two routes: the draft proposes it and it is kept "
           "(together, probability min(p(x), q(x))), or the draft is rejected and the residual picks x. The residual "
           "adds exactly the part of p that the first route leaves out, so the two routes add up to p(x); the bonus "
           "token, after the last draft, comes straight from p. So the output "
           "follows **exactly the target's distribution** (its probabilities p over the vocabulary), however bad "
           "the draft. A bad draft only makes it slower. "
           "Change the rule, or sample the replacement from p instead of the residual, and the guarantee is gone.\n\n"
           "A model's final output is one raw score per vocabulary token, its **logits**; the **temperature** T "
           "divides them before they become probabilities, sharpening both models' probabilities (below 1) or "
           "flattening them (above 1). **Greedy** decoding (temperature 0) always takes the most likely token, the "
           "**argmax**: then the rule keeps a draft exactly when it is the target's argmax, and otherwise writes "
           "the target's argmax, so the text is the same as the target's own greedy text.\n\n"
           "Exactly the same in exact arithmetic, that is. Hardware rounds: in any floating-point format the verify "
           "pass over K + 1 tokens can add its numbers in another order than a one-token pass, so the target's logits "
           "differ in their last digits. Where its two best tokens nearly tie, the argmax can flip, and from there the "
           "two texts part ways: every later token is written after a different text. **bfloat16** (16-bit "
           "numbers with few digits, specviz's default on a CPU with bfloat16 instructions) flips near-ties far more "
           "often than **float32** (32-bit numbers, with far more digits). "
           "In specviz's committed checks on CPU (assets/benchmarks/default-cpu-f32-packed and "
           "default-cpu-bf16-tree) greedy speculative output matched target-only output on {fp32} held-out prompts "
           "(none of them in the draft's training data) in float32 on {fp32_cpu} and on {bf16} in bfloat16 on "
           "{bf16_cpu}. The two runs used different draft shapes (how many tokens a step guesses, and how: lesson 9), "
           "and the bfloat16 one fewer of the same prompts, so they are not like for like: observations rather "
           "than proofs. The rule is exact, and a floating-point run is **lossless up to numerics**."),
           ("quality", "greedy_vs_sampling"),
           ("logits", "temperature", "greedy", "argmax", "bfloat16", "float32", "lossless up to numerics"),
           ("q-worse-draft", "q-break-exactness", "gs-same-text"), "exactness", "pages/exactness.py"),
    Lesson(6, "speedup", N_("What drives the speedup"),
           N_("Compute the expected mean accepted length and the speedup from α, K and c."),
           N_("Call **α** (alpha) the chance that the target keeps one draft, on average. At one position that chance "
           "is **β** = Σ min(p, q) (the sum over the vocabulary of the smaller of p and q); α = E[β] is its "
           "average over positions, the **acceptance probability**. Draft i only counts if all i − 1 before it were kept. Assume every draft is "
           "kept with the same chance α, **independently** of the others (real drafts are not: an easy stretch of "
           "text keeps several in a row, a hard one loses them together); then a step emits on average "
           "1 + α + α² + … + α^K = **(1 − α^(K+1)) / (1 − α)** tokens (the 1 is the recovered or bonus token): the "
           "expected **mean accepted length**. Counted on a real run, the mean accepted length is the average "
           "number of tokens per target pass (the recovered or bonus token included).\n\n"
           "The draft is not free: call **c** the cost of one draft pass as a fraction of one target pass. A step "
           "costs K·c + 1 target passes, so the expected **speedup** over the target alone is "
           "(1 − α^(K+1)) / ((1 − α)(K·c + 1)). A high α and a cheap draft win; a low α gives little back."),
           ("speedup",), ("acceptance probability", "independently", "mean accepted length", "speedup"),
           ("sp-expected-1", "sp-speedup-1", "ar-alpha"), "speedup", "pages/theory.py"),
    Lesson(7, "choosing-k", N_("Choosing K"),
           N_("Explain why more drafts eventually slow things down, and how the best K moves with α and c."),
           N_("More drafts per step is not always better. Draft i helps only if all before it were kept (chance "
           "α^(i−1)), but every draft costs c. Going from K to K + 1 drafts adds α^(K+1) expected tokens and c to a "
           "step's cost; it pays only if those tokens beat what the cost c would earn at the speedup S(K) the step "
           "already has: α^(K+1) > c·S(K). So the **best K** grows with α and shrinks as c grows. The optimum is "
           "usually flat: K a little off the top costs almost nothing. Because α changes with the text "
           "(boilerplate is easy to guess, new ideas are not), some systems change K as they go.\n\n"
           "**The article's own example.** The article this course follows pairs a 7B draft with a 70B target and "
           "promises \"2–3× faster\". A 7B pass costs about a tenth of a 70B one, so c ≈ 0.1. Then the formula "
           "gives {article_low} at α = 0.7 (best K = {article_low_k}) and {article_high} at α = 0.8 (best K = "
           "{article_high_k}): the promise holds when the draft agrees with the target most of the time. Reaching 3× "
           "would need α of about 0.87, where the best K rises to about 8."),
           ("choosing_k",), ("best k",),
           ("ck-too-large", "ck-lower-alpha", "ck-best-2", "ck-article"), "choosing_k", "pages/theory.py"),
    Lesson(8, "proposers", N_("Who proposes: draft models, lookup, layer skip"),
           N_("Compare three ways to propose drafts and say where each wins."),
           N_("Anything that guesses tokens can propose them. A separate small **draft model** is the classic choice; "
           "it must use the target's **tokenizer** (what cuts text into tokens: the same vocabulary), so that p and q "
           "score the same tokens, unless a translation layer re-cuts its guesses into the target's tokens (as "
           "Hugging Face's universal assisted generation does), and it is often **distilled**: trained to imitate "
           "the target. **Prompt lookup** (**n-gram** lookup) finds the "
           "last few tokens (an n-gram) earlier in the text and proposes what followed them: no model at all, and strong when the "
           "output copies its input. It is **deterministic**: its guess has q(x) = 1.\n\n"
           "Inside, the network is a stack of **layers**: each token enters as a vector, its **embedding**, and each "
           "layer turns every position's vector, its **hidden state**, into a new one; the **LM head** (the last "
           "part) turns the final hidden state into probabilities over tokens. **Layer skip** lets the target draft "
           "with only its first layers and its own LM head, then check with all of them: one model does both "
           "jobs."),
           ("prompt_lookup", "layer_skip"),
           ("tokenizer", "distilled", "prompt lookup", "n-gram", "deterministic", "layers", "embedding",
            "hidden state", "lm head", "layer skip"),
           ("pl-how", "pl-best-task", "ls-what"), "proposers", "pages/proposers.py"),
    Lesson(9, "trees", N_("Trees: many guesses in one pass"),
           N_("Explain how a tree of candidates is checked in one pass and why Medusa and EAGLE use one."),
           N_("Instead of one line of K drafts (a **chain**), propose a **tree**: a few **candidates** at each "
           "position, each branch a possible continuation. The target scores every node in one pass. In each layer, "
           "**attention** is the part where a position reads the earlier ones; a tree-shaped **attention mask** "
           "(which positions each position may read) lets each node see only the context, its own ancestors and "
           "itself, as if it were alone on its branch."
           "\n\n"
           "The check walks down from the root, trying a node's children one by one. Greedy (temperature 0): the "
           "child equal to the target's argmax is kept, so the kept path is the longest one the target itself "
           "would write. Sampling: starting from p′ = p and q′ = q at the node, child x is kept with probability "
           "min(1, p′(x)/q′(x)); after a rejection p′ "
           "becomes the residual and q′ loses x (the children were drawn from q without replacement) before the "
           "next child is tried. The step ends when every child of a node is rejected (the token then comes from "
           "the last residual) or when the kept path reaches a leaf (a bonus token from the leaf's p). Children "
           "taken as the draft's k most likely tokens, not drawn from q, are point masses: x is kept with "
           "probability p′(x). Either way the output follows the target's distribution exactly.\n\n"
           "**Medusa** adds extra output **heads** (small layers on the target's last hidden state, not "
           "attention's heads): head i guesses the token i+1 positions ahead, all from one pass, and their top "
           "guesses combine into a tree. "
           "**EAGLE** drafts in **feature space**: a light head predicts the target's next hidden state from the "
           "current one and the sampled token, and the LM head turns it into tokens (EAGLE-1; EAGLE-3, the design "
           "of specviz's own drafter, reads three of the target's layers, scores tokens with a small head of its "
           "own and is trained to match the target's next-token probabilities, not its hidden states); EAGLE-2 "
           "grows its tree where "
           "the drafts are confident. To draft past the first token an EAGLE drafter feeds its own predictions back in place of "
           "the target's hidden states, so after each verify pass it drops the cache entries it built from them "
           "and reads the kept tokens again with the target's real hidden states (lesson 4's exception). The Playground's preset 5 runs specviz's own EAGLE drafter as a tree. "
           "Preset 7 runs specviz's own Medusa heads the same way, each step saying which head drafted what: head 2 "
           "guesses without knowing head 1's guess. The Proposers page measures them against the EAGLE drafter, "
           "which reads its own first guess before the second, but is also a larger model trained on far more of the "
           "target's text: causes that one measured gap does not separate."),
           ("medusa", "eagle", "trees"),
           ("chain", "tree", "candidates", "attention", "attention mask", "medusa", "heads", "eagle", "feature space"),
           ("tr-mask", "tr-top-k", "md-tree", "eg-what"), "trees", "pages/proposers.py", anchor="trees",
           section=N_("Tree verification")),
    Lesson(10, "limits", N_("When speculation stops paying"),
           N_("Name the situations where speculation gives little or makes generation slower."),
           N_("The trick spends idle arithmetic to save memory reads. When the verify pass is no longer memory-bound, "
           "scoring K+1 positions costs more than one. That happens on a server that runs large batches (many "
           "sequences, the texts being written, at once) to get high **throughput** (tokens per second over all "
           "users): the pass is **compute-bound**, its time set "
           "by arithmetic. It can also happen on a CPU whose matrix kernels make a pass over several tokens cost "
           "clearly more than a one-token pass. Call **v** the cost of the verify "
           "pass in one-token target passes; the speedup becomes (1 − α^(K+1)) / ((1 − α)(K·c + v)). A low α, "
           "an expensive draft (c near 1) or a large v can each push it below 1: slower than the target alone. The "
           "Theory explorer shows where the **break-even** line (speedup = 1) lies."),
           ("limits",), ("throughput", "compute-bound", "break-even"),
           ("lm-large-batch", "lm-situations", "lm-verify-cost"), "limits", "pages/theory.py",
           anchor="when-speculation-stops-paying", section=N_("When speculation stops paying")),
    Lesson(11, "in-production", N_("Running it for real"),
           N_("Plan a rollout: choose a draft for a target, measure on real traffic, watch the acceptance rate and "
              "latency, and know when to turn speculation down."),
           N_("**Choosing the pair.** The draft must share the target's tokenizer (or go through a translation layer "
           "that re-cuts its guesses into the target's tokens) and cost far less than it: a small "
           "sibling from the same family (c ≈ 0.1 for a 7B draft of a 70B target, less for a smaller one), a feature "
           "drafter that reads the target's hidden states (EAGLE: EAGLE-1's drafter, which EAGLE-2 reuses, was trained "
           "over a fixed dataset, EAGLE-3's on answers the target wrote itself, as specviz's own was), the model's "
           "own multi-token heads, or n-gram lookup, which is free but only pays where an answer "
           "repeats text already in its context.\n\n"
           "**Measuring.** α depends on the text, so measure on your own traffic: real prompts, answer lengths and "
           "as many users at once as in production. Speedups differ widely by workload, and a pair can even lose "
           "time. N-gram lookup gains where an answer repeats text it has already seen: its input (code edits, "
           "summaries) or its own earlier words. A small model's greedy answer often loops, and then an open "
           "question gives the lookup as much to copy as a copying one, so the kind of prompt alone does not say "
           "what a proposer will gain.\n\n"
           "**The roadmap.** Set the targets first (the latency users may feel, the throughput the servers must "
           "keep, the acceptance rate the pair should reach), then roll out in stages, a small share of traffic "
           "first, widening only when the evidence meets the targets.\n\n"
           "**Watching.** At every stage and after it, watch two kinds of numbers. The **acceptance rate**: accepted / "
           "drafted tokens, counted by the server (vLLM exports the counters on its /metrics page); every draft enters "
           "the denominator, even those after a step's first rejection that were never tested, so for K ≥ 2 it is "
           "lower than α on average. And the latency users feel: time to first token and the "
           "**inter-token latency** (the time between two tokens of one answer), each as its median (p50) and as the "
           "time only the slowest one in a hundred exceeds (p99), next to throughput. Watch acceptance by position "
           "too, and errors and drift (new kinds of prompts lower the acceptance rate), and keep plain decoding "
           "ready as the fallback.\n\n"
           "**Turning it down.** Shorten K, or switch speculation off, when the acceptance rate drops (a new kind of "
           "prompt) or when load grows until the verify pass is compute-bound and the speedup falls below 1. The "
           "rule is exact either way, so these switches change the speed, not the output's distribution; what checks "
           "the rule itself is the "
           "rollout's equivalence test on the served stack (greedy output identical to plain decoding up to a first "
           "difference at a near-tie, which float32 makes far less likely than bfloat16 but does not rule out; a "
           "distribution test at T > 0), run before speed is judged."),
           ("production",), ("acceptance rate", "inter-token latency"),
           ("pr-measure", "pr-vllm-counters", "pr-turn-down", "pr-roadmap"), "production", "pages/serving.py"),
)

ARTICLE_C = 0.1  # a 7B draft for a 70B target, the article's pair: one draft pass ≈ a tenth of a target pass


def article_figures() -> dict[str, str]:
    """Lesson 7's worked example, computed: the article's 7B / 70B pair at c = 0.1, at its best K for α = 0.7 and
    0.8 (about 1.98× at K = 4 and 2.47× at K = 6)."""
    from specviz.core.i18n import number
    from specviz.engine import theory

    figures = {}
    for name, alpha in (("article_low", 0.7), ("article_high", 0.8)):
        k = theory.optimal_k(alpha, ARTICLE_C)
        figures[name] = number(theory.expected_speedup(alpha, k, ARTICLE_C), 2) + "×"
        figures[f"{name}_k"] = str(k)
    return figures


def measured_figures() -> dict[str, str]:
    """The figures lesson texts quote: read from the committed benchmarks (lesson 5: the greedy-identity checks and
    the machine each ran on) or computed from the formula (lesson 7: the article's example)."""
    from specviz.labs.bench import quoted

    return {**quoted.greedy_identity_counts(), **quoted.greedy_identity_machines(), **article_figures()}


BY_NUMBER: dict[int, Lesson] = {lesson.number: lesson for lesson in LESSONS}
LAST = LESSONS[-1].number

# translated with `_()` where they are used; {value} as `core.text.typed` quotes it: a number bare, a word in quotes
# (read 52: "999" was quoted as a word, and `done=1,99`, readable but out of range, was said to be unreadable)
TEXT = {
    "bad_lesson": N_("The link asked for lesson {value}, which is not on the path (lessons {first} to {last}), so it "
                     "starts at lesson 1."),
    "bad_done": N_("The link's list of finished lessons ({value}) could not be read (it takes up to {most} lesson "
                   "numbers separated by commas), so it starts at lesson 1."),
    "bad_tried": N_("The link's list of attempted lessons ({value}) could not be read (it takes up to {most} lesson "
                    "numbers separated by commas), so it starts at lesson 1."),
}


@dataclass(frozen=True)
class Progress:
    """Where a learner stands: the lesson on screen (a lesson number, or TICKET for the exit ticket), the lessons
    mastered (`done`: every check answered right) and the lessons attempted but not mastered (`tried`)."""

    lesson: int | str = 1
    done: frozenset[int] = field(default_factory=frozenset)
    tried: frozenset[int] = field(default_factory=frozenset)

    def to_params(self) -> dict[str, str]:
        """The URL parameters that bring the learner back here."""
        params = {"lesson": str(self.lesson)}
        if self.done:
            params["done"] = ",".join(str(n) for n in sorted(self.done))
        if self.tried - self.done:
            params["tried"] = ",".join(str(n) for n in sorted(self.tried - self.done))
        return params

    def seen(self) -> list[int]:
        """The lessons the learner has opened, attempted or mastered, in order (the ticket counts as all of them)."""
        if self.lesson == TICKET:
            return [lesson.number for lesson in LESSONS]
        return sorted(self.done | self.tried | {int(self.lesson)})

    def met_concepts(self) -> list[str]:
        """The quiz concepts of every lesson seen, in lesson order."""
        return [c for n in self.seen() for c in BY_NUMBER[n].concepts]

    def go(self, lesson: int | str) -> Progress:
        """The progress after moving to `lesson` (moving marks nothing)."""
        return Progress(lesson, self.done, self.tried)

    def checked(self, lesson: int, all_right: bool, missed: bool = True) -> Progress:
        """The progress after a check of `lesson` was graded: mastered when every check is right, else attempted.
        A lesson mastered already (a reload or a link brings it back with its checks unanswered) stays mastered
        while this session's answers to it are right so far (`missed` False): a right answer never unmasters it.

        >>> Progress(3).checked(3, False).to_params(), Progress(3).checked(3, True).to_params()
        ({'lesson': '3', 'tried': '3'}, {'lesson': '3', 'done': '3'})
        >>> mastered = Progress(3, frozenset({3}))
        >>> mastered.checked(3, False, missed=False).to_params(), mastered.checked(3, False).to_params()
        ({'lesson': '3', 'done': '3'}, {'lesson': '3', 'tried': '3'})
        """
        if all_right or (lesson in self.done and not missed):
            return Progress(self.lesson, self.done | {lesson}, self.tried - {lesson})
        return Progress(self.lesson, self.done - {lesson}, self.tried | {lesson})


def parse_progress(params: Mapping[str, str]) -> tuple[Progress, str | None]:
    """The progress a URL asks for, and one sentence when it asks for something that is not on the path (the
    learner then starts at lesson 1 with nothing done). Missing parameters are no problem: lesson 1. The numbers are
    read by `specviz.core.urlvalues`; the sentence repeats (part of) the value as typed, so a page shows it escaped.

    >>> parse_progress({"lesson": "²"})[1]
    "The link asked for lesson '²', which is not on the path (lessons 1 to 11), so it starts at lesson 1."
    >>> parse_progress({"lesson": "999"})[1]
    'The link asked for lesson 999, which is not on the path (lessons 1 to 11), so it starts at lesson 1.'
    >>> print(parse_progress({"lesson": "2", "done": "1,99"})[1])  # readable, but out of range: said so
    ... # doctest: +NORMALIZE_WHITESPACE
    The link's list of finished lessons names lesson 99, which is not on the path (lessons 1 to 11), so it starts
    at lesson 1.
    """
    raw_lesson = str(params.get("lesson", "1")).strip()
    raw_done = str(params.get("done", "")).strip()
    raw_tried = str(params.get("tried", "")).strip()
    first, last = min(BY_NUMBER), max(BY_NUMBER)
    number = urlvalues.whole(raw_lesson, first, last)  # ASCII digits only: "²", "٣", 5,000 digits are no lesson
    if raw_lesson == TICKET:
        lesson: int | str = TICKET
    elif number is not None and number in BY_NUMBER:
        lesson = number
    else:
        return Progress(), _(TEXT["bad_lesson"], value=typed(raw_lesson), first=first, last=last)
    sets = []
    most = len(BY_NUMBER) * 2
    for raw, which in ((raw_done, "done"), (raw_tried, "tried")):
        parts = urlvalues.whole_list(raw, -10**15, 10**15, most=most)  # readable: ASCII whole numbers, not too many
        if parts is None:
            return Progress(), _(TEXT[f"bad_{which}"], value=typed(raw), most=most)
        off = [text.strip() for text in raw.split(",") if text.strip() and int(text) not in BY_NUMBER]
        if off:  # read, but not on the path: said so, with the path's lessons
            return Progress(), _off_path(which, off)
        sets.append(frozenset(parts))
    done, tried = sets
    return Progress(lesson, done, tried - done), None


def _off_path(which: str, off: list[str]) -> str:
    """The sentence for a list of lessons (`done` or `tried`) that reads but names a lesson not on the path, the
    ones named as typed (`typed`: bare numbers)."""
    values, first, last = list_separator().join(map(typed, off)), min(BY_NUMBER), max(BY_NUMBER)
    if which == "done":
        return ngettext("The link's list of finished lessons names lesson {values}, which is not on the path "
                        "(lessons {first} to {last}), so it starts at lesson 1.",
                        "The link's list of finished lessons names lessons {values}, which are not on the path "
                        "(lessons {first} to {last}), so it starts at lesson 1.", len(off), values=values,
                        first=first, last=last)
    return ngettext("The link's list of attempted lessons names lesson {values}, which is not on the path "
                    "(lessons {first} to {last}), so it starts at lesson 1.",
                    "The link's list of attempted lessons names lessons {values}, which are not on the path "
                    "(lessons {first} to {last}), so it starts at lesson 1.", len(off), values=values,
                    first=first, last=last)


def concepts_up_to(number: int) -> list[str]:
    """Every concept introduced in lessons 1..number, in order."""
    return [c for lesson in LESSONS if lesson.number <= number for c in lesson.concepts]


def lesson_for_concept(concept: str) -> Lesson | None:
    """The lesson that introduces `concept` (None for a concept no lesson teaches, such as a teacher's own)."""
    return next((lesson for lesson in LESSONS if concept in lesson.concepts), None)


def check_questions(bank: Bank, lesson: Lesson) -> list[Question]:
    """The lesson's check questions that the bank holds, in the lesson's order."""
    by_id = bank.by_id()
    return [by_id[i] for i in lesson.checks if i in by_id]


def retry_question(bank: Bank, lesson: Lesson, missed: Question, seen: Iterable[str],
                   showing: Iterable[str] = ()) -> Question:
    """The question to ask after a miss (issue 43 item 10: a miss reveals the key, so asking the same item again
    let a learner copy it):

    1. a sibling on the same concept that the learner has not seen, in bank order, one that asks the missed
       question's calculation (the same formula, other numbers) before the others;
    2. when none is left, the concept's question seen longest ago among its siblings and this lesson's own checks
       on that concept, never `missed` (its key is on screen now) nor one on screen in another place (`showing`);
    3. the missed question itself only when the concept has no other question a retry may ask (in the bundled bank,
       only a concept with a single question; its choices are then shuffled anew by the caller).

    `seen` lists the ids the learner has been shown, oldest first; an id listed twice counts where it was listed
    last. A sibling is never an exit-ticket question (the learner would see its key before the ticket asks it) nor
    any lesson's check (it would spoil that lesson, and a later lesson's check may use terms not yet defined), so
    `lesson` only names where the miss happened and whose checks may come back. Within steps 1 and 2, a question
    that says a term a later lesson defines comes only after every one that does not.

    >>> from specviz.teach.quiz import load_bank
    >>> bank = load_bank()
    >>> lesson = LESSONS[0]
    >>> first = check_questions(bank, lesson)[0]
    >>> other = retry_question(bank, lesson, first, [first.id])
    >>> other.id != first.id and other.concept == first.concept
    True
    >>> asked_elsewhere = {q.id for q in exit_ticket(bank)} | {i for each in LESSONS for i in each.checks}
    >>> other.id in asked_elsewhere
    False
    """
    last_seen = {qid: at for at, qid in enumerate(seen)}  # an id listed again was seen again
    never = _asked_elsewhere(bank)
    skip = set(showing) | {missed.id}
    same = [q for q in bank if q.concept == missed.concept and q.id not in skip]
    siblings = [q for q in same if q.id not in never]
    fresh = [q for q in siblings if q.id not in last_seen]
    if fresh:  # 1. a sibling not seen yet, plain ones first, and among them the missed calculation asked again
        return min(fresh, key=lambda q: (_uses_later_terms(q, lesson.number), not _same_calculation(q, missed)))
    # 2. the cycle: every sibling was seen, so the one seen longest ago (or the lesson's own check) comes back
    again = [q for q in same if q.id not in never or q.id in lesson.checks]
    again.sort(key=lambda q: (_uses_later_terms(q, lesson.number), last_seen.get(q.id, -1)))
    return again[0] if again else missed  # 3. nothing else to ask


def _same_calculation(question: Question, missed: Question) -> bool:
    """Whether `question` asks the calculation `missed` asked (read 54: a miss of lesson 6's ar-alpha, α = Σ min(p, q),
    was retried with single-token accept-rule questions, none of which asks for α again)."""
    return missed.formula is not None and question.formula == missed.formula


def _uses_later_terms(question: Question, number: int) -> bool:
    """Whether the question (or its English twin in the bundled bank: the terms are English) says a term that a
    lesson after lesson `number` defines."""
    pattern = _later_terms(number)
    if pattern is None:
        return False
    texts = [_question_text(question), _bundled_english_texts().get(question.id, "")]
    return any(pattern.search(text) for text in texts)


def _question_text(question: Question) -> str:
    answer = question.answer if isinstance(question.answer, (list, tuple)) else ()
    return " ".join([question.prompt, *question.choices, *answer])


@cache
def _bundled_english_texts() -> dict[str, str]:
    """Each bundled question's English text by id, read once (a retry asks it of every sibling)."""
    from specviz.teach.quiz import load_bank

    return {q.id: _question_text(q) for q in load_bank([QUIZ_DIR])}


@cache
def _later_terms(number: int) -> re.Pattern[str] | None:
    """One pattern for every term the lessons after lesson `number` define (a plural "s" allowed); None after the
    last lesson."""
    terms = [re.escape(term) for each in LESSONS[number:] for term in each.terms]
    return re.compile(r"(?<![\w-])(?:" + "|".join(terms) + r")s?(?![\w-])", re.IGNORECASE) if terms else None


def _asked_elsewhere(bank: Bank) -> set[str]:
    """The ids a retry must not serve: the exit ticket's questions and every lesson's checks."""
    return {q.id for q in exit_ticket(bank)} | {qid for each in LESSONS for qid in each.checks}


def exit_ticket(bank: Bank) -> list[Question]:
    """One question per FAQ topic of the bank, in FAQ_TOPICS order (a topic the bank lacks is left out)."""
    first: dict[str, Question] = {}
    for question in bank:
        if question.faq and question.faq not in first:
            first[question.faq] = question
    return [first[topic] for topic in FAQ_TOPICS if topic in first]


def ticket_retake(bank: Bank, seen: Iterable[str]) -> list[Question]:
    """The exit ticket taken again (issue 43 item 10: a graded ticket shows its keys, so asking the same six items
    again let a learner copy them): each of its questions swapped for another on the same concept, as a lesson's
    retry picks one (`retry_question`: one not seen yet first, else the one seen longest ago; the same question
    only where its concept has no other, its choices then shuffled anew by the caller's new seed). `seen` lists the
    ids shown so far, oldest first.

    >>> from specviz.teach.quiz import load_bank
    >>> bank = load_bank()
    >>> first = exit_ticket(bank)
    >>> again = ticket_retake(bank, [q.id for q in first])
    >>> [q.concept for q in again] == [q.concept for q in first], any(q.id == p.id for q, p in zip(again, first))
    (True, False)
    """
    seen = list(seen)
    picked: list[Question] = []
    for question in exit_ticket(bank):
        lesson = lesson_for_concept(question.concept) or LESSONS[-1]
        other = retry_question(bank, lesson, question, seen, showing=[q.id for q in picked])
        picked.append(other)
    return picked


def lessons_to_revisit(missed: Iterable[Question]) -> list[Lesson]:
    """The lessons that teach the concepts of the missed questions, each once, in lesson order."""
    found = {lesson.number: lesson for q in missed if (lesson := lesson_for_concept(q.concept)) is not None}
    return [found[n] for n in sorted(found)]
