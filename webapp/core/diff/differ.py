"""The differ: two parsed JSON documents walked side by side into changes, reformatted strings and a patch.

Objects are compared member by member (key order ignored; with ignore patterns deepdiff walks them, with a
custom operator that hands lists, JSON strings and ignored members back here); arrays are aligned
(:mod:`webapp.core.diff.align`) and only the pairs that differ cost a Python step; each difference is recorded as a
:class:`~webapp.core.diff.result.Change` and as the RFC 6902 operations that make the left document's value the
right's, so the patch is exact. :func:`diff` runs it and reads the replay blockers from the item pairs it matched
(:mod:`webapp.core.diff.blockers`).
"""

from __future__ import annotations

import marshal
from collections import defaultdict, deque
from typing import Any

from deepdiff import DeepDiff

from webapp.core.diff.align import lcs_runs, outside_runs, pair_gaps, strictly_equal, unequal_offsets
from webapp.core.diff.blockers import ITEM_ARRAYS, Blocker, replay_blockers
from webapp.core.diff.canonical import MAX_DEPTH, canonical, json_kind, parse_json_string, same_number, scalar_key
from webapp.core.diff.ignore import compile_patterns, pattern_matches
from webapp.core.diff.result import ABSENT, Change, DiffError, DiffOptions, DiffResult, Reformatted
from webapp.core.json import pointer as jp

__all__ = ["diff"]

_BLOCK = 32  # out of order: runs of this many aligned pairs are compared at once (C speed) before item by item


class _Operator:
    """deepdiff custom operator: takes over lists (aligned by :class:`_Differ`), JSON strings and ignored paths."""

    def __init__(self, differ: _Differ, lt: tuple, rt: tuple) -> None:
        self.differ, self.lt, self.rt = differ, lt, rt
        self.nested: list[tuple[tuple, list[Change]]] = []  # (relative path, changes found below it)

    def match(self, level: Any) -> bool:
        """deepdiff asks whether this operator takes ``level`` over: lists, ignored members, JSON strings."""
        t1, t2 = level.t1, level.t2
        if isinstance(t1, list) and isinstance(t2, list):
            return True
        differ = self.differ
        if not (differ.patterns or (isinstance(t1, str) and isinstance(t2, str) and t1 != t2)):
            return False
        rel = tuple(level.path(output_format="list"))
        if differ.patterns and rel and differ.ignored_path(self.lt + rel, self.rt + rel):
            return True
        return bool(rel) and rel[-1] in differ.string_keys and isinstance(t1, str) and isinstance(t2, str)

    def give_up_diffing(self, level: Any, diff_instance: Any) -> bool:
        """Compare ``level`` ourselves (or skip it when ignored); its changes are kept in :attr:`nested`, to be
        merged in document order. Always True: deepdiff reports nothing for it."""
        rel = tuple(level.path(output_format="list"))
        differ = self.differ
        if differ.patterns and rel and differ.ignored_path(self.lt + rel, self.rt + rel):
            differ.ignored += 1
            return True
        saved, differ.changes = differ.changes, []
        try:
            if isinstance(level.t1, list):
                differ.arrays(level.t1, level.t2, self.lt + rel, self.rt + rel)
            else:
                differ.json_strings(level.t1, level.t2, self.lt + rel, self.rt + rel)
            self.nested.append((rel, differ.changes))
        finally:
            differ.changes = saved
        return True


class _Differ:
    """One diff run: walks two documents and collects what :func:`diff` answers.

    Paths are tuples of tokens (member names, array indexes): ``lt`` in the left document, ``rt`` in the right one,
    where patch operations apply (they differ once array items before them were added, removed or moved). As it
    walks, it collects :attr:`changes` (document order), :attr:`reformatted` JSON strings, the patch :attr:`ops`
    (``None`` when ``patch`` is off, as for the contents of a JSON string, which are replaced whole), the count of
    comparisons skipped by ignore patterns, and the matched or added *items* of the item arrays
    (:data:`ITEM_ARRAYS`) that the blockers are read from.
    """

    def __init__(self, options: DiffOptions, *, patch: bool = True) -> None:
        self.options = options
        self.patterns = compile_patterns(options.ignore_paths)
        self.string_keys = tuple(options.json_string_keys)
        self.match_tokens: tuple[str, ...] | None = None
        if options.match_key:  # a member name, or a pointer into the item
            key = options.match_key.strip()
            self.match_tokens = tuple(jp.split(key)) if key.startswith("/") else (key,)
        self.match_looked = self.match_found = 0  # objects asked for match_key, and those that had it
        self.changes: list[Change] = []
        self.reformatted: list[Reformatted] = []
        self.same_numbers: list[tuple[str, str]] = []
        self.ops: list[dict[str, Any]] | None = [] if patch else None
        self.ignored = 0
        self.item_pairs: list[tuple[tuple, tuple, Any, Any]] = []
        self.item_added: list[tuple[tuple, Any]] = []

    # -- helpers
    def ignored_path(self, lt: tuple, rt: tuple) -> bool:
        """Does an ignore pattern match the member at ``lt`` (left) or at ``rt`` (right)?"""
        lt_s = tuple(str(t) for t in lt)
        rt_s = tuple(str(t) for t in rt)
        return any(pattern_matches(p, lt_s) or pattern_matches(p, rt_s) for p in self.patterns)

    def op(self, op: str, tokens: tuple, value: Any = ABSENT, source: tuple | None = None) -> None:
        """Append an RFC 6902 operation at ``tokens`` (``value`` for add/replace, ``source`` for move)."""
        if self.ops is None:
            return
        entry: dict[str, Any] = {"op": op}
        if source is not None:
            entry["from"] = jp.join(source)
        entry["path"] = jp.join(tokens)
        if value is not ABSENT:
            entry["value"] = value
        self.ops.append(entry)

    def record(
        self, kind: str, lt: tuple | None, rt: tuple | None, old: Any = ABSENT, new: Any = ABSENT, **extra: Any
    ) -> None:
        """Append a :class:`Change` of ``kind`` at ``lt``/``rt`` (``None``: no such side); ``extra``: its
        ``inner`` or ``note``."""
        self.changes.append(
            Change(kind, None if lt is None else jp.join(lt), None if rt is None else jp.join(rt), old, new, **extra)
        )

    def identity_names(self, tokens: tuple) -> tuple[str, ...]:
        """Members that identify the items of the array at ``tokens`` (``call_id``, ``id``), minus ignored ones."""
        if not self.patterns:
            return ("call_id", "id")
        return tuple(name for name in ("call_id", "id") if not self.ignored_path(tokens + ("*", name), ()))

    def identity(self, item: Any, names: tuple[str, ...]) -> Any:
        """Identity of an array item, or None: ``match_key``'s value, else ``call_id`` (with whether the item is
        an ``*_output``, since a call and its output share it), else ``id``."""
        if not isinstance(item, dict):
            return None
        if self.match_tokens is not None:
            self.match_looked += 1
            value: Any = item
            for token in self.match_tokens:
                if not isinstance(value, dict) or token not in value:
                    return None
                value = value[token]
            self.match_found += 1
            return ("key", canonical(value, ()))
        for name in names:
            value = item.get(name)
            if value.__class__ is str or (value.__class__ is int):
                if name == "call_id":
                    kind = item.get("type")
                    return (name, value, kind.__class__ is str and kind.endswith("_output"))
                return (name, value)
        return None

    def key(self, item: Any, names: tuple[str, ...]) -> Any:
        """Alignment key of an array item: its identity, else a canonical form of its content."""
        identity = self.identity(item, names)
        if identity is not None:
            return identity
        if isinstance(item, (dict, list)):
            return ("content", canonical(item, self.string_keys))
        return scalar_key(item)

    def keys(self, items: list, names: tuple[str, ...]) -> list:
        """:meth:`key` of every item of an array; the default identity (``call_id``, else ``id``) is read inline,
        since this runs once per item of every array (a journal has tens of thousands)."""
        if self.match_tokens is not None or names != ("call_id", "id"):
            return [self.key(item, names) for item in items]
        keys: list[Any] = []
        for item in items:
            if item.__class__ is dict:
                value = item.get("call_id")
                if value.__class__ is str or value.__class__ is int:
                    kind = item.get("type")
                    keys.append(("call_id", value, kind.__class__ is str and kind.endswith("_output")))
                    continue
                value = item.get("id")
                if value.__class__ is str or value.__class__ is int:
                    keys.append(("id", value))
                    continue
            keys.append(self.key(item, names))
        return keys

    # -- comparison
    def values(self, a: Any, b: Any, lt: tuple, rt: tuple) -> None:
        """Compare two values at ``lt`` (left) / ``rt`` (right); ``rt`` is also where patch operations apply."""
        if isinstance(a, list) and isinstance(b, list):
            if not strictly_equal(a, b):
                self.arrays(a, b, lt, rt)
        elif isinstance(a, dict) and isinstance(b, dict):
            if not strictly_equal(a, b):
                self.objects(a, b, lt, rt)
        elif same_number(a, b):
            if a.__class__ is not b.__class__:  # 1 and 1.0: the same number; the patch keeps the right's form
                self.same_numbers.append((jp.join(lt), jp.join(rt)))
                self.op("replace", rt, b)
        elif json_kind(a) != json_kind(b):
            self.record("type_changed", lt, rt, a, b)
            self.op("replace", rt, b)
        elif a != b:
            self.record("changed", lt, rt, a, b)
            self.op("replace", rt, b)

    def objects(self, a: dict, b: dict, lt: tuple, rt: tuple) -> None:
        """Two objects, member by member (:meth:`members`); with ignore patterns deepdiff walks them, with
        :class:`_Operator` taking over lists, JSON strings and ignored paths."""
        if not self.patterns:
            self.members(a, b, lt, rt)
            return
        operator = _Operator(self, lt, rt)
        tree = DeepDiff(a, b, view="tree", threshold_to_diff_deeper=0, custom_operators=[operator], verbose_level=2)
        found: list[tuple[tuple, list[Change]]] = list(operator.nested)
        kinds = {
            "dictionary_item_added": "added",
            "dictionary_item_removed": "removed",
            "values_changed": "changed",
            "type_changes": "type_changed",
        }
        for report, kind in kinds.items():
            for level in tree.get(report, ()):
                rel = tuple(level.path(output_format="list"))
                if self.patterns and self.ignored_path(lt + rel, rt + rel):
                    self.ignored += 1
                    continue
                old = ABSENT if kind == "added" else level.t1
                new = ABSENT if kind == "removed" else level.t2
                if kind in ("changed", "type_changed") and same_number(old, new):
                    self.same_numbers.append((jp.join(lt + rel), jp.join(rt + rel)))
                    self.op("replace", rt + rel, new)
                    continue
                if kind in ("changed", "type_changed"):
                    kind = "changed" if json_kind(old) == json_kind(new) else "type_changed"
                change = Change(
                    kind,
                    None if kind == "added" else jp.join(lt + rel),
                    None if kind == "removed" else jp.join(rt + rel),
                    old,
                    new,
                )
                found.append((rel, [change]))
                self.op({"added": "add", "removed": "remove"}.get(kind, "replace"), rt + rel, new)
        found.sort(key=lambda entry: _document_order(a, b, entry[0]))
        for _, changes in found:
            self.changes.extend(changes)

    def members(self, a: dict, b: dict, lt: tuple, rt: tuple) -> None:
        """Report and patch the members of two objects in reading order (the left's members, then those only on the
        right), a nested array, object or JSON string compared in place: the results of deepdiff with
        ``threshold_to_diff_deeper=0``, without its per-call cost (a journal from another provider differs in the
        ``id`` of nearly every item). Ignore patterns aside (:meth:`objects`)."""
        for key, old in a.items():
            if key not in b:
                self.record("removed", lt + (key,), None, old, ABSENT)
                self.op("remove", rt + (key,))
                continue
            new = b[key]
            if (
                old.__class__ is new.__class__
                and (old is new or old == new)
                and (old.__class__ not in (dict, list) or strictly_equal(old, new))
            ):
                continue
            if key in self.string_keys and old.__class__ is str and new.__class__ is str:
                self.json_strings(old, new, lt + (key,), rt + (key,))
            else:
                self.values(old, new, lt + (key,), rt + (key,))
        for key, new in b.items():
            if key not in a:
                self.record("added", None, rt + (key,), ABSENT, new)
                self.op("add", rt + (key,), new)

    def json_strings(self, a: str, b: str, lt: tuple, rt: tuple) -> None:
        """Two strings under a JSON-string key (``arguments``): compare parsed contents."""
        budget = MAX_DEPTH - len(lt)  # the contents count toward the document's nesting cap
        left, right = parse_json_string(a, budget), parse_json_string(b, budget)
        if left is ABSENT or right is ABSENT:
            bad = " and ".join(side for side, v in (("left", left), ("right", right)) if v is ABSENT)
            self.record(
                "changed",
                lt,
                rt,
                a,
                b,
                note=f"{bad}: not valid JSON, or nested deeper than {budget} levels here; the raw strings are compared",
            )
            self.op("replace", rt, b)
            return
        inner = _Differ(
            DiffOptions(ignore_order=self.options.ignore_order, match_key=self.options.match_key, json_string_keys=()),
            patch=False,
        )
        inner.values(left, right, (), ())
        if inner.changes:
            self.record("changed", lt, rt, a, b, inner=tuple(inner.changes))
        else:
            self.reformatted.append(Reformatted(jp.join(lt), jp.join(rt), a, b))
        self.op("replace", rt, b)  # the patch stays exact: the right document's text

    def arrays(self, a: list, b: list, lt: tuple, rt: tuple) -> None:
        """Align two arrays and report additions, removals, moves and the differences of matched items."""
        items = not lt or (len(lt) == 1 and lt[0] in ITEM_ARRAYS and len(rt) == 1)
        names = self.identity_names(lt)
        ka, kb = self.keys(a, names), self.keys(b, names)
        if self.options.ignore_order:
            where: dict[Any, deque[int]] = defaultdict(deque)
            for i, key in enumerate(ka):
                where[key].append(i)
            pairs = []
            for j, key in enumerate(kb):
                if where.get(key):
                    pairs.append((where[key].popleft(), j))
            self.paired_arrays(a, b, lt, rt, pairs, [], set(), items)
            return
        runs = lcs_runs(ka, kb)
        free_l, free_r = outside_runs(runs, len(a), len(b))
        # Items whose key matched but fell out of order: moves (jsondiffpatch's detectMove does the same).
        where = defaultdict(deque)
        for i in free_l:
            where[ka[i]].append(i)
        moves = [(where[kb[j]].popleft(), j) for j in free_r if where.get(kb[j])]
        if moves:
            anchors = [(i + k, j + k) for i, j, n in runs for k in range(n)]
            self.paired_arrays(a, b, lt, rt, anchors + moves, anchors, {j for _, j in moves}, items)
            return
        # Pair what is left, gap by gap (between consecutive runs), by similarity: still in order.
        gap_pairs = pair_gaps([(i, j) for i, j, _ in runs], free_l, free_r, a, b) if free_l and free_r else []
        self.emit_in_order(a, b, lt, rt, runs, gap_pairs, free_l, free_r, items)

    def emit_in_order(
        self,
        a: list,
        b: list,
        lt: tuple,
        rt: tuple,
        runs: list[tuple[int, int, int]],
        gap_pairs: list[tuple[int, int]],
        free_l: list[int],
        free_r: list[int],
        items: bool,
    ) -> None:
        """Report and patch an array aligned in order: ``runs`` of pairs (:func:`lcs_runs`) and ``gap_pairs``
        between them; the free indices not in a gap pair are removals (``free_l``) and additions (``free_r``).
        The same reports and operations as :meth:`emit_array`, but each run's pairs are compared at C speed
        (:func:`unequal_offsets`): only those that differ cost a Python step."""
        paired_l, paired_r = {i for i, _ in gap_pairs}, {j for _, j in gap_pairs}
        removed = [i for i in free_l if i not in paired_l]
        added = [j for j in free_r if j not in paired_r]
        for i in reversed(removed):
            self.op("remove", rt + (i,))
        # A removed item shows just before the pair that follows it on the left; additions in right order.
        r = q = 0
        for i0, j0, n in [*sorted([*runs, *((i, j, 1) for i, j in gap_pairs)]), (len(a), len(b), 0)]:
            while q < len(added) and added[q] < j0:
                self.added(b, rt, added[q], items)
                q += 1
            while r < len(removed) and removed[r] < i0:
                self.record("removed", lt + (removed[r],), None, a[removed[r]], ABSENT)
                r += 1
            for k in unequal_offsets(a, b, i0, j0, n):
                self.pair(a[i0 + k], b[j0 + k], lt + (i0 + k,), rt + (j0 + k,), items)

    def added(self, b: list, rt: tuple, j: int, items: bool) -> None:
        """Report and patch the addition of ``b[j]``."""
        self.record("added", None, rt + (j,), ABSENT, b[j])
        self.op("add", rt + (j,), b[j])
        if items:
            self.item_added.append((rt + (j,), b[j]))

    def pair(self, x: Any, y: Any, lt: tuple, rt: tuple, items: bool) -> None:
        """Compare a matched pair of array items; the pairs of items that differ are kept for the blockers."""
        before = len(self.changes), len(self.reformatted)
        self.values(x, y, lt, rt)
        if items and before != (len(self.changes), len(self.reformatted)):
            self.item_pairs.append((lt, rt, x, y))

    def paired_arrays(
        self,
        a: list,
        b: list,
        lt: tuple,
        rt: tuple,
        pairs: list[tuple[int, int]],
        anchors: list[tuple[int, int]],
        moved: set[int],
        items: bool,
    ) -> None:
        """Report and patch an array whose ``pairs`` may be out of order (moves, ``ignore_order``): what is left
        is paired gap by gap between the ``anchors`` by similarity, then :meth:`emit_array`."""
        left_of = [-1] * len(b)  # right index -> paired left index, -1 for an addition
        for i, j in pairs:
            left_of[j] = i
        paired_left = bytearray(len(a))
        for i, _ in pairs:
            paired_left[i] = 1
        free_l = [i for i in range(len(a)) if not paired_left[i]]
        free_r = [j for j in range(len(b)) if left_of[j] < 0]
        if free_l and free_r:
            for i, j in pair_gaps(anchors, free_l, free_r, a, b):
                left_of[j] = i
                paired_left[i] = 1
        self.emit_array(
            a, b, lt, rt, left_of, paired_left, moved, items, in_order=not moved and not self.options.ignore_order
        )

    def emit_array(
        self,
        a: list,
        b: list,
        lt: tuple,
        rt: tuple,
        left_of: list[int],
        paired_left: bytearray,
        moved: set[int],
        items: bool,
        *,
        in_order: bool,
    ) -> None:
        """Report and patch one aligned array: removals first in the patch (from the end), then, in right order,
        additions, moves (positions simulated when out of order) and the differences of each pair."""
        removed = [i for i in range(len(a)) if not paired_left[i]]
        for i in reversed(removed):
            self.op("remove", rt + (i,))
        removals: deque[tuple[int, int]] = deque()
        if removed:
            # Where a removed item shows in the list: just before the right item that follows it on the left.
            right_of = [-1] * (len(a) + 1)
            for j, i in enumerate(left_of):
                if i >= 0 and j not in moved:
                    right_of[i] = j
            next_j = [len(b)] * (len(a) + 1)
            for i in range(len(a) - 1, -1, -1):
                next_j[i] = right_of[i + 1] if right_of[i + 1] >= 0 else next_j[i + 1]
            removals.extend(sorted((next_j[i], i) for i in removed))
        # Out of order (moves, ignore_order): track where each item still to be placed sits. Everything before
        # position j is final; the rest are the unplaced items in left order, so item i sits at j + (unplaced
        # items left of i): a Fenwick tree counts them in O(log n).
        current: _Counts | None = None
        if not in_order:
            ordered = [i for i in left_of if i >= 0]
            if any(x > y for x, y in zip(ordered, ordered[1:], strict=False)):
                current = _Counts(paired_left)
        block = _BLOCK
        m = len(b)
        j = 0
        while j < m:
            while removals and removals[0][0] <= j:
                _, i = removals.popleft()
                self.record("removed", lt + (i,), None, a[i], ABSENT)
            i = left_of[j]
            # Fast path: a run of `block` consecutive pairs (no addition, removal or move inside) that is equal.
            if (
                current is None
                and not moved
                and j + block <= m
                and left_of[j + block - 1] - i == block - 1
                and i >= 0
                and (not removals or removals[0][0] >= j + block)
                and -1 not in left_of[j : j + block]
            ):
                x, y = a[i : i + block], b[j : j + block]
                if x == y and marshal.dumps(x, 2) == marshal.dumps(y, 2):
                    j += block
                    continue
            if i < 0:
                self.added(b, rt, j, items)
                j += 1
                continue
            if current is not None:
                k = j + current.before(i)
                if k != j:
                    self.op("move", rt + (j,), source=rt + (k,))
                current.remove(i)
            if j in moved:
                self.record("moved", lt + (i,), rt + (j,), a[i], b[j])
            x, y = a[i], b[j]
            if not (x == y and (x.__class__ is str or strictly_equal(x, y))):
                self.pair(x, y, lt + (i,), rt + (j,), items)
            j += 1
        while removals:
            _, i = removals.popleft()
            self.record("removed", lt + (i,), None, a[i], ABSENT)


class _Counts:
    """Fenwick tree over left indices: how many marked indices lie below ``i``, and unmarking, in O(log n)."""

    def __init__(self, marked: bytearray) -> None:
        self.size = len(marked)
        tree = [0] * (self.size + 1)
        for index, flag in enumerate(marked, start=1):
            tree[index] += flag
            parent = index + (index & -index)
            if parent <= self.size:
                tree[parent] += tree[index]
        self.tree = tree

    def before(self, i: int) -> int:
        """How many marked indices are below ``i``."""
        total, index = 0, i
        while index > 0:
            total += self.tree[index]
            index -= index & -index
        return total

    def remove(self, i: int) -> None:
        """Unmark index ``i`` (it was marked)."""
        index = i + 1
        while index <= self.size:
            self.tree[index] -= 1
            index += index & -index


def _document_order(a: Any, b: Any, rel: tuple) -> tuple:
    """Sort key placing a member path in reading order: left keys first, then keys only on the right."""
    out = []
    for token in rel:
        if isinstance(a, dict) and token in a:
            keys = list(a)
            out.append(keys.index(token))
        elif isinstance(b, dict) and token in b:
            out.append(len(a) + list(b).index(token) if isinstance(a, dict) else list(b).index(token))
        else:
            out.append(0)
        a = a.get(token) if isinstance(a, dict) else None
        b = b.get(token) if isinstance(b, dict) else None
    return tuple(out)


# --------------------------------------------------------------------------------------------------------------
# Entry point


def diff(left: Any, right: Any, options: DiffOptions | None = None) -> DiffResult:
    """Semantic diff of two parsed JSON documents (plain Python values, as :func:`webapp.core.json.parse` gives).

    :param left: the document from the source provider; ``right``: the one about to be replayed.
    :param options: see :class:`DiffOptions` (defaults: identity matching, order kept, nothing ignored).
    :return: a :class:`DiffResult`: changes in document order, reformatted JSON strings, replay blockers (replay-gate
        article, step 3; Open Responses spec, Items) and an RFC 6902 patch from left to right.
    :raises DiffError: for an unusable option (malformed ignore pattern), or documents too deep to compare.

    Values nest at most as deep as the parse layer allows (100 levels), which keeps deepdiff below its own
    recursion ceiling (about 247 levels).
    """
    options = options or DiffOptions()
    differ = _Differ(options)
    try:
        differ.values(left, right, (), ())
    except RecursionError:  # not expected within the parse layer's depth cap; a clear error all the same
        raise DiffError(f"the documents nest too deeply to compare (more than {MAX_DEPTH} levels)", "depth") from None
    blockers = replay_blockers(
        left,
        right,
        ((jp.join(rt), a, b) for _, rt, a, b in differ.item_pairs),
        ((jp.join(rt), b) for rt, b in differ.item_added),
    )
    if differ.patterns:
        blockers = [_explain_ignored(blocker, differ) for blocker in blockers]
    notes = []
    if differ.match_tokens is not None and differ.match_looked and not differ.match_found:
        notes.append(
            f"no array item has {(options.match_key or '').strip()!r} (match items by): items were matched by "
            "their content instead"
        )
    return DiffResult(
        changes=differ.changes,
        reformatted=differ.reformatted,
        blockers=blockers,
        same_numbers=differ.same_numbers,
        notes=notes,
        patch=differ.ops or [],
        ignored=differ.ignored,
        options=options,
    )


# The member each blocker is about, inside its item.
_BLOCKER_MEMBERS = {
    "namespaced": "type",
    "type_changed": "type",
    "call_id": "call_id",
    "name": "name",
    "status": "status",
}


def _explain_ignored(blocker: Blocker, differ: _Differ) -> Blocker:
    """A blocker on a member the user chose to ignore still stops the replay (the gate does not ignore it); say so,
    since the change list, which does ignore it, may read "no changes"."""
    member = _BLOCKER_MEMBERS.get(blocker.code)
    if member is None:
        return blocker
    tokens = (*jp.split(blocker.pointer), member)
    if not differ.ignored_path(tokens, tokens):
        return blocker
    return Blocker(
        blocker.code,
        blocker.pointer,
        f"{blocker.message} ({jp.join(tokens)} is in Ignore paths, so the "
        "change list leaves it out; the replay rule does not)",
    )
