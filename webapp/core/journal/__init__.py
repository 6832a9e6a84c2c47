"""Journals: stored conversations, read, shaped and judged for replay.

Its modules, one idea each:

- :mod:`.text`: a conversation's text read once, JSON or JSON Lines (:func:`read_text`, :class:`JournalText`);
- :mod:`.shapes`: the Open Responses journal shapes (a JSON array, JSON Lines, a ``ResponseResource``, a
  ``CreateResponseBody``, one item, a session or input_items page) read into a :class:`Journal`;
- :mod:`.lists`: the Responses API's list objects (a ``/v1/sessions`` page, an ``input_items`` page) read as the
  conversation they hold;
- :mod:`.replay`: what of a conversation of any provider may be replayed: the gate over a conversion and the
  replayable subset;
- :mod:`.tools`: tool definitions pasted beside a journal, in any provider's shape;
- :mod:`.streaming`: a journal read line by line and gated as it goes (``gate --stream``), as the whole text is.

The names of :mod:`.text` and :mod:`.shapes` are importable from here (``from webapp.core.journal import
load_journal``). :mod:`.replay`, :mod:`.tools` and :mod:`.streaming` stand on the converters
(:mod:`webapp.core.convert`) and the gate (:mod:`webapp.core.gate`), which stand on :mod:`.shapes`: they are imported
by their own paths
(``from webapp.core.journal.replay import replayable_subset``), never from here, so that reading a journal's shape
needs neither.
"""

from webapp.core.journal.shapes import SHAPES, Duplicate, Journal, from_text, from_value, load_journal, one_item
from webapp.core.journal.text import JournalError, JournalText, read_text

__all__ = [
    "SHAPES",
    "Duplicate",
    "Journal",
    "JournalError",
    "JournalText",
    "from_text",
    "from_value",
    "load_journal",
    "one_item",
    "read_text",
]
