"""The statistics of the reports: medians over rounds, their spread (the noise band's input), the
percentile that makes a band of spreads, geometric means of ratios, and the verdict of a ratio
against its target outside the band. Every report of the package that has a noise band takes its
spread from here, so that a band means the same in all of them."""

import math
import statistics

TOLERANCE = 0.03  # the ±3 % band of the targets


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def percentile(values, q):
    values = sorted(v for v in values if v is not None)
    if not values:
        return None
    position = q * (len(values) - 1)
    low = math.floor(position)
    high = min(low + 1, len(values) - 1)
    return values[low] + (values[high] - values[low]) * (position - low)


def spread(values):
    """The largest |value ÷ median − 1| of one program's rounds (its runs); None below two. Values
    that are None or 0 (no figure) do not count."""
    values = [v for v in values if v]
    if len(values) < 2:
        return None
    centre = statistics.median(values)
    return max(abs(v / centre - 1.0) for v in values)


def verdict(ratio, higher_is_better, band=None):
    """✓ meets the target by at least the noise band; ✗ misses it by more than 3 % and by more than
    the band; ≈ anything between (misses by less than 3 %, or lies inside the noise band): only ✓
    is at target. No ratio: "–" (the caller counts the case as failed)."""
    if ratio is None:
        return "–"
    margin = ratio - 1.0 if higher_is_better else 1.0 - ratio  # > 0: better than the target
    band = band or 0.0
    if margin >= band:
        return "✓"
    if margin < -TOLERANCE and -margin > band:
        return "✗"
    return "≈"
