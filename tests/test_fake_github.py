"""The fake GitHub of tests/ghapi.py itself: its schema checks refuse what GitHub would never send."""

from __future__ import annotations

import jsonschema
import pytest

from tests import ghapi

FILES = "/repos/{owner}/{repo}/pulls/{pull_number}/files"


def test_a_body_off_the_schema_is_refused_even_after_valid_ones():
    """Valid bodies are remembered so that they are checked once; a body that differs is checked anew."""
    page = [ghapi.pr_file("a.py"), ghapi.pr_file("b.py")]
    ghapi.validate_response("GET", FILES, 200, page)
    ghapi.validate_response("GET", FILES, 200, page)
    drifted = [page[0], {**page[1], "additions": "two"}]
    with pytest.raises(jsonschema.ValidationError):
        ghapi.validate_response("GET", FILES, 200, drifted)
    with pytest.raises(jsonschema.ValidationError):  # a tuple is not a JSON array to the schema
        ghapi.validate_response("GET", FILES, 200, tuple(page))
    with pytest.raises(jsonschema.ValidationError):  # the same body, against another operation's schema
        ghapi.validate_response("GET", "/repos/{owner}/{repo}/pulls/{pull_number}", 200, page)


def test_a_blob_answer_off_the_schema_is_refused_even_after_a_valid_one():
    found = {"byteSize": 3, "isTruncated": False, "text": "abc"}
    ghapi.validate_blobs({"data": {"repository": {"f0": found}}})
    with pytest.raises(jsonschema.ValidationError):
        ghapi.validate_blobs({"data": {"repository": {"f0": {**found, "byteSize": "3"}}}})
