"""The caches of the schema layer, each bounded by a number of entries and by an estimate of the bytes it holds.

A count alone does not bound memory: one compiled ``pattern`` may take a few KiB or tens of MiB, one compiled
schema a few KiB or (for a schema of a megabyte) tens of MiB. So every entry is stored with its estimated size and
the oldest entries are dropped until both bounds hold. The estimates are made where the cached things are built
(:func:`webapp.core.schema.patterns.compile_pattern`, :func:`webapp.core.schema.compiled.compile_schema`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

MiB = 1024 * 1024


class SizedCache(OrderedDict):
    """A mapping that keeps at most ``max_entries`` entries and about ``max_bytes`` bytes, oldest dropped first.

    Reading is the mapping's own ``get`` (no lock, no reordering: the hot path stays one dictionary lookup);
    writing goes through :meth:`put` only, which accounts for the size; :meth:`touch` marks an entry as recently
    used. An entry bigger than ``max_bytes`` on its own is not kept.

    :ivar max_entries: the bound on the number of entries.
    :ivar max_bytes: the bound on the sum of the entries' estimated sizes (bytes).
    :ivar bytes: that sum now.
    """

    def __init__(self, max_entries: int, max_bytes: int) -> None:
        super().__init__()
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.bytes = 0
        self._sizes: dict[Any, int] = {}
        self._lock = threading.Lock()

    def put(self, key: Any, value: Any, size: int) -> None:
        """Store ``value`` under ``key`` with its estimated ``size`` (bytes), then drop the oldest entries until
        both bounds hold."""
        with self._lock:
            if key in self._sizes:
                self.bytes -= self._sizes.pop(key)
                super().__delitem__(key)
            if size > self.max_bytes:
                return
            super().__setitem__(key, value)
            self._sizes[key] = size
            self.bytes += size
            while len(self) > self.max_entries or self.bytes > self.max_bytes:
                oldest, _ = super().popitem(last=False)
                self.bytes -= self._sizes.pop(oldest)

    def touch(self, key: Any) -> None:
        """Mark ``key`` as recently used (it is dropped last)."""
        with self._lock:
            if key in self._sizes:
                self.move_to_end(key)

    def clear(self) -> None:
        """Drop every entry."""
        with self._lock:
            super().clear()
            self._sizes.clear()
            self.bytes = 0


#: Compiled ``regex`` objects by ECMA pattern (:func:`webapp.core.schema.patterns.compile_pattern`).
PATTERNS = SizedCache(max_entries=4096, max_bytes=64 * MiB)
#: Compiled schemas (or the :class:`~webapp.core.schema.errors.SchemaError` they raise) by canonical JSON text
#: and format assertion.
SCHEMAS = SizedCache(max_entries=512, max_bytes=256 * MiB)
#: The same, by the identity of the schema object a caller passed (a hit costs one dictionary lookup).
IDENTITIES = SizedCache(max_entries=512, max_bytes=256 * MiB)
