"""Command line of the inspector:

``python -m webapp gate JOURNAL [--from SOURCE] [--tools TOOLS.json] [--schema SCHEMA.json] [--json | --stream]``
``[--target TARGET] [--thinking | --no-thinking] [--store | --no-store]``
    Gate one journal of any source (Open Responses, Chat Completions, Anthropic, Gemini: converted first; ``-``
    reads stdin). Prints one line per item (index, id, reason, and the place in the source), the findings, then
    whether it is replayable. ``--stream`` reads Open Responses JSON Lines line by line and writes a JSON line per
    verdict and per finding as it goes, in memory that does not grow with the lines' size (the call ids pairing
    needs, a byte per item), with the verdicts and counts of the whole-file check; one JSON document or another
    provider's conversation it does not read (exit 2, naming what the file is).
``python -m webapp gate DIR | GLOB | FILE... [--dask [ADDRESS]]``
    A corpus: every journal file, one summary line each (JSON Lines with ``--json``), here or on Dask
    (``pip install .[scale]``; ``--dask`` alone starts a local cluster, or give a scheduler's address).
``python -m webapp convert FILE [--from SOURCE] [--tools TOOLS.json] [--to TARGET [--patch PATCH.json]
[--thinking | --no-thinking] [--store | --no-store] | --tools-out OUT.json]``
    Any provider's conversation as Open Responses JSON Lines on stdout; what was dropped or changed on stderr.
    ``--to`` writes instead the request body TARGET's API takes (:func:`webapp.core.export.export`): the gate's plan
    for TARGET keeps and repairs what the target may receive; what it leaves out or repairs, and what the body
    cannot hold, is said on stderr (no body at all when the gate offers none, and why). ``--patch`` writes those
    changes as an RFC 6902 JSON Patch from the journal's items to the items sent. Exit 1 when a finding stops the
    replay of the journal as it is to TARGET (the body holds only what was kept and repaired), 3 when its calls were
    not checked (no tool definitions). The body is the whole request when the file was one: its model, output limit
    and settings go to a TARGET of the same API as they came, and each one not carried is said on stderr
    (``request/model: setting_left_out: …``). ``--tools`` (read as ``gate`` reads it) stands for the
    conversation's own tools: the calls are checked against them, the body or ``--tools-out`` holds them.

A journal is judged with the settings of the request it came in (Anthropic's ``thinking``, the Responses API's
``store`` and ``include``, Gemini's ``thinkingConfig``: docs/targets.md, "What is read from the request");
``--thinking`` / ``--no-thinking`` and ``--store`` / ``--no-store`` say what the replayed request will have instead.
``python -m webapp lint-stream FILE [--kind KIND] [--json]``
    Lint a recorded Open Responses stream (SSE as ``curl -N`` prints it, a HAR file, JSON Lines of events, a
    WebSocket message log; ``-`` reads stdin): one line per finding, ``FILE:LINE:COLUMN: event N (type): severity
    code: message``, then a summary. Exit 0 clean, 1 findings, 2 unreadable (the place named).
``python -m webapp check-endpoint URL --key KEY [--model M] [--allow HOST] [--case ID] [--timeout S] [--json]``
    Run the official compliance suite's 17 cases and this app's extra ones against the server at ``URL`` (its base,
    ``http://127.0.0.1:5000/v1``), each judged by the suite's checks and by the ones it skips; one line per case,
    then its failed checks and its streams' findings. Only loopback and the hosts of ``--allow`` (and of
    ``FLASK_ALLOWED_TARGETS``) are reached. The key may come from ``OPENRESPONSES_API_KEY`` instead; it is never
    printed. Exit 0 every case passed (``--strict``: and every check the suite skips), 1 one did not, 2 the URL
    may not be reached.
``python -m webapp serve [--host 127.0.0.1] [--port 5000]``
    What ``scripts/serve`` runs.

``gate`` also takes ``--schema-dir DIR``: the ``*.json`` schema documents under DIR, each known by its ``$id``, are
what the schema and the tools' parameters may ``$ref`` by URI (resolved locally, never fetched:
:func:`webapp.core.schema.bundle`); and, for one journal, ``--output flag|basic|detailed`` (with ``--json``), which
adds to each function_call's entry the JSON Schema 2020-12 output (core §12) of validating its arguments, ``null``
when they were not validated.

Exit status: 0 replayable (``convert``: converted; ``lint-stream``: clean), 1 not replayable (for a corpus: any file;
``lint-stream``: findings), 2 unusable input (the message on stderr names the file and the place: line:column, or a
JSON Pointer), 3 cannot tell: nothing refuses the journal, but calls were not checked because no tool definitions
were given (``--tools``; for a corpus: no file refused, one or more not checked).

No option is abbreviated (``--tools-o`` is refused, never taken for ``--tools-out``), and no output is an input:
``--tools-out`` naming a file the command reads (through a link too), or stdout redirected to one, is refused
before anything is read or written (exit 2, naming both). ``--tools`` takes tool definitions in any provider's
shape (a JSON array, one definition, or an object with ``"tools"``). An empty file, or one whose first bytes are a
binary format's (PNG, PDF, gzip, ZIP, Parquet, ...: :mod:`webapp.core.signatures`), is said to be so (exit 2).

The journal is read as plain JSON, so it is answered about even when it holds lone surrogates or duplicate
member names; a name given twice in it is a ``duplicate_member`` finding (an error: exit 1) with the item, the
pointer and line:column. In a ``--tools`` or ``--schema`` file a name given twice is unusable input (exit 2).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import stat
import sys
from pathlib import Path
from typing import Any, TextIO

from webapp.core.convert import (
    SOURCES,
    Conversion,
    ConvertError,
    convert_text,
    is_other_provider_tool,
    is_tool_definition,
    placed,
    read_journal,
    tools_from,
)
from webapp.core.export import WRITERS, export
from webapp.core.gate import (
    DEFAULT_TARGET,
    TARGETS,
    JournalReport,
    check_item,
    check_journal,
    is_refusal,
    read_schema_field,
    tool_schema,
)
from webapp.core.items import tool_shape
from webapp.core.journal import JournalError
from webapp.core.journal.streaming import JournalLines, gate_lines
from webapp.core.json import JSONTextError, kind_of, parse
from webapp.core.responses.testmodel import MODEL_NAME
from webapp.core.schema import OUTPUT_FORMATS, SchemaError, bundle, compile_schema, known_documents
from webapp.core.signatures import binary_problem, file_problem
from webapp.core.stream import KINDS, RecordingError, lint_text

EXIT_REPLAYABLE, EXIT_NOT_REPLAYABLE, EXIT_UNUSABLE, EXIT_CANNOT_TELL = 0, 1, 2, 3


def exit_status(replayable: bool | None) -> int:
    """The exit status of a journal's answer: 0 replayable, 1 not, 3 cannot tell (``None``: calls not checked)."""
    return EXIT_CANNOT_TELL if replayable is None else EXIT_REPLAYABLE if replayable else EXIT_NOT_REPLAYABLE


class _Unusable(Exception):
    """Input the gate cannot use; the message names the file and the place."""


def _named(path: str) -> str:
    """A file as a message names it: its path, or ``stdin`` for ``-``."""
    return "stdin" if path == "-" else path


def _read(path: str, expected: str = "JSON text") -> bytes:
    """The bytes of ``path`` (``-``: stdin). A JSON file that is empty or binary data is refused in words about a
    file (:func:`webapp.core.signatures.file_problem`); another ``expected`` content is refused when binary only."""
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise _Unusable(f"{path}: cannot read it ({exc.strerror or exc})") from None
    problem = file_problem(data) if expected == "JSON text" else binary_problem(data, expected)
    if problem is not None:
        raise _Unusable(f"{_named(path)} {problem}")
    return data


def _read_json(path: str) -> Any:
    """A tools or schema file: plain JSON; a member name given twice is refused (which value counts depends on
    the parser, so the tool or schema the journal is judged against would be unclear)."""
    try:
        document = parse(_read(path))
    except JSONTextError as err:
        raise _Unusable(f"{path}: {err}") from None
    for warning in document.warnings:
        if warning.code == "duplicate_key":
            raise _Unusable(
                f"{path}: line {warning.line}, column {warning.column}: {warning.message} "
                f"(at {warning.pointer or '/'}; remove one: which value counts depends on the parser)"
            )
    return document.value


def _load_tools(path: str) -> list[Any]:
    """A ``--tools`` file (``gate`` and ``convert`` read it alike): a JSON array of tool definitions, one
    definition, or an object with ``"tools"`` (a request or response), in any provider's shape. Anthropic and
    Gemini definitions are read as Open Responses function tools (:func:`webapp.core.convert.tools_from`); the
    others are kept as given, so the gate still sees a custom tool's grammar and names a Chat Completions shape."""
    value = _read_json(path)
    if isinstance(value, dict) and isinstance(value.get("tools"), list):  # a request or response carrying tools
        value = value["tools"]
    elif is_tool_definition(value):
        value = [value]  # one definition, as the pages read a tools field
    if not isinstance(value, list):
        raise _Unusable(
            f'{path}: expected a JSON array of tool definitions (or an object with "tools"), not {kind_of(value)}'
        )
    tools: list[Any] = []
    for index, tool in enumerate(value):
        if not is_other_provider_tool(tool):
            tools.append(tool)
            continue
        try:
            tools += tools_from([tool])
        except ConvertError as exc:
            raise _Unusable(f"{path}: tool {index}{exc.pointer.removeprefix('/0')}: {exc.message}") from None
    return tools


def _load_documents(folder: str) -> dict[str, Any]:
    """The schema documents under ``folder`` by their ``$id`` (:func:`webapp.core.schema.known_documents`)."""
    root = Path(folder)
    if not root.is_dir():
        raise _Unusable(f"{folder}: not a folder")
    documents: dict[str, Any] = {}
    for path in sorted(root.rglob("*.json")):
        value = _read_json(str(path))
        try:
            known = known_documents([value], where=str(path))
        except SchemaError as exc:
            raise _Unusable(exc.message) from None
        uri, document = next(iter(known.items()))
        if uri in documents:
            raise _Unusable(f"{path}: another file under {folder} has the $id {uri}")
        documents[uri] = document
    return documents


def _bundled_tools(tools: list[Any], documents: dict[str, Any], path: str) -> list[Any]:
    bundled = []
    for index, tool in enumerate(tools):
        shape = tool_shape(tool)
        if shape is not None and isinstance(shape.definition.get("parameters"), (dict, bool)):
            try:
                definition = {**shape.definition, "parameters": bundle(shape.definition["parameters"], documents)}
            except SchemaError as exc:
                raise _Unusable(f"{path}: tool {index}: {exc}") from None
            tool = definition if shape.definition is tool else {**tool, "function": definition}
        bundled.append(tool)
    return bundled


def _add_outputs(answer: dict[str, Any], items: list[Any], tools: list[Any] | None, schema: Any, form: str) -> None:
    """Each function_call entry of ``answer`` gets ``"output"``: its arguments' validation in format ``form``."""
    for entry in answer["items"]:
        item = items[entry["index"]]
        if not isinstance(item, dict) or item.get("type") != "function_call":
            continue
        name = item.get("name")
        item_schema = schema if schema is not None else tool_schema(tools, name)
        verdict = check_item(item, item_schema, tool_name=name if isinstance(name, str) else None)
        validated = item_schema is not None and verdict.reached_schema
        entry["output"] = (
            compile_schema(item_schema).output(verdict.arguments, form)
            if validated and item_schema is not None
            else None
        )


def _load_schema(path: str, documents: dict[str, Any] | None = None) -> tuple[Any, list[Any] | None]:
    """The ``--schema`` file as the gate reads a schema field (:func:`webapp.core.gate.read_schema_field`):
    ``(schema, None)``, the schema bundled with ``documents`` and compiled once to refuse an unusable one, or
    ``(None, tools)`` for a tool definition or a list of them (bundled as ``--tools`` are)."""
    schema, tools = read_schema_field(_read_json(path))
    if tools is not None:
        return None, _bundled_tools(tools, documents, path) if documents else tools
    try:
        if documents:
            schema = bundle(schema, documents)
        compile_schema(schema)
    except SchemaError as exc:
        raise _Unusable(f"{path}: {exc}") from None
    return schema, None


#: Findings about the whole journal, and what a line of them names instead of an item (the rest are the tools').
_WHOLE = {
    "partial_journal": "journal",
    "duplicate_member": "journal",
    "empty_journal": "journal",
    "not_checked": "calls",
}


def _print_report(
    report: JournalReport, where: Any, out: TextIO, conversion: Conversion | None = None, journal_notes: Any = ()
) -> None:
    # The columns are as wide as their longest entry (a 36-character rs_… id), and at least as wide as before.
    id_width = max((len(item.id or "-") for item in report.items), default=0)
    label_width = max((len(item.name or item.type or "-") for item in report.items), default=0)
    id_width, label_width = max(id_width, 20), max(label_width, 28)
    for item in report.items:
        label = item.name or item.type or "-"
        place = f"  {where(item.index)}" if conversion is not None else ""
        out.write(f"{item.index:>5}  {item.id or '-':<{id_width}}  {label:<{label_width}}  {item.label}{place}\n")
        if is_refusal(item.label):
            out.write(f"{'':>7}{where(item.index)}: {item.message}\n")
            for error in item.errors[1:]:
                out.write(f"{'':>9}{error.pointer or '(root)'}: {error.message}\n")
    if report.findings:
        out.write("findings:\n")
    for finding in report.findings:
        at = f"item {finding.index}" if finding.index is not None else _WHOLE.get(finding.code, "tools")
        message = placed(finding, conversion) if conversion is not None else finding.message
        out.write(f"  {finding.severity:<7}  {finding.code:<26}  {at}: {message}\n")
    notes = [n.as_dict(conversion.lines) for n in conversion.notes] if conversion is not None else []
    for note in notes or [n.as_dict() for n in journal_notes]:
        out.write(f"  note     {note['code']:<26}  {note['path']}: {note['message']}\n")
    if report.plan is not None and report.plan.left_out:
        out.write(f"left out for {report.target}:\n")
        for entry in report.plan.left_out:
            out.write(f"  {entry.code:<24}  {entry.pointer}: {entry.words}\n")
    summary = ", ".join(f"{reason} {count}" for reason, count in report.counts.items()) or "no items"
    source = f" [{conversion.source}]" if conversion is not None else ""
    target = f" [target {report.target}]" if report.target != DEFAULT_TARGET else ""
    out.write(f"{report.says}  [{summary}]{source}{target}\n")


def _same_file(first: str, second: str) -> bool:
    """Whether two paths name one file: the same path once links are resolved, or one file under two names."""
    if os.path.realpath(first) == os.path.realpath(second):
        return True
    try:
        return os.path.samefile(first, second)
    except OSError:  # one of them does not exist (yet)
        return False


def _stdout_stat(out: TextIO) -> os.stat_result | None:
    """The regular file ``out`` is redirected to (``> FILE``), or ``None`` (a terminal, a pipe, a test's buffer)."""
    try:
        found = os.fstat(out.fileno())
    except (AttributeError, OSError, ValueError):  # a stream without a file descriptor, or a closed one
        return None
    return found if stat.S_ISREG(found.st_mode) else None


def _refuse_overwriting(inputs: dict[str, str | None], outputs: dict[str, str | None], out: TextIO) -> None:
    """Refuse, before anything is read or written, an output that is one of the inputs: one line naming both.

    :param inputs: what names a file that is read (``FILE``, ``--tools``, ...) -> its path (``-`` for stdin, or
        ``None`` when not given).
    :param outputs: each option that writes a file -> its path, or ``None``. Stdout is checked too when it is
        redirected to a file (a ``> FILE`` redirection has emptied it already: the message says so).
    :raises _Unusable: exit 2.
    """
    files = {name: path for name, path in inputs.items() if path is not None and path != "-"}
    for option, target in outputs.items():
        for name, path in files.items():
            if target is not None and _same_file(target, path):
                raise _Unusable(f"{option} {target} is {path}, the {name} this reads: write to another file")
    redirected = _stdout_stat(out)
    if redirected is None:
        return
    for name, path in files.items():
        try:
            same = os.path.samestat(redirected, os.stat(path))
        except OSError:
            continue  # an input that cannot be read is said when it is read
        if same:
            emptied = " (a redirection with > emptied it before this ran)" if redirected.st_size == 0 else ""
            raise _Unusable(
                f"stdout is redirected to {path}, the {name} this reads{emptied}: redirect the output to another file"
            )


def _is_corpus(options: argparse.Namespace) -> bool:
    paths = options.journal
    return options.dask is not None or len(paths) > 1 or Path(paths[0]).is_dir() or glob.has_magic(paths[0])


def gate_command(options: argparse.Namespace, out: TextIO) -> int:
    """Run ``gate``; returns the exit status."""
    single = None if _is_corpus(options) else options.journal[0]
    _refuse_overwriting({"JOURNAL": single, "--tools": options.tools, "--schema": options.schema}, {}, out)
    documents = _load_documents(options.schema_dir) if options.schema_dir else {}
    tools = _load_tools(options.tools) if options.tools else None
    if documents and tools:
        tools = _bundled_tools(tools, documents, options.tools)
    schema, given = _load_schema(options.schema, documents) if options.schema else (None, None)
    if given is not None:
        # Tool definitions are tools, as the Schema page reads them: a call of another name has no schema.
        tools = [*(tools or []), *given]
    if _is_corpus(options):
        if options.target != DEFAULT_TARGET:
            raise _Unusable("--target judges one journal (a file or '-'); a folder or glob is judged for portable")
        if options.thinking is not None or options.store is not None:
            raise _Unusable("--thinking and --store judge one journal (a file or '-'), not a folder or glob")
        return corpus_command(options, tools, out)
    if options.stream:
        return stream_command(options, tools, schema, out)
    try:
        journal, conversion = read_journal(_read(options.journal[0]), options.source)
    except ConvertError as exc:
        where = f" (at {exc.pointer or '/'})" if exc.pointer and exc.line is None else ""
        raise _Unusable(f"{options.journal[0]}: {exc.message}{where}") from None
    if documents and tools is None and journal.tools:
        tools = _bundled_tools(journal.tools, documents, options.journal[0])
    source = conversion.source if conversion is not None else (None if options.source == "auto" else options.source)
    journal.settings = journal.settings.asking(thinking=options.thinking, store=options.store)  # over the text's
    report = check_journal(journal, tools, schema=schema, target=options.target, source=source)
    if options.json:
        answer = report.as_dict()
        counted = journal.settings.for_target(options.target)  # what the verdict assumed, as /api/gate says it
        answer["settings"] = {"thinking": counted[0], "store": counted[1]}
        if options.output:
            _add_outputs(answer, journal.items, tools or journal.tools, schema, options.output)
        if conversion is not None:
            answer["source"] = conversion.source
            for item in answer["items"]:
                item["origin"] = conversion.where(item["index"])
            answer["notes"] = [note.as_dict(conversion.lines) for note in conversion.notes]
        elif journal.notes:  # what reading a list object changed (a session page's replays read once, …)
            answer["notes"] = [note.as_dict() for note in journal.notes]
        out.write(json.dumps(answer, indent=2) + "\n")
    else:
        place = conversion.where if conversion is not None else journal.where
        _print_report(report, place, out, conversion, journal.notes)
    return exit_status(report.replayable)


def stream_command(options: argparse.Namespace, tools: list[Any] | None, schema: Any, out: TextIO) -> int:
    """``gate --stream``: Open Responses JSON Lines in, a JSON line per verdict and per finding out, then a summary
    line ``{"replayable", "counts", "items"}`` (:func:`webapp.core.journal.streaming.gate_lines`: the verdicts and
    counts of the whole-file check). A verdict line's ``refused_by`` holds the error findings known when it is
    written; a later finding naming the item (``missing_output``) comes as its own line. What is not JSON Lines of
    items (one JSON document, another provider's conversation) is unusable here (exit 2, saying what it is)."""
    path = options.journal[0]
    if options.source not in ("auto", "open_responses", "openai"):
        raise _Unusable(
            f"{path}: --stream reads Open Responses JSON Lines; convert first: python -m webapp convert "
            f"{path} --from {options.source} | python -m webapp gate - --stream"
        )
    chosen = None if options.source == "auto" else options.source
    source = sys.stdin.buffer if path == "-" else _open(path)
    summary: dict[str, Any] = {}
    with source:
        peek = getattr(source, "peek", None)  # a file's first bytes, not consumed: its signature
        first = peek(16) if peek is not None else b""
        problem = binary_problem(first)
        if problem is not None:
            raise _Unusable(f"{_named(path)} {problem}")
        try:
            for event in gate_lines(
                JournalLines(source, source=options.source),
                tools,
                schema=schema,
                target=options.target,
                source=chosen,
                thinking=options.thinking,
                store=options.store,
            ):
                if "summary" in event:
                    summary = event["summary"]
                    out.write(json.dumps(summary) + "\n")
                elif "verdict" in event:
                    out.write(json.dumps(event["verdict"], ensure_ascii=False) + "\n")
                else:
                    out.write(json.dumps(event, ensure_ascii=False) + "\n")
        except JournalError as err:
            blank = file_problem(first) if err.code == "empty" else None
            if blank is not None:  # no line holds anything: said of the file, as the whole-file reading says it
                raise _Unusable(f"{_named(path)} {blank}") from None
            raise _Unusable(f"{path}: {err.message}") from None
    return exit_status(summary.get("replayable", False))


def corpus_command(options: argparse.Namespace, tools: list[Any] | None, out: TextIO) -> int:
    """``gate DIR | GLOB | FILE...``: one summary per journal file, here or on Dask (``--dask``)."""
    from webapp.core.corpus import check_corpus, expand

    try:
        paths = expand(options.journal)
    except FileNotFoundError as exc:
        raise _Unusable(str(exc)) from None
    client = None
    cluster = None
    if options.dask is not None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise _Unusable("--dask needs Dask: pip install .[scale]") from None
        if options.dask == "local":
            cluster = LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0", silence_logs=50)
            client = Client(cluster)
        else:
            client = options.dask
    try:
        answers = check_corpus(paths, tools, source=options.source, client=client)
    finally:
        if cluster is not None and client is not None:  # the client made for that local cluster
            client.close()
            cluster.close()
    for answer in answers:
        if options.json:
            out.write(json.dumps(answer, ensure_ascii=False) + "\n")
        elif answer["error"]:
            out.write(f"unusable    {answer['path']}: {answer['error']}\n")
        else:
            counts = ", ".join(f"{k} {v}" for k, v in answer["counts"].items()) or "no items"
            verdict = f"{answer['answer']:<14}"
            out.write(f"{verdict}  {answer['path']}  [{answer['source']}, {answer['items']} items: {counts}]\n")
    if any(a["error"] for a in answers):
        return EXIT_UNUSABLE
    if any(a["replayable"] is False for a in answers):
        return EXIT_NOT_REPLAYABLE
    return EXIT_CANNOT_TELL if any(a["replayable"] is None for a in answers) else EXIT_REPLAYABLE


def convert_command(options: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``convert FILE``: Open Responses JSON Lines on ``out``, the conversion's notes on ``err``. The tools of
    ``--tools`` (read as ``gate`` reads them) stand for the conversation's own: the gate checks the calls against
    them and the body of ``--to`` holds them; ``--tools-out`` writes them (as Open Responses function tools)."""
    _refuse_overwriting(
        {"FILE": options.file, "--tools": options.tools},
        {"--tools-out": options.tools_out, "--patch": options.patch},
        out,
    )
    if options.to is not None and options.tools_out:
        raise _Unusable("--tools-out writes the tools beside JSON Lines; with --to they are in the body")
    given = _load_tools(options.tools) if options.tools else None
    try:
        conversion = convert_text(_read(options.file), options.source)
    except ConvertError as exc:
        where = f" (at {exc.pointer or '/'})" if exc.pointer and exc.line is None else ""
        raise _Unusable(f"{options.file}: {exc.message}{where}") from None
    if options.to is not None:
        return _write_body(options, conversion, given, out, err)
    if options.thinking is not None or options.store is not None:
        raise _Unusable("--thinking and --store say what the body --to TARGET is for: give --to")
    tools = tools_from(given) if given is not None else conversion.tools
    named = options.tools if given is not None else options.file
    if options.tools_out and tools is not None:  # first: a file that cannot be written stops it all (exit 2)
        try:
            Path(options.tools_out).write_text(json.dumps(tools, indent=2, ensure_ascii=False) + "\n")
        except OSError as exc:
            raise _Unusable(f"--tools-out {options.tools_out}: cannot write it ({exc.strerror or exc})") from None
    for item in conversion.items:
        out.write(json.dumps(item, ensure_ascii=False) + "\n")
    if tools is None and options.tools_out:
        err.write(f"{named}: no tools, so nothing written to {options.tools_out}\n")
    elif tools is not None and options.tools_out:
        err.write(f"{named}: {len(tools)} tools written to {options.tools_out}\n")
    elif tools is not None:
        err.write(
            f"{named}: its {len(tools)} tools are not in the JSON Lines; write them with "
            "--tools-out FILE (then gate ... --tools FILE)\n"
        )
    for note in conversion.notes:
        err.write(f"{options.file}: {note.as_dict(conversion.lines)['path']}: {note.code}: {note.message}\n")
    err.write(f"{options.file}: {conversion.source} ({conversion.shape}), {len(conversion.items)} items\n")
    return 0


def _write_body(
    options: argparse.Namespace, conversion: Conversion, tools: list[Any] | None, out: TextIO, err: TextIO
) -> int:
    """``convert FILE --to TARGET``: the body TARGET accepts (the gate's plan for TARGET, then its writer), as JSON
    on ``out`` — nothing when the gate offers none, and why on ``err``; the conversion's notes, what the plan left
    out and repaired and the writer's notes on ``err``; with ``--patch FILE``, the plan's RFC 6902 JSON Patch (from
    the journal's items to the items sent) written to FILE. ``tools``: those of ``--tools``, or ``None`` for the
    conversation's own. Exit 0 when the conversation is replayable to TARGET as it is, 1 when not, 3 when its calls
    were not checked."""
    tools = tools if tools is not None else conversion.tools
    settings = conversion.settings.asking(thinking=options.thinking, store=options.store)
    answer = export(conversion.items, target=options.to, tools=tools, source=conversion.source, settings=settings)
    if answer.body is not None:
        out.write(json.dumps(answer.body, ensure_ascii=False, indent=2) + "\n")
    if options.patch:
        try:
            Path(options.patch).write_text(json.dumps(answer.patch, ensure_ascii=False, indent=2) + "\n")
        except OSError as exc:
            raise _Unusable(f"--patch {options.patch}: cannot write it ({exc.strerror or exc})") from None
    for note in conversion.notes:
        err.write(f"{options.file}: {note.as_dict(conversion.lines)['path']}: {note.code}: {note.message}\n")
    for entry in answer.left_out:
        err.write(f"{options.file}: {options.to}: left out {entry.pointer}: {entry.code}: {entry.words}\n")
    plan = answer.report.plan if answer.report is not None else None
    for repair in plan.repairs if plan is not None else ():
        err.write(f"{options.file}: {options.to}: repaired {repair.pointer}: {repair.code}: {repair.words}\n")
    for export_note in answer.notes:
        item = f"item {export_note.index}" if export_note.index is not None else "tools"
        if export_note.index is None and export_note.code.startswith("setting_"):
            item = "request"  # a setting of the request: its member's pointer
        err.write(
            f"{options.file}: {options.to}: {item}{export_note.pointer}: {export_note.code}: {export_note.message}\n"
        )
    if options.patch:
        err.write(
            f"{options.file}: {options.to}: the plan's JSON Patch ({len(answer.patch)} operations) written to "
            f"{options.patch}\n"
        )
    if answer.body is None:
        err.write(f"{options.file}: {options.to}: no body: {answer.reason}\n")
    report = answer.report
    assert report is not None and report.plan is not None  # export() always judges, and check_journal plans
    why = "" if report.replayable else f" (gate FILE --target {options.to} lists why)"
    written = f"{len(report.plan.kept)} written" if answer.body is not None else "none written"
    err.write(
        f"{options.file}: {conversion.source} ({conversion.shape}), {len(conversion.items)} items, "
        f"{written} for {options.to}; {report.says}{why}\n"
    )
    return exit_status(report.replayable)


def _open(path: str) -> Any:
    try:
        return open(path, "rb")  # noqa: SIM115 - closed by the caller's with
    except OSError as exc:
        raise _Unusable(f"{path}: cannot read it ({exc.strerror or exc})") from None


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def lint_stream_command(options: argparse.Namespace, out: TextIO) -> int:
    """``lint-stream``: 0 clean, 1 any finding; unreadable input raises :class:`_Unusable` (exit 2)."""
    _refuse_overwriting({"FILE": options.file}, {}, out)
    try:
        report = lint_text(_read(options.file, "a recorded stream"), options.kind)
    except RecordingError as err:
        raise _Unusable(f"{options.file}: {err}") from None
    if options.json:
        json.dump(report.as_dict(), out, ensure_ascii=False)
        out.write("\n")
        return 1 if report.findings else 0
    for finding in report.findings:
        frame = report.frames[finding.index] if finding.index is not None else None
        kind = frame.value.get("type") if frame is not None and frame.parsed else None
        what = f"event {finding.index}" + (f" ({kind})" if kind else "")
        where = f" at {finding.pointer}" if finding.pointer else ""
        out.write(
            f"{options.file}:{finding.line}:{finding.column}: {what}: {finding.severity} {finding.code}: "
            f"{finding.message}{where}\n"
        )
    counts = report.counts
    streams = f", {len(report.streams)} streams" if len(report.streams) > 1 else ""
    verdict = (
        "clean" if report.clean else f"{_plural(counts['error'], 'error')}, {_plural(counts['warning'], 'warning')}"
    )
    out.write(f"{options.file}: {KINDS[report.kind]}, {len(report.frames):,} events{streams}: {verdict}\n")
    return 1 if report.findings else 0


def check_endpoint_command(options: argparse.Namespace, out: TextIO) -> int:
    """``check-endpoint``: 0 every case passed, 1 not; an unreachable or refused URL raises :class:`_Unusable`."""
    from webapp.check_endpoint import check_endpoint
    from webapp.core.conformance import CASE_IDS, SUITE, TargetRefused, allowed_targets

    key = options.key if options.key is not None else os.environ.get("OPENRESPONSES_API_KEY")
    if not key:
        raise _Unusable("check-endpoint: give the server's key with --key or OPENRESPONSES_API_KEY")
    unknown = [name for name in options.case or () if name not in CASE_IDS]
    if unknown:
        raise _Unusable(f"check-endpoint: no case {unknown[0]!r}; the cases are: {', '.join(CASE_IDS)}")
    allowed = allowed_targets(os.environ.get("FLASK_ALLOWED_TARGETS", "")) | allowed_targets(options.allow or ())
    try:
        report = check_endpoint(
            options.url, key, model=options.model, allowed=allowed, timeout=options.timeout, cases=options.case
        )
    except TargetRefused as err:
        raise _Unusable(f"check-endpoint: {err.message}") from None
    ok = report.strict if options.strict else report.passed
    if options.json:
        json.dump(report.as_dict(), out, ensure_ascii=False)
        out.write("\n")
        return 0 if ok else 1
    out.write(f"{report.url} (model {report.model})\n")
    for case in report.cases:
        if not case.official and case is report.extra[0]:
            out.write("this app's extra cases (not the suite's, not counted in it):\n")
        verdict = "PASS" if case.passed else "FAIL"
        note = "" if case.strict or not case.passed else "  (the suite's checks pass; see below)"
        out.write(f"{verdict}  {case.id:<44} {case.seconds:6.2f} s{note}\n")
        for check in case.checks:
            if not check.passed:
                where = "" if check.suite else " [not checked by the suite]"
                out.write(f"      {check.name}{where}: {check.detail}\n")
        if case.error:
            out.write(f"      stopped: {case.error}\n")
        for exchange in case.exchanges:
            findings = exchange.stream.findings if exchange.stream is not None else []
            for finding in findings[:5]:
                out.write(
                    f"      {exchange.label}: event {finding.index}: {finding.severity} {finding.code}: "
                    f"{finding.message}\n"
                )
            if len(findings) > 5:
                out.write(f"      {exchange.label}: … and {len(findings) - 5} more findings (--json lists all)\n")
    extra = report.extra
    strict = sum(case.strict for case in report.cases)
    out.write(
        f"official suite ({SUITE}): {report.official_passed}/{len(report.official)} passed; "
        f"this app's extra cases: {sum(c.passed for c in extra)}/{len(extra)} passed; "
        f"every check the suite skips too: {strict}/{len(report.cases)} cases\n"
    )
    return 0 if ok else 1


def add_settings_options(command: argparse.ArgumentParser, where: str = "") -> None:
    """``--thinking/--no-thinking`` and ``--store/--no-store``: the replayed request's settings, over what the
    journal's request says (docs/targets.md, "What is read from the request"); not given: the request's own."""
    command.add_argument(
        "--thinking",
        action=argparse.BooleanOptionalAction,
        default=None,
        help=f"the replayed request has thinking on / off{where} (default: as the journal's request says)",
    )
    command.add_argument(
        "--store",
        action=argparse.BooleanOptionalAction,
        default=None,
        help=f"the replayed request has store true / false{where} (default: as the journal's request says)",
    )


def build_parser() -> argparse.ArgumentParser:
    # allow_abbrev=False on every parser: a prefix (--tools) is never taken for a longer option (--tools-out).
    parser = argparse.ArgumentParser(
        prog="python -m webapp", description="Open Responses inspector tools.", allow_abbrev=False
    )
    commands = parser.add_subparsers(dest="command", required=True)
    gate = commands.add_parser(
        "gate",
        allow_abbrev=False,
        help="may the items of a stored journal be replayed?",
        description="Gate every item of a journal of any source (Open Responses array, JSON Lines, response or "
        "request; Chat Completions, Anthropic, Gemini: converted first; '-' reads stdin), or of every "
        "journal in a folder or glob. Exit 0 replayable, 1 not, 2 unusable input, 3 cannot tell (no tools given).",
    )
    gate.add_argument("journal", metavar="JOURNAL", nargs="+", help="a file, '-', a folder or a glob")
    gate.add_argument(
        "--from",
        dest="source",
        default="auto",
        choices=("auto", *SOURCES),
        help="the journal's source (default: detected)",
    )
    gate.add_argument(
        "--target",
        default=DEFAULT_TARGET,
        choices=TARGETS,
        help="where it is replayed (default portable: any Open Responses server); the verdict is about it",
    )
    gate.add_argument(
        "--stream",
        action="store_true",
        help="Open Responses JSON Lines in, a JSON line per verdict and finding out, in bounded memory",
    )
    gate.add_argument(
        "--dask",
        nargs="?",
        const="local",
        metavar="ADDRESS",
        help="check a corpus on Dask: a local cluster, or the scheduler at ADDRESS",
    )
    gate.add_argument(
        "--tools",
        metavar="TOOLS.json",
        help='tool definitions in any provider\'s shape (a JSON array, one definition, or an object with "tools"); '
        "default: the journal's own",
    )
    gate.add_argument("--schema", metavar="SCHEMA.json", help="one JSON Schema for every function_call")
    gate.add_argument(
        "--schema-dir",
        metavar="DIR",
        help="schema documents (*.json, each with its $id) that the "
        "schemas may $ref by URI; resolved locally, never fetched",
    )
    gate.add_argument(
        "--output",
        choices=OUTPUT_FORMATS,
        help="with --json, one journal: each function_call's "
        "arguments validation in this JSON Schema 2020-12 output format",
    )
    gate.add_argument("--json", action="store_true", help="print the API's JSON report")
    add_settings_options(gate)
    convert = commands.add_parser(
        "convert",
        allow_abbrev=False,
        help="a conversation from any provider as Open Responses JSON Lines",
        description="Convert a Chat Completions, Anthropic Messages or Gemini conversation (or Open Responses) to "
        "Open Responses items, one per line on stdout; notes on stderr. Exit 2 on unusable input.",
    )
    convert.add_argument("file", metavar="FILE", help="a file, or '-' for stdin")
    convert.add_argument("--from", dest="source", default="auto", choices=("auto", *SOURCES))
    convert.add_argument(
        "--to",
        choices=tuple(WRITERS),
        help="write the request body this target accepts (the gate's plan for it: what it may not receive is "
        "left out, said on stderr) instead of JSON Lines; exit 1 when a finding stops the replay",
    )
    add_settings_options(convert, " (with --to)")
    convert.add_argument(
        "--tools",
        metavar="TOOLS.json",
        help="tool definitions, read as gate --tools reads them: the calls are checked against them and the --to "
        "body or --tools-out holds them (default: the conversation's own)",
    )
    convert.add_argument(
        "--patch",
        metavar="PATCH.json",
        help="with --to: write what the gate's plan changes (items and members left out, values repaired) as an "
        "RFC 6902 JSON Patch from the journal's items to the items sent, to apply to your own store",
    )
    convert.add_argument(
        "--tools-out",
        metavar="TOOLS.json",
        help="write the conversation's tool definitions (or those of --tools), as Open Responses function tools, "
        "to this file; never a file this reads",
    )
    lint = commands.add_parser(
        "lint-stream",
        allow_abbrev=False,
        help="lint a recorded Open Responses stream against the spec",
        description="Check every event of a recorded stream (SSE as curl -N prints it, a HAR file, JSON Lines of "
        "events, a WebSocket message log; '-' reads stdin) against the Open Responses schemas, the sequence rules "
        "and the replay gate. Exit 0 clean, 1 findings, 2 unreadable.",
    )
    lint.add_argument("file", metavar="FILE", help="a file, or '-' for stdin")
    lint.add_argument(
        "--kind", default="auto", choices=("auto", *KINDS), help="the recording's kind (default: detected)"
    )
    lint.add_argument("--json", action="store_true", help="print the report as JSON")
    check = commands.add_parser(
        "check-endpoint",
        allow_abbrev=False,
        help="run the official compliance suite's cases (and more) against an Open Responses server",
        description="Run the official compliance suite's 17 cases and this app's extra ones against the server "
        "whose base URL is URL (http://127.0.0.1:5000/v1). Only loopback and the hosts of --allow (and "
        "FLASK_ALLOWED_TARGETS) are reached. Exit 0 every case passed, 1 not, 2 the URL may not be reached.",
    )
    check.add_argument("url", metavar="URL", help="the server's base URL, e.g. http://127.0.0.1:5000/v1")
    check.add_argument("--key", help="the server's key (Bearer token); default: OPENRESPONSES_API_KEY")
    check.add_argument("--model", default=MODEL_NAME, help=f"the model to ask for (default {MODEL_NAME})")
    check.add_argument("--allow", action="append", metavar="HOST", help="a host besides loopback that may be reached")
    check.add_argument("--case", action="append", metavar="ID", help="run only this case (repeatable)")
    check.add_argument("--timeout", type=float, default=60.0, help="seconds per case (default 60)")
    check.add_argument("--strict", action="store_true", help="fail also on the checks the suite skips")
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    serve = commands.add_parser(
        "serve",
        allow_abbrev=False,
        help="serve the app (Werkzeug's threaded server, no version in the Server header)",
        description="Serve the inspector. Settings come from FLASK_* environment variables (docs/configuration.md).",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=5000, help="port (default 5000)")
    return parser


def serve_command(options: argparse.Namespace) -> int:
    """Serve :func:`webapp.create_app` on ``options.host``:``options.port`` until interrupted; exit status 2, with
    what to do, when the response store cannot be used (a file that is no SQLite database, a read-only one)."""
    from werkzeug.serving import run_simple

    from webapp import create_app
    from webapp.web.security import RequestHandler
    from webapp.web.store import StorageError

    try:
        app = create_app()
    except StorageError as err:
        print(f"webapp serve: {err.message}", file=sys.stderr)
        return 2
    run_simple(options.host, options.port, app, threaded=True, request_handler=RequestHandler)
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
        if options.command == "convert":
            return convert_command(options, out, err)
        if options.command == "lint-stream":
            return lint_stream_command(options, out)
        if options.command == "check-endpoint":
            return check_endpoint_command(options, out)
        return gate_command(options, out)
    except _Unusable as exc:
        err.write(f"{exc}\n")
    return EXIT_UNUSABLE


if __name__ == "__main__":
    raise SystemExit(main())
