import type { Page } from "playwright-core"
import type { MainWorld } from "../act/refGuards.js"
import { INTERACTIVE_ROLES } from "./RenderedSnapshot.js"
import { quickLabels } from "./quickLabels.js"
import { quickPseudo } from "./quickPseudo.js"
import { armWalkBound, BOUND_KEY, type BoundAnswer, type BoundArgs, releaseWalkBound } from "./walkEnd.js"

// A snapshot reads only as much of a large page as its character cap can show.
//
// The library's snapshot walks the whole document before anything is cut: on a 12,000-element page (Node's
// fs docs) about 500 ms, and twice that for the first read of a new document, of which the agent then sees
// the first 80,000 characters (an eighth of it). So before the library's walk, svc finds where the cap will
// fall, from a cheap estimate of the text each part of the page makes (or, for a list of controls, of the
// controls it has), and ends the walk there (walkEnd.ts: in the library's utility world, apart from the
// page's own scripts). Everything before the end is read as a whole read reads it; the end is never inside
// an element named by its content (a link, a button, a heading, a table row, a label, ...), and a generic
// wrapper left with a single child may be shown folded. The estimate is within about a third either way;
// each read teaches the document's later ones how it fares there, and a read that fell well short of the
// cap is done once more, further. What lies after the end (elements, and controls among them) is counted
// for the cut's notice.

/** Estimated characters of snapshot text per element, and per level of nesting (indentation). */
const PER_ELEMENT = 10
const PER_DEPTH = 1
/**
 * Room over the cap. The first read of a document: the estimate is within about a third either way on real
 * pages. Later reads know how the estimate fared on this document (the ratio is kept in its world).
 */
const FIRST_ROOM = 1.0
const KNOWN_ROOM = 1.1
/**
 * A read that fell well short of the cap (under this share of it) is done again once, with RETRY_ROOM. One a
 * little short stands: the cap is an upper bound, and the notice says the page goes on.
 */
const SHORT = 0.6
const RETRY_ROOM = 1.25
/**
 * A flat list of controls: characters per control beside its text (up to CONTROL_TEXT of it), and the room
 * over the cap for the document's first such read. The estimate is within about a tenth of the list as shown
 * on real pages (Python's and Node's docs: 266 controls shown, 1.5 read 438 of them, 1.2 reads 346); a page
 * it overrates twice over falls short and is read once more.
 */
const PER_CONTROL = 24
const CONTROL_TEXT = 60
const CONTROLS_ROOM = 1.2

/** The roles a snapshot counts as interactive, for the page's elements that take them by attribute. */
const CONTROL_ROLES = [...INTERACTIVE_ROLES]

const ARM_SOURCE = armWalkBound.toString()
/**
 * Sent with each arming, ahead of it: the walk that follows asks labels (quickLabels.ts) and the `::before` and
 * `::after` content of elements no rule gives one (quickPseudo.ts) without asking the browser. Each is only
 * quicker: one that fails (a world that will not have its getter replaced) leaves the arming and the walk as
 * they were.
 */
const QUICK = [quickLabels, quickPseudo].map((f) => `try { (${f.toString()})(${JSON.stringify(BOUND_KEY)}) } catch {}`).join("\n") + "\n"
const RELEASE_SOURCE = releaseWalkBound.toString()
let armings = 0
const armExpression = (o: Pick<BoundArgs, "limit" | "firstRoom" | "knownRoom" | "controls" | "sameEnd" | "id">) => {
  const arg: BoundArgs = {
    key: BOUND_KEY,
    perElement: PER_ELEMENT,
    perDepth: PER_DEPTH,
    perControl: PER_CONTROL,
    controlText: CONTROL_TEXT,
    controlRoles: CONTROL_ROLES,
    ...o
  }
  return `${QUICK}(${ARM_SOURCE})(${JSON.stringify(arg)})`
}
const releaseExpression = (id: number, chars: number) => `(${RELEASE_SOURCE})(${JSON.stringify(BOUND_KEY)}, ${id}, ${chars})`

/** What lies past the end of a bounded read: for the cut's notice. */
export interface Unread {
  readonly elements: number
  readonly interactive: number
}

export interface BoundedRead {
  readonly raw: string
  /** Set when the walk stopped at an end (the page goes on past what was read). */
  readonly unread: Unread | undefined
}

/** What a control's line in the list has beside what the read shows of it: its ref (` [ref=e1234]`: an estimate). */
const REF_CHARS = 12

/** The characters a flat list of the read's controls takes: their lines, unindented, with their refs. */
const controlChars = (raw: string): number => {
  let chars = 0
  const line = /^ *- '?([a-z]+)[^\n]*/gm
  for (let m = line.exec(raw); m !== null; m = line.exec(raw)) {
    if (INTERACTIVE_ROLES.has(m[1]!)) chars += m[0].trimStart().length + 1 + REF_CHARS
  }
  return chars
}

/**
 * The library's reads of each page, one at a time. The switch in the page's world serves whichever walk comes
 * next, and an arming takes down the one before it: two reads sent together (a read ahead and a snapshot, two
 * clients) could leave one walk ending at the other's end and the other reading the whole page.
 */
const walks = new WeakMap<Page, Promise<unknown>>()
export const oneWalkAtATime = <A>(page: Page, run: () => Promise<A>): Promise<A> => {
  const before = walks.get(page) ?? Promise.resolve()
  const mine = before.then(run, run)
  walks.set(page, mine.catch(() => undefined))
  return mine
}

/**
 * Arms the switch as `args` say (an arming of its own id); the world's answer (undefined without a world, or
 * if it fails), and the release that says whether the walk reached the end (`chars`: the read's length to learn from).
 */
const arm = (page: Page, evaluateUtility: MainWorld, args: Omit<Parameters<typeof armExpression>[0], "id">) => {
  const id = ++armings
  const answer = evaluateUtility(page, armExpression({ ...args, id }))?.then((a) => a as BoundAnswer, () => undefined)
  const release = (chars: number) =>
    evaluateUtility(page, releaseExpression(id, chars))?.then((r) => r === true, () => false) ?? Promise.resolve(false)
  return { answer, release }
}

/** One read with the switch armed as `args` say (see readBounded); the answer is undefined when not bounded. */
const readOnce = (
  page: Page,
  evaluateUtility: MainWorld,
  args: Omit<Parameters<typeof armExpression>[0], "id">,
  read: () => Promise<string>,
  learn: (raw: string) => number
): Promise<{ readonly raw: string; readonly answer: BoundAnswer | undefined }> =>
  oneWalkAtATime(page, () => armedRead(page, evaluateUtility, args, read, learn))

const armedRead = async (
  page: Page,
  evaluateUtility: MainWorld,
  args: Omit<Parameters<typeof armExpression>[0], "id">,
  read: () => Promise<string>,
  learn: (raw: string) => number
): Promise<{ readonly raw: string; readonly answer: BoundAnswer | undefined }> => {
  const armed = arm(page, evaluateUtility, args)
  let raw: string
  try {
    raw = await read()
  } catch (e) {
    void armed.answer?.then((a) => a?.bounded === true ? armed.release(0) : undefined)
    throw e
  }
  const answer = armed.answer === undefined ? undefined : await armed.answer
  if (answer === undefined || !answer.bounded) return { raw, answer: undefined }
  // Whether the walk reached the end: a switch that arrived after the read leaves the read whole.
  return { raw, answer: (await armed.release(learn(raw))) ? answer : undefined }
}

/**
 * Takes `read` (the library's snapshot of the main frame's document) with the walk ended where the cap of
 * `limit` characters falls: of snapshot text (`text`), or of a flat list of controls (`controls`). The switch
 * is armed in the same breath as the read is sent (not waited for: if it arrives late the read is simply
 * whole). A text read that fell well short of the cap is done once more, further. Without the utility world
 * (not known yet) the read is whole.
 */
export const readBounded = async (
  page: Page,
  evaluateUtility: MainWorld,
  limit: number,
  read: () => Promise<string>,
  kind: "text" | "controls" = "text"
): Promise<BoundedRead> => {
  const controls = kind === "controls"
  // How much of the cap the read fills: all its text, or the lines of its controls (a flat list of them).
  const measure = controls ? controlChars : (raw: string) => raw.length
  for (let attempt = 0;; attempt++) {
    const knownRoom = attempt === 0 ? KNOWN_ROOM : RETRY_ROOM
    const args = { limit, firstRoom: controls ? CONTROLS_ROOM : FIRST_ROOM, knownRoom, controls, sameEnd: false }
    let chars = 0
    const { raw, answer } = await readOnce(page, evaluateUtility, args, read, (r) => (chars = measure(r)))
    if (answer === undefined || !answer.bounded) return { raw, unread: undefined }
    if (chars >= limit * SHORT || attempt > 0) {
      return { raw, unread: { elements: answer.unreadElements, interactive: answer.unreadInteractive } }
    }
  }
}

/**
 * Takes `read` with the walk ended where the document's last bounded read ended (a second read of the same
 * part of the page: a role snapshot's refs get their identities from it), or whole when that end is gone.
 */
export const readToSameEnd = async (page: Page, evaluateUtility: MainWorld, read: () => Promise<string>): Promise<string> =>
  (await readOnce(page, evaluateUtility, { limit: 0, firstRoom: 0, knownRoom: 0, controls: false, sameEnd: true }, read, () => 0)).raw

/**
 * Takes `read` only if it can be bounded like readBounded's first text read (or the page is within the cap
 * anyway): the switch is armed and confirmed before the read is sent. Undefined when it was not read.
 */
export const readBoundedOnly = (
  page: Page,
  evaluateUtility: MainWorld,
  limit: number,
  read: () => Promise<string>
): Promise<string | undefined> => oneWalkAtATime(page, () => armedReadOnly(page, evaluateUtility, limit, read))

const armedReadOnly = async (
  page: Page,
  evaluateUtility: MainWorld,
  limit: number,
  read: () => Promise<string>
): Promise<string | undefined> => {
  const armed = arm(page, evaluateUtility, { limit, firstRoom: FIRST_ROOM, knownRoom: KNOWN_ROOM, controls: false, sameEnd: false })
  const answer = await (armed.answer ?? Promise.resolve(undefined))
  if (answer === undefined) return undefined
  let raw: string | undefined
  try {
    raw = await read()
    return raw
  } finally {
    // The read's length tells the document's later reads how the estimate fares here.
    if (answer.bounded) await armed.release(raw?.length ?? 0)
  }
}
