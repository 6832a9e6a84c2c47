// Builds static/editor.js (CodeMirror 6 and src/main.js as one IIFE) and static/editor.LICENSE.txt (the licence
// of every npm package that ended up in the bundle). Run through scripts/build-editor.
import { build } from "esbuild";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "static", "editor.js");

const result = await build({
  absWorkingDir: here, // metafile paths are then relative to editor/
  entryPoints: [join(here, "src", "main.js")],
  bundle: true,
  format: "iife",
  target: ["chrome111", "firefox115", "safari16"],
  minify: true,
  legalComments: "none", // the licences go to editor.LICENSE.txt, whole
  metafile: true,
  outfile: out,
  banner: { js: "/* CodeMirror 6 for the inspector's pages, built by scripts/build-editor from editor/; licences: editor.LICENSE.txt */" },
});

// The packages whose files are in the bundle, each with its version and licence text.
const packages = new Map();
for (const input of Object.keys(result.metafile.inputs)) {
  const parts = input.split(/[\\/]/);
  const at = parts.lastIndexOf("node_modules");
  if (at < 0) continue;
  const depth = parts[at + 1].startsWith("@") ? 2 : 1;
  const root = join(here, ...parts.slice(0, at + 1 + depth));
  packages.set(parts.slice(at + 1, at + 1 + depth).join("/"), root);
}
const sections = [];
for (const [name, root] of [...packages].sort()) {
  const meta = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const file = readdirSync(root).find((f) => /^(LICEN[CS]E|COPYING)/i.test(f));
  if (!file) throw new Error(`${name}: no licence file beside the package`);
  sections.push(`${name} ${meta.version} (${meta.license})\n${"-".repeat(60)}\n${readFileSync(join(root, file), "utf8").trim()}\n`);
}
writeFileSync(join(here, "..", "static", "editor.LICENSE.txt"),
  "static/editor.js bundles these npm packages (versions pinned in editor/package-lock.json):\n\n" +
  sections.join("\n"));
console.log(`static/editor.js: ${readFileSync(out).length.toLocaleString("en")} bytes, ${packages.size} packages`);
