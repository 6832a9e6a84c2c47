"""Dialects: the drafts this validator knows (draft-04 … 2020-12), each as a python-jsonschema class with our
keywords (:mod:`webapp.core.schema.keywords`) and a ``jsonschema_rs`` class; which one ``$schema`` names; and the
offline registry of the official metaschemas (nothing is ever fetched)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jsonschema_rs
import referencing
from jsonschema import validators
from jsonschema_specifications import REGISTRY as METASCHEMAS

from webapp.core.json import json_type
from webapp.core.schema.errors import SchemaError, show
from webapp.core.schema.keywords import extend

DEFAULT_DIALECT = "https://json-schema.org/draft/2020-12/schema"


@dataclass(frozen=True)
class Dialect:
    """One JSON Schema dialect as both engines implement it.

    :ivar uri: the ``$schema`` URI without the empty fragment.
    :ivar name: e.g. ``"2020-12"``, ``"draft-07"``.
    :ivar python: the python-jsonschema validator class, with our keywords.
    :ivar rust: the ``jsonschema_rs`` validator class.
    :ivar id_keyword: ``"id"`` (draft-04) or ``"$id"``.
    """

    uri: str
    name: str
    python: Any
    rust: Any
    id_keyword: str


DIALECTS: dict[str, Dialect] = {
    d.uri: d
    for d in (
        Dialect(
            "https://json-schema.org/draft/2020-12/schema",
            "2020-12",
            extend(validators.Draft202012Validator),
            jsonschema_rs.Draft202012Validator,
            "$id",
        ),
        Dialect(
            "https://json-schema.org/draft/2019-09/schema",
            "2019-09",
            extend(validators.Draft201909Validator),
            jsonschema_rs.Draft201909Validator,
            "$id",
        ),
        Dialect(
            "http://json-schema.org/draft-07/schema",
            "draft-07",
            extend(validators.Draft7Validator),
            jsonschema_rs.Draft7Validator,
            "$id",
        ),
        Dialect(
            "http://json-schema.org/draft-06/schema",
            "draft-06",
            extend(validators.Draft6Validator),
            jsonschema_rs.Draft6Validator,
            "$id",
        ),
        Dialect(
            "http://json-schema.org/draft-04/schema",
            "draft-04",
            extend(validators.Draft4Validator),
            jsonschema_rs.Draft4Validator,
            "id",
        ),
    )
}


def dialect_of(schema: Any) -> Dialect:
    """The dialect ``$schema`` names (JSON Schema 2020-12 core §8.1.1), default 2020-12.

    :raises SchemaError: for a ``$schema`` that is not a string or names no dialect we know; a near miss
        (trailing slash, ``https`` for ``http``, letter case) gets a "did you mean" hint.
    """
    if not isinstance(schema, dict) or "$schema" not in schema:
        return DIALECTS[DEFAULT_DIALECT]
    uri = schema["$schema"]
    if not isinstance(uri, str):
        raise SchemaError(f"$schema must be a string URI, not {json_type(uri)}", "/$schema", "$schema")
    exact = uri[:-1] if uri.endswith("#") else uri
    if exact in DIALECTS:
        return DIALECTS[exact]
    known = ", ".join(d.name for d in DIALECTS.values())
    if uri == "http://json-schema.org/draft-03/schema#" or uri.rstrip("#/") == "http://json-schema.org/draft-03/schema":
        raise SchemaError(f"draft-03 is not supported; use one of: {known}", "/$schema", "$schema")

    def loose(text: str) -> str:
        return text.strip().lower().replace("https://", "http://").rstrip("#/").rstrip()

    for candidate in DIALECTS:
        if loose(candidate) == loose(uri):
            hint = candidate + ("#" if candidate.startswith("http://") else "")
            raise SchemaError(f"unknown $schema {show(uri)}; did you mean {show(hint)}?", "/$schema", "$schema")
    raise SchemaError(
        f"unknown $schema {show(uri)}: it names no dialect this validator knows ({known}); remove it to use 2020-12",
        "/$schema",
        "$schema",
    )


def refuse_retrieval(uri: str) -> Any:
    """Retriever for both engines: nothing is ever fetched.

    :raises LookupError: always."""
    raise LookupError(f"remote references are disabled: {uri}")


#: The reference engine's registry: the official metaschemas (bundled, offline) and a retriever that refuses.
# `retrieve` is the attrs alias of Registry's private `_retrieve` field, which mypy's attrs support does not see.
_NO_RETRIEVAL: referencing.Registry = referencing.Registry(retrieve=refuse_retrieval)  # type: ignore[call-arg]  # see above
REGISTRY: referencing.Registry = _NO_RETRIEVAL.with_resources(list(METASCHEMAS.items()))
