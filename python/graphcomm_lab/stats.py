"""Median and spread over repetitions, as every table of the lab and of
bench/ reports them: the median of the repetitions, their range (min-max) or
spread (max - min), and ratios of two sides taken repetition by repetition.
Standard library only (bench/ imports it before anything else)."""
import statistics


def median(values):
    """The median, or None for no values."""
    values = list(values)
    return statistics.median(values) if values else None


def spread(values):
    """max - min, or None for no values."""
    values = list(values)
    return max(values) - min(values) if values else None


def summary(values):
    """{"median", "min", "max", "runs"} of the values (at least one)."""
    values = list(values)
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "runs": values}


def ratios(numerators, denominators):
    """a / b of each repetition (pairs that ran back to back)."""
    return [a / b for a, b in zip(numerators, denominators)]


def median_ratio(numerators, denominators):
    """The median of the per-repetition ratios (None for none)."""
    return median(ratios(numerators, denominators))


def median_text(values, spec):
    """The median formatted with `spec` (e.g. ".3f"), "-" for no values."""
    values = list(values)
    return format(statistics.median(values), spec) if values else "-"


def range_text(values, spec):
    """"min-max" formatted with `spec`, "-" for no values."""
    values = list(values)
    return f"{min(values):{spec}}-{max(values):{spec}}" if values else "-"


def median_range_text(values, spec):
    """"median (min-max)" formatted with `spec`."""
    return f"{median_text(values, spec)} ({range_text(values, spec)})"
