// paperjudge import pages: the upload's progress in bytes, then the import's in rows.
//
// The pages work without this script: an upload form is a plain POST, answered with the job's
// page once the import has ended. With it, the import page sends the form itself to show how
// much of it has been sent (and refuses at once an upload over the server's limit), then opens
// the job's page, which asks the server how far the job is until it has ended, and then shows
// its result (reloaded, as the server renders it).
"use strict";

(function () {
  const POLL_MS = 400;

  function megabytes(bytes) {
    return (bytes / 1048576).toLocaleString("en", { maximumFractionDigits: 1 }) + " MB";
  }

  // The import page: each upload form.
  document.querySelectorAll("form.upload-form").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      if (!window.FormData || !window.XMLHttpRequest) {
        return;
      }
      event.preventDefault();
      const box = form.querySelector(".upload-progress");
      const bar = box.querySelector("progress");
      const text = box.querySelector(".live-status");
      const button = form.querySelector("button[type=submit]");
      box.hidden = false;
      text.removeAttribute("data-state");
      const data = new FormData(form);
      let total = 0;
      form.querySelectorAll("input[type=file]").forEach(function (input) {
        Array.prototype.forEach.call(input.files, function (file) {
          total += file.size;
        });
      });
      const limit = Number(form.dataset.maxUpload);
      if (limit && total > limit) {
        text.dataset.state = "error";
        text.textContent = "These files hold " + megabytes(total) + ", more than the " +
          form.dataset.maxUploadWords + " this server accepts: nothing was sent.";
        return;
      }
      button.disabled = true;
      const request = new XMLHttpRequest();
      request.open("POST", form.action);
      request.setRequestHeader("Accept", "application/json");
      request.responseType = "json";
      // The bar moves with every event; the words, read out by screen readers, once a second.
      let said = 0;
      request.upload.addEventListener("progress", function (progress) {
        if (!progress.lengthComputable) {
          return;
        }
        bar.max = progress.total;
        bar.value = progress.loaded;
        if (Date.now() - said >= 1000 || progress.loaded === progress.total) {
          said = Date.now();
          text.textContent = "Uploading: " + megabytes(progress.loaded) + " of " +
            megabytes(progress.total) + " sent";
        }
      });
      request.addEventListener("load", function () {
        const answer = request.response || {};
        if (request.status === 200 && answer.url) {
          text.textContent = "Uploaded; the import begins.";
          window.location.assign(answer.url);
          return;
        }
        button.disabled = false;
        text.dataset.state = "error";
        text.textContent = (answer.error || "The server answered " + request.status + ".") +
          " Nothing was imported.";
      });
      request.addEventListener("error", function () {
        button.disabled = false;
        text.dataset.state = "error";
        text.textContent = "The upload failed: the connection to the server was lost (or the " +
          "server refused the upload). Nothing was imported.";
      });
      text.textContent = "Uploading…";
      request.send(data);
    });
  });

  // A job's page: follow the job until it has ended.
  const job = document.querySelector("#import-job");
  const status = document.querySelector("#import-progress");
  if (!job || !status) {
    return;
  }
  const url = "/import/" + job.dataset.job + ".json";

  function words(state) {
    const file = state.file && state.files.length > 1
      ? " (file " + state.file + " of " + state.files.length + ")" : "";
    const name = state.file ? state.files[state.file - 1] + file : "";
    const rows = state.rows.toLocaleString("en") + " rows read";
    switch (state.state) {
      case "uploading":
        return "Uploading: " + state.bytes.toLocaleString("en") + " bytes received.";
      case "reading":
        return "Reading " + name + ": " + rows + ".";
      case "writing":
        return "Writing " + name + " to the study (" + rows + ").";
      default:
        return "";
    }
  }

  function poll() {
    fetch(url, { headers: { Accept: "application/json" } })
      .then(function (response) {
        return response.json().then(function (state) {
          if (!response.ok) {
            throw new Error(state.error || "the server answered " + response.status);
          }
          return state;
        });
      })
      .then(function (state) {
        if (state.state === "done" || state.state === "failed") {
          window.location.reload();
          return;
        }
        status.textContent = words(state);
        window.setTimeout(poll, POLL_MS);
      })
      .catch(function (error) {
        status.dataset.state = "error";
        status.textContent = "Cannot follow the import: " + error.message +
          ". Reload the page to try again.";
      });
  }
  window.setTimeout(poll, POLL_MS);
})();
