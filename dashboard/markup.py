"""Text from the service or the URL inside Streamlit's markdown, shown as the text it is: `literal`.

Every element that takes a body (st.markdown, st.caption, st.subheader, st.error and the other banners)
reads it as GitHub-flavoured markdown with Streamlit's additions (docs: st.markdown). Text a panel's
installer typed, or the service's error message, must not become a link, an image the browser fetches, a
colour, an emoji, a formula or a heading there. Where a page can show such text apart from its own words it
uses st.text; where the text belongs inside a sentence of ours (a banner, a caption, a heading) it goes
through `literal`, the one escaping function of the pages.

Two kinds of markup are taken apart:
- what the markdown parser reads from the source (links, images, emphasis, code, HTML, headings, lists,
  tables, `$` maths, `:name[...]` directives): every ASCII punctuation character is backslash-escaped, which
  CommonMark shows as the character itself;
- what is found afterwards in the parsed text, where a backslash no longer counts (GFM's bare-URL and e-mail
  links, `:emoji:` and `:material/...:` shortcodes, the `->` arrows): a zero-width space breaks each where
  it would be recognised (`core.text.unlinked` for links to pages, the same character after an e-mail
  address's `@`, after a `:` and between the two signs of an arrow). The text reads the same; a copy of it
  carries the invisible breaks.
"""

from __future__ import annotations

import re

from core.text import LINK_BREAK, unlinked, visible

# CommonMark lets a backslash escape any ASCII punctuation character, and shows it as that character.
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
# Found in the parsed text (Streamlit's remark plugins): `:smile:`, `:+1:`, `:material/home:`, `:streamlit:`
# after a colon; `->`, `<-`, `<->`, `--`, `>=`, `<=`, `~=` between two signs.
_SHORTCODE = re.compile(r"(?<=:)(?=[\w+-])|(?<=@)(?=[\w-])")  # and GFM's e-mail links, after the `@`
_ARROW = re.compile(r"(?<=[-<>~])(?=[->=])")
_LAYOUT = re.compile(r"[ \t\r\n\f\v]+")  # runs of layout whitespace: one space, as a browser shows them


def literal(text: object) -> str:
    """`text` for a markdown body: shown as the characters it holds, on one line, control and bidi characters
    written out as \\uXXXX (core/text.py), nothing in it read as markup."""
    flat = visible(_LAYOUT.sub(" ", str(text)))
    broken = _ARROW.sub(LINK_BREAK, _SHORTCODE.sub(LINK_BREAK, unlinked(flat)))
    return _PUNCTUATION.sub(r"\\\1", broken)
