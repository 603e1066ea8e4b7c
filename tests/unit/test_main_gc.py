"""main.collect_garbage_less_often: the start-up heap is out of the collector's sight, so a full
collection no longer walks it (about 90,000 objects, some 0.1 s during which no session moves)."""

from __future__ import annotations

import gc

import main


def test_the_start_up_heap_is_frozen_and_young_objects_collected_less_often():
    threshold = gc.get_threshold()
    try:
        main.collect_garbage_less_often()
        assert gc.get_freeze_count() > 50_000  # the SDK's, pydantic's and the plugin's modules
        assert gc.get_threshold() == (main.YOUNG_OBJECTS_PER_COLLECTION, *threshold[1:])
        everything = len(gc.get_objects())
        assert everything < gc.get_freeze_count()  # a full collection now walks what the runs made
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)
