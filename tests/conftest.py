"""Import the SDK before any test starts a thread, and set Hypothesis's profile.

Importing ``dify_plugin`` monkey-patches the process with gevent; doing it
while runner threads are alive breaks the import lock. Every test session
therefore patches at start, as the plugin process itself does.

Property tests assert behaviour, not speed: Hypothesis's per-example deadline
(200 ms by default) is off, since a loaded machine (CI, parallel jobs) made
examples that are linear in their input pass it now and then. Costs are
checked by counting work (``test_react_parser_cost.py``, ``test_regex_growth.py``)
and measured by ``bench/``.

The settings a machine's environment may hold that change a run's limits (the run deadline,
the SDK's heartbeat and request timeout) are cleared: the plugin processes the runner starts
inherit the environment, and a CI runner that sets one would move every deadline the tests
assert. A test that needs one sets it itself.

Deep mode (opt-in, never in CI): ``HYPOTHESIS_PROFILE=deep`` runs only the property tests,
each with many more examples (``AGENT_DEEP_EXAMPLES``, 2,000 by default), so that a campaign
over a few ``--hypothesis-seed`` values finds what a random draw in CI would find later
(docs/fuzzing.md, "Deep property runs").
"""

import os

import dify_plugin  # noqa: F401
from hypothesis import settings

for _name in ("AGENT_RUN_TIMEOUT", "PLUGIN_MAX_EXECUTION_TIMEOUT", "HEARTBEAT_INTERVAL", "MAX_REQUEST_TIMEOUT"):
    os.environ.pop(_name, None)

settings.register_profile("agent", deadline=None)

DEEP_PROFILE = "deep"
"""The value of ``HYPOTHESIS_PROFILE`` that selects the deep mode."""
DEEP_EXAMPLES_ENV = "AGENT_DEEP_EXAMPLES"
"""Examples per property test in the deep mode (its default: 2,000, twenty times Hypothesis's)."""

if os.environ.get("HYPOTHESIS_PROFILE") == DEEP_PROFILE:
    settings.register_profile(DEEP_PROFILE, deadline=None, max_examples=int(os.environ.get(DEEP_EXAMPLES_ENV) or 2_000))
    settings.load_profile(DEEP_PROFILE)
else:
    settings.load_profile("agent")


def deep_examples(own: int, deep: int) -> int:
    """The examples a property test declaring ``own`` plays in a deep run of ``deep`` examples:
    at least its own, at most ``deep``, and for a test that declares fewer than Hypothesis's 100
    (its examples are costly: 100 KB texts) the same factor as a test of 100, ``deep / 100``."""
    return max(own, min(own * deep // 100, deep))


def pytest_collection_modifyitems(config, items):
    """In the deep mode, keep only the Hypothesis tests that draw at random, each with ``deep_examples`` examples (a
    test's settings are read when it runs, so replacing them after collection takes effect;
    the items of a parametrized test share one function, set once)."""
    if os.environ.get("HYPOTHESIS_PROFILE") != DEEP_PROFILE:
        return
    deep = int(os.environ.get(DEEP_EXAMPLES_ENV) or 2_000)
    done, kept, left = set(), [], []
    for item in items:
        test = getattr(item, "obj", None)
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if own is None or not getattr(test, "is_hypothesis_test", False) or own.derandomize:
            left.append(item)  # a derandomized test plays a fixed set (its own long mode: docs/fuzzing.md)
            continue
        kept.append(item)
        if id(test) not in done:
            done.add(id(test))
            test._hypothesis_internal_use_settings = settings(
                own, max_examples=deep_examples(own.max_examples, deep))
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = kept
