"""The example recipes' descriptions (specviz.scripts.make_traces) say, in both languages, what their traces show."""

from specviz.core.paths import ASSETS
from specviz.engine.trace import Trace
from specviz.scripts.i18n import read_catalog
from specviz.scripts.make_traces import RECIPES


def _tokens_per_forward(name: str) -> float:
    trace = Trace.from_json((ASSETS / "traces" / f"{name}.json").read_text(encoding="utf-8"))
    return trace.num_tokens / trace.num_steps


def test_the_separate_drafts_description_does_not_say_it_emits_fewer_tokens_than_eagle_in_portuguese():
    """The English says the separate draft emits "about as many" tokens per target forward as the EAGLE drafter
    (2.0 against 1.9: more); the Portuguese said "quase tantos" (almost as many: fewer)."""
    draft, eagle = _tokens_per_forward("smollm-draft-greedy"), _tokens_per_forward("smollm-eagle-greedy")
    assert round(draft, 1) == 2.0 and round(eagle, 1) == 1.9 and draft > eagle
    recipe = {r.name: r for r in RECIPES}["smollm-draft-greedy"]
    assert "about as many tokens per target forward as the EAGLE drafter (2.0 against 1.9)" in recipe.description
    portuguese = " ".join(read_catalog().get(recipe.description).string.split())
    assert "quase tantos" not in portuguese
    assert "mais ou menos tantos tokens por passagem do alvo quanto o rascunhador EAGLE (2,0 contra 1,9)" in portuguese


def test_the_docstring_does_not_say_the_bench_cpu_clock_times_one_thread():
    """35th read: make_traces said one thread's CPU time "(the bench's `--clock cpu` does the same)", but the bench
    reads time.process_time with as many torch threads as --threads gives (its own note: "with more threads it adds
    them up"); only `--threads 1` makes it the same measure."""
    import inspect

    from specviz.labs.bench import runner
    from specviz.scripts import make_traces

    doc = " ".join(make_traces.__doc__.split())
    assert "`--clock cpu` does the same" not in doc
    assert "the bench's `--clock cpu` reads the same clock, but runs one thread only with `--threads 1`" in doc
    assert "with more threads it adds them up" in inspect.getsource(runner)


def test_the_clock_flag_offers_the_clocks_a_trace_may_record(capsys, monkeypatch):
    """Read 54: make_traces typed its own --clock choices, ("cpu", "wall"), beside `limits.CLOCKS`, the list the
    trace schema and the bench check; the flag now offers that list itself, so the two cannot part."""
    import pytest

    from specviz.engine import limits
    from specviz.scripts import make_traces

    with pytest.raises(SystemExit):
        make_traces.main(["--help"])
    assert "--clock {" + ",".join(limits.CLOCKS) + "}" in capsys.readouterr().out
    monkeypatch.setattr(make_traces, "CLOCKS", (*limits.CLOCKS, "tsc"))  # one more clock, one more choice
    with pytest.raises(SystemExit):
        make_traces.main(["--help"])
    assert "--clock {" + ",".join((*limits.CLOCKS, "tsc")) + "}" in capsys.readouterr().out
