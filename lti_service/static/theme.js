// The light/dark choice, kept from page to page: the toggle flips the system theme with CSS
// alone (:has), and this script remembers the theme chosen (not the flip) in this browser, so
// every later page opens in it. Loaded right after the toggle, before the page is painted.
(function () {
  "use strict";
  var box = document.getElementById("theme-toggle");
  if (!box) { return; }
  var KEY = "pathways-theme";
  var media = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  function system() { return media && media.matches ? "dark" : "light"; }
  var saved = null;
  try { saved = window.localStorage.getItem(KEY); } catch (e) { saved = null; }
  if (saved === "dark" || saved === "light") { box.checked = saved !== system(); }
  box.addEventListener("change", function () {
    var chosen = box.checked ? (system() === "dark" ? "light" : "dark") : system();
    try { window.localStorage.setItem(KEY, chosen); } catch (e) { /* storage blocked: this page only */ }
  });
})();
