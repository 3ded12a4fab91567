"""Which models a browser visitor may load by hand: nothing, unless the operator says so.

Loading a model folder can run code (a `configuration_*.py` with trust-remote-code, a pickled weight file) and its
error messages can tell a visitor which paths exist on the server. So the web UI's "pair by hand" form is off by
default, and when the operator turns it on:

    SPECVIZ_WEB_CUSTOM_MODELS=1              # visitors may load Hugging Face Hub ids (safetensors, no remote code)
    SPECVIZ_WEB_MODEL_ROOT=/srv/models       # ... and local folders, but only inside this folder

Remote code is never trusted from the browser (the CLI keeps its --trust-remote-code flag), and a refusal names only
what the visitor typed, never whether a path exists: a folder outside the root, a missing one, one that holds a
symlink leading out of the root or a symlink loop, a name too long for the file system, and a path with a comma (the
page joins target and draft as "TARGET,DRAFT", so a folder "a,/etc/x" inside the root would split into a second path
outside it) all get the one sentence NOT_LOADABLE. A load that passes this check and then fails (a config that is
not JSON, an id the Hub does not know, two vocabularies) gets its own sentence, with the folder written as the
visitor typed it (`specviz.ui.models.view`). A Hub id is only ever a Hub id: the page loads it with
`relative_folders=False` (specviz.models.loading.parse_ref), so a folder of that name in the server's working folder
is neither read nor told apart from a missing one.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from specviz.core.i18n import N_, _, number
from specviz.core.text import control_refusal, hidden_shown

ENABLE_ENV = "SPECVIZ_WEB_CUSTOM_MODELS"
ROOT_ENV = "SPECVIZ_WEB_MODEL_ROOT"
HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,95}(/[A-Za-z0-9][A-Za-z0-9_.-]{0,95})?$")
MAX_REF = 300
MAX_FILES = 10_000  # files a model folder may hold (each is checked for a symlink out of the root)
NOT_LOADABLE = N_("'{name}' cannot be loaded on this server: give a Hugging Face Hub id this server can download or "
                  "has cached, or a model folder inside the models folder it allows.")
MISSING = {"target": N_("Give the target: a Hugging Face Hub id such as Org/Model-Name."),
           "draft": N_("Give the draft: a Hugging Face Hub id such as Org/Model-Name."),
           "model": N_("Give the model: a Hugging Face Hub id such as Org/Model-Name.")}
# Read 48: with a models folder allowed, the empty field's sentence left out the ./FOLDER its label offers
MISSING_OR_FOLDER = {
    "target": N_("Give the target: a Hugging Face Hub id such as Org/Model-Name, or ./FOLDER for a folder inside "
                 "the allowed models folder."),
    "draft": N_("Give the draft: a Hugging Face Hub id such as Org/Model-Name, or ./FOLDER for a folder inside "
                "the allowed models folder."),
    "model": N_("Give the model: a Hugging Face Hub id such as Org/Model-Name, or ./FOLDER for a folder inside "
                "the allowed models folder.")}


@dataclass(frozen=True)
class WebModelPolicy:
    """The operator's choice: whether visitors may load models by hand, and the one folder local models may be in."""

    enabled: bool = False
    root: Path | None = None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> WebModelPolicy:
        env = os.environ if environ is None else environ
        enabled = env.get(ENABLE_ENV, "").strip().lower() in ("1", "true", "yes", "on")
        root = env.get(ROOT_ENV, "").strip()
        return cls(enabled, Path(root).expanduser().resolve() if root else None)

    def check(self, ref: str, what: str = "model") -> str:
        """The reference to load for what a visitor typed (a Hub id, or a resolved folder inside the root), or a
        ValueError with one sentence that reveals nothing about the server's files.

        >>> WebModelPolicy(True).check("HuggingFaceTB/SmolLM2-360M-Instruct")
        'HuggingFaceTB/SmolLM2-360M-Instruct'
        >>> WebModelPolicy(True).check("/etc")
        Traceback (most recent call last):
        ...
        ValueError: Local folders cannot be loaded from the browser on this server; use a Hugging Face Hub id.
        """
        if not self.enabled:
            raise ValueError(_("Loading models by hand is turned off on this server (the operator can turn it on "
                               "with {setting}=1).", setting=ENABLE_ENV))
        text = ref.strip()
        if refusal := control_refusal(text):  # read 48: a NUL read as an empty name ("Give the target")
            raise ValueError(refusal)
        if not text:
            missing = MISSING if self.root is None else MISSING_OR_FOLDER
            raise ValueError(_(missing.get(what, missing["model"])))
        if len(text) > MAX_REF:
            raise ValueError(_("'{name}' is too long for a model's name: at most {limit} characters.",
                               name=_shown(text), limit=number(MAX_REF, 0)))
        if _looks_local(text) and not _web_address(text):  # the model's Hub page is no folder (read 52)
            return self._local(text)
        if not HUB_ID.match(text) or ".." in text:
            raise ValueError(_("'{name}' is not a Hugging Face Hub id (Org/Model-Name) that can be loaded here.",
                               name=_shown(text)))
        return text  # a Hub id, whatever the working folder holds: nothing here is read for it

    def _local(self, text: str) -> str:
        if self.root is None:
            raise ValueError(_("Local folders cannot be loaded from the browser on this server; use a Hugging Face "
                               "Hub id."))
        try:  # a symlink loop (RuntimeError) or a name too long (OSError) is refused like any other folder
            path = (self.root / text.removeprefix("~/")).resolve() if not text.startswith("/") else \
                Path(text).resolve()
            inside = ("," not in str(path) and path.is_relative_to(self.root) and (path / "config.json").is_file()
                      and not self._escapes(path))
        except (OSError, RuntimeError):
            inside = False
        if not inside:
            raise ValueError(not_loadable(text))
        return str(path)

    def _escapes(self, folder: Path) -> bool:
        """Whether anything in the folder (a weight file, a tokenizer, a subfolder) resolves outside the root or
        cannot be resolved (a symlink loop), or the folder holds more than MAX_FILES entries."""
        try:
            for count, entry in enumerate(folder.rglob("*")):
                if count >= MAX_FILES or not entry.resolve().is_relative_to(self.root):
                    return True
        except (OSError, RuntimeError):
            return True
        return False


def not_loadable(typed: str) -> str:
    """The one sentence for a reference that cannot be loaded, whatever the reason (it names only what was typed)."""
    return _(NOT_LOADABLE, name=_shown(typed.strip()))


HUB_HOSTS = ("huggingface.co/", "www.huggingface.co/", "hf.co/")


def _web_address(text: str) -> bool:
    """Whether a typed name is a web address: with a scheme, or the Hub's own host without one, as an address bar
    shows it (read 55: "huggingface.co/Org/Model" was refused as a local folder where the page takes none).

    >>> _web_address("https://huggingface.co/Org/M"), _web_address("HuggingFace.co/Org/M"), _web_address("./Org/M")
    (True, True, False)
    """
    return "://" in text or text.lower().startswith(HUB_HOSTS)


def _looks_local(text: str) -> bool:
    return text.startswith(("/", "~", ".")) or "\\" in text or ".." in text or text.count("/") > 1


def _shown(text: str, limit: int = 60) -> str:
    """A typed name as a refusal quotes it: a character the reader cannot see (a zero-width space, a soft hyphen)
    written as its escape, so "'org/m\\u200b' is not a Hub id" does not read as a refusal of a good id (read 52).

    >>> _shown("org/m\\u200b"), _shown("a" * 70)[-3:]
    ('org/m\\\\u200b', 'aa…')
    """
    text = hidden_shown(text, kept=frozenset())
    return text if len(text) <= limit else text[: limit - 1] + "…"
