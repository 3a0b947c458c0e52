"""The evaluation's apps, one module each (see `tests/evaluation/corpus.py`)."""

from __future__ import annotations

from tests.evaluation.apps import (
    clinic,
    founders,
    friends,
    invoicing,
    marketplace,
    recipes,
    tracker,
)
from tests.evaluation.corpus import App

ALL_APPS: tuple[App, ...] = (
    marketplace.APP,
    recipes.APP,
    clinic.APP,
    tracker.APP,
    friends.APP,
    founders.APP,
    invoicing.APP,
)
