import { Either } from "effect"
import { InvalidRequest } from "../../domain/errors.js"
import { redactSecrets } from "../../domain/redact.js"
import { parseUserUrl, type UrlProblem } from "../../platform/url.js"

// The URL a new tab opens, read with the shared reading of typed URLs, refused in a tab's own words. Whether
// it may be opened at all is the navigation policy's to say (Tabs.open asks it first).

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
  }
}

/** The URL a new tab should open, or why it is not one (see parseUserUrl). */
export const normaliseTabUrl = (raw: string): string | InvalidRequest =>
  Either.match(parseUserUrl(raw), {
    onLeft: (problem) => new InvalidRequest({ message: `${redactSecrets(tabProblem(raw, problem))}; ${TAB_URL_HELP}` }),
    onRight: (url) => url
  })
