"""Command palette entries: open a case, go to an expectation, go to a snapshot row by pointer."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from ..snapshot import PointerError


class ReviewCommands(Provider):
    def _author(self):
        from .screens.author import AuthorScreen

        screen = self.screen
        return screen if isinstance(screen, AuthorScreen) else None

    def _targets(self) -> list[tuple[str, object, str]]:
        """(text, callback, help) for everything the palette can jump to from here."""
        app = self.app
        found: list[tuple[str, object, str]] = []
        author = self._author()
        if author is not None:
            for entry in author.case.expectations():
                found.append((f"Go to {entry.list_name} {entry.id}", partial(author.select_expectation, entry.list_name, entry.index),
                               entry.evidence))
        for case_id, kind in app.case_summaries():  # type: ignore[attr-defined]
            found.append((f"Open case {case_id}", partial(app.open_case, case_id), kind))  # type: ignore[attr-defined]
        return found

    async def discover(self) -> Hits:
        for text, callback, help_text in self._targets():
            yield DiscoveryHit(text, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        author = self._author()
        pointer = query.strip()
        if author is not None and pointer.startswith("/") and author.snapshot is not None:
            try:
                author.snapshot.resolve(pointer)
            except PointerError as exc:
                yield Hit(0.1, f"Row {pointer}: does not resolve", lambda: None, help=str(exc))
            else:
                yield Hit(1.0, f"Go to row {pointer}", partial(author.go_to_pointer, pointer), help="snapshot row")
        matcher = self.matcher(query)
        for text, callback, help_text in self._targets():
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), callback, help=help_text)
