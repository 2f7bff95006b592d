"""The response cache: keys, round trips on disk, --no-cache, corrupt entries."""

from __future__ import annotations

import json

import pytest

from reviewtui.assistant import build_request
from reviewtui.backends.cache import CachedResponse, ResponseCache, cache_key, default_cache_dir

SNAPSHOT_TEXT = '{"account": {"id": "123-456-7890"}, "daily": []}'
RESPONSE = CachedResponse(
    text='{"findings": []}', stop_reason="end_turn", input_tokens=1200, output_tokens=40, model="claude-sonnet-5-5"
)


def test_key_covers_model_request_and_repeat():
    base = build_request(SNAPSHOT_TEXT)
    key = cache_key(base, 0)
    assert len(key) == 64 and int(key, 16) >= 0
    assert cache_key(build_request(SNAPSHOT_TEXT), 0) == key  # deterministic
    assert cache_key(base, 1) != key
    assert cache_key(build_request(SNAPSHOT_TEXT, model="claude-haiku-5-5"), 0) != key
    assert cache_key(build_request(SNAPSHOT_TEXT, max_tokens=16000), 0) != key
    assert cache_key(build_request(SNAPSHOT_TEXT.replace("7890", "7891")), 0) != key
    changed_prompt = build_request(SNAPSHOT_TEXT)
    changed_prompt["system"] = [{"type": "text", "text": changed_prompt["system"][0]["text"] + " Be brief."}]
    assert cache_key(changed_prompt, 0) != key


def test_key_ignores_dict_order():
    request = build_request(SNAPSHOT_TEXT)
    reordered = dict(reversed(list(request.items())))
    assert cache_key(reordered, 3) == cache_key(request, 3)


def test_put_then_get_round_trips_through_a_file(tmp_path):
    cache = ResponseCache(tmp_path / "responses")
    key = cache_key(build_request(SNAPSHOT_TEXT), 0)
    assert cache.get(key) is None
    cache.put(key, RESPONSE)
    path = tmp_path / "responses" / f"{key}.json"
    assert cache.path_for(key) == path and path.is_file()
    stored = json.loads(path.read_text(encoding="utf-8"))
    assert stored["key"] == key and stored["response"]["text"] == RESPONSE.text
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no temporary file left behind
    assert ResponseCache(tmp_path / "responses").get(key) == RESPONSE


def test_reads_off_still_writes(tmp_path):
    key = cache_key(build_request(SNAPSHOT_TEXT), 0)
    ResponseCache(tmp_path).put(key, RESPONSE)
    no_reads = ResponseCache(tmp_path, read=False)
    assert no_reads.get(key) is None
    fresher = CachedResponse("{\"findings\": [1]}", "end_turn", 1, 2, "claude-sonnet-5-5")
    no_reads.put(key, fresher)
    assert ResponseCache(tmp_path).get(key) == fresher


@pytest.mark.parametrize(
    "content, reason",
    [
        ("{not json", "Expecting property name"),
        ("[1, 2]", "not a JSON object"),
        ('{"format": 99, "key": "KEY", "response": {}}', "format 99"),
        ('{"format": 1, "key": "other", "response": {}}', "does not match its file name"),
        ('{"format": 1, "key": "KEY", "response": {"text": 5}}', "'response.text' is not a string"),
        (
            '{"format": 1, "key": "KEY", "response": {"text": "", "input_tokens": -1, "output_tokens": 0}}',
            "'response.input_tokens' is not a token count",
        ),
    ],
)
def test_corrupt_entry_is_ignored_with_a_warning_then_overwritten(tmp_path, capsys, content, reason):
    cache = ResponseCache(tmp_path)
    key = cache_key(build_request(SNAPSHOT_TEXT), 0)
    cache.path_for(key).write_text(content.replace("KEY", key), encoding="utf-8")
    assert cache.get(key) is None
    err = capsys.readouterr().err
    assert str(cache.path_for(key)) in err and reason in err and "warning:" in err
    cache.put(key, RESPONSE)
    assert cache.get(key) == RESPONSE
    assert capsys.readouterr().err == ""


def test_a_write_that_fails_warns_and_does_not_raise(tmp_path, capsys):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be", encoding="utf-8")
    cache = ResponseCache(blocker / "responses")
    key = cache_key(build_request(SNAPSHOT_TEXT), 0)
    cache.put(key, RESPONSE)
    err = capsys.readouterr().err
    assert "cannot write cache file" in err and "call the API again" in err
    assert cache.get(key) is None


def test_default_location_is_under_the_results_folder(tmp_path):
    assert default_cache_dir(tmp_path / "results") == tmp_path / "results" / ".cache" / "responses"
