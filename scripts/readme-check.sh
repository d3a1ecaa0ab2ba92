#!/usr/bin/env bash
# The README's shell blocks, as written, in order, on a fresh demo: `amparo serve` (the build
# `npm start` runs) on a new SQLite file (or the empty PostgreSQL database DATABASE_URL names), the demo's credentials in the environment as the README
# asks (CLIENT_ID, CLIENT_SECRET, PASSWORD, OWN_CLIENT_ID, OWN_CLIENT_SECRET), run by one bash
# from an empty folder that holds the project's package.json, node_modules and dist/ (so that
# `npm run amparo -- …` works there). Only the server's port (3000), the portal's (3002) and the webhook
# receiver's (4000) are changed, to free ones. A block preceded by `<!-- readme-check: skip … -->` is not run
# (it installs, starts the server, or needs PostgreSQL or production secrets); each is listed.
#
# Fails when a command fails, or when the server answered any 4xx or 5xx but the ones the README
# shows on purpose (EXPECTED below), so that a README example refused by the service is caught.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
server_pid=""
worker_pid=""
cleanup() {
  for pid in $server_pid $worker_pid; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# Method, path and status of the answers the README shows as refusals.
EXPECTED=(
  'GET /subscriptions 401'   # Errors in Portuguese: no token
  'POST /customers 422'      # Try the recurrence: the customer the own-gateway examples registered
)

(cd "$root" && node scripts/build-if-stale.mjs)

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
port="$(free_port)"
receiver_port="$(free_port)"
portal_port="$(free_port)"
export HOST=127.0.0.1 PORT="$port" LOG_LEVEL=info AMPARO_PORTAL_PORT="$portal_port"
# DATABASE_URL (an empty PostgreSQL database: CI makes one) runs it there; else a new SQLite file.
if [ -n "${DATABASE_URL:-}" ]; then
  node "$root/dist/amparo.mjs" migrate --json >/dev/null
  # The worker `npm start` runs beside the API on SQLite is a process of its own on PostgreSQL.
  node "$root/dist/amparo.mjs" worker >"$work/worker.log" 2>&1 &
  worker_pid=$!
else
  export AMPARO_SQLITE_FILE="$work/amparo.sqlite"
fi

credentials="$(node "$root/dist/amparo.mjs" demo --json)"
eval "$(node -e '
  const { partners } = JSON.parse(process.argv[1])
  const [external, own] = ["external", "own"].map((gateway) => partners.find((p) => p.gateway === gateway))
  console.log(`export CLIENT_ID=${external.client_id} CLIENT_SECRET=${external.client_secret} PASSWORD=${external.password}`)
  console.log(`export OWN_CLIENT_ID=${own.client_id} OWN_CLIENT_SECRET=${own.client_secret}`)
' "$credentials")"

mkdir "$work/reader"
for entry in package.json node_modules dist; do ln -s "$root/$entry" "$work/reader/$entry"; done
(cd "$work/reader" && exec node "$root/dist/amparo.mjs" serve >"$work/serve.log" 2>&1) &
server_pid=$!
for _ in $(seq 1 300); do
  curl -fs "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break
  sleep 0.2
done
curl -fs "http://127.0.0.1:$port/health" >/dev/null || { cat "$work/serve.log" >&2; exit 1; }

node -e '
  const [file, out, port, receiverPort, portalPort] = process.argv.slice(1)
  const lines = require("fs").readFileSync(file, "utf8").split("\n")
  const blocks = []
  let skip = null
  for (let i = 0; i < lines.length; i++) {
    const mark = /^<!-- readme-check: skip (.*) -->$/.exec(lines[i])
    if (mark) { skip = mark[1]; continue }
    if (lines[i] !== "```sh") { if (lines[i].trim() !== "") skip = null; continue }
    const start = i + 1
    let end = start
    while (lines[end] !== "```") end++
    if (skip) console.error(`[readme-check] line ${start}: skipped ${skip}`)
    else blocks.push(`echo "[readme-check] line ${start}" >&2\n${lines.slice(start, end).join("\n")}`)
    skip = null
    i = end
  }
  const script = blocks.join("\n")
    .replaceAll("localhost:3000", `localhost:${port}`).replaceAll("127.0.0.1:3000", `127.0.0.1:${port}`)
    .replaceAll("127.0.0.1:4000", `127.0.0.1:${receiverPort}`).replaceAll(".listen(4000)", `.listen(${receiverPort})`)
    .replaceAll("127.0.0.1:3002", `127.0.0.1:${portalPort}`)
  require("fs").writeFileSync(out, script)
  console.error(`[readme-check] ${blocks.length} blocks to run`)
' "$root/README.md" "$work/readme.sh" "$port" "$receiver_port" "$portal_port"

echo "[readme-check] running the README's blocks in $work/reader"
# In a process group of its own, so that what the README starts in the background (the webhook
# receiver) ends with it.
(cd "$work/reader" && exec setsid bash -eo pipefail ../readme.sh >"$work/readme.log" 2>&1) &
readme_pid=$!
readme_status=0
wait "$readme_pid" || readme_status=$?
kill -- "-$readme_pid" 2>/dev/null || true
if [ "$readme_status" != 0 ]; then
  tail -n 40 "$work/readme.log" >&2
  echo "[readme-check] a README command failed (exit $readme_status)" >&2
  exit 1
fi
grep '^\[readme-check\]' "$work/readme.log" | tail -n 3

# Every answer the server gave, as `METHOD path status`: none may be an error the README does not mean.
refusals="$(node -e '
  const expected = new Set(process.argv[2].split("\n"))
  let answers = 0
  let meant = 0
  for (const line of require("fs").readFileSync(process.argv[1], "utf8").split("\n")) {
    if (!line.startsWith("{")) continue
    const { method, url, status } = JSON.parse(line)
    if (status === undefined) continue
    answers++
    if (status < 400) continue
    const answer = `${method} ${url.split("?")[0]} ${status}`
    if (expected.has(answer)) meant++
    else console.log(answer)
  }
  console.error(`[readme-check] the service answered ${answers} requests; ${meant} refusals the README shows on purpose`)
' "$work/serve.log" "$(printf '%s\n' "${EXPECTED[@]}")")"
if [ -n "$refusals" ]; then
  echo "[readme-check] the service refused README commands:" >&2
  echo "$refusals" >&2
  grep -n '"status":[45]' "$work/serve.log" | head -n 20 >&2
  exit 1
fi
echo "[readme-check] ok"
