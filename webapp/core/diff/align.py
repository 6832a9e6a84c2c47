"""Aligning two JSON arrays for the diff, pure: which item on the left is which item on the right.

deepdiff matches list items by position, so one insert at the front of a journal would cascade into one "change"
per later item; the diff (:mod:`webapp.core.diff`) aligns arrays here instead. Each item has a hashable key (its
identity or a canonical form of its content, chosen by the differ); :func:`lcs_runs` pairs equal keys in order
(common prefix/suffix, unique-key anchors as in patience diff, exact dynamic programming on small gaps) as runs of
consecutive pairs, and :func:`pair_gaps` pairs what is left between the anchors by :func:`similarity`, so an edited
item shows as one changed item rather than a removal and an addition. :func:`unequal_offsets` tells which pairs of
a run differ, at C speed for the equal ones (a journal of 24,000 items is compared without a Python step per item).
"""

from __future__ import annotations

import bisect
import json
import marshal
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import compress
from operator import ne
from typing import Any

import orjson

__all__ = [
    "PAIR_THRESHOLD",
    "lcs_pairs",
    "lcs_runs",
    "outside_runs",
    "pair_gaps",
    "similarity",
    "strictly_equal",
    "unequal_offsets",
]

_DP_CELLS = 40_000  # exact LCS on a gap with at most this many cells (n*m); bigger gaps use anchors only
_PAIR_CELLS = 2_500  # similarity alignment inside a gap up to this size; beyond it, pair by position
#: Least similarity for two unmatched items to be shown as one changed item.
PAIR_THRESHOLD = 0.3


def strictly_equal(a: Any, b: Any) -> bool:
    """Whether two parsed JSON values are equal with JSON types kept apart (``1``, ``1.0`` and ``true`` differ, as
    Python's ``==`` does not say); key order ignored."""
    if a != b:
        return False
    if _same_dump(a, b):
        return True
    # ``==`` already ignores key order. The marshal bytes (format 2: no back-references, so equal values give equal
    # bytes) tell int/float/bool apart at C speed when key order matches; the sorted dump settles the rest.
    return marshal.dumps(a, 2) == marshal.dumps(b, 2) or json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _same_dump(x: Any, y: Any) -> bool:
    """True only when ``x`` and ``y``, already ``==``, are strictly equal: their orjson texts are equal. orjson
    writes each JSON type apart (``1``, ``1.0``, ``true``; ``-0.0``; a float always with a point or an exponent)
    and floats exactly (the shortest text that reads back the same), so equal texts of ``==``-equal values mean
    equal types everywhere. About three times faster than marshal's bytes (no table of the objects seen).

    Members in another order give other texts; what orjson does not write (an integer beyond 64 bits, a lone
    surrogate) is left to marshal: ``False`` only means "look closer"."""
    try:
        return orjson.dumps(x) == orjson.dumps(y)
    except orjson.JSONEncodeError:
        return _same_marshal(x, y)


def _same_marshal(x: Any, y: Any) -> bool:
    """True only when ``x`` and ``y`` are strictly equal (types kept apart), by one C-speed serialisation each.

    Marshal's current format writes a value shared within the dump once and refers back to it later, so its bytes
    are about half as long as format 2's (JSON member names are shared objects); equal bytes still mean equal
    values of the same types, since the bytes read back to one value. Equal values shared differently, or with
    their keys in another order, give different bytes: ``False`` then only means "look closer"."""
    return marshal.dumps(x) == marshal.dumps(y)


def unequal_offsets(a: Sequence[Any], b: Sequence[Any], i: int, j: int, n: int) -> list[int]:
    """The offsets ``k`` (ascending, ``0 <= k < n``) at which ``a[i + k]`` and ``b[j + k]`` are not
    :func:`strictly_equal`: the pairs of an aligned run that need a closer look.

    Python's ``==`` finds the unequal pairs at C speed; the stretches of ``==``-equal pairs between them are then
    confirmed strictly equal one whole stretch at a time (so ``1`` against ``1.0`` or ``true`` is not missed), and
    a stretch that is not confirmed is checked pair by pair.
    """
    xs, ys = a[i : i + n], b[j : j + n]
    unequal = list(compress(range(n), map(ne, xs, ys)))
    found: list[int] = []
    start = 0
    for end in (*unequal, n):
        if end > start and not _same_dump(xs[start:end], ys[start:end]):
            found.extend(k for k in range(start, end) if not strictly_equal(xs[k], ys[k]))
        if end < n:
            found.append(end)
        start = end + 1
    return found


def _lis(candidates: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Longest subsequence of ``(i, j)`` pairs (sorted by i) with increasing j (patience sorting, O(k log k))."""
    tails: list[int] = []  # tails[n] = smallest j ending an increasing run of length n+1
    tail_index: list[int] = []
    previous = [-1] * len(candidates)
    for index, (_, j) in enumerate(candidates):
        n = bisect.bisect_left(tails, j)
        if n == len(tails):
            tails.append(j)
            tail_index.append(index)
        else:
            tails[n] = j
            tail_index[n] = index
        previous[index] = tail_index[n - 1] if n else -1
    out = []
    index = tail_index[-1] if tail_index else -1
    while index >= 0:
        out.append(candidates[index])
        index = previous[index]
    out.reverse()
    return out


def _lcs_dp(a: Sequence[int], b: Sequence[int], alo: int, ahi: int, blo: int, bhi: int) -> list[tuple[int, int]]:
    """Exact longest common subsequence of ``a[alo:ahi]`` and ``b[blo:bhi]`` by dynamic programming."""
    n, m = ahi - alo, bhi - blo
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below = table[i], table[i + 1]
        ai = a[alo + i]
        for j in range(m - 1, -1, -1):
            row[j] = below[j + 1] + 1 if ai == b[blo + j] else max(below[j], row[j + 1])
    pairs = []
    i = j = 0
    while i < n and j < m:
        if a[alo + i] == b[blo + j]:
            pairs.append((alo + i, blo + j))
            i += 1
            j += 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def _common_prefix(a: Sequence[Any], b: Sequence[Any], i: int, j: int, n: int) -> int:
    """Length of the common prefix of ``a[i:i + n]`` and ``b[j:j + n]`` (see :func:`_agreeing`)."""
    return _agreeing(lambda done, size: a[i + done : i + done + size] == b[j + done : j + done + size], n)


def _common_suffix(a: Sequence[Any], b: Sequence[Any], ahi: int, bhi: int, n: int) -> int:
    """Length of the common suffix of ``a[ahi - n:ahi]`` and ``b[bhi - n:bhi]`` (see :func:`_agreeing`)."""
    return _agreeing(lambda done, size: a[ahi - done - size : ahi - done] == b[bhi - done - size : bhi - done], n)


def _agreeing(same: Callable[[int, int], bool], n: int) -> int:
    """How many of ``n`` items agree from one end, where ``same(done, size)`` compares the ``size`` items that
    follow the first ``done`` by slices (C speed): chunks of doubling size, then bisection inside the first chunk
    that differs (the first difference is at an offset in ``[lo, hi]`` of it)."""
    done, chunk = 0, 16
    while done < n:
        size = min(chunk, n - done)
        if not same(done, size):
            lo, hi = 0, size - 1
            while lo < hi:
                mid = (lo + hi) // 2
                if same(done, mid + 1):
                    lo = mid + 1
                else:
                    hi = mid
            return done + lo
        done += size
        chunk *= 2
    return n


def lcs_runs(a: Sequence[Any], b: Sequence[Any]) -> list[tuple[int, int, int]]:
    """A common subsequence of ``a`` and ``b`` (hashable keys) as runs ``(i, j, n)``: ``a[i + k]`` pairs with
    ``b[j + k]`` for ``0 <= k < n``; runs sorted, not overlapping, and consecutive runs not contiguous.

    Common prefix and suffix first (slice comparisons at C speed), then items whose key is unique on both sides as
    anchors (their longest increasing run, as in patience diff), recursively; a gap without anchors gets the exact
    DP when it has at most ``_DP_CELLS`` cells and is otherwise left unmatched (its items are paired by position
    later). Near-linear on journals where most items keep their keys; exact on small inputs.
    """
    shortest = min(len(a), len(b))
    head = _common_prefix(a, b, 0, 0, shortest)
    tail = _common_suffix(a, b, len(a), len(b), shortest - head)
    runs = [(0, 0, head), (len(a) - tail, len(b) - tail, tail)]
    alo, ahi, blo, bhi = head, len(a) - tail, head, len(b) - tail
    pairs: list[tuple[int, int]] = []
    if alo < ahi and blo < bhi:
        # Small integer codes for the keys of the middle part: cheaper to count, hash and compare (the lists are
        # padded in front so that indexes stay those of a and b).
        codes: dict[Any, int] = {}
        ka = [0] * alo + [codes.setdefault(key, len(codes)) for key in a[alo:ahi]]
        kb = [0] * blo + [codes.setdefault(key, len(codes)) for key in b[blo:bhi]]
        pairs = _anchored_pairs(ka, kb, alo, ahi, blo, bhi)
    pairs.sort()
    out: list[tuple[int, int, int]] = []
    for i, j, n in [runs[0], *((i, j, 1) for i, j in pairs), runs[1]]:
        if not n:
            continue
        if out and out[-1][0] + out[-1][2] == i and out[-1][1] + out[-1][2] == j:
            out[-1] = (out[-1][0], out[-1][1], out[-1][2] + n)
        else:
            out.append((i, j, n))
    return out


def lcs_pairs(a: Sequence[Any], b: Sequence[Any]) -> list[tuple[int, int]]:
    """:func:`lcs_runs` as index pairs ``(i, j)``, sorted by i and j."""
    return [(i + k, j + k) for i, j, n in lcs_runs(a, b) for k in range(n)]


def _anchored_pairs(ka: list[int], kb: list[int], alo: int, ahi: int, blo: int, bhi: int) -> list[tuple[int, int]]:
    """Pairs of equal codes in ``ka[alo:ahi]`` and ``kb[blo:bhi]``, in order: common prefix and suffix, unique
    anchors, exact DP on small gaps (see :func:`lcs_runs`); not sorted."""
    pairs: list[tuple[int, int]] = []
    stack = [(alo, ahi, blo, bhi)]
    while stack:
        alo, ahi, blo, bhi = stack.pop()
        while alo < ahi and blo < bhi and ka[alo] == kb[blo]:
            pairs.append((alo, blo))
            alo += 1
            blo += 1
        while alo < ahi and blo < bhi and ka[ahi - 1] == kb[bhi - 1]:
            ahi -= 1
            bhi -= 1
            pairs.append((ahi, bhi))
        if alo == ahi or blo == bhi:
            continue
        count_a = Counter(ka[alo:ahi])
        count_b = Counter(kb[blo:bhi])
        where_b = {kb[j]: j for j in range(blo, bhi) if count_b[kb[j]] == 1}
        candidates = [(i, where_b[ka[i]]) for i in range(alo, ahi) if count_a[ka[i]] == 1 and ka[i] in where_b]
        if candidates:
            prev_i, prev_j = alo, blo
            for i, j in _lis(candidates):
                stack.append((prev_i, i, prev_j, j))
                pairs.append((i, j))
                prev_i, prev_j = i + 1, j + 1
            stack.append((prev_i, ahi, prev_j, bhi))
        elif (ahi - alo) * (bhi - blo) <= _DP_CELLS:
            pairs.extend(_lcs_dp(ka, kb, alo, ahi, blo, bhi))
    return pairs


def outside_runs(runs: list[tuple[int, int, int]], n: int, m: int) -> tuple[list[int], list[int]]:
    """The left indices (below ``n``) and right indices (below ``m``) in none of the ``runs`` of
    :func:`lcs_runs` (``(i, j, length)``), ascending: what is left to pair gap by gap, or to add and remove."""
    free_l: list[int] = []
    free_r: list[int] = []
    end_i = end_j = 0
    for i, j, length in [*runs, (n, m, 0)]:
        free_l.extend(range(end_i, i))
        free_r.extend(range(end_j, j))
        end_i, end_j = i + length, j + length
    return free_l, free_r


def similarity(x: Any, y: Any) -> float:
    """How alike two unmatched items are, 0..1: decides whether they show as one changed item."""
    if isinstance(x, dict) and isinstance(y, dict):
        keys = x.keys() | y.keys()
        if not keys:
            return 1.0
        score = 0.0
        for key in keys:
            if key in x and key in y:
                score += 1.0 if strictly_equal(x[key], y[key]) else 0.5
        return score / len(keys)
    if isinstance(x, list) and isinstance(y, list):
        return 0.5
    if isinstance(x, (dict, list)) or isinstance(y, (dict, list)):
        return 0.0
    if type(x) is type(y) or (
        isinstance(x, (int, float))
        and isinstance(y, (int, float))
        and not isinstance(x, bool)
        and not isinstance(y, bool)
    ):
        return 0.5
    return PAIR_THRESHOLD  # scalars of different JSON types: shown as a type change


def _pair_gap(left: list[int], right: list[int], a: Sequence[Any], b: Sequence[Any]) -> list[tuple[int, int]]:
    """Pair unmatched items of one gap, keeping order: the best total similarity when the gap is small,
    otherwise position by position; pairs below ``PAIR_THRESHOLD`` stay an addition and a removal."""
    if not left or not right:
        return []
    if len(left) * len(right) > _PAIR_CELLS:
        return [(i, j) for i, j in zip(left, right, strict=False) if similarity(a[i], b[j]) >= PAIR_THRESHOLD]
    n, m = len(left), len(right)
    sim = [[similarity(a[i], b[j]) for j in right] for i in left]
    best = [[0.0] * (m + 1) for _ in range(n + 1)]
    for p in range(n - 1, -1, -1):
        for q in range(m - 1, -1, -1):
            take = best[p + 1][q + 1] + sim[p][q] if sim[p][q] >= PAIR_THRESHOLD else -1.0
            best[p][q] = max(take, best[p + 1][q], best[p][q + 1])
    pairs = []
    p = q = 0
    while p < n and q < m:
        if sim[p][q] >= PAIR_THRESHOLD and best[p][q] == best[p + 1][q + 1] + sim[p][q]:
            pairs.append((left[p], right[q]))
            p += 1
            q += 1
        elif best[p + 1][q] >= best[p][q + 1]:
            p += 1
        else:
            q += 1
    return pairs


def pair_gaps(
    anchors: Sequence[tuple[int, int]],
    free_left: Sequence[int],
    free_right: Sequence[int],
    a: Sequence[Any],
    b: Sequence[Any],
) -> list[tuple[int, int]]:
    """Pair the unmatched items of ``a`` and ``b`` gap by gap: between consecutive ``anchors`` (pairs already
    made, sorted), the free left indices ``free_left`` (sorted) with the free right ones ``free_right`` (sorted), by
    :func:`_pair_gap`. An item never pairs across an anchor, so the pairs keep the anchors' order.

    :return: ``(i, j)`` pairs, in order.
    """
    pairs: list[tuple[int, int]] = []
    bounds = [*sorted(anchors), (len(a), len(b))]
    pl = pr = 0
    for hi_i, hi_j in bounds:
        gl = []
        while pl < len(free_left) and free_left[pl] < hi_i:
            gl.append(free_left[pl])
            pl += 1
        gr = []
        while pr < len(free_right) and free_right[pr] < hi_j:
            gr.append(free_right[pr])
            pr += 1
        if gl and gr:
            pairs.extend(_pair_gap(gl, gr, a, b))
    return pairs
