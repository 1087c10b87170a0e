import { Cause, Duration, Effect, Fiber, Runtime, type Scope } from "effect"

// Where accepted messages wait for processing: one FIFO lane per key (a chat), so two messages of one chat
// are processed (and answered) in the order they arrived, and a bounded number of lanes running at once
// instead of one fiber per message. Lanes take turns: a chat with a long backlog does not hold others back.
//
// Intake keeps priority. While webhooks pour in (a burst: `burst.submits` within `burst.window`), at most
// `burst.concurrency` lanes run, so answering webhooks is not slowed by processing the ones already
// accepted; once the burst is over, up to `concurrency` lanes run and the backlog drains. At a webhook or
// two per second this never triggers, and a slow agent (a model answering in seconds) gets all its lanes.
// The price, measured with the echo agent on a 2-core machine: webhooks sustained above the burst rate
// (default 320/s) over many chats are processed by 2 lanes only (~370/s) instead of 16 (~500/s), so the
// backlog grows until `capacity` slows intake down; with the rate at 640/s processing kept up with 400/s
// but the webhook p99 rose from ~33 ms to ~46 ms.
//
// What waits here is already durable (accepted in the journal), so the queue is memory only. At the end of
// its scope the queue stops starting work; what has not started stays pending in the journal and start-up
// recovery processes it. Running work is never interrupted (a processing step interrupted half-way would
// still be marked done): it gets a grace period to finish, then is left to end with the process, exactly as
// a crash would leave it.

export interface WorkQueue<A> {
  /**
   * Queue `item` behind the earlier items of `key`. Returns once queued: at once unless the backlog is at
   * capacity, then when there is room again (backpressure). After the queue closed, the item is left to
   * start-up recovery.
   */
  readonly submit: (key: string, item: A) => Effect.Effect<void>
  /** Items waiting (not started). */
  readonly waiting: () => number
  /** Items running. */
  readonly running: () => number
}

export interface WorkQueueOptions<A, R> {
  /** Lanes (keys) processed at once. */
  readonly concurrency: number
  /** While submissions arrive this fast, run at most `concurrency` lanes (default 2 lanes at ≥32 in 100 ms). */
  readonly burst?: { readonly concurrency: number; readonly submits: number; readonly window: Duration.DurationInput }
  /** Items waiting in memory before submit waits for room (default 10,000). */
  readonly capacity?: number
  /** How long the end of the scope waits for running items (default 2 s). */
  readonly closeGrace?: Duration.DurationInput
  /** Process one item. Failures are the caller's to handle; a defect is logged. */
  readonly run: (item: A) => Effect.Effect<void, never, R>
}

export const WORK_QUEUE_CAPACITY = 10_000
export const WORK_QUEUE_BURST = { concurrency: 2, submits: 32, window: Duration.millis(100) } as const

export const makeWorkQueue = <A, R = never>(options: WorkQueueOptions<A, R>): Effect.Effect<WorkQueue<A>, never, Scope.Scope | R> =>
  Effect.gen(function*() {
    const concurrency = Math.max(1, Math.floor(options.concurrency))
    const burst = options.burst ?? WORK_QUEUE_BURST
    const burstConcurrency = Math.min(concurrency, Math.max(1, Math.floor(burst.concurrency)))
    const burstSubmits = Math.max(1, Math.floor(burst.submits))
    const burstWindowMs = Duration.toMillis(Duration.decode(burst.window))
    const capacity = Math.max(1, options.capacity ?? WORK_QUEUE_CAPACITY)
    const grace = Duration.decode(options.closeGrace ?? Duration.seconds(2))
    const runFork = Runtime.runFork(yield* Effect.runtime<R>())

    const lanes = new Map<string, Array<A>>() // key → items not started, oldest first
    const ready: Array<string> = [] // keys with waiting items and nothing running, in turn order
    const active = new Set<string>() // keys with an item running
    const fibers = new Set<Fiber.RuntimeFiber<void>>()
    const roomWaiters: Array<() => void> = []
    const submitTimes: Array<number> = new Array(burstSubmits).fill(-Infinity) // ring of the latest submissions
    let submitIndex = 0
    let waitingCount = 0
    let closed = false
    let recheck: ReturnType<typeof setTimeout> | undefined

    /** The oldest of the last `burstSubmits` submissions is recent: webhooks are pouring in. */
    const inBurst = (now: number): boolean => now - submitTimes[submitIndex]! < burstWindowMs

    const runItem = (item: A) =>
      options.run(item).pipe(
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause) ? Effect.void : Effect.logError("msgbridge: processing a message failed", cause)
        )
      )

    const start = (key: string): void => {
      const lane = lanes.get(key)!
      const item = lane.shift()!
      if (lane.length === 0) lanes.delete(key)
      waitingCount--
      if (roomWaiters.length > 0 && waitingCount < capacity) roomWaiters.shift()!()
      active.add(key)
      // Not a child of the caller: the webhook that submitted it answers at once, the item runs on.
      const fiber = runFork(runItem(item))
      fibers.add(fiber)
      fiber.addObserver(() => {
        fibers.delete(fiber)
        active.delete(key)
        if (lanes.has(key)) ready.push(key) // the lane's next item waits for its turn behind other chats
        pump()
      })
    }

    const pump = (): void => {
      if (closed || ready.length === 0) return
      const now = performance.now()
      const limit = inBurst(now) ? burstConcurrency : concurrency
      while (active.size < limit && ready.length > 0) start(ready.shift()!)
      // Held back by a burst: look again when it may be over, in case nothing finishes meanwhile.
      if (ready.length > 0 && active.size < concurrency && recheck === undefined) {
        recheck = setTimeout(() => {
          recheck = undefined
          pump()
        }, burstWindowMs)
      }
    }

    const enqueue = (key: string, item: A): void => {
      if (closed) return
      submitTimes[submitIndex] = performance.now()
      submitIndex = (submitIndex + 1) % burstSubmits
      const lane = lanes.get(key)
      if (lane !== undefined) lane.push(item)
      else {
        lanes.set(key, [item])
        if (!active.has(key)) ready.push(key)
      }
      waitingCount++
      pump()
    }

    const submit = (key: string, item: A): Effect.Effect<void> =>
      Effect.suspend(() => {
        if (closed || waitingCount < capacity) return Effect.sync(() => enqueue(key, item))
        // Full: wait for room, then queue (in submission order among the waiters).
        return Effect.async<void>((resume) => {
          const wake = () => {
            enqueue(key, item)
            resume(Effect.void)
          }
          roomWaiters.push(wake)
          return Effect.sync(() => {
            const i = roomWaiters.indexOf(wake)
            if (i >= 0) roomWaiters.splice(i, 1)
          })
        })
      })

    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        closed = true
        if (recheck !== undefined) clearTimeout(recheck)
        for (const wake of roomWaiters.splice(0)) wake() // enqueue is a no-op now: recovery has them
        const running = [...fibers]
        if (running.length > 0) {
          // A finalizer runs uninterruptibly: without `interruptible` the timeout could not stop the wait, and
          // a stop would last as long as the slowest running item (a model turn: its whole timeout).
          yield* Effect.timeout(Effect.interruptible(Fiber.awaitAll(running)), grace).pipe(Effect.ignore)
        }
      })
    )

    return {
      submit,
      waiting: () => waitingCount,
      running: () => fibers.size
    } satisfies WorkQueue<A>
  })
