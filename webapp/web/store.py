"""Stored responses: an SQLite file (by default ``responses.sqlite3`` in the instance folder).

One row per stored ``ResponseResource`` and one row per input or output item, so that a chain of
``previous_response_id`` can be replayed (spec 1.8: previous input + previous output + new input), an
``item_reference`` can be resolved, and a session's items listed in order. Nothing here imports Flask; the
view opens one :class:`ResponseStore` per app. Each call opens its own connection (cheap for SQLite), so
the store is safe to use from the threads of a threaded server.
"""

from __future__ import annotations

import json
import os
import queue
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,      -- insertion order (created_at has one-second resolution)
    id TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    previous_response_id TEXT,
    session_key TEXT,
    body TEXT NOT NULL                          -- the ResponseResource as JSON
);
CREATE INDEX IF NOT EXISTS responses_by_session ON responses (session_key, seq);
CREATE TABLE IF NOT EXISTS items (
    response_id TEXT NOT NULL REFERENCES responses (id) ON DELETE CASCADE,
    source TEXT NOT NULL CHECK (source IN ('input', 'output')),
    position INTEGER NOT NULL,
    item_id TEXT,
    body TEXT NOT NULL,
    PRIMARY KEY (response_id, source, position)
);
CREATE INDEX IF NOT EXISTS items_by_id ON items (item_id);
-- The context a stored response continues when what it continues is not stored: a store:false response of the
-- WebSocket connection that made it (spec notes §1.11). A chain walk stops at a response that has a base.
CREATE TABLE IF NOT EXISTS bases (
    response_id TEXT PRIMARY KEY REFERENCES responses (id) ON DELETE CASCADE,
    body TEXT NOT NULL                          -- the items, a JSON array, oldest first
);
"""

#: Responses of a ``previous_response_id`` chain replayed at most (a guard only: ids are fresh, so a chain cannot
#: loop); older ones are left out of the context.
MAX_CHAIN = 10_000
POOL_SIZE = 8  # idle connections kept open


class MissingResponse(LookupError):
    """A response of a ``previous_response_id`` chain is not stored (never was, ``store: false``, or
    deleted).

    :param response_id: the id that is missing.
    :param requested: the id the caller asked for (differs when an ancestor is missing).
    """

    def __init__(self, response_id: str, requested: str) -> None:
        self.response_id = response_id
        self.requested = requested
        if response_id == requested:
            message = f"no stored response with id {response_id!r}"
        else:
            message = (
                f"response {requested!r} continues {response_id!r}, which is no longer stored, "
                "so its conversation cannot be replayed"
            )
        super().__init__(message)


@dataclass(frozen=True)
class StoredResponse:
    """A stored response: the ``ResponseResource`` (``body``), its input items (ids filled in), the session key it
    was routed by, and its ``base``: the items it continues when they are not stored (``None`` when its
    ``previous_response_id``, if any, is stored itself)."""

    body: dict[str, Any]
    input: list[dict[str, Any]]
    session_key: str | None
    base: list[dict[str, Any]] | None = None

    @property
    def id(self) -> str:
        return self.body["id"]


@dataclass(frozen=True)
class SessionItem:
    """One item of a session, in conversation order.

    :param response_id: the response it belongs to.
    :param source: ``input`` or ``output``.
    :param index: its position in that response's input or output.
    :param item: the item itself.
    :param previous_response_id: the response its response continues, or ``None`` (it starts a conversation, or
        its client sends the whole conversation each turn).
    """

    response_id: str
    source: str
    index: int
    item: dict[str, Any]
    previous_response_id: str | None = None


@dataclass(frozen=True)
class StoredGroup:
    """A line of the index of stored work: a session (``key``), or one response stored without a session key
    (``key`` ``None``, ``response_id`` its id).

    :param responses: how many responses it holds; ``items``: how many input and output items.
    :param created_at: when its newest response was created (Unix seconds).
    """

    key: str | None
    response_id: str | None
    responses: int
    items: int
    created_at: int

    @property
    def created_utc(self) -> str:
        """:attr:`created_at` as ``YYYY-MM-DD HH:MM:SS`` in UTC."""
        return datetime.fromtimestamp(self.created_at, UTC).strftime("%Y-%m-%d %H:%M:%S")


class StorageError(Exception):
    """The store cannot do what was asked for a reason of the machine, not of the request: the disk, the file.

    :ivar message: plain words: what happened to which file, and what to do.
    :ivar code: the stable machine code (``storage_full``, ``storage_unavailable``).
    :ivar status: the HTTP status a route answers it with (507, 503).
    """

    code = "storage_unavailable"
    status = 503

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class StorageFull(StorageError):
    """The disk (or ``RESPONSES_DATABASE_MAX_BYTES``) has no room for what was to be stored (SQLite ``SQLITE_FULL``)."""

    code = "storage_full"
    status = 507  # Insufficient Storage (RFC 4918 §11.5)


class StorageUnavailable(StorageError):
    """The database cannot be read or written: read-only, not an SQLite database, damaged, missing, a failing disk,
    or locked by another process for longer than the busy timeout."""


# SQLite's primary result codes (https://www.sqlite.org/rescode.html), as Python 3.11's sqlite3 names them, with what
# the person running the server can do about each.
_ADVICE = {
    "SQLITE_FULL": "the disk (or RESPONSES_DATABASE_MAX_BYTES) is full: free some space, or delete stored responses",
    "SQLITE_READONLY": "it cannot be written: make the file, its -wal and -shm files and their folder writable by "
    "this user, or set RESPONSES_DATABASE (FLASK_RESPONSES_DATABASE) to a file that is",
    "SQLITE_PERM": "it cannot be written: make the file and its folder writable by this user, or set "
    "RESPONSES_DATABASE (FLASK_RESPONSES_DATABASE) to a file that is",
    "SQLITE_CANTOPEN": "it cannot be opened: check that its folder exists and is writable by this user, or set "
    "RESPONSES_DATABASE (FLASK_RESPONSES_DATABASE) to another file",
    "SQLITE_NOTADB": "it is not an SQLite database: move it away (a new one is made at the next start), or set "
    "RESPONSES_DATABASE (FLASK_RESPONSES_DATABASE) to another file",
    "SQLITE_CORRUPT": "it is damaged: move it away (a new one is made at the next start), or set "
    "RESPONSES_DATABASE (FLASK_RESPONSES_DATABASE) to another file",
    "SQLITE_IOERR": "the disk failed to read or write it: check the disk, or set RESPONSES_DATABASE "
    "(FLASK_RESPONSES_DATABASE) to a file on another one",
    "SQLITE_BUSY": "another process holds it locked: wait, or stop the other server using the same file",
    "SQLITE_LOCKED": "another connection holds it locked: wait, or stop the other server using the same file",
}


def storage_error(err: sqlite3.Error, target: str) -> StorageError | None:
    """The :class:`StorageError` an ``sqlite3`` error on the database ``target`` stands for, or ``None`` when it is
    none of the machine's faults (then it is a bug of ours, raised as it is)."""
    name = getattr(err, "sqlite_errorname", "") or ""
    primary = next((key for key in _ADVICE if name == key or name.startswith(key + "_")), None)
    if primary is None:
        return None
    kind = StorageFull if primary == "SQLITE_FULL" else StorageUnavailable
    return kind(f"The response store {target} cannot be used ({err}): {_ADVICE[primary]}.")


#: The files of an SQLite database in WAL mode: the database, its write-ahead log and its shared-memory index.
SQLITE_SUFFIXES = ("", "-wal", "-shm")


def _make_private(path: str) -> None:
    """Create the database file ``path`` readable by its owner only (mode 0600, like the token and the secret), and
    make an existing one and its ``-wal`` and ``-shm`` files so: SQLite creates the ``-wal`` and ``-shm`` files with
    the database file's own mode, so all three stay private."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass
    for suffix in SQLITE_SUFFIXES:
        try:
            if os.stat(path + suffix).st_mode & 0o077:
                os.chmod(path + suffix, 0o600)
        except FileNotFoundError:
            pass


class ResponseStore:
    """SQLite-backed storage of responses.

    :param path: a file path, or ``":memory:"`` for a private in-memory database that lives as long as
        this object (one shared-cache connection is kept open).
    :param max_bytes: the most the database file may grow to (SQLite's ``max_page_count``); ``None``: the disk's.
    :raises StorageUnavailable, StorageFull: at start (and from every method) when the file cannot be used, with
        what to do about it.
    """

    _counter = 0
    _lock = threading.Lock()

    def __init__(self, path: str, max_bytes: int | None = None) -> None:
        self._keeper: sqlite3.Connection | None = None
        self._max_bytes = max_bytes
        # Writers of this process take turns here rather than in SQLite: a writer that finds the database
        # locked sleeps in SQLite's busy handler (1, 2, 5, 10... ms) even when the lock frees a microsecond
        # later, which under a threaded server costs far more than the write. Other processes still wait
        # through the busy timeout.
        self._write_lock = threading.Lock()
        self._pool: queue.SimpleQueue[sqlite3.Connection] = queue.SimpleQueue()
        if path == ":memory:":
            with ResponseStore._lock:
                ResponseStore._counter += 1
                self._target, self._uri = (
                    f"file:responses-{id(self)}-{ResponseStore._counter}?mode=memory&cache=shared",
                    True,
                )
            self._keeper = sqlite3.connect(self._target, uri=True, check_same_thread=False)
        else:
            self._target, self._uri = path, False
            try:
                _make_private(path)
            except OSError as err:
                raise StorageUnavailable(
                    f"The response store {path} cannot be used ({err.strerror}): {_ADVICE['SQLITE_CANTOPEN']}."
                ) from None
        with self._connect() as db:
            if not self._uri:
                db.execute("PRAGMA journal_mode=WAL")  # readers never wait for the one writer
            db.executescript(SCHEMA)
            if not self._uri:
                # a write at start (the header's user_version, unchanged): a read-only file is said now, with what
                # to do, rather than as a 503 on the first response stored
                version = db.execute("PRAGMA user_version").fetchone()[0]
                db.execute(f"PRAGMA user_version={int(version)}")

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        # A small pool: Werkzeug's threaded server starts a thread per request, so per-thread connections would
        # be opened and dropped each time; a connection is used by one thread at a time.
        db: sqlite3.Connection | None = None
        try:
            try:
                db = self._pool.get_nowait()
            except queue.Empty:
                db = sqlite3.connect(self._target, uri=self._uri, timeout=30, check_same_thread=False)
                db.execute("PRAGMA foreign_keys=ON")
                # WAL with synchronous=NORMAL: no fsync per commit (a power cut may lose the last responses, a
                # crash of the app cannot corrupt the file) - right for a local test server.
                db.execute("PRAGMA synchronous=NORMAL")
                if self._max_bytes is not None:
                    page_size = db.execute("PRAGMA page_size").fetchone()[0]
                    db.execute(f"PRAGMA max_page_count={max(1, self._max_bytes // page_size)}")
            with db:  # one transaction: commit on success, roll back on error
                yield db
        except sqlite3.Error as err:
            problem = storage_error(err, self._target)
            if problem is None:
                raise
            raise problem from err
        finally:
            if db is not None and self._pool.qsize() < POOL_SIZE:
                self._pool.put(db)
            elif db is not None:
                db.close()

    def close(self) -> None:
        """Close the pooled connections (and drop a ``:memory:`` database)."""
        while True:
            try:
                self._pool.get_nowait().close()
            except queue.Empty:
                break
        if self._keeper is not None:
            self._keeper.close()
            self._keeper = None

    def save(
        self,
        body: dict[str, Any],
        input_items: list[dict[str, Any]],
        session_key: str | None,
        base: list[dict[str, Any]] | None = None,
    ) -> None:
        """Store a response with its input items (each should carry an ``id``; see
        ``openresponses.stored_input_item``). Saving the same id again replaces it.

        :param base: the items its ``previous_response_id`` stands for, when that response is not stored (a
            WebSocket connection's ``store: false`` one): kept with it, so the chain ends here and stays continuable.
        """
        rows = [(body["id"], "input", i, item.get("id"), json.dumps(item)) for i, item in enumerate(input_items)]
        rows += [
            (body["id"], "output", i, item.get("id"), json.dumps(item))
            for i, item in enumerate(body.get("output") or [])
        ]
        with self._write_lock, self._connect() as db:
            db.execute("DELETE FROM responses WHERE id = ?", (body["id"],))
            db.execute(
                "INSERT INTO responses (id, created_at, previous_response_id, session_key, body) "
                "VALUES (?, ?, ?, ?, ?)",
                (
                    body["id"],
                    body.get("created_at", 0),
                    body.get("previous_response_id"),
                    session_key,
                    json.dumps(body),
                ),
            )
            db.executemany(
                "INSERT INTO items (response_id, source, position, item_id, body) VALUES (?, ?, ?, ?, ?)", rows
            )
            if base is not None:
                db.execute("INSERT INTO bases (response_id, body) VALUES (?, ?)", (body["id"], json.dumps(base)))

    def get(self, response_id: str) -> StoredResponse | None:
        """The stored response, or ``None``. The response and its items are read in one transaction, so a
        concurrent :meth:`delete` gives ``None``, never the response without its items."""
        with self._connect() as db:
            db.execute("BEGIN")  # sqlite3 opens none for SELECTs: without it each SELECT sees its own moment
            row = db.execute("SELECT body, session_key FROM responses WHERE id = ?", (response_id,)).fetchone()
            if row is None:
                return None
            items = db.execute(
                "SELECT body FROM items WHERE response_id = ? AND source = 'input' ORDER BY position", (response_id,)
            ).fetchall()
        return StoredResponse(json.loads(row[0]), [json.loads(r[0]) for r in items], row[1])

    def delete(self, response_id: str) -> bool:
        """Delete a response and its items; ``False`` when there was none."""
        with self._write_lock, self._connect() as db:
            return db.execute("DELETE FROM responses WHERE id = ?", (response_id,)).rowcount > 0

    def chain(self, response_id: str) -> list[StoredResponse]:
        """The response and every response it continues, oldest first (at most :data:`MAX_CHAIN` of them); the walk
        stops at a response with a ``base`` (the oldest then carries it).

        Three queries in one transaction whatever the depth (a recursive walk of ``previous_response_id``), so a
        turn's context costs time linear in its items, and a concurrent delete cannot tear the chain.

        :raises MissingResponse: the response, or one of its ancestors, is not stored.
        """
        walk = (
            "WITH RECURSIVE chain (id, depth) AS (SELECT ?, 0 UNION ALL "
            "SELECT responses.previous_response_id, chain.depth + 1 FROM chain "
            "JOIN responses ON responses.id = chain.id "
            "WHERE responses.previous_response_id IS NOT NULL AND chain.depth + 1 < ? "
            "AND NOT EXISTS (SELECT 1 FROM bases WHERE bases.response_id = chain.id)) "
        )
        with self._connect() as db:
            db.execute("BEGIN")
            links = db.execute(
                walk + "SELECT chain.id, responses.body, responses.session_key FROM chain "
                "LEFT JOIN responses ON responses.id = chain.id ORDER BY chain.depth",
                (response_id, MAX_CHAIN),
            ).fetchall()
            inputs: dict[str, list[dict[str, Any]]] = {}
            for owner, body in db.execute(
                walk + "SELECT items.response_id, items.body FROM chain "
                "JOIN items ON items.response_id = chain.id AND items.source = 'input' "
                "ORDER BY chain.depth, items.position",
                (response_id, MAX_CHAIN),
            ):
                inputs.setdefault(owner, []).append(json.loads(body))
            oldest = links[-1][0] if links else None
            based = db.execute("SELECT body FROM bases WHERE response_id = ?", (oldest,)).fetchone()
        chain: list[StoredResponse] = []
        for link_id, body, session_key in links:
            if body is None:
                raise MissingResponse(link_id, response_id)
            base = json.loads(based[0]) if based is not None and link_id == oldest else None
            chain.append(StoredResponse(json.loads(body), inputs.get(link_id, []), session_key, base))
        chain.reverse()
        return chain

    def find_item(self, item_id: str) -> dict[str, Any] | None:
        """The most recently stored item with this ``id`` (input or output), for ``item_reference``."""
        with self._connect() as db:
            row = db.execute(
                "SELECT items.body FROM items JOIN responses ON responses.id = items.response_id "
                "WHERE item_id = ? ORDER BY responses.seq DESC, items.source DESC LIMIT 1",
                (item_id,),
            ).fetchone()
        return json.loads(row[0]) if row else None

    def session_items(self, session_key: str, *, limit: int = 100, offset: int = 0) -> list[SessionItem]:
        """The items of every response routed by ``session_key``, in conversation order (responses in the
        order stored; in each, the input items, then the output items)."""
        return self._items("responses.session_key = ?", session_key, limit, offset)

    def response_items(self, response_id: str, *, limit: int = 100) -> list[SessionItem]:
        """The items of one stored response (its input items, then its output items); ``[]`` when it is not
        stored."""
        return self._items("responses.id = ?", response_id, limit, 0)

    def _items(self, where: str, value: str, limit: int, offset: int) -> list[SessionItem]:
        with self._connect() as db:
            rows = db.execute(
                "SELECT items.response_id, items.source, items.position, items.body, responses.previous_response_id "
                f"FROM items JOIN responses ON responses.id = items.response_id WHERE {where} "
                "ORDER BY responses.seq, items.source, items.position LIMIT ? OFFSET ?",
                (value, limit, offset),
            ).fetchall()
        return [SessionItem(r[0], r[1], r[2], json.loads(r[3]), r[4]) for r in rows]

    def groups(self, *, limit: int = 100) -> list[StoredGroup]:
        """The index of stored work, newest first, at most ``limit`` lines: each session, and each response
        stored without a session key on its own. Counts and times only: no item's content."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT session_key, CASE WHEN session_key IS NULL THEN id END, COUNT(*), "
                "SUM((SELECT COUNT(*) FROM items WHERE items.response_id = responses.id)), "
                "MAX(created_at), MAX(seq) AS newest FROM responses "
                "GROUP BY session_key, CASE WHEN session_key IS NULL THEN id END "
                "ORDER BY newest DESC LIMIT ?",
                (limit,),
            ).fetchall()
        return [StoredGroup(r[0], r[1], r[2], r[3] or 0, r[4]) for r in rows]
