import { Either } from "effect"
import { InvalidRequest } from "../../domain/errors.js"
import { redactSecrets } from "../../platform/redact.js"
import { parseUserUrl, type UrlProblem } from "../../platform/url.js"

// The URL a new tab opens, read with the shared reading of typed URLs, refused in a tab's own words.

const TAB_URL_HELP =
  "use an absolute URL such as https://example.com/page (http:, https:, about:blank and data: URLs open; a bare host like example.com becomes https://example.com)"

const tabProblem = (raw: string, problem: UrlProblem): string => {
  switch (problem.kind) {
    case "empty":
      return "the URL is empty"
    case "not-a-url":
      return `${JSON.stringify(raw)} is not a URL`
    case "no-host":
      return `${JSON.stringify(raw)} has no host`
    case "about-page":
      return "of the about: pages only about:blank opens (the others are browser settings)"
    case "scheme":
      return problem.scheme === "file"
        ? "file: URLs open only in the managed browser"
        : `${JSON.stringify(problem.scheme)} URLs cannot be opened in a tab`
  }
}

/**
 * The URL a new tab should open, or why not (see parseUserUrl); file: is accepted only when `allowFile`
 * (the managed browser reads the gateway host's files).
 */
export const normaliseTabUrl = (raw: string, options: { readonly allowFile?: boolean } = {}): string | InvalidRequest =>
  Either.match(parseUserUrl(raw, options), {
    onLeft: (problem) => new InvalidRequest({ message: `${redactSecrets(tabProblem(raw, problem))}; ${TAB_URL_HELP}` }),
    onRight: (url) => url
  })
