import { WebSocket } from "ws"
import { getJson } from "./gateway.js"

// A test's own flat CDP session on a tab of a running browser: the execution contexts created in it (and,
// with `debugger`, the scripts compiled in them), and evaluation in the automation library's utility world
// of the tab's main frame (where its snapshots run and mark each element they read).

export interface TabContext {
  readonly id: number
  readonly name: string
  readonly auxData?: { readonly frameId?: string }
}

export interface TabSession {
  readonly contexts: ReadonlyArray<TabContext>
  readonly scripts: ReadonlyArray<{ readonly executionContextId: number; readonly length: number }>
  /** Evaluates `expression` in the library's latest utility world of the main frame; its value. */
  readonly evaluateInUtility: (expression: string) => Promise<any>
  readonly close: () => void
}

export const tabSession = async (
  cdpUrl: string,
  targetId: string,
  options: { readonly debugger?: boolean } = {}
): Promise<TabSession> => {
  const { webSocketDebuggerUrl } = await getJson(`${cdpUrl}/json/version`)
  const ws = new WebSocket(webSocketDebuggerUrl)
  await new Promise((resolve, reject) => (ws.once("open", resolve), ws.once("error", reject)))
  const contexts: Array<TabContext> = []
  const scripts: Array<{ readonly executionContextId: number; readonly length: number }> = []
  const answers = new Map<number, (m: any) => void>()
  let sessionId: string | undefined
  let next = 1
  ws.on("message", (d) => {
    const m = JSON.parse(String(d))
    if (m.id !== undefined) answers.get(m.id)?.(m)
    else if (m.sessionId === sessionId && m.method === "Runtime.executionContextCreated") contexts.push(m.params.context)
    else if (m.sessionId === sessionId && m.method === "Debugger.scriptParsed") scripts.push(m.params)
  })
  const send = (method: string, params: object = {}) =>
    new Promise<any>((resolve) => {
      const id = next++
      answers.set(id, resolve)
      ws.send(JSON.stringify({ id, method, params, ...(sessionId !== undefined ? { sessionId } : {}) }))
    })
  sessionId = (await send("Target.attachToTarget", { targetId, flatten: true })).result.sessionId
  await send("Runtime.enable")
  if (options.debugger === true) await send("Debugger.enable")
  const evaluateInUtility = async (expression: string): Promise<any> => {
    const world = contexts.filter((c) => c.auxData?.frameId === targetId && c.name.startsWith("__playwright_utility_world")).pop()
    if (world === undefined) throw new Error("the library's utility world is not there")
    const answer = await send("Runtime.evaluate", { expression, contextId: world.id, returnByValue: true })
    if (answer.result.exceptionDetails !== undefined) throw new Error(JSON.stringify(answer.result.exceptionDetails))
    return answer.result.result.value
  }
  return { contexts, scripts, evaluateInUtility, close: () => ws.close() }
}
