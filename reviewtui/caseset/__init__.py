"""The case files: cases (expected.yaml beside snapshot.json, comments kept through edits),
snapshots and how their values read, write-ups, disputed.md, and the checks over the whole set.
Safe writes and input limits are ``reviewtui.files``; the app's authoring services are
``reviewtui.authoring``."""
