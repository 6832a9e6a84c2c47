"""ECMA-262 patterns compiled under a cost limit and searched under a time budget.

Two bounds, for the two ways a pasted ``pattern`` can hurt:

* compiling: a counted repetition is written out by the regex compilers, so ``^(?:a{3000}){3000}$`` (25 bytes)
  would take gigabytes and seconds to compile. A pattern whose cost (:attr:`webapp.core.schema.ecma.EcmaRegex.cost`,
  the atoms it expands to) is above :data:`MAX_PATTERN_COST`, or a schema whose patterns together are above
  :data:`MAX_SCHEMA_PATTERN_COST`, is refused before either engine compiles it
  (:func:`check_cost`, called by :class:`webapp.core.schema.compiled.CompiledSchema`);
* matching: a catastrophic pattern (``^(a|a)*$``) gets :data:`PATTERN_BUDGET_SECONDS` of wall clock per
  validation, then is reported (:class:`webapp.core.schema.errors.PatternTimeout`) and remembered on the schema.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import regex

from webapp.core.schema.cache import PATTERNS
from webapp.core.schema.ecma import EcmaRegex, compile_uncached, translate
from webapp.core.schema.errors import PatternTimeout, SchemaInvalid, show

# Time one validation may spend in ``pattern`` matching (seconds) before the pattern is declared catastrophic.
PATTERN_BUDGET_SECONDS = 1.0
# What one pattern may cost to compile, in atoms written out (EcmaRegex.cost): about 20 MiB and 0.1 s for the
# `regex` module at the most; ^[a-z0-9]{1,64}$ costs 3, \d{4}-\d{2}-\d{2} costs 10.
MAX_PATTERN_COST = 20_000
# How long a pattern may be (characters), whatever its cost: a character class or an alternation of thousands of
# members costs one atom or none but takes seconds to compile ("|" * 100_000: 4 s), and reading any pattern takes
# about 1 µs per character. A longer `pattern` is refused; a longer value of `format: "regex"` is false.
MAX_PATTERN_LENGTH = 20_000
# What all the distinct patterns of one schema may cost together (both engines keep every pattern compiled).
MAX_SCHEMA_PATTERN_COST = 100_000
# Estimated memory of a compiled pattern per atom (bytes), for the cache's byte bound: measured with the `regex`
# module (about 50 bytes for a literal, up to 1.2 KiB for a group with captures or a class of many ranges).
PATTERN_BYTES_PER_ATOM = 1024
# How long (seconds of CPU) a search runs in the calling thread before it moves to a watched thread.
_INLINE_SEARCH_SECONDS = 0.02


class TooCostly(regex.error):
    """A pattern above :data:`MAX_PATTERN_COST`: refused before it is compiled (a ``regex.error``, so callers that
    treat a pattern the validator cannot run as such need nothing more)."""


def check_length(pattern: str, pointer: str, keyword: str) -> None:
    """Refuse ``pattern`` (at ``pointer`` in the schema) when it is longer than :data:`MAX_PATTERN_LENGTH`, before it
    is read.

    :raises SchemaInvalid: naming the pattern's start, its length and the limit.
    """
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise SchemaInvalid(
            f"the pattern {show(pattern)} is {len(pattern):,} characters long, more than the "
            f"{MAX_PATTERN_LENGTH:,} this validator reads; a length limit belongs in minLength/maxLength",
            pointer,
            keyword,
        )


def check_cost(pattern: str, translated: EcmaRegex, pointer: str, keyword: str) -> None:
    """Refuse ``pattern`` (at ``pointer`` in the schema) when it costs more than :data:`MAX_PATTERN_COST` to compile.

    :raises SchemaInvalid: naming the pattern, its cost and the limit.
    """
    if translated.cost > MAX_PATTERN_COST:
        raise SchemaInvalid(
            f"the pattern {show(pattern)} is too costly to compile: its repetitions write out "
            f"{translated.cost:,} atoms, more than the {MAX_PATTERN_COST:,} this validator allows; "
            f"rewrite it with smaller counts (a length limit belongs in minLength/maxLength)",
            pointer,
            keyword,
        )


def check_total_cost(total: int, pointer: str, keyword: str) -> None:
    """Refuse a schema whose distinct patterns together cost ``total`` atoms, more than
    :data:`MAX_SCHEMA_PATTERN_COST` (``pointer`` names the pattern that went over).

    :raises SchemaInvalid: naming the total and the limit.
    """
    if total > MAX_SCHEMA_PATTERN_COST:
        raise SchemaInvalid(
            f"the patterns of this schema are too costly to compile together: up to here they "
            f"write out {total:,} atoms, more than the {MAX_SCHEMA_PATTERN_COST:,} this validator "
            f"allows for one schema",
            pointer,
            keyword,
        )


def compile_pattern(pattern: str) -> Any:
    """The compiled ``regex`` object for an ECMA-262 ``pattern`` (see :func:`webapp.core.schema.ecma.ecma_pattern`),
    kept in the bounded cache :data:`webapp.core.schema.cache.PATTERNS`.

    :raises TooCostly: (a ``regex.error``) when the pattern is longer than :data:`MAX_PATTERN_LENGTH` or costs more
        than :data:`MAX_PATTERN_COST` to compile; nothing is compiled.
    :raises regex.error: when the pattern is not ECMA-262, or the ``regex`` module cannot run it.
    """
    compiled = PATTERNS.get(pattern)
    if compiled is None:
        if len(pattern) > MAX_PATTERN_LENGTH:
            raise TooCostly(f"the pattern is {len(pattern):,} characters long, more than {MAX_PATTERN_LENGTH:,}")
        translated = translate(pattern)
        if translated.cost > MAX_PATTERN_COST:
            raise TooCostly(f"the pattern writes out {translated.cost:,} atoms, more than {MAX_PATTERN_COST:,}")
        compiled = compile_uncached(translated.source)
        PATTERNS.put(pattern, compiled, PATTERN_BYTES_PER_ATOM * translated.cost + 4 * len(pattern))
    return compiled


class Validation(threading.local):
    """What the validation running in this thread needs of its schema, set by
    :class:`webapp.core.schema.compiled.CompiledSchema` while the reference engine runs.

    :ivar deadline: ``time.monotonic()`` by which its pattern searches must end (0: none set).
    :ivar catastrophic: the patterns that ran out of time on the schema (added to here), or ``None``.
    :ivar node_pointers: ``id(subschema dict)`` -> its JSON Pointer in the schema, or ``None``.
    """

    deadline: float = 0.0
    catastrophic: set[str] | None = None
    node_pointers: dict[int, str] | None = None


current = Validation()


def new_deadline() -> float:
    """``time.monotonic()`` plus :data:`PATTERN_BUDGET_SECONDS` (read now, so a test may change the budget)."""
    return time.monotonic() + PATTERN_BUDGET_SECONDS


def search(pattern: str, text: str, where: Callable[[], str]) -> bool:
    """``pattern`` (ECMA) found in ``text``, within the current validation's time budget (wall clock).

    The ``regex`` module's ``timeout`` counts the CPU time of the search, so on a busy machine a 1 s budget
    took 2 s and more of wall time. A search still running after :data:`_INLINE_SEARCH_SECONDS` is therefore
    run again in a helper thread (which releases the GIL) and waited for until the deadline, no longer.
    A pattern that ran out of time is remembered on the compiled schema being validated: later validations
    reaching it answer at once.

    :raises PatternTimeout: when the budget runs out (catastrophic backtracking), or the pattern ran out of time
        before on this schema; ``where()`` names the place.
    """
    compiled = compile_pattern(pattern)
    catastrophic = current.catastrophic
    if catastrophic is not None and pattern in catastrophic:
        raise _pattern_timeout(pattern, len(text), where(), again=True)
    deadline = current.deadline or new_deadline()
    remaining = deadline - time.monotonic()
    try:
        return compiled.search(text, timeout=max(min(remaining, _INLINE_SEARCH_SECONDS), 0.001)) is not None
    except TimeoutError:
        pass
    found = _search_watched(compiled, text, deadline) if remaining > _INLINE_SEARCH_SECONDS else None
    if found is not None:
        return found
    if catastrophic is not None:
        catastrophic.add(pattern)  # at most one entry per distinct pattern of the schema
    raise _pattern_timeout(pattern, len(text), where(), again=False)


def _search_watched(compiled: Any, text: str, deadline: float) -> bool | None:
    """``compiled.search(text)`` in a helper thread, waited for until ``deadline`` (``time.monotonic()``);
    ``None`` when it did not finish in time. The helper's own CPU timeout ends it soon after."""
    result: list[bool] = []
    done = threading.Event()

    def run() -> None:
        try:
            result.append(
                compiled.search(text, timeout=max(deadline - time.monotonic(), 0.001), concurrent=True) is not None
            )
        except TimeoutError:
            pass
        finally:
            done.set()

    threading.Thread(target=run, name="pattern-search", daemon=True).start()
    done.wait(max(deadline - time.monotonic(), 0.0))
    return result[0] if result else None


def _pattern_timeout(pattern: str, length: int, where: str, *, again: bool) -> PatternTimeout:
    when = (
        "ran out of time on an earlier value, so it is not run again for this schema"
        if again
        else f"needs more than {PATTERN_BUDGET_SECONDS:g} s on a value of {length} characters"
    )
    return PatternTimeout(
        f"pattern {show(pattern)} {when} (catastrophic backtracking); rewrite it without "
        f"nested or overlapping repetition such as (a+)+",
        where,
        "pattern",
    )
