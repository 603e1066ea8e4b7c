"""Usage arithmetic: sums are exact and inputs are never mutated."""

from decimal import Decimal

import pytest
from dify_plugin.entities.model.llm import LLMUsage
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core.usage import (
    add_usage,
    call_usage,
    coerce_usage,
    empty_usage,
    read_usage,
    sum_usages,
    usage_problem,
    usage_to_metadata,
)


def usage(prompt: int, completion: int, price: str = "0") -> object:
    return coerce_usage(
        {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_unit_price": "0.15",
            "prompt_price_unit": "0.000001",
            "total_price": price,
            "currency": "USD",
            "latency": 0.5,
        }
    )


def test_add_sums_tokens_prices_and_latency_without_mutating():
    a, b = usage(10, 2, "0.1"), usage(5, 1, "0.2")
    total = add_usage(a, b)
    assert (total.prompt_tokens, total.completion_tokens, total.total_tokens) == (15, 3, 18)
    assert total.total_price == Decimal("0.3")
    assert total.latency == 1.0
    assert (a.prompt_tokens, b.prompt_tokens) == (10, 5)


def test_summed_latency_carries_no_float_noise():
    """0.1 + 0.109 s is reported as 0.209 s, not 0.20900000000000002 (the run's execution
    metadata shows the sum as it is)."""
    a, b = usage(1, 1, "0"), usage(1, 1, "0")
    total = add_usage(a.model_copy(update={"latency": 0.1}), b.model_copy(update={"latency": 0.109}))
    assert 0.1 + 0.109 != 0.209 and total.latency == 0.209


def test_partial_usage_is_filled_with_zeros():
    filled = coerce_usage({"prompt_tokens": 7})
    assert filled.prompt_tokens == 7 and filled.completion_tokens == 0 and filled.currency == "USD"
    assert coerce_usage(None) is None and coerce_usage({}) is None


def test_running_total_takes_the_last_report():
    assert call_usage([usage(100, 10), usage(100, 20), usage(100, 50)]).total_tokens == 150


def test_deltas_are_summed():
    reports = [usage(100, 0), usage(0, 30), usage(0, 20)]
    assert call_usage(reports).total_tokens == 150


def test_reports_per_part_count_the_prompt_once():
    # the Vertex AI plugin yields one chunk per part of its final response, each with the
    # whole prompt and that part's completion
    def priced(prompt, completion):
        return coerce_usage({"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
                             "prompt_price": str(prompt / 1000), "completion_price": str(completion / 1000),
                             "total_price": str((prompt + completion) / 1000), "latency": 0.5})

    total = call_usage([priced(90, 20), priced(90, 5)])
    assert (total.prompt_tokens, total.completion_tokens, total.total_tokens) == (90, 25, 115)
    assert total.total_price == Decimal("0.115") and total.latency == 0.5


def test_no_report_is_zero():
    assert call_usage([]) == empty_usage()


@given(st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 10**6)), max_size=20))
def test_sum_is_exact(pairs):
    total = sum_usages(usage(p, c) for p, c in pairs)
    assert total.prompt_tokens == sum(p for p, _ in pairs)
    assert total.completion_tokens == sum(c for _, c in pairs)


def test_metadata_has_all_twelve_fields_as_json_numbers():
    metadata = usage_to_metadata(usage(3, 4, "0.5"))
    assert len(metadata) == 12
    assert metadata["total_price"] == 0.5 and metadata["total_tokens"] == 7 and metadata["currency"] == "USD"


def test_an_unreadable_price_is_named_and_counted_as_zero():
    from agent_core.usage import coerce_usage, usage_problem

    raw = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15, "total_price": "n/a", "currency": "USD"}
    usage = coerce_usage(raw)
    assert usage is not None and usage.total_tokens == 15 and usage.total_price == 0
    assert usage_problem(raw) == "usage field 'total_price' cannot be read: 'n/a' (counted as 0)"
    assert usage_problem({"prompt_tokens": 3}) is None


def test_a_price_too_large_to_add_up_or_a_currency_that_is_no_code_is_named_and_not_kept():
    """A price of a million digits overflows decimal's context when the run adds it up
    (decimal.Overflow ended the run); a currency of megabytes would go into every log line."""
    from agent_core.usage import coerce_usage, usage_problem

    for field, value in [("total_price", "1" + "0" * 2_000_000), ("prompt_price", "Infinity"), ("completion_price", "NaN"),
                         ("currency", "C" * 6_000_000)]:
        raw = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15, field: value}
        usage = coerce_usage(raw)
        assert usage is not None and usage.total_tokens == 15
        assert add_usage(usage, usage).total_price.is_finite() and len(usage.currency) <= 16
        problem = usage_problem(raw)
        assert problem.startswith(f"usage field {field!r} cannot be read: ") and len(problem) < 200


_usage_values = st.one_of(
    st.none(), st.integers(min_value=-10, max_value=10**12), st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["0.15", "0.000001", "n/a", "", "1e400", "-Infinity", "NaN", "USD", "RMB", "x" * 40, "12"]),
    st.decimals(allow_nan=True, allow_infinity=True), st.lists(st.integers(), max_size=2), st.booleans(),
)


@settings(max_examples=400, deadline=None)
@given(st.one_of(
    st.dictionaries(st.sampled_from([*LLMUsage.model_fields, "extra"]), _usage_values, max_size=13),
    st.none(), st.integers(), st.text(max_size=5), st.lists(st.integers(), max_size=2),
))
def test_reading_a_usage_once_gives_what_coercing_and_checking_it_give(raw):
    """``read_usage`` validates a reported usage once; it gives exactly what the two calls give."""
    expected = (coerce_usage(raw) if isinstance(raw, dict | LLMUsage) else None, usage_problem(raw))
    assert repr(read_usage(raw)) == repr(expected)  # a NaN latency is kept, and NaN != NaN


def test_reading_a_usage_object_or_nothing():
    usage = coerce_usage({"total_tokens": 3})
    assert read_usage(usage) == (usage, None)
    assert read_usage({}) == (None, None)
    assert read_usage({"total_price": "n/a", "total_tokens": 3})[1] == usage_problem({"total_price": "n/a", "total_tokens": 3})


def test_a_total_left_out_is_the_sum_of_its_parts_and_a_given_total_is_kept():
    """A report of prompt and completion tokens (and prices) alone counts in the totals Dify
    shows; a part that cannot be read counts as zero in its total too."""
    parts = coerce_usage({"prompt_tokens": 100, "completion_tokens": 10, "prompt_price": "0.0002", "completion_price": "0.00008"})
    assert (parts.total_tokens, parts.total_price) == (110, Decimal("0.00028"))
    assert read_usage({"prompt_tokens": 100, "completion_tokens": 10})[0].total_tokens == 110
    assert coerce_usage({"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 7}).total_tokens == 7
    assert coerce_usage({"prompt_tokens": "n/a", "completion_tokens": 2}).total_tokens == 2
    assert coerce_usage({"prompt_price": "1e999", "completion_price": "0.5"}).total_price == Decimal("0.5")


def test_blank_reports_do_not_hide_a_running_total():
    """A plugin's empty usage on one chunk, with running totals on the others: the prompt
    counts once, not twice."""
    for reports in ([empty_usage(), usage(100, 5), usage(100, 10)], [usage(100, 5), empty_usage(), usage(100, 10)]):
        total = call_usage(reports)
        assert (total.prompt_tokens, total.completion_tokens, total.total_tokens) == (100, 10, 110)
    assert call_usage([empty_usage()]) == empty_usage()
    deltas = call_usage([usage(100, 0), empty_usage(), usage(0, 10)])
    assert (deltas.prompt_tokens, deltas.completion_tokens) == (100, 10)


def test_timed_fills_the_latency_a_model_did_not_report_and_keeps_one_it_did():
    from agent_core.usage import timed

    silent = empty_usage()
    filled = timed(silent, 1.23456)
    assert filled.latency == 1.235 and silent.latency == 0.0, "a new usage; the input is not mutated"
    tokens_only = coerce_usage({"prompt_tokens": 10, "completion_tokens": 2})
    assert tokens_only.latency == 0.0 and timed(tokens_only, 0.5).latency == 0.5
    assert timed(tokens_only, 0.5).total_tokens == 12, "only the latency changes"
    reported = usage(10, 2)
    assert timed(reported, 9.0).latency == 0.5, "a latency the model reported is kept"
    assert timed(silent, -1.0).latency == 0.0


def test_timed_adds_a_refused_requests_time_to_a_reported_latency_only():
    """A request the model plugin refused (its ``stop`` words), then made again: the user waited for
    both. A reported latency covers the second request alone, so the refused one's seconds are
    added; a measured time already holds them and is not added to again."""
    from agent_core.usage import timed

    reported = usage(10, 2)  # latency 0.5, the second request's own
    assert timed(reported, 0.9, 0.4).latency == 0.9
    assert reported.latency == 0.5, "the input is not mutated"
    assert timed(reported, 0.9, 0.4).total_tokens == 12, "only the latency changes"
    assert timed(empty_usage(), 0.9, 0.4).latency == 0.9, "measured: the refusal is in it already"
    assert timed(reported, 0.9).latency == 0.5 and timed(reported, 0.9, 0.0) is reported


def test_a_call_measured_under_half_a_millisecond_counts_one():
    """A reply played back in 0.3 ms was rounded to a latency of zero: the run's
    ``execution_metadata`` said the model took no time (the invariants fuzz, ReAct, three empty
    replies)."""
    from agent_core.usage import empty_usage, sum_usages, timed

    calls = [timed(empty_usage(), 0.0003) for _ in range(3)]
    assert all(call.latency == 0.001 for call in calls)
    assert sum_usages(calls).latency > 0
    assert timed(empty_usage(), 0.0).latency == 0.0, "a call never measured stays at zero"


def test_a_sum_is_the_usage_validation_makes_of_its_fields():
    first = LLMUsage.model_validate({**empty_usage().model_dump(), "prompt_tokens": "3", "total_price": "0.5",
                                     "currency": "RMB", "latency": 1, "prompt_unit_price": 0.001})
    second = LLMUsage.model_validate({**empty_usage().model_dump(), "completion_tokens": 4, "latency": 0.25})
    for got in (add_usage(first, second), sum_usages([]), sum_usages([first, second, first])):
        validated = LLMUsage(**got.model_dump())
        assert got == validated and got.model_fields_set == validated.model_fields_set
        assert got.model_dump_json() == validated.model_dump_json()
        assert [type(value) for value in vars(got).values()] == [type(value) for value in vars(validated).values()]


def test_a_usage_timed_is_the_copy_with_its_latency_set_and_the_original_is_unchanged():
    from agent_core.usage import timed

    reported = LLMUsage.model_validate({**empty_usage().model_dump(), "prompt_tokens": 5, "total_price": "0.25"})
    got = timed(reported, 0.1234)
    copied = reported.model_copy(update={"latency": 0.123})
    assert got == copied and got.model_fields_set == copied.model_fields_set and vars(got) == vars(copied)
    assert reported.latency == 0.0 and got is not reported


_PRICE = st.sampled_from(["0", "0.5", "1E+30", "9.9E+30", "1E+31", "0E+50", "-2E+40", "NaN", "Infinity", "-Infinity", "1E-40"])


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["prompt_price", "completion_price", "total_price", "prompt_unit_price",
                                        "completion_unit_price", "prompt_price_unit", "completion_price_unit"]), _PRICE))
def test_a_usage_is_sane_exactly_when_every_price_is_finite_and_within_range(prices):
    from agent_core.usage import MAX_PRICE_EXPONENT, _sane

    usage = LLMUsage.model_construct(**{**empty_usage().model_dump(), **{k: Decimal(v) for k, v in prices.items()}})
    bad = [k for k, v in prices.items()
           if not Decimal(v).is_finite() or Decimal(v) < 0 or (Decimal(v) and Decimal(v).adjusted() > MAX_PRICE_EXPONENT)]
    if bad:
        with pytest.raises(ValueError, match="not a price"):
            _sane(usage)
    else:
        assert _sane(usage) is usage


@pytest.mark.parametrize("field", ["prompt_tokens", "completion_tokens", "total_tokens"])
def test_a_token_count_below_zero_is_named_and_counted_as_zero(field):
    """A plugin reporting ``-10`` tokens would lower the run's totals and the node's usage."""
    raw = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15, field: -10}
    usage, problem = read_usage(raw)
    assert problem == f"usage field {field!r} cannot be read: -10 (counted as 0)"
    assert usage.prompt_tokens >= 0 and usage.completion_tokens >= 0 and usage.total_tokens >= 0
    assert getattr(usage, field) in (0, 15 if field == "total_tokens" else 0)
    assert read_usage({"prompt_tokens": 0, "completion_tokens": 0})[1] is None


@pytest.mark.parametrize("field", ["prompt_price", "completion_price", "total_price", "prompt_unit_price"])
def test_a_price_below_zero_is_named_and_not_summed(field):
    """A plugin reporting a price of ``-0.5`` would lower the run's total price."""
    raw = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15, "total_price": "0.001", field: "-0.5"}
    usage, problem = read_usage(raw)
    assert problem is not None and field in problem and "-0.5" in problem
    assert usage.total_price >= 0 and getattr(usage, field) >= 0
