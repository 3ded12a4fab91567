"""The tests themselves (issue 29, item 6): no test passes on an empty loop.

A test whose every check sits inside a `for` (or `while`) over something that could be empty (a registry, a
fixture's list, a slice, a glob) passes when that something is empty, having checked nothing. Each such test also
checks something outside its loops: that what it loops over has the size it relies on (`assert len(HELD_OUT) >= 3`
before `for text in HELD_OUT[:3]:`), or how many things the loop saw.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
SCANNED = sorted(TESTS.rglob("test_*.py"))  # every subfolder: tests/ mirrors the packages


def _never_empty(iterable: ast.expr) -> bool:
    """Whether a loop over `iterable` surely runs at least once: a literal with an item (not only `*rest`), a
    non-empty string, `range` of constants with a length, or enumerate/zip/sorted/reversed/list/tuple/set and
    .items()/.keys()/.values() of such."""
    if isinstance(iterable, (ast.Tuple, ast.List, ast.Set)):
        return any(not isinstance(e, ast.Starred) or _never_empty(e.value) for e in iterable.elts)
    if isinstance(iterable, ast.Dict):
        return any(key is not None for key in iterable.keys)  # a None key is a `**other`
    if isinstance(iterable, ast.Constant):
        return isinstance(iterable.value, (str, bytes)) and len(iterable.value) > 0
    if isinstance(iterable, ast.Call):  # keywords (key=, strict=, start=) do not change the length
        func, args = iterable.func, iterable.args
        if isinstance(func, ast.Name) and func.id == "range":
            if args and all(isinstance(a, ast.Constant) and isinstance(a.value, int) for a in args):
                return len(range(*[a.value for a in args])) > 0
            return False
        if isinstance(func, ast.Name) and func.id in ("enumerate", "sorted", "reversed", "list", "tuple", "set"):
            return bool(args) and _never_empty(args[0])
        if isinstance(func, ast.Name) and func.id == "zip":
            return bool(args) and all(_never_empty(a) for a in args)
        if isinstance(func, ast.Attribute) and func.attr in ("items", "keys", "values") and not args:
            return _never_empty(func.value)
    return False


def _is_raises(with_item: ast.withitem) -> bool:
    """`with pytest.raises(...)` (or a bare `raises(...)`): a check, since the block must raise."""
    func = with_item.context_expr.func if isinstance(with_item.context_expr, ast.Call) else None
    return (isinstance(func, ast.Attribute) and func.attr == "raises"
            or isinstance(func, ast.Name) and func.id == "raises")


def _checks(test: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, int]:
    """(inside, outside): how many of the test's checks (asserts, `with pytest.raises`) sit inside a loop that may
    run zero times, and how many sit outside every such loop. A function or class defined inside the test is left
    out: it runs only if called."""
    inside = outside = 0

    def visit(node: ast.AST, looped: bool) -> None:
        nonlocal inside, outside
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return
        if isinstance(node, ast.Assert) or isinstance(node, (ast.With, ast.AsyncWith)) and any(
                _is_raises(item) for item in node.items):
            inside, outside = (inside + 1, outside) if looped else (inside, outside + 1)
        # a loop's iterable (or a while's first test) and its `else:` run once, even when the body never does
        if isinstance(node, (ast.For, ast.AsyncFor)):
            once, body_may_not_run = node.iter, not _never_empty(node.iter)
        elif isinstance(node, ast.While):  # `while True:` runs its body at least once
            once, body_may_not_run = node.test, not (isinstance(node.test, ast.Constant) and bool(node.test.value))
        else:
            for child in ast.iter_child_nodes(node):
                visit(child, looped)
            return
        visit(once, looped)
        for statement in node.body:
            visit(statement, looped or body_may_not_run)
        for statement in node.orelse:
            visit(statement, looped)

    for statement in test.body:
        visit(statement, False)
    return inside, outside


def loop_only_tests(source: str) -> list[tuple[int, str]]:
    """(line, name) of each test function in `source` that has checks and all of them inside loops that may run
    zero times: no assert, and no `with pytest.raises(...)`, outside such a loop. A loop over a non-empty literal
    (`for k in (1, 3):`, `range(4)`) is not such a loop.

    >>> loop_only_tests('''
    ... def test_every_rule_is_exact(rules):
    ...     for rule in rules:
    ...         assert rule.exact
    ... ''')
    [(2, 'test_every_rule_is_exact')]
    >>> loop_only_tests('''
    ... def test_every_rule_is_exact(rules):
    ...     assert len(rules) >= 2
    ...     for rule in rules:
    ...         assert rule.exact
    ...
    ... def test_both_signs(sign):
    ...     for x in (-1, 1):
    ...         assert sign(x) == x
    ... ''')
    []
    """
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            inside, outside = _checks(node)
            if inside and not outside:
                found.append((node.lineno, node.name))
    return sorted(found)


@pytest.mark.slow  # over the fast tier's 0.7 s a test
def test_no_test_checks_only_inside_loops_that_may_be_empty():
    assert len(SCANNED) > 80 and TESTS / "project" / "test_tests.py" in SCANNED
    found = [f"{path.relative_to(TESTS.parent).as_posix()}:{line} {name}" for path in SCANNED
             for line, name in loop_only_tests(path.read_text(encoding="utf-8"))]
    assert not found, ("these tests pass when what they loop over is empty; check outside the loop that it is not "
                       "(e.g. `assert len(items) >= 3` before it, or a count of what it saw after it):\n"
                       + "\n".join(found))


LOOP_ONLY = """
def test_greedy_output_equals_target_only(prompts):
    for text in prompts[:3]:
        assert speculative(text) == plain(text)
"""


def variant(old: str, new: str, tail: str = "") -> str:
    """LOOP_ONLY with `old` replaced by `new` (which must be there) and `tail` appended."""
    assert old in LOOP_ONLY, old
    return LOOP_ONLY.replace(old, new) + tail


FOR = "    for text in prompts[:3]:\n"


@pytest.mark.parametrize("fixed", [
    variant(FOR, "    assert len(prompts) >= 3\n" + FOR),  # the size it relies on
    variant(FOR, "    seen = 0\n" + FOR, "        seen += 1\n    assert seen == 3\n"),  # a count of what it saw
    variant("prompts[:3]", '["hello", "the sky is"]'),  # a literal cannot be empty
    variant("prompts[:3]", "enumerate(range(3))"),
    variant("prompts[:3]", "zip((1, 2), {'a': 1}.items(), strict=True)"),
    variant("", "", "    with pytest.raises(ValueError):\n        speculative('')\n"),  # a check outside the loop
    variant("", "", "    else:\n        assert not prompts[:3]\n"),  # a loop's else runs after no pass too
    variant(FOR, "    while True:\n"),  # runs at least once
])
def test_the_scanner_passes_a_test_that_checks_outside_its_loops(fixed):
    assert loop_only_tests(LOOP_ONLY) == [(2, "test_greedy_output_equals_target_only")]
    assert loop_only_tests(fixed) == []


@pytest.mark.parametrize("broken", [
    LOOP_ONLY,
    variant("prompts[:3]", "range(n)"),  # n may be 0
    variant("prompts[:3]", "[*prompts]"),  # only a spread: may be empty
    variant("prompts[:3]", "zip([1], prompts)"),
    variant("prompts[:3]", "RULES.items()"),
    variant(FOR, "    while prompts:\n"),
    # a literal loop around the may-be-empty one does not help
    "\ndef test_both_k(prompts):\n    for k in (1, 3):\n        for text in prompts:\n            assert text\n",
    # nor a check in a helper that is never called, nor a pytest.raises inside the loop
    variant(FOR, "    def helper():\n        assert prompts\n" + FOR),
    variant("        assert", "        with pytest.raises(ValueError):\n            f(text)\n        assert"),
    "\nasync def test_async(xs):\n    async for x in xs:\n        assert x\n",
    "\nclass TestRules:\n    def test_each(self, rules):\n        for r in rules:\n            assert r\n",
])
def test_the_scanner_catches_a_test_that_checks_only_inside_loops_that_may_be_empty(broken):
    assert len(loop_only_tests(broken)) == 1


def test_the_scanner_leaves_out_helpers_and_tests_without_checks():
    assert loop_only_tests("def check_all(xs):\n    for x in xs:\n        assert x\n") == []  # not a test
    assert loop_only_tests("def test_runs(xs):\n    for x in xs:\n        run(x)\n") == []  # no check at all


def test_a_parametrized_test_with_no_cases_fails_instead_of_being_skipped(pytestconfig):
    """31st read: about 40 tests take their cases from a computed list; pytest skips one whose list comes out empty,
    and the suite passes having checked nothing. pyproject.toml makes that a collection error instead."""
    assert pytestconfig.getini("empty_parameter_set_mark") == "fail_at_collect"
