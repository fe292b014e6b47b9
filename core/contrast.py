"""Contrast of text on a coloured background, as WCAG 2 measures it: which ink to write on a colour.

The severity colours (core/alarms.py) and the heat map's scale are chosen for being told apart; the text
on them is chosen here, so every badge and cell reads at the 4.5:1 WCAG asks of normal text
(docs/accessibility.md).
"""

from __future__ import annotations

import functools

LIGHT_INK = "#ffffff"
DARK_INK = "#31333f"  # Streamlit's text colour: dark text on a badge reads as the page's own text
BLACK = "#000000"  # where neither reads: on any colour white fails, black reads at 4.6:1 or better
READABLE = 4.5  # WCAG 2 AA, normal text


def _channel(value: int) -> float:
    c = value / 255
    return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4


def luminance(colour: str) -> float:
    """The relative luminance of a `#rrggbb` colour."""
    h = colour.lstrip("#")
    r, g, b = (_channel(int(h[i : i + 2], 16)) for i in (0, 2, 4))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """The contrast ratio of two `#rrggbb` colours, from 1 (the same) to 21 (black on white)."""
    low, high = sorted((luminance(a), luminance(b)))
    return (high + 0.05) / (low + 0.05)


@functools.lru_cache(maxsize=256)  # a page asks for the same few colours hundreds of times
def ink_on(background: str) -> str:
    """The ink that reads best on `background`, white or the page's dark text; black where neither reaches
    READABLE (mid-tones such as the heat map's middle orange)."""
    best = max((LIGHT_INK, DARK_INK), key=lambda ink: contrast(ink, background))
    return best if contrast(best, background) >= READABLE else BLACK
