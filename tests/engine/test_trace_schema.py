"""Trace files are checked field by field before a Trace is built: what the engine cannot produce is one sentence."""

from __future__ import annotations

import copy
import json
import time

import pytest

from specviz.core.i18n import using
from specviz.engine.trace import Trace
from specviz.labs.examples import TRACES_DIR, list_examples

TOY = json.loads((TRACES_DIR / "toy-draft.json").read_text(encoding="utf-8"))


def mutated(change) -> dict:
    data = copy.deepcopy(TOY)
    change(data)
    return data


def _set(path, value):
    def change(data):
        obj = data
        for key in path[:-1]:
            obj = obj[key]
        obj[path[-1]] = value
    return change


def refusal(data: dict | str, lang: str = "en") -> str:
    """The one sentence `Trace.from_json` refuses `data` with, in `lang`: a dict is written out as JSON first, text
    (a file as it was uploaded) is read as it is. The refusal tests below share it (they each repeated the four
    lines)."""
    with using(lang), pytest.raises(ValueError) as refused:
        Trace.from_json(data if isinstance(data, str) else json.dumps(data))
    return str(refused.value)


STEP, DECISION = ["steps", 0], ["steps", 0, "decisions", 0]
BAD = {
    "a thousand drafts in a step": lambda d: d["steps"][0].__setitem__("decisions", d["steps"][0]["decisions"] * 250),
    "a cache of a million entries": _set([*STEP, "target_cache_after"], 10**6),
    "a cache of a billion entries": _set([*STEP, "target_cache_after"], 10**9),
    "a shrinking target cache": _set([*STEP, "target_cache_before"], 10**4),
    "a cache length of 3.5": _set([*STEP, "target_cache_after"], 3.5),
    "a negative draft cache": _set([*STEP, "draft_cache_before"], -1),
    "a probability of 1e999": _set([*DECISION, "target_prob"], float("inf")),
    "a probability above 1": _set([*DECISION, "draft_prob"], 1.5),
    "a string position": _set([*DECISION, "position"], "0"),
    "a boolean token id": _set([*DECISION, "token_id"], True),
    "a string wall time": _set(["wall_seconds"], "fast"),
    "a nan uniform": _set([*DECISION, "uniform"], float("nan")),
    "an unknown token kind": _set([*STEP, "emitted", 0, "kind"], "grey"),
    "more emitted tokens than K+1": lambda d: d["steps"][0].__setitem__("emitted", d["steps"][0]["emitted"] * 9),
    "a top list of 11": lambda d: d["steps"][0]["decisions"][0].__setitem__(
        "target_top", d["steps"][0]["decisions"][0]["target_top"][:1] * 11),
    "ten thousand steps": lambda d: d.__setitem__("steps", d["steps"][:1] * 10_000),
    "a K of 99": _set([*STEP, "k"], 99),
    "an unknown mode": _set(["mode"], "magic"),
    "a huge token text": _set([*DECISION, "text"], "x" * 10_000),
    "a list for settings": _set(["settings"], [1, 2]),
    "a dict inside settings": _set(["settings", "k"], {"a": 1}),
    "a K of text in settings": _set(["settings", "k"], "abc"),
    "a K of true in settings": _set(["settings", "k"], True),
    "a K of 0 in settings": _set(["settings", "k"], 0),
    "a temperature of text": _set(["settings", "temperature"], "hot"),
    "a negative temperature": _set(["settings", "temperature"], -1.0),
    "a top-p of 0": _set(["settings", "top_p"], 0.0),
    "a fractional seed": _set(["settings", "seed"], 0.5),
    "a max_new_tokens of text": _set(["settings", "max_new_tokens"], "1e3"),
    "a tree of text": _set(["settings", "tree_nodes"], "x"),
    "a tree width of 0": _set(["settings", "tree_width"], 0),
    "a string schema version": _set(["schema_version"], "1"),
    "schema version 2": _set(["schema_version"], 2),
    "an unknown step field": _set([*STEP, "surprise"], 1),
    "a missing field": lambda d: d["steps"][0]["decisions"][0].pop("accepted"),
    "a step that is a number": lambda d: d["steps"].__setitem__(0, 7),
    "token ids as text": _set(["output_ids"], ["a", "b"]),
    "an output with no steps": _set(["steps"], []),
    "an output that is not what the steps emitted": lambda d: d["output_ids"].reverse(),
    "a ten-million-character meta text": _set(["meta", "pair"], "x" * 10_000_000),
}


@pytest.mark.parametrize("name", BAD)
@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_what_the_engine_cannot_produce_is_one_sentence(name):
    data = mutated(BAD[name])
    start = time.process_time()
    with pytest.raises(ValueError) as err:
        Trace.from_dict(data)
    assert time.process_time() - start < 5.0  # a hang guard: refused before anything is built (milliseconds)
    message = str(err.value)
    assert message.endswith(".") and "\n" not in message and len(message) < 300
    assert "Traceback" not in message and "dictionary update" not in message and "digits" not in message


def test_a_string_schema_version_says_so():
    with pytest.raises(ValueError, match="schema version must be a whole number"):
        Trace.from_dict(mutated(_set(["schema_version"], "1")))


def test_the_refusal_says_where():
    with pytest.raises(ValueError, match=r"step 1: draft 1: draft_prob must be a number from 0 to 1 \(got 1.5\)"):
        Trace.from_dict(mutated(_set([*DECISION, "draft_prob"], 1.5)))


def test_the_settings_the_engine_writes_keep_its_types():
    """The 29th read: settings were only "a number, text or true/false", so "k": "abc" passed and a page reading K
    as a number met a traceback; a proposer's own setting (layer-skip's "layers") keeps the general rule."""
    with pytest.raises(ValueError, match=r"settings\['k'\] must be a whole number from 1 to 16 or null"):
        Trace.from_dict(mutated(_set(["settings", "k"], "abc")))
    kept = Trace.from_dict(mutated(lambda d: d["settings"].update(k=None, layers=7, temperature=0, top_k=50)))
    assert kept.settings["k"] is None and kept.settings["layers"] == 7


def test_deep_nesting_is_one_sentence():
    with pytest.raises(ValueError, match="nests too deeply"):
        Trace.from_json("[" * 100_000 + "]" * 100_000)


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_every_shipped_trace_and_a_fresh_round_trip_pass(toy):
    for example in list_examples():
        for path in (example.path, example.baseline_path):
            if path is not None:
                Trace.from_json(path.read_text(encoding="utf-8"))
    from specviz.runs.running import run
    from specviz.runs.runspec import RunSpec
    trace = run(RunSpec(pair="toy", prompt="the cat", chat=False, k=16, temperature=1.0, max_new_tokens=40), pair=toy)
    again = Trace.from_json(trace.to_json())
    assert again.output_ids == trace.output_ids and again.steps[0].emitted[0].kind == trace.steps[0].emitted[0].kind


def test_the_schema_allows_exactly_the_enums_values():
    """Issue 29: the trace's vocabularies are enums (specviz.engine.kinds), and the schema's sets are derived from them."""
    from specviz.engine import trace_schema
    from specviz.engine.kinds import Mode, NodeStatus, TokenKind

    assert set(trace_schema.MODES) == {m.value for m in Mode} == {"speculative", "autoregressive"}
    assert set(trace_schema.KINDS) == {k.value for k in TokenKind}
    assert set(trace_schema.TREE_STATUSES) == {s.value for s in NodeStatus} == {"accepted", "rejected", "not reached"}


@pytest.mark.slow  # over the fast tier's 0.7 s a test
def test_no_module_compares_a_trace_vocabulary_with_a_string_literal():
    """`trace.mode != "speculative"`, `node.status == "accepted"` or `stop == "max_new_tokens"` would hard-code a
    value that lives in specviz.engine.kinds: every such comparison names the enum member instead."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "specviz"
    fields = {"mode", "status", "stop_reason", "kind"}
    names = {"stop", "stop_reason", "status"}  # local names that hold a trace's value
    found, scanned = [], 0
    for path in root.rglob("*.py"):
        scanned += 1
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Compare):
                continue
            sides = [node.left, *node.comparators]
            named = any(isinstance(s, ast.Attribute) and s.attr in fields or isinstance(s, ast.Name) and s.id in
                        names for s in sides)
            literal = any(isinstance(s, ast.Constant) and isinstance(s.value, str) and s.value for s in sides)
            if named and literal:
                found.append(f"{path.relative_to(root)}:{node.lineno}")
    assert scanned > 100 and found == []


def test_every_stop_reason_has_a_sentence_in_the_cli_and_the_playground():
    """A new StopReason is named for a reader wherever a run's end is told (the CLI's summary, the player's 'Done')."""
    from specviz.cli import STOP_REASONS
    from specviz.engine.kinds import StopReason
    from specviz.ui.playground.player import STOPS

    assert set(STOPS) == set(StopReason) == set(STOP_REASONS)


def test_too_many_steps_are_counted_in_the_readers_number_format():
    """32nd read: the refusal read "at most 2048 steps (this one has 2049)" where the same module writes its other
    counts 200,000 / 200.000; both counts now go through i18n.number."""
    from specviz.core.i18n import using
    from specviz.engine.trace_schema import check_trace_size

    data = {"steps": [{}] * 2049}
    with pytest.raises(ValueError, match=r"at most 2,048 steps \(this one has 2,049\)\.$"):
        check_trace_size(data)
    with using("pt"), pytest.raises(ValueError, match=r"2\.048 .*2\.049\)\.$"):
        check_trace_size(data)


@pytest.mark.parametrize("lang, change, says", [
    ("en", _set(["settings", "max_new_tokens"], 5000), "settings['max_new_tokens'] must be a whole number from 1 to "
                                                       "2,048 (got 5000)."),
    ("pt", _set(["settings", "max_new_tokens"], 5000), "de 1 a 2.048 (recebido: 5000)."),
    ("en", _set(["steps", 0, "target_cache_after"], -1), "from 0 to 131,072 (got −1)."),
    ("en", _set(["steps", 0, "draft_seconds"], 2e6), "draft_seconds must be a number from 0 to 1,000,000 (got"),
    ("pt", _set(["steps", 0, "draft_seconds"], 2e6), "deve ser um número de 0 a 1.000.000 (recebido:"),
])
def test_a_fields_range_is_written_in_the_readers_number_format(lang, change, says):
    """Read 46: an uploaded trace's range refusals wrote their ends raw, "from 1 to 2048", "from 0 to 131072",
    "from 0 to 1e+06", beside the same module's "at most 200,000 characters" (and RunSpec's "from 1 to 2,048")."""
    from specviz.core.i18n import using

    refused = refusal(mutated(change), lang)
    assert says in refused and "e+06" not in refused


def test_a_long_settings_key_is_quoted_cut_with_an_ellipsis():
    """Read 46: a settings key over 40 characters was quoted cut silently, "settings['xxx…x]" with no closing
    quote and nothing to say the file's key went on."""
    with pytest.raises(ValueError, match=r"settings\['x{38}…\] must be"):
        Trace.from_json(json.dumps(mutated(_set(["settings", "x" * 100], [1]))))


NO_STEPS = {"en": "This file is not a specviz trace: specviz writes a list of at least one step under 'steps', and "
                  "this file has none.",
            "pt": "Este arquivo não é um traço do specviz: o specviz escreve uma lista de pelo menos um passo em "
                  "'steps', e este arquivo não tem nenhum."}


@pytest.mark.parametrize("lang", ["en", "pt"])
@pytest.mark.parametrize("change", [lambda d: d.update(steps=[], output_ids=[], output_text=""),
                                    lambda d: d.pop("steps"), lambda d: d.update(steps=None),
                                    lambda d: d.update(steps={})],
                         ids=["an empty list", "no steps field", "null steps", "an object for steps"])
def test_a_trace_with_no_steps_is_refused_in_one_sentence(lang, change):
    """Read 47: a trace file with no steps (and so no output) was read, and the Playground's player then failed on
    it, "This part of the page could not be drawn just now; it tries again at the next refresh", which no refresh
    would change. The engine's loop makes at least one step before it checks for a stop, so no run writes one.
    Read 51: a file without steps was refused three ways by where it went: "(no 'steps' found)" by `from_dict`,
    "(no list of 'steps' found)" by the schema check and "a trace has at least one step" for an empty list."""
    from specviz.engine.trace_schema import check_trace_dict

    empty = mutated(change)
    assert refusal(empty, lang) == NO_STEPS[lang]
    with using(lang), pytest.raises(ValueError) as refused:
        check_trace_dict(empty)
    assert str(refused.value) == NO_STEPS[lang]
    for text in ("[]", "{}", '{"schema_version": 1}'):  # not a trace at all: the same sentence
        assert refusal(text, lang) == NO_STEPS[lang]


def test_a_long_text_value_is_quoted_cut_inside_its_quotes():
    """Read 47: a token text over 30 characters was quoted "(got 'xxx…)." with the closing quote cut off."""
    with pytest.raises(ValueError, match=r"\(got 'x{27}…'\)\.$"):
        Trace.from_json(json.dumps(mutated(_set([*DECISION, "text"], "x" * 1000))))


def test_a_trace_without_a_schema_version_says_so_in_words():
    """Read 48: a file without the field was refused with "(got None)", Python's word for the missing value."""
    data = mutated(_set(["schema_version"], 1))
    del data["schema_version"]
    with pytest.raises(ValueError) as err:
        Trace.from_dict(data)
    assert str(err.value) == "This file names no schema version, so it is not a trace specviz wrote (specviz writes " \
                             "version 1)." and "None" not in str(err.value)
    with using("pt"), pytest.raises(ValueError) as err:
        Trace.from_dict(data)
    assert str(err.value).startswith("Este arquivo não informa uma versão de esquema")
    assert "None" not in str(err.value)


def test_mean_accept_prob_holds_the_mean_acceptance_probability_the_glossary_calls_alpha():
    """Read 49 asked whether the trace field `mean_accept_prob` names what it holds (the glossary: acceptance
    probability α = E[Σ min(p, q)]; acceptance rate = accepted / drafted; mean accepted length = tokens per target
    forward). It holds the mean of each tested draft's acceptance probability min(1, p(x)/q(x)), whose expectation
    is Σ min(p, q): for a chain, an estimate of α, neither of the other two, so the name stays; a committed trace's
    summary carries it under that name, and the file loads with it."""
    import json

    from specviz.core.paths import TRACES_DIR
    from specviz.engine.trace import Trace

    text = (TRACES_DIR / "smollm-draft-t07.json").read_text(encoding="utf-8")
    trace = Trace.from_json(text)
    assert trace.settings["temperature"] == 0.7 and not any(step.tree for step in trace.steps)
    tested = [d for step in trace.steps for d in step.decisions if d.reached]
    expected = sum(min(1.0, d.target_prob / d.draft_prob) for d in tested) / len(tested)
    assert trace.mean_accept_prob == pytest.approx(expected, rel=1e-6)
    assert json.loads(text)["summary"]["mean_accept_prob"] == pytest.approx(trace.mean_accept_prob)
    assert abs(trace.mean_accept_prob - trace.acceptance_rate) > 0.02  # 0.499 against 0.475
    assert trace.mean_accepted_length > 1.5  # 1.905 tokens per target forward: another quantity


@pytest.mark.parametrize("lang, index, says", [
    ("en", 2048, "This trace is damaged: step 1: index must be a whole number from 0 to 2,047 (got 2048)."),
    ("pt", -1, "Este traço está danificado: passo 1: index deve ser um número inteiro de 0 a 2.047 (recebido: −1).")])
def test_a_steps_index_is_refused_with_the_last_index_a_trace_can_hold(lang, index, says):
    """Read 49: the refusal said "index must be a whole number from 0 to 2,048", and took 2048, though a trace holds
    at most 2,048 steps (the same module's limit), numbered from 0: the last is 2,047."""
    assert refusal(mutated(_set([*STEP, "index"], index)), lang) == says


@pytest.mark.parametrize("field", ["target_cache_before", "target_cache_after"])
@pytest.mark.parametrize("lang, says", [
    ("en", "This trace is damaged: step 1: {field} is missing (every step specviz writes records the target's cache "
           "length before and after it)."),
    ("pt", "Este traço está danificado: passo 1: {field} está ausente (todo passo que o specviz escreve registra o "
           "tamanho do cache do alvo antes e depois dele)."),
])
def test_a_step_without_its_target_cache_lengths_is_refused_naming_the_field(field, lang, says):
    """Read 50: a step with no target_cache_before but a target_cache_after of 40 was refused with the 0 the
    reader filled in, "(0 -> 40)", a length the file never gave (and with neither, it was read as 0 -> 0)."""
    data = mutated(lambda d: d["steps"][0].pop(field))
    refused = refusal(data, lang)
    assert refused == says.format(field=field) and "0 ->" not in refused


@pytest.mark.parametrize("lang, says", [
    ("en", "This trace is damaged: step 2: index must be 1, as specviz numbers the steps 0, 1, 2, … in order "
           "(got 0)."),
    ("pt", "Este traço está danificado: passo 2: index deve ser 1, pois o specviz numera os passos 0, 1, 2, … em "
           "ordem (recebido: 0)."),
])
def test_a_step_that_repeats_an_index_is_refused(lang, says):
    """Read 50: a second step with "index": 0 loaded without complaint, and the pages, which label and outline a
    step by its index, showed two "step 1"s and outlined both."""
    assert refusal(mutated(_set(["steps", 1, "index"], 0)), lang) == says
    with pytest.raises(ValueError, match=r"step 1: index must be 0, .* \(got nothing\)\.$"):
        Trace.from_json(json.dumps(mutated(lambda d: d["steps"][0].pop("index"))))
    assert [s.index for s in Trace.from_json(json.dumps(TOY)).steps] == list(range(len(TOY["steps"])))


def test_a_ratio_of_infinity_is_read_only_where_q_is_0():
    """The engine writes ratio = p/q, inf where q = 0 (specviz.engine.recording): a ratio of Infinity beside
    q = 0.5 loaded as it stood (read 50) and the command line's step table printed it; where q = 0 it is kept."""
    def ratio(value, q=None):
        def change(data):
            decision = data["steps"][0]["decisions"][0]
            decision["ratio"] = value
            if q is not None:  # the rule keeps a draft q could not have proposed with chance 1 (p > 0)
                decision.update(draft_prob=q, accept_prob=1.0)
        return json.dumps(mutated(change))
    assert "Infinity" in ratio(float("inf"))  # Python's json writes (and reads) the bare literal
    decision = TOY["steps"][0]["decisions"][0]
    p_over_q = decision["target_prob"] / decision["draft_prob"]
    assert refusal(ratio(float("inf"))) == ("This trace is damaged: step 1: draft 1: ratio must be target_prob / "
                                            f"draft_prob = {p_over_q!r}, to within a relative 1e-9 (got inf).")
    assert refusal(ratio(0.5, q=0.0), "pt") == ("Este traço está danificado: passo 1: palpite 1: ratio deve ser inf, "
                                                "pois draft_prob é 0 (recebido: 0.5).")
    assert Trace.from_json(ratio(float("inf"), q=0.0)).steps[0].decisions[0].ratio == float("inf")
    assert Trace.from_json(ratio("inf", q=0.0)).steps[0].decisions[0].ratio == float("inf")  # as specviz writes it


TREE_STEP = {"index": 0, "context_length": 3, "k": 1, "proposer": "eagle", "target_cache_before": 2,
             "target_cache_after": 4, "decisions": [
                 {"position": 0, "token_id": 5, "text": "a", "draft_prob": 0.5, "target_prob": 0.25, "ratio": 0.5,
                  "accept_prob": 0.5, "uniform": 0.1, "accepted": True, "reached": True}],
             "emitted": [{"token_id": 5, "text": "a", "kind": "accepted"},
                         {"token_id": 6, "text": "b", "kind": "bonus"}],
             "tree": {"nodes": [{"token_id": 5, "text": "a", "parent": -1, "depth": 1, "draft_prob": 0.5,
                                 "target_prob": 0.25, "status": "accepted", "uniform": 0.1, "accept_prob": 0.5}],
                      "path": [0]}}
HAND = {"schema_version": 1, "mode": "speculative", "settings": {}, "prompt_ids": [1, 2, 3], "output_ids": [5, 6],
        "steps": [TREE_STEP]}


@pytest.mark.parametrize("lang, change, says", [
    ("en", lambda d: d["steps"][0].pop("decisions"), "This trace is damaged: step 1: decisions is missing."),
    ("en", lambda d: d["steps"][0].pop("emitted"), "This trace is damaged: step 1: emitted is missing."),
    ("en", lambda d: d["steps"][0]["decisions"][0].pop("accepted"),
     "This trace is damaged: step 1: draft 1: accepted is missing."),
    ("pt", lambda d: d["steps"][0]["emitted"][1].pop("kind"),
     "Este traço está danificado: passo 1: token 2: kind está ausente."),
    ("en", lambda d: d["steps"][0]["tree"]["nodes"][0].pop("status"),
     "This trace is damaged: step 1: tree: node 0: status is missing."),
    ("en", lambda d: d.pop("mode"), "This trace is damaged: mode is missing."),
    ("en", lambda d: d["steps"][0].update(surprise=1),
     "This trace is damaged: step 1: 'surprise' is not a field specviz writes."),
    ("pt", lambda d: d.update(modo="speculative"),
     "Este traço está danificado: 'modo' não é um campo que o specviz escreve."),
])
def test_a_missing_or_unknown_field_is_named_where_it_is(lang, change, says):
    """Read 50: a trace written by hand with a field missing or misspelt was refused with "This trace file is damaged
    or incomplete (a field is missing or unknown)", naming neither the field nor the step; a step without
    `decisions` was refused as "emitted must be a list of at most one token more than the drafts in decisions", and
    one without `emitted` as "output_ids must be the tokens the steps emitted"."""
    assert Trace.from_dict(copy.deepcopy(HAND)).steps[0].tree.path == [0]  # the hand-written tree step loads
    data = copy.deepcopy(HAND)
    change(data)
    assert refusal(data, lang) == says


def test_the_schemas_field_lists_are_the_trace_dataclasses():
    """`REQUIRED` and the rules name every field of specviz.engine.trace's dataclasses, the required ones exactly
    those without a default (a step's index and cache lengths have sentences of their own)."""
    from dataclasses import MISSING, fields

    from specviz.engine import trace as t
    from specviz.engine import trace_schema as s

    shapes = {"trace": (t.Trace, s.TRACE), "step": (t.Step, s.STEP), "decision": (t.Decision, s.DECISION),
              "emitted": (t.EmittedToken, s.EMITTED), "node": (t.TreeNode, s.TREE_NODE), "top": (t.TokenProb,
                                                                                               s.TOKEN_PROB)}
    assert set(s.REQUIRED) == set(shapes)  # every shape the schema names is checked below
    for shape, (cls, rules) in shapes.items():
        known = {f.name for f in fields(cls)}
        assert set(rules) | set(s.OTHER.get(shape, ())) == known | ({"summary"} if shape == "trace" else set())
        required = {f.name for f in fields(cls) if f.default is MISSING and f.default_factory is MISSING}
        assert set(s.REQUIRED[shape]) == required - {"index"}, shape


@pytest.mark.parametrize("rule, change", [
    ("none unknown, and none missing that has no default", lambda d: d["steps"][0].update(surprise=1)),
    ("none missing that has no default in `specviz.engine.trace`", lambda d: d["steps"][0].pop("proposer")),
    ("at most one token more than them in its `emitted`",
     lambda d: d["steps"][0]["emitted"].extend(d["steps"][0]["emitted"] * 2)),
    ("a tree step's `decisions` its tree's main line", lambda d: d["steps"][0].update(tree={"nodes": [], "path": []})),
    ("a list of at least one step under `steps`", lambda d: d.update(steps=[], output_ids=[])),
    ("step `index` 0, 1, 2, … in order", _set(["steps", 1, "index"], 0)),
    ("each step's `k` the number of its `decisions`", _set([*STEP, "k"], 3)),
    ("each decision's `position` 0, 1, 2, … in order", _set([*STEP, "decisions", 1, "position"], 0)),
    ("its `accepted` true exactly when its `uniform` is below its `accept_prob`",
     _set([*STEP, "decisions", 0, "accepted"], False)),
    ("`target_cache_before` and `target_cache_after`", lambda d: d["steps"][0].pop("target_cache_before")),
    ("`ratio` p/q (to within a relative 1e-9), `inf` exactly where q = 0", _set([*DECISION, "ratio"], float("inf"))),
    ("`output_ids` the tokens the steps `emitted`, in order", lambda d: d["output_ids"].reverse()),
])
def test_library_md_states_each_rule_a_hand_written_trace_trips_on(rule, change):
    """Read 50: docs/library.md said only "every field of a file is checked for type and size first", and the loader
    also refuses missing and unknown fields, steps out of order, a step without its cache lengths, a ratio that is not
    p/q and an output that is not what the steps emitted: each rule it enforces is stated there."""
    from pathlib import Path

    library = (Path(__file__).resolve().parents[2] / "docs" / "library.md").read_text(encoding="utf-8")
    assert rule in " ".join(library.split())  # wherever the paragraph's lines break
    with pytest.raises(ValueError, match="^This (trace is damaged|file is not a specviz trace): "):
        Trace.from_json(json.dumps(mutated(change)))


@pytest.mark.parametrize("lang, change, says", [
    ("en", _set(["meta", "proposer"], True), "meta['proposer'] must be text of at most 200,000 characters (got true)"),
    ("pt", _set(["meta", "pair"], float("nan")),
     "meta['pair'] deve ser um texto de no máximo 200.000 caracteres (recebido: nan)"),
    # read 54: a clock no run writes loaded, and the race showed its times as wall time
    ("en", _set(["meta", "clock"], "sundial"), "meta['clock'] must be one of wall, cpu (got 'sundial')"),
    ("pt", _set(["meta", "clock"], float("nan")), "meta['clock'] deve ser um de wall, cpu (recebido: nan)"),
    ("en", _set(["meta", "chat"], "yes"), "meta['chat'] must be true or false (got 'yes')"),
    ("pt", _set(["meta", "machine"], [1]),
     "meta['machine'] deve ser um objeto de no máximo 50 entradas (recebido: list)"),
    ("en", _set(["meta", "machine"], {"cores": 2.5}),
     "meta['machine']['cores'] must be a whole number from 1 to 1,000,000 or null (got 2.5)"),
])
def test_a_meta_field_of_the_wrong_type_is_refused_naming_it(lang, change, says):
    """Read 53: meta was checked only as an object, so `"proposer": true` or `"clock": NaN` loaded and a page could
    show them as written. The fields the engine writes now keep its types (text, true or false, whole counts)."""
    assert refusal(mutated(change), lang).endswith(says + ".")
    assert "`meta` the types a run writes" in " ".join(_library().split())
    assert "`clock` wall or cpu" in " ".join(_library().split())


def test_meta_as_a_run_and_make_traces_write_it_loads():
    """Every shipped trace loads (above); so does a meta with every field the engine writes, machine included, and a
    key no page reads (an older or later specviz's)."""
    machine = {"cpu": "AMD EPYC", "cpu_flags": ["avx2"], "cores": 2, "gpu": None, "torch_threads": 1, "device": "cpu",
               "dtype": "float32", "kernels": "stock", "torch": "2.5.1", "date": "2026-12-01T00:00:00Z",
               "isa_limits": {}}
    data = mutated(lambda d: d["meta"].update(device="cpu", machine=machine, surprise=[1.5]))
    assert Trace.from_json(json.dumps(data)).meta["machine"]["cores"] == 2


@pytest.mark.slow  # a toy tree run
def test_library_md_says_a_tree_decisions_keep_chance_is_not_min_1_p_over_q(toy):
    """Read 50: docs/library.md listed each decision's fields as "token, q, p, p/q, min(1, p/q), u", but on a tree
    step's main line `accept_prob` is min(1, p′/q′) (a top-k child's p′(x)): here a ratio of 1.31 beside 0.62."""
    from pathlib import Path

    from specviz.runs.running import run
    from specviz.runs.runspec import RunSpec

    trace = run(RunSpec(pair="toy", prompt="the cat sat on the", chat=False, k=4, tree_nodes=16, tree_width=4,
                        temperature=1.0, top_k=5, seed=2, max_new_tokens=30), pair=toy)
    apart = [d for s in trace.steps for d in s.decisions if d.reached and abs(min(1, d.ratio) - d.accept_prob) > 0.1]
    assert apart  # p/q above 1, kept with a chance well below 1
    library = (Path(__file__).resolve().parents[2] / "docs" / "library.md").read_text(encoding="utf-8")
    assert "p/q, min(1, p/q), u" not in library
    assert "(min(1, p/q) in a chain; on a tree step's main line min(1, p′/q′)" in library


@pytest.mark.parametrize("lang, says", [
    ("en", "This trace is damaged: step 1: k must be 4, the number of drafts in decisions (got 3)."),
    ("pt", "Este traço está danificado: passo 1: k deve ser 4, o número de palpites em decisions (recebido: 3)."),
])
def test_a_steps_k_is_the_number_of_its_decisions(lang, says):
    """Read 51: a step's k was checked for its range only, so a file whose first step said k = 3 beside its 4
    decisions loaded, and the pages then showed K = 3 over four drafted chips. The recorder writes k = the number
    of decisions (a chain's drafts, a tree step's main line); the tree step written by hand keeps its k = 1."""
    assert TOY["steps"][0]["k"] == len(TOY["steps"][0]["decisions"]) == 4
    assert refusal(mutated(_set([*STEP, "k"], 3)), lang) == says
    with pytest.raises(ValueError, match=r"step 1: k must be 0, the number of drafts in decisions \(got 1\)\.$"):
        Trace.from_json(json.dumps({**HAND, "output_ids": [6], "steps": [{
            **TREE_STEP, "decisions": [], "emitted": TREE_STEP["emitted"][1:], "target_cache_after": 3}]}))
    assert Trace.from_dict(copy.deepcopy(HAND)).steps[0].k == 1


@pytest.mark.parametrize("lang, says", [
    ("en", "This trace is damaged: step 1: draft 2: position must be 1, as specviz numbers a step's drafts 0, 1, 2, "
           "… in order (got 0)."),
    ("pt", "Este traço está danificado: passo 1: palpite 2: position deve ser 1, pois o specviz numera os palpites de "
           "um passo 0, 1, 2, … em ordem (recebido: 0)."),
])
def test_a_decisions_position_is_its_place_in_the_step(lang, says):
    """Read 51: a decision's position was checked for its range only, so a step whose first two drafts both said
    position 0 loaded (and one whose drafts said 1, 0 in that order). The recorder writes position = the draft's
    place in the step, from 0, and the pages label a draft by it."""
    def swapped(data):
        first, second = data["steps"][0]["decisions"][:2]
        first["position"], second["position"] = second["position"], first["position"]
    assert refusal(mutated(_set([*STEP, "decisions", 1, "position"], 0)), lang) == says
    with pytest.raises(ValueError, match=r"step 1: draft 1: position must be 0, .* \(got 1\)\.$"):
        Trace.from_json(json.dumps(mutated(swapped)))
    assert [d.position for d in Trace.from_json(json.dumps(TOY)).steps[0].decisions] == [0, 1, 2, 3]


def _flipped(step: int, draft: int):
    def change(data):
        decision = data["steps"][step]["decisions"][draft]
        decision["accepted"] = not decision["accepted"]
    return change


@pytest.mark.parametrize("lang, step, draft, says", [
    ("en", 0, 0, "This trace is damaged: step 1: draft 1: accepted is false, but its uniform 0.027265489101409912 is "
                 "below its accept_prob 0.8975361412268933 (specviz keeps a draft exactly when uniform < "
                 "accept_prob)."),
    ("pt", 0, 0, "Este traço está danificado: passo 1: palpite 1: accepted é false, mas seu uniform "
                 "0.027265489101409912 é menor que seu accept_prob 0.8975361412268933 (o specviz aceita um palpite "
                 "exatamente quando uniform < accept_prob)."),
    ("en", 1, 2, "This trace is damaged: step 2: draft 3: accepted is true, but its uniform 0.9254285097122192 is not "
                 "below its accept_prob 0.76573684091742 (specviz keeps a draft exactly when uniform < "
                 "accept_prob)."),
    ("pt", 1, 3, "Este traço está danificado: passo 2: palpite 4: accepted é true, mas uniform é null, e o specviz não "
                 "aceita nenhum palpite que a regra não testou."),
])
def test_an_accepted_flag_that_contradicts_its_uniform_is_refused(lang, step, draft, says):
    """Read 51: a decision whose `accepted` was flipped loaded as it stood: a kept draft whose u was below
    min(1, p/q) shown as rejected, a rejected one above it shown as kept, or a draft after the first rejection (never
    tested, no u) shown as kept. Every rule keeps a tested draft exactly when u < the chance it records in
    `accept_prob` (min(1, p′/q′) on a tree's main line, 0 or 1 when greedy), so only a flag against those two is
    refused: every shipped trace, greedy ones included, and a sampled tree run still load."""
    toy = TOY["steps"]
    assert toy[0]["decisions"][0]["accepted"] and toy[1]["decisions"][2]["reached"]
    assert not toy[1]["decisions"][2]["accepted"] and not toy[1]["decisions"][3]["reached"]
    assert refusal(mutated(_flipped(step, draft)), lang) == says
    kept = Trace.from_json(json.dumps(TOY)).steps[1]
    assert [d.accepted for d in kept.decisions] == [True, True, False, False]


def test_a_tree_steps_verdict_is_read_against_the_chance_it_recorded():
    """A tree child tried after a rejected sibling is kept when u < min(1, p′/q′), which its `accept_prob` records,
    not min(1, p/q): here u = 0.6 is above p/q = 0.5 but below p′/q′ = 0.7, and the step loads; flipped, it does
    not."""
    nodes = [{**TREE_STEP["tree"]["nodes"][0], "status": "rejected", "uniform": 0.9},
             {**TREE_STEP["tree"]["nodes"][0], "token_id": 7, "text": "c", "uniform": 0.6, "accept_prob": 0.7,
              "target_prob_used": 0.35, "draft_prob_used": 0.5}]
    decision = {**TREE_STEP["decisions"][0], "token_id": 7, "text": "c", "accept_prob": 0.7, "uniform": 0.6}
    data = {**HAND, "output_ids": [7, 6], "steps": [{
        **TREE_STEP, "decisions": [decision], "tree": {"nodes": nodes, "path": [1]},
        "emitted": [{"token_id": 7, "text": "c", "kind": "accepted"}, {"token_id": 6, "text": "b", "kind": "bonus"}]}]}
    step = Trace.from_json(json.dumps(data)).steps[0]
    assert step.main_line() == [1] and step.decisions[0].uniform > min(1, step.decisions[0].ratio)
    data["steps"][0]["decisions"][0]["accepted"] = False
    with pytest.raises(ValueError, match=r"^This trace is damaged: step 1: draft 1: accepted is false, but its "
                                         r"uniform 0.6 is below its accept_prob 0.7 \("):
        Trace.from_json(json.dumps(data))


def _library() -> str:
    from pathlib import Path

    return " ".join((Path(__file__).resolve().parents[2] / "docs" / "library.md").read_text(encoding="utf-8").split())


@pytest.mark.parametrize("lang, says", [
    ("en", "This trace is damaged: step 1: draft 1: accept_prob must be min(1, target_prob / draft_prob) = "
           "0.8975361412268933, the chance the exact rule keeps a chain's draft with, to within 1e-9 (got 0.5)."),
    ("pt", "Este traço está danificado: passo 1: palpite 1: accept_prob deve ser min(1, target_prob / draft_prob) = "
           "0.8975361412268933, a chance de a regra exata manter um palpite de uma cadeia, com tolerância de 1e-9 "
           "(recebido: 0.5)."),
])
def test_a_chain_drafts_accept_prob_is_min_1_p_over_q(lang, says):
    """Left by earlier reads (read 52's list): a chain decision's accept_prob was checked against its u only, so an
    uploaded trace could claim any keep chance (here 0.5 beside p/q = 0.898, its u 0.027 below both) and the pages
    showed it as min(1, p/q). Within 1e-9 it loads (JSON keeps the recorder's floats exactly); a tree step's main
    line records min(1, p′/q′) and is not held to min(1, p/q) (`test_a_tree_steps_verdict_is_read_against_...`)."""
    assert refusal(mutated(_set([*DECISION, "accept_prob"], 0.5)), lang) == says
    near = TOY["steps"][0]["decisions"][0]["accept_prob"] + 1e-12
    assert Trace.from_json(json.dumps(mutated(_set([*DECISION, "accept_prob"], near)))).steps[0].decisions[0].accepted
    not_reached = refusal(mutated(_set(["steps", 1, "decisions", 3, "accept_prob"], 1.0)))  # recorded all the same
    assert not_reached.startswith("This trace is damaged: step 2: draft 4: accept_prob must be min(1, target_prob / "
                                  "draft_prob) = 0.4880547676261523, ") and not_reached.endswith("(got 1.0).")
    assert "in a chain step its `accept_prob` min(1, p/q) (to within 1e-9; 1 where q = 0 < p, 0 where p = q = 0)" \
        in _library()


def _step2(**changes):
    """The toy trace with step 2's drafts changed: they are [accepted, accepted, rejected, not reached]."""
    def change(data):
        for draft, fields in changes.items():
            data["steps"][1]["decisions"][int(draft[1:]) - 1].update(fields)
    return mutated(change)


@pytest.mark.parametrize("lang, changes, says", [
    ("en", {"d4": {"reached": True, "uniform": 0.1, "accepted": True}},
     "step 2: draft 4: accepted is true, but draft 3 before it was rejected, and specviz keeps no draft after a "
     "step's first rejection."),
    ("pt", {"d4": {"reached": True, "uniform": 0.1, "accepted": True}},
     "passo 2: palpite 4: accepted é true, mas o palpite 3, antes dele, foi rejeitado, e o specviz não aceita nenhum "
     "palpite depois da primeira rejeição de um passo."),
    ("en", {"d4": {"reached": True, "uniform": 0.9}},
     "step 2: draft 4: reached is true, but draft 3 before it was rejected, and specviz tests no draft after a step's "
     "first rejection."),
    ("en", {"d3": {"reached": False, "uniform": None}},
     "step 2: draft 3: reached is false, but no draft before it was rejected (specviz tests every draft up to a "
     "step's first rejection)."),
    ("en", {"d3": {"uniform": None}},
     "step 2: draft 3: reached is true, but uniform is null (specviz draws a uniform for every draft it tests)."),
    ("pt", {"d4": {"uniform": 0.5}},
     "passo 2: palpite 4: reached é false, mas tem um uniform 0.5 (o specviz sorteia um uniform só para os palpites "
     "que testa)."),
])
def test_a_steps_drafts_are_accepted_up_to_one_rejection_and_none_tested_after(lang, changes, says):
    """Left by earlier reads (read 52's list): each draft was checked alone, so a step whose fourth draft was kept
    (u = 0.1 below its chance 0.49) after its third was rejected loaded, and the pages drew a kept chip after the
    rejection; nor did `reached` have to agree with the uniform the rule draws for each draft it tests. The verifier
    tests drafts from the first until one is rejected and draws a uniform for exactly those."""
    assert refusal(_step2(**changes), lang).endswith(says)
    assert "a step's drafts accepted up to at most one rejected, none reached after it" in _library()
    assert "`uniform` given exactly when it is `reached`" in _library()


def _tree(*nodes, path):
    """HAND with its tree's nodes and path replaced (its one decision, node 0 kept with u 0.1, stays)."""
    base = TREE_STEP["tree"]["nodes"][0]  # p 0.25, q 0.5, u 0.1, accept_prob 0.5, accepted, under the root
    return {**HAND, "steps": [{**TREE_STEP, "tree": {"nodes": [{**base, **n} for n in nodes], "path": path}}]}


@pytest.mark.parametrize("lang, tree, says", [
    ("en", _tree({}, {"token_id": 7, "status": "not reached", "uniform": 0.3, "accept_prob": None}, path=[0]),
     "node 1: status is not reached, but it has uniform 0.3 (specviz records a uniform and an accept_prob only for "
     "the nodes it tests)."),
    ("pt", _tree({}, {"token_id": 7, "status": "not reached", "uniform": None}, path=[0]),
     "nó 1: status é not reached, mas tem accept_prob 0.5 (o specviz registra um uniform e um accept_prob só para os "
     "nós que testa)."),
    ("en", _tree({"uniform": None}, path=[0]),
     "node 0: status is accepted, but uniform is null (specviz records a uniform and an accept_prob for every node it "
     "tests)."),
    ("en", _tree({"status": "rejected", "uniform": 0.9}, {"token_id": 7},
                 {"token_id": 8, "parent": 0, "depth": 2, "status": "rejected", "uniform": 0.9}, path=[1]),
     "node 2: status is rejected, but its parent, node 0, was not accepted (specviz tests only the children of the "
     "root and of accepted nodes)."),
    ("pt", _tree({}, {"token_id": 7, "status": "rejected", "uniform": 0.9}, path=[0]),
     "nó 1: status é rejected, mas o nó 0, um irmão antes dele, não foi rejeitado (o specviz testa os filhos de um nó "
     "em ordem e para no primeiro que aceita)."),
    ("en", _tree({}, {"token_id": 7, "parent": 0, "depth": 2, "status": "not reached", "uniform": None,
                      "accept_prob": None}, path=[0]),
     "node 1: status is not reached, but the rule reached it: its parent was accepted (or is the root) and every "
     "sibling before it was rejected (specviz tries a node's children in order until it accepts one)."),
    ("en", _tree({"uniform": 0.6}, path=[0]),
     "node 0: status is accepted, but its uniform 0.6 is not below its accept_prob 0.5 (specviz keeps a node exactly "
     "when uniform < accept_prob)."),
    ("pt", _tree({"status": "rejected", "uniform": 0.9}, {"token_id": 7, "uniform": 0.2, "accept_prob": 0.1},
                 path=[1]),
     "nó 1: status é accepted, mas seu uniform 0.2 não é menor que seu accept_prob 0.1 (o specviz aceita um nó "
     "exatamente quando uniform < accept_prob)."),
    ("en", _tree({"status": "rejected"}, {"token_id": 7}, path=[1]),
     "node 0: status is rejected, but its uniform 0.1 is below its accept_prob 0.5 (specviz keeps a node exactly when "
     "uniform < accept_prob)."),
])
def test_a_tree_node_is_tested_exactly_where_the_rule_walks(lang, tree, says):
    """Left by earlier reads (read 52's list): a tree node's status was checked only against the path, so a node
    marked not reached with a uniform, one tested below a rejected parent or after its accepted sibling, or one
    kept with u above its chance loaded as it stood. `verify_tree` walks down from the root, tries an accepted
    node's children in order until it keeps one, and records u and accept_prob for exactly the nodes it tries."""
    assert refusal(tree, lang).endswith("tree: " + says if lang == "en" else "árvore: " + says)
    assert Trace.from_dict(_tree({}, {"token_id": 7, "status": "not reached", "uniform": None, "accept_prob": None},
                                 path=[0])).steps[0].tree.nodes[1].status == "not reached"
    assert "tested exactly when it is a child of the root or of an accepted node and every sibling before it" \
           in _library()


@pytest.mark.parametrize("lang, says", [
    ("en", "This file gives the key 'text' twice in one object (a JSON reader keeps only its last value, without a "
           "word), so it is not a trace specviz wrote."),
    ("pt", "Este arquivo dá a chave 'text' duas vezes no mesmo objeto (um leitor de JSON guarda só o último valor, "
           "sem avisar), então não é um traço que o specviz escreveu."),
])
def test_a_key_given_twice_is_refused_naming_it(lang, says):
    """Left by earlier reads (read 52's list): `json.loads` keeps the last of two equal keys without a word, so a
    draft written `"text": "k", "text": "cat"` loaded as "cat" and the file's "k" was lost. specviz writes each key
    once; the file is refused, naming the key."""
    text = json.dumps(TOY).replace('"text": "k"', '"text": "k", "text": "cat"', 1)
    assert text.count('"text": "cat"') == 1
    assert refusal(text, lang) == says
    long = json.dumps(TOY).replace('"mode": ', f'"{"x" * 100}": 1, "{"x" * 100}": 2, "mode": ', 1)
    assert refusal(long).startswith(f"This file gives the key '{'x' * 37}…' twice")
    assert "no key given twice in one object" in _library()


@pytest.mark.slow  # eight toy runs
@pytest.mark.parametrize("temperature", [0.0, 0.7])
@pytest.mark.parametrize("shape", [{}, {"tree_nodes": 16, "tree_width": 4}, {"tree_nodes": 16, "tree_width": 4,
                                                                              "tree_lookup": 8}, {"top_k": 5}])
def test_what_the_engine_writes_loads_under_the_new_checks(toy, temperature, shape):
    """The checks above (a chain's accept_prob, drafts in order, reached against uniform, a tree's nodes tested
    where the rule walks, keys once) refuse nothing the engine writes: chain and tree, greedy and sampled, top-k and
    with a lookup branch (read 52 also ran 44 such traces, three seeds each, and the shipped ones)."""
    from specviz.runs.running import run
    from specviz.runs.runspec import RunSpec

    trace = run(RunSpec(pair="toy", prompt="the cat sat on the mat the cat", chat=False, k=4, temperature=temperature,
                        seed=1, max_new_tokens=30, **shape), pair=toy)
    again = Trace.from_json(trace.to_json())
    assert again.output_ids == trace.output_ids and again.num_steps == trace.num_steps
    assert any(d.reached for s in again.steps for d in s.decisions)


@pytest.mark.parametrize("lang, says", [
    ("en", "This trace is damaged: step 1: draft 1: ratio must be target_prob / draft_prob = {}, to within a relative "
           "1e-9 (got {})."),
    ("pt", "Este traço está danificado: passo 1: palpite 1: ratio deve ser target_prob / draft_prob = {}, com "
           "tolerância relativa de 1e-9 (recebido: {})."),
])
def test_a_rounded_ratio_is_refused_with_the_p_over_q_it_should_be(lang, says):
    """Read 52: a ratio rounded to three decimals was refused as "ratio must be target_prob / draft_prob, inf when
    draft_prob is 0 (got 0.898)", naming neither p/q's value nor how close it must be, so a person writing a trace by
    hand read their own p/q quoted back as wrong. Within a relative 1e-9 it loads."""
    decision = TOY["steps"][0]["decisions"][0]
    exact = decision["target_prob"] / decision["draft_prob"]
    rounded = round(exact, 3)
    assert refusal(mutated(_set([*DECISION, "ratio"], rounded)), lang) == says.format(repr(exact), repr(rounded))
    assert Trace.from_json(json.dumps(mutated(_set([*DECISION, "ratio"], exact * (1 + 1e-12))))).steps


@pytest.mark.parametrize("lang, change, says", [
    ("en", _set([*DECISION, "target_top"], None),
     "This trace is damaged: step 1: draft 1: target_top must be a list of at most 10 tokens (got null)."),
    ("pt", _set([*STEP, "correction_top"], {}),
     "Este traço está danificado: passo 1: correction_top deve ser uma lista de no máximo 10 tokens (recebido: "
     "dict)."),
    ("en", _set([*DECISION, "token_id"], None),
     "This trace is damaged: step 1: draft 1: token_id must be a whole number from 0 to 16,777,216 (got null)."),
    ("en", _set([*DECISION, "position"], True),
     "This trace is damaged: step 1: draft 1: position must be a whole number from 0 to 15 (got true)."),
])
def test_a_value_that_is_not_a_list_or_number_is_quoted_as_the_file_wrote_it(lang, change, says):
    """Read 52: a null top list was refused as "target_top: a top list holds at most 10 tokens", as if it were too
    long, and a null or true field was quoted as Python writes it, "(got None)", "(got True)", not as the file did."""
    assert refusal(mutated(change), lang) == says


def _tree_hand(**changes):
    """HAND with its tree step changed: `tree` entries update the tree object, `decision` entries its one draft."""
    data = copy.deepcopy(HAND)
    data["steps"][0]["tree"].update(changes.get("tree", {}))
    data["steps"][0]["decisions"][0].update(changes.get("decision", {}))
    return data


@pytest.mark.parametrize("lang, data, says", [
    ("en", _tree_hand(tree={"shape": "16x4"}), "step 1: tree: 'shape' is not a field specviz writes."),
    ("en", mutated(lambda d: d["steps"][0].update(tree={"nodes": [], "path": []})),
     "step 1: decisions must be the tree's main line, its path and then the first child rejected below it: 0 drafts "
     "(got 4)."),
    ("pt", _tree_hand(decision={"uniform": 0.2}),
     "passo 1: palpite 1: este palpite deve ser o nó 0 da árvore, com seus token_id, draft_prob, target_prob, uniform "
     "e accept_prob, e accepted exatamente quando o nó é aceito (as decisions de um passo de árvore são sua linha "
     "principal: seu caminho, depois o primeiro filho rejeitado abaixo dele)."),
    ("en", _tree_hand(decision={"token_id": 9}), "step 1: draft 1: this draft must be node 0 of the tree, with its "
     "token_id, draft_prob, target_prob, uniform and accept_prob, and accepted exactly when the node is (a tree step's "
     "decisions are its main line: its path, then the first child rejected below it)."),
])
def test_a_tree_steps_decisions_are_its_main_line(lang, data, says):
    """Read 52: nothing tied a tree step's `decisions` to its tree, so a chain trace given `"tree": {"nodes": [],
    "path": []}` on a step skipped the check of its accept_prob (any keep chance loaded), a decision could name
    another token than its node, and an unknown key in the tree object was dropped without a word (library.md says
    "none unknown"). The recorder writes the main line's nodes as the decisions (`decoding.main_line`)."""
    assert refusal(data, lang).endswith(says)
    assert Trace.from_dict(copy.deepcopy(HAND)).steps[0].main_line() == [0]


@pytest.mark.parametrize("lang, says", [
    ("en", "This trace is damaged: step 1: tree: node 0: accept_prob must be min(1, target_prob_used / "
           "draft_prob_used) = 0.5, the chance the exact rule keeps a node with, to within 1e-9 (got 0.6)."),
    ("pt", "Este traço está danificado: passo 1: árvore: nó 0: accept_prob deve ser min(1, target_prob_used / "
           "draft_prob_used) = 0.5, a chance de a regra exata manter um nó, com tolerância de 1e-9 (recebido: 0.6)."),
])
def test_a_tree_nodes_accept_prob_is_min_1_p_prime_over_q_prime_where_it_records_them(lang, says):
    """Read 52: a tested node's accept_prob was checked against its u only, so a node that recorded p′ = 0.25 and
    q′ = 0.5 could claim a keep chance of 0.6 (its u 0.1 below both) and the pages showed it as min(1, p′/q′). Where
    a trace holds no p′, q′ (written before read 49) the chance is not checked."""
    def tree(chance, used=True):
        data = copy.deepcopy(HAND)
        node, decision = data["steps"][0]["tree"]["nodes"][0], data["steps"][0]["decisions"][0]
        node["accept_prob"] = decision["accept_prob"] = chance
        if used:
            node.update(target_prob_used=0.25, draft_prob_used=0.5)
        return data
    assert refusal(tree(0.6), lang) == says
    assert Trace.from_dict(tree(0.5)).steps[0].tree.nodes[0].accept_prob == 0.5
    assert Trace.from_dict(tree(0.6, used=False)).steps[0].tree.nodes[0].accept_prob == 0.6  # an older trace
    assert "`accept_prob` min(1, p′/q′) of its `target_prob_used` and `draft_prob_used`" in _library()


def _emitted(step: int, *changes, extra=None):
    """The toy trace with step `step`'s emitted tokens changed (step 2 emits 12 and 24 accepted, then 15
    recovered), its output_ids kept equal to what the steps emit."""
    def change(data):
        emitted = data["steps"][step]["emitted"]
        for i, fields in changes:
            emitted[i].update(fields)
        if extra:
            emitted.append(extra)
        data["output_ids"] = [t["token_id"] for s in data["steps"] for t in s["emitted"]]
    return mutated(change)


@pytest.mark.parametrize("lang, data, says", [
    ("en", _emitted(1, (2, {"kind": "bonus"})),
     "step 2: token 3: kind is bonus, but the step's decisions make it recovered (specviz emits the accepted drafts, "
     "then a recovered token after a rejection, a bonus token when every draft was accepted, a target token when "
     "nothing was drafted)."),
    ("pt", _emitted(0, (4, {"kind": "recovered"})),
     "passo 1: token 5: kind é recovered, mas as decisões do passo fazem dele bonus (o specviz emite os palpites "
     "aceitos e depois um token recuperado após uma rejeição, um token bônus quando todo palpite foi aceito, um token "
     "do alvo quando nada foi rascunhado)."),
    ("en", _emitted(1, (1, {"kind": "recovered"})),
     "step 2: token 2: kind is recovered, but the step's decisions make it accepted (specviz emits the accepted "
     "drafts, then a recovered token after a rejection, a bonus token when every draft was accepted, a target token "
     "when nothing was drafted)."),
    ("en", _emitted(1, (0, {"token_id": 3})),
     "step 2: token 1: token_id is 3, but draft 1, the accepted draft it emits, is 12 (specviz emits a step's "
     "accepted drafts first, in order)."),
    ("pt", _emitted(1, extra={"token_id": 9, "text": "x", "kind": "recovered"}),
     "passo 2: token 4: o specviz não emite nada depois do token que segue os palpites aceitos de um passo (aqui, o "
     "token 3)."),
])
def test_a_steps_emitted_kinds_follow_its_decisions(lang, data, says):
    """Read 52: an emitted token's kind was checked against the list of kinds only, so a step whose third draft was
    rejected could emit a "bonus" token, one whose drafts were all kept a "recovered" one, and an accepted draft
    could be emitted as another token or followed by two tokens of its own; the pages drew them as they stood."""
    assert refusal(data, lang).endswith(says)
    kept = Trace.from_json(json.dumps(TOY)).steps[1]
    assert [t.kind for t in kept.emitted] == ["accepted", "accepted", "recovered"]
    short = _emitted(1)
    short["steps"][1]["emitted"].pop()  # a run that stopped (EOS, max_new_tokens) after the accepted drafts
    short["output_ids"] = [t["token_id"] for s in short["steps"] for t in s["emitted"]]
    assert Trace.from_dict(short).steps[1].emitted[-1].kind == "accepted"
    assert "then one token of the kind its decisions call for" in _library()


def _cut(kind: str, step: int = 11) -> dict:
    """The toy trace with step `step` stopped before the token after its accepted drafts (as a run that hit EOS or
    max_new_tokens there), its correction_kind set to `kind`: the step's emitted tokens no longer show that kind."""
    def change(data):
        data["steps"][step]["emitted"].pop()
        data["steps"][step]["correction_kind"] = kind
        data["output_ids"] = [t["token_id"] for s in data["steps"] for t in s["emitted"]]
    return mutated(change)


def _baseline(kind: str) -> dict:
    """The toy target-only trace (its steps draft nothing, each says "target") with its first step saying `kind`."""
    data = json.loads((TRACES_DIR / "toy-draft.baseline.json").read_text(encoding="utf-8"))
    data["steps"][0]["correction_kind"] = kind
    return data


@pytest.mark.parametrize("lang, data, says", [
    ("en", _cut("bonus"),
     "This trace is damaged: step 12: correction_kind is bonus, but the token after the step's accepted drafts (token "
     "3) is recovered: draft 3 was rejected, and after a step's first rejection specviz emits a recovered token, "
     "sampled from the residual distribution."),
    ("pt", _cut("bonus"),
     "Este traço está danificado: passo 12: correction_kind é bonus, mas o token depois dos palpites aceitos do passo "
     "(token 3) é recovered: o palpite 3 foi rejeitado, e depois da primeira rejeição de um passo o specviz emite um "
     "token recuperado, amostrado da distribuição residual."),
    ("en", _cut("recovered", step=0),
     "This trace is damaged: step 1: correction_kind is recovered, but the token after the step's accepted drafts "
     "(token 5) is bonus: all 4 of its drafts were accepted, and when every draft of a step is accepted specviz emits "
     "a bonus token, sampled from p."),
    ("pt", mutated(_set([*STEP, "correction_kind"], "accepted")),
     "Este traço está danificado: passo 1: correction_kind é accepted, mas o token depois dos palpites aceitos do "
     "passo (token 5) é bonus: todos os seus 4 palpites foram aceitos, e quando todos os palpites de um passo são "
     "aceitos o specviz emite um token bônus, amostrado de p."),
    ("en", _baseline("bonus"),
     "This trace is damaged: step 1: correction_kind is bonus, but the token after the step's accepted drafts (token "
     "1) is target: the step drafted nothing, and specviz calls the token of a step without drafts a target token."),
])
def test_a_steps_correction_kind_follows_its_decisions(lang, data, says):
    """Left by earlier reads (read 53's list): `correction_kind`, the kind of the token after a step's accepted
    drafts, was checked against the list of kinds only, so a step whose third draft was rejected could say "bonus"
    and one whose four drafts were all kept "recovered"; where the run stopped before that token, the Playground's
    step headline names it from correction_kind alone ("…stopped before its bonus token"). Null (an older trace)
    and what the engine writes load."""
    assert refusal(data, lang) == says
    assert Trace.from_dict(_cut("recovered")).steps[11].correction_kind == "recovered"
    assert Trace.from_dict(_cut(None)).steps[11].correction_kind is None
    assert "and its `correction_kind` (where given) that same kind" in _library()


def _used(target_prob_used: float, draft_prob_used: float, **node) -> dict:
    """HAND with its one node (p 0.25, q 0.5, u 0.1: the root's first child, accepted) recording p′ and q′, its
    accept_prob (and its decision's) min(1, p′/q′), so only p′, q′ themselves can be wrong."""
    data = copy.deepcopy(HAND)
    chance = min(1.0, target_prob_used / draft_prob_used)
    data["steps"][0]["tree"]["nodes"][0].update(target_prob_used=target_prob_used, draft_prob_used=draft_prob_used,
                                                 accept_prob=chance, **node)
    data["steps"][0]["decisions"][0]["accept_prob"] = chance
    return data


def _second_child() -> dict:
    """HAND with a second child under the root, tried after node 0 was rejected, on the residuals node 0 left: p′ 0.2
    and q′ 0.8 (not its own p 0.3 and q 0.4), kept with u 0.1 < 0.25."""
    data = _used(0.25, 0.5, status="rejected", uniform=0.9)
    node = {"token_id": 7, "text": "c", "parent": -1, "depth": 1, "draft_prob": 0.4, "target_prob": 0.3,
            "status": "accepted", "uniform": 0.1, "accept_prob": 0.25, "target_prob_used": 0.2, "draft_prob_used": 0.8}
    step = data["steps"][0]
    step["tree"] = {"nodes": [step["tree"]["nodes"][0], node], "path": [1]}
    step["decisions"] = [{"position": 0, "token_id": 7, "text": "c", "draft_prob": 0.4, "target_prob": 0.3,
                          "ratio": 0.3 / 0.4, "accept_prob": 0.25, "uniform": 0.1, "accepted": True, "reached": True}]
    step["emitted"][0].update(token_id=7, text="c")
    data["output_ids"] = [7, 6]
    return data


@pytest.mark.parametrize("lang, data, says", [
    ("en", _used(0.4, 0.5),
     "node 0: target_prob_used must be 0.25, its own target_prob, to within 1e-9, as the rule tests the first child "
     "it tries below a node on the target's own p (got 0.4)."),
    ("pt", _used(0.25, 0.3),
     "nó 0: draft_prob_used deve ser 0.5, seu próprio draft_prob, com tolerância de 1e-9, pois a regra testa o "
     "primeiro filho que tenta abaixo de um nó com o próprio q do rascunho (recebido: 0.3)."),
    ("en", _used(0.25, 0.5, point_mass=True),
     "node 0: draft_prob_used must be 1, to within 1e-9, as the rule tests a copied token, or a child not drawn from "
     "q, against a point mass (got 0.5)."),
    ("pt", _used(0.25, 0.5, copied=True),
     "nó 0: draft_prob_used deve ser 1, com tolerância de 1e-9, pois a regra testa um token copiado, ou um filho não "
     "sorteado de q, contra uma massa pontual (recebido: 0.5)."),
])
def test_a_first_childs_p_prime_and_q_prime_are_its_own_p_and_q(lang, data, says):
    """Left by earlier reads (read 53's list): the rule tries a node's first child on p at that node and the draft's
    q there (1 for a point mass), so its recorded p′, q′ are its own p, q; a file could record others (with an
    accept_prob to match), and the pages then showed them as residuals its siblings left (`trace.uses_residuals`).
    A later child's p′, q′ are the residuals, and load."""
    assert refusal(data, lang).endswith(("tree: " if lang == "en" else "árvore: ") + says)
    assert Trace.from_dict(_used(0.25, 0.5)).steps[0].tree.nodes[0].target_prob_used == 0.25
    assert Trace.from_dict(_used(0.25 + 1e-12, 0.5)).steps[0].tree.nodes[0].draft_prob_used == 0.5
    assert Trace.from_dict(_used(0.25, 1.0, point_mass=True)).steps[0].tree.nodes[0].accept_prob == 0.25
    greedy = _used(0.25, 1.0)  # a greedy trace with no node marked: loading marks each a point mass (read 44)
    greedy["settings"] = {"temperature": 0}
    assert Trace.from_dict(greedy).steps[0].tree.nodes[0].point_mass
    assert "draft_prob_used must be 0.5, its own draft_prob" in refusal({**greedy, "settings": {"temperature": 0.7}})
    second = Trace.from_dict(_second_child()).steps[0].tree.nodes[1]
    assert (second.target_prob_used, second.draft_prob_used) == (0.2, 0.8)
    assert "its own `target_prob` and `draft_prob` where it is the first child tried below a node" in _library()
    assert "`draft_prob_used` is 1 for a point mass (a copied token, or a child not drawn from q)" in _library()


@pytest.mark.parametrize("lang, value, says", [
    ("en", -3, "This trace is damaged: settings['heuristic_grow'] must be a whole number, 0 or more (got −3)."),
    ("en", 2.5, "This trace is damaged: settings['heuristic_grow'] must be a whole number, 0 or more (got 2.5)."),
    ("pt", "2", "Este traço está danificado: settings['heuristic_grow'] deve ser um número inteiro, 0 ou mais "
                "(recebido: '2')."),
    ("en", True, "This trace is damaged: settings['heuristic_shrink'] must be a whole number, 0 or more (got true)."),
])
def test_the_heuristic_policys_steps_are_whole_numbers_0_or_more(lang, value, says):
    """Read 53: decode() records the heuristic policy's grow and shrink steps, and the schema let any number, text or
    true/false through ("heuristic_grow": -3 loaded, a run no Heuristic(...) could have made). They take what
    `policies.Heuristic` takes; an engine-written heuristic trace still loads."""
    from specviz.runs.running import run
    from specviz.runs.runspec import RunSpec

    name = "heuristic_shrink" if isinstance(value, bool) else "heuristic_grow"
    assert refusal(mutated(lambda d: d["settings"].update({"policy": "heuristic", name: value})), lang) == says
    written = run(RunSpec(pair="toy", policy="heuristic", k=4, temperature=1.0, seed=0, max_new_tokens=8))
    loaded = Trace.from_json(written.to_json())
    assert (loaded.settings["heuristic_grow"], loaded.settings["heuristic_shrink"]) == (2, 1)
