"""Would end whatever process runs it, a template included (no seat could then be forked
from it)."""

import os

os._exit(3)
