"""A custom tool's ``format``: does a replayed ``custom_tool_call.input`` fit the grammar its tool declares?

OpenAI's custom tools (docs/targets.md, O12: ``CustomToolParam`` and ``CustomToolInputFormat`` of the ``openai``
SDK) take a free string whose ``format`` is ``{"type": "text"}`` (anything, the default) or ``{"type": "grammar",
"syntax": "lark" | "regex", "definition": …}``. OpenAI constrains the model's output to the grammar; checking a
replayed input against it is this project's rule (docs/targets.md, "Rules we could not source", 6): an input the
grammar refuses is not one that tool produced. Which Lark and regex dialects OpenAI reads is not documented: a
``regex`` is read as ECMA-262 through the schema layer's bounded patterns (:mod:`webapp.core.schema.patterns`),
a ``lark`` grammar with the ``lark`` package. Both are bounded: the input's length
(:data:`MAX_GRAMMAR_INPUT`), the grammar's (:data:`MAX_GRAMMAR_LENGTH`), and a regex's time (the pattern layer's
budget).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import regex

from webapp.core.json import quote as _q
from webapp.core.schema.patterns import MAX_PATTERN_LENGTH, PATTERN_BUDGET_SECONDS, compile_pattern

__all__ = ["GRAMMAR_SYNTAXES", "MAX_GRAMMAR_INPUT", "MAX_GRAMMAR_LENGTH", "FormatCheck", "check_input", "describe"]

#: The grammar syntaxes a custom tool's format may name (``CustomToolInputFormat.Grammar.syntax``).
GRAMMAR_SYNTAXES = ("lark", "regex")
#: The longest ``input`` (characters) checked against a grammar: Earley parsing is cubic at worst, so a longer
#: input is refused with its length, never parsed for minutes.
MAX_GRAMMAR_INPUT = 20_000
#: The longest grammar ``definition`` (characters) read; a regex is also bounded by the pattern layer's cost.
MAX_GRAMMAR_LENGTH = MAX_PATTERN_LENGTH


@dataclass(frozen=True)
class FormatCheck:
    """Why an input does not fit its tool's format (or the format cannot be used).

    :ivar message: one sentence for people, naming the place (``line 1, column 8``) where it applies.
    :ivar offset: the 0-based character offset in the input where matching failed, when known.
    :ivar format_problem: ``True`` when the format itself is unusable (not the input's fault).
    """

    message: str
    offset: int | None = None
    format_problem: bool = False


def describe(fmt: Any) -> str:
    """What a custom tool's ``format`` checks, in words for a page: ``a regex grammar``, ``a Lark grammar``, or
    ``free text (no JSON arguments)``."""
    if isinstance(fmt, dict) and fmt.get("type") == "grammar":
        return "a Lark grammar" if fmt.get("syntax") == "lark" else "a regex grammar"
    return "free text (no JSON arguments)"


def check_input(text: str, fmt: Any) -> FormatCheck | None:
    """``text`` (a ``custom_tool_call.input``) against ``fmt`` (its tool's ``format``, or ``None``).

    :return: ``None`` when it fits (or the format is ``text`` / absent: anything fits), else a
        :class:`FormatCheck`. Never raises: an unusable format is a :class:`FormatCheck` with ``format_problem``.
    """
    if fmt is None or (isinstance(fmt, dict) and fmt.get("type") == "text"):
        return None
    if not isinstance(fmt, dict) or fmt.get("type") != "grammar":
        return FormatCheck("the tool's format is neither {type: text} nor {type: grammar}", format_problem=True)
    syntax, definition = fmt.get("syntax"), fmt.get("definition")
    if syntax not in GRAMMAR_SYNTAXES:
        return FormatCheck(f"the grammar's syntax is {_q(syntax)}, not lark or regex", format_problem=True)
    if not isinstance(definition, str):
        return FormatCheck("the grammar has no definition string", format_problem=True)
    if len(definition) > MAX_GRAMMAR_LENGTH:
        return FormatCheck(
            f"the grammar is {len(definition):,} characters long, more than the {MAX_GRAMMAR_LENGTH:,} read",
            format_problem=True,
        )
    if len(text) > MAX_GRAMMAR_INPUT:
        return FormatCheck(
            f"the input is {len(text):,} characters long, more than the {MAX_GRAMMAR_INPUT:,} checked against a "
            "grammar: it is not checked, so it cannot pass",
        )
    return _regex(text, definition) if syntax == "regex" else _lark(text, definition)


def _place(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"line {line}, column {column}"


def _regex(text: str, definition: str) -> FormatCheck | None:
    try:
        compiled = compile_pattern(definition)
    except regex.error as exc:
        return FormatCheck(f"the regex grammar cannot be read as ECMA-262: {exc}", format_problem=True)
    try:
        # The whole input must be what the grammar produces: a match that starts at 0 and ends at its end.
        whole = compiled.fullmatch(text, timeout=PATTERN_BUDGET_SECONDS)
        if whole is not None:
            return None
        offset = _longest_viable_prefix(compiled, text)
    except TimeoutError:
        return FormatCheck(
            f"the regex grammar needs more than {PATTERN_BUDGET_SECONDS:g} s on this input (catastrophic backtracking)",
            format_problem=True,
        )
    at = _place(text, offset)
    if offset == len(text):
        return FormatCheck(f"the input ends too early for the regex grammar (at {at})", offset)
    return FormatCheck(f"the input leaves the regex grammar at {at} ({_q(text[offset : offset + 20])})", offset)


def _longest_viable_prefix(compiled: Any, text: str) -> int:
    """The length of the longest prefix of ``text`` that some match could still extend (``partial`` matching):
    where the input leaves the grammar. Viability shrinks as the prefix grows, so a binary search finds it."""
    low, high = 0, len(text)  # prefix `low` is viable (the empty one is, or nothing matches at all)
    if compiled.fullmatch(text, 0, 0, partial=True, timeout=PATTERN_BUDGET_SECONDS) is None:
        return 0
    while low < high:
        middle = (low + high + 1) // 2
        if compiled.fullmatch(text, 0, middle, partial=True, timeout=PATTERN_BUDGET_SECONDS) is not None:
            low = middle
        else:
            high = middle - 1
    return low


@functools.lru_cache(maxsize=64)
def _lark_parser(definition: str) -> Any:
    """The ``lark`` parser of a grammar (``start`` rule), made once per definition; LALR when the grammar is LALR,
    else Earley. :raises lark.exceptions.LarkError: an unusable grammar (kept out of the cache by lru_cache)."""
    import lark

    try:
        return lark.Lark(definition, start="start", parser="lalr")
    except lark.exceptions.GrammarError:
        return lark.Lark(definition, start="start", parser="earley")


def _lark(text: str, definition: str) -> FormatCheck | None:
    import lark

    try:
        parser = _lark_parser(definition)
    except lark.exceptions.LarkError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return FormatCheck(f"the Lark grammar cannot be used: {first}", format_problem=True)
    try:
        parser.parse(text)
    except lark.exceptions.UnexpectedInput as exc:
        offset = exc.pos_in_stream if isinstance(exc.pos_in_stream, int) else len(text)
        at = _place(text, min(offset, len(text)))
        return FormatCheck(f"the input does not parse with the Lark grammar at {at}", offset)
    except lark.exceptions.LarkError as exc:
        return FormatCheck(f"the input does not parse with the Lark grammar: {exc}")
    return None
