"""A user's prompt as token ids: the one place a model's chat template and tokenizer meet text a person typed.

A tokenizer specviz did not build itself runs under a deadline and a memory limit (`specviz.models.bounded`), so a
hand-loaded model's template or pre-tokenizer cannot hang a page or fill the server's memory.
"""

from __future__ import annotations

from specviz.core.i18n import _, number
from specviz.core.text import prompt_refusal
from specviz.models.bounded import BoundedError, Overrun, run_bounded

__all__ = ["SHIPPED", "TEMPLATE_MEGABYTES", "TEMPLATE_SECONDS", "encode_prompt"]

TEMPLATE_SECONDS = 5.0  # a hand-loaded model's chat template and tokenizer get this long for one prompt
TEMPLATE_MEGABYTES = 512  # and this much memory (MB, 10^6 bytes) beyond what the process holds
SHIPPED = "_specviz_shipped"  # set on the tokenizers specviz builds or converts itself: their code is known


def encode_prompt(tokenizer, text: str, chat: bool) -> list[int]:
    """Token ids for a user prompt: wrapped in the chat template (as a user turn, generation prompt added) when
    `chat` is on and the tokenizer has one, else the plain text.

    A tokenizer specviz did not build (a model loaded by hand, or from the catalog) runs its template and its
    pre-tokenizer under a deadline and a memory limit (`specviz.models.bounded`): a template that loops for minutes
    or builds a gigabyte string, and a tokenizer that panics, are one sentence each."""
    if not text or not text.strip():
        raise ValueError(_("The prompt is empty: type something for the model to continue."))
    if refusal := prompt_refusal(text):  # the prompt's fault, not the model's: refused before the tokenizer runs
        raise ValueError(refusal)
    use_template = bool(chat and getattr(tokenizer, "chat_template", None))

    def encode() -> list[int]:
        if use_template:
            encoded = tokenizer.apply_chat_template([{"role": "user", "content": text}], add_generation_prompt=True,
                                                    tokenize=True, return_dict=True)
            return [int(i) for i in encoded["input_ids"]]
        return [int(i) for i in tokenizer(text, add_special_tokens=True)["input_ids"]]

    if getattr(tokenizer, SHIPPED, False):
        return encode()
    what = _("chat template") if use_template else _("tokenizer")
    try:
        return run_bounded(encode, TEMPLATE_SECONDS, TEMPLATE_MEGABYTES)
    except Overrun as exc:
        if exc.limit == "deadline":
            raise ValueError(_("This model's {what} did not finish the prompt within {seconds} s, so specviz stopped "
                               "it: the model's files are at fault, not the prompt.", what=what,
                               seconds=number(TEMPLATE_SECONDS, 0))) from None
        raise ValueError(_("This model's {what} needed more than {megabytes} MB of memory for the prompt, so specviz "
                           "stopped it: the model's files are at fault, not the prompt.", what=what,
                           megabytes=TEMPLATE_MEGABYTES)) from None
    except BoundedError as exc:
        raise ValueError(_("This model's {what} failed on the prompt ({error}).", what=what,
                           error=exc.error)) from None
    except Exception as exc:  # noqa: BLE001 - where nothing can be bounded (no fork), a failure is still a sentence
        raise ValueError(_("This model's {what} failed on the prompt ({error}).", what=what,
                           error=type(exc).__name__)) from None
