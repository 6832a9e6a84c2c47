"""Referenced schemas the user supplies: extra schema documents, resolved locally by URI, never fetched.

Tool schemas often ``$ref`` shared definitions by URL (``"$ref": "https://example.com/address.json"``). The user
supplies those documents (a ``schemas`` list in ``/api/gate``, ``--schema-dir`` in the CLI, extra documents on the
Schema page); :func:`bundle` embeds the ones the schema reaches into it, each as an embedded schema resource
identified by its URI — a Compound Schema Document (JSON Schema 2020-12 core §9.3; draft-04 … draft-07 read an
``id``/``$id`` below ``definitions`` the same way). The layer then resolves every reference inside one document as
it always does, and both engines see the same bundle.

A ``$schema`` naming a supplied document (a custom metaschema, core §8.1.1) is read for its dialect (the
metaschema's own ``$schema``) and its ``$vocabulary`` (core §8.1.2): the keywords of a standard vocabulary the
metaschema leaves out are no keywords of this schema, so they are dropped from the bundle (an unknown keyword is
an annotation only, core §4.3.1); an unknown vocabulary marked required is refused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urldefrag, urljoin

from webapp.core.json import json_type
from webapp.core.json import pointer as jp
from webapp.core.schema.analysis import subschema_shapes
from webapp.core.schema.dialects import DIALECTS, Dialect, dialect_of
from webapp.core.schema.errors import SchemaInvalid, show
from webapp.core.schema.keywords import REF_KEYWORDS

# The keywords of each standard vocabulary that a custom metaschema may leave out (2019-09 and 2020-12 core
# §8.1.2; the vocabularies' own metaschemas, meta/validation … meta/content). Core is always in use.
_VOCABULARY_KEYWORDS: dict[str, frozenset[str]] = {
    "validation": frozenset(
        {
            "type",
            "enum",
            "const",
            "multipleOf",
            "maximum",
            "exclusiveMaximum",
            "minimum",
            "exclusiveMinimum",
            "maxLength",
            "minLength",
            "pattern",
            "maxItems",
            "minItems",
            "uniqueItems",
            "maxContains",
            "minContains",
            "maxProperties",
            "minProperties",
            "required",
            "dependentRequired",
        }
    ),
    "applicator": frozenset(
        {
            "prefixItems",
            "items",
            "additionalItems",
            "contains",
            "additionalProperties",
            "properties",
            "patternProperties",
            "dependentSchemas",
            "propertyNames",
            "if",
            "then",
            "else",
            "allOf",
            "anyOf",
            "oneOf",
            "not",
            "unevaluatedItems",
            "unevaluatedProperties",
        }
    ),
    "unevaluated": frozenset({"unevaluatedItems", "unevaluatedProperties"}),
    "format": frozenset({"format"}),
    "format-annotation": frozenset({"format"}),
    "format-assertion": frozenset({"format"}),
    "content": frozenset({"contentEncoding", "contentMediaType", "contentSchema"}),
    "meta-data": frozenset(),
    "core": frozenset(),
}
_VOCABULARY_PREFIX = {
    "2019-09": "https://json-schema.org/draft/2019-09/vocab/",
    "2020-12": "https://json-schema.org/draft/2020-12/vocab/",
}
# Where a bundle keeps the embedded documents: the dialect's definitions keyword.
_DEFINITIONS = {"2019-09": "$defs", "2020-12": "$defs"}


def known_documents(documents: Mapping[str, Any] | Sequence[Any], where: str = "schemas") -> dict[str, Any]:
    """The supplied documents by absolute URI (without fragment).

    :param documents: either a mapping URI -> schema document (a document without ``$id`` is known by that URI,
        as if retrieved from it), or a list of schema objects, each known by its ``$id`` (``id`` in draft-04).
    :param where: how the caller names the documents in messages (``"schemas"``, a folder, …).
    :raises SchemaInvalid: for a document that is no schema, has no usable URI, or a URI given twice; the
        pointer is the document's place among ``documents`` (``/2``, ``/https:~1~1example.com~1a.json``).
    """
    known: dict[str, Any] = {}
    entries = documents.items() if isinstance(documents, Mapping) else enumerate(documents)
    for key, document in entries:
        place = jp.child("", key)
        if not isinstance(document, (dict, bool)):
            raise SchemaInvalid(
                f"{where}: a schema must be a JSON object or a boolean, not {json_type(document)}", place
            )
        uri = key if isinstance(key, str) else _own_id(document)
        if not isinstance(uri, str) or not uri:
            raise SchemaInvalid(
                f'{where}: this schema has no "$id", so nothing can refer to it; give it an absolute "$id"',
                place,
                "$id",
            )
        uri = urldefrag(uri)[0]
        if ":" not in uri:
            raise SchemaInvalid(
                f"{where}: {show(uri)} is not an absolute URI (a scheme such as https: is needed)", place, "$id"
            )
        if uri in known:
            raise SchemaInvalid(f"{where}: two schemas are known by {show(uri)}", place, "$id")
        known[uri] = document
    return known


def _own_id(document: Any) -> str | None:
    if not isinstance(document, dict):
        return None
    for keyword in ("$id", "id"):
        if isinstance(document.get(keyword), str):
            return document[keyword]
    return None


def bundle(schema: Any, documents: Mapping[str, Any] | Sequence[Any]) -> Any:
    """``schema`` with the supplied ``documents`` it refers to (directly or through each other) embedded as
    schema resources (JSON Schema 2020-12 core §9.3), so that its references resolve locally.

    ``schema`` itself is returned (the same object) when it reaches none of them; the result is a new document
    otherwise, the original schema unchanged. What is embedded keeps its meaning: a document known by a URI
    other than its ``$id`` is reachable by both.

    :param documents: as :func:`known_documents` takes them.
    :raises SchemaInvalid: as :func:`known_documents`; for a ``$schema`` naming a supplied metaschema whose own
        ``$schema`` is no dialect this validator knows, or that requires a vocabulary it does not know.
    """
    known = known_documents(documents)
    if not known:
        return schema
    metaschema_uri = schema.get("$schema") if isinstance(schema, dict) else None
    vocabularies = None
    if isinstance(metaschema_uri, str) and urldefrag(metaschema_uri)[0] in known:
        schema, vocabularies = _under_custom_metaschema(schema, known[urldefrag(metaschema_uri)[0]])
    dialect = dialect_of(schema)
    reached = _reached(schema, dialect, known)
    if not reached and vocabularies is None:
        return schema
    definitions = _DEFINITIONS.get(dialect.name, "definitions")
    embedded = {uri: _embedded(uri, known[uri], dialect) for uri in reached}
    if (
        isinstance(schema, dict)
        and not ("$ref" in schema and definitions == "definitions")
        and isinstance(schema.get(definitions, {}), dict)
        and not set(schema.get(definitions, {})) & set(embedded)
    ):
        bundled = dict(schema)
        bundled[definitions] = {**schema.get(definitions, {}), **embedded}
    else:  # a boolean, or a draft-07 `$ref` whose siblings are ignored: the schema goes one level down
        inner = schema
        if isinstance(schema, dict) and "$schema" in schema:
            inner = {k: v for k, v in schema.items() if k != "$schema"}
        bundled = {"$schema": dialect.uri, definitions: embedded, "allOf": [inner]}
    if vocabularies is not None:
        bundled = _without_keywords(bundled, _left_out(vocabularies, dialect), dialect)
    return bundled


def _under_custom_metaschema(schema: dict, metaschema: Any) -> tuple[dict, dict[str, bool] | None]:
    """The schema with ``$schema`` set to the dialect of its custom ``metaschema``, and that metaschema's
    ``$vocabulary`` (``None`` when it has none: every vocabulary of the dialect)."""
    base = metaschema.get("$schema") if isinstance(metaschema, dict) else None
    if not isinstance(base, str) or urldefrag(base)[0] not in DIALECTS:
        raise SchemaInvalid(
            f"$schema {show(schema['$schema'])} names a supplied metaschema whose own $schema "
            f"({show(base)}) is no dialect this validator knows",
            "/$schema",
            "$schema",
        )
    vocabulary = metaschema.get("$vocabulary")
    return {**schema, "$schema": base}, (vocabulary if isinstance(vocabulary, dict) else None)


def _left_out(vocabularies: dict[str, bool], dialect: Dialect) -> frozenset[str]:
    """The keywords of the standard vocabularies not in ``vocabularies`` (a ``$vocabulary`` object).

    :raises SchemaInvalid: for a required vocabulary this validator does not know (core §8.1.2)."""
    prefix = _VOCABULARY_PREFIX.get(dialect.name)
    if prefix is None:  # vocabularies came with 2019-09
        return frozenset()
    used = set()
    for uri, required in vocabularies.items():
        name = uri[len(prefix) :] if uri.startswith(prefix) else None
        if name in _VOCABULARY_KEYWORDS:
            used.add(name)
        elif required is True:
            raise SchemaInvalid(
                f"the metaschema requires the vocabulary {show(uri)}, which this validator does not know",
                "/$schema",
                "$schema",
            )
    if "format-annotation" in used or "format-assertion" in used:
        used.add("format")
    if dialect.name == "2019-09":
        used.discard("unevaluated")  # 2019-09 has unevaluated* in the applicator vocabulary
    kept = frozenset().union(*(_VOCABULARY_KEYWORDS[name] for name in used))
    left_out = frozenset().union(*(keywords for name, keywords in _VOCABULARY_KEYWORDS.items() if name not in used))
    return left_out - kept


def _without_keywords(schema: Any, dropped: frozenset[str], dialect: Dialect) -> Any:
    """A copy of ``schema`` without the keywords ``dropped`` in it and its subschemas."""
    shapes = subschema_shapes(dialect)
    if not dropped or not isinstance(schema, dict):
        return schema
    result = {}
    for keyword, value in schema.items():
        if keyword in dropped:
            continue
        shape = shapes.get(keyword)
        if shape == "map" and isinstance(value, dict):
            value = {k: _without_keywords(v, dropped, dialect) for k, v in value.items()}
        elif shape in ("list", "one_or_list") and isinstance(value, list):
            value = [_without_keywords(v, dropped, dialect) for v in value]
        elif shape in ("one", "one_or_list"):
            value = _without_keywords(value, dropped, dialect)
        result[keyword] = value
    return result


def _embedded(uri: str, document: Any, dialect: Dialect) -> Any:
    """``document`` as an embedded resource known by ``uri``: its ``$id`` made absolute against ``uri`` (as a
    retrieved document's would be, RFC 3986 §5.1.3), or a resource ``uri`` that refers to it when its ``$id``
    names another URI."""
    keyword = dialect.id_keyword
    if isinstance(document, bool):
        return {keyword: uri, "allOf": [document]}
    own = document.get(keyword)
    if not isinstance(own, str) or own.startswith("#"):
        return {**document, keyword: uri}
    absolute = urljoin(uri, own)
    if urldefrag(absolute)[0] == uri:
        return {**document, keyword: absolute}
    # known by `uri` but identified as `absolute`: both lead to it
    return {keyword: uri, "allOf": [{**document, keyword: absolute}]}


def _reached(schema: Any, dialect: Dialect, known: dict[str, Any]) -> list[str]:
    """The URIs of the supplied documents ``schema`` refers to, directly or through each other, in a stable
    order (the order of ``known``)."""
    reached: set[str] = set()
    pending = [(schema, "https://schema.invalid/root.json")]
    while pending:
        document, base = pending.pop()
        for ref in _references(document, base, dialect):
            target = urldefrag(ref)[0]
            if target in known and target not in reached:
                reached.add(target)
                pending.append((known[target], target))
    return [uri for uri in known if uri in reached]


def _references(node: Any, base: str, dialect: Dialect) -> list[str]:
    """Every reference in ``node`` resolved against its base URI (``$id`` changes it on the way down).
    Iterative: schemas can be deep."""
    found: list[str] = []
    stack = [(node, base)]
    while stack:
        value, here = stack.pop()
        if isinstance(value, list):
            stack.extend((item, here) for item in value)
            continue
        if not isinstance(value, dict):
            continue
        own = value.get(dialect.id_keyword)
        if isinstance(own, str) and not own.startswith("#"):
            try:
                here = urljoin(here, own)
            except ValueError:
                pass
        for keyword in (*REF_KEYWORDS, "$schema"):
            ref = value.get(keyword)
            if isinstance(ref, str) and not ref.startswith("#"):
                try:
                    found.append(urljoin(here, ref))
                except ValueError:
                    continue
        stack.extend((child, here) for child in value.values() if isinstance(child, (dict, list)))
    return found
