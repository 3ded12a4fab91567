"""Who gets credit for the lookup branch (issue 43 item 1): fusing a retrieved branch into the drafter's tree is
RASD's idea (Quan et al. 2025); SAM-Decoding (Hu et al. 2024) chooses one source per step (retrieval when the suffix
match is long enough, else the drafter). Every place that names SAM-Decoding, in English and in Portuguese, says it
chooses, names RASD for the fusion, and none credits SAM-Decoding with mixing the two."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PLACES = ("specviz", "pages", "docs", "assets/quiz", "assets/locale", "README.md", "README.pt-BR.md", "tests")
CHOOSES = re.compile(r"(?:picks|chooses) one source per step|escolhe uma fonte por passo")
MIXES = re.compile(r"SAM-Decoding[^;]{0,60}\b(?:mix|fuse|combine|graft|merge|mistura|funde|combina|enxerta)",
                   re.IGNORECASE)


def joined_texts(places: tuple[str, ...], keep=lambda text: True, skip: tuple[str, ...] = ()) -> dict[str, str]:
    """Each text file under `places` (.py, .md, .yaml, .po) whose text `keep` accepts, named by its path, with its
    wrapped strings joined (a .po's or a Python literal's `" "` continuation, a docstring's or Markdown's line break)
    so a sentence split over lines reads as one; files named in `skip` are left out."""
    found = {}
    for place in places:
        path = ROOT / place
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*")
                                                     if p.suffix in {".py", ".md", ".yaml", ".po"})
        for file in files:
            if file.name in skip:
                continue
            text = file.read_text(encoding="utf-8")
            if keep(text):
                joined = re.sub(r'"\s*\n\s*"', "", text)
                found[str(file.relative_to(ROOT))] = re.sub(r"\s+", " ", joined.replace("\\n", " "))
    return found


def _texts() -> dict[str, str]:
    """Each text file that names SAM-Decoding (this one aside), its sentences on one line."""
    return joined_texts(PLACES, keep=lambda text: "SAM-Decoding" in text, skip=(Path(__file__).name,))


def test_every_mention_of_sam_decoding_says_it_chooses_a_source_and_credits_rasd_with_the_fusion():
    texts = _texts()
    # library.md, benchmarks.md, engine/tree.py, the Proposers page and its Portuguese catalog at least
    assert {"docs/library.md", "docs/benchmarks.md", "specviz/engine/tree.py", "specviz/ui/proposers/view.py",
            "assets/locale/pt_BR/LC_MESSAGES/specviz.po"} <= set(texts)
    wrong = {}
    for name, text in texts.items():
        mentions = [m.start() for m in re.finditer("SAM-Decoding", text)]
        problems = [text[at:at + 160] for at in mentions if not CHOOSES.search(text[at:at + 160])]
        problems += [m.group(0) for m in MIXES.finditer(text)]
        if "RASD" not in text:
            problems.append("no RASD")
        if problems:
            wrong[name] = problems
    assert wrong == {}
    assert MIXES.search("SAM-Decoding (Hu et al. 2024) mixes a drafter's tree with retrieval")
    assert not CHOOSES.search("SAM-Decoding mixes the drafter's tree with a retrieved branch")
