"""`python -m specviz.distill`: make the offline target's drafts, one reproducible step at a time.

    python -m specviz.distill data     # the target answers the data stages' prompts + 64 held-out ones (states kept)
    python -m specviz.distill data --stages seed   # only the first stage (follow-ups and rewrites read it)
    python -m specviz.distill eagle3   # train the EAGLE-3 drafter (three of the target's layers, its own head)
    python -m specviz.distill eagle    # train the EAGLE-1 feature drafter (the one shipped before)
    python -m specviz.distill draft    # train the separate draft model
    python -m specviz.distill medusa --heads 5   # train Medusa heads (the target frozen, its LM head shared)
    python -m specviz.distill cards    # the model cards (README.md): from --work's logs, else card-record.json
    python -m specviz.distill all      # data, eagle3 and draft, then the model cards (not eagle or medusa)
    python -m specviz.distill export --format vllm-eagle   # the shipped drafter in vLLM's layout (or vllm-draft)
    python -m specviz.distill rank --against OLD_FOLDER    # top-1..4 first guesses on the held-out answers, both drafters

Every step is seeded and resumable: rerunning skips finished chunks and continues from the last checkpoint.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch
import yaml

from specviz.core.cli_help import DefaultsHelpFormatter
from specviz.core.paths import MODELS_DIR, PROMPTS_DIR
from specviz.engine.limits import SEED_RANGE, number_arg, threads_arg, whole_arg
from specviz.distill.cards import write_cards
from specviz.distill.batched import BatchedDecoder, aux_layer_ids
from specviz.distill.data import GenerationPlan, Job, answer_in_chunks, load_records
from specviz.distill.stages import STAGES, DataScale, stage_folder, stage_jobs
from specviz.distill.draft import DraftLoss, DraftObjective
from specviz.distill.eagle import EagleLoss, EagleObjective
from specviz.distill.eagle3 import Eagle3Loss, Eagle3Objective
from specviz.distill.medusa import MedusaLoss, MedusaObjective
from specviz.distill.prompts import held_out_suite, prompt_sets
from specviz.distill.trainer import (DEFAULT_BATCH_POSITIONS, DEFAULT_LR, DEFAULT_STEPS, LoopSettings, make_batches,
                                     train_loop)
from specviz.engine.generation import eos_ids
from specviz.engine.kinds import DrafterKind
from specviz.engine.proposers.eagle import EagleDrafter
from specviz.engine.proposers.eagle3 import Eagle3Drafter
from specviz.engine.proposers.medusa import MedusaHeads
from specviz.models.drafts import (EAGLE_NAME, MEDUSA_NAME, draft_from_target, load_eagle, read_meta, save_draft,
                                   save_eagle, save_medusa)
from specviz.models.pairs import load_default_target

DEFAULT_WORK = Path("artifacts/distill")


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    kd = [flag for flag, value in (("--kd-weight", args.kd_weight), ("--kd-positions", args.kd_positions))
          if value is not None]
    # read 44: their losses are the distillation cross-entropy alone (no feature regression to weigh it against, on
    # every response position), so the flags would change nothing; not "trains without one" (a second read 44 look)
    if kd and args.step in ("eagle3", "medusa"):
        verb, them = ("tunes", "it") if len(kd) == 1 else ("tune", "them")
        print(f"error: {' and '.join(kd)} {verb} the distillation term that the eagle and draft steps add to their "
              f"feature regression; the {args.step} step's loss is that cross-entropy to the target's distribution "
              f"alone, on every response position, so drop {them}.", file=sys.stderr)
        return 2
    try:
        for step in (["data", "eagle3", "draft", "cards"] if args.step == "all" else [args.step]):
            STEPS[step](args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a file where a folder goes (--work, --suites, --assets): one sentence, no traceback
        print(f"error: {exc.strerror or type(exc).__name__}: {exc.filename or '?'}.", file=sys.stderr)
        return 1
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m specviz.distill", description=__doc__,
                                formatter_class=DefaultsHelpFormatter)
    p.add_argument("step", choices=["data", "eagle3", "eagle", "draft", "medusa", "cards", "all", "export", "rank"])
    p.add_argument("--train-stages", nargs="+", choices=STAGES, default=None,
                   help="eagle3, eagle, draft, medusa: train on these data stages only (default: every stage "
                        "there)")
    p.add_argument("--against", type=Path, default=None,
                   help="rank: another EAGLE drafter folder (say, a previous version from git) to rank next to the "
                        "shipped one in --assets (default: none, and rank ranks the shipped drafter alone)")
    p.add_argument("--format", choices=["vllm-eagle", "vllm-draft"], default="vllm-eagle",
                   help="export: the EAGLE drafter (vLLM's EAGLE-3 layout, or EAGLE-1 for an EAGLE-1 drafter) or the separate "
                        "draft (complete folder)")
    p.add_argument("--work", type=Path, default=DEFAULT_WORK, help="folder for data and checkpoints")
    p.add_argument("--seed", type=whole_arg(*SEED_RANGE), default=0,
                   help="seed of every random choice (prompts, sampled answers, batch order, initial weights)")
    p.add_argument("--held-out", type=whole_arg(1), default=64, help="held-out prompts (never trained on)")
    p.add_argument("--stages", nargs="+", choices=STAGES, default=list(STAGES),
                   help="data: the stages to run, in order (questions reads question-lists, follow-ups and "
                        "rewrites read seed and questions; default: all)")
    p.add_argument("--scale", type=number_arg(0, above=True), default=1.0,
                   help="data: every stage's number of prompts times this (0.01 for a quick trial)")
    p.add_argument("--chunk", type=whole_arg(1), default=768, help="data: answers per chunk (a chunk is written whole)")
    p.add_argument("--max-new-tokens", type=whole_arg(1), default=192, help="data: tokens per answer at most")
    p.add_argument("--batch-size", type=whole_arg(1), default=128, help="data: prompts answered together")
    p.add_argument("--threads", type=threads_arg, default=0, help="CPU threads (0: torch's default)")
    p.add_argument("--steps", type=whole_arg(0), default=0,
                   help="training steps (0: the step's default, " + ", ".join(f"{k} {v}" for k, v in DEFAULT_STEPS.items()
                                                                        if k != "eagle-ttt")
                        + "; for eagle, its first stage's)")
    p.add_argument("--unroll", type=whole_arg(1), default=4,
                   help="eagle3: drafting depths trained (training-time test)")
    p.add_argument("--eval-every", type=whole_arg(1), default=100,
                   help="steps between held-out evaluations (and checkpoints)")
    # left out, each step's own loss default (read 47: the help said none, its argparse default being None)
    eagle, draft = EagleLoss(), DraftLoss()
    p.add_argument("--kd-weight", type=number_arg(0), default=None,
                   help=f"eagle, draft: weight of the distillation loss (default: eagle {eagle.distillation:g}, "
                        f"draft {draft.distillation:g})")
    p.add_argument("--kd-positions", type=whole_arg(1), default=None,
                   help=f"eagle, draft: positions per batch in the distillation loss (default: eagle "
                        f"{eagle.kd_positions}, draft {draft.kd_positions})")
    p.add_argument("--ttt-steps", type=whole_arg(0), default=DEFAULT_STEPS["eagle-ttt"],
                   help=f"eagle: its second stage's steps, the training-time test (default "
                        f"{DEFAULT_STEPS['eagle-ttt']}; 0: skip); eagle3 trains in one stage (--steps, --unroll)")
    p.add_argument("--heads", type=whole_arg(1), default=5,
                   help="medusa: heads (head k guesses the k-th token after the one the "
                                                                "target's own head predicts)")
    p.add_argument("--run", type=folder_name_arg, default="", help="eagle3, medusa, draft: a name for the checkpoint folder under --work "
                                             "(default: the step's name; eagle's two stages keep theirs)")
    p.add_argument("--lr", type=number_arg(0, above=True), default=DEFAULT_LR,
                   help="peak learning rate (AdamW, warm-up then cosine decay to a tenth of it); eagle's second "
                        "stage (--ttt-steps) peaks at half of it")
    p.add_argument("--draft-vocab", type=whole_arg(1), default=8192,
                   help="FR-Spec draft vocabulary size: the EAGLE drafter's head, the loss the separate draft trains "
                        "on, and the Medusa heads' when no EAGLE drafter is shipped")
    p.add_argument("--shallow", type=whole_arg(1), default=3,
                   help="the target's first layers the separate draft reuses")
    p.add_argument("--batch-positions", type=whole_arg(1), default=DEFAULT_BATCH_POSITIONS,
                   help="padded positions per training batch")
    p.add_argument("--suites", type=Path, default=PROMPTS_DIR, help="where the held-out suite is written")
    p.add_argument("--assets", type=Path, default=MODELS_DIR, help="where the trained drafts are saved")
    return p


def folder_name_arg(text: str) -> str:
    """argparse's type for --run: one folder's name, so the checkpoints stay under --work as its help says (a path
    such as /tmp/x or ../x put them elsewhere: `Path(work) / "/tmp/x"` is /tmp/x)."""
    if text in (".", "..") or any(mark in text for mark in ("/", "\\", "\0")):
        raise argparse.ArgumentTypeError(f"a folder name without / or \\, not . or .. (got {text!r})")
    return text


def device_and_dtype() -> tuple[torch.device, torch.dtype]:
    """A GPU when there is one; bfloat16 for generating training data (half the bytes of float32, computed natively
    on CPUs with bf16 instructions; no committed run times it against float32)."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu"), torch.bfloat16


def run_data(args) -> None:
    """The held-out answers (float32, greedy: what a float32 benchmark meets), then each stage in bfloat16 (a GPU when
    there is one), in chunks; a progress bar per stage with tokens per second and the time left."""
    if args.threads:
        torch.set_num_threads(args.threads)
    _, held = prompt_sets(0, args.held_out, args.seed)  # the stages draw their own training prompts
    write_suite(held_out_suite(held, args.seed), args.suites / "held-out.yaml")
    model, tokenizer = load_default_target()
    eos = eos_ids(model, tokenizer)
    plan = GenerationPlan(args.max_new_tokens, args.batch_size, seed=args.seed)
    answer_in_chunks([Job(p, 0, 0.0) for p in held], args.work / "held-out", model, tokenizer, plan, eos,
                     args.chunk, "held-out answers (float32, greedy)")
    device, dtype = device_and_dtype()
    model = model.to(device=device, dtype=dtype)
    decoder = BatchedDecoder(model)
    scale = DataScale().scaled(args.scale)
    for number, stage in enumerate(args.stages, start=1):
        jobs = stage_jobs(stage, args.work, tokenizer, eos, scale, plan)
        answer_in_chunks(jobs, stage_folder(args.work, stage), model, tokenizer, plan, eos, args.chunk,
                         f"stage {number}/{len(args.stages)}: {stage}", decoder)


def write_suite(suite: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    header = ("# Written by `python -m specviz.distill data`; no prompt the drafts trained on is about these "
              "prompts' topics.\n")
    path.write_text(header + yaml.safe_dump(suite, sort_keys=False, allow_unicode=True, width=120), encoding="utf-8")


def training_setup(args):
    """What every draft's training (eagle3, eagle, draft, medusa) starts from: the records of `--train-stages`,
    the float32 target on the training device, the draft vocabulary. A missing data step is one sentence, before any
    model loads."""
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    stages = args.train_stages or STAGES
    train = load_records(*(stage_folder(args.work, s) for s in stages))
    held = load_records(args.work / "held-out")
    if not train or not held:
        raise ValueError(f"No training data in {args.work}: run `python -m specviz.distill data` first.")
    device = device_and_dtype()[0]
    # a float32 target; the drafters' weights are float32 too (eagle3 and medusa compute their matrix products in
    # bfloat16 under autocast: Eagle3Loss.autocast, MedusaLoss.autocast)
    target = load_default_target()[0].to(device)
    return train, held, target, draft_vocabulary(train, args.draft_vocab).to(device), device


def training_machine(device: torch.device) -> dict:
    """The machine that trained and saved a draft, for its specviz.json (its card names it from there): the record
    every bench result keeps (`machine_info`: CPU, cores, torch, transformers...), with the device it trained on and
    its GPU only when it trained on one."""
    from specviz.labs.bench.timing import machine_info

    gpu = torch.cuda.get_device_name(device) if device.type == "cuda" else None
    return {**machine_info(), "gpu": gpu, "device": str(device)}


def run_eagle(args) -> None:
    """Two stages, each resumable: `--steps` (default 1500) with two drafting depths in which the second depth
    reads predicted features at every row; then `--ttt-steps` (default 400) from that checkpoint at half the
    learning rate with three depths that attend exactly as drafting does (EAGLE-3's training-time test)."""
    train, held, target, vocab, device = training_setup(args)
    print(f"draft vocabulary: {len(vocab)} tokens, {coverage(held, vocab):.2%} of held-out response tokens")
    drafter = EagleDrafter(target.config).to(device)
    drafter.init_from_target(target)
    head = target.get_output_embeddings().weight.detach()[vocab]
    batches = make_batches(train, args.batch_positions, args.seed)
    held_batches = make_batches(held, args.batch_positions, args.seed)
    losses = loss_weights(EagleLoss(), args)  # what both stages' losses take from the flags, for specviz.json
    stages = [("eagle", EagleLoss(unroll=2, faithful=False),
               LoopSettings(args.steps or DEFAULT_STEPS["eagle"], lr=args.lr, seed=args.seed,
                            eval_every=args.eval_every))]
    if args.ttt_steps:
        stages.append(("eagle-ttt", EagleLoss(unroll=3, faithful=True),
                       LoopSettings(args.ttt_steps, lr=args.lr / 2, seed=args.seed + 1, eval_every=args.eval_every)))
    results = []
    for i, (run, weights, settings) in enumerate(stages):
        objective = EagleObjective(drafter, target.get_input_embeddings(), head, vocab, loss_weights(weights, args))
        if i and not (args.work / run / "checkpoint.pt").exists():
            drafter.load_state_dict(torch.load(args.work / stages[i - 1][0] / "checkpoint.pt", map_location=device)["model"])
        results.append(train_loop(drafter, batches, objective.loss, lambda o=objective: o.accuracy(held_batches),
                                  settings, args.work / run, f"eagle drafter, stage {i + 1}"))
    folder = save_eagle(drafter.cpu(), vocab.cpu(), args.assets, {
        "training": results[-1], "steps": sum(s.steps for _, _, s in stages), "stages": [r for r, _, _ in stages],
        "lr": args.lr, "batch_positions": args.batch_positions, "kd_weight": losses.distillation,
        "kd_positions": losses.kd_positions, "noise": losses.noise, "train_records": len(train),
        "held_out_records": len(held), "vocab_coverage": coverage(held, vocab),
        "machine": training_machine(device), **replacing(args.assets / EAGLE_NAME)})
    print(f"saved the EAGLE drafter to {folder}")


def run_eagle3(args) -> None:
    """One resumable stage: every batch is drafted `--unroll` deep as drafting does (training-time test), each depth
    scored against the target's distribution; held-out accuracy and first-guess ranks at every evaluation."""
    train, held, target, vocab, device = training_setup(args)
    print(f"draft vocabulary: {len(vocab)} tokens, {coverage(held, vocab):.2%} of held-out response tokens")
    drafter = Eagle3Drafter(target.config, aux_layer_ids(target.config.num_hidden_layers), len(vocab)).to(device)
    drafter.init_from_target(target, vocab)
    head = target.get_output_embeddings().weight.detach()[vocab]
    objective = Eagle3Objective(drafter, target.get_input_embeddings(), head, vocab, Eagle3Loss(unroll=args.unroll))
    batches = make_batches(train, args.batch_positions, args.seed, aux=True)
    held_batches = make_batches(held, args.batch_positions, args.seed, aux=True)
    settings = LoopSettings(args.steps or DEFAULT_STEPS["eagle3"], lr=args.lr, seed=args.seed, warmup=100,
                            eval_every=args.eval_every)

    def evaluate() -> dict:
        return {**objective.accuracy(held_batches), **objective.first_guess_ranks(held_batches)}

    result = train_loop(drafter, batches, objective.loss, evaluate, settings, args.work / (args.run or "eagle3"),
                        "eagle-3 drafter")
    folder = save_eagle(drafter.cpu(), vocab.cpu(), args.assets, {
        "training": result, "steps": settings.steps, "stages": [args.run or "eagle3"], "unroll": args.unroll,
        "lr": args.lr, "batch_positions": args.batch_positions, "train_records": len(train),
        "train_positions": sum(len(r.tokens) - 1 for r in train), "held_out_records": len(held),
        "vocab_coverage": coverage(held, vocab), "machine": training_machine(device),
        **replacing(args.assets / EAGLE_NAME)})
    print(f"saved the EAGLE-3 drafter to {folder}")


def run_medusa(args) -> None:
    """One resumable stage: `--heads` residual blocks on the frozen target's last hidden state, head k at the state
    after token t scored against the target's distribution over token t+1+k; the draft vocabulary is the shipped
    EAGLE drafter's when there is one (counted on the full data step), else this data's most frequent tokens."""
    train, held, target, vocab, device = training_setup(args)
    shipped = args.assets / EAGLE_NAME / "model.safetensors"
    if shipped.exists():
        from safetensors.torch import load_file

        vocab = load_file(str(shipped))["draft_vocab"].long().to(device)
    print(f"draft vocabulary: {len(vocab)} tokens, {coverage(held, vocab):.2%} of held-out response tokens")
    heads = MedusaHeads(target.config.hidden_size, args.heads).to(device)
    head = target.get_output_embeddings().weight.detach()[vocab]
    objective = MedusaObjective(heads, head, vocab, MedusaLoss())
    batches = make_batches(train, args.batch_positions, args.seed)
    held_batches = make_batches(held, args.batch_positions, args.seed)
    settings = LoopSettings(args.steps or DEFAULT_STEPS["medusa"], lr=args.lr, seed=args.seed, warmup=50,
                            eval_every=args.eval_every)
    result = train_loop(heads, batches, objective.loss, lambda: objective.accuracy(held_batches), settings,
                        args.work / (args.run or "medusa"), "medusa heads")
    folder = save_medusa(heads.cpu(), vocab.cpu(), args.assets, {
        "training": result, "steps": settings.steps, "lr": args.lr, "batch_positions": args.batch_positions,
        "train_records": len(train), "train_positions": sum(len(r.tokens) - 1 for r in train),
        "train_stages": [s for s in args.train_stages or STAGES if any(stage_folder(args.work, s).glob("chunk-*"))],
        "held_out_records": len(held),
        "vocab_coverage": coverage(held, vocab), "machine": training_machine(device),
        **replacing(args.assets / MEDUSA_NAME)},
        target.config.hidden_size, target.config.vocab_size)
    print(f"saved the Medusa heads to {folder}")


def replacing(folder: Path) -> dict:
    """{"replaces": what the card compares with} when `folder` already holds a trained drafter, else {}."""
    if not (folder / "specviz.json").exists():
        return {}
    old = read_meta(folder)
    commit = last_commit(folder / "model.safetensors")
    return {"replaces": {**{k: old[k] for k in ("kind", "training", "steps", "train_records") if k in old},
                         **({"commit": commit} if commit else {})}}


def last_commit(path: Path) -> str | None:
    """The last commit that holds `path` as it is (where the replaced weights stay reachable); None outside git or
    for a file with changes not committed."""
    import subprocess

    def git(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", *args], cwd=Path(path).parent, capture_output=True, text=True, timeout=20)

    try:
        if git("diff", "--quiet", "HEAD", "--", Path(path).name).returncode != 0:
            return None
        out = git("log", "-1", "--format=%H", "--", Path(path).name)
    except (OSError, subprocess.SubprocessError):
        return None
    return (out.stdout.strip() or None) if out.returncode == 0 else None


def run_draft(args) -> None:
    train, held, target, vocab, device = training_setup(args)
    full_head = target.get_output_embeddings().weight.detach()
    draft = draft_from_target(target, args.shallow).to(device)
    objective = DraftObjective(draft, args.shallow, full_head[vocab], vocab, loss_weights(DraftLoss(), args))
    batches = make_batches(train, args.batch_positions, args.seed)
    held_batches = make_batches(held, args.batch_positions, args.seed)
    settings = LoopSettings(steps=args.steps or DEFAULT_STEPS["draft"], lr=args.lr, seed=args.seed,
                            eval_every=args.eval_every)
    result = train_loop(draft, batches, objective.loss, lambda: objective.accuracy(held_batches, full_head),
                        settings, args.work / (args.run or "draft"), "separate draft")
    folder = save_draft(draft.cpu(), args.shallow, args.assets, {
        "training": result, "steps": settings.steps, "lr": args.lr, "batch_positions": args.batch_positions,
        "kd_weight": objective.w.distillation, "kd_positions": objective.w.kd_positions, "train_records": len(train),
        "held_out_records": len(held), "machine": training_machine(device)})
    print(f"saved the separate draft model to {folder}")


def run_cards(args) -> None:
    """Cards for the drafts: from --work's data and training logs where it holds them, else from the record kept
    beside each card (card-record.json); a draft with neither keeps its card."""
    from specviz.distill.medusa_card import write_medusa_card

    for path in [*write_cards(args.work, args.assets), write_medusa_card(args.work, args.assets)]:
        if path is not None:
            print(f"wrote {path}")


def run_rank(args) -> None:
    """How often the target's token is among the EAGLE drafter's k best first guesses on the held-out answers (k = 1..4),
    for the shipped drafter and `--against`: a finer comparison of two drafters than a benchmark on a few prompts."""
    held = load_records(args.work / "held-out")
    if not held:
        raise ValueError(f"No held-out answers in {args.work}: run `python -m specviz.distill data` first.")
    target = load_default_target()[0]
    for folder in [args.assets / EAGLE_NAME, *([args.against] if args.against else [])]:
        drafter, vocab = load_eagle(target, folder)
        head = target.get_output_embeddings().weight.detach()[vocab]
        if drafter.kind == DrafterKind.EAGLE3:
            batches = make_batches(held, args.batch_positions, args.seed, aux=True)
            objective = Eagle3Objective(drafter.float(), target.get_input_embeddings(), head, vocab,
                                        Eagle3Loss(unroll=1, autocast=False))
        else:
            batches = make_batches(held, args.batch_positions, args.seed)
            objective = EagleObjective(drafter.float(), target.get_input_embeddings(), head, vocab, EagleLoss(unroll=1))
        ranks = objective.first_guess_ranks(batches)
        print(f"{folder} ({drafter.kind}): " + ", ".join(f"{k} {v:.3f}" for k, v in ranks.items()))


def run_export(args) -> None:
    """The shipped drafts in folders vLLM loads (written to the specviz cache); prints the folder."""
    from specviz.serving.export import draft_folder, eagle_folder

    print(eagle_folder() if args.format == "vllm-eagle" else draft_folder())


STEPS = {"data": run_data, "eagle3": run_eagle3, "eagle": run_eagle, "draft": run_draft, "medusa": run_medusa,
         "cards": run_cards, "export": run_export, "rank": run_rank}


def loss_weights(weights, args):
    """The step's loss settings with the flags that were given."""
    if args.kd_weight is not None:
        weights.distillation = args.kd_weight
    if args.kd_positions is not None:
        weights.kd_positions = args.kd_positions
    return weights


def draft_vocabulary(records, size: int) -> torch.Tensor:
    """FR-Spec: the `size` most frequent token ids in the training data, most frequent first."""
    counts = torch.zeros(max(int(r.tokens.max()) for r in records) + 1, dtype=torch.long)
    for r in records:
        counts += torch.bincount(r.tokens, minlength=len(counts))[: len(counts)]
    return torch.argsort(counts, descending=True, stable=True)[:size]


def coverage(records, vocab: torch.Tensor) -> float:
    """The share of response tokens in `records` that the draft vocabulary contains."""
    vocab = vocab.cpu()
    inside = torch.zeros(int(vocab.max()) + 1 if len(vocab) else 1, dtype=torch.bool)
    inside[vocab] = True
    tokens = torch.cat([r.tokens[r.prompt_length:] for r in records])
    return float((tokens < len(inside)).logical_and(inside[tokens.clamp(max=len(inside) - 1)]).float().mean())
