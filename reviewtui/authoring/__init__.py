"""The app's authoring services: one case open for authoring (``session.py``: tags, disputes,
undo and redo, guarded saves), what the tag and dispute forms edit (``drafts.py``), the edit
history (``history.py``), the reference auditor's support verdicts (``support_checks.py``) and
a snapshot's sections as tables (``snapshot_sections.py``). The app drives them; they import
the case files and the reference auditor, never Textual."""
