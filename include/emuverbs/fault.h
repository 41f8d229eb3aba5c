/* include/emuverbs/fault.h: fault rules on an emulated device, in process,
 * for tests: the grammar of [fault NAME] sections and EMUVERBS_FAULT
 * (doc/fault-injection.md). Exported under EMUVERBS_PRIVATE_1. */
#ifndef EMUVERBS_FAULT_H
#define EMUVERBS_FAULT_H

#include <stddef.h>

#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Add the rules of one line ("ACTION key=value ...", several separated by
 * ';', "name=NAME" naming one) to ctx's device, after those it has. They
 * apply from the next packet on. 0, or an errno (also in errno): EINVAL
 * for a bad rule, with where and why in err (errlen bytes; may be NULL),
 * and then nothing of the line is added.
 */
int emuverbs_fault_add(struct ibv_context *ctx, const char *rules,
		       char *err, size_t errlen);

/* Remove every rule named name from ctx's device: 0, or ENOENT. */
int emuverbs_fault_del(struct ibv_context *ctx, const char *name);

/*
 * The device's rules, one line each in the same grammar with what each
 * matched and did: "NAME: ACTION key=value ... (matched N, acted M)".
 * Returns the length the whole list needs (as snprintf), writing what
 * fits of it into buf; negative with errno on a bad argument.
 */
int emuverbs_fault_list(struct ibv_context *ctx, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
