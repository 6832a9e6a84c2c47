"""The pure core of the inspector: no Flask, no I/O beyond what a caller hands in (``tests/unit/test_architecture.py``
walks this folder to check it). Its public API, re-exported here as python-jsonschema exports from its root::

    from webapp.core import replay_gate, check_journal, compile_schema, convert

Each idea lives in its own module: the gate (:mod:`.gate`), the item vocabulary (:mod:`.items`), journals
(:mod:`.journal`), conversion from other providers (:mod:`.convert`), the parse layer (:mod:`.json`), JSON Schema
(:mod:`.schema`), and one model module per page (``format_page``, ``schema_check``, ``diff_page``,
``journal_check``).
"""

from webapp.core.convert import Conversion, ConvertError, convert, convert_text
from webapp.core.gate import (
    REASONS,
    Finding,
    ItemVerdict,
    JournalChecker,
    JournalReport,
    Verdict,
    check_item,
    check_journal,
    replay_gate,
)
from webapp.core.journal import Journal, JournalError, load_journal
from webapp.core.json import Document, JSONTextError, JSONWarning, parse
from webapp.core.schema import CompiledSchema, SchemaError, SchemaInvalid, compile_schema

__all__ = [
    "REASONS",
    "replay_gate",
    "check_item",
    "check_journal",
    "JournalChecker",
    "Verdict",
    "ItemVerdict",
    "JournalReport",
    "Finding",
    "Journal",
    "JournalError",
    "load_journal",
    "Conversion",
    "ConvertError",
    "convert",
    "convert_text",
    "parse",
    "Document",
    "JSONTextError",
    "JSONWarning",
    "compile_schema",
    "CompiledSchema",
    "SchemaInvalid",
    "SchemaError",
]
