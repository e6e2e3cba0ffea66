"use strict";
// Filters of the question list: by category and status, kept in the address's #fragment
// (#category=…&status=…) so a filtered view can be shared; #…&open=all opens every question
// shown. The page's texts are never read as HTML.
(function () {
  const category = document.getElementById("filter-category");
  const status = document.getElementById("filter-status");
  const count = document.getElementById("filter-count");
  const items = Array.from(document.querySelectorAll(".question"));
  if (!category || !status || !count) { return; }
  function known(select, value) {
    return Array.from(select.options).some(function (option) { return option.value === value; });
  }
  function apply() {
    let shown = 0;
    items.forEach(function (item) {
      const visible = (category.value === "" || item.dataset.category === category.value)
        && (status.value === "" || item.dataset.status === status.value);
      item.hidden = !visible;
      if (visible) { shown += 1; }
    });
    count.textContent = shown + " of " + items.length + " shown";
  }
  function save() {
    const params = new URLSearchParams();
    if (category.value) { params.set("category", category.value); }
    if (status.value) { params.set("status", status.value); }
    const fragment = params.toString();
    try {
      history.replaceState(null, "", fragment ? "#" + fragment : location.pathname + location.search);
    } catch (error) { /* a file opened where the address cannot change: the filters still work */ }
  }
  const asked = new URLSearchParams(location.hash.slice(1));
  if (known(category, asked.get("category"))) { category.value = asked.get("category"); }
  if (known(status, asked.get("status"))) { status.value = asked.get("status"); }
  [category, status].forEach(function (select) {
    select.addEventListener("change", function () { apply(); save(); });
  });
  function openShown(open) {
    items.forEach(function (item) { if (!item.hidden) { item.open = open; } });
  }
  const openAll = document.getElementById("open-all");
  const closeAll = document.getElementById("close-all");
  if (openAll) { openAll.addEventListener("click", function () { openShown(true); }); }
  if (closeAll) { closeAll.addEventListener("click", function () { openShown(false); }); }
  apply();
  if (asked.get("open") === "all") { openShown(true); }
  document.documentElement.dataset.filters = "ready";
})();
