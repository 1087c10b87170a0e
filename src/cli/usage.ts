import { type CommandNode, describeUnknownCommand, findUnknownCommand, nearestOptions } from "./suggest.js"

// A usage error @effect/cli found, as the one line runCli prints: an unknown command or option gets the
// nearest ones, an option at a command that only groups others says where it goes, and a value @effect/cli
// refused ("'abc' is not a integer") names the option it was given to.

export interface UsageError {
  /** The `_tag` `--json` reports. */
  readonly tag: string
  readonly message: string
}

/**
 * `args` is argv without node and script; `printed` is what @effect/cli printed for the error, folded to
 * one line; `tag` is its ValidationError's tag.
 */
export const describeUsageError = (
  tree: CommandNode,
  args: ReadonlyArray<string>,
  tag: string,
  printed: string
): UsageError => {
  if (tag === "CommandMismatch") {
    const unknown = findUnknownCommand(tree, args)
    if (unknown !== undefined) return { tag: "UnknownCommand", message: describeUnknownCommand(unknown) }
    const group = groupGivenOptions(tree, args)
    if (group !== undefined) {
      const where = group.path.join(" ")
      return {
        tag: "MissingSubcommand",
        message: `\`${where}\` needs a command before \`${group.option}\` (\`${where} --help\` lists them)`
      }
    }
  }
  const unknownOption = /^Received unknown argument: '(--?[^']+)'$/s.exec(printed)
  if (unknownOption !== null) {
    const word = unknownOption[1]!
    const command = commandAt(tree, args)
    const near = nearestOptions(command, word)
    const where = pathTo(tree, args).join(" ")
    return {
      tag: "UnknownOption",
      message: `unknown option \`${word}\` for \`${where}\`; ` +
        (near.length > 0 ? `did you mean ${near.map((o) => `\`${o}\``).join(" or ")}?` : `\`${where} --help\` lists its options`)
    }
  }
  if (tag === "InvalidValue") {
    return { tag, message: nameTheOption(commandAt(tree, args), args, printed.replace(/ is not a integer$/, " is not an integer")) }
  }
  return { tag, message: printed === "" ? tag : printed }
}

/** The command path the words lead to when it has subcommands but none was given, with its first option. */
const groupGivenOptions = (tree: CommandNode, args: ReadonlyArray<string>) => {
  let node = tree
  const path = [tree.name]
  let option: string | undefined
  for (const word of args) {
    if (word === "--") break
    if (word.startsWith("-")) {
      option ??= word.split("=")[0]
      continue
    }
    const child = node.children.find((c) => c.name === word)
    if (child === undefined) return undefined
    node = child
    path.push(word)
    option = undefined
  }
  return node.children.length > 0 && option !== undefined ? { path, option } : undefined
}

/** The command the words name (the deepest one reached), and its path. */
const walkTo = (tree: CommandNode, args: ReadonlyArray<string>) => {
  let node = tree
  const path = [tree.name]
  for (const word of args) {
    if (word === "--") break
    const child = word.startsWith("-") ? undefined : node.children.find((c) => c.name === word)
    if (child !== undefined) {
      node = child
      path.push(word)
    }
  }
  return { node, path }
}
const commandAt = (tree: CommandNode, args: ReadonlyArray<string>) => walkTo(tree, args).node
const pathTo = (tree: CommandNode, args: ReadonlyArray<string>) => walkTo(tree, args).path

/** `--name value` and `--name=value` pairs of the command line. */
const optionValues = (args: ReadonlyArray<string>): Array<readonly [string, string]> => {
  const pairs: Array<readonly [string, string]> = []
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!
    if (word === "--") break
    if (!word.startsWith("--")) continue
    const eq = word.indexOf("=")
    if (eq > 0) pairs.push([word.slice(0, eq), word.slice(eq + 1)])
    else if (args[i + 1] !== undefined && !args[i + 1]!.startsWith("--")) pairs.push([word, args[i + 1]!])
  }
  return pairs
}

/** Prefix the option whose value was refused, when the command line says which one it was. */
const nameTheOption = (command: CommandNode, args: ReadonlyArray<string>, message: string): string => {
  const pairs = optionValues(args)
  const quoted = /^'(.*)' is not an? /s.exec(message)
  if (quoted !== null) {
    const named = pairs.filter(([, value]) => value === quoted[1])
    if (named.length === 1) return `${named[0]![0]}: ${message}`
  }
  const cases = /^Expected one of the following cases: (.*)$/s.exec(message)
  if (cases !== null) {
    const allowed = cases[1]!.split(", ")
    const same = (a: ReadonlyArray<string> | undefined) => a !== undefined && a.join(", ") === allowed.join(", ")
    const named = pairs.filter(([option, value]) => same(command.choices.get(option)) && !allowed.includes(value))
    if (named.length === 1) return `${named[0]![0]}: '${named[0]![1]}' is not one of ${allowed.join(", ")}`
  }
  return message
}
