"""Markdown with math, rendered server-side: MathML from latex2mathml, so a page needs no
JavaScript and no CDN (course machines and many LMS hosts are offline). Raw HTML in content is
escaped, never passed through: content text is never markup."""

from __future__ import annotations

from functools import lru_cache

from latex2mathml.converter import convert
from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from mdit_py_plugins.dollarmath import dollarmath_plugin

from course.errors import CourseError


class RenderError(CourseError):
    """Content that cannot be rendered (e.g. LaTeX that latex2mathml cannot parse)."""


def _mathml(latex: str, display: str) -> str:
    try:
        return convert(latex, display=display)
    except Exception as exc:  # latex2mathml raises many types for bad LaTeX
        raise RenderError(
            f"cannot convert the math `{latex}` to MathML ({type(exc).__name__}: {exc}); "
            "fix the LaTeX (balanced braces, known commands) in the lesson text"
        ) from exc


_BEFORE_STAR = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_)]")
_AFTER_STAR = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_([")


def _arithmetic_star(state: StateInline, silent: bool) -> bool:
    pos, src = state.pos, state.src
    if src[pos] != "*" or pos == 0 or pos + 1 >= state.posMax:
        return False
    if src[pos - 1] not in _BEFORE_STAR or src[pos + 1] not in _AFTER_STAR:
        return False
    if not silent:
        state.push("text", "", 0).content = "*"
    state.pos += 1
    return True


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table")
    md.use(dollarmath_plugin, allow_space=True, allow_digits=False, double_inline=True)

    def math_inline(self, tokens, idx, options, env) -> str:  # type: ignore[no-untyped-def]
        return _mathml(tokens[idx].content, "inline")

    def math_block(self, tokens, idx, options, env) -> str:  # type: ignore[no-untyped-def]
        return f'<div class="math-display">{_mathml(tokens[idx].content.strip(), "block")}</div>\n'

    # ``0.5*20 + 0.25*4`` is arithmetic, not emphasis: a ``*`` between two word characters
    # (or a closing and an opening bracket) stays a literal star. Code spans and $math$ are
    # consumed whole by their own rules before this one sees their stars.
    md.inline.ruler.before("emphasis", "arithmetic_star", _arithmetic_star)
    md.add_render_rule("math_inline", math_inline)
    md.add_render_rule("math_inline_double", math_block)
    md.add_render_rule("math_block", math_block)
    md.add_render_rule("math_block_label", math_block)
    return md


# A text renders the same every time (pure), and the LMS lesson page renders the same texts
# for every learner (a checkpoint's choices in the learner's own order, its variant's question):
# each text is parsed once per process. Bounded; ``renders()`` counts the real renders (the
# count tests hold a warm page at zero).
_CACHED_TEXTS = 4096


def renders() -> int:
    """How many Markdown texts this process has parsed (cache misses of ``block``/``inline``)."""
    return block.cache_info().misses + inline.cache_info().misses


@lru_cache(maxsize=_CACHED_TEXTS)
def block(text: str, *, top: int = 4) -> str:
    """Markdown paragraphs, lists, code and math to HTML.

    Headings inside content are shifted so the highest becomes ``h{top}``: the page owns h1-h3,
    and an author's ``# Evidence`` must not become a second page title or skip a level.
    """
    md = _parser()
    tokens = md.parse(text)
    levels = [int(t.tag[1]) for t in tokens if t.type in ("heading_open", "heading_close")]
    if levels:
        shift = top - min(levels)
        for token in tokens:
            if token.type in ("heading_open", "heading_close"):
                token.tag = f"h{min(6, int(token.tag[1]) + shift)}"
    return md.renderer.render(tokens, md.options, {})


@lru_cache(maxsize=_CACHED_TEXTS)
def inline(text: str) -> str:
    """One line of Markdown (titles, list items, feedback) to HTML without a <p> wrapper."""
    return _parser().renderInline(text).strip()
