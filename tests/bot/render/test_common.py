"""Block Kit limits: lines joined to fit with "and N more", blocks capped."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.render.common import (
    MAX_BLOCKS,
    MAX_SECTION_TEXT,
    cap_blocks,
    escape,
    join_lines,
    section,
)

_line = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=400
)


@settings(max_examples=80, deadline=None)
@given(st.lists(_line, max_size=300), st.integers(min_value=0, max_value=5000))
def test_join_lines_fits_and_counts_what_it_left_out(lines: list[str], extra: int) -> None:
    total = len(lines) + extra
    text = join_lines(lines, total=total)
    assert len(text) <= MAX_SECTION_TEXT
    out = text.split("\n") if lines or extra else []
    kept = out[:-1] if out and out[-1].startswith("… and ") and out[-1].endswith(" more") else out
    if len(kept) < total:
        assert out[-1] == f"… and {total - len(kept)} more"
    for shown, original in zip(kept, lines, strict=False):
        assert original.startswith(shown.removesuffix("…"))


def test_cap_blocks_keeps_short_messages_whole() -> None:
    blocks = [section(str(i)) for i in range(MAX_BLOCKS)]
    assert cap_blocks(blocks) == blocks


def test_escape_writes_out_control_and_bidi_characters_from_the_service_but_keeps_line_breaks() -> None:
    # A violationName as a hostile or broken service could send it: BEL, a right-to-left override, NUL.
    text = escape("Tamper\u0007\u202eevil\u0000 <b> &\nnext\tline")
    assert text == "Tamper\\u0007\\u202eevil\\u0000 &lt;b&gt; &amp;\nnext\tline"
