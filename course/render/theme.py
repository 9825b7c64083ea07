"""The one stylesheet: a light and a dark theme. The system preference (prefers-color-scheme)
picks one; the page's ``#theme-toggle`` checkbox flips it with CSS alone (``:has``), so the
toggle works without JavaScript."""

from __future__ import annotations

from functools import lru_cache

from pygments.formatters import HtmlFormatter

LIGHT_CODE = "default"
DARK_CODE = "github-dark"

_LIGHT = """--bg:#ffffff;--fg:#1b1f24;--muted:#57606a;--accent:#0550ae;--panel:#f6f8fa;
--border:#d0d7de;--ok:#116329;--bad:#a40e26;--code-bg:#f6f8fa;color-scheme:light;"""
_DARK = """--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--accent:#79c0ff;--panel:#161b22;
--border:#30363d;--ok:#3fb950;--bad:#ff7b72;--code-bg:#161b22;color-scheme:dark;"""

# When the toggle is checked, the theme is the opposite of the system preference.
_DARK_WHEN = ":root:has(#theme-toggle:checked)"
_DARK_SYSTEM = ":root:not(:has(#theme-toggle:checked))"

_BASE = """
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.6 system-ui,sans-serif}
main{max-width:52rem;margin:0 auto;padding:1rem 1.5rem 4rem}
a{color:var(--accent)}
.site-header{display:flex;gap:1rem;align-items:center;justify-content:space-between;
 padding:.5rem 1.5rem;border-bottom:1px solid var(--border);background:var(--panel)}
.theme-switch{cursor:pointer;font-size:.9rem}
.meta,.crumb{color:var(--muted);font-size:.95rem}
nav.stages ol{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;padding-left:1.2rem}
section.stage{border-top:2px solid var(--border);margin-top:2.5rem}
figure{margin:1rem 0}
figure.lesson-figure img{max-width:100%;height:auto;border:1px solid var(--border)}
figure figcaption{color:var(--muted);font-size:.9rem}
.highlight,pre{background:var(--code-bg);border:1px solid var(--border);border-radius:6px;
 padding:.6rem .8rem;overflow-x:auto}
.highlight pre{border:0;padding:0;margin:0;background:transparent}
code,samp{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em}
details{border:1px solid var(--border);border-radius:6px;padding:.4rem .8rem;margin:.6rem 0;
 background:var(--panel)}
summary{cursor:pointer;font-weight:600}
.kind{display:inline-block;font-size:.8rem;text-transform:uppercase;letter-spacing:.05em;
 border:1px solid var(--border);border-radius:4px;padding:0 .4rem;color:var(--muted)}
.checkpoint fieldset{border:1px solid var(--border);border-radius:6px}
.checkpoint .choice{margin:.4rem 0}
.checkpoint .feedback{display:none;margin:.2rem 0 .2rem 1.8rem}
.checkpoint .choice input:checked ~ .feedback{display:block}
.checkpoint .feedback.correct{color:var(--ok)}
.checkpoint .feedback.incorrect{color:var(--bad)}
.math-display{overflow-x:auto;margin:1rem 0}
math{max-width:100%;overflow-x:auto;overflow-y:hidden}
:not(pre)>code{overflow-wrap:anywhere}
.receipt dl{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.1rem 1rem}
.receipt dd{margin:0;overflow-wrap:anywhere}
.receipt dt{color:var(--muted)}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
table{border-collapse:collapse;margin:1rem 0;display:block;max-width:100%;overflow-x:auto}
th,td{border:1px solid var(--border);padding:.3rem .6rem;text-align:left;vertical-align:top}
th,td{overflow-wrap:anywhere}
@media (max-width:480px){th,td{padding:.25rem .35rem}}
"""


@lru_cache(maxsize=1)
def stylesheet() -> str:
    """The site's CSS: colours, layout, and Pygments token colours for both themes."""
    light = HtmlFormatter(style=LIGHT_CODE).get_style_defs(".highlight")
    dark_system = HtmlFormatter(style=DARK_CODE).get_style_defs(f"{_DARK_SYSTEM} .highlight")
    dark_toggle = HtmlFormatter(style=DARK_CODE).get_style_defs(f"{_DARK_WHEN} .highlight")
    light_toggle = HtmlFormatter(style=LIGHT_CODE).get_style_defs(f"{_DARK_WHEN} .highlight")
    return "\n".join([
        "/* JAX Pathways: light and dark themes (prefers-color-scheme + #theme-toggle) */",
        f":root{{{_LIGHT}}}",
        f"{_DARK_WHEN}{{{_DARK}}}",
        "@media (prefers-color-scheme: dark){",
        f"{_DARK_SYSTEM}{{{_DARK}}}",
        f"{_DARK_WHEN}{{{_LIGHT}}}",
        dark_system,
        light_toggle,
        "}",
        "@media (prefers-color-scheme: light){",
        dark_toggle,
        "}",
        _BASE,
        "/* light code colours (default) */",
        light,
    ])
