"""The size trend that ends a run's tool rounds early (``AgentLoop._room_for_another_round``) needs
two rounds of growth: after one round there is only one growth, and one large reply (a file the
model wrote once) is no trend. The sizes start as zeros, and the zero before the first request
counted as a round that grew by the whole first request: a run whose first request was already past
``REQUEST_BYTES`` (a long query trimming cannot shorten) was asked for its answer after its first
large reply."""

from agent_core.line_budget import REQUEST_BYTES, REQUEST_LINE_MAX_BYTES
from tests.unit.test_size_limit_round_wave39 import KB, loop_after


def test_one_large_reply_after_a_large_first_request_is_no_trend():
    first, second = REQUEST_BYTES + 200 * KB, REQUEST_BYTES + 1_000 * KB  # one reply of 800 KB
    assert second + 2 * 800 * KB > REQUEST_LINE_MAX_BYTES  # two more of it would not fit
    assert loop_after(0, first, second)._room_for_another_round()


def test_two_rounds_of_growth_after_a_large_first_request_still_end_the_rounds():
    sizes = (REQUEST_BYTES - 100 * KB, REQUEST_BYTES + 600 * KB, REQUEST_BYTES + 1_300 * KB)
    assert not loop_after(*sizes)._room_for_another_round()
