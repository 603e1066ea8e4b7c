"""RepeatGuard: an identical call is refused after ``limit`` calls only while its result never
changed (langgenius/dify#19589: a clock called ten times on purpose is no loop)."""

from agent_core.repeat_guard import RepeatGuard


def play(guard: RepeatGuard, key: str, results: list[str]) -> list[bool]:
    """Admit one call of ``key`` per result, recording each result of a call admitted."""
    admitted = []
    for result in results:
        ok = guard.admit(key)
        admitted.append(ok)
        if ok:
            guard.record(key, result)
    return admitted


def test_the_same_result_every_time_is_a_loop_after_the_limit():
    assert play(RepeatGuard(3), "search\x00{}", ["none"] * 5) == [True, True, True, False, False]


def test_a_result_that_changes_is_never_refused():
    times = [f"10:00:0{n}" for n in range(10)]
    assert play(RepeatGuard(3), "current_time\x00{}", times) == [True] * 10


def test_a_status_polled_until_it_changes_goes_on_once_it_changed():
    """A job polled: 'running' three times is a loop; had it changed once, it would not be."""
    assert play(RepeatGuard(3), "status\x00{}", ["running", "running", "done", "done", "done"]) == [True] * 5
    assert play(RepeatGuard(3), "status\x00{}", ["running"] * 4) == [True, True, True, False]


def test_keys_are_counted_apart():
    guard = RepeatGuard(1)
    assert play(guard, "a", ["x", "x"]) == [True, False]
    assert play(guard, "b", ["x"]) == [True]


def test_a_refused_call_records_nothing_and_a_call_never_recorded_counts_as_unchanged():
    """Calls admitted but never run (their result not recorded) do not make a key vary."""
    guard = RepeatGuard(2)
    assert [guard.admit("k") for _ in range(3)] == [True, True, False]
