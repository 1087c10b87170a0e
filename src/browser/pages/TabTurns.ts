import { Effect, FiberRef } from "effect"

// Requests on one tab take turns. The page does one thing at a time anyway (its main thread); letting
// fifty requests at it at once only makes each wait inside the browser, where a check that should answer
// in a few ms looks like a page that stopped answering. Here they wait in line instead, first come first
// served: an action has the tab to itself, and looks (snapshots, screenshots) that stand next to each other
// in the line go together, since none of them changes the page. A look that comes after a waiting action
// waits for it, so a steady stream of looks never starves an action. Work of svc's own that reads the page
// after an answer (a role snapshot's identity pass) can let the looks in line go first (afterLooks).

/** A tab: its profile and CDP targetId. */
interface TabKey {
  readonly profile: string
  readonly targetId: string
}

const keyOf = (tab: TabKey) => `${tab.profile}\u0000${tab.targetId}`

type Use = "look" | "act"

interface Waiter {
  readonly use: Use
  readonly go: () => void
}

interface Line {
  readonly waiting: Array<Waiter>
  looking: number
  acting: boolean
  /** Requests holding or waiting for a turn; the line goes when none is left. */
  users: number
}

/** The tabs whose turn the current fiber (or the request it was forked for) holds: a turn is re-entrant. */
const Held = FiberRef.unsafeMake<ReadonlyMap<string, Use>>(new Map())

/** Lets in, from the front of the line, whoever can go now. */
const admit = (line: Line) => {
  while (line.waiting.length > 0 && !line.acting) {
    const next = line.waiting[0]!
    if (next.use === "act" && line.looking > 0) return
    line.waiting.shift()
    if (next.use === "act") line.acting = true
    else line.looking++
    next.go()
  }
}

export class TabTurns extends Effect.Service<TabTurns>()("svc/TabTurns", {
  sync: () => {
    const lines = new Map<string, Line>()
    /** Who wants to hear when a tab's line changes (watchLine). */
    const watchers = new Map<string, Set<() => void>>()
    const changed = (key: string) => {
      const set = watchers.get(key)
      if (set !== undefined) for (const notify of [...set]) notify()
    }

    const enter = (key: string, use: Use) =>
      Effect.async<Line>((resume) => {
        let line = lines.get(key)
        if (line === undefined) {
          line = { waiting: [], looking: 0, acting: false, users: 0 }
          lines.set(key, line)
        }
        const mine = line
        mine.users++
        let admitted = false
        const waiter: Waiter = {
          use,
          go: () => {
            admitted = true
            resume(Effect.succeed(mine))
          }
        }
        mine.waiting.push(waiter)
        admit(mine)
        changed(key)
        // Interrupted while waiting (the client went away): out of the line; once let in, `leave` runs.
        return Effect.sync(() => {
          if (admitted) return
          const i = mine.waiting.indexOf(waiter)
          if (i >= 0) mine.waiting.splice(i, 1)
          done(key, mine)
          admit(mine)
          changed(key)
        })
      })

    const done = (key: string, line: Line) => {
      if (--line.users === 0 && lines.get(key) === line) lines.delete(key)
    }

    const leave = (key: string, line: Line, use: Use) =>
      Effect.sync(() => {
        if (use === "act") line.acting = false
        else line.looking--
        done(key, line)
        admit(line)
        changed(key)
      })

    const turn = (tab: TabKey, use: Use) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.flatMap(FiberRef.get(Held), (held) => {
        const key = keyOf(tab)
        // Already in the tab's turn (an action's own snapshot runs in the action's turn).
        if (held.has(key)) return effect
        // Waiting in line can be interrupted (the client went away); once in, the turn is always given back.
        return Effect.uninterruptibleMask((restore) =>
          Effect.flatMap(restore(enter(key, use)), (line) =>
            restore(Effect.locally(effect, Held, new Map([...held, [key, use]]))).pipe(
              Effect.ensuring(leave(key, line, use))
            ))
        )
      })

    /** Runs `effect` with the tab to itself, after the requests that came before it. */
    const inTurn = (tab: TabKey) => turn(tab, "act")

    /** Runs `effect` beside other looks at the tab, after the actions that came before it. */
    const lookingIn = (tab: TabKey) => turn(tab, "look")

    /**
     * Asks `decide` about the tab's line now and whenever it changes, until it answers: "quiet" starts a
     * timer (if none runs) that answers `quietAnswer` after `quietMs`; "wait" stops it.
     */
    const watchLine = <A>(
      tab: TabKey,
      quietMs: number,
      quietAnswer: A,
      decide: (line: Line | undefined, timing: boolean) => { readonly done: A } | "wait" | "quiet"
    ): Effect.Effect<A> =>
      Effect.async<A>((resume) => {
        const key = keyOf(tab)
        let timer: ReturnType<typeof setTimeout> | undefined = undefined
        const set = watchers.get(key) ?? new Set()
        watchers.set(key, set)
        const forget = () => {
          clearTimeout(timer)
          set.delete(check)
          if (set.size === 0 && watchers.get(key) === set) watchers.delete(key)
        }
        const finish = (answer: A) => {
          forget()
          resume(Effect.succeed(answer))
        }
        function check() {
          const verdict = decide(lines.get(key), timer !== undefined)
          if (verdict === "wait") {
            clearTimeout(timer)
            timer = undefined
          } else if (verdict === "quiet") {
            timer ??= setTimeout(() => finish(quietAnswer), quietMs)
          } else {
            finish(verdict.done)
          }
        }
        set.add(check)
        check()
        return Effect.sync(forget)
      })

    /**
     * Ends once no look at the tab has been under way or waiting for `quietMs`, or as soon as an action is
     * under way or waiting: for a read of the page of svc's own that is not part of any answer, which then
     * runs after the looks a client asks for one after another (a screenshot right after a snapshot) rather
     * than ahead of them, and never holds up an action.
     */
    const afterLooks = (tab: TabKey, quietMs: number): Effect.Effect<void> =>
      watchLine(tab, quietMs, undefined, (line) =>
        line !== undefined && (line.acting || line.waiting.some((w) => w.use === "act"))
          ? { done: undefined }
          : line !== undefined && (line.looking > 0 || line.waiting.length > 0)
          ? "wait"
          : "quiet")

    /**
     * Once the requests under way or waiting on the tab are done: true when nothing asks for the tab within
     * `quietMs` after them, false as soon as something does (for work of svc's own that is worth doing only
     * while the agent is thinking).
     */
    const idleFor = (tab: TabKey, quietMs: number): Effect.Effect<boolean> =>
      watchLine(tab, quietMs, true, (line, timing) =>
        line === undefined ? "quiet" : timing ? { done: false } : "wait")

    return { inTurn, lookingIn, afterLooks, idleFor } as const
  }
}) {}
