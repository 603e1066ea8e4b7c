"""LLMUsage arithmetic: pure functions that never mutate their arguments.

Dify reports usage per model call as an ``LLMUsage`` (12 fields, SDK
``entities/model/llm.py``). A round's usage is what its chunks report; a run's
usage is the sum of its rounds. Prices are ``Decimal`` in ``currency`` units;
``latency`` is seconds.
"""

from collections.abc import Iterable, Mapping
from decimal import Decimal
from itertools import pairwise
from operator import itemgetter
from typing import Any

from dify_plugin.entities.model.llm import LLMUsage

from agent_core.fairness import paced
from agent_core.unvalidated import built, checks_nothing

_FIELDS = frozenset(LLMUsage.model_fields)
_DECIMAL_FIELDS = tuple(name for name, info in LLMUsage.model_fields.items() if info.annotation is Decimal)


def empty_usage() -> LLMUsage:
    """A zero usage in USD."""
    return LLMUsage.empty_usage()


def coerce_usage(raw: LLMUsage | dict[str, Any] | None) -> LLMUsage | None:
    """Validate a chunk's ``usage`` dict, filling fields a provider left out with zeros (a
    total left out with the sum of its parts).

    Returns None for None or an empty dict; never raises on partial data: a field that cannot
    be read counts as zero (``usage_problem`` names it).
    """
    if raw is None or isinstance(raw, LLMUsage):
        return raw
    if not raw:
        return None
    merged = _merged(raw)
    try:
        return _sane(LLMUsage.model_validate(merged))
    except ValueError:
        pass
    bad = set(_unreadable_fields(raw))
    merged = _merged({k: v for k, v in raw.items() if k not in bad})  # a total is summed from what reads
    try:
        return _sane(LLMUsage.model_validate(merged))
    except ValueError:
        return None


def _merged(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The zero usage with ``raw``'s usage fields that are set; a total left out (absent or
    None) is the sum of its parts, as Dify computes it, not zero (a report of prompt and
    completion tokens alone still counts in the run's ``total_tokens``)."""
    merged = _EMPTY | {k: v for k, v in raw.items() if k in _FIELDS and v is not None}
    for total, parts in _TOTALS:
        if raw.get(total) is None and any(raw.get(part) is not None for part in parts):
            value = sum((_number(merged[part]) for part in parts), Decimal(0))
            merged[total] = int(value) if total == "total_tokens" else value
    return merged


def _number(value: Any) -> Decimal:
    """``value`` as a finite number, or 0 when it is none (validation names that field)."""
    try:
        number = Decimal(str(value))
    except ArithmeticError:
        return Decimal(0)
    return number if number.is_finite() else Decimal(0)


_TOTALS = (("total_tokens", ("prompt_tokens", "completion_tokens")), ("total_price", ("prompt_price", "completion_price")))


def read_usage(raw: Any) -> tuple[LLMUsage | None, str | None]:
    """``(coerce_usage(raw), usage_problem(raw))`` for a chunk's ``usage`` as it came (a dict, a
    ``LLMUsage``, None or anything else: then ``(None, None)``), validated once when every field
    reads (the usual case) instead of once for each."""
    if raw is None or isinstance(raw, LLMUsage):
        return raw, None
    if not (type(raw) is dict or isinstance(raw, Mapping)) or not raw:  # a dict: no look at the ABC
        return None, None
    try:
        return _sane(LLMUsage.model_validate(_merged(raw))), None
    except ValueError:  # both read it again, field by field
        return coerce_usage(raw), usage_problem(raw)


_EMPTY = LLMUsage.empty_usage().model_dump()

_PRICES = itemgetter(*_DECIMAL_FIELDS)
"""The ``Decimal`` fields' values of a usage's ``__dict__``, as a tuple (``_sane``)."""
_DECIMAL_SET = frozenset(_DECIMAL_FIELDS)
_DECIMALS = frozenset({Decimal})

MAX_CURRENCY_CHARS = 16
"""Longest ``currency`` read (characters): a code such as ``USD`` or ``RMB``; a longer text is
not a currency, and every log node and the run's metadata would carry it."""

MAX_PRICE_EXPONENT = 30
"""Largest power of ten a price may reach: a larger (or infinite, or NaN) ``Decimal`` is not a
price, and adding one up overflows ``decimal``'s context (``decimal.Overflow``), ending the run."""


def _sane(usage: LLMUsage) -> LLMUsage:
    """``usage`` when every field is one a run can add up and write; raises ``ValueError``
    naming the first field that is not (see ``MAX_CURRENCY_CHARS``, ``MAX_PRICE_EXPONENT``; a
    token count or a price below zero is none: the run's totals would go down)."""
    values = usage.__dict__  # the fields' values (a pydantic model's)
    prices = _PRICES(values) if values.keys() >= _DECIMAL_SET else None
    quick = (  # every price a plain finite Decimal within range (the usual usage): checked in a few C calls
        prices is not None and _DECIMALS.issuperset(map(type, prices)) and all(map(Decimal.is_finite, prices))
        and max(map(Decimal.adjusted, prices)) <= MAX_PRICE_EXPONENT and min(prices) >= 0
    )
    for name in () if quick else _DECIMAL_FIELDS:
        value = getattr(usage, name)
        if isinstance(value, Decimal) and (
            not value.is_finite() or value < 0 or (value and value.adjusted() > MAX_PRICE_EXPONENT)
        ):
            raise ValueError(f"{name}: not a price")
    if len(usage.currency) > MAX_CURRENCY_CHARS:
        raise ValueError("currency: not a currency code")
    if usage.prompt_tokens < 0 or usage.completion_tokens < 0 or usage.total_tokens < 0:
        raise ValueError("tokens: a count below zero")  # the run's totals and Dify's usage would go down
    return usage


def _unreadable_fields(raw: dict[str, Any]) -> list[str]:
    bad = []
    for name, value in raw.items():
        if name not in _FIELDS or value is None:
            continue
        try:
            _sane(LLMUsage.model_validate(_EMPTY | {name: value}))
        except ValueError:
            bad.append(name)
    return bad


def usage_problem(raw: Any) -> str | None:
    """What is wrong with a reported usage, naming the fields (``usage field 'total_price'
    cannot be read: 'n/a'``), or None when every field reads."""
    if not isinstance(raw, dict) or not raw:
        return None
    try:
        _sane(LLMUsage.model_validate(_merged(raw)))
        return None
    except ValueError:
        pass
    bad = _unreadable_fields(raw)
    if not bad:
        return None
    return "; ".join(f"usage field {name!r} cannot be read: {_shown(raw[name])}" for name in bad) + " (counted as 0)"


def _shown(value: Any, limit: int = 80) -> str:
    """``repr(value)``, at most ``limit`` characters of it (a field of megabytes is named, not copied)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def add_usage(a: LLMUsage, b: LLMUsage) -> LLMUsage:
    """Sum two usages into a new one.

    Tokens, prices and latency add up. Unit prices and price units are not
    additive: the later non-zero value is kept. The currency is ``b``'s unless
    ``b`` carries no price at all.
    """
    return sum_usages((a, b))


def sum_usages(usages: Iterable[LLMUsage]) -> LLMUsage:
    """The sum of any number of usages (zero for none), by ``add_usage``'s rules, folded from zero.
    One usage is built (without validating again what was validated: ``_UNVALIDATED``), not one per report (a reply of 100,000 chunks each reporting its own
    usage), and the loop gives way every ``fairness.GRAIN`` reports."""
    fields = dict(_ZERO)
    currency = _ZERO["currency"]
    for usage in paced(list(usages)):
        if usage.total_price or not fields["total_price"]:
            currency = usage.currency
        for name in _SUMMED:
            fields[name] += getattr(usage, name)
        for name in _LATEST:
            fields[name] = getattr(usage, name) or fields[name]
    fields["latency"] = round(fields["latency"], 6)  # 0.20900000000000002 s: float noise of the sum
    fields["currency"] = currency
    if _UNVALIDATED:  # sums of validated usages' values: of the fields' types already
        return built(LLMUsage, fields, set(_ALL_FIELDS))
    return LLMUsage(**fields)


_SUMMED = ("prompt_tokens", "prompt_price", "completion_tokens", "completion_price", "total_tokens", "total_price",
           "latency")
"""Fields ``add_usage`` adds up."""
_LATEST = ("prompt_unit_price", "prompt_price_unit", "completion_unit_price", "completion_price_unit")
"""Fields ``add_usage`` takes from the later usage, unless it is zero there."""

_ALL_FIELDS = tuple(LLMUsage.model_fields)
_ZERO = {name: getattr(LLMUsage.empty_usage(), name) for name in _ALL_FIELDS}
"""``empty_usage()``'s fields in the model's order: where ``sum_usages`` starts (Decimals and
numbers are immutable: the values are shared, never changed)."""

_UNVALIDATED = checks_nothing(LLMUsage, _ALL_FIELDS)
"""Whether ``sum_usages`` builds its result without validating it again (dify_plugin 0.10.2's
``LLMUsage``: no validators; its values are sums of validated usages' values, of the fields'
types, and the instance is the one validation makes). Else validated as before."""


def _is_cumulative(usages: list[LLMUsage]) -> bool:
    """Whether a call's usage reports repeat a running total rather than add up.

    A running total keeps the same non-zero prompt tokens and never lowers
    completion tokens (OpenAI-style ``include_usage`` repeated per chunk).
    Per-chunk deltas (prompt tokens only once, then completion deltas) add up.
    """
    first = usages[0].prompt_tokens
    if first == 0:
        return False
    pairs = pairwise(usages)
    return all(
        later.prompt_tokens == first and later.completion_tokens >= earlier.completion_tokens
        for earlier, later in pairs
    )


def _is_blank(usage: LLMUsage) -> bool:
    """Whether a report counts nothing: no tokens and no price (its unit prices may be set)."""
    return not (usage.prompt_tokens or usage.completion_tokens or usage.total_tokens or usage.total_price
                or usage.prompt_price or usage.completion_price)


def call_usage(reports: list[LLMUsage]) -> LLMUsage:
    """The usage of one model call from every usage its chunks reported.

    Most model plugins report once, in the last chunk; when several chunks
    report, blank reports (no tokens, no price) are left out when others count, a running
    total is taken from its last report and deltas are summed;
    reports that each repeat the same prompt with a completion of their own count
    the prompt once. One report is returned as it is (also the sum ``invoke_model`` passes on:
    ``ModelChunk.call_usage``), not summed again.
    """
    if not reports:
        return empty_usage()
    counted = [report for report in reports if not _is_blank(report)]
    if counted and len(counted) < len(reports):
        # a report of nothing (no tokens, no price: a plugin's empty usage on a chunk) adds
        # nothing to a sum, but would hide that the others repeat a running total
        reports = counted
    if len(reports) == 1 or _is_cumulative(reports):
        return reports[-1]
    first = reports[0]
    total = sum_usages(reports)
    if first.prompt_tokens and all(report.prompt_tokens == first.prompt_tokens for report in reports):
        # one report per part of the reply, each with the whole prompt and its own completion
        # (the Vertex AI plugin, a final response of several parts): the prompt counts once
        return total.model_copy(
            update={
                "prompt_tokens": first.prompt_tokens,
                "prompt_price": first.prompt_price,
                "total_tokens": first.prompt_tokens + total.completion_tokens,
                "total_price": first.prompt_price + total.completion_price,
                "latency": max(report.latency for report in reports),
            }
        )
    return total


def timed(usage: LLMUsage, seconds: float, refused: float = 0.0) -> LLMUsage:
    """``usage`` with ``latency`` set to ``seconds`` (the call's time as the run measured it, from
    the request to the reply's last chunk) when the model reported none: no usage at all (an
    empty usage), or a report whose latency is zero or less (a plugin that fills only tokens, an
    OpenAI-compatible server's usage passed on as sent). A latency the model reported is kept,
    plus ``refused``: seconds of an earlier request of the same call that the model plugin refused
    and that reported nothing (``stop`` refused, the request made again without it), part of
    ``seconds`` but of no report. Rounded to the millisecond, a call measured at more than zero to
    one millisecond at least (a reply played back in under half a millisecond gave a run's
    ``execution_metadata`` a latency of zero); ``seconds`` of zero or less count as zero. Never
    mutates ``usage``."""
    if usage.latency > 0:
        if refused > 0:  # rare: a request refused and made again
            return usage.model_copy(update={"latency": round(usage.latency + refused, 3)})
        return usage
    latency = max(round(seconds, 3), 0.001) if seconds > 0 else 0.0
    if _UNVALIDATED and type(usage) is LLMUsage:  # the instance model_copy makes, without its copying machinery
        return built(LLMUsage, {**usage.__dict__, "latency": latency}, usage.model_fields_set | {"latency"})
    return usage.model_copy(update={"latency": latency})


def _json_number(value: Decimal | float | int) -> float | int:
    return float(value) if isinstance(value, Decimal) else value


def usage_to_metadata(usage: LLMUsage) -> dict[str, Any]:
    """All twelve ``LLMUsage`` fields as JSON numbers, the shape Dify's
    ``LLMUsage.from_metadata`` reads from ``execution_metadata``."""
    return {name: _json_number(value) if name != "currency" else value for name, value in usage.model_dump().items()}
