"""The proposer registry: a new proposer is one class, one factory and one `register` line, and then every menu, the
CLI, the bench and `RunSpec` offer it with no other edit. The dummy below drafts by repeating the last token; its own
setting (how many copies) shows up as a RunSpec entry, a URL parameter, a CLI and bench flag and a Playground input."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from streamlit.testing.v1 import AppTest

from specviz import cli
from specviz.engine.baseline import autoregressive_generate
from specviz.engine.proposers import make_proposer, registry
from specviz.engine.proposers.base import Proposal, Proposer
from specviz.engine.sampling import SamplingConfig
from specviz.engine.trace import Trace
from specviz.labs.bench.cli import add_bench_arguments
from specviz.labs.bench.config import BenchConfig
from specviz.models.pairs import encode_prompt
from specviz.runs.running import run, run_target_only
from specviz.runs.runspec import RunSpec
from specviz.ui.playground import settings as playground_settings
from specviz.ui.proposers import view as proposers_view
from specviz.ui.race import settings as race_settings
from specviz.ui.speedup import live as speedup_live

ROOT = Path(__file__).resolve().parents[2]
PROMPT = "the quick brown fox jumps over the lazy dog. the quick"
BUILT_IN = ("draft", "ngram", "layerskip", "eagle", "medusa")


# ---- the dummy: one class, one factory, one register line -------------------------------------------------------


class EchoProposer(Proposer):
    """Drafts K copies of the sequence's last token, or `copies` when fewer (deterministic: q is a point mass); it
    cannot branch."""

    name = "echo"

    def __init__(self, copies: int | None = None):
        self.copies = copies

    def propose(self, sequence: list[int], k: int, sampling: SamplingConfig,
                generator: torch.Generator) -> Proposal:
        return Proposal([sequence[-1]] * min(k, self.copies or k), None)

    def own_settings(self) -> dict[str, int]:
        return {"copies": self.copies} if self.copies else {}


def echo_from_pair(pair, copies: int | None = None) -> EchoProposer:
    return EchoProposer(copies)


COPIES = registry.ProposerSetting("copies", "Copies the echo drafts (0 = K)", 0, 6, unset=0,
                                  help="Fewer copies: shorter drafts.")


@pytest.fixture
def echo():
    info = registry.register(registry.ProposerInfo("echo", "Echo (the last token again)", "echo",
                                                   "**Echo**: repeats the last token.", echo_from_pair,
                                                   settings=(COPIES,), timed_as="lookup"))
    yield info
    registry.unregister("echo")


# ---- it shows up everywhere ---------------------------------------------------------------------------------------


def test_the_built_in_proposers_keep_their_names_and_order():
    assert registry.names() == BUILT_IN
    assert [registry.get(name).can_branch for name in BUILT_IN] == [True, False, True, True, True]


def test_runspec_accepts_a_registered_proposer_and_refuses_it_once_it_is_gone(echo):
    assert RunSpec(pair="toy", proposer="echo").proposer == "echo"
    assert RunSpec.from_query({"proposer": "echo"}).proposer == "echo"
    registry.unregister("echo")
    with pytest.raises(ValueError, match="must be one of draft, ngram, layerskip, eagle"):
        RunSpec(proposer="echo")
    registry.register(echo)  # for the fixture to undo


def _proposer_choices(parser) -> dict[str, tuple[str, ...]]:
    commands = next(a for a in parser._actions if a.dest == "command").choices
    return {name: tuple(next(a for a in commands[name]._actions if a.dest == "proposer").choices)
            for name in ("generate", "compare")}


def test_the_cli_offers_it_and_runs_it_on_the_toy_pair(echo, capsys):
    assert _proposer_choices(cli.build_parser()) == {"generate": (*BUILT_IN, "echo"), "compare": (*BUILT_IN, "echo")}
    code = cli.main(["generate", "--pair", "toy", "--proposer", "echo", "--prompt", PROMPT, "--no-chat", "--k", "3",
                     "--max-new-tokens", "8", "--quiet", "--lang", "en"])
    assert code == 0, capsys.readouterr().err
    registry.unregister("echo")
    try:
        with pytest.raises(SystemExit):  # without the registration, argparse refuses the name
            cli.build_parser().parse_args(["generate", "--prompt", "x", "--proposer", "echo"])
    finally:
        registry.register(echo)  # for the fixture to undo


def test_the_bench_checks_and_names_it(echo):
    BenchConfig(pair="toy", proposers=["echo"]).check()
    with pytest.raises(ValueError, match="Unknown proposer 'hydra': choose one of draft, ngram, layerskip, eagle, "
                                         "medusa, echo."):
        BenchConfig(pair="toy", proposers=["hydra"]).check()
    import argparse

    parser = argparse.ArgumentParser()
    add_bench_arguments(parser)
    assert "echo" in next(a for a in parser._actions if a.dest == "proposers").help


def test_every_menu_offers_it(echo):
    # Playground: both built-in pairs and a hand-made one, with its label and note
    assert playground_settings.pair_proposers("toy") == ("draft", "ngram", "layerskip", "echo")
    assert playground_settings.pair_proposers("default") == ("eagle", "draft", "medusa", "ngram", "layerskip", "echo")
    assert playground_settings.pair_proposers("my/target,my/draft")[-1] == "echo"
    assert registry.label_of("echo") == "Echo (the last token again)"
    assert registry.note_of("echo") == "**Echo**: repeats the last token."
    values, bad = playground_settings.parse_query_params({"pair": "toy", "proposer": "echo"}, [])
    assert values["proposer"] == "echo" and not bad
    # the race, the Speedup lab's live sweep, the Proposers page
    assert race_settings.pair_proposers("toy")[-1] == race_settings.pair_proposers("default")[-1] == "echo"
    assert speedup_live.live_proposers() == ("draft", "ngram", "layerskip", "echo")
    sections = proposers_view.sections()
    assert [s.key for s in sections[:-1]] == [p.key for p in proposers_view.PROPOSERS]
    assert sections[-1].key == "echo" and sections[-1].title == "Echo (the last token again)"


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_the_proposers_page_draws_its_section(echo):
    at = AppTest.from_file(str(ROOT / "pages/proposers.py"), default_timeout=60)
    at.run()
    assert not at.exception and not at.error
    assert "Echo (the last token again)" in [h.value for h in at.subheader]
    assert "**Echo**: repeats the last token." in [m.value for m in at.markdown]
    assert not any("specviz has no Echo" in c.value for c in at.caption)  # specviz has it now


def test_its_own_setting_is_a_runspec_entry_and_a_url_parameter(echo):
    spec = RunSpec(pair="toy", proposer="echo", proposer_settings={"copies": 2})
    assert spec.proposer_setting("copies") == 2 and spec.to_query()["copies"] == "2"
    assert RunSpec.from_query(spec.to_query()) == spec
    with pytest.raises(ValueError, match=r"copies must be a whole number from 0 to 6 \(got 9\)"):
        RunSpec(proposer_settings={"copies": 9})
    # read 50: the link's refusal quoted the number "(got '9')" beside the spec's "(got 9)"; a word stays quoted
    assert RunSpec.parse_query({"copies": "9"})[1] == ["copies must be a whole number from 0 to 6 (got 9)"]
    assert RunSpec.parse_query({"copies": "-1"})[1] == ["copies must be a whole number from 0 to 6 (got −1)"]
    assert RunSpec.parse_query({"copies": "many"})[1] == ["copies must be a whole number from 0 to 6 (got 'many')"]


def test_its_own_setting_is_a_cli_flag_that_reaches_the_proposer(echo, tmp_path, capsys):
    out = tmp_path / "echo.json"
    code = cli.main(["generate", "--pair", "toy", "--proposer", "echo", "--copies", "2", "--prompt", PROMPT,
                     "--no-chat", "--k", "4", "--max-new-tokens", "12", "--quiet", "--lang", "en", "--json", str(out)])
    assert code == 0, capsys.readouterr().err
    trace = Trace.from_json(out.read_bytes())
    assert trace.settings["copies"] == 2 and max(s.n_drafted for s in trace.steps) == 2  # 2 copies, not K = 4
    assert cli.main(["generate", "--pair", "toy", "--proposer", "echo", "--copies", "9", "--prompt", PROMPT,
                     "--quiet", "--lang", "en"]) != 0
    assert "copies must be a whole number from 0 to 6 (got 9)." in capsys.readouterr().err


def test_its_own_setting_is_a_bench_flag_checked_and_printed_in_the_command(echo):
    import argparse

    from specviz.labs.bench.cli import command_line, config_from_args

    parser = argparse.ArgumentParser()
    add_bench_arguments(parser)
    config = config_from_args(parser.parse_args(["--pair", "toy", "--proposers", "echo", "--copies", "2"]))
    assert config.proposer_settings == {"copies": 2}
    config.check()
    assert "--copies 2" in command_line(config)
    with pytest.raises(ValueError, match=r"--copies must be a whole number from 0 to 6 \(got 9\)"):
        BenchConfig(pair="toy", proposers=["echo"], proposer_settings={"copies": 9}).check()


@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_its_own_setting_is_a_playground_input_that_runs_and_shares(echo):
    at = AppTest.from_file(str(ROOT / "pages/playground.py"), default_timeout=60)
    for key, value in {"source": "live", "pair": "toy", "proposer": "echo", "copies": "2", "k": "4",
                       "max_new_tokens": "12", "prompt": PROMPT, "chat": "0"}.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception and not at.error
    box = at.number_input(key="playground_copies")
    assert (box.value, box.label, box.max) == (2, "Copies the echo drafts (0 = K)", 6)
    assert at.session_state["trace"].settings["copies"] == 2
    assert at.query_params["copies"] in ("2", ["2"])
    at.selectbox(key="playground_proposer").set_value("ngram").run()  # another proposer: no input for the echo's setting, and the link forgets it
    assert not [n for n in at.number_input if n.key == "playground_copies"]
    other = RunSpec(pair="toy", proposer="ngram", proposer_settings={"copies": 2})
    assert "copies" not in playground_settings.query_params_for("live", None, other, 0)


def test_the_menus_forget_it_after_the_test():
    assert "echo" not in registry.names() and "echo" not in playground_settings.pair_proposers("toy")
    assert "copies" not in registry.setting_names() and "copies" not in playground_settings.KEYS
    assert "echo" not in [s.key for s in proposers_view.sections()]


# ---- it runs, and it is exact -------------------------------------------------------------------------------------


def test_greedy_decoding_with_the_dummy_gives_the_target_only_tokens(echo, toy):
    spec = RunSpec(pair="toy", proposer="echo", prompt=PROMPT, chat=False, k=3, temperature=0.0, max_new_tokens=32)
    assert isinstance(make_proposer(toy, "echo"), EchoProposer)
    trace = run(spec, pair=toy)
    ids = encode_prompt(toy.tokenizer, PROMPT, chat=False)
    expected = autoregressive_generate(toy.target, ids, temperature=0.0, max_new_tokens=32).output_ids
    assert trace.meta["proposer"] == "echo" and sum(s.n_drafted for s in trace.steps) > 0
    assert trace.output_ids == run_target_only(spec, pair=toy).output_ids == expected


def test_the_registry_says_what_the_classes_do(toy):
    for name in ("draft", "ngram", "layerskip"):  # the toy pair's EAGLE drafter is an untrained stand-in
        assert make_proposer(toy, name).can_branch == registry.get(name).can_branch, name
    assert make_proposer(toy, "layerskip", layers=1).name == "layerskip-1"
    with pytest.raises(ValueError, match="Unknown proposer 'hydra': choose one of draft, ngram, layerskip, eagle, "
                                         "medusa."):
        make_proposer(toy, "hydra")


def test_branching_is_said_once_by_the_class_and_a_registry_line_that_disagrees_is_refused(toy):
    class Branchy(EchoProposer):
        def propose_tree(self, sequence, **kwargs):
            raise NotImplementedError

    assert Branchy.can_branch and not EchoProposer.can_branch  # implementing propose_tree is what makes it branch
    registry.register(registry.ProposerInfo("liar", "Liar", "liar", "", echo_from_pair, can_branch=True,
                                            timed_as="lookup"))
    try:
        with pytest.raises(ValueError, match="The registry says 'liar' can branch, but its class EchoProposer does not"):
            make_proposer(toy, "liar")
    finally:
        registry.unregister("liar")


def test_reading_the_registry_loads_no_torch():
    code = ("import sys\nimport specviz.engine.proposers, specviz.engine.limits, specviz.runs.runspec, specviz.models.catalog, specviz.cli\n"
            "specviz.engine.proposers.registry.names(), specviz.engine.limits.PROPOSERS\n"
            "print(sorted(m for m in ('torch', 'transformers', 'streamlit') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


# ---- no hand-written proposer lists outside the registry --------------------------------------------------------

# Literals whose names are not specviz's proposers though they share them: the Serving lab's names for what vLLM is
# started with (server.SPECS; its methods are ngram, draft_model and eagle3), figure keys,
# the drafters a built-in pair brings (what `registry.offered` reads), the distillation steps that train them.
NOT_PROPOSERS = {("specviz/serving/server.py", "SPECS"), ("specviz/ui/serving/charts.py", "COLORS"),
                 ("specviz/ui/proposers/view.py", "measured"), ("specviz/engine/limits.py", "PAIR_DRAFTERS"),
                 ("specviz/distill/cli.py", "parser"), ("specviz/distill/cli.py", "STEPS"),
                 ("specviz/distill/trainer.py", "DEFAULT_STEPS")}


def proposer_lists(root: Path, names: set[str]) -> list[str]:
    """Every list, tuple or set literal (and dict literal's keys) under root/specviz that names three or more
    proposers, outside the registry: 'path:line: names'."""
    found = []

    def visit(node: ast.AST, rel: str, owner: str) -> None:
        if isinstance(node, ast.FunctionDef):
            owner = node.name
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            owner = node.targets[0].id
        if (rel, owner) in NOT_PROPOSERS:
            return
        items = (node.elts if isinstance(node, (ast.List, ast.Tuple, ast.Set)) else
                 [key for key in node.keys if key is not None] if isinstance(node, ast.Dict) else [])
        named = sorted({i.value for i in items if isinstance(i, ast.Constant) and i.value in names})
        if len(named) >= 3:
            found.append(f"{rel}:{node.lineno}: {', '.join(named)}")
        for child in ast.iter_child_nodes(node):
            visit(child, rel, owner)

    for path in sorted((root / "specviz").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel != "specviz/engine/proposers/registry.py":
            visit(ast.parse(path.read_text(encoding="utf-8")), rel, "")
    return found


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_no_module_lists_the_proposers_by_hand():
    found = proposer_lists(ROOT, set(BUILT_IN))
    assert not found, "read specviz.engine.proposers.registry instead of listing proposers:\n" + "\n".join(found)


def test_the_scan_catches_a_hand_written_list(tmp_path):
    (tmp_path / "specviz" / "ui").mkdir(parents=True)
    (tmp_path / "specviz" / "ui" / "menu.py").write_text(
        'CHOICES = ("draft", "ngram", "eagle")\nLABELS = {"draft": 1, "ngram": 2, "layerskip": 3}\nTWO = ["draft", "x"]\n')
    assert proposer_lists(tmp_path, set(BUILT_IN)) == ["specviz/ui/menu.py:1: draft, eagle, ngram",
                                                       "specviz/ui/menu.py:2: draft, layerskip, ngram"]


def test_the_bench_asks_the_registry_what_transformers_runs_for_each_method(toy):
    """The bench's twin of a method comes from the registry's `twin` hook, not from a branch on its name: assisted
    generation with the same model for a draft model and an early exit, prompt lookup for n-gram, nothing for the
    feature drafters (they need the target's hidden states)."""
    twins = {name: registry.get(name).transformers_twin(toy, make_proposer(toy, name, layers=1))
             for name in registry.names()}
    assert twins["draft"] == {"assistant": toy.draft} and twins["ngram"] == {"prompt_lookup": True}
    early = twins["layerskip"]["assistant"]
    assert early.config.num_hidden_layers == 1 and early.lm_head.weight is toy.target.lm_head.weight
    assert twins["eagle"] is None and twins["medusa"] is None


def test_a_registered_proposer_with_a_twin_is_timed_against_it(echo):
    """A dummy registered with its own twin gets one, with no edit to the bench."""
    from specviz.labs.bench.cases import CaseRunner

    info = registry.get("echo")
    registry.unregister("echo")
    registry.register(registry.ProposerInfo(info.name, info.label, info.phrase, info.note, info.factory,
                                            twin=lambda pair, proposer: {"prompt_lookup": True},
                                            timed_as=info.timed_as))
    runner = CaseRunner(BenchConfig(pair="toy", proposers=["echo"]), None, {"echo": EchoProposer()},
                        {"echo": registry.get("echo").transformers_twin(None, EchoProposer())}, {}, None)
    assert runner.has_transformers_twin("echo")


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_every_menu_label_starts_with_a_capital_and_eagles_phrase_does_not_in_portuguese(lang):
    """Issue 43: EAGLE's label and phrase are one message, translated in the lower case a sentence needs, so the
    Portuguese menus listed "rascunhador EAGLE ..." among capitalised entries (and Medusa's phrase read "Cabeças"
    mid-sentence). Menus read `menu_label`, which capitalises; the phrase stays as translated."""
    from specviz.core.i18n import _, using

    with using(lang):
        labels = [registry.menu_label(info.name) for info in registry.proposers()]
        assert all(label[:1].isupper() for label in labels), labels
        if lang == "pt":
            assert registry.menu_label("eagle").startswith("Rascunhador EAGLE")
            assert registry.menu_label("medusa").startswith("Cabeças de previsão")
            assert _(registry.phrase_of("eagle")).startswith("rascunhador EAGLE")
            assert _(registry.phrase_of("medusa")).startswith("cabeças de previsão")
    # read 47: a layer-skip draft's own name ("layerskip-7", a trace's or a bench's) reads as its label and layers;
    # Read 48: "7 layers" did not say whether the draft runs or skips them: it runs the target's first 7
    with using(lang):
        variant, unknown = registry.menu_label("layerskip-7"), registry.menu_label("mystery-7")
        one = registry.menu_label("layerskip-1")
    assert variant == ("Autorrascunho pulando camadas (as 7 primeiras camadas do alvo)" if lang == "pt" else
                       "Layer-skip self-draft (the target's first 7 layers)")
    assert one == ("Autorrascunho pulando camadas (a primeira camada do alvo)" if lang == "pt" else
                   "Layer-skip self-draft (the target's first layer)")
    assert unknown == "mystery-7"  # a name the registry does not know, as it is


def test_the_layer_skip_default_does_not_claim_to_pay():
    """default_layers once said a quarter of the layers is "cheap enough to pay"; the committed layer-skip bench
    (assets/benchmarks/default-cpu-layerskip) measured slowdowns at every K, and the docstring quotes its range."""
    import json

    from specviz.core.paths import BENCHMARKS_DIR
    from specviz.engine.proposers.layerskip import default_layers

    doc = " ".join(default_layers.__doc__.split())
    rows = [r for r in json.loads((BENCHMARKS_DIR / "default-cpu-layerskip" / "results.json").read_text())["summary"]
            if r["suite"] == "all" and r["policy"] == "constant"]
    speedups = [r["speedup_vs_ar"] for r in rows]
    assert "cheap enough to pay" not in doc and max(speedups) < 1
    assert f"{min(speedups):.2f}x to {max(speedups):.2f}x" in doc
    # the mean accepted lengths it quotes are the constant-K rows' (the heuristic's too); threshold and optimal kept
    # nothing
    for temperature, said in ((0.0, "1.02 greedy"), (0.7, "1.03 at T = 0.7")):
        assert {f"{r['mat_with_bonus']:.2f}" for r in rows if r["temperature"] == temperature} == {said[:4]}
        assert said in doc
    others = [r for r in json.loads((BENCHMARKS_DIR / "default-cpu-layerskip" / "results.json").read_text())["summary"]
              if r["suite"] == "all" and r["policy"] in ("threshold", "optimal")]
    assert others and {f"{r['mat_with_bonus']:.2f}" for r in others} == {"1.00"} and "nothing (1.00)" in doc
    assert f"at most {max(r['speedup_vs_ar'] for r in others):.2f}x" in doc


def test_toy_pair_offers_its_draft_alone_and_the_comment_says_who_runs_its_stand_ins():
    """The toy pair brings untrained EAGLE and Medusa stand-ins and offers neither; the comment beside PAIR_DRAFTERS
    once said only the tests use the EAGLE one, but gpu_check's rehearsal (the toy pair) runs it too."""
    from specviz.engine import limits
    from specviz.models.pairs import load_pair
    from specviz.scripts import gpu_check

    pair = load_pair("toy")
    assert pair.eagle is not None and pair.medusa is not None
    assert registry.offered(limits.PAIR_DRAFTERS["toy"]) == ("draft", "ngram", "layerskip")
    assert gpu_check.REHEARSAL.pair == "toy"
    assert "pair.eagle" in Path(gpu_check.__file__).read_text()  # its greedy, bench and exactness sections use it
    source = Path(limits.__file__).read_text()
    assert "only the tests" not in source and "gpu_check --rehearse" in source


def test_the_bench_times_it_and_names_its_twin_from_its_registry_line(echo, toy):
    """Issue 45: the bench chose how to time a draft for c by probing `hasattr(prop, "runner")` (runner.py) and named
    transformers' twin by `proposer == "ngram"` (cases.py, the Speedup lab's table). Both come from the registry
    now: `ProposerInfo.timed_as` and the twin itself (`registry.twin_method`), so the echo needs no name anywhere."""
    import time

    from specviz.labs.bench.runner import timed_draft

    proposer = make_proposer(toy, "echo")
    assert echo.timed_as == "lookup" and timed_draft(toy, "echo", proposer, [3, 4, 5], time.perf_counter) is None
    assert registry.twin_method(echo.transformers_twin(toy, proposer)) is None
    assert [registry.get(name).timed_as for name in BUILT_IN] == ["model", "lookup", "model", "features", "features"]
    for path in ("specviz/labs/bench/cases.py", "specviz/labs/bench/runner.py", "specviz/ui/speedup/tables.py"):
        text = (ROOT / path).read_text(encoding="utf-8")
        assert '== "ngram"' not in text and "hasattr(" not in text, path
    with pytest.raises(ValueError, match=r"^timed_as must be one of model, features, lookup \(got 'gpu'\)\.$"):
        registry.ProposerInfo("x", "X", "x", "", echo_from_pair, timed_as="gpu")
    features = registry.ProposerInfo("echo", "Echo", "echo", "", echo_from_pair, timed_as="features")
    with pytest.raises(ValueError, match="times 'echo' as 'features', but its class EchoProposer does not read"):
        features.make(toy)


def test_a_proposer_that_does_not_say_how_it_is_timed_is_not_called_a_lookup(toy):
    """Read 49: `timed_as` defaulted to "lookup", so a new proposer whose line left it out was timed as one and the
    Theory page said its seconds were a lookup's ("runs no model"). The default is "model" now, every built-in line
    keeps its value, and `make` refuses a "model" line whose class has no draft model to time."""
    from specviz.labs.examples import load_example
    from specviz.ui.theory import points as theory_points

    assert registry.ProposerInfo("x", "X", "x", "", echo_from_pair).timed_as == "model"
    assert {name: registry.get(name).timed_as for name in BUILT_IN} == {
        "draft": "model", "ngram": "lookup", "layerskip": "model", "eagle": "features", "medusa": "features"}
    registry.register(registry.ProposerInfo("fresh", "Fresh", "fresh", "", echo_from_pair))
    try:
        trace = load_example("smollm-ngram-greedy")[0]
        assert theory_points.trace_point(trace).lookup  # n-gram's own line says "lookup"
        trace.settings = {**trace.settings, "proposer": "fresh"}
        assert not theory_points.trace_point(trace).lookup
        with pytest.raises(ValueError, match=r"^The registry times 'fresh' as 'model', but its class EchoProposer has "
                                             r"no draft model \(runner.model\); a proposer that runs none says "
                                             r"timed_as='lookup'\.$"):
            make_proposer(toy, "fresh")
    finally:
        registry.unregister("fresh")


def test_the_layer_skip_note_says_rarely_right_of_smollm2_only():
    """Read 52: the note "untrained for it, so the guesses are rarely right" stood under the toy pair's menu, where
    its layer-skip draft keeps about a third of its guesses at temperature 0.7 (0.30 over 15 runs: three prompts,
    seeds 0 to 4, K = 3, 40 new tokens). "Rarely right" holds for SmolLM2 (the untrained preset keeps 0 to 3 of
    131 to 138): the note now names it."""
    kept = drafted = 0
    for seed in range(3):
        trace = run(RunSpec(pair="toy", proposer="layerskip", prompt="the cat sat on the mat. the cat sat on the",
                            k=3, temperature=0.7, seed=seed, max_new_tokens=40))
        d, k = trace.drafts_only()
        kept, drafted = kept + k, drafted + d
    assert kept / drafted > 0.2  # not rare on the toy pair
    note = registry.note_of("layerskip")
    assert "on SmolLM2 the guesses are rarely right" in note and "so the guesses are rarely right" not in note
