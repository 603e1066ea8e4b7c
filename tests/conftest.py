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
"""

import os

import dify_plugin  # noqa: F401
from hypothesis import settings

for _name in ("AGENT_RUN_TIMEOUT", "PLUGIN_MAX_EXECUTION_TIMEOUT", "HEARTBEAT_INTERVAL", "MAX_REQUEST_TIMEOUT"):
    os.environ.pop(_name, None)

settings.register_profile("agent", deadline=None)
settings.load_profile("agent")
