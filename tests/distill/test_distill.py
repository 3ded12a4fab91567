"""The training pipeline (`python -m specviz.distill`), exercised end to end on the toy pair: prompt set, data
step, both objectives, the resumable loop, and saving / loading the drafts."""

import json
import math
import re

import pytest
import torch

from specviz.distill import cli
from specviz.distill.cards import data_summary
from specviz.distill.data import GenerationPlan, Job, answer_in_chunks, chunk_infos, generate_batch, load_records
from transformers import DynamicCache

from specviz.distill.draft import DraftLoss, DraftObjective
from specviz.distill.eagle import EagleLoss, EagleObjective
from specviz.distill.prompts import FAMILIES, Prompt, prompt_sets, split_topics
from specviz.distill.trainer import LoopSettings, make_batches, train_loop
from specviz.engine.proposers.eagle import EagleDrafter, causal_mask
from specviz.models.drafts import draft_from_target, draft_model, load_eagle, save_draft, save_eagle
from specviz.models.pairs import toy_pair


def toy_prompts(n):
    return [Prompt(f"p{i}", "toy", "abcab"[: 2 + i % 4] + " the cat") for i in range(n)]


def toy_jobs(n):
    return [Job(p, 0, 0.0 if i % 2 == 0 else 0.7) for i, p in enumerate(toy_prompts(n))]


@pytest.fixture(scope="module")
def toy_records(tmp_path_factory):
    pair = toy_pair()
    folder = tmp_path_factory.mktemp("data")
    answer_in_chunks(toy_jobs(24), folder, pair.target, pair.tokenizer, GenerationPlan(24, 8), {1}, 8, "toy")
    return pair, load_records(folder), folder


def test_prompt_sets_are_big_seeded_and_held_out_by_topic():
    train, held = prompt_sets(3000, 64, seed=0)
    assert len(train) == 3000 and len(held) == 64
    assert len({p.text for p in train}) == 3000
    assert prompt_sets(3000, 64, seed=0) == (train, held)
    assert not {p.topic for p in train} & {p.topic for p in held}
    for family, (_, topics, _) in FAMILIES.items():
        train_topics, held_topics = split_topics(topics, 0)
        assert set(train_topics) | set(held_topics) == set(topics) and not set(train_topics) & set(held_topics)
    assert {p.family for p in held} == set(FAMILIES)


def test_features_are_what_the_head_reads(toy_records):
    pair, records, _ = toy_records
    greedy = generate_batch(pair.target, pair.tokenizer, toy_prompts(4), GenerationPlan(12, 4), False, 0, {1})
    assert len(greedy) == 4  # a record per prompt
    for r in greedy:
        assert r.states.shape == (len(r.tokens) - 1, 4, pair.target.config.hidden_size)  # three inner layers + final
        logits = pair.target.lm_head(r.features.float())
        response = slice(r.prompt_length - 1, None)
        assert torch.equal(logits.argmax(-1)[response], r.tokens[r.prompt_length:])


def test_data_step_resumes_without_redoing_chunks(toy_records):
    pair, records, folder = toy_records
    assert len(records) == 24 and len(list(folder.glob("chunk-*"))) == 3
    assert [r.id for r in records] == [j.id for j in toy_jobs(24)]  # in job order, whatever the batches were
    before = {p: p.stat().st_mtime_ns for p in folder.glob("chunk-*/states.npy")}
    answer_in_chunks(toy_jobs(24), folder, pair.target, pair.tokenizer, GenerationPlan(24, 8), {1}, 8, "toy")
    assert {p: p.stat().st_mtime_ns for p in folder.glob("chunk-*/states.npy")} == before
    infos = chunk_infos(folder)
    assert [i["jobs"] for i in infos] == [8, 8, 8] and [i["sampled"] for i in infos] == [4, 4, 4]
    assert sum(i["new_tokens"] for i in infos) == sum(len(r.tokens) - r.prompt_length for r in records)
    # what specviz.distill.data's docstring lists for info.json: answers (jobs), not prompts
    assert set(infos[0]) - {"chunk"} == {"stage", "jobs", "sampled", "temperatures", "new_tokens", "max_new_tokens",
                                         "seconds", "dtype", "slots"}
    # Read 44: the chunks record the sampled answers' temperature (toy_jobs samples at 0.7), so a card says it
    assert [i["temperatures"] for i in infos] == [[0.7]] * 3


@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_eagle_objective_learns_and_the_loop_resumes(toy_records, tmp_path):
    pair, records, _ = toy_records
    torch.manual_seed(0)
    drafter = EagleDrafter(pair.target.config)
    drafter.init_from_target(pair.target)
    vocab = torch.arange(pair.target.config.vocab_size)
    objective = EagleObjective(drafter, pair.target.get_input_embeddings(), pair.target.lm_head.weight.detach(),
                               vocab, EagleLoss(kd_positions=64))
    batches = make_batches(records, 256, 0)
    first = objective.loss(batches[0].to("cpu"))["loss"].item()
    train_loop(drafter, batches, objective.loss, lambda: objective.accuracy(batches), LoopSettings(20, 3e-3, 5, 10),
               tmp_path, "test")
    state = torch.load(tmp_path / "checkpoint.pt")
    assert set(state) == {"model", "optimiser", "step", "minutes"}  # what the trainer's docstring lists
    torch.save({**state, "minutes": 100.0}, tmp_path / "checkpoint.pt")  # as if the first 20 steps took 100 minutes
    result = train_loop(drafter, batches, objective.loss, lambda: objective.accuracy(batches),
                        LoopSettings(40, 3e-3, 5, 10), tmp_path, "test")
    steps = [json.loads(line)["step"] for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert steps == [10, 20, 30, 40]  # the second call continued from step 20
    minutes = [json.loads(line)["minutes"] for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert min(minutes[2:]) >= 100  # and from the checkpoint's minutes: a resumed run's clock does not restart
    assert objective.loss(batches[0].to("cpu"))["loss"].item() < first
    assert 0 <= result["acc12"] <= result["acc1"] <= 1
    ranks = objective.first_guess_ranks(batches)  # `python -m specviz.distill rank`: top-k of the first guess
    assert ranks["top1"] == objective.accuracy(batches)["acc1"]  # top-1 is acc1, counted over the same positions
    assert ranks["top1"] <= ranks["top2"] <= ranks["top3"] <= ranks["top4"] <= 1 and ranks["top4"] > ranks["top1"]


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_draft_objective_trains_only_the_adapter_and_norm(toy_records, tmp_path):
    pair, records, _ = toy_records
    draft = draft_from_target(pair.target, shallow=1)
    trainable = {n for n, p in draft.named_parameters() if p.requires_grad}
    assert trainable == {n for n, _ in draft.named_parameters() if n.startswith("model.layers.1.")} | {"model.norm.weight"}
    head = pair.target.lm_head.weight.detach()
    objective = DraftObjective(draft, 1, head, torch.arange(len(head)), DraftLoss(kd_positions=64))
    batches = make_batches(records, 256, 0)
    first = objective.loss(batches[0].to("cpu"))["loss"].item()
    frozen = draft.model.layers[0].mlp.up_proj.weight.clone()
    train_loop(draft, batches, objective.loss, lambda: objective.accuracy(batches, head), LoopSettings(30, 3e-3, 5, 30),
               tmp_path, "test")
    assert objective.loss(batches[0].to("cpu"))["loss"].item() < first
    assert torch.equal(draft.model.layers[0].mlp.up_proj.weight, frozen)


def test_saved_drafts_load_back(toy, tmp_path, monkeypatch):
    monkeypatch.setenv("SPECVIZ_CACHE", str(tmp_path / "cache"))
    drafter = EagleDrafter(toy.target.config)
    drafter.init_from_target(toy.target)
    save_eagle(drafter, torch.tensor([3, 1, 2]), tmp_path, {"steps": 0})
    loaded, vocab = load_eagle(toy.target, tmp_path / "smollm2-eagle")
    assert vocab.tolist() == [3, 1, 2]
    x, e = torch.randn(1, 3, 32), torch.randn(1, 3, 32)
    pos = torch.arange(3)[None]
    assert torch.allclose(loaded(x, e, pos), drafter(x, e, pos), atol=1e-2)

    draft = draft_from_target(toy.target, shallow=1)
    save_draft(draft, 1, tmp_path, {"steps": 0})
    complete = draft_model(toy.target, toy.tokenizer, tmp_path / "smollm2-draft")
    ids = torch.tensor([[3, 4, 5, 6]])
    assert torch.allclose(complete(ids).logits, draft(ids).logits, atol=1e-2)

    with pytest.raises(ValueError, match="trained for a target with hidden size 32"):
        other = EagleDrafter(toy.target.config)
        save_eagle(other, torch.tensor([0]), tmp_path / "x", {})
        meta = json.loads((tmp_path / "x" / "smollm2-eagle" / "specviz.json").read_text())
        from specviz.models.drafts import check_target
        toy.target.config.hidden_size, before = 64, toy.target.config.hidden_size
        try:
            check_target(meta, toy.target, tmp_path)
        finally:
            toy.target.config.hidden_size = before


def test_rank_without_held_out_answers_says_so(tmp_path, capsys):
    assert cli.main(["rank", "--work", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith(f"error: No held-out answers in {tmp_path}: run `python -m specviz.distill data`")


def test_cli_without_data_says_so(tmp_path, capsys):
    assert cli.main(["eagle", "--work", str(tmp_path)]) == 2
    assert "run `python -m specviz.distill data` first" in capsys.readouterr().err


def test_unrolled_passes_attend_exactly_as_drafting_does(toy_records):
    """Pass p's row t equals draft step p at inference (true context up to where the draft began, then the
    drafter's own predictions along the chain), which is what the training-time test must imitate."""
    pair, records, _ = toy_records
    torch.manual_seed(0)
    drafter = EagleDrafter(pair.target.config).eval()  # random, so attention really mixes rows
    embed = pair.target.get_input_embeddings()
    objective = EagleObjective(drafter, embed, pair.target.lm_head.weight.detach(),
                               torch.arange(pair.target.config.vocab_size), EagleLoss(unroll=3, noise=0.0))
    record = max(records, key=lambda r: len(r.tokens))
    batch = make_batches([record], 10_000, 0)[0].to("cpu")
    with torch.no_grad():
        outputs, _, _ = objective.passes(batch, 0.0)
        feats, tokens = batch.features[0], batch.tokens[0]
        start = 4  # the draft begins after true row `start`
        cache = DynamicCache(config=drafter.config)
        rows = torch.arange(start + 1)[None]
        out = drafter(feats[None, : start + 1], embed(tokens[None, 1: start + 2]), rows,
                      causal_mask(start + 1, 0), cache)[:, -1:]
        assert torch.allclose(out[0, 0], outputs[0][0, start], atol=1e-5)
        for depth in (2, 3):
            t = start + depth - 1
            out = drafter(out, embed(tokens[None, t + 1: t + 2]), torch.tensor([[t]]), None, cache)
            assert torch.allclose(out[0, 0], outputs[depth - 1][0, t], atol=1e-5), depth


def test_the_eagle_card_shows_trees_the_dtype_and_the_drafter_it_replaced(tmp_path):
    """`python -m specviz.distill cards` on a recorded run: the bench's chain and tree rows, the dtype it ran in, and
    held-out accuracy next to the replaced drafter's (from specviz.json's `replaces`)."""
    from specviz.distill.cards import write_cards

    work, assets = tmp_path / "work", tmp_path / "assets"
    for stage, n in (("seed", 64), ("questions", 32)):
        (work / "train" / stage / "chunk-0000").mkdir(parents=True)
        (work / "train" / stage / "chunk-0000" / "info.json").write_text(json.dumps(
            {"stage": stage, "jobs": n, "new_tokens": 100 * n, "seconds": 30.0, "sampled": n // 2}))
    for run, acc in (("eagle", 0.40), ("eagle-ttt", 0.52)):
        (work / run).mkdir()
        (work / run / "log.jsonl").write_text(json.dumps({"step": 100, "epoch": 0.5, "minutes": 1.0, "acc1": acc}) + "\n")
    meta = {"eagle": {"steps": 200, "train_records": 6000, "training": {"acc1": 0.52}, "draft_vocab_size": 8192,
                      "vocab_coverage": 0.94, "replaces": {"steps": 200, "train_records": 3000, "training": {"acc1": 0.49}}},
            "draft": {"steps": 100, "train_records": 3000, "training": {"agreement": 0.5}, "shallow_layers": 3}}
    for name, m in zip(("smollm2-eagle", "smollm2-draft"), meta.values()):
        (assets / name).mkdir(parents=True)
        (assets / name / "specviz.json").write_text(json.dumps(m))
    row = {"suite": "all", "policy": "constant", "proposer": "eagle", "k": 4, "temperature": 0.0, "alpha": 0.5,
           "c": 0.07, "mat_with_bonus": 1.9, "per_position": [0.5, 0.2], "speedup_vs_ar": 1.3,
           "speedup_vs_hf_generate": 1.29, "tree_nodes": 0, "tree_width": None}
    bench = tmp_path / "bench.json"
    (work / "held-out" / "chunk-0000").mkdir(parents=True)
    (work / "held-out" / "chunk-0000" / "info.json").write_text(json.dumps(
        {"stage": "held-out", "jobs": 64, "new_tokens": 6400, "seconds": 0.0, "sampled": 0}))
    bench.write_text(json.dumps({"command": "python -m specviz bench ...", "machine": {"dtype": "bfloat16"},
                                 "config": {"suites": ["held-out"], "prompts_per_suite": 4, "max_new_tokens": 96},
                                 "costs": {"verify": [{"n_tokens": 5, "ratio": 1.1}]},
                                 "summary": [row, {**row, "tree_nodes": 16, "tree_width": 4, "mat_with_bonus": 2.4,
                                                   "speedup_vs_hf_generate": 1.45}]}))
    (assets / "smollm2-draft" / "README.md").write_text("the draft's card, trained elsewhere")
    written = write_cards(work, assets, {"eagle": bench, "draft": tmp_path / "none.json"})
    assert written == [assets / "smollm2-eagle" / "README.md"]  # no draft log in this work folder: its card is kept
    assert (assets / "smollm2-draft" / "README.md").read_text() == "the draft's card, trained elsewhere"
    eagle_card = written[0].read_text()
    # issue 43, 43rd read: "the first 8 of the 64 held-out prompts, 128 new tokens" was typed into the template;
    # the benchmark's own config says what it ran
    assert "Benchmark on the first 4 of the 64 held-out prompts, 96 new tokens, bfloat16 on both sides" in eagle_card
    assert "Stage 1 (100 steps" in eagle_card and "stage 2 (100 steps" in eagle_card
    assert "python -m specviz.distill eagle --steps 100 --ttt-steps 100\n" in eagle_card
    assert "| 0 | chain K=4 | 4 |" in eagle_card and "| 0 | tree 16×4 depth 4 | 4 |" in eagle_card  # shown()
    assert "1.45× at tree 16×4 depth 4 (met)" in eagle_card  # the best row, named with its tree
    assert "16x4" not in eagle_card  # read 54: the shape as a person reads it (×), not its identifier
    assert "| replaced drafter | 3000 | 200 | 0.490 |" in eagle_card and "| this drafter | 6000 | 200 | 0.520 |" in eagle_card
    # 30 s is 0.5 minutes: a tie, rounded half up as results.md rounds (read 54: Python's format wrote 0)
    assert "| seed | 64 | 6,400 | 32 | 1 |" in eagle_card and "| all | 96 | 9,600 | 48 | 1 |" in eagle_card
    # issue 43, 17th read: the card named the machine writing it, with torch and transformers versions hard-coded
    assert "2 minutes on a machine its specviz.json does not record." in " ".join(eagle_card.split())
    meta["eagle"]["machine"] = {"cpu": "AMD EPYC", "cores": 2, "gpu": None, "device": "cpu", "torch": "2.9.0+cpu",
                                "transformers": "4.57.1"}
    (assets / "smollm2-eagle" / "specviz.json").write_text(json.dumps(meta["eagle"]))
    eagle_card = write_cards(work, assets, {"eagle": bench, "draft": tmp_path / "none.json"})[0].read_text()
    assert "2 minutes on AMD EPYC (2 cores), torch 2.9.0+cpu, transformers 4.57.1." in " ".join(eagle_card.split())


def card_run(tmp_path, eagle_meta, draft_meta, info):
    """A work folder with one data chunk (`info` added to its info.json), an EAGLE and a draft training log, and the
    two drafts' specviz.json: what `write_cards` reads. Returns the two cards it writes."""
    from specviz.distill.cards import write_cards

    work, assets = tmp_path / "work", tmp_path / "assets"
    for folder, chunk in (("train/seed", {"stage": "seed", "jobs": 8, "sampled": 4, **info}),
                          ("held-out", {"stage": "held-out", "jobs": 4, "sampled": 0})):
        (work / folder / "chunk-0000").mkdir(parents=True)
        (work / folder / "chunk-0000" / "info.json").write_text(json.dumps({"new_tokens": 80, "seconds": 6.0,
                                                                            **chunk}))
    for run, metric in (("eagle", "acc1"), ("eagle-ttt", "acc1"), ("draft", "agreement")):
        (work / run).mkdir()
        (work / run / "log.jsonl").write_text(json.dumps({"step": 10, "epoch": 0.1, "minutes": 0.5, metric: 0.3}))
    for name, meta in (("smollm2-eagle", eagle_meta), ("smollm2-draft", draft_meta)):
        (assets / name).mkdir(parents=True)
        (assets / name / "specviz.json").write_text(json.dumps(meta))
    none = tmp_path / "none.json"
    return [" ".join(path.read_text().split()) for path in write_cards(work, assets, {"eagle": none, "draft": none})]


# the figures the cards' templates typed before Read 44, whatever the run's flags were
DEFAULT_FIGURES = ("1e-3", "0.5 ×", "512 random", "±0.1", "192 new", "sampled at T = 0.7")


def test_a_card_states_the_runs_own_training_settings_never_the_defaults(tmp_path):
    """Read 44: the cards typed the training settings as fixed text (peak learning rates 1e-3 and 5e-4, "0.5 ×" the
    cross-entropy, "512 random positions", noise "±0.1", "up to 192 new tokens", "T = 0.7"), so a run with other
    --lr, --kd-weight, --kd-positions, --batch-positions or --max-new-tokens got a card stating the defaults. Each
    now comes from the run's record (specviz.json, the data step's chunks), and one it does not record is said to
    be not recorded."""
    eagle = {"kind": "eagle", "steps": 20, "train_records": 8, "training": {"acc1": 0.3}, "draft_vocab_size": 64,
             "vocab_coverage": 0.9, "lr": 0.0005, "batch_positions": 1024, "kd_weight": 0.3, "kd_positions": 256,
             "noise": 0.2}
    draft = {"steps": 10, "train_records": 8, "training": {"agreement": 0.3}, "shallow_layers": 3, "lr": 0.002,
             "batch_positions": 512, "kd_weight": 2.0, "kd_positions": 128}
    eagle_card, draft_card = card_run(tmp_path, eagle, draft, {"max_new_tokens": 96, "temperatures": [0.9]})
    assert "Stage 1 (10 steps, peak learning rate 0.0005)" in eagle_card
    assert "at half that peak learning rate" in eagle_card and "5e-4" not in eagle_card
    assert "plus 0.3 × the cross-entropy to its next-token distribution (draft vocabulary, 256 random positions " \
           "per batch); uniform noise ±0.2 on the input features." in eagle_card
    assert "Training: 20 steps of at most 1,024 padded positions, AdamW" in eagle_card
    assert "python -m specviz.distill eagle --steps 10 --ttt-steps 10 --batch-positions 1024 --lr 0.0005 " \
           "--kd-weight 0.3 --kd-positions 256\n" in eagle_card.replace(" python -m specviz.distill cards", "\n")
    assert "Peak learning rate 0.002. Losses:" in draft_card and "plus 2 × the cross-entropy" in draft_card
    assert "(draft vocabulary, 128 random positions per batch)" in draft_card
    for card in (eagle_card, draft_card):
        assert "in bfloat16, up to 96 new tokens, about half of the answers sampled at T = 0.9 and" in card
        assert "| stage | answers | response tokens | sampled at T = 0.9 | minutes |" in card
        assert not any(default in card for default in DEFAULT_FIGURES)
    # weights whose specviz.json (or data chunks) do not record a setting: the card says so, and names no default
    bare = {k: v for k, v in eagle.items() if k not in ("lr", "batch_positions", "kd_weight", "kd_positions", "noise")}
    eagle_card, draft_card = card_run(tmp_path / "bare", bare, {**draft, "lr": None, "kd_positions": None}, {})
    assert "Stage 1 (10 steps, peak learning rate not recorded in its specviz.json)" in eagle_card
    assert "plus the cross-entropy (its weight not recorded in its specviz.json) to its next-token distribution " \
           "(draft vocabulary, random positions (how many not recorded in its specviz.json) per batch); uniform " \
           "noise (its size not recorded in its specviz.json) on the input features." in eagle_card
    assert "20 steps of padded positions (how many not recorded in its specviz.json), AdamW" in eagle_card
    assert "Peak learning rate not recorded in its specviz.json." in draft_card
    for card in (eagle_card, draft_card):
        assert "up to a number of new tokens its data step did not record, about half of the answers sampled at a " \
               "temperature its data step did not record and" in card
        assert "| stage | answers | response tokens | sampled | minutes |" in card
        assert not any(default in card for default in DEFAULT_FIGURES)


def test_a_card_reads_an_older_chunks_temperature_from_its_records(tmp_path):
    """Read 44: a chunk written before info.json recorded the sampled answers' temperatures made its card say they
    were sampled at "a temperature its data step did not record", though its records.jsonl holds every answer's
    temperature. The card now reads them there; only a chunk with neither says it is not recorded."""
    from specviz.distill.cards import data_summary, sampled_at

    chunk = tmp_path / "train" / "seed" / "chunk-0000"
    chunk.mkdir(parents=True)
    (chunk / "info.json").write_text(json.dumps({"stage": "seed", "jobs": 3, "sampled": 2, "new_tokens": 9,
                                                 "seconds": 1.0, "max_new_tokens": 64}))
    (chunk / "records.jsonl").write_text("\n".join(json.dumps({"id": i, "temperature": t})
                                                   for i, t in enumerate((0.0, 0.8, 0.8))))
    assert sampled_at(data_summary(tmp_path)) == "T = 0.8"
    (chunk / "records.jsonl").unlink()
    assert sampled_at(data_summary(tmp_path)) == "a temperature its data step did not record"


def test_the_shipped_cards_training_figures_are_their_specviz_jsons():
    """Read 44: the shipped cards cannot be written again here (`write_cards` reads the training logs and data chunks
    of a work folder that is not committed), so the figures they state are checked against the specviz.json beside
    them: the EAGLE-3 card's peak learning rate, batch positions and drafting depth, the Medusa card's learning rate
    and batch positions, each as the card code writes it from that file. The draft's specviz.json predates these
    settings: Read 45 found its card stating "512 random positions per batch" and "about 2,048 padded positions" with
    no source. They were the defaults of commit 35ce4c2, which its card says made it with a command that names
    neither; the card now states each as the card code writes it (`MADE_AT_DEFAULTS`), saying it is that code's
    default and not recorded in its specviz.json."""
    from specviz.core.paths import ASSETS
    from specviz.distill.cards import STAGES, training_settings

    def shipped(name):
        folder = ASSETS / "models" / name
        return (" ".join((folder / "README.md").read_text(encoding="utf-8").split()),
                json.loads((folder / "specviz.json").read_text(encoding="utf-8")))

    card, meta = shipped("smollm2-eagle")
    settings = training_settings(meta)
    assert meta["kind"] == "eagle3" and settings["lr"] == f"{meta['lr']:g}"
    assert STAGES["eagle3"].format(**{**meta, **settings}) in card
    # read 45: counts with the thousands separator the Medusa card (its own generator) already wrote
    assert f"Training: {meta['steps']:,} steps of at most {meta['batch_positions']:,} padded positions, AdamW" in card
    card, meta = shipped("smollm2-medusa")
    assert (f"Training: {meta['steps']} steps of at most {meta['batch_positions']:,} padded positions, AdamW (peak "
            f"learning rate {meta['lr']:g}, warm-up") in card
    card, meta = shipped("smollm2-draft")
    settings = training_settings(meta)
    assert "kd_positions" not in meta and "batch_positions" not in meta and "lr" not in meta
    assert STAGES["draft"].format(**{**meta, **settings}) in card
    assert f"Training: {meta['steps']:,} steps of {settings['batch']}, AdamW" in card
    assert f"with the code of commit `{meta['made_at']['commit'][:12]}`" in card  # what "that code" names
    sourced = "(that code's default; not recorded in its specviz.json)"
    assert f"512 random positions {sourced} per batch" in card and f"at most 2,048 padded positions {sourced}" in card
    assert card.count("512") == 1 and "about 2,048" not in card  # no figure left without its source
    # the defaults are that commit's only: a specviz.json that records a setting, or another commit, gets none
    assert training_settings({**meta, "kd_positions": 64})["positions"] == "64 random positions"
    other = training_settings({**meta, "made_at": {**meta["made_at"], "commit": "0" * 40}})
    assert other["positions"] == "random positions (how many not recorded in its specviz.json)"


def test_a_shipped_card_names_only_the_training_machine_its_specviz_json_records():
    """Issue 43, 17th read: the cards' training line came from the machine that wrote the card plus hard-coded
    versions ("x86_64, 2 CPU cores, no GPU, torch 2.13.0+cpu, transformers 5.24.0"), recorded in no file; the
    training machine is now kept in specviz.json (`distill.cli.training_machine`) and the card reads it there."""
    from specviz.core.paths import ASSETS
    from specviz.distill.cards import trained_on

    cards = sorted((ASSETS / "models").glob("*/README.md"))
    assert len(cards) == 3
    for card in cards:
        meta = json.loads((card.parent / "specviz.json").read_text(encoding="utf-8"))
        assert f"minutes on {trained_on(meta)}." in " ".join(card.read_text(encoding="utf-8").split()), card
    assert "2 CPU cores" not in (ASSETS.parent / "specviz" / "distill" / "cards.py").read_text(encoding="utf-8")
    assert "cpu_count" not in (ASSETS.parent / "specviz" / "distill" / "medusa_card.py").read_text(encoding="utf-8")


def test_training_records_the_machine_that_trained_the_draft():
    record = cli.training_machine(torch.device("cpu"))
    assert record["cores"] >= 1 and record["gpu"] is None and record["torch"] == torch.__version__


def test_a_retrained_drafter_remembers_the_one_it_replaces(tmp_path):
    assert cli.replacing(tmp_path / "smollm2-eagle") == {}  # a first training replaces nothing
    (tmp_path / "smollm2-eagle").mkdir()
    (tmp_path / "smollm2-eagle" / "specviz.json").write_text(json.dumps(
        {"kind": "eagle", "steps": 1900, "train_records": 3000, "training": {"acc1": 0.49},
         "replaces": {"steps": 10, "train_records": 1, "training": {}}}))
    assert cli.replacing(tmp_path / "smollm2-eagle") == {
        "replaces": {"kind": "eagle", "training": {"acc1": 0.49}, "steps": 1900, "train_records": 3000}}  # one generation back only


def test_the_card_marks_a_tree_rows_alpha_as_not_alpha():
    """Issue 43, ninth read: a model card's bench table wrote a tree row's "alpha" under α like a chain's (the
    committed EAGLE card: 0.725 for the 16 × 4 tree next to the chain's 0.534), though it is the mean min(1, p′/q′)
    along each step's main line (labs/bench/summary.py DEFINITIONS["alpha"])."""
    from specviz.core.paths import BENCHMARKS_DIR
    from specviz.distill.cards import bench_table

    data = json.loads((BENCHMARKS_DIR / "default-cpu-bf16-tree" / "results.json").read_text(encoding="utf-8"))
    rows = [r for r in data["summary"] if r["suite"] == "all"]
    lines = bench_table(rows).splitlines()
    trees, chains = [x for x in lines if "| tree 16×4 depth 4" in x], [x for x in lines if "| chain K=4 |" in x]
    assert len(trees) == 2 and len(chains) == 2
    assert all(x.split(" | ")[3].endswith("†") for x in trees)
    assert not any(x.split(" | ")[3].endswith("†") for x in chains)
    # the note under the table (then, since Read 49, what its greedy identity column means)
    assert lines[lines.index("") + 1].startswith("† A tree row's value in the α estimate column is the mean "
                                                 "min(1, p′/q′)")


def test_every_card_says_which_steps_a_per_position_entry_counts():
    """Issue 43, 18th read: the cards' note said entry i "is the share of steps whose first i drafts were all kept",
    of every step; its denominator is the steps that drafted at least i tokens (Trace.per_position_acceptance), as
    results.md and the Medusa card say."""
    from specviz.core.paths import ASSETS
    from specviz.distill.cards import CARD
    from specviz.distill.medusa_card import bench_section

    texts = {"template": CARD, **{p.parent.name: p.read_text(encoding="utf-8")
                                  for p in sorted((ASSETS / "models").glob("*/README.md"))}}
    assert len(texts) == 4
    for name, text in texts.items():
        flat = " ".join(text.split())
        assert "is the share of steps whose" not in flat, name
        assert "of the steps that drafted at least i tokens" in flat and "first i drafts were all kept" in flat, name
    section = bench_section(ASSETS / "benchmarks" / "default-cpu-f32-medusa" / "results.json")
    assert "of the steps that drafted at least i tokens (a tree" in section
    assert section in texts["smollm2-medusa"]  # the committed card shows the committed run as the code writes it


def test_the_medusa_cards_bench_section_says_the_clock_and_threads_its_run_had(tmp_path):
    """Issue 43, 43rd read: the Medusa card's benchmark note typed "the speeds are CPU time of one thread", true of
    the committed run (--clock cpu --threads 1) and of no rerun with the default wall clock."""
    from specviz.core.paths import ASSETS
    from specviz.distill.medusa_card import bench_section

    committed = bench_section(ASSETS / "benchmarks" / "default-cpu-f32-medusa" / "results.json")
    run = json.loads((ASSETS / "benchmarks" / "default-cpu-f32-medusa" / "results.json").read_text(encoding="utf-8"))
    assert (run["config"]["clock"], run["machine"]["torch_threads"]) == ("cpu", 1)  # the committed run, as it is
    # read 49: the line above the table named "(float32, AMD EPYC)" only; the clock, the torch threads and the
    # machine as every page words it now stand with the figures (the note under it said "CPU time of one thread")
    assert ("--out assets/benchmarks/default-cpu-f32-medusa` (float32, AMD EPYC (2 cores, oneDNN packed-weight "
            "kernels); speeds timed by this process's CPU time (time.process_time) with 1 torch thread):") in committed
    run["config"]["clock"], run["machine"]["torch_threads"] = "wall", 2
    (tmp_path / "results.json").write_text(json.dumps(run), encoding="utf-8")
    rerun = bench_section(tmp_path / "results.json")
    assert "speeds timed by wall time with 2 torch threads" in rerun and "CPU time" not in rerun


def test_the_medusa_card_names_its_shapes_as_every_table_does():
    """Issue 45 item 1: one label per draft shape. The Medusa card wrote "chain K = 4" and "tree 16 × 4, depth 4"
    beside DraftShape.label()'s "chain K=4" and "tree 16x4 depth 4" in the bench rows and scripts. Read 54: a person
    reads the shape as `shown()` writes it, "tree 16×4 depth 4" (× never ASCII x)."""
    from specviz.core.paths import ASSETS
    from specviz.distill.medusa_card import bench_section

    rows = [line.split(" | ")[1] for line in bench_section(
        ASSETS / "benchmarks" / "default-cpu-f32-medusa" / "results.json").splitlines() if line.startswith("| medusa")]
    assert rows and set(rows) == {"chain K=2", "chain K=4", "tree 16×4 depth 4"}


def test_the_steps_help_gives_each_steps_own_default_and_the_ttt_default_on_its_flag():
    """`--steps 0` means the step's default; the help listed "eagle-ttt 400" among them, a value --steps never
    takes (EAGLE's second stage is --ttt-steps, whose help gave no default)."""
    from specviz.distill.trainer import DEFAULT_STEPS

    actions = {a.dest: a for a in cli.parser()._actions}
    assert "eagle-ttt" not in actions["steps"].help
    assert f"eagle {DEFAULT_STEPS['eagle']}" in actions["steps"].help
    assert f"default {DEFAULT_STEPS['eagle-ttt']}" in actions["ttt_steps"].help
    assert actions["ttt_steps"].default == DEFAULT_STEPS["eagle-ttt"]


def test_the_ttt_steps_help_names_the_one_step_that_reads_it():
    """Issue 43, 43rd read: --ttt-steps said "EAGLE stage 2 steps", which a reader of the shipped EAGLE-3 drafter
    takes for its own; only `eagle` (EAGLE-1) has a second stage, and `eagle3` never reads the flag."""
    import inspect

    help_text = {a.dest: a for a in cli.parser()._actions}["ttt_steps"].help
    assert help_text.startswith("eagle: ") and "eagle3 trains in one stage" in help_text
    assert "ttt_steps" in inspect.getsource(cli.run_eagle) and "ttt_steps" not in inspect.getsource(cli.run_eagle3)


def test_the_lr_help_says_eagles_second_stage_runs_at_half_of_it():
    """Read 32: `--lr`'s help called it the peak learning rate of every step, but `run_eagle` trains its second stage
    (--ttt-steps) at `args.lr / 2`; and the cosine decay ends at a tenth of the peak (`trainer.learning_rate`)."""
    import inspect

    from specviz.distill.trainer import LoopSettings, learning_rate

    help_text = {a.dest: a for a in cli.parser()._actions}["lr"].help
    assert "lr=args.lr / 2" in inspect.getsource(cli.run_eagle)
    assert "second stage (--ttt-steps) peaks at half of it" in help_text
    settings = LoopSettings(steps=100, lr=1.0, warmup=10)
    assert learning_rate(9, settings) == 1.0 and math.isclose(learning_rate(100, settings), 0.1)
    assert "cosine decay to a tenth of it" in help_text


def test_the_against_help_says_what_leaving_it_out_ranks():
    """Read 47: `--against`'s help said what it adds ("to rank next to the shipped one") but not what `rank` does
    without it: `run_rank` then ranks the shipped drafter (--assets) alone, which the help now says."""
    import inspect

    source = inspect.getsource(cli.run_rank)
    assert "[args.assets / EAGLE_NAME, *([args.against] if args.against else [])]" in source  # the shipped one alone
    help_text = " ".join(cli.parser().format_help().split())
    assert "shipped one in --assets (default: none, and rank ranks the shipped drafter alone)" in help_text
    assert "(default: None)" not in help_text


def test_train_stages_help_names_every_step_that_reads_it():
    """--train-stages said "eagle/draft"; `training_setup` reads it for eagle3 and medusa too."""
    help_text = {a.dest: a for a in cli.parser()._actions}["train_stages"].help
    assert all(step in help_text for step in ("eagle3", "eagle", "draft", "medusa"))


def test_the_draft_cards_best_speed_says_it_is_the_best_constant_k():
    """Issue 43, 18th read: the draft's card read "0.69× over `model.generate` at best (K = 3, greedy)", but its rows
    are the constant-K ones (`bench_rows`): the same committed run's confidence-stop policy reached 0.81×. The line
    now says which rows it is the best of; the shipped card quotes it from the committed benchmark."""
    from specviz.core.paths import ASSETS
    from specviz.distill.cards import BENCH, bench_rows, read_bench, target_lines

    meta = json.loads((ASSETS / "models" / "smollm2-draft" / "specviz.json").read_text(encoding="utf-8"))
    speed = target_lines("draft", meta, bench_rows("draft", BENCH))[1]
    assert "at best with a constant K (K = 3, greedy)" in speed
    card = " ".join((ASSETS / "models" / "smollm2-draft" / "README.md").read_text(encoding="utf-8").split())
    assert speed in card
    others = [r["speedup_vs_hf_generate"] for r in read_bench(BENCH)["summary"] if r["proposer"] == "draft"
              and r["suite"] == "all" and r["temperature"] == 0.0 and r["policy"] != "constant"]
    assert others and max(others) > float(speed.split("× over")[0].split()[-1])  # why the qualifier is needed


def test_the_data_step_docs_count_sampled_answers_and_extra_topics_from_their_sources():
    """Issue 43, 18th read: docs/drafts.md and the EAGLE card said half the answers were greedy and half sampled
    (the card's own table: 17,739 of 33,539 sampled, every question list), and drafts.md put the seed stage's 2,937
    extra prompts "over 388 new topics" (400 of them are code prompts over 40 new code topics)."""
    from collections import Counter

    from specviz.core.paths import ASSETS
    from specviz.distill.cards import DATA
    from specviz.distill.prompts import EXTRA_TOPICS, extra_template_prompts
    from specviz.distill.stages import DataScale

    drafts = " ".join((ASSETS.parent / "docs" / "drafts.md").read_text(encoding="utf-8").split())
    card = " ".join((ASSETS / "models" / "smollm2-eagle" / "README.md").read_text(encoding="utf-8").split())
    answers, _, sampled = (int(x.replace(",", "")) for x in card.split(" | all | ")[1].split(" | ")[:3])
    assert f"{sampled:,} of {answers:,} sampled" in drafts and "half the answers greedy" not in drafts
    data = " ".join(DATA.split("{stage_table}")[0].split())  # the Data section of the template (cards.DATA)
    # the data step's token limit and temperature are the run's own (Read 44): every other word is the template's
    pieces = re.split(r"\{token_limit\}|\{sampled_at\}", data)
    assert len(pieces) == 3 and all(piece in card for piece in pieces) and "about half of the answers sampled" in data
    extra = extra_template_prompts(DataScale().extra_prompts)
    kinds = Counter(p.family for p in extra)
    topics = {f: len({p.topic for p in extra if p.family == f}) for f in kinds}
    assert (f"{len(extra):,} more over new topics ({kinds['general']:,} general ones over {topics['general']} of "
            f"{len(EXTRA_TOPICS)} new topics, {kinds['code']} code ones over {topics['code']} new code topics)"
            ) in drafts


def test_a_shipped_cards_bench_command_reruns_the_run_with_its_kernels_and_dtype():
    """Issue 43, 19th read: the EAGLE and draft cards quoted their benchmark's recorded command, which named neither
    kernels nor dtype: those runs had PyTorch's stock kernels and their CPU's default dtype (float32 on the AMD EPYC,
    bfloat16 on the Intel Xeon), while a run today packs the weights and, on a CPU with bfloat16, defaults to it. The
    card now quotes the command with both, and says so."""
    from specviz.core.paths import ASSETS
    from specviz.distill.cards import BENCHES, bench_command, bench_dtype, bench_rerun_note

    for kind, folder in (("eagle", "smollm2-eagle"), ("draft", "smollm2-draft")):
        card = (ASSETS / "models" / folder / "README.md").read_text(encoding="utf-8")
        command = bench_command(BENCHES[kind])
        assert command.startswith("SPECVIZ_KERNELS=stock ") and f"--dtype {bench_dtype(BENCHES[kind])}" in command
        quoted = next(line for line in card.splitlines() if line.startswith("SPECVIZ_KERNELS=stock python -m"))
        # read 42: the EAGLE card's quoted `--out` (its committed folder) was not the generator's (the recorded
        # /tmp/tb1): the generator now writes the committed folder and the card says so; card and generator agree
        assert quoted == command, kind
        assert command.endswith(f"--out assets/benchmarks/{BENCHES[kind].parent.name}"), kind
        # read 34: "(no longer the defaults)" was wrong for the EAGLE card's bfloat16, still the Intel Xeon's default
        assert f"{bench_rerun_note(BENCHES[kind])}:" in card and "no longer the defaults" not in card, kind
        assert "with the dtype and kernels it ran named" in bench_rerun_note(BENCHES[kind]), kind


def test_a_card_reads_its_benchmark_once_per_version(tmp_path):
    """Final review: bench_rerun_note read the benchmark file, then bench_command read it again, as did each of the
    card's other questions. read_bench reads a file once until it changes, so a rewritten file is read anew."""
    from specviz.distill.cards import BENCH, bench_command, bench_rerun_note, read_bench

    assert read_bench(BENCH) is read_bench(BENCH)
    data = json.loads(BENCH.read_text(encoding="utf-8"))
    bench = tmp_path / "results.json"
    bench.write_text(json.dumps(data))
    assert bench_rerun_note(bench) != ""  # the committed run: stock kernels, no --dtype
    data["command"] += " --dtype float32"
    data["machine"]["kernels"] = "onednn-packed"
    bench.write_text(json.dumps(data))
    assert bench_command(bench) == data["command"] and bench_rerun_note(bench) == ""


def test_the_draft_card_says_which_commits_code_made_its_data():
    """Issue 43, 20th read: the draft's card (and the template) gave `distill data` and `distill draft` as the commands
    that made its weights; today's data step runs six stages (33,539 answers up to 192 new tokens on the EAGLE-3
    card), not the 3,000 prompts up to 128 tokens of commit 35ce4c2, whose code made this draft. specviz.json's
    `made_at` records that commit and the card says it, through `cards.made_at`."""
    from specviz.core.paths import ASSETS
    from specviz.distill.cards import CARD, made_at
    from specviz.distill.data import GenerationPlan

    assert "{made_at}" in CARD
    meta = json.loads((ASSETS / "models" / "smollm2-draft" / "specviz.json").read_text(encoding="utf-8"))
    note = made_at(meta)
    assert f"up to {meta['made_at']['max_new_tokens']} new tokens" in note and "checkout of `35ce4c2baa51`" in note
    card = " ".join((ASSETS / "models" / "smollm2-draft" / "README.md").read_text(encoding="utf-8").split())
    assert " ".join(note.split()) in card and "shared by both drafts" not in card
    assert cli.parser().get_default("max_new_tokens") == GenerationPlan.max_new_tokens  # the "today's" limit it quotes
    eagle = json.loads((ASSETS / "models" / "smollm2-eagle" / "specviz.json").read_text(encoding="utf-8"))
    assert made_at(eagle) == ""  # made by today's steps


def test_the_cards_and_drafts_md_do_not_say_every_data_prompt_avoids_held_out_topics():
    """Issue 43, 20th read: the EAGLE card (and its template) said of the data step's stages "none touches a held-out
    topic", and drafts.md that "every stage drops a prompt that names one"; the follow-up and rewrite stages quote
    earlier answers unfiltered (`stages.stage_jobs`: no `clear_of_held_out` there), and 203 of their 9,000 prompts
    mention a held-out topic (drafts.md)."""
    import inspect

    from specviz.core.paths import ASSETS
    from specviz.distill import stages
    from specviz.distill.cards import DATA

    source = inspect.getsource(stages.stage_jobs)
    follow_ups = source.split('elif stage == "follow-ups":')[1].split('elif stage == "drills"')[0]
    assert "clear_of_held_out" not in follow_ups  # why the sentence needs its exception
    card = (ASSETS / "models" / "smollm2-eagle" / "README.md").read_text(encoding="utf-8")
    for text in (DATA, card):  # cards.DATA: the template's Data section
        flat = " ".join(text.split())
        assert "none touches a held-out topic" not in flat
        assert "no prompt is about a held-out topic, though a few seed prompts name one in passing" in flat
        assert "and a follow-up or rewrite quotes an earlier answer, which may mention one" in flat
    drafts = " ".join((ASSETS.parent / "docs" / "drafts.md").read_text(encoding="utf-8").split())
    assert "every stage drops a prompt that names one" not in drafts
    docstring = " ".join((stages.__doc__ or "").split())  # the module said every stage "keeps clear" of them
    assert "keeps clear of the held-out topics" not in docstring and "quotes an earlier answer unfiltered" in docstring


def test_the_held_out_suite_does_not_say_the_shipped_drafts_never_saw_its_topics(tmp_path):
    """Issue 43, 21st read: the held-out suite's header and description (written by `distill data`), the prompts
    README, the EAGLE card and its template said the trained drafts "never saw" these prompts' topics, or that the
    topics "never enter training", and a comment in prompts.py that `held_out_pattern` keeps "every training prompt
    of every stage" clear of them. The shipped EAGLE-3 drafter trained on every stage (its specviz.json counts the
    data step's answers), and the follow-up and rewrite stages quote earlier answers unfiltered (drafts.md: 203 of
    their 9,000 prompts mention a held-out topic). What holds: no training prompt is about one."""
    import inspect

    import yaml

    from specviz.core.paths import ASSETS
    from specviz.distill import prompts
    from specviz.distill.cards import CARD

    eagle = json.loads((ASSETS / "models" / "smollm2-eagle" / "specviz.json").read_text(encoding="utf-8"))
    card = (ASSETS / "models" / "smollm2-eagle" / "README.md").read_text(encoding="utf-8")
    assert f"| all | {eagle['train_records']:,} |" in card  # the drafter trained on every stage's answers
    committed = ASSETS / "prompts" / "held-out.yaml"
    cli.write_suite(prompts.held_out_suite([]), tmp_path / "held-out.yaml")
    written = (tmp_path / "held-out.yaml").read_text(encoding="utf-8")
    assert written.splitlines()[0] == committed.read_text(encoding="utf-8").splitlines()[0]
    assert yaml.safe_load(written)["description"] == yaml.safe_load(committed.read_text())["description"]
    for text in (written, (ASSETS / "prompts" / "README.md").read_text(encoding="utf-8"), card, CARD,
                 inspect.getsource(prompts)):
        flat = " ".join(text.split())
        assert "never saw" not in flat and "never enter training" not in flat
        assert "keeps every training prompt of every stage" not in flat
    assert "no prompt the trained drafts learned from is about" in written
    train, _ = prompts.prompt_sets(3000, 64, 0)  # the seed stage's template prompts, split from the held-out by topic
    pattern = prompts.held_out_pattern(prompts.held_out_topics(0))
    assert 0 < sum(bool(pattern.search(p.text)) for p in train) < 0.01 * len(train)  # "a few still name one"
    assert "a few still name one in passing" in " ".join(inspect.getsource(prompts).split())


def test_the_eagle_card_does_not_say_its_bfloat16_benchmark_meets_the_target_as_the_float32_answers():
    """Issue 43, 21st read: the cards said the held-out answers came from "the float32 target, exactly as the
    benchmark meets it"; the EAGLE card's own benchmark (cards.BENCHES, default-cpu-bf16-tree) ran bfloat16 on both
    sides. The template now names the dtype its benchmark ran in."""
    from specviz.core.paths import ASSETS
    from specviz.distill.cards import BENCHES, CARD, DATA, DATA_MADE_AT, bench_dtype, data_section

    dtype = bench_dtype(BENCHES["eagle"])
    card = " ".join((ASSETS / "models" / "smollm2-eagle" / "README.md").read_text(encoding="utf-8").split())
    assert dtype == "bfloat16" and f"{dtype} on both sides" in card
    assert f"as a float32 benchmark meets it (the one below ran in {dtype})" in card
    template = " ".join((CARD + DATA + DATA_MADE_AT).split())
    assert "{as_bench}" in DATA and "{as_bench}" in DATA_MADE_AT  # the Data sections say it as data_section words it
    for section in (data_section({"stages": {}, "answers": 0, "new_tokens": 0, "minutes": 0, "held_out_prompts": 64,
                                  "sampled": 0}, {}, dtype), data_section({
            "prompts": 1, "new_tokens": 1, "minutes": 1, "held_out_prompts": 64, "shards": 1, "sampled_shards": 0},
            {"made_at": {"commit": "35ce4c2baa51c1e36a0717b51a01ef0386469d59", "max_new_tokens": 128}}, dtype)):
        assert f"as a float32 benchmark meets it (the one below ran in {dtype})" in " ".join(section.split())
    assert "exactly as the benchmark meets it" not in template + card
    assert "what a float32 benchmark meets" in " ".join((cli.run_data.__doc__ or "").split())


def test_the_cards_call_the_alpha_column_an_estimate_not_leviathans_definition():
    """Issue 43, 21st read: the cards said "α is Leviathan et al.'s mean min(1, p/q) over the drafts the target
    tested"; Leviathan et al.'s α is the acceptance probability E[Σ min(p, q)], which that mean estimates
    (`Trace.mean_accept_prob`), and one name may not stand for both."""
    from specviz.core.paths import ASSETS
    from specviz.distill.cards import CARD

    texts = [CARD, *((ASSETS / "models" / name / "README.md").read_text(encoding="utf-8")
                     for name in ("smollm2-eagle", "smollm2-draft"))]
    assert len(texts) == 3
    for text in texts:
        flat = " ".join(text.split())
        assert "α is Leviathan et al.'s mean" not in flat
        assert "estimates Leviathan et al.'s acceptance probability α = E[Σ min(p, q)]" in flat


def test_the_data_modules_size_example_is_the_shipped_drafters_positions():
    """Issue 43, 21st read: distill/data.py sized the states as "4M tokens x 4 states x 576 x 2 bytes is about
    18 GB"; 4M is the data step's response tokens, but states are kept at every position, prompts included: the
    shipped EAGLE-3 drafter trained on the positions its specviz.json counts, about 30 GB of bfloat16 states."""
    from specviz.core.paths import ASSETS
    from specviz.distill import data

    meta = json.loads((ASSETS / "models" / "smollm2-eagle" / "specviz.json").read_text(encoding="utf-8"))
    doc = " ".join((data.__doc__ or "").split())
    assert f"{meta['train_positions']:,} positions" in doc and "about 18 GB" not in doc
    size = meta["train_positions"] * len(meta["aux_layers"] + [-1]) * meta["hidden_size"] * 2
    assert round(size / 1e9, -1) == 30 and "are about 30 GB" in doc


def test_the_question_parser_keeps_the_lengths_its_docstring_names():
    """Issue 43, 22nd read: `prompts.parse_questions` said it keeps questions of "5 to 30 words"; the code keeps 3
    to 30 (its own doctest keeps the 4-word "What do sharks eat?")."""
    from specviz.distill.prompts import parse_questions

    doc = " ".join((parse_questions.__doc__ or "").split())
    assert "3 to 30 words each" in doc and "5 to 30" not in doc

    def kept(words: int) -> bool:
        return bool(parse_questions("1. " + " ".join(["Why"] + ["so"] * (words - 1)) + "?"))

    assert [kept(n) for n in (2, 3, 30, 31)] == [False, True, True, False]


def test_the_cards_say_the_output_is_the_targets_in_exact_arithmetic():
    """Issue 43, 22nd read: the EAGLE card and its templates said "the output distribution stays exactly the
    target's", with no qualifier, next to a bfloat16 benchmark; the engine's proposers say it holds in exact
    arithmetic (`specviz.engine.numerics` for floating point), and the cards now say so too."""
    from specviz.core.paths import ASSETS
    from specviz.distill.cards import WHAT

    card = " ".join((ASSETS / "models" / "smollm2-eagle" / "README.md").read_text(encoding="utf-8").split())
    texts = [WHAT["eagle3"], WHAT["eagle"], card]
    assert len(texts) == 3
    for text in texts:
        assert "exactly the target's in exact arithmetic (`specviz.engine.numerics` for floating point)" in text


def test_every_training_step_reads_the_flags_its_help_gives_it():
    """Issue 43, 22nd read: `--eval-every`'s help promised the steps between evaluations and checkpoints for every
    training step, but `eagle` and `draft` kept LoopSettings' own 100; `--kd-weight` and `--kd-positions` named no
    step, though only `eagle` and `draft` read them (`loss_weights`)."""
    import inspect

    trainers = {"eagle3": cli.run_eagle3, "eagle": cli.run_eagle, "draft": cli.run_draft, "medusa": cli.run_medusa}
    for name, run in trainers.items():
        source = inspect.getsource(run)
        assert source.count("LoopSettings(") == source.count("eval_every=args.eval_every"), name
        assert ("loss_weights(" in source) == (name in ("eagle", "draft")), name
    actions = {a.dest: a for a in cli.parser()._actions}
    assert actions["kd_weight"].help.startswith("eagle, draft:") and actions["kd_positions"].help.startswith(
        "eagle, draft:")


def test_the_data_steps_counts_are_upper_bounds_as_their_docstrings_say():
    """Issue 43, 22nd read: `extra_template_prompts(count)` said it returns `count` prompts and DataScale that its
    fields are the jobs each stage makes; the prompts that name a held-out topic are dropped (2,937 of the seed
    stage's 3,000 extra prompts, drafts.md), and the seed stage answers each prompt twice."""
    from specviz.distill import stages
    from specviz.distill.prompts import extra_template_prompts

    count = stages.DataScale().extra_prompts
    assert len(extra_template_prompts(count)) < count
    assert "At most `count` prompts" in " ".join((extra_template_prompts.__doc__ or "").split())
    doc = " ".join((stages.DataScale.__doc__ or "").split())
    assert "How many prompts each stage draws, at most" in doc and "answers each of its prompts twice" in doc


@pytest.mark.parametrize("flags", [["--held-out", "-1"], ["--held-out", "0"], ["--chunk", "0"], ["--scale", "nan"],
                                   ["--scale", "-1"], ["--lr", "inf"], ["--kd-weight", "-0.5"], ["--heads", "0"],
                                   ["--steps", "-5"], ["--seed", str(2**70)], ["--seed", "-1"], ["--batch-size", "0"],
                                   ["--max-new-tokens", "x"], ["--shallow", "0"], ["--eval-every", "0"]])
def test_a_count_or_rate_out_of_range_is_argparses_one_line_error(flags, capsys):
    """`--held-out -1` used to draw 3 held-out prompts, `--chunk 0` to end in "range() arg 3 must not be zero" and
    `--scale nan` in a float error after the held-out answers: each is now refused before anything is loaded."""
    with pytest.raises(SystemExit) as exit_:
        cli.parser().parse_args(["data", *flags])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {flags[0]}:" in err and "Traceback" not in err


def test_the_in_range_flags_still_parse():
    args = cli.parser().parse_args(["data", "--held-out", "1", "--scale", "0.01", "--steps", "0", "--kd-weight", "0",
                                    "--seed", str(2**32 - 1), "--ttt-steps", "0"])
    assert (args.held_out, args.scale, args.steps, args.kd_weight, args.seed) == (1, 0.01, 0, 0.0, 2**32 - 1)


@pytest.mark.parametrize("run", ["/tmp/elsewhere", "../up", "a/b", "..", "."])
def test_run_is_one_folder_name_under_work(run, capsys):
    """--run's help says the checkpoint folder is under --work; `work / "/tmp/x"` is /tmp/x and "../up" leaves it."""
    with pytest.raises(SystemExit):
        cli.parser().parse_args(["eagle3", "--run", run])
    assert "argument --run:" in capsys.readouterr().err
    assert cli.parser().parse_args(["eagle3", "--run", "eagle3-long"]).run == "eagle3-long"


def test_a_record_longer_than_the_batch_positions_gets_a_batch_of_its_own():
    """make_batches said every batch holds at most `max_positions` padded positions; a longer record cannot be
    split, so it is alone in a batch as long as itself (its docstring now says so)."""
    from specviz.distill.data import Record
    from specviz.distill import trainer

    records = [Record(f"r{n}", torch.arange(n), torch.zeros(n - 1, 1, 1), 1) for n in (4, 5, 12)]
    widths = sorted(max(len(r.tokens) for r in b.records) * len(b.records) for b in make_batches(records, 10, 0))
    assert widths == [10, 12]  # 4 and 5 share a batch padded to 2 x 5; the 12-token record is alone, past 10
    assert "a batch of its own" in " ".join((trainer.make_batches.__doc__ or "").split())


def test_asking_for_more_held_out_prompts_than_exist_is_one_sentence():
    """prompt_sets promised `n_held_out` held-out prompts, but `--held-out 1000` silently gave 639 (every held-out
    topic x template there is); now it says so, as it does for training prompts."""
    from specviz.distill.prompts import FAMILIES, split_topics

    there = sum(len(templates) * len(split_topics(topics, 0)[1]) for templates, topics, _ in FAMILIES.values())
    assert there == 639  # the count this docstring names
    assert len(prompt_sets(0, 64, 0)[1]) == 64
    refusal = rf"^The held-out topics make only {there} held-out prompts \(asked for 1000\)\.$"
    with pytest.raises(ValueError, match=refusal):
        prompt_sets(0, 1000, 0)


@pytest.mark.slow  # over 0.4 s on 2 cores (read 51's --durations): make check stays under a minute
def test_every_count_of_held_out_prompts_the_topics_make_is_given():
    """31st read: the per-family quotas, each rounded, could add up to less than the count asked for, so
    `--held-out 10` was refused with "make only 9 held-out prompts" and 639 with "only 459", though the held-out
    topics make 639. As for training prompts, a family short of its share leaves the rest to the others."""
    counts = [1, 9, 10, 12, 20, 29, 54, 64, 89, 100, 459, 638, 639]  # all but 1, 9 and 64 were refused
    for n in counts:
        held = prompt_sets(0, n, 0)[1]
        assert len(held) == len({p.id for p in held}) == n, n
    assert len(counts) == 13


def test_a_file_where_the_data_step_needs_a_folder_is_one_sentence(tmp_path, capsys):
    """30th read: `distill data --suites FILE` ended in a FileExistsError traceback (main caught ValueError only);
    it is now one line on stderr, exit code 1, before any model loads."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert cli.main(["data", "--suites", str(blocker), "--work", str(tmp_path / "work"), "--held-out", "1"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and err.endswith(f"{blocker}.") and len(err.splitlines()) == 1, err


def test_each_cards_learning_curve_says_its_source_and_ends_on_the_committed_row():
    """Issue 43 (known and left since stop 66): a card's learning curve had no committed source, being read from the
    training run's log.jsonl in the uncommitted distill work folder. Each card now says so under the table, and the
    table's last row is `training` in its specviz.json, the one row a file keeps."""
    from specviz.core.paths import ASSETS
    from specviz.distill.cards import CURVE_SOURCE, learning_curve

    assert learning_curve([{"stage": 1, "step": 10, "epoch": 0.1, "minutes": 0.5, "acc1": 0.25}], ["acc1"]).endswith(
        "\n\n" + CURVE_SOURCE)
    cards = sorted((ASSETS / "models").glob("*/README.md"))
    assert len(cards) == 3
    for card in cards:
        text = card.read_text(encoding="utf-8")
        section = text[text.index("## Learning curve (held-out)"):]
        table = [line for line in section.split("\n\n", 3)[2].splitlines() if line.startswith("| ")]
        assert section.split("\n\n")[3] == CURVE_SOURCE, card
        header = [c.strip() for c in table[0].strip("|").split("|")]
        last = dict(zip(header, (c.strip() for c in table[-1].strip("|").split("|"))))
        training = json.loads((card.parent / "specviz.json").read_text(encoding="utf-8"))["training"]
        assert int(last["step"]) == training["step"] and float(last["minutes"]) == round(training["minutes"], 1)
        metrics = [m for m in header[4:] if m in training]
        assert metrics, card
        assert all(float(last[m]) == pytest.approx(training[m], abs=6e-4) for m in metrics), card  # both rounded


def test_the_cards_recipe_to_rank_the_replaced_drafter_makes_the_answers_rank_reads_first():
    """Stop 68's known-left list: the EAGLE card's recipe ran `python -m specviz.distill rank --against old` on a
    fresh clone, where `rank` stops with "No held-out answers ...: run `python -m specviz.distill data` first."
    The recipe now runs `data --scale 0.01` first (every held-out prompt, a small sample of each stage)."""
    from specviz.distill.cards import replaced

    text = replaced({"replaces": {"commit": "86a0e257625d0000", "kind": "eagle", "training": {}}}, ["acc1"])
    steps = text.split("```")[1].strip().splitlines()
    assert steps[0] == "python -m specviz.distill data --scale 0.01" and steps[-1].endswith("rank --against old")
    from pathlib import Path

    card = (Path(__file__).resolve().parents[2] / "assets" / "models" / "smollm2-eagle" / "README.md").read_text("utf-8")
    assert "\n".join(steps).replace("86a0e257625d0000"[:12], "86a0e257625d") in card
    args = cli.parser().parse_args(["data", "--scale", "0.01"])
    assert args.held_out == 64 and args.scale == 0.01  # the scale leaves the held-out prompts whole


def test_a_cards_benchmark_scope_says_which_prompts_temperatures_and_k_ran(tmp_path):
    """Read 44: bench_scope wrote a run over named suites as "the first 1 prompts of qa, code", which reads as one
    prompt in all, and no scope said the temperatures or K values. It names each suite's first prompts with the ids
    its rows measured, the temperatures and the K values, and a run its time limit cut says so; the committed cards
    quote their benchmarks' scope through it."""
    from specviz.core.paths import ASSETS
    from specviz.distill.cards import BENCHES, bench_scope

    bench = tmp_path / "results.json"
    bench.write_text(json.dumps({
        "config": {"suites": ["qa", "code"], "prompts_per_suite": 2, "max_new_tokens": 32, "temperatures": [0.0, 0.7],
                   "ks": [2, 4]},
        "cases": [{"prompt_id": p} for p in ("qa-01", "qa-02", "code-01", "qa-01")],
        "notes": ["Stopped at its time limit: 1 of 8 prompt x temperature cases did not run."]}))
    assert bench_scope(bench, 64) == (
        "the first 2 prompts of each of the suites qa and code (qa-01, qa-02 and code-01) at T = 0 and 0.7 with "
        "K = 2 and 4, 32 new tokens (its time limit left 1 of 8 prompt × temperature cases unrun)")
    layerskip = BENCHES["draft"].parent.parent / "default-cpu-layerskip" / "results.json"
    assert bench_scope(layerskip, 64).startswith("the first prompt of the suite qa (qa-01) at T = 0 and 0.7 with K = 1")
    for name, kind in (("smollm2-eagle", "eagle"), ("smollm2-draft", "draft")):
        card = (ASSETS / "models" / name / "README.md").read_text(encoding="utf-8")
        assert f"Benchmark on {bench_scope(BENCHES[kind], 64)}, " in card, name


@pytest.mark.parametrize("step", ["eagle3", "medusa"])
def test_a_distillation_weight_for_a_step_without_that_loss_is_refused(step, tmp_path, capsys):
    """Read 44: `distill eagle3 --kd-weight 2` (or medusa) trained as if the flag were not there (cli.loss_weights is
    only called by the eagle and draft steps). It is now refused in one sentence, before any data is read.
    Read 44: the refusal said eagle3 and medusa train "without" a distillation loss, but their loss is nothing else
    (the cross-entropy to the target's distribution, `Eagle3Objective.loss`, medusa's heads); what they lack is the
    feature regression the flags weigh it against, and a subset of positions to pick."""
    assert cli.main([step, "--kd-weight", "2", "--kd-positions", "64", "--work", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --kd-weight and --kd-positions tune the distillation term") and step in err
    assert "without one" not in err and "cross-entropy to the target's distribution alone" in err, err
    assert cli.main([step, "--kd-weight", "2", "--work", str(tmp_path)]) == 2
    assert "--kd-weight tunes the distillation term" in capsys.readouterr().err
    assert cli.main([step, "--kd-weight", "2", "--kd-positions", "64", "--work", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1  # one sentence, no traceback
    assert cli.main(["eagle", "--kd-weight", "2", "--work", str(tmp_path)]) == 2  # eagle takes it: on to the data
    assert "run `python -m specviz.distill data` first" in capsys.readouterr().err


def test_the_shipped_cards_benchmark_tables_are_the_generators_with_greedy_identity():
    """Read 49: the EAGLE card's bfloat16 table left out the run's greedy identity (its results.json: the chain 4 of
    8 prompts token for token as target-only decoding, the tree 3 of 8), and its rows were typed by hand ("tree 16 ×
    4, reranked, + lookup 8", no † on a tree's α) where the generator writes `DraftShape.label()`. Both cards now hold
    the generator's table, its identity column counted from the committed results, and say what the count means in
    the run's dtype (bfloat16: equal only up to numerics; float32: observed, exact in exact arithmetic)."""
    from specviz.core.paths import ASSETS
    from specviz.distill.cards import BENCHES, bench_dtype, bench_rows, bench_table, read_bench

    greedy = [c for c in read_bench(BENCHES["eagle"])["cases"] if c["temperature"] == 0.0]
    same = {nodes: sum(c["identical"] is True for c in greedy if c["tree_nodes"] == nodes) for nodes in (0, 16)}
    assert same == {0: 4, 16: 3} and len(greedy) == 16  # counted from the cases, not the summary's own count
    for name, kind in (("smollm2-eagle", "eagle"), ("smollm2-draft", "draft")):
        card = (ASSETS / "models" / name / "README.md").read_text(encoding="utf-8")
        # as the generator calls it, with the run's costs (af2748f8: predictions from the verify cost as written)
        table = bench_table(bench_rows(kind, BENCHES[kind]), bench_dtype(BENCHES[kind]),
                            read_bench(BENCHES[kind]).get("costs"))
        assert table in card, name
    card = " ".join((ASSETS / "models" / "smollm2-eagle" / "README.md").read_text(encoding="utf-8").split())
    assert "| 0 | chain K=4 | 4 | 0.534 |" in card and "| 1.45× | 4 of 8 |" in card and "| 1.86× | 3 of 8 |" in card
    assert "In bfloat16 greedy output equals target-only decoding only up to numerics" in card
    draft = " ".join((ASSETS / "models" / "smollm2-draft" / "README.md").read_text(encoding="utf-8").split())
    assert "| 8 of 8 |" in draft and "In float32 the rule is exact in exact arithmetic" in draft


def test_the_eagle_card_says_what_make_serve_does_with_its_weights(tmp_path):
    """Read 49: the EAGLE card said "`make serve SPEC=eagle` serves these weights as they are" (docs/drafts.md: "serves
    it as it is"), but `speculative_config` exports them first (`export.eagle_folder`: float32 copies, the draft
    vocabulary as vLLM's d2t/t2d, a config and the target's tokenizer in the cache), the server runs with
    `--dtype bfloat16`, and vLLM drafts a chain of `--k` tokens, never the card's tree."""
    from specviz.core.paths import ASSETS
    from specviz.distill.cards import SERVE_K, WHAT
    from specviz.serving.server import DEFAULT_K, Server

    card = " ".join((ASSETS / "models" / "smollm2-eagle" / "README.md").read_text(encoding="utf-8").split())
    drafts = " ".join((ASSETS.parent / "docs" / "drafts.md").read_text(encoding="utf-8").split())
    for text in (WHAT["eagle3"].format(params="9.8 M", serve_k=SERVE_K), card, drafts):
        assert "serves these weights as they are" not in text and "serves it as it is" not in text
        assert "`--dtype bfloat16`" in text and f"a chain of {DEFAULT_K} tokens a step, not a tree" in text
    assert "{serve_k}" in WHAT["eagle3"] and SERVE_K == DEFAULT_K
    assert "cast to float32, the draft vocabulary written as vLLM's `d2t` and `t2d`" in card
    argv = Server(root=tmp_path).command(ASSETS, 8000, {"method": "eagle3"})
    assert argv[argv.index("--dtype") + 1] == "bfloat16"  # what the card says the server is started with


def test_a_cards_learning_curve_fit_gives_no_unmeasured_figure():
    """Read 49: the cards turned their log-linear fit into figures no run measured ("twice the compute on the same
    data would give roughly 0.51, four times 0.58") and said more data "keeps a longer run from memorising". They
    keep the fitted slope and say it is a fit, with no figure past the last evaluation."""
    from specviz.core.paths import ASSETS
    from specviz.distill.cards import extrapolate

    log = [{"step": s, "agreement": a} for s, a in ((500, 0.366), (1000, 0.440))]
    assert "roughly" not in extrapolate(log, "agreement") and "memorising" not in extrapolate(log, "agreement")
    for name in ("smollm2-eagle", "smollm2-draft"):
        card = " ".join((ASSETS / "models" / name / "README.md").read_text(encoding="utf-8").split())
        assert "would give roughly" not in card and "four times" not in card and "memorising" not in card, name
        assert "a fit, not a measured longer run, so this card gives no figure for more steps or more data" in card


def _regenerated_cards(tmp_path) -> dict[str, tuple[str, str]]:
    """`python -m specviz.distill cards` with an empty work folder, over copies of the shipped model folders (the
    weights linked, not loaded: the card reads their sizes and tensor shapes): {name: (committed card, written)}."""
    from specviz.core.paths import ASSETS

    work, assets = tmp_path / "work", tmp_path / "assets"
    work.mkdir()
    for folder in sorted((ASSETS / "models").iterdir()):
        (assets / folder.name).mkdir(parents=True)
        for path in folder.iterdir():
            (assets / folder.name / path.name).symlink_to(path)
        (assets / folder.name / "README.md").unlink()  # written, not read: a fresh file, never the committed one
    assert cli.main(["cards", "--work", str(work), "--assets", str(assets)]) == 0
    return {folder.name: ((folder / "README.md").read_text(encoding="utf-8"),
                          (assets / folder.name / "README.md").read_text(encoding="utf-8"))
            for folder in sorted((ASSETS / "models").iterdir())}


def test_the_generator_writes_the_three_committed_cards_byte_for_byte(tmp_path):
    """Read 49: the cards had drifted from their generator (the EAGLE card's first-guess line and lookup-branch
    paragraph, the draft card's Data section were typed by hand), and no test could tell: the generator read only
    the distill work folder, which is not committed. What that folder gave each card is now kept beside it
    (`card-record.json`), so the generator runs from committed files and must write each card as committed."""
    cards = _regenerated_cards(tmp_path)
    assert sorted(cards) == ["smollm2-draft", "smollm2-eagle", "smollm2-medusa"]
    for name, (committed, written) in cards.items():
        assert written == committed, name


def test_the_eagle_cards_first_guess_target_names_rank_and_acc1_as_its_specviz_json_records():
    """Read 49: the EAGLE card said "0.616 by `python -m specviz.distill rank` (0.615 at the last training
    evaluation)", but its generator printed specviz.json's `training.top1` (0.614, the training evaluation's own
    ranking pass), unnamed. The line is rank's top1 (`rank_held_out`) and the learning curve's `acc1`, each named."""
    from specviz.core.paths import ASSETS
    from specviz.distill.cards import first_guess_line

    meta = json.loads((ASSETS / "models" / "smollm2-eagle" / "specviz.json").read_text(encoding="utf-8"))
    assert (meta["rank_held_out"]["this"]["top1"], meta["training"]["acc1"], meta["training"]["top1"]) == \
        (0.616, 0.6154, 0.6139)
    line = ("- Held-out first guess ≥ 0.6: 0.616 by `python -m specviz.distill rank` (`acc1` 0.615 at the last "
            "training evaluation; met)")
    assert first_guess_line(meta, 0.6) == line
    card = (ASSETS / "models" / "smollm2-eagle" / "README.md").read_text(encoding="utf-8")
    assert line in card and "0.614" not in card


def test_the_eagle_cards_lookup_paragraph_is_the_run_without_it_at_3e40c3f():
    """Read 49: the EAGLE card's paragraph on its lookup branch (2.74 tokens per forward, 1.79× and 1.73× greedy;
    2.14, 1.38× and 1.30× at T = 0.7 without it) had no generator. It is written from the run commit 3e40c3f holds
    in assets/benchmarks/default-cpu-bf16-tree, named with that command; read 50: what it reads of that run is kept
    in the card's record (card-record.json), not read with `git show`, which a shallow clone cannot."""
    from specviz.distill.cards import BENCHES, bench_rows, committed_run, lookup_note

    commit, run = committed_run(BENCHES["eagle"])
    assert commit == "3e40c3f" and "--tree-lookup" not in run["command"]
    note = lookup_note(bench_rows("eagle", BENCHES["eagle"]), BENCHES["eagle"])
    assert "positions 5-8 are reached only through it" in note
    assert "`git show 3e40c3f:assets/benchmarks/default-cpu-bf16-tree/results.json`" in note
    assert "the run of 2026-12-03 05:06 UTC" in note and "the same command without `--tree-lookup`" in note
    assert ("the greedy tree emitted 2.74 tokens per forward at 1.79× over `model.generate` (1.73× over "
            "target-only), and 2.14 at 1.38× (1.30×) at T = 0.7.") in note
    assert lookup_note([], BENCHES["eagle"]) == ""  # no tree with a lookup branch: no paragraph
    assert committed_run(BENCHES["eagle"], {}) is None  # a record without the run: no paragraph either


def test_the_cards_are_written_byte_for_byte_without_git(tmp_path, monkeypatch):
    """Read 50: the EAGLE card's lookup-branch paragraph read its numbers with `git show 3e40c3f:...`, so in a clone
    without that history (or without git) `python -m specviz.distill cards` dropped the paragraph and the
    byte-for-byte test failed. With no program runnable at all, the three cards are still written as committed."""
    import subprocess

    def no_git(*args, **kwargs):
        raise FileNotFoundError("git")

    monkeypatch.setattr(subprocess, "run", no_git)
    monkeypatch.setattr(subprocess, "Popen", no_git)
    cards = _regenerated_cards(tmp_path)
    assert len(cards) == 3  # the EAGLE, Medusa and separate draft cards
    for name, (committed, written) in cards.items():
        assert written == committed, name


def test_the_draft_cards_data_section_is_its_commits_data_step():
    """Read 49: the separate draft's Data section was older text its generator did not write. It is written from
    what commit 35ce4c2's data step logged (kept in card-record.json) and that code's defaults, each named so; it no
    longer says the answers were made "on CPU" (that code used a GPU when it had one, and no file records which)."""
    from specviz.core.paths import ASSETS
    from specviz.distill.cards import data_section

    folder = ASSETS / "models" / "smollm2-draft"
    meta = json.loads((folder / "specviz.json").read_text(encoding="utf-8"))
    data = json.loads((folder / "card-record.json").read_text(encoding="utf-8"))["data"]
    section = data_section(data, meta, "float32")
    assert section in (folder / "README.md").read_text(encoding="utf-8")
    flat = " ".join(section.split())
    assert ("3,000 training prompts made from templates × topics (commit `35ce4c2baa51`'s "
            "`specviz/distill/prompts.py`: explain, create, list, code, rewrite, math), answered by the target "
            "itself in bfloat16, up to 128 new tokens, in batches of 64 (that code's default); 23 of 47 batches "
            "sampled at temperature 0.7 (that code's default), the others greedy. 318,833 response tokens in "
            "all.") in flat
    assert "on CPU" not in flat and "The data step took 41 minutes, on a machine this card does not record." in flat


def test_the_cards_head_their_alpha_column_alpha_estimate_as_every_bench_table_does():
    """Read 49, names: every results.md and the Speedup lab head the bench's statistic "α estimate (...)" (4945c3c),
    but the card generator's table still said "| α (tree: main-line mean min(1, p′/q′)) |", and its note and
    the cards' text called it "the α column": the name of the probability it estimates."""
    from specviz.core.paths import ASSETS
    from specviz.distill.cards import BENCHES, CARD, bench_dtype, bench_rows, bench_table

    table = bench_table(bench_rows("eagle", BENCHES["eagle"]), bench_dtype(BENCHES["eagle"]))
    assert "| K | α estimate (tree: main-line mean min(1, p′/q′)) | c |" in table
    assert "† A tree row's value in the α estimate column is the mean min(1, p′/q′)" in table
    cards = [(ASSETS / "models" / name / "README.md").read_text(encoding="utf-8")
             for name in ("smollm2-eagle", "smollm2-draft")]
    for text in (CARD, *cards):
        flat = " ".join(text.split())
        assert "| α (" not in flat and "the α column" not in flat and "The α column" not in flat
    for text in cards:
        assert "| α estimate (tree: main-line mean min(1, p′/q′)) |" in text
        assert "The α estimate column estimates Leviathan et al.'s acceptance probability" in " ".join(text.split())


def test_the_cards_name_the_alpha_estimate_and_the_commit_their_data_section_means():
    """Read 49 (review): a06fe657 named the bench tables' column "α estimate" (as the metric above them, the CLI, the
    Race and the Theory explorer do) but left the cards' table headed "α (tree: ...)" and their note "The α column
    estimates ..."; and the draft card's Data section said "that commit's `specviz/distill/prompts.py`" before any
    commit was named (the Command section names it after). Both cards now say "α estimate", and the Data section
    names the commit."""
    from specviz.core.paths import ASSETS

    for name in ("smollm2-eagle", "smollm2-draft"):
        card = (ASSETS / "models" / name / "README.md").read_text(encoding="utf-8")
        assert "| T | draft | K | α estimate (tree: main-line mean min(1, p′/q′)) |" in card, name
        assert "| α (" not in card and "The α column" not in card, name
        assert "The α estimate column estimates Leviathan et al.'s acceptance probability" in card, name
    draft = " ".join((ASSETS / "models" / "smollm2-draft" / "README.md").read_text(encoding="utf-8").split())
    data = draft.split("## Data")[1].split("## Command")[0]
    assert "(commit `35ce4c2baa51`'s `specviz/distill/prompts.py`:" in data and "that commit's" not in data


def test_the_eagle3_card_says_its_layer_numbers_count_from_0(tmp_path):
    """Read 52: the EAGLE-3 card said "the residual stream entering layers 2, 15 and 27 of 30", which a reader counts
    from 1 (the second layer); the drafter reads transformers' hidden_states[2], [15], [27], vLLM's 0-based default
    (2, n // 2, n - 3) for a 30-layer target, so the card now says the numbers count from 0."""
    from specviz.distill.batched import aux_layer_ids
    from specviz.distill.cards import WHAT
    from specviz.core.paths import MODELS_DIR, EAGLE_NAME

    assert aux_layer_ids(30) == (2, 15, 27)
    text = " ".join(WHAT["eagle3"].split())
    assert "entering layers 2, 15 and 27 of 30, counted from 0," in text
    from pathlib import Path

    shipped = " ".join((MODELS_DIR / EAGLE_NAME / "README.md").read_text().split())
    assert shipped.count("2, 15 and 27") == shipped.count("2, 15 and 27 of 30, counted from 0") + \
        shipped.count("2, 15 and 27 (counted from 0)") == 2


def test_the_eagle_cards_what_it_would_take_line_names_alpha():
    """Read 53: the EAGLE-1 card's "What it would take" line said "about 0.51 acceptance at every draft position" for
    `chain_alpha`'s value, the α the i.i.d. formula needs: a bare "acceptance" names none of α, the acceptance rate or
    acceptance by position. It now says "an α of about 0.51"."""
    from specviz.distill.cards import BENCHES, bench_rows, target_lines

    lines = target_lines("eagle", {}, bench_rows("eagle", BENCHES["eagle"]), BENCHES["eagle"])
    take = [line for line in lines if line.startswith("- What it would take (chain)")]
    assert len(take) == 1, lines
    assert re.search(r": an α of about 0\.\d\d at every draft position", take[0]), take[0]
    assert "acceptance at every" not in take[0]


def test_each_shipped_cards_bench_row_reads_as_its_runs_results_md():
    """Read 54: the cards wrote α and c with Python's format and "predicted (measured verify cost)" from every digit,
    and the draft card's speed line read "c = 0.30" where its results.md reads 0.303; its K = 2 greedy row predicted
    0.64× where results.md, from the α, c and verify cost it writes, reads 0.63×. Each chain row of a shipped card
    now shows the α, c and predictions results.md shows for the same configuration."""
    from specviz.core.paths import ASSETS
    from specviz.distill.cards import BENCHES

    checked = 0
    for proposer, name in (("eagle", "smollm2-eagle"), ("draft", "smollm2-draft")):
        report = (BENCHES[proposer].parent / "results.md").read_text(encoding="utf-8")
        rows = {tuple(cells[i] for i in (0, 2, 4)): cells for line in report.splitlines()
                if len(cells := [c.strip() for c in line.strip("|").split("|")]) == 16 and cells[1] == "constant"
                and cells[3] == "chain"}
        c = re.search(rf"^- {proposer}: draft forward [\d.]+ ms, c = ([\d.]+)$", report, re.M)[1]
        card = (ASSETS / "models" / name / "README.md").read_text(encoding="utf-8")
        for line in card.splitlines():
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            if len(cells) != 11 or not cells[1].startswith("chain K="):
                continue
            row = rows[(proposer, cells[2], cells[0])]
            assert (cells[3], cells[4], cells[9]) == (row[5], c, row[14]), (name, cells, row)
            checked += 1
        if proposer == "draft":
            assert f"greedy); c = {c}." in card
    assert checked >= 8, checked


def test_the_cards_round_ties_half_up_as_results_md_does(tmp_path):
    """Read 54: the cards' target lines, learning curves and Medusa tables wrote figures with Python's format
    (half to even on an exact binary tie: f"{0.125:.2f}" is "0.12", f"{0.0625:.3f}" is "0.062") where results.md
    and every page round half up (`core.i18n.fixed`): the same figure could read 0.12 on a card and 0.13 in its run's
    results.md. The cards now write their figures with `fixed`."""
    from specviz.distill.cards import first_guess_line, target_line
    from specviz.distill.medusa_card import bench_section

    assert target_line("Mean accepted length ≥ 2", {"mat_with_bonus": 2.125}, "mat_with_bonus", 2.0, unit="",
                       where=False) == "- Mean accepted length ≥ 2: 2.13 (met)"
    assert "`acc1` 0.063 at the last training evaluation" in first_guess_line({"training": {"acc1": 0.0625}}, 0.6)
    row = {"proposer": "medusa", "k": 2, "temperature": 0.0, "mat_with_bonus": 1.125, "per_position": [0.375],
           "speedup_vs_hf_generate": 0.625, "speedup_vs_ar": 1.0}
    row.update(suite="all", policy="constant")
    (tmp_path / "results.json").write_text(json.dumps({"summary": [row], "command": "python -m specviz bench",
                                                       "config": {"clock": "cpu"}, "machine": {"torch_threads": 1}}))
    table = bench_section(tmp_path / "results.json")
    assert "| 1.13 | 0.38 | 1.00× | 0.63× |" in table, table
