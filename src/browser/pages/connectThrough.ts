import type { Browser } from "playwright-core"
import type { CdpTransport } from "../relay/inProcess.js"

type PlaywrightModule = typeof import("playwright-core")

/**
 * The library connected over a transport of ours (the relay in this process): it takes one at run time (its
 * ConnectionTransport) though its types name only URLs. It then takes the browser for one on this machine and
 * would hand an upload's paths to the browser to read; the relay's browser (an extension's debugger) may not
 * read local files, so files go as their contents, as over the relay's websocket. Undefined when this
 * version of the library does not let that be said.
 */
export const connectThrough = async (lib: PlaywrightModule, transport: CdpTransport, timeout: number): Promise<Browser | undefined> => {
  const connectOver = lib.chromium.connectOverCDP.bind(lib.chromium) as unknown as (t: CdpTransport, o: object) => Promise<Browser>
  const browser = await connectOver(transport, { timeout })
  const toImpl = (browser as unknown as { _connection?: { toImpl?: (x: unknown) => unknown } })._connection?.toImpl
  const impl = toImpl?.(browser) as { _isBrowserCollocatedWithServer?: boolean } | undefined
  if (impl?._isBrowserCollocatedWithServer === undefined) {
    await browser.close().catch(() => undefined)
    return undefined
  }
  impl._isBrowserCollocatedWithServer = false
  return browser
}
