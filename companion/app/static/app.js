/* Shared helpers: CSRF-carrying fetch and safe DOM building (text only, never HTML). */
"use strict";

const Companion = (() => {
  const token = () => document.querySelector('meta[name="csrf-token"]').content;

  async function request(url, options = {}) {
    const headers = Object.assign({ "X-CSRF-Token": token(), Accept: "application/json" }, options.headers || {});
    const resp = await fetch(url, Object.assign({ credentials: "same-origin" }, options, { headers }));
    let body = null;
    try { body = await resp.json(); } catch (e) { body = null; }
    return { ok: resp.ok, status: resp.status, body };
  }

  function postJSON(url, data) {
    return request(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(data) });
  }

  function postForm(url, form) {
    return request(url, { method: "POST", body: form });
  }

  /* el("li", {class: "x", "data-id": id}, "text") — text goes through textContent only. */
  function el(tag, attrs = {}, text = null) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (v !== null && v !== undefined && v !== false) node.setAttribute(k, String(v));
    }
    if (text !== null && text !== undefined) node.textContent = String(text);
    return node;
  }

  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

  return { request, postJSON, postForm, el, clear };
})();

/* A form with data-confirm (deleting a saved game) asks before it is sent. */
document.querySelectorAll("form[data-confirm]").forEach((form) => {
  form.addEventListener("submit", (event) => {
    if (!window.confirm(form.dataset.confirm)) event.preventDefault();
  });
});
