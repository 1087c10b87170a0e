import type { Browser } from "playwright-core"
import type { CdpEndpoint } from "../cdp/endpoints.js"
import { dialTarget } from "../cdp/socket/connection.js"
import type { CdpTransport } from "../relay/inProcess.js"
import { cacheInjectedScript } from "./injectedCache.js"
import { openPlainTransport } from "./plainTransport.js"
import { type RawSends, withRawSends } from "./rawSends.js"

// How the automation library reaches a browser: through a transport of svc's (the relay in this process; a
// plain websocket to a browser on this machine), else by the endpoint's URL as the library dials it. On svc's
// transports the library's scripts are compiled once per renderer, not once per document (injectedCache.ts),
// and svc's own commands on the library's sessions can go beside it (rawSends.ts).

type PlaywrightModule = typeof import("playwright-core")

/** svc's own commands beside the library, on the connections made over a transport of svc's. */
const rawOf = new WeakMap<Browser, RawSends>()

/** Where svc's own commands can go beside the library on this browser's connection (undefined: only through it). */
export const rawSendsOf = (browser: Browser | null): RawSends | undefined => (browser === null ? undefined : rawOf.get(browser))

/**
 * The library connected over a transport of ours: it takes one at run time (its ConnectionTransport) though
 * its types name only URLs. It then takes the browser for one on this machine and would hand an upload's
 * paths to the browser to read. Files go as their contents instead, as when the library dials a URL itself:
 * the relay's browser (an extension's debugger) may not read local files, and a file input given the same
 * file again then still hears of it (the browser itself fires no change for an unchanged selection).
 * Undefined when this version of the library does not let that be said, or (`closeOnFailure`) when the
 * connection fails.
 */
const connectThrough = async (
  lib: PlaywrightModule,
  transport: CdpTransport,
  timeout: number,
  closeOnFailure: boolean
): Promise<Browser | undefined> => {
  const connectOver = lib.chromium.connectOverCDP.bind(lib.chromium) as unknown as (t: CdpTransport, o: object) => Promise<Browser>
  let browser: Browser
  const wrapped = withRawSends(cacheInjectedScript(transport))
  try {
    browser = await connectOver(wrapped.transport, { timeout })
  } catch (e) {
    if (!closeOnFailure) throw e
    transport.close()
    return undefined
  }
  rawOf.set(browser, wrapped.raw)
  const toImpl = (browser as unknown as { _connection?: { toImpl?: (x: unknown) => unknown } })._connection?.toImpl
  const impl = toImpl?.(browser) as { _isBrowserCollocatedWithServer?: boolean } | undefined
  if (impl?._isBrowserCollocatedWithServer === undefined) {
    await browser.close().catch(() => undefined)
    return undefined
  }
  impl._isBrowserCollocatedWithServer = false
  return browser
}

/**
 * The library connected to a browser on this machine over svc's uncompressed websocket (plainTransport.ts);
 * undefined for another endpoint, or when that way fails (the library then dials the endpoint itself).
 */
const connectPlain = async (lib: PlaywrightModule, endpoint: CdpEndpoint, timeout: number): Promise<Browser | undefined> => {
  const transport = await openPlainTransport(endpoint.url, endpoint).catch(() => undefined)
  return transport === undefined ? undefined : await connectThrough(lib, transport, timeout, true)
}

/** The library's connection to the endpoint's browser: through `relay` when given, else the quickest way there is. */
export const connectLibrary = async (
  lib: PlaywrightModule,
  endpoint: CdpEndpoint,
  relay: CdpTransport | undefined,
  timeout: number
): Promise<Browser> => {
  const through = relay !== undefined ? await connectThrough(lib, relay, timeout, false) : await connectPlain(lib, endpoint, timeout)
  if (through !== undefined) return through
  // Userinfo in the URL goes as an Authorization header instead, as svc's own CDP sockets send it.
  const target = dialTarget(endpoint.url)
  return await lib.chromium.connectOverCDP(target.url, { timeout, headers: target.headers })
}
