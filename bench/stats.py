"""Median and spread, as every bench table reports them: the median of the
repetitions and their spread (max - min); None for no values."""
import statistics


def median(values):
    values = list(values)
    return statistics.median(values) if values else None


def spread(values):
    values = list(values)
    return max(values) - min(values) if values else None
