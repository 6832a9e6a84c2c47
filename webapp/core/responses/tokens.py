"""Tokens as the test model counts them, and the pieces a stream sends its text in.

Pure. A token is a run of word characters or one other non-space character (an approximation: the test model has
no vocabulary); usage counts them (:func:`count_tokens`), ``max_output_tokens`` cuts at them
(:func:`truncate_tokens`), and a streamed text arrives :data:`DELTA_TOKENS` tokens at a time (:func:`delta_chunks`).
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r"\w+|[^\w\s]")


def count_tokens(text: str) -> int:
    """Approximate token count: runs of word characters, and every other non-space character, count one."""
    return len(_TOKEN.findall(text))


def token_chunks(text: str) -> list[str]:
    """``text`` split after each token (the spaces before a token travel with it); ``"".join`` gives it back.

    These are the ``delta`` strings of a stream; an empty text gives no chunk.
    """
    chunks: list[str] = []
    start = 0
    for match in _TOKEN.finditer(text):
        chunks.append(text[start : match.end()])
        start = match.end()
    if start < len(text):  # trailing spaces
        if chunks:
            chunks[-1] += text[start:]
        else:
            chunks.append(text[start:])
    return chunks


#: Tokens per streamed ``delta``: the spec allows any chunking; two tokens halve the frames a stream costs
#: (encoding, bytes, client parsing) while a reader still sees the text arrive word by word.
DELTA_TOKENS = 2


def delta_chunks(text: str, size: int = DELTA_TOKENS) -> list[str]:
    """:func:`token_chunks` joined ``size`` at a time (the last group may be shorter); ``"".join`` gives
    ``text`` back, an empty text gives no chunk. :raises ValueError: ``size`` < 1."""
    if size < 1:
        raise ValueError(f"size must be at least 1, got {size}")
    chunks = token_chunks(text)
    return ["".join(chunks[i : i + size]) for i in range(0, len(chunks), size)]


def truncate_tokens(text: str, budget: int) -> str:
    """The prefix of ``text`` holding its first ``budget`` tokens."""
    if budget <= 0:
        return ""
    for index, match in enumerate(_TOKEN.finditer(text), start=1):
        if index == budget:
            return text[: match.end()]
    return text
