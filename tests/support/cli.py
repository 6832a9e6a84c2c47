"""The command line run in process, as the CLI tests call it: ``run("gate", path) -> (exit code, stdout, stderr)``."""

from __future__ import annotations

import io

from webapp.__main__ import main


def run(*argv: str) -> tuple[int, str, str]:
    """``python -m webapp *argv`` in this process: (its exit code, what it wrote to stdout, to stderr)."""
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()
