#!/bin/sh
# The benchmark command runs end to end, reports every figure on each wire
# (udp and shm by default) with a ratio, its target and whether it is met,
# against raw UDP and, where the target says so, libfabric's shm provider
# (fi_pingpong), in a table and as JSON. Its figures are not judged here:
# speed is for `emuverbs bench`, not tests. A baseline that cannot be had
# leaves the emulated figures standing.
. "$(dirname "$0")/lib.sh"
timeout "$(slack 240)" "$EMU" bench --quick >"$WORK/out" 2>&1 ||
	bad "emuverbs bench --quick exit status" "$WORK/out"
cat "$WORK/out"
for f in "8 B RC SEND round trip, busy polling" \
	"8 B RC SEND round trip, events" "8 B WRITE round trip, spinning" \
	"64 KiB WRITE goodput" "64 KiB READ goodput" \
	"CPU per GB of WRITE, sender" "CPU per GB of WRITE, target" \
	"CPU per 4 KiB WRITE, many QPs"; do
	n=$(grep -Ec "^$f.* [0-9.]+/ *[0-9.]+ +[0-9.]+/ *[0-9.]+ +[0-9.]+x \
[<>]=[0-9.]+x (yes|no)\$" "$WORK/out")
	if [ "$n" -eq 2 ]; then
		ok "bench: $f, on both wires"
	else
		bad "bench: $f, on both wires ($n rows)" "$WORK/out"
	fi
done
# Against libfabric shm: the round trip and both goodputs, on each wire,
# measured or said to be unavailable.
vs='( .* [0-9.]+x [<>]=[0-9.]+x (yes|no)|: unavailable)$'
n=$(grep -Ec "^  against libfabric shm$vs" "$WORK/out")
if [ "$n" -eq 6 ]; then
	ok "bench: three figures against libfabric shm per wire"
else
	bad "bench: three figures against libfabric shm per wire ($n)" \
		"$WORK/out"
fi
expect "bench: the machine's CPUs and load" "$WORK/out" \
	'^machine: [0-9]+ CPUs online, load average [0-9.-]+ at the start'
fab='(, [0-9]+ runs.*|\): unavailable: .+)$'
expect "bench: the libfabric baseline, or why not" "$WORK/out" \
	"^libfabric shm \\(fi_pingpong -p shm -e rdm$fab"
for w in udp shm; do
	expect "bench: failed completions at scale reported on $w" \
		"$WORK/out" "^wire $w: failed completions at scale: [0-9-]+\$"
done

# check_json FILE WIRES FABRIC: the JSON's keys, every emulated figure
# measured on each of WIRES; FABRIC: "yes" the baseline was measured or,
# fi_pingpong being there, failed for a reason other than its output
# (which we must understand); "no" it is null with a reason.
check_json() {
	/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
wires, fabric = sys.argv[2].split(","), sys.argv[3]
assert d["runs"] >= 1 and d["cpus"] >= 1 and "load_start" in d, d
fab = d["libfabric_shm"]
err = d["libfabric_shm_error"]
if fabric == "no":
    assert fab is None and err, (fab, err)
elif fab is None:
    assert err and "output" not in err, err
    print("libfabric shm unavailable here:", err)
else:
    assert fab["rtt_8b_us_median"] > 0 and fab["runs"] >= 1, fab
    assert fab["pingpong_64k_mbps_median"] > 0, fab
assert [w["wire"] for w in d["wires"]] == wires, d["wires"]
for w in d["wires"]:
    assert len(w["figures"]) == 8 and w["scale_errors"] is not None, w
    vs = 0
    for f in w["figures"]:
        assert f["emu_median"] > 0 and f["raw_median"] > 0, f
        assert f["target"][:2] in ("<=", ">=") and f["met"] in (True, False), f
        v = f["vs_libfabric_shm"]
        if v is None:
            continue
        vs += 1
        assert v["target"][:2] in ("<=", ">="), v
        if fab is None:
            assert v["ratio"] is None and v["met"] is None, v
        else:
            assert v["ratio"] > 0 and v["met"] in (True, False), v
    assert vs == 3, w
print("ok")' "$1" "$2" "$3"
}

timeout "$(slack 180)" "$EMU" bench --quick --runs 1 --json \
	>"$WORK/json" 2>"$WORK/json.err" ||
	bad "emuverbs bench --json exit status" "$WORK/json.err"
if check_json "$WORK/json" udp,shm yes >"$WORK/py" 2>&1; then
	cat "$WORK/py"
	ok "bench --json: 8 figures on each wire, all measured, the baseline"
else
	bad "bench --json: 8 figures on each wire, all measured, the baseline" \
		"$WORK/py"
fi

# An fi_pingpong that fails: the baseline is null, with the reason, and
# the emulated figures are all there.
mkdir "$WORK/bin"
printf '#!/bin/sh\necho "fi_getinfo: -61" >&2\nexit 61\n' \
	>"$WORK/bin/fi_pingpong"
chmod +x "$WORK/bin/fi_pingpong"
PATH="$WORK/bin:$PATH" timeout "$(slack 180)" "$EMU" bench --quick --runs 1 \
	--wire udp --json >"$WORK/nofab" 2>"$WORK/nofab.err" ||
	bad "emuverbs bench without libfabric: exit status" "$WORK/nofab.err"
if check_json "$WORK/nofab" udp no >"$WORK/py" 2>&1; then
	ok "bench --json without libfabric: baseline null, figures measured"
else
	bad "bench --json without libfabric: baseline null, figures measured" \
		"$WORK/py"
fi
if "$EMU" bench --wire udp,ether >"$WORK/badwire" 2>&1; then
	bad "bench --wire refuses an unknown wire" "$WORK/badwire"
else
	expect "bench --wire refuses an unknown wire" "$WORK/badwire" \
		'^usage: emuverbs bench'
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
