import { InvalidRequest } from "../../domain/errors.js"

// Reading the ref an agent passed: the AI snapshot's numbers (`12`), refs inside iframes (`f1e2`) and role
// snapshot refs (`e3`), with the wrappings agents copy around them; anything else is refused with what to do.

/** What resolve says whenever a ref cannot be trusted. */
export const FRESH_SNAPSHOT_HINT =
  "take a fresh snapshot (`svc browser snapshot`, or `svc browser snapshot --interactive`) and use a [ref=…] from it"

// ---------------------------------------------------------------------------------------------------------
// Parsing what an agent passes

export type ParsedRef =
  | { readonly kind: "ai"; readonly key: string }
  | { readonly kind: "role"; readonly key: string }

/** A main-frame AI ref as shown: a number. */
export const NUMERIC = /^\d{1,9}$/
const FRAME_AI = /^f\d{1,9}e\d{1,9}$/
const ROLE = /^e\d{1,9}$/
/** Things an agent might copy around a ref: `[ref=12]`, `ref=12`, `@12`. */
const WRAPPED = /^\[?ref=([^\]\s]+)\]?$/i

const looksLikeSelector = (s: string) =>
  /^(css|xpath|text|id|data-testid|role|internal|aria-ref)[=:]/i.test(s) || /^\/\/|^\.\.?\//.test(s) ||
  /[#.[\]>~+*:=()'"\s]/.test(s) || /^[a-z][a-z0-9-]*$/i.test(s)

/** A ref an agent passed, or why it is not one (CSS selectors and the like are refused, not guessed at). */
export const parseRef = (input: string): ParsedRef | InvalidRequest => {
  let s = input.trim()
  const wrapped = WRAPPED.exec(s)
  if (wrapped !== null) s = wrapped[1]!
  if (s.startsWith("@")) s = s.slice(1)
  s = s.toLowerCase()
  if (NUMERIC.test(s)) return { kind: "ai", key: String(Number(s)) }
  if (FRAME_AI.test(s)) return { kind: "ai", key: s }
  if (ROLE.test(s)) return { kind: "role", key: s }
  const shown = JSON.stringify(input.length > 80 ? `${input.slice(0, 80)}…` : input)
  return new InvalidRequest({
    message: input.trim() === ""
      ? `an empty ref: actions take a ref from a snapshot; ${FRESH_SNAPSHOT_HINT}`
      : looksLikeSelector(input.trim())
      ? `${shown} looks like a CSS selector, XPath or text selector, and actions take snapshot refs only ` +
        "([ref=12], [ref=e3] or [ref=f1e2]), so they never act on an element the agent has not seen. Run " +
        "`svc browser snapshot` (or `snapshot --interactive`) and pass the [ref=…] of the element you mean."
      : `${shown} is not a snapshot ref: refs look like 12, e3 or f1e2. Run \`svc browser snapshot\` (or ` +
        "`snapshot --interactive`) and pass the [ref=…] of the element you mean."
  })
}
