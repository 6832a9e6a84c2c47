"""File signatures (``webapp/core/signatures.py``): the format a file's first bytes name, and the words for a file
that holds no JSON text."""

from __future__ import annotations

import gzip
import io
import zipfile

import pytest

from webapp.core.signatures import SIGNATURES, binary_problem, file_problem, matches, sniff


def test_real_files_are_named_by_their_format():
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w") as archive:
        archive.writestr("journal.json", "[]")
    assert sniff(gzip.compress(b"[]")).name == "gzip"
    assert sniff(zipped.getvalue()).name == "ZIP"
    assert sniff(b"\x89PNG\r\n\x1a\n" + bytes(8)).media_type == "image/png"


@pytest.mark.parametrize("start", ["[", "{", '"', "0", "-1", "true", "false", "null", " ", "\n", "\ufeff[", "data: "])
def test_no_json_text_or_recording_is_taken_for_binary(start: str):
    assert sniff(start.encode("utf-8") + b"1234567890123456") is None


def test_each_media_type_has_one_signature_and_text_has_none():
    assert len({s.media_type for s in SIGNATURES}) == len(SIGNATURES)
    assert matches("image/png", b"\x89PNG\r\n\x1a\n") and not matches("image/jpeg", b"\x89PNG\r\n\x1a\n")
    assert matches("text/plain", b"\x89PNG\r\n\x1a\n")  # no signature to check


def test_the_words_for_a_file():
    assert file_problem(b"") == "is empty: there is no JSON value in it"
    assert file_problem(b"\xef\xbb\xbf \r\n") == "is empty (only whitespace): there is no JSON value in it"
    assert file_problem(b"%PDF-1.7\n") == "looks like binary data (PDF), not JSON text"
    assert binary_problem(b"PAR1\x00", "a recorded stream") == "looks like binary data (Parquet), not a recorded stream"
    assert file_problem(b" []") is None and file_problem(b"\x00\x01") is None  # unknown bytes: the parser says
