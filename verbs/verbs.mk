# verbs/: the front end (every exported ibv_* entry point, argument checks,
# the one ops table into emu/, the EOPNOTSUPP rest, the *_str/rate/fork and
# sysfs helpers) as a convenience library, and libibverbs.so.1 made of it
# and the core with rdma-core's symbol versions.
libemufront_la_SOURCES = \
	verbs/device.c verbs/query.c verbs/async.c \
	verbs/ops.c verbs/ops.h verbs/err.h verbs/handle.c verbs/handle.h \
	verbs/sysfs.c \
	verbs/pd_mr.c verbs/cq.c verbs/qp.c verbs/qp_ex.c verbs/qp_ex.h \
	verbs/srq.c verbs/mw.c verbs/fault.c verbs/port.c verbs/counters.c \
	verbs/odp.c verbs/dm.c verbs/clock.c verbs/pdom.c \
	verbs/import.c verbs/import.h \
	verbs/unsupported.c verbs/unsupported.h \
	verbs/strings.c verbs/rate.c verbs/trace.c
# The kernel-command wrappers' EOPNOTSUPP entry points, one per ibv_cmd_*
# symbol of the map (verbs/cmd_stubs.awk says why they can be generated).
nodist_libemufront_la_SOURCES = verbs/cmd_stubs.c
verbs/cmd_stubs.c: $(top_srcdir)/verbs/libibverbs.map \
		$(top_srcdir)/verbs/cmd_stubs.awk
	$(AM_V_GEN)$(MKDIR_P) verbs && \
	$(AWK) -f $(top_srcdir)/verbs/cmd_stubs.awk \
		$(top_srcdir)/verbs/libibverbs.map >$@.tmp && mv $@.tmp $@
CLEANFILES += verbs/cmd_stubs.c
EXTRA_DIST += verbs/cmd_stubs.awk

libibverbs_la_SOURCES =
libibverbs_la_LIBADD = libemufront.la libemucore.la
libibverbs_la_LDFLAGS = $(AM_LDFLAGS) -version-info 1:0:0 -no-undefined \
	-Wl,--no-undefined -Wl,--version-script=$(top_srcdir)/verbs/libibverbs.map
EXTRA_libibverbs_la_DEPENDENCIES = $(top_srcdir)/verbs/libibverbs.map
EXTRA_DIST += verbs/libibverbs.map
