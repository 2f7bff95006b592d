"""``reviewtui redact`` through the command line on snapshots on disk."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reviewtui.cli import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "accounts"
BRAND_TEXT = "Renamed to 'Search | Brand | DE' for the Bergsteig spring launch"
URL = "https://www.bergsteig.example/sale?utm_campaign=spring"
NESTED_JSON = json.dumps({"campaign": "Shopping | All products | DE", "term": "bergsteig shop"})


def cli(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def account(tmp_path) -> Path:
    """A shipped case's snapshot with prose, a URL and a JSON string added to its change events."""
    data = json.loads((ROOT / "cases" / "c01-outdoor-retail" / "snapshot.json").read_text())
    cid = data["campaigns"][0]["id"]
    data["change_events"] += [
        {"change_date_time": "2025-03-05 10:00:00", "campaign_id": cid, "resource_type": "AD",
         "changed_field": "final_url", "old": URL, "new": BRAND_TEXT},
        {"change_date_time": "2025-03-06 11:00:00", "campaign_id": cid, "resource_type": "CAMPAIGN",
         "changed_field": "note", "old": None, "new": NESTED_JSON},
    ]
    path = tmp_path / "export" / "snapshot.json"
    path.parent.mkdir()
    path.write_text(json.dumps(data, indent=1))
    return path


def originals(data: dict) -> set[str]:
    """Every name, id, search term and piece of prose in the snapshot, read here field by field."""
    found = {data["account"]["id"], data["account"]["name"], URL, BRAND_TEXT, NESTED_JSON, "Bergsteig"}
    for camp in data["campaigns"]:
        found |= {camp["id"], camp["name"]}
    for section, keys in (("daily", ("campaign_id",)), ("ads", ("ad_id", "campaign_id")),
                          ("search_terms", ("search_term",)), ("conversion_actions", ("id", "name")),
                          ("ad_daily", ("ad_id", "ad_name", "ad_set_id", "ad_set_name"))):
        for row in data.get(section, []):
            found |= {str(row[k]) for k in keys if k in row}
    return found


def leaves(node, path=""):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from leaves(v, f"{path}/{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from leaves(v, f"{path}/{i}")
    else:
        yield path, node


def test_no_original_name_survives_and_numbers_and_dates_are_kept(account, tmp_path, capsys):
    key = tmp_path / "keys" / "redact.key"
    code, out, err = cli(capsys, "redact", account, "-o", tmp_path / "cases" / "c99", "--key", key)
    assert code == 0, err
    assert key.exists() and "new key written" in out
    written = tmp_path / "cases" / "c99" / "snapshot.json"
    text = written.read_text()
    before = json.loads(account.read_text())
    after = json.loads(text)
    for original in originals(before):
        assert original not in text, original
        assert json.dumps(original)[1:-1] not in text, original  # nor JSON-escaped inside a string
    for term in ("bergsteig", "Jackets", "Tents", "ACCT-01", "Catalogue"):
        assert term.lower() not in text.lower()
    # numbers and dates exactly as they were, at the same places
    before_leaves, after_leaves = dict(leaves(before)), dict(leaves(after))
    assert len(before_leaves) == len(after_leaves)
    dated = re.compile(r"^\d{4}-\d{2}-\d{2}")
    for (p, v), (q, w) in zip(leaves(before), leaves(after)):
        if isinstance(v, (int, float)) and not p.endswith("_id") and not p.endswith("/id"):
            assert (p, v) == (q, w)
        if isinstance(v, str) and dated.match(v):
            assert w == v
    # what was replaced is printed, by kind
    assert "replaced:" in out and "campaign name(s)" in out and "search term(s)" in out
    assert f"<- {BRAND_TEXT!r}" in out


def test_same_key_same_output_new_key_new_names(account, tmp_path, capsys):
    key = tmp_path / "k1"
    assert cli(capsys, "redact", account, "-o", tmp_path / "a.json", "--key", key)[0] == 0
    assert cli(capsys, "redact", account, "-o", tmp_path / "b.json", "--key", key)[0] == 0
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert cli(capsys, "redact", account, "-o", tmp_path / "c.json", "--key", tmp_path / "k2")[0] == 0
    a, c = json.loads((tmp_path / "a.json").read_text()), json.loads((tmp_path / "c.json").read_text())
    names_a = [x["name"] for x in a["campaigns"]]
    names_c = [x["name"] for x in c["campaigns"]]
    assert all(x != y for x, y in zip(names_a, names_c))
    assert a["account"]["id"] != c["account"]["id"]
    assert a["daily"][0]["cost"] == c["daily"][0]["cost"]


def test_references_between_sections_stay_consistent_and_the_audit_is_unchanged(account, tmp_path, capsys):
    from reviewtui.auditor import audit

    assert cli(capsys, "redact", account, "-o", tmp_path / "r.json", "--key", tmp_path / "k")[0] == 0
    after = json.loads((tmp_path / "r.json").read_text())
    before = json.loads(account.read_text())
    ids = {c["id"] for c in after["campaigns"]}
    assert {r["campaign_id"] for r in after["daily"]} <= ids
    assert {i for b in after["budgets"] for i in b["campaign_ids"]} <= ids
    # the campaign-type words the checks read survive; the audit finds the same kinds
    assert any("| brand" in c["name"] for c in after["campaigns"])
    assert sorted(f.kind for f in audit(before).findings) == sorted(f.kind for f in audit(after).findings)


def test_an_imported_account_with_ad_rows(tmp_path, capsys):
    snap = tmp_path / "imported.json"
    assert cli(capsys, "import", "--format", "meta", FIXTURES / "meta_ads_ad_level.csv", "-o", snap, "--keep-ads",
               "--account-id", "act_987654321", "--account-name", "Bergsteig GmbH")[0] == 0
    code, out, err = cli(capsys, "redact", snap, "-o", tmp_path / "case", "--key", tmp_path / "k")
    assert code == 0, err
    text = (tmp_path / "case" / "snapshot.json").read_text()
    for original in originals(json.loads(snap.read_text())):
        assert original not in text, original
    assert "Spring Sale" not in text and "Carousel" not in text


def test_key_inside_the_case_folder_is_refused(account, tmp_path, capsys):
    case = tmp_path / "cases" / "c98"
    code, out, err = cli(capsys, "redact", account, "-o", case, "--key", case / "redact.key")
    assert code == 2 and "the key file is inside the case folder" in err and "nothing written" in err
    assert not case.exists()


def test_a_key_file_that_is_not_a_key(account, tmp_path, capsys):
    bad = tmp_path / "bad.key"
    bad.write_text("not hex at all\n")
    code, out, err = cli(capsys, "redact", account, "-o", tmp_path / "r.json", "--key", bad)
    assert code == 2 and f"{bad}:1: not a key" in err and not (tmp_path / "r.json").exists()


def test_malformed_snapshot(tmp_path, capsys):
    src = tmp_path / "s.json"
    src.write_text('{"account": {"id": 1,}}')
    code, out, err = cli(capsys, "redact", src, "-o", tmp_path / "r.json", "--key", tmp_path / "k")
    assert code == 2 and f"{src}:1: malformed JSON" in err and not (tmp_path / "r.json").exists()
