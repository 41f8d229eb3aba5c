#!/bin/sh
# Makes doc/plot-example.svg from a real run, as the README shows it:
# ib_write_bw (64 KiB WRITEs for 4 s) between two processes on a 1x QDR
# link, the receiver losing 1% of the WRITE packets (seed 7) and the
# sender's port down from 1.5 to 1.7 s, both traced, drawn by emuverbs
# plot. Run from a built tree: scripts/plot-example.sh [OUT.svg]
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/doc/plot-example.svg}
work=$(mktemp -d "${TMPDIR:-/tmp}/emuverbs-example.XXXXXX")
# KEEP=1 leaves the traces and the run's output there.
[ -n "${KEEP-}" ] || trap 'rm -rf "$work"' EXIT
port=$((20000 + $$ % 1000))
export EMUVERBS_SPEED=QDR EMUVERBS_WIDTH=1x
cat >"$work/srv.conf" <<EOF
[device emu0]
[fault loss]
action = drop
dir = rx
op = write
prob = 0.01
seed = 7
EOF
cat >"$work/cli.conf" <<EOF
[device emu0]
[fault down]
action = port_down
at = 1500ms
[fault up]
action = port_up
at = 1700ms
EOF
EMUVERBS_ADDRESS=127.204.0.1 EMUVERBS_CONFIG=$work/srv.conf \
	EMUVERBS_TRACE=$work/receiver.jsonl \
	"$top/emuverbs" run ib_write_bw -d emu0 -x 0 -p $port -D 4 -s 65536 \
	>"$work/server.out" 2>&1 &
srv=$!
sleep 1
EMUVERBS_ADDRESS=127.204.0.2 EMUVERBS_CONFIG=$work/cli.conf \
	EMUVERBS_TRACE=$work/sender.jsonl \
	"$top/emuverbs" run ib_write_bw -d emu0 -x 0 -p $port -D 4 -s 65536 \
	127.0.0.1 >"$work/client.out" 2>&1
wait $srv
"$top/emuverbs" plot "$work/sender.jsonl" "$work/receiver.jsonl" -o "$out" \
	--title "ib_write_bw, 1x QDR: 1% of the WRITE packets lost at the \
receiver, the sender's port down for 200 ms"
grep -A2 'BW average' "$work/client.out" | tail -2
