"""The tamper script: a passing stamp made by ``reviewtui eval --backend claude`` on the fifty cases against the
fake Messages API (tests/stamp_fixture.py), then changed the way a careless or hurried colleague would, and
``reviewtui weekly`` against the same fake.

Every tamper: refused, exit 1, no request to the fake, one reason line that names what differs. The
verdict is derived again from the stored answers (reviewtui/weekly/rederive.py), so no manifest field on
its own can clear the weekly run; a signed stamp refuses any changed byte (reviewtui/runs/signature.py).
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from reviewtui import assistant
from reviewtui.backends.base import Backend, CaseOutput
from reviewtui.caseset.cases import load_case_set
from reviewtui.commands.eval import main as eval_main
from reviewtui.runs.session import run_eval
from reviewtui.backends.cache import CachedResponse, ResponseCache, cache_key, default_cache_dir
from reviewtui.backends.provenance import endpoint_of, text_sha256
from reviewtui.runs.settings import RunSettings
from tests.fake_messages_api import answer, hang
from tests.stamp_fixture import CASE_COUNT
from tests.test_weekly import MADE_UP, accounts_folder, assert_refused, claude_eval, first_case_marker, weekly

# Every test here runs whole eval and weekly processes behind a stamp: the slow half of the suite.
pytestmark = pytest.mark.slow

VERSION = assistant.PROMPT_VERSION
FABRICATING = {"id": "pacing.overspend", "scope": None, "severity": "high", "claim": "Spend runs ahead.",
               "evidence": f"Spend was {MADE_UP} this month."}


@pytest.fixture
def api(stamp_kit, stamped):
    return stamp_kit.api


def manifest_path(root: Path) -> Path:
    return root / "results" / VERSION / "manifest.json"


def edit_manifest(root: Path, **fields: object) -> dict:
    manifest = json.loads(manifest_path(root).read_text(encoding="utf-8"))
    manifest.update(fields)
    manifest_path(root).write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return manifest


def only_reason(api, root: Path, capsys) -> str:
    """The weekly run refuses with exactly one reason (exit 1, no request: ``assert_refused``); that reason."""
    capsys.readouterr()
    reasons = assert_refused(api, accounts_folder(root), capsys)
    assert len(reasons) == 1, reasons
    return reasons[0]


def passing_gate() -> dict:
    return {"passed": True, "reasons": []}


ANSWER_FILE = Path("results") / VERSION / "cases" / "c01-outdoor-retail.json"


def tamper_an_answer(root: Path, *, rehash: bool = False) -> str:
    """The stored answer of c01 swapped for one that fabricates a figure (with ``rehash``, the SHA-256 of its
    text recorded on receipt made to match); the new text."""
    record = json.loads((root / ANSWER_FILE).read_text(encoding="utf-8"))
    text = record["output"]["raw_text"] = json.dumps({"findings": [FABRICATING]})
    if rehash:
        record["output"]["provenance"]["text_sha256"] = text_sha256(text)
    (root / ANSWER_FILE).write_text(json.dumps(record, indent=2), encoding="utf-8")
    return text


# --------------------------------------------------------------------------
# One field
# --------------------------------------------------------------------------


def test_gate_passed_set_to_true_on_a_failing_run(api, stamped, capsys):
    api.plan(first_case_marker(stamped), answer(json.dumps({"findings": [FABRICATING]})))
    assert claude_eval("--no-cache") == 1
    edit_manifest(stamped, gate=passing_gate())
    reason = only_reason(api, stamped, capsys)
    assert reason.startswith(f"the manifest of {VERSION} says the gate passed, but its stored answers, scored again "
                             "against the cases as they are, fail it: ")
    assert "1 fabrication(s), 0 allowed: c01-outdoor-retail (1)" in reason


def test_gate_and_summary_made_to_agree_on_a_failing_run(api, stamped, capsys):
    api.plan(first_case_marker(stamped), answer(json.dumps({"findings": [FABRICATING]})))
    assert claude_eval("--no-cache") == 1
    manifest = json.loads(manifest_path(stamped).read_text(encoding="utf-8"))
    summary = {**manifest["summary"], "fabrications": 0, "fabrication_cases": [], "mean_recall": 1.0}
    edit_manifest(stamped, gate=passing_gate(), summary=summary)
    assert "fail it: 1 fabrication(s), 0 allowed" in only_reason(api, stamped, capsys)


def test_a_stored_answer_swapped_for_a_worse_one(api, stamped, capsys):
    tamper_an_answer(stamped)
    assert only_reason(api, stamped, capsys) == (
        "1 case(s) (c01-outdoor-retail) hold answer text that is not the text the API returned (its SHA-256, "
        "recorded when it was received, differs or is missing): edited since")


def test_a_stored_answer_swapped_with_its_text_hash_made_to_match(api, stamped, capsys):
    tamper_an_answer(stamped, rehash=True)
    assert only_reason(api, stamped, capsys) == (
        "1 case(s) (c01-outdoor-retail) hold answers the manifest does not list as the ones its run scored "
        "(message id, text hash, run id): answers of another run")


def test_a_stored_answer_swapped_and_listed_in_the_manifest_is_scored_again(api, stamped, capsys):
    text = tamper_an_answer(stamped, rehash=True)
    manifest = json.loads(manifest_path(stamped).read_text(encoding="utf-8"))
    manifest["answers"]["c01-outdoor-retail"][0]["text_sha256"] = text_sha256(text)
    edit_manifest(stamped, answers=manifest["answers"])
    assert only_reason(api, stamped, capsys).startswith(
        f"the manifest of {VERSION} says the gate passed, but its stored answers, scored again against the cases "
        "as they are, fail it: 1 fabrication(s)")


def test_the_summary_edited_on_a_passing_run(api, stamped, capsys):
    manifest = json.loads(manifest_path(stamped).read_text(encoding="utf-8"))
    edit_manifest(stamped, summary={**manifest["summary"], "mean_precision": 0.5})
    assert only_reason(api, stamped, capsys) == (
        f"the manifest of {VERSION} does not report what its stored answers give: mean precision 0.5 in the "
        "manifest, 1.0 from the answers")


def test_a_cancelled_run_turned_into_a_complete_one(api, stamped, capsys):
    """A real cancelled run (the SDK against the fake: the cancel comes while the last cases hang), then made
    to look complete: status, gate, summary."""
    case_set = load_case_set(stamped / "cases")
    hanging = [c.snapshot.data["account"]["id"] for c in case_set.cases[-3:]]
    for marker in hanging:
        api.plan(marker, hang(30))

    async def cancelled_run():
        from reviewtui.runs.session import make_backend

        settings = RunSettings(backend="claude", results_dir=stamped / "results", use_cache=False, timeout=60)
        backend = make_backend("claude", settings)
        cancel = asyncio.Event()

        def landed(record):
            if len(done) >= 47:
                cancel.set()

        done: list[str] = []
        try:
            return await run_eval(case_set, backend, settings, cancel=cancel,
                                  on_record=lambda r: (done.append(r.case_id), landed(r)))
        finally:
            await backend.aclose()

    run = asyncio.run(cancelled_run())
    assert run.manifest["status"] == "cancelled"
    summary = {**run.manifest["summary"], "not_run": 0, "not_run_cases": [], "scored": CASE_COUNT, "cases": CASE_COUNT}
    edit_manifest(stamped, status="complete", gate=passing_gate(), summary=summary,
                  case_ids=sorted(c.case_id for c in case_set.cases))
    reason = only_reason(api, stamped, capsys)
    assert reason.startswith(f"results/{VERSION}/cases does not hold the run the manifest of {VERSION} describes: no "
                             "stored answer for 3 case(s) of the case set (")


def test_an_incomplete_run_turned_into_a_complete_one(api, stamped, capsys):
    from tests.fake_messages_api import overloaded

    api.plan(first_case_marker(stamped), overloaded())
    assert claude_eval("--no-cache") == 3
    manifest = json.loads(manifest_path(stamped).read_text(encoding="utf-8"))
    edit_manifest(stamped, status="complete", gate=passing_gate(),
                  summary={**manifest["summary"], "errors": 0, "error_cases": [], "scored": CASE_COUNT})
    assert only_reason(api, stamped, capsys) == ("1 case(s) (c01-outdoor-retail) hold an answer that could not be "
                                                 "obtained (an error), so the run was not complete")


def test_a_new_prompts_hash_pasted_into_the_manifest(api, stamped, capsys, monkeypatch):
    edited = assistant.system_prompt() + "\nBe brief."
    monkeypatch.setattr(assistant, "system_prompt", lambda: edited)  # the prompt edited, PROMPT_VERSION not bumped
    edit_manifest(stamped, prompt_sha256=assistant.prompt_sha256())
    assert only_reason(api, stamped, capsys).startswith(
        f"{CASE_COUNT} case(s) (c01-outdoor-retail, c02-dental-clinic, c03-b2b-saas and {CASE_COUNT - 3} more) were answered to another "
        "request than the weekly run sends for them now (prompt text, model, --max-tokens or snapshot)")


def _cache_entry_of(root: Path, text: str) -> Path:
    """The response-cache file holding the answer ``text``."""
    [path] = [p for p in (root / "results" / ".cache" / "responses").glob("*.json")
              if json.loads(p.read_text(encoding="utf-8"))["response"]["text"] == text]
    return path


def _edit_cache_entry(path: Path, text: str, *, rehash: bool = False) -> None:
    entry = json.loads(path.read_text(encoding="utf-8"))
    entry["response"]["text"] = text
    if rehash:
        entry["response"]["provenance"]["text_sha256"] = text_sha256(text)
    path.write_text(json.dumps(entry, indent=2), encoding="utf-8")


def test_an_answer_edited_in_the_response_cache_is_asked_again(stamp_kit, api, stamped, capsys):
    """The failing answer made good in the cache by one edit, then an honest eval: the edited entry is not
    read, the case is asked again, and the API's answer fails the gate again."""
    marker, bad = first_case_marker(stamped), json.dumps({"findings": [FABRICATING]})
    api.plan(marker, answer(bad))
    assert claude_eval("--no-cache") == 1
    _edit_cache_entry(_cache_entry_of(stamped, bad), stamp_kit.answers[marker])
    api.clear_requests()
    capsys.readouterr()
    assert claude_eval() == 1
    assert api.count() == 1
    assert "its text is not the text the API returned: the SHA-256 recorded on receipt differs" in capsys.readouterr().err


def test_with_a_stamp_key_a_cache_entry_edited_with_its_hash_is_asked_again(stamp_kit, api, stamped, capsys,
                                                                           key_file):
    marker, bad = first_case_marker(stamped), json.dumps({"findings": [FABRICATING]})
    api.plan(marker, answer(bad))
    assert claude_eval("--no-cache", "--stamp-key", str(key_file)) == 1
    _edit_cache_entry(_cache_entry_of(stamped, bad), stamp_kit.answers[marker], rehash=True)
    api.clear_requests()
    capsys.readouterr()
    assert claude_eval("--stamp-key", str(key_file)) == 1
    assert api.count() == 1
    assert "is not signed under the stamp key (an entry made without the key, or edited)" in capsys.readouterr().err


@pytest.mark.parametrize(("field", "value", "reason"), [
    ("finished_at", "2999-01-01T00:00:00+00:00",
     f"the run of {VERSION} finished in the future (2999-01-01T00:00:00+00:00, now "),
    ("prompt_version", "audit-v3", f"results/{VERSION}/manifest.json says it holds a run of prompt version "
     f"'audit-v3', not of {VERSION}: the record was moved or edited; run `reviewtui eval --backend claude`"),
    ("figures", "bogus", f"the manifest of {VERSION} records figures mode 'bogus', not one of "),
])
def test_one_more_manifest_field_edited(api, stamped, capsys, field, value, reason):
    edit_manifest(stamped, **{field: value})
    assert only_reason(api, stamped, capsys).startswith(reason)


# --------------------------------------------------------------------------
# Not the fifty
# --------------------------------------------------------------------------


def test_a_one_case_stamp_given_the_project_case_sets_hash(api, stamped, capsys):
    one = stamped / "one-case"
    shutil.copytree(stamped / "cases" / "c01-outdoor-retail", one / "c01-outdoor-retail")
    shutil.rmtree(stamped / "results" / VERSION)
    assert claude_eval("--cases", str(one)) == 0
    edit_manifest(stamped, case_set_hash=load_case_set(stamped / "cases").digest())
    assert only_reason(api, stamped, capsys) == (
        f"the manifest of {VERSION} lists other cases than the case set cases has (c02-dental-clinic, "
        f"c03-b2b-saas, c04-furniture-store and {CASE_COUNT - 4} more of the case set not in it)")


def test_a_case_file_removed_from_the_record(api, stamped, capsys):
    (stamped / "results" / VERSION / "cases" / "c07-law-firm.json").unlink()
    assert only_reason(api, stamped, capsys) == (
        f"results/{VERSION}/cases does not hold the run the manifest of {VERSION} describes: no stored answer for "
        "1 case(s) of the case set (c07-law-firm)")


def test_a_snapshot_edited_after_the_run_with_the_new_case_set_hash_pasted(api, stamped, capsys):
    snapshot = stamped / "cases" / "c20-pet-pantry" / "snapshot.json"
    snapshot.write_text(snapshot.read_text(encoding="utf-8").replace('"ACCT-20"', '"ACCT-20b"'), encoding="utf-8")
    edit_manifest(stamped, case_set_hash=load_case_set(stamped / "cases").digest())
    assert only_reason(api, stamped, capsys) == (
        "1 case(s) (c20-pet-pantry) were answered for other snapshot bytes than the case has now")


def test_an_expectation_added_after_the_run_with_the_new_case_set_hash_pasted(api, stamped, capsys):
    expected = stamped / "cases" / "c20-pet-pantry" / "expected.yaml"
    text = expected.read_text(encoding="utf-8")
    expected.write_text(text.replace("must_find:\n", "must_find:\n  - id: tracking.double_counting\n"
                                     "    evidence: added after the run\n", 1), encoding="utf-8")
    edit_manifest(stamped, case_set_hash=load_case_set(stamped / "cases").digest())
    reason = only_reason(api, stamped, capsys)
    assert reason.startswith(f"the manifest of {VERSION} does not report what its stored answers give: mean recall ")


def test_a_copy_of_the_cases_with_loosened_expectations(api, stamped, capsys):
    """A private copy of the fifty (its expectations loosened) named with --cases: only the project's cases/ count."""
    shutil.copytree(stamped / "cases", stamped / "my-cases")
    [reason] = assert_refused(api, accounts_folder(stamped), capsys, "--cases", "my-cases")
    assert reason.startswith(f"the case set my-cases is not the project's case set ({stamped / 'cases'}): only a "
                             "run on the project's cases clears the weekly run")


def test_a_one_case_try_out_never_replaces_the_stamp(api, stamped, capsys):
    one = stamped / "one-case"
    shutil.copytree(stamped / "cases" / "c01-outdoor-retail", one / "c01-outdoor-retail")
    before = manifest_path(stamped).read_bytes()
    api.clear_requests()
    assert claude_eval("--cases", str(one)) == 2
    assert "the weekly run's stamp; this run of" in capsys.readouterr().err and api.count() == 0
    assert manifest_path(stamped).read_bytes() == before
    assert weekly(accounts_folder(stamped), "--check") == 0
    assert claude_eval("--cases", str(one), "--results-dir", "try-out") == 0  # a try-out in its own folder


# --------------------------------------------------------------------------
# Not Claude
# --------------------------------------------------------------------------


def _claude_details(root: Path) -> dict:
    return json.loads(manifest_path(root).read_text(encoding="utf-8"))["backend_details"]


def test_the_reference_auditors_results_moved_into_the_claude_place(api, stamped, capsys):
    details = _claude_details(stamped)
    assert eval_main(["--backend", "rules"]) == 0
    shutil.rmtree(stamped / "results" / VERSION)
    shutil.move(stamped / "results" / "reference" / VERSION, stamped / "results" / VERSION)
    edit_manifest(stamped, backend="claude", results_role="assistant", model=assistant.DEFAULT_MODEL,
                  backend_details=details)
    assert only_reason(api, stamped, capsys).startswith(
        f"{CASE_COUNT} case(s) (c01-outdoor-retail, c02-dental-clinic, c03-b2b-saas and {CASE_COUNT - 3} more) hold answers the Claude "
        "backend did not record: no message id, request id, endpoint and run id from the API")


def test_a_forged_response_cache(stamp_kit, api, stamped, capsys):
    """Cache entries written by hand for every case (the answers a passing run would have), then the eval:
    every answer from the cache, no request, a manifest that passes."""
    shutil.rmtree(stamped / "results")
    cache = ResponseCache(default_cache_dir(stamped / "results"))
    for case in load_case_set(stamped / "cases").cases:
        request = assistant.build_request(case.snapshot.text, model=assistant.DEFAULT_MODEL)
        text = stamp_kit.answers[case.snapshot.data["account"]["id"]]
        cache.put(cache_key(request), CachedResponse(text, "end_turn", 1000, 100, assistant.DEFAULT_MODEL))
    api.clear_requests()
    assert claude_eval() == 0 and api.count() == 0
    assert only_reason(api, stamped, capsys).startswith(
        f"{CASE_COUNT} case(s) (c01-outdoor-retail, c02-dental-clinic, c03-b2b-saas and {CASE_COUNT - 3} more) hold answers the Claude "
        "backend did not record")


def test_a_forged_cache_with_ids_of_another_shape(stamp_kit, api, stamped, capsys):
    """Cache entries with the whole record, the text's hash right, but made-up ids: the eval reads them (no
    request), the weekly run refuses them."""
    shutil.rmtree(stamped / "results")
    cache = ResponseCache(default_cache_dir(stamped / "results"))
    for n, case in enumerate(load_case_set(stamped / "cases").cases):
        request = assistant.build_request(case.snapshot.text, model=assistant.DEFAULT_MODEL)
        text = stamp_kit.answers[case.snapshot.data["account"]["id"]]
        record = {"message_id": f"forged{n}", "request_id": f"x{n}", "batch_id": None,
                  "endpoint": endpoint_of(api.base_url), "request_sha256": cache_key(request),
                  "text_sha256": text_sha256(text), "run_id": "run_forged"}
        cache.put(cache_key(request), CachedResponse(text, "end_turn", 1000, 100, assistant.DEFAULT_MODEL, record))
    api.clear_requests()
    assert claude_eval() == 0 and api.count() == 0
    assert only_reason(api, stamped, capsys).startswith(
        f"{CASE_COUNT} case(s) (c01-outdoor-retail, c02-dental-clinic, c03-b2b-saas and {CASE_COUNT - 3} more) hold "
        "ids that are not of the API's shape (msg_, req_ or msgbatch_ followed by letters and digits)")


def test_an_answer_copied_in_from_another_run(api, stamped, capsys):
    """A record mixing two runs: one case file taken from another run that paid for its own answers."""
    assert claude_eval("--no-cache", "--results-dir", "other") == 0
    name = "c01-outdoor-retail.json"
    shutil.copy(stamped / "other" / VERSION / "cases" / name, stamped / "results" / VERSION / "cases" / name)
    assert only_reason(api, stamped, capsys) == (
        "1 case(s) (c01-outdoor-retail) hold answers the manifest does not list as the ones its run scored "
        "(message id, text hash, run id): answers of another run")


def test_the_weekly_run_would_ask_another_path_or_scheme_of_the_endpoint(api, stamped, capsys, monkeypatch):
    for other in (api.base_url + "/other/prefix", api.base_url.replace("http://", "https://")):
        monkeypatch.setenv("ANTHROPIC_BASE_URL", other)
        assert only_reason(api, stamped, capsys).startswith(
            f"the run of {VERSION} asked the API at {endpoint_of(api.base_url)}, the weekly run would send to "
            f"{endpoint_of(other)} (ANTHROPIC_BASE_URL)")


class Impostor(Backend):
    """A backend that names itself claude and answers as the reference auditor would, from a table."""

    name = "claude"
    model = assistant.DEFAULT_MODEL

    def __init__(self, answers: dict[str, str], details: dict) -> None:
        self.answers = answers
        self.details = details

    async def run(self, case, *, repeat=0):
        return CaseOutput(case.case_id, self.answers[case.snapshot.data["account"]["id"]], stop_reason="end_turn",
                          model=self.model)

    def describe(self):
        return dict(self.details)


def test_a_backend_that_names_itself_claude(stamp_kit, api, stamped, capsys):
    details = _claude_details(stamped)
    assert eval_main(["--backend", "claude"], backend=Impostor(stamp_kit.answers, details)) == 0
    assert only_reason(api, stamped, capsys).startswith(
        f"{CASE_COUNT} case(s) (c01-outdoor-retail, c02-dental-clinic, c03-b2b-saas and {CASE_COUNT - 3} more) hold answers the Claude "
        "backend did not record")


def test_a_backend_that_names_itself_claude_and_records_no_endpoint(stamp_kit, api, stamped, capsys):
    assert eval_main(["--backend", "claude"], backend=Impostor(stamp_kit.answers, {"backend": "claude"})) == 0
    assert only_reason(api, stamped, capsys).startswith(
        f"the run of {VERSION} asked the API at an endpoint it does not record, the weekly run would send to ")


def test_the_manifests_endpoint_changed_to_the_weekly_runs(api, stamped, capsys, monkeypatch):
    """The stamp was made at one endpoint (another proxy, a fake server); the manifest says another."""
    details = {**_claude_details(stamped), "endpoint": "https://api.anthropic.com:443"}
    edit_manifest(stamped, backend_details=details)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "https://api.anthropic.com")  # the weekly run's: nothing is sent there
    reason = only_reason(api, stamped, capsys)
    assert reason.startswith(f"{CASE_COUNT} case(s) (c01-outdoor-retail, c02-dental-clinic, c03-b2b-saas and {CASE_COUNT - 3} more) were "
                             "answered at another endpoint than the run's (https://api.anthropic.com:443)")


def test_another_models_answers_relabelled(api, stamped, capsys):
    assert claude_eval("--model", "claude-haiku-4-5") == 0
    edit_manifest(stamped, model=assistant.DEFAULT_MODEL)
    assert only_reason(api, stamped, capsys).startswith(
        f"{CASE_COUNT} case(s) (c01-outdoor-retail, c02-dental-clinic, c03-b2b-saas and {CASE_COUNT - 3} more) were answered by another model "
        f"than the run's {assistant.DEFAULT_MODEL}, as the API reported it")


def test_one_answer_copied_over_another(api, stamped, capsys):
    """The answer of one case copied into another's file (its record names its own request: another one)."""
    cases = stamped / "results" / VERSION / "cases"
    first = json.loads((cases / "c01-outdoor-retail.json").read_text(encoding="utf-8"))
    second = json.loads((cases / "c02-dental-clinic.json").read_text(encoding="utf-8"))
    second["output"] = {**first["output"], "case_id": "c02-dental-clinic",
                        "snapshot_sha256": second["output"]["snapshot_sha256"]}
    (cases / "c02-dental-clinic.json").write_text(json.dumps(second), encoding="utf-8")
    assert only_reason(api, stamped, capsys) == (
        "1 case(s) (c02-dental-clinic) were answered to another request than the weekly run sends for them now "
        "(prompt text, model, --max-tokens or snapshot)")


# --------------------------------------------------------------------------
# The signature
# --------------------------------------------------------------------------


@pytest.fixture
def key_file(tmp_path):
    path = tmp_path / "keys" / "stamp.key"  # outside the working copy (tmp_path/repo)
    path.parent.mkdir()
    path.write_text("ab" * 32 + "\n", encoding="utf-8")
    return path


def test_a_signed_stamp_refuses_any_changed_byte(stamp_kit, api, stamped, capsys, key_file):
    assert claude_eval("--stamp-key", str(key_file)) == 0  # the CI's run, from the cache, signed
    capsys.readouterr()
    assert weekly(accounts_folder(stamped), "--check", "--stamp-key", str(key_file)) == 0
    assert "signature checked" in capsys.readouterr().out
    manifest = json.loads(manifest_path(stamped).read_text(encoding="utf-8"))
    manifest["usage"]["cost_usd"] = 0.01
    manifest_path(stamped).write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    capsys.readouterr()
    reasons = assert_refused(api, accounts_folder(stamped), capsys, "--stamp-key", str(key_file))
    assert reasons == [f"results/{VERSION} changed since it was signed: manifest.json"]


def test_an_unsigned_stamp_is_refused_when_a_key_is_given(api, stamped, capsys, key_file, monkeypatch):
    monkeypatch.setenv("REVIEWTUI_STAMP_KEY", str(key_file))  # as the scheduler and the app read it
    assert assert_refused(api, accounts_folder(stamped), capsys) == [
        f"results/{VERSION}/stamp.sig not found: the run was not signed, and a stamp key was given (--stamp-key or "
        "REVIEWTUI_STAMP_KEY)"]


def test_a_stamp_signed_with_another_key_is_refused(api, stamped, capsys, key_file, tmp_path):
    other = tmp_path / "keys" / "other.key"
    other.write_text("cd" * 32, encoding="utf-8")
    assert claude_eval("--stamp-key", str(other)) == 0
    capsys.readouterr()
    assert assert_refused(api, accounts_folder(stamped), capsys, "--stamp-key", str(key_file)) == [
        f"results/{VERSION}/stamp.sig: the signature does not match its list of files under this key (made with "
        "another key, or edited)"]


def test_a_signed_stamp_checked_without_its_key_is_refused(api, stamped, capsys, key_file):
    assert claude_eval("--stamp-key", str(key_file)) == 0
    capsys.readouterr()
    assert assert_refused(api, accounts_folder(stamped), capsys) == [
        f"results/{VERSION}/stamp.sig exists, but no stamp key was given to check it: a signed record is checked "
        "with its key or not at all; give it (--stamp-key or REVIEWTUI_STAMP_KEY)"]


def test_a_signed_stamp_whose_endpoint_was_replaced_everywhere(api, stamped, capsys, key_file, monkeypatch):
    """The one tamper no unsigned record can show: the endpoint replaced in every file (a global sed). The
    signature refuses it."""
    assert claude_eval("--stamp-key", str(key_file)) == 0
    run_dir = stamped / "results" / VERSION
    for path in [run_dir / "manifest.json", *(run_dir / "cases").glob("*.json")]:
        path.write_text(path.read_text(encoding="utf-8").replace(endpoint_of(api.base_url),
                                                                 "https://api.anthropic.com:443"), encoding="utf-8")
    monkeypatch.delenv("ANTHROPIC_BASE_URL")
    capsys.readouterr()
    [reason] = assert_refused(api, accounts_folder(stamped), capsys, "--stamp-key", str(key_file))
    assert reason.startswith(f"results/{VERSION} changed since it was signed: ")


def test_a_key_kept_inside_the_repository_is_refused(api, stamped, capsys):
    (stamped / ".git").mkdir()
    inside = stamped / "stamp.key"
    inside.write_text("ab" * 32, encoding="utf-8")
    assert claude_eval("--stamp-key", str(inside)) == 2
    assert weekly(accounts_folder(stamped), "--stamp-key", str(inside)) == 2
    err = capsys.readouterr().err
    assert err.count(f"{inside}: the stamp key is inside the repository ({stamped})") == 2
    assert api.count() == 0
