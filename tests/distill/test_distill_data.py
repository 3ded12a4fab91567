"""The data step at scale (issue 30): batched generation with the target's inner states, chunks on disk, and the
stages that widen the prompts (self-instruct questions, follow-ups, rewrites, drills): no prompt they write is about a
held-out topic, though a follow-up or rewrite quotes an earlier answer unfiltered, which may mention one (203 of those
stages' 9,000 prompts do, docs/drafts.md)."""

import pytest
import torch
from scipy import stats

from specviz.distill.batched import BatchedDecoder, Row, aux_layer_ids
from specviz.distill.data import GenerationPlan, Job, Record, load_records, row_seed, write_chunk
from specviz.distill.prompts import (EVERYDAY_QUESTIONS, Prompt, arithmetic_prompts, clear_of_held_out,
                                     extra_template_prompts, held_out_pattern, held_out_topics, prompt_sets,
                                     question_list_prompts)
from specviz.distill.stages import DataScale, stage_folder, stage_jobs
from specviz.models.pairs import toy_pair

PROMPTS = [[3, 4, 5], [6, 7, 8, 9, 10, 11, 12], [13, 14]]  # different lengths: the batch is left-padded


def test_batched_generation_is_the_models_own_greedy_output_and_states():
    """Greedy rows equal `model.generate`; the recorded states equal a plain forward's hidden states (the three
    EAGLE-3 layers, then the final norm's output) at every position of prompt and response."""
    target = toy_pair().target
    decoder = BatchedDecoder(target, aux_layers=(1, 1, 1))
    out = decoder.generate([Row(p, 0.0, 0) for p in PROMPTS], 10, eos=set())
    assert len(out) == len(PROMPTS) == 3
    for prompt, row in zip(PROMPTS, out):
        with torch.no_grad():
            expected = target.generate(torch.tensor([prompt]), max_new_tokens=10, do_sample=False, eos_token_id=None,
                                       pad_token_id=1)[0]
            hidden = target(row.tokens[None], output_hidden_states=True).hidden_states
        assert row.tokens.tolist() == expected.tolist()
        assert row.prompt_length == len(prompt) and len(row.tokens) == len(prompt) + 10
        for slot, layer in enumerate((1, 1, 1)):
            assert torch.allclose(row.features[:, slot], hidden[layer][0, :-1], atol=1e-5)
        assert torch.allclose(row.features[:, -1], hidden[-1][0, :-1], atol=1e-5)


def test_a_rows_answer_does_not_depend_on_the_batch_it_is_in():
    target = toy_pair().target
    decoder = BatchedDecoder(target)
    alone = decoder.generate([Row(PROMPTS[1], 1.0, 42)], 12, eos=set())[0]
    together = decoder.generate([Row(PROMPTS[0], 1.0, 7), Row(PROMPTS[1], 1.0, 42), Row(PROMPTS[2], 0.0, 9)], 12,
                                eos=set())[1]
    assert alone.tokens.tolist() == together.tokens.tolist()
    assert torch.allclose(alone.features.float(), together.features.float(), atol=1e-5)


def test_a_row_stops_at_its_first_end_token_and_the_others_go_on():
    target = toy_pair().target
    first = BatchedDecoder(target).generate([Row(PROMPTS[0], 0.0, 0)], 6, eos=set())[0]
    stop = int(first.tokens[len(PROMPTS[0]) + 2])  # the third token it writes
    out = BatchedDecoder(target).generate([Row(PROMPTS[0], 0.0, 0), Row(PROMPTS[1], 1.0, 3)], 6, eos={stop},
                                          compact_share=0.4)
    assert out[0].tokens.tolist()[-1] == stop and len(out[0].tokens) <= len(PROMPTS[0]) + 3
    assert len(out[1].tokens) - out[1].prompt_length == 6 or out[1].tokens.tolist()[-1] == stop
    assert out[0].features.shape[0] == len(out[0].tokens) - 1


@pytest.mark.slow  # over 1.5 s: make test runs it, make check stays under a minute
def test_sampled_tokens_follow_softmax_of_logits_over_t():
    """One uniform draw per token through the cumulative distribution: a chi-square test against softmax(l / T)."""
    logits = torch.tensor([[2.0, 1.0, 0.5, -1.0, 0.0]])
    temperature = 0.7
    expected = torch.softmax(logits[0] / temperature, -1)
    generators = [torch.Generator().manual_seed(123)]
    draws = [BatchedDecoder._choose(logits, torch.tensor([0]), [temperature], generators)[0] for _ in range(20_000)]
    counts = torch.bincount(torch.tensor(draws), minlength=5)
    assert stats.chisquare(counts.double().numpy(), (expected.double() / expected.double().sum() * len(draws)).numpy()).pvalue > 1e-3
    assert BatchedDecoder._choose(logits, torch.tensor([0]), [0.0], generators) == [0]  # greedy: the argmax


def test_each_answer_has_its_own_stable_seed():
    seeds = {row_seed(0, f"p{i}#{a}") for i in range(500) for a in (0, 1)}
    assert len(seeds) == 1000 and row_seed(0, "p1#0") == row_seed(0, "p1#0") != row_seed(1, "p1#0")
    assert aux_layer_ids(30) == (2, 15, 27)  # vLLM's default layers for a 30-layer Llama


def test_chunks_keep_bfloat16_states_bit_for_bit(tmp_path):
    states = torch.randn(5, 4, 8).to(torch.bfloat16)
    record = Record("a#0", torch.arange(6), states, 2, 0.7, "hello")
    write_chunk(tmp_path / "chunk-0000", [record, Record("b#0", torch.arange(3), states[:2], 1, 0.0, "hi")], {"jobs": 2})
    back = load_records(tmp_path)
    assert [r.id for r in back] == ["a#0", "b#0"]
    assert torch.equal(back[0].states, states) and torch.equal(back[1].states, states[:2])
    assert back[0].text == "hello" and back[0].temperature == 0.7 and back[0].tokens.tolist() == list(range(6))
    assert torch.equal(back[0].features, states[:, -1]) and torch.equal(back[0].aux, states[:, :-1])


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_no_prompt_the_seed_lists_or_drills_write_names_a_held_out_topic():
    """The stages whose prompts are filtered or drawn clear of the held-out topics (the follow-ups and rewrites,
    which quote earlier answers unfiltered, are not: stages' docstring)."""
    import specviz.distill.stages as stages

    assert "a follow-up or rewrite quotes an earlier answer unfiltered" in " ".join(stages.__doc__.split())
    train, held = prompt_sets(3000, 64, seed=0)
    pattern = held_out_pattern(held_out_topics(0))
    assert sum(bool(pattern.search(p.text)) for p in held) >= 40  # the filter would catch the held-out prompts
    widened = extra_template_prompts(3000) + question_list_prompts() + arithmetic_prompts(2000)
    assert len(widened) > 6000
    assert not [p.text for p in widened if pattern.search(p.text)]
    assert not {p.text for p in widened} & {p.text for p in held}
    asked = [Prompt("x", "q", text) for text in ["Do spiders sleep?", "Why do owls hoot?", "How is tea made?",
                                                 "What is a black hole?", "How do trains brake?", EVERYDAY_QUESTIONS[0],
                                                 "What is a steam engine?"]]
    assert [p.text for p in clear_of_held_out(asked)] == ["What is a steam engine?"]


class CharTokenizer:
    """Token id = code point; 0 ends a sequence (enough for the stages, which only decode)."""

    def decode(self, ids, skip_special_tokens=True):
        return "".join(chr(i) for i in ids if i)


def chat(prompt: str, response: str) -> torch.Tensor:
    return torch.tensor([ord(c) for c in prompt] + [ord(c) for c in response] + [0])


def test_later_stages_build_on_what_the_target_wrote(tmp_path):
    lists = ["Here are some:\n1. Why do stars twinkle?\n2. Do owls sleep?\n3. How big is the sun?",
             "1. How big is the sun?\n2. What is a comet made of?"]
    records = [Record(f"qlist-{i}#0", chat("Q", text), torch.zeros(len(text) + 1, 2, 4), 1, 0.7, "List questions")
               for i, text in enumerate(lists)]
    write_chunk(stage_folder(tmp_path, "question-lists") / "chunk-0000", records, {"jobs": 2})
    plan, scale = GenerationPlan(seed=0), DataScale()
    jobs = stage_jobs("questions", tmp_path, CharTokenizer(), {0}, scale, plan)
    assert sorted(j.prompt.text for j in jobs) == ["How big is the sun?", "What is a comet made of?",
                                                   "Why do stars twinkle?"]  # parsed, deduplicated, owls held out
    assert sorted(j.temperature for j in jobs) == [0.0, 0.0, 0.7]
    assert jobs == stage_jobs("questions", tmp_path, CharTokenizer(), {0}, scale, plan)  # seeded

    answer = "The sun is a star about a hundred times as wide as the Earth, and it shines by fusion."
    seed = [Record("seed-0#0", chat("Explain the sun.", answer), torch.zeros(len(answer) + 16, 2, 4), 16, 0.0,
                   "Explain the sun."),
            Record("seed-1#0", chat("Cut.", "no end")[:-1], torch.zeros(9, 2, 4), 4, 0.0, "Cut.")]
    write_chunk(stage_folder(tmp_path, "seed") / "chunk-0000", seed, {"jobs": 2})
    follow = stage_jobs("follow-ups", tmp_path, CharTokenizer(), {0}, scale, plan)
    assert len(follow) == 1 and follow[0].prompt.turns == ("Explain the sun.", answer)  # a cut answer is not reused
    rewrite = stage_jobs("rewrites", tmp_path, CharTokenizer(), {0}, scale, plan)
    assert len(rewrite) == 1 and rewrite[0].prompt.text.endswith(answer)
    drills = stage_jobs("drills", tmp_path, CharTokenizer(), {0}, DataScale(drills=10), plan)
    assert len(drills) == 10 and {j.temperature for j in drills} == {0.0, 0.7}


def test_each_stage_samples_as_its_docstring_says(tmp_path):
    """The seed stage answers each prompt greedy and sampled, question-lists samples every list, drills alternate
    (what specviz.distill.stages' docstring and the EAGLE drafter's card say; the card's table counted 1,940 of
    1,940 question lists sampled)."""
    import specviz.distill.stages as stages

    plan = GenerationPlan(seed=0)
    seed = stage_jobs("seed", tmp_path, CharTokenizer(), {0}, DataScale(train_prompts=5, extra_prompts=5), plan)
    by_prompt: dict[str, list[float]] = {}
    for job in seed:
        by_prompt.setdefault(job.prompt.id, []).append(job.temperature)
    assert len(by_prompt) >= 5 and len(seed) == 2 * len(by_prompt)  # every prompt twice: greedy, then sampled
    assert {tuple(sorted(t)) for t in by_prompt.values()} == {(0.0, plan.temperature)}
    lists = stage_jobs("question-lists", tmp_path, CharTokenizer(), {0}, DataScale(question_lists=6), plan)
    assert len(lists) == 6 and {j.temperature for j in lists} == {plan.temperature}
    drills = stage_jobs("drills", tmp_path, CharTokenizer(), {0}, DataScale(drills=6), plan)
    assert sorted(j.temperature for j in drills) == [0.0] * 3 + [plan.temperature] * 3
    assert "question-lists samples every list" in " ".join(stages.__doc__.split())
    assert "Every stage is seeded, keeps clear of the held-out topics" not in " ".join(stages.__doc__.split())


@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_only_questions_follow_ups_and_rewrites_read_earlier_stages(tmp_path, monkeypatch):
    """Which stages each stage reads (the card, the CLI's --stages help and docs/drafts.md once said every stage reads
    the ones before it; question-lists and drills read none)."""
    import specviz.distill.cards as cards
    import specviz.distill.cli as cli
    import specviz.distill.stages as stages
    from specviz.core.paths import SOURCE_ROOT

    read: dict[str, tuple] = {}

    def records(work, *names):
        read[stage] = names
        return []

    monkeypatch.setattr(stages, "_records", records)
    for stage in stages.STAGES:
        read[stage] = ()
        stage_jobs(stage, tmp_path, CharTokenizer(), {0}, DataScale().scaled(0.002), GenerationPlan(seed=0))
    assert read == {"seed": (), "question-lists": (), "questions": ("question-lists",),
                    "follow-ups": ("seed", "questions"), "rewrites": ("seed", "questions"), "drills": ()}
    texts = [cards.CARD + cards.DATA, cli.__doc__, cli.parser().format_help(), stages.__doc__]
    if SOURCE_ROOT is not None:
        texts += [(SOURCE_ROOT / "docs" / "drafts.md").read_text(),
                  (SOURCE_ROOT / "assets" / "models" / "smollm2-eagle" / "README.md").read_text()]
    for text in texts:
        flat = " ".join(text.split())
        for wrong in ("each stage reads the ones before", "each reads the ones before", "the others read what it",
                      "built from the ones before", "each stage built from"):
            assert wrong not in flat


def test_the_everyday_suite_is_what_training_keeps_out():
    from specviz.labs.bench.config import load_suites

    suite = load_suites(["everyday"])[0]
    assert [p.text for p in suite.prompts] == EVERYDAY_QUESTIONS


def test_the_prompt_sets_docstring_counts_its_families():
    """specviz.distill.prompts' docstring said five families; FAMILIES holds four (explain, create and list are
    templates of the general one, which shares one topic list)."""
    from specviz.distill import prompts

    doc = " ".join(prompts.__doc__.split())
    words = {3: "Three", 4: "Four", 5: "Five", 6: "Six"}
    assert f"{words[len(prompts.FAMILIES)]} families (`FAMILIES`: " in doc
    assert all(f" {name}" in doc for name in prompts.FAMILIES)


def test_the_decoder_docstring_says_when_it_drops_finished_rows():
    """It said finished rows leave the cache "as they end"; they leave once a quarter of the cache's rows have ended."""
    import inspect

    import specviz.distill.batched as batched

    assert inspect.signature(BatchedDecoder.generate).parameters["compact_share"].default == 0.25
    flat = " ".join(batched.__doc__.split())
    assert "once a quarter of the rows it holds have ended" in flat and "from the cache as they end" not in flat


def test_drafts_md_says_when_the_decoder_drops_rows_and_what_the_batch_can_change():
    """Read 47: docs/drafts.md said the decoder "drops finished rows as they end" (it drops them once a quarter of the
    cache's rows have ended) and that "an answer does not depend on the batch it lands in": its draws do not, but
    its logits can round differently in another batch (the module docstring), so a near-tie can go another way."""
    from pathlib import Path

    flat = " ".join((Path(__file__).resolve().parents[2] / "docs" / "drafts.md").read_text(encoding="utf-8").split())
    assert "drops finished rows as they end" not in flat
    assert "drops finished rows from it once a quarter of the rows it holds have ended" in flat
    assert "so an answer does not depend on the batch it lands in" not in flat
    assert "so the draws an answer gets do not depend on the batch it lands in; its logits can still round" in flat
