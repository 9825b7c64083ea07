"""Python highlighted with Pygments into CSS classes; the colours live in the stylesheet
(light and dark themes), so the same HTML serves both."""

from __future__ import annotations

from functools import lru_cache
from html import escape

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer, TextLexer


@lru_cache(maxsize=2)
def _formatter() -> HtmlFormatter:
    return HtmlFormatter(cssclass="highlight", wrapcode=True)


def code_block(code: str, *, label: str, language: str = "python") -> str:
    """A labelled, highlighted code listing (Pygments escapes the code)."""
    lexer = PythonLexer() if language == "python" else TextLexer()
    # A long line scrolls the listing sideways: tabindex lets a keyboard user scroll it too.
    body = highlight(code, lexer, _formatter()).replace("<pre>", '<pre tabindex="0">', 1)
    return (f'<figure class="code"><figcaption>{escape(label)}</figcaption>'
            f"{body}</figure>")


def output_block(text: str, *, label: str) -> str:
    """Program output: plain text, escaped, not highlighted."""
    return (f'<figure class="output"><figcaption>{escape(label)}</figcaption>'
            f'<pre tabindex="0"><samp>{escape(text)}</samp></pre></figure>')
