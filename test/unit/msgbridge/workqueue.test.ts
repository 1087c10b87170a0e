import { it } from "@effect/vitest"
import { Deferred, Effect, Either, Exit, Layer, Scope, Stream } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect } from "vitest"
import { waitUntil } from "../../support/gateway.js"
import { Agent } from "../../../src/agent/Agent.js"
import { makeStatePaths } from "../../../src/config/StatePaths.js"
import type { SvcConfig } from "../../../src/config/SvcConfig.js"
import { resolveAccounts } from "../../../src/msgbridge/channel/Accounts.js"
import { makeChannel } from "../../../src/msgbridge/channel/Channel.js"
import { BridgeHttpClientLive } from "../../../src/msgbridge/bridge/transport.js"
import { makeWorkQueue } from "../../../src/msgbridge/channel/WorkQueue.js"
import { fakeBridge } from "../../support/fakeBridge.js"

const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))
const until = (check: () => boolean, ms = 5000) => Effect.promise(() => waitUntil(check, ms))

describe("WorkQueue", () => {
  it.scopedLive("runs one key's items in submission order, other keys alongside, never more than the bound", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      let running = 0
      let most = 0
      // The first item of each key is the slowest: order must still hold within a key.
      const q = yield* makeWorkQueue<{ key: string; n: number }>({
        concurrency: 2,
        run: (item) =>
          Effect.gen(function*() {
            running++
            most = Math.max(most, running)
            yield* sleep(item.n === 0 ? 60 : 5)
            log.push(`${item.key}${item.n}`)
            running--
          })
      })
      for (let n = 0; n < 4; n++) for (const key of ["a", "b", "c"]) yield* q.submit(key, { key, n })
      yield* until(() => log.length === 12)
      for (const key of ["a", "b", "c"]) {
        expect(log.filter((x) => x.startsWith(key))).toEqual([0, 1, 2, 3].map((n) => `${key}${n}`))
      }
      expect(most).toBe(2)
      // While a's slow first item ran, b ran too (lanes are independent).
      expect(log.indexOf("b0")).toBeLessThan(log.indexOf("a1"))
      expect(q.waiting()).toBe(0)
    }))

  it.scopedLive("while submissions pour in, only the burst bound starts; after the burst, the full bound", () =>
    Effect.gen(function*() {
      // Items run until the test lets them go, so what starts when depends on the queue's rule, not on how
      // quickly this machine runs them. The burst window is long enough that no stall of the test outlasts it.
      const gates = new Map<number, Deferred.Deferred<void>>()
      const gate = (n: number) => {
        let g = gates.get(n)
        if (g === undefined) {
          g = Deferred.unsafeMake<void>(undefined as never)
          gates.set(n, g)
        }
        return g
      }
      const release = (ns: ReadonlyArray<number>) => Effect.forEach(ns, (n) => Deferred.succeed(gate(n), undefined))
      const started: Array<number> = []
      let running = 0
      let finished = 0
      const q = yield* makeWorkQueue<number>({
        concurrency: 8,
        burst: { concurrency: 2, submits: 32, window: "1500 millis" },
        run: (n) =>
          Effect.gen(function*() {
            running++
            started.push(n)
            yield* Deferred.await(gate(n))
            running--
            finished++
          })
      })
      for (let i = 0; i < 64; i++) yield* q.submit(`chat${i}`, i)
      // The first eight started before the 32nd quick submission made it a burst.
      expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
      // They end within the burst: only two take their place.
      yield* release(started.slice())
      yield* until(() => finished === 8 && started.length === 10)
      yield* sleep(50)
      expect(started.length).toBe(10)
      expect(running).toBe(2)
      // Once the burst is over (1.5 s after the last submission), eight run at once.
      yield* until(() => started.length === 16)
      yield* sleep(50)
      expect(running).toBe(8)
      expect(started.length).toBe(16)
      // The rest drains, eight at a time.
      while (finished < 64) {
        yield* release(started.slice())
        yield* sleep(5)
      }
      expect(q.waiting()).toBe(0)
    }))

  it.scopedLive("a failing or dying item does not stop its lane", () =>
    Effect.gen(function*() {
      const done: Array<number> = []
      const q = yield* makeWorkQueue<number>({
        concurrency: 1,
        run: (n) => (n === 1 ? Effect.die("boom") : Effect.sync(() => void done.push(n)))
      })
      for (const n of [0, 1, 2]) yield* q.submit("k", n)
      yield* until(() => done.length === 2)
      expect(done).toEqual([0, 2])
    }))

  it.scopedLive("submit waits while the backlog is at capacity, then queues in order", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const seen: Array<number> = []
      const q = yield* makeWorkQueue<number>({
        concurrency: 1,
        capacity: 2,
        run: (n) => Effect.zipRight(Deferred.await(gate), Effect.sync(() => void seen.push(n)))
      })
      yield* q.submit("k", 0) // running
      yield* q.submit("k", 1)
      yield* q.submit("k", 2) // backlog full now
      const third = yield* Effect.fork(q.submit("k", 3))
      yield* sleep(30)
      expect(third.unsafePoll()).toBeNull()
      expect(q.waiting()).toBe(2)
      yield* Deferred.succeed(gate, undefined)
      yield* until(() => seen.length === 4)
      expect(seen).toEqual([0, 1, 2, 3])
    }))

  it.live("at the end of its scope: nothing new starts, running items finish (not interrupted)", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const finished: Array<number> = []
      const interrupted: Array<number> = []
      const q = yield* Scope.extend(
        makeWorkQueue<number>({
          concurrency: 1,
          run: (n) =>
            Effect.zipRight(sleep(80), Effect.sync(() => void finished.push(n))).pipe(
              Effect.onInterrupt(() => Effect.sync(() => void interrupted.push(n)))
            )
        }),
        scope
      )
      yield* q.submit("k", 0)
      yield* q.submit("k", 1)
      yield* sleep(10)
      yield* Scope.close(scope, Exit.void)
      // Closing waited for the running item; the queued one is left (to start-up recovery).
      expect(finished).toEqual([0])
      yield* q.submit("k", 2)
      yield* sleep(150)
      expect(finished).toEqual([0])
      expect(interrupted).toEqual([])
    }))
})

describe("msgbridge channel processing order", () => {
  it.scopedLive("two messages of one chat are answered in arrival order even when the first takes longer", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge({ serverInfo: { private_api: true, helper_connected: true } })
      const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-order-"))
      const config = {
        channels: { msgbridge: { serverUrl: bridge.url, password: bridge.password, dmPolicy: "open" } }
      } as unknown as SvcConfig
      const accounts = resolveAccounts(config)
      if (Either.isLeft(accounts)) throw new Error(accounts.left.message)
      // The agent is slow on "first", quick on everything else.
      const agent = Layer.succeed(Agent, {
        reply: (context) =>
          Stream.fromEffect(Effect.as(sleep(context.text === "first" ? 300 : 0), `echo: ${context.text}`))
      })
      const channel = yield* makeChannel(config, makeStatePaths(stateDir), accounts.right[0]!).pipe(
        Effect.provide(Layer.merge(BridgeHttpClientLive, agent))
      )
      let n = 0
      const msg = (text: string, sender: string) => ({
        type: "new-message",
        data: {
          guid: `ORDER-${++n}`,
          text,
          handle: { address: sender, service: "iMessage" },
          isFromMe: false,
          attachments: [],
          dateCreated: Date.now(),
          chats: [{ guid: `iMessage;-;${sender}`, style: 45, chatIdentifier: sender, displayName: "" }]
        }
      })
      const texts = () => bridge.callsTo("/api/v1/message/text").map((c) => c.body as { chatGuid: string; message: string })
      for (const [text, sender] of [["first", "+15551230001"], ["second", "+15551230001"], ["other chat", "+15559870002"]] as const) {
        expect((yield* channel.handleWebhook(msg(text, sender))).status).toBe(200)
      }
      yield* until(() => texts().length === 3)
      const alice = texts().filter((t) => t.chatGuid === "iMessage;-;+15551230001").map((t) => t.message)
      expect(alice).toEqual(["echo: first", "echo: second"])
      // Another chat is not held up behind the slow one.
      expect(texts()[0]!.message).toBe("echo: other chat")
    }))
})
