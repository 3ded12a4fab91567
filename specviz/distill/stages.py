"""The data step's stages: which prompts the target answers, in order; three are built from earlier answers.

    seed            the template x topic prompts (3,000 as before, plus the extra topics), each answered twice:
                    once greedy, once sampled
    question-lists  self-instruct: the target lists questions people ask about each general or extra training
                    topic (`prompts.training_topics`)
    questions       the questions it wrote, parsed from those lists (the question-lists stage) and answered
    follow-ups      a second user turn ("Can you give me an example?") after a seed or questions conversation
    rewrites        summaries, key points and rewrites of seed or questions answers the target wrote
    drills          arithmetic with random numbers, worked out in words

Every stage is seeded. No prompt is about a held-out topic: the seed stage draws from other topics, question-lists
asks about those, the questions stage drops a question that names one (`prompts.clear_of_held_out`) and the drills
name none; a follow-up or rewrite quotes an earlier answer unfiltered, which may mention one. The seed stage answers
each prompt both ways, greedy and at the sampled temperature; question-lists samples every list (all at that
temperature, none greedy); the other stages answer half their prompts greedily and half sampled. A stage's jobs
depend only on the seed and the earlier stages' records, so a resumed run rebuilds the same list and skips the chunks
already written.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from specviz.distill.data import GenerationPlan, Job, Record, load_records
from specviz.distill.prompts import (FOLLOW_UPS, REWRITE_OWN_TEMPLATES, Prompt, arithmetic_prompts,
                                     clear_of_held_out, extra_template_prompts, parse_questions, prompt_sets,
                                     question_list_prompts)

STAGES = ("seed", "question-lists", "questions", "follow-ups", "rewrites", "drills")


@dataclass
class DataScale:
    """How many prompts each stage draws, at most (a prompt that names a held-out topic is dropped, and questions,
    follow-ups and rewrites have only what the stages they read wrote); the seed stage answers each of its prompts
    twice. The defaults give about 4M response tokens at 192 new tokens."""

    train_prompts: int = 3000  # the template x topic prompts `prompt_sets` draws, as before
    extra_prompts: int = 3000  # template prompts over the extra topics
    question_lists: int = 2000
    questions: int = 10000
    follow_ups: int = 6000
    rewrites: int = 3000
    drills: int = 4000

    def scaled(self, factor: float) -> DataScale:
        """Every count times `factor` (at least 1): a small run of the same pipeline, for tests and trials."""
        return DataScale(**{k: max(1, round(v * factor)) for k, v in self.__dict__.items()})


def stage_folder(work: Path, stage: str) -> Path:
    return Path(work) / "train" / stage


def stage_jobs(stage: str, work: Path, tokenizer, eos: set[int], scale: DataScale, plan: GenerationPlan) -> list[Job]:
    """The jobs of `stage`, seeded by `plan.seed`; later stages read the earlier stages' records under `work`
    (`eos`: the ids that end a response, to tell a finished answer from a cut one)."""
    seed = plan.seed
    rng = random.Random(f"{seed}/{stage}")
    hot = plan.temperature
    if stage == "seed":
        train, _ = prompt_sets(scale.train_prompts, 64, seed)
        prompts = train + extra_template_prompts(scale.extra_prompts, seed)
        jobs = [Job(p, answer, 0.0 if answer == 0 else hot) for p in prompts for answer in (0, 1)]
    elif stage == "question-lists":
        prompts = question_list_prompts(seed)
        rng.shuffle(prompts)
        jobs = [Job(p, 0, hot) for p in prompts[: scale.question_lists]]
    elif stage == "questions":
        texts = []
        for record in _records(work, "question-lists"):
            texts += parse_questions(response_text(tokenizer, record))
        texts = list(dict.fromkeys(texts))
        rng.shuffle(texts)
        prompts = clear_of_held_out([Prompt(f"question-{i:05d}", "questions", t) for i, t in enumerate(texts)], seed)
        jobs = _alternate(prompts[: scale.questions], hot)
    elif stage == "follow-ups":
        earlier = [r for r in _records(work, "seed", "questions") if _complete(r, eos)]
        rng.shuffle(earlier)
        prompts = [Prompt(f"follow-{i:05d}", "follow-ups", rng.choice(FOLLOW_UPS),
                          turns=(r.text, response_text(tokenizer, r))) for i, r in enumerate(earlier[: scale.follow_ups])]
        jobs = _alternate(prompts, hot)
    elif stage == "rewrites":
        earlier = [r for r in _records(work, "seed", "questions")
                   if _complete(r, eos) and 30 <= len(r.tokens) - r.prompt_length <= 160]
        rng.shuffle(earlier)
        prompts = [Prompt(f"rewrite-own-{i:05d}", "rewrites",
                          rng.choice(REWRITE_OWN_TEMPLATES).format(t=response_text(tokenizer, r)))
                   for i, r in enumerate(earlier[: scale.rewrites])]
        jobs = _alternate(prompts, hot)
    elif stage == "drills":
        jobs = _alternate(arithmetic_prompts(scale.drills, seed), hot)
    else:
        raise ValueError(f"No data stage called {stage!r}; the stages are {', '.join(STAGES)}.")
    rng.shuffle(jobs)  # chunks mix the families, so that a partial run is a fair sample
    return jobs


def response_text(tokenizer, record: Record) -> str:
    """The response as text, without the end-of-sequence token."""
    return tokenizer.decode(record.tokens[record.prompt_length:].tolist(), skip_special_tokens=True).strip()


def _complete(record: Record, eos: set[int]) -> bool:
    """The response ended by itself (its last token ends a sequence), not at the length limit."""
    return len(record.tokens) > record.prompt_length and int(record.tokens[-1]) in eos


def _alternate(prompts: list[Prompt], hot: float) -> list[Job]:
    return [Job(p, 0, 0.0 if i % 2 == 0 else hot) for i, p in enumerate(prompts)]


def _records(work: Path, *stages: str) -> list[Record]:
    return load_records(*(stage_folder(work, s) for s in stages))
