# emu/: the emulated HCA (devices, ports, configuration and speed model, GID
# tables and their rtnetlink follower, PD/MR/MW/AH, CQ, SRQ and tag
# matching, the QP state machine and the RC/UC/UD transport engines).
libemucore_la_SOURCES = \
	emu/device.c emu/device.h emu/attr.c \
	emu/sysview.c emu/sysview.h emu/hwcnt.c emu/hwcnt.h \
	emu/async.c emu/async.h \
	emu/config.c emu/config.h emu/config_int.h emu/config_value.c \
	emu/config_keys.c emu/config_grammar.c emu/config_section.c \
	emu/config_env.c \
	emu/speed.c emu/speed.h \
	emu/gid.c emu/gid.h \
	emu/netlink.c emu/netlink.h \
	emu/handle.c emu/handle.h emu/fork.c emu/fork.h \
	emu/mr.c emu/mr.h emu/pd.h emu/odp.c emu/odp.h \
	emu/dm.c emu/dm.h emu/clock.c emu/clock.h \
	emu/pdom.c emu/pdom.h emu/import.c emu/import.h \
	emu/mw.c emu/mw.h \
	emu/ah.c emu/ah.h \
	emu/cq.c emu/cq.h \
	emu/numtab.c emu/numtab.h \
	emu/srq.c emu/srq.h \
	emu/tm.c emu/tm.h \
	emu/qp_attr.c emu/qp_attr.h emu/qp_ex.h \
	emu/qp.c emu/qp.h emu/wr.c emu/wr.h \
	emu/transport.c emu/transport.h emu/tport.h \
	emu/budget.c emu/budget.h emu/pulse.c emu/pulse.h \
	emu/link.c emu/link.h emu/rand.h \
	emu/fault.h emu/fault_rule.c emu/inject.c emu/inject.h \
	emu/rx.c emu/req.c emu/resp.c emu/comp.c emu/cc.c emu/cc.h \
	emu/counters.c emu/counters.h \
	emu/ctl.c emu/ctl.h emu/ctl_cmd.c emu/subnet.c emu/subnet.h \
	emu/ctl_stats.c emu/ctl_stats.h \
	emu/capture.c emu/capture.h emu/trace.c emu/trace.h \
	emu/tracer.c emu/tracer.h emu/watch_ctl.c
libemucore_la_CFLAGS = $(AM_CFLAGS) $(NLROUTE_CFLAGS) $(INIH_CFLAGS)
libemucore_la_LIBADD = libemuutil.la libemunet.la $(NLROUTE_LIBS) \
	$(INIH_LIBS) -lm

# The engine thread (libev loop, calls, timers, fd watches, doorbells) and
# the debug log: what librdmacm's connection manager needs of emu/ too.
libemuutil_la_SOURCES = emu/engine.c emu/engine.h emu/log.c emu/log.h \
	emu/ctl_dir.c emu/ctl_job.c
libemuutil_la_LIBADD = $(EV_LIBS)

EXTRA_DIST += doc/configuration.md doc/design-notes.md doc/semantics.md \
	doc/features.md doc/counters.md
