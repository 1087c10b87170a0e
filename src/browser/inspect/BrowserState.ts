import { Effect, Either } from "effect"
import type { Page } from "playwright-core"
import { Conflict, InvalidRequest } from "../../domain/errors.js"
import { pageCall } from "./PageCall.js"

// Cookies and web storage. Cookies belong to the profile (the library's default context over CDP is the
// whole browser profile), so listing with `all` and clearing reach every site; web storage belongs to the
// tab's current origin (session storage to the tab itself).

export type StorageKind = "local" | "session"

export interface CookieInfo {
  readonly name: string
  readonly value: string
  readonly domain: string
  readonly path: string
  /** Unix seconds; -1 for a session cookie. */
  readonly expires: number
  readonly httpOnly: boolean
  readonly secure: boolean
  readonly sameSite: "Strict" | "Lax" | "None"
}

export interface CookieList {
  /** The URL whose cookies these are, or undefined when all of the profile's cookies were listed. */
  readonly url: string | undefined
  readonly cookies: ReadonlyArray<CookieInfo>
}

export interface SetCookie {
  readonly name: string
  readonly value: string
  readonly url: string
}

const MAX_COOKIE_BYTES = 4_096
const COOKIE_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
// Cookie values: printable ASCII except `"`, `,`, `;`, `\` and space (RFC 6265), percent-encode the rest.
const COOKIE_VALUE = /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*$/

export const checkStorageKind = (kind: string): Either.Either<StorageKind, InvalidRequest> =>
  kind === "local" || kind === "session"
    ? Either.right(kind)
    : Either.left(
      new InvalidRequest({
        message: `storage kind must be "local" (localStorage) or "session" (sessionStorage), got ${JSON.stringify(kind)}`
      })
    )

export const checkCookie = (cookie: SetCookie): Either.Either<SetCookie, InvalidRequest> => {
  const bad = (message: string) => Either.left(new InvalidRequest({ message: `cookies set: ${message}` }))
  if (!COOKIE_NAME.test(cookie.name)) {
    return bad(
      `the name ${JSON.stringify(cookie.name)} is not a valid cookie name (letters, digits and !#$%&'*+-.^_\`|~; ` +
        "no spaces, `=` or `;`)"
    )
  }
  if (!COOKIE_VALUE.test(cookie.value)) {
    return bad("the value may hold printable ASCII without spaces, `\"`, `,`, `;` or `\\`; percent-encode anything else")
  }
  if (Buffer.byteLength(cookie.name + cookie.value) > MAX_COOKIE_BYTES) {
    return bad(`name and value together must stay under ${MAX_COOKIE_BYTES} bytes`)
  }
  let url: URL
  try {
    url = new URL(cookie.url)
  } catch {
    return bad(`${JSON.stringify(cookie.url)} is not a URL; give the site's URL, e.g. --url https://example.com`)
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "") {
    return bad(`the URL must be http(s) with a host (got ${JSON.stringify(cookie.url)}), e.g. --url https://example.com`)
  }
  return Either.right({ ...cookie, url: url.href })
}

/** What a storage call on a page without an origin of its own says. */
const noOrigin = (page: Page, kind: StorageKind) =>
  new Conflict({
    message: `${kind} storage is not available on ${page.url() || "this page"} (it has no web origin of its own); ` +
      "navigate the tab to the site first (`svc browser navigate <url>`)"
  })

const hasOrigin = (page: Page): boolean => {
  try {
    const u = new URL(page.url())
    return u.protocol === "http:" || u.protocol === "https:" || u.protocol === "file:"
  } catch {
    return false
  }
}

type StorageOp =
  | { readonly op: "get"; readonly kind: StorageKind }
  | { readonly op: "set"; readonly kind: StorageKind; readonly key: string; readonly value: string }
  | { readonly op: "clear"; readonly kind: StorageKind }

/** Runs in the page: the whole function must be self-contained. */
const storageInPage = (arg: StorageOp): Record<string, string> | number => {
  const store = arg.kind === "local" ? window.localStorage : window.sessionStorage
  if (arg.op === "set") {
    store.setItem(arg.key, arg.value)
    return store.length
  }
  if (arg.op === "clear") {
    const n = store.length
    store.clear()
    return n
  }
  const out: Record<string, string> = {}
  for (let i = 0; i < store.length; i++) {
    const k = store.key(i)
    if (k !== null) out[k] = store.getItem(k) ?? ""
  }
  return out
}

declare const window: { localStorage: WebStorage; sessionStorage: WebStorage }
interface WebStorage {
  readonly length: number
  key(i: number): string | null
  getItem(k: string): string | null
  setItem(k: string, v: string): void
  clear(): void
}

const makeBrowserState = () => {
  const cookies = (page: Page, options: { readonly all?: boolean } = {}) =>
    Effect.gen(function*() {
      const url = options.all === true || !/^https?:/.test(page.url()) ? undefined : page.url()
      const list = yield* pageCall("cookies", () => (url !== undefined ? page.context().cookies(url) : page.context().cookies()))
      const result: CookieList = {
        url,
        cookies: list.map((c) => ({
          name: c.name,
          value: c.value,
          domain: c.domain,
          path: c.path,
          expires: c.expires,
          httpOnly: c.httpOnly,
          secure: c.secure,
          sameSite: c.sameSite
        }))
      }
      return result
    })

  const setCookie = (page: Page, cookie: SetCookie) =>
    Effect.gen(function*() {
      const ok = yield* checkCookie(cookie)
      yield* pageCall("cookies set", () => page.context().addCookies([{ name: ok.name, value: ok.value, url: ok.url }]))
      return ok
    })

  /** Clears every cookie of the profile; answers how many there were. */
  const clearCookies = (page: Page) =>
    Effect.gen(function*() {
      const before = yield* pageCall("cookies clear", () => page.context().cookies())
      yield* pageCall("cookies clear", () => page.context().clearCookies())
      return { cleared: before.length }
    })

  const onStorage = <A>(page: Page, kindRaw: string, op: (kind: StorageKind) => StorageOp, what: string) =>
    Effect.gen(function*() {
      const kind = yield* checkStorageKind(kindRaw)
      if (!hasOrigin(page)) return yield* noOrigin(page, kind)
      return (yield* pageCall(what, () => page.evaluate(storageInPage, op(kind)))) as A
    })

  const storage = (page: Page, kind: string) =>
    onStorage<Record<string, string>>(page, kind, (k) => ({ op: "get", kind: k }), `storage ${kind} get`)

  const setStorage = (page: Page, kind: string, key: string, value: string) =>
    Effect.gen(function*() {
      if (key === "") return yield* new InvalidRequest({ message: "storage set: the key is empty; give a key and a value" })
      const size = yield* onStorage<number>(page, kind, (k) => ({ op: "set", kind: k, key, value }), `storage ${kind} set`)
      return { key, size }
    })

  const clearStorage = (page: Page, kind: string) =>
    Effect.map(
      onStorage<number>(page, kind, (k) => ({ op: "clear", kind: k }), `storage ${kind} clear`),
      (cleared) => ({ cleared })
    )

  return { cookies, setCookie, clearCookies, storage, setStorage, clearStorage } as const
}

/** Cookies (per profile) and local/session storage (per tab's origin). Needs nothing. */
export class BrowserState extends Effect.Service<BrowserState>()("svc/BrowserState", {
  sync: makeBrowserState
}) {}
