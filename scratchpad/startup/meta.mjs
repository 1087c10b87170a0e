import * as esbuild from "esbuild"
const r = await esbuild.build({ entryPoints: ["src/entry/cli.ts"], bundle: true, platform: "node", format: "cjs", target: "node20", minify: true, metafile: true, write: false, external: ["playwright-core"], logLevel: "error" })
const out = Object.values(r.metafile.outputs)[0]
const byPkg = new Map()
for (const [f, v] of Object.entries(out.inputs)) { const m = f.match(/node_modules\/((@[^/]+\/)?[^/]+)/); const k = m ? m[1] : f.split("/").slice(0,2).join("/"); byPkg.set(k, (byPkg.get(k) ?? 0) + v.bytesInOutput) }
console.log([...byPkg].sort((a,b)=>b[1]-a[1]).map(([k,v])=>`${(v/1024).toFixed(0)}K ${k}`).join("\n"))
const files = Object.entries(out.inputs).sort((a,b)=>b[1].bytesInOutput-a[1].bytesInOutput).slice(0,25)
console.log(files.map(([f,v])=>`${(v.bytesInOutput/1024).toFixed(0)}K ${f}`).join("\n"))
