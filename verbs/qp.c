/* Placeholder until the QP work lands: these verbs refuse with
 * EOPNOTSUPP. */
#include <errno.h>
#include <stddef.h>

#include <infiniband/verbs.h>

#pragma GCC diagnostic ignored "-Wunused-parameter"
#undef ibv_reg_mr
#undef ibv_reg_mr_iova

static inline int unsupported_errno(void)
{
	errno = EOPNOTSUPP;
	return EOPNOTSUPP;
}

static inline int unsupported_minus_one(void)
{
	errno = EOPNOTSUPP;
	return -1;
}

static inline void *unsupported_null(void)
{
	errno = EOPNOTSUPP;
	return NULL;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd,
			     struct ibv_qp_init_attr *qp_init_attr)
{
	return unsupported_null();
}

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	return unsupported_errno();
}

int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		 struct ibv_qp_init_attr *init_attr)
{
	return unsupported_errno();
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	return unsupported_errno();
}

struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	return unsupported_null();
}
