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
  // Beyond the selectors: a paper's data-stars holds its answer (1 to 5, cannot-judge, or
  // empty when unrated) and its class has is-rated or is-unrated to match; the script keeps
  // both (and is-current, and the js class on the root, which only the stylesheet reads) up to
  // date. A paper's note text area holds its saved note when the page is made.
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
    noteBox: "details.note-box",
    noteForm: "form.note-form[method=post][action]",
    note: 'form.note-form textarea[name="note"][maxlength]',
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
  //
  // A paper's answer: 1 to 5 stars, CANNOT_JUDGE, or null while unrated.

  const CANNOT_JUDGE = "cannot-judge";

  function answerOf(paper) {
    const stored = paper.dataset.stars;
    if (stored === "") {
      return null;
    }
    return stored === CANNOT_JUDGE ? CANNOT_JUDGE : Number(stored);
  }

  // The answer of a rating as the server answers it ({stars, cannot_judge, note}).
  function answerIn(rating) {
    return rating.cannot_judge ? CANNOT_JUDGE : rating.stars;
  }

  function showAnswer(paper, answer) {
    paper.dataset.stars = answer === null ? "" : String(answer);
    paper.classList.toggle("is-rated", answer !== null);
    paper.classList.toggle("is-unrated", answer === null);
    for (const radio of paper.querySelectorAll(PAPER.star)) {
      radio.checked = radio.value === String(answer);
    }
  }

  // "4 relevant", as the star's own label says it; "can't judge"; "not rated" for none.
  function describe(paper, answer) {
    if (answer === null) {
      return "not rated";
    }
    if (answer === CANNOT_JUDGE) {
      return "can't judge";
    }
    const radio = paper.querySelector(PAPER.star + '[value="' + answer + '"]');
    return radio.closest("label").querySelector(PAPER.starText).textContent.trim();
  }

  // The notes as saved, by paper: what a note's text area is compared with.
  const savedNotes = new Map(
    papers.map((paper) => [paper, paper.querySelector(PAPER.note).defaultValue]),
  );

  function noteOf(paper) {
    return paper.querySelector(PAPER.note);
  }

  function hasUnsavedNote(paper) {
    return noteOf(paper).value.trim() !== savedNotes.get(paper);
  }

  // Records the saved `note` of a paper ("" for none) and shows it in its box, unless the
  // rater has written something else there than `shown` (null: shows it whatever the box
  // holds).
  function showNote(paper, note, shown) {
    savedNotes.set(paper, note);
    const area = noteOf(paper);
    if (shown === null || area.value.trim() === shown) {
      area.value = note;
    }
    if (note !== "") {
      paper.querySelector(PAPER.noteBox).open = true;
    }
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

  // Says `text` of a paper, in its status and aloud: "paper 3 saved: 4 relevant".
  function tell(paper, text, state) {
    setPaperStatus(paper, text, state);
    if (state === "error") {
      announce(label(paper) + ": " + text, "error");
    } else {
      announce(label(paper) + " " + text.toLowerCase());
    }
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

  // Sets (1..5, or CANNOT_JUDGE) or clears (null) the rating of a paper.
  function rate(paper, answer) {
    const form = paper.querySelector(answer === null ? PAPER.clearForm : PAPER.rateForm);
    const body = new URLSearchParams(new FormData(form));
    if (answer !== null) {
      body.set("stars", String(answer));
    }
    showAnswer(paper, answer);
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
        tell(paper, text, "error");
      },
      done(answer) {
        showProgress(answer.target_progress);
        if (pendingFor(paper)) {
          return;
        }
        showAnswer(paper, answerIn(answer));
        showNote(paper, answer.note || "", savedNotes.get(paper));
        const text = "Saved: " + describe(paper, answerIn(answer));
        tell(paper, text, "saved");
      },
      failed(message) {
        const text = "Not saved: " + message + ".";
        tell(paper, text, "error");
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
        const answered = answerIn(answer);
        showAnswer(paper, answered);
        showNote(paper, answer.note || "", null);
        if (answer.undone) {
          const text = "Undone: " + describe(paper, answered);
          tell(paper, text, "saved");
        } else {
          // Another rater changed the paper after this browser did: their rating stays.
          setPaperStatus(paper, "Saved: " + describe(paper, answered), "saved");
          announce(
            "Not undone: someone else has changed " + label(paper) + " since your change; it stays " +
              describe(paper, answered) + ".",
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

  // Saves the note written on a paper rated already (an empty one removes its note).
  function saveNote(paper) {
    const area = noteOf(paper);
    if (answerOf(paper) === null) {
      const text = "Note not saved: rate the paper first (1–5, or x if you cannot judge it).";
      tell(paper, text, "error");
      return false;
    }
    const body = new URLSearchParams(new FormData(paper.querySelector(PAPER.noteForm)));
    const written = area.value.trim();
    setPaperStatus(paper, "Saving the note…", "saving");
    enqueue({
      url: paper.querySelector(PAPER.noteForm).action,
      body: body,
      paper: paper,
      // Setting a note to a text is idempotent: sending it again is always safe.
      retry: true,
      waiting(message, ms) {
        const text = "Note not saved yet: " + message + ". Trying again in " +
          Math.round(ms / 1000) + " s.";
        tell(paper, text, "error");
      },
      done(answer) {
        showProgress(answer.target_progress);
        showNote(paper, answer.note || "", written);
        if (pendingFor(paper)) {
          return;
        }
        const text = written === "" ? "Saved: note removed" : "Saved: note";
        tell(paper, text, "saved");
      },
      failed(message) {
        const text = "Note not saved: " + message + ".";
        tell(paper, text, "error");
      },
    });
    return true;
  }

  // The paper whose note `c` opens: the one just rated with a key, else the current one.
  let justRated = null;
  // The paper to go back to from a note: the current one when the note was opened.
  let backFromNote = 0;

  // Whether the note being focused was opened with `c` (else with the mouse or Tab).
  let openingNote = false;

  function openNote(paper) {
    backFromNote = current;
    openingNote = true;
    paper.querySelector(PAPER.noteBox).open = true;
    const area = noteOf(paper);
    area.focus();
    area.setSelectionRange(area.value.length, area.value.length);
    announce("Note on " + label(paper) + ": Enter saves it, Escape leaves it.");
  }

  // Back from a note to the current paper; a note left unsaved stays in its box, said so.
  function leaveNote(paper) {
    if (noteOf(paper).value.trim() === "" && savedNotes.get(paper) === "") {
      paper.querySelector(PAPER.noteBox).open = false;
    }
    if (hasUnsavedNote(paper)) {
      setPaperStatus(paper, "Note not saved: c opens it again, Enter saves it.", "error");
    }
    moveTo(backFromNote, { scroll: false });
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
    if (queue.length > 0 || papers.some(hasUnsavedNote)) {
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
      if (answerOf(papers[index]) === null) {
        return index;
      }
    }
    return -1;
  }

  function rateCurrentAndMoveOn(answer) {
    justRated = papers[current];
    rate(papers[current], answer);
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
    const rated = justRated;
    justRated = null;
    switch (event.key) {
      case "1":
      case "2":
      case "3":
      case "4":
      case "5":
        rateCurrentAndMoveOn(Number(event.key));
        break;
      case "x":
        rateCurrentAndMoveOn(CANNOT_JUDGE);
        break;
      case "c":
        openNote(rated || papers[current]);
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
    const answerOfRadio = (radio) => (radio.value === CANNOT_JUDGE ? CANNOT_JUDGE : Number(radio.value));
    paper.querySelector(PAPER.rateForm).addEventListener("change", (event) => {
      if (event.target.name === "stars") {
        rate(paper, answerOfRadio(event.target));
      }
    });
    paper.querySelector(PAPER.rateForm).addEventListener("submit", (event) => {
      event.preventDefault();
      const checked = paper.querySelector(PAPER.star + ":checked");
      if (checked) {
        rate(paper, answerOfRadio(checked));
      }
    });
    paper.querySelector(PAPER.noteForm).addEventListener("submit", (event) => {
      event.preventDefault();
      saveNote(paper);
    });
    noteOf(paper).addEventListener("focus", () => {
      if (!openingNote) {
        backFromNote = index;
      }
      openingNote = false;
    });
    // In a note: Enter saves it and goes back to the papers, Shift+Enter starts a new line,
    // Escape goes back without saving (what was written stays in the box).
    noteOf(paper).addEventListener("keydown", (event) => {
      if (event.isComposing || event.ctrlKey || event.metaKey || event.altKey) {
        return;
      }
      if (event.key === "Enter" && !event.shiftKey) {
        event.preventDefault();
        if (saveNote(paper)) {
          leaveNote(paper);
        }
      } else if (event.key === "Escape") {
        event.preventDefault();
        leaveNote(paper);
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
