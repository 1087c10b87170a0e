import { Effect } from "effect"
import type { Frame, Page } from "playwright-core"

// What playwright's ARIA text does not say about a page's controls, read from the page in one evaluation
// per frame (all frames at once, beside the snapshot itself): which values are passwords, which controls
// are collapsed, and what rich-text editors (contenteditable with role textbox) hold.

export interface Disclosure {
  readonly role: string
  readonly name: string
  readonly expanded: boolean
}

export interface Editable {
  readonly name: string
  readonly text: string
}

export interface PageControls {
  /** The values of the page's password fields, whitespace normalised as playwright prints values. */
  readonly passwords: ReadonlyArray<string>
  /** Elements with aria-expanded (and the summaries of details), by role and a best-effort name. */
  readonly disclosures: ReadonlyArray<Disclosure>
  /** contenteditable hosts with role textbox: playwright prints no text for them. */
  readonly editables: ReadonlyArray<Editable>
  /** Some frame could not be read: values cannot be checked, so textbox values are all masked. */
  readonly unread: boolean
}

export const NO_CONTROLS: PageControls = { passwords: [], disclosures: [], editables: [], unread: false }

// Runs in the page (kept as source: this project compiles without the DOM library). One walk over the
// elements of the document and its open shadow roots.
const READ_CONTROLS = `(() => {
  const norm = (s) => (s || "").replace(/[\\u200b\\u00ad]/g, "").replace(/\\s+/g, " ").trim()
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
  const passwords = [], disclosures = [], editables = []
  const visit = (root) => {
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) visit(el.shadowRoot)
      const tag = el.localName
      if (tag === "input") {
        if ((el.getAttribute("type") || "").toLowerCase() === "password" && el.value) passwords.push(norm(el.value))
        continue
      }
      if (el.hasAttribute("aria-expanded")) {
        const role = roleOf(el)
        disclosures.push({ role, name: nameOf(el, role), expanded: el.getAttribute("aria-expanded") === "true" })
      } else if (tag === "summary" && el.parentElement && el.parentElement.localName === "details" && el.parentElement.querySelector("summary") === el) {
        const role = roleOf(el)
        disclosures.push({ role, name: nameOf(el, role), expanded: el.parentElement.open })
      }
      if (el.isContentEditable && tag !== "textarea" && !(el.parentElement && el.parentElement.isContentEditable) && roleOf(el) === "textbox") {
        editables.push({ name: nameOf(el, "textbox"), text: norm(el.innerText) })
      }
    }
  }
  visit(document)
  return { passwords, disclosures, editables }
})()`

type FrameControls = Omit<PageControls, "unread">

const readFrame = (frame: Frame) =>
  Effect.tryPromise(() => frame.evaluate(READ_CONTROLS) as Promise<FrameControls>).pipe(
    Effect.timeout("5 seconds"),
    Effect.option
  )

/**
 * The controls of every frame of the page, read at once. Never fails: a frame that cannot be read marks
 * the result `unread`, and the snapshot then masks every textbox value rather than risk showing a password.
 */
export const readPageControls = (page: Page): Effect.Effect<PageControls> =>
  Effect.forEach(page.frames(), readFrame, { concurrency: "unbounded" }).pipe(
    Effect.map((results) => {
      const passwords: Array<string> = []
      const disclosures: Array<Disclosure> = []
      const editables: Array<Editable> = []
      let unread = false
      for (const r of results) {
        if (r._tag === "None") {
          unread = true
          continue
        }
        passwords.push(...r.value.passwords)
        disclosures.push(...r.value.disclosures)
        editables.push(...r.value.editables)
      }
      return { passwords, disclosures, editables, unread }
    })
  )
