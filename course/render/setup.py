"""The setup help page: one place for "how do I run this", linked from every lesson (static
site and LMS alike). macOS/Linux, Windows PowerShell and a Cloud TPU VM, each with the same
steps: make an environment, install the pinned CPU packages, run a lesson's main.py."""

from __future__ import annotations

from html import escape

from course.render.code import code_block

EXAMPLE = "phases/01-arrays/04-immutable-updates-and-indexing/code/main.py"
SECTIONS = (("macos-linux", "macOS / Linux"), ("windows", "Windows PowerShell"),
            ("cloud-tpu", "Cloud TPU VM"))


def setup_html(*, repository_zip: str | None = None) -> str:
    """The setup page body (``<article>``); ``repository_zip``: URL of the learner files."""
    get = (f'<a href="{escape(repository_zip, quote=True)}">Download the learner files (ZIP)'
           "</a> or use your existing checkout" if repository_zip
           else "Use your checkout of the course repository (or the learner files ZIP)")
    nav = "".join(f'<li><a href="#{slug}">{title}</a></li>' for slug, title in SECTIONS)
    return (
        '<article class="setup" id="setup" lang="en">'
        "<h1>Setup help: Python, notebook, or Cloud TPU VM</h1>"
        f'<nav aria-label="Setup sections"><ul>{nav}</ul></nav>'
        f"<p>{get}. Extract it and open a terminal in the folder that holds "
        "<code>requirements-cpu.txt</code>: every command below runs from there. Use the tested "
        "CPU packages; other Python versions and accelerator environments need their own "
        "checks.</p>"
        '<section id="macos-linux" aria-labelledby="macos-linux-h">'
        '<h2 id="macos-linux-h">macOS / Linux</h2>'
        + code_block("python3 -m venv .venv\nsource .venv/bin/activate\n"
                     "python -m pip install -r requirements-cpu.txt",
                     label="macOS / Linux terminal · repository folder", language="text")
        + "<p>Then run a lesson's complete example, for instance:</p>"
        + code_block(f"python {EXAMPLE}", label="macOS / Linux terminal · activated environment",
                     language="text")
        + "<p>Notebooks: <code>python -m pip install jupyterlab</code>, then "
        "<code>jupyter lab</code> in the same folder.</p></section>"
        '<section id="windows" aria-labelledby="windows-h"><h2 id="windows-h">Windows '
        "PowerShell</h2><p>Call the environment's interpreter explicitly; no activation "
        "script is needed.</p>"
        + code_block("py -3 -m venv .venv\n"
                     ".\\.venv\\Scripts\\python.exe -m pip install -r requirements-cpu.txt",
                     label="PowerShell · repository folder", language="text")
        + code_block(f".\\.venv\\Scripts\\python.exe {EXAMPLE}",
                     label="PowerShell command · repository folder", language="text")
        + "</section>"
        '<section id="cloud-tpu" aria-labelledby="cloud-tpu-h"><h2 id="cloud-tpu-h">Cloud TPU '
        "VM</h2><p>The lessons are verified on a local CPU. On a Cloud TPU VM, install JAX's "
        "TPU build instead of the CPU pins, then run the same scripts; the recorded receipts "
        "and timings are CPU ones, so compare values, not speed.</p>"
        + code_block("python3 -m venv .venv\nsource .venv/bin/activate\n"
                     'python -m pip install "jax[tpu]"\n'
                     "python -m pip install -r requirements-cpu.txt --no-deps\n"
                     "python -c \"import jax; print(jax.devices())\"",
                     label="Cloud TPU VM terminal · repository folder", language="text")
        + "<p>Logical CPU devices (<code>XLA_FLAGS=--xla_force_host_platform_device_count=8"
        "</code>) practise partitioning on a laptop; they do not simulate TPU performance.</p>"
        "</section></article>\n"
    )
