"""JSON Schema (draft-04 … 2020-12) on top of python-jsonschema, with the library's traps fixed in our layer.

python-jsonschema is the reference semantics and gives the detailed errors; ``jsonschema_rs`` (compiled Rust)
answers ``is_valid`` on the hot path. Where the two could differ they are made to agree: ``multipleOf`` and the
asserted formats run our own checks in both, patterns are ECMA-262 in both — and a schema whose patterns use a
construct the Rust engine reads otherwise (``\\b``, lookaround, backreferences, Unicode properties) is validated
by the reference engine alone (``tests/unit/test_schema.py`` runs every case, and a differential set of patterns and
strings, through each engine). What this layer adds (each item is a trap of python-jsonschema 4.26):

* the dialect comes from ``$schema`` (default 2020-12); an unknown ``$schema`` is a :class:`SchemaInvalid`, with a
  "did you mean" hint for near misses such as ``…/draft-07/schema/#`` — never a silent guess or a DeprecationWarning;
* the schema is checked against its metaschema before use (a bad schema is not a bad instance);
* ``$ref`` to anything outside the pasted document is refused before anything is compiled — nothing is ever
  fetched (no SSRF from a pasted schema) — and so is an unresolvable ``$ref``, one whose target is no schema
  (``#/title``), or a ``$ref`` cycle that never reaches a concrete schema (python-jsonschema would die with
  ``RecursionError``, ``AttributeError`` or ``TypeError``);
* ``multipleOf`` is exact on decimals (``19.99`` is a multiple of ``0.01``);
* ``pattern`` follows ECMA-262 (``\\d`` and ``\\b`` are ASCII, ``$`` is the very end, ``(?<name>…)`` and ``\\p{L}``
  work, what ECMA-262 refuses is refused) and runs with a wall-clock time budget, so a catastrophic pattern
  gives a clear error in bounded time — once per compiled schema, not once per value;
* every error points at the offending member itself (``/extra``, ``/missing``), not at its parent, and carries a
  plain message that shows values as JSON;
* a value as deep as the parse layer allows (100 levels) is validated however many recursion steps the
  reference engine needs per level; any exception the engines should not raise becomes a :class:`SchemaInvalid`
  ("this schema cannot be used …") instead of an error page;
* what a ``pattern`` may cost to compile is bounded (:data:`MAX_PATTERN_COST` atoms written out, and
  :data:`MAX_SCHEMA_PATTERN_COST` for all the patterns of a schema): ``^(?:a{3000}){3000}$`` is refused before
  either engine compiles it, and the caches are bounded by estimated bytes as well as by count.

The modules, one idea each (this package re-exports the public API, as python-jsonschema does):

* :mod:`~webapp.core.schema.errors` — the exceptions, :class:`SchemaError`, plain messages, the safety net;
* :mod:`~webapp.core.schema.ecma` — the ECMA-262 translator and the compile cost of a pattern;
* :mod:`~webapp.core.schema.patterns` — patterns compiled under the cost limit, searched under the time budget;
* :mod:`~webapp.core.schema.formats` — the format checkers both engines share;
* :mod:`~webapp.core.schema.keywords` — python-jsonschema's keywords, fixed (exact ``multipleOf``, member pointers…);
* :mod:`~webapp.core.schema.dialects` — the dialects, ``$schema``, the offline metaschema registry;
* :mod:`~webapp.core.schema.analysis` — one pass over a schema: nodes, ``$ref`` targets, cycles, patterns;
* :mod:`~webapp.core.schema.compiled` — :class:`CompiledSchema` and :func:`compile_schema`;
* :mod:`~webapp.core.schema.cache` — the caches, bounded by count and bytes;
* :mod:`~webapp.core.schema.bundle` — referenced schemas the user supplies, embedded so they resolve locally;
* :mod:`~webapp.core.schema.output` — the 2020-12 output formats (flag, basic, detailed).
"""

from webapp.core.json import json_type
from webapp.core.schema.analysis import MAX_SCHEMA_DEPTH
from webapp.core.schema.bundle import bundle, known_documents
from webapp.core.schema.compiled import MAX_INSTANCE_DEPTH, CompiledSchema, compile_schema
from webapp.core.schema.dialects import DEFAULT_DIALECT, DIALECTS
from webapp.core.schema.ecma import ecma_pattern
from webapp.core.schema.errors import InstanceTooDeep, PatternTimeout, SchemaError, SchemaInvalid
from webapp.core.schema.formats import FORMAT_CHECKERS
from webapp.core.schema.output import OUTPUT_FORMATS
from webapp.core.schema.patterns import MAX_PATTERN_COST, MAX_SCHEMA_PATTERN_COST, compile_pattern

__all__ = [
    "DIALECTS",
    "DEFAULT_DIALECT",
    "MAX_SCHEMA_DEPTH",
    "MAX_INSTANCE_DEPTH",
    "MAX_PATTERN_COST",
    "MAX_SCHEMA_PATTERN_COST",
    "FORMAT_CHECKERS",
    "SchemaInvalid",
    "PatternTimeout",
    "InstanceTooDeep",
    "SchemaError",
    "json_type",
    "CompiledSchema",
    "compile_schema",
    "compile_pattern",
    "ecma_pattern",
    "bundle",
    "known_documents",
    "OUTPUT_FORMATS",
]
