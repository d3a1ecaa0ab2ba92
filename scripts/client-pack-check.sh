#!/usr/bin/env bash
# The client as a partner gets it: `amparo serve` (the build `npm start` runs, on a temporary SQLite
# file with the demo loaded) serves the package `npm run build` packed (dist/sdk/); it is installed
# from the server's URL, `npm install <url>`, alone into an empty project (its dependencies from the
# registry). Then the README's "TypeScript client" code and the client README's example, as
# written, are type-checked against the published types and run against the server; the example
# downloads each demo partner's certificate, so the bundled PDF code runs too. The code imports
# nothing but the package (and Node's own modules).
#
# Here rather than in `npm test`: it needs the build, the registry and a listening server, and it
# runs once, not once per database.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

version="$(node -p 'require(process.argv[1]).version' "$root/package.json")"
(cd "$root" && node scripts/build-if-stale.mjs)

echo "[client-pack-check] dist/sdk/amparo-client-$version.tgz"
contents="$(tar -tzf "$root/dist/sdk/amparo-client-$version.tgz" | sort)"
echo "$contents" | sed 's/^/  /'
if echo "$contents" | grep -qvE '^package/(package\.json|README\.md|dist/[a-z-]+\.(js|d\.ts))$'; then
  echo "[client-pack-check] unexpected file in the tarball" >&2
  exit 1
fi

echo "[client-pack-check] starting amparo serve (demo, SQLite in $work)"
port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
export AMPARO_SQLITE_FILE="$work/amparo.sqlite" HOST=127.0.0.1 PORT="$port" LOG_LEVEL=warn
credentials="$(node "$root/dist/amparo.mjs" demo --json | node -e '
  const { partners } = JSON.parse(require("fs").readFileSync(0, "utf8"))
  const [external, own] = ["external", "own"].map((gateway) => partners.find((p) => p.gateway === gateway))
  console.log([external.client_id, external.client_secret, own.client_id, own.client_secret].join(" "))
')"
read -r AMPARO_CLIENT_ID AMPARO_CLIENT_SECRET AMPARO_OWN_CLIENT_ID AMPARO_OWN_CLIENT_SECRET <<<"$credentials"
export AMPARO_CLIENT_ID AMPARO_CLIENT_SECRET AMPARO_OWN_CLIENT_ID AMPARO_OWN_CLIENT_SECRET
(cd "$work" && exec node "$root/dist/amparo.mjs" serve >"$work/serve.log" 2>&1) &
server_pid=$!
url="http://127.0.0.1:$port"
for _ in $(seq 1 300); do
  curl -fs "$url/health" >/dev/null 2>&1 && break
  sleep 0.2
done
curl -fs "$url/health" >/dev/null || { cat "$work/serve.log" >&2; exit 1; }
curl -fs "$url/" | node -e '
  const index = JSON.parse(require("fs").readFileSync(0, "utf8"))
  if (!index.sdk?.endsWith("/sdk/amparo-client.tgz")) throw new Error("GET / links no client: " + JSON.stringify(index))
'

echo "[client-pack-check] npm install $url/sdk/amparo-client.tgz into an empty project"
mkdir "$work/project"
cd "$work/project"
printf '{"name":"partner-app","private":true,"type":"module"}\n' >package.json
npm install --silent --no-audit --no-fund "$url/sdk/amparo-client.tgz" typescript@5.9 @types/node@20
node -e '
  const { version, dependencies } = require("./node_modules/@amparo/client/package.json")
  if (version !== process.argv[1]) throw new Error("installed version " + version + ", service " + process.argv[1])
  const names = Object.keys(dependencies).sort().join(",")
  if (names !== "openapi-fetch,standardwebhooks") throw new Error("runtime dependencies: " + names)
' "$version"
# The ts blocks of a README section (the whole file when no section is named) as one file.
blocks() {
  node -e '
    const [file, heading, out] = process.argv.slice(1)
    const readme = require("fs").readFileSync(file, "utf8")
    const section = heading ? (readme.split(new RegExp(`^## ${heading}$`, "m"))[1]?.split(/^## /m)[0] ?? "") : readme.split(/^## /m)[0]
    const code = [...section.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1])
    if (code.length === 0) throw new Error(`no ts block in ${file} ${heading}`)
    require("fs").writeFileSync(out, code.join("\n"))
  ' "$@"
}
blocks "$root/README.md" "TypeScript client" flow.ts
blocks "$root/clients/typescript/README.md" "" example.ts
blocks "$root/clients/typescript/README.md" "Claim documents" claim.ts
blocks "$root/clients/typescript/README.md" "What it does" declined.ts
# The client README's set-up, as written (its shell block: an empty folder made an ES module, the
# client from the server's URL), with the server's address for localhost:3000.
node -e '
  const readme = require("fs").readFileSync(process.argv[1], "utf8")
  const setup = readme.match(/^```sh\n([\s\S]*?)^```$/m)[1]
  require("fs").writeFileSync("setup.sh", setup.replaceAll("http://localhost:3000", process.argv[2]))
' "$root/clients/typescript/README.md" "$url"
(cd "$work" && bash -euo pipefail "$work/project/setup.sh" && cd partner-app \
  && npm pkg get type | grep -qx '"module"' \
  && echo "[client-pack-check] the client README's set-up ran in an empty folder")
npx tsc --strict --target es2022 --module nodenext --moduleResolution nodenext --types node --skipLibCheck false flow.ts example.ts claim.ts declined.ts

AMPARO_URL="$url" node example.js | tee "$work/example.log"
for gateway in external own; do
  line="$(grep -E "^$gateway: subscription [0-9]+ pago, certificado-AMP-[0-9]{4}-[0-9]{6}\.pdf$" "$work/example.log")"
  pdf="${line##*, }"
  head -c 5 "$pdf" | grep -q '%PDF-' || { echo "[client-pack-check] $pdf is not a PDF" >&2; exit 1; }
done
AMPARO_URL="$url" node claim.js | tee "$work/claim.log"
grep -qE '^claim SIN-[0-9]{4}-[0-9]{6} under_review, nota-fiscal\.pdf application/pdf$' "$work/claim.log"
AMPARO_URL="$url" node declined.js | tee "$work/declined.log"
grep -q '^insufficient_funds ' "$work/declined.log"
AMPARO_URL="$url" node flow.js | tee "$work/flow.log"
# What the README's comments promise.
grep -qE '^subscription [0-9]+: pago$' "$work/flow.log"
grep -qE '^canceled, refund [0-9.]+$' "$work/flow.log"
grep -qE '^declined: insufficient_funds \(402, request .+\)$' "$work/flow.log"
echo "[client-pack-check] ok"
