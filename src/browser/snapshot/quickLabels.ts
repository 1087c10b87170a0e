// In the library's utility world (self-contained: its source is sent, with the walk's arming: walkBound.ts).
//
// A labelable element's `labels` looks through its whole tree (the document, or its shadow root) for <label>
// elements, the first time each element is asked. The library's walk asks it of every button and field it
// names, so a page of many controls is read in time that grows with their number times the page's size: 2,000
// buttons and 2,000 fields without a label cost a first snapshot about 0.4 s of its 0.8. Where the element's
// tree has no <label> at all there is nothing to find, and the getter answers that at once. It is replaced in
// this world only: the page's own scripts have prototypes of their own, and see nothing of it.

/** Installs the quick answer in this world, once (later calls do nothing); `key` names the mark of that. */
export const quickLabels = (key: string): void => {
  interface Labelable {
    getRootNode(): {
      readonly nodeType: number
      getElementsByTagName?(name: string): { readonly length: number }
      querySelector?(selector: string): unknown
    }
  }
  const g = globalThis as unknown as Record<string, unknown>
  // Marked on the world's global (not enumerable): once per document. Everything is in here: the source is sent.
  const done = `${key}:labels`
  if (g[done] !== undefined) return
  Object.defineProperty(g, done, { value: true, configurable: true, enumerable: false, writable: true })
  const none: ReadonlyArray<never> = Object.freeze([])
  const labelable = ["HTMLInputElement", "HTMLButtonElement", "HTMLSelectElement", "HTMLTextAreaElement", "HTMLOutputElement", "HTMLMeterElement", "HTMLProgressElement"]
  for (const name of labelable) {
    const proto = (g[name] as { readonly prototype?: object } | undefined)?.prototype
    const own = proto !== undefined ? Object.getOwnPropertyDescriptor(proto, "labels") : undefined
    if (proto === undefined || own?.get === undefined) continue
    const get = own.get
    Object.defineProperty(proto, "labels", {
      ...own,
      get(this: Labelable) {
        const root = this.getRootNode()
        const any = root.nodeType === 9 ? (root.getElementsByTagName?.("label").length ?? 1) > 0 : root.querySelector?.("label") !== null
        return any ? get.call(this) : none
      }
    })
  }
}
