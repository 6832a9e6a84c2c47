"""The Format page's model (step 1), pure: what one submission shows, and the page's other answers.

:func:`build` reads what was pasted or uploaded (JSON, or JSON Lines), formats it
(:mod:`webapp.core.format`), reports its Open Responses items (:mod:`webapp.core.inspection`) and builds the tree
(:mod:`webapp.core.tree`) into a :class:`FormatPage`. :func:`expand` answers one tree node's children,
:func:`download_file` the whole formatted text as a file, :func:`too_large_message` a body over the size limit.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from webapp.core.format import ACTIONS, INDENTS, format_bytes, format_lines, format_text, formatted_part, utf8_size
from webapp.core.gate import DEFAULT_TARGET, TARGET_TITLES
from webapp.core.inspection import Inspection, inspect
from webapp.core.json import (
    BIG_TEXT,
    DEFAULT_MAX_DEPTH,
    Document,
    JSONLine,
    JSONTextError,
    JSONWarning,
    looks_like_lines,
    parse,
    parse_lines,
    paused_gc,
)
from webapp.core.tree import TREE_NODE_LIMIT, TreeNode, build_tree, count_nodes, subtree, tree_value

__all__ = [
    "OUTPUT_SHOWN",
    "DownloadFile",
    "FormatPage",
    "TreeAnswer",
    "build",
    "download_file",
    "expand",
    "text_digest",
    "too_large_message",
]

#: Characters of the formatted text put in the page; "Download" gives all of it. Megabytes of text in one
#: element make the browser slow to lay out and to copy, and the answer big.
OUTPUT_SHOWN = 1_000_000


@dataclass
class FormatPage:
    """Everything the Format page shows for one submission.

    :ivar text: the input as text (an upload decoded as UTF-8, BOM dropped): the form shows it again.
    :ivar ok: the text was read and formatted.
    :ivar output: the whole formatted text; ``None`` on an error, or when only a part was asked for (``preview``)
        and the whole was not built.
    :ivar shown: the part of the formatted text the page shows; ``cut``: it is not all of it; ``output_size``: UTF-8
        bytes of the whole formatted text.
    :ivar data: the whole formatted text as UTF-8, instead of ``output``, when asked for (a download).
    :ivar error: the parse error (line:column, caret excerpt); ``as_lines``: it is the error of a JSON Lines record.
    :ivar document: the parsed document (``None`` for a document over :data:`BIG_TEXT` characters once reported:
        its values are freed while the garbage collector is paused, see :func:`build`); ``records``: the
        records instead, for JSON Lines.
    :ivar warnings: the warnings of the document or of every record (line numbers in the whole text).
    :ivar inspection: the Open Responses view, or ``None`` when the document holds no items.
    :ivar tree: the tree's root (``None`` with ``tree_note`` saying why); ``nodes``: values counted (capped).
    :ivar digest: a fingerprint of ``text`` (newlines normalised) that tree requests send back.
    """

    text: str
    action: str
    indent: str
    target: str = DEFAULT_TARGET  # where the items are replayed: the gate's findings on them are about it
    ok: bool = False
    output: str | None = None
    shown: str = ""
    cut: bool = False
    known_size: int | None = None
    input_size: int | None = None
    data: bytes | None = None
    error: JSONTextError | None = None
    as_lines: bool = False
    document: Document | None = None
    records: list[JSONLine] | None = None
    warnings: list[JSONWarning] = field(default_factory=list)
    inspection: Inspection | None = None
    tree: TreeNode | None = None
    tree_note: str = ""
    nodes: int = 0

    @property
    def digest(self) -> str:
        """See :func:`text_digest`."""
        return text_digest(self.text)

    @property
    def output_size(self) -> int:
        """UTF-8 bytes of the whole formatted text (counted once)."""
        if self.known_size is None:
            self.known_size = utf8_size(self.output or "")
        return self.known_size

    def set_output(self, output: str, preview: int | None) -> None:
        """Keep the whole formatted text, and the part shown (``preview`` characters at most, cut at a line end)."""
        self.ok, self.output = True, output
        self.shown, self.cut = output, False
        if preview is not None and len(output) > preview:
            end = output.rfind("\n", 0, preview)
            self.shown, self.cut = output[: end if end > 0 else preview], True

    @property
    def size(self) -> int:
        """UTF-8 bytes of the input text (BOM dropped), counted once."""
        if self.input_size is None:
            self.input_size = self.document.size if self.document is not None else utf8_size(self.text)
        return self.input_size


def text_digest(text: str) -> str:
    """A short fingerprint of a document, blind to CRLF vs LF (browsers send textareas with CRLF)."""
    return hashlib.sha256(text.replace("\r\n", "\n").encode("utf-8", "surrogatepass")).hexdigest()[:20]


def build(
    source: str | bytes,
    *,
    action: str = "pretty",
    indent: str = "2",
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_bytes: int | None = None,
    tree_limit: int = TREE_NODE_LIMIT,
    preview: int | None = None,
    as_bytes: bool = False,
    target: str = DEFAULT_TARGET,
) -> FormatPage:
    """Read ``source`` (JSON, or JSON Lines when the text holds one value per line), format it with ``action``
    (one of :data:`ACTIONS`) and ``indent`` (a key of :data:`INDENTS`), inspect its items and build the tree.

    Bad input is never an exception: the :class:`FormatPage` carries the error with its line:column.

    :param preview: characters of the formatted text the caller will show; a longer answer is not built whole
        (``FormatPage.output`` is then ``None``; ``FormatPage.shown`` has the part). ``None``: the whole text.
    :param as_bytes: the whole formatted text as UTF-8 in ``FormatPage.data`` (not in ``output``), for a download:
        nothing else is reported (no warnings are looked for, no items inspected, no tree built; the document's
        ``value`` may be ``None``: a big text is checked, not decoded).
    :param target: where the items are replayed (one of the gate's ``TARGETS``; another value reads as the
        default): the gate's findings on the items are about it.
    :raises ValueError: for an unknown ``action`` or ``indent`` (a programming error, not user input).
    """
    if action not in ACTIONS:
        raise ValueError(f"unknown action {action!r}")
    big = len(source) > BIG_TEXT
    with paused_gc(big):  # millions of values are alive while the text is formatted
        target = target if target in TARGET_TITLES else DEFAULT_TARGET
        outcome = _build(source, action, indent, max_depth, max_bytes, tree_limit, preview, as_bytes, target)
        if big and outcome.document is not None:
            # Nothing shown needs the values any more. Freed now, they cost no garbage collection: kept, the first
            # collection after the pause would walk all of them (a sixth of a 45 MB document's time).
            outcome.input_size = outcome.document.size
            outcome.document = None
        return outcome


def _build(
    source: str | bytes,
    action: str,
    indent: str,
    max_depth: int,
    max_bytes: int | None,
    tree_limit: int,
    preview: int | None,
    as_bytes: bool,
    target: str,
) -> FormatPage:
    spaces = INDENTS[indent]
    outcome = FormatPage("", action, indent, target)
    try:
        # A download shows nothing but the formatted text: no warnings are looked for and no values built.
        document = parse(
            source, max_depth=max_depth, max_bytes=max_bytes, warn=not as_bytes, string_parts=True, values=not as_bytes
        )
    except JSONTextError as err:
        outcome.text = (
            source.decode("utf-8", "replace").removeprefix("\ufeff")
            if isinstance(source, (bytes, bytearray))
            else source
        )
        outcome.error = err
        if err.code == "extra_data" and looks_like_lines(outcome.text, max_depth=max_depth):
            _read_lines(outcome, max_depth, spaces, preview)
        return outcome
    outcome.text, outcome.document, outcome.warnings = document.text, document, list(document.warnings)
    if as_bytes:
        outcome.ok = True
        outcome.data = format_bytes(document.text, action, spaces, split=document.take_string_parts())
        return outcome  # a download: nothing else is shown
    if preview is None:
        outcome.set_output(format_text(document.text, action, spaces, split=document.take_string_parts()), None)
    else:
        outcome.ok = True
        outcome.shown, outcome.cut, outcome.known_size = formatted_part(
            document.text, action, spaces, preview, split=document.take_string_parts(), size=document.size
        )
        outcome.output = None if outcome.cut else outcome.shown
    outcome.inspection = inspect(document, indent=spaces, target=outcome.target)
    outcome.nodes = count_nodes(document.value, tree_limit)
    if outcome.nodes > tree_limit:
        # The same words as the text view's own note: a cut text view does not show everything.
        rest = (
            "the text view shows its first part, and Download gives the whole document"
            if outcome.cut
            else "the text view shows everything"
        )
        outcome.tree_note = f"Tree view is off for documents of more than {tree_limit:,} values; {rest}."
    else:
        outcome.tree = build_tree(tree_value(document.text))
    return outcome


def _read_lines(outcome: FormatPage, max_depth: int, spaces: str, preview: int | None) -> None:
    """Read the text as JSON Lines into ``outcome`` (the whole text did not parse as one value)."""
    try:
        records = parse_lines(outcome.text, max_depth=max_depth)
    except JSONTextError as err:
        outcome.error, outcome.as_lines = err, True
        return
    outcome.error = None
    outcome.records = records
    outcome.warnings = [w for record in records for w in record.document.warnings]
    outcome.set_output(format_lines(records, outcome.action, spaces), preview)
    outcome.inspection = inspect(records, indent=spaces, target=outcome.target)
    outcome.tree_note = (
        "JSON Lines: the tree view shows one document; paste a single record (or the records as "
        "a JSON array) to browse it as a tree."
    )


@dataclass(frozen=True)
class DownloadFile:
    """The whole formatted text as a file: ``name`` (``formatted.json``; JSON Lines: ``formatted.jsonl`` minified,
    ``formatted.txt`` pretty-printed, one JSON text per record over several lines, which is neither JSON nor JSON
    Lines), its ``mimetype`` and ``body`` (UTF-8 bytes, or text)."""

    name: str
    mimetype: str
    body: bytes | str


def download_file(outcome: FormatPage) -> DownloadFile:
    """The file for a formatted :class:`FormatPage` (``outcome.ok``; made with ``as_bytes=True`` or ``preview=None``).

    :raises ValueError: when the outcome holds no formatted text (the input was not JSON).
    """
    if not outcome.ok:
        raise ValueError("nothing was formatted: the input is not JSON")
    if outcome.records is None:
        name, mimetype = "formatted.json", "application/json"
    elif outcome.action == "minify":
        name, mimetype = "formatted.jsonl", "application/jsonl"
    else:
        name, mimetype = "formatted.txt", "text/plain"  # the server adds its charset (UTF-8)
    body = outcome.data if outcome.data is not None else outcome.output
    return DownloadFile(name, mimetype, body if body is not None else "")


@dataclass(frozen=True)
class TreeAnswer:
    """One tree expansion as the page shows it: the ``node`` with its children from ``start``, or a ``problem``
    (a sentence) when the document changed or lost the node; ``digest`` of the text as sent."""

    node: TreeNode | None
    problem: str | None
    start: int
    digest: str


def expand(
    text: str, pointer: str, *, start: int = 0, digest: str | None = None, max_depth: int = DEFAULT_MAX_DEPTH
) -> TreeAnswer:
    """The children of the tree node at ``pointer`` of the document ``text``, sent again by the page (nothing is
    stored). ``digest`` is the :func:`text_digest` of the text the tree was built from: a document edited since is
    noticed. Never raises: a bad text, pointer or digest is the answer's ``problem``.
    """
    node, problem = None, None
    if digest is not None and digest != text_digest(text):
        problem = "The document changed since it was formatted: format it again to browse it."
    else:
        try:
            node = subtree(text, pointer, start=start, max_depth=max_depth)
            if node.children is None:  # a scalar (null, a number, a string...): nothing to expand
                node, problem = None, f"{pointer or '(root)'} holds a single value, with no members to show."
        except JSONTextError as err:
            problem = f"The document is no longer valid JSON ({err}): format it again."
        except (KeyError, ValueError):
            problem = f"Nothing at {pointer or '(root)'} in the document now: format it again."
    return TreeAnswer(node, problem, start, text_digest(text))


def too_large_message(limit: int) -> str:
    """What the page says of a body over ``limit`` bytes (``MAX_CONTENT_LENGTH``), which was not read."""
    megabytes = f" ({limit / (1 << 20):.3g} MB)" if limit >= 1 << 20 else ""
    return (
        f"What you sent is larger than the limit of {limit:,} bytes{megabytes}, so it was not read. Format "
        "a smaller part, or start the app with a larger MAX_CONTENT_LENGTH (FLASK_MAX_CONTENT_LENGTH)."
    )
