/* Front end of device discovery and opening: ibv_get_device_list and its
 * companions, ibv_open_device / ibv_close_device. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu/device/device.h"
#include "emu/emu.h"
#include "emu/objects/import.h"
#include "emu/base/log.h"
#include "verbs/err.h"
#include "verbs/import.h"
#include "verbs/ops.h"

struct ibv_device **ibv_get_device_list(int *num_devices)
{
	struct emu_device **devs;
	struct ibv_device **list;
	unsigned int n, i;
	int rc;

	emu_init();
	rc = emu_registry_get(&devs, &n);
	if (rc)
		return verbs_null(emu_refuse(rc, "ibv_get_device_list: the "
					     "device registry failed (errno "
					     "%d)", rc));
	list = calloc(n + 1, sizeof(*list));
	if (!list)
		return verbs_null(ENOMEM);
	for (i = 0; i < n; i++)
		list[i] = &devs[i]->ibdev;
	if (num_devices)
		*num_devices = (int)n;
	return list;
}

/* Devices live as long as the process: a freed list never invalidates a
 * device another list or an open context still points to. */
void ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

const char *ibv_get_device_name(struct ibv_device *device)
{
	if (!device)
		return verbs_null(emu_refuse(EINVAL, "ibv_get_device_name: "
					     "device is NULL"));
	return device->name;
}

__be64 ibv_get_device_guid(struct ibv_device *device)
{
	if (!device) {
		errno = emu_refuse(EINVAL, "ibv_get_device_guid: device is "
				   "NULL");
		return 0;
	}
	return htobe64(emu_dev(device)->node_guid);
}

int ibv_get_device_index(struct ibv_device *device)
{
	if (!device) {
		errno = emu_refuse(EINVAL, "ibv_get_device_index: device is "
				   "NULL");
		return -1;
	}
	return (int)emu_dev(device)->index;
}

struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	struct emu_context *ctx;

	if (!device)
		return verbs_null(emu_refuse(EINVAL, "ibv_open_device: device "
					     "is NULL"));
	ctx = emu_context_open(emu_dev(device));
	if (!ctx) {
		emu_log(EMU_LOG_VERBS, "ibv_open_device: %s: cannot open "
			"(errno %d)", device->name, errno);
		return NULL;
	}
	emu_verbs_init_context(ctx);
	/* No kernel behind us, but programs dup or poll this fd (to import
	 * the context, say): a real descriptor, a file of its own. */
	ctx->vctx.context.cmd_fd = emu_verbs_cmd_fd(ctx);
	return &ctx->vctx.context;
}

int ibv_close_device(struct ibv_context *context)
{
	if (!context) {
		errno = emu_refuse(EINVAL, "ibv_close_device: context is "
				   "NULL");
		return -1;
	}
	/* A fork() child closing what it inherited (at exit, say) lets go
	 * of its own copy of the descriptor and nothing else: the engine,
	 * the sockets, the objects and their files are the parent's, as
	 * closing an inherited uverbs descriptor leaves the parent's
	 * context alone. */
	if (emu_ctx_inherited(emu_ctx(context))) {
		emu_log(EMU_LOG_VERBS, "ibv_close_device: the context is the "
			"parent process's: only this process's descriptor is "
			"closed");
		if (context->cmd_fd >= 0)
			close(context->cmd_fd);
		context->cmd_fd = -1;
		return 0;
	}
	pthread_mutex_destroy(&context->mutex);
	emu_import_family_leave(emu_ctx(context));
	if (context->cmd_fd >= 0)
		close(context->cmd_fd);
	emu_context_close(emu_ctx(context));
	return 0;
}
