# emu/observe/: control and observability: the control socket and its
# commands, counters, the sysfs view and hardware-counter files,
# statistics, packet capture, tracing and the trace stream.
libemucore_la_SOURCES += \
	emu/observe/capture.c emu/observe/capture.h \
	emu/observe/counters.c emu/observe/counters.h \
	emu/observe/ctl.c emu/observe/ctl.h \
	emu/observe/ctl_cmd.c \
	emu/observe/ctl_stats.c emu/observe/ctl_stats.h \
	emu/observe/hooks.c emu/observe/hooks.h \
	emu/observe/hwcnt.c emu/observe/hwcnt.h \
	emu/observe/sysview.c emu/observe/sysview.h \
	emu/observe/trace.c emu/observe/trace.h \
	emu/observe/tracer.c emu/observe/tracer.h \
	emu/observe/watch_ctl.c
