# The public headers, installed under $(includedir)/emuverbs so they never
# shadow the system's <infiniband/verbs.h> (pkg-config points at them).
emuinc_HEADERS += include/infiniband/verbs.h include/infiniband/verbs_api.h \
	include/infiniband/ib_user_ioctl_verbs.h include/infiniband/tm_types.h
