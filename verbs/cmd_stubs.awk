# verbs/cmd_stubs.awk: writes verbs/cmd_stubs.c from verbs/libibverbs.map.
# Every ibv_cmd_* symbol the map exports (rdma-core's kernel-command
# wrappers, which only a registered provider calls, and none can register
# here) gets an entry point that refuses with EOPNOTSUPP, returned as an
# errno value as those wrappers return theirs. The entry points take no
# parameters: they never read their arguments, and a caller's arguments
# are its own to clean up in every C calling convention we build for.
# Defining one of them elsewhere too fails the link (multiple definition).
# None will be: they wrap kernel commands, and no kernel driver knows our
# devices. They are not made weak to let one drop out by itself, because
# the library's exports would then be weak where rdma-core's are not.
# doc/design-notes.md says why the rest of verbs/unsupported.c is not
# generated.

BEGIN {
	n = 0
	incomment = 0
}

{
	line = $0
	# Drop comments, which may span lines and name symbols in prose.
	out = ""
	while (line != "") {
		if (incomment) {
			i = index(line, "*/")
			if (i == 0) {
				line = ""
				break
			}
			line = substr(line, i + 2)
			incomment = 0
		} else {
			i = index(line, "/*")
			if (i == 0) {
				out = out line
				break
			}
			out = out substr(line, 1, i - 1)
			line = substr(line, i + 2)
			incomment = 1
		}
	}
	if (out ~ /^[ \t]*ibv_cmd_[A-Za-z0-9_]+;[ \t]*$/) {
		sub(/^[ \t]*/, "", out)
		sub(/;[ \t]*$/, "", out)
		name[n++] = out
	}
}

END {
	if (n == 0) {
		msg = "cmd_stubs.awk: no ibv_cmd_* symbol in the map"
		print msg > "/dev/stderr"
		exit 1
	}
	print "/* verbs/cmd_stubs.c: generated from verbs/libibverbs.map by"
	print " * verbs/cmd_stubs.awk; do not edit. EOPNOTSUPP for each of the"
	print " * map's kernel-command wrappers (ibv_cmd_*). */"
	print "#include \"verbs/unsupported.h\""
	for (i = 0; i < n; i++) {
		print ""
		print "int " name[i] "(void);"
		print "int " name[i] "(void)"
		print "{"
		print "\treturn emu_verbs_unsupported(__func__);"
		print "}"
	}
}
