// Copy buttons: a button with data-copy="ID" copies the value (of an input) or the text of the element ID, and says
// that it did. A plain script beside the WASM: every page that shows a secret once (a share link, an API token, a
// webhook's signing secret) gets its button without copying code of its own in the bundle.
document.addEventListener("click", async (event) => {
  const button = event.target instanceof Element ? event.target.closest("button[data-copy]") : null;
  const source = button && document.getElementById(button.dataset.copy);
  if (!source) return;
  const text = "value" in source ? source.value : source.textContent;
  let copied = false;
  try {
    await navigator.clipboard.writeText(text);
    copied = true;
  } catch (_) {
    // No clipboard here (a page served over plain http from another host): select the text and copy the old way.
    if (typeof source.select === "function") {
      source.select();
    } else {
      const range = document.createRange();
      range.selectNodeContents(source);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
    }
    copied = document.execCommand("copy");
  }
  button.dataset.copied = copied ? "yes" : "no";
  button.textContent = copied ? "Copied" : "Selected: copy it with Ctrl+C";
  setTimeout(() => {
    delete button.dataset.copied;
    button.textContent = "Copy";
  }, 2500);
});
