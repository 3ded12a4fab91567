"""vLLM's acceptance next to specviz's own, on the same prompts, greedy, one request at a time.

vLLM's counters are read around each request (`Delta`), so each prompt gets its own accepted / drafted tokens and
mean accepted length. specviz runs the same prompts (the same chat template) with its engine at batch 1. The two
engines do not produce identical text: vLLM runs bfloat16 with its own kernels (compiled, or eager as the serving
tier starts it), specviz the dtype its pair loaded in (`pick_dtype`: on a CPU bfloat16 where it has bf16
instructions, else float32; on a CUDA GPU bfloat16, float16 on one without bf16; float16 on Apple MPS) with PyTorch's
eager kernels (or, for a CPU's linear layers, specviz's packed ones: `specviz.engine.kernels`), and a
greedy argmax that is nearly tied can flip; after a flip the texts part ways, and the drafts are proposed after
different texts. So the comparison is of acceptance over several prompts, within a tolerance, not token for token.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from specviz.serving import client
from specviz.serving.metrics import Delta, SpecDecodeCounts, parse_scrape

__all__ = ["Acceptance", "specviz_acceptance", "vllm_acceptance"]


@dataclass(frozen=True)
class Acceptance(SpecDecodeCounts):
    prompt: str
    drafts: float
    draft_tokens: float
    accepted: float
    tokens: int

    @property
    def rate(self) -> float | None:
        """Accepted / drafted tokens."""
        return self.acceptance_rate


def pooled(rows: list[Acceptance]) -> Acceptance:
    """All prompts together: counts added, so a long answer weighs more than a short one."""
    return Acceptance("all", sum(r.drafts for r in rows), sum(r.draft_tokens for r in rows),
                      sum(r.accepted for r in rows), sum(r.tokens for r in rows))


def vllm_acceptance(url: str, prompts: list[str], max_tokens: int = 64, timeout: float = 300.0) -> list[Acceptance]:
    """Each prompt as one greedy chat completion; the server's spec_decode counters read before and after."""
    base = client.base_url(url)
    model = client.served_model(base)
    rows = []
    for prompt in prompts:
        before = parse_scrape(client.get_text(f"{base}/metrics", timeout=10), at=time.monotonic())
        answer = client.post_json(f"{base}/v1/chat/completions", {
            "model": model, "messages": [{"role": "user", "content": prompt}], "max_tokens": max_tokens,
            "temperature": 0.0}, timeout=timeout)
        after = parse_scrape(client.get_text(f"{base}/metrics", timeout=10), at=time.monotonic())
        d = Delta.between(before, after)
        rows.append(Acceptance(prompt, d.drafts, d.draft_tokens, d.accepted,
                               int((answer.get("usage") or {}).get("completion_tokens", 0))))
    return rows


def specviz_acceptance(prompts: list[str], proposer: str = "eagle", k: int = 4, max_tokens: int = 64,
                       full_head: bool = True) -> list[Acceptance]:
    """specviz's engine on the same prompts, greedy, batch 1. With `full_head` an EAGLE-1 drafter reads the target's
    whole LM head, as its vLLM export does (no FR-Spec draft vocabulary); an EAGLE-3 drafter keeps its own head and
    draft vocabulary, which its export carries (`d2t`)."""
    from specviz.engine.kinds import DrafterKind
    from specviz.engine.proposers.eagle import EagleProposer
    from specviz.runs.running import PAIRS, run
    from specviz.runs.runspec import RunSpec

    pair = PAIRS.get("default")
    rows = []
    for prompt in prompts:
        spec = RunSpec(pair="default", proposer=proposer, prompt=prompt, k=k, max_new_tokens=max_tokens)
        chosen = None
        if proposer == "eagle" and full_head and pair.eagle[0].kind == DrafterKind.EAGLE:
            chosen = EagleProposer(pair.target, pair.eagle[0], None)
        trace = run(spec, pair=pair, proposer=chosen, record=False)
        drafted_steps = [s for s in trace.steps if s.n_drafted]
        rows.append(Acceptance(prompt, len(drafted_steps), trace.num_drafted, trace.num_accepted, trace.num_tokens))
    return rows
