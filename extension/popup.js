// Shown instead of sharing the tab while the relay cannot be used (no token yet, or the relay refused it):
// says why, and where to fix it.
const why = document.getElementById("why")
chrome.storage.local.get("status").then(({ status }) => {
  why.textContent = status?.message ?? "svc relay is not connected yet."
})
document.getElementById("options").addEventListener("click", () => chrome.runtime.openOptionsPage())
document.getElementById("retry").addEventListener("click", async () => {
  await chrome.runtime.sendMessage({ type: "retry" })
  window.close()
})
