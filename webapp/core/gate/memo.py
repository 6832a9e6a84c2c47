"""Verdicts of calls already gated, kept for the other checks of one request that meet the same calls again."""

from __future__ import annotations

from typing import Any

from webapp.core.gate.steps import Verdict, Why, judge

__all__ = ["VerdictMemo"]


class VerdictMemo:
    """The verdicts of the function_calls already gated, for checks that meet the same calls again: the two sides
    of a Diff page are mostly one journal. Give one to each :func:`webapp.core.gate.check_journal` of one request.

    A call's verdict depends only on how it is checked (its tool's compiled schema, its name for messages, the depth
    limit) and on its ``status`` and ``arguments`` string: that is the key, and a hit skips the parse and the schema
    check. The findings (pairing, ``tool_choice``, ``duplicate_member``) stay each journal's own, never memoised. A
    call whose ``arguments`` is not a string, or whose ``status`` is neither a string nor missing, is gated each time
    (cheap, and ``1 == True`` would mix keys whose messages differ).

    It holds one entry per distinct call it has seen: make one per request, never keep it across requests.
    """

    def __init__(self) -> None:
        self._verdicts: dict[tuple[Any, ...], Verdict] = {}

    def __len__(self) -> int:
        """The number of distinct calls it holds."""
        return len(self._verdicts)

    def verdict(self, item: dict, why: Why) -> Verdict:
        """The :class:`Verdict` of the function_call ``item`` checked as ``why`` says
        (:func:`webapp.core.gate.steps.judge`), remembered, or found again."""
        status, arguments = item.get("status"), item.get("arguments")
        if not isinstance(arguments, str) or not (status is None or isinstance(status, str)):
            return judge(item, why)
        # why's fields spelled out: a flat tuple hashes and compares in C (a dataclass's hash is Python code)
        key = (why.compiled, why.problem, why.tool, why.max_depth, status, arguments)
        verdict = self._verdicts.get(key)
        if verdict is None:
            verdict = self._verdicts[key] = judge(item, why)
        return verdict
