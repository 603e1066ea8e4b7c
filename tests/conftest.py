"""Import the SDK before any test starts a thread.

Importing ``dify_plugin`` monkey-patches the process with gevent; doing it
while runner threads are alive breaks the import lock. Every test session
therefore patches at start, as the plugin process itself does.
"""

import dify_plugin  # noqa: F401
