# tools/: the emuverbs command (a shell front end) and the programs it runs;
# twohost (fork, one QP pair) is a convenience library the demo, the bench
# and two integration tests share; nsview (the namespaces and mounts of
# emuverbs run's /dev and /sys view) one that emuverbs-ns and its unit
# test share.
noinst_LTLIBRARIES += libtwohost.la libnsview.la libctlclient.la
libtwohost_la_SOURCES = tools/twohost.c tools/twohost.h
libnsview_la_SOURCES = tools/nsview.c tools/nsview.h
# The control socket's client (tools/ctl.h): emuverbs-ctl and the tools
# that watch running processes.
libctlclient_la_SOURCES = tools/ctl_client.c tools/ctl.h
libctlclient_la_LIBADD = libemuutil.la

emutooldir = $(pkglibexecdir)
emutool_PROGRAMS = tools/emuverbs-devices tools/emuverbs-demo \
	tools/emuverbs-bench tools/emuverbs-ns tools/emuverbs-ctl \
	tools/emuverbs-stats tools/emuverbs-top tools/emuverbs-trace \
	tools/emuverbs-plot
tools_emuverbs_devices_SOURCES = tools/devices.c
tools_emuverbs_devices_LDADD = libibverbs.la
tools_emuverbs_demo_SOURCES = tools/demo.c
tools_emuverbs_demo_LDADD = libtwohost.la libibverbs.la
tools_emuverbs_bench_SOURCES = tools/bench.c tools/bench.h tools/bench_udp.c \
	tools/bench_emu.c tools/bench_link.c tools/bench_cc.c \
	tools/bench_fabric.c
tools_emuverbs_bench_LDADD = libtwohost.la libibverbs.la
tools_emuverbs_ctl_SOURCES = tools/ctl.c
tools_emuverbs_ctl_LDADD = libctlclient.la
tools_emuverbs_stats_SOURCES = tools/stats.c
tools_emuverbs_stats_LDADD = libctlclient.la
tools_emuverbs_top_SOURCES = tools/top.c
tools_emuverbs_top_LDADD = libctlclient.la
# emuverbs trace (a capture and an event trace of a running process) and
# emuverbs plot (a trace's throughput and events drawn by gnuplot).
tools_emuverbs_trace_SOURCES = tools/trace.c
tools_emuverbs_trace_LDADD = libctlclient.la
tools_emuverbs_plot_SOURCES = tools/plot.c tools/plot.h tools/plot_json.c
# Reads the configuration only (to count devices): the core's config
# module, not the library.
tools_emuverbs_ns_SOURCES = tools/ns.c
tools_emuverbs_ns_LDADD = libnsview.la libemucore.la

bin_SCRIPTS += emuverbs
CLEANFILES += emuverbs
EXTRA_DIST += tools/emuverbs.in
emuverbs: $(top_srcdir)/tools/emuverbs.in Makefile
	$(AM_V_GEN)sed -e 's|@emulibdir[@]|$(emuverbsdir)|g' \
		-e 's|@emutooldir[@]|$(emutooldir)|g' \
		-e 's|@sanpreload[@]|$(SAN_PRELOAD)|g' \
		$(top_srcdir)/tools/emuverbs.in > $@ && chmod +x $@

# What UCX needs of a device and the view emuverbs run gives programs.
EXTRA_DIST += doc/ucx.md
# The capture, the event trace's schema and emuverbs plot, with the
# example the README shows and the script that made it.
EXTRA_DIST += doc/observability.md doc/plot-example.svg \
	scripts/plot-example.sh

# The ICRC's throughput, zlib against isa-l (tools/icrc_bench.c); built,
# never installed or run by the tests.
noinst_PROGRAMS = tools/icrc-bench
tools_icrc_bench_SOURCES = tools/icrc_bench.c
tools_icrc_bench_CFLAGS = $(AM_CFLAGS) $(ZLIB_CFLAGS) $(ISAL_CFLAGS)
tools_icrc_bench_LDADD = libemunet.la $(ISAL_LIBS) $(ZLIB_LIBS)
