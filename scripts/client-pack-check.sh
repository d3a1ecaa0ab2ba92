#!/usr/bin/env bash
# The client as a partner gets it: `npm pack` clients/typescript, install the tarball alone into an
# empty project (its dependencies from the registry), then take the README's "TypeScript client"
# code as written, type-check it against the published types and run it against `amparo serve` on
# a temporary SQLite file with the demo loaded. The code imports nothing but the package.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

[ -f "$root/dist/amparo.mjs" ] || (cd "$root" && npm run build)

echo "[client-pack-check] packing clients/typescript"
tarball="$(cd "$root/clients/typescript" && npm pack --silent --pack-destination "$work" | tail -n 1)"
contents="$(tar -tzf "$work/$tarball" | sort)"
echo "$contents" | sed 's/^/  /'
if echo "$contents" | grep -qvE '^package/(package\.json|README\.md|dist/[a-z-]+\.(js|d\.ts))$'; then
  echo "[client-pack-check] unexpected file in the tarball" >&2
  exit 1
fi

echo "[client-pack-check] installing $tarball into an empty project"
mkdir "$work/project"
cd "$work/project"
printf '{"name":"partner-app","private":true,"type":"module"}\n' >package.json
npm install --silent --no-audit --no-fund "$work/$tarball" typescript@5.9 @types/node@20
node -e '
  const deps = require("./node_modules/@amparo/client/package.json").dependencies
  const names = Object.keys(deps).sort().join(",")
  if (names !== "openapi-fetch,standardwebhooks") throw new Error("runtime dependencies: " + names)
'
node -e '
  const readme = require("fs").readFileSync(process.argv[1], "utf8")
  const section = readme.split(/^## TypeScript client$/m)[1]?.split(/^## /m)[0] ?? ""
  const blocks = [...section.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1])
  if (blocks.length === 0) throw new Error("no ts block in the README section TypeScript client")
  require("fs").writeFileSync("flow.ts", blocks.join("\n"))
' "$root/README.md"
npx tsc --strict --target es2022 --module nodenext --moduleResolution nodenext --types node --skipLibCheck false flow.ts

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
node "$root/dist/amparo.mjs" serve >"$work/serve.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 50); do
  curl -fs "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break
  sleep 0.2
done
curl -fs "http://127.0.0.1:$port/health" >/dev/null || { cat "$work/serve.log" >&2; exit 1; }

AMPARO_URL="http://127.0.0.1:$port" node flow.js | tee "$work/flow.log"
# What the README's comments promise.
grep -qE '^subscription [0-9]+: pago$' "$work/flow.log"
grep -qE '^canceled, refund [0-9.]+$' "$work/flow.log"
grep -qE '^declined: insufficient_funds \(402, request .+\)$' "$work/flow.log"
echo "[client-pack-check] ok"
