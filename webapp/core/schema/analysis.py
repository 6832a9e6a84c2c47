"""Static analysis of a schema document, once per compilation: every schema node and its base URI, anchors and
resources, ``$ref`` targets (local only: JSON Schema 2020-12 core §8.2, §9), cycles that never reach a concrete
schema, the patterns to check, and what makes the Rust engine read the schema otherwise."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urldefrag, urljoin

import referencing.exceptions
import referencing.jsonschema
from jsonschema_specifications import REGISTRY as METASCHEMAS

from webapp.core.json import json_type
from webapp.core.json import pointer as jp
from webapp.core.schema.dialects import REGISTRY, Dialect
from webapp.core.schema.errors import SchemaInvalid, show
from webapp.core.schema.keywords import REF_KEYWORDS

# Nesting limit for a schema document (JSON levels). python-jsonschema checks a schema against its metaschema
# recursively and runs out of stack near 200 levels; 100 is the app's JSON_MAX_DEPTH too.
MAX_SCHEMA_DEPTH = 100
# Base URI of a schema without $id (RFC 3986 §5.1.4 lets the application choose one); nothing is ever fetched.
_ROOT_BASE = "https://schema.invalid/root.json"

# keyword -> how its value holds subschemas: "one" schema, a "list" of schemas, a "map" of name -> schema
_SUBSCHEMAS = {
    "additionalItems": "one",
    "additionalProperties": "one",
    "contains": "one",
    "contentSchema": "one",
    "else": "one",
    "if": "one",
    "items": "one_or_list",
    "not": "one",
    "propertyNames": "one",
    "then": "one",
    "unevaluatedItems": "one",
    "unevaluatedProperties": "one",
    "allOf": "list",
    "anyOf": "list",
    "oneOf": "list",
    "prefixItems": "list",
    "$defs": "map",
    "definitions": "map",
    "dependentSchemas": "map",
    "patternProperties": "map",
    "properties": "map",
    "dependencies": "map",
}
# keywords that apply their subschemas to the *same* instance: a cycle through only these never ends
_IN_PLACE = {"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependencies"}
# Keywords of older dialects the Rust engine still applies in 2019-09 and 2020-12, where they are no keywords: a
# schema using one is validated by python-jsonschema alone, which ignores it as the dialect says. (`dependencies`,
# which 2019-09 split into dependentRequired and dependentSchemas, is applied by both: keywords.extend.)
_RUST_APPLIES_ANYWAY: tuple[str, ...] = ()


@functools.cache
def _subschema_keywords(dialect_uri: str) -> frozenset[str]:
    """The keywords of :data:`_SUBSCHEMAS` that hold subschemas in this dialect, as python-jsonschema's
    ``referencing`` sees them (draft-07 has no ``$defs``: a ``$id`` under it is no resource there, and a schema
    under it is one only when a ``$ref`` points at it)."""
    spec = referencing.jsonschema.specification_with(dialect_uri)
    probe: dict[str, Any] = {}
    known = set()
    for keyword, shape in _SUBSCHEMAS.items():
        value = {"map": {"x": probe}, "list": [probe]}.get(shape, probe)
        if any(found is probe for found in spec.subresources_of({keyword: value})):
            known.add(keyword)
    known.add("dependencies")  # applied in every dialect (keywords.extend); only the map form holds schemas
    return frozenset(known)


def subschema_shapes(dialect: Dialect) -> dict[str, str]:
    """The keywords holding subschemas in ``dialect``, each with how its value holds them: ``"one"`` schema,
    ``"list"``, ``"one_or_list"`` (``items``), ``"map"`` of name -> schema."""
    return {keyword: _SUBSCHEMAS[keyword] for keyword in _subschema_keywords(dialect.uri)}


@dataclass
class Node:
    """One schema node of the document: where it is, the base URI of its resource, the value."""

    pointer: str
    base: str  # URI of the schema resource this node belongs to
    value: Any


class Analysis:
    """One pass over a schema document: nodes, resources, anchors, references (JSON Schema 2020-12 core §8.2, §9)."""

    def __init__(self, schema: Any, dialect: Dialect) -> None:
        self.schema = schema
        self.dialect = dialect
        self.nodes: dict[str, Node] = {}
        self.node_by_id: dict[int, str] = {}  # id(dict subschema) -> pointer, for error schema paths
        self.resources: dict[str, str] = {}  # resource URI -> pointer of its root
        self.anchors: dict[tuple[str, str], str] = {}
        self.refs: list[tuple[str, str, str, str]] = []  # (node pointer, keyword, ref value, base URI)
        self.false_nodes: list[str] = []
        self.edges: dict[str, list[tuple[str, str]]] = {}  # pointer -> [(target pointer, via keyword)]
        # pointer -> the pointers validation descends to from there: subschemas, and $ref targets
        self.descents: dict[str, list[str]] = {}
        self.refers_to_metaschema = False
        self.has_multiple_of = False
        self.keywords = _subschema_keywords(dialect.uri)
        # keywords the Rust engine applies where this dialect has none of that name: (pointer, keyword)
        self.rust_differs: list[tuple[str, str]] = []
        self.patterns: list[tuple[str, str]] = []  # (pointer of the pattern, ECMA pattern)
        # $ref targets that are no subschema of the document (e.g. under "const"): (target, place of the $ref)
        self.foreign_targets: list[tuple[str, str]] = []
        self._walk(schema, "", _ROOT_BASE, 0)

    def _walk(self, node: Any, where: str, base: str, depth: int) -> None:
        dialect_keywords = self.dialect.python.VALIDATORS
        if depth > MAX_SCHEMA_DEPTH:
            raise SchemaInvalid(f"the schema is nested deeper than {MAX_SCHEMA_DEPTH} levels", where)
        if where in self.nodes:
            return
        if node is False:
            self.false_nodes.append(where)
        if not isinstance(node, dict):
            self.nodes[where] = Node(where, base, node)
            return
        new_id = node.get(self.dialect.id_keyword)
        if isinstance(new_id, str) and not (
            "$ref" in node and self.dialect.name in ("draft-04", "draft-06", "draft-07")
        ):
            target, fragment = _join_uri(
                base, new_id, jp.child(where, self.dialect.id_keyword), self.dialect.id_keyword
            )
            if target:
                base = target
                self.resources.setdefault(base, where)
            if fragment and not fragment.startswith("/"):  # draft-06/07 plain-name fragment = an anchor
                self.anchors.setdefault((base, fragment), where)
        elif where == "":
            self.resources.setdefault(base, "")
        for anchor_keyword in ("$anchor", "$dynamicAnchor"):
            anchor = node.get(anchor_keyword)
            if isinstance(anchor, str):
                self.anchors.setdefault((base, anchor), where)
        self.nodes[where] = Node(where, base, node)
        self.node_by_id[id(node)] = where
        if "multipleOf" in node:
            self.has_multiple_of = True
        for keyword in _RUST_APPLIES_ANYWAY:
            if keyword in node and keyword not in dialect_keywords:
                self.rust_differs.append((jp.child(where, keyword), keyword))
        if isinstance(node.get("pattern"), str):
            self.patterns.append((jp.child(where, "pattern"), node["pattern"]))
        if isinstance(node.get("patternProperties"), dict):
            here = jp.child(where, "patternProperties")
            self.patterns.extend((jp.child(here, key), key) for key in node["patternProperties"])
        for keyword in REF_KEYWORDS:
            ref = node.get(keyword)
            if isinstance(ref, str):
                self.refs.append((where, keyword, ref, base))
        if "$ref" in node and not isinstance(node["$ref"], str):  # draft-04's metaschema does not say so
            raise SchemaInvalid(
                f"$ref must be a string (a URI reference), not {json_type(node['$ref'])}",
                jp.child(where, "$ref"),
                "$ref",
            )
        edges = self.edges.setdefault(where, [])
        for keyword, value in node.items():
            shape = _SUBSCHEMAS.get(keyword) if keyword in self.keywords else None
            if shape is None:
                continue
            here = jp.child(where, keyword)
            children: list[tuple[str, Any]] = []
            step = 2  # JSON levels from this schema to a subschema: keyword, then member or index
            if shape == "map" and isinstance(value, dict):
                children = [(jp.child(here, k), v) for k, v in value.items()]
            elif shape in ("list", "one_or_list") and isinstance(value, list):
                children = [(jp.child(here, i), v) for i, v in enumerate(value)]
            elif shape in ("one", "one_or_list"):
                children, step = [(here, value)], 1
            for child_pointer, child in children:
                if isinstance(child, (dict, bool)):
                    self.descents.setdefault(where, []).append(child_pointer)
                    self._walk(child, child_pointer, base, depth + step)
                    if keyword in _IN_PLACE:
                        edges.append((child_pointer, keyword))

    def resolve(self, ref: str, base: str, where: str, keyword: str) -> str | None:
        """Pointer of the node ``ref`` names, ``None`` for a bundled metaschema.

        :raises SchemaInvalid: remote (outside this document) or dangling reference, or one whose target is no
            schema (JSON Schema 2020-12 core §8.2.3.1: a reference's target is a schema — an object or a boolean).
        """
        place = jp.child(where, keyword)
        target, fragment = _join_uri(base, ref, place, keyword)
        if target not in self.resources:
            if target in METASCHEMAS:
                self._check_metaschema_target(ref, target, fragment, place, keyword)
                return None  # a bundled official metaschema: available offline
            raise SchemaInvalid(
                f"remote references are disabled: {keyword} {show(ref)} points outside this "
                f"schema and is never fetched; paste the referenced schema under $defs and "
                f'refer to it as "#/$defs/…"',
                place,
                keyword,
            )
        root = self.resources[target]
        if fragment == "" or fragment.startswith("/"):
            pointer = root + unquote(fragment)
            try:
                value = jp.resolve(self.schema, pointer)
            except (KeyError, ValueError):
                raise SchemaInvalid(
                    f"{keyword} {show(ref)} points at {pointer or '(root)'}, which does not exist in this schema",
                    place,
                    keyword,
                ) from None
            if not isinstance(value, (dict, bool)):
                raise SchemaInvalid(
                    f"{keyword} {show(ref)} points at {pointer or '(root)'}, which is "
                    f"{json_type(value)} {show(value, 40)}, not a schema (an object or a "
                    f"boolean)",
                    place,
                    keyword,
                )
            if pointer not in self.nodes:
                self.foreign_targets.append((pointer, place))
                self._walk(value, pointer, target, 0)
            return pointer
        found = self.anchors.get((target, fragment))
        if found is None:
            raise SchemaInvalid(
                f"{keyword} {show(ref)}: no $anchor named {show(fragment)} in this schema", place, keyword
            )
        return found

    @staticmethod
    def _check_metaschema_target(ref: str, target: str, fragment: str, place: str, keyword: str) -> None:
        """A reference into a bundled metaschema must name a schema in it, as the reference engine will look it
        up (its ``referencing`` registry). :raises SchemaInvalid: otherwise."""
        try:
            found = REGISTRY.resolver().lookup(f"{target}#{fragment}" if fragment else target).contents
        except referencing.exceptions.Unresolvable:
            found = None
        if not isinstance(found, (dict, bool)):
            raise SchemaInvalid(
                f"{keyword} {show(ref)} names nothing that is a schema in the official metaschema {show(target)}",
                place,
                keyword,
            )

    def check_references(self) -> None:
        """Resolve every reference; refuse remote and dangling ones and in-place cycles (a ``$ref`` loop that
        never reaches a concrete schema — JSON Schema 2020-12 core §9.4.1 leaves such schemas undefined)."""
        index = 0
        while index < len(self.refs):  # resolve() may walk new nodes, which may add references
            where, keyword, ref, base = self.refs[index]
            index += 1
            target = self.resolve(ref, base, where, keyword)
            if target is not None:
                self.edges.setdefault(where, []).append((target, keyword))
                self.descents.setdefault(where, []).append(target)
            else:
                self.refers_to_metaschema = True
        self._find_cycle()

    def recursion_is_bounded(self) -> bool:
        """Whether validating any value recurses at most as many levels as the document has nodes: no cycle
        through subschemas and ``$ref`` targets, no ``$dynamicRef``/``$recursiveRef`` (resolved while validating)
        and no reference into a (recursive) metaschema. Call after :meth:`check_references`."""
        if self.refers_to_metaschema or any(keyword != "$ref" for _, keyword, _, _ in self.refs):
            return False
        state: dict[str, int] = {}  # 1 = on the stack, 2 = done
        for start in self.descents:
            if state.get(start):
                continue
            state[start] = 1
            stack: list[tuple[str, Iterator[str]]] = [(start, iter(self.descents[start]))]
            while stack:
                node, targets = stack[-1]
                for target in targets:
                    if state.get(target) == 1:
                        return False
                    if not state.get(target):
                        state[target] = 1
                        stack.append((target, iter(self.descents.get(target, ()))))
                        break
                else:
                    state[node] = 2
                    stack.pop()
        return True

    def _find_cycle(self) -> None:
        state: dict[str, int] = {}  # 1 = on the stack, 2 = done
        for start in list(self.edges):
            if state.get(start):
                continue
            stack: list[tuple[str, Iterator[tuple[str, str]]]] = [(start, iter(self.edges.get(start, ())))]
            path = [start]
            state[start] = 1
            while stack:
                node, children = stack[-1]
                for target, _keyword in children:
                    if state.get(target) == 1:
                        loop = path[path.index(target) :] + [target]
                        shown = " → ".join("#" + p for p in loop)
                        raise SchemaInvalid(
                            f"$ref cycle {shown} never reaches a concrete schema (every step "
                            f"applies to the same value, so validation would never end)",
                            jp.child(loop[-2], _ref_keyword_of(self.edges, loop)),
                            "$ref",
                        )
                    if not state.get(target):
                        state[target] = 1
                        path.append(target)
                        stack.append((target, iter(self.edges.get(target, ()))))
                        break
                else:
                    state[node] = 2
                    stack.pop()
                    path.pop()


def _join_uri(base: str, reference: str, place: str, keyword: str) -> tuple[str, str]:
    """``reference`` resolved against ``base`` (RFC 3986 §5), split into (URI without fragment, fragment).

    :raises SchemaInvalid: when ``reference`` is not a URI reference (e.g. ``http://[``)."""
    try:
        if reference.startswith("#"):  # same document: any base, also one urljoin does not know (urn:, tag:)
            target, fragment = urldefrag(base)[0], reference[1:]
        else:
            target, fragment = urldefrag(urljoin(base, reference))
    except ValueError as exc:
        raise SchemaInvalid(
            f"{keyword} {show(reference)} is not a valid URI reference ({exc})", place, keyword
        ) from None
    return target, fragment


def _ref_keyword_of(edges: dict[str, list[tuple[str, str]]], loop: list[str]) -> str:
    for target, keyword in edges.get(loop[-2], ()):
        if target == loop[-1]:
            return keyword
    return "$ref"
