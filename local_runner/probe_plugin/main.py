"""Entry point of the runner probe plugin (``python -m main``)."""

from dify_plugin import DifyPluginEnv, Plugin

plugin = Plugin(DifyPluginEnv(MAX_REQUEST_TIMEOUT=120, MAX_INVOCATION_TIMEOUT=60))

if __name__ == "__main__":
    plugin.run()
