// Browsers with the Storage Access API can grant the frame its cookies after a click; the
// link's own href is where to go then.
"use strict";
(function () {
  var box = document.getElementById("storage-access");
  var link = document.getElementById("new-window");
  if (!document.requestStorageAccess || !box || !link) { return; }
  box.hidden = false;
  document.getElementById("grant").addEventListener("click", function () {
    document.requestStorageAccess().then(function () { window.location.href = link.href; },
                                         function () {});
  });
})();
