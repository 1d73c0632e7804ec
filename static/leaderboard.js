// paperjudge leaderboard: orders the table in place when a heading is selected.
//
// Without the script every heading is a link to the page ordered on the server; the script
// orders the rows the same way (undefined values last, ties by rank) without a reload, and
// keeps the address, the headings' links and the options form in step.
"use strict";

(function () {
  const table = document.getElementById("board-table");
  if (!table) {
    return;
  }
  const body = table.tBodies[0];
  const headings = Array.from(table.tHead.rows[0].cells);
  const form = document.querySelector(".options-form");

  function valueAt(row, index) {
    return row.cells[index].dataset.value;
  }

  function compare(a, b, index, column, order) {
    const x = valueAt(a, index);
    const y = valueAt(b, index);
    if (x === "" || y === "") {
      return (x === "") - (y === "");
    }
    let difference;
    if (column === "model") {
      difference = x < y ? -1 : x > y ? 1 : 0;
    } else {
      difference = Number(x) - Number(y);
    }
    return order === "desc" ? -difference : difference;
  }

  function orderBy(heading, order) {
    const index = heading.cellIndex;
    const column = heading.dataset.column;
    const rows = Array.from(body.rows);
    rows.sort(function (a, b) {
      return compare(a, b, index, column, order) || valueAt(a, 0) - valueAt(b, 0);
    });
    body.append(...rows);
    const reversed = order === "asc" ? "desc" : "asc";
    for (const other of headings) {
      other.removeAttribute("aria-sort");
      const link = other.querySelector("a");
      if (link) {
        const url = new URL(link.href);
        url.searchParams.set("order", other === heading ? reversed : other.dataset.defaultOrder);
        link.href = url.pathname + url.search;
      }
    }
    heading.setAttribute("aria-sort", order === "asc" ? "ascending" : "descending");
  }

  table.tHead.addEventListener("click", function (event) {
    const link = event.target.closest("a");
    if (!link) {
      return;
    }
    event.preventDefault();
    const url = new URL(link.href);
    const column = url.searchParams.get("sort");
    const order = url.searchParams.get("order");
    orderBy(link.closest("th"), order);
    if (form) {
      form.elements.namedItem("sort").value = column;
      form.elements.namedItem("order").value = order;
    }
    history.replaceState(null, "", url.pathname + url.search);
  });
})();
