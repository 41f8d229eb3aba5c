# The emuverbs command (a shell front end) and the programs it runs.
emutooldir = $(pkglibexecdir)
emutool_PROGRAMS = tools/emuverbs-devices tools/emuverbs-demo \
	tools/emuverbs-bench
tools_emuverbs_devices_SOURCES = tools/devices.c
tools_emuverbs_devices_LDADD = libibverbs.la
# twohost (fork, one QP pair) is shared with tests/datacheck.mk.
tools_emuverbs_demo_SOURCES = tools/demo.c tools/twohost.c tools/twohost.h
tools_emuverbs_demo_LDADD = libibverbs.la

bin_SCRIPTS += emuverbs
CLEANFILES += emuverbs
EXTRA_DIST += tools/emuverbs.in
emuverbs: $(top_srcdir)/tools/emuverbs.in Makefile
	$(AM_V_GEN)sed -e 's|@emulibdir[@]|$(emuverbsdir)|g' \
		-e 's|@emutooldir[@]|$(emutooldir)|g' \
		-e 's|@sanpreload[@]|$(SAN_PRELOAD)|g' \
		$(top_srcdir)/tools/emuverbs.in > $@ && chmod +x $@
tools_emuverbs_bench_SOURCES = tools/bench.c tools/twohost.c tools/twohost.h
tools_emuverbs_bench_LDADD = libibverbs.la
