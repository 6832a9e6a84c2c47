"""Command line: ``python -m webapp gate JOURNAL [--tools TOOLS.json] [--schema SCHEMA.json] [--json]``, and
``python -m webapp serve [--host 127.0.0.1] [--port 5000]`` (what ``scripts/serve`` runs).

Prints one line per item (index, id, reason) and the journal's findings, then whether it is replayable.
Exit status: 0 replayable, 1 not replayable, 2 unusable input (the message on stderr names the file and the
place: line:column, or a JSON Pointer).

The journal is read as plain JSON, so it is answered about even when it holds lone surrogates or duplicate
member names; a name given twice in it is a ``duplicate_member`` finding (an error: exit 1) with the item, the
pointer and line:column. In a ``--tools`` or ``--schema`` file a name given twice is unusable input (exit 2).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from webapp.core.gate import JournalReport, check_journal
from webapp.core.journal import JournalError, load_journal
from webapp.core.json import text as jsontext
from webapp.core.json.text import kind_of
from webapp.core.schema import SchemaInvalid, compile_schema

EXIT_REPLAYABLE, EXIT_NOT_REPLAYABLE, EXIT_UNUSABLE = 0, 1, 2


class _Unusable(Exception):
    """Input the gate cannot use; the message names the file and the place."""


def _read(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise _Unusable(f"{path}: cannot read it ({exc.strerror or exc})") from None


def _read_json(path: str) -> Any:
    """A tools or schema file: plain JSON; a member name given twice is refused (which value counts depends on
    the parser, so the tool or schema the journal is judged against would be unclear)."""
    try:
        document = jsontext.parse(_read(path))
    except jsontext.JSONTextError as err:
        raise _Unusable(f"{path}: {err}") from None
    for warning in document.warnings:
        if warning.code == "duplicate_key":
            raise _Unusable(f"{path}: line {warning.line}, column {warning.column}: {warning.message} "
                            f"(at {warning.pointer or '/'}; remove one: which value counts depends on the parser)")
    return document.value


def _load_tools(path: str) -> list[Any]:
    value = _read_json(path)
    if isinstance(value, dict) and isinstance(value.get("tools"), list):  # a request or response carrying tools
        value = value["tools"]
    if not isinstance(value, list):
        raise _Unusable(f"{path}: expected a JSON array of tool definitions (or an object with \"tools\"), "
                        f"not {kind_of(value)}")
    return value


def _load_schema(path: str) -> Any:
    schema = _read_json(path)
    try:
        compile_schema(schema)
    except SchemaInvalid as exc:
        raise _Unusable(f"{path}: {exc}") from None
    return schema


def _print_report(report: JournalReport, where: Any, out: TextIO) -> None:
    for item in report.items:
        label = item.name or item.type or "-"
        out.write(f"{item.index:>5}  {item.id or '-':<20}  {label:<28}  {item.label}\n")
        if item.label not in ("ok", "not_function_call"):
            out.write(f"{'':>7}{where(item.index)}: {item.message}\n")
            for error in item.errors[1:]:
                out.write(f"{'':>9}{error.pointer or '(root)'}: {error.message}\n")
    if report.findings:
        out.write("findings:\n")
    for finding in report.findings:
        at = f"item {finding.index}" if finding.index is not None else "tools"
        out.write(f"  {finding.severity:<7}  {finding.code:<26}  {at}: {finding.message}\n")
    summary = ", ".join(f"{reason} {count}" for reason, count in report.counts.items()) or "no items"
    out.write(f"replayable: {'yes' if report.replayable else 'no'} ({summary})\n")


def gate_command(options: argparse.Namespace, out: TextIO) -> int:
    """Run ``gate``; returns the exit status."""
    journal = load_journal(_read(options.journal))
    tools = _load_tools(options.tools) if options.tools else None
    schema = _load_schema(options.schema) if options.schema else None
    report = check_journal(journal, tools, schema=schema)
    if options.json:
        out.write(json.dumps(report.as_dict(), indent=2) + "\n")
    else:
        _print_report(report, journal.where, out)
    return EXIT_REPLAYABLE if report.replayable else EXIT_NOT_REPLAYABLE


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m webapp", description="Open Responses inspector tools.")
    commands = parser.add_subparsers(dest="command", required=True)
    gate = commands.add_parser(
        "gate", help="may the items of a stored journal be replayed?",
        description="Gate every item of a journal (JSON array, JSON Lines, a response or a request; '-' reads "
                    "stdin). Exit 0 replayable, 1 not, 2 unusable input.")
    gate.add_argument("journal", metavar="JOURNAL")
    gate.add_argument("--tools", metavar="TOOLS.json", help="tool definitions (a JSON array, or an object with "
                      "\"tools\"); default: the journal's own")
    gate.add_argument("--schema", metavar="SCHEMA.json", help="one JSON Schema for every function_call")
    gate.add_argument("--json", action="store_true", help="print the API's JSON report")
    serve = commands.add_parser(
        "serve", help="serve the app (Werkzeug's threaded server, no version in the Server header)",
        description="Serve the inspector. Settings come from FLASK_* environment variables (README, Configuration).")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=5000, help="port (default 5000)")
    return parser


def serve_command(options: argparse.Namespace) -> int:
    """Serve :func:`webapp.create_app` on ``options.host``:``options.port`` until interrupted."""
    from werkzeug.serving import run_simple

    from webapp import create_app
    from webapp.web.security import RequestHandler

    run_simple(options.host, options.port, create_app(), threaded=True, request_handler=RequestHandler)
    return 0


def main(argv: list[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Entry point; returns the exit status (0 replayable, 1 not, 2 unusable input)."""
    out = out or sys.stdout
    err = err or sys.stderr
    for stream in (out, err):  # a lone surrogate from the input must not crash the printing
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    options = build_parser().parse_args(argv)
    if options.command == "serve":
        return serve_command(options)
    try:
        return gate_command(options, out)
    except JournalError as exc:
        where = f" (at {exc.pointer or '/'})" if exc.pointer is not None and exc.line is None else ""
        err.write(f"{options.journal}: {exc.message}{where}\n")
    except _Unusable as exc:
        err.write(f"{exc}\n")
    return EXIT_UNUSABLE


if __name__ == "__main__":
    raise SystemExit(main())
