"""The evaluation's apps, one module each (see `tests/evaluation/corpus.py`)."""

from __future__ import annotations

from tests.evaluation.apps import (
    bakery,
    clinic,
    founders,
    friends,
    hostels,
    invoicing,
    marketplace,
    recipes,
    rentals,
    siblings,
    tracker,
    volunteers,
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
    bakery.APP,
    rentals.APP,
    volunteers.APP,
    siblings.APP,
    hostels.APP,
)
