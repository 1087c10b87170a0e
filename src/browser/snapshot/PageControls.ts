import { Effect } from "effect"
import type { Frame, Page } from "playwright-core"
import type { MainWorld } from "../act/refGuards.js"
import type { FrameWorldRead, LocalFramesRead } from "../pages/frameWorld.js"

// What playwright's ARIA text does not say about a page's controls, read from the page in one evaluation
// per frame (all frames at once, beside the snapshot itself): which values are passwords, which controls
// are collapsed, what rich-text editors (contenteditable with role textbox) hold, and the plain editors
// and details summaries that its roles miss (PseudoControls.ts).

export interface Disclosure {
  readonly role: string
  readonly name: string
  readonly expanded: boolean
}

export interface Editable {
  readonly name: string
  readonly text: string
}

/** A plain editing host or a details summary (see PseudoControls): its name and text. */
export interface PseudoControl {
  readonly name: string
  readonly text: string
}

export interface Summary extends PseudoControl {
  readonly open: boolean
}

export interface PageControls {
  /** The values of the page's password fields, whitespace normalised as playwright prints values. */
  readonly passwords: ReadonlyArray<string>
  /** Elements with aria-expanded (and the summaries of details), by role and a best-effort name. */
  readonly disclosures: ReadonlyArray<Disclosure>
  /** contenteditable hosts with role textbox: playwright prints no text for them. */
  readonly editables: ReadonlyArray<Editable>
  /** contenteditable divs and spans without a role, which playwright does not show as controls. */
  readonly plainEditables?: ReadonlyArray<PseudoControl> | undefined
  /** The summaries of details elements (without a role), with whether their details are open. */
  readonly summaries?: ReadonlyArray<Summary> | undefined
  /** Some frame could not be read: values cannot be checked, so textbox values are all masked. */
  readonly unread: boolean
}

export const NO_CONTROLS: PageControls = {
  passwords: [],
  disclosures: [],
  editables: [],
  plainEditables: [],
  summaries: [],
  unread: false
}

// Source for the page, shared by the reads below: whitespace normalised as playwright prints values; `roots`,
// the document and each open shadow root under it (targeted queries per tree are cheaper than testing every
// element).
const NORM = `const norm = (s) => (s || "").replace(/[\\u200b\\u00ad]/g, "").replace(/\\s+/g, " ").trim()`
const ROOTS = `const roots = [document]
  for (let k = 0; k < roots.length; k++) {
    for (const el of roots[k].querySelectorAll("*")) if (el.shadowRoot) roots.push(el.shadowRoot)
  }`

// Runs in the page (kept as source: this project compiles without the DOM library).
export const READ_CONTROLS = `(() => {
  ${NORM}
  const fromContent = new Set(["button", "link", "tab", "menuitem", "treeitem", "switch", "checkbox", "radio", "option", "heading"])
  const implicitRole = (el) => {
    const tag = el.localName
    if (tag === "button") return "button"
    if (tag === "a" && el.hasAttribute("href")) return "link"
    if (tag === "select") return el.multiple || el.size > 1 ? "listbox" : "combobox"
    if (tag === "textarea") return "textbox"
    if (tag === "input") {
      const t = (el.getAttribute("type") || "text").toLowerCase()
      if (["button", "submit", "reset", "image"].includes(t)) return "button"
      if (t === "checkbox" || t === "radio") return t
      if (t === "search") return el.hasAttribute("list") ? "combobox" : "searchbox"
      return el.hasAttribute("list") ? "combobox" : "textbox"
    }
    return "generic"
  }
  const roleOf = (el) => {
    const explicit = norm(el.getAttribute("role")).split(" ")[0]
    return explicit || implicitRole(el)
  }
  const nameOf = (el, role) => {
    const by = el.getAttribute("aria-labelledby")
    if (by) {
      const root = el.getRootNode()
      const text = by.split(/\\s+/).map((id) => { const t = root.getElementById ? root.getElementById(id) : document.getElementById(id); return t ? t.textContent : "" }).join(" ")
      if (norm(text)) return norm(text)
    }
    const label = norm(el.getAttribute("aria-label"))
    if (label) return label
    if (el.labels && el.labels.length) return norm([...el.labels].map((l) => l.textContent).join(" "))
    if (fromContent.has(role) || el.localName === "summary") { const t = norm(el.textContent); if (t) return t }
    return norm(el.getAttribute("title"))
  }
  const passwords = [], disclosures = [], editables = [], plainEditables = [], summaries = [], found = []
  const shown = (el) => el.checkVisibility ? el.checkVisibility() : el.getClientRects().length > 0
  ${ROOTS}
  for (const root of roots) {
    for (const el of root.querySelectorAll("input[type=password i]")) if (el.value) passwords.push(norm(el.value))
    for (const el of root.querySelectorAll("[aria-expanded]")) {
      const role = roleOf(el)
      disclosures.push({ role, name: nameOf(el, role), expanded: el.getAttribute("aria-expanded") === "true" })
    }
    for (const el of root.querySelectorAll("details > summary:first-of-type")) {
      if (!el.hasAttribute("role")) {
        found.push({ el, s: { name: nameOf(el, "summary"), text: norm(el.textContent), open: el.parentElement.open } })
        continue
      }
      if (el.hasAttribute("aria-expanded")) continue
      const role = roleOf(el)
      disclosures.push({ role, name: nameOf(el, role), expanded: el.parentElement.open })
    }
    for (const el of root.querySelectorAll("[contenteditable]")) {
      if (!el.isContentEditable || (el.parentElement && el.parentElement.isContentEditable)) continue
      if (roleOf(el) === "textbox") editables.push({ name: nameOf(el, "textbox"), text: norm(el.innerText) })
      else if (!el.hasAttribute("role") && (el.localName === "div" || el.localName === "span") && shown(el)) {
        plainEditables.push({ name: nameOf(el, "generic"), text: norm(el.innerText) })
      }
    }
  }
  // A hidden summary must not take the place of a shown one in the lines: they are matched by name, or by
  // text, in document order. Asking whether one is shown lays out its part of the page, which can cost a lot
  // (80 ms for a hundred "History" summaries in content-visibility sections), so it is asked only where the
  // answer can change the lines: of a summary that another one, not the same in name, text and state, could
  // be taken for. Look-alikes are interchangeable, and one that no line matches is left over.
  // (Counted, not compared pairwise: a page may have thousands of summaries.)
  const kinds = new Map()
  for (const f of found) kinds.set(f.s.name + "\u0001" + f.s.text + "\u0001" + f.s.open, f.s)
  const count = (m, k) => m.set(k, (m.get(k) || 0) + 1)
  // A text's shorter starts that end at a word ("a b c": "a", "a b"), within its first LONG characters: a
  // summary with a longer text is always asked.
  const LONG = 200
  const starts = (t) => {
    const out = []
    for (let i = t.indexOf(" "); i > 0 && i <= LONG; i = t.indexOf(" ", i + 1)) out.push(t.slice(0, i))
    return out
  }
  const names = new Map(), texts = new Map(), heads = new Map()
  for (const k of kinds.values()) {
    count(names, k.name)
    if (k.text === "") continue
    count(texts, k.text)
    for (const h of starts(k.text)) count(heads, h)
  }
  const alone = (s) => names.get(s.name) === 1 &&
    (s.text === "" || (s.text.length <= LONG && texts.get(s.text) === 1 && !heads.has(s.text) && !starts(s.text).some((h) => texts.has(h))))
  for (const f of found) if (alone(f.s) || shown(f.el)) summaries.push(f.s)
  return { passwords, disclosures, editables, plainEditables, summaries }
})()`

/** The values of a document's password fields (its shadow trees too), as READ_CONTROLS reads them. */
export const READ_PASSWORDS = `(() => {
  ${NORM}
  ${ROOTS}
  const out = []
  for (const root of roots) {
    for (const el of root.querySelectorAll("input[type=password i]")) if (el.value) out.push(norm(el.value))
  }
  return out
})()`

type FrameControls = Omit<PageControls, "unread">

/** The worlds svc reads a page's frames in, where it has them (see readMainFrame and readChildFrame). */
export interface ControlWorlds {
  readonly utility?: MainWorld | undefined
  readonly isolated?: FrameWorldRead | undefined
  readonly localFrames?: LocalFramesRead | undefined
}

const READ_TIMEOUT_MS = 5_000

/** `read`'s answer, or undefined when it fails or takes longer than READ_TIMEOUT_MS. */
const bounded = <A>(read: Promise<A | undefined>): Promise<A | undefined> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), READ_TIMEOUT_MS)
  })
  return Promise.race([read.catch(() => undefined), timeout]).finally(() => clearTimeout(timer))
}

/** One frame's controls through the library, or undefined when it cannot be read (detached, navigating, blocked). */
const readFrame = (frame: Frame): Promise<FrameControls | undefined> => bounded(frame.evaluate(READ_CONTROLS) as Promise<FrameControls>)

/** An out-of-process iframe's controls, in a world of svc's own (frameWorld.ts); undefined: the frame is not one. */
const readRemoteFrame = (frame: Frame, isolated: FrameWorldRead | undefined): Promise<{ readonly value: unknown } | undefined> =>
  isolated !== undefined ? isolated(frame, READ_CONTROLS).catch(() => undefined) : Promise.resolve(undefined)

/**
 * The main frame's controls, read in the library's utility world over svc's own session when that world is
 * known: the library's evaluate in the main world first sets up its own helpers in each new document (about
 * 4 ms of the first snapshot of a page). The DOM is the same in both worlds, and the page's scripts
 * cannot reach into that one. When the world is not known, or the call fails (the document was just
 * replaced), the library reads it as before.
 */
const readMainFrame = (page: Page, utility: MainWorld | undefined): Promise<FrameControls | undefined> => {
  const direct = utility?.(page, READ_CONTROLS)
  if (direct === undefined) return readFrame(page.mainFrame())
  return bounded((direct as Promise<FrameControls>).catch(() => readFrame(page.mainFrame())))
}

/**
 * The iframes' controls. An out-of-process iframe is read in a world of svc's own; the iframes that share the
 * page's process, in the library's utility world of each over the page's own session (out of their scripts'
 * reach, one evaluation each). Only when those worlds do not account for every such iframe (a frame just
 * attached, its world not known yet) are they read through the library instead, in their main worlds, and
 * their passwords once more where the worlds are known.
 */
const readChildFrames = async (children: ReadonlyArray<Frame>, page: Page, worlds: ControlWorlds): Promise<Array<FrameControls | undefined>> => {
  const [remote, local] = await Promise.all([
    Promise.all(children.map((f) => readRemoteFrame(f, worlds.isolated))),
    worlds.localFrames !== undefined ? worlds.localFrames(page, READ_CONTROLS).catch(() => undefined) : Promise.resolve(undefined)
  ])
  const read = remote.flatMap((r) => (r !== undefined ? [r.value as FrameControls] : []))
  const inProcess = children.filter((_, k) => remote[k] === undefined)
  if (local !== undefined && local.length === inProcess.length) return [...read, ...(local as Array<FrameControls>)]
  const [byLibrary, passwords] = await Promise.all([
    Promise.all(inProcess.map(readFrame)),
    worlds.localFrames !== undefined
      ? bounded(worlds.localFrames(page, READ_PASSWORDS).then((v) => ({ ...NO_CONTROLS, passwords: v.flat() as Array<string> })))
      : Promise.resolve(undefined)
  ])
  // The passwords' read is a second look: without it, the library's reads stand (unread only where they failed).
  return [...read, ...byLibrary, ...(passwords !== undefined ? [passwords] : [])]
}

/**
 * The controls of every frame of the page, read at once (plain promises: this runs beside every snapshot,
 * and a fiber per frame costs more than the read). Never fails: a frame that cannot be read marks the
 * result `unread`, and the snapshot then masks every textbox value rather than risk showing a password.
 */
export const readPageControls = (page: Page, worlds: ControlWorlds = {}): Effect.Effect<PageControls> =>
  Effect.promise(async () => {
    const main = page.mainFrame()
    const children = page.frames().filter((f) => f !== main)
    const [own, inFrames] = await Promise.all([
      readMainFrame(page, worlds.utility),
      children.length > 0 ? bounded(readChildFrames(children, page, worlds)) : Promise.resolve([])
    ])
    // The iframes not read in time count as one frame unread.
    const results = [own, ...(inFrames ?? [undefined])]
    const passwords: Array<string> = []
    const disclosures: Array<Disclosure> = []
    const editables: Array<Editable> = []
    const plainEditables: Array<PseudoControl> = []
    const summaries: Array<Summary> = []
    let unread = false
    for (const r of results) {
      if (r === undefined) {
        unread = true
        continue
      }
      passwords.push(...r.passwords)
      disclosures.push(...r.disclosures)
      editables.push(...r.editables)
      plainEditables.push(...(r.plainEditables ?? []))
      summaries.push(...(r.summaries ?? []))
    }
    return { passwords, disclosures, editables, plainEditables, summaries, unread }
  })
