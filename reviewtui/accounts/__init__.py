"""Real accounts in: platform exports to snapshot.json (``reviewtui import``) and
pseudonymised copies of a snapshot (``reviewtui redact``). Pure core: no UI, no API."""
