// "did you mean": when a word on the command line is not a command where one is expected, name the nearest
// commands instead of @effect/cli's list of the top-level ones.

/** A command and its subcommands, by name. */
export interface CommandNode {
  readonly name: string
  readonly children: ReadonlyArray<CommandNode>
  /** Its options, by full name (`--format`). */
  readonly options: ReadonlyArray<string>
  /** Its options that take one of a fixed set of words: `--format` → ai, aria, role. */
  readonly choices: ReadonlyMap<string, ReadonlyArray<string>>
}

/** The command tree of an @effect/cli command (its descriptor's Standard, Map and Subcommands nodes). */
export const commandTree = (command: { readonly descriptor: unknown }): CommandNode => walk(command.descriptor)

const walk = (d: any): CommandNode => {
  switch (d?._tag) {
    case "Standard":
    case "GetUserInput":
      return { name: d.name, children: [], ...optionsOf(d.options) }
    case "Map":
      return walk(d.command)
    case "Subcommands": {
      const parent = walk(d.parent)
      return { ...parent, children: (d.children as ReadonlyArray<unknown>).map(walk) }
    }
    default:
      return { name: "?", children: [], options: [], choices: new Map() }
  }
}

/** The Single options under an options tree (Both, OrElse, Map, WithDefault, ... wrap them), and their choices. */
const optionsOf = (options: any) => {
  const names: Array<string> = []
  const choices = new Map<string, ReadonlyArray<string>>()
  const visit = (o: any) => {
    if (o === null || typeof o !== "object") return
    if (o._tag === "Single") {
      names.push(o.fullName)
      if (o.primitiveType?._tag === "Choice") {
        choices.set(o.fullName, (o.primitiveType.alternatives as ReadonlyArray<readonly [string, unknown]>).map(([n]) => n))
      }
      return
    }
    for (const key of ["options", "left", "right", "argumentOption"]) visit(o[key])
  }
  visit(options)
  return { options: names, choices }
}

/** The options of `command` nearest to `word` (an option it does not have), best first, at most 2. */
export const nearestOptions = (command: CommandNode, word: string): ReadonlyArray<string> => {
  const w = word.split("=")[0]!.toLowerCase()
  const limit = w.length <= 5 ? 1 : w.length <= 9 ? 2 : 3
  return command.options
    .map((o) => ({ o, d: editDistance(w, o) }))
    .filter(({ d, o }) => d <= limit || (w.length >= 4 && o.startsWith(w)))
    .sort((a, b) => a.d - b.d)
    .slice(0, 2)
    .map(({ o }) => o)
}

/**
 * Words agents reach for that are not commands here, and the command that does it. A real command of
 * that name always wins (this is only asked about words that are not one).
 */
const ALIASES: ReadonlyArray<readonly [ReadonlyArray<string>, ReadonlyArray<string>]> = [
  [["back", "forward", "reload", "refresh", "goto", "go", "visit"], ["browser", "navigate"]],
  [["content", "html", "dom", "read", "text"], ["browser", "snapshot"]],
  [["js", "exec", "execute", "script"], ["browser", "evaluate"]],
  [["check", "uncheck", "tap"], ["browser", "click"]],
  [["key", "keypress", "keyboard"], ["browser", "press"]],
  [["scroll"], ["browser", "scrollintoview"]],
  [["newtab", "new-tab"], ["browser", "tab", "new"]]
]

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions: "brwoser" is 1 from "browser"). */
export const editDistance = (a: string, b: string): number => {
  const d: Array<Array<number>> = Array.from({ length: a.length + 1 }, (_, i) => [i])
  for (let j = 1; j <= b.length; j++) d[0]![j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1)
      d[i]![j] = v
    }
  }
  return d[a.length]![b.length]!
}

export interface UnknownCommand {
  /** The word that is not a command. */
  readonly word: string
  /** The command it was given to, e.g. ["svc", "browser"]. */
  readonly parent: ReadonlyArray<string>
  /** Full paths of the nearest commands, best first (at most 3). */
  readonly suggestions: ReadonlyArray<ReadonlyArray<string>>
}

const paths = (node: CommandNode, prefix: ReadonlyArray<string>): Array<ReadonlyArray<string>> =>
  node.children.flatMap((c) => [[...prefix, c.name], ...paths(c, [...prefix, c.name])])

/**
 * The first word of `args` (argv without node and script) that stands where a subcommand is expected but
 * names none, with the nearest commands; undefined when every word before the first leaf command is one.
 * Words starting with `-` are skipped (options), so `svc browser --json back` is still seen.
 */
export const findUnknownCommand = (root: CommandNode, args: ReadonlyArray<string>): UnknownCommand | undefined => {
  let node = root
  const parent: Array<string> = [root.name]
  for (const word of args) {
    if (word === "--") return undefined
    if (word.startsWith("-")) continue
    if (node.children.length === 0) return undefined
    const child = node.children.find((c) => c.name === word)
    if (child !== undefined) {
      node = child
      parent.push(word)
      continue
    }
    return { word, parent, suggestions: suggest(root, node, parent, word) }
  }
  return undefined
}

const suggest = (
  root: CommandNode,
  node: CommandNode,
  parent: ReadonlyArray<string>,
  word: string
): ReadonlyArray<ReadonlyArray<string>> => {
  const w = word.toLowerCase()
  const all = paths(root, [root.name])
  const key = (p: ReadonlyArray<string>) => p.join(" ")
  const out = new Map<string, ReadonlyArray<string>>()
  const add = (p: ReadonlyArray<string>) => void (out.has(key(p)) || out.set(key(p), p))
  // 1. The same name somewhere else: `svc snapshot` → `svc browser snapshot`.
  for (const p of all) if (p[p.length - 1] === w) add(p)
  // 2. A sibling a typo away (the closer the better), or one the word begins.
  const limit = w.length <= 3 ? 1 : w.length <= 6 ? 2 : 3
  node.children
    .map((c) => ({ c, d: editDistance(w, c.name) }))
    .filter(({ c, d }) => d <= limit || (w.length >= 3 && c.name.startsWith(w)))
    .sort((a, b) => a.d - b.d)
    .forEach(({ c }) => add([...parent, c.name]))
  // 3. A word for something a command here does.
  for (const [words, target] of ALIASES) {
    if (words.includes(w) && all.some((p) => key(p) === key([root.name, ...target]))) add([root.name, ...target])
  }
  return [...out.values()].slice(0, 3)
}

/** The one or two lines a person (or a model) reads. */
export const describeUnknownCommand = (u: UnknownCommand): string => {
  const where = u.parent.join(" ")
  const quoted = u.suggestions.map((p) => `\`${p.join(" ")}\``)
  const mean = quoted.length === 0
    ? `\`${where} --help\` lists its commands`
    : `did you mean ${quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(", ")} or ${quoted[quoted.length - 1]}`}?`
  return `unknown command \`${u.word}\` for \`${where}\`; ${mean}`
}
