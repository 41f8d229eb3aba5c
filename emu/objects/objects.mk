# emu/objects/: what verbs create and the transport reads and writes, and
# the device attributes they add up to: PDs and protection domains shared
# across processes, MRs (with ODP and imports), MWs, device memory, AHs,
# CQs, SRQs and their tag lists, QPs, their attribute rules and the
# work-request table.
libemucore_la_SOURCES += \
	emu/objects/ah.c emu/objects/ah.h \
	emu/objects/attr.c \
	emu/objects/cq.c emu/objects/cq.h \
	emu/objects/dm.c emu/objects/dm.h \
	emu/objects/hooks.c emu/objects/hooks.h \
	emu/objects/import.c emu/objects/import.h \
	emu/objects/mr.c emu/objects/mr.h \
	emu/objects/mw.c emu/objects/mw.h \
	emu/objects/names.c emu/objects/names.h \
	emu/objects/odp.c emu/objects/odp.h \
	emu/objects/pd.c emu/objects/pd.h \
	emu/objects/pdom.c emu/objects/pdom.h \
	emu/objects/qp.c emu/objects/qp.h \
	emu/objects/qp_attr.c emu/objects/qp_attr.h \
	emu/objects/qp_complete.c \
	emu/objects/qp_flush.c \
	emu/objects/qp_int.h \
	emu/objects/qp_modify.c \
	emu/objects/qp_post.c \
	emu/objects/qp_sge.c \
	emu/objects/qp_ex.h \
	emu/objects/qpc.h \
	emu/objects/srq.c emu/objects/srq.h \
	emu/objects/tm.c emu/objects/tm.h \
	emu/objects/wr.c emu/objects/wr.h \
	emu/objects/xport.c emu/objects/xport.h
