"""What the simulation tests share: graphcomm-lab's run_group, which needs
nothing beyond the standard library."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from graphcomm_lab.process_group import run_group  # noqa: E402,F401
