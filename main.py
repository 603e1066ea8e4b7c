"""Plugin entry point: Dify's daemon runs ``python -m main`` in the plugin folder.

Timeouts (seconds) suit long agent runs: ``MAX_REQUEST_TIMEOUT`` bounds a whole
serverless request, ``MAX_INVOCATION_TIMEOUT`` is how long a backwards call
(model or tool) may stay silent before the SDK gives up on it.
"""

from dify_plugin import DifyPluginEnv, Plugin
from dify_plugin.config.config import InstallMethod

from agent_core.sdk_speedups import (
    dump_messages_as_json,
    read_stdin_nonblocking,
    share_type_adapters,
    wrap_requests_unvalidated,
    write_lines_once,
    write_lines_together,
)

config = DifyPluginEnv(MAX_REQUEST_TIMEOUT=1200, MAX_INVOCATION_TIMEOUT=900)
share_type_adapters()  # the SDK would build a pydantic TypeAdapter for every line it reads
write_lines_once()  # ...and validate every message twice and write each line in two writes
dump_messages_as_json()  # ...and leave enum members in each message for the encoder
wrap_requests_unvalidated()  # ...and validate again the request of every model and tool call
if config.INSTALL_METHOD is InstallMethod.Local:
    read_stdin_nonblocking()  # ...and hand every read of the daemon's pipe to a thread
    write_lines_together()  # ...and write each line in a system call of its own
plugin = Plugin(config)

if __name__ == "__main__":
    plugin.run()
