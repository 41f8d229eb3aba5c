# emu/base/: what every room stands on, knowing nothing of the HCA: the
# engine thread (libev loop, calls, timers, fd watches, doorbells), the
# debug log, the runtime directory and job names (libemuutil: what
# librdmacm's connection manager needs too), the handle table, the
# number table, clocks, fork detection and the seeded random source.
libemuutil_la_SOURCES = \
	emu/base/engine.c emu/base/engine.h \
	emu/base/log.c emu/base/log.h \
	emu/base/rundir.c emu/base/rundir.h \
	emu/base/job.c
libemuutil_la_LIBADD = $(EV_LIBS)
libemucore_la_SOURCES += \
	emu/base/clock.c emu/base/clock.h \
	emu/base/fork.c emu/base/fork.h \
	emu/base/handle.c emu/base/handle.h \
	emu/base/numtab.c emu/base/numtab.h \
	emu/base/rand.h
