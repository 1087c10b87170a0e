import { Either } from "effect"
import { InvalidRequest } from "../../domain/errors.js"
import { parseUserUrl, type UrlProblem } from "../../platform/url.js"
import type { ActionName } from "./messages.js"

// Checking what an agent gave before anything touches the page: URLs, viewport sizes, timeouts, key names,
// URL patterns.

export const MAX_TIMEOUT_MS = 120_000
const MIN_VIEWPORT = 100
const MAX_VIEWPORT = 10_000

const EXAMPLE = "e.g. `svc browser navigate https://example.com`"

const navigateProblem = (raw: string, problem: UrlProblem): string => {
  switch (problem.kind) {
    case "empty":
      return `give a URL, ${EXAMPLE}`
    case "not-a-url":
      return `${JSON.stringify(raw.trim())} is not a URL; give a full URL, ${EXAMPLE}`
    case "no-host":
      return `${JSON.stringify(raw.trim())} has no host, ${EXAMPLE}`
  }
}

/**
 * The URL navigate opens (see parseUserUrl: URLs as given, bare hosts get a scheme), or why it is not one.
 * Whether it may be opened (scheme, host) is the navigation policy's to say: Automate asks it first.
 */
export const normaliseNavigationUrl = (input: string): Either.Either<string, InvalidRequest> =>
  Either.mapLeft(parseUserUrl(input), (problem) => new InvalidRequest({ message: `navigate: ${navigateProblem(input, problem)}` }))

/** Viewport dimensions in CSS pixels, whole numbers from 100 to 10000. */
export const checkViewport = (width: number, height: number): Either.Either<{ width: number; height: number }, InvalidRequest> => {
  const ok = (n: number) => Number.isInteger(n) && n >= MIN_VIEWPORT && n <= MAX_VIEWPORT
  if (ok(width) && ok(height)) return Either.right({ width, height })
  return Either.left(
    new InvalidRequest({
      message: `resize: width and height must be whole numbers of CSS pixels from ${MIN_VIEWPORT} to ${MAX_VIEWPORT} ` +
        `(got ${width} × ${height}), e.g. \`svc browser resize 1280 800\``
    })
  )
}

export const checkTimeout = (
  action: ActionName,
  timeoutMs: number | undefined,
  fallback: number
): Either.Either<number, InvalidRequest> => {
  if (timeoutMs === undefined) return Either.right(fallback)
  if (Number.isInteger(timeoutMs) && timeoutMs >= 1 && timeoutMs <= MAX_TIMEOUT_MS) return Either.right(timeoutMs)
  return Either.left(
    new InvalidRequest({
      message: `${action}: timeoutMs must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS} (got ${timeoutMs})`
    })
  )
}

const KEY_NAMES: Record<string, string> = {
  ctrl: "Control",
  control: "Control",
  cmd: "Meta",
  command: "Meta",
  meta: "Meta",
  win: "Meta",
  super: "Meta",
  opt: "Alt",
  option: "Alt",
  alt: "Alt",
  shift: "Shift",
  controlormeta: "ControlOrMeta",
  mod: "ControlOrMeta",
  enter: "Enter",
  return: "Enter",
  esc: "Escape",
  escape: "Escape",
  tab: "Tab",
  space: "Space",
  spacebar: "Space",
  backspace: "Backspace",
  del: "Delete",
  delete: "Delete",
  ins: "Insert",
  insert: "Insert",
  home: "Home",
  end: "End",
  pageup: "PageUp",
  pgup: "PageUp",
  pagedown: "PageDown",
  pgdn: "PageDown",
  up: "ArrowUp",
  down: "ArrowDown",
  left: "ArrowLeft",
  right: "ArrowRight",
  arrowup: "ArrowUp",
  arrowdown: "ArrowDown",
  arrowleft: "ArrowLeft",
  arrowright: "ArrowRight"
}

/** Playwright's key name for what an agent wrote: `ctrl+a` → `Control+a`, `esc` → `Escape`, `f5` → `F5`. */
export const normaliseKey = (key: string): string =>
  key.split(/\+(?!$)/).map((part) => {
    if (part.length <= 1) return part
    const lower = part.toLowerCase()
    const named = KEY_NAMES[lower]
    if (named !== undefined) return named
    const fn = /^f(\d{1,2})$/.exec(lower)
    if (fn && Number(fn[1]) >= 1 && Number(fn[1]) <= 24) return `F${fn[1]}`
    return part
  }).join("+")

/** How a glob given to `wait --url` is matched: a plain fragment (no wildcard, no scheme) matches as a substring. */
export const urlMatcher = (pattern: string): string | ((url: URL) => boolean) =>
  /[*?[\]{}]/.test(pattern) || /^[a-z][a-z0-9+.-]*:/i.test(pattern) ? pattern : (url: URL) => url.href.includes(pattern)
