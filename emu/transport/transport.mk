# emu/transport/: the RoCE transport engines: receive dispatch, the
# requester, responder and completer, the send budget, peer pulses,
# congestion control, and the fault rules applied to packets.
libemucore_la_SOURCES += \
	emu/transport/budget.c emu/transport/budget.h \
	emu/transport/cc.c emu/transport/cc.h \
	emu/transport/comp.c \
	emu/transport/hooks.c emu/transport/hooks.h \
	emu/transport/inject.c emu/transport/inject.h \
	emu/transport/pulse.c emu/transport/pulse.h \
	emu/transport/req.c \
	emu/transport/resp.c \
	emu/transport/rx.c \
	emu/transport/tport.h \
	emu/transport/transport.c emu/transport/transport.h \
	emu/transport/wire.c emu/transport/wire.h
