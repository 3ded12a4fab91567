"""The command line as a user meets it: readable steps, a JSON trace, and one sentence with exit 2 on bad input."""

import contextlib
import io
import json
import math
import re
import subprocess
import sys
from types import SimpleNamespace

import pytest

from specviz.cli import main
from specviz.engine.trace import Trace

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # the command line end to end, toy runs included: make test's tier


def cli(*args):
    """`python -m specviz ARGS` run in this process (`specviz/__main__.py` exits with `main()`'s code): its exit code
    and what it wrote. A fresh process per call paid torch's import each time, about 5 s; the entry point itself is
    checked once, in a real process, below. An exception that escapes `main` fails the test with its traceback."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse's own exits: --help, a flag it refuses
            code = exc.code
    return SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())


def test_a_pair_given_as_a_file_is_refused_as_a_file():
    """Read 55: `--pair ./README.md` was "not a Hugging Face model folder (no config.json there)"."""
    out = cli("generate", "--pair", str(ROOT / "README.md"), "--prompt", "hi")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == (f"specviz: '{ROOT / 'README.md'}' is a file, not a model folder: give the folder that holds "
                          "the model's config.json.\n")


def test_python_m_specviz_answers_bad_input_with_one_sentence_and_exit_2():
    out = subprocess.run([sys.executable, "-m", "specviz", "generate", "--pair", "toy", "--prompt", "hi", "--k", "0"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out.stderr[-1000:]
    assert out.stderr.startswith("specviz: --k must be") and out.stderr.count("\n") == 1, out.stderr
    assert out.stdout == ""


@pytest.mark.parametrize("args, said", [
    (("generate", "--prompt", "hi", "--k", "\uff14"), "argument --k: invalid int value: '\uff14'"),
    (("generate", "--prompt", "hi", "--seed", "1_000"), "argument --seed: invalid int value: '1_000'"),
    (("generate", "--prompt", "hi", "--layers", "\u0663"), "argument --layers: invalid int value: '\u0663'"),
    (("generate", "--prompt", "hi", "--temperature", "\uff10.\uff17"),
     "argument --temperature: invalid float value: '\uff10.\uff17'"),
    (("calibrate", "--top", "1_0"), "argument --top: invalid int value: '1_0'"),
    (("bench", "--k", "1_0"), "argument --k: whole numbers, separated by spaces or commas (got '1_0')"),
    (("bench", "--threads", "\uff11"),
     "argument --threads: a whole number from 0 (torch's choice) to 256 (got '\uff11')"),
    (("bench", "--shapes", "\uff13"), "--shapes takes K:NODES:WIDTH:LOOKUP, whole numbers in range (got '\uff13')"),
    (("serve", "start", "--port", "\uff18\uff10"), "argument --port: invalid int value: '\uff18\uff10'")])
def test_a_number_flag_takes_ascii_digits_as_a_link_does(args, said):
    """Read 55: int() and float() read full-width and Arabic-Indic digits and 1_000, so `--k ４` ran K = 4 and `--seed
    1_000` seed 1000, where a link with the same value is refused (`core.urlvalues`); now one sentence and exit 2,
    the value quoted as the word it is."""
    out = cli(*args)
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert said in out.stderr and "Traceback" not in out.stderr


@pytest.mark.parametrize("args, quoted", [
    (("generate", "--prompt", "hi", "--k", "9" * 5000), "'" + "9" * 39 + "…'"),
    (("bench", "--threads", "9" * 5000), "'" + "9" * 39 + "…'"),
    (("generate", "--prompt", "hi", "--lang", "x" * 5000), "'" + "x" * 19 + "…'")])
def test_a_huge_refused_value_is_quoted_cut_with_an_ellipsis(args, quoted):
    """Read 45: `--k` with 5,000 digits wrote them all back (a 5,118-character line), and `--lang` cut its quote at
    20 characters with nothing to say that more was typed; a quote is now cut at 40 (20) with "…"."""
    out = cli(*args)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and len(out.stderr) < 300, out.stderr[:300]
    assert quoted in out.stderr


def test_generate_shows_every_step_and_a_summary():
    out = cli("generate", "--pair", "toy", "--prompt", "hello there", "--k", "3", "--max-new-tokens", "16",
              "--temperature", "1", "--seed", "2")
    assert out.returncode == 0, out.stderr
    assert "step   1" in out.stdout and "q=" in out.stdout and "p/q=" in out.stdout and "u=" in out.stdout
    assert "summary: " in out.stdout and "acceptance rate" in out.stdout and "mean accepted length" in out.stdout
    assert "tokens/s" in out.stdout
    assert any(glyph in out.stdout for glyph in "✓✗↻★")


def test_generate_json_to_stdout_round_trips():
    out = cli("generate", "--pair", "toy", "--prompt", "hello", "--max-new-tokens", "8", "--json", "-")
    assert out.returncode == 0, out.stderr
    trace = Trace.from_json(out.stdout)
    assert trace.num_tokens == 8 and trace.settings["k"] == 4
    assert json.loads(out.stdout)["schema_version"] == 1


def test_compare_prints_both_times_and_the_speedup():
    out = cli("compare", "--pair", "toy", "--prompt", "hello", "--max-new-tokens", "12", "--k", "2")
    assert out.returncode == 0, out.stderr
    assert "target-only:" in out.stdout and "speculative:" in out.stdout and "speedup:" in out.stdout
    assert "greedy output identical: yes" in out.stdout
    # read 52: the speedup read "0.70x", in ASCII, where the app and calibrate write "×"
    assert re.search(r"^speedup: +\d+\.\d\d× \(tokens/s, ", out.stdout, re.M) and "x (tokens/s" not in out.stdout
    pt = cli("compare", "--pair", "toy", "--prompt", "hello", "--max-new-tokens", "12", "--k", "2", "--no-warmup",
             "--lang", "pt")
    assert re.search(r"^aceleração: +\d+,\d\d× \(tokens/s, ", pt.stdout, re.M), pt.stdout
    # read 55: --no-warmup timed cold runs and nothing said so (generate's summary says "no warm-up run before it")
    assert "aquecimento:   nenhum (--no-warmup): os custos únicos das primeiras chamadas (alocações, escolha de " \
           "kernel) estão nos tempos acima\n" in pt.stdout, pt.stdout
    assert "warm-up:" not in out.stdout and "--no-warmup" not in out.stdout
    # the measured speedup names its dtype and machine (STYLE.md): the auto dtype differs from CPU to CPU
    from specviz.models.machine import cpu_model

    assert f"measured in:  float32 on cpu ({cpu_model()}, " in out.stdout and ", linear kernels " in out.stdout


def test_compare_and_the_summary_agree_one_token_with_its_noun():
    """43rd read: --max-new-tokens 1 printed "1 tokens in ... s (..., 1 target forwards)" and "summary: 1 steps, 1
    tokens", and the Portuguese "1 passagens do alvo"; each count now agrees with its noun in both languages."""
    from specviz.cli import format_summary
    from specviz.core.i18n import using
    from specviz.engine.trace import EmittedToken, Step

    out = cli("compare", "--pair", "toy", "--prompt", "hello", "--max-new-tokens", "1", "--k", "2", "--no-warmup")
    assert out.returncode == 0, out.stderr
    # the count leaves out the pass over the prompt (TargetCache.prefill), and says so (review of read 43)
    assert re.search(r"^target-only: +1 token in .*, 1 target forward pass besides the prompt's\)$", out.stdout,
                     re.M), out.stdout
    assert re.search(r"^speculative: +1 token in .*, 1 target forward pass besides the prompt's, proposer ",
                     out.stdout, re.M), out.stdout
    assert "1 tokens" not in out.stdout and "1 target forward passes" not in out.stdout
    generated = cli("generate", "--pair", "toy", "--prompt", "hello", "--max-new-tokens", "1", "--k", "2")
    assert "summary: 1 step, 1 token, stopped at" in generated.stdout, generated.stdout
    pt = cli("compare", "--pair", "toy", "--prompt", "hello", "--max-new-tokens", "1", "--k", "2", "--no-warmup",
             "--lang", "pt")
    assert re.search(r"^só o alvo: +1 token em .*, 1 passagem do alvo além da do prompt\)$", pt.stdout,
                     re.M), pt.stdout
    assert "1 passagens" not in pt.stdout and "1 tokens" not in pt.stdout
    tree = cli("compare", "--pair", "toy", "--proposer", "draft", "--prompt", "hello", "--max-new-tokens", "4",
               "--k", "2", "--tree-nodes", "1", "--tree-lookup", "1", "--no-warmup", "--lang", "pt")
    assert "uma árvore de 1 nó, largura" in tree.stdout and "mais até 1 token copiado do contexto)" in tree.stdout
    steps = [Step(0, 2, 0, "target", [], [EmittedToken(6, "a", "target")])] * 3
    one = Trace("speculative", {}, [1, 2], [6, 7, 8], steps)
    with using("pt"):
        assert format_summary(one).startswith("resumo: 3 passos, 3 tokens, parou por")


def test_compare_cautions_that_a_speedup_from_under_16_tokens_is_noise():
    """Read 52: `compare --max-new-tokens 1` printed "speedup: 0.70x" for two runs that did the same work (one token
    to write is the target's alone, nothing is drafted), a ratio of timing noise read as a loss. Under 16 new tokens
    the speedup line is now followed by a caution that says why and what to give; at 16 there is none."""
    one = cli("compare", "--pair", "toy", "--prompt", "hello", "--max-new-tokens", "1", "--k", "2", "--no-warmup")
    assert one.returncode == 0, one.stderr
    lines = one.stdout.splitlines()
    caution = lines[[i for i, x in enumerate(lines) if x.startswith("speedup:")][0] + 1]
    assert caution == ("caution:      a speedup from 1 new token is mostly noise: so few target passes decide it that "
                       "one timed slow or fast moves it, and the prompt's pass, which both runs pay alike, pulls it "
                       "toward 1. Time at least 16 new tokens (--max-new-tokens 16 or more) for a speedup worth "
                       "reading. Here nothing was drafted, so both runs did the same work."), caution
    pt = cli("compare", "--pair", "toy", "--prompt", "hello", "--max-new-tokens", "3", "--k", "2", "--no-warmup",
             "--lang", "pt")
    assert ("cuidado:       uma aceleração de 3 tokens novos é quase só ruído: tão poucas passagens do alvo a "
            "decidem" in pt.stdout and "(--max-new-tokens 16 ou mais)" in pt.stdout), pt.stdout
    # read 53: pt's "cuidado:" text started one column left of every other line's ("só o alvo:     ", column 15)
    for out in (one, pt):
        starts = {len(line) - len(line.split(":", 1)[1].lstrip()) for line in out.stdout.splitlines()
                  if ":  " in line}  # the labelled lines; "greedy output identical: yes" is a sentence
        assert len(starts) == 1, (starts, out.stdout)
    assert "nada foi rascunhado" not in pt.stdout  # 3 tokens to write: the run drafted
    enough = cli("compare", "--pair", "toy", "--prompt", "hello", "--max-new-tokens", "16", "--k", "2", "--no-warmup")
    assert "16 tokens in" in enough.stdout and "caution" not in enough.stdout, enough.stdout


def test_compare_of_a_tree_says_its_accepted_over_drafted_counts_every_node():
    """A tree's accepted / drafted counts every node, and a step keeps one path at most, so it is no estimate of α
    (in the committed runs it reads far below a chain's); the line says so rather than print a bare rate a reader
    would take for a poor draft."""
    out = cli("compare", "--pair", "toy", "--proposer", "draft", "--prompt", "hello", "--max-new-tokens", "12",
              "--k", "2", "--tree-nodes", "6", "--tree-width", "2", "--no-warmup")
    assert out.returncode == 0, out.stderr
    assert "a tree of 6 nodes" in out.stdout
    assert "rate " in out.stdout and "(accepted/drafted; every node of a tree counts, tested or not)" in out.stdout
    chain = cli("compare", "--pair", "toy", "--prompt", "hello", "--max-new-tokens", "12", "--k", "2", "--no-warmup")
    assert "every node" not in chain.stdout


def test_compare_names_its_accepted_over_drafted_the_acceptance_rate_as_generate_does():
    """Read 51, names: compare printed "acceptance:   0.24 accepted/drafted", a bare number after "acceptance" that a
    reader takes for α, where generate's summary names the same ratio "acceptance rate" and says the drafts after a
    step's first rejection count as drafted (why it sits below α). The line now names it the rate and says so, in
    both languages."""
    for lang, name, why in (("en", "acceptance:   rate ", "drafts after a step's first rejection count as drafted"),
                            ("pt", "aceitação:     taxa ", "os palpites depois da primeira rejeição de um passo "
                                                             "contam como rascunhados")):
        out = cli("compare", "--pair", "toy", "--prompt", "hello", "--max-new-tokens", "8", "--k", "2",
                  "--no-warmup", "--lang", lang)
        assert out.returncode == 0, out.stderr
        line = next(x for x in out.stdout.splitlines() if x.startswith(name.split()[0]))
        assert line.startswith(name) and why in line, (lang, line)


def test_compare_says_its_mean_accepted_length_counts_the_recovered_or_bonus_token_as_generate_does():
    """Read 47: compare printed "mean accepted length 1.50 (tokens per target forward)" where generate's summary
    says "(tokens per target forward, the recovered or bonus token included)", which STYLE.md asks for; a chain's
    and a tree's line now say it, in both languages, in generate's words."""
    from specviz.cli import format_summary
    from specviz.core.i18n import using

    from specviz.engine.trace import Step

    steps = [Step(0, 2, 0, "target", [], [])]
    for lang, words in (("en", "(tokens per target forward, the recovered or bonus token included)"),
                        ("pt", "(tokens por passagem do alvo, incluído o token recuperado ou bônus)")):
        with using(lang):
            assert words in format_summary(Trace("speculative", {}, [1], [], steps))  # generate's words
        for shape in ([], ["--tree-nodes", "6", "--tree-width", "2"]):
            out = cli("compare", "--pair", "toy", "--proposer", "draft", "--prompt", "hello", "--max-new-tokens", "8",
                      "--k", "2", *shape, "--no-warmup", "--lang", lang)
            assert out.returncode == 0, out.stderr
            line = next(x for x in out.stdout.splitlines() if x.startswith(("acceptance:", "aceitação:")))
            assert line.endswith(words), (lang, shape, line)


@pytest.mark.parametrize("args, phrase", [
    (["--prompt", ""], "prompt is empty"),
    (["--prompt", "caf\udce9"], "The prompt is not valid text: it holds U+DCE9, a lone surrogate"),  # read 49
    (["--prompt", "hi", "--k", "0"], "--k must be"),  # each refusal names the flag the user typed
    (["--prompt", "hi", "--k", "17"], "--k must be"),
    (["--prompt", "hi", "--max-new-tokens", "0"], "--max-new-tokens must be"),
    (["--prompt", "hi", "--max-new-tokens", "5000"], "--max-new-tokens must be"),
    (["--prompt", "hi", "--temperature", "-1"], "--temperature must be a number from 0 to 2"),
    (["--prompt", "hi", "--top-p", "0"], "--top-p must be"),
    (["--prompt", "hi", "--top-p", "1.5"], "--top-p must be"),
    (["--prompt", "hi", "--top-k", "-3"], "--top-k must be"),
    (["--prompt", "hi", "--seed", "-1"], "--seed must be"),
    (["--prompt", "hi", "--tree-nodes", "99"], "--tree-nodes must be a whole number from 0 to 64 (got 99)."),
    (["--prompt", "hi", "--tree-nodes", "8", "--tree-width", "0"], "--tree-width must be"),
    (["--prompt", "hi", "--tree-nodes", "8", "--tree-lookup", "99"], "--tree-lookup must be"),
    (["--prompt", "hi", "--proposer", "layerskip", "--layers", "999"], "--layers must be"),
    # read 49: a tree flag that shaped nothing ran a chain without a word (the Playground and the Race say so)
    (["--prompt", "hi", "--k", "3", "--tree-width", "2"], "--tree-width 2 shapes a draft tree: give --tree-nodes"),
    (["--prompt", "hi", "--tree-width", "2"], "or drop --tree-width."),  # the toy pair recommends a chain
    (["--prompt", "hi", "--proposer", "ngram", "--tree-nodes", "4", "--tree-lookup", "2"],
     "A draft tree was asked for (--tree-nodes 4 --tree-lookup 2), but the n-gram lookup (no model) cannot branch: "
     "it would draft a chain of K = 4."),
    (["--prompt", "hi", "--pair", "no-such-pair"], "no-such-pair"),
    (["--prompt", "hi", "--proposer", "hydra"], "invalid choice"),
    (["--prompt", "x" * 3000, "--pair", "toy", "--max-new-tokens", "64"], "context"),
    (["--prompt", "hi", "--pair", "toy", "--json", "/no/such/dir/t.json"], "Cannot write"),
    (["--prompt", "hi", "--pair", "toy", "--proposer", "eagle"], "no trained EAGLE drafter"),  # as the web UI does
    # read 52: load_pair strips the name, so " toy" ran the untrained EAGLE stand-in and Medusa heads
    (["--prompt", "hi", "--pair", " toy", "--proposer", "eagle"], "no trained EAGLE drafter"),
    (["--prompt", "hi", "--pair", "toy ", "--proposer", "medusa"], "no trained EAGLE drafter"),
])
def test_bad_input_is_one_sentence_and_exit_2(args, phrase):
    out = cli("generate", *(["--pair", "toy"] if "--pair" not in args else []), *args)
    assert out.returncode == 2
    assert phrase in out.stderr
    assert "Traceback" not in out.stderr and "Traceback" not in out.stdout
    assert not re.search(r"\b(tree_nodes|tree_width|tree_lookup|max_new_tokens|top_k|top_p)\b", out.stderr)  # fields


@pytest.mark.parametrize("args, en, pt", [
    # read 54: "valor int inválido" named a Python type inside Portuguese words
    (["--prompt", "hi", "--k", "abc"], "argument --k: invalid int value: 'abc'",
     "argumento --k: valor inteiro inválido: 'abc'"),
    (["--prompt", "hi", "--temperature", "abc"], "argument --temperature: invalid float value: 'abc'",
     "argumento --temperature: valor numérico inválido: 'abc'"),
    ([], "the following arguments are required: --prompt", "os seguintes argumentos são obrigatórios: --prompt"),
    (["--prompt", "hi", "--foo"], "unrecognized arguments: --foo", "argumentos não reconhecidos: --foo"),
    (["--prompt", "hi", "--proposer", "hydra"], "argument --proposer: invalid choice: 'hydra' (choose from",
     "argumento --proposer: escolha inválida: 'hydra' (escolha entre"),
    (["--prompt", "hi", "--temperature", "nan"], "argument --temperature: 'nan' is not a number",
     "argumento --temperature: 'nan' não é um número"),
    (["--prompt", "hi", "--json", ""], "argument --json: a file or folder name, not an empty one (got '')",
     "argumento --json: o nome de um arquivo ou pasta, não um nome vazio (recebido: '')"),
    (["--prompt", "hi", "--k"], "argument --k: expected one argument", "argumento --k: falta o seu valor")])
def test_argparses_own_refusals_speak_the_commands_language(args, en, pt, monkeypatch):
    """Read 53: under --lang pt, argparse's own refusals ("invalid int value", "the following arguments are
    required", "unrecognized arguments", "invalid choice", "expected one argument") and finite_float's "'nan' is not
    a number" stayed English: argparse wrote them before --lang was read. --lang is now read first, wherever it
    stands (--lang=pt too), and the environment's language is the fallback; one line each, no traceback."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)
    tails = {"en": " (python -m specviz generate --help lists every flag).\n",
             "pt": " (python -m specviz generate --help lista todas as opções).\n"}
    for lang, said, where in (("en", en, []), ("pt", pt, ["--lang", "pt"]), ("pt", pt, ["--lang=pt"])):
        # --lang before the refused flag, so that `--k` with no value still has its value missing
        out = cli("generate", "--pair", "toy", *where, *args)
        assert out.returncode == 2 and out.stdout == "", out
        assert out.stderr.startswith("python -m specviz generate: " + said), (lang, out.stderr)
        assert out.stderr.endswith(tails[lang]), (lang, out.stderr)
        assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    monkeypatch.setenv("LANG", "pt_BR.UTF-8")  # no --lang: the environment's language, as the run's own text
    assert pt in cli("generate", "--pair", "toy", *args).stderr
    assert en in cli("generate", "--pair", "toy", "--lang", "en", *args).stderr


def test_argparses_help_headings_speak_the_commands_language_and_the_bench_stays_english(monkeypatch):
    """Read 53: `calibrate --help --lang pt` said "usage:", "options:" and "show this help message and exit"; the
    bench's refusals stay English in every language (its own sentences do), argparse's among them."""
    monkeypatch.setenv("LANG", "pt_BR.UTF-8")
    out = cli("calibrate", "--help")
    assert out.returncode == 0 and out.stdout.startswith("uso: python -m specviz calibrate")
    assert "\nopções:\n" in out.stdout and "mostra esta mensagem de ajuda e sai" in out.stdout
    out = cli("calibrate", "--lang", "en", "--help")
    assert out.stdout.startswith("usage: ") and "\noptions:\n" in out.stdout, out.stdout[:200]
    out = cli("bench", "--repeats", "x")
    assert out.stderr == ("python -m specviz bench: argument --repeats: invalid int value: 'x' "
                          "(python -m specviz bench --help lists every flag).\n")
    import argparse
    assert argparse._("usage: ") == "usage: "  # argparse's lookups are its own again once the command line is read


def test_a_value_of_a_type_without_its_own_words_keeps_argparses_phrase():
    """Read 54: Portuguese words name the two types our flags take (inteiro, numérico); a type with no phrase of its
    own keeps argparse's, its name filled in, in either language."""
    import argparse

    from specviz.cli import argparse_speaking
    from specviz.core.i18n import using

    for lang, said in (("en", "invalid complex value: 'x'"), ("pt", "valor complex inválido: 'x'")):
        with using(lang), argparse_speaking():
            parser = argparse.ArgumentParser(prog="demo")
            parser.add_argument("--z", type=complex)
            with pytest.raises(argparse.ArgumentError, match=f"^argument --z: {said}$|^argumento --z: {said}$"):
                parser.exit_on_error = False
                parser.parse_args(["--z", "x"])


def test_argparses_words_are_pythons_own_and_their_portuguese_keeps_every_percent_field():
    """The words `argparse_speaking` translates must be the msgids this Python's argparse looks up (an upgrade that
    rewords one would leave it English), and their Portuguese must keep argparse's %-fields, which the catalog check
    (named {fields} only) does not compare: a lost %(value)r would raise inside argparse."""
    import argparse
    import inspect

    from specviz.cli import ARGPARSE_WORDS
    from specviz.core.i18n import _, using
    source = inspect.getsource(argparse)
    fields = re.compile(r"%(?:\([a-z_]+\))?[sr]")
    assert len(ARGPARSE_WORDS) >= 15, ARGPARSE_WORDS  # usage, options, help and argparse's refusals
    for word in ARGPARSE_WORDS:
        assert repr(word) in source or f'"{word}"' in source, word
        with using("pt"):
            said = _(word)
        assert said != word and sorted(fields.findall(said)) == sorted(fields.findall(word)), (word, said)
    from specviz.cli import INVALID_VALUE, TYPE_VALUE_WORDS
    assert INVALID_VALUE in ARGPARSE_WORDS  # the lookup `_TypeWorded` answers is still argparse's
    for word in TYPE_VALUE_WORDS.values():  # and its own phrases keep %(value)r in Portuguese too
        with using("pt"):
            said = _(word)
        assert said != word and fields.findall(said) == fields.findall(word) == ["%(value)r"], (word, said)


@pytest.mark.parametrize("where", ["folder", "missing folder", "read-only folder", "name too long"])
def test_a_json_path_that_cannot_be_written_is_refused_before_the_run(where, tmp_path, monkeypatch):
    """`generate --json PATH` checks PATH before the pair loads: a minutes-long run on SmolLM2 must not end in
    "Cannot write" with its trace lost. The run itself would fail this test if it started."""
    import os

    import specviz.cli as cli_module

    def no_run(args):
        raise AssertionError("the run started before the --json path was checked")

    monkeypatch.setattr(cli_module, "_prepare", no_run)
    path = {"folder": tmp_path, "missing folder": tmp_path / "no" / "t.json",
            "read-only folder": tmp_path / "ro" / "t.json",
            "name too long": tmp_path / ("d" * 300) / "t.json"}[where]  # read 46: exit code 1, no "Cannot write"
    if where == "read-only folder":  # the tests may run as root, who writes anywhere: the OS's answer is staged
        path.parent.mkdir()
        monkeypatch.setattr(os, "access", lambda p, mode: mode != os.W_OK)
    out = cli("generate", "--pair", "toy", "--prompt", "hi", "--json", str(path))
    # read 50: a path over 200 characters is quoted cut, ending in "…" (7b9ca5da), so its start is what is checked
    shown = str(path) if len(str(path)) <= 200 else str(path)[:150]
    assert out.returncode == 2 and "Cannot write the trace to" in out.stderr and shown in out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize("lang, reason", [("en", "No such file or directory"), ("pt", "Arquivo ou pasta inexistente")])
def test_the_operating_systems_reason_is_in_the_readers_language(lang, reason, tmp_path, monkeypatch):
    """43rd read: the refusal read "Não é possível gravar o traço em '...': No such file or directory." with --lang
    pt, the OS's English reason inside a Portuguese sentence; so did a file the command could not open."""
    import specviz.cli as cli_module

    out = cli("generate", "--pair", "toy", "--prompt", "hi", "--lang", lang, "--json", str(tmp_path / "no" / "t.json"))
    assert out.returncode == 2 and out.stderr.strip().endswith(f"{reason}.") and "Traceback" not in out.stderr

    def missing(args):
        raise FileNotFoundError(2, "No such file or directory", "/no/such/file")

    monkeypatch.setattr(cli_module, "_prepare", missing)
    out = cli("generate", "--pair", "toy", "--prompt", "hi", "--lang", lang)
    assert out.returncode == 1 and out.stderr == f"specviz: {reason}: /no/such/file.\n"


@pytest.mark.parametrize("lang, said", [("en", "'toy' names a whole pair from the catalog, not one model"),
                                        ("pt", "'toy' nomeia um par inteiro do catálogo, não um modelo")])
def test_a_catalog_name_inside_target_draft_is_named_as_a_pair(lang, said, monkeypatch):
    """43rd read: `--pair toy,toy` looked 'toy' up as a Hub id and advised `hf download toy`."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    out = cli("generate", "--pair", "toy,toy", "--prompt", "hi", "--lang", lang)
    assert out.returncode == 2 and out.stderr.startswith(f"specviz: {said}") and "hf download" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("args, lang, said", [
    (["--layers", "1"], "en", "--layers 1 sets the layer-skip self-draft, but this run drafts with the draft model: "
                              "add --proposer layerskip, or drop --layers."),
    (["--layers", "1", "--proposer", "ngram"], "pt",
     "--layers 1 ajusta o proponente autorrascunho pulando camadas, mas esta execução rascunha com o proponente "
     "busca de n-gramas (sem modelo): acrescente --proposer layerskip ou tire --layers.")])
def test_a_proposers_own_flag_for_another_proposer_is_refused_not_ignored(args, lang, said):
    """Read 44: `--layers 1` with the toy pair's own draft model (or --proposer ngram) ran that proposer and said
    nothing of the flag it had dropped; the pair's own proposer is known once it loads, a named one before."""
    out = cli("generate", "--pair", "toy", "--prompt", "hi", "--lang", lang, *args)
    assert out.returncode == 2 and out.stderr == f"specviz: {said}\n" and out.stdout == ""
    ran = cli("generate", "--pair", "toy", "--prompt", "hi", "--max-new-tokens", "2", "--quiet", "--layers", "0")
    assert ran.returncode == 0  # 0, the form's "the default", asks nothing of any proposer


def test_summary_explains_a_draft_that_is_rarely_right():
    from specviz.cli import format_summary
    from specviz.engine.trace import Decision, EmittedToken, Step

    def step(accepted):
        decisions = [Decision(0, 5, "a", 0.9, 0.05 if not accepted else 0.9, 0.06, 0.06, 0.5, accepted, True)]
        return Step(0, 3, 1, "layerskip-7", decisions, [EmittedToken(6, "b", "recovered")])

    rarely = Trace("speculative", {}, [1, 2], [6] * 20, [step(False)] * 19 + [step(True)])
    often = Trace("speculative", {}, [1, 2], [6] * 20, [step(True)] * 20)
    assert "rarely right (1 of 20 drafts kept)" in format_summary(rarely)
    from specviz.core.i18n import drafts_kept, using  # issue 42 item 8: "1 drafts"

    assert drafts_kept(0, 1) == "0 of 1 draft kept" and drafts_kept(2, 5) == "2 of 5 drafts kept"
    assert drafts_kept(0, 0) == "no drafts"
    with using("pt"):
        assert drafts_kept(0, 1) == "0 de 1 palpite mantido" and drafts_kept(2, 5) == "2 de 5 palpites mantidos"
        assert drafts_kept(0, 0) == "nenhum palpite"  # not "0 de 0 palpite mantido" (pt's old plural rule)
    assert "rarely right" not in format_summary(often)


def test_summary_of_a_tree_run_neither_calls_its_mean_an_alpha_estimate_nor_says_it_was_rarely_right():
    """A tree's accepted / drafted counts every node, so a tree that keeps 2 tokens per forward can sit below 0.1,
    and its mean min(1, p'/q') is taken against sibling residuals (Trace.mean_accept_prob): the summary says both
    and gives no "rarely right" hint (the default pair's recommended shape is a tree of 16 drafted nodes plus a
    lookup branch of up to 8 copied tokens, assets/catalog.yaml)."""
    from specviz.cli import format_summary
    from specviz.engine.trace import Decision, EmittedToken, Step, TreeNode, TreeRecord
    from specviz.models.catalog import recommended_for

    shape = recommended_for("default")
    assert (shape.tree_nodes, shape.tree_lookup) == (16, 8)  # the shape the docstring names

    nodes = [TreeNode(7, "a", -1, 1, 0.5, 0.9, "accepted", 0.1, 1.0)] + [
        TreeNode(8, "b", 0, 2, 0.1, 0.0, "not reached") for _ in range(19)]
    decisions = [Decision(0, 7, "a", 0.5, 0.9, 1.8, 1.0, 0.1, True, True)]
    step = Step(0, 3, 4, "eagle", decisions, [EmittedToken(7, "a", "accepted"), EmittedToken(9, "c", "recovered")],
                tree=TreeRecord(nodes, [0]))
    tree = Trace("speculative", {}, [1, 2], [7, 9] * 10, [step] * 10)
    assert tree.acceptance_rate < 0.1 and tree.mean_accepted_length == 2.0
    text = format_summary(tree)
    assert "rarely right" not in text and "α estimate" not in text
    assert "not an estimate of α" in text and "every node of a tree counts, tested or not" in text


def test_a_tree_of_one_node_per_step_is_a_chain_and_its_mean_is_called_an_alpha_estimate():
    """Read 51: `--tree-nodes 1` drafts one node a step, a chain of K = 1: each node is its parent's only child, drawn
    from q and tested against p and q themselves, and the run is the `--k 1` run token for token. Its summary said
    "so this is not an estimate of α"; it now names the mean as the chain's does, and a tree with siblings (or a
    copied node) keeps the old sentence, whichever nodes the verifier reached."""
    from specviz.cli import format_summary
    from specviz.core.i18n import using
    from specviz.engine.trace import TreeNode
    from tests.traces import kept_root, one_tree_step

    runs = {}
    for name, shape in (("tree", ("--tree-nodes", "1", "--k", "3")), ("chain", ("--k", "1"))):
        out = cli("generate", "--pair", "toy", "--prompt", "the cat", "--max-new-tokens", "24", "--temperature", "1",
                  "--seed", "3", "--json", "-", *shape)
        assert out.returncode == 0, out.stderr
        runs[name] = Trace.from_json(out.stdout)
    tree, chain = runs["tree"], runs["chain"]
    assert tree.output_ids == chain.output_ids and tree.mean_accept_prob == chain.mean_accept_prob
    assert all(len(s.tree.nodes) <= 1 for s in tree.steps) and tree.mean_estimates_alpha
    text = format_summary(tree)
    assert "α estimate" in text and "not an estimate of α" not in text and "mean min(1, p′/q′)" not in text
    assert "an estimate of the acceptance probability α" in text and "every tree was a chain" in text
    with using("pt"):
        assert "toda árvore foi uma cadeia" in format_summary(tree)

    sibling = one_tree_step([kept_root(), TreeNode(8, "b", -1, 1, 0.3, 0.0, "not reached")])  # untested: a tree
    copied = one_tree_step([kept_root(), TreeNode(8, "b", 0, 2, 1.0, 0.0, "not reached", copied=True)])
    for trace in (sibling, copied):
        assert not trace.mean_estimates_alpha and "not an estimate of α" in format_summary(trace)
    assert one_tree_step([kept_root(), TreeNode(8, "b", 0, 2, 0.3, 0.0, "not reached")]).mean_estimates_alpha  # a chain


def test_a_tree_run_that_drafted_no_node_does_not_say_every_tree_was_a_chain():
    """Read 51: `generate --tree-nodes 4 --max-new-tokens 1` drafts an empty tree (its step says "no node drafted"),
    and its summary said "every tree was a chain, no node with a sibling and none copied, so each was tested against
    p and q themselves" of a run that tested nothing; it now says only what a run without drafts says."""
    from specviz.cli import format_summary
    from specviz.core.i18n import using
    from specviz.engine.trace import EmittedToken, Step, TreeRecord

    empty = Step(0, 2, 0, "draft", [], [EmittedToken(9, "b", "target")], tree=TreeRecord([], []))
    trace = Trace("speculative", {}, [1, 2], [9], [empty])
    text = format_summary(trace)
    assert "every tree was a chain" not in text and "not an estimate of α" not in text, text
    assert "α estimate              n/a  (mean min(1, p/q) over the drafts the verifier tested:" in text, text
    with using("pt"):
        pt = format_summary(trace)
    assert "toda árvore foi uma cadeia" not in pt and "estimativa de α" in pt, pt


def test_the_toy_pairs_unk_tokens_stay_in_the_printed_text_and_the_playgrounds_answer():
    """Read 51: the toy pair reads a character outside its alphabet as <unk>, and it can write one too; the printed
    text is decoded without special tokens, so "Copy: the cat" at seed 2 printed 38 characters for 40 tokens while
    two step lines showed '<unk>'. The text now writes each where the model wrote it, as the step lines, the token
    chips and the Playground's plain answer do."""
    from specviz.ui.common.tokens import answer_html, trace_view

    out = cli("generate", "--pair", "toy", "--prompt", "Copy: the cat", "--max-new-tokens", "40", "--temperature",
              "1", "--seed", "2", "--json", "-")
    assert out.returncode == 0, out.stderr
    trace = Trace.from_json(out.stdout)
    assert trace.output_ids.count(0) == 2 and "<unk>" not in trace.output_text  # the record: no special tokens
    text = out.stderr.split("\n\nsummary: ")[0].rsplit("\n\n", 1)[-1]  # the text between the steps and summary
    assert text.count("<unk>") == 2 and len(text.replace("<unk>", "?")) == trace.num_tokens == 40, text
    assert out.stderr.count("'<unk>'") == 2  # the step lines, as before
    view = trace_view(trace)
    assert view.answer == text and answer_html(view.answer).count("&lt;unk&gt;") == 2
    assert view.output_html().count("&lt;unk&gt;</span>") == 2  # the chips, as before (their hovers too)


def test_a_pair_name_with_spaces_around_it_runs_and_is_recorded_as_the_pair_it_loads():
    """Read 52: load_pair strips `--pair " toy"` and loads the toy pair, but the trace recorded " toy", so the text
    lost the two <unk> tokens the run above prints (they are written for a trace of pair "toy")."""
    out = cli("generate", "--pair", " toy ", "--prompt", "Copy: the cat", "--max-new-tokens", "40", "--temperature",
              "1", "--seed", "2", "--json", "-")
    assert out.returncode == 0, out.stderr
    assert Trace.from_json(out.stdout).meta["pair"] == "toy"
    text = out.stderr.split("\n\nsummary: ")[0].rsplit("\n\n", 1)[-1]
    assert text.count("<unk>") == 2, text


def test_a_tree_steps_last_token_says_where_a_tree_takes_it_from():
    """A tree step stops where its accepted path stops (engine.tree_verifier): a bonus token means the path reached a
    leaf, not that all drafts (the tree's nodes) were accepted, and a recovered token comes from the residual p′ that
    every rejected child there left, not from norm(max(0, p - q)) of the one child printed."""
    from specviz.cli import format_step
    from specviz.engine.trace import Decision, EmittedToken, Step, TreeNode, TreeRecord

    nodes = [TreeNode(7, "a", -1, 1, 0.5, 0.9, "accepted", 0.1, 1.0), TreeNode(8, "b", -1, 1, 0.3, 0.0, "not reached")]
    decisions = [Decision(0, 7, "a", 0.5, 0.9, 1.8, 1.0, 0.1, True, True)]
    bonus = Step(0, 3, 1, "eagle", decisions, [EmittedToken(7, "a", "accepted"), EmittedToken(9, "c", "bonus")],
                 tree=TreeRecord(nodes, [0]))
    recovered = Step(0, 3, 1, "eagle", decisions, [EmittedToken(9, "c", "recovered")], tree=TreeRecord(nodes, []))
    chain = Step(0, 3, 1, "eagle", decisions, [EmittedToken(7, "a", "accepted"), EmittedToken(9, "c", "bonus")])
    assert "accepted path reached a leaf" in format_step(bonus) and "all drafts accepted" not in format_step(bonus)
    assert "residual p′" in format_step(recovered) and "norm(max(0, p - q))" not in format_step(recovered)
    assert "all drafts accepted" in format_step(chain)


@pytest.mark.parametrize("lang, said", [
    ("en", "not reached (after a rejection): never tested, so min(1,p/q) is the chance it would have had"),
    ("pt", "não alcançado (depois de uma rejeição): nunca testado, então min(1,p/q) é a chance que ele teria tido")])
def test_a_draft_never_reached_says_its_chance_is_one_it_would_have_had(lang, said):
    """Read 52: a draft after a step's first rejection printed "min(1,p/q)=0.488 u=-  not reached (after a
    rejection)", a keep chance beside a verdict that says it was never tested; the app's hover now says the chance is
    the one it would have had, and so does the CLI."""
    from specviz.cli import format_step
    from specviz.core.i18n import using
    from specviz.engine.trace import Trace

    trace = Trace.from_json((ROOT / "assets" / "traces" / "toy-draft.json").read_text(encoding="utf-8"))
    step = next(s for s in trace.steps if any(not d.reached for d in s.decisions))
    with using(lang):
        lines = format_step(step).splitlines()
    unreached = [line for line in lines if "min(1,p/q)=" in line and "u=  -  " in line]
    assert len(unreached) == sum(not d.reached for d in step.decisions) > 0
    assert all(line.endswith(said) for line in unreached)


def test_a_tree_steps_head_names_its_nodes_and_depth_not_its_main_lines_length():
    """Read 38: a tree step's head printed "K={step.k}", and Step.k is the main line's length (the drafts listed
    under it), so a depth-3 tree whose accepted path stopped at depth 2 read "K=2" beside `--k 3`. The head now
    names the tree's nodes (copied lookup tokens included) and its deepest node's depth; a chain's keeps K."""
    from specviz.cli import format_step
    from specviz.engine.trace import Decision, EmittedToken, Step, TreeNode, TreeRecord

    nodes = [TreeNode(7, "a", -1, 1, 0.5, 0.9, "accepted", 0.1, 1.0), TreeNode(8, "b", 0, 2, 0.3, 0.9, "accepted"),
             TreeNode(6, "d", 1, 3, 0.3, 0.0, "not reached"), TreeNode(5, "e", -1, 1, 0.2, 0.0, "not reached")]
    decisions = [Decision(0, 7, "a", 0.5, 0.9, 1.8, 1.0, 0.1, True, True),
                 Decision(1, 8, "b", 0.3, 0.9, 3.0, 1.0, 0.2, True, True)]
    emitted = [EmittedToken(7, "a", "accepted"), EmittedToken(8, "b", "accepted"), EmittedToken(9, "c", "bonus")]
    tree = Step(0, 3, len(decisions), "eagle", decisions, emitted, tree=TreeRecord(nodes, [0, 1]))
    head = format_step(tree).splitlines()[0]
    assert tree.k == 2 and tree.draft_depth == 3 and tree.n_drafted == 4
    assert "tree of 4 nodes, depth 3" in head and "K=" not in head, head
    assert "K=2" in format_step(Step(0, 3, 2, "eagle", decisions, emitted)).splitlines()[0]


def test_a_tree_steps_head_counts_its_copied_lookup_tokens_apart_from_its_nodes():
    """Read 44: `generate --pair toy --k 3 --tree-nodes 6 --tree-width 2 --tree-lookup 3` printed "a tree of 6 nodes,
    ..., plus up to 3 tokens copied from the context" on its settings line and "tree of 9 nodes" on a step's head,
    one word for two counts (the drafted nodes, and those plus the copies no model drafted). The head now counts the
    copies apart, as the settings line and the Playground's step headline do."""
    from specviz.cli import format_step
    from specviz.core.i18n import using
    from specviz.engine.trace import Decision, EmittedToken, Step, TreeNode, TreeRecord

    nodes = [TreeNode(7, "a", -1, 1, 0.5, 0.9, "accepted", 0.1, 1.0), TreeNode(5, "e", -1, 1, 0.2, 0.0, "not reached"),
             TreeNode(7, "a", -1, 1, 1.0, 0.9, "not reached", copied=True),
             TreeNode(8, "b", 2, 2, 1.0, 0.9, "not reached", copied=True)]
    decisions = [Decision(0, 7, "a", 0.5, 0.9, 1.8, 1.0, 0.1, True, True)]
    step = Step(0, 3, 1, "eagle", decisions, [EmittedToken(7, "a", "accepted"), EmittedToken(9, "c", "recovered")],
                tree=TreeRecord(nodes, [0]))
    head = format_step(step).splitlines()[0]
    assert step.n_drafted == 4  # the engine's count of proposed tokens keeps the copies in
    assert "tree of 2 nodes plus 2 tokens copied from the context, depth 2" in head and "4 nodes" not in head, head
    with using("pt"):
        head = format_step(step).splitlines()[0]
    assert "árvore de 2 nós mais 2 tokens copiados do contexto, profundidade 2" in head, head


def test_a_one_node_tree_steps_head_says_one_node_in_both_languages():
    """Read 44: the tree step's head wrote its count into "tree of {nodes} nodes", so `--tree-nodes 1` printed
    "tree of 1 nodes" ("árvore de 1 nós"), the slip the 43rd read mended in compare's line; it now goes through
    ngettext, as compare's does."""
    from specviz.engine.trace import Decision, EmittedToken, Step, TreeNode, TreeRecord

    nodes = [TreeNode(7, "a", -1, 1, 0.5, 0.9, "accepted", 0.1, 1.0)]
    decisions = [Decision(0, 7, "a", 0.5, 0.9, 1.8, 1.0, 0.1, True, True)]
    emitted = [EmittedToken(7, "a", "accepted"), EmittedToken(9, "c", "bonus")]
    one = Step(0, 3, 1, "eagle", decisions, emitted, tree=TreeRecord(nodes, [0]))
    assert one.n_drafted == 1
    head, pt = _step_heads(one)
    assert "tree of 1 node, depth 1" in head and "1 nodes" not in head, head
    assert "árvore de 1 nó, profundidade 1" in pt and "1 nós" not in pt, pt


@pytest.mark.parametrize("lang, said", [
    ("en", "   (only the main line is listed: the accepted path and, if one was rejected, the first child rejected "
           "below it; not listed: 1 other node plus 2 tokens copied from the context; --json writes them all)"),
    ("pt", "   (só a linha principal é listada: o caminho aceito e, se um foi rejeitado, o primeiro filho rejeitado "
           "abaixo dele; não listados: 1 outro nó mais 2 tokens copiados do contexto; --json escreve todos)")])
def test_a_tree_step_says_it_lists_only_its_main_line_and_what_it_leaves_out(lang, said):
    """Read 52: a tree step's head read "tree of 2 nodes plus 2 tokens copied from the context" over one listed
    token, and nothing said the other node and the copies were left out (`generate --pair toy --k 3 --tree-nodes 8
    --tree-width 3 --tree-lookup 3 --temperature 0.7 --seed 3`: "tree of 8 nodes plus 3 tokens ..." over one line).
    The line under the head now says so, and counts what it leaves out; a tree with nothing left out says nothing."""
    from specviz.cli import format_step
    from specviz.core.i18n import using
    from specviz.engine.trace import Decision, EmittedToken, Step, TreeNode, TreeRecord

    nodes = [TreeNode(7, "a", -1, 1, 0.5, 0.9, "accepted", 0.1, 1.0), TreeNode(5, "e", -1, 1, 0.2, 0.0, "not reached"),
             TreeNode(7, "a", -1, 1, 1.0, 0.9, "not reached", copied=True),
             TreeNode(8, "b", 2, 2, 1.0, 0.9, "not reached", copied=True)]
    decisions = [Decision(0, 7, "a", 0.5, 0.9, 1.8, 1.0, 0.1, True, True)]
    emitted = [EmittedToken(7, "a", "accepted"), EmittedToken(9, "c", "recovered")]
    step = Step(0, 3, 1, "eagle", decisions, emitted, tree=TreeRecord(nodes, [0]))
    whole = Step(0, 3, 1, "eagle", decisions, emitted, tree=TreeRecord(nodes[:1], [0]))
    with using(lang):
        lines, alone = format_step(step).splitlines(), format_step(whole).splitlines()
    assert lines[1] == said, lines
    assert len(alone) == 3 and "(" not in alone[1][:5], alone  # head, the one node, the recovered token


def _step_heads(step) -> tuple[str, str]:
    """The first line `format_step` prints for `step`, in English and in Portuguese."""
    from specviz.cli import format_step
    from specviz.core.i18n import using

    head = format_step(step).splitlines()[0]
    with using("pt"):
        return head, format_step(step).splitlines()[0]


def test_a_steps_head_writes_a_draft_under_a_millisecond_with_its_digits_and_an_exact_zero_as_0():
    """Read 52: `generate --pair toy --proposer ngram` printed "draft 0 ms" for a lookup that took 0.30 ms, as it
    prints a step that drafted nothing (0 s): a measured time rounded to zero. It now keeps two significant digits
    (`small_number`), and an exact 0 stays "0"."""
    from specviz.engine.trace import Decision, EmittedToken, Step

    decisions = [Decision(0, 7, "a", 1.0, 0.9, 0.9, 0.9, 0.1, True, True)]
    looked_up = Step(0, 3, 1, "ngram", decisions, [EmittedToken(7, "a", "accepted"), EmittedToken(9, "c", "bonus")],
                     draft_seconds=0.0002996, verify_seconds=0.10238)
    head, pt = _step_heads(looked_up)
    assert "draft 0.30 ms  verify 102 ms" in head, head
    assert "rascunho 0,30 ms  verificação 102 ms" in pt, pt
    nothing = Step(1, 5, 0, "ngram", [], [EmittedToken(4, "d", "target")], verify_seconds=0.0393)
    assert "K=0  draft 0 ms  verify 39 ms" in _step_heads(nothing)[0]


def test_a_tree_step_that_drafted_nothing_says_so_in_both_languages():
    """Read 45: a tree run's last step, with one token left to write, drafts an empty tree, and its head read "tree of
    0 nodes, depth 0", "árvore de 0 nó" in Portuguese (whose plural rule puts 0 in the singular); it now says that no
    node was drafted."""
    from specviz.engine.trace import EmittedToken, Step, TreeRecord

    empty = Step(5, 17, 0, "eagle", [], [EmittedToken(9, "f", "target")], tree=TreeRecord([], []))
    assert empty.n_drafted == 0
    head, pt = _step_heads(empty)
    assert "no node drafted" in head and "tree of 0" not in head, head
    assert "nenhum nó rascunhado" in pt and "0 nó" not in pt, pt


def test_compares_no_warmup_help_counts_the_warm_up_runs_it_skips():
    """Read 44: `--no-warmup` said it skips "the short untimed warm-up run", one, while compare runs two before its
    timed pair (a short speculative run, then a short target-only one); the help now says both, with their length."""
    from specviz.cli import WARMUP_TOKENS, build_parser

    compare = build_parser()._subparsers._group_actions[0].choices["compare"]
    text = next(a for a in compare._actions if a.dest == "no_warmup").help
    assert "warm-up runs" in text and f"{WARMUP_TOKENS} tokens speculative, then {WARMUP_TOKENS} target-only" in text


def test_the_device_and_dtype_help_say_the_toy_pair_runs_float32_on_the_cpu():
    """Read 38: every --dtype help gave the machine's rule (bfloat16 on a CPU with bf16 instructions) and every
    --device help "the fastest available", but the toy pair loads on the CPU in float32 unless a flag names another
    (`load_pair`): `bench --pair toy` on this project's bf16 CPU records --dtype float32."""
    import argparse

    from specviz.cli import build_parser
    from specviz.models.machine import Machine
    from specviz.models.pairs import load_pair

    pair = load_pair("toy", machine=Machine(cpu_bf16=True))
    assert pair.dtype == __import__("torch").float32 and pair.device.type == "cpu"
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    for flag, said in (("--dtype", "the toy pair: float32"), ("--device", "the toy pair: cpu")):
        helps = {name: next(a.help for a in sub[name]._actions if flag in a.option_strings)
                 for name in ("generate", "compare", "calibrate", "bench")}
        assert len(helps) == 4 and all(said in text for text in helps.values()), helps


def test_help_and_a_bad_flag_answer_without_loading_torch():
    """Checking flags needs no model: `--help` and a refused value must not pay torch's and transformers' import."""
    code = ("import sys\nfrom specviz.cli import main\n"
            "assert main(['generate', '--prompt', 'hi', '--k', '99']) == 2\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print('torch' in sys.modules, 'transformers' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip().splitlines()[-1] == "False False", out.stderr[-1000:]
    assert "--k must be a whole number from 1 to 16" in out.stderr


def test_calibrate_prints_this_machines_costs_and_caches_them(tmp_path, monkeypatch):
    monkeypatch.setenv("SPECVIZ_CACHE", str(tmp_path))
    out = cli("calibrate", "--pair", "toy")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("This machine: ") and "pair toy in float32" in out.stdout
    assert "n=1:" in out.stdout and "n=33:" in out.stdout
    assert "No per-shape table for this pair and proposer: runs keep its recommended shape, a chain of K = 4." \
        in out.stdout
    bad = cli("calibrate", "--pair", "toy", "--top", "0")
    assert bad.returncode == 2 and bad.stderr == "specviz: --top must be a whole number from 1 to 50 (got 0).\n"


def test_calibrate_says_a_gpus_costs_were_timed_on_the_gpu():
    """Read 48: on a GPU, calibrate's first line named only the host CPU and its bf16 instructions ("This machine:
    AMD EPYC, 16 threads, ... (with bf16 instructions); pair default in bfloat16, ..."), above costs timed on cuda:0."""
    from specviz.cli import machine_heading
    from specviz.core.i18n import using
    from specviz.labs.calibration import Calibration

    costs = dict(pair="default", proposer="eagle", dtype="bfloat16", device="cuda:0", kernels="stock",
                 cpu="AMD EPYC", cpu_flags=("avx2",), cpu_bf16=True, torch="x", threads=16, drafter_seconds=0.001,
                 generate_seconds=0.01, spread=0.0, verify=((1, 0.01), (3, 0.012)))
    line = machine_heading(Calibration(**costs), "default")
    assert "pair default in bfloat16 on cuda:0" in line and line.endswith("the costs below were timed on cuda:0.")
    with using("pt"):
        assert machine_heading(Calibration(**costs), "default").endswith("os custos abaixo foram medidos em cuda:0.")
    on_cpu = machine_heading(Calibration(**{**costs, "device": "cpu"}), "default")
    assert "cuda" not in on_cpu and "pair default in bfloat16, linear kernels stock." in on_cpu


def _calibrate_with(monkeypatch, tmp_path, temperature: float, mal: float, counted_in: tuple[str, str],
                    **costs) -> None:
    """Set `calibrate --pair toy` up without a model: its shape table holds one chain of K = 2 (MAL `mal` at
    `temperature`, 3 tokens fed, counted in `counted_in` = (dtype, kernels) on 3 prompts), and `measure` times the toy
    pair in float32 with onednn-packed kernels on a CPU (`costs` over the defaults below)."""
    from specviz.labs import calibration, shape_choice

    monkeypatch.setenv("SPECVIZ_CACHE", str(tmp_path))
    rows = [{"k": 2, "tree_nodes": 0, "tree_width": 4, "tree_lookup": 0, "temperature": temperature,
             "tokens_per_forward": mal, "mean_rows": 3}]
    table = {"pair": "toy", "proposer": "draft", "dtype": counted_in[0], "prompts": 3, "rows": rows,
             "machine": {"kernels": counted_in[1]}}
    monkeypatch.setattr(shape_choice, "shape_table", lambda name: table if name == "toy" else None)
    timed = {**dict(pair="toy", proposer="draft", dtype="float32", device="cpu", kernels="onednn-packed",
                    cpu="Test CPU", cpu_flags=(), cpu_bf16=False, torch="x", threads=2, drafter_seconds=0.001,
                    generate_seconds=0.01, spread=0.0, verify=((1, 0.01), (3, 0.012))), **costs}
    monkeypatch.setattr(calibration, "measure", lambda *a, **k: calibration.Calibration(**timed))


def test_calibrate_names_the_dtype_and_kernels_its_counts_were_taken_in(tmp_path, monkeypatch):
    """The predicted shapes' MAL are the shape table's counts, in its dtype and kernels, whatever the pair runs with."""
    _calibrate_with(monkeypatch, tmp_path, 0.0, 1.9, ("bfloat16", "stock"))
    out = cli("calibrate", "--pair", "toy")
    assert out.returncode == 0, out.stderr
    assert "pair toy in float32" in out.stdout
    # the table's kernels too (32nd read): this run's are onednn-packed, the table's counts were taken with stock
    assert "(MAL, the mean accepted length, counted in bfloat16 with stock kernels on 3 held-out prompts;" \
        in out.stdout
    # read 45, names: the table's column of tokens fed read "rows", a second name for the glossary's "tokens fed",
    # which the printout never defined; each column is now named and said
    header = next(line for line in out.stdout.splitlines() if line.strip().startswith("shape"))
    assert header.split() == ["shape", "MAL", "fed", "cost", "vs", "gen."]
    assert "fed, the mean tokens fed to one verify forward; cost, a step's in one-token forwards; vs gen., the " \
        "speedup over model.generate), best first:" in out.stdout
    row = next(line for line in out.stdout.splitlines() if line.strip().startswith("chain"))
    assert row.split()[-4:-2] == ["1.90", "3.0"]  # MAL and the tokens fed, under their headers


def test_calibrate_writes_a_trees_shape_with_the_times_sign(tmp_path, monkeypatch):
    """Read 54: the "Predicted here" rows named a tree by its identifier, "tree 6x2 depth 2" (ASCII x), beside a
    "vs gen." column written with ×: a person reads `DraftShape.shown()`, "tree 6×2 depth 2"."""
    from specviz.labs import shape_choice

    _calibrate_with(monkeypatch, tmp_path, 0.0, 1.9, ("float32", "onednn-packed"))
    table = shape_choice.shape_table("toy")
    table["rows"][0].update(tree_nodes=6, tree_width=2, mean_rows=7)
    out = cli("calibrate", "--pair", "toy")
    assert out.returncode == 0, out.stderr
    row = next(line for line in out.stdout.splitlines() if line.strip().startswith("tree"))
    assert row.split()[:4] == ["tree", "6×2", "depth", "2"], row


def test_calibrate_says_not_cached_when_the_cache_cannot_be_written(tmp_path, monkeypatch):
    """Read 53: `calibrate` skips a cache it cannot write (a read-only folder, SPECVIZ_CACHE naming a file) and
    measures again next time, but the CLI still printed "Cached in <path>" for a file that was never written."""
    _calibrate_with(monkeypatch, tmp_path, 0.0, 1.9, ("float32", "onednn-packed"))
    writable = cli("calibrate", "--pair", "toy")
    assert writable.returncode == 0 and "Cached in " + str(tmp_path / "calibration") in writable.stdout
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("SPECVIZ_CACHE", str(blocked))
    out = cli("calibrate", "--pair", "toy")
    assert out.returncode == 0 and "Cached in" not in out.stdout and not blocked.is_dir()
    assert f"Not cached: {blocked / 'calibration'}" in out.stdout
    assert "could not be written, so the next run measures again." in out.stdout
    pt = cli("calibrate", "--pair", "toy", "--lang", "pt")
    assert "Guardado em" not in pt.stdout and f"Não guardado: não foi possível gravar {blocked / 'calibration'}" \
        in pt.stdout


def test_calibrate_prints_the_sampled_generate_cost_its_t07_predictions_divide_by(tmp_path, monkeypatch):
    """Read 51: calibrate printed "one token of model.generate: 9,558.1 ms = 3.69" (greedy), while its T = 0.7 rows'
    "vs gen." use the sampled model.generate (`baseline_ratio`), 4.05 there, which it never printed: 1.69 × 3.69 /
    1.20 gives 5.19, not the 5.69 shown. It now prints both, and a row follows from the printed numbers."""
    from specviz.core.i18n import using

    _calibrate_with(monkeypatch, tmp_path, 0.7, 1.8, ("float32", "onednn-packed"), generate_seconds=0.012,
                    sampled_generate_seconds=0.015)
    out = cli("calibrate", "--pair", "toy", "--lang", "en")
    assert out.returncode == 0, out.stderr
    assert "one token of model.generate: 12.0 ms = 1.20 greedy, 15.0 ms = 1.50 sampling at T = 0.7." in out.stdout
    row = next(line for line in out.stdout.splitlines() if line.strip().startswith("chain"))
    assert row.split()[-1] == f"{1.8 * 1.5 / (1.2 + 2 * 0.1):.2f}×", row  # MAL × sampled / (verify + K·c)
    with using("pt"):
        pt = cli("calibrate", "--pair", "toy", "--lang", "pt").stdout
    assert "12,0 ms = 1,20 na decodificação gulosa, 15,0 ms = 1,50 com amostragem a T = 0,7." in pt, pt


def test_calibrates_vs_gen_follows_from_the_mal_cost_and_token_it_prints(tmp_path, monkeypatch):
    """Read 54: calibrate printed MAL, a step's cost and model.generate's token with 2 decimals each, so a row's
    "vs gen." could miss their quotient by 0.01 (here 2.98 × 1.32 / 1.33 = 2.96 beside 2.95×, from MAL 2.9773). They
    take the decimals that make every printed row follow (`shape_choice.written_digits`)."""
    _calibrate_with(monkeypatch, tmp_path, 0.0, 2.9773, ("float32", "onednn-packed"), generate_seconds=0.0132,
                    drafter_seconds=0.00047, verify=((1, 0.01), (3, 0.0124)))
    out = cli("calibrate", "--pair", "toy", "--lang", "en")
    assert out.returncode == 0, out.stderr
    token = float(re.search(r"one token of model\.generate: [0-9.]+ ms = ([0-9]+\.[0-9]+)", out.stdout).group(1))
    row = next(line for line in out.stdout.splitlines() if line.strip().startswith("chain")).split()
    mal, cost, speedup = float(row[-4]), float(row[-2]), row[-1]
    assert f"{mal * token / cost:.2f}×" == speedup, (row, token)


@pytest.mark.parametrize("lang, untimed, timed", [
    ("en", "One drafter pass (ngram): not timed, it runs no model (the short real runs below time its lookups); one "
           "token of model.generate: 12.0 ms = 1.20 greedy",
     "One drafter pass (draft): 0.020 ms = 0.0020 one-token forwards; one token"),
    ("pt", "Uma passagem do rascunhador (ngram): não cronometrada, ele não roda modelo (as execuções reais curtas "
           "abaixo cronometram as suas buscas); um token do model.generate: 12,0 ms = 1,20 na decodificação gulosa",
     "Uma passagem do rascunhador (draft): 0,020 ms = 0,0020 passagens de um token; um token")])
def test_calibrate_writes_no_untimed_or_rounded_away_drafter_cost_as_zero(tmp_path, monkeypatch, lang, untimed,
                                                                           timed):
    """Read 52: `calibrate --pair toy --proposer ngram` printed "One drafter pass (ngram): 0.0 ms = 0.00 one-token
    forwards", a pass `measure` never times (n-gram lookup runs no model: 0 by construction), and "As short real runs
    paid them: chain, greedy: a drafter pass 0.0 ms", a measured 0.035 ms rounded to zero. The untimed pass is now
    said to be untimed, and a cost under the decimals shown keeps two significant digits (`small_number`)."""
    from specviz.labs import calibration

    monkeypatch.setenv("SPECVIZ_CACHE", str(tmp_path))
    costs = dict(pair="toy", proposer="ngram", dtype="float32", device="cpu", kernels="stock", cpu="Test CPU",
                 cpu_flags=(), cpu_bf16=False, torch="x", threads=2, drafter_seconds=0.0, generate_seconds=0.012,
                 sampled_generate_seconds=0.015, spread=0.0, verify=((1, 0.01), (3, 0.012)),
                 steps=(("chain-greedy", 3.5e-05, 0.00011),))
    monkeypatch.setattr(calibration, "measure", lambda *a, **k: calibration.Calibration(**costs))
    out = cli("calibrate", "--pair", "toy", "--proposer", "ngram", "--force", "--lang", lang)
    assert out.returncode == 0, out.stderr
    assert untimed in out.stdout, out.stdout
    assert not any(zero in out.stdout for zero in (" 0.0 ms", " 0,0 ms", "0.00 one-token", "0,00 passagens"))
    assert ("a drafter pass 0.035 ms, a step's overhead 0.1 ms" if lang == "en" else "0,035 ms") in out.stdout
    costs.update(proposer="draft", drafter_seconds=2e-05)  # a timed pass of 0.002 one-token forwards
    out = cli("calibrate", "--pair", "toy", "--proposer", "draft", "--force", "--lang", lang)
    assert out.returncode == 0, out.stderr
    assert timed in out.stdout, out.stdout


def test_generate_without_a_shape_takes_the_one_predicted_fastest_here(tmp_path, monkeypatch):
    from specviz.labs import calibration, shape_choice

    monkeypatch.setenv("SPECVIZ_CACHE", str(tmp_path))
    rows = [{"k": k, "tree_nodes": 0, "tree_width": 4, "tree_lookup": 0, "temperature": 0.0,
             "tokens_per_forward": tokens, "mean_rows": k + 1} for k, tokens in ((1, 1.5), (2, 1.9), (6, 2.2))]
    table = {"pair": "toy", "proposer": "draft", "prompts": 3, "rows": rows}
    monkeypatch.setattr(shape_choice, "shape_table", lambda name: table if name == "toy" else None)
    slow = dict(pair="toy", proposer="draft", dtype="float32", device="cpu", kernels="onednn-packed", cpu="Test CPU",
                cpu_flags=(), cpu_bf16=False, torch="x", threads=2, drafter_seconds=0.001, generate_seconds=0.01,
                spread=0.0, verify=((1, 0.01), (2, 0.011), (3, 0.012), (7, 0.05)))
    monkeypatch.setattr(calibration, "measure", lambda *a, **k: calibration.Calibration(**slow))
    out = cli("generate", "--pair", "toy", "--prompt", "the cat", "--max-new-tokens", "6", "--quiet")
    assert out.returncode == 0, out.stderr
    assert "Draft shape for this machine: a chain of K = 2;" in out.stderr  # steep beyond 2 tokens: K = 2 wins
    assert "specviz: On this machine (Test CPU, float32) no draft shape" not in out.stderr
    given = cli("generate", "--pair", "toy", "--prompt", "the cat", "--max-new-tokens", "6", "--quiet", "--k", "3")
    assert "Draft shape for this machine" not in given.stderr  # a shape of the user's own is kept, silently
    slower = {**slow, "verify": ((1, 0.01), (2, 0.03), (3, 0.04), (7, 0.08))}
    monkeypatch.setattr(calibration, "measure", lambda *a, **k: calibration.Calibration(**slower))
    monkeypatch.setenv("SPECVIZ_CACHE", str(tmp_path / "another-machine"))  # the first one's costs are cached
    out = cli("generate", "--pair", "toy", "--prompt", "the cat", "--max-new-tokens", "6", "--quiet")
    assert out.returncode == 0 and "specviz: On this machine (Test CPU, float32) no draft shape is predicted to " \
        "beat model.generate by 5%" in out.stderr


def test_the_toy_pair_docstring_quotes_what_its_command_prints(capsys):
    """specviz.models.pairs.toy_pair quotes one command's acceptance rate and α estimate; they must stay what it
    prints (it once said "acceptance 0.6 to 0.8", one word for two quantities)."""
    from specviz.models.pairs import toy_pair

    doc = " ".join(toy_pair.__doc__.split())
    assert main(["generate", "--pair", "toy", "--prompt", "hello world", "--temperature", "1", "--k", "4",
                 "--seed", "1", "--quiet", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    rate = re.search(r"acceptance rate\s+(\S+)", out).group(1)
    alpha = re.search(r"α estimate\s+(\S+)", out).group(1)
    assert f"prints {rate} accepted / drafted and {alpha} mean min(1, p/q)" in doc


def test_the_k_help_says_a_shape_flag_leaves_k_at_the_recommended_one():
    """Issue 43, fourteenth read: --k's help gave the machine's predicted shape as its default, but with any other
    shape flag (--tree-nodes, --tree-width, --tree-lookup) the machine's shape is not used and K is the pair's
    recommended one (cli.draft_shape, bench.config_from_args)."""
    import argparse

    from specviz.cli import build_parser, draft_shape
    from specviz.labs.bench.cli import add_bench_arguments, config_from_args
    from specviz.models.catalog import recommended_for

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    for name in ("generate", "compare", "bench"):
        text = next(a.help for a in sub[name]._actions if "--k" in a.option_strings)
        assert "with no shape flag" in text and "else the pair's recommended K" in text, name
    args = parser.parse_args(["generate", "--prompt", "hi", "--tree-nodes", "8"])
    assert draft_shape(args)["k"] == recommended_for("default").k
    bench = argparse.ArgumentParser()
    add_bench_arguments(bench)
    assert config_from_args(bench.parse_args(["--tree-nodes", "8"])).ks == [recommended_for("default").k]


@pytest.mark.parametrize("args, sentence", [
    (["generate", "--prompt", "hi", "--temperature", "1e400"], "--temperature: '1e400' is too large to be a number"),
    (["generate", "--prompt", "hi", "--temperature=-1e400"], "--temperature: '-1e400' is too far below 0 to be a"),
    (["generate", "--prompt", "hi", "--temperature", "NaN"], "--temperature: 'NaN' is not a number"),
    (["compare", "--prompt", "hi", "--top-p", "1e400"], "--top-p: '1e400' is too large to be a number"),
    (["compare", "--prompt", "hi", "--top-p=-inf"], "--top-p: '-inf' is infinite, not a number"),
    (["bench", "--temperatures", "0,1e400"], "--temperatures: '1e400' is too large to be a number"),
    (["bench", "--policy-temperatures", "Infinity"], "--policy-temperatures: 'Infinity' is infinite, not a number"),
    (["bench", "--threshold", "nan"], "--threshold: 'nan' is not a number")])
def test_a_number_too_large_or_not_finite_is_quoted_as_typed(args, sentence):
    """Read 46: `--temperature 1e400` was refused "(got inf)": float() reads 1e400 as inf, and the range sentence
    quoted that, a value the user never typed. Every float flag of generate, compare and bench now quotes the text
    typed, in argparse's one line with exit code 2, as for `--temperature warm`."""
    out = cli(*(args[:1] + ["--pair", "toy"] + args[1:]))
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert out.returncode == 2 and len(lines) == 1 and sentence in lines[0], out.stderr
    assert "(got " not in out.stderr


def test_serve_starts_timeout_quotes_a_number_too_large_as_typed(capsys):
    """Read 46 (review of 603eb295): `serve start --timeout 1e400` was still read with float() and refused as
    "(got inf)", a number never typed; it takes finite_float as the other float flags do."""
    from specviz.cli import build_parser

    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(["serve", "start", "--timeout", "1e400"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "--timeout: '1e400' is too large to be a number" in err and "(got " not in err


@pytest.mark.parametrize("args, said", [
    (["serve", "start", "--timeout", "1e9"], "--timeout must be a number of seconds from 1 to 7,200 (got 1e9)."),
    (["generate", "--pair", "toy", "--prompt", "hi", "--temperature", "1e9"],
     "--temperature must be a number from 0 to 2 (got 1e9)."),
    (["generate", "--pair", "toy", "--prompt", "hi", "--top-p", "1e1"], "--top-p must be a number from 0.01 to 1 "
                                                                         "(got 1e1)."),
    (["generate", "--pair", "toy", "--prompt", "hi", "--temperature", "-2.50"],
     "--temperature must be a number from 0 to 2 (got \u22122.50).")])
def test_a_refused_number_flag_is_quoted_as_typed(args, said):
    """Read 52: `--timeout 1e9` and `--temperature 1e9` were refused "(got 1e+09)" and `--top-p 1e1` "(got 10)",
    numbers written as Python writes them, not as typed."""
    out = cli(*args)
    assert out.returncode == 2 and said in out.stderr, out.stderr


@pytest.mark.parametrize("args, said", [
    (["generate", "--prompt", "hi", "--temperature", "1e-400"],
     "--temperature must not be so close to 0 that it reads as 0 (got 1e-400)."),
    (["compare", "--lang", "pt", "--prompt", "hi", "--temperature=-1E-999"],
     "--temperature não deve ser tão próximo de 0 que seja lido como 0 (recebido: \u22121E-999)."),
    (["bench", "--temperatures", "0.7,1e-400"], "--temperatures must not be so close to 0 that it reads as 0 "
                                                "(got 1e-400)."),
    (["bench", "--policies", "heuristic", "--policy-temperatures", "1e-330"],
     "--policy-temperatures must not be so close to 0 that it reads as 0 (got 1e-330)."),
    (["bench", "--policies", "threshold", "--threshold", "1e-400"],
     "--threshold must not be so close to 0 that it reads as 0 (got 1e-400).")])
def test_a_number_typed_non_zero_that_reads_as_0_is_refused_not_run_greedy(args, said):
    """Read 53: `generate --temperature 1e-400` ran greedy without a word (a float reads 1e-400 as 0), and the
    bench timed T = 0 for `--temperatures 1e-400`; a link's temperature=1e-400 was already refused in these words
    (`runspec.setting_refusal`). One line, exit code 2, before any model loads."""
    out = cli(args[0], "--pair", "toy", *args[1:])
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert out.returncode == 2 and len(lines) == 1 and said in lines[0], out.stderr


def test_a_zero_written_with_an_exponent_still_runs_greedy():
    """0e-400 is 0 as typed: it runs, greedy, as `--temperature 0` does (only a non-zero digit is refused)."""
    out = cli("generate", "--pair", "toy", "--prompt", "hi", "--max-new-tokens", "2", "--temperature", "0e-400")
    assert out.returncode == 0 and "must not be so close to 0" not in out.stderr, out.stderr


@pytest.mark.parametrize("args", [["generate", "--k", "abc"], ["generate", "--proposer", "hydra"], ["generat"],
                                  ["compare", "--temperature", "warm"], ["generate", "--no-such-flag"]])
def test_a_flag_argparse_cannot_read_is_one_line_without_the_usage_block(args):
    """argparse printed its usage block (12 lines for generate in 80 columns) before its sentence; the module
    docstring promises one sentence for a mistake a user can make."""
    out = cli(*args)
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert out.returncode == 2 and len(lines) == 1 and "usage:" not in out.stderr, out.stderr
    assert lines[0].startswith("python -m specviz") and lines[0].endswith("--help lists every flag).")


def test_the_usage_block_the_parser_leaves_out_is_as_long_as_its_docstring_says(monkeypatch):
    """OneSentenceParser's docstring counts the usage block argparse would print for `generate` in an 80-column
    terminal (the 26th read found "about 20 lines" where there were 12): the count is read from argparse here."""
    import argparse

    from specviz.cli import OneSentenceParser, build_parser

    monkeypatch.setenv("COLUMNS", "80")
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    lines = len(sub["generate"].format_usage().splitlines())
    doc = " ".join(OneSentenceParser.__doc__.split())
    assert lines > 1 and f"({lines} lines for `generate` in an 80-column terminal" in doc, (lines, doc)


def test_the_module_docstring_names_the_subcommands_that_take_lang():
    """specviz.cli's docstring says --lang is a flag of generate, compare and calibrate, and that bench and serve take
    none: the parser's own subcommands say the same."""
    import argparse

    import specviz.cli as cli

    commands = next(a for a in cli.build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    with_lang = sorted(name for name, sub in commands.choices.items()
                       if any("--lang" in action.option_strings for action in sub._actions))
    assert with_lang == ["calibrate", "compare", "generate"]
    assert "a flag of generate,\ncompare and calibrate" in cli.__doc__
    assert "bench and serve take no --lang" in cli.__doc__


@pytest.mark.parametrize("lang, said", [("en", "(got 1.5)."), ("pt", "(recebido: 1,5).")])
def test_a_refused_decimal_is_quoted_with_the_readers_decimal_mark(lang, said):
    """The refusal wrote its bounds the reader's way (0,01) but the value as Python does (1.5) in Portuguese."""
    out = cli("generate", "--pair", "toy", "--prompt", "hi", "--top-p", "1.5", "--lang", lang)
    assert out.returncode == 2 and out.stderr.strip().endswith(said), out.stderr


@pytest.mark.parametrize("args, said, not_said", [
    (["generate", "--prompt", "hi", "--top-p", "0"], "(got 0).", "got 0.0"),
    (["generate", "--prompt", "hi", "--top-p", "0", "--lang", "pt"], "(recebido: 0).", "recebido: 0,0"),
    (["compare", "--prompt", "hi", "--temperature", "3"], "(got 3).", "got 3.0"),
    (["compare", "--prompt", "hi", "--temperature", "3", "--lang", "pt"], "(recebido: 3).", "recebido: 3,0"),
    (["bench", "--temperatures", "0", "3"], "--temperatures must be numbers from 0 to 2 (got 3).", "got 3.0"),
    (["bench", "--threshold", "2"], "--threshold must be between 0 and 1 (got 2).", "got 2.0")])
def test_a_refused_number_is_quoted_as_typed_not_as_float_reads_it(args, said, not_said):
    """Read 47: `--top-p 0` was refused "(got 0.0)" ("(recebido: 0,0)" in Portuguese) and `bench --temperatures 3`
    "(got 3.0)": float()'s reading, a number never typed, where the other refusals quote what was typed since read
    46. A number setting's refusal now quotes the number as typed; a whole setting's keeps "3.0" (its own test)."""
    out = cli(*(args[:1] + ["--pair", "toy"] + args[1:]))
    assert out.returncode == 2 and out.stderr.strip().endswith(said), out.stderr
    assert not_said not in out.stderr


@pytest.mark.parametrize("args", [["generate", "--pair", "toy", "--prompt", "hi", "--json", ""],
                                  ["bench", "--pair", "toy", "--proposers", "draft", "--k", "2", "--out", ""],
                                  ["serve", "sweep", "--out", " "]])
def test_an_empty_output_path_is_refused_in_one_line_before_anything_runs(args):
    """30th read: `generate --json ""` ran and wrote no trace, silently; `bench --out ""` began a benchmark that
    would write into the current folder; `serve sweep --out ""` said the path "is a folder"."""
    out = cli(*args)
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert out.returncode == 2 and len(lines) == 1, out.stderr
    assert "a file or folder name, not an empty one" in lines[0] and out.stdout == ""


def test_bench_out_naming_a_file_says_it_is_a_file_not_that_it_exists(tmp_path):
    """30th read: `bench --out FILE` said "File exists" (mkdir's reason), as if the results file were in the way."""
    blocker = tmp_path / "results"
    blocker.write_text("")
    out = cli("bench", "--pair", "toy", "--proposers", "draft", "--k", "2", "--out", str(blocker))
    assert out.returncode == 2
    assert out.stderr.strip() == f"specviz: Cannot write the results to '{blocker}': it is a file, not a folder."


def test_a_bench_refused_after_its_write_check_leaves_no_folder_behind(tmp_path):
    """Read 52: the write check made --out and its missing parents and kept them, so a bench refused after it (an
    unknown pair, a flag known to be wrong once the pair loads) left three empty folders on the disk."""
    out = cli("bench", "--pair", "no-such-pair", "--out", str(tmp_path / "new" / "a" / "b"))
    assert out.returncode == 2 and "Unknown pair 'no-such-pair'" in out.stderr
    out = cli("bench", "--pair", "toy", "--layers", "5", "--out", str(tmp_path / "new" / "a" / "b"))
    assert out.returncode == 2 and "--layers 5 sets layerskip" in out.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("flag, value", [("--proposers", ""), ("--k", ","), ("--temperatures", " "),
                                         ("--suites", ""), ("--verify-dtypes", "")])
def test_a_bench_list_flag_with_no_value_in_it_is_refused_not_read_as_the_default(flag, value):
    """30th read: `bench --proposers ""` began a benchmark with the pair's own proposer, `--k ""` with the
    recommended K (while counting as a shape flag), both without a word."""
    out = cli("bench", "--pair", "toy", flag, value, "--out", "/nonexistent-r30a/never")
    assert out.returncode == 2 and f"argument {flag}: " in out.stderr and ", separated by spaces or commas (got " \
        f"'{value}')" in out.stderr, out.stderr


def test_a_bench_list_flag_says_what_it_takes_in_words_and_the_counts_say_their_ranges(capsys):
    """Read 52: `--k 1,x` was refused "'1,x' is not a list of int values", Python's type name; and the help of
    --prompts-per-suite, --repeats and --warmup left out the ranges BenchConfig enforces."""
    import argparse

    from specviz.labs.bench.cli import add_bench_arguments

    parser = argparse.ArgumentParser(prog="bench")
    add_bench_arguments(parser)
    for flag, value, takes in (("--k", "1,x", "whole numbers"), ("--temperatures", "0,warm", "numbers")):
        with pytest.raises(SystemExit):
            parser.parse_args([flag, value])
        assert f"argument {flag}: {takes}, separated by spaces or commas (got '{value}')" in capsys.readouterr().err
    shown = " ".join(parser.format_help().split())
    for words in ("prompts taken from each suite, 1 to 100", "timed repeats per case, 1 to 100",
                  "untimed warm-up rounds before timing, 0 to 100"):
        assert words in shown


def test_the_toy_pairs_stand_in_drafters_are_said_to_run_where_they_do():
    """30th read: `_prepare`'s docstring said the toy pair's EAGLE drafter is a stand-in "that only the tests and the
    GPU rehearsal use", while `bench --proposers eagle` and `calibrate --proposer eagle` on the toy pair run it (only
    generate and compare refuse it)."""
    import argparse

    from specviz.cli import _prepare, build_parser

    doc = " ".join(_prepare.__doc__.split())
    assert "only the tests and the GPU rehearsal use" not in doc
    assert "so do `bench --proposers` and `calibrate --proposer` when named" in doc
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert "eagle" in sub.choices["calibrate"].parse_args(["--pair", "toy", "--proposer", "eagle"]).proposer
    out = cli("generate", "--pair", "toy", "--prompt", "hi", "--proposer", "eagle")
    assert out.returncode == 2 and "no trained EAGLE drafter" in out.stderr


def test_every_device_help_names_the_devices_pick_device_takes():
    """Read 32: generate's, compare's and calibrate's --device help offered "cpu, cuda, mps" while bench's said
    "cpu, cuda, cuda:N, mps"; `pick_device` takes cuda:N for all four (its refusal names the same four forms). Read
    52: it takes "auto" too (the default's own choice), which the help left out: it now lists auto as the default."""
    import argparse

    from specviz.cli import build_parser
    from specviz.models.machine import GpuInfo, Machine, ModelLoadError, pick_device

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    helps = {name: next(a.help for a in sub[name]._actions if "--device" in a.option_strings)
             for name in ("generate", "compare", "calibrate", "bench")}
    assert len(helps) == 4 and all(text.startswith("cpu, cuda, cuda:N, mps or auto (default: auto, which picks the "
                                                   "fastest CUDA GPU, else Apple MPS, else cpu")
                                   for text in helps.values()), helps
    assert pick_device("auto") == pick_device(None)
    two = Machine(gpus=(GpuInfo(0, "GPU", 2**34, 2**34), GpuInfo(1, "GPU", 2**34, 2**34)))
    assert str(pick_device("cuda:1", two)) == "cuda:1"  # the cuda:N the help offers is taken
    with pytest.raises(ModelLoadError, match="There is no GPU 1: this machine has 1"):
        pick_device("cuda:1", Machine(gpus=(GpuInfo(0, "GPU", 2**34, 2**34),)))
    with pytest.raises(ModelLoadError, match="use cpu, cuda, cuda:N, mps or auto"):
        pick_device("gpu")

def test_the_docstring_says_argparse_errors_speak_the_commands_language_as_they_do(capsys):
    """32nd read: the CLI's docstring said the one-sentence refusals are in English or Portuguese, but argparse's own
    errors (written before --lang was read) stayed English even with --lang pt. Read 53: they now speak it, and the
    docstring says so."""
    import specviz.cli as module

    with pytest.raises(SystemExit) as stopped:
        module.main(["generate", "--pair", "toy", "--prompt", "hi", "--k", "1.5", "--lang", "pt"])
    assert stopped.value.code == 2
    assert "valor inteiro inválido: '1.5'" in capsys.readouterr().err
    doc = " ".join(module.__doc__.split())
    assert "so do argparse's own" not in doc
    assert "argparse's own words" in doc and "are in the command's language" in doc


def test_the_docstring_says_the_bench_report_stays_english():
    """38th read: the CLI's docstring said bench "follow[s] the environment", naming only its refusals and progress
    lines as English; its report (printed and results.md) is English too under LC_ALL=pt_BR.UTF-8: markdown_report
    writes no sentence through the catalog."""
    import inspect

    import specviz.cli as module
    from specviz.labs.bench.report import markdown_report

    assert "_(" not in inspect.getsource(markdown_report)
    doc = " ".join(module.__doc__.split())
    assert "bench and serve take no --lang and follow the environment" not in doc
    assert "the bench's own report (what it prints and results.md), its refusals and its progress lines" in doc


def test_the_summary_says_what_a_per_position_entry_counts():
    """38th read: "per-position accept [0.38, 0.14, ...]" came with no word on what an entry counts; the second reads
    as a rate over the drafts the verifier tested at that position (1 of 2 there, 0.50), but it is a share of every
    step that drafted that far (1 of 7), `Trace.per_position_acceptance`. The line now says so."""
    from specviz.cli import format_summary
    from specviz.engine.trace import Decision, EmittedToken, Step

    def step(*verdicts):
        return Step(0, 3, 2, "draft", [Decision(i, 7, "a", 0.5, 0.5, 1.0, 1.0, 0.1 if seen else None, ok, seen)
                                       for i, (ok, seen) in enumerate(verdicts)], [EmittedToken(9, "c", "bonus")])

    steps = [step((True, True), (True, True)), step((False, True), (False, False)), step((True, True), (False, True))]
    trace = Trace("speculative", {}, [1, 2], [9] * 3, steps)
    assert trace.per_position_acceptance == [2 / 3, 1 / 3]
    line = next(x for x in format_summary(trace).splitlines() if "acceptance by position" in x)
    assert "[0.67, 0.33]  (entry n: of the steps that drafted n or more, the share whose first n drafts were all " \
           "accepted)" in line, line


def test_generate_names_the_dtype_and_machine_its_speed_was_timed_on():
    """38th read: generate's summary printed "speed 7.1 tokens/s (1.70 s)" with no dtype or machine, where compare
    names both (STYLE.md: a figure comes with its dtype and machine). The line after the speed now says where."""
    out = cli("generate", "--pair", "toy", "--prompt", "the cat sat", "--max-new-tokens", "6", "--quiet")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    speed = next(i for i, line in enumerate(lines) if line.lstrip().startswith("speed"))
    assert lines[speed + 1].startswith("  measured in:  float32 on cpu ("), lines[speed + 1]
    assert "linear kernels" in lines[speed + 1]


def test_calibrate_without_a_table_names_the_chain_a_proposer_that_cannot_branch_runs(tmp_path, monkeypatch):
    """38th read: `calibrate --proposer ngram` (the default pair has a table for eagle only) said "runs keep its
    recommended shape, a tree of 16 nodes, depth 4, width 4, plus up to 8 tokens copied from the context", but
    n-gram lookup drafts no tree (registry.can_branch; the loop runs the chain of the shape's K)."""
    import specviz.cli as module
    from specviz.engine.proposers import registry
    from specviz.labs import calibration

    monkeypatch.setenv("SPECVIZ_CACHE", str(tmp_path))
    costs = dict(pair="toy", proposer="ngram", dtype="float32", device="cpu", kernels="stock", cpu="Test CPU",
                 cpu_flags=(), cpu_bf16=False, torch="x", threads=2, drafter_seconds=0.0, generate_seconds=0.01,
                 spread=0.0, verify=((1, 0.01), (3, 0.012)))
    monkeypatch.setattr(calibration, "measure", lambda *a, **k: calibration.Calibration(**costs))
    best = module.recommended_for("default")  # a tree (16 x 4 + lookup 8), given to the toy pair here
    monkeypatch.setattr(module, "recommended_for", lambda name: best)
    assert not registry.can_branch("ngram") and registry.can_branch("draft") and best.shape.tree_nodes
    for proposer, said in (("ngram", f"a chain of K = {best.k}."),
                           ("draft", f"a tree of {best.shape.tree_nodes} nodes")):
        out = cli("calibrate", "--pair", "toy", "--proposer", proposer, "--force")
        assert out.returncode == 0, out.stderr
        assert f"runs keep its recommended shape, {said}" in out.stdout, out.stdout


def test_the_docs_say_which_cli_text_follows_the_language_and_that_the_benchs_stays_english():
    """Issue 43: docs/app.md said "The CLI follows LC_ALL / LC_MESSAGES / LANG or --lang pt", but the bench's own
    refusals (specviz.labs.bench.config), its report and progress lines stay English in every language, as the CLI's
    docstring says and the project keeps them; docs/cli.md listed --lang among every command's flags. Both docs now
    say which commands follow the language and what stays English."""
    from specviz.core.i18n import using
    from specviz.labs.bench.config import BenchConfig

    with using("pt"), pytest.raises(ValueError, match="^--k must be whole numbers from 1 to 16"):
        BenchConfig(ks=[0]).check()  # the bench's refusal, English under Portuguese
    app = " ".join((ROOT / "docs" / "app.md").read_text(encoding="utf-8").split())
    cli = " ".join((ROOT / "docs" / "cli.md").read_text(encoding="utf-8").split())
    readme_pt = " ".join((ROOT / "README.pt-BR.md").read_text(encoding="utf-8").split())
    assert "The CLI follows `LC_ALL`" not in app
    assert "The CLI's `generate`, `compare` and `calibrate` follow `LC_ALL` / `LC_MESSAGES` / `LANG` or `--lang pt`; " \
           "the bench's own report, refusals and progress lines" in app
    assert "`bench` and `serve` take no `--lang`" in cli
    assert "the bench's own report (what it prints and results.md), its refusals and its progress lines stay " \
           "English in every language" in cli
    assert "o relatório, as recusas e o progresso do `bench` ficam em inglês" in readme_pt


def test_a_tree_line_shows_the_q_the_rule_used_for_a_point_mass_node_in_both_languages(tmp_path):
    """Read 44: `generate --pair toy --k 4 --tree-nodes 6 --tree-width 2 --tree-lookup 3 --seed 0` printed, at step 4,
    "✓ 'h'  q=0.000 p=1.000 p/q=inf  min(1,p′/q′)=1.000": a greedy tree's second child, which the rule tests against
    a point mass (q = 1) and keeps with p′(x), as it does every copied node. The line now shows q = 1 and p/q = p,
    and says which kind of node it was; the trace keeps the draft's own q(x) and marks the node as a point mass."""
    from specviz.cli import format_step
    from specviz.core.i18n import using

    path = tmp_path / "t.json"
    out = cli("generate", "--pair", "toy", "--prompt", "the cat sat on the mat. the cat sat on the", "--k", "4",
              "--tree-nodes", "6", "--tree-width", "2", "--tree-lookup", "3", "--seed", "0", "--max-new-tokens", "20",
              "--json", str(path))
    assert out.returncode == 0, out.stderr
    step4 = out.stdout.split("step   4")[1].split("step   5")[0]
    h = next(line for line in step4.splitlines() if "'h'" in line)
    # greedy: q (the rule's) and p are point masses, exactly 1 (read 53: "q=1.000 p=1.000")
    assert "q=1 p=1 p/q=1.000" in h and "top-k child, not drawn from q: q = 1 (point mass)" in h, h
    assert "copied, q = 1 (point mass)" in out.stdout  # a copied node on some step's main line
    assert not [line for line in out.stdout.splitlines() if "p/q=inf" in line], out.stdout
    trace = Trace.from_json(path.read_text(encoding="utf-8"))
    node = next(n for n in trace.steps[3].tree.nodes if n.text == "h")
    assert node.draft_prob == 0.0 and node.point_mass and node.rule_draft_prob == 1.0  # the record keeps both
    with using("pt"):
        shown = format_step(trace.steps[3])
    assert "filho top-k, não sorteado de q: q = 1 (massa pontual)" in shown and "q=1 p=1 p/q=1,000" in shown


def test_a_point_mass_in_a_chain_steps_line_is_written_1():
    """Read 53: the shipped smollm-ngram-greedy trace's step lines read "q=1.000 p=1.000" for a lookup's copy, whose
    q is a point mass, at T = 0, where p is one too; the app's tables write such a p or q "1", and so does the CLI
    now. smollm-ngram-t07's p below 1 keeps its decimals beside q=1."""
    from specviz.cli import format_step
    from specviz.labs.examples import load_example

    step = next(s for s in load_example("smollm-ngram-greedy")[0].steps if s.decisions)
    shown = format_step(step)
    assert "q=1 p=1 p/q=1.000" in shown and " q=1.000" not in shown and " p=1.000" not in shown, shown
    warm = format_step(load_example("smollm-ngram-t07")[0].steps[0])
    assert "q=1 p=0.9997 p/q=0.9997" in warm, warm


def test_a_greedy_tree_trace_written_before_the_point_mass_field_shows_the_q_the_rule_used(tmp_path):
    """Read 44 (review): a greedy tree trace saved before `TreeNode.point_mass` existed (no node carries it) still
    loaded with every node unmarked, so the Playground's upload and `format_step` showed the greedy tree's second
    child 'h' as "q=0.000 p/q=inf" again. Every node of a greedy tree is a point mass; loading marks them."""
    import json

    from specviz.cli import format_step

    path = tmp_path / "t.json"
    out = cli("generate", "--pair", "toy", "--prompt", "the cat sat on the mat. the cat sat on the", "--k", "4",
              "--tree-nodes", "6", "--tree-width", "2", "--seed", "0", "--max-new-tokens", "20", "--json", str(path))
    assert out.returncode == 0, out.stderr
    data = json.loads(path.read_text(encoding="utf-8"))
    for step in data["steps"]:
        for node in (step.get("tree") or {}).get("nodes", []):
            assert node.pop("point_mass") is True  # today's recorder marks every greedy node
    old = Trace.from_dict(data)
    shown = "\n".join(format_step(step) for step in old.steps)
    assert "p/q=inf" not in shown and "top-k child, not drawn from q: q = 1 (point mass)" in shown, shown
    assert all(node.point_mass for step in old.steps for node in step.tree.nodes)
    data["settings"]["temperature"] = 0.7  # a sampled tree's nodes are drawn from q: nothing to mark
    assert not any(node.point_mass for step in Trace.from_dict(data).steps for node in step.tree.nodes)


def test_the_rarely_right_hint_counts_drafts_only_not_the_lookup_branchs_copies():
    """Read 45: the hint's "{kept} of {n} drafts kept" counted the tokens a tree's lookup branch copied from the
    context as drafts (and a kept copy as a kept draft), where the Playground's "Drafts accepted" and its live-run
    lines count the model's drafts only: one name, two counts. Here 4 steps each draft 10 nodes (none kept) and copy
    5 tokens (one step keeps one): the old hint read "1 of 60 drafts kept", the drafts alone are 0 of 40."""
    from specviz.cli import format_summary
    from specviz.engine.trace import Decision, EmittedToken, Step, TreeNode, TreeRecord

    def step(keeps_copy: bool) -> Step:
        drafted = [TreeNode(8, "b", -1, 1, 0.1, 0.0, "rejected" if i == 0 else "not reached") for i in range(10)]
        copied = [TreeNode(7, "a", -1, 1, 1.0, 0.9, "accepted" if keeps_copy else "not reached", copied=True)] + [
            TreeNode(7, "a", 10, d, 1.0, 0.0, "not reached", copied=True) for d in range(2, 6)]
        decisions = [Decision(0, 7 if keeps_copy else 8, "a", 1.0, 0.9, 0.9, 0.9, 0.1, keeps_copy, True)]
        emitted = ([EmittedToken(7, "a", "accepted")] if keeps_copy else []) + [EmittedToken(9, "c", "recovered")]
        return Step(0, 3, 5, "eagle", decisions, emitted, tree=TreeRecord(drafted + copied, [10] if keeps_copy else []))

    steps = [step(True)] + [step(False)] * 3
    trace = Trace("speculative", {}, [1, 2], [t.token_id for s in steps for t in s.emitted], steps)
    assert (trace.num_drafted, trace.num_accepted, trace.num_copied, trace.num_copied_accepted) == (60, 1, 20, 1)
    assert trace.mean_accepted_length == 1.25
    from specviz.core.i18n import using

    text = format_summary(trace)
    assert "rarely right (0 of 40 drafts kept)" in text and "1 of 60 drafts kept" not in text
    # read 47: accepted / drafted counts the 20 copies too (Step.n_drafted); read 49: a node is a drafted token,
    # so the copies are named apart, as the hint's "40 drafts" leaves them out
    assert ("accepted / (drafted + copied) = 1 / (40 + 20); every node of a tree and every token its lookup branch "
            "copied count, tested or not") in text
    with using("pt"):
        assert ("aceitos / (rascunhados + copiados) = 1 / (40 + 20); contam todo nó de uma árvore e todo token que o "
                "seu ramo de busca copiou, testado ou não") in format_summary(trace)
    # read 49: the --json summary said "drafted": 60 beside that printout's "(40 + 20)"; it names the copies apart too
    summary = json.loads(trace.to_json())["summary"]
    assert (summary["drafted"], summary["copied"], summary["accepted"]) == (40, 20, 1)
    assert summary["acceptance_rate"] == pytest.approx(1 / 60)


def test_the_summary_names_acceptance_by_position_as_the_bench_and_the_speedup_lab_do():
    """Read 47: the CLI summary labelled the list "per-position accept", where the bench summary and the Speedup lab
    call it "acceptance by position" (one quantity, one name): the label is now the bench's own, in both languages."""
    from specviz.cli import SUMMARY_LABELS, format_summary
    from specviz.core.i18n import using
    from specviz.engine.trace import EmittedToken, Step
    from specviz.labs.bench.summary import DEFINITIONS

    trace = Trace("speculative", {}, [1], [6], [Step(0, 2, 0, "target", [], [EmittedToken(6, "a", "target")])])
    assert SUMMARY_LABELS["per_position"] == DEFINITIONS["per_position"][0]
    for lang, name in (("en", "acceptance by position"), ("pt", "aceitação por posição")):
        with using(lang):
            text = format_summary(trace)
        assert re.search(rf"^  {name} +\[", text, re.M) and "per-position" not in text, text


def test_the_rarely_right_hint_calls_the_draft_untrained_only_after_a_layer_skip_run():
    """Read 45: the hint said "An untrained draft (layer-skip) rarely agrees" after any proposer's run, a trained
    draft's or EAGLE's too; it now says so only after a layer-skip run, and otherwise suggests another proposer."""
    from specviz.cli import format_summary
    from specviz.core.i18n import using
    from specviz.engine.trace import Decision, EmittedToken, Step

    def trace(proposer):
        rejected = Decision(0, 5, "a", 0.9, 0.05, 0.06, 0.06, 0.5, False, True)
        steps = [Step(i, 3, 1, proposer, [rejected], [EmittedToken(6, "b", "recovered")]) for i in range(20)]
        return Trace("speculative", {}, [1, 2], [6] * 20, steps)

    skip, draft = format_summary(trace("layerskip-7")), format_summary(trace("draft"))
    assert "rarely right (0 of 20 drafts kept)" in skip and "rarely right (0 of 20 drafts kept)" in draft
    assert "An untrained draft (layer-skip) rarely agrees" in skip
    assert "untrained" not in draft and "try another proposer" in draft
    # read 48: after an EAGLE run the hint offered "--proposer eagle", the proposer that had just run
    eagle = format_summary(trace("eagle"))
    assert "rarely right (0 of 20 drafts kept)" in eagle and "--proposer eagle" not in eagle
    assert "try --proposer ngram on text that repeats the prompt" in eagle and "--proposer eagle" in draft
    with using("pt"):
        assert "--proposer eagle" not in format_summary(trace("eagle"))
    with using("pt"):
        assert "não treinado" not in format_summary(trace("draft"))
        assert "tente outro proponente" in format_summary(trace("draft"))
    # read 49: after an n-gram run the hint offered "--proposer ngram on text that repeats the prompt", the proposer
    # that had just run, and "each step paid for drafting", which a lookup does without a model pass
    ngram = format_summary(trace("ngram"))
    assert "n-gram lookup was rarely right (0 of 20 drafts kept)" in ngram and "--proposer ngram" not in ngram
    assert "--proposer eagle" in ngram and "paid for drafting" not in ngram
    with using("pt"):
        text = format_summary(trace("ngram"))
        assert "a busca de n-gramas raramente acertou (0 de 20 palpites mantidos)" in text
        assert "--proposer ngram" not in text and "--proposer eagle" in text


def _flags(parser, name):
    """Every (command, action) of a parser and its subcommands' parsers."""
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, subparser in action.choices.items():
                yield from _flags(subparser, f"{name} {sub}")
        elif action.option_strings:
            yield name, action, parser


def test_every_flag_with_a_default_says_it_in_its_help():
    """Read 46: `bench --help` left the defaults of --repeats, --prompts-per-suite, --seed and 11 more unsaid, and
    `python -m specviz.distill --help` those of --lr, --heads and 14 more; a reader had to open the code to learn what
    leaving a flag out does. Every flag with a default now says it (in words, or DefaultsHelpFormatter adds it)."""
    import argparse

    from specviz.cli import build_parser
    from specviz.core.cli_help import SAID
    from specviz.distill.cli import parser as distill_parser

    flags = [*_flags(build_parser(), "specviz"), *_flags(distill_parser(), "distill")]
    shown = [(name, action) for name, action, parser in flags if action.default not in (None, argparse.SUPPRESS)
             and not isinstance(action.default, bool)]
    assert len(shown) > 60  # every subcommand's flags were walked (generate, compare, bench, calibrate, serve, distill)
    unsaid = []
    for name, action, parser in flags:
        if (name, action) not in shown:
            continue
        said = parser._get_formatter()._expand_help(action) if action.help else ""  # the help --help prints
        # spaces dropped: argparse may wrap a default path at a hyphen ("/work/wt-" "review/assets/models")
        if not SAID.search(said) or "".join(said.split()) not in "".join(parser.format_help().split()):
            unsaid.append(f"{name} {action.option_strings[-1]}")
    assert unsaid == []
    bench = " ".join(build_parser()._subparsers._group_actions[0].choices["bench"].format_help().split())
    assert "timed repeats per case, 1 to 100 (medians are reported) (default: 3)" in bench
    assert "0 = greedy (default: 0.0)" in bench and "(default: bench-results)" in bench
    # read 46 (review): a help that only used the word ("(default, toy, ...)", "0: torch's default") hid the default
    generate = " ".join(build_parser()._subparsers._group_actions[0].choices["generate"].format_help().split())
    assert "or TARGET[,DRAFT]: local folders or Hub ids (default: default)" in generate
    distill = " ".join(distill_parser().format_help().split())
    assert "CPU threads (0: torch's default) (default: 0)" in distill


def test_the_distillation_loss_flags_say_each_steps_default():
    """Read 47: `python -m specviz.distill --help` gave --kd-weight and --kd-positions no default (argparse's is
    None: each step then keeps its own loss's), so a reader could not tell that eagle weighs the loss 0.5 and draft
    1.0."""
    from specviz.distill.cli import parser as distill_parser
    from specviz.distill.draft import DraftLoss
    from specviz.distill.eagle import EagleLoss

    shown = " ".join(distill_parser().format_help().split())
    eagle, draft = EagleLoss(), DraftLoss()
    assert (f"weight of the distillation loss (default: eagle {eagle.distillation:g}, draft {draft.distillation:g})"
            in shown)
    assert f"in the distillation loss (default: eagle {eagle.kd_positions}, draft {draft.kd_positions})" in shown


@pytest.mark.parametrize("spread", [math.inf, 0.5])
def test_calibrate_never_says_agreed_within_a_spread_over_the_threshold(tmp_path, monkeypatch, spread):
    """Read 46: `calibrate --pair toy --lang pt` printed "concordaram dentro de 10.543.728.911,8%" for a busy machine;
    a busy measurement says how far its rounds disagreed, or that they could not be compared, in both languages."""
    from specviz.labs import calibration

    monkeypatch.setenv("SPECVIZ_CACHE", str(tmp_path))
    costs = dict(pair="toy", proposer="draft", dtype="float32", device="cpu", kernels="stock", cpu="Test CPU",
                 cpu_flags=(), cpu_bf16=False, torch="x", threads=2, drafter_seconds=0.001, generate_seconds=0.01,
                 spread=spread, verify=((1, 0.01), (3, 0.012)), measured_at="2026-12-06T20:00:00Z")
    monkeypatch.setattr(calibration, "measure", lambda *a, **k: calibration.Calibration(**costs))
    why = {"en": "the rounds disagreed by 50.0%", "pt": "as rodadas discordaram em 50,0%"} if spread == 0.5 else \
        {"en": "a timing of model.generate came out zero or negative, so the rounds could not be compared",
         "pt": "uma medição do model.generate deu zero ou negativa, então as rodadas não puderam ser comparadas"}
    said = {"en": "Measured 2026-12-06T20:00:00Z in 0.0 s while the machine was busy ({why}): not cached, measure "
                  "again on an idle machine.",
            "pt": "Medido em 2026-12-06T20:00:00Z, em 0,0 s, com a máquina ocupada ({why}): não guardado, meça de "
                  "novo com a máquina ociosa."}
    for lang in ("en", "pt"):
        out = cli("calibrate", "--pair", "toy", "--lang", lang)
        assert out.returncode == 0, out.stderr
        assert said[lang].format(why=why[lang]) in out.stdout
        assert "agreed within" not in out.stdout and "concordaram dentro" not in out.stdout


def test_calibrate_says_beside_its_predictions_that_a_busy_machine_measured_them(tmp_path, monkeypatch):
    """Read 52: after a busy run, `calibrate` said so only in its "Measured ... while the machine was busy" line at the
    top; the predicted table and its "Chosen: a chain of K = 2." came with no caveat. Each block now ends with one."""
    from specviz.labs import calibration, shape_choice

    monkeypatch.setenv("SPECVIZ_CACHE", str(tmp_path))
    rows = [{"k": 2, "tree_nodes": 0, "tree_width": 4, "tree_lookup": 0, "temperature": 0.0,
             "tokens_per_forward": 1.9, "mean_rows": 3}]
    table = {"pair": "toy", "proposer": "draft", "dtype": "float32", "prompts": 3, "rows": rows,
             "machine": {"kernels": "stock"}}
    monkeypatch.setattr(shape_choice, "shape_table", lambda name: table if name == "toy" else None)
    costs = dict(pair="toy", proposer="draft", dtype="float32", device="cpu", kernels="stock", cpu="Test CPU",
                 cpu_flags=(), cpu_bf16=False, torch="x", threads=2, drafter_seconds=0.001, generate_seconds=0.01,
                 spread=0.5, verify=((1, 0.01), (3, 0.012)), measured_at="2026-12-06T20:00:00Z")
    monkeypatch.setattr(calibration, "measure", lambda *a, **k: calibration.Calibration(**costs))
    said = {"en": "  Chosen: a chain of K = 2.\n  These predictions rest on costs measured while the machine was busy "
                  "(the rounds disagreed by 50.0%): measure again on an idle machine before relying on them.\n",
            "pt": "  Escolhida: uma cadeia de K = 2.\n  Estas previsões se apoiam em custos medidos com a máquina "
                  "ocupada (as rodadas discordaram em 50,0%): meça de novo com a máquina ociosa antes de confiar "
                  "nelas.\n"}
    for lang in ("en", "pt"):
        out = cli("calibrate", "--pair", "toy", "--lang", lang)
        assert out.returncode == 0, out.stderr
        assert out.stdout.endswith(said[lang]), out.stdout
    monkeypatch.setattr(calibration, "measure", lambda *a, **k: calibration.Calibration(**{**costs, "spread": 0.0}))
    quiet = cli("calibrate", "--pair", "toy", "--lang", "en", "--force").stdout
    assert quiet.endswith("  Chosen: a chain of K = 2.\n") and "busy" not in quiet


def test_every_flag_left_unset_by_default_says_what_leaving_it_out_does():
    """Read 47: the flags whose default is None were not checked: `calibrate --lang` said only "the language of the
    printout" (its siblings: "default: from LC_ALL / LC_MESSAGES / LANG") and `--layers` gave its range but not what
    leaving it out does (the proposer's default, a quarter of the layers, as 0 asks for)."""
    from specviz.cli import build_parser
    from specviz.core.cli_help import SAID

    unset = [(name, action, parser) for name, action, parser in _flags(build_parser(), "specviz")
             if action.default is None and not action.required and action.nargs != 0]
    assert len(unset) > 20
    # --json names a file to write (none when left out); --shapes says its default since read 48 (badinput48's report)
    exempt = {"--json"}
    unsaid = [f"{name} {action.option_strings[-1]}" for name, action, parser in unset
              if action.option_strings[-1] not in exempt
              and not SAID.search(parser._get_formatter()._expand_help(action) if action.help else "")
              and "left out" not in (action.help or "")]
    assert unsaid == []
    generate = " ".join(build_parser()._subparsers._group_actions[0].choices["generate"].format_help().split())
    assert "(0 = a quarter, rounded down, at least 1) (0..128; default: 0)" in generate


DTYPE_CLIS = ["specviz.scripts.gpu_bench", "specviz.scripts.targets_bench", "specviz.scripts.shape_table",
              "specviz.scripts.preset_runs", "specviz.scripts.tree_sweep", "specviz.scripts.tree_tokens",
              "specviz.scripts.greedy_identity"]


@pytest.mark.parametrize("args", [["generate", "--pair", "toy", "--prompt", "hi"], ["calibrate"],
                                  ["bench", "--pair", "toy"], *[[module] for module in DTYPE_CLIS]])
@pytest.mark.parametrize("value", ["", " "])
def test_an_empty_dtype_is_refused_not_read_as_the_default(args, value):
    """Read 48: `--dtype ""` ran the machine's default dtype, as if the flag were left out, in every CLI that takes
    it. It is argparse's one-line error now, before anything loads."""
    import importlib

    if args[0].startswith("specviz."):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as exited:
            importlib.import_module(args[0]).main(["--dtype", value])
        out = SimpleNamespace(returncode=exited.value.code, stderr=err.getvalue())
    else:
        out = cli(*args, "--dtype", value)
    assert out.returncode == 2, out.stderr
    assert ("argument --dtype: an empty value is not a dtype: give float32, float16 or bfloat16, or leave --dtype "
            "out for its default, which --help names") in out.stderr.strip().splitlines()[-1], out.stderr
    # Read 48 review: not "the machine's default", which shape_table and tree_tokens do not take (float32)
    assert "machine's default" not in out.stderr


def test_every_cli_that_takes_dtype_is_checked_for_an_empty_one():
    """The list above is every module with a --dtype flag (a new CLI with one joins the test, or fails here)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    having = {str(p.relative_to(root).with_suffix("")).replace("/", ".") for p in (root / "specviz").rglob("*.py")
              if 'add_argument("--dtype"' in p.read_text(encoding="utf-8")}
    assert having == {"specviz.cli", "specviz.labs.bench.cli", *DTYPE_CLIS}
    assert all('add_argument("--dtype", type=dtype_arg' in (root / (m.replace(".", "/") + ".py")).read_text()
               for m in having)


@pytest.mark.parametrize("args, prog, typed", [(["generate", "--prompt", "x", "--foo"], "generate", "--foo"),
                                               (["serve", "status", "--port", "1"], "serve status", "--port 1"),
                                               (["bench", "--nope"], "bench", "--nope")])
def test_an_unknown_flag_sends_the_reader_to_its_subcommands_help(args, prog, typed, capsys):
    """Read 49: `generate --foo` was refused by the top parser, "python -m specviz --help lists every flag", a help
    that lists only the subcommands; the subcommand that was given refuses it, and its --help lists its flags."""
    from specviz.cli import build_parser

    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(args)
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert err == (f"python -m specviz {prog}: unrecognized arguments: {typed} "
                   f"(python -m specviz {prog} --help lists every flag).\n"), err


def test_max_new_tokens_help_says_what_it_counts_and_that_it_is_a_cap():
    """Read 49: `generate --max-new-tokens` said only "1..2048 (default: 64)", not that it counts new tokens and
    caps them (an answer that ends at end-of-text stops sooner), as `serve sweep --max-tokens` now says."""
    from specviz.cli import build_parser

    generate = build_parser()._subparsers._group_actions[0].choices["generate"]
    help_ = " ".join(generate.format_help().split())
    assert "the most new tokens to generate (a cap: an answer that ends sooner stops sooner), 1..2048 (default: 64)" \
        in help_


@pytest.mark.parametrize("command", ["generate", "compare"])
def test_the_sampling_flags_help_gives_the_range_the_cli_enforces(command, capsys):
    """Read 52: --temperature, --top-k, --top-p and --seed gave no range, where every other numeric flag does, and
    the CLI refuses a value outside one ("--top-k must be a whole number from 0 to 1,000 (got −1).")."""
    from specviz.cli import build_parser, main

    parser = build_parser()._subparsers._group_actions[0].choices[command]
    help_ = " ".join(parser.format_help().split())
    for said in ("0 = greedy, 0..2 (default: 0.0)", "0 = off, 0..1000 (default: 0)", "1.0 = off, 0.01..1 (default: 1.0)",
                 "seed of the uniform draws and the sampling, 0..4294967295 (default: 0)"):
        assert said in help_
    # the ends the help gives are the ones refused past
    assert main([command, "--pair", "toy", "--prompt", "hi", "--top-k", "1001"]) == 2
    assert "from 0 to 1,000 (got 1001)" in capsys.readouterr().err


def test_tree_flags_that_shape_nothing_are_refused_in_portuguese_too(capsys):
    """Read 49: `--k 3 --tree-width 2` and `--proposer ngram --tree-nodes 4` ran a chain and said nothing of the flag;
    both are refused before a model loads, in the language asked for."""
    from specviz.cli import main

    assert main(["generate", "--pair", "toy", "--prompt", "hi", "--k", "3", "--tree-width", "2", "--lang", "pt"]) == 2
    assert "--tree-width 2 dá forma a uma árvore de rascunho: dê --tree-nodes acima de 0" in capsys.readouterr().err
    assert main(["generate", "--pair", "toy", "--prompt", "hi", "--proposer", "ngram", "--tree-nodes", "4",
                 "--lang", "pt"]) == 2
    assert ("mas o proponente busca de n-gramas (sem modelo) não ramifica: ele rascunharia uma cadeia de K = 4"
            in capsys.readouterr().err)


def test_a_tree_child_tried_after_a_rejected_sibling_shows_the_p_and_q_the_rule_used(tmp_path):
    """Read 49: `generate --pair toy --k 4 --tree-nodes 8 --tree-width 3 --temperature 1 --seed 9` printed
    "✓ 'l'  q=0.032 p=0.037 p/q=1.132  min(1,p′/q′)=0.761": a child tried after a rejected sibling is kept with
    min(1, p′/q′) of the residuals that sibling left, so a p/q above 1 sat beside a keep chance of 0.761. Such a
    child's line now shows p′, q′ and p′/q′ (recorded in the trace), a first child's plain p and q, and on every
    line min(1, the ratio shown) is the keep chance shown."""
    import re

    from specviz.cli import format_step
    from specviz.core.i18n import using

    path = tmp_path / "t.json"
    out = cli("generate", "--pair", "toy", "--prompt", "the cat sat on the mat. the cat sat on the", "--k", "4",
              "--tree-nodes", "8", "--tree-width", "3", "--temperature", "1", "--seed", "9", "--max-new-tokens", "20",
              "--json", str(path))
    assert out.returncode == 0, out.stderr
    line = next(line for line in out.stdout.splitlines() if "'l'" in line)
    assert "q′=0.0402 p′=0.0306 p′/q′=0.761   min(1,p′/q′)=0.761" in line, line  # 0.0306 / 0.0402 = 0.761
    assert "p/q=1.132" not in out.stdout
    shown = re.findall(r" (q′?)=\S+ (p′?)=\S+ p′?/q′?=(\S+)\s+min\(1,(p′?)/q′?\)=(\S+)", out.stdout)
    assert {("q", "p"), ("q′", "p′")} <= {s[:2] for s in shown}  # first children plain, later ones primed
    # read 51: a first child's line read "p/q=… min(1,p′/q′)=…"; its chance is named as its p and q are
    assert all(named == p for _q, p, _r, named, _c in shown), shown
    for _q, _p, ratio, _named, chance in shown:
        assert abs(min(1.0, float(ratio.replace("inf", "1e9"))) - float(chance)) <= 0.002, (ratio, chance)
    trace = Trace.from_json(path.read_text(encoding="utf-8"))
    node = next(n for s in trace.steps for n in s.tree.nodes if n.text == "l" and n.status == "accepted")
    assert node.target_prob_used < node.target_prob and node.draft_prob_used > node.draft_prob
    assert round(node.target_prob_used / node.draft_prob_used, 3) == round(node.accept_prob, 3) == 0.761
    step = next(s for s in trace.steps if any(n is node for n in s.tree.nodes))
    with using("pt"):
        assert "q′=0,0402 p′=0,0306 p′/q′=0,761   min(1,p′/q′)=0,761" in format_step(step)


ESCAPES = "x\x1b[2J\u202e"  # clears a terminal, then reverses the rest of the line


@pytest.mark.parametrize("args", [
    ("generate", "--pair", "toy", "--prompt", "hi", "--device", ESCAPES),
    ("generate", "--pair", "toy", "--prompt", "hi", "--dtype", ESCAPES),
    ("generate", "--pair", "toy", "--prompt", "hi", "--lang", ESCAPES),
    ("generate", "--pair", "toy", "--prompt", "hi", ESCAPES),  # a word no parser knows
    ("bench", "--suites", ESCAPES),
    ("bench", "--policies", ESCAPES),
    ("bench", "--proposers", ESCAPES),
    ("bench", "--verify-dtypes", ESCAPES),
    ("bench", "--shapes", ESCAPES),
    ("bench", "--k", ESCAPES)])
def test_a_refusal_writes_a_typed_control_character_as_an_escape(args):
    """Read 50: `--device`, `--dtype`, `--lang`, `bench --suites/--policies/--proposers/--verify-dtypes/--shapes/--k`
    and an unknown word quoted the value raw: its escape sequence cleared the reader's terminal and U+202E reversed
    the rest of the sentence. Each is now quoted with \\x1b and \\u202e written out."""
    out = cli(*args)
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert "\x1b" not in out.stderr and "\u202e" not in out.stderr and "x\\x1b[2J\\u202e" in out.stderr, out.stderr


@pytest.mark.parametrize("flag", [("generate", "--pair", "toy", "--prompt", "hi", "--json"), ("bench", "--out")])
def test_an_output_path_with_a_control_character_is_refused_before_anything_is_made(flag, tmp_path, monkeypatch):
    """Read 50: `bench --out $'x\\e[2J'` made a folder of that name and started the run, and every line that named
    it ("results written to ...") wrote the escape sequence to the terminal."""
    monkeypatch.chdir(tmp_path)
    out = cli(*flag, ESCAPES)
    assert out.returncode == 2 and "without a control character" in out.stderr, out.stderr
    assert "(got 'x\\x1b[2J\\u202e')" in out.stderr and "\x1b" not in out.stderr
    assert list(tmp_path.iterdir()) == []


LONG = "a" * 100_000  # about what one argument on Linux may hold (128 KiB)


@pytest.mark.parametrize("args", [
    ("bench", "--policies", LONG), ("bench", "--proposers", LONG), ("bench", "--verify-dtypes", LONG),
    ("bench", "--suites", LONG), ("bench", "--pair", LONG), ("bench", "--out", LONG),
    ("generate", "--prompt", "hi", "--pair", LONG), ("generate", "--prompt", "hi", "--pair", "/" + LONG),
    ("generate", "--prompt", "hi", "--pair", "a/" + LONG), ("calibrate", "--pair", LONG),
    ("generate", "--pair", "toy", "--prompt", "hi", "--json", LONG)])
def test_a_refusal_quotes_a_huge_value_cut_not_whole(args):
    """Read 50: these refusals quoted a 100,000-character value whole, a 100,000-character line ("The folder
    'aaa…' does not exist.", "Unknown draft-length policy 'aaa…'"); a name is now cut at 40 characters, a path or
    a pair at 200, with "…", as the other refusals are."""
    out = cli(*args)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and len(out.stderr) < 600, out.stderr[:300]
    assert "a…'" in out.stderr, out.stderr[:300]


def test_generate_prints_a_models_control_characters_as_escapes():
    """Read 51: `generate` printed what the model wrote as it was, so an escape sequence (ESC [2J clears a terminal)
    or a U+202E (reorders what follows) a model wrote acted on the reader's terminal; the step lines already showed
    each token escaped. Line breaks and tabs stay."""
    from specviz.cli import printed_text

    trace = Trace("speculative", {}, [], [], [], output_text="ok\x1b[2J \u202eab\n\tc")
    assert printed_text(trace) == "ok\\x1b[2J \\u202eab\n\tc"


def test_compare_writes_times_and_speeds_that_give_the_speedup(monkeypatch):
    """Read 51 (review): compare wrote each speed to one decimal and each time to two, so the figures beside the
    speedup did not follow from each other ("40 tokens in 1.94 s (20.7 tok/s": 40 ÷ 1.94 is 20.6). The Race page
    fixed this (`timeline.speed_decimals`, `seconds_text`); compare now writes with them. Here the run times are
    set to 0.5349 s and 0.3551 s for 12 tokens: the old "0.53 s" gave 22.6 tokens/s beside 22.4 (12 ÷ 0.5349)."""
    from dataclasses import replace

    import specviz.runs.running as running

    real_run, real_base = running.run, running.run_target_only
    monkeypatch.setattr(running, "run", lambda *a, **k: replace(real_run(*a, **k), wall_seconds=0.3551))
    monkeypatch.setattr(running, "run_target_only", lambda *a, **k: replace(real_base(*a, **k), wall_seconds=0.5349))
    out = cli("compare", "--pair", "toy", "--prompt", "hello", "--max-new-tokens", "12", "--k", "2", "--no-warmup")
    assert out.returncode == 0, out.stderr
    found = re.findall(r"(\d+) tokens in ([\d.]+) s \(([\d.]+) tok/s", out.stdout)
    speedup = float(re.search(r"speedup: +([\d.]+)×", out.stdout).group(1))
    assert len(found) == 2
    for tokens, seconds, rate in found:
        decimals = len(rate.split(".")[1])
        assert f"{int(tokens) / float(seconds):.{decimals}f}" == rate, (tokens, seconds, rate)
    (_t, _s, base), (_t2, _s2, spec) = found
    assert f"{float(spec) / float(base):.2f}" == f"{speedup:.2f}", out.stdout


def test_the_summary_writes_a_time_that_gives_the_speed_beside_it():
    """Read 51 (review): generate's summary wrote "20.7 tokens/s (1.94 s)" for 40 tokens in 1.9351 s, where 40 ÷ 1.94
    is 20.6; the time now takes the digits that give the speed (`timeline.seconds_text`, as the Race and compare)."""
    from specviz.cli import format_summary
    from specviz.engine.trace import Step

    trace = Trace("speculative", {}, [1], [7] * 40, [Step(0, 2, 0, "target", [], [])], wall_seconds=1.9351)
    speed = next(line for line in format_summary(trace).splitlines() if "tokens/s" in line)
    rate, seconds = re.search(r"([\d.]+) tokens/s \(([\d.]+) s ", speed).groups()
    assert rate == "20.7" and f"{40 / float(seconds):.1f}" == rate, speed


def test_every_dtype_help_lists_the_choices_its_flag_takes_auto_included():
    """Read 52: generate, compare and calibrate take `--dtype auto` (the default's own choice, `pick_dtype`), and
    their help listed "float32, float16, bfloat16" only. It now lists auto and says the default is auto; the bench's
    --dtype, whose choices leave auto out, lists the three it takes."""
    from specviz.cli import build_parser

    commands = build_parser()._subparsers._group_actions[0].choices
    for name in ("generate", "compare", "calibrate", "bench"):
        flag = next(a for a in commands[name]._actions if "--dtype" in a.option_strings)
        if name == "bench":
            assert flag.help.startswith("float32, float16, bfloat16 (default: ") and "auto" not in flag.help, flag.help
            assert "auto" not in flag.choices
        else:
            assert flag.help.startswith("float32, float16, bfloat16 or auto (default: auto, which picks bfloat16 on a "
                                        "GPU"), (name, flag.help)
    out = cli("generate", "--pair", "toy", "--prompt", "hi", "--max-new-tokens", "2", "--dtype", "auto", "--quiet")
    assert out.returncode == 0 and "float32 on cpu" in out.stdout, out.stdout + out.stderr  # the toy pair's default



@pytest.mark.parametrize("lang, said", [
    ("en", "(0.500 s from the prompt's pass to the last token; no warm-up run before it)"),
    ("pt", "(0,500 s da passagem do prompt ao último token; sem execução de aquecimento antes)")])
def test_the_summarys_speed_says_its_time_includes_the_prompts_pass_and_no_warm_up(lang, said):
    """Read 53: generate's summary wrote "speed 4.2 tokens/s (4.75 s)" for a toy run whose pass over the prompt took
    2.08 s of those 4.75 (the trace's prefill_seconds), and nothing said the time starts there, nor that generate,
    unlike compare, runs no untimed warm-up first. The speed line now says both."""
    from specviz.cli import format_summary
    from specviz.core.i18n import using
    from specviz.engine.trace import Step

    trace = Trace("speculative", {}, [1], [7] * 10, [Step(0, 2, 0, "target", [], [])], prefill_seconds=0.2,
                  wall_seconds=0.5)
    with using(lang):
        speed = format_summary(trace).splitlines()[5]
    assert speed.endswith(said), speed


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_calibrate_writes_costs_whose_quotients_give_the_ratios_beside_them(tmp_path, monkeypatch, lang):
    """Read 53: `calibrate --pair toy --proposer ngram` printed "n=1: 1.1 ms (1.00)   n=2: 1.1 ms (1.05)" and "one
    token of model.generate: 1.6 ms = 1.48 greedy" (its cached costs: 1.0739, 1.1241 and 1.5900 ms), where 1.1 ÷
    1.1 is 1.00 and 1.6 ÷ 1.1 is 1.45. The milliseconds now take the decimals their ratios need (`ms_decimals`)."""
    from specviz.labs import calibration

    monkeypatch.setenv("SPECVIZ_CACHE", str(tmp_path))
    costs = dict(pair="toy", proposer="ngram", dtype="float32", device="cpu", kernels="stock", cpu="Test CPU",
                 cpu_flags=(), cpu_bf16=False, torch="x", threads=2, drafter_seconds=0.0, spread=0.0,
                 generate_seconds=0.00158998, sampled_generate_seconds=0.00153640,
                 verify=((1, 0.00107385), (2, 0.00112412), (3, 0.00113223), (17, 0.00119693)))
    monkeypatch.setattr(calibration, "measure", lambda *a, **k: calibration.Calibration(**costs))
    out = cli("calibrate", "--pair", "toy", "--proposer", "ngram", "--force", "--lang", lang)
    assert out.returncode == 0, out.stderr
    text = out.stdout.replace(".", "").replace(",", ".") if lang == "pt" else out.stdout
    pairs = re.findall(r"([\d.]+) ms \(([\d.]+)\)", text) + re.findall(r"([\d.]+) ms = ([\d.]+)", text)
    assert len(pairs) == 6, text  # four forwards, model.generate greedy and sampled
    one = float(pairs[0][0])
    for ms, ratio in pairs:
        assert f"{float(ms) / one:.2f}" == ratio, (ms, one, ratio, text)
    assert ("n=2: 1.124 ms (1.05)" if lang == "en" else "n=2: 1,124 ms (1,05)") in out.stdout, out.stdout


def test_cli_md_quotes_the_step_its_command_prints():
    """Read 53: cli.md's example step read `q=0.126 p=0.092 p/q=0.732`, where 0.092 / 0.126 is 0.730: the command
    now writes q and p with the digits their quotient needs (q=0.12615 p=0.09236), and the doc quoted the old
    printout. Every token line of the quoted step must be what the command prints for its second step, and the
    head line too but for its times."""
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    command = re.search(r"Each step prints like this \(`generate ([^`]*)`", text).group(1)
    block = text.split("Each step prints like this", 1)[1].split("```", 2)[1].strip("\n").splitlines()
    out = cli("generate", *__import__("shlex").split(command))
    assert out.returncode == 0, out.stderr
    printed = out.stdout.split("step   2 ", 1)[1].split("\nstep   3 ", 1)[0]
    printed = ("step   2 " + printed).splitlines()
    times = re.compile(r"draft [\d.]+ ms  verify [\d.]+ ms")
    assert times.sub("", block[0]) == times.sub("", printed[0])
    assert block[1:] == [line.rstrip() for line in printed[1:len(block)]]


@pytest.mark.parametrize("command, said", [
    (("generate",), "n-gram lookup drafts at most K: fewer where the copied text runs out or reaches a chat marker, "
                    "none where nothing matches"),
    (("compare",), "n-gram lookup drafts at most K"),
    (("bench",), "it runs a chain of each K, drafting at most K tokens a step, fewer where the copied text runs out"),
    (("serve", "start"), "the draft model and EAGLE draft K; n-gram lookup drafts at most K (fewer where the copied "
                         "text runs out, none where nothing matches) (default: 4)"),
    (("serve", "sweep"), "n-gram lookup drafts at most K"),
])
def test_the_k_help_says_n_gram_lookup_drafts_at_most_k(command, said):
    """Read 54: every --k said "drafted tokens per step" (serve: that alone, "(default: 4)"), but n-gram lookup
    drafts at most K: specviz's stops where the copied text runs out or at a chat marker, vLLM's too (the committed
    sweep's open prompt at 4 streams: 808 draft tokens over 204 drafting steps, not 816), and none without a
    match."""
    out = cli(*command, "--lang", "en", "--help")
    assert out.returncode == 0, out.stderr
    k_help = " ".join(out.stdout.split("\n  --k K")[1].split("\n  --")[0].split())
    assert said in k_help, k_help


@pytest.mark.parametrize("args, said", [
    (["generate", "--pair", "toy", "--prompt", "hi", "--temperature", "-1e-3"],
     "specviz: --temperature must be a number from 0 to 2 (got −1e-3).\n"),
    (["serve", "start", "--timeout", "-inf"], "python -m specviz serve start: argument --timeout: '-inf' is infinite, "
     "not a number (python -m specviz serve start --help lists every flag).\n"),
    (["bench", "--pair", "toy", "--temperatures", "0", "-inf"], "python -m specviz bench: argument --temperatures: "
     "'-inf' is infinite, not a number (python -m specviz bench --help lists every flag).\n"),
    (["generate", "--pair", "toy", "--prompt", "-hi"], "python -m specviz generate: argument --prompt: its value "
     "'-hi' starts with a dash, so it was read as a flag: write --prompt=-hi (python -m specviz generate --help "
     "lists every flag).\n"),
    # read 54: "write --prompt=-hi there" is split by a shell, a long value's hint repeated its cut start, and the
    # quote in "-it's" ended a quoted span early, so the 40-character cut ate the middle of the sentence
    (["generate", "--pair", "toy", "--prompt", "-hi there"], "python -m specviz generate: argument --prompt: its "
     "value '-hi there' starts with a dash, so it was read as a flag: write --prompt='-hi there' (python -m specviz "
     "generate --help lists every flag).\n"),
    (["generate", "--pair", "toy", "--prompt", "-it's"], "python -m specviz generate: argument --prompt: its value "
     "'-it's' starts with a dash, so it was read as a flag: write --prompt='-it'\"'\"'s' (python -m specviz "
     "generate --help lists every flag).\n"),
    (["generate", "--pair", "toy", "--prompt", "-" + "a" * 50], "python -m specviz generate: argument --prompt: its "
     "value '-" + "a" * 38 + "…' starts with a dash, so it was read as a flag: write it as --prompt=VALUE, joined to "
     "the flag by = and quoted as you typed it (python -m specviz generate --help lists every flag).\n")])
def test_a_value_starting_with_a_dash_is_not_called_missing(args, said, monkeypatch):
    """Read 54: argparse takes "-1e-3", "-inf" for flags, so `--temperature -1e-3` was refused as "expected one
    argument" and `--temperatures 0 -inf` as "unrecognized arguments: -inf", a value typed as if none were; a
    prompt that starts with a dash got the same "expected one argument". Now a number is the flag's value, refused
    by its rule with the value quoted, and a dash value is told how to be written."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)
    out = cli(*args)
    assert out.returncode == 2 and out.stderr == said, out.stderr


def test_a_dash_value_hint_in_portuguese_is_a_command_to_type():
    """Read 54: the Portuguese hint quotes a value with spaces as a shell needs it, and a long value gets the rule."""
    spaced = cli("generate", "--pair", "toy", "--prompt", "-hi there", "--lang", "pt")
    assert spaced.returncode == 2 and "escreva --prompt='-hi there' (" in spaced.stderr, spaced.stderr
    long = cli("generate", "--pair", "toy", "--prompt", "-" + "a" * 50, "--lang", "pt")
    assert "escreva-o como --prompt=VALOR, unido à opção por = e com as aspas com que você o digitou (" in long.stderr
