// paperjudge rating page: keyboard-first rating that never loses a rating.
//
// The page works without this script: every rating is a plain form POST. With it, the same
// forms are sent with fetch, in the order they were made and one at a time, so the server
// stores changes in the order the rater made them. A paper says "saved" only once the server
// has answered that it committed; a save that fails for a passing reason (server unreachable,
// server error, an import holding the study, a full disk) stays first in line and is retried
// until it succeeds.
"use strict";

(function () {
  // ---- What the script needs of the page
  //
  // The contract with templates/rating.html, written down once: every element and attribute
  // of the page this script reads or changes is named by a selector here and nowhere else.
  // The template points here, and tests/it/rating_page_contract.rs renders a rating page and
  // checks every selector: each of PAGE matches exactly one element, PAPERS matches every
  // paper, and each of PAPER matches inside every paper. One selector a line, as
  // `name: "selector",`, so that the test can read them.
  //
  // Beyond the selectors: a paper's data-stars holds its stars (empty when unrated) and its
  // class has is-rated or is-unrated to match; the script keeps both (and is-current, and the
  // js class on the root, which only the stylesheet reads) up to date.
  const PAGE = {
    pool: "ol.pool",
    ratedCount: "#target-rated",
    totalCount: "#target-total",
    progressBar: "progress#target-progress[max][value]",
    liveStatus: "#live-status[aria-live]",
    undoForm: "form#undo-form[method=post][action]",
    nextTarget: "a#next-target[href]",
    keysDialog: "dialog#keys-dialog",
    keysClose: "button#keys-close",
    keyHint: "#key-hint[hidden]",
    guidelines: "details#guidelines",
  };
  const PAPERS = "ol.pool article.paper[id][tabindex][data-paper][data-stars]";
  const PAPER = {
    rateForm: "form.rate-form[method=post][action]",
    clearForm: "form.clear-form[method=post][action]",
    star: 'label input[type="radio"][name="stars"][value]',
    starText: "label .star-text",
    status: ".paper-status",
  };

  const pool = document.querySelector(PAGE.pool);
  if (!pool) {
    return;
  }
  document.documentElement.classList.add("js");

  const papers = Array.from(document.querySelectorAll(PAPERS));
  const ratedCount = document.querySelector(PAGE.ratedCount);
  const totalCount = document.querySelector(PAGE.totalCount);
  const progressBar = document.querySelector(PAGE.progressBar);
  const liveStatus = document.querySelector(PAGE.liveStatus);
  const undoForm = document.querySelector(PAGE.undoForm);
  const nextTarget = document.querySelector(PAGE.nextTarget);
  const keysDialog = document.querySelector(PAGE.keysDialog);
  const guidelines = document.querySelector(PAGE.guidelines);

  const FIRST_RETRY_MS = 1000;
  const LAST_RETRY_MS = 30000;

  // ---- What the page shows of a paper

  function starsOf(paper) {
    return paper.dataset.stars === "" ? null : Number(paper.dataset.stars);
  }

  function showStars(paper, stars) {
    paper.dataset.stars = stars === null ? "" : String(stars);
    paper.classList.toggle("is-rated", stars !== null);
    paper.classList.toggle("is-unrated", stars === null);
    for (const radio of paper.querySelectorAll(PAPER.star)) {
      radio.checked = Number(radio.value) === stars;
    }
  }

  // "4 relevant", as the star's own label says it; "not rated" for none.
  function describe(paper, stars) {
    if (stars === null) {
      return "not rated";
    }
    const radio = paper.querySelector(PAPER.star + '[value="' + stars + '"]');
    return radio.closest("label").querySelector(PAPER.starText).textContent.trim();
  }

  function setPaperStatus(paper, text, state) {
    const status = paper.querySelector(PAPER.status);
    status.textContent = text;
    status.dataset.state = state;
  }

  function announce(text, state) {
    liveStatus.textContent = text;
    liveStatus.dataset.state = state || "";
  }

  function showProgress(progress) {
    ratedCount.textContent = String(progress.rated);
    totalCount.textContent = String(progress.total);
    progressBar.max = progress.total;
    progressBar.value = progress.rated;
  }

  function paperNamed(id) {
    return papers.find((paper) => paper.dataset.paper === id) || null;
  }

  function label(paper) {
    return "paper " + (papers.indexOf(paper) + 1);
  }

  // ---- The queue of changes, sent one at a time

  const queue = [];
  let sending = false;
  let leaveWhenSaved = null;

  function enqueue(change) {
    queue.push(change);
    send();
  }

  function sleep(ms) {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  // One POST of a form's fields; the outcome says whether to retry.
  async function post(change) {
    try {
      const response = await fetch(change.url, {
        method: "POST",
        headers: { Accept: "application/json" },
        body: change.body,
        credentials: "same-origin",
      });
      const answer = await response.json().catch(() => null);
      if (response.ok && answer) {
        return { kind: "done", answer: answer };
      }
      if (response.status === 503) {
        // An import holds the study; the server says when to ask again.
        const seconds = Number(response.headers.get("Retry-After"));
        return {
          kind: "retry",
          message: "waiting for an import to finish, will retry",
          waitMs: seconds > 0 ? seconds * 1000 : null,
        };
      }
      if (response.status >= 500 || response.status === 429 || (response.ok && !answer)) {
        const reason = answer && answer.error ? answer.error : "the server had a problem";
        return { kind: "retry", message: reason };
      }
      const reason = answer && answer.error ? answer.error : "the server answered " + response.status;
      return { kind: "refused", message: reason };
    } catch (error) {
      return { kind: "retry", message: "the server cannot be reached" };
    }
  }

  async function send() {
    if (sending) {
      return;
    }
    sending = true;
    let wait = FIRST_RETRY_MS;
    while (queue.length > 0) {
      const change = queue[0];
      const outcome = await post(change);
      if (outcome.kind === "retry" && change.retry) {
        const pause = outcome.waitMs || wait;
        change.waiting(outcome.message, pause);
        await sleep(pause);
        wait = Math.min(wait * 2, LAST_RETRY_MS);
        continue;
      }
      queue.shift();
      wait = FIRST_RETRY_MS;
      if (outcome.kind === "done") {
        change.done(outcome.answer);
      } else {
        // Stay, so that the rater sees what was not saved.
        leaveWhenSaved = null;
        change.failed(outcome.message);
      }
    }
    sending = false;
    if (leaveWhenSaved) {
      window.location.href = leaveWhenSaved;
    }
  }

  function pendingFor(paper) {
    return queue.some((change) => change.paper === paper);
  }

  // Sets (1..5) or clears (null) the rating of a paper.
  function rate(paper, stars) {
    const form = paper.querySelector(stars === null ? PAPER.clearForm : PAPER.rateForm);
    const body = new URLSearchParams(new FormData(form));
    if (stars !== null) {
      body.set("stars", String(stars));
    }
    showStars(paper, stars);
    setPaperStatus(paper, "Saving…", "saving");
    enqueue({
      url: form.action,
      body: body,
      paper: paper,
      // Setting a rating to a value is idempotent: sending it again is always safe.
      retry: true,
      waiting(message, ms) {
        const seconds = Math.round(ms / 1000);
        const text = message.endsWith("will retry")
          ? "Not saved yet: " + message + " in " + seconds + " s."
          : "Not saved yet: " + message + ". Trying again in " + seconds + " s.";
        setPaperStatus(paper, text, "error");
        announce(label(paper) + ": " + text, "error");
      },
      done(answer) {
        showProgress(answer.target_progress);
        if (pendingFor(paper)) {
          return;
        }
        showStars(paper, answer.stars);
        const text = "Saved: " + describe(paper, answer.stars);
        setPaperStatus(paper, text, "saved");
        announce(label(paper) + " " + text.toLowerCase());
      },
      failed(message) {
        const text = "Not saved: " + message + ".";
        setPaperStatus(paper, text, "error");
        announce(label(paper) + ": " + text, "error");
      },
    });
  }

  function undo() {
    announce("Undoing your last change…");
    enqueue({
      url: undoForm.action,
      body: new URLSearchParams(new FormData(undoForm)),
      paper: null,
      // An undo sent twice would undo twice: it is never repeated without the rater.
      retry: false,
      done(answer) {
        showProgress(answer.target_progress);
        if (!answer.undone && !answer.paper) {
          announce("There is nothing to undo on this target.");
          return;
        }
        const paper = paperNamed(answer.paper);
        if (!paper) {
          window.location.reload();
          return;
        }
        showStars(paper, answer.stars);
        if (answer.undone) {
          const text = "Undone: " + describe(paper, answer.stars);
          setPaperStatus(paper, text, "saved");
          announce(label(paper) + " " + text.toLowerCase());
        } else {
          // Another rater changed the paper after this browser did: their rating stays.
          setPaperStatus(paper, "Saved: " + describe(paper, answer.stars), "saved");
          announce(
            "Not undone: someone else has changed " + label(paper) + " since your change; it stays " +
              describe(paper, answer.stars) + ".",
            "error",
          );
        }
        moveTo(papers.indexOf(paper));
      },
      failed(message) {
        announce("Not undone: " + message + ". Press u to try again.", "error");
      },
    });
  }

  function goToNextTarget() {
    if (queue.length === 0) {
      window.location.href = nextTarget.href;
      return;
    }
    leaveWhenSaved = nextTarget.href;
    announce("Saving before moving on…");
  }

  window.addEventListener("beforeunload", (event) => {
    if (queue.length > 0) {
      event.preventDefault();
      event.returnValue = "";
    }
  });

  // ---- The current paper and the keyboard

  let current = 0;

  function moveTo(index, options) {
    const scroll = !options || options.scroll !== false;
    current = Math.max(0, Math.min(papers.length - 1, index));
    papers.forEach((paper, i) => paper.classList.toggle("is-current", i === current));
    const paper = papers[current];
    paper.focus({ preventScroll: true });
    if (scroll) {
      paper.scrollIntoView({ block: "start" });
    }
  }

  // The index of the first unrated paper after `from`, wrapping around; -1 when all are rated.
  function nextUnrated(from) {
    for (let step = 1; step <= papers.length; step += 1) {
      const index = (from + step) % papers.length;
      if (starsOf(papers[index]) === null) {
        return index;
      }
    }
    return -1;
  }

  function rateCurrentAndMoveOn(stars) {
    rate(papers[current], stars);
    const next = nextUnrated(current);
    if (next === -1) {
      announce("Every paper of this target is rated. Press n for the next target.");
    } else {
      moveTo(next);
    }
  }

  function isTyping(element) {
    return element.closest('input:not([type="radio"]), textarea, select, [contenteditable]') !== null;
  }

  function toggleKeys() {
    if (keysDialog.open) {
      keysDialog.close();
    } else {
      keysDialog.showModal();
    }
  }

  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) {
      return;
    }
    if (keysDialog.open) {
      if (event.key === "?") {
        event.preventDefault();
        keysDialog.close();
      }
      return;
    }
    if (papers.length === 0 || isTyping(event.target)) {
      return;
    }
    switch (event.key) {
      case "1":
      case "2":
      case "3":
      case "4":
      case "5":
        rateCurrentAndMoveOn(Number(event.key));
        break;
      case "0":
      case "Backspace":
        rate(papers[current], null);
        break;
      case "j":
      case "ArrowDown":
      case "ArrowRight":
        moveTo(current + 1);
        break;
      case "k":
      case "ArrowUp":
      case "ArrowLeft":
        moveTo(current - 1);
        break;
      case "u":
        undo();
        break;
      case "n":
        goToNextTarget();
        break;
      case "?":
        toggleKeys();
        break;
      default:
        return;
    }
    event.preventDefault();
  });

  // ---- Mouse and plain form use, sent the same way

  papers.forEach((paper, index) => {
    paper.addEventListener("focusin", () => {
      current = index;
      papers.forEach((other) => other.classList.toggle("is-current", other === paper));
    });
    paper.querySelector(PAPER.rateForm).addEventListener("change", (event) => {
      if (event.target.name === "stars") {
        rate(paper, Number(event.target.value));
      }
    });
    paper.querySelector(PAPER.rateForm).addEventListener("submit", (event) => {
      event.preventDefault();
      const checked = paper.querySelector(PAPER.star + ":checked");
      if (checked) {
        rate(paper, Number(checked.value));
      }
    });
    paper.querySelector(PAPER.clearForm).addEventListener("submit", (event) => {
      event.preventDefault();
      rate(paper, null);
    });
  });

  undoForm.addEventListener("submit", (event) => {
    event.preventDefault();
    undo();
  });

  document.querySelector(PAGE.keysClose).addEventListener("click", () => keysDialog.close());
  document.querySelector(PAGE.keyHint).hidden = false;

  // ---- The guidelines stay folded once folded

  const GUIDELINES_KEY = "paperjudge.guidelines";
  try {
    if (localStorage.getItem(GUIDELINES_KEY) === "folded") {
      guidelines.open = false;
    }
    guidelines.addEventListener("toggle", () => {
      localStorage.setItem(GUIDELINES_KEY, guidelines.open ? "open" : "folded");
    });
  } catch (error) {
    // Storage may be disabled; the guidelines then simply start open.
  }

  // ---- Start at the paper the address names, else at the first unrated one

  if (papers.length > 0) {
    const named = papers.findIndex((paper) => "#" + paper.id === window.location.hash);
    if (named !== -1) {
      moveTo(named);
    } else {
      const firstUnrated = Math.max(0, nextUnrated(papers.length - 1));
      // Starting at the first paper, stay at the top: the target's abstract comes first.
      moveTo(firstUnrated, { scroll: firstUnrated > 0 });
    }
  }
})();
