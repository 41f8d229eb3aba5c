#!/bin/sh
# The guest's command agent, one per TCP connection (nc -e): reads a script
# up to a line "@@end", runs it, answers its output and "@@status N".
# The output goes through a file, so that a server the script leaves in the
# background never holds the connection open.
cd /root || exit 1
script=$(mktemp /tmp/agent.XXXXXX)
while IFS= read -r line; do
	[ "$line" = "@@end" ] && break
	printf '%s\n' "$line"
done >"$script"
sh "$script" </dev/null >"$script.out" 2>&1
status=$?
cat "$script.out"
echo "@@status $status"
rm -f "$script" "$script.out"
