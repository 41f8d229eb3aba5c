/* Placeholder until the PD/MR/AH work lands: these verbs refuse with
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

struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
	return unsupported_null();
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
	return unsupported_errno();
}

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			  int access)
{
	return unsupported_null();
}

struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length,
			       uint64_t iova, int access)
{
	return unsupported_null();
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length,
				uint64_t iova, unsigned int access)
{
	return unsupported_null();
}

int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr,
		 size_t length, int access)
{
	errno = EOPNOTSUPP;
	return IBV_REREG_MR_ERR_INPUT;
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	return unsupported_errno();
}

struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	return unsupported_null();
}

int ibv_destroy_ah(struct ibv_ah *ah)
{
	return unsupported_errno();
}

int ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num,
			struct ibv_wc *wc, struct ibv_grh *grh,
			struct ibv_ah_attr *ah_attr)
{
	return unsupported_minus_one();
}

struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc,
				     struct ibv_grh *grh, uint8_t port_num)
{
	return unsupported_null();
}
