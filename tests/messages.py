"""What a test looks for when a sentence's wording is not the point: the message the page shows, named by its
constant in the code (a key of a page's TEXT table), not its English copied into the test, so rewording a sentence
never breaks a test about something else.

    assert any(lead(paced_student.TEXT["waiting"]) in i.value for i in at.info)
"""

from __future__ import annotations

from specviz.core.i18n import _


def lead(message: str) -> str:
    """The words `message` shows before its first placeholder, in the language the test runs in.

    >>> lead("Pushed to session {code}: question {number}.")
    'Pushed to session'
    """
    return _(message).split("{")[0].strip()
