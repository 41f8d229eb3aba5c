#!/bin/sh
# Counters account for every packet: pingpongs and perftest between two
# processes on loopback (SENDs, UD, WRITEs, READs, atomics, and sequence
# NAKs and resends from reordered receives) are captured, and the packets
# and bytes each way, per class and NAK kind, tshark sees per address
# equal the counters the processes log as they close their devices
# (counters_check.py). Then emuverbs stats on a running pair: lines by
# port and QP that add up, one QP alone, JSON with rates, refusals in one
# line; every name it prints is in doc/counters.md. Then the sysfs view:
# ports/1/hw_counters of a program run through emuverbs run, read as rdma
# statistic would, change while it runs and end as its counters do.
. "$(dirname "$0")/lib.sh"
need tcpdump tshark ss /usr/bin/python3 ibv_rc_pingpong ibv_ud_pingpong \
	ib_write_lat ib_read_lat ib_atomic_bw

# The control sockets of this test's processes alone.
export EMUVERBS_RUNTIME_DIR="$WORK/run"
mkdir -p -m 700 "$EMUVERBS_RUNTIME_DIR"

# ---- every packet of known exchanges, against a capture ---------------

if [ "$(id -u)" -ne 0 ]; then
	echo "note: capturing on loopback needs root: the capture part is" \
		"not run"
else
	# A /24 of 127.203.0.0/16 of this test's own, so that the capture
	# holds its traffic alone; GSO off, so that loopback shows each
	# datagram as the kernel segments it (doc/configuration.md).
	net="127.203.$(($$ % 250 + 1))"
	# On UDP, for tcpdump on lo sees no shared-memory frames.
	S="env EMUVERBS_ADDRESS=$net.1 EMUVERBS_GSO=0 EMUVERBS_DEBUG=xport"
	S="$S EMUVERBS_WIRE=udp"
	C="env EMUVERBS_ADDRESS=$net.2 EMUVERBS_GSO=0 EMUVERBS_DEBUG=xport"
	C="$C EMUVERBS_WIRE=udp"
	cap="$WORK/roce.pcap"
	tcpdump -i lo -U -s 0 -w "$cap" udp port 4791 and net "$net.0/24" \
		>"$WORK/tcpdump.log" 2>&1 &
	dump=$!
	# tcpdump says "listening on" once its filter is in place.
	wait_until 60 grep -q "listening on" "$WORK/tcpdump.log" ||
		bad "tcpdump started" "$WORK/tcpdump.log"
	next_port
	pair "rc_pingpong 100 x 4096 B" 60 \
		"$S ibv_rc_pingpong -g 0 -p $PORT -n 100" \
		"$C ibv_rc_pingpong -g 0 -p $PORT -n 100 127.0.0.1"
	next_port
	pair "ud_pingpong" 60 \
		"$S ibv_ud_pingpong -g 0 -p $PORT -s 500 -n 20" \
		"$C ibv_ud_pingpong -g 0 -p $PORT -s 500 -n 20 127.0.0.1"
	# ib_atomic_bw, not _lat: ib_atomic_lat's server exits with its
	# device open, and only a close logs the counters.
	for cmd in "ib_write_lat -s 3000" "ib_read_lat -s 3000" \
		   "ib_atomic_bw"; do
		next_port
		pair "$cmd" 60 "$S $cmd -x 0 -p $PORT -n 50" \
			"$C $cmd -x 0 -p $PORT -n 50 127.0.0.1"
	done
	# Every 5th SEND packet the server receives held until the next
	# one passes: it NAKs the gap, the client resends, nothing is lost
	# for good, so the wire and the counters still agree exactly.
	cat >"$WORK/reorder.ini" <<EOF
[device emu0]
[port emu0 1]
address = $net.1
[fault late]
action = reorder
dir = rx
op = send
every = 5
EOF
	next_port
	pair "rc_pingpong with reordered receives" 60 \
		"$S EMUVERBS_CONFIG=$WORK/reorder.ini ibv_rc_pingpong -g 0 \
		-p $PORT -n 100" \
		"$C ibv_rc_pingpong -g 0 -p $PORT -n 100 127.0.0.1"
	# Stopped once the file holds as many packets as the processes
	# logged sending (or a bound passed: then the check below says
	# what differs).
	sent=$(cat "$WORK"/*.server "$WORK"/*.client |
		sed -n 's/.*: counters.* tx_wire_pkts=\([0-9]*\).*/\1/p' |
		awk '{ n += $1 } END { print n + 0 }')
	echo "the processes logged $sent packets sent"
	wait_until 60 pcap_holds "$sent" "$cap"
	kill "$dump"
	wait "$dump" 2>/dev/null
	tshark -r "$cap" -T fields -E separator=' ' -e ip.src -e ip.dst \
		-e udp.length -e infiniband.bth.opcode \
		-e infiniband.bth.destqp -e infiniband.aeth.syndrome \
		>"$WORK/fields" 2>"$WORK/tshark.err"
	/usr/bin/python3 "$top_srcdir/tests/integration/counters_check.py" \
		"$WORK/fields" "$WORK"/*.server "$WORK"/*.client \
		>"$WORK/check" 2>&1
	if grep -q '^[1-9][0-9]* passed, 0 failed' "$WORK/check"; then
		ok "counters equal the capture, per address, class, NAK kind \
($(tail -1 "$WORK/check"))"
	else
		bad "counters equal the capture" "$WORK/check"
		grep '^FAIL' "$WORK/check"
	fi
	# The exchanges had what they are meant to show.
	grep -E "rx_nak_psn_seq|tx_(atomic|read_req|write)_pkts" "$WORK/check"
	expect "the capture has sequence NAKs" "$WORK/check" \
		"PASS: $net.2 rx_nak_psn_seq: [1-9]"
	expect "the capture has READ requests, WRITEs and atomics" \
		"$WORK/check" "PASS: $net.2 tx_atomic_pkts: [1-9]"
	expect "the reordering server logged resends at the client" \
		"$WORK/rc_pingpong_with_reordered_receives.client" \
		"counters.* retransmits=[1-9]"
fi

# ---- emuverbs stats on a running pair -----------------------------------

next_port
"$EMU" run ibv_rc_pingpong -g 0 -p "$PORT" -n 100000000 \
	>"$WORK/long.server" 2>&1 &
spid=$!
wait_listen "$PORT" || bad "pingpong server listens" "$WORK/long.server"
"$EMU" run ibv_rc_pingpong -g 0 -p "$PORT" -n 100000000 127.0.0.1 \
	>"$WORK/long.client" 2>&1 &
cpid=$!
# Both QPs under way.
wait_until 60 sockets 2
for p in $(ls "$EMUVERBS_RUNTIME_DIR" | sed -n 's/\.sock$//p'); do
	wait_until 60 qp_sending "$p"
done
pid=$(ls "$EMUVERBS_RUNTIME_DIR" | sed -n 's/\.sock$//p' | sort -n | head -1)
"$EMU" stats "$pid" >"$WORK/stats" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "stats PID: status 0" || bad "stats PID: $rc" \
	"$WORK/stats"
expect "stats names the process" "$WORK/stats" "^$pid ibv_rc_pingpong$"
expect "stats has the port" "$WORK/stats" \
	"^port emu0/1 address 127\.[0-9.]+$"
expect "stats has the QP" "$WORK/stats" \
	"^qp [0-9]+ port emu0/1 type RC state RTS peer 127\.[0-9.]+ dqpn [0-9]+ "
expect "stats has counters, sent_pkts moving" "$WORK/stats" \
	"^  sent_pkts +[1-9][0-9]*$"
# The port's classes add up to its packets, its QP sent what it did.
awk '/^port / { p = 1; next } /^qp / { p = 0 }
	p && $1 == "sent_pkts" { sent = $2 }
	p && $1 ~ /^tx_.*_pkts$/ && $1 != "tx_wire_pkts" { sum += $2 }
	END { print sent, sum; exit !(sent > 0 && sent == sum) }' \
	"$WORK/stats" >"$WORK/sum" &&
	ok "the port's tx classes add up to sent_pkts ($(cat "$WORK/sum"))" ||
	bad "the port's tx classes add up to sent_pkts" "$WORK/sum"
qpn=$(sed -n 's/^qp \([0-9]*\) .*/\1/p' "$WORK/stats")
"$EMU" stats "$pid" emu0/1 --qp "$qpn" >"$WORK/stats.qp" 2>&1
reject "--qp: no port section" "$WORK/stats.qp" "^port "
expect "--qp: the QP" "$WORK/stats.qp" "^qp $qpn port emu0/1 type RC"
"$EMU" stats ibv_rc_pingpong --json --watch 0.5 --count 2 \
	>"$WORK/stats.json" 2>&1
if /usr/bin/python3 - "$WORK/stats.json" "$pid" >"$WORK/json.check" 2>&1 <<'EOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
objs = [json.loads(l) for l in lines]
assert len(objs) == 4, "2 samples of 2 processes: %d objects" % len(objs)
pids = sorted(o["pid"] for o in objs)
assert pids[0] == pids[1] and int(sys.argv[2]) in pids, pids
for o in objs:
    assert o["command"] == "ibv_rc_pingpong" and o["time_ns"] > 0
    assert len(o["ports"]) == 1 and len(o["qps"]) == 1
    q = o["qps"][0]
    assert q["type"] == "RC" and q["port"] == "emu0/1", q
    assert q["counters"]["sent_pkts"] > 0
later = [o for o in objs if "rates" in o["qps"][0]]
assert len(later) == 2, "rates in the second sample of each"
assert all(o["qps"][0]["rates"]["sent_pkts"] > 0 for o in later)
print("json ok")
EOF
then
	ok "--json --watch: 4 objects, rates in the second samples"
else
	bad "--json --watch" "$WORK/json.check"
	sed 's/^/    j| /' "$WORK/stats.json" | cut -c1-200 | head -5
fi
"$EMU" stats "$pid" --watch 0.3 --count 2 >"$WORK/stats.watch" 2>&1
expect "--watch: a rate per counter" "$WORK/stats.watch" \
	"^  sent_pkts +[0-9]+ +[0-9.]+/s$"
# Every name, in the doc.
missing=""
for n in $(awk '/^  [a-z]/ { print $1 }' "$WORK/stats" | sort -u); do
	grep -q "^| \`$n\`" "$top_srcdir/doc/counters.md" ||
		missing="$missing $n"
done
[ -z "$missing" ] && ok "doc/counters.md lists every counter" ||
	bad "doc/counters.md lacks:$missing"

# Refusals: one line, status 1 (2 for usage), nothing on stdout.
refuse() {
	_want=$1
	_rc=$2
	shift 2
	"$EMU" stats "$@" >"$WORK/r.out" 2>"$WORK/r.err"
	_got=$?
	if [ $_got -eq "$_rc" ] && [ ! -s "$WORK/r.out" ] &&
	   [ "$(wc -l <"$WORK/r.err")" -eq 1 ] &&
	   grep -q -- "$_want" "$WORK/r.err"; then
		ok "stats $*: refused ($_want)"
	else
		bad "stats $*: status $_got, not $_rc /$_want/" "$WORK/r.err"
	fi
}
refuse "emu9: no such device open" 1 "$pid" emu9
refuse "emu0/3: no port 3" 1 "$pid" emu0/3
refuse "qp 7: no such QP on an open device" 1 "$pid" --qp 7
refuse "no process of yours" 1 no-such-program
refuse "--qp x: not a QP number" 2 "$pid" --qp x
refuse "--watch 0: not a number of seconds" 2 "$pid" --watch 0
"$EMU" ctl "$pid" stats nonsense words >"$WORK/r.out" 2>"$WORK/r.err"
[ $? -eq 1 ] && [ "$(wc -l <"$WORK/r.err")" -eq 1 ] &&
	ok "a bad stats request: one line" || bad "bad request" "$WORK/r.err"
kill "$spid" "$cpid" 2>/dev/null
wait "$spid" "$cpid" 2>/dev/null

# ---- the sysfs view's hw_counters --------------------------------------

if "$EMU" run sh -c 'test -d /sys/class/infiniband' 2>/dev/null; then
	# While a program runs: the files follow, a lifespan behind.
	next_port
	"$EMU" run ibv_rc_pingpong -g 0 -p "$PORT" -n 100000000 \
		>"$WORK/view1.server" 2>&1 &
	spid=$!
	wait_listen "$PORT" || bad "pingpong server listens"
	"$EMU" run sh -c '
		hw=/sys/class/infiniband/emu0/ports/1/hw_counters
		ibv_rc_pingpong -g 0 -p '"$PORT"' -n 100000000 127.0.0.1 \
			>/dev/null 2>&1 &
		# Each as soon as the file shows it (within a bound): a
		# value above 0, then a larger one.
		n=0
		until [ "$(cat $hw/sent_pkts)" -gt 0 ] ||
			[ $n -ge '"$(slack 600)"' ]; do
			sleep 0.1
			n=$((n + 1))
		done
		a=$(cat $hw/sent_pkts)
		echo "running sent_pkts $a"
		n=0
		until [ "$(cat $hw/sent_pkts)" -gt "$a" ] ||
			[ $n -ge '"$(slack 600)"' ]; do
			sleep 0.1
			n=$((n + 1))
		done
		kill -0 $! && echo "later sent_pkts $(cat $hw/sent_pkts)"
		echo "lifespan $(cat $hw/lifespan)"
		kill $!
		wait' >"$WORK/view1.out" 2>&1
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	expect "hw_counters: lifespan 1000 ms" "$WORK/view1.out" \
		"^lifespan 1000$"
	if awk '$2 == "sent_pkts" { v[$1] = $3 }
		END { exit !(v["running"] > 0 && v["later"] > v["running"]) }' \
		"$WORK/view1.out"; then
		ok "hw_counters: sent_pkts moves while the program runs"
	else
		bad "hw_counters: sent_pkts moves while the program runs" \
			"$WORK/view1.out"
	fi

	# After the close: the final counters, every one.
	next_port
	"$EMU" run ibv_rc_pingpong -g 0 -p "$PORT" -n 200 \
		>"$WORK/view.server" 2>&1 &
	spid=$!
	wait_listen "$PORT" || bad "pingpong server listens"
	EMUVERBS_DEBUG=xport "$EMU" run sh -c '
		hw=/sys/class/infiniband/emu0/ports/1/hw_counters
		ibv_rc_pingpong -g 0 -p '"$PORT"' -n 200 127.0.0.1 \
			>/dev/null 2>"$0.log"
		for f in $hw/*; do echo "closed ${f##*/} $(cat $f)"; done
		' "$WORK/view.client" >"$WORK/view.out" 2>&1
	wait "$spid"
	# After the close, every file holds what the process logged.
	if awk 'FNR == NR {
			if (match($0, /: counters /))
				for (i = 1; i <= NF; i++)
					if (split($i, kv, "=") == 2)
						want[kv[1]] += kv[2]
			next
		}
		$1 == "closed" && $2 != "lifespan" {
			n++
			if ($3 != want[$2] + 0) {
				print "differs:", $2, $3, want[$2] + 0
				bad++
			}
		}
		END { print n, "files"; exit bad || n < 50 || !want["sent_pkts"] }' \
		"$WORK/view.client.log" "$WORK/view.out" >"$WORK/view.cmp"
	then
		ok "hw_counters after the close: the final counters \
($(tail -1 "$WORK/view.cmp"))"
	else
		bad "hw_counters after the close" "$WORK/view.cmp"
	fi
else
	echo "note: no sysfs view here (user namespaces): hw_counters not read"
fi
finish
