"""roofline_golden: the golden model of the roofline unit (no simulator imports).

- `qformat`: UQ(I).(F) fixed-point formats, quantization and decoding.
- `exact`: the real-valued roofline on Fractions, the reference for error bounds.
- `fixed`: the bit-exact fixed-point mirror of each RTL module, one vector at a time.
- `vector`: the same mirror vectorized with numpy, for sweeps.
- `cases`: the document's cases and the spec's edge cases, from `cases.toml`.
- `defaults`: the contract's defaults (the format, levels, count bits, multiply stages), written once.
"""

from roofline_golden import defaults, exact, fixed
from roofline_golden.qformat import QFormat, format_fraction, round_half_up

DEFAULT_FORMAT = QFormat()
DEFAULT_LEVELS = defaults.LEVELS
DEFAULT_COUNT_BITS = defaults.COUNT_BITS

__all__ = [
    "DEFAULT_COUNT_BITS",
    "DEFAULT_FORMAT",
    "DEFAULT_LEVELS",
    "QFormat",
    "defaults",
    "exact",
    "fixed",
    "format_fraction",
    "round_half_up",
]
