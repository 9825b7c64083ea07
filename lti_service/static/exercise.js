// Each exercise panel (the exercise page's, or each exercise's on a lesson page), live: submit
// without leaving the page, then follow each attempt's status (queued -> running -> graded) and
// show its checks and output in place. Without this script the form posts and the page
// reloads; everything here is an enhancement of that. A panel's ids start with its data-prefix.
(function () {
  "use strict";
  var DONE = { graded: true, not_gradable: true };

  document.querySelectorAll("[data-exercise-panel]").forEach(function (root) {
    panel(root, root.getAttribute("data-prefix") || "", root.getAttribute("data-heading") || "h3");
  });

  function panel(root, pfx, heading) {
  function $(name) { return document.getElementById(pfx + name); }
  var history = $("history");
  var attempts = $("attempts");
  var live = $("live-status");
  var errors = $("errors");
  var form = $("submit-form");

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function num(x) { return x === null || x === undefined ? "" : String(Math.round(x * 1000) / 1000); }
  function words(s) { return String(s || "").replace(/_/g, " "); }

  function article(s) {
    var found = document.getElementById("sub-" + s.id);
    if (found) return found;
    var a = el("article", { "class": "attempt", id: "sub-" + s.id, "data-status": s.status });
    var h = el(heading, {}, "Attempt " + s.attempt_number + ": ");
    h.appendChild(el("span", { "class": "status status-badge" }));
    h.appendChild(el("span", { "class": "score" }));
    a.appendChild(h);
    a.appendChild(el("p", { "class": "feedback" }));
    a.appendChild(el("div", { "class": "checks" }));
    a.appendChild(el("div", { "class": "output" }));
    attempts.insertBefore(a, attempts.firstChild);
    $("no-attempts").hidden = true;
    return a;
  }

  function show(s) {
    var a = article(s);
    a.setAttribute("data-status", s.status);
    a.setAttribute("data-tone", s.tone || "");
    // The badge's words and tone come from the service's one catalogue of outcomes: a
    // timeout is never shown as a green "graded".
    a.querySelector(".status").textContent = s.badge || words(s.status);
    var done = s.status === "graded";
    var score = done ? " " + num(s.score) + " / " + num(s.max_score) : "";
    a.querySelector(".score").textContent = score;
    var fb = a.querySelector(".feedback");
    fb.textContent = s.feedback || "";
    fb.className = "feedback " + (s.tone === "ok" && s.score === s.max_score ? "correct" : "incorrect");
    var checks = a.querySelector(".checks");
    checks.textContent = "";
    if (s.checks && s.checks.length) {
      var wrap = el("div", { "class": "table-wrap" });
      var table = el("table");
      table.appendChild(el("caption", { "class": "visually-hidden" }, "Checks of attempt " + s.attempt_number));
      var head = el("tr");
      ["Check", "Result", "Points", "Feedback"].forEach(function (t) { head.appendChild(el("th", { scope: "col" }, t)); });
      table.appendChild(head);
      s.checks.forEach(function (c) {
        var tr = el("tr", { "class": "check " + c.status });
        tr.appendChild(el("td", {}, c.visibility === "visible" ? c.name : "Hidden check"));
        tr.appendChild(el("td", {}, c.status));
        tr.appendChild(el("td", {}, num(c.points) + " / " + num(c.max_points)));
        tr.appendChild(el("td", {}, c.feedback || ""));
        table.appendChild(tr);
      });
      wrap.appendChild(table);
      checks.appendChild(wrap);
    }
    var out = a.querySelector(".output");
    out.textContent = "";
    if (s.stdout || s.stderr) {
      var d = el("details");
      d.appendChild(el("summary", {}, "Output of attempt " + s.attempt_number));
      [["stdout", s.stdout], ["stderr", s.stderr]].forEach(function (p) {
        if (!p[1]) return;
        d.appendChild(el("h4", {}, p[0]));
        d.appendChild(el("pre", { "class": "excerpt", tabindex: "0" }, p[1]));
      });
      out.appendChild(d);
    }
    live.textContent = "Attempt " + s.attempt_number + ": " + (s.badge || words(s.status)) + score + ".";
  }

  function counted() {
    fetch(history.getAttribute("data-history-url"), { headers: { Accept: "application/json" } })
      .then(function (r) { return r.json(); })
      .then(function (h) {
        var line = $("attempt-line");
        if (line && h.attempt_line) line.querySelector("strong").textContent = "Next: " + h.attempt_line;
        var row = h.submissions.filter(function (s) { return s.id === h.counted; })[0];
        if (!row) return;
        var p = $("counted");
        if (!p) {
          p = el("p", { id: pfx + "counted" });
          history.insertBefore(p, $("no-attempts"));
        }
        p.textContent = "";
        p.appendChild(document.createTextNode("Counted score: "));
        p.appendChild(el("strong", {}, num(row.score) + " / " + num(row.max_score)));
        p.appendChild(document.createTextNode(" (attempt " + row.attempt_number + ")."));
      })
      .catch(function () {});
  }

  function follow(s) {
    show(s);
    if (DONE[s.status]) { counted(); return; }
    setTimeout(function poll() {
      fetch(s.status_url, { headers: { Accept: "application/json" } })
        .then(function (r) { return r.json(); })
        .then(function (d) {
          show(d);
          if (DONE[d.status]) { counted(); } else { setTimeout(poll, 1500); }
        })
        .catch(function () { setTimeout(poll, 5000); });
    }, 1000);
  }

  JSON.parse($("waiting").textContent).forEach(follow);

  // The browser-local draft: saved as the learner types, restored when the page opens again
  // (unless the server sent back a refused submission, which is newer than any draft).
  var area = $("source");
  var key = "pathways-draft:" + area.getAttribute("data-draft-key");
  var store = null;
  try { store = window.localStorage; } catch (e) { store = null; }
  if (store) {
    var saved = store.getItem(key);
    if (saved !== null && saved !== area.value && !area.hasAttribute("data-keep")) {
      area.value = saved;
      $("draft-note").hidden = false;
    }
    var timer = null;
    area.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        try { store.setItem(key, area.value); } catch (e) { /* storage full or denied */ }
      }, 300);
    });
    $("draft-reset").addEventListener("click", function () {
      var start = area.defaultValue;
      var editor = (window.pathwaysEditors || []).filter(function (v) {
        return v.dom === area.nextElementSibling;
      })[0];
      if (editor) {
        editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: start } });
        editor.focus();
      } else {
        area.value = start;
        area.focus();
      }
      store.removeItem(key);
      $("draft-note").hidden = true;
    });
  }

  function newRequestKey() {
    if (window.crypto && window.crypto.randomUUID) return window.crypto.randomUUID();
    var out = "";
    for (var i = 0; i < 32; i++) out += Math.floor(Math.random() * 16).toString(16);
    return out;
  }

  // Run: the same form to the run URL; the output and visible checks show in place.
  var runResult = $("run-result");
  function showRun(r) {
    runResult.textContent = "";
    runResult.setAttribute("data-run-status", r.status);
    runResult.setAttribute("data-tone", r.tone || "");
    var p = el("p");
    p.appendChild(el("span", { "class": "status-badge" }, r.badge));
    p.appendChild(document.createTextNode(" " + (r.message || "")));
    runResult.appendChild(p);
    if (r.checks && r.checks.length) {
      var ul = el("ul", { "class": "run-checks" });
      r.checks.forEach(function (c) { ul.appendChild(el("li", { "class": "check " + c.status },
        c.name + ": " + c.status + (c.feedback ? ". " + c.feedback : ""))); });
      runResult.appendChild(ul);
    }
    [["stdout", r.stdout], ["stderr", r.stderr]].forEach(function (o) {
      if (!o[1]) return;
      runResult.appendChild(el(heading, {}, o[0]));
      runResult.appendChild(el("pre", { "class": "excerpt", tabindex: "0" }, o[1]));
    });
  }
  function followRun(r, button) {
    showRun(r);
    if (r.done) { button.disabled = false; return; }
    setTimeout(function poll() {
      fetch(r.status_url, { headers: { Accept: "application/json" } })
        .then(function (x) { return x.json(); })
        .then(function (d) { d.status_url = r.status_url; followRun(d, button); })
        .catch(function () { setTimeout(poll, 5000); });
    }, 1000);
  }
  function run(button) {
    button.disabled = true;
    fetch(button.getAttribute("formaction"), { method: "POST", body: new FormData(form),
      credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.json().then(function (b) { return { status: r.status, body: b }; }); })
      .then(function (res) {
        if (res.status === 202) { errors.hidden = true; followRun(res.body, button); return; }
        button.disabled = false;
        errors.textContent = "";
        errors.appendChild(el("p", {}, "Your code was not run:"));
        var ul = el("ul");
        ((res.body && res.body.messages) || ["try again in a minute"]).forEach(function (m) { ul.appendChild(el("li", {}, m)); });
        errors.appendChild(ul);
        errors.hidden = false;
      })
      .catch(function () { button.disabled = false; });
  }

  form.addEventListener("submit", function (event) {
    if (!window.fetch || !window.FormData) return;
    event.preventDefault();
    if (runResult && event.submitter && event.submitter.id === pfx + "run-button") {
      run(event.submitter);
      return;
    }
    var button = form.querySelector("button[type=submit]");
    button.disabled = true;
    fetch(form.action, { method: "POST", body: new FormData(form), credentials: "same-origin",
                         headers: { Accept: "application/json" } })
      .then(function (r) {
        return r.json().then(function (body) { return { status: r.status, body: body }; },
                             function () { return { status: r.status, body: null }; });
      })
      .then(function (res) {
        button.disabled = false;
        if (res.status === 202) {
          errors.hidden = true;
          errors.textContent = "";
          form.querySelector("input[type=file]").value = "";
          // The next submission from this page is a new request: a new key (a repeat of the
          // same key would return this attempt, not make another one).
          var key = form.querySelector("input[name=request_key]");
          if (key) key.value = newRequestKey();
          follow(res.body);
          document.getElementById("sub-" + res.body.id).scrollIntoView({ block: "nearest" });
        } else if (res.body && res.body.messages) {
          errors.textContent = "";
          errors.appendChild(el("p", {}, "Your submission was not accepted:"));
          var ul = el("ul");
          res.body.messages.forEach(function (m) { ul.appendChild(el("li", {}, m)); });
          errors.appendChild(ul);
          errors.appendChild(el("p", {}, "Your code is still in the editor."));
          errors.hidden = false;
        } else {
          form.submit(); // let the server's page say what went wrong
        }
      })
      .catch(function () { button.disabled = false; form.submit(); });
  });
  }
})();
