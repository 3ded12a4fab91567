"""`python -m specviz serve` checks every flag and the output file before it installs, starts or sweeps anything
(issue 28, Medium 7): `--port 99999`, `--k 0`, `--timeout nan` used to start the multi-minute vLLM install first,
`serve sweep` without .venv-vllm ended in a FileNotFoundError traceback, and `sweep --out /proc/x` failed after the
whole sweep. No vLLM here: the server's install and start are stood in for, and the sweep runs against the loopback
fake server."""

from __future__ import annotations

import json
import shlex

import pytest
from serving_fake import FakeServer, recorded

from specviz import cli
from specviz.serving import cli as serve_cli
from specviz.serving.load import LoadPlan, Prompt
from specviz.serving.server import Server, ServerState


@pytest.fixture
def stand_in(tmp_path, monkeypatch):
    """Server with its files under tmp_path (no .venv-vllm there) whose install/start/stop are recorded; start
    answers with the fake server on loopback."""
    fake = FakeServer(recorded("ngram-after-copy.prom"))
    calls: list[str] = []

    class StandIn(Server):
        def __init__(self, *args, **kwargs):
            super().__init__(root=tmp_path)

        def install(self, progress=None):
            calls.append("install")

        def start(self, spec="ngram", **kwargs):
            calls.append(f"start {spec}")
            return ServerState(pid=0, port=0, spec=spec, k=kwargs.get("k", 4), url=fake.url, started=0.0, log="")

        def stop(self, progress=None, grace=20.0):
            calls.append("stop")
            return True

    monkeypatch.setattr(serve_cli, "Server", StandIn)
    yield calls
    fake.close()


@pytest.mark.parametrize("argv", [
    ["serve", "start", "--port", "99999"], ["serve", "start", "--port", "-1"], ["serve", "start", "--port", "0"],
    ["serve", "start", "--k", "0"], ["serve", "start", "--k", "1000"], ["serve", "start", "--k", "-3"],
    ["serve", "start", "--timeout", "-5"], ["serve", "start", "--timeout", "1e308"],
    ["serve", "sweep", "--port", "70000"], ["serve", "sweep", "--k", "17"],
    ["serve", "sweep", "--levels", "16", "16"], ["serve", "sweep", "--levels", "3"], ["serve", "sweep", "--requests", "0"],
    ["serve", "sweep", "--max-tokens", "100000"], ["serve", "sweep", "--out", "/proc/x/result.json"],
    ["serve", "sweep", "--out", "/proc/x"], ["serve", "sweep", "--out", "/"],
    ["serve", "sweep", "--specs", "none", "ngram", "none"], ["serve", "sweep", "--prompts", "copy", "copy"]])
@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_a_bad_flag_is_one_sentence_before_anything_is_installed(argv, stand_in, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("specviz: ") and "\n" not in err and "Traceback" not in err and err.endswith(".")
    assert stand_in == []  # nothing installed, started or stopped


@pytest.mark.parametrize("typed, why", [("nan", "is not a number"), ("inf", "is infinite, not a number"),
                                        ("1e400", "is too large to be a number")])
def test_a_timeout_that_is_no_finite_number_is_quoted_as_typed(typed, why, stand_in, capsys):
    """Read 46 (review): `--timeout 1e400` was refused "(got inf)", a number never typed; the flag reads its value
    with finite_float, as generate's and bench's float flags do: argparse's one line, exit code 2."""
    with pytest.raises(SystemExit) as exit_:
        cli.main(["serve", "start", "--timeout", typed])
    err = capsys.readouterr().err.strip()
    assert exit_.value.code == 2 and "\n" not in err and f"--timeout: '{typed}' {why}" in err and "(got " not in err
    assert stand_in == []  # nothing installed, started or stopped


def test_a_sweep_on_a_machine_without_vllm_installs_first_and_writes_its_file(stand_in, tmp_path, capsys):
    out = tmp_path / "new" / "folder" / "sweep.json"
    argv = ["serve", "sweep", "--specs", "ngram", "--prompts", "copy", "--levels", "1", "--requests", "2",
            "--max-tokens", "4", "--no-specviz", "--out", str(out)]
    assert cli.main(argv) == 0, capsys.readouterr().err
    assert stand_in == ["start ngram", "stop"]
    saved = json.loads(out.read_text())
    assert saved["server"]["version"] == "unknown" and len(saved["levels"]) == 1
    assert not list(out.parent.glob(".specviz-write-check-*"))  # the write check leaves nothing behind


def test_a_sweep_whose_server_fails_to_start_leaves_no_folder_behind(stand_in, tmp_path, capsys, monkeypatch):
    """Read 52: the write check kept the folders it made, so a sweep refused after it (vLLM failed to install or
    start) left NEW/folder on the disk with nothing in it; the save makes them (the test above)."""
    def fails(self, spec="ngram", **kwargs):
        raise ValueError("The server did not start.")

    monkeypatch.setattr(serve_cli.Server, "start", fails)
    argv = ["serve", "sweep", "--specs", "ngram", "--prompts", "copy", "--levels", "1", "--requests", "2",
            "--max-tokens", "4", "--no-specviz", "--out", str(tmp_path / "new" / "folder" / "sweep.json")]
    assert cli.main(argv) == 2
    assert capsys.readouterr().err.strip() == "specviz: The server did not start."
    assert list(tmp_path.iterdir()) == []


def test_a_sweep_the_time_cap_cut_says_so_on_stderr(stand_in, tmp_path, capsys, monkeypatch):
    """Read 50: `serve sweep` wrote a file with fewer levels than asked, and its table, without a word when the
    sweep's 600 s cap ended it; it now prints `load.cap_note`, named by the speculation it served."""
    from specviz.serving.load import LevelResult

    def cut(url, plan, *, speculative="", **kwargs):  # the cap ended the first level and left the second unstarted
        return [LevelResult(prompt="copy", concurrency=1, speculative=speculative, seconds=600.0, stopped_early=True)]

    monkeypatch.setattr(serve_cli, "run_load", cut)
    argv = ["serve", "sweep", "--specs", "ngram", "--prompts", "copy", "--levels", "1", "4", "--requests", "2",
            "--max-tokens", "4", "--no-specviz", "--out", str(tmp_path / "sweep.json")]
    assert cli.main(argv) == 0
    assert ("[ngram] The sweep reached its time limit of 600 s. One level was cut short, and its figures count only "
            "the requests that finished: copy prompt at 1 stream. One level was never started: copy prompt at 4 "
            "streams.") in \
        capsys.readouterr().err.splitlines()

def test_the_serve_docstrings_list_every_action_the_parser_has():
    """The module docstrings of specviz.serving and its cli name the `serve` actions; `install` was missing."""
    import argparse
    import re

    import specviz.serving as serving

    parser = argparse.ArgumentParser()
    serve_cli.add_serve_arguments(parser)
    actions = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for doc in (serve_cli.__doc__, serving.__doc__):
        listed = re.search(r"serve ((?:\w+ \| )+\w+)`", doc).group(1).split(" | ")
        assert sorted(listed) == sorted(actions.choices), (listed, sorted(actions.choices))


def test_the_sweep_example_does_not_write_over_the_committed_sweep_with_other_flags():
    """serve's docstring once showed `serve sweep --specs none ngram --levels 1 16 --out
    assets/benchmarks/serving/cpu-smollm2.json`, the committed file's path with flags other than its run's."""
    import re

    from specviz.serving.results import SERVING_DIR, ServingResult

    committed = ServingResult.load(SERVING_DIR / "cpu-smollm2.json")
    examples = re.findall(r"python -m specviz serve sweep [^\n]*", serve_cli.__doc__)
    assert examples
    for example in examples:
        flags, _, out = example.partition(" --out ")
        if "assets/benchmarks/serving" in out:
            assert flags.split() == committed.command.split(), example


def test_a_sweep_naming_a_spec_or_prompt_twice_says_which_in_both_languages(stand_in, capsys, monkeypatch):
    """30th read: `serve sweep --specs none ngram none` started the server for `none` twice (minutes each) and
    `--prompts copy copy` sent the same prompt into the same rows twice; the first name given twice is refused."""
    assert cli.main(["serve", "sweep", "--specs", "none", "ngram", "none", "--out", "/tmp/x.json"]) == 2
    assert capsys.readouterr().err.strip() == "specviz: --specs names 'none' twice: give each once."
    monkeypatch.setenv("LC_ALL", "pt_BR.UTF-8")
    assert cli.main(["serve", "sweep", "--prompts", "copy", "copy", "--out", "/tmp/x.json"]) == 2
    assert capsys.readouterr().err.strip() == "specviz: --prompts cita 'copy' duas vezes: dê cada um uma vez só."
    assert stand_in == []


def test_the_serve_commands_help_names_every_action():
    """Read 32: `python -m specviz --help` listed serve's actions as "start, stop, status, load sweep"; `install` is
    one too (`serve install`: only create .venv-vllm and install the pinned vLLM build)."""
    import argparse

    import argparse

    from specviz.cli import build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    text = next(c.help for c in commands._choices_actions if c.dest == "serve")
    actions = next(a for a in commands.choices["serve"]._actions if isinstance(a, argparse._SubParsersAction))
    words = {"sweep": "load sweep"}
    assert len(actions.choices) == 5 and all(words.get(name, name) in text for name in actions.choices), text


def test_the_sweep_out_help_says_the_default_writes_over_the_committed_sweep():
    """Read 32: `serve sweep --help` showed `--out OUT` with no word, while its default is the committed
    assets/benchmarks/serving/cpu-smollm2.json, which a sweep with other flags writes over (the module docstring
    said so; --help did not)."""
    import argparse

    from specviz.serving.results import SERVING_DIR

    parser = argparse.ArgumentParser()
    serve_cli.add_serve_arguments(parser)
    actions = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    out = next(a for a in actions.choices["sweep"]._actions if "--out" in a.option_strings)
    assert out.default == str(SERVING_DIR / "cpu-smollm2.json")
    assert "over the committed assets/benchmarks/serving/cpu-smollm2.json" in out.help


def test_the_sweep_requests_help_says_a_level_sends_at_least_one_per_stream():
    """Read 49: `serve sweep --help` said "--requests: requests per level, at most 64", but a level sends
    max(requests, streams) (`LoadPlan.requests_at`): the committed sweep's `--requests 8` sent 16 at 16 streams, as
    the Serving page's caption and its Requests-per-level field say."""
    import argparse

    from specviz.serving.load import LoadPlan, Prompt

    parser = argparse.ArgumentParser()
    serve_cli.add_serve_arguments(parser)
    actions = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    requests = next(a for a in actions.choices["sweep"]._actions if "--requests" in a.option_strings)
    assert LoadPlan(prompts=(Prompt("p", "x"),), requests=8).requests_at(16) == 16
    assert "at least one per stream (--requests 8 sends 16 at 16 streams)" in requests.help
    assert "at most 64" in requests.help


def test_the_sweep_levels_help_writes_its_levels_as_a_list_a_person_reads(capsys):
    """Read 54: `serve sweep --help` said "--levels: among (1, 2, 4, 8, 16)", a Python tuple; it now writes the list
    as the flag's refusal does, and says what the levels are."""
    import argparse

    parser = argparse.ArgumentParser()
    serve_cli.add_serve_arguments(parser)
    actions = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    levels = next(a for a in actions.choices["sweep"]._actions if "--levels" in a.option_strings)
    assert levels.help == "concurrent streams to measure, among 1, 2, 4, 8, 16, each at most once"
    assert cli.main(["serve", "sweep", "--levels", "3", "--out", "/tmp/x.json"]) == 2
    assert "must be among 1, 2, 4, 8, 16, each at most once" in capsys.readouterr().err


def test_the_sweep_max_tokens_help_says_what_it_counts_and_its_default():
    """Read 49: `serve sweep --help` said "--max-tokens: at most 512" (the flag's own bound), not what it counts: the
    new tokens each request may generate (`max_tokens` in its chat request; specviz's batch-1 runs get it as
    max_new_tokens), a cap that an answer ending sooner stays under."""
    import argparse

    from specviz.cli import build_parser

    parser = build_parser()
    serve = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices["serve"]
    sweep = next(a for a in serve._actions if isinstance(a, argparse._SubParsersAction)).choices["sweep"]
    text = " ".join(sweep.format_help().split())
    assert ("--max-tokens MAX_TOKENS the most new tokens each request may generate, and specviz's own batch-1 runs "
            "too (a cap: an answer that ends sooner stops sooner), 1 to 512 (default: 128)") in text


def test_a_refused_timeout_is_quoted_whole_in_the_readers_number_format(stand_in, capsys, monkeypatch):
    """32nd read: `--timeout 0.5` was refused as "(recebido: 0.5)" in Portuguese (every other refused flag reads
    0,5 there), and format(..., "g") cut 0.123456789 to 0.123457: the value is now quoted as typed, with the
    reader's decimal mark."""
    assert cli.main(["serve", "start", "--timeout", "0.123456789"]) == 2
    assert capsys.readouterr().err.strip().endswith("from 1 to 7,200 (got 0.123456789).")  # grouped (read 38)
    monkeypatch.setenv("LC_ALL", "pt_BR.UTF-8")
    assert cli.main(["serve", "start", "--timeout", "0.5"]) == 2
    assert capsys.readouterr().err.strip().endswith("de 1 a 7.200 (recebido: 0,5).")
    assert stand_in == []


def test_the_levels_refusal_lists_the_levels_with_semicolons_in_portuguese(stand_in, capsys, monkeypatch):
    """Read 51: a Portuguese `--levels 3` read "--levels deve estar entre 1, 2, 4, 8, 16": a number list with
    commas, where Portuguese lists take semicolons (docs/glossary.pt-BR.md), and "estar entre" also reads "be between",
    which 3 is. Both the CLI's sentence and LoadPlan's list the levels one way."""
    monkeypatch.setenv("LC_ALL", "pt_BR.UTF-8")
    assert cli.main(["serve", "sweep", "--levels", "3", "--out", "/tmp/x.json"]) == 2
    assert capsys.readouterr().err.strip() == ("specviz: --levels deve ser um ou mais de 1; 2; 4; 8; 16, cada um no "
                                               "máximo uma vez (recebido: 3).")
    from specviz.core.i18n import using
    with using("pt"), pytest.raises(ValueError) as info:
        LoadPlan(prompts=(Prompt("p", "x"),), levels=(3,)).check()
    assert str(info.value) == ("Os níveis de concorrência devem ser um ou mais de 1; 2; 4; 8; 16, cada um no máximo "
                               "uma vez.")
    assert stand_in == []


@pytest.mark.parametrize(("argv", "says"), [
    (["--requests", "0"], "--requests must be a whole number from 1 to 64 (got 0)."),
    (["--requests", "65"], "--requests must be a whole number from 1 to 64 (got 65)."),
    (["--max-tokens", "100000"], "--max-tokens must be a whole number from 1 to 512 (got 100000)."),
    (["--levels", "3"], "--levels must be among 1, 2, 4, 8, 16, each at most once (got 3)."),
    (["--levels", "16", "16"], "--levels must be among 1, 2, 4, 8, 16, each at most once (got 16 16).")])
def test_a_sweep_refusal_names_its_flag_and_the_value_given(argv, says, stand_in, capsys):
    """LoadPlan.check's "Requests per level must be a whole number from 1 to 64." named neither the flag nor the
    value, unlike the CLI's other refusals ("--port must be ... (got 99999).")."""
    assert cli.main(["serve", "sweep", *argv]) == 2
    assert capsys.readouterr().err.strip() == f"specviz: {says}"


@pytest.mark.parametrize(("flag", "field", "values"), [
    ("--levels", "levels", [[1], [16], [1, 2, 4, 8, 16], [3], [0], [16, 16], [32], [-1]]),
    ("--requests", "requests", [[1], [64], [0], [65], [-3]]),
    ("--max-tokens", "max_tokens", [[1], [512], [0], [513]])])
def test_the_sweep_flags_and_load_plan_refuse_the_same_values(flag, field, values, stand_in, capsys):
    """The CLI's flag sentences and LoadPlan.check read one set of rules (load.levels_ok and its siblings): a value
    one refuses, the other refuses too, and one both pass runs on to the output check."""
    verdicts = []
    for value in values:
        plan = LoadPlan(prompts=(Prompt("p", "x"),), **{field: tuple(value) if field == "levels" else value[0]})
        try:
            plan.check()
            plan_ok = True
        except ValueError:
            plan_ok = False
        code = cli.main(["serve", "sweep", flag, *map(str, value), "--out", "/proc/no-such-place/x.json"])
        said = capsys.readouterr().err
        cli_ok = flag not in said
        assert code == 2 and cli_ok == plan_ok, (value, said)
        verdicts.append(plan_ok)
    assert True in verdicts and False in verdicts
    assert stand_in == []


def test_a_sweeps_recorded_command_names_its_out_unless_it_is_the_committed_file():
    """38th read: the recorded command left out --out, so a sweep written to /tmp/a b.json recorded a command that,
    typed as recorded, wrote over the committed assets/benchmarks/serving/cpu-smollm2.json."""
    import argparse

    from specviz.cli import build_parser

    parser = build_parser()
    mine = parser.parse_args(["serve", "sweep", "--levels", "1", "--out", "/tmp/a b.json"])
    recorded = serve_cli.command_line(mine)
    assert recorded.endswith(" --out '/tmp/a b.json'")
    again = parser.parse_args(shlex.split(recorded)[3:])
    assert again.out == "/tmp/a b.json" and again.levels == [1]
    committed = parser.parse_args(["serve", "sweep"])
    assert "--out" not in serve_cli.command_line(committed)


def test_an_output_under_a_file_is_refused_as_not_a_folder(stand_in, capsys, tmp_path):
    """43rd read: `serve sweep --out /etc/passwd/x` said "File exists" (mkdir's reason for /etc/passwd), and
    `generate --json /etc/passwd/x` "No such file or directory", though /etc/passwd exists: it is a file, where the
    path needs a folder."""
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    assert cli.main(["serve", "sweep", "--out", str(plain / "sweep.json")]) == 2
    said = capsys.readouterr().err.strip()
    assert said == f"specviz: Cannot write the sweep to '{plain}/sweep.json': Not a directory."
    assert cli.main(["generate", "--pair", "toy", "--prompt", "hi", "--lang", "pt", "--json", f"{plain}/t.json"]) == 2
    assert capsys.readouterr().err.strip().endswith(f"'{plain}/t.json': Não é uma pasta.")
    assert stand_in == []


def test_a_long_output_path_is_quoted_cut_with_an_ellipsis(stand_in, capsys, tmp_path):
    """Read 46: the sweep's refusal cut a path over 200 characters silently, so the quote read as the whole path;
    a cut one now ends in "…" (as the CLI's other quoted values do)."""
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    assert cli.main(["serve", "sweep", "--out", f"{plain}/{'d' * 300}/sweep.json"]) == 2
    said = capsys.readouterr().err.strip()
    assert said.startswith("specviz: Cannot write the sweep to '") and "…': Not a directory." in said
    assert stand_in == []


def test_a_refused_output_path_leaves_no_folder_behind(stand_in, capsys, tmp_path):
    """Read 46: the write check made the missing folders first, so `--out NEW/<300 characters>/sweep.json`,
    refused as "File name too long", left NEW on the disk."""
    assert cli.main(["serve", "sweep", "--out", f"{tmp_path}/new/{'d' * 300}/sweep.json"]) == 2
    assert "File name too long" in capsys.readouterr().err and list(tmp_path.iterdir()) == []
    assert cli.main(["serve", "sweep", "--out", f"{tmp_path}/kept/sweep.json", "--levels", "3"]) == 2
    assert list(tmp_path.iterdir()) == [] and stand_in == []
