import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { Readable, Writable } from "node:stream"
import { CHROMIUM, killGroup } from "./chromium.js"
import { ROOT } from "./gateway.js"

// "The user's own browser" for relay tests: a headless Chromium with svc's unpacked extension loaded, driven
// by the test over --remote-debugging-pipe (the only transport on which the Extensions domain works, with
// --enable-unsafe-extension-debugging). What the test does through it is what a user does: open tabs, click
// the extension's toolbar icon (Extensions.triggerAction fires chrome.action.onClicked exactly as a click
// does), and have the browser stop the extension's service worker.

export const EXTENSION_DIR = path.join(ROOT, "extension")

type Message = { id?: number; method?: string; params?: any; result?: any; error?: { message: string }; sessionId?: string }

export interface ExtensionBrowser {
  readonly process: ChildProcess
  readonly extensionId: string
  /** A command on the browser (or, with sessionId, on an attached target). */
  readonly send: (method: string, params?: object, sessionId?: string) => Promise<any>
  /** Opens a tab on `url` and answers its page targetId. */
  readonly openTab: (url: string) => Promise<string>
  /** Clicks the extension's toolbar icon on the tab of this page target. */
  readonly clickAction: (pageTargetId: string) => Promise<void>
  /** Evaluates `expression` (awaited) in the extension's service worker, starting it first if it sleeps. */
  readonly evaluateInWorker: (expression: string) => Promise<any>
  /** Evaluates `expression` (awaited) in a page target, as the user's own typing and clicking would act on it. */
  readonly evaluateInPage: (pageTargetId: string, expression: string) => Promise<any>
  /** Whether a debugger (the extension's, here) is attached to the page target. */
  readonly debuggerAttached: (pageTargetId: string) => Promise<boolean>
  /** Whether the extension's service worker runs now. */
  readonly workerRunning: () => Promise<boolean>
  /** Stops the extension's service worker, as the browser does with an idle one. */
  readonly stopWorker: () => Promise<void>
  readonly kill: () => Promise<void>
}

export const launchExtensionBrowser = async (): Promise<ExtensionBrowser> => {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-test-ext-"))
  const child = spawn(
    CHROMIUM,
    [
      "--headless=new",
      "--no-sandbox",
      "--remote-debugging-pipe",
      "--enable-unsafe-extension-debugging",
      `--user-data-dir=${userDataDir}`,
      "--no-first-run",
      "--no-default-browser-check",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "about:blank"
    ],
    { detached: true, stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"] }
  )
  const toBrowser = child.stdio[3] as Writable
  const fromBrowser = child.stdio[4] as Readable
  let nextId = 1
  const waiting = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void; method: string }>()
  let buffer = ""
  fromBrowser.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8")
    let end: number
    while ((end = buffer.indexOf("\0")) >= 0) {
      const text = buffer.slice(0, end)
      buffer = buffer.slice(end + 1)
      const m = JSON.parse(text) as Message
      if (m.id === undefined) continue
      const w = waiting.get(m.id)
      if (w === undefined) continue
      waiting.delete(m.id)
      if (m.error !== undefined) w.reject(new Error(`${w.method}: ${m.error.message}`))
      else w.resolve(m.result)
    }
  })
  const send = (method: string, params: object = {}, sessionId?: string) =>
    new Promise<any>((resolve, reject) => {
      const id = nextId++
      waiting.set(id, { resolve, reject, method })
      toBrowser.write(JSON.stringify({ id, method, params, ...(sessionId === undefined ? {} : { sessionId }) }) + "\0")
    })

  const kill = async () => {
    await killGroup(child)
    fs.rmSync(userDataDir, { recursive: true, force: true })
  }

  let extensionId: string
  try {
    extensionId = (await send("Extensions.loadUnpacked", { path: EXTENSION_DIR })).id as string
  } catch (e) {
    await kill()
    throw e
  }

  const { targetInfos: first } = await send("Target.getTargets")
  const firstTab = (first as Array<{ targetId: string; type: string }>).find((t) => t.type === "page")!.targetId

  const workerTarget = async () => {
    const { targetInfos } = await send("Target.getTargets")
    return (targetInfos as Array<{ targetId: string; type: string; url: string }>).find(
      (t) => t.type === "service_worker" && t.url.startsWith(`chrome-extension://${extensionId}/`)
    )
  }

  // A page target does not name its tab target: remember which tab target each tab opened here came with.
  const tabTargets = new Map<string, string>()
  const tabTargetIds = async () => {
    const { targetInfos } = await send("Target.getTargets", { filter: [{ type: "tab" }] })
    return new Set((targetInfos as Array<{ targetId: string }>).map((t) => t.targetId))
  }
  const openTab = async (url: string) => {
    const before = await tabTargetIds()
    const { targetId } = await send("Target.createTarget", { url })
    const added = [...(await tabTargetIds())].filter((id) => !before.has(id))
    if (added.length === 1) tabTargets.set(targetId, added[0]!)
    return targetId as string
  }
  const tabTargetOf = (pageTargetId: string) => {
    const tab = tabTargets.get(pageTargetId)
    if (tab === undefined) throw new Error(`no tab target known for page ${pageTargetId} (open it with openTab)`)
    return tab
  }

  const evaluateInWorker = async (expression: string) => {
    let worker = await workerTarget()
    const deadline = Date.now() + 10_000
    while (worker === undefined && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50))
      worker = await workerTarget()
    }
    if (worker === undefined) throw new Error("the extension's service worker is not running")
    const { sessionId } = await send("Target.attachToTarget", { targetId: worker.targetId, flatten: true })
    try {
      // A worker that is still starting has no extension APIs yet: ask again briefly.
      for (let i = 0; ; i++) {
        const r = await send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true }, sessionId)
        if (r.exceptionDetails === undefined) return r.result.value
        const text = JSON.stringify(r.exceptionDetails)
        if (i >= 50 || !text.includes("chrome is not defined")) throw new Error(`in the worker: ${text}`)
        await new Promise((r) => setTimeout(r, 50))
      }
    } finally {
      await send("Target.detachFromTarget", { sessionId }).catch(() => undefined)
    }
  }

  return {
    process: child,
    extensionId,
    send,
    openTab,
    clickAction: async (pageTargetId) => {
      await send("Extensions.triggerAction", { id: extensionId, targetId: tabTargetOf(pageTargetId) })
    },
    evaluateInWorker,
    evaluateInPage: async (pageTargetId, expression) => {
      const { sessionId } = await send("Target.attachToTarget", { targetId: pageTargetId, flatten: true })
      try {
        // A page still loading replaces its document: ask again in the new one.
        for (let i = 0; ; i++) {
          try {
            const r = await send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true }, sessionId)
            if (r.exceptionDetails !== undefined) throw new Error(`in the page: ${JSON.stringify(r.exceptionDetails)}`)
            return r.result.value
          } catch (e) {
            if (i >= 50 || !/context was destroyed|Cannot find context|is not defined/.test(String(e))) throw e
            await new Promise((r) => setTimeout(r, 50))
          }
        }
      } finally {
        await send("Target.detachFromTarget", { sessionId }).catch(() => undefined)
      }
    },
    debuggerAttached: async (pageTargetId) => {
      const { targetInfos } = await send("Target.getTargets")
      return (targetInfos as Array<{ targetId: string; attached: boolean }>).some((t) => t.targetId === pageTargetId && t.attached)
    },
    workerRunning: async () => (await workerTarget()) !== undefined,
    stopWorker: async () => {
      // From a session on the browser's first tab (opening a tab for it would wake the worker right away).
      const { sessionId } = await send("Target.attachToTarget", { targetId: firstTab, flatten: true })
      await send("ServiceWorker.enable", {}, sessionId)
      await send("ServiceWorker.stopAllWorkers", {}, sessionId)
      await send("Target.detachFromTarget", { sessionId })
    },
    kill
  }
}
