"""graphcomm-lab: runs graphcomm studies from TOML suites into one SQLite store."""

__version__ = "0.1.0"
