import { describe, expect, it } from "vitest"
import { mayBeUrlTitle } from "../../../src/browser/pages/Playwright.js"

// The browser names an untitled page after its URL; such a title is read from the page instead.

describe("mayBeUrlTitle", () => {
  it("takes a title that is the URL, or part of it, for the browser's stand-in (spaces in the URL too)", () => {
    const data = "data:text/html,<a href=x>Go</a>"
    expect(mayBeUrlTitle(data, data)).toBe(true)
    expect(mayBeUrlTitle("127.0.0.1:8080/form.html", "http://127.0.0.1:8080/form.html")).toBe(true)
    expect(mayBeUrlTitle("", "https://example.com/")).toBe(true)
    expect(mayBeUrlTitle("about:blank", "about:blank")).toBe(true)
  })

  it("keeps a page's own title", () => {
    expect(mayBeUrlTitle("Sign in to your account", "https://example.com/login")).toBe(false)
    expect(mayBeUrlTitle("Dashboard", "https://example.com/home")).toBe(false)
  })
})
