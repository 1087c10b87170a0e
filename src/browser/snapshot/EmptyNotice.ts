import type { ResolvedSnapshotOptions } from "./SnapshotOptions.js"

// A snapshot with no line in it says so, and why that may be, instead of answering nothing: an agent that
// gets an empty answer cannot tell a blank page from a failed read.

type Scope = Partial<Pick<ResolvedSnapshotOptions, "interactive" | "selector" | "frame">>

/** The one line a snapshot that found nothing answers instead of an empty text. */
export const emptySnapshotNotice = (o: Scope = {}): string => {
  const frame = o.frame !== undefined ? `the frame ${JSON.stringify(o.frame)}` : undefined
  const scope = o.selector !== undefined
    ? `${JSON.stringify(o.selector)}${frame !== undefined ? ` in ${frame}` : ""}`
    : frame ?? "the page"
  return o.interactive === true
    ? `[no interactive elements in ${scope}: a full snapshot (without --interactive or --efficient) shows all of its content]`
    : `[nothing to read in ${scope}: it is empty, still loading, or shows no text an accessibility snapshot reads ` +
      "(a canvas, images without alt text); a screenshot shows what it looks like]"
}

/** A snapshot's text as answered: the notice above when it has no line. */
export const orEmptyNotice = (text: string, o: Scope = {}): string => text.trim() === "" ? emptySnapshotNotice(o) : text
