"""Traces on one time axis (the clock that timed them, `meta["clock"]`): where the time went, how the output grew,
and the measured speedup.

A trace records each step's draft, verify and overhead seconds. Laid end to end after the prefill they give the
race view: the speculative lane (draft, then one verifying target forward, per step) against the target-only
lane (one target forward per token), on one shared time axis that starts at 0 when generation starts.

    >>> from specviz.engine.trace import Step, Trace
    >>> steps = [Step(i, 5 + i, 0, "none", [], [], draft_seconds=0.0, verify_seconds=0.5) for i in range(2)]
    >>> t = Trace("autoregressive", {}, [1, 2], [7, 8], steps, prefill_seconds=1.0, wall_seconds=2.0)
    >>> [(b.phase, b.start, b.end) for b in step_intervals(t)]
    [('prefill', 0.0, 1.0), ('step', 1.0, 1.5), ('step', 1.5, 2.0)]

Speedup is always measured against a named baseline: specviz's own target-only decoding of the same prompt
with the same settings (`specviz.engine.baseline.autoregressive_generate`), timed in the same run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from decimal import Decimal

from specviz.core.i18n import (N_, _, as_written, fewest_digits, list_separator, localized, ngettext, number, percent,
                               times)
from specviz.engine import theory
from specviz.engine.kinds import Mode, StopReason
from specviz.engine.limits import is_whole
from specviz.engine.trace import Trace
from specviz.labs.bench.quoted import machine_text

# Shown through _() where they are read (never translated at import: that would freeze the language).
BASELINE_NAME = N_("specviz target-only decoding")
SPEEDUP_DEFINITION = N_(
    "Measured speedup = tokens/s of speculative decoding ÷ tokens/s of specviz's target-only decoding "
    "(same prompt and settings, measured in one run; prefill included in both)."
)
WINS, TIES = 1.05, 0.95  # a measured speedup of WINS or more is a win, one above TIES (and below WINS) a tie


def speedup_band(speedup: float) -> str:
    """"won", "tie" or "lost": the word a measured speedup earns on every page (the Race, the Speedup lab), so the
    same number is never a tie on one page and a loss on the other (the lab once called 0.96× slower, the Race a tie).
    The speedup is taken as both pages write it (`times`: 2 decimals), so one written figure always earns one word
    (read 51: 1.0454 read "About a tie (1.05×)" where a measured 1.05 reads "Speculation won: 1.05× faster").

    >>> speedup_band(1.05), speedup_band(1.0), speedup_band(0.96), speedup_band(0.95)
    ('won', 'tie', 'tie', 'lost')
    >>> speedup_band(1.0454), speedup_band(1.0449), speedup_band(0.9527), speedup_band(0.9551)
    ('won', 'tie', 'lost', 'tie')
    """
    written = as_written(speedup)
    return "won" if written >= WINS else "tie" if written > TIES else "lost"


@dataclass(frozen=True)
class Interval:
    """One bar of the race: the prefill (`index` = -1) or one step, split into its draft and verify parts.

    Times are seconds from the start of generation. `draft_end` is where drafting stopped and the target's
    verifying forward began; `verify_end` is where that forward stopped; the rest, up to `end`, is the
    rest of the step: sampling, the rule and the cache rewind (the race's legend and verdict use that name). For the target-only baseline the draft part is empty.
    """

    index: int
    start: float
    draft_end: float
    verify_end: float
    end: float
    k: int = 0
    n_accepted: int = 0
    n_emitted: int = 0

    @property
    def phase(self) -> str:
        return "prefill" if self.index < 0 else "step"

    @property
    def seconds(self) -> float:
        return self.end - self.start

    @property
    def draft_seconds(self) -> float:
        return self.draft_end - self.start

    @property
    def verify_seconds(self) -> float:
        return self.verify_end - self.draft_end


def step_intervals(trace: Trace) -> list[Interval]:
    """The prefill bar, then one bar per step, end to end: contiguous, non-overlapping, starting at 0.

    The steps together last exactly `trace.decode_seconds`; the prefill lasts `trace.prefill_seconds`.
    """
    prefill = max(trace.prefill_seconds, 0.0)
    bars = [Interval(-1, 0.0, 0.0, prefill, prefill)]
    t = prefill
    for step in trace.steps:
        draft_end = t + step.draft_seconds
        verify_end = draft_end + step.verify_seconds
        end = verify_end + step.overhead_seconds
        bars.append(Interval(step.index, t, draft_end, verify_end, end, step.n_drafted, step.n_accepted,
                             len(step.emitted)))
        t = end
    return bars


def untimed_seconds(trace: Trace) -> float:
    """The part of a run's wall time that no timer counted: `wall_seconds` minus the prefill and the steps (the loop's
    Python between one step's timers and the next's). Tokens/s divides by the whole wall time, so the race chart
    draws this remainder at the end of the lane; 0 when the steps fill the run (never negative).

    >>> from specviz.engine.trace import Step, Trace
    >>> steps = [Step(0, 5, 0, "none", [], [], draft_seconds=0.0, verify_seconds=0.5)]
    >>> untimed_seconds(Trace("autoregressive", {}, [1, 2], [7], steps, prefill_seconds=1.0, wall_seconds=1.75))
    0.25
    """
    return max(trace.wall_seconds - max(trace.prefill_seconds, 0.0) - trace.decode_seconds, 0.0)


def tokens_over_time(trace: Trace) -> tuple[list[float], list[int]]:
    """(times, tokens): the number of output tokens at the start (0, 0), after the prefill, and after every step.

    Plotted as a step line ("hv") it shows the output growing in jumps of one token (target-only) or of several
    (speculative). The last count is `trace.num_tokens`.
    """
    bars = step_intervals(trace)
    times, tokens = [0.0, bars[0].end], [0, 0]
    total = 0
    for bar in bars[1:]:
        total += bar.n_emitted
        times.append(bar.end)
        tokens.append(total)
    return times, tokens


def cut_short(trace: Trace) -> bool:
    """Whether a lane stopped at its time limit before its token budget or the end of its text: it raced fewer
    tokens than asked, so no verdict, split or exactness check may be drawn from it."""
    return trace.stop_reason == StopReason.DEADLINE


def measured_speedup(spec: Trace, baseline: Trace) -> float:
    """Tokens/s of `spec` ÷ tokens/s of `baseline`, specviz's target-only decoding of the same prompt.

    > 1 means speculation was faster in this run, < 1 slower; nan when either lane was cut short at its time limit
    (`cut_short`: the lanes did not race the same tokens). A baseline that is not target-only decoding of the same
    prompt with the same settings (`check_race`) is a ValueError with one sentence.
    """
    check_race(spec, baseline)
    if cut_short(spec) or cut_short(baseline):
        return math.nan
    spec_tps, base_tps = spec.tokens_per_second, baseline.tokens_per_second
    if not (math.isfinite(spec_tps) and math.isfinite(base_tps)) or base_tps <= 0:
        return math.nan
    return spec_tps / base_tps


def speed_decimals(*races: tuple[Trace, Trace]) -> int:
    """The decimals every lane's tokens/s takes so that, for each (lane, target-only lane) of `races`, the lane's
    tokens/s as written ÷ target-only's as written gives the speedup as written (`times`): 1, or as many
    more (up to 4) as it takes. Read 51: the n-gram example's 27.9 and 13.2 tokens/s stood beside a measured speedup
    of 2.12× (their ratio is 2.11), the EAGLE example's 19.6 and 13.0 beside 1.50× (1.51).

    >>> from specviz.engine.trace import Step, Trace
    >>> def lane(mode, seconds, tokens=1):
    ...     steps = [Step(0, 1, 0, "none", [], [], verify_seconds=seconds)]
    ...     return Trace(mode, {}, [1], [7] * tokens, steps, wall_seconds=seconds)
    >>> speed_decimals((lane("speculative", 1.0, 20), lane("autoregressive", 1.0, 10)))  # 20.0 ÷ 10.0 = 2.00
    1
    >>> speed_decimals((lane("speculative", 2.454946, 48), lane("autoregressive", 3.685060, 48)))  # 19.55 ÷ 13.03
    2
    """
    def agrees(decimals: int) -> bool:
        for lane, base in races:
            speedup = measured_speedup(lane, base)
            written = as_written(base.tokens_per_second, decimals)
            if math.isfinite(speedup) and written > 0 and \
                    number(as_written(lane.tokens_per_second, decimals) / written) != number(speedup):
                return False
        return True

    return fewest_digits(agrees, 1, 4)


def seconds_text(seconds: float, tokens: int | None = None, decimals: int = 1) -> str:
    """A lane's run time with at least three significant digits, and with `tokens` as many more as it takes for
    tokens ÷ these seconds to give the tokens/s the metric shows, to its `decimals` (read 48: a toy lane's "47
    tokens in 0.06 s" read as 783 tokens/s beside a metric of 738.8; read 49: "0.0636 s" still gave 739.0, and the
    Medusa example's "48 tokens in 3.01 s" 15.9 beside 16.0). The Race page and the CLI's `compare` write with it
    (read 51: compare printed "40 tokens in 1.94 s (20.7 tok/s" where 40 ÷ 1.94 is 20.6).

    >>> seconds_text(0.0636), seconds_text(0.5331), seconds_text(1.583), seconds_text(12.346)
    ('0.0636', '0.533', '1.58', '12.35')
    >>> seconds_text(0.06361933, 47), seconds_text(3.00624, 48)  # 47 ÷ 0.06362 = 738.8; 48 ÷ 3.006 = 16.0
    ('0.06362', '3.006')
    >>> seconds_text(2.454946, 48, 2)  # 48 ÷ 2.455 = 19.55 (2.45 gives 19.59)
    '2.455'
    """
    if not (math.isfinite(seconds) and seconds > 0):
        return number(seconds)
    digits = min(6, max(2, 2 - math.floor(math.log10(seconds))))
    if tokens:
        rate = number(tokens / seconds, decimals)
        while digits < 9 and number(tokens / as_written(seconds, digits), decimals) != rate:
            digits += 1
    return number(seconds, digits)


# what both lanes of a race must share besides the prompt (a trace's settings and meta); K and the proposer are
# the speculative lane's own
RACE_SETTINGS = ("max_new_tokens", "temperature", "top_k", "top_p", "seed")
RACE_META = ("pair", "dtype", "device")


def check_race(spec: Trace, baseline: Trace) -> None:
    """Raise ValueError unless `spec` is speculative and `baseline` is target-only decoding of the same prompt, with
    the same `RACE_SETTINGS` on the same pair, dtype and device (`RACE_META`)."""
    if spec.mode != Mode.SPECULATIVE:
        raise ValueError(_("The first trace of a race must come from speculative decoding."))
    if baseline.mode != Mode.AUTOREGRESSIVE:
        raise ValueError(_("The baseline must be {baseline}, but this trace is '{mode}'.", baseline=_(BASELINE_NAME),
                           mode=baseline.mode))
    if list(spec.prompt_ids) != list(baseline.prompt_ids):
        raise ValueError(_("These two traces start from different prompts, so their speeds cannot be compared."))
    differ = [name for name in RACE_SETTINGS if spec.settings.get(name) != baseline.settings.get(name)]
    differ += [name for name in RACE_META if spec.meta.get(name) != baseline.meta.get(name)]
    if differ:  # the module's promise: the same prompt *with the same settings*, on the same pair
        raise ValueError(_("These two traces were decoded with different settings ({names}), so their speeds cannot "
                           "be compared.", names=", ".join(differ)))


@dataclass(frozen=True)
class RaceCosts:
    """Per-step and per-token costs of both lanes, the numbers that explain a speedup or a slowdown.

    `break_even_tokens` is how many tokens a speculative step must emit on average to match the baseline:
    the cost of one speculative step divided by the cost of one target-only step (a forward and its sampling).
    """

    spec_step_ms: float
    spec_draft_ms: float
    spec_verify_ms: float
    tokens_per_step: float
    base_forward_ms: float
    spec_ms_per_token: float
    base_ms_per_token: float
    acceptance_rate: float  # accepted / drafted, not α (see alpha_note)

    @property
    def break_even_tokens(self) -> float:
        return self.spec_step_ms / self.base_forward_ms if self.base_forward_ms > 0 else math.nan


def race_costs(spec: Trace, baseline: Trace) -> RaceCosts:
    """Mean step and per-token costs (milliseconds) of the speculative and target-only lanes."""
    check_race(spec, baseline)

    def mean(values: list[float]) -> float:
        return 1000 * sum(values) / len(values) if values else math.nan

    def per_token(trace: Trace) -> float:
        return 1000 * trace.decode_seconds / trace.num_tokens if trace.num_tokens else math.nan

    return RaceCosts(
        spec_step_ms=mean([s.seconds for s in spec.steps]),
        spec_draft_ms=mean([s.draft_seconds for s in spec.steps]),
        spec_verify_ms=mean([s.verify_seconds for s in spec.steps]),
        tokens_per_step=spec.mean_accepted_length,
        base_forward_ms=mean([s.seconds for s in baseline.steps]),
        spec_ms_per_token=per_token(spec),
        base_ms_per_token=per_token(baseline),
        acceptance_rate=spec.acceptance_rate,
    )


def recording_note(spec: Trace) -> str | None:
    """For a recorded example (`make traces` writes `meta["recorded"]`), the sentence that says whose times these
    are: the machine the recording names (`quoted.machine_text`), or that it names none. None for a live race, whose
    times are this machine's."""
    when = spec.meta.get("recorded")
    if not when:
        return None
    machine = machine_text(spec.meta.get("machine") or {})
    if machine:
        return _("These times were recorded {when} on {machine}, not measured on this machine.", when=when,
                 machine=machine)
    return _("These times were recorded {when} on a CPU the recording does not name, not measured on this machine.",
             when=when)


def prefills_a_drafter(spec: Trace) -> bool:
    """Whether `spec`'s proposer runs a draft model over the prompt in the prefill (`DraftModelProposer.prefill`: a
    draft model, or layer-skip's first layers; `timed_as` "model"), so its prefill is longer than target-only's. An
    n-gram lookup reads no model, and EAGLE and Medusa only take the target's states of the prompt
    (`SpeculativeDecoder.prefill`); an unknown name: False. A layer-skip trace names its proposer by its layers
    ("layerskip-7", `LayerSkipProposer`), which read 48 found unknown here: its registry name is the part before the
    dash.

    >>> from specviz.engine.trace import Trace
    >>> [prefills_a_drafter(Trace("speculative", {"proposer": name}, [1], [], [])) for name in ("layerskip-7", "eagle")]
    [True, False]
    """
    from specviz.engine.proposers import registry

    name = proposer_name(spec)
    return name in registry.names() and registry.get(name).timed_as == "model"


def explain_race(spec: Trace, baseline: Trace) -> str:
    """A few plain sentences (Markdown) on why speculation won or lost this race, from the measured costs; for a
    recorded example the second sentence says where it was recorded (`recording_note`), so no figure stands without
    its machine.

    Each sentence is one whole message with named values (a translation may reorder them); sentences are joined
    with spaces."""
    where = recording_note(spec)
    if cut_short(spec) or cut_short(baseline):
        short = baseline if cut_short(baseline) else spec
        return _("No verdict: {lane} reached its time limit after {n} of its {budget} tokens, so the lanes did not "
                 "race the same text. Give the race fewer tokens (or race again when the machine is quiet).",
                 lane=_(BASELINE_NAME) if short is baseline else _("speculative decoding"), n=short.num_tokens,
                 budget=short.settings.get("max_new_tokens", "?"))
    c = race_costs(spec, baseline)
    speedup = measured_speedup(spec, baseline)
    rest = max(0.0, c.spec_step_ms - c.spec_draft_ms - c.spec_verify_ms)  # a step's time is the three (Step.seconds)
    # read 50: the step's cost is written as the sum of its three parts as written, so they add up ("18.8 + 70.1 +
    # 2.2" stood beside a step of 91.2 ms, the rounding of the unrounded sum); it stays within 0.15 ms of that sum
    parts = [as_written(part, 1) for part in (c.spec_draft_ms, c.spec_verify_ms, rest)]
    # read 50: every figure below, and the branch it picks, from the costs as written: "about 4.93 tokens" to break
    # even stood beside a step of 4.9 ms and a target-only step of 1.0 ms, which a reader divides to 4.9
    forward = as_written(c.base_forward_ms, 1)
    c = replace(c, spec_step_ms=sum(parts), spec_draft_ms=parts[0], spec_verify_ms=parts[1],
                base_forward_ms=forward if forward > 0 else c.base_forward_ms,
                tokens_per_step=as_written(c.tokens_per_step))
    # read 50 (review): the break-even as written too, so that a step "emitted 2.90 tokens, where about 2.90 would
    # have broken even" is never told it did not pay (2.9035 unrounded sent it down that branch)
    even = as_written(c.break_even_tokens)
    # read 54: a race in which no step drafted a token (an n-gram lookup that found nothing) has no accepted /
    # drafted, and its verdict read "accepted / drafted NaN%"; "–" as the metric above writes it
    rate_text = percent(c.acceptance_rate) if math.isfinite(c.acceptance_rate) else "–"
    # read 54: its parts named as the race's legend, table and hovers name them (draft, target forward, rest of the
    # step), not "drafting" and "verifying"
    cost = _("Each speculative step cost {step} ms on average (draft {draft} ms + target forward {verify} ms + rest "
             "of the step {rest} ms: sampling, the rule and the cache rewind) and emitted **{tokens} tokens**; "
             "one target-only step (a forward and its sampling) cost {forward} ms and emitted 1 token. To break "
             "even, a step must emit about **{even} tokens**.", step=number(c.spec_step_ms, 1),
             draft=number(c.spec_draft_ms, 1),
             verify=number(c.spec_verify_ms, 1), rest=number(parts[2], 1), tokens=number(c.tokens_per_step),
             forward=number(c.base_forward_ms, 1), even=number(even))
    if not math.isfinite(speedup):
        return " ".join(text for text in (where, cost) if text)
    if speedup_band(speedup) == "won":
        won = _("Speculation won: {speedup} faster.", speedup=times(speedup))
        if even <= 1 and not math.isfinite(c.acceptance_rate):
            # read 54: a race that drafted nothing was told "this race does not show that the drafts (accepted /
            # drafted –) paid for themselves", of drafts it never made
            why = _("A speculative step cost no more than one target-only step, and no step drafted a token: each "
                    "emitted one token, as a target-only step does, so no draft had a part in this win.")
        elif even <= 1:  # a step (at least one token) cost no more than a plain forward: any step paid
            # read 46: it said "one target-only forward" beside the cost sentence's "target-only step" (read 45)
            why = _("A speculative step cost no more than one target-only step, and every step emits at least one "
                    "token, so it would have won even with no draft kept: this race does not show that the drafts "
                    "(accepted / drafted {rate}) paid for themselves.", rate=rate_text)
        elif c.tokens_per_step < even:
            # read 46: a race won through the prefill or the time between steps read "each verify pass bought more
            # tokens than it cost" right after numbers that showed the steps did not pay (the loss branch's mirror)
            why = _("The steps alone did not pay (on average each emitted {tokens} tokens, where about {even} would "
                    "have broken even), so the time won is outside them: the prefill ({spec_prefill} ms against "
                    "{base_prefill} ms target-only) and the time between steps that no step's timer counted.",
                    tokens=number(c.tokens_per_step), even=number(even),
                    spec_prefill=number(1000 * spec.prefill_seconds, 1),
                    base_prefill=number(1000 * baseline.prefill_seconds, 1))
        else:
            # read 52: "each verify pass bought more tokens than it cost" stood over the EAGLE example, where 14 of its
            # 25 steps emitted one token and cost more than a target-only step: only their mean paid, and a step's cost
            # is its drafting too, not its verify pass alone
            why = _("The drafts were accepted often enough (accepted / drafted {rate}) that on average a step bought "
                    "more tokens than it cost.", rate=rate_text)
        return " ".join(text for text in (won, where, cost, why) if text)
    if speedup_band(speedup) == "tie":
        return " ".join(text for text in (_("About a tie ({speedup}).", speedup=times(speedup)), where, cost) if text)
    if c.tokens_per_step >= even:
        # checked first: a step of under 1.5 tokens that still paid is no loss of the steps (read 46)
        # read 46: the sentence below said the steps did not pay right after numbers showing that they did; then a
        # token's decode time is no more than target-only's, so what lost is the rest of the run's wall time
        paid = dict(tokens=number(c.tokens_per_step), even=number(even),
                    spec_prefill=number(1000 * spec.prefill_seconds, 1),
                    base_prefill=number(1000 * baseline.prefill_seconds, 1))
        if prefills_a_drafter(spec):
            reason = _("The steps paid for themselves (on average each emitted {tokens} tokens, where about {even} "
                       "would have broken even), so the time lost is outside them: the prefill ({spec_prefill} ms "
                       "against {base_prefill} ms target-only; a draft model reads the prompt too) and the time "
                       "between steps that no step's timer counted.", **paid)
        else:  # read 46 (review): an n-gram lookup, EAGLE or Medusa lane runs no draft model over the prompt
            reason = _("The steps paid for themselves (on average each emitted {tokens} tokens, where about {even} "
                       "would have broken even), so the time lost is outside them: the prefill ({spec_prefill} ms "
                       "against {base_prefill} ms target-only) and the time between steps that no step's timer "
                       "counted.", **paid)
    elif not math.isfinite(c.acceptance_rate):
        # read 54: a race in which no step drafted a token (an n-gram lookup that found nothing to copy) read "Few
        # drafts were kept (accepted / drafted –)": none was made. Each of its steps emitted the target's one token
        # and, its break-even above 1, cost more than a target-only step
        reason = _("No step drafted a token, so each step emitted one token, as a target-only step does, while "
                   "costing more than one on average: its draft ({draft} ms), its target forward ({verify} ms) and "
                   "the rest of the step.", draft=number(c.spec_draft_ms, 1), verify=number(c.spec_verify_ms, 1))
    elif c.tokens_per_step < 1.5:
        drafting = c.spec_draft_ms > 0.1 * c.base_forward_ms
        verifying = c.spec_verify_ms > 1.1 * c.base_forward_ms
        values = dict(rate=rate_text, draft=number(c.spec_draft_ms, 1),
                      verify=number(c.spec_verify_ms, 1))
        # read 55: "a target forward over K+1 positions" stood over the mean forward of steps that drafted fewer
        # than K (a lookup drafts only what it finds: a live n-gram race's steps drafted 4, 1, 4, 4, 4, 0, ...; the
        # recorded layer-skip race's last steps 3, 2, 1, 0 at the token limit): a step scores its drafts and one more
        if drafting and verifying:
            reason = _("Few drafts were kept (accepted / drafted {rate}), so each step emitted about one token, no "
                       "more than a plain forward, while paying for drafting ({draft} ms) and a target forward over "
                       "up to K+1 positions ({verify} ms, more than a one-token forward).", **values)
        elif drafting:
            reason = _("Few drafts were kept (accepted / drafted {rate}), so each step emitted about one token, no "
                       "more than a plain forward, while paying for drafting ({draft} ms).", **values)
        elif verifying:
            reason = _("Few drafts were kept (accepted / drafted {rate}), so each step emitted about one token, no "
                       "more than a plain forward, while paying for a target forward over up to K+1 positions "
                       "({verify} ms, more than a one-token forward).", **values)
        else:
            reason = _("Few drafts were kept (accepted / drafted {rate}), so each step emitted about one token, no "
                       "more than a plain forward, while paying for the extra work of each step.", **values)
    elif c.spec_draft_ms > c.base_forward_ms and even > c.tokens_per_step:
        # several drafts kept per step can still save forwards; what decides is the step's cost against its tokens
        reason = _("The draft is not cheap enough: drafting alone took {draft} ms a step, more than a whole "
                   "target-only step ({forward} ms), so a step with its target forward cost as much as {even} "
                   "target-only steps, more than the {tokens} tokens it emitted.", draft=number(c.spec_draft_ms, 1),
                   forward=number(c.base_forward_ms, 1), even=number(even),
                   tokens=number(c.tokens_per_step))
    else:
        # read 54: "the cost of drafting plus verifying" named the parts with verbs the race no longer uses (its
        # legend, table, hovers and cost sentence say draft, target forward, rest of the step) and left out the rest
        reason = _("The tokens each step emitted did not cover its cost: its draft, its target forward and the rest "
                   "of the step.")
    verdict = [_("Speculation lost: {speedup} (slower than target-only).", speedup=times(speedup)), *([where] if where
               else []), cost, reason]
    ratio = c.spec_verify_ms / c.base_forward_ms if c.base_forward_ms > 0 else math.nan
    if ratio > 1.5:
        # Read 45: base_forward_ms is a target-only step (its forward and sampling), not the forward alone. Read 54:
        # "one verify pass" and, in the reasons above, "a verify pass" named the segment the cost sentence, the
        # legend, the lanes table and the hovers call the "target forward" (the same figure under two names)
        verdict.append(_("Note also that a step's target forward cost {ratio} a target-only step (a one-token "
                         "forward and its sampling): on the machine that ran this race the model is not purely "
                         "memory-bound, so scoring up to K+1 positions at once is not free.", ratio=times(ratio, 1)))
    return " ".join(verdict)


ALPHA_NAME = "α = E[Σ min(p, q)]"  # a formula: the same in every language
RATIO_NAME = N_("accepted / drafted")
ALPHA_ESTIMATE = N_("The mean of min(1, p/q) over the drafted tokens the verifier tested. For a draft x ~ q, "
                    "E[min(1, p(x)/q(x))] = Σ min(p, q) at that position, so this estimates α averaged over the "
                    "positions the verifier reached; a position after a rejection is never tested, so it is not an "
                    "unbiased estimate of α over every position. In a tree step the terms are not α's: a child tried "
                    "after a rejected sibling is tested against the residual p′ that sibling left, and a child taken "
                    "from the draft's top tokens (not sampled from q) is kept with probability p′(x). The trace keeps "
                    "only the top of each distribution, so Σ min(p, q) cannot be summed directly.")


ALPHA_TEXT = {  # the sentences of alpha_note, whole, with named values; translated with _() where used
    "differ": N_("Accepted / drafted ({ratio}) is not α (estimated at {alpha}): the drafts after a step's first "
                 "rejection count as drafted and not accepted although they were never tested."),
    "all_tested": N_("Accepted / drafted ({ratio}) and the α estimate ({alpha}) differ here only by chance: no step "
                     "drafted past a rejection, so every draft was tested, and the first counts the coin flips while "
                     "the second averages their chances, min(1, p/q)."),
    "formula": N_("If every step drafts K tokens and each is kept with probability α, E[accepted] / K = "
                  "α(1 − α^K) / ((1 − α)K) = {predicted} at K = {k}."),
    # read 48: Medusa heads draft one token each (5 shipped), so a race at K = 8 drafted 5 a step and this
    # sentence gave none of its reasons
    "fewer": N_("Some steps of this run drafted fewer than K tokens ({reasons}), which that formula does not model."),
    # read 53: under the optimal policy "= 0.23 at K = 4" gave the run's K setting, which that policy ignores (its
    # steps drafted 3 to 10): the formula is now given at the fewest and the most a step drafted
    "formula_range": N_("If every step drafts K tokens and each is kept with probability α, E[accepted] / K = "
                        "α(1 − α^K) / ((1 − α)K): {low_predicted} at K = {low} and {high_predicted} at K = {high}, "
                        "the fewest and the most tokens a step of this run drafted, where it drafted any."),
    "varied": N_("Its steps drafted different numbers of tokens ({reasons}), which that formula does not model."),
}

# Read 48: why a step drafts fewer than K, one message for every sentence that lists the reasons (the α note above,
# the Theory page's trace caption, the Speedup lab's verdict); the Theory caption and the verdict had lost the heads'
# cap that the α note gained. Read 52: one list for every proposer told an n-gram or draft-model run that "Medusa
# heads draft one token each": each proposer gets the reasons that can apply to it (the token limit and a drafted
# end-of-text stop every proposer; a lookup also drafts only what it finds, the Medusa heads no more than their count)
SHORT_STEP_REASONS = {
    "any": N_("drafting stops at the token limit and after a drafted end-of-text token"),
    "ngram": N_("drafting stops at the token limit and after a drafted end-of-text token, and a lookup drafts only "
                "what it finds"),
    "medusa": N_("drafting stops at the token limit and after a drafted end-of-text token, and Medusa heads draft one "
                 "token each, so never more than there are heads"),
    # the proposer is not known: the reasons of every shipped one
    None: N_("drafting stops at the token limit and after a drafted end-of-text token, a lookup drafts only what it "
             "finds, and Medusa heads draft one token each, so never more than there are heads"),
}


# Read 53: a run whose policy was not constant K has steps shorter than K for the policy's own reason too, which the
# list above did not name: the threshold policy's confidence stop (the number drafted changes step to step) and the
# K the heuristic and optimal policies move step to step. {reasons}: the proposer's list above
POLICY_REASONS = {
    "threshold": N_("{reasons}; the threshold policy also stops drafting where the draft's own top probability falls "
                    "below its threshold, {threshold}, so the number drafted changes from step to step"),
    # read 53: a threshold of 0, which no top probability falls below: the policy stops nothing early
    "threshold_zero": N_("{reasons}; the threshold policy's threshold is 0, which no top probability falls below, so "
                         "it never stops drafting early"),
    # a file that names the threshold policy without its threshold
    "threshold_unknown": N_("{reasons}; the threshold policy also stops drafting where the draft's own top "
                            "probability falls below its threshold, so the number drafted changes from step to step"),
    "heuristic": N_("{reasons}; the heuristic policy also changes K from step to step, {shrink} lower after a step "
                    "with a rejected draft and {grow} higher after a step that kept every draft"),
    # a file that names the heuristic policy without its steps up and down
    "heuristic_unknown": N_("{reasons}; the heuristic policy also changes K from step to step, lower after a step "
                            "with a rejected draft and higher after a step that kept every draft"),
    "optimal": N_("{reasons}; the optimal policy also picks each step's K anew from the formula and the α estimated "
                  "from this run's steps so far, and where that K is 0 it drafts nothing (save one token every "
                  "{every} steps)"),
}


def proposer_name(spec: Trace) -> str:
    """The registry name of `spec`'s proposer ("" when it names none): its settings' "proposer", else its steps'. A
    layer-skip trace names its proposer by its layers ("layerskip-7", `LayerSkipProposer`): its registry name is the
    part before the dash.

    >>> from specviz.engine.trace import Trace
    >>> [proposer_name(Trace("speculative", {"proposer": name}, [1], [], [])) for name in ("layerskip-7", "eagle")]
    ['layerskip', 'eagle']
    """
    from specviz.engine.proposers import registry

    name = spec.settings.get("proposer") or next((step.proposer for step in spec.steps), "") or ""
    return name if name in registry.names() else name.partition("-")[0]


def heuristic_steps(spec: Trace) -> tuple[int, int] | None:
    """How much the heuristic policy of the run `spec` recorded moved K: (grow, shrink), K's rise after a step that
    kept every draft and its fall after one with a rejected draft (`policies.Heuristic`); None for another policy or
    a file that does not say.

    >>> heuristic_steps(Trace("speculative", {"policy": "heuristic", "heuristic_grow": 3, "heuristic_shrink": 2},
    ...                       [1], [], []))
    (3, 2)
    """
    s = spec.settings
    steps = (s.get("heuristic_grow"), s.get("heuristic_shrink"))
    if s.get("policy") != "heuristic" or not all(is_whole(n) and n >= 0 for n in steps):
        return None
    return int(steps[0]), int(steps[1])


def policy_ks(spec: Trace) -> list[int] | None:
    """The K the heuristic policy gave each step of the run `spec`, replayed from its recorded start (`k`), steps
    (`heuristic_steps`), bounds (`heuristic_k_min`, `heuristic_k_max`) and each step's drafted and accepted counts,
    as `policies.Heuristic` moved it; None for another policy, or where the file does not say enough (read 54: a
    heuristic run whose K never moved read "Its policy moved K step to step" because a step at the token limit
    drafted 0). A file without K max gives the Ks only where they never rose above the start (K max is at least it).

    >>> from specviz.engine.trace import Decision, Step
    >>> drafts = lambda k, a: [Decision(j, 1, "a", 0.5, 0.5, 1.0, 1.0, 0.1, j < a, True) for j in range(k)]
    >>> steps = [Step(i, 9, k, "draft", drafts(k, a), []) for i, (k, a) in enumerate(((4, 4), (4, 4), (0, 0)))]
    >>> settings = {"k": 4, "policy": "heuristic", "heuristic_grow": 2, "heuristic_shrink": 1}
    >>> policy_ks(Trace("speculative", {**settings, "heuristic_k_min": 1, "heuristic_k_max": 4}, [1], [], steps))
    [4, 4, 4]
    >>> policy_ks(Trace("speculative", {**settings, "heuristic_k_min": 1, "heuristic_k_max": 8}, [1], [], steps))
    [4, 6, 8]
    >>> policy_ks(Trace("speculative", settings, [1], [], steps)) is None
    True
    """
    moves, s = heuristic_steps(spec), spec.settings
    start, k_min, k_max = s.get("k"), s.get("heuristic_k_min", 1), s.get("heuristic_k_max")
    if moves is None or not (is_whole(start) and is_whole(k_min)) or any(step.tree is not None for step in spec.steps):
        return None
    top = k_max if is_whole(k_max) else math.inf
    ks, k = [], int(start)
    for step in spec.steps:
        ks.append(k)
        if step.n_drafted:  # a step that drafted nothing changes nothing (`Heuristic.observe`)
            k = min(top, max(k_min, k + (moves[0] if step.n_accepted == step.n_drafted else -moves[1])))
    return ks if is_whole(k_max) or max(ks, default=start) <= start else None


def short_step_reasons(proposer: str | None = None, policy: str | None = None,
                       threshold: float | None = None, heuristic: tuple[int, int] | None = None) -> str:
    """The reasons a step of `proposer` (a registry name; None: not known) drafts fewer than K, translated: a clause
    for inside parentheses. A name the list does not single out gets the reasons every proposer shares; no name
    ("" or None), those of every shipped proposer. `policy` (the draft-length policy's name; None: constant K) and
    `threshold` (the confidence below which a draft stops, as a trace records it) add the policy's own reason, with
    `heuristic`, the heuristic policy's (grow, shrink) (`heuristic_steps`).

    >>> short_step_reasons("draft")
    'drafting stops at the token limit and after a drafted end-of-text token'
    >>> short_step_reasons("draft", "threshold", 0.4).partition("; ")[2][-79:]
    'falls below its threshold, 0.4, so the number drafted changes from step to step'
    """
    from specviz.engine.policies import PROBE_EVERY

    reasons = _(SHORT_STEP_REASONS[proposer if proposer in SHORT_STEP_REASONS else "any" if proposer else None])
    if threshold is not None and math.isfinite(threshold) and threshold > 0:  # the stop, whatever picked K
        return _(POLICY_REASONS["threshold"], reasons=reasons, threshold=localized(repr(float(threshold))))
    if policy == "threshold":
        return _(POLICY_REASONS["threshold_zero" if threshold == 0 else "threshold_unknown"], reasons=reasons)
    if policy == "heuristic":
        return _(POLICY_REASONS["heuristic"], reasons=reasons, grow=heuristic[0], shrink=heuristic[1]) if heuristic \
            else _(POLICY_REASONS["heuristic_unknown"], reasons=reasons)
    if policy == "optimal":
        return _(POLICY_REASONS[policy], reasons=reasons, every=PROBE_EVERY)
    return reasons


def run_short_step_reasons(spec: Trace) -> str:
    """`short_step_reasons` for the run `spec` recorded: its proposer, its draft-length policy and the threshold of
    its confidence stop (a trace without them ran constant K)."""
    threshold = spec.settings.get("threshold")
    return short_step_reasons(proposer_name(spec), spec.settings.get("policy"),
                              threshold if isinstance(threshold, (int, float)) and not isinstance(threshold, bool)
                              else None, heuristic_steps(spec))


def policy_k_range(spec: Trace) -> tuple[int, int] | None:
    """The fewest and the most tokens a step of `spec` drafted where its policy, not the K setting, picked each
    step's K: the optimal policy (`specviz.engine.policies.make_policy` ignores K; read 53: the settings line and the
    α note gave such a run's "K = 4", whose steps drafted 3 to 10). None for any other run, or one with no steps.

    >>> from specviz.engine.trace import Decision, Step
    >>> drafts = lambda k: [Decision(j, 1, "a", 0.5, 0.5, 1.0, 1.0, 0.1, True, True) for j in range(k)]
    >>> steps = [Step(i, 9, k, "draft", drafts(k), []) for i, k in enumerate((3, 0, 7))]
    >>> policy_k_range(Trace("speculative", {"k": 4, "policy": "optimal"}, [1], [], steps))
    (0, 7)
    >>> policy_k_range(Trace("speculative", {"k": 4, "policy": "heuristic"}, [1], [], steps)) is None
    True
    """
    if spec.settings.get("policy") != "optimal" or not spec.steps:
        return None
    drafted = [s.n_drafted for s in spec.steps]
    return min(drafted), max(drafted)


def drafted_k_range(spec: Trace, every_step: bool = False) -> tuple[int, int] | None:
    """The fewest and the most tokens a step of `spec` drafted, where it drafted any, for a run whose policy moves K
    step to step (the optimal one, which ignores the K setting; the heuristic one, which starts from it and drafts
    more or fewer): the K the formula is given at in the α note (read 53: the Theory page said "K = 4" of a heuristic
    run whose steps drafted 1 to 6). `every_step`: the steps that drafted 0 count too, for a sentence that says what
    "its steps drafted" (the Theory page; read 54: a heuristic run whose steps drafted 0 to 5 was said to have drafted
    1 to 5). None for any other run, or one that drafted nothing.

    >>> from specviz.engine.trace import Decision, Step
    >>> drafts = lambda k: [Decision(j, 1, "a", 0.5, 0.5, 1.0, 1.0, 0.1, True, True) for j in range(k)]
    >>> steps = [Step(i, 9, k, "draft", drafts(k), []) for i, k in enumerate((3, 0, 7))]
    >>> [drafted_k_range(Trace("speculative", {"k": 4, "policy": p}, [1], [], steps)) for p in ("heuristic", None)]
    [(3, 7), None]
    >>> drafted_k_range(Trace("speculative", {"k": 4, "policy": "optimal"}, [1], [], steps), every_step=True)
    (0, 7)
    """
    if spec.settings.get("policy") not in ("optimal", "heuristic"):
        return None
    tried = [s.n_drafted for s in spec.steps if s.n_drafted >= 1]
    if every_step and tried:
        return min(s.n_drafted for s in spec.steps), max(tried)
    return (min(tried), max(tried)) if tried else None


def alpha_note(spec: Trace) -> str | None:
    """One sentence on why accepted / drafted differs from the α estimate (on average it sits below it for K > 1;
    one trace's count can land above it), with the formula that links them; None when the trace tested no drafts.

    In accepted / drafted, the drafts after a step's first rejection count as drafted and not accepted although
    they were never tested; where no step drafted past a rejection (always at K = 1) every draft was tested and
    the two differ only by chance, which the note says instead. If each draft is kept with probability α,
    E[accepted] / K = α(1 − α^K) / ((1 − α) K), below α for K > 1 and 0 < α < 1.

    None for a tree trace too: its mean of min(1, p′/q′) is not an estimate of α (`Trace.mean_accept_prob`) unless
    every tree was a chain (`Trace.mean_estimates_alpha`), its accepted / drafted counts every node, and the formula
    is the chain's, with K drafts a step. Under the optimal policy, which ignores the K setting, and the heuristic
    one, which moves K from it up and down, the formula is given at the fewest and the most tokens a step drafted,
    and the note says its steps drafted different numbers of tokens (`_policy_formula`).
    """
    alpha, ratio = spec.mean_accept_prob, spec.acceptance_rate
    if not (math.isfinite(alpha) and math.isfinite(ratio)) or any(s.tree is not None for s in spec.steps):
        return None
    k = spec.settings.get("k")
    untested = any(not d.reached for s in spec.steps for d in s.decisions)  # none at K = 1, for one
    sentences = [_(ALPHA_TEXT["differ" if untested else "all_tested"], ratio=number(ratio), alpha=number(alpha))]
    # read 53: a heuristic run's steps drafted 4, 6, 5, 4, 6 of K = 4, its starting K, which the note gave the formula
    # at, with "some steps drafted fewer than K": both policies move K, so the formula is given at what steps drafted
    if spec.settings.get("policy") in ("optimal", "heuristic"):
        return " ".join(sentences + _policy_formula(spec, alpha))
    if is_whole(k) and k >= 1:
        # read 50: from α as the note writes it, so a reader's own sum gives the same figure (the toy example's
        # 0.7765 gave 0.55 beside an α written 0.78, from which the formula gives 0.56)
        predicted = theory.accepted_fraction(min(1.0, max(0.0, as_written(alpha))), k)
        sentences.append(_(ALPHA_TEXT["formula"], predicted=number(predicted), k=k))
        # 43rd read: the formula assumes K drafts every step; every committed example trace has a shorter one (its
        # last, at the token limit; the separate draft's also after a drafted end-of-text), not only lookups
        if any(len(s.decisions) < k for s in spec.steps):
            sentences.append(_(ALPHA_TEXT["fewer"], reasons=run_short_step_reasons(spec)))
    return " ".join(sentences)


def _policy_formula(spec: Trace, alpha: float) -> list[str]:
    """The α note's formula sentences for a run of a policy that moves K step to step (the optimal one, which
    ignores the K setting; the heuristic one, which starts from it and drafts more or fewer): at each K its steps
    drafted (the fewest and the most, 0 left out), not at the K setting; then that its steps drafted different
    numbers of tokens, with the reasons, where they did."""
    drafted = sorted({s.n_drafted for s in spec.steps})
    tried = drafted_k_range(spec)
    if tried is None:
        return []
    a = min(1.0, max(0.0, as_written(alpha)))  # as the note writes α (read 50)
    low, high = tried
    if low == high:
        sentences = [_(ALPHA_TEXT["formula"], predicted=number(theory.accepted_fraction(a, low)), k=low)]
    else:
        sentences = [_(ALPHA_TEXT["formula_range"], low=low, high=high,
                       low_predicted=number(theory.accepted_fraction(a, low)),
                       high_predicted=number(theory.accepted_fraction(a, high)))]
    if len(drafted) > 1:
        sentences.append(_(ALPHA_TEXT["varied"], reasons=run_short_step_reasons(spec)))
    return sentences


def length_note(spec: Trace, baseline: Trace, *, chain: bool = False, tree: bool = False) -> str | None:
    """A sentence when the two outputs differ a lot in length (sampling draws different random numbers; at
    temperature 0 the texts parted, which the race's outputs box explains), else None. `chain`: the race has a tree
    lane, so `spec` is its chain lane and the sentence names the two lanes it compares (read 47: "The two outputs"
    stood above a box of three). `tree`: `spec` is the race's tree lane, named the same way (read 51: a tree lane
    whose output length differed from target-only's got no note while the chain lane beside it did).

    Tokens/s still compares them, but the shorter run spreads its prefill over fewer tokens: the sentence gives the
    prefill's measured share of that run's time (read 49: "a short run is dominated by its prefill" stood over a run
    whose prefill was 20% of it; its review: "the prefill weighs more in the shorter run" need not hold when the
    shorter lane's steps are much slower, a layer-skip draft's, say). Both lanes share one token limit and the shorter
    is under three quarters of the longer, so it stopped before that limit at end-of-text: the sentence suggests another
    seed or prompt, never more tokens, which would leave it as it is (43rd read: it said "try more tokens"). None when a
    lane was cut short at its time limit (`cut_short`): `explain_race` says so.
    """
    short, long_ = sorted((spec.num_tokens, baseline.num_tokens))
    # read 46: a lane cut at its time limit was blamed on random numbers with "try another seed"; the verdict's
    # "No verdict" sentence says why it is short and what to try (`explain_race`)
    if long_ == 0 or short >= 0.75 * long_ or cut_short(spec) or cut_short(baseline):
        return None
    greedy = spec.settings.get("temperature") == 0  # no random numbers to blame: the greedy texts parted somewhere
    shorter = min((spec, baseline), key=lambda trace: trace.num_tokens)
    share = shorter.prefill_seconds / shorter.wall_seconds if shorter.wall_seconds > 0 else 0.0
    lanes = "tree" if tree else "chain" if chain else "two"
    return _(LENGTH_TEXT[(lanes, "greedy" if greedy else "sampled")], spec=spec.num_tokens,
             base=baseline.num_tokens, prefill=percent(share))


LENGTH_TEXT = {  # length_note's sentences, whole, by (which lanes, how they decode); translated with _() where used
    ("two", "greedy"): N_(
        "The two outputs differ in length ({spec} vs {base} tokens): at temperature 0 they parted somewhere (the "
        "outputs below say where and why), so they can stop at different places. Tokens/s still compares them, but the "
        "shorter run spreads its prefill over fewer tokens (the prefill is {prefill} of its time). The shorter one "
        "stopped before the token limit, so more tokens would not lengthen it; try another prompt."),
    ("two", "sampled"): N_(
        "The two outputs differ in length ({spec} vs {base} tokens): at temperature > 0 the two methods draw different "
        "random numbers, so they can stop at different places. Tokens/s still compares them, but the shorter run "
        "spreads its prefill over fewer tokens (the prefill is {prefill} of its time). The shorter one stopped before "
        "the token limit, so more tokens would not lengthen it; try another seed."),
    ("chain", "greedy"): N_(
        "The chain lane's output and the target-only output differ in length ({spec} vs {base} tokens): at temperature "
        "0 they parted somewhere (the outputs below say where and why), so they can stop at different places. Tokens/s "
        "still compares them, but the shorter run spreads its prefill over fewer tokens (the prefill is {prefill} of "
        "its time). The shorter one stopped before the token limit, so more tokens would not lengthen it; try another "
        "prompt."),
    ("chain", "sampled"): N_(
        "The chain lane's output and the target-only output differ in length ({spec} vs {base} tokens): at temperature "
        "> 0 the two lanes draw different random numbers, so they can stop at different places. Tokens/s still compares"
        " them, but the shorter run spreads its prefill over fewer tokens (the prefill is {prefill} of its time). The "
        "shorter one stopped before the token limit, so more tokens would not lengthen it; try another seed."),
    ("tree", "greedy"): N_(
        "The tree lane's output and the target-only output differ in length ({spec} vs {base} tokens): at temperature "
        "0 they parted somewhere (the outputs below say where and why), so they can stop at different places. Tokens/s "
        "still compares them, but the shorter run spreads its prefill over fewer tokens (the prefill is {prefill} of "
        "its time). The shorter one stopped before the token limit, so more tokens would not lengthen it; try another "
        "prompt."),
    ("tree", "sampled"): N_(
        "The tree lane's output and the target-only output differ in length ({spec} vs {base} tokens): at temperature "
        "> 0 the two lanes draw different random numbers, so they can stop at different places. Tokens/s still compares"
        " them, but the shorter run spreads its prefill over fewer tokens (the prefill is {prefill} of its time). The "
        "shorter one stopped before the token limit, so more tokens would not lengthen it; try another seed."),
}


# ---- a race run several times ---------------------------------------------------------------------------------------
BUSY_FACTOR = 1.6  # a one-token forward this many times its usual cost means the machine was doing something else
BUSY_MIN_MS = 3.0  # ... and at least this many milliseconds more (sub-millisecond toy forwards jitter by themselves)


def forward_ms(baseline: Trace) -> list[float]:
    """Milliseconds of each step of a target-only trace (a one-token forward and its sampling), in order."""
    return [1000 * step.seconds for step in baseline.steps]


def _quantile(values: list[float], q: float) -> float:
    """The q-quantile of `values` by linear interpolation (nan when empty).

    >>> _quantile([1.0, 2.0, 3.0, 4.0], 0.5), _quantile([5.0], 0.1)
    (2.5, 5.0)
    """
    if not values:
        return math.nan
    ordered = sorted(values)
    where = q * (len(ordered) - 1)
    low = math.floor(where)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (where - low)


@dataclass(frozen=True)
class RaceRounds:
    """The same race measured several times, the two lanes interleaved (round 1 runs speculative decoding first,
    round 2 target-only first, and so on), so a machine that speeds up or slows down during the race is shared
    fairly. `rounds` holds (speculative, target-only) traces, in the order they ran.

    The headline is the median of the rounds' speedups as written (of an even number of rounds, the mean of the middle
    two, no round's own), with the spread of all rounds next to it; the charts and the lanes' figures show the round
    whose speedup is closest to it (`typical`).
    """

    rounds: tuple[tuple[Trace, Trace], ...]

    def __post_init__(self) -> None:
        if not self.rounds:
            raise ValueError(_("A race needs at least one round."))
        for spec, base in self.rounds:
            check_race(spec, base)

    @property
    def speedups(self) -> list[float]:
        return [measured_speedup(spec, base) for spec, base in self.rounds]

    @property
    def written_speedups(self) -> list[float]:
        """Each round's speedup as the page writes it (`times`: two decimals), nan for a round with a lane cut short."""
        return [as_written(s) if math.isfinite(s) else math.nan for s in self.speedups]

    @property
    def median_speedup(self) -> float:
        """The median of the rounds' speedups as written (`written_speedups`), so it follows from the figures beside
        it. Read 53: of two rounds (SmolLM2's live race) it is the mean of two, and the unrounded mean did not always
        give what a reader computes from the rounds as written: rounds of 0.9951× and 1.1251× read "1.00×, 1.13×;
        median 1.06×", where (1.00 + 1.13) / 2 = 1.065 is 1.07. The mean is taken in decimal, as the reader takes it.

        >>> from specviz.engine.trace import Step, Trace
        >>> def lane(mode, seconds):
        ...     return Trace(mode, {}, [1], [7], [Step(0, 1, 0, "none", [], [], verify_seconds=seconds)],
        ...                  wall_seconds=seconds)
        >>> RaceRounds(tuple((lane("speculative", 1.0), lane("autoregressive", s)) for s in (0.9951, 1.1251))
        ...            ).median_speedup
        1.065
        """
        finite = sorted(Decimal(repr(s)) for s in self.written_speedups if math.isfinite(s))
        if not finite:
            return math.nan
        middle = len(finite) // 2
        return float(finite[middle] if len(finite) % 2 else (finite[middle - 1] + finite[middle]) / 2)

    @property
    def spread(self) -> tuple[float, float]:
        """(slowest, fastest) speedup over the rounds."""
        finite = [s for s in self.speedups if math.isfinite(s)]
        return (min(finite), max(finite)) if finite else (math.nan, math.nan)

    @property
    def typical(self) -> tuple[Trace, Trace]:
        """The first of the rounds whose speedup, as written, is closest to the median (`median_speedup`, of the
        speedups as written). Of an even number of rounds two are equally close (the median is their mean); read 47:
        a rounding of their distances chose either, where the page says "the first".

        >>> from specviz.engine.trace import Step, Trace
        >>> def lane(mode, seconds):
        ...     return Trace(mode, {}, [1], [7], [Step(0, 1, 0, "none", [], [], verify_seconds=seconds)],
        ...                  wall_seconds=seconds)
        >>> race = RaceRounds(tuple((lane("speculative", 1.0), lane("autoregressive", s)) for s in (0.1, 0.7)))
        >>> race.rounds.index(race.typical)  # 0.1× and 0.7×, both 0.3 from 0.4 (in floats, 0.30000000000000004)
        0
        """
        median, speedups = self.median_speedup, self.written_speedups  # as written, as the median is
        if not math.isfinite(median):
            return self.rounds[0]
        far = [abs(s - median) if math.isfinite(s) else math.inf for s in speedups]
        return self.rounds[next(i for i, d in enumerate(far) if math.isclose(d, min(far), rel_tol=1e-9, abs_tol=1e-12))]

    def forward_ms(self) -> list[float]:
        """The median step (a one-token forward and its sampling) of each round's target-only lane, ms."""
        return [_quantile(forward_ms(base), 0.5) for _, base in self.rounds]

    def quick_forward_ms(self) -> float:
        """What a one-token forward costs here when nothing interferes: the 10th percentile of every target-only
        forward of every round (a percentile, so one lucky reading does not set it)."""
        return _quantile([ms for _, base in self.rounds for ms in forward_ms(base)], 0.1)


def busy_note(rounds: RaceRounds, usual_ms: float | None = None) -> str | None:
    """One sentence when the target-only step (a one-token forward and its sampling) was far off its usual cost in
    some round, else None.

    "Usual" (the sentence says "at its quickest": it is a quick percentile, not a typical forward of a busy race)
    is the quickest of `usual_ms` (what an earlier quiet race measured on this machine, if known) and this
    race's own quick steps. A round whose median target-only step is BUSY_FACTOR times that (and BUSY_MIN_MS more)
    ran on a machine busy with something else: its timings measure the interference, not speculative decoding.
    """
    known = [x for x in (usual_ms, rounds.quick_forward_ms()) if x is not None and math.isfinite(x) and x > 0]
    if not known:
        return None
    usual = min(known)
    medians = [m for m in rounds.forward_ms() if math.isfinite(m)]
    worst = max(medians, default=math.nan)
    if not (worst > BUSY_FACTOR * usual and worst - usual > BUSY_MIN_MS):
        return None
    # read 50: in tenths, as the rounds table beside it writes each median (`rounds_table`); "45 ms" sat by "45.3 ms"
    shown = list_separator().join(number(m, 1) for m in medians)
    # read 50: the ratio of the figures as written ("9.8 ms" against "2.7 ms" is 3.6×, where the unrounded medians'
    # 3.7× stood beside them); the unrounded ratio when the quickest step is written 0.0 ms
    written = as_written(usual, 1)
    ratio = as_written(worst, 1) / written if written > 0 else worst / usual
    # read 46: the figures are target-only steps (`forward_ms`: a forward and its sampling), as the verdict says
    return ngettext("The machine was busy with other work during this race: a target-only step (a one-token forward "
                    "and its sampling) takes about {usual} ms here at its quickest, but its median was {shown} ms in "
                    "the one round ({worst} slower at worst). These timings measure that interference, not "
                    "speculative decoding, so no conclusion is drawn from them: run the race again when the machine "
                    "is quiet.",
                    "The machine was busy with other work during this race: a target-only step (a one-token forward "
                    "and its sampling) takes about {usual} ms here at its quickest, but its median was {shown} ms in "
                    "the {n} rounds ({worst} slower at worst). These timings measure that interference, not "
                    "speculative decoding, so no conclusion is drawn from them: run the race again when the machine "
                    "is quiet.",
                    len(medians), usual=number(usual, 1), shown=shown, worst=times(ratio, 1))


def spread_sentence(rounds: RaceRounds) -> str:
    """The rounds in one sentence: each speedup, the median and the spread.

    >>> from specviz.engine.trace import Step, Trace
    >>> def lane(mode, seconds):
    ...     return Trace(mode, {}, [1], [7], [Step(0, 1, 0, "none", [], [], verify_seconds=seconds)],
    ...                  wall_seconds=seconds)
    >>> spread_sentence(RaceRounds(((lane("speculative", 1.0), lane("autoregressive", 1.2)),)))
    'One round: 1.20×.'
    >>> spread_sentence(RaceRounds(((lane("speculative", 1.0), lane("autoregressive", math.nan)),) * 2))
    '2 rounds, lanes interleaved: –, –; no round compared the same text.'
    """
    speedups = rounds.speedups
    # read 49: "1,20×, 0,95×" in Portuguese beside the busy note's "45; 56; 31 ms": the glossary separates a list of
    # numbers by semicolons, × or not ("0,8; 3,09×"), and the Portuguese sentence then ends the list with a full stop
    shown = list_separator().join(times(s) if math.isfinite(s) else "–" for s in speedups)
    if len(speedups) == 1:
        return _("One round: {shown}.", shown=shown)
    if not any(math.isfinite(s) for s in speedups):  # every round had a lane cut short: no median to give
        return _("{n} rounds, lanes interleaved: {shown}; no round compared the same text.", n=len(speedups),
                 shown=shown)
    low, high = rounds.spread
    return _("{n} rounds, lanes interleaved: {shown}; median {median}, spread {low}–{high}.", n=len(speedups),
             shown=shown, median=times(rounds.median_speedup), low=number(low), high=times(high))
