#!/bin/sh
# Fault rules on real traffic, given as EMUVERBS_FAULT: RC data stays byte
# for byte under drops, duplicates, reordering, corruption, delays and
# truncation of received packets, with atomics done once (datacheck checks
# their results); UC loses whole messages and UD whole datagrams and
# nothing else (lossy); every rule did what it says (the counts the
# device logs when it closes); one seed drops the same packets run after
# run; a bad rule starts nothing and says where.
. "$(dirname "$0")/lib.sh"
dc="$top_builddir/tests/integration/datacheck"
lossy="$top_builddir/tests/integration/lossy"

# Each rule's "(matched N, acted M)" line, as the device logs it at exit.
acted() {
	grep -E "fault $1: .*acted [1-9]" "$2" >/dev/null
}

rc_under() {
	name=$1
	rules=$2
	shift 2
	EMUVERBS_DEBUG=xport EMUVERBS_FAULT="$rules" timeout "$(slack 300)" \
		"$EMU" run "$dc" --only "RC " --rounds 60 --seed 3 \
		>"$WORK/$name" 2>&1
	if grep -q "^8 passed, 0 failed" "$WORK/$name"; then
		ok "RC byte for byte, atomics once, under $name"
	else
		bad "RC byte for byte, atomics once, under $name" "$WORK/$name"
	fi
	for r in "$@"; do
		if acted "$r" "$WORK/$name"; then
			ok "$name: rule $r acted"
		else
			bad "$name: rule $r acted" "$WORK/$name"
		fi
	done
}

rc_under "5% drop, 5% duplicates, 5% reordered, 1% corrupted" \
	"name=drop drop dir=rx prob=0.05 seed=1;
	 name=dup duplicate dir=rx prob=0.05 seed=2;
	 name=reorder reorder dir=rx prob=0.05 seed=3 hold=3;
	 name=corrupt corrupt dir=rx prob=0.01 seed=4 where=payload" \
	drop dup reorder corrupt
rc_under "delays, truncation and header corruption" \
	"name=delay delay dir=rx prob=0.05 delay=300us seed=5;
	 name=cut truncate dir=rx prob=0.01 seed=6;
	 name=hdr corrupt dir=tx prob=0.01 seed=7" \
	delay cut hdr

# Determinism: the packets a seeded rule drops at their first sighting
# (QP by its place in the device, PSN and opcode, from the debug log) are
# the same in two runs with one seed, and others with another seed, though
# the timing of a windowed RC transfer differs from run to run.
dropped() {
	EMUVERBS_DEBUG=xport EMUVERBS_FAULT="name=det drop dir=rx op=write \
prob=0.05 seed=$1" timeout "$(slack 300)" "$EMU" run "$dc" \
		--only "RC RDMA_WRITE" --rounds 60 --seed 3 >"$WORK/det.$2" 2>&1
	grep -q "^2 passed, 0 failed" "$WORK/det.$2" ||
		bad "determinism run $2 completes" "$WORK/det.$2"
	sed -n 's/.*fault det: \(rx [A-Z_]*\) qpn [^ ]* \(psn .*acted before 0\)$/\1 \2/p' \
		"$WORK/det.$2" | sort >"$WORK/det.$2.psn"
}
dropped 7 a
dropped 7 b
dropped 8 c
if [ -s "$WORK/det.a.psn" ] && cmp -s "$WORK/det.a.psn" "$WORK/det.b.psn"
then
	ok "seed 7 drops the same PSNs twice ($(wc -l <"$WORK/det.a.psn"))"
else
	bad "seed 7 drops the same PSNs twice" "$WORK/det.a.psn"
	diff "$WORK/det.a.psn" "$WORK/det.b.psn"
fi
if [ -s "$WORK/det.c.psn" ] && ! cmp -s "$WORK/det.a.psn" "$WORK/det.c.psn"
then
	ok "seed 8 drops other PSNs"
else
	bad "seed 8 drops other PSNs" "$WORK/det.c.psn"
fi

EMUVERBS_DEBUG=xport EMUVERBS_FAULT="name=loss drop dir=rx op=send prob=0.1 seed=11" \
	timeout "$(slack 120)" "$EMU" run "$lossy" >"$WORK/lossy" 2>&1
cat "$WORK/lossy"
expect "UC loses whole messages only" "$WORK/lossy" \
	"^PASS: UC over a lossy link"
expect "UD loses whole datagrams only" "$WORK/lossy" \
	"^PASS: UD over a lossy link"

# A bad rule: one line naming the variable and the character, no device.
EMUVERBS_FAULT="drop dir=rx prob=0.5; corrupt where=middle" \
	"$EMU" run ibv_devices >"$WORK/badrule" 2>&1
expect "a bad EMUVERBS_FAULT is one line with its position" \
	"$WORK/badrule" \
	"EMUVERBS_FAULT: character 31: where: middle is not one of header, payload"
if grep -q "emu0" "$WORK/badrule"; then
	bad "a bad EMUVERBS_FAULT starts no device" "$WORK/badrule"
else
	ok "a bad EMUVERBS_FAULT starts no device"
fi
finish
