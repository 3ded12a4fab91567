"""Local Hugging Face folders for the model-loading tests: tiny Llama pairs and non-causal models, saved with
`save_pretrained` exactly as a Hub download would lay them out."""

from __future__ import annotations

from pathlib import Path

import torch
from transformers import BertConfig, BertModel, LlamaConfig, LlamaForCausalLM

from specviz.models.pairs import TOY_ALPHABET, toy_pair, toy_tokenizer


def save_toy_pair(root: Path, seed: int = 0) -> tuple[Path, Path]:
    """The toy pair's target and draft as two folders under `root`; returns (target_dir, draft_dir)."""
    pair = toy_pair(seed)
    target_dir, draft_dir = root / "target", root / "draft"
    for model, folder in ((pair.target, target_dir), (pair.draft, draft_dir)):
        model.save_pretrained(folder)
        pair.tokenizer.save_pretrained(folder)
    return target_dir, draft_dir


def shuffled_tokenizer():
    """A toy tokenizer whose letters have other ids: same symbols, different vocabulary."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {"<unk>": 0, "<eos>": 1}
    for ch in reversed(TOY_ALPHABET):
        vocab[ch] = len(vocab)
    backend = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.Split(Regex("."), behavior="isolated")
    backend.decoder = decoders.Fuse()
    return PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="<unk>", eos_token="<eos>")


def save_llama(folder: Path, tokenizer, vocab_size: int | None = None, seed: int = 1) -> Path:
    """A tiny random Llama over `tokenizer` (embedding matrix of `vocab_size` rows, default the tokenizer's)."""
    config = LlamaConfig(vocab_size=vocab_size or len(tokenizer), hidden_size=32, intermediate_size=64,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=512, bos_token_id=None, eos_token_id=1, pad_token_id=1)
    torch.manual_seed(seed)
    LlamaForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def save_bert(folder: Path) -> Path:
    """A tiny BertModel (an encoder, not a text generator) with the toy tokenizer."""
    config = BertConfig(vocab_size=34, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64)
    BertModel(config).save_pretrained(folder)
    toy_tokenizer().save_pretrained(folder)
    return folder


def cache_as_hub(folder: Path, hf_home: Path, repo_id: str) -> Path:
    """Put a model folder into a Hugging Face cache under HF_HOME as if `repo_id` had been downloaded."""
    import shutil

    repo_dir = hf_home / "hub" / ("models--" + repo_id.replace("/", "--"))
    commit = "0123456789abcdef0123456789abcdef01234567"
    shutil.copytree(folder, repo_dir / "snapshots" / commit)
    (repo_dir / "refs").mkdir(parents=True, exist_ok=True)
    (repo_dir / "refs" / "main").write_text(commit)
    return repo_dir / "snapshots" / commit
