"""The JSON layer: strict parsing with diagnoses and warnings (RFC 8259, I-JSON RFC 7493), RFC 6901 pointers.

This is the one place the layer's public names are importable from (``from webapp.core.json import parse``); its
modules, one idea each:

- :mod:`.parser` (:func:`parse`: one text, the fast path and when the precise path runs), :mod:`.document`
  (:class:`Document`: the parsed text and where its values are), :mod:`.lines` (JSON Lines: :func:`parse_lines`,
  :func:`line_records`, :func:`looks_like_lines`), :mod:`.ijson` (:func:`loads_ijson`, :func:`try_loads_ijson`:
  the gate's hot path);
- :mod:`.limits` (depth and size), :mod:`.utf8` (bytes read as text), :mod:`.fast` (the C parser made strict),
  :mod:`.orjson_read` (orjson's value when it is certainly the same), :mod:`.bigtext` (a big text checked at C
  speed), :mod:`.bytes` (byte-level tricks the formatter shares);
- :mod:`.scan` (the precise, iterative scanner), :mod:`.precise` (the scanner as the parse API runs it),
  :mod:`.diagnose` (the words and place of each mistake), :mod:`.interop` (warnings: what parses but will still
  bite), :mod:`.positions` (line:column, where the value at a pointer starts), :mod:`.locate` (pointers into a
  string inside a pasted text);
- :mod:`.show` (values and characters in messages), :mod:`.pointer` (RFC 6901, used as a module:
  ``from webapp.core.json import pointer``).
"""

from webapp.core.json import pointer
from webapp.core.json.bigtext import BIG_TEXT, paused_gc
from webapp.core.json.bytes import STRING_MARK, join_pieces, outside_strings, split_strings
from webapp.core.json.diagnose import JSONTextError
from webapp.core.json.document import Document
from webapp.core.json.ijson import NOT_IJSON, loads_ijson, try_loads_ijson
from webapp.core.json.interop import MAX_SAFE_INTEGER, JSONWarning
from webapp.core.json.limits import DEFAULT_MAX_DEPTH
from webapp.core.json.lines import JSONLine, line_records, looks_like_lines, parse_lines
from webapp.core.json.locate import Locator, Move, Position, in_string, string_locator
from webapp.core.json.parser import parse
from webapp.core.json.positions import line_col
from webapp.core.json.show import displayable, json_type, kind_of, quote
from webapp.core.json.utf8 import decode_utf8, shown_text

__all__ = [
    "BIG_TEXT",
    "DEFAULT_MAX_DEPTH",
    "MAX_SAFE_INTEGER",
    "NOT_IJSON",
    "STRING_MARK",
    "Document",
    "JSONLine",
    "JSONTextError",
    "JSONWarning",
    "Locator",
    "Move",
    "Position",
    "decode_utf8",
    "displayable",
    "in_string",
    "join_pieces",
    "json_type",
    "kind_of",
    "line_col",
    "line_records",
    "loads_ijson",
    "looks_like_lines",
    "outside_strings",
    "parse",
    "parse_lines",
    "paused_gc",
    "pointer",
    "quote",
    "shown_text",
    "split_strings",
    "string_locator",
    "try_loads_ijson",
]
