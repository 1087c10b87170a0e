import CDP from "chrome-remote-interface"
import type { ProtocolMapping } from "devtools-protocol/types/protocol-mapping.js"
import { Data, Effect, type Scope } from "effect"
import { BrowserUnavailable } from "../../../domain/errors.js"
import { type CdpEndpoint, DEFAULT_COMMAND_TIMEOUT_MS } from "../endpoints.js"
import { redactSecrets } from "../../../platform/redact.js"
import { authenticationFailed, describeError, dropped, hasUserinfo, unreachable } from "../messages.js"

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

/** An empty protocol descriptor: commands go through `client.send`, so the 1 MB local descriptor (about
 * 40 ms to prepare per connection) is not needed. */
const NO_PROTOCOL: CDP.Protocol = { version: { major: "1", minor: "3" }, domains: [] }

const handshake = (ep: CdpEndpoint, wsUrl: string): Effect.Effect<CDP.Client, BrowserUnavailable> =>
  Effect.async<CDP.Client, BrowserUnavailable>((resume) => {
    let settled = false
    const timer = setTimeout(() => {
      settled = true
      resume(
        Effect.fail(
          new BrowserUnavailable({
            message: `the CDP websocket handshake with ${redactSecrets(wsUrl)} did not finish within ` +
              `${ep.handshakeTimeoutMs} ms (browser.remoteCdpHandshakeTimeoutMs). The browser may be busy or ` +
              `another client may be holding it; try again or raise browser.remoteCdpHandshakeTimeoutMs.`
          })
        )
      )
    }, ep.handshakeTimeoutMs)
    CDP({ target: wsUrl, protocol: NO_PROTOCOL }).then(
      (client) => {
        // A handshake that finishes after we gave up must not leak its socket.
        if (settled) return void client.close().catch(() => undefined)
        settled = true
        clearTimeout(timer)
        resume(Effect.succeed(client))
      },
      (e: unknown) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        const refused = /unexpected server response: (401|403)\b/i.exec(describeError(e))
        resume(Effect.fail(
          refused !== null
            ? authenticationFailed(
              `the CDP websocket ${redactSecrets(wsUrl)}`,
              Number(refused[1]),
              hasUserinfo(wsUrl),
              // The websocket client (chrome-remote-interface's ws) takes the header from the URL as written.
              /^[a-z]+:\/\/[^/?#@]*%[0-9a-f]{2}[^/?#@]*@/i.test(wsUrl)
                ? " The websocket client sends the user and password as the URL writes them, percent-escapes " +
                  "included, so one with characters a URL must escape (such as @ : / ? # or spaces) cannot log in " +
                  "on the websocket: use credentials without them, or the service's ?token=."
                : ""
            )
            : unreachable(ep, `websocket ${redactSecrets(wsUrl)}: ${describeError(e)}`)
        ))
      }
    )
    return Effect.sync(() => {
      settled = true
      clearTimeout(timer)
    })
  })

const closeClient = (client: CDP.Client) =>
  Effect.async<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), 2_000)
    client.close().then(
      () => {
        clearTimeout(timer)
        resume(Effect.void)
      },
      () => {
        clearTimeout(timer)
        resume(Effect.void)
      }
    )
  })

/** Opens the browser-level websocket at `wsUrl` (the endpoint's own, or the one it advertised); the scope closes it. */
export const openConnection = (
  ep: CdpEndpoint,
  wsUrl: string
): Effect.Effect<Connection, BrowserUnavailable, Scope.Scope> =>
  Effect.gen(function*() {
    const client = yield* Effect.acquireRelease(handshake(ep, wsUrl), closeClient)
    let open = true
    client.on("disconnect", () => {
      open = false
    })
    const commandTimeoutMs = ep.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS

    const send = <M extends Method>(method: M, params?: Params<M>, sessionId?: string) =>
      Effect.async<Result<M>, SendError>((resume) => {
        if (!open) {
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
        const p = client.send(method as never, (params ?? {}) as never, sessionId as never) as unknown as Promise<
          Result<M>
        >
        p.then(
          (result) => {
            if (settled) return
            settled = true
            clearTimeout(timer)
            resume(Effect.succeed(result))
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

    return { endpoint: ep, wsUrl, isOpen: () => open, send } satisfies Connection
  })
