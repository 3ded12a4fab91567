"""specviz.labs.timeline: the race's wall-clock layout, tokens over time, the measured speedup and its explanation."""

from __future__ import annotations

import dataclasses
import doctest
import math

import pytest

from specviz.core.i18n import as_written, using
from specviz.engine.baseline import autoregressive_generate
from specviz.engine.decoding import speculative_generate
from specviz.engine.proposers import make_proposer
from specviz.labs import timeline
from specviz.labs.examples import list_examples, load_example
from specviz.models.pairs import encode_prompt
from specviz.labs.timeline import (check_race, explain_race, length_note, measured_speedup, race_costs, step_intervals,
                              tokens_over_time)
from specviz.engine.trace import Decision, EmittedToken, Step, Trace

PROMPT = "the quick brown fox jumps over the lazy dog. the quick"


class TickClock:
    """A fake clock: every reading advances time by `tick` seconds, so timings are exact and repeatable."""

    def __init__(self, tick: float = 0.001):
        self.now, self.tick = 0.0, tick

    def __call__(self) -> float:
        self.now += self.tick
        return self.now


@pytest.fixture(scope="module")
def toy_race(toy):
    ids = encode_prompt(toy.tokenizer, PROMPT, chat=False)
    common = dict(max_new_tokens=40, temperature=1.0, seed=3, tokenizer=toy.tokenizer)
    spec = speculative_generate(toy.target, make_proposer(toy, "draft"), ids, k=4, **common)
    base = autoregressive_generate(toy.target, ids, **common)
    return spec, base


def _tokens(n: int) -> list[EmittedToken]:
    return [EmittedToken(7, "a", "accepted") for _ in range(n)]


def _trace(mode: str, per_step: list[tuple[float, float, int]], prefill: float = 0.1, prompt=(1, 2, 3),
           accepted: int = 0, drafted: int = 0) -> Trace:
    """A hand-made trace: one (draft_seconds, verify_seconds, emitted) per step. A speculative step drafts `drafted`
    tokens and keeps all but the last of those it emitted (a step of n tokens kept n − 1, then a rejection, then
    drafts never tested). Read 54: its steps recorded K = `drafted` but no draft, so every hand-made race had drafted
    nothing (accepted / drafted NaN) while its verdict was read as if it had drafted."""
    def decisions(n: int) -> list[Decision]:
        k = drafted if mode == "speculative" else 0
        return [Decision(j, 7, "a", 0.5, 0.5 if j < n - 1 else 0.1, 1.0 if j < n - 1 else 0.2,
                         1.0 if j < n - 1 else 0.2, 0.0 if j < n - 1 else 0.9 if j == n - 1 else None,
                         accepted=j < n - 1, reached=j <= n - 1) for j in range(k)]

    steps = [Step(i, 3 + i, drafted if mode == "speculative" else 0, "draft", decisions(n), _tokens(n),
                  draft_seconds=d, verify_seconds=v) for i, (d, v, n) in enumerate(per_step)]
    n_out = sum(n for _, _, n in per_step)
    trace = Trace(mode, {}, list(prompt), [7] * n_out, steps, prefill_seconds=prefill,
                  wall_seconds=prefill + sum(d + v for d, v, _ in per_step))
    return trace


def test_doctest_runs():
    result = doctest.testmod(timeline)
    assert result.attempted >= 2 and result.failed == 0


def _check_layout(trace: Trace) -> None:
    bars = step_intervals(trace)
    assert bars[0].phase == "prefill" and bars[0].start == 0.0
    assert bars[0].end == pytest.approx(trace.prefill_seconds)
    assert [b.index for b in bars[1:]] == [s.index for s in trace.steps]
    for bar in bars:
        assert bar.start <= bar.draft_end <= bar.verify_end <= bar.end  # the phases are in order inside a bar
    for before, after in zip(bars, bars[1:]):
        assert after.start == before.end  # contiguous, no overlap, no gap
    steps_total = sum(b.seconds for b in bars[1:])
    assert steps_total == pytest.approx(trace.decode_seconds, rel=1e-9, abs=1e-12)
    assert bars[-1].end == pytest.approx(trace.prefill_seconds + trace.decode_seconds)
    assert bars[-1].end <= trace.wall_seconds + 1e-9  # nothing is placed after the generation ended


def test_intervals_of_real_toy_traces_are_contiguous_and_add_up(toy_race):
    spec, base = toy_race
    for trace in (spec, base):
        _check_layout(trace)
    bars = step_intervals(spec)[1:]
    assert [b.k for b in bars] == [s.n_drafted for s in spec.steps]
    assert [b.n_accepted for b in bars] == [s.n_accepted for s in spec.steps]
    assert all(b.draft_seconds == 0 for b in step_intervals(base))  # the baseline never drafts


def test_intervals_of_every_shipped_example():
    examples = list_examples()
    assert examples, "no example traces are installed (run `make traces`)"
    for example in examples:
        spec, base = load_example(example.name)
        _check_layout(spec)
        if base is not None:
            _check_layout(base)


def test_intervals_follow_a_fake_clock_exactly(toy):
    ids = encode_prompt(toy.tokenizer, PROMPT, chat=False)
    trace = speculative_generate(toy.target, make_proposer(toy, "draft"), ids, k=3, max_new_tokens=12,
                                 temperature=1.0, seed=0, tokenizer=toy.tokenizer, clock=TickClock(0.001))
    bars = step_intervals(trace)
    assert bars[0].end == pytest.approx(0.001)  # prefill: one tick between two clock readings
    assert any(bar.k == 0 for bar in bars[1:])  # the last step has room for no draft: it only verifies
    for bar in bars[1:]:  # each step reads the clock at its start, after drafting, after verifying, at its end
        drafted = bar.k > 0  # a step that drafts nothing does not read the clock after drafting: no draft time
        assert bar.draft_seconds == pytest.approx(0.001 if drafted else 0.0)
        assert bar.verify_seconds == pytest.approx(0.001)
        assert bar.seconds == pytest.approx(0.003 if drafted else 0.002)


def test_tokens_over_time_grows_by_each_steps_output_and_ends_at_num_tokens(toy_race):
    for trace in toy_race:
        times, tokens = tokens_over_time(trace)
        assert len(times) == len(tokens) == trace.num_steps + 2
        assert times[0] == 0 and tokens[:2] == [0, 0]  # nothing before the prefill has finished
        assert all(a <= b for a, b in zip(times, times[1:]))
        assert all(a <= b for a, b in zip(tokens, tokens[1:]))
        assert [b - a for a, b in zip(tokens[1:], tokens[2:])] == [len(s.emitted) for s in trace.steps]
        assert tokens[-1] == trace.num_tokens
    spec, base = toy_race
    assert max(b - a for a, b in zip(tokens_over_time(spec)[1], tokens_over_time(spec)[1][1:])) > 1  # jumps
    assert set(b - a for a, b in zip(tokens_over_time(base)[1][1:], tokens_over_time(base)[1][2:])) == {1}


def test_measured_speedup_is_the_ratio_of_tokens_per_second(toy_race):
    spec, base = toy_race
    assert measured_speedup(spec, base) == pytest.approx(spec.tokens_per_second / base.tokens_per_second)
    fast = _trace("speculative", [(0.01, 0.1, 4)] * 5, prefill=0.05)  # 20 tokens in 0.6 s
    slow = _trace("autoregressive", [(0.0, 0.1, 1)] * 20, prefill=0.05)  # 20 tokens in 2.05 s
    assert measured_speedup(fast, slow) == pytest.approx(2.05 / 0.6)


def test_a_race_needs_a_speculative_trace_and_its_target_only_baseline(toy_race):
    spec, base = toy_race
    with pytest.raises(ValueError, match="speculative"):
        measured_speedup(base, spec)
    with pytest.raises(ValueError, match="target-only"):
        check_race(spec, spec)
    other = _trace("autoregressive", [(0.0, 0.1, 1)], prompt=(9, 9))
    with pytest.raises(ValueError, match="different prompts"):
        measured_speedup(_trace("speculative", [(0.0, 0.1, 1)]), other)


def test_explanations_name_the_winner_and_the_cause():
    base = _trace("autoregressive", [(0.0, 0.1, 1)] * 20)  # 0.1 s per token
    # a draft that is cheap and usually right: 4 tokens per step at 0.15 s a step
    good = _trace("speculative", [(0.03, 0.12, 4)] * 5, drafted=4)
    text = explain_race(good, base)
    assert text.startswith("Speculation won")
    assert "**1.50 tokens**" in text  # break-even: a 150 ms step must buy 1.5 plain 100 ms forwards
    # parts add up, named as the race's legend and table name them (read 54: "drafting ... + verifying ...")
    assert "150.0 ms on average (draft 30.0 ms + target forward 120.0 ms + rest of the step 0.0 ms" in text
    with using("pt"):
        assert "(rascunho 30,0 ms + passagem do alvo 120,0 ms + resto do passo 0,0 ms" in explain_race(good, base)
    # a draft that is almost never right: 1 token per step, each step drafting and verifying
    bad = _trace("speculative", [(0.05, 0.12, 1)] * 20, drafted=4)
    text = explain_race(bad, base)
    assert text.startswith("Speculation lost") and "Few drafts were kept (accepted / drafted" in text
    assert "drafting (50.0 ms)" in text and "target forward over up to K+1 positions (120.0 ms" in text
    assert "not purely memory-bound" not in text  # a 120 ms verify is close enough to a 100 ms forward
    heavy_verify = _trace("speculative", [(0.0, 0.2, 1)] * 20, drafted=4)
    # Read 45: a target-only step's time is its forward and its sampling, not "one target-only forward"
    said = explain_race(heavy_verify, base)
    assert "a step's target forward cost 2.0× a target-only step (a one-token forward and its sampling)" in said
    assert "one target-only step (a forward and its sampling) cost" in said and "target-only forward cost" not in said
    # an expensive draft: many tokens per step, but drafting alone costs more than a target forward
    pricey = _trace("speculative", [(0.5, 0.12, 3)] * 7, drafted=4)
    text = explain_race(pricey, base)  # 3 tokens a step, kept drafts and all, for a step as long as 6.2 forwards
    assert ("not cheap enough: drafting alone took 500.0 ms a step, more than a whole target-only step (100.0 ms)"
            in text)
    assert "as much as 6.20 target-only steps, more than the 3.00 tokens it emitted" in text
    costs = race_costs(bad, base)
    assert costs.tokens_per_step == 1 and costs.base_forward_ms == pytest.approx(100)
    assert costs.spec_step_ms == pytest.approx(170) and costs.break_even_tokens == pytest.approx(1.7)


@pytest.mark.parametrize("lang, forward, verify", [("en", "target forward", "verif"),
                                                   ("pt", "passagem do alvo", "verifica")])
def test_a_lost_verdict_names_the_target_forward_as_its_cost_sentence_does(lang, forward, verify):
    """Read 54: the verdict's cost sentence names a step's parts as the race's legend, table and hovers do ("draft X ms
    + target forward Y ms + rest of the step"), but its reasons went on to call the same Y ms "a verify pass over K+1
    positions" and "one verify pass cost 1.6× a target-only step" (the recorded draft-model and layer-skip races):
    two names for one figure in one box. Every loss reason now says "target forward", in both languages."""
    base = _trace("autoregressive", [(0.0, 0.1, 1)] * 20)
    races = [_trace("speculative", [(0.05, 0.2, 1)] * 20, drafted=4),  # few kept; drafting and a heavy forward
             _trace("speculative", [(0.0, 0.2, 1)] * 20, drafted=4),  # few kept; a heavy forward alone
             _trace("speculative", [(0.5, 0.2, 3)] * 7, drafted=4)]  # the draft not cheap enough; heavy forward
    assert len(races) == 3
    with using(lang):
        for spec in races:
            text = explain_race(spec, base)
            assert verify not in text.lower(), text
            # the cost sentence's figure, then the reason's or the note's, under the one name
            assert text.count(f"{forward} 200,0 ms" if lang == "pt" else f"{forward} 200.0 ms") == 1, text
            assert text.count(forward) >= 3, text


@pytest.mark.parametrize("lang, said, old", [
    ("en", ("while paying for a target forward over up to K+1 positions (200.0 ms, more than a one-token forward).",
            "so scoring up to K+1 positions at once is not free."), "over K+1 positions"),
    ("pt", ("pagando por uma passagem do alvo sobre até K+1 posições (200,0 ms, mais que uma passagem de um token).",
            "então avaliar até K+1 posições de uma vez não sai de graça."), "sobre K+1 posições")])
def test_a_lost_verdict_does_not_say_every_step_scored_k_plus_1_positions(lang, said, old):
    """Read 55: a lookup drafts only what it finds (a live toy n-gram race at T = 0 drafted 4, 1, 4, 4, 4, 0, 4, 1,
    ... at K = 4) and a last step at the token limit drafts fewer, but the verdict said each step paid for "a target
    forward over K+1 positions" and that "scoring K+1 positions at once is not free", of a mean forward over fewer.
    A step scores its drafts and one more: up to K+1 positions."""
    base = _trace("autoregressive", [(0.0, 0.1, 1)] * 20)
    lookup = _trace("speculative", [(0.0, 0.2, 1)] * 20, drafted=4)
    lookup = dataclasses.replace(lookup, steps=[dataclasses.replace(step, k=0, decisions=[]) if step.index % 2 else step
                                                for step in lookup.steps])
    assert sorted({step.n_drafted for step in lookup.steps}) == [0, 4]
    with using(lang):
        text = explain_race(lookup, base)
    assert all(part in text for part in said), text
    assert old not in text, text


def test_a_win_whose_steps_cost_less_than_a_plain_forward_is_not_credited_to_the_drafts():
    """36th read: the recorded Medusa race (1.52x, accepted / drafted 12%, break-even 0.93 tokens a step) said the
    drafts "were accepted often enough": a step that costs less than a plain forward wins with no draft kept."""
    base = _trace("autoregressive", [(0.0, 0.1, 1)] * 20)
    cheap = _trace("speculative", [(0.005, 0.08, 1)] * 20, drafted=4)  # 85 ms a step, one token each
    text = explain_race(cheap, base)
    assert text.startswith("Speculation won") and race_costs(cheap, base).break_even_tokens < 1
    assert "accepted often enough" not in text and "would have won even with no draft kept" in text
    good = _trace("speculative", [(0.03, 0.12, 4)] * 5, drafted=4)
    assert "accepted often enough" in explain_race(good, base)


@pytest.mark.parametrize("lang, said, old", [
    ("en", "The drafts were accepted often enough (accepted / drafted 24%) that on average a step bought more tokens "
           "than it cost.", "each verify pass"),
    ("pt", "Os palpites foram aceitos com frequência suficiente (aceitos / rascunhados 24%) para que, em média, um "
           "passo rendesse mais tokens do que custou.", "cada passagem de verificação")])
def test_a_win_whose_steps_paid_on_average_does_not_say_every_step_paid(lang, said, old):
    """Read 52: the EAGLE example's verdict said "each verify pass bought more tokens than it cost", but 14 of its 25
    steps emitted one token and each of those cost more than a target-only step (break-even 1.24 tokens): only the
    steps' mean paid, and a step's cost holds its drafting, not its verify pass alone."""
    spec, base = load_example("smollm-eagle-greedy")
    c = race_costs(spec, base)
    unpaid = [s for s in spec.steps if len(s.emitted) * c.base_forward_ms < 1000 * s.seconds]
    assert len(unpaid) == 14 and c.tokens_per_step > c.break_even_tokens > 1
    with using(lang):
        text = explain_race(spec, base)
    assert text.endswith(said) and old not in text, text


def test_length_note_only_when_outputs_differ_a_lot():
    base = _trace("autoregressive", [(0.0, 0.1, 1)] * 20)
    assert length_note(_trace("speculative", [(0.0, 0.1, 4)] * 5), base) is None
    note = length_note(_trace("speculative", [(0.0, 0.1, 1)] * 2), base)
    assert note is not None and "2 vs 20 tokens" in note


def test_length_note_gives_the_shorter_runs_measured_prefill_share():
    """Read 49: every length note said "a short run is dominated by its prefill", over a shipped race whose shorter
    run spent 20% of its time in the prefill. It now states that share, measured: 0.1 s of the 2-step run's 0.3 s.
    Its review: it then said "the prefill weighs more in the shorter run", which need not hold: a shorter lane whose
    steps are much slower (a layer-skip draft, say) can give its prefill a smaller share than the longer lane does
    (below: 0.1 s of 0.9 s against 0.1 s of 0.5 s for the longer run). It says what always holds:
    the shorter run spreads its prefill over fewer tokens."""
    base = _trace("autoregressive", [(0.0, 0.1, 1)] * 20)
    note = length_note(_trace("speculative", [(0.0, 0.1, 1)] * 2), base)
    said = "the shorter run spreads its prefill over fewer tokens (the prefill is 33% of its time)"
    assert said in note and "dominated" not in note and "weighs more" not in note
    with using("pt"):
        note = length_note(_trace("speculative", [(0.0, 0.1, 1)] * 2), base)
    assert "a execução mais curta divide o seu prefill entre menos tokens (o prefill é 33% do seu tempo)" in note
    slow = _trace("speculative", [(0.3, 0.1, 1)] * 2)  # 2 tokens in 0.9 s: prefill 11%
    fast = _trace("autoregressive", [(0.0, 0.02, 1)] * 20)  # 20 tokens in 0.5 s: prefill 20%, more than the shorter's
    assert slow.prefill_seconds / slow.wall_seconds < fast.prefill_seconds / fast.wall_seconds
    assert "spreads its prefill over fewer tokens (the prefill is 11% of its time)" in length_note(slow, fast)


def test_length_note_blames_no_random_numbers_at_temperature_0():
    """Issue 43: at temperature 0 both lanes are greedy, so "the two methods draw different random numbers" was the
    wrong cause; there the texts parted (a near-tie flipped, or a lossy rule), which the outputs box explains."""
    base = _trace("autoregressive", [(0.0, 0.1, 1)] * 20)
    spec = _trace("speculative", [(0.0, 0.1, 1)] * 2)
    spec.settings["temperature"] = 0.0
    note = length_note(spec, base)
    assert note is not None and "2 vs 20 tokens" in note and "random" not in note and "temperature 0" in note


def test_length_note_never_suggests_more_tokens_for_the_shorter_output():
    """43rd read: the note said "try more tokens" (and at T > 0 "another seed or more tokens"), but both lanes share one
    token limit and the shorter, under three quarters of the longer, stopped before it (end-of-text or a time limit):
    a larger limit leaves it as it is. It now says so and suggests another seed, or at T = 0 another prompt."""
    base = _trace("autoregressive", [(0.0, 0.1, 1)] * 20)
    for temperature, advice in ((0.0, "try another prompt."), (0.7, "try another seed.")):
        spec = _trace("speculative", [(0.0, 0.1, 1)] * 2)
        spec.settings["temperature"] = temperature
        note = length_note(spec, base)
        assert note is not None and note.endswith(advice)
        assert "more tokens would not lengthen it" in note and "or more tokens" not in note
        assert "try more tokens" not in note


def test_speedup_is_nan_when_a_lane_has_no_time():
    spec = _trace("speculative", [(0.0, 0.1, 1)])
    base = _trace("autoregressive", [(0.0, 0.1, 1)])
    base.wall_seconds = 0.0
    assert math.isnan(measured_speedup(spec, base))


def _lane(mode: str, forwards_ms: list[float], emitted: int = 1) -> Trace:
    """A trace whose steps take `forwards_ms` each (all verify time), emitting `emitted` tokens per step."""
    return _trace(mode, [(0.0, ms / 1000, emitted) for ms in forwards_ms], prefill=0.0)


def test_rounds_report_the_median_round_and_the_spread():
    rounds = timeline.RaceRounds(tuple(
        (_lane("speculative", [20.0] * 5, emitted=2), _lane("autoregressive", [ms] * 10))
        for ms in (10.0, 14.0, 11.0)))  # speedups 1.0, 1.4, 1.1
    assert rounds.speedups == pytest.approx([1.0, 1.4, 1.1])
    assert rounds.median_speedup == pytest.approx(1.1) and rounds.spread == pytest.approx((1.0, 1.4))
    assert rounds.typical is rounds.rounds[2]  # the charts show the median round
    assert timeline.spread_sentence(rounds) == ("3 rounds, lanes interleaved: 1.00×, 1.40×, 1.10×; median 1.10×, "
                                                "spread 1.00–1.40×.")
    with pytest.raises(ValueError, match="at least one round"):
        timeline.RaceRounds(())


def test_the_median_of_two_rounds_follows_from_the_rounds_as_written():
    """Read 53: of two rounds (SmolLM2's live race) the median is their mean, and it was the unrounded speedups'
    mean: rounds of 0.9951× and 1.1251× read "1.00×, 1.13×; median 1.06×", where a reader's (1.00 + 1.13) / 2 is
    1.065, 1.07. The median is now the rounds' as written, and the round shown is still the first of the two."""
    rounds = timeline.RaceRounds(tuple(
        (_lane("speculative", [1000.0]), _lane("autoregressive", [ms])) for ms in (995.1, 1125.1)))
    assert timeline.spread_sentence(rounds) == ("2 rounds, lanes interleaved: 1.00×, 1.13×; median 1.07×, "
                                                "spread 1.00–1.13×.")
    assert rounds.typical is rounds.rounds[0]


def test_a_quiet_race_is_not_called_busy():
    quiet = [10.0, 10.2, 9.9, 10.4, 10.1, 10.3, 10.0, 11.0]
    rounds = timeline.RaceRounds(((_lane("speculative", [15.0] * 4, 2), _lane("autoregressive", quiet)),) * 3)
    assert timeline.busy_note(rounds) is None
    assert timeline.busy_note(rounds, usual_ms=9.5) is None  # a little quicker before: still normal


def test_a_forward_far_off_its_usual_cost_means_the_machine_was_busy():
    """The issue's case: background load made verify passes look 19× a forward; the forward itself was off too."""
    quiet = _lane("autoregressive", [10.0] * 8)
    loaded = _lane("autoregressive", [10.0, 11.0] + [60.0] * 6)  # a few quick forwards, most of them six times slower
    spec = _lane("speculative", [190.0] * 4, 2)
    mixed = timeline.RaceRounds(((spec, quiet), (spec, loaded), (spec, quiet)))
    note = timeline.busy_note(mixed)
    assert note is not None and note.startswith("The machine was busy with other work")
    assert "10.0 ms" in note and "10.0, 60.0, 10.0 ms in the 3 rounds" in note and "no conclusion" in note
    from specviz.core.i18n import using

    with using("pt"):  # a decimal comma: the rounds' forwards are separated by semicolons (glossary)
        shown = timeline.busy_note(timeline.RaceRounds(((spec, quiet), (spec, _lane("autoregressive", [9.5] * 8)),
                                                        (spec, loaded))))
    assert "10,0; 9,5; 60,0 ms" in shown
    # every round slow alike: the race's own quick forwards cannot tell, an earlier quiet race can
    slow = timeline.RaceRounds(((spec, _lane("autoregressive", [60.0] * 8)),))
    assert timeline.busy_note(slow) is None
    assert "takes about 10.0 ms here at its quickest" in timeline.busy_note(slow, usual_ms=10.0)


def test_the_busy_note_writes_each_median_as_the_rounds_table_beside_it_does():
    """Read 50: the note rounded a median of 10 ms or more to whole ms ("45 ms") where the rounds table under it
    wrote the same median in tenths ("45.3 ms")."""
    from specviz.ui.race.view import rounds_table

    spec = _lane("speculative", [190.0] * 4, 2)
    rounds = timeline.RaceRounds(((spec, _lane("autoregressive", [10.0] * 8)),
                                  (spec, _lane("autoregressive", [10.0, 11.0] + [45.34] * 6))))
    note = timeline.busy_note(rounds)
    cells = [row["target-only step (median)"] for row in rounds_table(rounds)]
    assert cells == ["10.0 ms", "45.3 ms"]
    assert "its median was 10.0, 45.3 ms in the 2 rounds" in note, note


def test_the_busy_note_calls_its_yardstick_the_quickest_forward_not_the_usual_one():
    """Read 44: with no earlier quiet race the yardstick is the 10th percentile of this busy race's own forwards, yet
    the note said a forward "usually takes about 17.2 ms here" beside medians of 42-55 ms. It names it the quickest.
    Read 44 (review): the Portuguese "no seu mais rápido" was a calque, masculine beside "passagem"; it says "no
    melhor caso", the counterpart of the "no pior caso" the same sentence ends on."""
    spec = _lane("speculative", [190.0] * 4, 2)
    loaded = timeline.RaceRounds(((spec, _lane("autoregressive", [10.0, 11.0] + [60.0] * 6)),) * 2)
    assert timeline.busy_note(loaded, usual_ms=None) is not None
    from specviz.core.i18n import using

    for lang, said, old in (("en", " ms here at its quickest, but", ("usually",)),
                            ("pt", " ms aqui no melhor caso, mas", ("costuma", "no seu mais"))):
        with using(lang):
            note = timeline.busy_note(loaded)
        assert said in note and not [o for o in old if o in note], note


def test_sub_millisecond_jitter_of_a_tiny_model_is_not_a_busy_machine():
    jitter = _lane("autoregressive", [0.2, 0.2, 0.9, 0.8, 0.9, 1.0, 0.7, 0.8])  # 4× the quick ones, < 1 ms more
    rounds = timeline.RaceRounds(((_lane("speculative", [0.5] * 4, 2), jitter),))
    assert timeline.busy_note(rounds) is None


def _decision(position: int, accept_prob: float, accepted: bool, reached: bool = True) -> Decision:
    return Decision(position, 7, "a", 0.5, 0.5 * accept_prob, accept_prob, accept_prob,
                    0.0 if reached else None, accepted, reached)


def test_alpha_note_names_the_two_numbers_apart_and_links_them():
    """Two steps of K = 4: one rejects its first draft (3 drafts never tested), one keeps all four. Accepted / drafted
    = 4/8 = 0.50; the α estimate averages min(1, p/q) over the 5 tested drafts only."""
    steps = [Step(0, 3, 4, "draft", [_decision(0, 0.2, False)] + [_decision(i, 0.9, False, reached=False)
                                                                  for i in range(1, 4)], _tokens(1)),
             Step(1, 4, 4, "draft", [_decision(i, 0.9, True) for i in range(4)], _tokens(5))]
    spec = Trace("speculative", {"k": 4}, [1, 2, 3], [7] * 6, steps)
    alpha = (0.2 + 4 * 0.9) / 5  # 0.76
    assert spec.acceptance_rate == 0.5 and spec.mean_accept_prob == pytest.approx(alpha)
    note = timeline.alpha_note(spec)
    # read 20: the note called the estimate α itself ("is not α (0.76)"), two quantities under one name
    assert note.startswith("Accepted / drafted (0.50) is not α (estimated at 0.76)") and "never tested" in note
    predicted = alpha * (1 - alpha**4) / ((1 - alpha) * 4)  # what accepted / drafted would average at this α
    assert f"α(1 − α^K) / ((1 − α)K) = {predicted:.2f} at K = 4" in note
    assert timeline.alpha_note(Trace("speculative", {"k": 4}, [1], [], [])) is None  # nothing tested
    import dataclasses
    import types
    tree = Trace("speculative", {"k": 4}, [1, 2, 3], [7] * 6,
                 [dataclasses.replace(s, tree=types.SimpleNamespace(nodes=[None] * 8)) for s in steps])
    assert timeline.alpha_note(tree) is None  # a tree's min(1, p′/q′) is not α, and the formula is the chain's


def test_alpha_note_at_k_1_does_not_blame_untested_drafts():
    """Read 26: at K = 1 no draft follows a rejection, yet the note said accepted / drafted differs from the α
    estimate because "the drafts after a step's first rejection ... were never tested". Every draft was tested:
    the two differ only by chance, and the formula gives α itself."""
    steps = [Step(0, 3, 1, "draft", [_decision(0, 0.2, False)], _tokens(1)),
             Step(1, 4, 1, "draft", [_decision(0, 0.9, True)], _tokens(2)),
             Step(2, 6, 1, "draft", [_decision(0, 0.9, True)], _tokens(2))]
    spec = Trace("speculative", {"k": 1}, [1, 2, 3], [7] * 5, steps)
    assert all(d.reached for s in spec.steps for d in s.decisions)
    assert spec.acceptance_rate == pytest.approx(2 / 3) and spec.mean_accept_prob == pytest.approx(2 / 3)
    note = timeline.alpha_note(spec)
    assert "never tested" not in note and "only by chance" in note and "every draft was tested" in note
    assert "= 0.67 at K = 1" in note  # E[accepted] / K at K = 1 is α itself


def test_alpha_note_says_its_formula_assumes_k_drafts_every_step():
    """43rd read: the formula E[accepted] / K assumes every step drafts K; an n-gram lookup drafts only what it
    finds (here 2 of K = 4 in one step), and the note applied the formula without saying so."""
    full = [Step(0, 3, 4, "draft", [_decision(i, 0.9, True) for i in range(4)], _tokens(5))]
    short = full + [Step(1, 8, 4, "draft", [_decision(0, 0.9, True), _decision(1, 0.2, False)], _tokens(2))]
    every = timeline.alpha_note(Trace("speculative", {"k": 4}, [1, 2, 3], [7] * 7, full))
    some = timeline.alpha_note(Trace("speculative", {"k": 4}, [1, 2, 3], [7] * 9, short))
    assert "If every step drafts K tokens and each is kept with probability α" in every
    assert "drafted fewer than K" not in every
    # read 52: these steps were drafted by a draft model, so no lookup and no Medusa heads are among the reasons
    assert some.endswith("Some steps of this run drafted fewer than K tokens (drafting stops at the token limit and "
                         "after a drafted end-of-text token), which that formula does not model.")


def test_alpha_notes_shorter_steps_are_not_blamed_on_a_lookup_in_a_draft_models_run():
    """Review of the 43rd read: the note's sentence on steps that drafted fewer than K gave a lookup as the reason,
    but the committed separate-draft example shows it too, with no lookup: its last step drafts nothing (one token
    left to write: a step drafts no further than the token limit) and its step 8 stops after a drafted end-of-text."""
    from specviz.core.i18n import using

    spec, _base = load_example("smollm-draft-greedy")
    k = spec.settings["k"]
    assert spec.settings["proposer"] == "draft" and k == 4
    assert len(spec.steps[-1].decisions) == 0 and spec.num_tokens == spec.settings["max_new_tokens"]
    assert len(spec.steps[7].decisions) == 2 and spec.steps[7].decisions[-1].text == "<|im_end|>"
    for lang, said in (("en", ("token limit", "end-of-text")), ("pt", ("limite de tokens", "fim de texto"))):
        with using(lang):
            note = timeline.alpha_note(spec)
        assert all(words in note for words in said), note


def test_a_lane_cut_short_at_its_time_limit_draws_no_verdict(toy, toy_race):
    """Issue 42: target-only decoding ran 1 token while the speculative lane used the time, and the page still said
    "Speculation won: 3.33x". A lane that stopped at its deadline gives no speedup, no verdict and no comparison."""
    import copy
    import dataclasses

    from specviz.engine.kinds import StopReason
    from specviz.labs.timeline import RaceRounds, cut_short
    from specviz.ui.race.outputs import agreement

    spec, base = toy_race
    assert not cut_short(spec) and math.isfinite(measured_speedup(spec, base))
    short = copy.deepcopy(base)
    short.stop_reason = StopReason.DEADLINE
    short.output_ids, short.steps = short.output_ids[:1], short.steps[:1]
    assert cut_short(short) and math.isnan(measured_speedup(spec, short))
    text = explain_race(spec, short)
    assert text.startswith("No verdict: specviz target-only decoding reached its time limit after 1 of its 40 tokens")
    assert "won" not in text and "faster" not in text
    assert agreement(spec, short).startswith("Not compared")
    greedy = dataclasses.replace(spec, settings={**spec.settings, "temperature": 0})
    assert agreement(greedy, short).startswith("Not compared")  # no exactness alarm against a cut lane
    rounds = RaceRounds(((spec, base), (spec, short)))
    assert rounds.median_speedup == as_written(measured_speedup(spec, base))  # the cut round does not count


def test_alpha_note_docstring_says_below_alpha_on_average_only():
    """A trace's accepted / drafted sits below its α estimate on average for chains of K >= 2, not in every trace."""
    from specviz.labs.timeline import alpha_note

    doc = " ".join(alpha_note.__doc__.split())
    assert "is below the α estimate" not in doc and "on average" in doc


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_recorded_examples_verdict_says_which_machine_timed_it():
    """Every recorded example's verdict names the machine its meta records, or says it records none: the n-gram
    example's "Speculation won: 2.12×" comes from a file with no machine, so it must not read as this machine's."""
    for example in list_examples():
        if example.baseline_path is None:
            continue
        spec, base = load_example(example.name)
        text = explain_race(spec, base)
        recorded = spec.meta["recorded"]
        if spec.meta.get("machine"):
            assert f"recorded {recorded} on {timeline.machine_text(spec.meta['machine'])}" in text, example.name
        else:
            assert f"recorded {recorded} on a CPU the recording does not name" in text, example.name
        assert "on this machine the model" not in text
    live = _trace("speculative", [(0.03, 0.12, 4)] * 5, drafted=4)  # no "recorded" in meta: a live race's times
    assert "recorded" not in explain_race(live, _trace("autoregressive", [(0.0, 0.1, 1)] * 20))


def test_a_race_refuses_a_baseline_decoded_with_other_settings():
    """The module promises a speedup against target-only decoding "of the same prompt with the same settings", but
    check_race compared the prompts only: a T = 0.7 lane against a greedy baseline, or one from another pair, gave
    a speedup. Now one sentence names what differs."""
    import copy

    from specviz.labs.examples import load_example
    from specviz.labs.timeline import measured_speedup

    spec, base = load_example("toy-draft")
    assert measured_speedup(spec, base) > 0
    hotter = copy.deepcopy(base)
    hotter.settings["temperature"] = 0.7
    with pytest.raises(ValueError, match=r"different settings \(temperature\)"):
        measured_speedup(spec, hotter)
    other = copy.deepcopy(base)
    other.meta["pair"] = "default"
    with pytest.raises(ValueError, match=r"different settings \(pair\)"):
        measured_speedup(spec, other)



def test_the_busy_note_names_its_figures_target_only_steps_not_forwards():
    """Read 46: the figures are each round's median target-only step (`forward_ms`: Step.seconds, the forward and its
    sampling), yet the note called them "a one-token forward of the target", the name the lanes table gives its
    "target forward (ms)" column, which leaves the sampling out. It names them target-only steps, both languages."""
    from specviz.core.i18n import using

    spec = _lane("speculative", [190.0] * 4, 2)
    loaded = timeline.RaceRounds(((spec, _lane("autoregressive", [10.0, 11.0] + [60.0] * 6)),) * 2)
    for lang, said, old in (("en", "a target-only step (a one-token forward and its sampling) takes about",
                             "a one-token forward of the target takes"),
                            ("pt", "um passo só com o alvo (uma passagem de um token e a sua amostragem) leva cerca",
                             "uma passagem de um token do alvo leva")):
        with using(lang):
            note = timeline.busy_note(loaded)
        assert said in note and old not in note, note


def test_a_step_cheaper_than_a_target_only_step_is_called_so_not_a_forward():
    """Read 46: the Medusa example's verdict priced its step (55.5 ms) against "one target-only forward" right after
    its cost sentence called the same 59.9 ms "one target-only step (a forward and its sampling)" (read 45)."""
    from specviz.core.i18n import using

    spec, base = load_example("smollm-medusa-greedy")
    assert race_costs(spec, base).break_even_tokens <= 1  # the branch this sentence is in
    for lang, said, old in (("en", "A speculative step cost no more than one target-only step,",
                             "one target-only forward"),
                            ("pt", "Um passo especulativo custou no máximo um passo só com o alvo,",
                             "uma passagem só com o alvo")):
        with using(lang):
            text = explain_race(spec, base)
        assert said in text and old not in text, text


def test_a_lane_cut_short_gets_no_length_note_blaming_random_numbers(toy_race):
    """Read 46: a target-only lane cut at its time limit after 1 of 40 tokens got, under the verdict's "No verdict:
    ... reached its time limit", the length note "at temperature > 0 the two methods draw different random numbers
    ... try another seed": the wrong cause and the wrong remedy. No length note for a lane cut short."""
    import copy

    from specviz.engine.kinds import StopReason

    spec, base = toy_race
    short = copy.deepcopy(base)
    short.output_ids, short.steps = short.output_ids[:1], short.steps[:1]
    assert length_note(spec, short) is not None  # ended at end-of-text this short: the note stands
    short.stop_reason = StopReason.DEADLINE
    assert length_note(spec, short) is None and length_note(short, spec) is None
    assert explain_race(spec, short).startswith("No verdict")  # the sentence that says why it is short


def test_a_loss_whose_steps_paid_is_put_outside_the_steps():
    """Read 46: a race lost while each step emitted more tokens than its break-even (the speculative prefill, a draft
    model's pass over the prompt too, ate the gain) read "The tokens each step bought did not cover the cost of
    drafting plus verifying." right after the numbers that showed they did. It says where the time went instead."""
    from specviz.core.i18n import using

    spec = _trace("speculative", [(0.010, 0.020, 4)] * 5, prefill=0.5, drafted=20, accepted=15)
    base = _trace("autoregressive", [(0.0, 0.010, 1)] * 20, prefill=0.05)
    c = race_costs(spec, base)
    assert c.tokens_per_step >= c.break_even_tokens and measured_speedup(spec, base) < timeline.TIES
    for lang, said in (("en", "The steps paid for themselves (on average each emitted 4.00 tokens, where about 3.00 "
                               "would have broken even), so the time lost is outside them: the prefill (500.0 ms "
                               "against 50.0 ms"),
                       ("pt", "Os passos se pagaram (em média cada um emitiu 4,00 tokens, e cerca de 3,00 bastariam "
                              "para chegar ao ponto de equilíbrio), então o tempo perdido está fora deles: o prefill (500,0 "
                              "ms contra 50,0 ms")):
        with using(lang):
            text = explain_race(spec, base)
        assert said in text and "did not cover" not in text and "não cobriram" not in text, text


def test_a_lost_race_whose_steps_paid_names_a_draft_model_only_where_one_read_the_prompt():
    """Read 46 (review): "a draft model reads the prompt too" explained a longer prefill in every lane, an n-gram
    lookup's too, which runs no model over the prompt; only a proposer that prefills a draft model says it. Read 48:
    a layer-skip trace names its proposer "layerskip-7" (its layers), as the shipped example and every live race
    record it, and that name read as unknown, so a layer-skip lane's prefill went unexplained."""
    import dataclasses

    from specviz.core.i18n import using

    spec = _trace("speculative", [(0.001, 0.011, 4)] * 5, prefill=0.5, drafted=20, accepted=15)
    base = _trace("autoregressive", [(0.0, 0.004, 1)] * 20, prefill=0.05)
    for proposer, named in (("draft", True), ("layerskip", True), ("layerskip-7", True), ("ngram", False),
                            ("medusa", False)):
        lane = dataclasses.replace(spec, settings={"proposer": proposer})
        text = explain_race(lane, base)
        assert "The steps paid for themselves" in text and ("a draft model reads the prompt too" in text) == named, text
        with using("pt"):
            text = explain_race(lane, base)
        assert "Os passos se pagaram" in text and ("um modelo de rascunho também lê o prompt" in text) == named, text


def test_a_win_whose_steps_did_not_pay_is_put_outside_the_steps():
    """Read 46: a race won while each step emitted fewer tokens than its break-even (the target-only lane's slow
    prefill gave the win) read "each verify pass bought more tokens than it cost" right after the numbers that showed
    it did not: the won branch now says where the time was won, as the lost branch says where it was lost."""
    from specviz.core.i18n import using

    spec = _trace("speculative", [(0.010, 0.030, 2)] * 10, prefill=0.01, drafted=40, accepted=10)
    base = _trace("autoregressive", [(0.0, 0.010, 1)] * 20, prefill=1.0)
    c = race_costs(spec, base)
    assert c.tokens_per_step < c.break_even_tokens and measured_speedup(spec, base) > timeline.TIES
    for lang, said, old in (("en", "The steps alone did not pay (on average each emitted 2.00 tokens, where about 4.00 "
                                   "would have broken even), so the time won is outside them: the prefill (10.0 ms "
                                   "against 1,000.0 ms", "bought more tokens than it cost"),
                            ("pt", "Os passos sozinhos não se pagaram (em média cada um emitiu 2,00 tokens, e seriam "
                                   "precisos cerca de 4,00", "rendesse mais tokens")):
        with using(lang):
            text = explain_race(spec, base)
        assert text.startswith(("Speculation won", "A especulação venceu")) and said in text and old not in text, text


def test_a_loss_of_few_tokens_a_step_that_still_paid_is_not_blamed_on_few_drafts():
    """Read 46: the "Few drafts were kept ... no more than a plain forward" branch fired whenever a step emitted under
    1.5 tokens, even when that was at or above the step's break-even (a cheap step that paid); the steps-paid
    sentence is checked first."""
    spec = _trace("speculative", [(0.0005, 0.0095, 1)] * 3 + [(0.0005, 0.0095, 2)] * 2, prefill=0.5, drafted=10,
                  accepted=2)
    base = _trace("autoregressive", [(0.0, 0.010, 1)] * 7, prefill=0.01)
    c = race_costs(spec, base)
    assert c.break_even_tokens <= c.tokens_per_step < 1.5 and measured_speedup(spec, base) < timeline.TIES
    text = explain_race(spec, base)
    assert "The steps paid for themselves (on average each emitted 1.40 tokens" in text, text
    assert "Few drafts were kept" not in text


def test_length_note_names_the_chain_lane_beside_a_tree_lane():
    """Read 47: beside a tree lane, whose race shows three outputs, the note said "The two outputs differ in length"
    without saying which two (the chain lane and target-only). It names them, in both languages."""
    from specviz.core.i18n import using

    base = _trace("autoregressive", [(0.0, 0.1, 1)] * 20)
    for temperature in (0.0, 0.7):
        spec = _trace("speculative", [(0.0, 0.1, 1)] * 2)
        spec.settings["temperature"] = temperature
        assert length_note(spec, base).startswith("The two outputs differ in length (2 vs 20 tokens)")
        assert length_note(spec, base, chain=True).startswith(
            "The chain lane's output and the target-only output differ in length (2 vs 20 tokens)")
        with using("pt"):
            assert length_note(spec, base, chain=True).startswith(
                "A saída da raia da cadeia e a saída só com o alvo têm comprimentos diferentes (2 vs 20 tokens)")


def test_alpha_notes_shorter_steps_name_the_medusa_heads_cap():
    """Read 48: a live race with Medusa heads at K = 8 drafted 5 tokens a step (the shipped heads are 5, one token
    each), and the note's reasons for steps that drafted fewer than K named only the token limit, an end-of-text and
    a lookup. The heads' cap is now among them, in both languages."""
    from specviz.core.i18n import using

    steps = [Step(i, 3 + i, 8, "medusa", [_decision(j, 0.9, j < 2, j <= 2) for j in range(5)], _tokens(3))
             for i in range(2)]
    spec = Trace("speculative", {"k": 8, "proposer": "medusa"}, [1, 2, 3], [7] * 6, steps)
    for lang, said in (("en", "Medusa heads draft one token each, so never more than there are heads"),
                       ("pt", "as cabeças de previsão (Medusa) rascunham um token cada, então nunca mais do que o "
                              "número de cabeças")):
        with using(lang):
            assert said in timeline.alpha_note(spec)


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_alpha_notes_short_step_reasons_are_those_of_the_runs_proposer(lang):
    """Read 52: one list of reasons went into every note, so the n-gram and draft-model examples' notes said "Medusa
    heads draft one token each" of runs no head drafted. Each proposer now gets the reasons that can apply to it."""
    from specviz.core.i18n import using

    heads = ("cabeças de previsão (Medusa)", "Medusa heads")[lang == "en"]
    lookup = ("busca de n-gramas", "a lookup drafts")[lang == "en"]
    limit = ("no limite de tokens", "at the token limit")[lang == "en"]
    with using(lang):
        notes = {name: timeline.alpha_note(load_example(name)[0])
                 for name in ("smollm-ngram-greedy", "smollm-draft-greedy", "smollm-eagle-greedy",
                              "smollm-layerskip-t07", "smollm-medusa-greedy")}
    assert all(limit in note for note in notes.values()), notes
    assert [name for name, note in notes.items() if heads in note] == ["smollm-medusa-greedy"], notes
    assert [name for name, note in notes.items() if lookup in note] == ["smollm-ngram-greedy"], notes
    with using(lang):  # a trace that names no proposer: every shipped proposer's reasons
        assert heads in timeline.short_step_reasons() and lookup in timeline.short_step_reasons("")
        assert heads not in timeline.short_step_reasons("some-new-proposer")


def test_the_shipped_layer_skip_example_is_known_to_prefill_a_drafter():
    """Read 48: the shipped layer-skip example records its proposer as "layerskip-7", and `prefills_a_drafter` read it
    as an unknown name (False) although the draft's first layers read the prompt in the prefill."""
    spec, _base = load_example("smollm-layerskip-t07")
    assert spec.settings["proposer"] == "layerskip-7" and timeline.prefills_a_drafter(spec)


@pytest.mark.parametrize("example", [e.name for e in list_examples() if e.baseline_path is not None])
def test_the_alpha_notes_formula_follows_from_alpha_as_written(example):
    """Read 50: the toy example's note wrote α 0.78 and α(1 − α^K) / ((1 − α)K) = 0.55 at K = 4, from its unrounded
    0.7765; from 0.78 a reader gets 0.56 (and the separate draft's 0.50 at K = 2 gives 0.375, not the 0.37 it wrote).
    The formula takes α as the note writes it."""
    import re

    from specviz.core.i18n import number
    from specviz.engine import theory

    spec, _base = load_example(example)
    with using("en"):
        note = timeline.alpha_note(spec)
        alpha = float(re.search(r"estimated at ([0-9.]+)\)", note).group(1))
        said, k = re.search(r"\(\(1 − α\)K\) = ([0-9.]+) at K = (\d+)\.", note).groups()
        assert said == number(theory.accepted_fraction(alpha, int(k))), note


@pytest.mark.parametrize("example", [e.name for e in list_examples() if e.baseline_path is not None])
def test_a_speculative_steps_cost_is_the_sum_of_its_parts_as_written(example):
    """Read 50: the EAGLE example's verdict said a step cost 91.2 ms (drafting 18.8 + verifying 70.1 + the rest,
    2.2), parts that add to 91.1, and the n-gram example's 111.3 ms was 0.5 + 109.0 + 1.9 = 111.4: each was rounded
    on its own. The step is written as the sum of its parts as written, in both languages."""
    import re

    spec, base = load_example(example)
    for lang, sep in (("en", "."), ("pt", ",")):
        with using(lang):
            verdict = explain_race(spec, base)
        numbers = re.findall(rf"(\d+\{sep}\d) ms", verdict)[:4]  # the step, then drafting, verifying and the rest
        step, draft, verify, rest = (float(n.replace(",", ".")) for n in numbers)
        assert round(draft + verify + rest, 1) == step, verdict


def test_the_busy_notes_ratio_follows_from_the_medians_it_writes():
    """Read 50: a live toy race's note wrote a quickest step of "2.7 ms" and a worst median of "9.8 ms", then "(3.7×
    slower at worst)", the unrounded medians' ratio; the figures as written give 3.6×."""
    import re

    quick = _lane("autoregressive", [2.66] * 10)
    busy = _lane("autoregressive", [9.84] * 10)  # 9.84 / 2.66 = 3.70; 9.8 / 2.7 = 3.63
    spec = _lane("speculative", [10.0] * 5, emitted=2)
    note = timeline.busy_note(timeline.RaceRounds(((spec, quick), (spec, busy))))
    usual, worst, ratio = re.search(r"about ([0-9.]+) ms .*, ([0-9.]+) ms in the 2 rounds \(([0-9.]+)× slower",
                                    note).groups()
    assert (usual, worst) == ("2.7", "9.8"), note
    assert ratio == f"{float(worst) / float(usual):.1f}" == "3.6", note


@pytest.mark.parametrize("example", [e.name for e in list_examples() if e.baseline_path is not None])
def test_the_break_even_follows_from_the_step_costs_as_written(example):
    """Read 50: the toy example said a step must emit "about 4.93 tokens" to break even beside a step of 4.9 ms and
    a target-only step of 1.0 ms (4.9 / 1.0 = 4.90), and the greedy separate draft 2.91 beside 153.9 and 53.0 ms
    (2.90): the break-even came from the unrounded costs. It is now the written step over the written forward."""
    import re

    from specviz.core.i18n import number

    spec, base = load_example(example)
    with using("en"):
        verdict = explain_race(spec, base)
        step = float(re.search(r"step cost ([0-9.]+) ms on average", verdict).group(1))
        forward = float(re.search(r"target-only step \(a forward and its sampling\) cost ([0-9.]+) ms", verdict)
                        .group(1))
        even = re.search(r"must emit about \*\*([0-9.]+) tokens", verdict).group(1)
        assert even == number(step / forward), verdict


def test_a_step_whose_tokens_equal_its_break_even_as_written_is_not_told_it_did_not_pay():
    """Read 50 (review): the verdict wrote the break-even from the costs as written (87.1 / 30.0 = 2.9033, "about
    2.90 tokens") but compared the unrounded 2.9033 with the 2.90 tokens a step emitted, so a lost race read "emitted
    2.90 tokens ... To break even, a step must emit about 2.90 tokens" and then "The tokens each step bought did not
    cover the cost". It compares the figures it writes: the steps paid, and the time was lost outside them."""
    from specviz.core.i18n import using

    spec = _trace("speculative", [(0.010, 0.0771, 3)] * 9 + [(0.010, 0.0771, 2)], prefill=0.5, drafted=40,
                  accepted=19)
    base = _trace("autoregressive", [(0.0, 0.030, 1)] * 29, prefill=0.05)
    c = race_costs(spec, base)
    assert measured_speedup(spec, base) < timeline.TIES and c.tokens_per_step < 87.1 / 30.0
    for lang, said, old in (("en", "The steps paid for themselves (on average each emitted 2.90 tokens, where about "
                                   "2.90 would have broken even)", "did not cover"),
                            ("pt", "Os passos se pagaram (em média cada um emitiu 2,90 tokens, e cerca de 2,90 "
                                   "bastariam", "não cobriram")):
        with using(lang):
            text = explain_race(spec, base)
        assert "emit about **2" in text or "emitir cerca de **2" in text
        assert said in text and old not in text, text


@pytest.mark.parametrize("speedup, says", [(1.0454, "Speculation won: 1.05× faster."),
                                           (1.0449, "About a tie (1.04×)."),
                                           (0.9527, "Speculation lost: 0.95× (slower than target-only)."),
                                           (0.9551, "About a tie (0.96×).")])
def test_the_race_verdict_names_the_speedup_as_written(monkeypatch, speedup, says):
    """Read 51: the verdict's word came from the unrounded speedup, so 1.0454 read "About a tie (1.05×)." where a
    measured 1.05 reads "Speculation won: 1.05× faster.", and 0.9527 "About a tie (0.95×)." beside a lost 0.95×."""
    spec, base = load_example("toy-draft")
    monkeypatch.setattr(timeline, "measured_speedup", lambda *_: speedup)
    with using("en"):
        assert explain_race(spec, base).startswith(says)


def test_length_note_names_the_tree_lane_in_the_chain_lanes_words():
    """Read 51: a tree lane whose output length differed from target-only's got no note, while a chain lane beside it
    got one. The tree lane gets the chain lane's sentence, naming the tree lane, in both languages."""
    base = _trace("autoregressive", [(0.0, 0.1, 1)] * 20)
    for temperature in (0.0, 0.7):
        tree = _trace("speculative", [(0.0, 0.1, 1)] * 2)
        tree.settings["temperature"] = temperature
        chain = length_note(tree, base, chain=True)
        note = length_note(tree, base, tree=True)
        assert note == chain.replace("The chain lane's output", "The tree lane's output")
        with using("pt"):
            note = length_note(tree, base, tree=True)
            chain = length_note(tree, base, chain=True)
        assert note.startswith(
            "A saída da raia da árvore e a saída só com o alvo têm comprimentos diferentes (2 vs 20 tokens)")
        assert note == chain.replace("raia da cadeia", "raia da árvore")


@pytest.fixture(scope="module")
def threshold_trace(toy):
    """A real threshold-policy run on the toy pair: a confidence stop of 0.1 (the toy draft's top probability sits
    near it, so its steps draft 0 to 4 of K = 4) under the policy `run` uses for "threshold"."""
    from specviz.engine.policies import Threshold, confident

    ids = encode_prompt(toy.tokenizer, PROMPT, chat=False)
    return speculative_generate(toy.target, confident(make_proposer(toy, "draft"), 0.1), ids, k=4, temperature=1.0,
                                seed=0, max_new_tokens=40, tokenizer=toy.tokenizer, draft_length=Threshold(4))


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_threshold_runs_short_steps_are_said_to_come_from_its_confidence_stop(threshold_trace, lang):
    """Read 53: a threshold-policy run's steps of fewer than K drafts were given only the token limit and a drafted
    end-of-text as reasons; the α note, the Theory caption's reasons and the settings line now name the stop, its
    threshold and that the number drafted changes step to step. The trace records the policy and the threshold, and
    keeps them through a file."""
    from specviz.ui.common.step_view import settings_line

    drafted = [s.n_drafted for s in threshold_trace.steps]
    assert min(drafted[:-1]) < 4 and max(drafted) == 4, drafted  # short steps before the last, not only at the limit
    assert threshold_trace.settings["policy"] == "threshold" and threshold_trace.settings["threshold"] == 0.1
    again = Trace.from_json(threshold_trace.to_json())
    said = {"en": ("the threshold policy also stops drafting where the draft's own top probability falls below its "
                   "threshold, 0.1, so the number drafted changes from step to step",
                   "threshold policy: up to K drafts a step, stopping where the draft's own top probability falls "
                   "below 0.1"),
            "pt": ("a política threshold também para de rascunhar onde a maior probabilidade do próprio rascunho cai "
                   "abaixo do seu limiar, 0,1, então o número de palpites muda de um passo para outro",
                   "política threshold: até K palpites por passo, parando onde a maior probabilidade do próprio "
                   "rascunho cai abaixo de 0,1")}[lang]
    with using(lang):
        assert said[0] in timeline.alpha_note(again) and said[0] in timeline.run_short_step_reasons(again)
        assert said[1] in settings_line(again)


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_threshold_of_0_is_recorded_and_not_said_to_stop_drafting(toy, lang):
    """Read 53: a threshold-policy run at threshold 0 recorded no threshold, so its reasons and settings line said
    drafting "stops where the draft's own top probability falls below its threshold" and "the number drafted changes
    from step to step"; no probability falls below 0, so no step stopped for confidence. The
    trace records the 0, and the texts say the policy stops no step early."""
    from specviz.engine.policies import Threshold, confident
    from specviz.ui.common.step_view import settings_line

    ids = encode_prompt(toy.tokenizer, PROMPT, chat=False)
    trace = speculative_generate(toy.target, confident(make_proposer(toy, "draft"), 0.0), ids, k=4, temperature=1.0,
                                 seed=0, max_new_tokens=40, tokenizer=toy.tokenizer, draft_length=Threshold(4))
    assert [s.n_drafted for s in trace.steps][:5] == [4] * 5  # no confidence stop
    again = Trace.from_json(trace.to_json())
    assert again.settings["policy"] == "threshold" and again.settings["threshold"] == 0
    said = {"en": ("the threshold policy's threshold is 0, which no top probability falls below, so it never stops "
                   "drafting early", "threshold policy: threshold 0, which no top probability falls below, so it "
                   "stops no step early", "changes from step to step"),
            "pt": ("o limiar da política threshold é 0, abaixo do qual nenhuma maior probabilidade cai, então ela "
                   "nunca para de rascunhar mais cedo", "política threshold: limiar 0, abaixo do qual nenhuma maior "
                   "probabilidade cai, então ela não encerra nenhum passo mais cedo",
                   "muda de um passo para outro")}[lang]
    with using(lang):
        reasons, line = timeline.run_short_step_reasons(again), settings_line(again)
    assert said[0] in reasons and said[1] in line
    assert said[2] not in reasons + line and "abaixo do seu limiar" not in reasons + line
    assert "below its threshold" not in reasons + line


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_heuristic_runs_short_steps_are_said_to_come_from_its_moving_k(toy, lang):
    """Read 53: a heuristic run (greedy: K 4, 3, 2, 1, 3, ...: down 1 after a rejection) was told its steps drafted
    fewer than K only at the token limit and after a drafted end-of-text; the reasons now say the policy moves K.
    The optimal policy's own reason names its K = 0 probe."""
    from specviz.runs.runspec import RunSpec
    from specviz.runs.running import run

    trace = run(RunSpec(pair="toy", proposer="draft", prompt=PROMPT, chat=False, k=4, max_new_tokens=40,
                        temperature=0.0, seed=0, policy="heuristic"), pair=toy)
    assert any(s.n_drafted < 4 for s in trace.steps[:-1]) and trace.settings["policy"] == "heuristic"
    said = {"en": "the heuristic policy also changes K from step to step, 1 lower after a step with a rejected draft",
            "pt": "a política heuristic também muda K de um passo para outro, 1 a menos depois de um passo com um "
                  "palpite rejeitado"}[lang]
    with using(lang):
        assert said in timeline.alpha_note(trace)
        assert "(save one token every 8 steps)" in timeline.short_step_reasons("draft", "optimal") or lang == "pt"
        assert "(exceto um token a cada 8 passos)" in timeline.short_step_reasons("draft", "optimal") or lang == "en"
        assert "policy" not in timeline.short_step_reasons("draft", "constant")  # constant K: no policy reason


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_an_optimal_runs_settings_and_alpha_note_give_the_k_its_steps_drafted(toy, lang):
    """Read 53: under the optimal policy (which ignores K: `make_policy`) the step panels' settings line read
    "K = 4" and the α note "E[accepted] / K = ... = 0.64 at K = 4", the run's K setting, though its steps drafted
    3 to 10 (K from the formula and the running α estimate). The settings line now gives the range its steps
    drafted and says the K setting is not used; the note gives the formula at the fewest and the most a step
    drafted, and that its steps drafted different numbers of tokens."""
    from specviz.core.i18n import as_written, number
    from specviz.engine import theory
    from specviz.runs.runspec import RunSpec
    from specviz.runs.running import run
    from specviz.ui.common.step_view import settings_line

    trace = run(RunSpec(pair="toy", proposer="draft", prompt=PROMPT, chat=False, k=4, max_new_tokens=40,
                        temperature=1.0, seed=0, policy="optimal"), pair=toy, c=0.05)
    drafted = [s.n_drafted for s in trace.steps]
    low, high = min(drafted), max(drafted)
    assert trace.settings["k"] == 4 and low >= 1 and high > 4 > low, drafted  # the case: K = 4 drafted by no rule
    alpha = min(1.0, as_written(trace.mean_accept_prob))
    with using(lang):  # the predicted fractions as the reader writes numbers (0,70 in Portuguese)
        at_low, at_high = (number(theory.accepted_fraction(alpha, k)) for k in (low, high))
        line, note = settings_line(trace), timeline.alpha_note(trace)
    said = {"en": (f"its steps drafted {low} to {high}; the K setting is not used",
                   f": {at_low} at K = {low} and {at_high} at K = {high}, the fewest and the most tokens a step",
                   "Its steps drafted different numbers of tokens (drafting stops"),
            "pt": (f"os seus passos rascunharam de {low} a {high}; o K definido não é usado",
                   f": {at_low} com K = {low} e {at_high} com K = {high}, o menor e o maior número de tokens",
                   "Os seus passos rascunharam números diferentes de tokens (um passo para")}[lang]
    assert said[0] in line and "K = 4" not in line, line
    assert said[1] in note and said[2] in note and "K = 4" not in note, note


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_heuristic_runs_alpha_note_gives_the_formula_at_the_k_its_steps_drafted(toy, lang):
    """Read 53 review: a heuristic run at T = 1 drafted 4, 6, 5, 4, 6, 1 (K starts at 4, 2 higher after a step that
    kept every draft), and the α note gave the formula "at K = 4" then "Some steps of this run drafted fewer than
    K tokens", though two drafted 6. It now gives the formula at the fewest and the most a step drafted, as for the
    optimal policy."""
    from specviz.core.i18n import as_written, number
    from specviz.engine import theory
    from specviz.runs.runspec import RunSpec
    from specviz.runs.running import run

    trace = run(RunSpec(pair="toy", proposer="draft", prompt=PROMPT, chat=False, k=4, max_new_tokens=40,
                        temperature=1.0, seed=0, policy="heuristic"), pair=toy)
    drafted = [s.n_drafted for s in trace.steps]
    low, high = min(k for k in drafted if k), max(drafted)
    assert trace.settings["k"] == 4 and high > 4, drafted  # the case: steps drafted more than the K setting
    alpha = min(1.0, as_written(trace.mean_accept_prob))
    with using(lang):
        at_low, at_high = (number(theory.accepted_fraction(alpha, k)) for k in (low, high))
        note = timeline.alpha_note(trace)
    said = {"en": (f": {at_low} at K = {low} and {at_high} at K = {high}, the fewest and the most tokens a step",
                   "Its steps drafted different numbers of tokens (", "fewer than K"),
            "pt": (f": {at_low} com K = {low} e {at_high} com K = {high}, o menor e o maior número de tokens",
                   "Os seus passos rascunharam números diferentes de tokens (", "menos de K")}[lang]
    assert said[0] in note and said[1] in note and said[2] not in note, note
    assert "heuristic" in note, note  # the reasons still name the policy's moving K


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_heuristic_policys_steps_up_and_down_are_the_ones_it_ran_with(toy, lang):
    """Read 53: the settings line and the short-step reasons said the heuristic policy moves K "2 higher ... 1
    lower" whatever its steps were; `Heuristic(grow=3, shrink=2)` moved it 3 up and 2 down. The trace records the
    two, keeps them through a file, and the texts give them."""
    from specviz.engine.policies import Heuristic
    from specviz.ui.common.step_view import settings_line

    ids = encode_prompt(toy.tokenizer, PROMPT, chat=False)
    trace = speculative_generate(toy.target, make_proposer(toy, "draft"), ids, k=4, temperature=1.0, seed=0,
                                 max_new_tokens=40, tokenizer=toy.tokenizer,
                                 draft_length=Heuristic(start=4, k_max=16, grow=3, shrink=2))
    drafted = [s.n_drafted for s in trace.steps]
    assert any(b - a in (3, -2) for a, b in zip(drafted, drafted[1:])), drafted  # it did move by 3 or 2
    again = Trace.from_json(trace.to_json())
    said = {"en": ("the heuristic policy also changes K from step to step, 2 lower after a step with a rejected draft "
                   "and 3 higher after a step that kept every draft",
                   "heuristic policy: K starts at 4, 3 higher after a step that kept every draft and 2 lower after one "
                   "with a rejected draft"),
            "pt": ("a política heuristic também muda K de um passo para outro, 2 a menos depois de um passo com um "
                   "palpite rejeitado e 3 a mais depois de um passo que manteve todos os palpites",
                   "política heuristic: K começa em 4, 3 a mais depois de um passo que manteve todos os palpites e 2 a "
                   "menos depois de um com um palpite rejeitado")}[lang]
    with using(lang):
        assert said[0] in timeline.run_short_step_reasons(again) and said[0] in timeline.alpha_note(again)
        assert said[1] in settings_line(again)
        assert timeline.heuristic_steps(again) == (3, 2)
        # a file that does not say: no number is made up
        del again.settings["heuristic_grow"]
        assert timeline.heuristic_steps(again) is None
        unknown = timeline.run_short_step_reasons(again) + settings_line(again)
    assert not any(f"{n} {word}" in unknown for n in (1, 2, 3) for word in ("higher", "lower", "a mais", "a menos"))


def test_the_portuguese_policy_reasons_say_from_one_step_to_another():
    """Read 55: the four Portuguese sentences for a policy that moves the number drafted said it "muda de passo a
    passo", which reads as "changes gradually"; they now say "de um passo para outro", as the Theory page does."""
    with using("pt"):
        said = [timeline.short_step_reasons("draft", "threshold", 0.1),
                timeline.short_step_reasons("draft", "threshold"),
                timeline.short_step_reasons("draft", "heuristic", heuristic=(2, 1)),
                timeline.short_step_reasons("draft", "heuristic")]
    assert [("o número de palpites muda de um passo para outro" in said[0]),
            ("o número de palpites muda de um passo para outro" in said[1]),
            ("muda K de um passo para outro, 1 a menos" in said[2]),
            ("muda K de um passo para outro: ele desce" in said[3])] == [True] * 4, said
    assert not any("passo a passo" in text for text in said), said


def _drafting_nothing(mode: str, verify: float) -> Trace:
    """A lane of 10 steps that drafted nothing, each emitting one token after a target forward of `verify` s."""
    steps = [Step(i, 1 + i, 0, "none", [], [], verify_seconds=verify) for i in range(10)]
    return Trace(mode, {}, [1], [7] * 10, steps, wall_seconds=10 * verify)


@pytest.mark.parametrize("lang, said", [
    ("en", "No step drafted a token, so each step emitted one token, as a target-only step does, while costing more "
           "than one on average: its draft (0.0 ms), its target forward (200.0 ms) and the rest of the step."),
    ("pt", "Nenhum passo rascunhou um token, então cada passo emitiu um token, como um passo só com o alvo, custando "
           "em média mais do que ele: o seu rascunho (0,0 ms), a sua passagem do alvo (200,0 ms) e o resto do "
           "passo.")])
def test_a_race_that_drafted_nothing_gives_no_nan_rate(lang, said):
    """Read 54: a race in which no step drafted a token (an n-gram lookup that found nothing to copy) has no accepted /
    drafted, and its verdict read "Few drafts were kept (accepted / drafted NaN%)", then "(accepted / drafted –)":
    no draft was made, kept or not. It says so, and what each step cost instead."""
    with using(lang):
        text = explain_race(_drafting_nothing("speculative", 0.2), _drafting_nothing("autoregressive", 0.1))
    assert "NaN" not in text and said in text, text
    assert "Few drafts" not in text and "Poucos palpites" not in text and "–" not in text, text


@pytest.mark.parametrize("lang, said", [
    ("en", "A speculative step cost no more than one target-only step, and no step drafted a token: each emitted one "
           "token, as a target-only step does, so no draft had a part in this win."),
    ("pt", "Um passo especulativo custou no máximo um passo só com o alvo, e nenhum passo rascunhou um token: cada um "
           "emitiu um token, como um passo só com o alvo, então nenhum palpite teve parte nesta vitória.")])
def test_a_race_won_without_drafting_a_token_speaks_of_no_drafts(lang, said):
    """Read 54: a race won by steps cheaper than a target-only one that drafted nothing read "this race does not
    show that the drafts (accepted / drafted –) paid for themselves", of drafts it never made."""
    with using(lang):
        text = explain_race(_drafting_nothing("speculative", 0.08), _drafting_nothing("autoregressive", 0.1))
    assert text.startswith(("Speculation won", "A especulação venceu")) and text.endswith(said), text
    assert "–" not in text, text


@pytest.mark.parametrize("lang, said, old", [
    ("en", "The tokens each step emitted did not cover its cost: its draft, its target forward and the rest of the "
           "step.", "verifying"),
    ("pt", "Os tokens que cada passo emitiu não cobriram o seu custo: o seu rascunho, a sua passagem do alvo e o "
           "resto do passo.", "verificar")])
def test_a_loss_of_steps_that_did_not_pay_names_the_parts_as_the_race_does(lang, said, old):
    """Read 54: the loss's last reason read "did not cover the cost of drafting plus verifying", beside a cost
    sentence, legend, table and hovers that name a step's parts draft, target forward and rest of the step (which the
    old words left out)."""
    base = _trace("autoregressive", [(0.0, 0.1, 1)] * 20)
    spec = _trace("speculative", [(0.07, 0.14, 2)] * 10, drafted=4)  # 2 tokens a step; break-even 2.1
    with using(lang):
        text = explain_race(spec, base)
    assert said in text and old not in text, text
