"""Scoring: figures found in text and their units, the grounding of each figure in a snapshot
(the snapshot's values, the derived index, the date ranges a finding names), claims, and the
score of one case (recall, precision, fabrication)."""
