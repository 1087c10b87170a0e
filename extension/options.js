// The options page: the relay token and port, kept in chrome.storage.local (the service worker reconnects
// when they change), and the connection's state as the service worker last wrote it.
const DEFAULT_PORT = 18792
const $ = (id) => document.getElementById(id)

const showStatus = (status) => {
  $("status").textContent = status === undefined ? "" : status.message
}

chrome.storage.local.get(["token", "port", "status"]).then((s) => {
  $("token").value = s.token ?? ""
  $("port").value = String(s.port ?? DEFAULT_PORT)
  showStatus(s.status)
})

chrome.storage.onChanged.addListener((changes) => {
  if (changes.status !== undefined) showStatus(changes.status.newValue)
})

$("form").addEventListener("submit", async (event) => {
  event.preventDefault()
  const port = Number($("port").value || DEFAULT_PORT)
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    showStatus({ message: "The port must be a whole number from 1 to 65535." })
    return
  }
  await chrome.storage.local.set({ token: $("token").value.trim(), port })
})
