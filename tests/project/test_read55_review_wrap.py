"""Read 55 (review 2): lines this session's commits added stayed within the 120 characters the docs and code are
wrapped at, and a re-wrapped paragraph left no stray fragment ("compute-bound," alone on its line in teaching.md's
lesson 10, pt "porque a leitura")."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WRAPPED = ("docs/teaching.md", "docs/teaching.pt-BR.md", "pages/sandbox.py", "specviz/labs/exactness/lab.py")


def test_the_files_this_session_touched_are_wrapped_at_120():
    long = [f"{name}:{n}" for name in WRAPPED
            for n, line in enumerate((ROOT / name).read_text(encoding="utf-8").splitlines(), 1)
            if len(line) > 120 and not line.startswith("|")]
    assert long == []
    exports = (ROOT / "specviz/models/loading.py").read_text(encoding="utf-8").split("__all__", 1)[1].split("]")[0]
    assert max(len(line) for line in exports.splitlines()) <= 120


def test_the_teaching_plans_leave_no_fragment_alone_in_a_paragraph():
    for name in ("docs/teaching.md", "docs/teaching.pt-BR.md"):
        lines = (ROOT / name).read_text(encoding="utf-8").splitlines()
        fence, stray = False, []
        for n, (line, after) in enumerate(zip(lines, lines[1:]), 1):
            fence ^= line.lstrip().startswith("```")
            body, nxt = line.strip(), after.strip()
            if fence or not body or not nxt or body.startswith("|") or re.match(r"^(\d+\.|[-*>#])", nxt):
                continue
            if len(line) < 40 and len(line) + 1 + len(nxt.split()[0]) <= 120:  # the next word would have fitted
                stray.append(f"{name}:{n}: {body}")
        assert stray == []
