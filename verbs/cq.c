/* Placeholder until the CQ work lands: completion queues and channels
 * refuse with EOPNOTSUPP. */
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

struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)
{
	return unsupported_null();
}

int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	return unsupported_errno();
}

int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
		     void **cq_context)
{
	return unsupported_minus_one();
}

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
}

struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe,
			     void *cq_context, struct ibv_comp_channel *channel,
			     int comp_vector)
{
	return unsupported_null();
}

int ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	return unsupported_errno();
}

int ibv_destroy_cq(struct ibv_cq *cq)
{
	return unsupported_errno();
}
