// The picker: ticking "the whole lesson" ticks (and unticking unticks) that lesson's items, so
// the page shows what will be placed. Without this script the server expands the lesson itself.
(function () {
  "use strict";
  document.querySelectorAll("input[data-lesson]").forEach(function (whole) {
    var id = whole.getAttribute("data-lesson");
    var items = document.querySelectorAll('input[data-in-lesson="' + id + '"]');
    whole.addEventListener("change", function () {
      items.forEach(function (box) { box.checked = whole.checked; });
    });
    items.forEach(function (box) {
      box.addEventListener("change", function () {
        var all = Array.prototype.every.call(items, function (b) { return b.checked; });
        var some = Array.prototype.some.call(items, function (b) { return b.checked; });
        whole.checked = all;
        whole.indeterminate = some && !all;
      });
    });
  });
})();
