"""Journals: stored conversations, read, shaped and judged for replay.

Its modules, one idea each:

- :mod:`.shapes`: the Open Responses journal shapes (a JSON array, JSON Lines, a ``ResponseResource``, a
  ``CreateResponseBody``, one item) read into a :class:`Journal`; its names are importable from here
  (``from webapp.core.journal import load_journal``);
- :mod:`.replay`: what of a conversation of any provider may be replayed: the gate over a conversion and the
  replayable subset;
- :mod:`.tools`: tool definitions pasted beside a journal, in any provider's shape.

:mod:`.replay` and :mod:`.tools` stand on the converters (:mod:`webapp.core.convert`) and the gate
(:mod:`webapp.core.gate`), which stand on :mod:`.shapes`: they are imported by their own paths
(``from webapp.core.journal.replay import replayable_subset``), never from here, so that reading a journal's shape
needs neither.
"""

from webapp.core.journal.shapes import SHAPES, Duplicate, Journal, JournalError, from_value, load_journal, one_item

__all__ = ["SHAPES", "Duplicate", "Journal", "JournalError", "from_value", "load_journal", "one_item"]
