import { CdpError, type Client, type RelayHub } from "./RelayHub.js"

// The browser-level CDP commands (no sessionId) as the relay answers them. The relay is not a whole browser:
// it stands for the tabs the user shares, so targets are those tabs, new targets are new tabs in the user's
// browser, and what would change the user's browser as a whole (closing it, new profiles) is refused or
// left alone. Cookie calls go through a shared tab's Network domain, which sees the same cookie store.

const BROWSER_TARGET_ID = "svc-relay-browser"

const str = (u: unknown): string | undefined => (typeof u === "string" ? u : undefined)

const tabOrFail = (hub: RelayHub, targetId: unknown) => {
  const tab = typeof targetId === "string" ? hub.tabOfTarget(targetId) : undefined
  if (tab === undefined) {
    throw new CdpError(-32602, `No target with given id found: ${String(targetId)} is not a tab shared with svc`)
  }
  return tab
}

/** A command sent to any attached tab (cookies are the browser's, whichever tab asks). */
const viaAnyTab = async (hub: RelayHub, method: string, params: unknown) => {
  await hub.waitFor(() => hub.attachedTabs().length > 0)
  const tab = hub.attachedTabs()[0]
  if (tab === undefined) {
    throw new CdpError(-32000, "no tab is shared with svc: click the svc relay extension's toolbar icon on a tab first")
  }
  return hub.request({ type: "command", tabId: tab.tabId, method, params })
}

export const handleBrowserCommand = async (
  hub: RelayHub,
  client: Client,
  method: string,
  params: Record<string, unknown>
): Promise<unknown> => {
  switch (method) {
    case "Browser.getVersion": {
      const v = hub.version()
      return { protocolVersion: "1.3", product: v.product, revision: "", userAgent: v.userAgent, jsVersion: "" }
    }
    case "Target.setAutoAttach": {
      client.autoAttach = params.autoAttach === true
      if (client.autoAttach) {
        // The extension attaches its debugger when the first client arrives: give it a moment.
        await hub.waitAllAttached()
        for (const tab of hub.attachedTabs()) {
          if (!hub.hasSession(client, tab.tabId)) hub.attachClient(client, tab)
        }
      }
      return {}
    }
    case "Target.setDiscoverTargets": {
      client.discover = params.discover === true
      if (client.discover) for (const info of hub.targetInfos()) hub.emit(client, "Target.targetCreated", { targetInfo: info })
      return {}
    }
    case "Target.getTargets":
      return { targetInfos: hub.targetInfos() }
    case "Target.getTargetInfo": {
      if (params.targetId === undefined || params.targetId === BROWSER_TARGET_ID) {
        return {
          targetInfo: { targetId: BROWSER_TARGET_ID, type: "browser", title: "", url: "", attached: true, canAccessOpener: false }
        }
      }
      return { targetInfo: hub.targetInfo(tabOrFail(hub, params.targetId)) }
    }
    case "Target.attachToTarget": {
      if (params.flatten !== true) throw new CdpError(-32602, "the svc relay only serves flat sessions: pass flatten: true")
      const tab = tabOrFail(hub, params.targetId)
      await hub.waitFor(() => hub.tabOfTarget(tab.targetId)?.attached === true)
      const now = hub.tabOfTarget(tab.targetId)
      if (now === undefined || !now.attached) {
        throw new CdpError(-32000, `the tab ${tab.targetId} is shared but its debugger is not attached (is the extension connected?)`)
      }
      return { sessionId: hub.newSession(client, now) }
    }
    case "Target.attachToBrowserTarget":
      return { sessionId: hub.newBrowserSession(client) }
    case "Target.detachFromTarget": {
      const sessionId = str(params.sessionId)
      if (sessionId !== undefined && client.browserSessions.delete(sessionId)) return {}
      if (sessionId === undefined || !hub.detachSession(client, sessionId)) {
        throw new CdpError(-32602, `No session with given id: ${String(params.sessionId)}`)
      }
      return {}
    }
    case "Target.createTarget": {
      const url = str(params.url) ?? "about:blank"
      const r = (await hub.request({ type: "createTab", url, background: params.background === true })) as {
        readonly targetId?: string | null
      }
      const targetId = r.targetId
      if (typeof targetId !== "string") throw new CdpError(-32000, "the extension opened a tab but could not name its target")
      // Announced (auto-attach) before the answer, as a browser does.
      await hub.waitFor(() => hub.tabOfTarget(targetId)?.attached === true || hub.clientCount === 0)
      return { targetId }
    }
    case "Target.closeTarget": {
      const tab = tabOrFail(hub, params.targetId)
      await hub.request({ type: "closeTab", tabId: tab.tabId })
      return { success: true }
    }
    case "Target.activateTarget": {
      const tab = tabOrFail(hub, params.targetId)
      await hub.request({ type: "activateTab", tabId: tab.tabId })
      return {}
    }
    case "Target.getBrowserContexts":
      return { browserContextIds: hub.browserContextIds() }
    case "Target.createBrowserContext":
      throw new CdpError(-32000, "the svc relay drives the tabs of your own browser: it cannot make a new browser context")
    case "Browser.close":
      // Never the user's browser: a client that "closes" it only lets go.
      return {}
    case "Browser.setDownloadBehavior":
      // Downloads go where the user's browser puts them.
      return {}
    case "Storage.getCookies":
      return viaAnyTab(hub, "Network.getAllCookies", {})
    case "Storage.setCookies":
      return viaAnyTab(hub, "Network.setCookies", { cookies: params.cookies ?? [] })
    case "Storage.clearCookies":
      return viaAnyTab(hub, "Network.clearBrowserCookies", {})
    default:
      throw new CdpError(
        -32601,
        `${method} is not available through the svc relay (it drives the shared tabs of your browser through its debugger)`
      )
  }
}
