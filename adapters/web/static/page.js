// chat-recall's search page: keyboard use, and short addresses for the search form.
// The page works without it (plain links and a form); this only adds keys and leaves
// empty fields out. Loaded from /static (the Content-Security-Policy allows no inline
// script).
(function () {
  "use strict";

  function box() {
    return document.getElementById("q");
  }

  function results() {
    return Array.prototype.slice.call(document.querySelectorAll("[data-result]"));
  }

  function typing(element) {
    return element && (element.tagName === "INPUT" || element.tagName === "TEXTAREA");
  }

  // Up and down: from the box (or the page) to the first result, then result to result;
  // up from the first result goes back to the box.
  function move(step) {
    var items = results();
    if (!items.length) {
      return false;
    }
    var here = items.indexOf(document.activeElement);
    var search = box();
    if (here < 0) {
      // Down from the box, or from nowhere in particular (the list of apps has no box).
      var active = document.activeElement;
      if (step < 0 || (active !== search && active !== document.body && active !== null)) {
        return false;
      }
      items[0].focus();
    } else if (here + step < 0) {
      if (!search) {
        return false;
      }
      search.focus();
    } else {
      items[Math.min(here + step, items.length - 1)].focus();
    }
    return true;
  }

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) {
      return;
    }
    var search = box();
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      if (move(event.key === "ArrowDown" ? 1 : -1)) {
        event.preventDefault();
      }
    } else if (event.key === "Escape") {
      var back = document.querySelector("[data-back]");
      if (back) {
        event.preventDefault();
        window.location.assign(back.href);
      } else if (search && document.activeElement !== search) {
        event.preventDefault();
        search.focus();
        search.select();
      }
    } else if (event.key === "/" && search && !typing(document.activeElement)) {
      event.preventDefault();
      search.focus();
      search.select();
    }
  });

  // The search form leaves out its empty fields (an open side of the time window), so
  // the address of a search stays the short link a person would write. Without this
  // script the form sends them empty, which the page reads the same way.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.classList.contains("search")) {
      return;
    }
    var parameters = new URLSearchParams();
    new FormData(form).forEach(function (value, name) {
      if (value !== "") {
        parameters.append(name, value);
      }
    });
    event.preventDefault();
    var query = parameters.toString();
    window.location.assign(form.action + (query ? "?" + query : ""));
  });

  document.addEventListener("DOMContentLoaded", function () {
    // A chat opened at a search hit: bring the hit into view and give it the focus,
    // so a screen reader starts there too.
    var hit = document.querySelector("[data-hit]");
    if (hit) {
      hit.scrollIntoView({ block: "center" });
      hit.focus({ preventScroll: true });
      return;
    }
    var search = box();
    if (search && search.value) {
      // Back on the results: the caret after the query, ready for another word.
      search.setSelectionRange(search.value.length, search.value.length);
    }
  });
})();
