"""local_runner.tasks: the bundled suite is well formed and its checks judge answers as a user would."""

from datetime import UTC, datetime

import pytest

from local_runner.builtin_tools import default_toolbox, find_zone
from local_runner.tasks import Check, Suite, ToolUse, numbers_in, suite_toolbox
from local_runner.tools import ToolInputError


def test_bundled_suite_has_10_to_20_tasks_needing_0_to_2_offered_tools():
    suite = Suite.load()
    known = set(default_toolbox().names)
    assert 10 <= len(suite.tasks) <= 20
    for task in suite.tasks:
        assert len(task.needs) <= 2, task.id
        assert set(task.needs) <= set(task.tools) <= known, task.id
        assert set(task.check.tools_called) <= set(task.needs), task.id
    assert {len(task.needs) for task in suite.tasks} == {0, 1, 2}


def test_select_keeps_suite_order_and_refuses_unknown_ids():
    suite = Suite.load()
    assert [t.id for t in suite.select(["sqrt", "capital"]).tasks] == ["capital", "sqrt"]
    with pytest.raises(ValueError, match="unknown task ids"):
        suite.select(["nope"])
    assert all(t.tools == ("calculator",) for t in suite.with_tools(["calculator"]).tasks)


@pytest.mark.parametrize("text, numbers", [
    ("It costs 1,298.50 EUR.", [1298.5]),
    ("Answer: 42.", [42.0]),
    ("-3 and .5", [-3.0, 0.5]),
    ("none", []),
])
def test_numbers_in(text, numbers):
    assert numbers_in(text) == numbers


def test_check_reports_every_failure():
    check = Check.from_dict({"answer_number": {"value": 42.16, "tolerance": 0.01}, "answer_contains": ["km"],
                             "tools_called": ["unit_convert"]})
    assert check.failures("26.2 miles are 42.165 km.", [ToolUse("unit_convert", {}, True)]) == []
    problems = check.failures("About 40 kilometres.\nQuestion: and back?", [ToolUse("unit_convert", {}, False)])
    assert problems == ["answer lacks 'km'", "answer lacks the number 42.16",
                        "answer goes on with 'Question:' (invented dialogue)", "unit_convert not called"]


def test_check_refuses_unknown_keys():
    with pytest.raises(ValueError, match="unknown check keys"):
        Check.from_dict({"answer_is": "x"})


@pytest.mark.parametrize("name, iana", [
    ("Asia/Tokyo", "Asia/Tokyo"), ("UTC", "UTC"), ("Tokyo", "Asia/Tokyo"), ("new york", "America/New_York"),
    ("  ", "UTC"),
])
def test_find_zone_takes_iana_names_and_their_cities(name, iana):
    assert find_zone(name).key == iana


def test_find_zone_refuses_what_is_no_zone():
    with pytest.raises(ToolInputError, match="unknown timezone 'Atlantis'"):
        find_zone("Atlantis")


def test_suite_clock_is_fixed():
    clock = datetime(2025, 6, 14, 9, 30, tzinfo=UTC)
    toolbox = suite_toolbox(clock)
    (message,) = toolbox.get("current_time").run({"timezone": "Tokyo", "format": "%H:%M"}, released=None)  # type: ignore[arg-type]
    assert message["message"]["text"] == "18:30"
