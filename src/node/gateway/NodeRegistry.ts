import { Socket } from "@effect/platform"
import { Deferred, Duration, Effect, Either, Fiber } from "effect"
import * as crypto from "node:crypto"
import { ConfigStore } from "../../config/ConfigStore.js"
import { BrowserUnavailable, Forbidden, InternalError, NotFound } from "../../domain/errors.js"
import type { NodeInfo } from "../../domain/nodes.js"
import {
  type DecodedResponse,
  decodeResponse,
  type ForwardedRequest,
  type GatewayMessage,
  type Hello,
  nodeIdOf,
  parseMessage,
  PROTOCOL,
  verifyHello
} from "../protocol.js"
import { type NodeRecord, openNodeStore } from "./NodeStore.js"

// The gateway's side of node hosts: who is connected, who is approved (NodeStore), and requests forwarded
// to a node by id and answered by it. A request waits for its own answer only: when the node's socket
// closes, every request still in flight fails at once with a message that says so.

/** How long a node may take to say hello after connecting. */
const HELLO_TIMEOUT = Duration.seconds(10)
/** The gateway pings each node this often (JSON messages), and drops one silent for three of them. */
const PING_EVERY = Duration.seconds(10)
const SILENT_LIMIT_MS = 35_000
/** A write to a node that takes longer than this is a connection that is going away. */
const SEND_TIMEOUT = Duration.seconds(5)

/** A request for a node, as the control server received it (without `node=`). */
export interface NodeRequest {
  readonly method: string
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array
}

interface Connection {
  readonly id: string
  readonly hello: Hello
  readonly send: (chunk: string | Uint8Array) => Effect.Effect<void, Socket.SocketError>
  readonly close: (reason: string) => Effect.Effect<void>
  readonly inFlight: Map<number, Deferred.Deferred<DecodedResponse, BrowserUnavailable>>
}

const describe = (r: NodeRecord) => `node ${r.id} (${r.name})`
const approveHint = (id: string) => `run \`svc nodes approve ${id}\` on the gateway's machine`

export class NodeRegistry extends Effect.Service<NodeRegistry>()("svc/NodeRegistry", {
  scoped: Effect.gen(function*() {
    const config = yield* ConfigStore
    const store = yield* Effect.try({
      try: () => openNodeStore(config.paths.credentialsDir),
      catch: (e) => e as Error
    }).pipe(Effect.orDie)
    const connections = new Map<string, Connection>()
    let nextRequestId = 1

    const info = (r: NodeRecord): NodeInfo => ({
      id: r.id,
      status: r.status,
      name: r.name,
      connected: connections.has(r.id),
      capabilities: r.capabilities,
      profiles: r.profiles,
      ...(r.defaultProfile !== undefined ? { defaultProfile: r.defaultProfile } : {}),
      ...(r.version !== undefined ? { version: r.version } : {}),
      firstSeenAt: r.firstSeenAt,
      lastSeenAt: connections.has(r.id) ? Date.now() : r.lastSeenAt,
      ...(r.approvedAt !== undefined ? { approvedAt: r.approvedAt } : {})
    })

    const list = Effect.sync(() =>
      store.all().map(info).sort((a, b) => Number(b.connected) - Number(a.connected) || a.firstSeenAt - b.firstSeenAt)
    )

    const unknown = (id: string) =>
      new NotFound({ message: `no node ${id} is known to this gateway; \`svc nodes list\` shows the nodes that have connected` })

    const approve = (id: string) =>
      Effect.gen(function*() {
        const r = store.get(id)
        if (r === undefined) return yield* unknown(id)
        if (r.status !== "approved") {
          yield* Effect.try({ try: () => store.put({ ...r, status: "approved", approvedAt: Date.now() }), catch: storeFailure })
          const c = connections.get(id)
          if (c !== undefined) yield* Effect.ignore(c.send(JSON.stringify({ type: "approved" } satisfies GatewayMessage)))
        }
        const node = info(store.get(id)!)
        return {
          node,
          message: r.status === "approved"
            ? `${describe(r)} was already approved`
            : `approved ${describe(r)}${node.connected ? "; its browser can be used now (node=" + id + ")" : "; it is used once it connects"}`
        }
      })

    const revoke = (id: string) =>
      Effect.gen(function*() {
        const r = store.get(id)
        if (r === undefined) return yield* unknown(id)
        yield* Effect.try({ try: () => store.remove(id), catch: storeFailure })
        const c = connections.get(id)
        if (c !== undefined) yield* c.close("revoked on the gateway")
        return {
          id,
          revoked: true,
          message: `revoked ${describe(r)}: it must be approved again (it shows as pending when it next connects)`
        }
      })

    const forward = (id: string, request: NodeRequest) =>
      Effect.gen(function*() {
        const r = store.get(id)
        if (r === undefined) return yield* unknown(id)
        const c = connections.get(id)
        if (c === undefined) {
          return yield* new BrowserUnavailable({
            message: `${describe(r)} is not connected (last seen ${new Date(r.lastSeenAt).toISOString()}); ` +
              "start `svc node run` on its machine, or leave out node= to use this machine's browser"
          })
        }
        if (r.status !== "approved") {
          return yield* new Forbidden({ message: `${describe(r)} is waiting for approval: ${approveHint(id)}` })
        }
        if (!c.hello.capabilities.includes("browser")) {
          return yield* new Forbidden({
            message: `${describe(r)} does not serve its browser (nodeHost.browserProxy.enabled is false in its svc.json)`
          })
        }
        const requestId = nextRequestId++
        const answer = yield* Deferred.make<DecodedResponse, BrowserUnavailable>()
        c.inFlight.set(requestId, answer)
        const message: ForwardedRequest = {
          type: "request",
          id: requestId,
          method: request.method,
          path: request.path,
          headers: request.headers,
          body: Buffer.from(request.body).toString("base64")
        }
        return yield* c.send(JSON.stringify(message)).pipe(
          Effect.mapError(() =>
            new BrowserUnavailable({ message: `${describe(r)} could not be sent the request: its connection is closing` })
          ),
          Effect.zipRight(Deferred.await(answer)),
          Effect.ensuring(Effect.sync(() => c.inFlight.delete(requestId)))
        )
      })

    /** One node connection, from the challenge to its close. */
    const accept = (socket: Socket.Socket, remote: string) =>
      Effect.scoped(Effect.gen(function*() {
        const write = yield* socket.writer
        const nonce = crypto.randomBytes(32).toString("base64")
        let connection: Connection | undefined
        let lastHeard = Date.now()
        // A write waits for the socket to be open: on one that is closing, it would wait for ever.
        const send = (chunk: string | Uint8Array) =>
          write(chunk).pipe(Effect.timeoutFail({ duration: SEND_TIMEOUT, onTimeout: () => new Socket.SocketGenericError({ reason: "Write", cause: "timeout" }) }))
        const closeWith = (code: number, reason: string) => Effect.ignore(send(new Socket.CloseEvent(code, reason.slice(0, 120)) as never))

        const onHello = (hello: Hello) =>
          Effect.gen(function*() {
            if (connection !== undefined) return
            if (hello.protocol !== PROTOCOL || !verifyHello(hello, nonce)) {
              yield* Effect.logWarning(`node socket from ${remote}: refused, its hello is not signed for this challenge`)
              return yield* closeWith(4003, "the hello's signature does not verify")
            }
            const id = nodeIdOf(hello.publicKey)
            const known = store.get(id)
            if (known !== undefined && known.publicKey !== hello.publicKey) {
              return yield* closeWith(4003, "this id belongs to another key")
            }
            const now = Date.now()
            const record: NodeRecord = {
              id,
              publicKey: hello.publicKey,
              status: known?.status ?? "pending",
              name: String(hello.name).slice(0, 100),
              capabilities: hello.capabilities.slice(0, 20).map(String),
              profiles: hello.profiles.slice(0, 100).map(String),
              ...(hello.defaultProfile !== undefined ? { defaultProfile: String(hello.defaultProfile) } : {}),
              version: String(hello.version).slice(0, 40),
              firstSeenAt: known?.firstSeenAt ?? now,
              lastSeenAt: now,
              ...(known?.approvedAt !== undefined ? { approvedAt: known.approvedAt } : {})
            }
            const saved = yield* Effect.either(Effect.try({ try: () => store.put(record), catch: storeFailure }))
            if (Either.isLeft(saved)) {
              yield* Effect.logError(saved.left.message)
              return yield* closeWith(1011, "the gateway cannot save its nodes file")
            }
            // The same key connecting again is the same node restarted: the newer connection wins.
            const older = connections.get(id)
            if (older !== undefined) yield* older.close("replaced by a newer connection of the same node")
            connection = {
              id,
              hello,
              send,
              close: (reason) => closeWith(4000, reason),
              inFlight: new Map()
            }
            connections.set(id, connection)
            const pending = record.status === "pending"
            yield* Effect.logInfo(`node ${id} (${record.name}) connected from ${remote}${pending ? ", pending approval" : ""}`)
            yield* Effect.ignore(send(JSON.stringify({
              type: "welcome",
              id,
              status: record.status,
              message: pending ? `waiting for approval: ${approveHint(id)}` : "approved: serving the gateway's requests"
            } satisfies GatewayMessage)))
          })

        const onResponse = (frame: Uint8Array) =>
          Effect.sync(() => {
            const decoded = decodeResponse(frame)
            if (decoded === undefined || connection === undefined) return
            const waiting = connection.inFlight.get(decoded.header.id)
            if (waiting !== undefined) Deferred.unsafeDone(waiting, Effect.succeed(decoded))
          })

        const onFrame = (data: string | Uint8Array) => {
          lastHeard = Date.now()
          if (typeof data !== "string") return onResponse(data)
          const message = parseMessage<Hello | { type: "pong" }>(data)
          if (message?.type === "hello") return onHello(message as Hello)
          return undefined
        }

        const helloDeadline = Effect.sleep(HELLO_TIMEOUT).pipe(
          Effect.zipRight(Effect.suspend(() => connection === undefined ? closeWith(4008, "no hello within 10 s") : Effect.void))
        )
        const heartbeat = Effect.gen(function*() {
          while (true) {
            yield* Effect.sleep(PING_EVERY)
            if (Date.now() - lastHeard > SILENT_LIMIT_MS) {
              yield* Effect.logWarning(`node socket from ${remote}: silent for ${SILENT_LIMIT_MS / 1000} s, closing it`)
              return yield* closeWith(4008, "silent too long")
            }
            yield* Effect.ignore(send(JSON.stringify({ type: "ping" })))
          }
        })
        const helper = yield* Effect.fork(Effect.zip(helloDeadline, heartbeat, { concurrent: true }))
        // The socket opens inside runRaw (the upgrade is completed there): the challenge goes once it is open.
        const cleanUp = Effect.suspend(() => {
          if (connection === undefined) return Effect.void
          const c = connection
          if (connections.get(c.id) === c) connections.delete(c.id)
          const r = store.get(c.id)
          if (r !== undefined) {
            try {
              store.put({ ...r, lastSeenAt: Date.now() })
            } catch {
              // lastSeenAt is a courtesy: the next save writes it
            }
          }
          const gone = new BrowserUnavailable({
            message: `node ${c.id} (${c.hello.name}) disconnected while the request was in flight; ` +
              "it reconnects by itself when its `svc node run` is still running: try again"
          })
          for (const waiting of c.inFlight.values()) Deferred.unsafeDone(waiting, Effect.fail(gone))
          return Effect.logInfo(`node ${c.id} (${c.hello.name}) disconnected`)
        })
        yield* socket.runRaw(onFrame, {
          onOpen: send(JSON.stringify({ type: "challenge", nonce } satisfies GatewayMessage)).pipe(Effect.ignore)
        }).pipe(
          Effect.ignore,
          // Also when the gateway stops (the server interrupts this fiber): in-flight requests fail, none hangs.
          Effect.ensuring(Effect.zipRight(Fiber.interrupt(helper), cleanUp))
        )
      }))

    /** The connected nodes (approved or not) as routing sees them. */
    const connected = Effect.sync(() =>
      [...connections.values()].map((c) => ({
        id: c.id,
        browser: c.hello.capabilities.includes("browser"),
        pending: store.get(c.id)?.status !== "approved"
      }))
    )

    yield* Effect.addFinalizer(() =>
      Effect.forEach([...connections.values()], (c) => c.close("the gateway is stopping"), { discard: true })
    )

    return { list, approve, revoke, forward, accept, connected } as const
  })
}) {}

const storeFailure = (e: unknown) => new InternalError({ message: (e as Error).message })
