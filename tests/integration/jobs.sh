#!/bin/sh
# Two jobs of one user side by side, as two CI jobs on one runner: job
# "alpha", named by the shell that starts and drives it (EMUVERBS_JOB),
# and job B, a script under one `emuverbs run` that drives its own
# programs. Each one's `emuverbs ps`, `port all`, `fault all`, `stats all`
# and `event all` reach its own two processes only; a caller in no job
# reaches neither and says why; --job NAME reaches that job, -A both; a
# PID reaches its process whatever its job; a job name that is none is
# refused.
. "$(dirname "$0")/lib.sh"
need ibv_asyncwatch ibv_devinfo mkfifo

# The test drives both jobs from outside either.
unset EMUVERBS_JOB

# ps_rows FILE: the PIDs of the ibv_asyncwatch rows of a ps output, sorted.
ps_rows() {
	awk '$2 == "ibv_asyncwatch" { print $1 }' "$1" | sort -n | tr '\n' ' '
}

# wait_file FILE: wait until FILE exists.
wait_file() {
	wait_until 60 test -e "$1"
}

# Job alpha: two programs, each through `emuverbs run`, in the job the
# caller named. Not under timeout: the PIDs must be the programs' own.
EMUVERBS_JOB=alpha "$EMU" run ibv_asyncwatch >"$WORK/a1" 2>&1 &
a1=$!
EMUVERBS_JOB=alpha "$EMU" run ibv_asyncwatch >"$WORK/a2" 2>&1 &
a2=$!
alpha_pids=$(printf '%s\n%s\n' "$a1" "$a2" | sort -n | tr '\n' ' ')

# Job B: one `emuverbs run` of a script that starts two programs, waits
# for them with its own `emuverbs ps`, acts on "all" of them, and then
# waits for the test (a fifo) before it ends them.
mkfifo "$WORK/b.go"
cat >"$WORK/jobb.sh" <<'EOF'
EMU=$1
W=$2
ibv_asyncwatch >"$W/b1" 2>&1 &
p1=$!
ibv_asyncwatch >"$W/b2" 2>&1 &
p2=$!
echo "$EMUVERBS_JOB" >"$W/b.job"
i=0
while [ $i -lt 600 ]; do
	[ "$("$EMU" ps 2>/dev/null | grep -c ibv_asyncwatch)" -ge 2 ] && break
	sleep 0.1
	i=$((i + 1))
done
"$EMU" ps >"$W/b.ps" 2>&1
"$EMU" port all emu0/1 down >"$W/b.down" 2>&1
echo "status $?" >>"$W/b.down"
"$EMU" fault all add name=bee drop dir=rx prob=0.5 >"$W/b.fault" 2>&1
echo "status $?" >>"$W/b.fault"
"$EMU" stats all emu0/1 >"$W/b.stats" 2>&1
"$EMU" event all lid-change emu0/1 >"$W/b.event" 2>&1
touch "$W/b.done"
read -r go <"$W/b.go"
kill "$p1" "$p2"
wait
EOF
"$EMU" run sh "$WORK/jobb.sh" "$EMU" "$WORK" >"$WORK/b.out" 2>&1 &
b=$!
(sleep "$(slack 120)"; kill "$a1" "$a2" "$b"; echo >"$WORK/b.go") \
	>/dev/null 2>&1 &
dog=$!

if wait_file "$WORK/b.done"; then
	ok "job B ran its script"
else
	bad "job B ran its script" "$WORK/b.out"
fi
# Both of alpha's are up (B's are: its script saw them).
wait_until 60 test -e "$EMUVERBS_RUNTIME_DIR/$a1.sock" -a \
	-e "$EMUVERBS_RUNTIME_DIR/$a2.sock"

# ---- what emuverbs run and -A say about the jobs -----------------------
"$EMU" ps -A >"$WORK/all.ps" 2>&1
bjob=$(cat "$WORK/b.job" 2>/dev/null)
case "$bjob" in
"$b"-????) ok "emuverbs run starts a job named after its PID ($bjob)" ;;
*) bad "emuverbs run starts a job named after its PID: '$bjob'" ;;
esac
expect "ps -A: alpha's programs in alpha" "$WORK/all.ps" \
	"^$a1 +ibv_asyncwatch +emu0/1 .* alpha$"
b_pids=$(awk -v j="$bjob" '$2 == "ibv_asyncwatch" && $NF == j { print $1 }' \
	"$WORK/all.ps" | sort -n | tr '\n' ' ')
[ "$(echo "$b_pids" | wc -w)" -eq 2 ] &&
	ok "ps -A: job B's two programs share its job" ||
	bad "ps -A: job B's two programs share its job ($b_pids)" "$WORK/all.ps"
[ "$(ps_rows "$WORK/all.ps" | wc -w)" -eq 4 ] &&
	ok "ps -A lists the four" || bad "ps -A lists the four" "$WORK/all.ps"
b1=${b_pids%% *}

# ---- job B acted on its own ---------------------------------------------
[ "$(ps_rows "$WORK/b.ps")" = "$b_pids" ] &&
	ok "job B's ps: its two only" || bad "job B's ps: its two only" "$WORK/b.ps"
[ "$(grep -c ': emu0/1: state=down' "$WORK/b.down")" -eq 2 ] &&
	expect "job B's port all: its two, status 0" "$WORK/b.down" \
		"^status 0$" ||
	bad "job B's port all: its two" "$WORK/b.down"
[ "$(grep -c '^[0-9]* ibv_asyncwatch: ' "$WORK/b.fault")" -eq 2 ] &&
	ok "job B's fault all: its two" ||
	bad "job B's fault all: its two" "$WORK/b.fault"
[ "$(grep -c '^[0-9]* ibv_asyncwatch$' "$WORK/b.stats")" -eq 2 ] &&
	ok "job B's stats all: its two" ||
	bad "job B's stats all: its two" "$WORK/b.stats"
[ "$(grep -c ' ibv_asyncwatch: ' "$WORK/b.event")" -eq 2 ] &&
	reject "job B's event all: its two" "$WORK/b.event" "^($a1|$a2) " ||
	bad "job B's event all: its two" "$WORK/b.event"
"$EMU" ps -A >"$WORK/all2.ps" 2>&1
expect "alpha's ports stayed up" "$WORK/all2.ps" \
	"^$a1 +ibv_asyncwatch +emu0/1 +ACTIVE .* alpha$"
expect "alpha's other port too" "$WORK/all2.ps" \
	"^$a2 +ibv_asyncwatch +emu0/1 +ACTIVE .* alpha$"
expect "job B's ports went down" "$WORK/all2.ps" \
	"^$b1 +ibv_asyncwatch +emu0/1 +DOWN .* $bjob$"
reject "alpha saw no PORT_ERR" "$WORK/a1" "PORT_ERR"

# ---- job alpha acts on its own --------------------------------------------
EMUVERBS_JOB=alpha "$EMU" ps >"$WORK/a.ps" 2>&1
[ "$(ps_rows "$WORK/a.ps")" = "$alpha_pids" ] &&
	ok "alpha's ps: its two only" || bad "alpha's ps: its two only" "$WORK/a.ps"
expect "alpha's ps says two others were left out" "$WORK/a.ps" \
	"2 processes of yours in other jobs left out"
EMUVERBS_JOB=alpha "$EMU" fault all add name=ay drop dir=tx prob=0.1 \
	>"$WORK/a.fault" 2>&1
"$EMU" fault -A all list >"$WORK/all.fault" 2>&1
[ "$(grep -c ': emu0: ay: ' "$WORK/all.fault")" -eq 2 ] &&
	reject "alpha's fault all: its two" "$WORK/all.fault" \
		"^($(echo "$b_pids" | sed 's/ *$//; s/ /|/g')) .*: ay: " ||
	bad "alpha's fault all: its two" "$WORK/all.fault"
[ "$(grep -c ': emu0: bee: ' "$WORK/all.fault")" -eq 2 ] &&
	reject "and job B's rule is on B's only" "$WORK/all.fault" \
		"^($a1|$a2) .*: bee: " ||
	bad "job B's rule is on B's only" "$WORK/all.fault"
EMUVERBS_JOB=alpha "$EMU" stats ibv_asyncwatch emu0/1 >"$WORK/a.stats" 2>&1
[ "$(grep -c '^[0-9]* ibv_asyncwatch$' "$WORK/a.stats")" -eq 2 ] &&
	reject "a command name reaches alpha's only" "$WORK/a.stats" \
		"^$b1 ibv_asyncwatch$" ||
	bad "a command name reaches alpha's only" "$WORK/a.stats"
# A PID is explicit: it reaches its process in another job.
EMUVERBS_JOB=alpha "$EMU" port "$b1" emu0/1 up >"$WORK/a.pid" 2>&1 &&
	expect "a PID reaches its process in another job" "$WORK/a.pid" \
		"^emu0/1: state=active$" ||
	bad "a PID reaches its process in another job" "$WORK/a.pid"

# ---- a caller in no job reaches neither ------------------------------------
"$EMU" port all emu0/1 down >"$WORK/none.port" 2>&1
[ $? -eq 1 ] && expect "no job: port all reaches nothing, and says why" \
	"$WORK/none.port" "matches all outside any job" ||
	bad "no job: port all reaches nothing" "$WORK/none.port"
expect "and how to reach the others" "$WORK/none.port" \
	"4 processes of yours in other jobs left out: -A"
"$EMU" ps >"$WORK/none.ps" 2>&1
[ -z "$(ps_rows "$WORK/none.ps")" ] && ok "no job: ps lists none of them" ||
	bad "no job: ps lists none of them" "$WORK/none.ps"

# ---- --job NAME and -A -------------------------------------------------------
"$EMU" port --job alpha all emu0/1 down >"$WORK/j.port" 2>&1
[ "$(grep -c ': emu0/1: state=down' "$WORK/j.port")" -eq 2 ] &&
	reject "--job alpha: alpha's two" "$WORK/j.port" "^$b1 " ||
	bad "--job alpha: alpha's two" "$WORK/j.port"
"$EMU" port -A all emu0/1 up >"$WORK/A.port" 2>&1
[ "$(grep -c ': emu0/1: state=active' "$WORK/A.port")" -eq 4 ] &&
	ok "-A: all four" || bad "-A: all four" "$WORK/A.port"
"$EMU" ps --all-jobs >"$WORK/all3.ps" 2>&1
[ "$(grep -Ec 'ibv_asyncwatch +emu0/1 +ACTIVE' "$WORK/all3.ps")" -eq 4 ] &&
	ok "--all-jobs: four ports up" || bad "--all-jobs: four up" "$WORK/all3.ps"
"$EMU" event --job "$bjob" all lid-change emu0/1 >"$WORK/jb.event" 2>&1
[ "$(grep -c ' ibv_asyncwatch: ' "$WORK/jb.event")" -eq 2 ] &&
	reject "--job B's name: B's two" "$WORK/jb.event" "^($a1|$a2) " ||
	bad "--job B's name: B's two" "$WORK/jb.event"

# ---- names that are no job's ---------------------------------------------------
EMUVERBS_JOB="two words" "$EMU" run true >"$WORK/bad1" 2>&1
[ $? -eq 2 ] && expect "run refuses a job name with a blank" "$WORK/bad1" \
	"^emuverbs run: EMUVERBS_JOB is not a job name" ||
	bad "run refuses a job name with a blank" "$WORK/bad1"
EMUVERBS_JOB="two words" "$EMU" ps >"$WORK/bad2" 2>&1
[ $? -eq 2 ] && ok "so does ps" || bad "so does ps" "$WORK/bad2"
"$EMU" port --job "" all emu0/1 down >"$WORK/bad3" 2>&1
[ $? -eq 2 ] && expect "an empty --job is refused" "$WORK/bad3" \
	"not a job name" || bad "an empty --job is refused" "$WORK/bad3"
"$EMU" port --job alpha -A all emu0/1 down >"$WORK/bad4" 2>&1
[ $? -eq 2 ] && ok "--job and -A together are refused" ||
	bad "--job and -A together are refused" "$WORK/bad4"

echo go >"$WORK/b.go"
wait "$b" && ok "job B ended cleanly" || bad "job B ended cleanly" "$WORK/b.out"
kill "$a1" "$a2"
wait "$a1" "$a2" 2>/dev/null
# Killed, they left their sockets and job links; the next process to
# open a device removes both (and its own as it ends).
"$EMU" run ibv_devinfo >"$WORK/devinfo" 2>&1
ls "$EMUVERBS_RUNTIME_DIR" >"$WORK/left" 2>&1
reject "the next process removed the killed ones' links" "$WORK/left" \
	"\.(sock|job)$"
kill "$dog" 2>/dev/null
finish
