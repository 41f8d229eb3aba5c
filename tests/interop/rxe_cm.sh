#!/bin/sh
# rdma_cm interop with Linux's kernel connection manager: the guest of
# rxe.sh (Debian's kernel, rdma_rxe, ib_cm, rdma_cm, rdma_ucm) and
# emuverbs' librdmacm run rdmacm-utils' programs against each other, both
# ways, over IPv4 on the tap: rping, ucmatose (RC, two connections),
# udaddy (UD, SIDR) and rdma_server/rdma_client. The CM MADs on QP 1 are
# captured, counted by kind and checked with tshark.
. "$(dirname "$0")/../integration/lib.sh"
need rping ucmatose udaddy rdma_server rdma_client
IV_NAME=rxe_cm
. "$(dirname "$0")/harness.sh"

# The kernel's RDMA CM is there for librdmacm in the guest.
if gx 30 'ls -l /dev/infiniband/rdma_cm && grep -w rdma_ucm /proc/modules' \
	>"$WORK/ucm" 2>&1; then
	ok "the guest has the kernel RDMA CM (/dev/infiniband/rdma_cm)"
else
	bad "the guest has the kernel RDMA CM (/dev/infiniband/rdma_cm)" \
		"$WORK/ucm"
fi
gx 30 'dmesg -c' >/dev/null

T=40	# seconds a program may take; a cell takes 1-5 s when it works
port=19000
# EMUVERBS_DEBUG=cm: our side's every MAD and event, kept with the cell.
EMU_CM="$EMU_NS EMUVERBS_DEBUG=cm $EMU run"

# cmds PROG ADDR PORT: sets _srv and _cli, PROG's server bound to ADDR
# and its client connecting to ADDR, both on PORT.
cmds() {
	case $1 in
	rping)
		_srv="rping -s -a $2 -p $3 -C 10 -v -S 4096"
		_cli="rping -c -a $2 -p $3 -C 10 -v -S 4096" ;;
	ucmatose)
		_srv="ucmatose -b $2 -p $3 -c 2"
		_cli="ucmatose -s $2 -p $3 -c 2" ;;
	udaddy)
		# udaddy has no port option: its port is 7174, one cell.
		_srv="udaddy -b $2"
		_cli="udaddy -s $2" ;;
	rdma_server)
		_srv="rdma_server -s $2 -p $3"
		_cli="rdma_client -s $2 -p $3" ;;
	esac
}

# done_ok PROG ROLE FILE: FILE, PROG's output as ROLE, says it worked.
done_ok() {
	grep -qx 'exit 0' "$3" || return 1
	case $1 in
	rping)
		# -v prints each of the -C 10 pings it took.
		[ "$(grep -c 'ping data: rdma-ping-' "$3")" -eq 10 ] ;;
	ucmatose | udaddy)
		grep -q '^test complete' "$3" && grep -q '^return status 0' "$3" ;;
	rdma_server)
		grep -q "^rdma_$2: end 0" "$3" ;;
	esac
}

# cell PROG ROLE: one program, ROLE the emuverbs side's (server or
# client). The server starts first and listens; the client connects to it
# at the server's address. When one side is done the other gets a few
# seconds more, then is ended.
cell() {
	_p=$1 _r=$2
	port=$((port + 1))
	_name="$_p, emuverbs $_r"
	_o="$WORK/cm.$_p.$_r"
	_t0=$(now)
	if [ "$_r" = client ]; then
		cmds "$_p" "$GUEST_IP" "$port"
		[ "$_p" = udaddy ] && _lp=7174 || _lp=$port
		# The guest's listener shows in rdma's cm_id table.
		gx 30 "setsid sh -c 'timeout $T $_srv & echo \$! >/tmp/srv.pid
				wait \$!; echo exit \$?' >/tmp/srv.out 2>&1 </dev/null &
			i=0
			until rdma resource show cm_id 2>/dev/null |
				grep 'state LISTEN' | grep -q ':$_lp '; do
				i=\$((i + 1)); [ \$i -gt 100 ] && exit 1; sleep 0.05
			done" >"$_o.listen" ||
			echo "note: no guest listener on $_lp seen" >>"$_o.emu"
		# shellcheck disable=SC2086
		timeout $T $EMU_CM $_cli >>"$_o.emu" 2>"$_o.emulog"
		echo "exit $?" >>"$_o.emu"
		gx 30 "i=0
			until grep -q '^exit ' /tmp/srv.out; do
				i=\$((i + 1))
				[ \$i -eq 50 ] && kill \$(cat /tmp/srv.pid)
				sleep 0.1
			done
			cat /tmp/srv.out" >"$_o.rxe"
	else
		cmds "$_p" "$HOST_IP" "$port"
		[ "$_p" = udaddy ] && _lp=7174 || _lp=$port
		# shellcheck disable=SC2086
		timeout $T $EMU_CM $_srv >"$_o.emu" 2>"$_o.emulog" &
		_spid=$!
		servers="$servers $_spid"
		# Our CM log says when the listener is up.
		i=0
		until grep -q "listens on port $_lp," "$_o.emulog"; do
			i=$((i + 1))
			[ $i -gt 100 ] && break
			sleep 0.05
		done
		gx $((T + 10)) "timeout $T $_cli; echo exit \$?" >"$_o.rxe"
		i=0
		while kill -0 $_spid 2>/dev/null && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		kill $_spid 2>/dev/null
		wait $_spid
		echo "exit $?" >>"$_o.emu"
		servers=$(echo "$servers" | sed "s/ $_spid\$//")
	fi
	_secs=$(echo "$_t0 $(now)" | awk '{ printf "%.1f", $2 - $1 }')
	if done_ok "$_p" "$_r" "$_o.emu" &&
		done_ok "$_p" "$([ "$_r" = server ] && echo client || echo server)" \
			"$_o.rxe"; then
		case $_p in
		rping) _what="10 pings of 4096 B each side" ;;
		ucmatose) _what="2 RC connections, 10 sends each way" ;;
		udaddy) _what="SIDR and 10 UD sends each way" ;;
		rdma_server) _what="1 send and 1 recv each side" ;;
		esac
		ok "$_name: $_what ($_secs s)"
		echo "$_p $_r passed $_secs" >>"$WORK/figures"
	else
		bad "$_name ($_secs s)"
		sed 's/^/    emu| /' "$_o.emu" | tail -12
		sed 's/^/    rxe| /' "$_o.rxe" | tail -12
		sed 's/^/    cm| /' "$_o.emulog" | tail -20
		echo "$_p $_r failed $_secs" >>"$WORK/figures"
	fi
}

for role in server client; do
	for prog in rping ucmatose udaddy rdma_server; do
		cell $prog $role
	done
done

gx 30 dmesg >"$WORK/dmesg" 2>&1
grep -v 'speed is unknown' "$WORK/dmesg" | tail -20 |
	sed 's/^/guest kernel: /'
sleep 1
kill "$dump_pid"
wait "$dump_pid" 2>/dev/null
dump_pid=""
cp "$cap" "$console" "$out/"

# The CM MADs (management class 7 on QP 1), each kind from each side.
# Every connection either way went REQ, REP, RTU, then DREQ, DREP, and
# udaddy's resolution SIDR_REQ, SIDR_REP; a REJ is a refusal.
tshark -r "$cap" -Y 'infiniband.mad.mgmtclass == 0x07' -T fields \
	-e ip.src -e infiniband.mad.attributeid \
	>"$WORK/mads" 2>"$WORK/tshark.err"
mads=$(wc -l <"$WORK/mads")
echo "captured $mads CM MADs"
# kind ATTR SRC: how many MADs of attribute ATTR came from SRC.
kind() {
	awk -v a="$1" -v s="$2" '$1 == s && tolower($2) == sprintf("0x%04x", a) { n++ }
		END { print n + 0 }' "$WORK/mads"
}
for who in emuverbs rxe0; do
	[ $who = emuverbs ] && src=$HOST_IP || src=$GUEST_IP
	line=""
	for k in REQ:16 MRA:17 REJ:18 REP:19 RTU:20 DREQ:21 DREP:22 \
		SIDR_REQ:23 SIDR_REP:24; do
		line="$line ${k%:*} $(kind "${k#*:}" "$src")"
	done
	echo "CM MADs from $who:$line"
	eval "mads_$who=\"\$line\""
done
# n KIND WHO: the count of KIND from WHO.
n() {
	eval "echo \"\$mads_$2\"" | awk -v k="$1" \
		'{ for (i = 1; i < NF; i += 2) if ($i == k) print $(i + 1) }'
}
for k in REQ REP RTU DREQ DREP SIDR_REQ SIDR_REP; do
	_w="both sides sent $k ($(n $k emuverbs) from emuverbs,"
	_w="$_w $(n $k rxe0) from rxe0)"
	if [ "$(n $k emuverbs)" -gt 0 ] && [ "$(n $k rxe0)" -gt 0 ]; then
		ok "$_w"
	else
		bad "$_w"
	fi
done
# Each request was answered once, by the other side: a resent or an
# unanswered MAD shows as a difference.
for pair in REQ:REP REP:RTU SIDR_REQ:SIDR_REP; do
	q=${pair%:*} a=${pair#*:}
	for who in emuverbs:rxe0 rxe0:emuverbs; do
		_f=${who%:*} _t=${who#*:}
		_w="each $q from $_f has its $a from $_t"
		if [ "$(n "$q" "$_f")" -eq "$(n "$a" "$_t")" ]; then
			ok "$_w ($(n "$q" "$_f"))"
		else
			bad "$_w ($(n "$q" "$_f") and $(n "$a" "$_t"))"
		fi
	done
done
# rping's and the others' payloads are no RPC-over-RDMA (see rxe.sh).
# A DREQ is answered by a DREP, or crossed by the peer's own DREQ for the
# connection: Linux's cm_dreq_handler() then takes ours in DREQ_SENT,
# our DREP to its DREQ puts it in timewait, and it sends no DREP.
tsh() {
	tshark --disable-heuristic rpcrdma_infiniband -r "$cap" "$@" \
		2>"$WORK/tshark.err"
}
tsh -Y 'infiniband.mad.attributeid == 0x0015 ||
	infiniband.mad.attributeid == 0x0016' -T fields -e ip.src \
	-e infiniband.mad.attributeid -e infiniband.cm.dreq.localcommid \
	-e infiniband.cm.dreq.remotecommid -e infiniband.cm.drsp.remotecommid \
	>"$WORK/disc"
for src in "$HOST_IP" "$GUEST_IP"; do
	[ "$src" = "$HOST_IP" ] && who=emuverbs || who=rxe0
	awk -F '\t' -v s="$src" '$1 != s && $2 == "0x0016" { drep[$5] = 1 }
		$1 != s && $2 == "0x0015" { dreq[$4] = 1 }
		$1 == s && $2 == "0x0015" && !seen[$3]++ { mine[$3] = 1 }
		END {
			for (c in mine) {
				n++
				if (c in drep) a++
				else if (c in dreq) x++
			}
			print n + 0, a + 0, x + 0
		}' "$WORK/disc" >"$WORK/disc.$who"
	read -r dn da dx <"$WORK/disc.$who"
	_w="each DREQ from $who is answered: $dn connections, $da DREPs,"
	_w="$_w $dx crossed by the peer's DREQ"
	if [ "$dn" -gt 0 ] && [ $((da + dx)) -eq "$dn" ]; then
		ok "$_w"
	else
		bad "$_w" "$WORK/disc"
	fi
done
if [ "$(n REJ emuverbs)" -eq 0 ] && [ "$(n REJ rxe0)" -eq 0 ]; then
	ok "no REJ either way"
else
	bad "no REJ either way ($(n REJ emuverbs) from emuverbs, $(n REJ rxe0)\
 from rxe0)"
fi

total=$(tsh -Y 'udp.dstport == 4791' | wc -l)
roce=$(tsh -Y 'infiniband' | wc -l)
if [ "$total" -gt 0 ] && [ "$roce" -eq "$total" ]; then
	ok "tshark decodes every packet as RoCEv2 ($total)"
else
	bad "tshark decodes every packet as RoCEv2 ($roce of $total)" \
		"$WORK/tshark.err"
fi
if tsh -Y _ws.malformed >"$WORK/malformed"; then
	reject "tshark: no malformed packet" "$WORK/malformed" '.'
else
	bad "tshark: the malformed filter ran" "$WORK/tshark.err"
fi
if tsh -Y "_ws.expert.severity >= 8388608 && ip.src == $HOST_IP" \
	>"$WORK/experr"; then
	reject "tshark: no expert error in emuverbs' packets" "$WORK/experr" '.'
else
	bad "tshark: the expert filter ran" "$WORK/tshark.err"
fi
# Every CM MAD is decoded to its end: tshark names the fields of each.
tsh -Y 'infiniband.mad.mgmtclass == 0x07' -V >"$WORK/mads.V"
for f in 'Local Communication ID' 'ServiceID' 'Remote Communication ID'; do
	expect "tshark decodes the CM MADs' $f" "$WORK/mads.V" "$f"
done
/usr/bin/python3 "$here/icrc_check.py" "$cap" >"$WORK/icrc" 2>&1
for src in "$HOST_IP" "$GUEST_IP"; do
	line=$(grep "^icrc $src > " "$WORK/icrc")
	if [ -n "$line" ] && echo "$line" | grep -q ' 0 bad$'; then
		ok "independent ICRC, ${line#icrc }"
	else
		bad "independent ICRC from $src: ${line:-no packets}"
	fi
done

cp "$WORK/figures" "$WORK/mads" "$WORK/mads.V" "$WORK/icrc" "$WORK/dmesg" \
	"$WORK"/cm.* "$out/" 2>/dev/null
echo "took $(($(date +%s) - started)) s; capture, console and logs in $out"
finish
