"""The bases of the app's screens and modals that use the app: ``self.app`` typed as the ReviewApp.

Textual types ``self.app`` as a bare ``App``; a screen that reads the app's
folders or calls its ``open_case`` would need a cast at every use. Textual's
own accessor, ``getters.app(ReviewApp)``, gives the attribute the app's
type. It is declared for the type checker only: building it at import time
would import ``app.py``, which imports every screen. At run time
``self.app`` is Textual's own property, so nothing a screen does changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from textual.screen import ModalScreen, Screen

if TYPE_CHECKING:
    from textual import getters

    from ..app import ReviewApp

ResultType = TypeVar("ResultType")


class ReviewScreen(Screen[ResultType]):
    if TYPE_CHECKING:
        app = getters.app(ReviewApp)


class ReviewModalScreen(ModalScreen[ResultType]):
    if TYPE_CHECKING:
        app = getters.app(ReviewApp)
