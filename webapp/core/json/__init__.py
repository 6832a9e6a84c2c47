"""The JSON layer: strict parsing with diagnoses and warnings (RFC 8259, I-JSON RFC 7493), RFC 6901 pointers.

Modules, one idea each: :mod:`.text` (the parse API: :func:`parse`, :class:`Document`, :func:`loads_ijson`, ...),
:mod:`.scan` (the precise, iterative scanner), :mod:`.diagnose` (the words and place of each mistake),
:mod:`.interop` (warnings: what parses but will still bite), :mod:`.positions` (line:column, where the value at a
pointer starts), :mod:`.bytes` (byte-level tricks the formatter shares), :mod:`.show` (values and characters in
messages), :mod:`.pointer` (RFC 6901).
"""

from webapp.core.json.text import (
    DEFAULT_MAX_DEPTH,
    MAX_SAFE_INTEGER,
    NOT_IJSON,
    Document,
    JSONLine,
    JSONTextError,
    JSONWarning,
    displayable,
    json_type,
    kind_of,
    loads_ijson,
    parse,
    parse_lines,
    quote,
    try_loads_ijson,
)

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "MAX_SAFE_INTEGER",
    "NOT_IJSON",
    "Document",
    "JSONLine",
    "JSONTextError",
    "JSONWarning",
    "displayable",
    "json_type",
    "kind_of",
    "loads_ijson",
    "parse",
    "parse_lines",
    "quote",
    "try_loads_ijson",
]
