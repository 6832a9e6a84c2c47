"""Semantic JSON diff for tool-call items and journals: aligned arrays, parsed ``arguments``, replay blockers
and an RFC 6902 JSON Patch.

How it works:

* **Arrays are aligned here, not by deepdiff.** deepdiff 9.1 matches list items by position, so one insert at the
  front of a journal cascades into one "change" per later item, and it misses ``[2]`` vs ``[2.0]``. Each item
  gets a key: its identity (``call_id``, else ``id``, or the member named by ``match_key``) or else a canonical
  hash of its content (key order ignored, ``1`` / ``1.0`` / ``true`` kept apart). A longest-common-subsequence
  alignment of the keys (common prefix/suffix, unique-key anchors, exact DP on small gaps) pairs the items; items
  with equal keys that fell out of order are *moves*; what is left in each gap is paired by similarity
  (:mod:`.align`).
* **Aligned pairs are compared at C speed first**: Python's ``==`` finds the few pairs that differ and the equal
  runs between them are confirmed with JSON types kept apart (:func:`.align.unequal_offsets`), so a
  journal of tens of thousands of items costs a Python step per difference, not per item.
* **Pairs that differ are compared member by member** (key order ignored, ``type_changed`` for a change of JSON
  type, ``1`` / ``1.0`` the same number, added/removed members), nested arrays handed back to the aligner and
  ``arguments`` strings compared by their parsed content. With ignore patterns, deepdiff walks the objects instead,
  with custom operators that do the same and skip the ignored paths.
* **The patch is exact**: applied to the left document it yields the right one, including the differences the
  change list does not call changes (``arguments`` that differ only in formatting, order under ``ignore_order``);
  only values at ignored paths stay as they are on the left.
* **Replay blockers** are read from the matched item pairs (:mod:`.blockers`).

The package's modules, one idea each: :mod:`.differ` (:func:`diff`: the walk, the change list and the patch),
:mod:`.result` (:class:`DiffOptions`, :class:`Change`, :class:`DiffResult`, :data:`ABSENT`), :mod:`.align`
(which item is which), :mod:`.canonical` (keys and JSON types, JSON strings by content), :mod:`.ignore` (ignore
patterns) and :mod:`.blockers` (replay blockers). Their public names are imported from here.

Pure: no Flask. Pointers are RFC 6901 (:mod:`webapp.core.json.pointer`). What the Diff page shows of a result
(rows, side-by-side) is :mod:`webapp.core.diff_page`.
"""

from webapp.core.diff.align import (
    PAIR_THRESHOLD,
    lcs_pairs,
    lcs_runs,
    outside_runs,
    pair_gaps,
    similarity,
    strictly_equal,
    unequal_offsets,
)
from webapp.core.diff.blockers import BLOCKERS, ITEM_ARRAYS, Blocker, item_blockers, replay_blockers
from webapp.core.diff.differ import diff
from webapp.core.diff.ignore import parse_ignore_paths
from webapp.core.diff.result import (
    ABSENT,
    JSON_STRING_KEYS,
    KINDS,
    Change,
    DiffError,
    DiffOptions,
    DiffResult,
    Reformatted,
)

__all__ = [
    "ABSENT",
    "BLOCKERS",
    "ITEM_ARRAYS",
    "JSON_STRING_KEYS",
    "KINDS",
    "PAIR_THRESHOLD",
    "Blocker",
    "Change",
    "DiffError",
    "DiffOptions",
    "DiffResult",
    "Reformatted",
    "diff",
    "item_blockers",
    "lcs_pairs",
    "lcs_runs",
    "outside_runs",
    "pair_gaps",
    "parse_ignore_paths",
    "replay_blockers",
    "similarity",
    "strictly_equal",
    "unequal_offsets",
]
