// paperjudge judge run page: follows the run until it has ended, then shows its result.
//
// The page works without this script (reload it to see how far the run is). With it, the page
// asks the server how far the run is, shows it, and reloads once the run has ended, to show
// the result as the server renders it.
"use strict";

(function () {
  const POLL_MS = 1000;
  const run = document.querySelector("#judge-run");
  const status = document.querySelector("#judge-run-progress");
  const bar = document.querySelector("#judge-run-bar");
  if (!run || !status) {
    return;
  }
  const url = "/judges/runs/" + run.dataset.job + ".json";

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
        if (state.state !== "running") {
          window.location.reload();
          return;
        }
        bar.max = state.pairs_total;
        bar.value = state.pairs_done;
        status.textContent = state.pairs_done.toLocaleString("en") + " of " +
          state.pairs_total.toLocaleString("en") + " pairs done" +
          (state.failed > 0 ? ", " + state.failed.toLocaleString("en") + " without a grade" : "") +
          ".";
        window.setTimeout(poll, POLL_MS);
      })
      .catch(function (error) {
        status.dataset.state = "error";
        status.textContent = "Cannot follow the run: " + error.message +
          ". Reload the page to try again.";
      });
  }

  window.setTimeout(poll, POLL_MS);
})();
