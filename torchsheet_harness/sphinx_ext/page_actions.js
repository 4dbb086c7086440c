// "Copy page": the page's Markdown twin (written next to its HTML, same site) to the clipboard.
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("button.ts-copy-page").forEach((button) => {
    const label = button.textContent;
    button.addEventListener("click", async () => {
      try {
        const response = await fetch(button.dataset.src);
        if (!response.ok) throw new Error(response.statusText);
        await navigator.clipboard.writeText(await response.text());
        button.textContent = "Copied!";
      } catch (error) {
        button.textContent = "Copy failed: open Markdown";
      }
      setTimeout(() => (button.textContent = label), 2000);
    });
  });
});
