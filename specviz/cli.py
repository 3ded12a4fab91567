"""The command line: `python -m specviz generate | compare | bench | calibrate | serve`.

    python -m specviz generate --prompt "Why is the sky blue?"
    python -m specviz compare --prompt "Why is the sky blue?" --k 4
    python -m specviz calibrate          # this machine's costs, and the draft shape predicted fastest here

A mistake a user can make (a bad flag value, an unknown pair) gives one sentence on stderr and exit code 2.

The step printout, the summary and those sentences are in English or Portuguese: `--lang en|pt` (a flag of generate,
compare and calibrate), else the language LC_ALL, LC_MESSAGES or LANG names (pt_BR.UTF-8 -> Portuguese), else
English. bench and serve take no --lang: serve's lines and refusals follow the environment, and so do the refusals
from below the bench (loading a pair), but the bench's own report (what it prints and results.md), its refusals and
its progress lines (specviz.labs.bench) stay English in every language. argparse's own words (a value that is not a
number, a choice not offered, a missing or unknown flag; --help's "usage:" and "options:") are in the command's
language too, --lang read from the command line before argparse reads it (`command_language`); the flags' own
--help texts stay English.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import shlex
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace

from specviz.core.cli_help import DefaultsHelpFormatter
from specviz.core.i18n import (N_, _, drafts_kept, language_code, list_separator, ngettext, number, os_reason,
                                percent, small_number, using, with_minus)
from specviz.core.text import control_shown, has_control, hidden_shown, pad, shortened, visible, width
from specviz.engine.draft_shape import DraftShape, over_holds
from specviz.engine.kinds import StopReason
from specviz.engine.limits import (DEVICE_HELP, DTYPE_HELP, K_RANGE, MAX_NEW_TOKENS_RANGE, PAIR_DRAFTERS, dtype_arg,
                                   finite_float, path_arg, plain_int, unwritable)
from specviz.engine.proposers import registry
from specviz.engine.shown import shown_numbers, with_point_masses
from specviz.engine.trace import (Decision, Step, TokenKind, Trace, TreeNode, p_over_q, point_mass_pq, rule_point_mass,
                                  tested_on_own_probs, uses_residuals)
from specviz.labs.bench import add_bench_arguments, run_bench_command
from specviz.labs.bench.cli import shape_given
from specviz.models.catalog import recommended_for
from specviz.runs.runspec import SETTINGS, RunSpec, check_named
from specviz.serving.cli import add_serve_arguments, run_serve_command

# The modules that load torch and transformers (specviz.runs.running, specviz.models.pairs) are imported inside the commands
# that run a model, so `--help` and a bad flag answer at once.

GLYPHS = {TokenKind.ACCEPTED: "✓", TokenKind.REJECTED: "✗", TokenKind.RECOVERED: "↻", TokenKind.BONUS: "★",
          TokenKind.TARGET: "•"}
COLORS = {TokenKind.ACCEPTED: "32", TokenKind.REJECTED: "31;9", TokenKind.RECOVERED: "33", TokenKind.BONUS: "36",
          TokenKind.TARGET: "0"}  # ANSI


# a word argparse must read as a value, not a flag: any negative number float() or int() reads (-1e-3, -inf, -nan,
# -1_000), beside argparse's own -3 and -0.5; a flag's type then refuses what it cannot take, quoting it
NEGATIVE_NUMBER = re.compile(r"^-(\d|\.\d|inf$|infinity$|nan$)", re.IGNORECASE)


class OneSentenceParser(argparse.ArgumentParser):
    """argparse, but a flag it cannot read ends in one line on stderr, not its usage block first (12 lines for
    `generate` in an 80-column terminal, more in a narrower one) with the sentence under it; its subcommands' parsers
    are of this class too (add_subparsers' default).

    >>> OneSentenceParser(prog="demo").format_error("argument --k: invalid int value: 'abc'")
    "demo: argument --k: invalid int value: 'abc' (demo --help lists every flag)."
    >>> OneSentenceParser(prog="demo").format_error("argument --k: invalid int value: '" + "9" * 5000 + "'")[:81]
    "demo: argument --k: invalid int value: '999999999999999999999999999999999999999…'"
    """

    def __init__(self, *args, formatter_class: type[argparse.HelpFormatter] = DefaultsHelpFormatter, **kwargs):
        super().__init__(*args, formatter_class=formatter_class, **kwargs)  # every flag's help states its default
        # argparse takes a word for a flag when it starts with "-" and is not a negative number in its narrow sense
        # (-3, -0.5): `--temperature -1e-3` and `--timeout -inf` were refused as "expected one argument" and
        # `--temperatures 0 -inf` as "unrecognized arguments: -inf" (read 54), a value given as if none were. Every
        # number float() or int() reads is a value here (no flag of ours looks like one), so the flag's own rule
        # refuses it with the value quoted
        self._negative_number_matcher = NEGATIVE_NUMBER
        self._words: list[str] = []

    def parse_known_args(self, args=None, namespace=None):  # noqa: D102 - argparse's, remembering the words
        self._words = list(sys.argv[1:] if args is None else args)  # for `error`'s dash hint (a subcommand's too)
        return super().parse_known_args(args, namespace)

    def format_error(self, message: str, cut: bool = True) -> str:
        # a value argparse quotes is cut at 40 characters with "…" (read 45: `--k` with 5,000 digits echoed them all),
        # and a control character in it is written as an escape (read 50: an unknown flag "\x1b[2J" cleared the
        # terminal: argparse quotes a bad choice as Python writes it, but not the words it does not know); a message
        # of ours that cut its values already is not `cut` again (read 54: the quote in a value "-it's" ended a
        # quoted span early and the cut ate the middle of the sentence)
        if cut:
            message = re.sub(r"'([^']{41,})'", lambda m: f"'{shortened(m.group(1))}'", message)
        return _("{prog}: {refusal} ({prog} --help lists every flag).", prog=self.prog, refusal=control_shown(message))

    def error(self, message: str):  # noqa: D102 - argparse's hook
        dash = self.dash_value(message)
        self.exit(2, self.format_error(dash or message, cut=dash is None) + "\n")

    def dash_value(self, message: str) -> str | None:
        """argparse's "expected one argument" for a flag whose value was typed but starts with a dash (read 54:
        `--prompt -hi` was told a value is missing): what happened and how to write it, or None.

        >>> parser = OneSentenceParser(prog="demo")
        >>> parser._words = ["--prompt", "-hi"]
        >>> parser.dash_value("argument --prompt: expected one argument")
        "argument --prompt: its value '-hi' starts with a dash, so it was read as a flag: write --prompt=-hi"

        The hint is a command to type (read 54: `--prompt "-hi there"` was told "write --prompt=-hi there", which a
        shell splits, and a value over 40 characters was told to write its cut start): a value quoted as a POSIX shell
        needs it (`shlex.quote`), or, for a value cut in the sentence or holding a control character, the rule.

        >>> parser._words = ["--prompt", "-hi there"]
        >>> parser.dash_value("argument --prompt: expected one argument").split(": write ")[1]
        "--prompt='-hi there'"
        >>> parser._words = ["--prompt", "-" + "a" * 50]
        >>> parser.dash_value("argument --prompt: expected one argument").split("a flag: ")[1]
        'write it as --prompt=VALUE, joined to the flag by = and quoted as you typed it'
        """
        expected = _("argument %(argument_name)s: %(message)s") % {"argument_name": "", "message": _(
            "expected one argument")}
        head, _sep, tail = expected.partition(": ")
        found = re.fullmatch(re.escape(head) + r"(\S+): " + re.escape(tail), message)
        if found is None:
            return None
        flags = found.group(1).split("/")
        for word, after in zip(self._words, self._words[1:]):
            if word in flags and after.startswith("-") and after != "--":
                if shortened(after) != after or has_control(after):
                    return _("argument {flag}: its value '{value}' starts with a dash, so it was read as a flag: write "
                             "it as {flag}=VALUE, joined to the flag by = and quoted as you typed it", flag=word,
                             value=shortened(after))
                return _("argument {flag}: its value '{value}' starts with a dash, so it was read as a flag: write "
                         "{flag}={quoted}", flag=word, value=after, quoted=shlex.quote(after))
        return None

    def parse_args(self, args=None, namespace=None):  # noqa: D102 - argparse's, with the refusal below
        # argparse refuses a flag no parser knew from the top parser, whose --help lists no subcommand's flags
        # (read 49: `generate --foo` said "python -m specviz --help lists every flag"); the subcommand refuses it
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            self.chosen(parsed).error(_("unrecognized arguments: %s") % " ".join(extras))  # argparse's words
        return parsed

    def chosen(self, parsed: argparse.Namespace) -> argparse.ArgumentParser:
        """The deepest subcommand's parser that `parsed` went through (this parser when it has none)."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction) and getattr(parsed, action.dest, None) in action.choices:
                sub = action.choices[getattr(parsed, action.dest)]
                return sub.chosen(parsed) if isinstance(sub, OneSentenceParser) else sub
        return self


# argparse's own words a user can meet (Python's argparse looks each up with its module's `_` and `ngettext`, from
# gettext), marked so the Portuguese catalog keeps them; `argparse_speaking` routes those lookups to that catalog
ARGPARSE_WORDS = (N_("usage: "), N_("positional arguments"), N_("options"), N_("show this help message and exit"),
                  N_("argument %(argument_name)s: %(message)s"), N_("unrecognized arguments: %s"),
                  N_("the following arguments are required: %s"), N_("one of the arguments %s is required"),
                  N_("expected one argument"), N_("expected at most one argument"),
                  N_("expected at least one argument"), N_("invalid %(type)s value: %(value)r"),
                  N_("invalid choice: %(value)r (choose from %(choices)s)"),
                  N_("ambiguous option: %(option)s could match %(matches)s"), N_("unexpected option string: %s"),
                  N_("ignored explicit argument %r"), N_("not allowed with argument %s"),
                  N_("unknown parser %(parser_name)r (choices: %(choices)s)"))
# argparse's "invalid %(type)s value" names a Python type, which Portuguese cannot take into its words (read 54: "valor
# int inválido"): for the types a flag of ours has, the whole phrase, type named in words (English as argparse says it)
INVALID_VALUE = "invalid %(type)s value: %(value)r"
TYPE_VALUE_WORDS = {"int": N_("invalid int value: %(value)r"), "float": N_("invalid float value: %(value)r")}
COMMANDS_WITH_LANG = ("generate", "compare", "calibrate")


class _TypeWorded(str):
    """argparse's "invalid %(type)s value: %(value)r" in the current language, which fills in a type it knows by its
    own phrase (`TYPE_VALUE_WORDS`): "valor inteiro inválido: 'abc'", not "valor int inválido"."""

    def __mod__(self, values: object) -> str:
        if isinstance(values, dict) and values.get("type") in TYPE_VALUE_WORDS:
            return _(TYPE_VALUE_WORDS[values["type"]]) % values
        return str.__mod__(self, values)


@contextmanager
def argparse_speaking() -> Iterator[None]:
    """argparse's own words in the current language inside the block (read 53: under --lang pt, "argument --k:
    invalid int value: 'abc'" and "the following arguments are required" stayed English): its module's `_` and
    `ngettext` point at specviz's catalog, then back. Build the parser inside it too: "options" and -h's help are
    looked up when a parser is made.

    >>> with using("pt"), argparse_speaking():
    ...     OneSentenceParser(prog="demo").format_help().splitlines()[0]
    'uso: demo [-h]'
    >>> OneSentenceParser(prog="demo").format_help().splitlines()[0]
    'usage: demo [-h]'
    """
    saved = argparse._, argparse.ngettext
    argparse._ = lambda message: (_TypeWorded(_(message)) if message == INVALID_VALUE
                                  else _(message) if message else message)
    argparse.ngettext = lambda singular, plural, n: ngettext(singular, plural, n)  # argparse's have no {n}
    try:
        yield
    finally:
        argparse._, argparse.ngettext = saved


def command_language(argv: Sequence[str], environ=None) -> str:
    """The language `main` speaks for `argv`, found before argparse reads it, so that argparse's own refusals speak
    it too: the last --lang (--lang=, or a prefix argparse would take for it) of a command that has the flag, else
    the environment's (`environment_language`); the bench speaks English (its refusals stay English). A --lang that
    names no language leaves the environment's, for `main` to refuse.

    >>> command_language(["generate", "--prompt", "hi", "--lang", "pt"]), command_language(["compare", "--lang=pt"])
    ('pt', 'pt')
    >>> command_language(["calibrate", "--lan", "en", "--lang", "pt"], {"LANG": "en"})
    'pt'
    >>> command_language(["bench", "--lang", "pt"], {"LANG": "pt_BR"}), command_language(["serve", "--lang", "pt"], {})
    ('en', 'en')
    """
    command = next((arg for arg in argv if not arg.startswith("-")), None)
    if command == "bench":
        return "en"
    asked = None
    if command in COMMANDS_WITH_LANG:
        words = list(argv[:argv.index("--")] if "--" in argv else argv)
        for i, word in enumerate(words):
            flag, equals, value = word.partition("=")
            if len(flag) >= 3 and "--lang".startswith(flag):
                asked = value if equals else words[i + 1] if i + 1 < len(words) else None
    return language_code(asked) or environment_language(environ)


def build_parser() -> argparse.ArgumentParser:
    parser = OneSentenceParser(prog="python -m specviz", description="See speculative decoding, step by step.")
    commands = parser.add_subparsers(dest="command", required=True)
    for name, help_text in (("generate", "generate with speculative decoding and show every step"),
                            ("compare", "target-only vs speculative decoding, same settings, timed back to back")):
        cmd = commands.add_parser(name, help=help_text)
        add_generation_flags(cmd)
        if name == "generate":
            cmd.add_argument("--json", metavar="PATH", type=path_arg,
                             help="write the full trace as JSON to PATH ('-' for stdout)")
            cmd.add_argument("--quiet", action="store_true", help="print only the text and the summary")
        else:
            cmd.add_argument("--no-warmup", action="store_true",
                             help=f"skip the short untimed warm-up runs ({WARMUP_TOKENS} tokens speculative, then "
                                  f"{WARMUP_TOKENS} target-only)")
    add_bench_arguments(commands.add_parser("bench", help="measure speedups over prompt suites (JSON, CSV, markdown)"))
    cal = commands.add_parser("calibrate", help="measure this machine's costs and say which draft shape pays here")
    cal.add_argument("--pair", default="default", help="a catalog name or TARGET[,DRAFT] (default: default)")
    cal.add_argument("--proposer", choices=registry.names(), default=None, help="who drafts (default: the pair's own)")
    cal.add_argument("--device", default=None, help=DEVICE_HELP)
    cal.add_argument("--dtype", type=dtype_arg, default=None, help=DTYPE_HELP)
    cal.add_argument("--force", action="store_true", help="measure again even if this machine's costs are cached")
    cal.add_argument("--top", type=plain_int, default=5, help="shapes listed per temperature, best first (1..50)")
    cal.add_argument("--lang", default=None, metavar="en|pt",
                     help="the language of the printout (default: from LC_ALL / LC_MESSAGES / LANG)")
    add_serve_arguments(commands.add_parser("serve",
                                            help="a local vLLM server: start, stop, status, install, load sweep"))
    return parser


def add_generation_flags(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("--prompt", required=True, help="the user prompt")
    cmd.add_argument("--pair", default="default",
                     help="a catalog name (default, toy, qwen2.5-0.5b-7b, ...) or TARGET[,DRAFT]: local folders or Hub ids")
    cmd.add_argument("--proposer", choices=registry.names(), default=None, help="who drafts (default: the pair's own)")
    registry.add_setting_flags(cmd)  # each proposer's own settings (--layers for layer-skip)
    cmd.add_argument("--k", type=plain_int, default=None,
                     help="drafted tokens per step (a tree's greatest depth; n-gram lookup drafts at most K: fewer "
                          "where the copied text runs out or reaches a chat marker, none where nothing matches), "
                          f"{K_RANGE[0]}..{K_RANGE[1]} (default: with no shape flag, the shape predicted fastest on "
                          "this machine, see `calibrate`, or the pair's recommended without a shape table for the "
                          "proposer; else the pair's recommended K)")
    cmd.add_argument("--max-new-tokens", type=plain_int, default=64,
                     help="the most new tokens to generate (a cap: an answer that ends sooner stops sooner), "
                          f"{MAX_NEW_TOKENS_RANGE[0]}..{MAX_NEW_TOKENS_RANGE[1]}")
    # read 52: these four gave no range, though every other numeric flag does and the CLI refuses values outside
    cmd.add_argument("--temperature", type=finite_float, default=0.0, help=f"0 = greedy, {_range('temperature')}")
    cmd.add_argument("--top-k", type=plain_int, default=0, help=f"0 = off, {_range('top_k')}")
    cmd.add_argument("--top-p", type=finite_float, default=1.0, help=f"1.0 = off, {_range('top_p')}")
    cmd.add_argument("--seed", type=plain_int, default=0,
                     help=f"seed of the uniform draws and the sampling, {_range('seed')}")
    cmd.add_argument("--tree-nodes", type=plain_int, default=None,
                     help="draft a tree of at most this many nodes (depth K), EAGLE-2 style; 0 = a chain of K "
                          "(default: as for --k when no shape flag is given; else the pair's recommended tree, or a "
                          "chain when --k is given)")
    cmd.add_argument("--tree-width", type=plain_int, default=None,
                     help=f"{SETTINGS['tree_width'].help} (default: as for --k when no shape flag is given; else "
                          "the pair's recommended width)")
    cmd.add_argument("--tree-lookup", type=plain_int, default=None,
                     help="also copy up to this many tokens from the context as one more tree branch (prompt "
                          "lookup); 0 = none (default: as for --k when no shape flag is given; else the pair's "
                          "recommended tree's, or none when --k or --tree-nodes is given)")
    cmd.add_argument("--no-chat", action="store_true", help="feed the prompt as plain text, without the chat template")
    cmd.add_argument("--device", default=None, help=DEVICE_HELP)
    cmd.add_argument("--dtype", type=dtype_arg, default=None, help=DTYPE_HELP)
    cmd.add_argument("--trust-remote-code", action="store_true",
                     help="let the --pair models run code from their own repositories (only for models you trust)")
    cmd.add_argument("--lang", default=None, metavar="en|pt",
                     help="the language of the printout and the summary (default: from LC_ALL / LC_MESSAGES / LANG)")


def environment_language(environ=None) -> str:
    """The language the environment names (LC_ALL, then LC_MESSAGES, then LANG, as gettext reads them), else English.

    >>> environment_language({"LANG": "pt_BR.UTF-8"}), environment_language({"LC_ALL": "C", "LANG": "pt_BR"})
    ('pt', 'en')
    """
    env = os.environ if environ is None else environ
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        if env.get(var):
            return language_code(env[var]) or "en"
    return "en"


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    with using(command_language(argv)), argparse_speaking():
        args = build_parser().parse_args(argv)
    asked = getattr(args, "lang", None)
    lang = environment_language() if asked is None else language_code(asked)
    if lang is None:
        with using(environment_language()):
            print("specviz: " + _("Unknown language '{lang}': use en or pt.",
                                  lang=control_shown(shortened(str(asked), 20))),
                  file=sys.stderr)
        return 2
    with using(lang):
        try:
            return COMMANDS[args.command](args)
        except ValueError as exc:
            # a value the sentence quotes as typed ("Unknown device '…'") could hold an escape sequence that clears
            # or recolours the terminal, or a direction override that reorders the line (read 50): written as
            # escapes, line breaks kept (a server's log tail is several lines)
            print(f"specviz: {hidden_shown(str(exc))}", file=sys.stderr)
            return 2
        except OSError as exc:  # a file or folder the command could not use: one sentence, no traceback
            print("specviz: " + _("{reason}: {path}.", reason=os_reason(exc),
                                  path=control_shown(shortened(str(exc.filename or "?"), 200))), file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            print("specviz: " + _("interrupted."), file=sys.stderr)
            return 130


# ---- commands ----------------------------------------------------------------------------------------------------


def printed_text(trace: Trace) -> str:
    """What `generate` prints as the model's text: the toy pair's <unk> tokens where it wrote them (read 51: they
    vanished) and every control or format character as an escape (read 51: an escape sequence or a U+202E a model
    wrote reached the terminal as it was, where it can clear the screen or reorder what is shown).

    >>> from specviz.engine.trace import Trace
    >>> printed_text(Trace("speculative", {}, [], [], [], output_text="ok\\x1b[2J\\u202eab\\nc"))
    'ok\\\\x1b[2J\\\\u202eab\\nc'
    """
    from specviz.models.toy_text import shown_output
    return hidden_shown(shown_output(trace))


def run_generate(args: argparse.Namespace) -> int:
    if args.json and args.json != "-":
        _check_writable(args.json)  # before the model loads and the run: a bad path must not cost the run
    spec, pair = _prepare(args)
    from specviz.runs.running import run
    trace = run(spec, pair=pair)
    human = sys.stderr if args.json == "-" else sys.stdout
    color = human.isatty() and not os.environ.get("NO_COLOR")
    if not args.quiet:
        for step in trace.steps:
            print(format_step(step, color), file=human)
    print(f"\n{printed_text(trace)}\n", file=human)
    # the speed is a timing: it names its dtype and machine, as compare's does (STYLE.md)
    print(format_summary(trace, measured_in(pair)), file=human)
    if args.json:
        _write_json(trace, args.json)
    return 0


def _tokens(count: int) -> str:
    return ngettext("{n} token", "{n} tokens", count)


def _steps(count: int) -> str:
    return ngettext("{n} step", "{n} steps", count)


def _nodes(count: int) -> str:  # --tree-nodes 1 is allowed: "a tree of 1 nodes" read wrong
    return ngettext("{n} node", "{n} nodes", count)


def _forwards(count: int) -> str:  # a Trace's steps; the pass over the prompt (TargetCache.prefill) comes first
    return ngettext("{n} target forward pass besides the prompt's", "{n} target forward passes besides the prompt's",
                    count)


WARMUP_TOKENS = 4  # compare's untimed warm-up: one short run of each decoding before the timed ones
# read 52: `compare --max-new-tokens 1` printed "speedup: 0.70x" for two runs that did the same work (one token to
# write is the target's alone: nothing is drafted). Under this many new tokens a handful of target passes decide the
# ratio, and the prompt's pass, timed in both runs alike, pulls it toward 1: the speedup line gets a caution
MIN_COMPARE_TOKENS = 16


def run_compare(args: argparse.Namespace) -> int:
    spec_settings, pair = _prepare(args)
    from specviz.labs.timeline import seconds_text, speed_decimals
    from specviz.runs.running import proposer_for, run, run_target_only
    proposer = proposer_for(spec_settings, pair)
    if not args.no_warmup:  # first calls pay one-time costs (allocations, kernel choice); keep them out of the timing
        warm = replace(spec_settings, max_new_tokens=WARMUP_TOKENS)
        run(warm, pair=pair, proposer=proposer)
        run_target_only(warm, pair=pair)
    baseline = run_target_only(spec_settings, pair=pair)
    spec = run(spec_settings, pair=pair, proposer=proposer)
    # each count its own ngettext, so --max-new-tokens 1 reads "1 token", "1 target forward pass" (43rd read); the
    # speeds take the decimals that give the speedup, the times those that give the speeds (read 51, as the Race)
    decimals = speed_decimals((spec, baseline))
    print(_("target-only:  {tokens} in {seconds} s ({rate} tok/s, {forwards})",
            tokens=_tokens(baseline.num_tokens),
            seconds=seconds_text(baseline.wall_seconds, baseline.num_tokens, decimals),
            rate=number(baseline.tokens_per_second, decimals), forwards=_forwards(baseline.num_steps)))
    values = dict(tokens=_tokens(spec.num_tokens), seconds=seconds_text(spec.wall_seconds, spec.num_tokens, decimals),
                  rate=number(spec.tokens_per_second, decimals), forwards=_forwards(spec.num_steps),
                  proposer=proposer.name, k=spec_settings.k)
    if spec_settings.tree_nodes and spec_settings.tree_lookup and getattr(proposer, "can_branch", False):
        copied = ngettext("{n} token copied from the context", "{n} tokens copied from the context",
                          spec_settings.tree_lookup)
        print(_("speculative:  {tokens} in {seconds} s ({rate} tok/s, {forwards}, proposer "
                "{proposer}, a tree of {nodes}, width {width}, depth {k}, plus up to {lookup})",
                nodes=_nodes(spec_settings.tree_nodes), width=spec_settings.tree_width, lookup=copied, **values))
    elif spec_settings.tree_nodes and getattr(proposer, "can_branch", False):
        print(_("speculative:  {tokens} in {seconds} s ({rate} tok/s, {forwards}, proposer "
                "{proposer}, a tree of {nodes}, width {width}, depth {k})", nodes=_nodes(spec_settings.tree_nodes),
                width=spec_settings.tree_width, **values))
    else:
        print(_("speculative:  {tokens} in {seconds} s ({rate} tok/s, {forwards}, proposer "
                "{proposer}, K={k})", **values))
    # read 52: "0.70x", where the app and calibrate ("predicted 1.52× the speed of ...") write ×
    print(_("speedup:      {speedup}× (tokens/s, speculative vs specviz's target-only decoding, same run)",
            speedup=number(speedup(baseline, spec))))
    written = min(baseline.num_tokens, spec.num_tokens)
    if written < MIN_COMPARE_TOKENS:
        caution = ngettext(
            "caution:      a speedup from {n} new token is mostly noise: so few target passes decide it that one timed "
            "slow or fast moves it, and the prompt's pass, which both runs pay alike, pulls it toward 1. Time at "
            "least {least} new tokens (--max-new-tokens {least} or more) for a speedup worth reading.",
            "caution:      a speedup from {n} new tokens is mostly noise: so few target passes decide it that one "
            "timed slow or fast moves it, and the prompt's pass, which both runs pay alike, pulls it toward 1. Time "
            "at least {least} new tokens (--max-new-tokens {least} or more) for a speedup worth reading.",
            written, least=MIN_COMPARE_TOKENS)
        if not spec.num_drafted:  # one token to write: the speculative run was the target-only run
            caution += " " + _("Here nothing was drafted, so both runs did the same work.")
        print(caution)
    if args.no_warmup:  # read 55: the times were taken cold and nothing said so, where generate's summary says it
        print(_("warm-up:      none (--no-warmup): the one-time costs of the first calls (allocations, kernel "
                "choice) are in the times above"))
    print(measured_in(pair))  # a figure names its dtype and machine (STYLE.md)
    # a tree's accepted / drafted counts every node, a step keeps one path: no estimate of α. Read 49: "drafted"
    # is what a drafter drafted, a node one drafted token; the lookup branch's copies are named apart. Read 51: the
    # number stood bare after "acceptance:", where generate's summary names it the acceptance rate, and a chain's
    # line did not say why it sits below α
    if is_tree(spec) and spec.num_copied:
        print(_("acceptance:   rate {rate} (accepted/(drafted + copied); every node of the tree and every token its "
                "lookup branch copied count, tested or not); mean accepted length {length} (tokens per target "
                "forward, the recovered or bonus token included)", rate=_fmt(spec.acceptance_rate),
                length=_fmt(spec.mean_accepted_length)))
    elif is_tree(spec):
        print(_("acceptance:   rate {rate} (accepted/drafted; every node of a tree counts, tested or not); mean "
                "accepted length {length} (tokens per target forward, the recovered or bonus token included)",
                rate=_fmt(spec.acceptance_rate), length=_fmt(spec.mean_accepted_length)))
    else:
        print(_("acceptance:   rate {rate} (accepted/drafted; drafts after a step's first rejection count as "
                "drafted); mean accepted length {length} (tokens per target forward, the recovered or bonus token "
                "included)", rate=_fmt(spec.acceptance_rate), length=_fmt(spec.mean_accepted_length)))
    if args.temperature == 0:
        if baseline.output_ids == spec.output_ids:
            print(_("greedy output identical: yes"))
        else:
            print(_("greedy output identical: NO (usually a floating-point near-tie that rounds the other way; see "
                    "docs/benchmarks.md, Dtype)"))
    return 0


def run_bench(args: argparse.Namespace) -> int:
    return run_bench_command(args)


def run_calibrate(args: argparse.Namespace) -> int:
    """`python -m specviz calibrate`: this machine's cost curve, where speculation pays, the predicted shapes."""
    if not 1 <= args.top <= 50:
        raise ValueError(_("--top must be a whole number from 1 to 50 (got {value}).", value=with_minus(str(args.top))))
    from specviz.labs.calibration import cache_path, cached, calibrate, ms_decimals, proposer_key
    from specviz.labs.shape_choice import predictions, slowdown_note, table_for, table_temperature, written_digits
    from specviz.models.pairs import load_pair

    pair = load_pair(args.pair, device=args.device, dtype=args.dtype, progress=lambda msg: print(msg, file=sys.stderr))
    proposer = args.proposer or pair.default_proposer
    measuring = _("Measuring this machine (how long depends on its CPU and load; the time is printed below)…")
    cal = calibrate(pair, proposer, force=args.force, progress=lambda msg: print(measuring, file=sys.stderr))
    print(machine_heading(cal, pair.name))
    from specviz.labs.bench.timing import ISA_LIMITS

    limits = ", ".join(f"{name}={os.environ[name]}" for name in ISA_LIMITS if os.environ.get(name))
    if limits:
        print(_("Kernels capped by {limits}: these costs stand for a CPU without the instruction sets above that "
                "cap.", limits=limits))
    if cal.quiet:
        print(_("Measured {when} in {seconds} s; the two halves of the rounds, and the repeats of model.generate, "
                "agreed within {spread}.", when=cal.measured_at, seconds=number(cal.took_seconds, 1),
                spread=percent(cal.spread, 1)))
    else:  # never "agreed within" a spread over the threshold (read 46: "agreed within 10,543,728,911.8%")
        print(_("Measured {when} in {seconds} s while the machine was busy ({why}): not cached, measure again on an "
                "idle machine.", when=cal.measured_at, seconds=number(cal.took_seconds, 1),
                why=cal.disagreement(1)))
    if cal.quiet:  # read 53: "Cached in" was said of a cache that could not be written (`calibrate` goes on)
        where = (pair.name, cal.dtype, cal.kernels, cal.device, proposer_key(pair, cal.proposer))
        if cached(*where) == cal:
            print(_("Cached in {path}", path=cache_path(*where)))
        else:
            print(_("Not cached: {path} could not be written, so the next run measures again.",
                    path=cache_path(*where)))
    print(_("One target forward over n new tokens (milliseconds, and in one-token forwards):"))
    ms = ms_decimals(cal)
    print("  " + "   ".join(f"n={n}: {number(s * 1e3, ms)} ms ({number(s / cal.one)})" for n, s in cal.verify))
    # read 52: a cost under the decimals shown keeps two significant digits (n-gram lookup's 0.035 ms read "0.0 ms"),
    # and n-gram lookup's drafter pass, which `measure` does not time (it runs no model), is not written "0.0 ms =
    # 0.00 one-token forwards" as if it were measured: the short real runs below time its lookups
    table = table_for(pair.name, proposer)
    # read 54: MAL, a step's cost and model.generate's token take the decimals that make each printed "vs gen."
    # follow from them (2.98 × 1.32 / 1.42 = 2.77 beside 2.76×)
    digits = written_digits(cal, [p for t in sorted({float(r["temperature"]) for r in table["rows"]})
                                  for p in predictions(table, cal, t)[: args.top]]) if table is not None else 2
    costs = dict(proposer=proposer, ms=small_number(cal.drafter_seconds * 1e3, ms), c=small_number(cal.c, 2),
                 gms=number(cal.generate_seconds * 1e3, ms), g=number(cal.generate_ratio, digits))
    if cal.drafter_seconds == 0:
        drafter = _("One drafter pass ({proposer}): not timed, it runs no model (the short real runs below time its "
                    "lookups)", proposer=proposer)
    else:
        drafter = _("One drafter pass ({proposer}): {ms} ms = {c} one-token forwards", **costs)
    if cal.sampled_generate_seconds > 0:  # read 51: the T = 0.7 rows' "vs gen." divide by this unprinted cost
        print(_("{drafter}; one token of model.generate: {gms} ms = {g} greedy, {sms} ms = {s} sampling at T = 0.7.",
                drafter=drafter, sms=number(cal.sampled_generate_seconds * 1e3, ms),
                s=number(cal.baseline_ratio(0.7), digits), **costs))
    else:
        print(_("{drafter}; one token of model.generate: {gms} ms = {g}.", drafter=drafter, **costs))
    kinds, modes = {"chain": _("chain"), "tree": _("tree")}, {"greedy": _("greedy"), "sampled": _("T = 0.7")}
    paid = [_("{kind}, {mode}: a drafter pass {draft} ms, a step's overhead {overhead} ms", kind=kinds[key.split("-")[0]],
              mode=modes[key.split("-")[1]], draft=small_number(d * 1e3, 1), overhead=small_number(o * 1e3, 1))
            for key, d, o in cal.steps]
    if paid:
        print(_("As short real runs paid them: {costs}.", costs="; ".join(paid)))
    if table is None:
        shape = recommended_for(pair.name).shape
        if not registry.can_branch(proposer):  # n-gram lookup drafts no tree: the loop runs the chain of the shape's K
            shape = DraftShape(shape.k)
        print(_("No per-shape table for this pair and proposer: runs keep its recommended shape, {shape}.",
                shape=shape.describe()))
        return 0
    for temperature in sorted({float(r["temperature"]) for r in table["rows"]}):
        ranked = predictions(table, cal, temperature)
        title = _("greedy") if temperature == 0 else _("T = {t}", t=number(table_temperature(table, temperature), 1))
        # the counts are the table's dtype's and kernels', which need not be the ones this pair runs with: name
        # both (31st and 32nd reads)
        kernels = (table.get("machine") or {}).get("kernels") or _("unrecorded")
        print("\n" + _("Predicted here, {title} (MAL, the mean accepted length, counted in {dtype} with {kernels} "
                       "kernels on {prompts} held-out prompts; fed, the mean tokens fed to one verify forward; cost, "
                       "a step's in one-token forwards; vs gen., the speedup over model.generate), best first:",
                       title=title, dtype=table.get("dtype", "?"), kernels=kernels, prompts=table.get("prompts", "?")))
        head = (_("shape"), "MAL", _("fed"), _("cost"), _("vs gen."))  # "fed": the glossary's tokens fed (read 45)
        print("  " + head[0].ljust(30) + "".join(h.rjust(w + 1) for h, w in zip(head[1:], (8, 7, 7, 9))))
        for p in ranked[: args.top]:
            print(f"  {p.shape.shown():<30} {number(p.tokens_per_forward, digits):>8} {number(p.rows, 1):>7} "
                  f"{number(p.step_cost, digits):>7} {number(p.vs_generate):>8}×")
        note = slowdown_note(ranked[0], cal)
        print("  " + (note or _("Chosen: {shape}.", shape=ranked[0].shape.describe())))
        if not cal.quiet:  # read 52: a busy run's predictions were printed with no caveat beside them
            print("  " + _("These predictions rest on costs measured while the machine was busy ({why}): measure "
                           "again on an idle machine before relying on them.", why=cal.disagreement(1)))
    return 0


def machine_heading(cal, pair_name: str) -> str:
    """calibrate's first line: the machine, and the device its costs were timed on where that is not the CPU (read
    48: on a GPU it named only the host CPU, and its bf16 instructions, beside the GPU's times)."""
    values = dict(machine=cal.machine_words(), pair=pair_name, dtype=cal.dtype, kernels=cal.kernels,
                  bf16=_("with bf16 instructions") if cal.cpu_bf16 else _("without bf16 instructions"))
    if cal.device != "cpu":
        return _("This machine: {machine} ({bf16}); pair {pair} in {dtype} on {device}, linear kernels {kernels}: "
                 "the costs below were timed on {device}.", device=cal.device, **values)
    return _("This machine: {machine} ({bf16}); pair {pair} in {dtype}, linear kernels {kernels}.", **values)


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {"generate": run_generate, "compare": run_compare,
                                                            "bench": run_bench, "serve": run_serve_command,
                                                            "calibrate": run_calibrate}


# ---- helpers -----------------------------------------------------------------------------------------------------


def _prepare(args: argparse.Namespace):
    """The run's spec, checked before torch or any model loads (a bad flag answers at once), and the loaded pair.
    The toy pair offers what the web UI offers it (`limits.PAIR_DRAFTERS`): its EAGLE drafter and Medusa heads are
    untrained stand-ins, refused here; the tests and the GPU rehearsal run them, and so do `bench --proposers` and
    `calibrate --proposer` when named (they measure costs, which an untrained drafter has too)."""
    toy = registry.offered(PAIR_DRAFTERS["toy"])
    # the pair's name as load_pair reads it (read 52: `--pair " toy" --proposer eagle` ran the untrained stand-in)
    if args.pair.strip() == "toy" and args.proposer is not None and args.proposer not in toy:
        raise ValueError(_("The toy pair has no trained EAGLE drafter or Medusa heads; choose one of these proposers: "
                           "{choices}.", choices=", ".join(toy)))
    flags = {**FLAGS, **{own.name: own.flag for own in registry.all_settings()}}
    check_named({name: getattr(args, name, None) for name in flags}, flags)  # the refusal names the flag typed
    shape = draft_shape(args)
    if shape["tree_lookup"] and not shape["tree_nodes"]:  # RunSpec's own sentence names settings, not flags
        raise ValueError(_("--tree-lookup {lookup} needs a draft tree: give --tree-nodes above 0 (--k without it, "
                           "or --tree-nodes 0, drafts a chain), or drop --tree-lookup.", lookup=shape["tree_lookup"]))
    if args.tree_width is not None and not shape["tree_nodes"]:  # read 49: a chain ran, the width unused, no word
        raise ValueError(_("--tree-width {width} shapes a draft tree: give --tree-nodes above 0 (--k without it, or "
                           "--tree-nodes 0, drafts a chain), or drop --tree-width.", width=args.tree_width))
    if shape["tree_nodes"] and (refusal := over_holds(shape["tree_nodes"], shape["k"], shape["tree_width"])):
        raise ValueError(refusal)  # read 55: a budget no tree of that depth and width can hold built a smaller one
    spec = RunSpec(pair=args.pair, proposer=args.proposer, prompt=args.prompt, chat=not args.no_chat,
                   max_new_tokens=args.max_new_tokens, temperature=args.temperature, top_k=args.top_k,
                   top_p=args.top_p, seed=args.seed, proposer_settings=registry.settings_from_args(args),
                   **shape)
    if args.proposer is not None:
        check_own_flags(args, args.proposer)
        check_branching(args, shape, args.proposer)
    from specviz.models.pairs import load_pair  # after the checks: it loads torch and transformers

    pair = load_pair(args.pair, device=args.device, dtype=args.dtype, trust_remote_code=args.trust_remote_code,
                     progress=lambda msg: print(msg, file=sys.stderr))
    check_own_flags(args, spec.proposer or pair.default_proposer)  # the pair's own is known once it loads
    check_branching(args, shape, spec.proposer or pair.default_proposer)
    if not shape_given(args):
        spec = replace(spec, **machine_shape(pair, args.temperature, spec.proposer or pair.default_proposer))
    return spec, pair


def check_own_flags(args: argparse.Namespace, proposer: str) -> None:
    """Refuse a proposer's own flag (`--layers 3`) given for a run whose proposer does not take it, in one sentence
    naming the flag and both proposers: it was ignored without a word (44th read), so `--layers 3` with the draft
    model printed a run that looked like the one asked for. Its unset value (layer-skip's 0) asks for nothing."""
    for own in registry.all_settings():
        value = getattr(args, own.name, None)
        if value is None or value == own.unset or registry.takes(proposer, own.name):
            continue
        owner = next(info.name for info in registry.proposers() if own.name in info.setting_names)
        raise ValueError(_("{flag} {value} sets the {owner}, but this run drafts with the {proposer}: add --proposer "
                           "{name}, or drop {flag}.", flag=own.flag, value=value, owner=_(registry.phrase_of(owner)),
                           proposer=_(registry.phrase_of(proposer)), name=owner))


def check_branching(args: argparse.Namespace, shape: dict[str, int], proposer: str) -> None:
    """Refuse tree flags typed for a proposer that cannot branch (n-gram lookup): read 49, `generate --proposer ngram
    --tree-nodes 6` drafted a chain of K without a word, as the Playground and the Race say it will. A tree that
    comes from the pair's recommended shape, no tree flag typed, still runs as that chain."""
    typed = [f"{flag} {getattr(args, name)}" for name, flag in (("tree_nodes", "--tree-nodes"),
                                                                 ("tree_width", "--tree-width"),
                                                                 ("tree_lookup", "--tree-lookup"))
             if getattr(args, name, None)]
    if shape["tree_nodes"] and typed and not registry.can_branch(proposer):
        raise ValueError(_("A draft tree was asked for ({flags}), but the {proposer} cannot branch: it would draft a "
                           "chain of K = {k}. Drop {flags}, or choose a proposer that drafts with a model.",
                           flags=" ".join(typed), proposer=_(registry.phrase_of(proposer)), k=shape["k"]))


# the generation flags that give a RunSpec setting, by the setting's name: a refused value is named by its flag
def _range(name: str) -> str:
    """A setting's allowed range as the flags' help writes one ("0..1000"), from `SETTINGS`, which the CLI enforces."""
    setting = SETTINGS[name]
    return f"{setting.lo:g}..{setting.hi:g}" if not setting.whole else f"{int(setting.lo)}..{int(setting.hi)}"


FLAGS = {"k": "--k", "max_new_tokens": "--max-new-tokens", "temperature": "--temperature", "top_k": "--top-k",
         "top_p": "--top-p", "seed": "--seed", "tree_nodes": "--tree-nodes", "tree_width": "--tree-width",
         "tree_lookup": "--tree-lookup"}


def machine_shape(pair, temperature: float, proposer: str) -> dict[str, int]:
    """The draft shape predicted fastest on this machine (measuring it the first time), said on stderr with the
    prediction, and the sentence that says when no shape should pay here. A pair without a shape table, or a
    proposer other than the one its table measured, keeps the recommended shape, silently."""
    from specviz.labs.calibration import calibrate
    from specviz.labs.shape_choice import best_prediction, slowdown_note, table_for

    if table_for(pair.name, proposer) is None:
        return recommended_for(pair.name).shape.settings()
    measuring = _("Measuring this machine (how long depends on its CPU and load; cached if the machine was quiet)…")
    cal = calibrate(pair, proposer, progress=lambda msg: print(measuring, file=sys.stderr))
    if not cal.quiet:  # not cached: the next run measures again (Read 44: "cached afterwards" said otherwise)
        print(_("The machine was busy while it was measured ({why}), so these costs are not cached: the next run "
                "measures again.", why=cal.disagreement()), file=sys.stderr)
    best = best_prediction(pair, temperature, cal, proposer)
    print(_("Draft shape for this machine: {shape}; predicted {speedup}× the speed of model.generate here "
            "(`python -m specviz calibrate` shows why).", shape=best.shape.describe(),
            speedup=number(best.vs_generate)), file=sys.stderr)
    note = slowdown_note(best, cal)
    if note:
        print("specviz: " + note, file=sys.stderr)
    return best.shape.settings()


def draft_shape(args: argparse.Namespace) -> dict[str, int]:
    """K, tree nodes, width and lookup branch for the run: the flags given, the rest from the pair's recommended
    settings (assets/catalog.yaml; a chain of K = 4 for a pair given by hand). An explicit --k without --tree-nodes
    keeps the chain of that K; an explicit --tree-nodes without --tree-lookup drafts a tree without a lookup branch."""
    best = recommended_for(args.pair)
    nodes = args.tree_nodes if args.tree_nodes is not None else best.tree_nodes if args.k is None else 0
    return {"k": args.k if args.k is not None else best.k, "tree_nodes": nodes,
            "tree_width": args.tree_width if args.tree_width is not None else best.tree_width,
            "tree_lookup": best.lookup_for(args.k, args.tree_nodes, getattr(args, "tree_lookup", None))}


def measured_in(pair) -> str:
    """The line that says where a run's times were taken: dtype, device and linear kernels (generate and compare)."""
    from specviz.models.machine import dtype_name

    return _("measured in:  {dtype} on {device}, linear kernels {kernels}", dtype=dtype_name(pair.dtype),
             device=where_measured(pair), kernels=pair.kernels)


def where_measured(pair) -> str:
    """The device a run's times were taken on, as a reader would name it: "cpu (AMD EPYC, 2 threads)", "cuda:0"."""
    if pair.device.type != "cpu":
        return str(pair.device)
    import torch

    from specviz.models.machine import cpu_model

    return ngettext("cpu ({model}, {n} thread)", "cpu ({model}, {n} threads)", torch.get_num_threads(),
                    model=cpu_model())


def speedup(baseline: Trace, spec: Trace) -> float:
    return spec.tokens_per_second / baseline.tokens_per_second


def _check_writable(path: str) -> None:
    """Refuse, before a run, a `--json` path the trace could not be written to (`limits.unwritable`), in the
    sentence the write after the run gives."""
    reason = unwritable(path)
    if reason is not None:
        raise ValueError(_("Cannot write the trace to '{path}': {reason}.", path=shortened(path, 200), reason=reason))


def _write_json(trace: Trace, path: str) -> None:
    text = trace.to_json(indent=1)
    if path == "-":
        sys.stdout.write(text + "\n")
        return
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise ValueError(_("Cannot write the trace to '{path}': {reason}.", path=shortened(path, 200),
                           reason=os_reason(exc))) from None
    print(_("trace written to {path}", path=path), file=sys.stderr)


def _fmt(x: float, digits: int = 2) -> str:
    """A rate for the printout, written the reader's way (0.62 or 0,62); n/a when there is none."""
    return _("n/a") if x is None or (isinstance(x, float) and math.isnan(x)) else number(x, digits)


WHERE_FROM = {TokenKind.RECOVERED: N_("sampled from norm(max(0, p - q))"),
              TokenKind.BONUS: N_("sampled from p: all drafts accepted"),
              TokenKind.TARGET: N_("sampled from p (nothing was drafted)")}
# a tree step ends where its accepted path stops (specviz.engine.tree_verifier): a recovered token comes from the residual
# p′ that every rejected child there left, a bonus token from p at a leaf; the tree's other branches were not accepted
TREE_WHERE_FROM = {TokenKind.RECOVERED: N_("sampled from the residual p′ left after every child there was rejected"),
                   TokenKind.BONUS: N_("sampled from p: the accepted path reached a leaf of the tree")}
KIND_NAMES = {TokenKind.ACCEPTED: N_("accepted"), TokenKind.REJECTED: N_("rejected"),
              TokenKind.RECOVERED: N_("recovered"), TokenKind.BONUS: N_("bonus"), TokenKind.TARGET: N_("target")}


def _paint(text: str, kind: TokenKind, color: bool) -> str:
    return f"\033[{COLORS[kind]}m{text}\033[0m" if color else text


def format_step(step: Step, color: bool = False) -> str:
    """A few lines per step: each drafted token with q, p, p/q, min(1, p/q), u and the verdict (a tree child tried
    after a rejected sibling with the q′, p′ and p′/q′ its rule used), then the recovered or bonus token. A chain
    step's head names its K; a tree step's names its drafted nodes, its lookup branch's copied tokens apart (as the
    settings line and the Playground count them), and its deepest node's depth, since the drafts listed are only its
    main line."""
    times = dict(index=format(step.index + 1, ">3"), context=step.context_length,
                 # read 52: n-gram lookup's 0.30 ms read "draft 0 ms", as a step that drafted nothing reads
                 draft=small_number(step.draft_seconds * 1e3, 0), verify=small_number(step.verify_seconds * 1e3, 0),
                 before=step.target_cache_before, after=step.target_cache_after)
    if step.tree is not None and not step.tree.nodes:  # one token left to write: "árvore de 0 nó" in pt (read 45)
        head = _("step {index}  context {context}  no node drafted  draft {draft} ms  verify {verify} ms  cache "
                 "target {before}->{after}", **times)
    elif step.tree is not None:  # Step.k is the main line's length (the drafts listed below), not the tree's depth
        # read 44: "tree of 9 nodes" beside --tree-nodes 6 --tree-lookup 3 named two counts "nodes"; no model
        # drafted the copied tokens, so they are counted apart, in the Playground's words
        copied = sum(node.copied for node in step.tree.nodes)
        nodes = _nodes(len(step.tree.nodes) - copied)
        if copied:
            nodes = _("{drafted} plus {copied}", drafted=nodes, copied=ngettext(
                "{n} token copied from the context", "{n} tokens copied from the context", copied))
        head = _("step {index}  context {context}  tree of {nodes}, depth {depth}  draft {draft} ms  verify "
                 "{verify} ms  cache target {before}->{after}", nodes=nodes, depth=step.draft_depth, **times)
    else:
        head = _("step {index}  context {context}  K={k}  draft {draft} ms  verify {verify} ms  cache target "
                 "{before}->{after}", k=step.k, **times)
    lines = [head]
    line = step.main_line()
    if step.tree is not None and step.tree.nodes:
        # read 52: "tree of 8 nodes" over one listed node, with nothing saying the rest were left out
        copied = sum(node.copied for node in step.tree.nodes) - sum(step.tree.nodes[j].copied for j in line)
        drafted = len(step.tree.nodes) - len(step.decisions) - copied
        others = [ngettext("{n} other node", "{n} other nodes", drafted)] if drafted else []
        others += [ngettext("{n} token copied from the context", "{n} tokens copied from the context", copied)
                   ] if copied else []
        if others:
            lines.append("   " + _("(only the main line is listed: the accepted path and, if one was rejected, the "
                                   "first child rejected below it; not listed: {others}; --json writes them all)",
                                   others=_("{drafted} plus {copied}", drafted=others[0], copied=others[1])
                                   if len(others) == 2 else others[0]))
    # a tree's main line is tested against the residuals its earlier siblings left: p′ and q′, shown where they
    # differ from p and q (a child tried after a rejected sibling); a first child is tested on its own p and q, and
    # its chance is named min(1,p/q), as the app's hover names it (read 51: "p/q=… min(1,p′/q′)=…")
    for i, d in enumerate(step.decisions):
        # read 52: a draft never reached showed min(1,p/q)=0.488 beside "not reached", as if it had been tested
        node = step.tree.nodes[line[i]] if line else None
        accept = "min(1,p′/q′)" if step.tree is not None and not tested_on_own_probs(node) else "min(1,p/q)"
        verdict = ((_("accepted") if d.accepted else _("rejected")) if d.reached else
                   _("not reached (after a rejection): never tested, so {accept} is the chance it would have had",
                     accept=accept))
        q, ratio, verdict = _rule_q(d, node, verdict)
        p, mark = d.target_prob, ""
        if uses_residuals(node):  # read 49: a later child showed p/q=1.318 beside min(1,p′/q′)=0.771
            p, q, mark = node.target_prob_used, node.draft_prob_used, "′"
            ratio = p_over_q(p, q)
        # the app's decimals (read 51: "p=0.005 p/q=0.085", though 0.005/0.064 is 0.078): two figures at least,
        # and p and q as many more as their quotient needs to give the p/q shown (read 52)
        # read 53: a point mass (a lookup's q, a greedy p or q) is exactly 1, written so as the app writes it
        shown = with_point_masses(shown_numbers(p, q, d.accept_prob, d.uniform, p_over_q=ratio),
                                  *point_mass_pq(d, node))
        # 0/0 has no value (read 51: "p/q=inf", where the tree's table writes "–"): "-", as a missing u
        u = _ascii(shown.u) if d.uniform is not None else "  -  "
        token = _paint(f"{GLYPHS[d.kind]} {visible(d.text)!r:<14}", d.kind, color)
        lines.append(f"   {token} q{mark}={_ascii(shown.q)} p{mark}={_ascii(shown.p)} "
                     f"p{mark}/q{mark}={_ascii(shown.ratio):<7} {accept}={_ascii(shown.chance)} u={u}  {verdict}")
    last = step.emitted[-1] if step.emitted else None
    if last is not None and last.kind in WHERE_FROM:
        source = TREE_WHERE_FROM if step.tree is not None and last.kind in TREE_WHERE_FROM else WHERE_FROM
        where = _("{kind}, {where}", kind=_(KIND_NAMES[last.kind]), where=_(source[last.kind]))
        lines.append(f"   {_paint(f'{GLYPHS[last.kind]} {visible(last.text)!r:<14}', last.kind, color)} {where}")
    return "\n".join(lines)


def _ascii(shown: str) -> str:
    """A number as `shown_numbers` wrote it, with the terminal's words for no value ("-") and infinity ("inf")."""
    return {"–": "-", "∞": "inf", "−∞": "-inf"}.get(shown, shown)


def _rule_q(d: Decision, node: TreeNode | None, verdict: str) -> tuple[float, float | None, str]:
    """q, p/q and the verdict as a tree step's line shows them: what the rule used. A copied node, or a child not
    drawn from q (a greedy or top-k tree), is tested against a point mass, q = 1, so kept with p′(x): the draft's
    own q(x) (0 for a greedy tree's second child, read 44: "q=0.000 p/q=inf") is not what decided. The line says
    which kind of node it was where that changes the q shown, and for every copied node."""
    if not rule_point_mass(node):
        return d.draft_prob, p_over_q(d.target_prob, d.draft_prob), verdict
    if not node.copied and d.draft_prob == 1.0:  # a greedy tree's first child: the draft's q is the point mass
        return 1.0, d.target_prob, verdict
    why = (_("copied, q = 1 (point mass)") if node.copied else
           _("top-k child, not drawn from q: q = 1 (point mass)"))
    return node.rule_draft_prob, d.target_prob, _("{verdict}; {why}", verdict=verdict, why=why)


SUMMARY_LABELS = {"rate": N_("acceptance rate"), "alpha": N_("α estimate"), "length": N_("mean accepted length"),
                  "per_position": N_("acceptance by position"), "speed": N_("speed")}  # one column, padded in code
# a tree's mean min(1, p′/q′) is not an estimate of α (Trace.mean_accept_prob), so it is not labelled as one, unless
# every tree was a chain (Trace.mean_estimates_alpha)
TREE_ALPHA_LABEL = N_("mean min(1, p′/q′)")


def is_tree(trace: Trace) -> bool:
    """Whether the run drafted trees (its steps hold a tree record)."""
    return any(step.tree is not None for step in trace.steps)


def format_summary(trace: Trace, measured: str | None = None) -> str:
    """The run in a few lines, in the current language; the values start in one column in every language (the
    labels are padded by their width in the terminal, accents included, not by a count of spaces in the catalog).
    `measured` (where the run was timed: dtype, device, kernels) follows the speed line."""
    from specviz.labs.timeline import seconds_text

    per_pos = list_separator().join(_fmt(x) for x in trace.per_position_acceptance) or _("n/a")
    tree = is_tree(trace)
    # read 51: `--tree-nodes 1` drafts a chain of one node a step, whose mean is a chain's α estimate; a run whose
    # trees drafted no node (`--max-new-tokens 1`) tested nothing, and says only that, not "every tree was a chain"
    drafted = any(step.tree is not None and step.tree.nodes for step in trace.steps)
    chains = tree and drafted and trace.mean_estimates_alpha
    wide = tree and drafted and not trace.mean_estimates_alpha
    names = {**SUMMARY_LABELS, "alpha": TREE_ALPHA_LABEL} if wide else SUMMARY_LABELS
    labels = {key: _(label) for key, label in names.items()}
    column = max(width(label) for label in labels.values())
    # read 49: a node is a drafted token; a tree's lookup branch copies, which Trace.num_drafted counts too, are
    # named apart, so "drafted" is one count here, in the Playground's "Drafts accepted" and in the hint below
    counts = dict(rate=_fmt(trace.acceptance_rate), accepted=trace.num_accepted,
                  drafted=trace.num_drafted - trace.num_copied)
    if trace.num_copied:
        rate = _("{rate}  (accepted / (drafted + copied) = {accepted} / ({drafted} + {copied}); every node of a "
                 "tree and every token its lookup branch copied count, tested or not)", copied=trace.num_copied,
                 **counts)
    elif tree:
        rate = _("{rate}  (accepted / drafted = {accepted} / {drafted}; every node of a tree counts, tested or not)",
                 **counts)
    else:
        rate = _("{rate}  (accepted / drafted = {accepted} / {drafted}; drafts after a step's first rejection "
                 "count as drafted)", **counts)
    values = {
        "rate": rate,
        "alpha": (_("{alpha}  (mean min(1, p/q) over the drafts the verifier tested; every tree was a chain, no node "
                    "with a sibling and none copied, so each was tested against p and q themselves: an estimate of "
                    "the acceptance probability α = E[sum min(p, q)])", alpha=_fmt(trace.mean_accept_prob))
                  if chains else
                  _("{alpha}  (along each step's main line, the accepted path and the first child rejected below "
                    "it; a node tried after a rejected sibling is tested against the residual p′ that sibling left, "
                    "so this is not an estimate of α)", alpha=_fmt(trace.mean_accept_prob)) if wide else
                  _("{alpha}  (mean min(1, p/q) over the drafts the verifier tested: an estimate of the acceptance "
                    "probability α = E[sum min(p, q)])", alpha=_fmt(trace.mean_accept_prob))),
        "length": _("{length}  (tokens per target forward, the recovered or bonus token included)",
                    length=_fmt(trace.mean_accepted_length)),
        # Trace.per_position_acceptance: a share of the steps that drafted that far, not of those that tested it
        "per_position": (_("[{rates}]  (entry n: of the steps whose tree reached depth n, the share whose accepted "
                           "path reached it)", rates=per_pos) if tree else
                         _("[{rates}]  (entry n: of the steps that drafted n or more, the share whose first n drafts "
                           "were all accepted)", rates=per_pos)),
        # the time with the digits that give the speed beside it (read 51: "3.76 s" can give another 0.1 tokens/s).
        # Read 53: "4.2 tokens/s (4.75 s)" did not say what was timed: the pass over the prompt (2.08 s of those 4.75
        # on the toy pair, in the trace's prefill_seconds) is in it, and generate runs no warm-up, as compare does
        "speed": _("{rate} tokens/s ({seconds} s from the prompt's pass to the last token; no warm-up run before it)",
                   rate=_fmt(trace.tokens_per_second, 1), seconds=seconds_text(trace.wall_seconds, trace.num_tokens)),
    }
    return "\n".join([
        _("summary: {steps}, {tokens}, stopped at {reason}", steps=_steps(trace.num_steps),
          tokens=_tokens(trace.num_tokens), reason=_(STOP_REASONS.get(trace.stop_reason, trace.stop_reason))),
        *(f"  {pad(labels[key], column)}  {values[key]}" for key in SUMMARY_LABELS),
        *([f"  {measured}"] if measured else []),
        *low_acceptance_hint(trace),
    ])


STOP_REASONS = {StopReason.EOS: N_("eos"), StopReason.MAX_NEW_TOKENS: N_("max_new_tokens"),
                StopReason.DEADLINE: N_("deadline")}  # the trace's values, named for a reader


def low_acceptance_hint(trace: Trace) -> list[str]:
    """One line of advice when the draft was almost never right (speculation then only costs time): few drafts kept
    and about one token per step. A tree's accepted / drafted counts every node, so a tree that keeps two or three
    tokens per forward can sit below 0.1 too; the tokens per step tell the two apart. The count it quotes is of
    drafts only, as the Playground's "Drafts accepted" counts them: the tokens a tree's lookup branch copied from the
    context are no model's drafts, and the share it tests is theirs too (read 45: it counted copies as drafts kept)."""
    drafted, kept = trace.drafts_only()
    if not drafted or kept / drafted >= 0.1 or trace.mean_accepted_length >= 1.5:
        return []
    # Read 45: "An untrained draft (layer-skip) rarely agrees" was said after a trained draft's run too
    if any(step.proposer.startswith("layerskip") for step in trace.steps):
        return [_("  note: the draft was rarely right ({kept_of_drafted}), so each step paid for "
                  "drafting and still emitted about one token. An untrained draft (layer-skip) rarely agrees; with "
                  "the default pair try --proposer eagle (trained for it), --proposer ngram on text that repeats the "
                  "prompt, or `compare` to see the cost.",
                  kept_of_drafted=drafts_kept(kept, drafted))]
    # read 48: after an EAGLE run, "try another proposer (... --proposer eagle ...)" offered the one that just ran
    if any(step.proposer.startswith("eagle") for step in trace.steps):
        return [_("  note: the draft was rarely right ({kept_of_drafted}), so each step paid for drafting and still "
                  "emitted about one token; try --proposer ngram on text that repeats the prompt, or `compare` to "
                  "see the cost.", kept_of_drafted=drafts_kept(kept, drafted))]
    # read 49: after an n-gram run it offered "--proposer ngram on text that repeats the prompt", the one that ran
    if any(step.proposer.startswith("ngram") for step in trace.steps):
        return [_("  note: n-gram lookup was rarely right ({kept_of_drafted}): it copies only where the text repeats "
                  "its context, so each step still emitted about one token; try a proposer with a model (with the "
                  "default pair, --proposer eagle, trained for it; --proposer draft where the pair has a draft "
                  "model), or `compare` to see the cost.", kept_of_drafted=drafts_kept(kept, drafted))]
    return [_("  note: the draft was rarely right ({kept_of_drafted}), so each step paid for drafting and still "
              "emitted about one token; try another proposer (with the default pair, --proposer eagle, trained for "
              "it, or --proposer ngram on text that repeats the prompt), or `compare` to see the cost.",
              kept_of_drafted=drafts_kept(kept, drafted))]
