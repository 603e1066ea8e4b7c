"""Plugin entry point: Dify's daemon runs ``python -m main`` in the plugin folder.

Timeouts (seconds) suit long agent runs: ``MAX_REQUEST_TIMEOUT`` bounds a whole
serverless request, ``MAX_INVOCATION_TIMEOUT`` is how long a backwards call
(model or tool) may stay silent before the SDK gives up on it.
"""

import gc

from dify_plugin import DifyPluginEnv, Plugin
from dify_plugin.config.config import InstallMethod

from agent_core.sdk_speedups import (
    dump_messages_as_json,
    read_large_lines_aside,
    read_replies_with_one_timer,
    read_session_context_leniently,
    read_stdin_nonblocking,
    read_tcp_lines_safely,
    refuse_unrouted_requests,
    run_serverless_requests_once,
    share_type_adapters,
    track_running_sessions,
    wrap_requests_unvalidated,
    write_lines_once,
    write_lines_together,
)

config = DifyPluginEnv(MAX_REQUEST_TIMEOUT=1200, MAX_INVOCATION_TIMEOUT=900)
share_type_adapters()  # the SDK would build a pydantic TypeAdapter for every line it reads
write_lines_once()  # ...and validate every message twice and write each line in two writes
dump_messages_as_json()  # ...and leave enum members in each message for the encoder
wrap_requests_unvalidated()  # ...and validate again the request of every model and tool call
refuse_unrouted_requests()  # ...and end a request no route takes with no word of why
read_session_context_leniently()  # ...and fail a run whose context holds a null Dify may send
track_running_sessions()  # ...and leave a request for an ended session waiting for its end
read_replies_with_one_timer()  # ...and make a timer of its own for every wait for a backwards call's line
if config.INSTALL_METHOD is InstallMethod.Local:
    read_stdin_nonblocking()  # ...and hand every read of the daemon's pipe to a thread
    read_large_lines_aside()  # ...and hold every session's lines behind one session's line of megabytes
    write_lines_together()  # ...and write each line in a system call of its own
elif config.INSTALL_METHOD is InstallMethod.Remote:
    read_tcp_lines_safely()  # ...and run again a request sent twice, log an unreadable line whole, spin once the daemon is gone
elif config.INSTALL_METHOD is InstallMethod.Serverless:
    run_serverless_requests_once()  # ...and run again an /invoke the daemon sent twice
plugin = Plugin(config)

YOUNG_OBJECTS_PER_COLLECTION = 7000
"""Objects allocated (less those freed) between two collections of the youngest generation
(Python's default: 700). A round allocates thousands that die young (parsed lines, chunks,
log lines): with the default, the collector ran every 20 or so rounds at some 0.4 ms each, and
a full collection (every 100 of those) walked the whole start-up heap, some 60 ms during which
no session of the process moved."""


def collect_garbage_less_often() -> None:
    """Move what start-up built (the SDK's and pydantic's models and schemas, about 90,000
    objects, kept for the process's life) out of the collector's sight (``gc.freeze``), and
    collect the young generation every ``YOUNG_OBJECTS_PER_COLLECTION`` objects; the older
    generations' thresholds stay as they are."""
    gc.freeze()
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_OBJECTS_PER_COLLECTION, middle, oldest)


if __name__ == "__main__":
    collect_garbage_less_often()
    plugin.run()
