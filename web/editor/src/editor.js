// The exercise page's code editor: CodeMirror 6 over the page's <textarea data-editor>.
// Progressive enhancement: without this script the textarea is the editor and the form posts
// it unchanged; with it, the editor keeps the textarea's value in sync, so the same form posts.
import { indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import { HighlightStyle, indentUnit, syntaxHighlighting } from "@codemirror/language";
import { EditorState } from "@codemirror/state";
import { EditorView, keymap } from "@codemirror/view";
import { tags as t } from "@lezer/highlight";
import { basicSetup } from "codemirror";

// Token colours are CSS variables, so the page's light and dark themes both apply.
const colours = HighlightStyle.define([
  { tag: [t.keyword, t.controlKeyword, t.operatorKeyword], color: "var(--tok-keyword)" },
  { tag: [t.string, t.special(t.string)], color: "var(--tok-string)" },
  { tag: [t.number, t.bool, t.null], color: "var(--tok-number)" },
  { tag: [t.comment, t.lineComment], color: "var(--tok-comment)", fontStyle: "italic" },
  { tag: [t.function(t.variableName), t.definition(t.variableName)], color: "var(--tok-def)" },
]);

const look = EditorView.theme({
  "&": { backgroundColor: "var(--code-bg)", color: "var(--fg)", border: "1px solid var(--border)",
         borderRadius: "6px", fontSize: "0.9rem" },
  ".cm-content": { fontFamily: "ui-monospace,SFMono-Regular,Menlo,monospace", caretColor: "var(--fg)" },
  ".cm-gutters": { backgroundColor: "var(--panel)", color: "var(--muted)", borderRight: "1px solid var(--border)" },
  "&.cm-focused": { outline: "3px solid var(--accent)" },
  ".cm-activeLine, .cm-activeLineGutter": { backgroundColor: "var(--active-line)" },
  // The editor grows with the file and wraps long lines: no inner scroll region, which a
  // keyboard user could not scroll (axe: scrollable-region-focusable), and it fits 320px.
  ".cm-content, .cm-gutter": { minHeight: "16rem" },
});

function attach(area) {
  const label = document.querySelector(`label[for="${area.id}"]`);
  const view = new EditorView({
    state: EditorState.create({
      doc: area.value,
      extensions: [
        basicSetup,
        python(),
        indentUnit.of("    "),
        EditorView.lineWrapping,
        keymap.of([indentWithTab]), // Tab indents; Escape then Tab leaves the editor
        syntaxHighlighting(colours),
        look,
        EditorView.contentAttributes.of({
          "aria-label": label ? label.textContent.trim() : "Code editor",
          "aria-describedby": area.getAttribute("aria-describedby") || "",
        }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) {
            area.value = u.state.doc.toString();
            area.dispatchEvent(new Event("input", { bubbles: true }));
          }
        }),
      ],
    }),
  });
  area.insertAdjacentElement("afterend", view.dom);
  area.hidden = true;
  area.setAttribute("data-editor-ready", "");
  if (label) label.addEventListener("click", () => view.focus());
  if (area.form) area.form.addEventListener("submit", () => { area.value = view.state.doc.toString(); });
  window.pathwaysEditors = (window.pathwaysEditors || []).concat([view]);
}

document.querySelectorAll("textarea[data-editor]").forEach(attach);
