// Pages for the tests of a click or hover by ref (quick-click, quick-hover): each logs what reached its
// buttons in `window.log`, through the handler attribute the test names (`onclick`, `onmouseover`).

export const logger = `<script>window.log = []</script>`

type Handler = "onclick" | "onmouseover"

/**
 * A button that slides 300 px to the right over 400 ms once the test starts it (SLIDE: an animation, nothing
 * in the DOM changes), then stays there; another button sits where it slides past.
 */
export const slidingPage = (on: Handler) =>
  `<!doctype html><title>Sliding</title>${logger}
<button id="b" style="margin:40px" ${on}="window.log.push('button')">Move</button>
<button id="other" style="position:absolute;left:200px;top:40px" ${on}="window.log.push('other')">Other</button>`

/** Starts the slide (and empties the log). */
export const SLIDE = "() => { window.log = []; document.getElementById('b').animate([{ transform: 'translateX(0)' }, " +
  "{ transform: 'translateX(300px)' }], { duration: 400, fill: 'forwards' }) }"

/**
 * A button "Far" below the fold; a header (with a button "Top") that the page hides once it is scrolled: a
 * change of layout under a pointer that was over it, where the browser moves its hover, with events of its own.
 */
export const belowTheFoldPage = (on: Handler) =>
  `<!doctype html><title>Below the fold</title>${logger}
<header id="h" style="height:60px;background:#ddd" onmouseover="window.log.push('header')"><button id="top">Top</button></header>
<div style="height:2500px"></div>
<button id="b" ${on}="window.log.push('button')">Far</button>
<div style="height:2500px"></div>
<script>addEventListener("scroll", () => { document.getElementById("h").style.display = scrollY > 0 ? "none" : "" })</script>`

/**
 * A button "Inner" in a box that scrolls: where the box has it, its centre is inside the viewport and
 * clipped by the box (the page has the box's edge or the body there, not the button).
 */
export const scrolledBoxPage = (on: Handler) =>
  `<!doctype html><title>Scrolled box</title>${logger}
<div id="box" style="height:100px;overflow:auto;margin:20px;border:1px solid #999">
<div style="height:400px"></div><button id="inner" ${on}="window.log.push('inner')">Inner</button><div style="height:400px"></div>
</div>`
