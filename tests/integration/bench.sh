#!/bin/sh
# The benchmark command runs end to end, reports every figure with a ratio
# and its target, in a table and as JSON. Its figures are not judged here:
# speed is for `emuverbs bench`, not tests.
. "$(dirname "$0")/lib.sh"
timeout "$(slack 180)" "$EMU" bench --quick >"$WORK/out" 2>&1 ||
	bad "emuverbs bench --quick exit status" "$WORK/out"
cat "$WORK/out"
for f in "8 B RC SEND round trip, busy polling" \
	"8 B RC SEND round trip, events" "8 B WRITE round trip, spinning" \
	"64 KiB WRITE goodput" "64 KiB READ goodput" \
	"CPU per GB of WRITE, sender" "CPU per GB of WRITE, target" \
	"CPU per 4 KiB WRITE, many QPs"; do
	expect "bench: $f" "$WORK/out" \
		"^$f.* [0-9.]+/ *[0-9.]+ +[0-9.]+/ *[0-9.]+ +[0-9.]+x [<>]=[0-9.]+x\$"
done
expect "bench: failed completions at scale reported" "$WORK/out" \
	'failed completions at scale: [0-9-]+$'
timeout "$(slack 180)" "$EMU" bench --quick --runs 1 --json \
	>"$WORK/json" 2>&1 ||
	bad "emuverbs bench --json exit status" "$WORK/json"
if /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["runs"] == 1 and len(d["figures"]) == 8
for f in d["figures"]:
    assert f["emu_median"] > 0 and f["raw_median"] > 0, f
print("ok")' "$WORK/json" >"$WORK/py" 2>&1; then
	ok "bench --json: 8 figures, all measured"
else
	bad "bench --json: 8 figures, all measured" "$WORK/py"
fi
# The link model's figures: pacing against each modelled rate, and the
# round trip with a one-way latency.
timeout "$(slack 180)" "$EMU" bench --link --runs 1 >"$WORK/link" 2>&1 ||
	bad "emuverbs bench --link exit status" "$WORK/link"
cat "$WORK/link"
for p in "1x SDR" "1x DDR" "1x QDR" "1x FDR"; do
	expect "bench --link: $p" "$WORK/link" \
		"^$p.* [0-9.]+ +[0-9.]+/ *[0-9.]+ +([+-][0-9.]+%|host-limited)"
done
expect "bench --link: the round trip with a latency" "$WORK/link" \
	"^[0-9.]+/[0-9.]+ us: [+-][0-9.]+ us \(twice the latency is 100\)"
timeout "$(slack 180)" "$EMU" bench --link --runs 1 --json \
	>"$WORK/ljson" 2>&1 ||
	bad "emuverbs bench --link --json exit status" "$WORK/ljson"
if /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
# Measured, not judged: under a loaded machine (make check -j) a busy
# polling round trip can take longer than one with the latency added.
assert len(d["rates"]) == 5 and d["rtt_latency_us"] > 0 and d["rtt_us"] > 0, d
for r in d["rates"]:
    assert r["median_mbps"] > 0 and r["model_mbps"] > 0, r
print("ok")' "$WORK/ljson" >"$WORK/lpy" 2>&1; then
	ok "bench --link --json: 5 rates and the latency, all measured"
else
	bad "bench --link --json: 5 rates and the latency, all measured" \
		"$WORK/lpy"
fi
# Two senders into one paced port, DCQCN off and on: both tables and their
# summaries are printed (what they show is for reading, as above).
timeout "$(slack 120)" "$EMU" bench --congestion >"$WORK/cc" 2>&1 ||
	bad "emuverbs bench --congestion exit status" "$WORK/cc"
cat "$WORK/cc"
if [ "$(grep -c '^second half: QP0 [0-9.]* MB/s, QP1 [0-9.]* MB/s' \
	"$WORK/cc")" -eq 2 ]; then
	ok "bench --congestion: DCQCN off and on, each measured"
else
	bad "bench --congestion: DCQCN off and on, each measured" "$WORK/cc"
fi
finish
