"""Model cards for the trained drafts (assets/models/*/README.md), written from what was recorded: the data
step's log, the training log (the learning curve), specviz.json, and the benchmark of the held-out prompts.

    python -m specviz.distill cards
"""

from __future__ import annotations

import json
import math
import re
import shlex
from pathlib import Path

from specviz.core.i18n import fixed, small_digits
from specviz.core.paths import ASSETS, BENCHMARKS_DIR, read_json_once
from specviz.distill.data import GenerationPlan, chunk_infos
from specviz.distill.draft import DraftLoss
from specviz.distill.eagle import EagleLoss
from specviz.distill.stages import STAGES as DATA_STAGES
from specviz.distill.trainer import DEFAULT_BATCH_POSITIONS, DEFAULT_LR, DEFAULT_STEPS
from specviz.engine.draft_shape import DraftShape
from specviz.labs.bench.quoted import machine_text
from specviz.labs.bench.report import (TREE_ALPHA_MEANING, BenchResult, DtypeDefault, IsaLimits, StockKernels,
                                       SuitesDefault, current_note, is_load_note, rerun_command, rerun_differences)
from specviz.labs.bench.summary import ALPHA_DIGITS, predicted_as_written
from specviz.models.drafts import DRAFT_NAME, EAGLE_NAME, read_meta
from specviz.serving.server import DEFAULT_K as SERVE_K

BENCH = BENCHMARKS_DIR / "default-cpu-drafts" / "results.json"
# each draft's card reads the benchmark of the weights it describes: the EAGLE drafter's is the targets run
# (`scripts.targets_bench`, issue 13's, run again for issue 30 with the EAGLE-3 drafter on 2026-12-03; bfloat16, chain
# and tree); the separate draft's the float32 run of both drafts (its EAGLE rows are the replaced EAGLE-1 drafter's)
BENCHES = {"eagle": BENCHMARKS_DIR / "default-cpu-bf16-tree" / "results.json", "draft": BENCH}
TARGETS = {"eagle": {"first_position": 0.6, "speedup_greedy": 1.4, "mat": 2.3, "speedup_t07": 1.2},
           "eagle3": {"first_guess": 0.6, "speedup_greedy": 1.6, "mat": 2.8, "speedup_t07": 1.3},  # issue 30
           "draft": {"agreement": 0.4}}


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines()] if Path(path).exists() else []


def data_summary(work: Path, records: int | None = None) -> dict:
    """What the data step made: per stage its answers and response tokens, the minutes it took (held-out included)."""
    train, held = chunk_infos(Path(work) / "train"), chunk_infos(Path(work) / "held-out")
    stages: dict[str, dict] = {}
    for info in train:
        row = stages.setdefault(info["stage"], {"answers": 0, "new_tokens": 0, "sampled": 0, "minutes": 0.0})
        row["answers"] += info["jobs"]
        row["new_tokens"] += info["new_tokens"]
        row["sampled"] += info["sampled"]
        row["minutes"] += info["seconds"] / 60
    return {"stages": stages, "answers": sum(r["answers"] for r in stages.values()),
            "new_tokens": sum(r["new_tokens"] for r in stages.values()),
            "minutes": sum(i["seconds"] for i in train + held) / 60, "held_out_prompts": sum(i["jobs"] for i in held),
            "sampled": sum(r["sampled"] for r in stages.values()), "chunks": len(train),
            "max_new_tokens": _recorded_values(train, "max_new_tokens"),
            "temperature": _recorded_values([_with_temperatures(i) for i in train if i.get("sampled")],
                                            "temperatures")}


def _with_temperatures(info: dict) -> dict:
    """A chunk's info with its sampled answers' temperatures: from info.json, or for a chunk written before that
    recorded them, from its records.jsonl, which holds every answer's temperature (Read 44: such a chunk's card said
    "a temperature its data step did not record"). Unchanged when neither says."""
    records = Path(info.get("chunk", "")) / "records.jsonl"
    if info.get("temperatures") is not None or not info.get("chunk") or not records.exists():
        return info
    return {**info, "temperatures": sorted({t for r in read_jsonl(records) if (t := r.get("temperature") or 0) > 0})}


def _recorded_values(infos: list[dict], key: str) -> list | None:
    """The values the chunks record for `key` (a value or a list of them), sorted; None when a chunk does not record
    it (or there are no chunks): chunks written before the data step recorded it say nothing."""
    if not infos or any(info.get(key) is None for info in infos):
        return None
    values = [v for info in infos for v in (info[key] if isinstance(info[key], list) else [info[key]])]
    return sorted(set(values)) or None


# what a card says for a setting its run's record (specviz.json, the data step's chunks) does not hold, in place of
# today's default (Read 44: the cards typed the defaults, whatever the run's flags were)
NOT_RECORDED = "not recorded in its specviz.json"
# The training settings of weights whose specviz.json predates recording them, by the commit that made them (its
# `made_at`) and their kind: that commit's distill code's defaults, which the card's command (no flags) left in place,
# read from its code with `git show` (Read 45: the draft's card stated "512 random positions per batch" with no
# source). 35ce4c2: specviz/distill/cli.py `--lr` 1e-3 and `--batch-positions` 2048 (`--kd-weight` and
# `--kd-positions` None: the loss's own), specviz/distill/draft.py `DraftLoss` distillation 1.0, kd_positions 512.
MADE_AT_DEFAULTS = {("35ce4c2baa51c1e36a0717b51a01ef0386469d59", "draft"):
                    {"lr": 1e-3, "batch_positions": 2048, "kd_weight": 1.0, "kd_positions": 512}}


def _or_list(values: list) -> str:
    return _and_list([f"{v:g}" for v in values]).replace(" and ", " or ")


def token_limit(data: dict) -> str:
    """The data step's new-token limit, as its chunks record it (`GenerationPlan.max_new_tokens`, `--max-new-tokens`).

    >>> token_limit({"max_new_tokens": [192]}), token_limit({"max_new_tokens": [128, 192]})
    ('up to 192 new tokens', 'up to 128 or 192 new tokens')
    >>> token_limit({"max_new_tokens": None})
    'up to a number of new tokens its data step did not record'
    """
    limits = data.get("max_new_tokens")
    if not limits:
        return "up to a number of new tokens its data step did not record"
    return f"up to {_or_list(limits)} new tokens"


def sampled_at(data: dict) -> str:
    """The temperature the sampled answers were drawn at, as the data step's chunks record it.

    >>> sampled_at({"temperature": [0.7]}), sampled_at({})
    ('T = 0.7', 'a temperature its data step did not record')
    """
    temperatures = data.get("temperature")
    return f"T = {_or_list(temperatures)}" if temperatures else "a temperature its data step did not record"


def training_settings(meta: dict) -> dict[str, str]:
    """The training settings a card states, each from the run's specviz.json (what `distill.cli` records from its
    flags: `--lr`, `--batch-positions`, `--kd-weight`, `--kd-positions`, and the feature noise), or a phrase saying
    it is not recorded: never today's default.

    >>> shown = training_settings({"lr": 0.0005, "batch_positions": 4096, "kd_weight": 0.5, "kd_positions": 256,
    ...                            "noise": 0.1})
    >>> for key in ("lr", "batch", "kd", "positions", "noise"): print(shown[key])
    0.0005
    at most 4,096 padded positions
    0.5 × the cross-entropy
    256 random positions
    uniform noise ±0.1
    >>> shown = training_settings({})
    >>> for key in ("lr", "kd", "positions"): print(shown[key])
    not recorded in its specviz.json
    the cross-entropy (its weight not recorded in its specviz.json)
    random positions (how many not recorded in its specviz.json)

    Weights made by a commit whose defaults `MADE_AT_DEFAULTS` holds state those, each saying where it comes from:

    >>> made = {"kind": "draft", "made_at": {"commit": "35ce4c2baa51c1e36a0717b51a01ef0386469d59"}}
    >>> print(training_settings(made)["positions"])
    512 random positions (that code's default; not recorded in its specviz.json)
    """
    made = meta.get("made_at") or {}
    defaults = MADE_AT_DEFAULTS.get((made.get("commit"), meta.get("kind")), {})
    source = {key: "" if meta.get(key) is not None else f" (that code's default; {NOT_RECORDED})" for key in defaults}
    lr, batch, weight, positions = (meta.get(key, defaults.get(key))
                                    for key in ("lr", "batch_positions", "kd_weight", "kd_positions"))
    noise = meta.get("noise")
    return {
        "lr": f"{lr:g}{source.get('lr', '')}" if lr is not None else NOT_RECORDED,
        "batch": (f"at most {batch:,} padded positions{source.get('batch_positions', '')}" if batch is not None
                  else f"padded positions (how many {NOT_RECORDED})"),
        "kd": ((f"the cross-entropy (its weight 1: that code's default; {NOT_RECORDED})" if source.get("kd_weight")
                else "the cross-entropy") if weight == 1
               else f"{weight:g} × the cross-entropy{source.get('kd_weight', '')}" if weight is not None
               else f"the cross-entropy (its weight {NOT_RECORDED})"),
        "positions": (f"{positions} random positions{source.get('kd_positions', '')}" if positions is not None
                      else f"random positions (how many {NOT_RECORDED})"),
        "noise": f"uniform noise ±{noise:g}" if noise is not None else f"uniform noise (its size {NOT_RECORDED})",
    }


def read_bench(bench: Path) -> dict:
    """A benchmark's results.json ({} when it was not run), read once per version of the file (its size and
    modification time): a card asks it a dozen questions. Shared between callers: read it, never change it."""
    return read_json_once(bench) if bench.exists() else {}


def bench_rows(proposer_prefix: str, bench: Path = BENCH) -> list[dict]:
    return [r for r in read_bench(bench).get("summary", []) if r["proposer"].startswith(proposer_prefix) and r["policy"] == "constant"
            and r["suite"] == "all"]


def bench_dtype(bench: Path) -> str:
    """The dtype the benchmark ran in (older runs did not record it: float32)."""
    result = read_bench(bench)
    return result.get("machine", {}).get("dtype") or result.get("config", {}).get("dtype") or "float32"


def bench_where(bench: Path) -> str:
    """Where and when the benchmark ran, as ", on AMD EPYC (2 cores), 2026-11-30" ("" when not recorded): the
    machine in `quoted.machine_text`'s words, the ones every page uses (the GPU when the models ran on one).

    >>> import tempfile; folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "r.json").write_text('{"machine": {"cpu": "AMD EPYC", "cores": 2, "date": "2026-11-30T07:29Z"}}')
    >>> bench_where(folder / "r.json")
    ', on AMD EPYC (2 cores, stock kernels), 2026-11-30'
    """
    record = read_bench(bench).get("machine") or {}
    machine = machine_text(record)
    if not machine:
        return ""
    date = f", {str(record['date'])[:10]}" if record.get("date") else ""
    return f", on {machine}{date}"


def bench_scope(bench: Path, held: int) -> str:
    """What the benchmark ran, from its results.json: which prompts, at which temperatures and K, how many new
    tokens. The held-out suite (the one the cards' benchmarks run) reads "the first 8 of the 64 held-out prompts"
    (`held`: the held-out prompts the data step answered); named suites read the first prompts of each, with the
    ids of the prompts its rows measured; no suite named, the first prompts of every suite in assets/prompts.
    Temperatures and K values are the config's (a tree's K is its depth); a file that records none leaves them out.
    A run its time limit cut short says how many prompt x temperature cases it left unrun (its note).

    >>> import tempfile; folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "r.json").write_text('{"config": {"suites": ["held-out"], "prompts_per_suite": 8, '
    ...                                    '"max_new_tokens": 128, "temperatures": [0.0, 0.7], "ks": [2, 3, 4]}}')
    >>> bench_scope(folder / "r.json", 64)
    'the first 8 of the 64 held-out prompts at T = 0 and 0.7 with K = 2, 3 and 4, 128 new tokens'
    >>> _ = (folder / "r.json").write_text('{"config": {"suites": ["qa", "code"], "prompts_per_suite": 1, '
    ...     '"max_new_tokens": 64, "temperatures": [0.0], "ks": [4]}, "cases": [{"prompt_id": "qa-1"}, '
    ...     '{"prompt_id": "qa-1"}, {"prompt_id": "code-1"}]}')
    >>> bench_scope(folder / "r.json", 64)
    'the first prompt of each of the suites qa and code (qa-1 and code-1) at T = 0 with K = 4, 64 new tokens'
    >>> _ = (folder / "r.json").write_text('{"config": {"suites": [], "prompts_per_suite": 2, "max_new_tokens": 64}}')
    >>> bench_scope(folder / "r.json", 64)
    'the first 2 prompts of every suite in assets/prompts, 64 new tokens'
    """
    run = read_bench(bench)
    config = run.get("config") or {}
    count, tokens = config.get("prompts_per_suite", "?"), config.get("max_new_tokens", "?")
    suites = config.get("suites") or []
    first = "the first prompt" if count == 1 else f"the first {count} prompts"
    if suites == ["held-out"]:
        prompts = f"the first {count} of the {held} held-out prompts"
    elif suites:
        named = f"the suite {suites[0]}" if len(suites) == 1 else f"each of the suites {_and_list(suites)}"
        ids = list(dict.fromkeys(str(c["prompt_id"]) for c in run.get("cases") or [] if c.get("prompt_id")))
        prompts = f"{first} of {named}" + (f" ({_and_list(ids)})" if ids else "")
    else:
        prompts = f"{first} of every suite in assets/prompts"
    temperatures, ks = config.get("temperatures") or [], config.get("ks") or []
    at = f" at T = {_and_list([f'{float(t):g}' for t in temperatures])}" if temperatures else ""
    with_k = f" with K = {_and_list([str(k) for k in ks])}" if ks else ""
    stopped = next((re.search(r"(\d+) of (\d+) prompt x temperature cases? did not run", str(n))
                    for n in run.get("notes") or [] if "did not run" in str(n)), None)
    cut = (f" (its time limit left {stopped[1]} of {stopped[2]} prompt × temperature "
           f"{'case' if stopped[2] == '1' else 'cases'} unrun)" if stopped else "")
    return f"{prompts}{at}{with_k}, {tokens} new tokens{cut}"


def _and_list(items: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def trained_on(meta: dict) -> str:
    """The machine that trained the draft, as its specviz.json records it (`distill.cli.training_machine`: the CPU
    or GPU in `quoted.machine_text`'s words, then torch and transformers); weights trained before it was recorded
    say so instead of naming the machine that writes the card.

    >>> trained_on({"machine": {"cpu": "AMD EPYC", "cores": 2, "gpu": None, "torch": "2.13.0+cpu"}})
    'AMD EPYC (2 cores), torch 2.13.0+cpu'
    >>> trained_on({})
    'a machine its specviz.json does not record'
    """
    record = meta.get("machine") or {}
    where = machine_text(record)
    if not where:
        return "a machine its specviz.json does not record"
    versions = [f"{name} {record[name]}" for name in ("torch", "transformers") if record.get(name)]
    return ", ".join([where, *versions])


def bench_note(bench: Path) -> str:
    """The run's own note that it started on a busy machine (absolute times may be noisy), in today's words
    (`report.load_note`, worded by its load against its cores and threads), as a paragraph; "" when it did not."""
    run = read_bench(bench)
    machine = run.get("machine") or {}
    cores, threads = machine.get("cores", "?"), machine.get("torch_threads")
    busy = next((current_note(str(n), cores, threads) for n in run.get("notes") or [] if is_load_note(str(n))), "")
    return f"{busy}\n\n" if busy else ""


def bench_command(bench: Path = BENCH) -> str:
    """The command that re-runs the benchmark as it ran: the one its results.json records, plus the settings it then
    had by default and a run today would not (`report.rerun_command`: stock kernels for a CPU run made before the
    packed ones, SPECVIZ_KERNELS=stock; the dtype of a run that named none, a CPU with bfloat16 instructions now
    defaulting to bfloat16; the suites of a run that named none, when today's default runs others).

    >>> import tempfile; folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "r.json").write_text('{"command": "python -m specviz bench --k 2 --out x", '
    ...                                    '"machine": {"date": "2026-11-30"}}')
    >>> bench_command(folder / "r.json")
    'SPECVIZ_KERNELS=stock python -m specviz bench --k 2 --dtype float32 --out x'
    >>> _ = (folder / "r.json").write_text('{"command": "python -m specviz bench --dtype float32", '
    ...                                    '"machine": {"kernels": "onednn-packed"}}')
    >>> bench_command(folder / "r.json"), bench_command(folder / "none.json")
    ('python -m specviz bench --dtype float32', '(not run yet)')
    """
    result = _bench_result(bench)
    return "(not run yet)" if result is None else committed_out(rerun_command(result), bench)


# a recorded command's --out value: one word, or the single-quoted path `specviz bench` writes for one with a space
# (`shlex.quote` in specviz.labs.bench.cli)
_OUT_VALUE = re.compile(r"(?<= --out )(?:'[^']*'|\S+)")


def committed_out(command: str, bench: Path) -> str:
    """The command with `--out` naming the folder its results.json is committed in, when a committed run wrote to
    another first (the EAGLE card's, recorded with `--out /tmp/tb1`): typed from the repository root, it writes
    where the card's numbers lie. A results.json outside assets/benchmarks keeps its command.

    >>> tree = BENCHMARKS_DIR / "default-cpu-bf16-tree" / "results.json"
    >>> committed_out("python -m specviz bench --k 4 --out /tmp/tb1", tree)
    'python -m specviz bench --k 4 --out assets/benchmarks/default-cpu-bf16-tree'
    >>> committed_out("python -m specviz bench --out '/tmp/my runs/a' --k 4", tree)
    'python -m specviz bench --out assets/benchmarks/default-cpu-bf16-tree --k 4'
    >>> committed_out("python -m specviz bench --out x", Path("/tmp/r.json"))
    'python -m specviz bench --out x'
    """
    if not bench.parent.is_relative_to(BENCHMARKS_DIR):
        return command
    folder = bench.parent.relative_to(BENCHMARKS_DIR.parent.parent).as_posix()
    return _OUT_VALUE.sub(lambda _found: shlex.quote(folder), command, count=1)


def _bench_result(bench: Path) -> BenchResult | None:
    """The parts of the benchmark's results.json the rerun questions read (None when it was not run); a card's own
    tests write only those parts."""
    result = read_bench(bench)
    if not result.get("command"):
        return None
    return BenchResult(command=result["command"], created=result.get("created", ""),
                       machine=result.get("machine") or {}, config=result.get("config") or {}, costs={}, cases=[],
                       baselines=[], summary=result.get("summary") or [], suites=result.get("suites") or [])


# what `bench_command` spells out for each of `report.rerun_differences`, and what the recorded command takes today
RERUN_WORDS = {StockKernels: ("kernels", "packed kernels on a CPU"),
               DtypeDefault: ("dtype", "the default dtype of the machine it runs on"),
               SuitesDefault: ("suites", "every suite in assets/prompts"),
               IsaLimits: ("instruction-set caps", "whatever instructions the CPU has")}


def bench_rerun_note(bench: Path) -> str:
    """What `bench_command` added to the recorded command, as a clause for the card ("" when nothing): the settings
    it names, and what the recorded command takes instead when typed today. Not "no longer the defaults": a run that
    named no dtype took its CPU's default, which on a CPU with bf16 instructions is bfloat16 today too (the EAGLE
    card's run on the Intel Xeon).

    >>> from specviz.distill.cards import BENCHES
    >>> note = bench_rerun_note(BENCHES["eagle"]).split(" (")[0]
    >>> for part in note.split(", and "): print(part)
    ; the command its results.json records, with the dtype and kernels it ran named
    `--out` the folder it is committed in
    """
    result = _bench_result(bench)
    if result is None or bench_command(bench) == result.command:
        return ""
    kinds = list(dict.fromkeys(type(d) for d in rerun_differences(result) if type(d) in RERUN_WORDS))
    names, today = [RERUN_WORDS[k][0] for k in kinds], [RERUN_WORDS[k][1] for k in kinds]
    joined = " and ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + " and " + names[-1]
    moved = committed_out(result.command, bench) != result.command
    out = ", and `--out` the folder it is committed in" if moved else ""
    named = f", with the {joined} it ran named{out}" if names else f"{out}"
    typed = f" (typed as recorded, it takes {'; '.join(today)})" if names else ""
    return f"; the command its results.json records{named}{typed}"


def made_at(meta: dict) -> str:
    """For weights made before the data step took its present stages (specviz.json's `made_at`: the commit whose
    code ran the card's commands, and its data step's new-token limit), a sentence saying so: today's
    `distill data` makes other data, so the same commands would not train these weights ("" otherwise).

    >>> note = made_at({"train_records": 3000, "made_at": {"commit": "35ce4c2baa51c1e3", "max_new_tokens": 128}})
    >>> "of commit `35ce4c2baa51`" in note and "answered 3,000 template × topic prompts up to 128 new tokens" in note
    True
    >>> made_at({})
    ''
    """
    made = meta.get("made_at")
    if not made:
        return ""
    commit = made["commit"][:12]
    return (f" They made these weights with the code of commit `{commit}`, whose data step answered "
            f"{meta['train_records']:,} template × topic prompts up to {made['max_new_tokens']} new tokens; today's "
            "runs the "
            f"{len(DATA_STAGES)} stages of `specviz/distill/stages.py` up to {GenerationPlan.max_new_tokens}, so on "
            f"today's code they train on other data: to repeat this card's run, run them on a checkout of `{commit}`.")


# What the distill work folder (not committed: its data chunks, its training logs) gave a card, kept beside the card
# so that `python -m specviz.distill cards` writes the committed cards again without that folder (Read 49: the cards
# had drifted from their generator, and nothing could regenerate them to show it)
RECORD = "card-record.json"
FROM_WORK = ("Written by `python -m specviz.distill cards` from the distill work folder's data chunks (info.json) and "
             "training logs (log.jsonl), which are not committed.")


def card_inputs(work: Path, runs: list[str], folder: Path) -> dict | None:
    """What a card is written from: {"data": the data step's summary, "log": the training log, "work": the work
    folder}, read from `work` when it holds the training log of `runs`, and then kept in the card's folder (RECORD);
    else what RECORD kept; None when neither (the card stays as it is)."""
    log = stage_logs(Path(work), runs)
    record = Path(folder) / RECORD
    if log:
        inputs = {"source": FROM_WORK, "work": Path(work).as_posix(), "data": data_summary(Path(work)), "log": log}
        kept = json.loads(record.read_text(encoding="utf-8")).get(WITHOUT_LOOKUP) if record.exists() else None
        if kept:  # not from the work folder: a committed run the card compares with (`committed_run`), kept
            inputs[WITHOUT_LOOKUP] = kept
        record.write_text(json.dumps(inputs, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        return inputs
    return json.loads(record.read_text(encoding="utf-8")) if record.exists() else None


def stage_logs(work: Path, runs: list[str]) -> list[dict]:
    """The evaluations of each training stage in order, with cumulative steps and minutes and the stage's number.
    A resumed run goes on from the minutes its checkpoint kept (`trainer.train_loop`); should a log's minutes ever
    fall back (a checkpoint without them), the total before the fall is added back."""
    out, step0, minutes0 = [], 0, 0.0
    for stage, run in enumerate(runs, start=1):
        offset, last = 0.0, 0.0
        rows = read_jsonl(work / run / "log.jsonl")
        for r in rows:
            if r["minutes"] < last:
                offset += last
            last = r["minutes"]
            out.append({**r, "stage": stage, "step": step0 + r["step"], "minutes": round(minutes0 + offset + r["minutes"], 1)})
        if rows:
            step0, minutes0 = out[-1]["step"], out[-1]["minutes"]
    return out


def train_command(kind: str, log: list[dict], total: int, history: list[str] | None = None,
                  meta: dict | None = None) -> str:
    """The training command with the flags this run needed (steps, and the batch size, learning rate and (eagle, draft)
    distillation weight and positions its specviz.json records, where they differ from the defaults); a run resumed
    under other settings lists its commands in order (`history` in specviz.json), since no single command gives its
    weights.

    >>> print(train_command("eagle3", [], 2600, ["python -m specviz.distill eagle3 --steps 1300", "# then ..."]))
    python -m specviz.distill eagle3 --steps 1300
    # then ...
    >>> train_command("eagle3", [], 1300, meta={"batch_positions": 4096, "lr": 0.001})
    'python -m specviz.distill eagle3 --steps 1300 --batch-positions 4096'
    >>> train_command("draft", [], 1000, meta={"kd_weight": 0.5, "kd_positions": 512})
    'python -m specviz.distill draft --kd-weight 0.5'
    """
    if history:
        return "\n".join(history)
    meta = meta or {}
    losses = {"eagle": EagleLoss(), "draft": DraftLoss()}.get(kind)  # --kd-weight and --kd-positions change these
    kd = [("kd_weight", "--kd-weight", losses.distillation),
          ("kd_positions", "--kd-positions", losses.kd_positions)] if losses else []
    recorded = "".join(f" {flag} {meta[key]:g}" for key, flag, default in (
        ("batch_positions", "--batch-positions", DEFAULT_BATCH_POSITIONS), ("lr", "--lr", DEFAULT_LR), *kd)
        if meta.get(key) is not None and meta[key] != default)
    if kind == "eagle3":
        given = f" --steps {total}" if total != DEFAULT_STEPS[kind] else ""
        return f"python -m specviz.distill eagle3{given}{recorded}"
    steps = stage_steps(log, total) if kind == "eagle" else {"stage1": total, "stage2": 0}
    flags = f" --steps {steps['stage1']}" if steps["stage1"] != DEFAULT_STEPS[kind] else ""
    flags += f" --ttt-steps {steps['stage2']}" if kind == "eagle" and steps["stage2"] != DEFAULT_STEPS["eagle-ttt"] else ""
    return f"python -m specviz.distill {kind}{flags}{recorded}"


def stage_steps(log: list[dict], total: int) -> dict:
    """{"stage1": steps of the first stage, "stage2": the rest}, read off the learning curve's stage numbers."""
    first = max((r["step"] for r in log if r["stage"] == 1), default=total)
    return {"stage1": first, "stage2": total - first}


CURVE_SOURCE = ("Read from each training stage's evaluation log (`log.jsonl` in its run folder under the distill "
                f"work folder, which is not committed); `{RECORD}` beside this card keeps every row as shown here, "
                "`training` in specviz.json the last one in full.")


def learning_curve(log: list[dict], metrics: list[str]) -> str:
    """The held-out evaluations as a table, then where they come from (CURVE_SOURCE: RECORD is the only committed
    copy of the rows before the last)."""
    present = [m for m in metrics if any(m in r for r in log)]
    rows = ["| stage | step | epoch | minutes | " + " | ".join(present) + " |", "|---:" * (4 + len(present)) + "|"]
    rows += [f"| {r['stage']} | {r['step']} | {r['epoch']} | {r['minutes']} | "
             + " | ".join(f"{fixed(r[m], 3)}" if m in r else "–" for m in present) + " |" for r in log]
    return "\n".join(rows) + "\n\n" + CURVE_SOURCE


def extrapolate(log: list[dict], metric: str) -> str:
    """A rough log-linear fit of the metric against steps over the second half of training: the slope only, since
    no figure beyond the last evaluation was measured (Read 49: the cards gave "roughly 0.51" for twice the compute
    and "0.58" for four times, and said more data "keeps a longer run from memorising", none of it measured).

    >>> log = [{"step": s, "acc1": a} for s, a in ((100, 0.2), (200, 0.3), (400, 0.4))]
    >>> print(extrapolate(log, "acc1"))  # doctest: +NORMALIZE_WHITESPACE
    Over the second half of training the held-out acc1 grew by about +0.100 per doubling of steps (a log-linear fit
    of its last 2 evaluations: a fit, not a measured longer run, so this card gives no figure for more steps or more
    data).
    """
    late = [r for r in log if r["step"] >= log[-1]["step"] / 2 and r[metric] > 0]
    if len(late) < 2:
        return "Too few evaluations to extrapolate."
    xs, ys = [math.log(r["step"]) for r in late], [r[metric] for r in late]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / max(sum((x - mx) ** 2 for x in xs), 1e-9)
    gain = slope * math.log(2)
    return (f"Over the second half of training the held-out {metric} grew by about {gain:+.3f} per doubling of "
            f"steps (a log-linear fit of its last {len(late)} evaluations: a fit, not a measured longer run, so this "
            "card gives no figure for more steps or more data).")


def identical_text(row: dict) -> str:
    """A row's greedy identity count as the benchmark recorded it (`identical_count`, "4/8": of its prompts at
    T = 0, how many came out token for token as the same run's target-only decoding), "4 of 8"; "–" where it
    was not compared (T > 0: the two draw their random numbers differently).

    >>> identical_text({"identical_count": "4/8"}), identical_text({"identical_count": None})
    ('4 of 8', '–')
    """
    count = row.get("identical_count")
    return " of ".join(str(count).split("/")) if count else "–"


def identity_note(dtype: str) -> str:
    """What the table's greedy identity column says, and what it can say in the run's dtype (Read 49: the EAGLE
    card's bfloat16 table left out that its greedy outputs matched target-only decoding on 4 and 3 of 8 prompts)."""
    if dtype == "float32":
        why = ("In float32 the rule is exact in exact arithmetic and an identical count is what this run observed: "
               "other rounding could still flip a near-tie between the target's two best tokens.")
    else:
        why = (f"In {dtype} greedy output equals target-only decoding only up to numerics: a verify pass over "
               "several tokens (K + 1 for a chain; a tree's nodes, its lookup branch and one more) rounds "
               "differently from a one-token pass, a near-tie between the target's two best tokens can flip, and "
               "from there the texts part (`specviz.engine.numerics`).")
    return ("Greedy output identical: of the prompts at T = 0, how many came out token for token as the same run's "
            "target-only decoding (– at T > 0, where the two draw their random numbers differently). " + why)


def bench_table(rows: list[dict], dtype: str = "float32", costs: dict | None = None) -> str:
    """The card's benchmark table, each figure written as the run's results.md writes it (`fixed`, half up; c with
    `small_digits`), and its prediction from the α, c and verify cost as written (`summary.predicted_as_written`,
    from `costs`, the run's): read 54 found α and c written by Python's format and the prediction from every digit
    (the draft card's K = 2 read 0.64× where results.md, from the figures it writes, reads 0.63×)."""
    if not rows:
        return "Not benchmarked yet: run the command under *Command*."
    head = ["| T | draft | K | α estimate (tree: main-line mean min(1, p′/q′)) | c | mean accepted length "
            "(recovered or bonus token incl.) | acceptance by position | speedup vs target-only | "
            "vs model.generate | predicted (measured verify cost) | greedy output identical |",
            "|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---:|"]
    def predicted(row: dict) -> float | None:
        if costs and costs.get("verify"):
            return predicted_as_written(row, costs)["predicted_speedup_measured_verify"]
        return row.get("predicted_speedup_measured_verify")

    body = [f"| {r['temperature']:g} | {DraftShape.of(r).shown()} | {r['k']} | "
            f"{fixed(r['alpha'], ALPHA_DIGITS)}{'†' if r.get('tree_nodes') else ''} | "
            f"{c_text(r['c'])} | {fixed(r['mat_with_bonus'])} | "
            f"{' / '.join(fixed(a) if isinstance(a, int | float) else '–' for a in r['per_position'])} | "
            f"{_fmt(r.get('speedup_vs_ar'))} | "
            f"{_fmt(r.get('speedup_vs_hf_generate'))} | {_fmt(predicted(r))} | "
            f"{identical_text(r)} |"
            for r in sorted(rows, key=lambda r: (r["temperature"], r.get("tree_nodes") or 0, r["k"]))]
    if any(r.get("tree_nodes") for r in rows):  # results.md says it too (report.TREE_ALPHA_NOTE)
        body += ["", TREE_ALPHA_MEANING + "."]
    return "\n".join(head + body + ["", identity_note(dtype)])


def _fmt(x) -> str:
    return "–" if x is None else f"{fixed(x)}×"


def c_text(c: float) -> str:
    """A measured c as results.md, the Speedup lab and the Theory explorer write it: 3 decimals, or two significant
    digits where 3 would write 0 (read 54: the draft card's "c = 0.30" where its results.md reads 0.303).

    >>> c_text(0.30299), c_text(0.000217)
    ('0.303', '0.00022')
    """
    return fixed(c, small_digits(c))


def needed_length(bench: Path, row: dict, speedup: float) -> tuple[float, float] | None:
    """(tokens per step needed for `speedup`, one step's cost in target forwards) from the measured costs."""
    result = read_bench(bench)
    if not result:
        return None
    verify = {v["n_tokens"]: v["ratio"] for v in result["costs"]["verify"]}
    cost = row["k"] * row["c"] + verify.get(row["k"] + 1, 1.0)
    return speedup * cost, cost


def chain_alpha(length: float, k: int) -> float:
    """The constant per-position acceptance a for which (1 - a^(k+1)) / (1 - a) = length (bisection)."""
    lo, hi = 0.0, 0.999
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if (1 - mid ** (k + 1)) / (1 - mid) < length else (lo, mid)
    return lo


# The run a card with a lookup branch compares with: the same benchmark without `--tree-lookup`, as the commit before
# the branch came in (f75c49d) holds it: `git show 3e40c3f:assets/benchmarks/default-cpu-bf16-tree/results.json`. What
# the card reads of it (its command, machine and tree rows) is kept in the EAGLE card's record (RECORD, its
# WITHOUT_LOOKUP entry), so a clone without that history writes the same card (read 50: a shallow clone dropped the
# paragraph)
NO_LOOKUP = {BENCHMARKS_DIR / "default-cpu-bf16-tree" / "results.json": "3e40c3f"}
WITHOUT_LOOKUP = "without_lookup"


def committed_run(bench: Path, record: dict | None = None) -> tuple[str, dict] | None:
    """(commit, results) of the run without the lookup branch that NO_LOOKUP names for `bench`, as `record` (a card's
    RECORD; by default the shipped EAGLE card's) keeps it under WITHOUT_LOOKUP: that commit's command, machine and
    summary rows of its trees over all suites. None when NO_LOOKUP names none or the record keeps another run."""
    commit = NO_LOOKUP.get(bench)
    if commit is None:
        return None
    if record is None:
        path = ASSETS / "models" / EAGLE_NAME / RECORD
        record = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    kept = record.get(WITHOUT_LOOKUP) or {}
    where = bench.relative_to(BENCHMARKS_DIR.parent.parent).as_posix()
    if kept.get("commit") != commit or kept.get("path") != where:
        return None
    return commit, kept["results"]


def _without_lookup(rows: list[dict], bench: Path,
                    record: dict | None = None) -> tuple[str, dict, dict[float, dict]] | None:
    """(commit, results, {temperature: its row}) of the run without the lookup branch, its rows the trees of the
    same nodes, width and K as the rows' best greedy tree with a lookup branch (None when there is no such tree)."""
    tree = best([r for r in rows if r.get("tree_lookup")], 0.0)
    run = committed_run(bench, record) if tree else None
    if run is None:
        return None
    same = {t: r for r in run[1].get("summary", []) if r["suite"] == "all" and r["policy"] == "constant"
            and r["proposer"] == tree["proposer"] and not r.get("tree_lookup")
            and all(r.get(key) == tree[key] for key in ("tree_nodes", "tree_width", "k"))
            for t in [r["temperature"]]}
    return (run[0], run[1], same) if 0.0 in same else None


def _command_without(command: str, *flags: str) -> str:
    """The command without `flags` and their values (one word each)."""
    return re.sub(r" (?:%s) \S+" % "|".join(map(re.escape, flags)), "", command)


def lookup_note(rows: list[dict], bench: Path, record: dict | None = None) -> str:
    """What the trees' lookup branch is and what the same trees did without it, as a paragraph ("" when the rows'
    trees have none, or the record keeps no run without it): the figures of the committed run NO_LOOKUP names, as
    the card's `record` keeps them (`committed_run`)."""
    found = _without_lookup(rows, bench, record)
    if found is None:
        return ""
    commit, run, same = found
    tree = best([r for r in rows if r.get("tree_lookup")], 0.0)
    shape = DraftShape.of(tree)
    depth = shape.k  # a tree's depth is its K
    reach = (f"; positions {depth + 1}-{shape.tree_lookup} are reached only through it"
             if shape.tree_lookup > depth else "")
    machine = run.get("machine") or {}
    when = str(machine.get("date", ""))[:16].replace("T", " ")
    command = _command_without(read_bench(bench).get("command", ""), "--tree-lookup", "--out")
    alike = ("the same command without `--tree-lookup`" if command == _command_without(run.get("command", ""), "--out")
             else f"`{run.get('command', '')}`")
    path = bench.relative_to(BENCHMARKS_DIR.parent.parent).as_posix()

    def figures(row: dict) -> tuple[str, str, str]:
        return fixed(row["mat_with_bonus"]), _fmt(row.get("speedup_vs_hf_generate")), _fmt(row.get("speedup_vs_ar"))

    greedy = figures(same[0.0])
    text = (f"The trees carry a lookup branch: up to {shape.tree_lookup} tokens copied from the context (prompt "
            f"lookup), grafted on the drafter's tree{reach}. Without it (the run of {when} UTC on "
            f"{machine_text(machine)}, {machine.get('dtype', 'float32')} on both sides, {alike}: `git show "
            f"{commit}:{path}`) the greedy tree emitted {greedy[0]} tokens per forward at {greedy[1]} over "
            f"`model.generate` ({greedy[2]} over target-only)")
    if 0.7 in same:
        sampled = figures(same[0.7])
        text += f", and {sampled[0]} at {sampled[1]} ({sampled[2]}) at T = 0.7"
    return text + ".\n\n"


def best(rows: list[dict], temperature: float, key: str = "speedup_vs_hf_generate") -> dict | None:
    rows = [r for r in rows if r["temperature"] == temperature and r.get(key)]
    return max(rows, key=lambda r: r[key]) if rows else None


def verdict(ok: bool | None) -> str:
    return "not measured" if ok is None else "met" if ok else "missed"


def setting(row: dict) -> str:
    """The row's `DraftShape.shown()`: 'chain K=4', 'tree 16×4 depth 4 + lookup 8'."""
    return DraftShape.of(row).shown()


def target_line(label: str, row: dict | None, key: str, target: float, unit: str = "×", where: bool = True) -> str:
    """"- label: 1.45× at tree 16x4 depth 4 (met)": a target against the best row's measured value."""
    if not row:
        return f"- {label}: not measured"
    value = row[key]
    return f"- {label}: {fixed(value, 2)}{unit}{f' at {setting(row)}' if where else ''} ({verdict(value >= target)})"


def first_guess_line(meta: dict, target: float) -> str:
    """The first-guess target against `python -m specviz.distill rank`'s top1 (specviz.json's `rank_held_out`: the
    drafter in float32), with the last training evaluation's `acc1` (the learning curve's last row; matrix products
    in bfloat16) beside it; `acc1` alone when rank was not recorded. Not the training evaluation's own top1 (0.614
    for the shipped drafter), which the card shows nowhere (Read 49: the generator printed that figure, unnamed,
    where the card said 0.616 by rank).

    >>> print(first_guess_line({"training": {"acc1": 0.6154, "top1": 0.6139},
    ...                         "rank_held_out": {"this": {"top1": 0.616}}}, 0.6))  # doctest: +NORMALIZE_WHITESPACE
    - Held-out first guess ≥ 0.6: 0.616 by `python -m specviz.distill rank` (`acc1` 0.615 at the last training
    evaluation; met)
    >>> first_guess_line({"training": {"acc1": 0.55}}, 0.6)
    '- Held-out first guess ≥ 0.6: `acc1` 0.550 at the last training evaluation (missed)'
    """
    acc1 = meta["training"]["acc1"]
    ranked = ((meta.get("rank_held_out") or {}).get("this") or {}).get("top1")
    if ranked is None:
        return f"- Held-out first guess ≥ {target}: `acc1` {fixed(acc1, 3)} at the last training evaluation " \
               f"({verdict(acc1 >= target)})"
    return (f"- Held-out first guess ≥ {target}: {fixed(ranked, 3)} by `python -m specviz.distill rank` "
            f"(`acc1` {fixed(acc1, 3)} at the last training evaluation; {verdict(ranked >= target)})")


def target_lines(kind: str, meta: dict, rows: list[dict], bench: Path = BENCH, record: dict | None = None) -> list[str]:
    t = TARGETS[kind]
    if kind == "eagle3":
        g, s = best(rows, 0.0), best(rows, 0.7)
        mat = target_line(f"≥ {t['mat']} tokens per target forward, greedy", g, "mat_with_bonus", t["mat"], unit="",
                          where=False)
        alone = _without_lookup(rows, bench, record) if g and g.get("tree_lookup") else None
        if alone:  # "2.90 (met)" -> "2.90 with the lookup branch (met; 2.74 with the drafter's tree alone)"
            mat = mat.replace(" (", " with the lookup branch (", 1)[:-1] + (
                f"; {fixed(alone[2][0.0]['mat_with_bonus'], 2)} with the drafter's tree alone)")
        return [first_guess_line(meta, t["first_guess"]),
            target_line(f"≥ {t['speedup_greedy']}× over `model.generate`, greedy", g, "speedup_vs_hf_generate",
                        t["speedup_greedy"]),
            mat,
            target_line(f"≥ {t['speedup_t07']}× over `model.generate(do_sample=True)` at T = 0.7", s,
                        "speedup_vs_hf_generate", t["speedup_t07"]),
        ]
    if kind == "eagle":
        g, s = best(rows, 0.0), best(rows, 0.7, "speedup_vs_ar")
        # a tree's first entry is the share of steps where ANY of its first-level drafts was kept, not one draft's
        # acceptance: the target is a chain's, so read it off the best greedy chain row
        chain = best([r for r in rows if not r.get("tree_nodes")], 0.0)
        first = chain["per_position"][0] if chain else None
        lines = [
            f"- First-position acceptance (chain) ≥ {t['first_position']}: " + (
                f"{fixed(first, 2)} at {setting(chain)} ({verdict(first >= t['first_position'])}"
                + (f", by {fixed(t['first_position'] - first, 2)})" if first < t["first_position"] else ")") if chain
                else "not measured"),
            target_line(f"Speedup ≥ {t['speedup_greedy']}× over `model.generate` (greedy)", g, "speedup_vs_hf_generate",
                        t["speedup_greedy"]),
            target_line(f"Mean accepted length ≥ {t['mat']} (greedy)", g, "mat_with_bonus", t["mat"], unit="",
                        where=False),
            target_line(f"Speedup ≥ {t['speedup_t07']}× over target-only sampling at T = 0.7", s, "speedup_vs_ar",
                        t["speedup_t07"]),
        ]
        g = best([r for r in rows if not r.get("tree_nodes")], 0.0)  # the chain arithmetic below
        needed = needed_length(bench, g, t["speedup_greedy"]) if g else None
        if needed:
            lines.append(f"- What it would take (chain): on this CPU a step at K = {g['k']} costs "
                         f"{fixed(needed[1], 2)} target forwards ({g['k']} drafts at c = {c_text(g['c'])} plus "
                         f"verifying {g['k'] + 1} tokens), so {t['speedup_greedy']}× needs about "
                         f"{fixed(needed[0], 1)} tokens per step instead of {fixed(g['mat_with_bonus'], 2)}: an α of "
                         f"about {fixed(chain_alpha(needed[0], g['k']), 2)} at every draft position (this drafter "
                         "keeps about half of its first drafts and fewer deeper ones). Where verifying K+1 tokens "
                         "costs one forward (a GPU at batch size 1), the same tokens per step and c would give "
                         f"{fixed(g['mat_with_bonus'] / (1 + g['k'] * g['c']), 2)}× by the formula.")
        return lines
    agreement = meta["training"].get("agreement")
    g = best(rows, 0.0)
    return [f"- Held-out greedy agreement with the target ≥ {t['agreement']}: {fixed(agreement, 3)} "
            f"({verdict(agreement >= t['agreement'])})",
            # the rows are the constant-K ones (bench_rows): the run's other policies can read higher, so say which
            "- Speed, reported honestly: " + (f"{fixed(g['speedup_vs_hf_generate'], 2)}× over `model.generate` "
                                              f"at best with a constant K (K = {g['k']}, greedy); c = {c_text(g['c'])}." if g
                                              else "not measured")]


def replaced(meta: dict, metrics: list[str]) -> str:
    """The drafter these weights replaced, side by side with them (same held-out answers), when training recorded it."""
    old = meta.get("replaces")
    if not old:
        return ""
    rows = ["| | training records | steps | " + " | ".join(metrics) + " |", "|---|---:|---:|" + "---:|" * len(metrics)]
    for name, m in (("replaced drafter", old), ("this drafter", meta)):
        rows.append(f"| {name} | {m.get('train_records', '?')} | {m.get('steps', '?')} | "
                    + " | ".join(f"{fixed(v, 3)}" if (v := m.get("training", {}).get(k)) is not None else "–"
                                 for k in metrics) + " |")  # "–": not measured for that drafter
    text = "## Compared with the drafter it replaced\n\nHeld-out accuracies at the end of each training, each on its own " \
        "data step's held-out answers (the same 64 prompts):\n\n" + "\n".join(rows) + "\n\n"
    if old.get("commit"):
        text += (f"The replaced drafter ({old.get('kind', 'eagle')}) stays reachable: its files are in commit "
                 f"`{old['commit'][:12]}`. To rank both on today's held-out answers (`rank` reads the ones `data` "
                 "writes: with `--scale 0.01` it answers the 64 held-out prompts and only a small sample of each "
                 "training stage):\n\n```\npython -m specviz.distill data --scale 0.01\nmkdir -p old\n"
                 f"git show {old['commit'][:12]}:assets/models/smollm2-eagle/model.safetensors > old/model.safetensors\n"
                 f"git show {old['commit'][:12]}:assets/models/smollm2-eagle/specviz.json > old/specviz.json\n"
                 "python -m specviz.distill rank --against old\n```\n\n")
    return text


def parameter_count(folder: Path) -> str:
    """"9.8 M": the trained tensors' parameters (the draft vocabulary's ids are not weights)."""
    from safetensors import safe_open

    total = 0
    for path in Path(folder).glob("*.safetensors"):
        with safe_open(str(path), "pt") as f:
            total += sum(math.prod(f.get_slice(k).get_shape()) for k in f.keys() if k != "draft_vocab")
    return f"{fixed(total / 1e6, 1)} M"


def stage_table(data: dict) -> str:
    """The data step's stages: answers, response tokens, sampled answers (at the temperature the chunks record),
    minutes."""
    sampled = f"sampled at {sampled_at(data)}" if data.get("temperature") else "sampled"
    rows = [f"| stage | answers | response tokens | {sampled} | minutes |", "|---|---:|---:|---:|---:|"]
    rows += [f"| {name} | {r['answers']:,} | {r['new_tokens']:,} | {r['sampled']:,} | {fixed(r['minutes'], 0)} |"
             for name, r in data["stages"].items()]
    rows.append(f"| all | {data['answers']:,} | {data['new_tokens']:,} | {data['sampled']:,} | "
                f"{fixed(sum(r['minutes'] for r in data['stages'].values()), 0)} |")
    return "\n".join(rows)


def write_cards(work: Path, assets: Path, benches: dict[str, Path] | None = None) -> list[Path]:
    benches = benches or BENCHES
    written = []
    eagle_meta = read_meta(assets / EAGLE_NAME) if (assets / EAGLE_NAME / "specviz.json").exists() else {}
    eagle_kind = eagle_meta.get("kind", "eagle")
    # the run folders it was trained in, as training recorded them (`--run`), else each kind's default ones
    eagle_runs = eagle_meta.get("stages") or {"eagle3": ["eagle3"], "eagle": ["eagle", "eagle-ttt"]}[eagle_kind]
    eagle_metrics = {"eagle3": ["acc1", "acc12", "acc123", "acc1234", "top4"], "eagle": ["acc1", "acc12", "acc123"]}
    for kind, name, runs, metrics, prefix, bench in (
            (eagle_kind, EAGLE_NAME, eagle_runs, eagle_metrics[eagle_kind], "eagle", benches["eagle"]),
            ("draft", DRAFT_NAME, ["draft"], ["agreement"], "draft", benches["draft"])):
        folder = assets / name
        inputs = card_inputs(work, runs, folder)
        if inputs is None and (folder / "README.md").exists():
            continue  # not trained from this work folder, and no record of its own: its card stays as it is
        meta = read_meta(folder)
        data, log = (inputs["data"], inputs["log"]) if inputs else (data_summary(work), [])
        rows = bench_rows(prefix, bench)
        record = inputs or {}  # the card's RECORD, read or just written: its WITHOUT_LOOKUP run, if it keeps one
        settings = training_settings(meta)
        card = CARD.format(
            title=TITLES[kind], what=WHAT[kind].format(params=parameter_count(folder), serve_k=SERVE_K),
            size_mb=fixed(sum(f.stat().st_size for f in folder.glob("*.safetensors")) / 2**20, 1),
            data=data_section(data, meta, bench_dtype(bench)), batch=settings["batch"],
            step_command=train_command(kind, log, meta["steps"], meta.get("history"), meta),
            steps=f"{meta['steps']:,}", stages=STAGES[kind].format(**{**meta, **stage_steps(log, meta["steps"]), **settings}),
            train_minutes=fixed(log[-1]["minutes"] if log else 0, 0), machine=trained_on(meta),
            curve=learning_curve(log, metrics) if log else "(no log)", metric_text=METRIC_TEXT[kind],
            extrapolation=extrapolate(log, metrics[0]) if log else "", bench_command=bench_command(bench),
            bench=bench_table(rows, bench_dtype(bench), read_bench(bench).get("costs")),
            targets="\n".join(target_lines(kind, meta, rows, bench, record)),
            extra=EXTRA[kind].format(**meta),
            replaced=replaced(meta, metrics), dtype=bench_dtype(bench), where=bench_where(bench),
            notes=bench_note(bench) + lookup_note(rows, bench, record), rerun=bench_rerun_note(bench),
            made_at=made_at(meta),
            bench_scope=bench_scope(bench, data["held_out_prompts"]),
        )
        (folder / "README.md").write_text(card)
        written.append(folder / "README.md")
    return written


TITLES = {"eagle3": "smollm2-eagle: an EAGLE-3 drafter for SmolLM2-135M-Instruct",
          "eagle": "smollm2-eagle: an EAGLE-style feature drafter for SmolLM2-135M-Instruct",
          "draft": "smollm2-draft: a separate draft model for SmolLM2-135M-Instruct"}
WHAT = {
    "eagle3": "One decoder layer with its own head (Li et al., 2025, *EAGLE-3*), about {params} parameters: an input "
              "projection fuses the target's low, middle and high layers (the residual stream entering layers 2, 15 "
              "and 27 of 30, counted from 0, 3 × 576 → 576), the layer reads that state and the next token's "
              "embedding side by side (q, k, v 1,152 wide), and its head scores a frequency-ranked draft vocabulary (FR-Spec). To draft "
              "further it feeds its own output back, and it was trained that way (training-time test). The tensors "
              "are laid out and named as vLLM's EAGLE-3 Llama drafter's; `make serve SPEC=eagle` exports them on "
              "first use to a folder in the specviz cache (`specviz/serving/export.py`: the same tensors cast to "
              "float32, the draft vocabulary written as vLLM's `d2t` and `t2d`, a config.json made from the "
              "target's, the target's tokenizer) and starts vLLM with `--dtype bfloat16`, drafting a chain of "
              "{serve_k} tokens a step, not a tree (`python -m specviz serve start --spec eagle --k K` for "
              "another K). It only "
              "proposes: the output distribution stays exactly the target's in exact arithmetic "
              "(`specviz.engine.numerics` for floating point). "
              "Use: `python -m specviz generate --proposer eagle --prompt \"...\"` (the default for `--pair default`).",
    "eagle": "One Llama decoder layer plus an input projection (fc: 2 × 576 → 576), about 4.2 M parameters, that "
             "reads the target's last hidden state and the next token's embedding and predicts the target's next "
             "hidden state (Li et al., 2024, *EAGLE*). Tokens are read off the target's own LM head, restricted to "
             "a frequency-ranked draft vocabulary (FR-Spec). The engine hands it the target's features after every "
             "verify pass; it only proposes, so the output distribution stays exactly the target's in exact arithmetic "
             "(`specviz.engine.numerics` for floating point). "
             "Use: `python -m specviz generate --proposer eagle --prompt \"...\"` (the default for `--pair default`).",
    "draft": "A standalone `LlamaForCausalLM` on the target's tokenizer: the target's embeddings and first layers "
             "(frozen copies), one trained adapter decoder layer and a trained final norm, and the target's tied LM "
             "head, as Kangaroo (Liu et al., 2024) builds its draft from a shallow sub-network plus an adapter. "
             "Only the trained tensors ship (`trained.safetensors`); on first use `specviz.models.drafts.draft_model` "
             "writes the complete model into the cache folder and loads it with `from_pretrained`. "
             "Use: `python -m specviz generate --proposer draft --prompt \"...\"`.",
}
STAGES = {
    "eagle3": "One stage: every batch is drafted {unroll} deep the way drafting does it (depth p reads depth p-1's "
              "output and the true next token, and attends to the true rows up to where the draft began, then its "
              "own chain), each depth scored by the cross-entropy to the target's next-token distribution over the "
              "draft vocabulary on every response position, depth p weighted 0.8^(p-1); no feature regression. "
              "Peak learning rate {lr}, matrix products in bfloat16 (weights float32).",
    "eagle": "Stage 1 ({stage1:,} steps, peak learning rate {lr}) trains two drafting depths, the second reading the "
             "drafter's own predicted features at every row; stage 2 ({stage2:,} steps from there, at half that peak "
             "learning rate) trains three depths "
             "that attend exactly as drafting does: true features up to where the draft began, then the drafter's "
             "own chain (EAGLE-3's training-time test). Losses: smooth L1 to the target's next feature plus {kd} "
             "to its next-token distribution (draft vocabulary, {positions} per batch); {noise} on the input "
             "features.",
    "draft": "Peak learning rate {lr}. Losses: smooth L1 between the draft's normed output and the target's feature, "
             "plus {kd} to the target's next-token distribution (draft vocabulary, {positions} per batch).",
}
METRIC_TEXT = {
    "eagle3": "On the held-out answers (float32 target, greedy): `acc1`, the share of response positions where the "
              "drafter's first guess (from the target's states) is the target's token (the share "
              "`python -m specviz.distill rank` reports as top1, from a pass of its own, so the two can differ in "
              "the third decimal); `acc12` … `acc1234`, the share where a draft's first "
              "two … four guesses are all right, each depth reading the earlier depths' own outputs as drafting does; "
              "`top4`, where the target's token is among the first guess's 4 most likely tokens (what a tree's first "
              "level of width 4 can reach).",
    "eagle": "`acc1`: on the held-out answers (float32 target, greedy), the share of response positions where the "
             "drafter's first guess from the target's true features is the target's token; `acc12` (`acc123`): the "
             "share where a draft's first two (three) guesses are all right. Stage 1's `acc12` lets the second guess "
             "see predicted features everywhere, stage 2's attends as drafting does, so they differ in kind.",
    "draft": "`agreement`: on the held-out answers (float32 target, greedy), the share of response positions where "
             "the draft's most likely next token (full vocabulary) is the target's token.",
}
EXTRA = {
    "eagle3": "Draft vocabulary: {draft_vocab_size:,} tokens, covering {vocab_coverage:.1%} of the held-out answers' "
              "tokens (the drafter can never propose the others).",
    "eagle": "Draft vocabulary: {draft_vocab_size:,} tokens, covering {vocab_coverage:.1%} of the held-out answers' "
             "tokens (the drafter can never propose the others).",
    "draft": "Layers: the target's first {shallow_layers} (frozen) + 1 trained adapter layer.",
}

# The Data section: today's data step (its stages), from the summary `data_summary` makes
DATA = """The target answered every prompt itself, in bfloat16, {token_limit}, about half of the answers sampled at
{sampled_at} and the rest greedy (the table counts them; `specviz/distill/stages.py`; questions, follow-ups and rewrites
are built from earlier stages' answers;
no prompt is about a held-out topic, though a few seed prompts name one in passing, such as "the train was late",
and a follow-up or rewrite quotes an earlier answer, which may mention one):

{stage_table}

- seed: the template × topic prompts (explain, create, list, code, rewrite, math), each answered twice;
  question-lists and questions: the target lists questions people ask about a topic, then answers them
  (self-instruct); follow-ups: a second user turn after an earlier conversation; rewrites: summaries, key points
  and rewrites of its own answers; drills: arithmetic with random numbers.
- Recorded at every position, prompt included: the residual stream entering layers 2, 15 and 27 (counted from 0)
  and the final norm's output (the target's next-token distribution is recomputed from it), bfloat16, in
  memory-mapped chunks on disk (`specviz/distill/data.py`).
- {held} held-out prompts whose topics no training prompt is about (`assets/prompts/held-out.yaml`), answered
  greedily by the float32 target, {as_bench}.
- The data step took {data_minutes} minutes ({new_tokens:,} response tokens), on a machine this card does not
  record."""
# The Data section of weights made before the data step took its stages (specviz.json's `made_at`): what that
# commit's data step logged (`prompts`, `new_tokens`, `minutes`, `shards`, `sampled_shards`, kept in RECORD), with
# that code's batch size and temperature (MADE_AT_DATA)
DATA_MADE_AT = """\
- {prompts:,} training prompts made from templates × topics (commit `{commit}`'s `specviz/distill/prompts.py`:
  explain, create, list, code, rewrite, math), answered by the target itself in bfloat16, up to {max_new_tokens} new
  tokens, in batches of {batch_size} (that code's default); {sampled_shards} of {shards} batches sampled at
  temperature {temperature:g} (that code's default), the others greedy. {new_tokens:,} response tokens in all.
- The target's last hidden state at every position (prompt included) is recorded during generation; its
  next-token distribution is recomputed from it (softmax of the LM head).
- {held} held-out prompts on topics no training prompt is about (`assets/prompts/held-out.yaml`; a few training
  prompts name one in passing, such as "the train was late"), answered greedily by the
  float32 target, {as_bench}.
- The data step took {data_minutes} minutes, on a machine this card does not record."""
# that commit's data-step defaults, which its `distill data` (no flags) left in place: specviz/distill/data.py
# `GenerationPlan` batch_size 64 and temperature 0.7 (`git show 35ce4c2:specviz/distill/data.py`)
MADE_AT_DATA = {"35ce4c2baa51c1e36a0717b51a01ef0386469d59": {"batch_size": 64, "temperature": 0.7}}


def data_section(data: dict, meta: dict, dtype: str) -> str:
    """The card's Data section: today's data step's stages, or for weights made at an older commit (`made_at`) what
    that commit's data step logged."""
    as_bench = ("as the float32 benchmark below meets it" if dtype == "float32"
                else f"as a float32 benchmark meets it (the one below ran in {dtype})")
    made = meta.get("made_at")
    if made and "stages" not in data:
        return DATA_MADE_AT.format(**data, **MADE_AT_DATA[made["commit"]], max_new_tokens=made["max_new_tokens"],
                                   commit=made["commit"][:12], held=data["held_out_prompts"],
                                   data_minutes=fixed(data["minutes"], 0), as_bench=as_bench)
    return DATA.format(token_limit=token_limit(data), sampled_at=sampled_at(data), stage_table=stage_table(data),
                       held=data["held_out_prompts"], data_minutes=fixed(data["minutes"], 0),
                       new_tokens=data["new_tokens"], as_bench=as_bench)


CARD = """# {title}

{what}

Trained weights: {size_mb} MiB (float16). {extra}

## Data

{data}

## Command

```
python -m specviz.distill data     # the data step
{step_command}
python -m specviz.distill cards    # this card
```

`python -m specviz.distill all` runs data, eagle3 and draft with their default flags, then the cards (not eagle or
medusa); the commands above are this card's own.{made_at} Seeded (`--seed 0`) and resumable.
Training: {steps} steps of {batch}, AdamW, warm-up then cosine decay, {train_minutes}
minutes on {machine}. {stages}

## Learning curve (held-out)

{metric_text}

{curve}

{extrapolation}

{replaced}## Held-out α estimate, acceptance by position and speed

Benchmark on {bench_scope}, {dtype} on both sides{where}{rerun}:

```
{bench_command}
```

{bench}

{notes}The α estimate column estimates Leviathan et al.'s acceptance probability α = E[Σ min(p, q)] by the mean
of min(1, p/q) over the drafts the target tested; a tree row shows instead the mean of min(1, p′/q′) along each
step's main line, which is not α (a child tried after a rejected sibling meets the residual p′). c is one draft
forward's time over one target forward. The mean accepted length is the tokens per target forward, the recovered
or bonus token included. Acceptance by position, entry i: of the steps that drafted at least i tokens, the
share whose first i drafts were all kept (a tree: of the steps whose tree reached depth i, the share whose accepted path
reached it). The prediction is the speedup formula fed with that estimate of α, the measured c and this CPU's
measured verify cost; a tree has no α for it, so its row shows its measured mean accepted length over (K·c + the
verify cost of the tokens it fed).

## Targets

{targets}

## Licence

Apache-2.0, like SmolLM2-135M-Instruct (HuggingFaceTB), from which every weight and all training data derive.
"""
