"""specviz.models.loading with the machine injected: device and dtype choice, memory estimates and placement, vocabulary
checks, Hub errors as sentences, offline mode, download progress."""

from __future__ import annotations

import json

import httpx2 as httpx  # the HTTP client huggingface_hub 2.x builds its errors on
import pytest
import torch
from tiny_folders import save_llama, save_toy_pair, shuffled_tokenizer
from transformers import AutoConfig, AutoModelForCausalLM

from specviz.core.i18n import using
from specviz.models import loading, machine
from specviz.models.catalog import load_catalog
from specviz.models.loading import (GpuInfo, Machine, ModelLoadError, check_fits, check_same_vocabulary, count_parameters,
                             estimate_memory, explain_hub_error, kv_cache_bytes, parse_ref, pick_device, pick_dtype,
                             plan_placement, progress_bar_class)
from specviz.models.machine import cpu_has_bf16, cpuinfo_has_bf16, detect_machine
from specviz.models.pairs import load_pair, toy_tokenizer

GIB = 1024**3
CPU_ONLY = Machine(ram_available_bytes=24 * 10**9)
H100 = GpuInfo(0, "NVIDIA H100 80GB", 79 * 10**9, 80 * 10**9, bf16=True, multiprocessors=132)
T4 = GpuInfo(0, "Tesla T4", 15 * 10**9, 16 * 10**9, bf16=False, multiprocessors=40)


# ---- device and dtype -------------------------------------------------------------------------------------------


def test_auto_device_prefers_cuda_then_mps_then_cpu():
    assert pick_device(None, Machine(gpus=(H100,), mps=True)) == torch.device("cuda", 0)
    assert pick_device(None, Machine(mps=True)) == torch.device("mps")
    assert pick_device(None, CPU_ONLY) == torch.device("cpu")
    assert pick_device("cpu", Machine(gpus=(H100,))) == torch.device("cpu")  # the override wins


def test_auto_device_picks_the_fastest_of_several_gpus():
    small = GpuInfo(0, "RTX A4000", 15 * 10**9, 16 * 10**9, multiprocessors=48)
    big = GpuInfo(1, "A100", 79 * 10**9, 80 * 10**9, multiprocessors=108)
    assert pick_device(None, Machine(gpus=(small, big))) == torch.device("cuda", 1)


def test_auto_dtype_is_bfloat16_on_modern_gpus_float16_on_old_ones_and_mps_float32_on_cpu():
    assert pick_dtype(torch.device("cuda", 0), None, Machine(gpus=(H100,))) == torch.bfloat16
    assert pick_dtype(torch.device("cuda", 0), None, Machine(gpus=(T4,))) == torch.float16
    assert pick_dtype(torch.device("mps"), None, Machine(mps=True)) == torch.float16
    assert pick_dtype(torch.device("cpu"), None, CPU_ONLY) == torch.float32
    assert pick_dtype(torch.device("cpu"), "bfloat16", CPU_ONLY) == torch.bfloat16


def test_auto_dtype_on_a_cpu_is_bfloat16_only_with_bf16_instructions_and_an_explicit_dtype_still_wins():
    bf16_cpu = Machine(ram_available_bytes=24 * 10**9, cpu_bf16=True)
    assert pick_dtype(torch.device("cpu"), None, bf16_cpu) == torch.bfloat16
    assert pick_dtype(torch.device("cpu"), "auto", bf16_cpu) == torch.bfloat16
    assert pick_dtype(torch.device("cpu"), "float32", bf16_cpu) == torch.float32
    assert pick_dtype(torch.device("cpu"), None, CPU_ONLY) == torch.float32  # emulated bf16 would be slower


def test_bf16_detection_reads_the_cpu_flags():
    assert cpuinfo_has_bf16("fpu sse avx2 avx512f avx512_bf16 avx512_vnni")
    assert cpuinfo_has_bf16("fpu avx2 amx_bf16 amx_tile")
    assert not cpuinfo_has_bf16("fpu sse avx2 avx512f avx512bw")  # avx512 alone is not bf16 arithmetic
    assert not cpuinfo_has_bf16("")
    assert detect_machine().cpu_bf16 == cpu_has_bf16()


@pytest.mark.parametrize("device, dtype, words", [
    ("cuda", None, "no CUDA GPU"), ("mps", None, "MPS was asked for"), ("tpu", None, "Unknown device 'tpu'"),
    ("cpu", "int3", "Unknown dtype 'int3'"),
])
def test_impossible_device_or_dtype_is_one_sentence(device, dtype, words):
    with pytest.raises(ModelLoadError, match=words):
        pick_dtype(pick_device(device, CPU_ONLY), dtype, CPU_ONLY)


@pytest.mark.parametrize("device, dtype", [("x" * 5000, None), ("cpu", "y" * 5000)])
def test_a_huge_device_or_dtype_is_quoted_cut_with_an_ellipsis(device, dtype):
    """Read 46: `--device` or `--dtype` of 5,000 characters was echoed whole in its refusal (the CLI cuts the
    values argparse quotes at 40 characters, with "…")."""
    with pytest.raises(ModelLoadError) as refused:
        pick_dtype(pick_device(device, CPU_ONLY), dtype, CPU_ONLY)
    assert len(str(refused.value)) < 120 and "…'" in str(refused.value)


# ---- memory ---------------------------------------------------------------------------------------------------


def test_parameter_count_from_the_config_matches_the_real_model(tmp_path):
    target_dir, _ = save_toy_pair(tmp_path)
    config = AutoConfig.from_pretrained(target_dir)
    real = sum(p.numel() for p in AutoModelForCausalLM.from_pretrained(target_dir).parameters())
    assert count_parameters(config) == real == 20768
    assert machine.approx_parameters(config) == real  # the fallback formula agrees on a plain Llama
    # KV cache: 2 (K and V) x 2 layers x 2 KV heads x head dim 8 x 100 tokens x 4 bytes
    assert kv_cache_bytes(config, 100, 4) == 2 * 2 * 2 * 8 * 100 * 4


def test_the_72b_pair_is_refused_on_a_small_machine_with_the_numbers():
    entry = load_catalog()["qwen2.5-7b-72b"]
    with pytest.raises(ModelLoadError) as err:
        check_fits(entry, None, "bfloat16", CPU_ONLY)
    message = str(err.value)
    # one sentence with the numbers that decide it: the pair's weights (parameters x 2 bytes) against the free RAM
    needed = f"about {entry.weights_gb('bfloat16'):.0f} GB in bfloat16"
    for fact in ("Qwen2.5-72B-Instruct", "Qwen2.5-7B-Instruct", needed, f"{CPU_ONLY.ram_available_bytes // 10**9} GB of RAM",
                 "no GPU"):
        assert fact in message, fact
    assert "\n" not in message and message.endswith(".")
    # read 51: "its GPU" after "A + B need ..." read as the pair's GPU; the Portuguese said this machine's
    gpu = r"need [^.]*; this machine.s GPU \(NVIDIA H100 80GB\) has 79 GB free of 80 GB\.$"
    with pytest.raises(ModelLoadError, match=gpu):
        check_fits(entry, None, None, Machine(gpus=(H100,), ram_available_bytes=200 * 10**9))


def test_a_pair_too_big_for_one_gpu_is_sharded_with_the_draft_on_the_fastest():
    gpus = tuple(GpuInfo(i, "H100", 79 * 10**9, 80 * 10**9, True, 132 if i == 1 else 100) for i in range(3))
    placement = check_fits(load_catalog()["qwen2.5-7b-72b"], None, None, Machine(gpus=gpus))
    assert placement.sharded and placement.draft_device == torch.device("cuda", 1)
    assert list(placement.max_memory) == [1, 0, 2]
    # the draft's weights (7.62e9 x 2 bytes) are kept free on its GPU
    assert placement.max_memory[0] - placement.max_memory[1] == pytest.approx(7.62e9 * 2, rel=1e-6)
    assert "sharded over cuda:1, cuda:0, cuda:2" in placement.describe()


def test_a_sharded_pair_puts_the_draft_on_the_gpu_the_device_names():
    """Issue 43, 22nd read: plan_placement's docstring and loading's step 5 said the draft goes on the fastest GPU;
    with `--device cuda:N` it goes on GPU N (the fastest only when the device names no index)."""
    gpus = tuple(GpuInfo(i, "H100", 79 * 10**9, 80 * 10**9, True, 132 if i == 1 else 100) for i in range(3))
    placement = check_fits(load_catalog()["qwen2.5-7b-72b"], "cuda:2", None, Machine(gpus=gpus))
    assert placement.sharded and placement.draft_device == torch.device("cuda", 2)
    doc = " ".join((plan_placement.__doc__ or "").split())
    assert "the draft on `device`'s GPU (the fastest when `device` names no index)" in doc
    from pathlib import Path  # read 30: docs/models.md said "the draft on the fastest GPU" without the exception
    models_md = " ".join((Path(__file__).resolve().parents[2] / "docs" / "models.md").read_text().split())
    assert "the draft on the fastest GPU (on GPU N when `--device cuda:N` names one)" in models_md


def test_a_pair_within_free_memory_but_not_its_headroom_says_why():
    estimate = estimate_memory(["big"], [int(10.5e9)], "float32")  # 42 GB of a 44 GB machine
    with pytest.raises(ModelLoadError, match=r"^big needs about 42 GB in float32; this machine has 44 GB of RAM "
                                             r"available and no GPU, and specviz keeps 10% of it free"):
        plan_placement(estimate, Machine(ram_available_bytes=44 * 10**9), torch.device("cpu"))


@pytest.mark.parametrize(("ram", "said"), [
    (16, "this machine has 16 GB of RAM available and no GPU, and specviz keeps 10% of it free for activations: it "
         "may use 14 GB, less than the 16 GB needed."),
    (18, "this machine has 18 GB of RAM available and no GPU, and specviz keeps 10% of it free for activations: it "
         "may use 16.20 GB, less than the 16.23 GB needed.")])
def test_a_refusal_whose_rounded_sizes_would_fit_names_what_specviz_may_use(ram, said):
    """Read 52: the 7B pair's 16.23 GB on a 16.0 GB machine read "need about 16 GB in bfloat16; this machine has
    16 GB of RAM available and no GPU." (the same figure twice, refused), and on 18 GB the 10% kept free left 16.2 GB,
    more than the "about 16 GB" shown: each now says what specviz may use, with the decimals that tell them apart."""
    estimate = machine.estimate_entry(load_catalog()["qwen2.5-0.5b-7b"], "bfloat16")
    with pytest.raises(ModelLoadError) as refused:
        plan_placement(estimate, Machine(ram_available_bytes=ram * 10**9), torch.device("cpu"))
    assert str(refused.value) == ("Qwen2.5-7B-Instruct + Qwen2.5-0.5B-Instruct need about 16 GB in bfloat16; " + said)
    with using("pt"):
        with pytest.raises(ModelLoadError) as refused:
            plan_placement(estimate, Machine(ram_available_bytes=18 * 10**9), torch.device("cpu"))
    assert str(refused.value).endswith("e o specviz deixa 10% disso livre para as ativações: pode usar 16,20 GB, menos "
                                       "que os 16,23 GB necessários.")
    with pytest.raises(ModelLoadError) as refused:  # figures that already tell it: the sentence as it was
        plan_placement(estimate, Machine(ram_available_bytes=17 * 10**9), torch.device("cpu"))
    assert str(refused.value).endswith("has 17 GB of RAM available and no GPU, and specviz keeps 10% of it free for "
                                       "activations.")


def test_a_pair_that_fits_one_gpu_stays_on_it():
    placement = check_fits(load_catalog()["qwen2.5-0.5b-7b"], None, None, Machine(gpus=(H100,)))
    assert not placement.sharded and placement.target_device == placement.draft_device == torch.device("cuda", 0)


def test_estimate_counts_weights_and_kv_cache(tmp_path):
    target_dir, _ = save_toy_pair(tmp_path)
    config = AutoConfig.from_pretrained(target_dir)
    estimate = estimate_memory(["t", "d"], [1000, 10], torch.bfloat16, [config, None], context=100)
    assert estimate.total_bytes == 2000 + 20 + kv_cache_bytes(config, 100, 2)
    tiny_ram = Machine(ram_available_bytes=1000)
    with pytest.raises(ModelLoadError, match=r"t \+ d need about .* in bfloat16; this machine has"):
        plan_placement(estimate, tiny_ram, torch.device("cpu"))


# ---- vocabularies ---------------------------------------------------------------------------------------------


def test_same_tokenizer_passes_and_different_ids_are_refused():
    check_same_vocabulary(toy_tokenizer(), toy_tokenizer())
    with pytest.raises(ModelLoadError, match=r"give 32 tokens different ids \(e\.g\. ' ' is id 2 in the target, 33 "):
        check_same_vocabulary(toy_tokenizer(), shuffled_tokenizer())


def test_a_short_tail_of_special_tokens_is_fine_either_way():
    longer = toy_tokenizer()
    longer.add_special_tokens({"additional_special_tokens": ["<tool>", "<think>"]})
    check_same_vocabulary(toy_tokenizer(), longer)
    check_same_vocabulary(longer, toy_tokenizer())


def test_extra_ordinary_tokens_are_refused():
    from tokenizers import Tokenizer, models
    from transformers import PreTrainedTokenizerFast

    vocab = dict(toy_tokenizer().get_vocab())
    vocab.update({"ab": len(vocab), "cd": len(vocab) + 1})
    bigger = PreTrainedTokenizerFast(tokenizer_object=Tokenizer(models.WordLevel(vocab, unk_token="<unk>")),
                                     unk_token="<unk>", eos_token="<eos>")
    with pytest.raises(ModelLoadError, match=r"The draft tokenizer has 2 tokens the target lacks \(e\.g\. 'ab', id 34\)"):
        check_same_vocabulary(toy_tokenizer(), bigger)


def test_one_token_that_differs_lacks_or_has_no_row_is_counted_in_the_singular():
    """Read 44: one token alone can fail each vocabulary check, and the refusal read "give 1 tokens different ids",
    "has 1 tokens the draft lacks ..., more than a few special tokens" (one ordinary token is refused for being
    ordinary, not for a count) and "gives 1 ordinary tokens ids from 33 on"; Portuguese "a 1 tokens"."""
    from types import SimpleNamespace

    from tokenizers import Tokenizer, models
    from transformers import PreTrainedTokenizerFast

    from specviz.core.i18n import using
    from specviz.models.loading import check_embeddings

    def tokenizer(vocab):
        return PreTrainedTokenizerFast(tokenizer_object=Tokenizer(models.WordLevel(vocab, unk_token="<unk>")),
                                       unk_token="<unk>", eos_token="<eos>")

    vocab = dict(toy_tokenizer().get_vocab())
    moved = next(tok for tok, i in vocab.items() if i == 5)
    one_moved = tokenizer({**{tok: i for tok, i in vocab.items() if tok != moved}, "zz": 5, moved: len(vocab)})
    with pytest.raises(ModelLoadError) as differ:
        check_same_vocabulary(toy_tokenizer(), one_moved)
    assert str(differ.value).startswith(f"The draft and target tokenizers give 1 token different ids ({moved!r} is "
                                        f"id 5 in the target, 34 in the draft); ")
    one_more = tokenizer({**vocab, "ab": len(vocab)})
    with pytest.raises(ModelLoadError) as extra:
        check_same_vocabulary(one_more, toy_tokenizer())
    assert str(extra.value).startswith("The target tokenizer has 1 token the draft lacks ('ab', id 34), and it is "
                                       "not a special token; ")
    with using("pt"), pytest.raises(ModelLoadError) as extra_pt:
        check_same_vocabulary(toy_tokenizer(), one_more)
    assert str(extra_pt.value).startswith("O tokenizador do rascunho tem 1 token que falta ao alvo ('ab', id 34), e "
                                          "ele não é um token especial; ")
    with pytest.raises(ModelLoadError) as past:
        check_embeddings([SimpleNamespace(vocab_size=33)], toy_tokenizer(), ["short"])
    assert str(past.value) == ("'short' has 33 token embeddings (its config's vocab_size), but the tokenizer gives 1 "
                               "ordinary token the id 33, so text with it would crash it.")
    with using("pt"), pytest.raises(ModelLoadError) as past_pt:
        check_embeddings([SimpleNamespace(vocab_size=33)], toy_tokenizer(), ["short"])
    assert "mas o tokenizador dá a 1 token comum o id 33, então um texto com ele o faria falhar." in str(past_pt.value)


def test_a_vocabulary_refusal_says_why_in_words_true_of_ordinary_tokens():
    """Read 44: 'ab' and 'cd' are ordinary tokens, but the refusal said the draft has "more than a few special
    tokens" the target lacks, and one extra token read "1 tokens". Now: not just a few special tokens (true of
    ordinary ones and of a tail too long), and one extra token is refused as not a special token."""
    from tokenizers import Tokenizer, models
    from transformers import PreTrainedTokenizerFast

    def with_extra(*tokens):
        vocab = dict(toy_tokenizer().get_vocab())
        vocab.update({token: len(vocab) + i for i, token in enumerate(tokens)})
        return PreTrainedTokenizerFast(tokenizer_object=Tokenizer(models.WordLevel(vocab, unk_token="<unk>")),
                                       unk_token="<unk>", eos_token="<eos>")

    with pytest.raises(ModelLoadError) as two:
        check_same_vocabulary(toy_tokenizer(), with_extra("ab", "cd"))
    assert "more than a few special tokens" not in str(two.value)
    assert "(e.g. 'ab', id 34), not just a few special tokens; " in str(two.value)
    with pytest.raises(ModelLoadError) as one:
        check_same_vocabulary(with_extra("ab"), toy_tokenizer())
    assert str(one.value).startswith("The target tokenizer has 1 token the draft lacks ('ab', id 34), and it is not "
                                     "a special token; ")


def test_reserved_special_slots_named_differently_are_fine():
    a, b = toy_tokenizer(), toy_tokenizer()
    a.add_special_tokens({"additional_special_tokens": ["<|reserved_0|>"]})
    b.add_special_tokens({"additional_special_tokens": ["<|python_tag|>"]})  # same id 34, another name
    check_same_vocabulary(a, b)


# ---- references, the Hub and offline mode -----------------------------------------------------------------------


def test_references_are_folders_or_valid_ids(tmp_path):
    (tmp_path / "empty").mkdir()
    target_dir, _ = save_toy_pair(tmp_path)
    assert parse_ref("Qwen/Qwen2.5-0.5B-Instruct").folder is None
    assert parse_ref(f" {target_dir} ").folder == target_dir
    for text, words in [(str(tmp_path / "empty"), "no config.json"), (str(tmp_path / "nope"), "does not exist"),
                        ("not an id!", "neither a local folder nor a Hugging Face model id"),
                        ("  ", "A model is missing")]:
        with pytest.raises(ModelLoadError, match=words):
            parse_ref(text)


def test_a_file_given_as_a_model_folder_is_named_a_file(tmp_path):
    """Read 55: `--pair ./README.md` said "'./README.md' is not a Hugging Face model folder (no config.json there)",
    though README.md is a file, not a folder; a file is now named one, in both languages, by parse_ref and by
    load_local_model (the pair-by-hand path)."""
    from specviz.core.i18n import using
    from specviz.models.pairs import load_local_model

    readme = tmp_path / "README.md"
    readme.write_text("# not a model\n")
    for language, words in (("en", "is a file, not a model folder: give the folder that holds the model's "
                                   "config.json."),
                            ("pt", "é um arquivo, não uma pasta de modelo: indique a pasta que contém o config.json "
                                   "do modelo.")):
        with using(language):
            with pytest.raises(ModelLoadError) as parsed:
                parse_ref(str(readme))
            with pytest.raises(ValueError) as loaded:
                load_local_model(readme, "cpu", torch.float32)
        for said in (str(parsed.value), str(loaded.value)):
            assert said == f"'{readme}' {words}" and "config.json there" not in said


@pytest.mark.parametrize("relative_folders", [True, False])
@pytest.mark.parametrize("text", ["/" + "a" * 5000, "/tmp/" + "a" * 300, "a" * 300 + "/b", "~nosuchuser-specviz/x"])
def test_a_path_the_system_cannot_look_up_is_one_sentence(text, relative_folders):
    """A name past the file system's limit made Path.exists raise OSError (ENAMETOOLONG), and "~nosuchuser/x" made
    expanduser raise RuntimeError: load_pair then said a file was "damaged or unreadable". Now it is the sentence
    every missing folder gets (or, as a Hub id, the sentence an invalid id gets)."""
    with pytest.raises(ModelLoadError, match=r"(does not exist|neither a local folder nor a Hugging Face)"):
        parse_ref(text, relative_folders=relative_folders)


def _response(status: int) -> httpx.Response:
    return httpx.Response(status, request=httpx.Request("GET", "https://huggingface.co/x/y/resolve/main/config.json"))


def test_hub_exceptions_become_sentences_even_wrapped_by_transformers():
    from huggingface_hub.errors import GatedRepoError, LocalEntryNotFoundError, RepositoryNotFoundError

    def wrapped(exc):  # transformers re-raises the Hub's exception as an OSError "from" it
        try:
            try:
                raise exc
            except Exception as inner:
                raise OSError("You are trying to access a gated repo.\nMake sure ...") from inner
        except OSError as outer:
            return outer

    gated = explain_hub_error(wrapped(GatedRepoError("403", response=_response(403))), "meta-llama/Llama-3.1-8B-Instruct")
    assert "gated: accept its licence at https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct" in gated
    assert "hf auth login" in gated
    missing = explain_hub_error(RepositoryNotFoundError("404", response=_response(404)), "nobody/nothing")
    assert missing.startswith("There is no model 'nobody/nothing' on the Hugging Face Hub")
    offline = explain_hub_error(LocalEntryNotFoundError("not cached"), "Qwen/Qwen2.5-7B-Instruct", "HF_HUB_OFFLINE is set")
    assert "not in the local Hugging Face cache" in offline and "`hf download Qwen/Qwen2.5-7B-Instruct`" in offline
    for sentence in (gated, missing, offline):
        assert "\n" not in sentence and sentence.endswith(".")


def test_an_unknown_id_offline_says_it_is_not_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    with pytest.raises(ModelLoadError) as err:
        loading.load_models("someone/some-model-7B", machine=CPU_ONLY)
    message = str(err.value)
    assert "'someone/some-model-7B'" in message and str(tmp_path / "hf" / "hub") in message  # what, and where it looked
    assert "HF_HUB_OFFLINE" in message and "`hf download someone/some-model-7B`" in message  # why, and the way out
    assert "\n" not in message and message.endswith(".")
    # read 46: the command line takes folders, so its sentence keeps offering one; the error carries the id and the
    # reason, so the Models page (which may take no folders) says it its own way
    assert message.endswith("(`hf download someone/some-model-7B`) or give a local folder instead.")
    assert isinstance(err.value, loading.NotCachedError)
    assert (err.value.name, err.value.why) == ("someone/some-model-7B", "HF_HUB_OFFLINE is set")


def test_an_unreachable_hub_counts_as_offline(monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setattr(loading, "hub_reachable", lambda timeout=3.0: False)
    assert loading.offline_reason() == "the Hugging Face Hub cannot be reached from this machine"


def test_download_progress_is_reported_as_sentences():
    messages = []
    bar = progress_bar_class(messages.append, every_seconds=0)(desc="Downloading bytes", total=4 * 10**9, unit="B")
    bar.update(10**9)
    bar.update(3 * 10**9)
    bar.close()
    assert messages == ["Downloading bytes: 1.0 GB of 4.0 GB (25%)", "Downloading bytes: 4.0 GB of 4.0 GB (100%)"]


def test_download_progress_reports_the_first_update_then_once_a_second_and_the_last():
    """Read 34: the docstring said "at most once a second per bar"; the update that completes a bar is reported
    however soon after the one before, and the first update always is."""
    messages = []
    bar = progress_bar_class(messages.append, every_seconds=3600)(desc="Downloading bytes", total=4, unit="B")
    for _ in range(4):
        bar.update(1)
    bar.close()
    assert len(messages) == 2 and messages[-1].endswith("(100%)")
    assert "always the update that completes it" in " ".join(progress_bar_class.__doc__.split())


def test_a_config_needing_remote_code_asks_for_the_flag(tmp_path):
    folder = save_llama(tmp_path / "remote", toy_tokenizer())
    config_path = folder / "config.json"
    config_path.write_text(config_path.read_text().replace('"model_type": "llama"', '"model_type": "my-own-llm"')
                           .replace("{", '{"auto_map": {"AutoConfig": "configuration_x.XConfig"},', 1))
    with pytest.raises(ModelLoadError, match=r"runs its own code .* \(--trust-remote-code\) only if you trust"):
        loading.read_config(folder, "remote")


def test_timing_waits_for_every_gpu_a_sharded_model_runs_on(monkeypatch):
    from specviz.engine.generation import synchronize

    waited = []
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 3)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda index=None: waited.append(index))
    synchronize(torch.device("cuda", 0))  # the target's first layers are on cuda:0, its last ones elsewhere
    assert waited == [0, 1, 2]
    synchronize(torch.device("cpu"))
    assert waited == [0, 1, 2]


@pytest.mark.parametrize("field, value", [("hidden_size", -32), ("hidden_size", -1), ("num_hidden_layers", 0),
                                          ("vocab_size", -1)])
def test_a_config_with_an_impossible_size_is_one_sentence(tmp_path, field, value):
    target, _ = save_toy_pair(tmp_path)
    config = json.loads((target / "config.json").read_text())
    config[field] = value
    (target / "config.json").write_text(json.dumps(config))
    with pytest.raises(ValueError, match=rf"config with {field} = {value}; sizes must be positive whole numbers\.$"):
        load_pair([str(target)], device="cpu")


def test_a_truncated_weight_file_is_one_sentence(tmp_path):
    target, _ = save_toy_pair(tmp_path)
    weights = next(target.glob("*.safetensors"))
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])
    with pytest.raises(ValueError, match=r"could not be loaded: its weight files are damaged or do not match its "
                                         r"config \(SafetensorError\)\.$"):
        load_pair([str(target)], device="cpu")


@pytest.mark.parametrize("device", ["meta", "xla"])
def test_devices_specviz_cannot_run_on_are_refused(device):
    with pytest.raises(ValueError, match=rf"^Models run on cpu, cuda or mps, not on '{device}'\.$"):
        load_pair("toy", device=device)


def test_the_toy_pair_honours_the_dtype_for_all_its_models():
    pair = load_pair("toy", dtype="bfloat16")
    models = [pair.target, pair.draft, pair.eagle[0]]
    assert {next(m.parameters()).dtype for m in models} == {torch.bfloat16}


def test_the_first_fetch_is_named_for_what_it_skips_not_for_a_size():
    """Issue 43, 21st read: `load_models`'s steps said the first fetch takes "config and tokenizer files only
    (kilobytes)"; SmolLM2's own tokenizer and configs are 3.5 MB (pairs.CONVERTED_MEGABYTES' note). What the step
    does is leave the weights for later: no pattern of the first fetch matches a weight file."""
    from fnmatch import fnmatch

    assert "kilobytes" not in (loading.__doc__ or "")
    assert "config and tokenizer files only (no weights)" in " ".join((loading.__doc__ or "").split())
    weights = ("model.safetensors", "model-00001-of-00002.safetensors", "pytorch_model.bin", "model.gguf")
    assert not [w for w in weights for pattern in loading.SMALL_FILES if fnmatch(w, pattern)]


def test_the_bandwidth_floor_says_the_arithmetic_slows_the_token_not_the_memory():
    """Issue 43, 21st read: the floor's phrase ended "a CPU's arithmetic can make it slower still", after "this
    machine's memory moves ... GB/s", and its Portuguese ("deixá-la") made the memory slower; it is each token."""
    from specviz.core.i18n import using

    detail = machine.speed_from_bandwidth(int(15.4 * machine.GB), 8.04 * machine.GB).detail
    # read 49: it named only the arithmetic, where a small model's forward costs far more than its floor for each
    # layer's fixed cost of running its operations (the toy pair: a floor of microseconds, forwards of milliseconds)
    assert detail.endswith("(measured once by this server; a CPU's arithmetic and the fixed cost of running each "
                           "layer's operations can make each token slower still, far slower for a small model)")
    with using("pt"):
        detail = machine.speed_from_bandwidth(int(15.4 * machine.GB), 8.04 * machine.GB).detail
    assert "deixá-la" not in detail and detail.endswith("podem deixar cada token ainda mais lento, muito mais lento "
                                                        "num modelo pequeno)")
    assert "(medido uma vez por este servidor; " in detail  # read 45: not "medido agora", as the page caches it


def test_the_machine_docstring_makes_no_unsourced_laptop_claim():
    """Issue 43, 21st read: `Machine` said its hand-built default has no bfloat16 instructions "as on most laptops",
    a share no committed file measures; a hand-built Machine simply defaults to cpu_bf16=False."""
    assert "most laptops" not in (Machine.__doc__ or "") and Machine().cpu_bf16 is False


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_the_web_loads_no_pickled_weights(tmp_path, monkeypatch):
    """The web UI loads with pickled_weights=False (ui/models/access.py: "safetensors, no remote code"): a folder
    holding only a pickled pytorch_model.bin is one sentence there and loads from the CLI; where both formats lie
    side by side, the web load never opens the .bin file."""
    import torch as _torch

    target, _ = save_toy_pair(tmp_path)
    weights = next(target.glob("*.safetensors"))
    from safetensors.torch import load_file
    state = load_file(weights)
    weights.unlink()
    _torch.save(state, target / "pytorch_model.bin")
    with pytest.raises(ValueError, match=r"has no \*\.safetensors weights, and this server loads no pickled \*\.bin "
                                         r"weights from the browser\.$"):
        load_pair([str(target)], device="cpu", pickled_weights=False)
    assert load_pair([str(target)], device="cpu").target is not None  # the CLI's default still reads .bin
    from safetensors.torch import save_file
    save_file(state, weights)
    opened = []
    real_load = _torch.load
    monkeypatch.setattr(_torch, "load", lambda *a, **k: opened.append(a) or real_load(*a, **k))
    assert load_pair([str(target)], device="cpu", pickled_weights=False).target is not None
    assert opened == []


@pytest.mark.parametrize("data", [b"", b"GGUF" + bytes(20), b"GGUF\x03\x00\x00\x00" + b"\xff" * 16])
def test_a_damaged_gguf_that_specviz_gguf_names_points_at_the_variable(tmp_path, monkeypatch, data):
    """A damaged GGUF is one sentence; when $SPECVIZ_GGUF names it, the sentence says to point the variable at the
    right file (reinstalling the wheel, the advice for the wheel's own file, would not change it)."""
    from specviz.models import pairs

    gguf = tmp_path / "broken.gguf"
    gguf.write_bytes(data)
    monkeypatch.setenv("SPECVIZ_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv(pairs.GGUF_ENV, str(gguf))
    with pytest.raises(ValueError, match=r"^The GGUF file that SPECVIZ_GGUF names is damaged \(\w+\): point it at "
                                         r"the SmolLM2 GGUF file\.$"):
        pairs.default_target_folder()


@pytest.mark.parametrize("dtype, advice", [(torch.float32, "in float32; try --dtype bfloat16 or a smaller pair."),
                                           (torch.bfloat16, "in bfloat16; try a smaller pair."),
                                           (torch.float16, "in float16; try a smaller pair.")])
def test_running_out_of_gpu_memory_advises_bfloat16_only_from_float32(dtype, advice, monkeypatch, tmp_path):
    """32nd read: a load that ran out of GPU memory always said "try --dtype bfloat16", also to a pair already
    loading in bfloat16 (or float16, the same size); the advice now depends on the dtype that failed."""
    def out_of_memory(*args, **kwargs):
        raise torch.OutOfMemoryError("CUDA out of memory")

    monkeypatch.setattr(loading.AutoModelForCausalLM, "from_pretrained", out_of_memory)
    placement = loading.Placement(torch.device("cpu"), torch.device("cpu"))
    with pytest.raises(ModelLoadError) as refused:
        loading._load_weights(tmp_path, "big/model", dtype, placement, is_target=True, trust=False)
    assert str(refused.value) == "'big/model' ran out of GPU memory while loading " + advice


def test_the_machine_modules_dtype_line_names_every_default_pick_dtype_makes():
    """Read 34: the module docstring's pick_dtype line named bfloat16 and float16 but not the float32 a CPU without
    bf16 instructions gets."""
    line = " ".join(machine.__doc__.split()).split("pick_dtype(device, None, machine)")[1].split("placement =")[0]
    old_gpu = Machine(gpus=(GpuInfo(0, "old", 8 * 10**9, 8 * 10**9, bf16=False),))
    picks = {"float32 on a CPU without bf16 instructions": (torch.device("cpu"), Machine()),
             "bfloat16 on modern GPUs and bf16 CPUs": (torch.device("cpu"), Machine(cpu_bf16=True)),
             "float16 on old GPUs": (torch.device("cuda", 0), old_gpu),
             "float16 on old GPUs and MPS": (torch.device("mps"), Machine(mps=True))}
    assert len(picks) == 4
    for words, (device, box) in picks.items():
        assert words in line and words.startswith(machine.dtype_name(machine.pick_dtype(device, None, box))), words


def test_the_hub_cache_expands_variables_as_huggingface_hub_does(monkeypatch, tmp_path):
    """Read 34: hub_cache_dir expanded `$VARIABLES` in HF_HUB_CACHE but not in HF_HOME, which huggingface_hub's
    constants expand, so downloads went to a folder literally named "$R34_SCRATCH"."""
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "XDG_CACHE_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("R34_SCRATCH", str(tmp_path))
    monkeypatch.setenv("HF_HOME", "$R34_SCRATCH/hf")
    assert loading.hub_cache_dir() == tmp_path / "hf" / "hub"
    monkeypatch.delenv("HF_HOME")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert loading.hub_cache_dir() == tmp_path / "xdg" / "huggingface" / "hub"
    monkeypatch.setenv("HF_HUB_CACHE", "$R34_SCRATCH/direct")
    assert loading.hub_cache_dir() == tmp_path / "direct"


def test_a_pairs_load_info_reads_its_device_and_placement_from_its_plan():
    """Read 46: LoadInfo kept a `placement` text and a device beside its `plan`, written from it once at load
    (in the loader's language) and free to disagree with it after; both are now read from the plan, so they
    name the same place, and in the reader's language."""
    from dataclasses import fields

    from specviz.core.i18n import using

    estimate = loading.MemoryEstimate(("t", "d"), "float32", (1, 1), (4, 4), (0, 0))
    sharded = loading.Placement(torch.device("cuda", 1), torch.device("cuda", 1), {1: 10, 0: 10})
    info = loading.LoadInfo("float32", estimate, sharded)
    assert info.device == "cuda:1" and info.placement == "target sharded over cuda:1, cuda:0; draft on cuda:1"
    with using("pt"):
        assert info.placement == sharded.describe() != "target sharded over cuda:1, cuda:0; draft on cuda:1"
    assert {"placement", "device"}.isdisjoint(f.name for f in fields(loading.LoadInfo))


@pytest.mark.parametrize(("ref", "char", "escaped"), [("\x00", "\x00", "\\x00"), ("Qwen/x\x00", "\x00", "\\x00"),
                                                     ("/tmp/a\x00b", "\x00", "\\x00"),
                                                     ("/tmp/draft\u202efnoc.json", "\u202e", "\\u202e")])
def test_a_model_name_with_a_nul_is_refused_as_holding_a_control_character(ref, char, escaped):
    """Read 48: "/tmp/a\\x00b" was "The folder '/tmp/ab' does not exist." once shown (the NUL vanishes), "\\x00"
    "'' is neither a local folder ...": a name read as empty. It is one sentence naming the control character.
    A right-to-left override (U+202E), which the classroom refused but a model folder name let through (the name
    reads in another order than it was typed), is refused in the same sentence, written \\u202e."""
    from specviz.models.loading import parse_ref

    with pytest.raises(ModelLoadError) as err:
        parse_ref(ref)
    assert "contains a control character" in str(err.value) and escaped in str(err.value)
    assert char not in str(err.value) and "does not exist" not in str(err.value)


def test_the_progress_line_before_a_refusal_names_the_folder_refused(tmp_path):
    """Read 53: for `--pair /a,/b` both configs were fetched before either was read, so the last progress line said
    "Reading the config and tokenizer of b..." and the refusal that followed named a. Each model is now read right
    after its line, so the line before a refusal names the model it refuses."""
    from tiny_folders import save_bert

    _target, draft = save_toy_pair(tmp_path)
    bert = save_bert(tmp_path / "a")
    said: list[str] = []
    with pytest.raises(ModelLoadError) as refused:
        loading.load_models(str(bert), str(draft), machine=CPU_ONLY, progress=said.append)
    assert str(refused.value).startswith("'a' is BertModel"), refused.value
    assert said == ["Reading the config and tokenizer of a..."]


def test_a_speed_on_a_tie_rounds_up_as_the_reader_divides():
    """Issue 43, read 54: the toy pair's floor read "0.079 MB ... 20 GB/s" and "about 3.9 µs ... (256,410 tokens/s)":
    0.079 MB ÷ 20 GB/s is 3.95 µs, a tie that rounds to 4.0 µs, but the binary quotient was 3.9499999… µs. The same
    for a time scaled from a measured forward: 11 ms × 2.5 is 27.5 ms, written 28 ms, not 27 ms."""
    floor = machine.speed_from_bandwidth(83_200, 20 * machine.GB, embedding_bytes=4_352).sentence()
    assert "0.079 MB" in floor and "20 GB/s" in floor
    assert "about 4.0 µs or more per token (250,000 tokens/s)" in floor
    scaled = machine.speed_from_reference(int(0.675 * machine.GB), int(0.27 * machine.GB), 0.011, "SmolLM2-135M",
                                          "bfloat16")
    assert "measured 11 ms per forward" in scaled.detail and "by the 2.5× more" in scaled.detail
    assert "about 28 ms per token (36 tokens/s)" in scaled.sentence()
