"""A generated corpus of journals for the corpus tests (in process, and on a Dask cluster)."""

from __future__ import annotations

import json
from pathlib import Path

from support import REPO

CONVERSATIONS = REPO / "webapp" / "examples" / "conversations"


def write_corpus(folder: Path) -> Path:
    """Twelve generated journals of three sources, one cut off, one refused, one unreadable, written under
    ``folder`` (made here): eight JSON Lines journals (four in ``day2/``), three provider conversations, a broken
    journal and a text file that is no journal. Returns ``folder``."""
    (folder / "day2").mkdir(parents=True)
    for n in range(8):
        items = [
            {"type": "message", "role": "user", "content": f"q{n}"},
            {
                "type": "function_call",
                "call_id": f"c{n}",
                "name": "get_weather",
                "status": "completed",
                "arguments": json.dumps({"location": f"City {n}"}),
            },
            {"type": "function_call_output", "call_id": f"c{n}", "output": "sunny"},
        ]
        if n == 5:
            items[1]["arguments"] = json.dumps({"location": 5})
        target = folder / ("day2" if n % 2 else "") / f"journal-{n}.jsonl"
        target.write_text("".join(json.dumps(i) + "\n" for i in items))
    for name in ("chat-completions.json", "anthropic-messages.json", "chat-completions-truncated.json"):
        (folder / name).write_text((CONVERSATIONS / name).read_text())
    (folder / "day2" / "broken.jsonl").write_text('{"type": "message"\n')
    (folder / "notes.txt").write_text("not a journal")
    return folder
