"""``python -m local_runner`` (see ``local_runner.cli``)."""

import sys

from local_runner.cli import main

sys.exit(main())
