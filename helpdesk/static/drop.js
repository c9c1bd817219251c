// Drop a file on the form: it becomes the form's file, as if chosen with the
// file input. The page works without this script.
(function () {
  "use strict";
  var zone = document.getElementById("drop");
  var input = document.getElementById("file");
  var status = document.getElementById("drop-status");
  if (!zone || !input || !window.DataTransfer) {
    return;
  }
  document.getElementById("drop-hint").hidden = false;
  function show() {
    if (input.files.length > 0) {
      status.textContent = zone.getAttribute("data-dropped").replace("{name}", input.files[0].name);
    }
  }
  ["dragenter", "dragover"].forEach(function (ev) {
    zone.addEventListener(ev, function (e) {
      e.preventDefault();
      zone.classList.add("dragging");
    });
  });
  ["dragleave", "drop"].forEach(function (ev) {
    zone.addEventListener(ev, function () {
      zone.classList.remove("dragging");
    });
  });
  zone.addEventListener("drop", function (e) {
    e.preventDefault();
    if (e.dataTransfer && e.dataTransfer.files.length > 0) {
      input.files = e.dataTransfer.files;
      show();
    }
  });
  input.addEventListener("change", show);
})();
