# The verbs front end: exported entry points, argument checks, ops tables.
libibverbs_la_SOURCES += verbs/device.c verbs/query.c verbs/async.c \
	verbs/ops.c verbs/ops.h verbs/sysfs.c

libibverbs_la_SOURCES += verbs/pd_mr.c verbs/cq.c verbs/qp.c
