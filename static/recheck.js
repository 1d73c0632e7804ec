// paperjudge re-check page: the keys 1 to 5 save the re-check, as on the rating page.
//
// The page works without this script: the form is a plain POST, answered with the next pair.
// With it, a key checks the star and sends the same form; the answer is the next pair.
"use strict";

(function () {
  const form = document.querySelector("form#recheck-form");
  if (!form) {
    return;
  }
  document.documentElement.classList.add("js");
  const status = document.querySelector("#recheck-status");
  const hint = document.querySelector("#key-hint");
  if (hint) {
    hint.hidden = false;
  }
  let sent = false;

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || sent) {
      return;
    }
    const target = event.target;
    if (target && (target.isContentEditable || /^(input|textarea|select)$/i.test(target.tagName) && target.type !== "radio")) {
      return;
    }
    if (!/^[1-5]$/.test(event.key)) {
      return;
    }
    const star = form.querySelector('input[type="radio"][name="stars"][value="' + event.key + '"]');
    if (!star) {
      return;
    }
    event.preventDefault();
    star.checked = true;
    sent = true;
    if (status) {
      status.textContent = "Saving…";
    }
    form.submit();
  });
})();
