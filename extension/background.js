// svc relay: the service worker. The user shares a tab by clicking the toolbar icon (badge ON) and stops
// sharing it by clicking again; never anything automatic. Shared tabs are kept in chrome.storage.local, so a
// worker the browser stopped and started again restores them. The debugger is attached to the shared tabs
// only while the gateway's relay has a CDP client (so the "is being debugged" banner goes away when nobody
// drives them), and re-attached when it drops off on its own (a navigation to another process, a crash).
// The relay connection is re-made with backoff (the gateway restarted) and kept busy with a ping so the
// worker does not go idle while connected; an alarm wakes a worker that slept to connect again.

const DEFAULT_PORT = 18792
const PING_MS = 20_000
const MAX_BACKOFF_MS = 5_000
const REATTACH_TRIES = 20
const REATTACH_PAUSE_MS = 100
const ALARM = "svc-relay-keepalive"

/** tabId → the epoch of its current debugger attachment (a new one each attach). */
const debuggees = new Map()
/** tabId → browserContextId, learned when attaching. */
const contexts = new Map()
/** The tabs the user shares; loaded from storage before anything else runs. */
let shared = new Set()
let ws
let wantDebugger = false
let backoffMs = 0
let reconnectTimer
let pingTimer
/** Set when the relay refused this extension (wrong token) or replaced it by a newer connection. */
let held = false
let epochs = 0

const ready = (async () => {
  const { sharedTabs = [] } = await chrome.storage.local.get("sharedTabs")
  const alive = []
  for (const tabId of sharedTabs) {
    try {
      await chrome.tabs.get(tabId)
      alive.push(tabId)
    } catch {
      // closed while the worker was stopped
    }
  }
  shared = new Set(alive)
  await saveShared()
  for (const tabId of shared) await setBadge(tabId, true)
})()

const saveShared = () => chrome.storage.local.set({ sharedTabs: [...shared] })

const settings = async () => {
  const s = await chrome.storage.local.get(["token", "port"])
  return { token: typeof s.token === "string" ? s.token : "", port: Number(s.port ?? DEFAULT_PORT) }
}

/** The connection's state, for the popup and options page; clicks open the popup while it is a problem. */
const setStatus = async (state, message) => {
  await chrome.storage.local.set({ status: { state, message, at: Date.now() } })
  const problem = state === "needsToken" || state === "refused" || state === "replaced"
  await chrome.action.setPopup({ popup: problem ? "popup.html" : "" })
}

const setBadge = async (tabId, on) => {
  try {
    await chrome.action.setBadgeText({ tabId, text: on ? "ON" : "" })
    if (on) await chrome.action.setBadgeBackgroundColor({ tabId, color: "#FF6A00" })
  } catch {
    // the tab is gone
  }
}

const send = (message) => {
  if (ws !== undefined && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message))
}

const errorOf = (e) => {
  const text = e instanceof Error ? e.message : String(e)
  try {
    const parsed = JSON.parse(text)
    if (typeof parsed.message === "string") return { code: parsed.code ?? -32000, message: parsed.message }
  } catch {
    // not CDP's JSON
  }
  return { code: -32000, message: text }
}

// ------------------------------------------------------------------------------------------------ tabs

const tabInfo = async (tabId) => {
  const tab = await chrome.tabs.get(tabId)
  const targets = await chrome.debugger.getTargets()
  const target = targets.find((t) => t.tabId === tabId)
  return {
    tabId,
    targetId: target?.id ?? null,
    url: tab.url ?? tab.pendingUrl ?? target?.url ?? "",
    title: tab.title ?? "",
    browserContextId: contexts.get(tabId) ?? null,
    attached: debuggees.has(tabId),
    epoch: debuggees.get(tabId) ?? null
  }
}

const report = async (tabId) => {
  if (!shared.has(tabId)) return
  try {
    send({ type: "tab", tab: await tabInfo(tabId) })
  } catch {
    // closed meanwhile: onRemoved says so
  }
}

const attachDebugger = async (tabId) => {
  if (debuggees.has(tabId)) return
  try {
    await chrome.debugger.attach({ tabId }, "1.3")
  } catch (e) {
    if (!/already attached/i.test(errorOf(e).message)) throw e
    // Still attached from before this worker started, with whatever state its clients left (and events this
    // worker never saw): start from a fresh attachment.
    await chrome.debugger.detach({ tabId }).catch(() => undefined)
    await chrome.debugger.attach({ tabId }, "1.3")
  }
  try {
    const { targetInfo } = await chrome.debugger.sendCommand({ tabId }, "Target.getTargetInfo")
    if (typeof targetInfo?.browserContextId === "string") contexts.set(tabId, targetInfo.browserContextId)
  } catch {
    // not needed to go on
  }
  debuggees.set(tabId, `${Date.now().toString(36)}.${++epochs}`)
  // Stopped sharing (or the last client left) while this attach was under way: let go again.
  if (!shared.has(tabId) || !wantDebugger) await detachDebugger(tabId)
}

const detachDebugger = async (tabId) => {
  if (!debuggees.has(tabId)) return
  debuggees.delete(tabId)
  try {
    await chrome.debugger.detach({ tabId })
  } catch {
    // already detached
  }
}

/** Attaches (when a client wants the tabs) and tells the relay; a tab that cannot be attached is reported as not attached. */
const bringUp = async (tabId) => {
  if (wantDebugger && shared.has(tabId)) {
    try {
      await attachDebugger(tabId)
    } catch (e) {
      console.warn(`svc relay: cannot attach to tab ${tabId}: ${errorOf(e).message}`)
    }
  }
  await report(tabId)
}

const share = async (tabId) => {
  shared.add(tabId)
  await saveShared()
  await setBadge(tabId, true)
  await bringUp(tabId)
}

const unshare = async (tabId, reason) => {
  if (!shared.delete(tabId)) return
  await saveShared()
  await setBadge(tabId, false)
  await detachDebugger(tabId)
  send({ type: "tabGone", tabId, reason })
}

/** What a click on the toolbar icon does: share the tab, or stop sharing it. */
const toggleTab = async (tab) => {
  await ready
  if (tab?.id === undefined) return
  if (shared.has(tab.id)) await unshare(tab.id, "the user stopped sharing it")
  else await share(tab.id)
  if (!held) void connect()
}

/** The debugger dropped off a shared tab on its own: attach again within a second or so. */
const reattach = async (tabId) => {
  for (let i = 0; i < REATTACH_TRIES && wantDebugger && shared.has(tabId) && !debuggees.has(tabId); i++) {
    try {
      await chrome.tabs.get(tabId)
    } catch {
      return // closed: onRemoved says so
    }
    try {
      await attachDebugger(tabId)
      await report(tabId)
      return
    } catch {
      await new Promise((r) => setTimeout(r, REATTACH_PAUSE_MS))
    }
  }
}

// ------------------------------------------------------------------------------------------------ relay

const runCommand = async (m) => {
  const target = m.sessionId ? { tabId: m.tabId, sessionId: m.sessionId } : { tabId: m.tabId }
  try {
    const result = await chrome.debugger.sendCommand(target, m.method, m.params ?? {})
    send({ type: "result", id: m.id, result: result ?? {} })
  } catch (e) {
    send({ type: "result", id: m.id, error: errorOf(e) })
  }
}

const createTab = async (m) => {
  try {
    const tab = await chrome.tabs.create({ url: m.url || "about:blank", active: m.background !== true })
    await share(tab.id)
    const info = await tabInfo(tab.id)
    send({ type: "result", id: m.id, result: { tabId: tab.id, targetId: info.targetId } })
  } catch (e) {
    send({ type: "result", id: m.id, error: errorOf(e) })
  }
}

const closeTab = async (m) => {
  try {
    await chrome.tabs.remove(m.tabId)
    send({ type: "result", id: m.id, result: { success: true } })
  } catch (e) {
    send({ type: "result", id: m.id, error: errorOf(e) })
  }
}

const activateTab = async (m) => {
  try {
    const tab = await chrome.tabs.update(m.tabId, { active: true })
    await chrome.windows.update(tab.windowId, { focused: true }).catch(() => undefined)
    send({ type: "result", id: m.id, result: {} })
  } catch (e) {
    send({ type: "result", id: m.id, error: errorOf(e) })
  }
}

const setWant = async (want) => {
  wantDebugger = want
  for (const tabId of shared) {
    if (want) await bringUp(tabId)
    else {
      await detachDebugger(tabId)
      await report(tabId)
    }
  }
}

const onRelayMessage = (m) => {
  switch (m.type) {
    case "clients":
      return setWant(m.count > 0)
    case "command":
      return runCommand(m)
    case "createTab":
      return createTab(m)
    case "closeTab":
      return closeTab(m)
    case "activateTab":
      return activateTab(m)
  }
}

const scheduleReconnect = () => {
  if (reconnectTimer !== undefined || held) return
  backoffMs = backoffMs === 0 ? 250 : Math.min(backoffMs * 2, MAX_BACKOFF_MS)
  reconnectTimer = setTimeout(() => {
    reconnectTimer = undefined
    void connect()
  }, backoffMs)
}

const onClosed = async (code, reason) => {
  clearInterval(pingTimer)
  // Nobody can drive the tabs now: let the banner go.
  await setWant(false)
  if (code === 4001) {
    held = true
    await setStatus("refused", `The svc relay refused this extension: ${reason}`)
  } else if (code === 4000) {
    held = true
    await setStatus("replaced", `Another svc relay extension connected to the gateway after this one: ${reason}`)
  } else {
    const { port } = await settings()
    await setStatus("disconnected", `Not connected to the svc relay on 127.0.0.1:${port} (is \`svc gateway run\` running?); trying again.`)
    scheduleReconnect()
  }
}

let connecting
/** Opens the relay connection unless one is open or opening (several events may ask at once). */
const connect = () => {
  connecting ??= open().finally(() => {
    connecting = undefined
  })
  return connecting
}

const open = async () => {
  await ready
  if (ws !== undefined && (ws.readyState === WebSocket.CONNECTING || ws.readyState === WebSocket.OPEN)) return
  const { token, port } = await settings()
  if (token === "") {
    held = true
    await setStatus("needsToken", "No relay token yet: run `svc browser extension token` and paste what it prints in this extension's settings.")
    return
  }
  const socket = new WebSocket(`ws://127.0.0.1:${port}/extension?token=${encodeURIComponent(token)}`)
  ws = socket
  socket.onopen = async () => {
    backoffMs = 0
    const tabs = []
    for (const tabId of shared) {
      try {
        tabs.push(await tabInfo(tabId))
      } catch {
        // closed
      }
    }
    const version = /Chrom(?:e|ium)\/([\d.]+)/.exec(navigator.userAgent)?.[1] ?? "unknown"
    send({ type: "hello", version: chrome.runtime.getManifest().version, product: `Chrome/${version}`, userAgent: navigator.userAgent, tabs })
    clearInterval(pingTimer)
    pingTimer = setInterval(() => send({ type: "ping" }), PING_MS)
    await setStatus("connected", `Connected to the svc relay on 127.0.0.1:${port}.`)
  }
  socket.onmessage = (event) => {
    let message
    try {
      message = JSON.parse(event.data)
    } catch {
      return
    }
    void onRelayMessage(message)
  }
  socket.onclose = (event) => {
    if (ws !== socket) return
    ws = undefined
    void onClosed(event.code, event.reason)
  }
}

/** The settings changed (or the user asked to try again): a fresh connection with them. */
const reconnect = async () => {
  await connecting // one in flight read the old settings: let it finish, then replace it
  held = false
  backoffMs = 0
  clearTimeout(reconnectTimer)
  reconnectTimer = undefined
  const old = ws
  ws = undefined
  if (old !== undefined) {
    clearInterval(pingTimer)
    old.onclose = null
    old.close(1000, "settings changed")
  }
  await setWant(false)
  await connect()
}

// ------------------------------------------------------------------------------------------------ listeners
// Registered at the top level, so each of these events also wakes a worker that was stopped.

chrome.action.onClicked.addListener((tab) => void toggleTab(tab))

chrome.debugger.onEvent.addListener((source, method, params) => {
  if (source.tabId === undefined || !shared.has(source.tabId)) return
  send({ type: "event", tabId: source.tabId, sessionId: source.sessionId, method, params })
})

chrome.debugger.onDetach.addListener((source, reason) => {
  const tabId = source.tabId
  if (tabId === undefined || !debuggees.has(tabId)) return
  debuggees.delete(tabId)
  if (!shared.has(tabId)) return
  // The user closed the "is being debugged" banner: that is stopping to share the tab.
  if (reason === "canceled_by_user") {
    void unshare(tabId, "the user cancelled debugging")
    return
  }
  void report(tabId).then(() => reattach(tabId))
})

chrome.tabs.onRemoved.addListener((tabId) => {
  debuggees.delete(tabId)
  void ready.then(() => unshare(tabId, "the tab was closed"))
})

chrome.tabs.onUpdated.addListener((tabId, change) => {
  void ready.then(async () => {
    if (!shared.has(tabId)) return
    if (change.status !== undefined) await setBadge(tabId, true)
    if (change.url !== undefined || change.title !== undefined) await report(tabId)
  })
})

chrome.storage.onChanged.addListener((changes, area) => {
  if (area === "local" && (changes.token !== undefined || changes.port !== undefined)) void reconnect()
})

chrome.runtime.onMessage.addListener((message, _sender, respond) => {
  if (message?.type === "retry") {
    void reconnect().then(() => respond({ ok: true }))
    return true
  }
})

chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === ALARM && !held) void connect()
})

chrome.runtime.onStartup.addListener(() => void connect())
chrome.runtime.onInstalled.addListener(() => void connect())

chrome.alarms.create(ALARM, { periodInMinutes: 0.5 })
void connect()
