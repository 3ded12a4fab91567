"""Keep the Portuguese catalog in step with the code: extract every `_()`, `ngettext()` and `N_()` message, merge
them into the `.po`, compile the `.mo`, and list what is missing.

    python -m specviz.scripts.i18n update    # new messages join the .po untranslated, vanished ones are dropped
    python -m specviz.scripts.i18n compile   # .po -> .mo (committed, so a fresh clone works offline)
    python -m specviz.scripts.i18n check     # exit 1 with one line per problem (tests/core/test_i18n.py runs it;
                                             # also what it does with no command)
    python -m specviz.scripts.i18n translate FILE.json   # {"English": "Português", "one": ["um", "muitos"]}:
                                             # update, fill those translations, compile (under a lock, so several
                                             # translators can run it at once)

`make i18n` runs update then compile. Translate by editing assets/locale/pt_BR/LC_MESSAGES/specviz.po (follow
docs/glossary.pt-BR.md), then `make i18n` again.
"""

from __future__ import annotations

import fcntl
import io
import json
import re
import string
import sys
import tempfile
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po, write_po

from specviz.core.i18n import DOMAIN
from specviz.core.paths import ASSETS, LOCALE_DIR

ROOT = ASSETS.parent  # the checkout (this is a maintenance command: it reads the sources beside the assets)
SOURCES = ("specviz", "pages", "app.py")  # relative to ROOT; tests and scripts' own prints are not for learners
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}
PO = LOCALE_DIR / "pt_BR" / "LC_MESSAGES" / f"{DOMAIN}.po"
MO = PO.with_suffix(".mo")
PLURAL_RULE = "(n != 1)"  # the catalog's Plural-Forms: only 1 takes the singular


def extract(root: Path = ROOT) -> Catalog:
    """Every message in the sources, with where it is used."""
    catalog = Catalog(project="specviz", locale=None)
    for source in SOURCES:
        path = root / source
        found = (_extract_file(path) if path.is_file() else
                 extract_from_dir(str(path), method_map=[("**.py", "python")], keywords=KEYWORDS,
                                  comment_tags=("i18n:",)))
        for filename, lineno, message, comments, _context in found:
            where = f"{source}/{filename}" if path.is_dir() else source
            catalog.add(message, locations=[(where, lineno)], auto_comments=comments)
    return catalog


def _extract_file(path: Path):
    from babel.messages.extract import extract_from_file

    for lineno, message, comments, context in extract_from_file("python", str(path), keywords=KEYWORDS,
                                                                comment_tags=("i18n:",)):
        yield path.name, lineno, message, comments, context


def read_catalog(path: Path = PO) -> Catalog:
    with path.open("rb") as f:
        return read_po(f, locale="pt_BR", domain=DOMAIN)


def update(po: Path = PO, root: Path = ROOT) -> int:
    """Merge the extracted messages into the .po; returns how many are untranslated."""
    template = extract(root)
    catalog = read_catalog(po) if po.exists() else _new_catalog()
    catalog.update(template, no_fuzzy_matching=True)
    catalog.obsolete.clear()
    po.parent.mkdir(parents=True, exist_ok=True)
    with po.open("wb") as f:
        write_po(f, catalog, width=120, omit_header=False, sort_output=False)
    return sum(1 for m in catalog if m.id and not _translated(m))


def _new_catalog() -> Catalog:
    catalog = Catalog(locale="pt_BR", domain=DOMAIN, project="specviz", fuzzy=False,
                      header_comment="# specviz em português (Brasil). Terms: docs/glossary.pt-BR.md.\n"
                                     "# Edit the msgstr lines, then run `make i18n`.")
    # Not gettext's usual rule for pt_BR, (n > 1), which writes 0 in the singular ("0 nó", "(0 token)"): Brazilian
    # Portuguese counts zero in the plural ("0 nós", "zero reais"), as English does (read 46)
    catalog._num_plurals, catalog._plural_expr = 2, PLURAL_RULE
    return catalog


def compile_mo(po: Path = PO, mo: Path = MO) -> None:
    catalog = read_catalog(po)
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    mo.write_bytes(buffer.getvalue())


def _translated(message) -> bool:
    strings = message.string if isinstance(message.string, tuple | list) else (message.string,)
    return all(strings) and not message.fuzzy


def _key(value):
    return tuple(value) if isinstance(value, tuple | list) else value


def placeholders(text: str) -> set[str]:
    """The named fields of a format string ({name}, {name:.2f}); literal {{braces}} are not fields.

    >>> sorted(placeholders("{kept} of {drafted:d} · {{x}}"))
    ['drafted', 'kept']
    """
    try:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
    except ValueError:  # unbalanced braces (LaTeX, say): compare the raw {...} runs instead
        return set(re.findall(r"\{([^{}]*)\}", text))


def problems(po: Path = PO, mo: Path = MO, root: Path = ROOT) -> list[str]:
    """One line per message that is missing, untranslated, fuzzy, or whose placeholders differ; and a stale .mo."""
    found: list[str] = []
    catalog = read_catalog(po)
    for message in extract(root):
        if not message.id:
            continue
        entry = catalog.get(message.id)
        where = ", ".join(f"{f}:{n}" for f, n in message.locations[:2])
        shown = message.id if isinstance(message.id, str) else message.id[0]
        if entry is None:
            found.append(f"not in the catalog (run make i18n): {shown[:70]!r} at {where}")
        elif not _translated(entry):
            found.append(f"not translated: {shown[:70]!r} at {where}")
        else:
            ids = entry.id if isinstance(entry.id, tuple | list) else (entry.id,)
            strings = entry.string if isinstance(entry.string, tuple | list) else (entry.string,)
            wanted = set().union(*(placeholders(i) for i in ids))
            for form, s in enumerate(strings):
                # a plural entry's first form mirrors the English singular, which may leave the count out ("not only
                # the one this run had"): it may omit what the singular omits, never add or lose anything else
                singular = placeholders(ids[0]) if len(ids) > 1 and form == 0 else wanted
                if not singular <= placeholders(s) <= wanted:
                    found.append(f"placeholders differ: {shown[:50]!r} has {sorted(wanted)}, the translation "
                                 f"{sorted(placeholders(s))}")
    if not mo.exists():
        found.append(f"{mo.name} is missing: run make i18n")
    else:
        with mo.open("rb") as f:
            compiled = {_key(m.id): _key(m.string) for m in read_mo(f) if m.id}
        expected = {_key(m.id): _key(m.string) for m in catalog if m.id and _translated(m)}
        if compiled != expected:
            found.append(f"{mo.name} is older than {po.name}: run make i18n")
    return found


def translate(translations: dict[str, str | list[str]], po: Path = PO, mo: Path = MO, root: Path = ROOT) -> list[str]:
    """Update the .po from the code, fill the given translations, compile; returns the msgids not in the code."""
    po.parent.mkdir(parents=True, exist_ok=True)
    with (Path(tempfile.gettempdir()) / "specviz-i18n.lock").open("w") as lock:  # outside assets/: not shipped
        fcntl.flock(lock, fcntl.LOCK_EX)
        update(po, root)
        catalog = read_catalog(po)
        unknown = []
        for msgid, text in translations.items():
            entry = catalog.get(msgid)
            if entry is None:
                plural = next((m for m in catalog if isinstance(m.id, tuple | list) and m.id[0] == msgid), None)
                entry = plural
            if entry is None:
                unknown.append(msgid)
                continue
            entry.string = tuple(text) if isinstance(entry.id, tuple | list) else str(text)
            entry.flags.discard("fuzzy")
        with po.open("wb") as f:
            write_po(f, catalog, width=120, omit_header=False, sort_output=False)
        compile_mo(po, mo)
    return unknown


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    command = args[0] if args else "check"
    if command == "update":
        missing = update()
        print(f"{PO.relative_to(ROOT)}: {missing} message(s) without a translation")
    elif command == "compile":
        compile_mo()
        print(f"wrote {MO.relative_to(ROOT)}")
    elif command == "translate" and len(args) == 2:
        try:
            translations = json.loads(Path(args[1]).read_text(encoding="utf-8"))
        except OSError as exc:  # a file a translator mistyped: one sentence, no traceback (STYLE.md)
            print(f"i18n: cannot read '{args[1]}': {exc.strerror or type(exc).__name__}.", file=sys.stderr)
            return 2
        except ValueError as exc:  # not JSON, or not UTF-8
            print(f"i18n: '{args[1]}' is not a UTF-8 JSON file ({str(exc)[:80]}).", file=sys.stderr)
            return 2
        if not isinstance(translations, dict):
            print(f"i18n: '{args[1]}' must hold one JSON object, {{\"English\": \"Português\"}} (got a "
                  f"{type(translations).__name__}).", file=sys.stderr)
            return 2
        unknown = translate(translations)
        for msgid in unknown:
            print(f"not in the code (check the English text): {msgid[:80]!r}")
        print(f"translated; {len(unknown)} unknown")
    elif command == "check":
        found = problems()
        print("\n".join(found) if found else "the Portuguese catalog is complete")
        return 1 if found else 0
    else:
        print("usage: python -m specviz.scripts.i18n [update|compile|check|translate FILE.json] (no command: check)")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
