"""Widgets of the review area (runs, run, case review, compare).

Each widget takes plain data (manifest dicts, ``CaseScore`` objects, a
comparison) so it can be shown and tested without running anything.
"""
