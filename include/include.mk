# The public headers, installed under $(includedir)/emuverbs so they never
# shadow the system's <infiniband/verbs.h> (pkg-config points at them).
emuinc_HEADERS += include/infiniband/verbs.h include/infiniband/verbs_api.h \
	include/infiniband/ib_user_ioctl_verbs.h include/infiniband/tm_types.h \
	include/infiniband/sa.h include/infiniband/ib.h
# librdmacm's, beside them: $(includedir)/emuverbs/rdma.
emurdma_HEADERS += include/rdma/rdma_cma.h include/rdma/rdma_verbs.h \
	include/rdma/rsocket.h
# emuverbs' own: fault rules and a running port's link for a program's
# tests, as <emuverbs/fault.h> and <emuverbs/port.h>.
emuext_HEADERS += include/emuverbs/fault.h include/emuverbs/port.h
