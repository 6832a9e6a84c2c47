"""A journal read line by line and gated as it goes (``python -m webapp gate --stream``), with the verdicts and counts
the whole-text reading gives (:func:`webapp.core.convert.read_journal` and :func:`webapp.core.gate.check_journal`),
in memory that grows by one byte per item besides what pairing keeps (each call's ``call_id``).

What is read line by line is what the whole-text reading reads as Open Responses JSON Lines, decided by the same
rules (:func:`webapp.core.journal.text.read_text`: one JSON value, else one per line;
:func:`webapp.core.journal.shapes.record_problem`: each line one object; :func:`webapp.core.convert.record_kind`:
each an Open Responses item, not another provider's), and a file of one line that holds one item, read as that item
(no findings about other items, as :func:`check_journal` judges a one-item document). Everything else is
:class:`NotLines`, naming what the file is: one JSON document (a response, an array, another provider's request),
or a line of another provider's conversation; the whole-text reading reads those.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from webapp.core.convert import ConvertError, read_journal, record_kind
from webapp.core.gate import JournalChecker
from webapp.core.gate.labels import BADGES, REFUSED
from webapp.core.gate.pairing import PAIRING_FINDINGS
from webapp.core.gate.report import answer_line, answer_of, item_line, tally, unchecked
from webapp.core.journal.lists import is_session_data
from webapp.core.journal.shapes import Duplicate, record_problem
from webapp.core.journal.text import JournalError
from webapp.core.json import DEFAULT_MAX_DEPTH, Document, JSONTextError, kind_of, parse

__all__ = ["JournalLines", "NotLines", "gate_lines"]

#: How each Open Responses document shape is named when ``--stream`` cannot read it.
_SHAPE_WORDS = {
    "array": "a JSON array of {n} items",
    "response": "a response whose output holds {n} items",
    "request": "a request whose input holds {n} items",
    "session": "a /v1/sessions page holding {n} items",
    "input_items": "an input_items page of {n} items",
}


class NotLines(JournalError):
    """The input is not what ``--stream`` reads (Open Responses JSON Lines); the message names what it is and what
    to do instead (the whole-text reading reads it)."""


@dataclass(frozen=True)
class Record:
    """One line's item: its 1-based ``line`` and its parsed text (``document``: value and warnings)."""

    line: int
    document: Document


class JournalLines:
    """The records of a journal's lines (bytes, as a binary file gives them), read lazily.

    The first two records are read at once: a file of one record is one JSON document, read only when it is one
    item (:attr:`single`); a first line that does not close its value is a document spanning lines.

    :param source: ``"auto"`` (a line of another provider's conversation is :class:`NotLines`) or
        ``"open_responses"`` (every line is read as an item, as the whole-text reading then does).
    :raises NotLines: what is not Open Responses JSON Lines (see the module docstring), as the records are read.
    :raises JournalError: a line that is no JSON (``JSON Lines, line 4, column 2: …``), an empty text.
    """

    def __init__(self, lines: Iterable[bytes], *, source: str = "auto", max_depth: int = DEFAULT_MAX_DEPTH) -> None:
        self._lines = enumerate(lines, 1)
        self._source, self._max_depth = source, max_depth
        self._typed = False
        first, second = self._next(), self._next()
        if first is None:
            raise JournalError(
                "line 1, column 1: The text is empty: paste a JSON value.", line=1, column=1, code="empty"
            )
        number, raw = first
        try:
            document = parse(raw, max_depth=max_depth)
        except JSONTextError as err:
            if second is not None and err.code == "truncated":
                what = {b"[": "array", b"{": "object"}.get(raw.lstrip(b"\xef\xbb\xbf \t\r\n")[:1], "value")
                raise NotLines(
                    f"line {number} opens a JSON {what} that goes on past the line: this is one JSON document, "
                    "not JSON Lines; --stream reads JSON Lines (one item per line): gate it without --stream",
                    line=number,
                    column=1,
                ) from None
            raise JournalError(
                f"line {number}, column {err.column}: {err.message}", line=number, column=err.column, code=err.code
            ) from None
        #: The file is one line holding one item: read as one item (no findings about other items).
        self.single = second is None
        if self.single:
            self._one_document(document.value)
        self._held = [Record(number, document), second]

    def _next(self) -> tuple[int, bytes] | None:
        for number, raw in self._lines:
            if raw.strip(b" \t\r\n"):  # a blank line (spaces, tabs, CR) is skipped, as JSON Lines texts are read
                return number, raw
        return None

    def _one_document(self, value: Any) -> None:
        try:
            journal, conversion = read_journal(value, self._source, max_depth=self._max_depth)
        except ConvertError:
            what = f"a JSON {kind_of(value)} that no source reads"
        else:
            count = f"{len(journal.items):,}"
            if conversion is None and journal.shape == "item":
                return
            if conversion is not None:
                source = conversion.source
                what = f"{conversion.shape} of {source} (--from {source}: {count} items once converted)"
            else:
                what = _SHAPE_WORDS.get(journal.shape, "a JSON document of {n} items").format(n=count)
        raise NotLines(
            f"one JSON document ({what}), not JSON Lines: --stream reads JSON Lines, one item per line; gate it "
            "without --stream, or convert it to JSON Lines first (python -m webapp convert FILE | "
            "python -m webapp gate - --stream)",
            line=1,
            column=1,
        )

    def _record(self, number: int, raw: bytes) -> Record:
        try:
            document = parse(raw, max_depth=self._max_depth)
        except JSONTextError as err:
            message = f"JSON Lines, line {number}, column {err.column}: {err.message}"
            raise JournalError(message, line=number, column=err.column, code=err.code, detail=err.message) from None
        return Record(number, document)

    def _checked(self, record: Record) -> Record:
        value = record.document.value
        problem = record_problem(value, record.line)
        if problem is not None:
            raise problem
        if self._source == "open_responses" or self.single:
            return record
        kind = record_kind(value)
        if kind is None and is_session_data([value]):
            raise NotLines(
                f"JSON Lines, line {record.line}: a /v1/sessions entry (its item inside), not an item: a session is "
                "read turn by turn as one conversation; gate it without --stream",
                line=record.line,
                column=1,
            )
        if kind is None:
            raise NotLines(
                f"JSON Lines, line {record.line}: not an Open Responses item (another provider's message or "
                "block): the file is another provider's conversation; gate it without --stream, or convert it "
                "first (python -m webapp convert FILE | python -m webapp gate - --stream)",
                line=record.line,
                column=1,
            )
        if kind == "easy" and not self._typed:
            raise NotLines(
                f"JSON Lines, line {record.line}: a message without a type ({{role, content}}) before any typed "
                "item: such lines read alike in every provider's shape, so the whole file decides what they are; "
                "gate it without --stream",
                line=record.line,
                column=1,
            )
        self._typed = self._typed or kind == "typed"
        return record

    def __iter__(self) -> Iterator[Record]:
        held, self._held = self._held, []
        for record in held:
            if record is None:
                return
            yield self._checked(record if isinstance(record, Record) else self._record(*record))
        while (found := self._next()) is not None:
            yield self._checked(self._record(*found))


def gate_lines(lines: JournalLines, tools: Any = None, **options: Any) -> Iterator[dict[str, Any]]:
    """Gate each record of ``lines`` as it is read: yields ``{"verdict": …}`` per item (its
    :meth:`~webapp.core.gate.ItemVerdict.as_dict` with ``line``; ``refused_by`` the error findings known then),
    ``{"finding": …}`` per finding as it is made, then ``{"summary": {"replayable", "answer", "says", "unchecked",
    "counts", "items"}}`` (``replayable`` ``null``: cannot tell, as :attr:`webapp.core.gate.JournalReport.answer`).

    ``counts`` are :attr:`webapp.core.gate.JournalReport.counts` of the whole journal: an item a later error finding
    names is moved to ``refused`` then (each item's label is kept as one byte for that).

    :param tools, options: as :class:`webapp.core.gate.JournalChecker` takes them (``schema``, ``tool_choice``, …).
    """
    checker = JournalChecker(tools, **options)
    counts: dict[str, int] = {}
    names: list[str] = []  # the labels met, by their code in `labels`
    labels = bytearray()  # each item's label, as its code
    tallied: dict[tuple[str, str], int] = {}  # (severity, code) -> findings: what the summary's words need

    def count(label: str, step: int) -> None:
        counts[label] = counts.get(label, 0) + step
        if not counts[label]:
            del counts[label]

    def refuse(index: int) -> None:  # an error finding about an item counted already
        label = names[labels[index]]
        if label in BADGES:
            count(label, -1)
            count(REFUSED, 1)
            labels[index] = _code(names, REFUSED)

    index = -1
    for index, record in enumerate(lines):
        item = record.document.value
        duplicates = [
            Duplicate(index, w.pointer, record.line + w.line - 1, w.column, w.message)
            for w in record.document.warnings
            if w.code == "duplicate_key"
        ]
        verdict = checker.check(item, duplicates)
        findings = _kept(checker.take_findings(), lines.single)
        refused = tuple(dict.fromkeys(f.code for f in findings if f.severity == "error" and f.index == index))
        checked = not (checker.unchecked_possible and unchecked(item, verdict))
        line = item_line(index, item, verdict, refused, checked=checked)
        label = line.label
        count(label, 1)
        labels.append(_code(names, label))
        yield {"verdict": line.as_dict() | {"line": record.line}}
        tally(findings, tallied)
        for finding in findings:
            if finding.severity == "error" and finding.index is not None and finding.index < index:
                refuse(finding.index)
            yield {"finding": finding.as_dict()}
    checker.finish()  # the rules about the last turn and the whole (as check_journal runs them)
    for finding in _kept(checker.take_findings(), lines.single):
        if finding.severity == "error" and finding.index is not None and 0 <= finding.index <= index:
            refuse(finding.index)
        tally((finding,), tallied)
        yield {"finding": finding.as_dict()}
    # From the findings kept (a one-item document has no pairing findings), as check_journal answers.
    errors = any(severity == "error" for severity, _ in tallied)
    replayable = checker.answer(errors)
    yield {
        "summary": {
            "replayable": replayable,
            "answer": answer_of(replayable),
            "says": answer_line(replayable, checker.unchecked, tallied, counts),
            "unchecked": dict(checker.unchecked),
            "counts": counts,
            "items": index + 1,
        }
    }


def _kept(findings: list[Any], single: bool) -> list[Any]:
    """A one-item document has no findings about other items (as :func:`webapp.core.gate.check_journal`)."""
    return [f for f in findings if f.code not in PAIRING_FINDINGS] if single else findings


def _code(names: list[str], label: str) -> int:
    if label not in names:
        names.append(label)
    return names.index(label)
