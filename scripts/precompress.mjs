// Writes `<file>.br` (Brotli, quality 11) and `<file>.gz` (zopfli: about 5% smaller than gzip -6
// and still plain gzip for every browser) next to each file the browser loads
// (target/site/pkg/*.wasm, *.js, *.css). The server embeds these and sends the Brotli bytes to
// clients that accept `br`, else the gzip bytes to those that accept gzip (src/server/assets.rs).
// Brotli comes with Node (node:zlib), so it adds no package.
// `make build` runs it after the frontend build. A .gz newer than its source is kept, so a second
// run is quick; cargo-leptos rewrites the sources on every frontend build, which makes the old
// .gz older than its source, so it is made again.
import { readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync } from "node:zlib";
import zopfli from "@gfx/zopfli";

const PKG = new URL("../target/site/pkg/", import.meta.url).pathname;
const EXTENSIONS = [".wasm", ".js", ".css"];
const ITERATIONS = 15;

const mtime = (path) => {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
};

let names;
try {
  names = readdirSync(PKG).filter((n) => EXTENSIONS.some((e) => n.endsWith(e))).sort();
} catch (e) {
  console.error(`precompress: cannot read ${PKG}: ${e.message}`);
  process.exit(1);
}

let rawTotal = 0;
let gzTotal = 0;
let brTotal = 0;
for (const name of names) {
  const source = join(PKG, name);
  const target = `${source}.gz`;
  const raw = readFileSync(source);
  const gzTime = mtime(target);
  let note = "kept";
  if (gzTime === null || gzTime < mtime(source)) {
    const gz = Buffer.from(await zopfli.gzipAsync(raw, { numiterations: ITERATIONS }));
    if (!gunzipSync(gz).equals(raw)) {
      console.error(`precompress: ${name}.gz does not decompress to ${name}`);
      process.exit(1);
    }
    // Written beside, then renamed: an interrupted run never leaves a truncated, newer .gz.
    writeFileSync(`${target}.tmp`, gz);
    renameSync(`${target}.tmp`, target);
    note = "written";
  }
  const brTarget = `${source}.br`;
  const brTime = mtime(brTarget);
  if (brTime === null || brTime < mtime(source)) {
    const br = brotliCompressSync(raw, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
      },
    });
    if (!brotliDecompressSync(br).equals(raw)) {
      console.error(`precompress: ${name}.br does not decompress to ${name}`);
      process.exit(1);
    }
    writeFileSync(`${brTarget}.tmp`, br);
    renameSync(`${brTarget}.tmp`, brTarget);
  }
  brTotal += statSync(brTarget).size;
  const gzSize = statSync(target).size;
  rawTotal += raw.length;
  gzTotal += gzSize;
  console.log(
    `${`target/site/pkg/${name}`.padEnd(34)} ${String(raw.length).padStart(8)} bytes  ${String(gzSize).padStart(7)} gzip (zopfli, ${note})`,
  );
}
console.log(
  `${"precompressed".padEnd(34)} ${String(rawTotal).padStart(8)} bytes  ${String(gzTotal).padStart(7)} gzip  ${String(brTotal).padStart(7)} brotli`,
);
