"""The case set: cases (expected.yaml beside snapshot.json), snapshots, write-ups, disputes,
edit history, the case-set checks, and the safe reading and writing of those files
(untrusted input limits, atomic saves, comments kept through edits)."""
