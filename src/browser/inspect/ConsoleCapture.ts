import type { BrowserContext, ConsoleMessage, Page, WebError } from "playwright-core"
import { clip, MAX_URL_TEXT, type Ring } from "./Bounded.js"

// A tab's console messages and uncaught page errors, each filed in the log of its page, and the console
// levels an agent filters them by.

/** debug < info (console.log is info) < warning < error. */
export type ConsoleLevel = "debug" | "info" | "warning" | "error"

export interface ConsoleEntry {
  readonly seq: number
  /** The console method: log, info, debug, warning, error, assert, trace, table, dir, count, timeEnd, ... */
  readonly type: string
  readonly level: ConsoleLevel
  readonly text: string
  /** Where the call was made; null when the browser did not say. Line and column are 0-based. */
  readonly location: { readonly url: string; readonly line: number; readonly column: number } | null
  /** ISO 8601. */
  readonly timestamp: string
}

export interface PageErrorEntry {
  readonly seq: number
  readonly name: string
  readonly message: string
  /** The first lines of the stack; null when the error had none. */
  readonly stack: string | null
  readonly timestamp: string
}

export const CONSOLE_LIMIT = 500
export const ERRORS_LIMIT = 200
/** Longest console text or error message kept per entry. */
export const MAX_ENTRY_TEXT = 8_000
export const STACK_LINES = 8

/** The part of a page's log this file fills. */
export interface ConsoleLog {
  readonly console: Ring<ConsoleEntry>
  readonly errors: Ring<PageErrorEntry>
}

const LEVEL_RANK: Record<ConsoleLevel, number> = { debug: 0, info: 1, warning: 2, error: 3 }

/** The level of a console method. */
export const levelOf = (type: string): ConsoleLevel => {
  switch (type) {
    case "debug":
    // Chromium's own hints (`[DOM] Input elements should have autocomplete attributes`), hidden by DevTools by default.
    case "verbose":
      return "debug"
    case "warning":
    case "warn":
      return "warning"
    case "error":
    case "assert":
      return "error"
    default:
      return "info"
  }
}

/** A level as a person writes it (log and warn are accepted); undefined for anything else. */
export const parseLevel = (level: string): ConsoleLevel | undefined => {
  switch (level.trim().toLowerCase()) {
    case "debug":
    case "verbose":
      return "debug"
    case "info":
    case "log":
      return "info"
    case "warning":
    case "warn":
      return "warning"
    case "error":
      return "error"
    default:
      return undefined
  }
}

export const atOrAbove = (entry: { readonly level: ConsoleLevel }, min: ConsoleLevel) =>
  LEVEL_RANK[entry.level] >= LEVEL_RANK[min]

const isoOf = (ms: number) => {
  const d = new Date(ms)
  return Number.isFinite(d.getTime()) ? d.toISOString() : new Date().toISOString()
}

/** Files each console message and page error of the context's pages; returns how to stop listening. */
export const listenConsole = (context: BrowserContext, logOf: (page: Page) => ConsoleLog | undefined) => {
  const onConsole = (message: ConsoleMessage) => {
    const page = message.page()
    const log = page !== null ? logOf(page) : undefined
    if (log === undefined) return
    const type = message.type()
    const loc = message.location()
    let timestamp: string
    try {
      timestamp = isoOf(message.timestamp())
    } catch {
      timestamp = new Date().toISOString()
    }
    log.console.push((seq) => ({
      seq,
      type,
      level: levelOf(type),
      text: clip(message.text(), MAX_ENTRY_TEXT),
      location: loc !== undefined && loc.url !== "" ? { url: clip(loc.url, MAX_URL_TEXT), line: loc.line, column: loc.column } : null,
      timestamp
    }))
  }
  const onWebError = (webError: WebError) => {
    const page = webError.page()
    const log = page !== null ? logOf(page) : undefined
    if (log === undefined) return
    const error = webError.error()
    const stack = typeof error.stack === "string" && error.stack !== ""
      ? clip(error.stack.split("\n").slice(0, STACK_LINES).join("\n"), MAX_ENTRY_TEXT)
      : null
    log.errors.push((seq) => ({
      seq,
      name: typeof error.name === "string" && error.name !== "" ? error.name : "Error",
      message: clip(String(error.message), MAX_ENTRY_TEXT),
      stack,
      timestamp: new Date().toISOString()
    }))
  }

  context.on("console", onConsole)
  context.on("weberror", onWebError)
  return () => {
    context.off("console", onConsole)
    context.off("weberror", onWebError)
  }
}
