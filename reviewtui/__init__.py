"""reviewtui: an evaluation harness and terminal app for an ad-account audit assistant.

The core (everything outside ``reviewtui.tui``) never imports Textual, and
imports the anthropic SDK only when the Claude backend is used, so that
``reviewtui eval`` and ``reviewtui check`` stay fast in CI.
"""

__version__ = "0.1.0"
