"""``reviewtui redact`` through the command line on snapshots on disk."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reviewtui.commands.main import main

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
    assert after["source"].pop("redacted") is True  # the mark `reviewtui check` looks for, the only leaf added
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
    assert cli(capsys, "import", "--format", "meta", FIXTURES / "meta_ads_ad_level.csv", "-o", snap, "--keep-ads", "--start", "2023-08-01", "--end", "2023-08-14",
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


# --- issue 24, item 13: nothing of the original survives, in any field ---------------------------

BRAND = "Bergsteiger"
PLANTED = {
    "account id": "act_4451200987", "account name": f"{BRAND} Outdoor GmbH",
    "campaign id": "23851234567890001", "other campaign id": "23851234567890002",
    "campaign name": f"{BRAND.upper()} | Search | Brand", "one-word value": BRAND.upper(),
    "snake_case value": "bergsteiger_spring_sale", "phone": "+49 89 1234567", "local phone": "089 1234567",
    "phone with brackets": "(555) 123-4567", "short brand": "VW", "ad id": "120209900000000301",
    "ad name": f"{BRAND} jacket | Carousel", "ad set id": "120209900000000201", "ad set name": "Alpine climbers 25-54",
    "search term": "bergsteiger jacke herren", "conversion action": f"{BRAND} checkout", "url": "https://bergsteiger.example/sale",
}


def planted_snapshot() -> dict:
    """A snapshot carrying each original above in every kind of field a snapshot has."""
    p = PLANTED
    cid, cid2 = p["campaign id"], p["other campaign id"]
    return {
        "schema_version": "1.0", "platform": "meta_ads",
        "source": {"format": "meta", "grain": "ad", "period_from": "export_range", "missing_row_means": "no_delivery"},
        "account": {"id": p["account id"], "name": p["account name"], "currency_code": "EUR", "time_zone": "Europe/Berlin"},
        "period": {"start": "2025-03-01", "end": "2025-03-31", "as_of": "2025-04-01"},
        "campaigns": [
            {"id": cid, "name": p["campaign name"], "status": "ACTIVE", "brand": p["one-word value"],
             "label": p["snake_case value"], "objective": "OUTCOME_SALES"},
            {"id": cid2, "name": "Retargeting | Visitors", "status": "PAUSED"},
        ],
        "change_events": [
            {"change_date_time": "2025-03-05 10:00:00", "campaign_id": cid, "resource_type": "CAMPAIGN",
             "changed_field": "status", "old": cid2, "new": f"moved budget from campaign {cid2} to {cid}"},
            {"change_date_time": "2025-03-06 10:00:00", "campaign_id": cid, "resource_type": "AD",
             "changed_field": "creative", "old": p["phone"], "new": f"call {p['local phone']} or {p['phone with brackets']}"},
            {"change_date_time": "2025-03-07 10:00:00", "campaign_id": cid, "resource_type": "AD",
             "changed_field": "creative", "old": int(cid2), "new": f"new {p['short brand']} creative"},
            {"change_date_time": "2025-03-08 10:00:00", "campaign_id": cid, "resource_type": "CAMPAIGN",
             "changed_field": "name", "old": p["campaign name"], "new": "Search | Brand"},
        ],
        "conversion_actions": [{"id": "998877665", "name": p["conversion action"], "category": "PURCHASE",
                                "status": "ENABLED"}],
        "ads": [{"ad_id": p["ad id"], "campaign_id": cid, "type": "IMAGE_AD", "status": "ACTIVE",
                 "final_url": p["url"], "cost": 12.5}],
        "search_terms": [{"campaign_id": cid, "search_term": p["search term"], "clicks": 3, "cost": 4.2}],
        "daily": [{"date": "2025-03-01", "campaign_id": cid, "impressions": 1000, "clicks": 20, "cost": 31.5,
                   "conversions": 2, "conversions_value": 120.0},
                  {"date": "2025-03-01", "campaign_id": cid2, "impressions": 500, "clicks": 5, "cost": 9.25,
                   "conversions": 0, "conversions_value": 0}],
        "ad_daily": [{"date": "2025-03-01", "campaign_id": cid, "ad_set_id": p["ad set id"], "ad_set_name": p["ad set name"],
                      "ad_id": p["ad id"], "ad_name": p["ad name"], "cost": 31.5}],
        "totals": {"campaigns": [{"campaign_id": cid, "cost": 31.5}],
                   "by_name": {p["campaign name"]: {"cost": 31.5}, cid2: {"cost": 9.25},
                               p["snake_case value"]: {"cost": 0}}},
    }


def redacted(tmp_path: Path, capsys, data: dict, *extra) -> tuple[str, str]:
    src = tmp_path / "in" / "snapshot.json"
    src.parent.mkdir(exist_ok=True)
    src.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / f"out{len(list(tmp_path.glob('out*')))}.json"
    code, stdout, err = cli(capsys, "redact", src, "-o", out, "--key", tmp_path / "keys" / "k", *extra)
    assert code == 0, err
    return out.read_text(encoding="utf-8"), stdout


def test_item13_planted_originals_survive_in_no_field(tmp_path, capsys):
    text, _out = redacted(tmp_path, capsys, planted_snapshot())
    lowered = text.lower()
    for what, original in PLANTED.items():
        assert original.lower() not in lowered, what
    for fragment in ("bergsteig", "4451200987", "1234567", "123-4567", '"vw', " vw "):
        assert fragment not in lowered, fragment
    after = json.loads(text)
    # numbers, dates and platform values stay; references hold
    assert after["daily"][0]["cost"] == 31.5 and after["change_events"][0]["change_date_time"] == "2025-03-05 10:00:00"
    assert after["campaigns"][0]["objective"] == "OUTCOME_SALES" and after["change_events"][0]["changed_field"] == "status"
    new_cid, new_cid2 = after["campaigns"][0]["id"], after["campaigns"][1]["id"]
    assert after["change_events"][0]["old"] == new_cid2  # an id quoted as a value maps with it
    assert after["change_events"][0]["new"] == f"moved budget from campaign {new_cid2} to {new_cid}"
    assert after["change_events"][2]["old"] == int(new_cid2)
    assert after["change_events"][3]["old"] == after["campaigns"][0]["name"]  # a name quoted elsewhere, too
    assert after["totals"]["by_name"].keys() == {after["campaigns"][0]["name"], new_cid2, next(
        k for k in after["totals"]["by_name"] if k.startswith("key "))}


def test_item13_ids_and_names_are_one_to_one(tmp_path, capsys):
    # 1,143 ads with six-digit ids (a public ad-level export's shape) and 600 three-digit ones: a shape of
    # few digits has room for few pseudonyms, and two ads must never become one
    ads = [str(708746 + 3 * i) for i in range(1143)] + [str(100 + i) for i in range(600)]
    data = planted_snapshot()
    data["ad_daily"] = [{"date": "2025-03-01", "campaign_id": PLANTED["campaign id"], "ad_id": a,
                         "ad_name": f"Ad {a}", "cost": 1.0} for a in ads]
    text, _out = redacted(tmp_path, capsys, data)
    after = json.loads(text)
    new_ids = [r["ad_id"] for r in after["ad_daily"]]
    assert len(set(new_ids)) == len(ads)
    assert not set(new_ids) & set(ads)  # no pseudonym is an original id
    assert all(len(n) == len(o) for n, o in zip(new_ids[:1143], ads[:1143]))  # the shape kept where there is room
    assert len({r["ad_name"] for r in after["ad_daily"]}) == len(ads)


def test_item13_a_per_case_salt_shares_no_pseudonym_between_cases(tmp_path, capsys):
    data = planted_snapshot()
    plain, _ = redacted(tmp_path, capsys, data)
    again, _ = redacted(tmp_path, capsys, data)
    one, _ = redacted(tmp_path, capsys, data, "--salt", "c51-shop")
    same, _ = redacted(tmp_path, capsys, data, "--salt", "c51-shop")
    other, _ = redacted(tmp_path, capsys, data, "--salt", "c52-shop")
    assert plain == again and one == same  # the same key and salt: the same output
    a, b = json.loads(one), json.loads(other)
    for x, y in ((a["account"]["id"], b["account"]["id"]), (a["campaigns"][0]["name"], b["campaigns"][0]["name"]),
                 (a["search_terms"][0]["search_term"], b["search_terms"][0]["search_term"])):
        assert x != y
    assert json.loads(plain)["campaigns"][0]["id"] != a["campaigns"][0]["id"]


def test_item13_the_key_is_refused_anywhere_in_the_case_set(account, tmp_path, capsys):
    cases = tmp_path / "cases"
    code, _out, err = cli(capsys, "redact", account, "-o", cases / "c99", "--key", cases / "redact.key")
    assert code == 2 and "the key file is inside" in err and not (cases / "c99").exists()
    code, _out, err = cli(capsys, "redact", account, "-o", tmp_path / "x.json", "--key", cases / "keys" / "k")
    assert code == 2 and "inside a 'cases' folder" in err
    # a case set under another name: its other cases give it away
    other = tmp_path / "mycases"
    (other / "c01").mkdir(parents=True)
    (other / "c01" / "expected.yaml").write_text("case: c01\n", encoding="utf-8")
    code, _out, err = cli(capsys, "redact", account, "-o", other / "c02", "--key", other / "team.key")
    assert code == 2 and "or the case set holding it" in err


def test_item13_check_warns_of_a_key_file_in_the_case_set(tmp_path, capsys):
    import shutil

    from reviewtui.commands.check import main as check_main

    cases = tmp_path / "cases"
    shutil.copytree(ROOT / "cases" / "c13-coffee-roaster", cases / "c13-coffee-roaster")
    assert check_main(["--cases", str(cases)]) == 0
    assert "redaction key" not in capsys.readouterr().out
    (cases / "team.key").write_text("ab" * 32 + "\n", encoding="utf-8")
    (cases / "c13-coffee-roaster" / "notes.txt").write_text("0123456789abcdef" * 4, encoding="utf-8")
    assert check_main(["--cases", str(cases)]) == 0  # a warning, not an error
    out = capsys.readouterr().out
    assert f"{cases / 'team.key'}:1: warning: looks like a redaction key" in out
    assert f"{cases / 'c13-coffee-roaster' / 'notes.txt'}:1: warning: looks like a redaction key" in out


@pytest.mark.parametrize("bad", ["folder", "unwritable", "binary"])
def test_item13_a_bad_key_path_is_a_clear_error(bad, account, tmp_path, capsys):
    if bad == "folder":
        key = tmp_path / "keys"
        key.mkdir()
        expected = "is a folder; --key names the key file"
    elif bad == "unwritable":
        key = Path("/proc/reviewtui-no-such/redact.key")
        expected = "cannot use the key file"
    else:
        key = tmp_path / "k.bin"
        key.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
        expected = "not a key (expected hex digits)"
    code, _out, err = cli(capsys, "redact", account, "-o", tmp_path / "r.json", "--key", key)
    assert code == 2 and expected in err and "Traceback" not in err and not (tmp_path / "r.json").exists()
