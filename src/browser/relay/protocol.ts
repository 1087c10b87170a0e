// What the extension and the relay say to each other over the extension's websocket (JSON text frames).
// The extension speaks for the tabs the user shares; the relay turns them into CDP targets for CDP clients.

/** A shared tab as the extension reports it. `epoch` names the current debugger attachment (null: none). */
export interface TabInfo {
  readonly tabId: number
  readonly targetId: string | null
  readonly url: string
  readonly title: string
  readonly browserContextId: string | null
  readonly attached: boolean
  readonly epoch: string | null
}

export type FromExtension =
  | {
    readonly type: "hello"
    readonly version: string
    readonly product: string
    readonly userAgent: string
    readonly tabs: ReadonlyArray<TabInfo>
  }
  | { readonly type: "tab"; readonly tab: TabInfo }
  | { readonly type: "tabGone"; readonly tabId: number; readonly reason?: string }
  | {
    readonly type: "event"
    readonly tabId: number
    readonly sessionId?: string
    readonly method: string
    readonly params?: unknown
  }
  | {
    readonly type: "result"
    readonly id: number
    readonly result?: unknown
    readonly error?: { readonly code?: number; readonly message: string }
  }
  | { readonly type: "ping" }

export type ToExtension =
  | { readonly type: "clients"; readonly count: number }
  | {
    readonly type: "command"
    readonly id: number
    readonly tabId: number
    readonly sessionId?: string | undefined
    readonly method: string
    readonly params: unknown
  }
  | { readonly type: "createTab"; readonly id: number; readonly url: string; readonly background: boolean }
  | { readonly type: "closeTab"; readonly id: number; readonly tabId: number }
  | { readonly type: "activateTab"; readonly id: number; readonly tabId: number }
  | { readonly type: "pong" }

/** The requests that expect a `result`. */
export type ExtensionRequest = Extract<ToExtension, { readonly id: number }>

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null

const isTabInfo = (u: unknown): u is TabInfo =>
  isObject(u) && typeof u.tabId === "number" && (typeof u.targetId === "string" || u.targetId === null) &&
  typeof u.url === "string" && typeof u.title === "string" && typeof u.attached === "boolean"

/** A frame from the extension, or undefined when it is not one this relay understands. */
export const parseFromExtension = (text: string): FromExtension | undefined => {
  let m: unknown
  try {
    m = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!isObject(m)) return undefined
  switch (m.type) {
    case "hello":
      return Array.isArray(m.tabs) && m.tabs.every(isTabInfo) ? (m as unknown as FromExtension) : undefined
    case "tab":
      return isTabInfo(m.tab) ? (m as unknown as FromExtension) : undefined
    case "tabGone":
      return typeof m.tabId === "number" ? (m as unknown as FromExtension) : undefined
    case "event":
      return typeof m.tabId === "number" && typeof m.method === "string" ? (m as unknown as FromExtension) : undefined
    case "result":
      return typeof m.id === "number" ? (m as unknown as FromExtension) : undefined
    case "ping":
      return { type: "ping" }
    default:
      return undefined
  }
}
