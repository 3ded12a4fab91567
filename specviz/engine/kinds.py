"""Fixed vocabularies, one enum each. Four are a trace's: where a token came from, a tree node's verdict, why a
generation stopped, and how it was decoded. The fifth, `DrafterKind`, is no trace field: which trained feature drafter
or heads a shipped folder holds. `StrEnum`s, so a trace's JSON holds their plain values and a value read back from
JSON compares equal to its member; `trace_schema` derives its allowed sets from the four, so a new value is added once.

    >>> NodeStatus.NOT_REACHED == "not reached", StopReason("eos") is StopReason.EOS
    (True, True)
    >>> [str(m) for m in Mode]
    ['speculative', 'autoregressive']
"""

from __future__ import annotations

from enum import StrEnum


class TokenKind(StrEnum):
    """Where a token came from. A `StrEnum`, so it is written to JSON as its plain value and compares equal to it.

    >>> TokenKind("bonus") is TokenKind.BONUS, TokenKind.ACCEPTED == "accepted"
    (True, True)
    >>> TokenKind("grey")
    Traceback (most recent call last):
    ...
    ValueError: 'grey' is not a valid TokenKind
    """

    ACCEPTED = "accepted"
    REJECTED = "rejected"
    RECOVERED = "recovered"
    BONUS = "bonus"
    TARGET = "target"


def kind_after_drafts(drafted: bool, rejected: bool) -> TokenKind:
    """The kind of the token a step emits after its accepted drafts, from what its decisions say: recovered after a
    rejection, bonus when every draft was accepted, target when nothing was drafted. The engine's verifier decides
    it as it draws (`decoding.StepResult.next_kind`); a trace file's check (`trace_schema`) reads it back with this.

    >>> kind_after_drafts(False, False), kind_after_drafts(True, True), kind_after_drafts(True, False)
    (<TokenKind.TARGET: 'target'>, <TokenKind.RECOVERED: 'recovered'>, <TokenKind.BONUS: 'bonus'>)
    """
    if not drafted:
        return TokenKind.TARGET
    return TokenKind.RECOVERED if rejected else TokenKind.BONUS


class NodeStatus(StrEnum):
    """A draft-tree node's verdict: on the accepted path, tested and rejected, or never tested (below a rejected node,
    or a sibling after the accepted one, and whatever hangs below those)."""

    ACCEPTED = "accepted"
    REJECTED = "rejected"
    NOT_REACHED = "not reached"


class StopReason(StrEnum):
    """Why a generation ended (a trace's `stop_reason`; "" while it goes on). DEADLINE: a live run stopped at its
    time limit with what it had."""

    EOS = "eos"
    MAX_NEW_TOKENS = "max_new_tokens"
    DEADLINE = "deadline"


class DrafterKind(StrEnum):
    """Which trained feature drafter or heads a folder or a module holds (specviz.json's "kind"). The separate draft
    model's folder says "draft", which is not a member: it loads as a plain causal LM (`specviz.models.drafts`)."""

    EAGLE = "eagle"  # EAGLE-1: predicts the target's next feature, reads tokens off the target's head
    EAGLE3 = "eagle3"  # EAGLE-3: fuses three of the target's layers, its own head
    MEDUSA = "medusa"  # Medusa-1: heads on the target's last hidden state, each guessing a later token


class Mode(StrEnum):
    """How a trace was decoded: with a draft, or by the target alone (the baseline)."""

    SPECULATIVE = "speculative"
    AUTOREGRESSIVE = "autoregressive"
