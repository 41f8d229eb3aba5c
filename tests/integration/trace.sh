#!/bin/sh
# The event trace and emuverbs plot: an RC transfer (ib_write_bw through
# `emuverbs run`) whose receiver loses 1% of the WRITE packets and whose
# sender's port goes down for 200 ms writes EMUVERBS_TRACE; every line is
# one JSON object, and the QP states, samples, fault actions, NAKs,
# retransmissions and port events are there. rping's connection events come
# from librdmacm. `emuverbs trace --events` traces a running process;
# `emuverbs plot` draws a valid SVG with gnuplot; bad input is one line.
. "$(dirname "$0")/lib.sh"
need ib_write_bw rping gnuplot /usr/bin/python3 ss

net="127.203.$(($$ % 250 + 1))"
S="env EMUVERBS_ADDRESS=$net.1 EMUVERBS_SPEED=QDR EMUVERBS_WIDTH=1x"
C="env EMUVERBS_ADDRESS=$net.2 EMUVERBS_SPEED=QDR EMUVERBS_WIDTH=1x"
BW="ib_write_bw -d emu0 -x 0"

# events FILE EV: how many lines of FILE are events EV.
events() {
	grep -c "\"ev\":\"$2\"" "$1"
}

# has NAME FILE EV: FILE has at least one EV event.
has() {
	n=$(events "$2" "$3")
	if [ "$n" -gt 0 ]; then
		ok "$1 ($n)"
	else
		bad "$1 (none)" "$2"
	fi
}

# ---- an experiment traced from the start ----------------------------------

cat >"$WORK/srv.conf" <<EOF
[device emu0]
[fault loss]
action = drop
dir = rx
op = write
prob = 0.01
seed = 7
EOF
cat >"$WORK/cli.conf" <<EOF
[device emu0]
[fault down]
action = port_down
at = 1s
[fault up]
action = port_up
at = 1200ms
EOF
next_port
pair "ib_write_bw, 1% loss and a port flap, traced" 120 \
	"$S EMUVERBS_CONFIG=$WORK/srv.conf EMUVERBS_TRACE=$WORK/srv.jsonl
	 $BW -p $PORT -D 3 -s 65536" \
	"$C EMUVERBS_CONFIG=$WORK/cli.conf EMUVERBS_TRACE=$WORK/cli-%p.jsonl
	 $BW -p $PORT -D 3 -s 65536 127.0.0.1"
ctrace=$(ls "$WORK"/cli-*.jsonl 2>/dev/null | head -1)
for f in "$WORK/srv.jsonl" "$ctrace"; do
	if /usr/bin/python3 -c '
import json, sys
n = 0
for line in open(sys.argv[1]):
    e = json.loads(line)
    assert isinstance(e["ts"], float) and isinstance(e["ev"], str), line
    n += 1
print(n)' "$f" >"$WORK/json" 2>&1; then
		ok "$(basename "$f"): $(cat "$WORK/json") lines, each JSON"
	else
		bad "$(basename "$f"): each line a JSON object" "$WORK/json"
	fi
done
head -1 "$ctrace" >"$WORK/first"
expect "the trace starts with the process" "$WORK/first" \
	'^\{"ts":[0-9]+\.[0-9]{6},"ev":"trace_start","pid":[0-9]+,'\
'"comm":"ib_write_bw"'
tail -1 "$ctrace" >"$WORK/last"
expect "and ends when it exits" "$WORK/last" '"ev":"trace_stop","why":"exit"'
expect "QP state changes" "$ctrace" \
	'"ev":"qp_state",.*"type":"RC","from":"RTR","to":"RTS"'
has "counter samples" "$ctrace" sample
expect "the sender's port goes down" "$ctrace" \
	'"ev":"port",.*"what":"state","state":"DOWN","speed":"QDR","width":"1x"'
expect "and up" "$ctrace" '"ev":"port",.*"state":"ACTIVE"'
expect "the event rules that did it" "$ctrace" \
	'"ev":"fault",.*"rule":"down","action":"port_down","done":true'
has "the sender's retransmissions" "$ctrace" retransmit
has "the receiver's fault actions" "$WORK/srv.jsonl" fault
expect "each with the packet it took" "$WORK/srv.jsonl" \
	'"ev":"fault",.*"rule":"loss","action":"drop","dir":"rx",'\
'"qpn":[0-9]+,"psn":[0-9]+,"opcode":"RC_RDMA_WRITE_'
expect "sequence NAKs sent" "$WORK/srv.jsonl" \
	'"ev":"nak",.*"dir":"tx","kind":"seq"'
expect "and received" "$ctrace" '"ev":"nak",.*"dir":"rx","kind":"seq"'
# The samples add up: the last one's bytes are the most. (How many bytes
# 3 s carry depends on the machine: a figure, printed.)
/usr/bin/python3 -c '
import json, sys
tx = [json.loads(l)["tx_bytes"] for l in open(sys.argv[1])
      if "\"ev\":\"sample\"" in l]
assert len(tx) > 1 and tx == sorted(tx) and tx[-1] > tx[0], tx[-5:]
print(len(tx), tx[-1])' "$ctrace" >"$WORK/samples" 2>&1 &&
	ok "samples grow to $(cut -d' ' -f2 "$WORK/samples") bytes sent" ||
	bad "samples grow" "$WORK/samples"

# ---- emuverbs plot ------------------------------------------------------

svg_ok() {
	/usr/bin/python3 -c '
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag.endswith("svg"), root.tag
paths = [e for e in root.iter() if e.tag.endswith("path")]
texts = "".join(root.itertext())
assert len(paths) > 10, len(paths)
for want in sys.argv[2:]:
    assert want in texts, want
print(len(paths))' "$@"
}
if "$EMU" plot "$ctrace" "$WORK/srv.jsonl" -o "$WORK/run.svg" \
	--title "ib_write_bw under loss" >"$WORK/plot.out" 2>&1; then
	ok "emuverbs plot draws the two traces"
else
	bad "emuverbs plot draws the two traces" "$WORK/plot.out"
fi
if svg_ok "$WORK/run.svg" "throughput (MB/s)" "retransmission" \
	"fault: drop" "emu0/1 down" "emu0/1 up" "ib_write_bw under loss" \
	>"$WORK/svg" 2>&1; then
	ok "a valid SVG: curves, marks, port events ($(cat "$WORK/svg") paths)"
else
	bad "a valid SVG: curves, marks and port events" "$WORK/svg"
fi
expect "plot says what it drew" "$WORK/plot.out" \
	'run.svg: 2 QPs, [1-9][0-9]* retransmissions, .* [1-9][0-9]* fault '\
'actions, 2 port and rule events'
"$EMU" plot "$ctrace" -o "$WORK/kept.svg" --keep "$WORK/gp" >/dev/null 2>&1
if [ -s "$WORK/gp/plot.gp" ] && [ -s "$WORK/kept.svg" ]; then
	ok "--keep leaves gnuplot's script and data"
else
	bad "--keep leaves gnuplot's script and data"
fi
if "$EMU" plot "$WORK/missing.jsonl" -o "$WORK/x.svg" >"$WORK/bad1" 2>&1
then
	bad "a missing trace is refused" "$WORK/bad1"
else
	expect "a missing trace is one line naming it" "$WORK/bad1" \
		"^emuverbs plot: $WORK/missing.jsonl: No such file or directory"
fi
echo "not a trace" >"$WORK/junk"
if "$EMU" plot "$WORK/junk" -o "$WORK/x.svg" >"$WORK/bad2" 2>&1; then
	bad "a file of no events is refused" "$WORK/bad2"
else
	expect "a file of no events is refused, named" "$WORK/bad2" \
		"$WORK/junk: no event in it"
fi
if [ ! -e "$WORK/x.svg" ]; then
	ok "and no SVG is left behind"
else
	bad "and no SVG is left behind"
fi

# ---- librdmacm's events --------------------------------------------------

next_port
cm "rping, traced" 60 "$TCP" "$PORT" \
	"$S EMUVERBS_TRACE=$WORK/rping.jsonl rping -s -C 3 -p $PORT -a $net.1" \
	"$C rping -c -C 3 -p $PORT -a $net.1"
expect "librdmacm's events are in the trace" "$WORK/rping.jsonl" \
	'"ev":"cm","event":"RDMA_CM_EVENT_CONNECT_REQUEST","status":0'
expect "with the QP and the addresses" "$WORK/rping.jsonl" \
	"\"ev\":\"cm\",\"event\":\"RDMA_CM_EVENT_ESTABLISHED\",\"status\":0,"\
"\"qpn\":[1-9][0-9]*,\"src\":\"$net.1:$PORT\""

# ---- started on a running process -----------------------------------------

next_port
$S timeout 120 "$EMU" run $BW -p $PORT -D 8 >"$WORK/long.server" 2>&1 &
lsrv=$!
wait_listen $PORT || bad "long ib_write_bw: server listens"
$C timeout 120 "$EMU" run $BW -p $PORT -D 8 127.0.0.1 \
	>"$WORK/long.client" 2>&1 &
lcli=$!
pid=$(pid_of "$net.2") || bad "long ib_write_bw: client listed"
wait_until 60 qp_sending "$pid" ||
	bad "long ib_write_bw: the client sends" "$WORK/sending"
if timeout 30 "$EMU" trace "$pid" --events "$WORK/live.jsonl" --interval 50 \
	-t 2 >"$WORK/live.out" 2>&1; then
	ok "emuverbs trace --events -t 2 on a running process"
else
	bad "emuverbs trace --events -t 2 on a running process" "$WORK/live.out"
fi
expect "it says what the file holds" "$WORK/live.out" \
	"trace stopped $WORK/live.jsonl events [1-9]"
# The interval asked for, and samples: how many a busy machine lets the
# timer take in 2 s is a figure, not a check.
expect "the trace samples every 50 ms" "$WORK/live.jsonl" \
	'"ev":"trace_start",.*"interval_ms":50,'
n=$(events "$WORK/live.jsonl" sample)
# Ticks of 50 ms over 2 s: more than one, and never more than 40 and the
# ends (a busy machine may make them fewer, never more).
if [ "$n" -ge 2 ] && [ "$n" -le 42 ]; then
	ok "samples while it runs ($n in 2 s)"
else
	bad "samples while it runs ($n)" "$WORK/live.jsonl"
fi
expect "the trace closes with its stop" "$WORK/live.jsonl" \
	'"ev":"trace_stop","why":"stopped"'
if "$EMU" trace "$pid" --events "$WORK/no/such.jsonl" -t 1 >"$WORK/bad3" 2>&1
then
	bad "a trace into a missing directory is refused" "$WORK/bad3"
else
	expect "a trace into a missing directory is one line naming it" \
		"$WORK/bad3" "$WORK/no/such.jsonl: No such file or directory"
fi
"$EMU" ctl "$pid" trace status >"$WORK/status" 2>&1
expect "no trace runs after" "$WORK/status" '^trace off$'
wait $lcli $lsrv 2>/dev/null
finish
