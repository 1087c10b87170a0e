import type { ProtocolMapping } from "devtools-protocol/types/protocol-mapping.js"
import { Data, Effect, type Scope } from "effect"
import { type RawData, WebSocket } from "ws"
import { BrowserUnavailable } from "../../../domain/errors.js"
import { type CdpEndpoint, DEFAULT_COMMAND_TIMEOUT_MS } from "../endpoints.js"
import { basicAuthOf, redactSecrets, withoutUserinfo } from "../../../domain/redact.js"
import { authenticationFailed, describeError, dropped, unreachable } from "../messages.js"

// One browser-level websocket: the handshake, typed commands with a time bound each, and the close. Flat
// sessions ride on it (see session.ts), so one socket serves every tab of a browser.

type Commands = ProtocolMapping.Commands
export type Method = keyof Commands
export type Params<M extends Method> = Commands[M]["paramsType"] extends [] ? undefined
  : Commands[M]["paramsType"][0]
export type Result<M extends Method> = Commands[M]["returnType"]

/** A command the browser answered with an error (as opposed to not answering). */
export class CdpProtocolError extends Data.TaggedError("CdpProtocolError")<{
  readonly method: string
  readonly code: number
  readonly message: string
}> {}

export type SendError = CdpProtocolError | BrowserUnavailable

export interface Connection {
  readonly endpoint: CdpEndpoint
  readonly wsUrl: string
  readonly isOpen: () => boolean
  readonly send: <M extends Method>(
    method: M,
    params?: Params<M>,
    sessionId?: string
  ) => Effect.Effect<Result<M>, SendError>
}

/** The websocket's frames may be large (a full-page screenshot is base64 in one message). */
export const MAX_PAYLOAD = 256 * 1024 * 1024

/** A websocket URL as dialled: credentials taken out of the URL and sent as an Authorization header. */
export const dialTarget = (wsUrl: string): { readonly url: string; readonly headers: Record<string, string> } => {
  try {
    const u = new URL(wsUrl)
    const auth = basicAuthOf(u)
    return auth === undefined ? { url: wsUrl, headers: {} } : { url: withoutUserinfo(u).href, headers: { authorization: auth } }
  } catch {
    return { url: wsUrl, headers: {} }
  }
}

/**
 * The CDP client on one websocket: commands numbered, answers matched by id, everything still waiting failed
 * when the socket closes. Events are not listened to here (the automation library has its own connection).
 */
interface Client {
  readonly send: (method: string, params: unknown, sessionId: string | undefined) => Promise<unknown>
  readonly isOpen: () => boolean
  readonly close: () => Promise<void>
}

/** A command the browser answered with `error` (as opposed to a socket that closed). */
interface Refusal {
  readonly response: { readonly code: number; readonly message: string }
}

const makeClient = (ws: WebSocket): Client => {
  let nextId = 1
  let open = true
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>()
  ws.on("message", (data: RawData) => {
    let message: { id?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown } }
    try {
      message = JSON.parse(data.toString())
    } catch {
      return
    }
    if (typeof message.id !== "number") return
    const w = waiting.get(message.id)
    if (w === undefined) return
    waiting.delete(message.id)
    if (message.error !== undefined) {
      const refusal: Refusal = {
        response: {
          code: typeof message.error.code === "number" ? message.error.code : 0,
          message: typeof message.error.message === "string" ? message.error.message : JSON.stringify(message.error)
        }
      }
      w.reject(refusal)
    } else {
      w.resolve(message.result ?? {})
    }
  })
  ws.on("close", () => {
    open = false
    for (const w of waiting.values()) w.reject(new Error("websocket closed"))
    waiting.clear()
  })
  // After the handshake an error is followed by close, which fails what waits.
  ws.on("error", () => undefined)
  return {
    isOpen: () => open,
    send: (method, params, sessionId) =>
      new Promise((resolve, reject) => {
        if (!open) return reject(new Error("websocket closed"))
        const id = nextId++
        waiting.set(id, { resolve, reject })
        ws.send(JSON.stringify({ id, method, params: params ?? {}, ...(sessionId === undefined ? {} : { sessionId }) }), (e) => {
          if (e == null) return
          waiting.delete(id)
          reject(e)
        })
      }),
    close: () =>
      new Promise<void>((resolve) => {
        if (ws.readyState === WebSocket.CLOSED) return resolve()
        ws.once("close", () => resolve())
        ws.close()
      })
  }
}

const handshake = (ep: CdpEndpoint, wsUrl: string): Effect.Effect<Client, BrowserUnavailable> =>
  Effect.async<Client, BrowserUnavailable>((resume) => {
    const target = dialTarget(wsUrl)
    const shown = redactSecrets(target.url)
    let settled = false
    // No Origin header (a browser refuses upgrades that carry one it was not told to allow); credentials as a
    // header, never in the URL: the websocket client would send a URL's userinfo without decoding it.
    let ws: WebSocket
    try {
      ws = new WebSocket(target.url, {
        headers: target.headers,
        perMessageDeflate: false,
        maxPayload: MAX_PAYLOAD,
        followRedirects: true
      })
    } catch (e) {
      resume(Effect.fail(unreachable(ep, `websocket ${shown}: ${describeError(e)}`)))
      return
    }
    const timer = setTimeout(() => {
      settled = true
      ws.terminate()
      resume(
        Effect.fail(
          new BrowserUnavailable({
            message: `the CDP websocket handshake with ${shown} did not finish within ` +
              `${ep.handshakeTimeoutMs} ms (browser.remoteCdpHandshakeTimeoutMs). The browser may be busy or ` +
              `another client may be holding it; try again or raise browser.remoteCdpHandshakeTimeoutMs.`
          })
        )
      )
    }, ep.handshakeTimeoutMs)
    const failed = (e: unknown) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      ws.terminate()
      const refused = /unexpected server response: (401|403)\b/i.exec(describeError(e))
      resume(Effect.fail(
        refused !== null
          ? authenticationFailed(`the CDP websocket ${shown}`, Number(refused[1]), target.headers.authorization !== undefined)
          : unreachable(ep, `websocket ${shown}: ${describeError(e)}`)
      ))
    }
    ws.once("error", failed)
    ws.once("close", () => failed(new Error("the websocket closed during the handshake")))
    ws.once("open", () => {
      if (settled) return void ws.terminate()
      settled = true
      clearTimeout(timer)
      ws.off("error", failed)
      resume(Effect.succeed(makeClient(ws)))
    })
    return Effect.sync(() => {
      settled = true
      clearTimeout(timer)
      ws.terminate()
    })
  })

const closeClient = (client: Client) =>
  Effect.async<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), 2_000)
    void client.close().then(() => {
      clearTimeout(timer)
      resume(Effect.void)
    })
  })

/** Opens the browser-level websocket at `wsUrl` (the endpoint's own, or the one it advertised); the scope closes it. */
export const openConnection = (
  ep: CdpEndpoint,
  wsUrl: string
): Effect.Effect<Connection, BrowserUnavailable, Scope.Scope> =>
  Effect.gen(function*() {
    const client = yield* Effect.acquireRelease(handshake(ep, wsUrl), closeClient)
    const commandTimeoutMs = ep.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS

    const send = <M extends Method>(method: M, params?: Params<M>, sessionId?: string) =>
      Effect.async<Result<M>, SendError>((resume) => {
        if (!client.isOpen()) {
          resume(Effect.fail(dropped(ep, method)))
          return
        }
        let settled = false
        const timer = setTimeout(() => {
          settled = true
          resume(
            Effect.fail(
              new BrowserUnavailable({
                message: `the browser at ${redactSecrets(ep.url)} did not answer ${method} within ${commandTimeoutMs} ms. ` +
                  `The page may be busy or blocked by a dialog; try again, or check the tab with \`svc browser tabs\`.`
              })
            )
          )
        }, commandTimeoutMs)
        client.send(method, params, sessionId).then(
          (result) => {
            if (settled) return
            settled = true
            clearTimeout(timer)
            resume(Effect.succeed(result as Result<M>))
          },
          (e: unknown) => {
            if (settled) return
            settled = true
            clearTimeout(timer)
            const response = (e as { response?: { code?: unknown; message?: unknown } }).response
            if (response !== undefined && typeof response.message === "string") {
              resume(
                Effect.fail(
                  new CdpProtocolError({
                    method,
                    code: typeof response.code === "number" ? response.code : 0,
                    message: response.message
                  })
                )
              )
            } else {
              resume(Effect.fail(dropped(ep, method)))
            }
          }
        )
        return Effect.sync(() => {
          settled = true
          clearTimeout(timer)
        })
      })

    // The URL without credentials: they travelled in a header.
    return { endpoint: ep, wsUrl: dialTarget(wsUrl).url, isOpen: client.isOpen, send } satisfies Connection
  })
